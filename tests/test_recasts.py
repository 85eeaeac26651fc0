"""Why a value was superseded: a stock split (from a split fact, or from the value ratio when the
share counts behind it moved by the same whole ratio), an accounting change, a reclassification,
a discontinued operation, an error correction; a release made final; unknown otherwise."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.tables.schemas import XBRL_FACTS, frame
from graphrag_core.xbrl.recasts import Observed, asu_name, classify, filing_signals, split_recast
from graphrag_core.xbrl.supersession import apply_supersession
from tests.xbrl_corpus import one_filing

D = dt.date.fromisoformat


def ob(
    value: float,
    kind: str = "per_share",
    evidence: str | None = None,
    shares: float | None = None,
    source: str = "xbrl",
    form: str = "10-K",
    filing: str = "new",
) -> Observed:
    return Observed(value, kind, source, form, filing, evidence, shares)


def test_a_split_from_the_value_ratio_needs_the_share_counts_to_agree():
    # NVIDIA FY2023 diluted EPS: 1.74 before the ten-for-one split, 0.17 after (0.174 rounded).
    detail = split_recast(ob(1.74, shares=2_507e6), ob(0.17, shares=25_070e6))
    assert (
        detail
        == "10-for-1 stock split (value ratio 1.74 / 0.17 = 10.2; diluted shares 2,507,000,000 "
        "→ 25,070,000,000)"
    )
    # The same ratio with unchanged share counts is not a split (a restated EPS that halved).
    assert split_recast(ob(0.50, shares=100e6), ob(0.25, shares=100e6)) is None
    # Small values whose rounding admits several ratios say nothing.
    assert split_recast(ob(0.02, shares=1e6), ob(0.01, shares=2e6)) is None
    # A reverse split: EPS up, shares down.
    assert split_recast(ob(0.30, shares=50e6), ob(3.00, shares=5e6)).startswith(
        "1-for-10 reverse stock split"
    )
    # Currency values never split.
    assert split_recast(ob(100.0, "currency"), ob(10.0, "currency")) is None


def test_a_split_fact_confirms_the_ratio_without_share_counts():
    stated = "split: 4-for-1 stock split (us-gaap:StockholdersEquityNoteStockSplitConversionRatio1)"
    detail = split_recast(ob(8.0), ob(2.0, evidence=stated))
    assert detail.startswith(
        "4-for-1 stock split (us-gaap:StockholdersEquityNoteStockSplitConversionRatio1)"
    )
    reason, _ = classify(ob(8.0), ob(2.0, evidence=stated))
    assert reason == "recast"
    # Share counts: the new count is the old one times the ratio.
    assert split_recast(ob(1_000e6, "shares"), ob(4_000e6, "shares", evidence=stated)) is not None


def test_reasons_from_the_filings_evidence():
    old = ob(1_478e6, "currency")
    cases = {
        "accounting_change: ASU 2023-08; adjustment of us-gaap:NetIncomeLoss": (
            "recast",
            "accounting change: ASU 2023-08",
        ),
        "reclassification: adjustment of us-gaap:Revenues": ("recast", "reclassification: "),
        "discontinued_operation: us-gaap:IncomeLossFromDiscontinuedOperationsNetOfTax reported": (
            "recast",
            "discontinued operation: ",
        ),
        "error_correction: dei:DocumentFinStmtErrorCorrectionFlag is true": (
            "restatement",
            "error correction: ",
        ),
        "restatement: adjustment of us-gaap:NetIncomeLoss": ("restatement", "adjustment of"),
        None: ("unknown", "no recast or restatement stated in 10-K new"),
    }
    for evidence, (reason, detail) in cases.items():
        got = classify(old, ob(1_400e6, "currency", evidence=evidence))
        assert got[0] == reason and got[1].startswith(detail), (evidence, got)
        assert "1.478e+09 → 1.4e+09, a difference of -7.8e+07 (-5.28%)" in got[1]
    # An unchanged XBRL value repeated in a later filing has no reason; a release always has one.
    assert classify(old, ob(1_478e6, "currency")) == (None, None)
    assert (
        classify(ob(1_478e6, "currency", source="press_release"), ob(1_478e6, "currency"))[0]
        == "press_release_final"
    )


def _fact(
    concept: str,
    value,
    start: str | None,
    end: str,
    dims: dict | None = None,
    unit: str | None = "USD",
    normalized=None,
) -> dict:
    return {
        "fact_id": f"{concept}{start}{end}{dims}",
        "filing_id": "F",
        "cik": "42",
        "concept": concept,
        "value": value,
        "value_text": str(value),
        "normalized": normalized if normalized is not None else str(value),
        "is_numeric": value is not None,
        "unit": unit,
        "decimals": -6,
        "period_type": "duration" if start else "instant",
        "period_start": D(start) if start else None,
        "period_end": D(end),
        "dimensions": json.dumps(dims or {}),
        "dimension_count": len(dims or {}),
        "inline_id": None,
        "inline_ids": [],
        "source_document": "x",
        "html_tables": [],
        "chunk_id": None,
        "duplicate_count": 1,
        "conflict": False,
        "conflict_values": [],
        "table_row": None,
        "row_label": None,
    }


def test_signals_read_from_a_filings_facts():
    q2 = ("2024-04-01", "2024-06-30")
    facts = frame(
        [
            _fact("us-gaap:NetIncomeLoss", 1_400e6, *q2),
            _fact(
                "us-gaap:NetIncomeLoss",
                -78e6,
                *q2,
                {"srt:RestatementAxis": "srt:RestatementAdjustmentMember"},
            ),
            _fact(
                "us-gaap:AccountingStandardsUpdateExtensibleList",
                None,
                "2024-01-01",
                "2024-12-31",
                unit=None,
                normalized="http://fasb.org/us-gaap/2025#AccountingStandardsUpdate202308Member",
            ),
            _fact(
                "us-gaap:StockholdersEquityNoteStockSplitConversionRatio1",
                10.0,
                None,
                "2024-06-07",
                unit="pure",
            ),
            _fact("us-gaap:IncomeLossFromDiscontinuedOperationsNetOfTax", 5e6, *q2),
            _fact(
                "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding",
                3_200e6,
                *q2,
                unit="shares",
            ),
        ],
        XBRL_FACTS,
    )
    signals = filing_signals(facts)
    assert signals.standards == ["ASU 2023-08"] and signals.split_ratio == 10.0
    assert signals.diluted_shares[(D(q2[0]), D(q2[1]))] == 3_200e6
    net = signals.evidence("net_income", "currency", ["us-gaap:NetIncomeLoss"], D(q2[0]), D(q2[1]))
    assert net.startswith(
        "accounting_change: ASU 2023-08; adjustment of us-gaap:NetIncomeLoss for this period"
    )
    revenue = signals.evidence("revenue", "currency", ["us-gaap:Revenues"], D(q2[0]), D(q2[1]))
    assert (
        revenue == "discontinued_operation: us-gaap:IncomeLossFromDiscontinuedOperationsNetOfTax "
        "reported for this period"
    )
    eps = signals.evidence(
        "eps_diluted", "per_share", ["us-gaap:EarningsPerShareDiluted"], D(q2[0]), D(q2[1])
    )
    assert (
        eps == "split: 10-for-1 stock split "
        "(us-gaap:StockholdersEquityNoteStockSplitConversionRatio1) on 2024-06-07"
    )
    assert asu_name("us-gaap:AccountingStandardsUpdate201602Member") == "ASU 2016-02"


@pytest.mark.corpus
def test_nvidia_split_is_a_recast_not_a_restatement(corpus_dir: Path):
    fy23 = one_filing(corpus_dir, "NVDA/10-K/Nvidia.10-K.htm")
    fy25 = one_filing(corpus_dir, "NVDA/10-K/nvda-10-k-2025-02-26.htm")
    linked = apply_supersession(pl.concat([fy23.metrics.observations, fy25.metrics.observations]))
    eps = linked.filter(
        (pl.col("metric") == "eps_diluted") & (pl.col("fiscal_label") == "FY2023")
    ).sort("filed_date")
    assert eps["value"].to_list() == [1.74, 0.17]
    old = eps.row(0, named=True)
    assert (old["superseded_by"], old["supersede_reason"]) == (eps["observation_id"][1], "recast")
    assert old["supersede_detail"].startswith(
        "10-for-1 stock split (value ratio 1.74 / 0.17 = 10.2; diluted shares"
    )
    # Revenue, repeated unchanged, is linked without a reason.
    revenue = linked.filter(
        (pl.col("metric") == "revenue") & (pl.col("fiscal_label") == "FY2023")
    ).sort("filed_date")
    assert revenue["supersede_reason"].to_list() == [None, None]


@pytest.mark.corpus
def test_tesla_asu_2023_08_change_keeps_its_reason(corpus_dir: Path):
    ten_k = one_filing(corpus_dir, "TSLA/10-K/tsla-10-k-2025-01-30.htm")
    ten_q = one_filing(corpus_dir, "TSLA/10-Q/tsla-10-q-2025-07-24.htm")
    linked = apply_supersession(pl.concat([ten_k.metrics.observations, ten_q.metrics.observations]))
    net = linked.filter(
        (pl.col("metric") == "net_income") & (pl.col("fiscal_label") == "Q2-FY2024")
    ).sort("filed_date")
    assert net["value"].to_list() == [1_478_000_000, 1_400_000_000]
    old = net.row(0, named=True)
    assert old["supersede_reason"] == "recast"
    assert old["supersede_detail"].startswith(
        "accounting change: ASU 2023-08; adjustment of us-gaap:NetIncomeLoss"
    )
    assert "srt:RestatementAdjustmentMember" in net["recast_evidence"][1]
