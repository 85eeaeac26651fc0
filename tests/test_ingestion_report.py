"""The ingestion report's graph figures, and its history across a schema change."""

from __future__ import annotations

import datetime as dt

from graphrag_core.operations.ingestion_report import HISTORY_TABLE, IngestionReport, record
from graphrag_core.tables.table_store import TableStore


def report(
    at: dt.datetime, new: dict[str, int] | None, queued: dict[str, int] | None
) -> IngestionReport:
    return IngestionReport(
        generated_at=at,
        filings=["f1", "f2"],
        failed={},
        chunks_by_kind={"prose": 3},
        facts=10,
        metric_observations=2,
        triples_accepted=5,
        triples_rejected=1,
        rejected_by_reason={"negated": 1},
        rejection_rate=1 / 6,
        baseline=None,
        limit=None,
        baseline_filings=0,
        left_out=[],
        new_entities=new,
        queued_for_review=queued,
    )


def test_new_and_queued_entities_are_figures_rows_and_history(tmp_path):
    now = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
    r = report(now, {"organization": 4, "company": 2}, {"unknown_risk": 3, "unresolved": 1})
    figures = r.figures()
    assert figures["new_entities"] == 6 and figures["queued_for_review"] == 4
    md = r.markdown()
    assert "| new entities | 6 (organization 4, company 2) |" in md
    assert "| mentions queued for review | 4 (unknown_risk 3, unresolved 1) |" in md
    # built without the graph stage: said, not guessed as zero
    bare = report(now, None, None)
    assert "new_entities" not in bare.figures() and "| new entities | — |" in bare.markdown()

    # a history kept before these columns existed still takes the next row
    store = TableStore(tmp_path)
    old = record(store, report(now - dt.timedelta(days=1), None, None)).drop(
        "new_entities", "queued_for_review"
    )
    old.write_parquet(store.partition_path(HISTORY_TABLE, None))
    history = record(store, r)
    assert history.height == 2
    assert history.get_column("new_entities").to_list() == [None, 6]
    assert history.get_column("queued_for_review").to_list() == [None, 4]
