"""Our numbers against independent ones.

What the corpus allows, said plainly:
- SEC companyfacts exist for Tesla, Snowflake and Logistic Properties of the Americas (LPA).
  Tesla's file stops at its Q3 2022 10-Q while the corpus holds Tesla's FY2024 10-K and Q2 2025
  10-Q: the only overlap is what the FY2024 10-K restates from the opening of fiscal 2022 (the
  2021-12-31 balances of the equity statement, the cash-flow statement and two notes) — four
  concepts, compared against every 10-K and 10-Q value SEC holds for them. None of them is a
  canonical metric, so metric observations themselves have no companyfacts counterpart.
- Snowflake and LPA have no filing in the corpus: nothing of ours to compare. Their files still
  serve as real data for the mapping and the supersession rule (run over SEC's own extraction),
  and Snowflake's for fiscal labels (tests/test_periods.py).
- Within the corpus, ten companies have two or more filings: every dimensionless fact two of
  their filings report for the same period is compared; the disagreements are listed below, each
  a documented restatement, recast or reclassification.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from graphrag_core.xbrl.companyfacts import (
    cross_filing_check,
    crosscheck,
    read_companyfacts,
    reference_facts,
)
from graphrag_core.xbrl.metrics import FilingInfo, observations_from_facts
from graphrag_core.xbrl.supersession import apply_supersession, latest
from tests.xbrl_corpus import corpus_filings

pytestmark = pytest.mark.slow

REFERENCE = {
    "TSLA": "TSLA_CIK0001318605_Tesla-Inc_companyfacts.json",
    "SNOW": "SNOW_CIK0001640147_Snowflake-Inc_companyfacts.json",
    "LPA": "LPA_CIK0001997711_Logistic-Properties-of-the-Americas_companyfacts.json",
}


def reference(corpus_dir: Path, ticker: str) -> pl.DataFrame:
    return read_companyfacts(corpus_dir / "reference" / "companyfacts" / REFERENCE[ticker])


def company_facts(corpus_dir: Path, cik: str) -> pl.DataFrame:
    frames = [
        f.facts
        for f in corpus_filings(corpus_dir).values()
        if f.ref.cik == cik and f.xbrl.facts.height
    ]
    return pl.concat(frames) if frames else pl.DataFrame()


def test_tesla_facts_match_sec_companyfacts(corpus_dir: Path):
    ours = company_facts(corpus_dir, "0001318605")
    ref = reference(corpus_dir, "TSLA")
    same_form = crosscheck(ours, ref)
    mismatches = same_form.filter(~pl.col("match"))
    assert mismatches.is_empty(), mismatches
    assert sorted(set(same_form["concept"])) == [
        "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsIncludingDisposalGroupAndDiscontinuedOperations",
        "us-gaap:StandardProductWarrantyAccrual",
        "us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
        "us-gaap:UnrecognizedTaxBenefits",
    ]
    assert set(same_form["period_end"].cast(pl.String)) == {"2021-12-31"}
    # The same values as every 10-Q that repeated them in 2022, too.
    any_form = crosscheck(
        ours.drop("form"), ref.with_columns(form=pl.lit(None, dtype=pl.String)), form=None
    )
    assert any_form.height > same_form.height and any_form["match"].all()
    equity = same_form.filter(pl.col("concept").str.contains("StockholdersEquityIncluding"))
    assert equity["value"].unique().to_list() == [31_015_000_000]


def test_a_wrong_value_would_be_caught(corpus_dir: Path):
    """The check is not vacuous: one digit off in our facts shows up as a mismatch."""
    ours = company_facts(corpus_dir, "0001318605").with_columns(
        value=pl.when(pl.col("concept") == "us-gaap:StandardProductWarrantyAccrual")
        .then(pl.col("value") + 1_000_000)
        .otherwise(pl.col("value"))
    )
    checked = crosscheck(ours, reference(corpus_dir, "TSLA"))
    assert set(checked.filter(~pl.col("match"))["concept"]) == {
        "us-gaap:StandardProductWarrantyAccrual"
    }


def test_reference_companies_without_corpus_filings(corpus_dir: Path):
    ciks = {f.ref.cik for f in corpus_filings(corpus_dir).values()}
    assert "0001640147" not in ciks and "0001997711" not in ciks  # Snowflake, LPA


# Every disagreement between two corpus filings of one company, and why.
KNOWN_RECASTS = {
    # NVIDIA's 10-for-1 split (June 2024): the FY2025 10-K recasts fiscal 2023 per-share
    # figures and share counts; a fiscal-2023 investing line was also reclassified.
    ("NVDA", "us-gaap:EarningsPerShareBasic", "2023-01-29"),
    ("NVDA", "us-gaap:EarningsPerShareDiluted", "2023-01-29"),
    ("NVDA", "us-gaap:CommonStockDividendsPerShareDeclared", "2023-01-29"),
    ("NVDA", "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic", "2023-01-29"),
    ("NVDA", "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding", "2023-01-29"),
    ("NVDA", "us-gaap:WeightedAverageNumberDilutedSharesOutstandingAdjustment", "2023-01-29"),
    (
        "NVDA",
        "us-gaap:AntidilutiveSecuritiesExcludedFromComputationOfEarningsPerShareAmount",
        "2023-01-29",
    ),
    ("NVDA", "us-gaap:PaymentsForProceedsFromOtherInvestingActivities", "2023-01-29"),
    # Tesla adopted ASU 2023-08 (crypto assets at fair value) retrospectively to 2024-01-01:
    # its Q2 2025 10-Q restates Q2 2024 as its FY2024 10-K had first shown it.
    ("TSLA", "us-gaap:NetIncomeLoss", "2024-06-30"),
    ("TSLA", "us-gaap:EarningsPerShareBasic", "2024-06-30"),
    ("TSLA", "us-gaap:EarningsPerShareDiluted", "2024-06-30"),
    ("TSLA", "us-gaap:IncomeTaxExpenseBenefit", "2024-06-30"),
    ("TSLA", "us-gaap:OtherNonoperatingIncomeExpense", "2024-06-30"),
    ("TSLA", "us-gaap:DeferredIncomeTaxAssetsNet", "2024-06-30"),
    ("TSLA", "tsla:DigitalAssetsNetNonCurrent", "2024-06-30"),
    # Reclassifications in a later 10-Q's comparative balance sheet / note.
    ("UNP", "us-gaap:OtherAssetsCurrent", "2024-12-31"),
    ("JNJ", "us-gaap:SupplierFinanceProgramObligationCurrent", "2024-12-29"),
}


def test_facts_two_corpus_filings_share_agree_except_known_recasts(corpus_dir: Path):
    filings = [f for f in corpus_filings(corpus_dir).values() if f.xbrl.facts.height]
    tickers = {f.ref.cik: f.ref.ticker for f in filings}
    checked = cross_filing_check(pl.concat([f.xbrl.facts for f in filings]))
    companies = set(checked["cik"].unique())
    assert {tickers[c] for c in companies} == {
        "AAPL",
        "BA",
        "JNJ",
        "KO",
        "NFLX",
        "NVDA",
        "PG",
        "TSLA",
        "UNP",
    }
    assert checked.height >= 700
    disagreements = {
        (tickers[r["cik"]], r["concept"], r["period_end"].isoformat())
        for r in checked.filter(~pl.col("consistent")).iter_rows(named=True)
    }
    assert disagreements == KNOWN_RECASTS
    # Rounding is not a disagreement: Apple's 10-Q shows the 10-K's 96,662 million as 96.7 billion.
    apple_debt = checked.filter(
        (pl.col("concept") == "us-gaap:LongTermDebt")
        & (pl.col("cik") == "0000320193")
        & (pl.col("period_end").cast(pl.String) == "2024-09-28")
    ).row(0, named=True)
    assert (
        sorted(set(apple_debt["values"])) == [96_662_000_000, 96_700_000_000]
        and apple_debt["consistent"]
    )


def _reference_observations(ref: pl.DataFrame, fiscal_year_end: str) -> pl.DataFrame:
    frames = []
    filings = (
        ref.filter(pl.col("form").is_in(["10-K", "10-Q", "20-F"]))
        .group_by("accession")
        .agg(
            pl.col("form").first(),
            pl.col("filed_date").first(),
            pl.col("fiscal_year").first(),
            pl.col("fiscal_period").first(),
            pl.col("period_end").max(),
            pl.col("cik").first(),
        )
    )
    for f in filings.iter_rows(named=True):
        facts = reference_facts(ref, f["accession"])
        info = FilingInfo(
            f["accession"],
            f["cik"],
            f["form"],
            f["filed_date"],
            fiscal_year_end,
            f["fiscal_year"],
            f["fiscal_period"],
            f["period_end"],
        )
        frames.append(observations_from_facts(facts, info).observations)
    return apply_supersession(pl.concat(frames))


@pytest.mark.parametrize(
    ("ticker", "fye"), [("SNOW", "--01-31"), ("TSLA", "--12-31"), ("LPA", "--12-31")]
)
def test_mapping_and_supersession_over_sec_extraction(corpus_dir: Path, ticker: str, fye: str):
    """The mapping and the restatement rule run over SEC's own extraction of every filing of
    the company. Restatements found must be exactly the value changes a plain reading of the
    filings in date order finds, and the newest value is the latest filing's."""
    observations = _reference_observations(reference(corpus_dir, ticker), fye)
    metrics = set(observations["metric"])
    assert {"revenue", "net_income", "total_assets", "stockholders_equity"} <= metrics
    key = ["cik", "metric", "period_type", "calendar_start", "calendar_end", "unit"]
    expected_restated = 0
    for _, group in observations.sort("filed_date", "filing_id").group_by(key, maintain_order=True):
        values = group["value"].to_list()
        expected_restated += sum(1 for a, b in zip(values, values[1:], strict=False) if a != b)
    assert int(observations["restated"].fill_null(False).sum()) == expected_restated
    newest = latest(observations)
    assert newest.group_by(key).len()["len"].max() == 1
    last_filed = observations.group_by(key).agg(pl.col("filed_date").max().alias("last"))
    assert newest.join(last_filed, on=key).filter(pl.col("filed_date") != pl.col("last")).is_empty()
    if ticker == "TSLA":
        assert expected_restated > 0  # Tesla's 10-K/As and recasts in 2011–2022
