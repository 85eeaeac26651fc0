"""A snapshot published before a column was added to its tables (snapshot_schema.ADDED_COLUMNS)
is still served: the reader shadows the table by a temporary view holding the column as null,
and leaves the file as published. A server upgraded before the next publish answers."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from graphrag_core.common.ids import file_sha256
from graphrag_core.store import layout
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.reader import SnapshotReader, missing_column_views
from graphrag_core.store.snapshot_vocabulary import ADDED_COLUMNS
from graphrag_core.tables import schemas
from graphrag_core.tables.duckdb_store import sql_type
from tests import snapshot_sample as sample
from tests.mcp_client import call, session


def _age(data_root: Path, version: str) -> Path:
    """Drop the added columns from a published snapshot, as an older code would have written
    it, and put its manifest right again (size and sha256)."""
    folder = layout.version_dir(layout.snapshots_root(data_root), version)
    db = folder / layout.DB_FILE
    con = duckdb.connect(str(db))
    for table, columns in ADDED_COLUMNS.items():
        for column in columns:
            con.execute(f'ALTER TABLE {table} DROP COLUMN "{column}"')
    con.execute("CHECKPOINT")
    con.close()
    manifest_path = folder / layout.MANIFEST_FILE
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["database"]["bytes"] = db.stat().st_size
    manifest["database"]["sha256"] = file_sha256(db)
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    return db


async def test_an_older_snapshot_is_served_with_the_added_columns_as_null(data_root):
    version = SnapshotStore(data_root).publish(sample.sample_tables()).version
    db = _age(data_root, version)
    digest = file_sha256(db)
    async with session(data_root) as client:
        out = await call(client, "neighbors", entity_id="NVDA")
        [edge] = out["edges"]
        citation = edge["citations"][0]
        assert citation["quote"] == sample.RISK_QUOTE
        assert (citation["method"], citation["confidence"]) == (None, None)
    assert file_sha256(db) == digest  # the published file is untouched
    with SnapshotReader(data_root).lease() as snap:
        got = snap.execute(
            "SELECT v.method, v.confidence, e.bound FROM edges e JOIN edge_evidence v "
            "USING (edge_id) LIMIT 1"
        )
        assert got == [(None, None, None)]


def test_the_added_columns_are_typed_as_the_tables_declare_them():
    declared = {"edges": schemas.EDGES, "graph_adjacency": schemas.EDGES}
    declared["edge_evidence"] = schemas.EDGE_EVIDENCE
    for table, columns in ADDED_COLUMNS.items():
        for column, sql in columns.items():
            assert sql_type(declared[table][column]) == sql, (table, column)


def test_a_current_snapshot_gets_no_view(data_root):
    version = SnapshotStore(data_root).publish(sample.sample_tables()).version
    folder = layout.version_dir(layout.snapshots_root(data_root), version)
    con = duckdb.connect(str(folder / layout.DB_FILE), read_only=True)
    try:
        assert missing_column_views(con) == []
    finally:
        con.close()
    other = duckdb.connect(":memory:")
    assert missing_column_views(other) == []  # a file without the tables is left alone
    other.execute('CREATE TABLE edge_evidence (edge_id VARCHAR, "method" VARCHAR)')
    [view] = missing_column_views(other)
    assert '"confidence"' in view and '"method"' not in view  # only what is missing
    other.execute(view)
    assert other.execute("SELECT edge_id, method, confidence FROM edge_evidence").fetchall() == []
