"""Accepted triples → the `edges` and `edge_evidence` tables a snapshot publishes: one edge per
accepted (merged) triple, one evidence row per verbatim quote behind it."""

from __future__ import annotations

import polars as pl

from graphrag_core.tables.schemas import EDGE_EVIDENCE, EDGES, conform, empty


def edges_from_triples(
    validated: pl.DataFrame, filings: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`validated_triples` rows (all filings) and `raw_filings` → (edges, edge_evidence).

    Rejected triples stay out; an accepted triple's evidence is exploded into rows. The filer is
    the company of the filing that states the triple."""
    accepted = validated.filter(pl.col("status") == "accepted")
    if accepted.is_empty():
        return empty(EDGES), empty(EDGE_EVIDENCE)
    filers = filings.select(
        "filing_id",
        filer_id=pl.when(pl.col("cik").is_not_null()).then(pl.lit("CIK-") + pl.col("cik")),
    )
    edges = accepted.join(filers, on="filing_id", how="left").rename({"triple_id": "edge_id"})
    evidence = (
        accepted.select(pl.col("triple_id").alias("edge_id"), "filing_id", "evidence")
        .explode("evidence")
        .drop_nulls("evidence")
        .unnest("evidence")
        .filter(pl.col("char_start").is_not_null())
        .unique(["edge_id", "chunk_id", "char_start", "char_end"], maintain_order=True)
    )
    return conform(edges, EDGES), conform(evidence, EDGE_EVIDENCE)
