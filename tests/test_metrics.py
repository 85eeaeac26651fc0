"""Facts → canonical metric observations: the mapping and its fallbacks, consolidated facts
only, total debt without double counting, fiscal labels, restatements across filings."""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.tables.schemas import METRIC_OBSERVATIONS, XBRL_FACTS, frame
from graphrag_core.xbrl.facts import extract_facts_from_path
from graphrag_core.xbrl.metrics import METRIC_IDS, METRICS, FilingInfo, observations_from_facts
from graphrag_core.xbrl.supersession import (
    apply_supersession,
    latest,
    latest_values,
    originally_reported,
)
from tests.conftest import FIXTURES
from tests.xbrl_corpus import chunked, corpus_filings, corpus_observations

D = dt.date.fromisoformat
ACME = FIXTURES / "xbrl" / "acme_10k.htm"


@pytest.fixture(scope="module")
def acme_facts() -> pl.DataFrame:
    return extract_facts_from_path(ACME, "acme-fy2025", "42").facts


def acme_info(facts: pl.DataFrame) -> FilingInfo:
    return FilingInfo.from_facts(facts, "acme-fy2025", filed_date=D("2025-02-26"))


def obs(observations: pl.DataFrame, metric: str, end: str) -> dict:
    rows = observations.filter((pl.col("metric") == metric) & (pl.col("calendar_end") == D(end)))
    assert rows.height == 1, f"{metric} @ {end}: {rows.height}"
    return rows.row(0, named=True)


def test_every_required_metric_is_mapped():
    required = {
        "revenue",
        "cost_of_revenue",
        "gross_profit",
        "operating_income",
        "net_income",
        "eps_diluted",
        "total_assets",
        "total_liabilities",
        "stockholders_equity",
        "cash_and_equivalents",
        "total_debt",
        "operating_cash_flow",
        "capex",
        "shares_outstanding",
    }
    assert required == set(METRIC_IDS)
    concepts = [c for m in METRICS for c in m.concepts]
    assert len(concepts) == len(set(concepts)), "a concept may feed one metric only"


def test_observations_carry_labels_ranges_cik_and_provenance(acme_facts):
    result = observations_from_facts(acme_facts, acme_info(acme_facts))
    o = result.observations
    assert o.columns == list(METRIC_OBSERVATIONS)
    revenue = obs(o, "revenue", "2025-01-26")
    assert revenue["value"] == 130_497_000_000 and revenue["unit"] == "USD"
    assert (revenue["fiscal_label"], revenue["fiscal_year"], revenue["fiscal_period"]) == (
        "FY2025",
        2025,
        "FY",
    )
    assert (revenue["calendar_start"], revenue["calendar_end"]) == (
        D("2024-01-29"),
        D("2025-01-26"),
    )
    assert revenue["cik"] == "0000000042" and revenue["form"] == "10-K"
    assert revenue["concept"] == "us-gaap:Revenues"
    assert revenue["fact_ids"] == [revenue["fact_id"]]
    assert revenue["superseded_by"] is None
    assert obs(o, "revenue", "2024-01-28")["fiscal_label"] == "FY2024"
    # Instants: the balance sheet date, labelled as the period it closes.
    assets = obs(o, "total_assets", "2025-01-26")
    assert (assets["period_type"], assets["calendar_start"], assets["fiscal_label"]) == (
        "instant",
        D("2025-01-26"),
        "FY2025",
    )
    assert obs(o, "eps_diluted", "2025-01-26")["value"] == 2.94
    assert obs(o, "eps_diluted", "2025-01-26")["unit"] == "USD/shares"
    assert o["observation_id"].n_unique() == o.height


def test_only_consolidated_facts_feed_metrics(acme_facts):
    o = observations_from_facts(acme_facts, acme_info(acme_facts)).observations
    # The Widgets segment's 116,193 is in the facts but never a revenue observation.
    assert 116_193_000_000 not in set(o.filter(pl.col("metric") == "revenue")["value"])
    assert acme_facts.filter(pl.col("value") == 116_193_000_000)["dimension_count"].to_list() == [1]


def test_conflicting_duplicates_never_feed_a_metric(acme_facts):
    tampered = acme_facts.with_columns(
        conflict=pl.when(
            (pl.col("concept") == "us-gaap:NetIncomeLoss")
            & (pl.col("period_end") == D("2025-01-26"))
        )
        .then(True)
        .otherwise(pl.col("conflict"))
    )
    result = observations_from_facts(tampered, acme_info(tampered))
    net = result.observations.filter(pl.col("metric") == "net_income")
    assert set(net["calendar_end"]) == {D("2024-01-28")}
    assert result.skipped["conflicting_fact"] == 1


