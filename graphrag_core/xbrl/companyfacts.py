"""SEC "companyfacts" JSON (data.sec.gov/api/xbrl/companyfacts) as a frame, and the check of our
facts against it.

SEC's own extraction of every filing's dimensionless facts is an independent reference for
the same numbers: where a corpus filing reports a fact that companyfacts also lists for the
same concept, period, unit and form, the values must agree to the fact's stated precision.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from graphrag_core.common.dates import iso_date
from graphrag_core.common.ids import normalize_cik
from graphrag_core.common.numbers import finite_float
from graphrag_core.tables.schemas import XBRL_FACTS, Schema

COMPANYFACTS: Schema = {
    "cik": pl.String,
    "concept": pl.String,  # us-gaap:Revenues (taxonomy prefix as in companyfacts' keys)
    "unit": pl.String,  # USD, shares, USD/shares (the same spelling as xbrl_facts.unit)
    "period_type": pl.String,
    "period_start": pl.Date,
    "period_end": pl.Date,
    "value": pl.Float64,
    "accession": pl.String,
    "form": pl.String,
    "filed_date": pl.Date,
    "fiscal_year": pl.Int32,  # fy/fp of the *filing* that reported it, not of the period
    "fiscal_period": pl.String,
}

CROSSCHECK: Schema = {
    "concept": pl.String,
    "unit": pl.String,
    "period_start": pl.Date,
    "period_end": pl.Date,
    "form": pl.String,
    "filing_id": pl.String,
    "fact_id": pl.String,
    "value": pl.Float64,
    "decimals": pl.Int32,
    "reference_value": pl.Float64,
    "reference_accession": pl.String,
    "reference_form": pl.String,
    "match": pl.Boolean,
}


def read_companyfacts(
    source: Path | str | dict[str, Any], skipped: list[str] | None = None
) -> pl.DataFrame:
    """A companyfacts file (or its parsed JSON) → one row per reported value. A value that is
    not a finite number (Python's JSON reader takes `NaN` and `Infinity`; a string; 1e999) is
    left out, and named in `skipped` when a list is given."""
    payload = (
        source if isinstance(source, dict) else json.loads(Path(source).read_text(encoding="utf-8"))
    )
    cik = normalize_cik(payload.get("cik"))
    rows = []
    for taxonomy, concepts in (payload.get("facts") or {}).items():
        for name, body in concepts.items():
            for unit, entries in (body.get("units") or {}).items():
                for e in entries:
                    value = finite_float(e.get("val"))
                    if value is None:
                        if skipped is not None:
                            skipped.append(
                                f"companyfacts CIK {cik}: {taxonomy}:{name} {unit} "
                                f"{e.get('start') or ''}..{e.get('end')} (accn {e.get('accn')}) "
                                f"val={e.get('val')!r} is not a finite number; skipped"
                            )
                        continue
                    start = iso_date(e.get("start"))
                    rows.append(
                        {
                            "cik": cik,
                            "concept": f"{taxonomy}:{name}",
                            "unit": unit,
                            "period_type": "duration" if start else "instant",
                            "period_start": start,
                            "period_end": iso_date(e["end"]),
                            "value": value,
                            "accession": e.get("accn"),
                            "form": e.get("form"),
                            "filed_date": iso_date(e.get("filed")),
                            "fiscal_year": e.get("fy"),
                            "fiscal_period": e.get("fp"),
                        }
                    )
    if not rows:
        return pl.DataFrame(schema=COMPANYFACTS)
    return pl.DataFrame(rows, schema=COMPANYFACTS, strict=False)


def within_precision(value: pl.Expr, reference: pl.Expr, decimals: pl.Expr) -> pl.Expr:
    """Equal once the reference is rounded to the fact's `decimals` (half a unit of the last
    reported digit; exact, to float noise, when decimals is INF)."""
    tolerance = (
        pl.when(decimals.is_null())
        .then(pl.lit(1e-9) * value.abs().clip(lower_bound=1.0))
        .otherwise(pl.lit(0.5) * pl.lit(10.0).pow(-decimals.cast(pl.Float64)))
    )
    return (value - reference).abs() <= tolerance


def crosscheck(
    facts: pl.DataFrame, reference: pl.DataFrame, form: str | None = None
) -> pl.DataFrame:
    """Every dimensionless numeric fact of `facts` that the reference lists for the same
    concept, unit, period and form, with its reference value and whether they agree.

    `form` is the facts' filing form when `facts` has no `form` column. A fact listed by
    several reference filings of that form is checked against each."""
    if "form" not in facts.columns:
        facts = facts.with_columns(form=pl.lit(form, dtype=pl.String))
    plain = facts.filter(
        pl.col("is_numeric") & (pl.col("dimension_count") == 0) & pl.col("value").is_not_null()
    )
    joined = plain.join(
        reference.select(
            "concept",
            "unit",
            "period_start",
            "period_end",
            "form",
            pl.col("value").alias("reference_value"),
            pl.col("accession").alias("reference_accession"),
            pl.col("form").alias("reference_form"),
        ),
        on=["concept", "unit", "period_start", "period_end", "form"],
        how="inner",
        nulls_equal=True,
    )
    return joined.with_columns(
        match=within_precision(pl.col("value"), pl.col("reference_value"), pl.col("decimals"))
    ).select([pl.col(c).cast(t) for c, t in CROSSCHECK.items()])


def reference_facts(reference: pl.DataFrame, accession: str) -> pl.DataFrame:
    """One reference filing's values in the xbrl_facts shape, so the metric mapping can run
    over SEC's extraction exactly as over ours (companyfacts holds only dimensionless facts;
    it has no precision, display or chunk)."""

    rows = reference.filter(pl.col("accession") == accession)
    return (
        rows.select(
            fact_id=pl.concat_str(
                [
                    pl.lit(accession),
                    pl.col("concept"),
                    pl.col("unit"),
                    pl.col("period_start").cast(pl.String).fill_null(""),
                    pl.col("period_end").cast(pl.String),
                ],
                separator="|",
            ),
            filing_id=pl.lit(accession),
            cik=pl.col("cik"),
            concept=pl.col("concept"),
            value=pl.col("value"),
            value_text=pl.col("value").cast(pl.String),
            normalized=pl.col("value").cast(pl.String),
            is_numeric=pl.lit(True),
            unit=pl.col("unit"),
            decimals=pl.lit(None, dtype=pl.Int32),
            period_type=pl.col("period_type"),
            period_start=pl.col("period_start"),
            period_end=pl.col("period_end"),
            dimensions=pl.lit("{}"),
            dimension_count=pl.lit(0, dtype=pl.Int32),
            inline_id=pl.lit(None, dtype=pl.String),
            inline_ids=pl.lit([], dtype=pl.List(pl.String)),
            source_document=pl.lit("companyfacts"),
            html_tables=pl.lit([], dtype=pl.List(pl.Int32)),
            chunk_id=pl.lit(None, dtype=pl.String),
            duplicate_count=pl.len()
            .over("concept", "unit", "period_start", "period_end")
            .cast(pl.Int32),
            conflict=pl.col("value")
            .n_unique()
            .over("concept", "unit", "period_start", "period_end")
            > 1,
            conflict_values=pl.lit([], dtype=pl.List(pl.String)),
            table_row=pl.lit(None, dtype=pl.Int32),
            row_label=pl.lit(None, dtype=pl.String),
            table_places=pl.lit([], dtype=XBRL_FACTS["table_places"]),
        )
        .unique("fact_id", keep="first", maintain_order=True)
        .select([pl.col(c).cast(t) for c, t in XBRL_FACTS.items()])
    )


CROSS_FILING: Schema = {
    "cik": pl.String,
    "concept": pl.String,
    "unit": pl.String,
    "period_start": pl.Date,
    "period_end": pl.Date,
    "filings": pl.List(pl.String),
    "values": pl.List(pl.Float64),
    "consistent": pl.Boolean,
}


def cross_filing_check(facts: pl.DataFrame) -> pl.DataFrame:
    """Dimensionless facts that two or more filings of one company report for the same
    concept, unit and period, and whether they agree at the coarser of their precisions
    (`$96.7 billion` in one filing agrees with `96,662` million in another). Disagreements are
    restatements, recasts (a stock split), reclassifications — or extraction bugs."""
    plain = facts.filter(
        pl.col("is_numeric")
        & (pl.col("dimension_count") == 0)
        & pl.col("value").is_not_null()
        & ~pl.col("conflict")
    )
    key = ["cik", "concept", "unit", "period_start", "period_end"]
    coarsest = pl.col("decimals").fill_null(10).min().over(key).clip(upper_bound=10)
    rounded = (
        pl.when(coarsest < 0)
        .then(pl.col("value") / pl.lit(10.0).pow(-coarsest))
        .otherwise(pl.col("value") * pl.lit(10.0).pow(coarsest))
        .round(0)
    )
    return (
        plain.with_columns(_rounded=rounded)
        .sort("filing_id")
        .group_by(key, maintain_order=True)
        .agg(
            filings=pl.col("filing_id"),
            values=pl.col("value"),
            consistent=pl.col("_rounded").n_unique() == 1,
            _n=pl.col("filing_id").n_unique(),
        )
        .filter(pl.col("_n") > 1)
        .select([pl.col(c).cast(t) for c, t in CROSS_FILING.items()])
    )
