"""The working-store base (graphrag_core/tables/duckdb_store.py) and the two stores on it: both
wait for another process's lock, a transaction rolls back whole (meta included), a changed DDL
is noticed by its digest and run once, and no statement is SQL text built in a store module."""

from __future__ import annotations

import ast
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pytest

from graphrag_core.graph import queries as graph_queries
from graphrag_core.graph.communities import queries as community_queries
from graphrag_core.graph.communities.store import CommunityStore
from graphrag_core.graph.graph_store import GraphStore
from graphrag_core.tables.duckdb_store import SCHEMA_DIGEST_KEY, DuckDBStore, sql_type

ROOT = Path(__file__).resolve().parent.parent
HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
open(sys.argv[2], "w").close()
time.sleep(float(sys.argv[3]))
con.close()
"""


@contextmanager
def held(path: Path, seconds: float) -> Iterator[subprocess.Popen[bytes]]:
    """Another process holding `path` open for writing for `seconds`."""
    ready = path.with_suffix(".ready")
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(ready), str(seconds)])
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert proc.poll() is None, "the holding process ended before it held the file"
            assert time.monotonic() < deadline, "the holding process never held the file"
            time.sleep(0.02)
        yield proc
    finally:
        proc.wait(timeout=120)


STORES: list[tuple[str, Any]] = [
    ("graph", lambda path, wait: GraphStore(path, lock_timeout_s=wait)),
    ("communities", lambda path, wait: CommunityStore(path, lock_timeout_s=wait)),
]


@pytest.mark.parametrize(("name", "open_store"), STORES, ids=[s[0] for s in STORES])
def test_both_stores_wait_for_another_process_lock(tmp_path: Path, name: str, open_store):
    path = tmp_path / f"{name}.duckdb"
    open_store(path, 0.0).close()  # built once, as a run would have
    with held(path, 1.5) as holder:
        with pytest.raises(duckdb.IOException, match="(?i)lock"):
            open_store(path, 0.0)  # no wait: refused while held
        started = time.monotonic()
        store = open_store(path, 60.0)
        waited = time.monotonic() - started
    try:
        assert holder.returncode == 0
        assert waited > 0.2  # it did wait for the holder, rather than open beside it
        assert store.get_meta(SCHEMA_DIGEST_KEY)
    finally:
        store.close()


def test_the_wait_is_bounded(tmp_path: Path):
    path = tmp_path / "communities.duckdb"
    CommunityStore(path).close()
    with held(path, 4.0):
        started = time.monotonic()
        with pytest.raises(duckdb.IOException, match="(?i)lock"):
            CommunityStore(path, lock_timeout_s=0.5)
        assert time.monotonic() - started < 3.5


def test_a_failed_transaction_leaves_tables_and_meta_as_they_were(tmp_path: Path):
    path = tmp_path / "graph.duckdb"
    with GraphStore(path) as store:
        with store.transaction():
            store.set_meta("seq", 3)
            store.run("INSERT INTO graph_updates VALUES (1, ['f'], 0, 0)")
        with pytest.raises(RuntimeError, match="midway"):
            with store.transaction():
                store.set_meta("seq", 4)
                store.set_meta("new_key", "x")
                store.run("DELETE FROM graph_updates")
                raise RuntimeError("midway")
        # The cached meta went back with the table.
        assert store.meta_int("seq") == 3
        assert store.get_meta("new_key") is None
        assert store.count("SELECT count(*) FROM graph_updates") == 1
    with GraphStore(path, read_only=True) as again:
        assert again.meta_int("seq") == 3
        assert again.get_meta("new_key") is None
        assert again.count("SELECT count(*) FROM graph_updates") == 1


def test_a_failed_community_transaction_rolls_back(tmp_path: Path):
    with CommunityStore(tmp_path / "c.duckdb") as store:
        with pytest.raises(duckdb.Error):
            with store.transaction():
                store.set_meta("applied_update", 7)
                store.run("INSERT INTO filings_seen VALUES ('a', 'd')")
                store.run("SELECT * FROM no_such_table")
        assert store.applied_update() == 0
        assert store.count("SELECT count(*) FROM filings_seen") == 0


class _Tiny(DuckDBStore):
    """A store whose DDL a test can change between openings."""

    statements: Sequence[str] = ("CREATE TABLE IF NOT EXISTS a (x INTEGER)",)
    migrated: list[Any] = []
    fail_after: bool = False

    def schema_statements(self) -> Sequence[str]:
        return self.statements

    def _before_schema(self) -> Any:
        return self.count("SELECT count(*) FROM information_schema.tables WHERE table_name = 'a'")

    def _after_schema(self, before: Any) -> None:
        type(self).migrated.append(before)
        if self.fail_after:
            raise RuntimeError("migration failed")


def test_a_changed_schema_is_noticed_by_its_digest_and_run_once(tmp_path: Path):
    path = tmp_path / "tiny.duckdb"
    _Tiny.migrated = []
    with _Tiny(path) as store:
        first = store.get_meta(SCHEMA_DIGEST_KEY)
    assert _Tiny.migrated == [0]  # ran on the new file, which had no table yet
    with _Tiny(path) as store:
        assert store.get_meta(SCHEMA_DIGEST_KEY) == first
    assert _Tiny.migrated == [0]  # same DDL: nothing ran

    class Grown(_Tiny):
        statements = (*_Tiny.statements, "CREATE TABLE IF NOT EXISTS b (y VARCHAR)")

    with Grown(path) as store:
        assert store.get_meta(SCHEMA_DIGEST_KEY) not in (None, first)
        assert store.count("SELECT count(*) FROM b") == 0
    assert _Tiny.migrated == [0, 1]  # the migration saw the old file (table a there)

    class Broken(_Tiny):
        statements = (*Grown.statements, "CREATE TABLE IF NOT EXISTS c (z BIGINT)")
        fail_after = True

    with pytest.raises(RuntimeError, match="migration failed"):
        Broken(path)
    with Grown(path) as store:  # the failed migration's DDL and digest were rolled back
        assert (
            store.count("SELECT count(*) FROM information_schema.tables WHERE table_name = 'c'")
            == 0
        )


def test_the_graph_store_reruns_no_ddl_when_opened_again(tmp_path: Path):
    path = tmp_path / "graph.duckdb"
    GraphStore(path).close()
    with GraphStore(path) as store:
        # The digest matched: `_ensure_schema` would return False, having run nothing.
        assert store._ensure_schema() is False


def test_sql_types_cover_both_stores_columns():
    import polars as pl

    assert sql_type(pl.Datetime("us", "UTC")) == "TIMESTAMPTZ"
    assert sql_type(pl.List(pl.Struct({"a": pl.String}))) == 'STRUCT("a" VARCHAR)[]'
    with pytest.raises(TypeError):
        sql_type(pl.Object)


@pytest.mark.parametrize(
    "ref", ["", " ", "'; DROP TABLE mentions; --", "%", "_", "\x00", "ü" * 300, "$ref"]
)
def test_odd_ids_reach_the_stores_as_values(tmp_path: Path, ref: str):
    with GraphStore(tmp_path / "graph.duckdb") as graph:
        assert graph.review_item(ref) is None
        assert graph.filings_contribution([ref]).new_entities == {}
        assert graph.review_queue(limit=0).height == 0
        assert graph.count("SELECT count(*) FROM mentions") == 0  # the table is still there
    with CommunityStore(tmp_path / "c.duckdb") as communities:
        assert communities.mark_dirty([ref, ref + "'"]) == 0
        assert communities.count("SELECT count(*) FROM communities") == 0


# -- every statement a store runs is a constant of its queries module --------------------------
STORE_MODULES = [
    ROOT / "graphrag_core/graph/graph_store.py",
    ROOT / "graphrag_core/graph/graph_store_entities.py",
    ROOT / "graphrag_core/graph/graph_store_model.py",
    ROOT / "graphrag_core/graph/communities/store.py",
    ROOT / "graphrag_core/graph/communities/store_model.py",
]
RUNNERS = {"run", "one", "count", "frame", "insert", "execute", "executemany"}


def built_statements(path: Path) -> list[str]:
    """Calls that run SQL whose text is built in the module: an f-string, a concatenation, a
    `.format`/`.replace` call or a literal, rather than a name bound to a constant."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in RUNNERS
            and node.args
        ):
            continue
        sql = node.args[0]
        if not isinstance(sql, ast.Name | ast.Attribute):
            found.append(f"{path.name}:{node.lineno} {ast.unparse(sql)[:60]}")
    return found


def test_no_store_builds_sql_text():
    assert [f for path in STORE_MODULES for f in built_statements(path)] == []


def test_the_fence_catches_a_built_statement(tmp_path: Path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "def f(store, ids):\n"
        "    store.run(f'SELECT * FROM t WHERE id IN {ids}')\n"
        "    store.con.execute('SELECT ' + ids)\n"
        "    store.count(q.CONSTANT)\n",
        encoding="utf-8",
    )
    assert len(built_statements(planted)) == 2


@pytest.mark.parametrize("module", [graph_queries, community_queries], ids=["graph", "community"])
def test_queries_use_named_parameters_only(module):
    import re

    statements = {
        name: value
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, str)
    }
    assert statements
    for name, sql in statements.items():
        assert "?" not in sql, f"{name}: a positional parameter"
        # A placeholder left for string substitution, as {AFFECTED} and {wanted} were.
        assert not re.search(r"\{[A-Za-z_]+\}", sql), f"{name}: a substitution field"
