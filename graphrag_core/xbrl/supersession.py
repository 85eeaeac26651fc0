"""Restatements across filings: the same company, metric, period and unit reported again.

`apply_supersession` runs over the observations of *all* filings; for each company, metric,
period and unit it orders the observations by filing date and links each one to the next newer
through `superseded_by`. Nothing is deleted: `latest()` is what queries use by default,
`originally_reported()` answers "what did they first say", and `restated` marks an observation
whose value differs from the one it replaced.
"""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

SUPERSESSION_KEY = ("cik", "metric", "period_type", "calendar_start", "calendar_end", "unit")


def apply_supersession(observations: pl.DataFrame) -> pl.DataFrame:
    """Link every observation to the next newer one of the same company, metric, period and
    unit (`superseded_by`), and mark those whose value changed (`restated`).

    Pure and order-independent: newer means a later filing date, then (same day, or unknown
    dates, which sort first) the larger filing id, so the result does not depend on the order
    partitions were read in. Runs over all filings' observations at once."""
    if observations.is_empty():
        return observations
    ordered = observations.sort([*SUPERSESSION_KEY, "filed_date", "filing_id", "observation_id"], nulls_last=False)
    return (
        ordered.with_columns(
            superseded_by=pl.col("observation_id").shift(-1).over(SUPERSESSION_KEY),
            restated=(pl.col("value") != pl.col("value").shift(1).over(SUPERSESSION_KEY)),
        )
        .select(observations.columns)
    )


def latest(observations: pl.DataFrame) -> pl.DataFrame:
    """What queries use by default: the newest observation of each company, metric and period."""
    return observations.filter(pl.col("superseded_by").is_null())


def originally_reported(observations: pl.DataFrame) -> pl.DataFrame:
    """The first observation of each company, metric and period: what was originally reported."""
    replaced = observations.select(pl.col("superseded_by").drop_nulls().alias("observation_id"))
    return observations.join(replaced, on="observation_id", how="anti")


def latest_values(observations: pl.DataFrame, metrics: Iterable[str] = ("revenue", "net_income")) -> pl.DataFrame:
    """Per company and metric, the current value of its most recent period: what a summary
    shows ("NVIDIA revenue Q2-FY2026 46,743 million"). Periods ending the same day prefer the
    longer one (FY over its Q4, the quarter over the half year). Supersession is applied here,
    so it works on the observations of any set of partitions."""
    wanted = list(metrics)
    current = latest(apply_supersession(observations)).filter(pl.col("metric").is_in(wanted))
    return (
        current.with_columns(_days=(pl.col("calendar_end") - pl.col("calendar_start")).dt.total_days())
        .with_columns(_year_to_date=~pl.col("fiscal_period").is_in(["FY", "Q1", "Q2", "Q3", "Q4"]).fill_null(False))
        .sort(["cik", "metric", "calendar_end", "_year_to_date", "_days"], descending=[False, False, True, False, True])
        .group_by(["cik", "metric"], maintain_order=True)
        .first()
        .select("cik", "metric", "value", "unit", "fiscal_label", "calendar_start", "calendar_end", "filing_id", "chunk_id")
    )