def _fact(
    concept: str,
    value: float,
    end: str,
    start: str | None = None,
    unit: str = "USD",
    tables: list[int] | None = None,
    **extra,
) -> dict:
    row = {
        "fact_id": f"F:{concept}:{start}:{end}:{unit}",
        "filing_id": "F",
        "cik": "0000000042",
        "concept": concept,
        "value": value,
        "value_text": str(value),
        "normalized": str(value),
        "is_numeric": True,
        "unit": unit,
        "decimals": -6,
        "period_type": "duration" if start else "instant",
        "period_start": D(start) if start else None,
        "period_end": D(end),
        "dimensions": "{}",
        "dimension_count": 0,
        "inline_id": None,
        "inline_ids": [],
        "source_document": "x",
        "html_tables": tables or [],
        "chunk_id": None,
        "duplicate_count": 1,
        "conflict": False,
        "conflict_values": [],
    }
    row.update(extra)
    return row


DEC = FilingInfo("F", "0000000042", "10-K", D("2025-02-01"), "--12-31", 2024, "FY", D("2024-12-31"))


def _metric(rows: list[dict], metric: str, info: FilingInfo = DEC) -> pl.DataFrame:
    result = observations_from_facts(frame(rows, XBRL_FACTS), info)
    return result.observations.filter(pl.col("metric") == metric)


def test_fallback_order_prefers_the_total_and_keeps_one_concept_per_filing():
    both = [
        _fact(
            "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
            90.0,
            "2024-12-31",
            "2024-01-01",
        ),
        _fact("us-gaap:Revenues", 100.0, "2024-12-31", "2024-01-01"),
    ]
    revenue = _metric(both, "revenue")
    assert revenue["value"].to_list() == [100.0] and revenue["concept"][0] == "us-gaap:Revenues"
    only_606 = _metric(both[:1], "revenue")
    assert only_606["concept"].to_list() == [
        "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
    ]
    # Cash at the balance-sheet dates comes from the balance-sheet concept; the cash-flow
    # statement's restricted-cash total two years back is another quantity and stays out.
    cash = _metric(
        [
            _fact("us-gaap:CashAndCashEquivalentsAtCarryingValue", 10.0, "2024-12-31"),
            _fact("us-gaap:CashAndCashEquivalentsAtCarryingValue", 8.0, "2023-12-31"),
            _fact(
                "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
                7.5,
                "2022-12-31",
            ),
        ],
        "cash_and_equivalents",
    )
    assert sorted(cash["value"]) == [8.0, 10.0]


def test_units_and_period_types_must_fit_the_metric():
    result = observations_from_facts(
        frame(
            [
                _fact(
                    "us-gaap:EarningsPerShareDiluted", 2.0, "2024-12-31", "2024-01-01", unit="USD"
                ),
                _fact("us-gaap:Assets", 5.0, "2024-12-31", "2024-01-01"),  # a duration
                _fact("us-gaap:Revenues", 1.0, "2024-12-31", "2024-01-01", unit="shares"),
            ],
            XBRL_FACTS,
        ),
        DEC,
    )
    assert result.observations.is_empty()
    assert result.skipped["unit_mismatch"] == 2
    assert result.skipped["period_type_mismatch"] == 1


# -- total debt --------------------------------------------------------------------------------

ANCHOR = [_fact("us-gaap:Assets", 500.0, "2024-12-31", tables=[3])]


def test_total_debt_from_the_fixture_balance_sheet(acme_facts):
    o = observations_from_facts(acme_facts, acme_info(acme_facts)).observations
    fy2025, fy2024 = obs(o, "total_debt", "2025-01-26"), obs(o, "total_debt", "2024-01-28")
    # The balance sheet's two debt lines; the note's LongTermDebt total (9,709, which includes
    # the 1,250 current portion) is never added on top.
    assert fy2024["value"] == 8_459_000_000 + 1_250_000_000
    assert fy2024["concept"] == "us-gaap:LongTermDebtNoncurrent + us-gaap:DebtCurrent"
    assert len(fy2024["fact_ids"]) == 2
    assert fy2025["value"] == 8_463_000_000


