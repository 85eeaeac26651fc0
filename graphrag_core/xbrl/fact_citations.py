"""Facts → the chunks that display them: each fact cites its table chunk first."""

from __future__ import annotations

import re

import polars as pl

# Where the primary financial statements live; a fact shown there cites that table first.
FINANCIAL_STATEMENT_SECTIONS = (
    re.compile(r"(^|/)Item 8\b"),  # 10-K: Financial Statements and Supplementary Data
    re.compile(r"(^|/)Item 15\b"),  # 10-K: where NVIDIA and others put the statements (Part IV)
    re.compile(r"Part I/Item 1$"),  # 10-Q: Financial Statements
)


def attach_chunks(facts: pl.DataFrame, chunks: pl.DataFrame) -> pl.DataFrame:
    """Set each fact's `chunk_id`: among the chunks that display any of its inline ids, a table
    chunk first, then one in the financial-statements section, then the earliest in the text.
    A fact shown nowhere (ix:hidden) keeps a null chunk id."""
    if facts.is_empty() or chunks.is_empty():
        return facts
    statement = pl.lit(False)
    for pattern in FINANCIAL_STATEMENT_SECTIONS:
        statement = statement | pl.col("section").fill_null("").str.contains(pattern.pattern)
    displayed = (
        chunks.select("chunk_id", "kind", "section", "char_start", "ix_ids")
        .explode("ix_ids")
        .drop_nulls("ix_ids")
        .rename({"ix_ids": "_ix"})
        .with_columns(
            _rank_kind=pl.when(pl.col("kind") == "table").then(0).otherwise(1),
            _rank_section=pl.when(statement).then(0).otherwise(1),
        )
    )
    best = (
        facts.select("fact_id", "inline_ids")
        .explode("inline_ids")
        .drop_nulls("inline_ids")
        .join(displayed, left_on="inline_ids", right_on="_ix", how="inner")
        .sort(["fact_id", "_rank_kind", "_rank_section", "char_start", "chunk_id"])
        .group_by("fact_id", maintain_order=True)
        .agg(pl.col("chunk_id").first().alias("_chunk"))
    )
    return (
        facts.join(best, on="fact_id", how="left")
        .with_columns(chunk_id=pl.coalesce("_chunk", "chunk_id"))
        .select(facts.columns)
    )
