"""The graph_snapshot asset: materialized through Dagster over tables in the store, it
publishes a snapshot the MCP reader serves, and its check passes."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import polars as pl

from assets.graph import knowledge_graph, resolved_entities
from assets.resources import SnapshotStoreResource, build_resources
from assets.snapshot import graph_snapshot
from graphrag_core.settings import Settings, SnapshotSettings
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.reader import SnapshotReader
from graphrag_core.tables.schemas import VALIDATED_TRIPLES, frame
from graphrag_core.tables.table_store import TableStore
from pipelines.definitions import build_definitions, corpus_asset_keys
from tests import snapshot_sample as sample


def _reference_folder(root: Path) -> Path:
    """A local source folder holding only SEC reference files (what the corpus ships)."""
    ref = root / "reference"
    (ref / "submissions").mkdir(parents=True)
    tickers = {
        str(i): {"cik_str": int(r["cik"]), "ticker": r["ticker"], "title": r["title"]}
        for i, r in enumerate(sample.TICKER_ROWS)
    }
    (ref / "company_tickers.json").write_text(json.dumps(tickers))
    (
        ref / "submissions" / f"NVDA_CIK{sample.NVDA}_NVIDIA_submissions_asof-2026-03-04.json"
    ).write_text(json.dumps(sample.NVDA_SUBMISSIONS))
    return root


def _write_partitions(data_root: Path) -> None:
    store = TableStore(data_root)
    full = sample.sample_tables()
    for fid in full.filings.get_column("filing_id"):
        store.write("raw_filings", full.filings.filter(pl.col("filing_id") == fid), fid)
        store.write("section_chunks", full.chunks.filter(pl.col("filing_id") == fid), fid)
        store.write(
            "metric_observations", full.metric_observations.filter(pl.col("filing_id") == fid), fid
        )
    triples = frame(sample.TRIPLE_ROWS, VALIDATED_TRIPLES)
    for fid in full.filings.get_column("filing_id"):
        store.write("validated_triples", triples.filter(pl.col("filing_id") == fid), fid)


GRAPH_ASSETS = [resolved_entities, knowledge_graph, graph_snapshot]


def test_graph_snapshot_asset_publishes(data_root, tmp_path):
    _write_partitions(data_root)
    corpus = _reference_folder(tmp_path / "corpus")
    result = dg.materialize(
        GRAPH_ASSETS,
        resources=build_resources(
            Settings(data_root=data_root, corpus=corpus, snapshots=SnapshotSettings(retain=2))
        ),
    )
    assert result.success
    [materialization] = result.asset_materializations_for_node("graph_snapshot")
    meta = materialization.metadata
    version = SnapshotStore(data_root).current_version()
    assert meta["version"].value == version
    assert meta["as_of"].value == "2025-08-27"
    assert meta["rows_filings"].value == 6 and meta["rows_metric_observations"].value == 47
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert checks["current_snapshot_opens"].passed and checks["edges_have_evidence"].passed
    assert meta["rows_nodes"].value > 0 and meta["rows_edges"].value > 0

    reader = SnapshotReader(data_root)
    with reader.lease() as snap:
        nvda = snap.query("SELECT name, sic, tickers FROM companies WHERE cik = ?", [sample.NVDA])
        assert nvda == [{"name": "NVIDIA CORPORATION", "sic": "3674", "tickers": ["NVDA"]}]
    reader.close()


def test_graph_snapshot_without_reference_data(data_root, tmp_path):
    """No source configured at all: the snapshot is still published, from the filings alone."""
    _write_partitions(data_root)
    result = dg.materialize(
        GRAPH_ASSETS,
        resources=build_resources(Settings(data_root=data_root, corpus=tmp_path / "missing")),
    )
    assert result.success
    reader = SnapshotReader(data_root)
    with reader.lease() as snap:
        assert snap.query("SELECT sic FROM companies WHERE cik = ?", [sample.NVDA]) == [
            {"sic": None}
        ]
    reader.close()


def test_definitions_register_the_snapshot(data_root):
    defs = build_definitions(Settings(data_root=data_root))
    assert dg.AssetKey("graph_snapshot") in corpus_asset_keys(defs)
    assert isinstance(defs.resources["snapshots"], SnapshotStoreResource)
    graph = defs.resolve_asset_graph()
    # Every table the snapshot publishes is an upstream dependency, so a blocking check on any
    # of them guards it; the graph stage's assets are corpus-wide like the snapshot.
    assert graph.get(dg.AssetKey("graph_snapshot")).parent_keys == {
        dg.AssetKey(k)
        for k in (
            "raw_filings",
            "section_chunks",
            "xbrl_facts",
            "metric_observations",
            "validated_triples",
            "resolved_entities",
            "knowledge_graph",
            "chunk_index",
            "community_reports",
            "filing_themes",
        )
    }
    assert graph.get(dg.AssetKey("knowledge_graph")).parent_keys == {
        dg.AssetKey("resolved_entities")
    }
    assert {dg.AssetKey("resolved_entities"), dg.AssetKey("knowledge_graph")} <= set(
        corpus_asset_keys(defs)
    )


def test_chunk_index_asset_is_published_with_the_snapshot(data_root, tmp_path):
    """chunk_index then graph_snapshot: the manifest and the snapshot's chunk_index table name
    the index version; materializing again embeds nothing and publishes nothing new."""
    from assets.retrieval import chunk_index

    _write_partitions(data_root)
    resources = build_resources(Settings(data_root=data_root, corpus=tmp_path / "missing"))
    first = dg.materialize([chunk_index, graph_snapshot], resources=resources)
    assert first.success
    [index_mat] = first.asset_materializations_for_node("chunk_index")
    assert index_mat.metadata["embedded_chunks"].value == index_mat.metadata["chunks"].value > 0
    store = SnapshotStore(data_root)
    version = store.current_version()
    ref = store.manifest(version).chunk_index
    assert ref is not None and ref.version == index_mat.metadata["version"].value
    reader = SnapshotReader(data_root)
    with reader.lease() as snap:
        assert snap.query("SELECT version, chunks FROM chunk_index") == [
            {"version": ref.version, "chunks": ref.chunks}
        ]
    reader.close()

    again = dg.materialize([chunk_index, graph_snapshot], resources=resources)
    [index_mat] = again.asset_materializations_for_node("chunk_index")
    assert (index_mat.metadata["embedded_chunks"].value, index_mat.metadata["changed"].value) == (
        0,
        False,
    )
    assert store.current_version() == version
