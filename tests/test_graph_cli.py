"""`filings-graph entities review|merge|unmerge` on a real data root: the review queue with its
evidence, merges appended to the log and applied by the corpus job (which publishes), unmerge
restoring the published graph, and merges that would be wrong refused."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from graphrag_core.graph.merge_log import MergeLog
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.schemas import FILINGS, METRIC_OBSERVATIONS, VALIDATED_TRIPLES, frame
from graphrag_core.tables.table_store import TableStore
from pipelines.cli import main
from tests.test_knowledge_graph import TICKERS, world


@pytest.fixture
def data(tmp_path: Path, monkeypatch) -> Path:
    return world_data_root(tmp_path, monkeypatch)


def world_data_root(tmp_path: Path, monkeypatch) -> Path:
    """A data root holding the test world's partitions, with a corpus of its tickers, both set
    in the environment (the CLI and the corpus job find them there)."""
    root = tmp_path / "data"
    tables = TableStore(root)
    for fid, (f, ts, obs) in world().items():
        tables.write("raw_filings", frame([f], FILINGS), fid)
        tables.write("validated_triples", frame(ts, VALIDATED_TRIPLES), fid)
        tables.write("metric_observations", frame(obs, METRIC_OBSERVATIONS), fid)
    corpus = tmp_path / "corpus"
    (corpus / "reference" / "submissions").mkdir(parents=True)
    (corpus / "reference" / "company_tickers.json").write_text(
        json.dumps(
            {
                str(i): {"cik_str": int(r["cik"]), "ticker": r["ticker"], "title": r["title"]}
                for i, r in enumerate(TICKERS)
            }
        )
    )
    monkeypatch.setenv("FILINGS_CORPUS", str(corpus))
    monkeypatch.setenv("GRAPHRAG_DATA", str(root))
    return root


def competitors(root: Path) -> set[str]:
    version = SnapshotStore(root).current_version()
    con = duckdb.connect(str(SnapshotStore(root).database_path(version)), read_only=True)
    try:
        return {
            r[0]
            for r in con.execute(
                "SELECT object_id FROM edges WHERE relation = 'COMPETES_WITH'"
            ).fetchall()
        }
    finally:
        con.close()


def test_review_merge_unmerge(data: Path, capsys):
    assert main(["entities", "review"]) == 2  # no graph yet: an error that says what to run
    assert "no graph has been built yet" in capsys.readouterr().err
    from graphrag_core.settings import Settings
    from pipelines.ingest import run_corpus_job

    assert run_corpus_job(Settings()) == (True, None)
    before = competitors(data)
    assert main(["status"]) == 0  # what `make demo` ends with: nodes by type, edges by relation
    status = capsys.readouterr().out
    # Issue 22: Frobnitz Labs, which no register knows, is a provisional organization, published.
    assert "knowledge graph: 32 nodes (company 3, metric 1, organization 3, risk 25)" in status
    assert (
        "edges (COMPETES_WITH 2, CUSTOMER_OF 1, EXPOSED_TO_RISK 1, REPORTS_METRIC 4, SUPPLIES 2)"
        in status
    )
    assert "ORG:frobnitz-labs" in before
    # The corpus job clustered the graph and wrote reports: `make demo` prints the top ones.
    assert "communities: level 0:" in status and "top communities (of " in status
    assert main(["entities", "review"]) == 0
    review = capsys.readouterr().out
    assert "'Frobnitz Labs' (party)" not in review  # nothing withheld
    # Issue 22: the review also proposes merges by meaning (name and context embedded).
    assert "merge proposals by meaning (name and context, cosine >= 0.80): " in review
    assert "for 1 provisional organizations" in review

    # The mention merged into another entity: applied and published, reversibly.
    assert (
        main(["entities", "merge", "ORG:frobnitz-labs", "CIK-0001046179", "--reason", "a test"])
        == 0
    )
    assert "merge 1 logged: ORG:frobnitz-labs → CIK-0001046179" in capsys.readouterr().out
    assert competitors(data) == (before - {"ORG:frobnitz-labs"}) | {"CIK-0001046179"}
    assert main(["entities", "unmerge", "1"]) == 0
    assert competitors(data) == before
    events = MergeLog(data / "graph" / "merge_log.jsonl").events()
    assert [(e.seq, e.action, e.undoes) for e in events] == [(1, "merge", None), (2, "unmerge", 1)]

    # Wrong merges are refused before anything is logged.
    assert main(["entities", "merge", "CIK-0001046179", "CIK-0001045810", "--no-apply"]) == 2
    assert "two SEC registrants" in capsys.readouterr().err
    assert main(["entities", "merge", "RISK:export-controls", "CIK-0001045810", "--no-apply"]) == 2
    assert "only entities of one type merge" in capsys.readouterr().err
    assert len(MergeLog(data / "graph" / "merge_log.jsonl").events()) == 2
