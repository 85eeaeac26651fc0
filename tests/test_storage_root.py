"""The table store's root is a setting that takes a local folder or an fsspec URL: the same
operations (tables, documents, text, check verdicts, removal) on memory:// as on disk."""

from __future__ import annotations

import uuid

import polars as pl
import pytest
from upath import UPath

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.operations.removal import remove_filing
from graphrag_core.settings import Settings, tables_root
from graphrag_core.tables.check_results import blocking_failures, record_checks
from graphrag_core.tables.schemas import CHUNKS, frame
from graphrag_core.tables.table_store import TableStore


def _chunk(filing_id: str, n: int) -> dict:
    return {
        "chunk_id": f"{filing_id}:{n}",
        "filing_id": filing_id,
        "section": "8-K/Item 2.02",
        "kind": "prose",
        "ordinal": n,
        "text": f"text {n}",
        "char_start": 0,
        "char_end": 6,
    }


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_store_on_a_local_folder_and_on_an_fsspec_url(kind, tmp_path):
    root = str(tmp_path / "tables") if kind == "local" else f"memory://graphrag-{uuid.uuid4().hex}"
    store = TableStore(root)
    assert isinstance(store.root, UPath) == (kind == "memory")
    f1, f2 = "sha-00000000000000f1", "sha-00000000000000f2"  # filing ids name files: real ones
    for fid in (f1, f2):
        store.write("section_chunks", frame([_chunk(fid, 0), _chunk(fid, 1)], CHUNKS), fid)
        store.write_text(fid, "text 0 text 1")
        store.write_bytes(store.raw_dir(fid) / "primary.htm", b"<html>8-K</html>")
    assert store.partitions("section_chunks") == [f1, f2]
    assert store.scan("section_chunks").collect().height == 4
    assert store.read("section_chunks", f2)["chunk_id"].to_list() == [f"{f2}:0", f"{f2}:1"]
    assert store.read_text(f1) == "text 0 text 1"
    record_checks(
        store,
        f2,
        "section_chunks",
        [
            CheckVerdict(
                asset="section_chunks",
                check="spans_match_text",
                passed=False,
                blocking=True,
                figures={"mismatched": 1},
            )
        ],
    )
    assert blocking_failures(store) == [
        f"filing {f2}: section_chunks/spans_match_text failed (mismatched=1)"
    ]
    removal = remove_filing(store, FilingCatalog(tmp_path / "catalog-root"), f2)
    assert removal.rows == {"section_chunks": 2} and removal.checks == 1 and len(removal.files) == 2
    assert store.partitions("section_chunks") == [f1] and blocking_failures(store) == []
    assert not store.text_path(f2).exists() and store.text_path(f1).exists()
    assert store.scan("section_chunks").select(pl.len()).collect().item() == 2


def test_tables_url_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHRAG_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("GRAPHRAG_TABLES_URL", raising=False)
    assert tables_root(Settings()) == (tmp_path / "data").resolve()
    monkeypatch.setenv("GRAPHRAG_TABLES_URL", "memory://bucket/prefix")
    settings = Settings()
    assert tables_root(settings) == "memory://bucket/prefix"
    from assets.resources import build_resources

    store = build_resources(settings)["data"].store()
    assert str(store.root) == "memory://bucket/prefix" and not store.local
