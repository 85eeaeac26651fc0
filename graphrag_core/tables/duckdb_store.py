"""The base of a working store: one DuckDB file a corpus-wide stage updates in place (the graph
stage's `graph.duckdb`, the communities stage's `communities.duckdb`), or an in-memory database.

What every working store needs, written once:

- a connection that waits while another process holds the file's lock (DuckDB lets one process
  write a file: two steps of one run on a distributed executor, or a CLI command meeting a run,
  take turns instead of failing);
- its schema created only when the DDL this code defines differs from the DDL the file was last
  brought up to (its digest is kept in `meta`): every update opens the store, and re-running a
  dozen DDL statements, each a catalog write, was most of what a small update cost;
- `meta`, a key/value table read once when the store opens and cached (the connection is the
  file's only writer);
- transactions that roll back on any error, the cached meta with them;
- one parameter style, named (`$name`) parameters, with every statement a constant in the
  store's `queries.py`; lists of ids go in as list parameters or as a registered relation of a
  fixed name (`relation`), never as SQL text.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from graphrag_core.common.ids import sha256_text
from graphrag_core.tables.schemas import Schema, conform, empty

Params = Mapping[str, Any] | None

_META_DDL = "CREATE TABLE IF NOT EXISTS meta (key VARCHAR, value VARCHAR)"
_META_READ = "SELECT key, value FROM meta"
_META_UPDATE = "UPDATE meta SET value = $value WHERE key = $key"
_META_INSERT = "INSERT INTO meta VALUES ($key, $value)"
SCHEMA_DIGEST_KEY = "schema_digest"


# -- DDL from the Polars schemas ---------------------------------------------------------------
def sql_type(dtype: Any) -> str:
    """The DuckDB type of a Polars dtype (the working stores' columns are declared by the same
    schemas as the Parquet tables)."""
    if dtype == pl.String:
        return "VARCHAR"
    if dtype == pl.Float64:
        return "DOUBLE"
    if dtype == pl.Int64:
        return "BIGINT"
    if dtype == pl.Int32:
        return "INTEGER"
    if dtype == pl.Boolean:
        return "BOOLEAN"
    if dtype == pl.Date:
        return "DATE"
    if isinstance(dtype, pl.Datetime):
        return "TIMESTAMPTZ" if dtype.time_zone else "TIMESTAMP"
    if isinstance(dtype, pl.List):
        return f"{sql_type(dtype.inner)}[]"
    if isinstance(dtype, pl.Struct):
        return "STRUCT(" + ", ".join(f'"{f.name}" {sql_type(f.dtype)}' for f in dtype.fields) + ")"
    raise TypeError(f"no DuckDB type for {dtype}")


def create_table(name: str, schema: Schema, extra: str = "") -> str:
    """`CREATE TABLE IF NOT EXISTS` of a schema (names from code, never from input)."""
    cols = ", ".join(f'"{c}" {sql_type(t)}' for c, t in schema.items())
    return f"CREATE TABLE IF NOT EXISTS {name} ({cols}{', ' + extra if extra else ''})"


def add_columns(name: str, schema: Schema, columns: Sequence[str]) -> list[str]:
    """The statements that add columns appended to a schema after a store was first built."""
    return [
        f'ALTER TABLE {name} ADD COLUMN IF NOT EXISTS "{c}" {sql_type(schema[c])}' for c in columns
    ]


def schema_digest(statements: Sequence[str]) -> str:
    """Of a store's DDL: a file whose meta holds it needs none of it run."""
    return sha256_text("\n".join(statements))


# -- connection --------------------------------------------------------------------------------
def connect_waiting(
    database: str, config: Mapping[str, Any], timeout_s: float, *, read_only: bool = False
) -> duckdb.DuckDBPyConnection:
    """`duckdb.connect`, waiting up to `timeout_s` while another process holds the file's lock."""
    deadline = time.monotonic() + timeout_s
    pause = 0.05
    while True:
        try:
            return duckdb.connect(database, read_only=read_only, config=dict(config))
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 1.0)


def file_size(path: Path) -> int | None:
    """Bytes of a store file, None when there is none yet (a build from scratch)."""
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return None


class ArrowStream:
    """A Polars frame offered to DuckDB as an Arrow C stream (the PyCapsule interface), which
    DuckDB scans as it is; registering the frame itself converts it through pyarrow, whose
    import alone cost more than the inserts of a one-filing update. Scanned as often as needed
    (each scan asks for a new stream)."""

    def __init__(self, frame: pl.DataFrame):
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.frame.__arrow_c_stream__(requested_schema)


def id_frame(values: Sequence[str] | Any) -> pl.DataFrame:
    """One String column `id`: a list of ids as a relation SQL can join."""
    return pl.DataFrame({"id": pl.Series(list(values), dtype=pl.String)})