def test_total_debt_noncurrent_plus_current_portion_plus_commercial_paper():
    debt = _metric(
        ANCHOR
        + [
            _fact("us-gaap:LongTermDebtNoncurrent", 85.0, "2024-12-31", tables=[3]),
            _fact("us-gaap:LongTermDebtCurrent", 11.0, "2024-12-31", tables=[3]),
            _fact("us-gaap:CommercialPaper", 10.0, "2024-12-31", tables=[3]),
            _fact("us-gaap:LongTermDebt", 96.0, "2024-12-31", tables=[9]),  # the note's total
        ],
        "total_debt",
    )
    assert debt["value"].to_list() == [106.0]


def test_total_debt_uses_debt_current_instead_of_its_parts():
    debt = _metric(
        ANCHOR
        + [
            _fact("us-gaap:LongTermDebtNoncurrent", 50.0, "2024-12-31", tables=[3]),
            _fact("us-gaap:DebtCurrent", 9.0, "2024-12-31", tables=[3]),
            _fact("us-gaap:LongTermDebtCurrent", 6.0, "2024-12-31", tables=[3]),
            _fact("us-gaap:ShortTermBorrowings", 3.0, "2024-12-31", tables=[3]),
        ],
        "total_debt",
    )
    assert debt["value"].to_list() == [59.0]


def test_total_debt_takes_balance_sheet_lines_over_notes():
    # IBM-like: the face shows short-term debt (which includes current maturities) and
    # long-term debt; the note's current-maturities figure must not be added again.
    debt = _metric(
        ANCHOR
        + [
            _fact("us-gaap:ShortTermBorrowings", 8945.0, "2024-12-31", tables=[3]),
            _fact("us-gaap:LongTermDebtNoncurrent", 55219.0, "2024-12-31", tables=[3]),
            _fact(
                "us-gaap:LongTermDebtAndCapitalLeaseObligationsCurrent",
                8944.0,
                "2024-12-31",
                tables=[7],
            ),
        ],
        "total_debt",
    )
    assert debt["value"].to_list() == [64164.0]


def test_total_debt_long_term_line_on_the_face_is_the_noncurrent_part():
    # Adobe-like: the face labels its noncurrent line with LongTermDebt.
    debt = _metric(
        ANCHOR
        + [
            _fact("us-gaap:DebtCurrent", 1499.0, "2024-12-31", tables=[3]),
            _fact("us-gaap:LongTermDebt", 4129.0, "2024-12-31", tables=[3]),
        ],
        "total_debt",
    )
    assert debt["value"].to_list() == [5628.0]


def test_total_debt_ambiguous_in_notes_is_skipped_not_guessed():
    # Only notes: LongTermDebt includes its current maturities by definition, and DebtCurrent
    # may or may not repeat them. No number beats a wrong one.
    result = observations_from_facts(
        frame(
            [
                _fact("us-gaap:DebtCurrent", 2343.0, "2024-12-31", tables=[7]),
                _fact("us-gaap:LongTermDebt", 5535.0, "2024-12-31", tables=[8]),
            ],
            XBRL_FACTS,
        ),
        DEC,
    )
    assert result.observations.filter(pl.col("metric") == "total_debt").is_empty()
    assert result.skipped["total_debt_ambiguous"] == 1
    # From notes without DebtCurrent: the total plus short-term borrowings.
    notes = _metric(
        [
            _fact("us-gaap:LongTermDebt", 5535.0, "2024-12-31", tables=[8]),
            _fact("us-gaap:CommercialPaper", 100.0, "2024-12-31", tables=[8]),
            _fact("us-gaap:OtherShortTermBorrowings", 20.0, "2024-12-31", tables=[8]),
        ],
        "total_debt",
    )
    assert notes["value"].to_list() == [5655.0]


# -- restatements ------------------------------------------------------------------------------


def _observation(filing: str, filed: str | None, value: float, metric: str = "net_income") -> dict:
    return {
        "observation_id": f"{filing}:{metric}",
        "cik": "0000000042",
        "metric": metric,
        "value": value,
        "unit": "USD",
        "fiscal_label": "Q2-FY2024",
        "fiscal_year": 2024,
        "fiscal_period": "Q2",
        "period_type": "duration",
        "calendar_start": D("2024-04-01"),
        "calendar_end": D("2024-06-30"),
        "filing_id": filing,
        "form": "10-Q",
        "filed_date": D(filed) if filed else None,
        "fact_id": f"{filing}:fact",
        "fact_ids": [f"{filing}:fact"],
        "concept": "us-gaap:NetIncomeLoss",
        "chunk_id": None,
        "superseded_by": None,
        "restated": None,
    }


