"""The working tables: one schema per table, the typed records that cross stages, and the
Parquet store they are kept in."""