class DuckDBStore:
    """A working store in one DuckDB file (or in memory when `path` is None).

    A subclass lists its DDL in `schema_statements()` and may look at the file before and after
    it runs (`_before_schema` / `_after_schema`, inside the same transaction: a migration)."""

    def __init__(
        self,
        path: Path | None,
        *,
        read_only: bool = False,
        config: Mapping[str, Any] | None = None,
        lock_timeout_s: float = 0.0,
    ):
        self.path = path
        self._meta: dict[str, str] = {}
        if path is not None and not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
        database = str(path) if path is not None else ":memory:"
        self.con = connect_waiting(database, config or {}, lock_timeout_s, read_only=read_only)
        try:
            self._load_meta()
            if not read_only:
                self._ensure_schema()
        except BaseException:
            self.con.close()  # a failed migration must not keep the file locked
            raise

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> DuckDBStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ------------------------------------------------------------------------------
    def schema_statements(self) -> Sequence[str]:
        """Every DDL statement of the store, in order (the meta table comes first by itself)."""
        return ()

    def _before_schema(self) -> Any:
        """What a migration needs to know of the file before the DDL runs."""
        return None

    def _after_schema(self, before: Any) -> None:
        """A migration's writes after the DDL ran (`before`: what `_before_schema` returned)."""

    def _ensure_schema(self) -> bool:
        """Bring the file up to this code's DDL unless its meta says it is; True when it ran."""
        statements = [_META_DDL, *self.schema_statements()]
        digest = schema_digest(statements)
        if self.get_meta(SCHEMA_DIGEST_KEY) == digest:
            return False
        with self.transaction():
            before = self._before_schema()
            for sql in statements:
                self.con.execute(sql)
            self._after_schema(before)
            self.set_meta(SCHEMA_DIGEST_KEY, digest)
        return True

    # -- meta --------------------------------------------------------------------------------
    def _load_meta(self) -> None:
        try:
            self._meta = {str(k): str(v) for k, v in self.con.execute(_META_READ).fetchall()}
        except duckdb.CatalogException:
            self._meta = {}  # a new file: no meta table yet

    def get_meta(self, key: str) -> str | None:
        return self._meta.get(key)

    def set_meta(self, key: str, value: object) -> None:
        text = str(value)
        sql = _META_UPDATE if key in self._meta else _META_INSERT
        self.con.execute(sql, {"key": key, "value": text})
        self._meta[key] = text

    def meta_int(self, key: str) -> int:
        return int(self.get_meta(key) or 0)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.con.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self.con.execute("ROLLBACK")
            self._load_meta()  # what the rolled-back transaction set is gone from the table too
            raise
        self.con.execute("COMMIT")

    # -- statements --------------------------------------------------------------------------
    def run(self, sql: str, params: Params = None) -> list[tuple[Any, ...]]:
        """Execute and fetch to the end (DuckDB refuses new work while a result is unfinished)."""
        return self.con.execute(sql, params).fetchall()

    def one(self, sql: str, params: Params = None) -> Any:
        """The first column of the first row, None when there is none."""
        rows = self.run(sql, params)
        return rows[0][0] if rows else None

    def count(self, sql: str, params: Params = None) -> int:
        """A count, or the rows a DELETE / INSERT / UPDATE changed (DuckDB returns it)."""
        return int(self.one(sql, params) or 0)

    def frame(self, sql: str, params: Params = None, schema: Schema | None = None) -> pl.DataFrame:
        """The result as a frame: conformed to `schema` when given (its empty frame when no row
        came back), else as DuckDB typed it."""
        with warnings.catch_warnings():
            # DuckDB warns that Arrow output of an execute() copies the rows once; these results
            # are read once, and execute() is what takes parameters.
            warnings.simplefilter("ignore", UserWarning)
            table = self.con.execute(sql, params).to_arrow_table()
        if schema is not None:
            if table is None or table.num_rows == 0:
                return empty(schema)
            return conform(pl.from_arrow(table), schema)  # type: ignore[arg-type]
        frame = pl.from_arrow(table)
        assert isinstance(frame, pl.DataFrame)
        return frame

    @contextmanager
    def relation(self, name: str, frame: pl.DataFrame) -> Iterator[None]:
        """`frame` readable by the statements run inside as the relation `name` (a constant the
        store's queries name), unregistered after."""
        self.con.register(name, ArrowStream(frame))
        try:
            yield
        finally:
            self.con.unregister(name)

    def insert(self, sql: str, frame: pl.DataFrame, name: str = "fresh") -> int:
        """Run an INSERT that reads `frame` as the relation `name`; the rows it inserted."""
        if not frame.height:
            return 0
        with self.relation(name, frame):
            return self.count(sql)
