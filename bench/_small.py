"""What the benchmarks' `--small` mode shares (not a benchmark itself: the Makefile's `bench`
target skips files starting with `_`).

A small run goes through the same code as the full one, on inputs a few seconds' worth, and
writes only under a temporary folder (never .bench/ or bench/out/). Its figures mean nothing;
it exists so that `make test` (tests/test_benches.py) breaks when a schema or an interface a
benchmark uses changes, instead of the next measurement.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# The corpus's smallest filings that still cover every kind a benchmark reads: an inline-XBRL
# 10-Q, a plain-HTML 10-K of 1999 (competitors SEC's names resolve), and an 8-K with its
# earnings release (EX-99.1).
SMALL_FILINGS = (
    "filings/AAPL/10-Q/aapl-10-q-2025-08-01.htm",
    "filings/CIK0000859368/10-K/0000950153-99-001234.htm",
    "filings/ABVC/8-K/ea0238372-8k_abvcbio.htm",
    "filings/ABVC/8-K/ea023837201ex99-1_abvcbio.htm",
)


def corpus(default: Path | None) -> Path:
    """The corpus a small run reads: FILINGS_CORPUS (what the test suite sets), else `default`."""
    env = os.environ.get("FILINGS_CORPUS")
    path = Path(env).expanduser().resolve() if env else default
    if path is None or not (path / "manifest.json").exists():
        raise SystemExit("no corpus: set FILINGS_CORPUS to the corpus folder")
    return path


@contextmanager
def work_folder(prefix: str) -> Iterator[Path]:
    """A temporary folder for everything a small run writes; removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=f"bench-small-{prefix}-") as tmp:
        yield Path(tmp)


def corpus_subset(corpus: Path, folder: Path, paths: tuple[str, ...] = SMALL_FILINGS) -> Path:
    """A folder corpus of some of `corpus`'s documents (linked, not copied) with their manifest
    records and the whole reference/ folder: what LocalFolderSource reads, in the same layout."""
    records = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    chosen = [r for r in records if r["path"] in paths]
    missing = set(paths) - {r["path"] for r in chosen}
    if missing:
        raise SystemExit(f"not in the corpus manifest: {sorted(missing)}")
    folder.mkdir(parents=True, exist_ok=True)
    for record in chosen:
        target = folder / record["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(corpus / record["path"])
    if (corpus / "reference").is_dir():
        (folder / "reference").symlink_to(corpus / "reference", target_is_directory=True)
    (folder / "manifest.json").write_text(json.dumps(chosen), encoding="utf-8")
    return folder


def corpus_data(corpus: Path, data_root: Path) -> Path:
    """Every filing of `corpus` through the per-filing stages (tests/test_mcp_corpus.run_stages:
    the functions the assets call, without a Dagster run) and the knowledge graph built from
    them under `data_root`, where the graph asset keeps it: what bench/graph.py and
    bench/communities.py read from a data root `filings-graph ingest` filled."""
    from bench.graph import _reference
    from graphrag_core.graph.graph_store import GraphStore
    from graphrag_core.intake.local_folder import LocalFolderSource
    from graphrag_core.tables.table_store import TableStore
    from tests.test_mcp_corpus import run_stages

    run_stages(corpus, data_root, tuple(r.filing_id for r in LocalFolderSource(corpus).discover()))
    with GraphStore.under(data_root) as store:
        store.update_entities(TableStore(data_root), _reference(str(corpus)))
        store.update_graph()
    return data_root
