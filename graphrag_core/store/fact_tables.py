"""The snapshot's `company_facts` table: every numeric XBRL fact of the snapshot's filings, as
`graphrag_core.xbrl.segments.company_facts` shapes them (issue 23, item 2).

Ordered by company (newest copies first): the MCP server's `search_facts` reads one company's
rows, which then sit in a few row groups. A snapshot built without facts (tables gathered by
hand, older callers) gets the table empty, so the tool answers "no facts" instead of failing on
a missing table."""

from __future__ import annotations

import duckdb
import polars as pl

COMPANY_FACTS: dict[str, pl.DataType | type[pl.DataType]] = {
    "fact_id": pl.String,
    "cik": pl.String,
    "company_id": pl.String,
    "filing_id": pl.String,
    "form": pl.String,
    "filed_date": pl.Date,
    "concept": pl.String,
    "concept_words": pl.String,  # 'us-gaap:OperatingIncomeLoss' → 'Operating Income Loss'
    "row_label": pl.String,  # the statement row's label as shown; null when the fact is hidden
    "value": pl.Float64,
    "unit": pl.String,
    "decimals": pl.Int32,
    "period_type": pl.String,
    "period_start": pl.Date,
    "period_end": pl.Date,
    "fiscal_label": pl.String,
    "fiscal_year": pl.Int32,
    "fiscal_period": pl.String,
    "dimensions": pl.List(pl.Struct({"axis": pl.String, "member": pl.String})),
    "dimension_count": pl.Int32,
    "members": pl.List(pl.String),  # the members in words ('Google Cloud'), qualifier left out
    "breakdown": pl.String,  # segment | product | geographic when one such member is the slice
    "member": pl.String,  # that member's QName
    "member_name": pl.String,  # and its name in words
    "segment_metric": pl.String,  # segment_revenue, geographic_revenue, ... else null
    "search_text": pl.String,  # lower-case words: concept, row label, member names
    "chunk_id": pl.String,
    "conflict": pl.Boolean,
    "is_latest": pl.Boolean,  # the newest filing's copy of this fact (what search serves)
}

TABLE = "company_facts"


def write_company_facts(con: duckdb.DuckDBPyConnection, facts: pl.DataFrame | None) -> None:
    """Create `company_facts` in `con`'s current database from `facts` (COMPANY_FACTS shape)."""
    frame = (
        pl.DataFrame(schema=COMPANY_FACTS) if facts is None else facts.select(list(COMPANY_FACTS))
    )
    con.register("in_company_facts", frame.to_arrow())
    try:
        con.execute(
            f"CREATE TABLE {TABLE} AS SELECT * FROM in_company_facts "
            "ORDER BY cik, is_latest DESC, concept, period_end DESC, fact_id"
        )
    finally:
        con.unregister("in_company_facts")
