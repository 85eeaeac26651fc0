"""Restatements across filings: the same company, metric, period and unit reported again.

`apply_supersession` runs over the observations of *all* filings; for each company, metric,
period and unit it orders the observations and links each one to the next through
`superseded_by`. Nothing is deleted: `latest()` is what queries use by default,
`originally_reported()` answers "what did they first say", and `restated` marks an observation
whose value differs from the one it replaced.

The order is by how final a figure is, then by filing date: an earnings release's figure
(unaudited) before any 10-Q/10-K's; a derived figure before a reported one of the same kind.
So the 10-Q's XBRL value supersedes the release's, whichever was filed first. An earnings
release states a period by its end and length ("Thirteen Weeks Ended November 2, 2024"); its
start is aligned to the start of a filed observation of the same company, metric and end
(within a 52/53-week drift), and takes that observation's fiscal label, since the filing's own
calendar is the authority.

Every superseded observation says why (`supersede_reason`, `supersede_detail`, see
`recasts.classify`): `press_release_final` (with any difference between the release and the
filing spelled out), `recast` (a split, an accounting change, a reclassification, a
discontinued operation), `restatement` (an error correction, or a restatement the filing
states without saying more), `unknown` (the value changed and nothing says why); none when an
XBRL value was only repeated.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import polars as pl

from graphrag_core.tables.schemas import METRIC_OBSERVATIONS
from graphrag_core.xbrl.derived import derive_quarters, drop_non_finite
from graphrag_core.xbrl.recasts import Observed, classify
from graphrag_core.xbrl.splits import apply_splits

log = logging.getLogger(__name__)

SUPERSESSION_KEY = ("cik", "metric", "period_type", "calendar_start", "calendar_end", "unit")
ALIGN_DAYS = 7  # a release's inferred start may miss a 52/53-week quarter's by this much
_UNIT_KINDS = {"per_share": r"^[A-Z]{3}/shares$", "shares": r"^shares$"}


def source_rank() -> pl.Expr:
    """How final a figure is: 0 derived from a release, 1 a release's, 2 derived from filings,
    3 a filing's own. `store.database` orders `metric_values` by the same rank."""
    audited = (pl.col("source_kind").fill_null("xbrl") != "press_release").cast(pl.Int8)
    reported = (~pl.col("derived").fill_null(False)).cast(pl.Int8)
    return audited * 2 + reported


def with_defaults(observations: pl.DataFrame) -> pl.DataFrame:
    """Observations of partitions written before a column existed get its neutral value."""
    missing = [
        pl.lit(None, dtype=t).alias(c)
        for c, t in METRIC_OBSERVATIONS.items()
        if c not in observations.columns
    ]
    return observations.with_columns(missing) if missing else observations


def align_release_periods(observations: pl.DataFrame) -> pl.DataFrame:
    """A release's duration takes the start (and fiscal label) of a filed observation of the
    same company, metric, unit and end that starts within `ALIGN_DAYS` of it."""
    is_release = (pl.col("source_kind") == "press_release") & (pl.col("period_type") == "duration")
    releases = observations.filter(is_release)
    if releases.is_empty():
        return observations
    key = ["cik", "metric", "unit", "period_type", "calendar_end"]
    filed = (
        observations.filter(~is_release.fill_null(False))
        .select(
            *key,
            pl.col("calendar_start").alias("_start"),
            pl.col("fiscal_label").alias("_label"),
            pl.col("fiscal_year").alias("_year"),
            pl.col("fiscal_period").alias("_period"),
        )
        .unique(subset=[*key, "_start"], keep="first", maintain_order=True)
    )
    matched = (
        releases.select("observation_id", *key, "calendar_start")
        .join(filed, on=key, how="inner")
        .with_columns(_gap=(pl.col("_start") - pl.col("calendar_start")).dt.total_days().abs())
        .filter(pl.col("_gap") <= ALIGN_DAYS)
        .sort(["observation_id", "_gap"])
        .unique(subset=["observation_id"], keep="first")
        .select("observation_id", "_start", "_label", "_year", "_period")
    )
    if matched.is_empty():
        return observations
    return (
        observations.join(matched, on="observation_id", how="left")
        .with_columns(
            calendar_start=pl.coalesce("_start", "calendar_start"),
            fiscal_label=pl.coalesce("_label", "fiscal_label"),
            fiscal_year=pl.coalesce("_year", "fiscal_year"),
            fiscal_period=pl.coalesce("_period", "fiscal_period"),
        )
        .select(observations.columns)
    )


def _unit_kind() -> pl.Expr:
    expr = pl.lit("currency")
    for kind, pattern in _UNIT_KINDS.items():
        expr = pl.when(pl.col("unit").str.contains(pattern)).then(pl.lit(kind)).otherwise(expr)
    return expr


def _observed(row: dict, prefix: str = "") -> Observed:
    return Observed(
        value=row[f"{prefix}value"],
        unit_kind=row["_kind"],
        source_kind=row[f"{prefix}source_kind"],
        form=row[f"{prefix}form"],
        filing_id=row[f"{prefix}filing_id"],
        evidence=row[f"{prefix}recast_evidence"],
        shares_basis=row[f"{prefix}shares_basis"],
    )


