"""Published snapshots: build one DuckDB file from the tables, publish it atomically, read it.

Modules, by role (nothing here imports Dagster):

- `layout`    where snapshots live under the data root and how `LATEST` is read and swapped;
- `names`     name normalization shared by the builder (aliases) and the reader (queries);
- `schema`    the snapshot's tables: names, descriptions, column order;
- `companies` the companies and aliases tables, from filings and SEC reference data;
- `builder`   tables → one DuckDB file (derived tables computed in SQL);
- `manifest`  the manifest model and the code version;
- `publish`   staging folder → fsync → rename → atomic `LATEST` swap → retention;
- `reader`    read-only access to the current snapshot with hot reload (what `mcp_server` uses).

This package's `__init__` imports nothing so that `mcp_server`, which imports only `reader`,
does not pull in Polars or the builder.
"""