def test_supersession_links_every_filing_and_flags_changed_values():
    rows = [
        _observation("q2-2024", "2024-07-24", 1478.0),
        _observation("q2-2025", "2025-07-24", 1400.0),  # recast: ASU 2023-08 adoption
        _observation("10k-2024", "2025-01-30", 1478.0),  # repeats the original
        _observation("other-co", "2024-07-24", 5.0)
        | {"cik": "0000000099", "observation_id": "other"},
    ]
    expected = None
    for seed in range(5):  # the result does not depend on the order partitions were read in
        shuffled = rows[:]
        random.Random(seed).shuffle(shuffled)
        result = apply_supersession(frame(shuffled, METRIC_OBSERVATIONS)).sort("observation_id")
        expected = expected if expected is not None else result
        assert result.equals(expected)
    by_id = {r["observation_id"]: r for r in expected.iter_rows(named=True)}
    assert by_id["q2-2024:net_income"]["superseded_by"] == "10k-2024:net_income"
    assert by_id["10k-2024:net_income"]["superseded_by"] == "q2-2025:net_income"
    assert by_id["q2-2025:net_income"]["superseded_by"] is None
    assert by_id["10k-2024:net_income"]["restated"] is False
    assert by_id["q2-2025:net_income"]["restated"] is True
    assert by_id["other"]["superseded_by"] is None
    assert set(latest(expected)["observation_id"]) == {"q2-2025:net_income", "other"}
    assert set(originally_reported(expected)["observation_id"]) == {"q2-2024:net_income", "other"}
    assert latest(expected).filter(pl.col("cik") == "0000000042")["value"].to_list() == [1400.0]


def test_supersession_orders_unknown_filing_dates_first():
    result = apply_supersession(
        frame(
            [_observation("undated", None, 1.0), _observation("dated", "2024-01-01", 2.0)],
            METRIC_OBSERVATIONS,
        )
    )
    undated = result.filter(pl.col("filing_id") == "undated").row(0, named=True)
    assert undated["superseded_by"] == "dated:net_income"


def test_latest_values_pick_the_most_recent_period_and_value():
    rows = [
        _observation("10k", "2025-01-30", 7_000.0)
        | {
            "calendar_start": D("2024-01-01"),
            "calendar_end": D("2024-12-31"),
            "fiscal_label": "FY2024",
            "fiscal_period": "FY",
            "observation_id": "fy",
        },
        _observation("10k", "2025-01-30", 2_300.0)
        | {
            "calendar_start": D("2024-10-01"),
            "calendar_end": D("2024-12-31"),
            "fiscal_label": "Q4-FY2024",
            "fiscal_period": "Q4",
            "observation_id": "q4",
        },
        _observation("10q", "2024-07-24", 1_478.0) | {"observation_id": "q2-old"},
        _observation("10q-next", "2025-07-24", 1_400.0) | {"observation_id": "q2-new"},
    ]
    current = latest_values(frame(rows, METRIC_OBSERVATIONS), ["net_income"]).row(0, named=True)
    assert (current["fiscal_label"], current["value"]) == ("FY2024", 7_000.0)  # FY beats its Q4
    older = latest_values(frame(rows[2:], METRIC_OBSERVATIONS), ["net_income"]).row(0, named=True)
    assert older["value"] == 1_400.0  # the restated value is the current one


# -- the corpus --------------------------------------------------------------------------------


@pytest.mark.corpus
def test_nvidia_fiscal_2025_revenue_cites_the_income_statement(corpus_dir: Path):
    nvda, chunks = chunked(corpus_dir, "0001045810-25-000023")
    revenue = obs(nvda.metrics.observations, "revenue", "2025-01-26")
    assert revenue["value"] / 1e6 == 130_497 and revenue["unit"] == "USD"
    assert revenue["fiscal_label"] == "FY2025"
    assert (revenue["calendar_start"], revenue["calendar_end"]) == (
        D("2024-01-29"),
        D("2025-01-26"),
    )
    assert revenue["cik"] == "0001045810" and revenue["filing_id"] == "0001045810-25-000023"
    chunk = chunks.filter(pl.col("chunk_id") == revenue["chunk_id"]).row(0, named=True)
    assert chunk["kind"] == "table" and "Consolidated Statements of Income" in chunk["text"]
    # Its balance sheet: total debt is the face's long-term debt plus short-term debt (0).
    debt = obs(nvda.metrics.observations, "total_debt", "2025-01-26")
    assert debt["value"] == 8_463_000_000
    assert debt["concept"] == "us-gaap:LongTermDebtNoncurrent + us-gaap:DebtCurrent"


