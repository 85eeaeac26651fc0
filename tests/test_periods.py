"""Fiscal labels from the company's own calendar: Apple (late September), NVIDIA and Walmart
(late January, NVIDIA on 52/53-week years), Home Depot (a year named after the one before)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.common.dates import fiscal_year_end_month_day
from graphrag_core.xbrl.companyfacts import read_companyfacts
from graphrag_core.xbrl.metrics import FilingInfo
from graphrag_core.xbrl.periods import FiscalCalendar, FiscalCalendarError
from tests.xbrl_corpus import corpus_filings

D = dt.date.fromisoformat


def label(calendar: FiscalCalendar, start: str, end: str) -> str:
    return calendar.duration(D(start), D(end)).label


APPLE = FiscalCalendar.from_filing("--09-27", 2025, D("2025-03-29"), "10-Q", "Q2")
NVIDIA = FiscalCalendar.from_filing("--01-26", 2025, D("2025-01-26"), "10-K", "FY")
WALMART = FiscalCalendar.from_filing("--01-31", 2025, D("2025-01-31"), "10-K", "FY")


def test_apple_quarters_are_fiscal_not_calendar():
    # Apple's fiscal year ends on the last Saturday of September.
    assert label(APPLE, "2023-10-01", "2024-09-28") == "FY2024"
    assert label(APPLE, "2024-09-29", "2024-12-28") == "Q1-FY2025"  # October–December is Q1
    assert label(APPLE, "2024-12-29", "2025-03-29") == "Q2-FY2025"
    assert label(APPLE, "2025-03-30", "2025-06-28") == "Q3-FY2025"
    assert label(APPLE, "2024-09-29", "2025-03-29") == "H1-FY2025"
    assert label(APPLE, "2024-09-29", "2025-06-28") == "9M-FY2025"
    assert APPLE.instant(D("2025-03-29")).label == "Q2-FY2025"
    assert APPLE.instant(D("2024-09-28")).label == "FY2024"


def test_nvidia_52_53_week_years():
    period = NVIDIA.duration(D("2024-01-29"), D("2025-01-26"))
    assert (period.label, period.fiscal_year, period.fiscal_period) == ("FY2025", 2025, "FY")
    assert label(NVIDIA, "2023-01-30", "2024-01-28") == "FY2024"
    assert label(NVIDIA, "2022-01-31", "2023-01-29") == "FY2023"
    # Fiscal 2021 had 53 weeks (371 days) and a 14-week fourth quarter.
    assert label(NVIDIA, "2020-01-27", "2021-01-31") == "FY2021"
    assert label(NVIDIA, "2020-10-26", "2021-01-31") == "Q4-FY2021"
    assert NVIDIA.instant(D("2024-01-28")).label == "FY2024"
    # The cover page's share count date is not a period end: it keeps its date.
    cover = NVIDIA.instant(D("2025-02-21"))
    assert (cover.label, cover.fiscal_period) == ("2025-02-21", None)


def test_nvidia_quarter_from_its_10q():
    q2 = FiscalCalendar.from_filing("--01-25", 2026, D("2025-07-27"), "10-Q", "Q2")
    assert label(q2, "2025-04-28", "2025-07-27") == "Q2-FY2026"
    assert label(q2, "2025-01-27", "2025-07-27") == "H1-FY2026"
    assert label(q2, "2024-04-29", "2024-07-28") == "Q2-FY2025"  # the prior-year column
    assert q2.instant(D("2025-01-26")).label == "FY2025"


def test_walmart_year_ends_in_january():
    assert label(WALMART, "2024-02-01", "2025-01-31") == "FY2025"
    assert label(WALMART, "2023-02-01", "2024-01-31") == "FY2024"
    assert label(WALMART, "2024-08-01", "2024-10-31") == "Q3-FY2025"
    assert label(WALMART, "2024-02-01", "2024-10-31") == "9M-FY2025"
    assert WALMART.instant(D("2024-01-31")).label == "FY2024"


def test_a_year_named_after_the_calendar_year_it_starts_in():
    # Home Depot calls the year ended 2025-02-02 "fiscal 2024"; its dei focus says so.
    home_depot = FiscalCalendar.from_filing("--02-02", 2024, D("2025-02-02"), "10-K", "FY")
    assert home_depot.year_offset == -1
    assert label(home_depot, "2024-01-29", "2025-02-02") == "FY2024"
    assert label(home_depot, "2023-01-30", "2024-01-28") == "FY2023"


def test_nike_and_calendar_years():
    nike = FiscalCalendar.from_filing("--05-31", 2025, D("2025-05-31"), "10-K", "FY")
    assert label(nike, "2024-06-01", "2025-05-31") == "FY2025"
    assert label(nike, "2024-12-01", "2025-02-28") == "Q3-FY2025"
    calendar = FiscalCalendar.from_filing("--12-31", 2024, D("2024-12-31"), "10-K", "FY")
    assert label(calendar, "2024-01-01", "2024-12-31") == "FY2024"
    assert label(calendar, "2024-10-01", "2024-12-31") == "Q4-FY2024"
    assert label(calendar, "2024-01-01", "2024-06-30") == "H1-FY2024"


def test_stub_periods_say_so():
    # Eleven months after an acquisition, to the fiscal year end: a stub of FY2025.
    odd = NVIDIA.duration(D("2024-03-01"), D("2025-01-26"))
    assert (odd.label, odd.fiscal_year, odd.fiscal_period) == (
        "Stub-FY2025 (2024-03-01..2025-01-26)",
        2025,
        "stub",
    )
    # From a listing to a quarter end, and from a quarter start to a merger date.
    calendar = FiscalCalendar.from_filing("--12-31", 2023, D("2023-09-30"), "10-Q", "Q3")
    assert (
        calendar.duration(D("2023-07-23"), D("2023-09-30")).label
        == "Stub-Q3-FY2023 (2023-07-23..2023-09-30)"
    )
    assert (
        calendar.duration(D("2023-07-01"), D("2023-08-15")).label == "Stub 2023-07-01..2023-08-15"
    )


def test_unaligned_durations_keep_their_dates():
    # Neither end on a fiscal boundary: no fiscal period of the company's, and not a stub.
    odd = NVIDIA.duration(D("2024-03-01"), D("2024-12-15"))
    assert odd.fiscal_period is None and odd.label == "2024-03-01..2024-12-15"
    # A year of another calendar (the old one, in a filing after a fiscal year change).
    assert NVIDIA.duration(D("2023-07-01"), D("2024-06-30")).label == "2023-07-01..2024-06-30"


def test_transition_periods_say_so():
    # A 10-KT after moving the year end from June 30 to December 31: six months of transition.
    calendar = FiscalCalendar.from_filing("--12-31", 2024, D("2024-12-31"), "10-KT", "FY")
    assert calendar.transition
    period = calendar.duration(D("2024-07-01"), D("2024-12-31"))
    assert (period.label, period.fiscal_period) == (
        "Transition 2024-07-01..2024-12-31",
        "transition",
    )
    # Its ordinary periods keep their labels.
    assert calendar.duration(D("2024-10-01"), D("2024-12-31")).label == "Q4-FY2024"
    assert not FiscalCalendar.from_filing("--12-31", 2024, D("2024-12-31"), "10-K", "FY").transition


def test_a_typo_in_the_fiscal_year_focus_is_ignored():
    calendar = FiscalCalendar.from_filing("--01-26", 2052, D("2025-01-26"), "10-K", "FY")
    assert calendar.year_offset == 0


def test_fiscal_year_end_parsing_and_inference():
    assert fiscal_year_end_month_day("--01-26") == (1, 26)
    assert fiscal_year_end_month_day("January 26") is None
    assert fiscal_year_end_month_day("--13-01") is None
    # No dei:CurrentFiscalYearEndDate: a 10-K's period end is the year end, a 10-Q's is
    # (4 - q) quarters later.
    inferred = FiscalCalendar.from_filing(None, 2025, D("2025-01-26"), "10-K", "FY")
    assert (inferred.month, inferred.day) == (1, 26)
    from_q2 = FiscalCalendar.from_filing(None, 2025, D("2025-06-30"), "10-Q", "Q2")
    assert (from_q2.month, from_q2.day) == (12, 31)
    with pytest.raises(FiscalCalendarError, match="CurrentFiscalYearEndDate"):
        FiscalCalendar.from_filing(None, None, None, "8-K", None)


@pytest.mark.slow
def test_corpus_filings_label_their_own_period_as_their_dei_focus(corpus_dir: Path):
    """Each 10-K/10-Q's current-period revenue or net income carries the label its own
    DocumentFiscalYearFocus/PeriodFocus states (FY for a 10-K, Qn for a 10-Q's quarter)."""
    checked, unlabeled, no_statements = 0, {}, set()
    for filing in corpus_filings(corpus_dir).values():
        obs = filing.metrics.observations
        form = (filing.ref.form or "").upper()
        if form not in {"10-K", "10-Q"} or obs.is_empty():
            continue
        info = FilingInfo.from_facts(filing.xbrl.facts, filing.ref.filing_id, form=form)
        if info.fiscal_year_focus is None or info.period_end is None:
            continue  # a filing without its fiscal focus facts
        expected = (
            f"FY{info.fiscal_year_focus}"
            if form == "10-K"
            else f"{info.fiscal_period_focus}-FY{info.fiscal_year_focus}"
        )
        current = obs.filter(
            pl.col("metric").is_in(["net_income", "revenue"])
            & (pl.col("calendar_end") == info.period_end)
        )
        if current.is_empty():
            no_statements.add(f"{filing.ref.ticker} {form}")
        elif expected not in set(current["fiscal_label"]):
            unlabeled[filing.ref.ticker] = current
        checked += 1
    assert checked >= 30
    # IBM's and Wells Fargo's 10-Ks incorporate their financial statements from the annual
    # report (exhibit 13), which the corpus does not hold.
    assert no_statements == {"IBM 10-K", "WFC 10-K"}
    # Aeon Biopharma became public through a merger on 2023-07-21: its "quarter" is a stub
    # from 2023-07-23 to the end of its third quarter, and its label says so.
    assert set(unlabeled) == {"AEON"}
    aeon = unlabeled["AEON"]
    assert set(aeon["fiscal_label"]) == {"Stub-Q3-FY2023 (2023-07-23..2023-09-30)"}
    assert set(aeon["fiscal_period"]) == {"stub"}


@pytest.mark.corpus
@pytest.mark.parametrize(
    "name", ["SNOW_CIK0001640147_Snowflake-Inc", "TSLA_CIK0001318605_Tesla-Inc"]
)
def test_labels_agree_with_sec_fiscal_focus_in_companyfacts(corpus_dir: Path, name: str):
    """SEC's companyfacts state each filing's fiscal year and period (fy/fp). For the filing's
    own period — the latest end it reports, a quarter for a 10-Q or the year for a 10-K — our
    label must say the same, with the year end taken from the company's 10-K periods (the
    companyfacts file has no dei:CurrentFiscalYearEndDate). Snowflake's year ends on January 31."""
    facts = read_companyfacts(
        corpus_dir / "reference" / "companyfacts" / f"{name}_companyfacts.json"
    )
    facts = facts.filter(
        pl.col("form").is_in(["10-K", "10-Q"]) & (pl.col("period_type") == "duration")
    )
    latest = facts.group_by("accession").agg(pl.col("period_end").max().alias("latest"))
    current = (
        facts.join(latest, on="accession")
        .filter(pl.col("period_end") == pl.col("latest"))
        .with_columns(days=(pl.col("period_end") - pl.col("period_start")).dt.total_days() + 1)
        .filter(
            ((pl.col("form") == "10-Q") & pl.col("days").is_between(84, 98))
            | ((pl.col("form") == "10-K") & pl.col("days").is_between(357, 373))
        )
        .unique(["accession", "period_start", "period_end"])
    )
    annual_ends = current.filter(pl.col("form") == "10-K")["period_end"]
    fye = annual_ends.dt.strftime("--%m-%d").mode().sort()[-1]
    mismatches, filer_errors = [], []
    for row in current.iter_rows(named=True):
        calendar = FiscalCalendar.from_filing(
            fye, row["fiscal_year"], row["period_end"], row["form"], row["fiscal_period"]
        )
        got = calendar.duration(row["period_start"], row["period_end"]).label
        fp = row["fiscal_period"]
        if row["form"] == "10-Q" and fp == "FY":
            filer_errors.append((row["accession"], got))  # a quarter the filer tagged as a year
            continue
        expected = f"FY{row['fiscal_year']}" if fp == "FY" else f"{fp}-FY{row['fiscal_year']}"
        if got != expected:
            mismatches.append(
                (row["accession"], row["period_start"], row["period_end"], got, expected)
            )
    assert current.height >= 15
    assert mismatches == []
    if name.startswith("SNOW"):
        assert fye == "--01-31"
        # Snowflake's first 10-Q of fiscal 2023 says DocumentFiscalPeriodFocus=FY; its dates
        # say Q1 (February–April 2022), and so do we.
        assert filer_errors == [("0001640147-22-000044", "Q1-FY2023")]
    else:
        assert filer_errors == []
