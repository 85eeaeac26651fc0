"""The same fact shown twice (same concept, period, dimensions and unit: the income statement
and the MD&A table) collapses into one row that keeps every inline id; duplicates whose values
disagree beyond their stated precision are flagged `conflict`."""

from __future__ import annotations

import polars as pl

from graphrag_core.tables.schemas import XBRL_FACTS, Schema, empty

_COLLAPSED_ONLY = {
    "inline_ids",
    "html_tables",
    "chunk_id",
    "duplicate_count",
    "conflict",
    "conflict_values",
    "table_places",
}
_FIRST_DISPLAY = ("table_row", "row_label")  # of the first display in a table (document order)
RAW_FACT_SCHEMA: Schema = {
    **{k: v for k, v in XBRL_FACTS.items() if k not in _COLLAPSED_ONLY},
    "_table": pl.Int32,
    "_order": pl.Int64,
}


def collapse_duplicates(raw: pl.DataFrame) -> pl.DataFrame:
    """One row per fact_id. The most precise duplicate gives the value; duplicates conflict when
    their values differ once rounded to the coarsest stated precision (XBRL's consistency rule:
    `$130.5 billion` at decimals -8 agrees with `130,497` million at decimals -6)."""
    if raw.is_empty():
        return empty(XBRL_FACTS)
    # Compare at the coarsest precision of the group; INF (null) compares exactly, which in
    # floats means 10 decimal places — more than any reported figure carries.
    coarsest = pl.col("decimals").fill_null(10).min().over("fact_id").clip(upper_bound=10)
    scaled = (
        pl.when(coarsest < 0)
        .then(pl.col("value") / pl.lit(10.0).pow(-coarsest))
        .otherwise(pl.col("value") * pl.lit(10.0).pow(coarsest))
        .round(0)
    )
    # Text facts compare by their transformed value ("two years" and "P2Y" agree); a group in
    # which no transform succeeded compares what is displayed.
    has_normalized = pl.col("normalized").is_not_null().any().over("fact_id")
    comparable = (
        pl.when(pl.col("is_numeric"))
        .then(scaled.cast(pl.String))
        .when(has_normalized)
        .then(pl.col("normalized"))
        .otherwise(pl.col("value_text"))
    )
    ranked = raw.with_columns(
        _cmp=comparable,
        _precision=pl.col("decimals").fill_null(10_000),
    ).sort("_order")
    collapsed = (
        ranked.group_by("fact_id", maintain_order=True)
        .agg(
            pl.all()
            .exclude("_cmp", "_precision", "_table", *_FIRST_DISPLAY)
            .sort_by("_precision", descending=True, maintain_order=True)
            .first(),
            inline_ids=pl.col("inline_id").drop_nulls(),
            html_tables=pl.col("_table").drop_nulls().unique().sort(),
            table_places=pl.struct(
                pl.col("_table").alias("table"),
                pl.col("table_row").alias("row"),
                pl.col("row_label").alias("label"),
            ).filter(pl.col("_table").is_not_null()),
            first_inline_id=pl.col("inline_id").drop_nulls().first(),
            duplicate_count=pl.len().cast(pl.Int32),
            conflict_values=pl.col("value_text").filter(
                pl.col("_cmp").is_not_null() & pl.col("_cmp").is_first_distinct()
            ),
            _distinct=pl.col("_cmp").drop_nulls().n_unique(),
            **{c: pl.col(c).filter(pl.col("_table").is_not_null()).first() for c in _FIRST_DISPLAY},
        )
        .with_columns(
            inline_id=pl.col("first_inline_id"),
            conflict=pl.col("_distinct") > 1,
        )
        .with_columns(
            conflict_values=pl.when(pl.col("conflict"))
            .then(pl.col("conflict_values"))
            .otherwise(pl.lit([], dtype=pl.List(pl.String))),
            chunk_id=pl.lit(None, dtype=pl.String),
        )
        .sort("_order")
    )
    return collapsed.select([pl.col(c).cast(t) for c, t in XBRL_FACTS.items()])