@pytest.mark.slow
def test_nvidia_stock_split_recasts_fiscal_2023_per_share_figures(corpus_dir: Path):
    """The FY2025 10-K shows fiscal 2023 per-share figures after the June 2024 ten-for-one
    split; the FY2023 10-K showed them before. Both observations remain."""
    o = corpus_observations(corpus_dir).filter(
        (pl.col("cik") == "0001045810")
        & (pl.col("fiscal_label") == "FY2023")
        & (pl.col("period_type") == "duration")
    )
    eps = o.filter(pl.col("metric") == "eps_diluted").sort("filed_date")
    assert eps["value"].to_list() == [1.74, 0.17]
    assert eps["filing_id"].to_list() == ["0001045810-23-000017", "0001045810-25-000023"]
    assert eps["superseded_by"][0] == eps["observation_id"][1]
    assert eps["restated"].to_list() == [None, True]
    # A split is a recast, not a restatement: the value ratio and the share counts say so.
    assert eps["supersede_reason"].to_list() == ["recast", None]
    assert eps["supersede_detail"][0].startswith("10-for-1 stock split")
    assert latest(eps)["value"].to_list() == [0.17]
    assert originally_reported(eps)["value"].to_list() == [1.74]
    # Revenue was not restated: linked, and not flagged.
    revenue = o.filter(pl.col("metric") == "revenue").sort("filed_date")
    assert revenue["value"].to_list() == [26_974_000_000, 26_974_000_000]
    assert revenue["restated"].to_list() == [None, False]
    assert revenue["superseded_by"][0] == revenue["observation_id"][1]


@pytest.mark.slow
def test_tesla_crypto_accounting_restates_a_2024_quarter(corpus_dir: Path):
    """Tesla's FY2024 10-K shows Q2 2024 net income as originally reported (1,478); after
    adopting ASU 2023-08 retrospectively, its Q2 2025 10-Q shows that quarter as 1,400."""
    net = (
        corpus_observations(corpus_dir)
        .filter(
            (pl.col("cik") == "0001318605")
            & (pl.col("metric") == "net_income")
            & (pl.col("fiscal_label") == "Q2-FY2024")
        )
        .sort("filed_date")
    )
    assert net["value"].to_list() == [1_478_000_000, 1_400_000_000]
    assert net["form"].to_list() == ["10-K", "10-Q"]
    assert net["superseded_by"][0] == net["observation_id"][1] and net["restated"][1] is True
    assert latest(net)["value"].to_list() == [1_400_000_000]
    assert net["supersede_reason"][0] == "recast" and "ASU 2023-08" in net["supersede_detail"][0]


@pytest.mark.slow
def test_corpus_supersession_leaves_one_newest_per_period(corpus_dir: Path):
    o = corpus_observations(corpus_dir)
    newest = latest(o)
    key = ["cik", "metric", "period_type", "calendar_start", "calendar_end", "unit"]
    assert newest.group_by(key).len()["len"].max() == 1
    assert newest.select(key).n_unique() == o.select(key).n_unique()
    assert o["superseded_by"].drop_nulls().is_in(o["observation_id"].implode()).all()


@pytest.mark.slow
def test_coverage_of_the_core_metrics_for_every_10k_10q_company(corpus_dir: Path):
    core = {"revenue", "net_income", "total_assets", "stockholders_equity"}
    have: dict[str, set[str]] = {}
    for filing in corpus_filings(corpus_dir).values():
        if (filing.ref.form or "") not in {"10-K", "10-Q"} or filing.xbrl.facts.is_empty():
            continue
        have.setdefault(filing.ref.ticker, set()).update(
            filing.metrics.observations["metric"].to_list()
        )
    missing = {t: sorted(core - got) for t, got in have.items() if core - got}
    assert len(have) == 27  # every company with an inline-XBRL 10-K or 10-Q in the corpus
    # Wells Fargo's 10-K incorporates its statements from exhibit 13 (not in the corpus);
    # Aeon Biopharma, clinical-stage, has no revenue line.
    assert missing == {"WFC": sorted(core), "AEON": ["revenue"]}
