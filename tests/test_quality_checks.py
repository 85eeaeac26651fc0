"""The checks added for operations, as the core computes them: 10-K items (with the explicit
alternatives), facts from inline XBRL, the rejection-rate baseline, evidence behind every edge,
snapshot freshness, and the companyfacts cross-check."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace

import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.extraction.quality import (
    RejectionBaseline,
    rejection_baseline,
    rejection_rate_verdict,
)
from graphrag_core.graph.graph_checks import edges_have_evidence
from graphrag_core.settings import ExtractionSettings, ReportSettings
from graphrag_core.store.freshness import snapshot_freshness
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.check_results import record_checks
from graphrag_core.tables.records import FilingMeta
from graphrag_core.tables.schemas import EXTRACTIONS, VALIDATED_TRIPLES, empty, frame
from graphrag_core.tables.table_store import TableStore
from graphrag_core.text.chunk_checks import annual_report_items
from graphrag_core.xbrl.fact_checks import companyfacts_agree, inline_xbrl_yields_facts
from tests import snapshot_sample as sample

TEN_K = {"10-K/Item 1": 3, "10-K/Item 1A": 5, "10-K/Item 7": 9}


def test_annual_report_items():
    recent = dt.date(2024, 12, 31)
    assert annual_report_items(TEN_K, "10-K", recent, "").passed
    missing = annual_report_items({"10-K/Item 1": 3}, "10-K", recent, "Item 1. Business ...")
    assert not missing.passed and missing.blocking
    assert missing.figures["missing"] == ["10-K/Item 1A", "10-K/Item 7"]
    # stated instead of present: incorporated by reference, not applicable
    text = (
        "Item 1A. Risk Factors\nNot applicable.\nItem 7. Management's Discussion and Analysis\n"
        "The information required by this item is incorporated herein by reference to the "
        "2024 Annual Report to Shareholders."
    )
    stated = annual_report_items({"10-K/Item 1": 3}, "10-K", recent, text)
    assert stated.passed
    assert stated.figures["explained"] == {
        "10-K/Item 1A": "not applicable",
        "10-K/Item 7": "incorporated herein by reference",
    }
    # a statement under another item does not count for this one
    elsewhere = "Item 1A. Risk Factors\nItem 2. Properties\nNot applicable."
    assert not annual_report_items({"10-K/Item 7": 1}, "10-K", recent, elsewhere).passed
    # Item 1A did not exist before fiscal years ending 1 December 2005
    old = annual_report_items(
        {"10-K/Item 1": 1, "10-K/Item 7": 2}, "10-K", dt.date(1999, 6, 30), ""
    )
    assert old.passed and old.figures["required"] == ["10-K/Item 7"]
    # an exhibit filed on its own, an amendment without items, and other forms, are not judged
    assert (
        annual_report_items({"10-K/Exhibit 21": 1}, "10-K", recent, "").figures["applies"] is False
    )
    assert annual_report_items({"10-K/Document": 2}, "10-K/A", recent, "").passed
    # a 10-K whose primary document has no Item heading at all is the wrong document: it fails,
    # even when its text mentions the items (no heading was found, so it is no 10-K body)
    letter = annual_report_items(
        {"10-K/Document": 2, "10-K/Exhibit 21": 1},
        "10-K",
        recent,
        "Item 7 is incorporated by reference to our annual report.",
    )
    assert not letter.passed and letter.blocking and letter.figures["applies"] is True
    assert letter.figures["no_item_headings"] is True
    assert letter.figures["missing"] == ["10-K/Item 1A", "10-K/Item 7"]
    assert annual_report_items({"8-K/Item 2.02": 1}, "8-K", recent, "").passed


def _meta(inline: bool) -> FilingMeta:
    return FilingMeta(
        filing_id="f",
        accession="0000000001-25-000001",
        form="10-K",
        source="x",
        sha256="0" * 64,
        bytes=1,
        is_inline_xbrl=inline,
    )


def test_inline_xbrl_yields_facts():
    facts = pl.DataFrame({"fact_id": ["a"]})
    assert inline_xbrl_yields_facts(_meta(True), facts).passed
    none = inline_xbrl_yields_facts(_meta(True), facts.clear())
    assert not none.passed and none.blocking and none.figures == {"inline_xbrl": True, "facts": 0}
    assert inline_xbrl_yields_facts(_meta(False), facts.clear()).passed


def _triples(accepted: int, rejected: int) -> pl.DataFrame:
    rows = [
        {"triple_id": f"a{i}", "filing_id": "f", "status": "accepted", "support": 1}
        for i in range(accepted)
    ]
    rows += [
        {
            "triple_id": f"r{i}",
            "filing_id": "f",
            "status": "rejected",
            "reason": "evidence_not_in_chunk",
            "support": 1,
        }
        for i in range(rejected)
    ]
    return frame(rows, VALIDATED_TRIPLES)


def test_rejection_rate_against_its_baseline(tmp_path):
    settings = ExtractionSettings(rejection_rate_threshold=0.5, rejection_check_min_triples=10)
    extractions = empty(EXTRACTIONS)
    # no baseline yet: the fixed threshold
    assert rejection_rate_verdict(_triples(8, 4), extractions, settings).passed
    # a usual rate of 5%: 33% is a spike, though under the old fixed 0.5
    baseline = RejectionBaseline(median=0.05, mad=0.02, filings=40)
    spike = rejection_rate_verdict(_triples(8, 4), extractions, settings, baseline, margin=0.15)
    assert not spike.passed and spike.figures["limit"] == 0.2 and spike.figures["baseline"] == 0.05
    # a noisy extractor with a usual 40% passes at 45%
    noisy = RejectionBaseline(median=0.4, mad=0.1, filings=40)
    assert rejection_rate_verdict(_triples(11, 9), extractions, settings, noisy, margin=0.15).passed

    store = TableStore(tmp_path)
    for i, rate in enumerate([0.0, 0.1, 0.05, 0.02, 0.08, 0.9]):
        record_checks(
            store,
            f"f{i}",
            "validated_triples",
            [
                CheckVerdict(
                    asset="validated_triples",
                    check="rejection_rate",
                    passed=True,
                    blocking=True,
                    figures={"rejection_rate": rate, "judged": True},
                )
            ],
        )
    record_checks(
        store,
        "small",
        "validated_triples",
        [
            CheckVerdict(
                asset="validated_triples",
                check="rejection_rate",
                passed=True,
                blocking=True,
                figures={"rejection_rate": 1.0, "judged": False},
            )
        ],
    )
    report = ReportSettings(baseline_min_filings=5)
    base = rejection_baseline(store, report)
    assert base is not None and base.filings == 6 and base.median == 0.065
    assert rejection_baseline(store, report, exclude=["f0", "f1"]) is None  # 4 left: too few


def test_edges_have_evidence():
    tables = sample.sample_tables()
    assert tables.edges.height and edges_have_evidence(tables).passed
    bare = tables.edges.row(0, named=True)["edge_id"]
    stripped = replace(tables, edge_evidence=tables.edge_evidence.filter(pl.col("edge_id") != bare))
    verdict = edges_have_evidence(stripped)
    assert not verdict.passed and verdict.blocking and verdict.figures["first"] == [bare]


def test_snapshot_freshness(tmp_path):
    store = SnapshotStore(tmp_path)
    assert not snapshot_freshness(store, 36).passed  # nothing published
    manifest = store.publish(sample.sample_tables())
    assert snapshot_freshness(store, 36).passed
    later = manifest.built_at + dt.timedelta(hours=40)
    stale = snapshot_freshness(store, 36, now=later)
    assert not stale.passed and not stale.blocking and stale.figures["age_hours"] >= 40


def test_companyfacts_cross_check():
    meta = _meta(True)
    facts = pl.DataFrame(
        {
            "fact_id": ["r"],
            "filing_id": ["f"],
            "concept": ["us-gaap:Revenues"],
            "unit": ["USD"],
            "is_numeric": [True],
            "dimension_count": [0],
            "value": [100.0],
            "decimals": [0],
            "period_start": [dt.date(2024, 1, 1)],
            "period_end": [dt.date(2024, 12, 31)],
        }
    )
    observations = pl.DataFrame({"fact_id": ["r"]})

    def companyfacts(value: float, accession: str = meta.accession) -> dict:
        entry = {
            "start": "2024-01-01",
            "end": "2024-12-31",
            "val": value,
            "accn": accession,
            "form": "10-K",
            "filed": "2025-02-01",
            "fy": 2024,
            "fp": "FY",
        }
        return {"cik": 1, "facts": {"us-gaap": {"Revenues": {"units": {"USD": [entry]}}}}}

    assert (
        companyfacts_agree(meta, observations, facts, companyfacts(100.0)).figures["compared"] == 1
    )
    wrong = companyfacts_agree(meta, observations, facts, companyfacts(250.0))
    assert not wrong.passed and not wrong.blocking and wrong.figures["mismatched"] == 1
    unavailable = companyfacts_agree(meta, observations, facts, None)
    assert unavailable.passed and unavailable.figures["judged"] is False
    other = companyfacts_agree(
        meta, observations, facts, companyfacts(250.0, "0000000002-25-000009")
    )
    assert other.passed and other.figures["judged"] is False
    # figures stay JSON for the recorded verdicts: they come back from JSON as they went in
    assert json.loads(json.dumps(wrong.figures)) == wrong.figures
