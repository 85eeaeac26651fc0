"""Issue 25: `as_of` follows what the snapshot holds and says how it was derived. A filing that
carries no filing date (a local file without EDGAR's index) still dates the snapshot by the end
of the period it reports (it was filed after that); the newest filing date alone gave a
snapshot of fiscal-2023 10-Ks an as_of in 2022, from two older 8-Ks."""

from __future__ import annotations

import datetime as dt

import polars as pl

from graphrag_core.store.snapshot_tables import as_of_basis

D = dt.date.fromisoformat


def filings(rows: list[tuple[str, str, str | None, str | None]]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "filing_id": f,
                "form": form,
                "company": "ACME CORP",
                "filed_date": filed and D(filed),
                "period_end": end and D(end),
            }
            for f, form, filed, end in rows
        ],
        schema={
            "filing_id": pl.String,
            "form": pl.String,
            "company": pl.String,
            "filed_date": pl.Date,
            "period_end": pl.Date,
        },
    )


def test_dateless_10ks_date_the_snapshot_by_their_period_end_not_older_8ks():
    frame = filings(
        [
            ("8k-a", "8-K", "2022-06-13", "2022-06-10"),
            ("8k-b", "8-K", "2022-03-01", None),
            ("10k-22", "10-K", None, "2022-01-30"),
            ("10k-23", "10-K", None, "2023-01-29"),
        ]
    )
    as_of, basis = as_of_basis(frame)
    assert as_of == D("2023-01-29")
    assert basis == (
        "end of the period reported by 10-K 10k-23 (ACME CORP), which carries no "
        "filing date (it was filed after)"
    )


def test_a_filing_date_wins_and_beats_a_period_end_of_the_same_day():
    frame = filings(
        [("10k", "10-K", None, "2025-02-26"), ("10q", "10-Q", "2025-02-26", "2024-10-27")]
    )
    assert as_of_basis(frame) == (D("2025-02-26"), "filing date of 10-Q 10q (ACME CORP)")
    later = filings(
        [("10k", "10-K", "2025-03-01", "2025-01-26"), ("10q", "10-Q", None, "2024-10-27")]
    )
    assert as_of_basis(later) == (D("2025-03-01"), "filing date of 10-K 10k (ACME CORP)")


def test_no_dates_at_all_and_no_filings_give_none():
    assert as_of_basis(filings([("x", "8-K", None, None)])) == (None, None)
    assert as_of_basis(filings([])) == (None, None)
