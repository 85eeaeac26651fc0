"""Derived values: quarters from year-to-date differences (Q4 = FY − 9M) across filings, and
gross profit = revenue − cost of revenue where a filing has no gross-profit line; each stored as
derived with every operand cited, never across a restatement or a change of fiscal year end."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.tables.schemas import METRIC_OBSERVATIONS, frame
from graphrag_core.xbrl.derived import derive_gross_profit, derive_quarters
from graphrag_core.xbrl.supersession import apply_supersession, latest, link_observations
from tests.xbrl_corpus import one_filing

D = dt.date.fromisoformat


def o(
    oid: str,
    filing: str,
    filed: str,
    metric: str,
    label: str,
    period: str,
    start: str,
    end: str,
    value: float,
    **extra,
) -> dict:
    row = {c: None for c in METRIC_OBSERVATIONS} | {
        "observation_id": oid,
        "cik": "0000000042",
        "metric": metric,
        "value": value,
        "unit": "USD",
        "fiscal_label": label,
        "fiscal_year": int(label[-4:]),
        "fiscal_period": period,
        "period_type": "duration",
        "calendar_start": D(start),
        "calendar_end": D(end),
        "filing_id": filing,
        "form": "10-K" if period == "FY" else "10-Q",
        "filed_date": D(filed),
        "fact_id": f"{oid}:fact",
        "fact_ids": [f"{oid}:fact"],
        "concept": "us-gaap:Revenues",
        "chunk_id": f"{filing}:chunk",
        "source_kind": "xbrl",
        "derived": False,
        "derived_from": [],
    }
    return row | extra


FY = o("fy", "10k", "2025-02-01", "revenue", "FY2024", "FY", "2024-01-01", "2024-12-31", 1_000.0)
NINE = o("9m", "q3", "2024-11-01", "revenue", "9M-FY2024", "9M", "2024-01-01", "2024-09-30", 700.0)
HALF = o("h1", "q2", "2024-08-01", "revenue", "H1-FY2024", "H1", "2024-01-01", "2024-06-30", 450.0)


def quarters(rows: list[dict]) -> pl.DataFrame:
    return derive_quarters(apply_supersession(frame(rows, METRIC_OBSERVATIONS)))


def test_q4_is_the_year_less_nine_months_with_both_cited():
    [q4] = quarters([FY, NINE]).iter_rows(named=True)
    assert (q4["fiscal_label"], q4["fiscal_period"], q4["value"]) == ("Q4-FY2024", "Q4", 300.0)
    assert (q4["calendar_start"], q4["calendar_end"]) == (D("2024-10-01"), D("2024-12-31"))
    assert q4["derived"] is True and q4["derivation"] == "FY2024 − 9M-FY2024"
    assert q4["derived_from"] == ["fy", "9m"] and q4["fact_ids"] == ["fy:fact", "9m:fact"]
    assert (q4["filing_id"], q4["chunk_id"], q4["source_kind"]) == (
        "10k",
        "10k:chunk",
        "xbrl",
    )  # the newer operand's filing


def test_any_quarter_from_year_to_date_differences():
    got = {r["fiscal_label"]: r["value"] for r in quarters([FY, NINE, HALF]).iter_rows(named=True)}
    assert got == {"Q4-FY2024": 300.0, "Q3-FY2024": 250.0}


def test_reported_quarters_balances_and_per_share_values_are_never_derived():
    q4 = o(
        "q4", "10k", "2025-02-01", "revenue", "Q4-FY2024", "Q4", "2024-10-01", "2024-12-31", 301.0
    )
    assert quarters([FY, NINE, q4]).is_empty()
    eps = [
        FY | {"observation_id": "e1", "metric": "eps_diluted", "unit": "USD/shares"},
        NINE | {"observation_id": "e2", "metric": "eps_diluted", "unit": "USD/shares"},
    ]
    assert quarters(eps).is_empty()


def test_a_changed_fiscal_year_end_never_pairs():
    # The 9M of the old calendar (from February) and a year of the new one (from January).
    old_nine = NINE | {"calendar_start": D("2024-02-01"), "calendar_end": D("2024-10-31")}
    assert quarters([FY, old_nine]).is_empty()


def test_never_across_a_restatement_boundary():
    # A later 10-K restated FY2023's revenue: the 9M figure (from a 10-Q filed before that
    # 10-K) is on the old basis, the FY on the new one; no Q4 is made of the two.
    fy23_old = o(
        "fy23a",
        "10k-2023",
        "2024-02-01",
        "revenue",
        "FY2023",
        "FY",
        "2023-01-01",
        "2023-12-31",
        900.0,
    )
    fy23_new = o(
        "fy23b", "10k", "2025-02-01", "revenue", "FY2023", "FY", "2023-01-01", "2023-12-31", 880.0
    )
    assert quarters([FY, NINE, fy23_old, fy23_new]).is_empty()
    # Without the restatement the same figures derive.
    assert quarters([FY, NINE, fy23_old, fy23_new | {"value": 900.0}]).height == 1


def test_a_derived_quarter_supersedes_a_release_figure_but_not_a_reported_one():
    release_q4 = o(
        "pr",
        "8k",
        "2025-01-20",
        "revenue",
        "Q4-FY2024",
        "Q4",
        "2024-10-01",
        "2024-12-31",
        300.0,
        source_kind="press_release",
        form="8-K",
    )
    linked = link_observations(frame([FY, NINE, release_q4], METRIC_OBSERVATIONS))
    pr = linked.filter(pl.col("observation_id") == "pr").row(0, named=True)
    assert pr["supersede_reason"] == "press_release_final"
    [current] = latest(linked).filter(pl.col("fiscal_label") == "Q4-FY2024").iter_rows(named=True)
    assert current["derived"] is True and current["observation_id"] == pr["superseded_by"]


def test_gross_profit_where_no_gross_profit_line():
    revenue = FY | {"observation_id": "rev"}
    cost = FY | {
        "observation_id": "cost",
        "metric": "cost_of_revenue",
        "value": 600.0,
        "concept": "us-gaap:CostOfRevenue",
        "fact_ids": ["cost:fact"],
    }
    [gp] = derive_gross_profit(frame([revenue, cost], METRIC_OBSERVATIONS)).iter_rows(named=True)
    assert (gp["metric"], gp["value"], gp["fiscal_label"], gp["derived"]) == (
        "gross_profit",
        400.0,
        "FY2024",
        True,
    )
    assert gp["derived_from"] == ["rev", "cost"] and gp["derivation"] == "revenue − cost_of_revenue"
    assert gp["concept"] == "us-gaap:Revenues − us-gaap:CostOfRevenue" and gp["fact_ids"] == [
        "fy:fact",
        "cost:fact",
    ]
    # A filing that reports gross profit keeps its own; a period its statement does not show
    # right after revenue (an insurer's partial cost line) is not eligible.
    reported = FY | {"observation_id": "gp", "metric": "gross_profit", "value": 399.0}
    assert derive_gross_profit(frame([revenue, cost, reported], METRIC_OBSERVATIONS)).is_empty()
    assert derive_gross_profit(
        frame([revenue, cost], METRIC_OBSERVATIONS), eligible=set()
    ).is_empty()


@pytest.mark.corpus
def test_apple_q4_fy2024_is_fy_less_nine_months_with_both_citations(corpus_dir: Path):
    """Apple files no fourth-quarter statement: its FY2024 10-K and its Q3 FY2024 10-Q (the
    damaged copy, read again since its prefixes are bound) give Q4 = FY − 9M."""
    ten_k = one_filing(corpus_dir, "AAPL/10-K/aapl-10-k-2024-11-01.htm")
    ten_q = one_filing(corpus_dir, "AAPL/10-Q/Apple.10-Q.htm")
    linked = link_observations(pl.concat([ten_k.metrics.observations, ten_q.metrics.observations]))
    q4 = latest(linked).filter(pl.col("fiscal_label") == "Q4-FY2024")
    by_metric = {r["metric"]: r for r in q4.iter_rows(named=True)}
    revenue = by_metric["revenue"]
    assert revenue["value"] == 391_035_000_000 - 296_105_000_000 == 94_930_000_000
    assert revenue["derived"] is True and revenue["derivation"] == "FY2024 − 9M-FY2024"
    assert (revenue["calendar_start"], revenue["calendar_end"]) == (
        D("2024-06-30"),
        D("2024-09-28"),
    )
    operands = linked.filter(pl.col("observation_id").is_in(revenue["derived_from"]))
    assert {
        (r["fiscal_label"], r["filing_id"], r["value"]) for r in operands.iter_rows(named=True)
    } == {
        ("FY2024", ten_k.ref.filing_id, 391_035_000_000),
        ("9M-FY2024", ten_q.ref.filing_id, 296_105_000_000),
    }
    assert by_metric["net_income"]["value"] == 93_736_000_000 - 79_000_000_000
    assert {"operating_cash_flow", "capex", "gross_profit", "operating_income"} <= set(by_metric)
    assert "eps_diluted" not in by_metric  # per-share values do not subtract