def _reasons(linked: pl.DataFrame) -> pl.DataFrame:
    """supersede_reason and supersede_detail of every linked observation."""
    cols = ["value", "source_kind", "form", "filing_id", "recast_evidence", "shares_basis"]
    newer = linked.select(
        pl.col("observation_id").alias("superseded_by"),
        *[pl.col(c).alias(f"new_{c}") for c in cols],
    )
    # Only a changed value or a release made final has a reason: the rest (most links, a
    # comparative column repeating a figure) is skipped before the per-pair classification.
    pairs = (
        linked.filter(pl.col("superseded_by").is_not_null())
        .select("observation_id", "superseded_by", *cols, _kind=_unit_kind())
        .join(newer, on="superseded_by", how="left")
        .filter(
            pl.col("value").ne_missing(pl.col("new_value"))
            | (
                (pl.col("source_kind") == "press_release")
                & (pl.col("new_source_kind").fill_null("xbrl") != "press_release")
            )
        )
    )
    reasons = []
    for row in pairs.iter_rows(named=True):
        reason, detail = classify(
            _observed(row),
            _observed(row, "new_") if row["new_value"] is not None else _observed(row),
        )
        reasons.append(
            {"observation_id": row["observation_id"], "_reason": reason, "_detail": detail}
        )
    if not reasons:
        return linked
    frame = pl.DataFrame(
        reasons, schema={"observation_id": pl.String, "_reason": pl.String, "_detail": pl.String}
    )
    return (
        linked.join(frame, on="observation_id", how="left")
        .with_columns(supersede_reason=pl.col("_reason"), supersede_detail=pl.col("_detail"))
        .drop("_reason", "_detail")
    )


def apply_supersession(observations: pl.DataFrame) -> pl.DataFrame:
    """Link every observation to the next one of the same company, metric, period and unit
    (`superseded_by`), mark those whose value changed (`restated`), and say why each was
    superseded (`supersede_reason`, `supersede_detail`).

    Pure and order-independent: the order is the source rank (a release's figure before a
    filing's, a derived one before a reported one), then the filing date (unknown dates first),
    then the filing id, so the result does not depend on the order partitions were read in.
    Runs over all filings' observations at once."""
    if observations.is_empty():
        return observations
    columns = observations.columns
    prepared = align_release_periods(with_defaults(observations))
    ordered = prepared.with_columns(_rank=source_rank()).sort(
        [*SUPERSESSION_KEY, "_rank", "filed_date", "filing_id", "observation_id"], nulls_last=False
    )
    linked = ordered.with_columns(
        superseded_by=pl.col("observation_id").shift(-1).over(SUPERSESSION_KEY),
        restated=(pl.col("value") != pl.col("value").shift(1).over(SUPERSESSION_KEY)),
    ).drop("_rank")
    return _reasons(linked).select(
        [*columns, *[c for c in METRIC_OBSERVATIONS if c not in columns]]
    )


def latest(observations: pl.DataFrame) -> pl.DataFrame:
    """What queries use by default: the newest observation of each company, metric and period."""
    return observations.filter(pl.col("superseded_by").is_null())


def originally_reported(observations: pl.DataFrame) -> pl.DataFrame:
    """The first observation of each company, metric and period: what was originally reported."""
    replaced = observations.select(pl.col("superseded_by").drop_nulls().alias("observation_id"))
    return observations.join(replaced, on="observation_id", how="anti")


def latest_values(
    observations: pl.DataFrame, metrics: Iterable[str] = ("revenue", "net_income")
) -> pl.DataFrame:
    """Per company and metric, the current value of its most recent period: what a summary
    shows ("NVIDIA revenue Q2-FY2026 46,743 million"). Periods ending the same day prefer the
    longer one (FY over its Q4, the quarter over the half year). Supersession is applied here,
    so it works on the observations of any set of partitions."""
    wanted = list(metrics)
    current = latest(apply_supersession(observations)).filter(pl.col("metric").is_in(wanted))
    return (
        current.with_columns(
            _days=(pl.col("calendar_end") - pl.col("calendar_start")).dt.total_days()
        )
        .with_columns(
            _year_to_date=~pl.col("fiscal_period")
            .is_in(["FY", "Q1", "Q2", "Q3", "Q4"])
            .fill_null(False)
        )
        .sort(
            ["cik", "metric", "calendar_end", "_year_to_date", "_days"],
            descending=[False, False, True, False, True],
        )
        .group_by(["cik", "metric"], maintain_order=True)
        .first()
        .select(
            "cik",
            "metric",
            "value",
            "unit",
            "fiscal_label",
            "calendar_start",
            "calendar_end",
            "filing_id",
            "chunk_id",
        )
    )


def link_observations(observations: pl.DataFrame) -> pl.DataFrame:
    """What a snapshot publishes: supersession over every filing's observations, plus the
    quarters derived from the current year-to-date values (`derived.derive_quarters`), linked
    with the rest (a derived quarter supersedes a release's figure for it), and per-share values
    and share counts re-based to the latest stock split (`splits.apply_splits`)."""
    if observations.is_empty():
        return observations
    base, dropped = drop_non_finite(with_defaults(observations).select(list(METRIC_OBSERVATIONS)))
    linked = apply_supersession(base)
    quarters, dropped_quarters = drop_non_finite(derive_quarters(linked))
    for line in [*dropped, *dropped_quarters]:
        log.warning("%s. Fix: re-materialize the filing's xbrl_facts and metric_observations", line)
    if quarters.is_empty():
        return apply_splits(linked)
    return apply_splits(apply_supersession(pl.concat([base, quarters], how="vertical")))
