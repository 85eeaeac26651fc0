"""The snapshot's `company_facts` table: every numeric XBRL fact of the snapshot's filings, as
`graphrag_core.xbrl.segments.company_facts` shapes them (issue 23, item 2).

Ordered by company (newest copies first): the MCP server's `search_facts` reads one company's
rows, which then sit in a few row groups. A snapshot built without facts (tables gathered by
hand, older callers) gets the table empty, so the tool answers "no facts" instead of failing on
a missing table."""

from __future__ import annotations

import duckdb
import polars as pl

from graphrag_core.tables.schemas import COMPANY_FACTS

TABLE = "company_facts"


def write_company_facts(con: duckdb.DuckDBPyConnection, facts: pl.DataFrame | None) -> None:
    """Create `company_facts` in `con`'s current database from `facts` (COMPANY_FACTS shape)."""
    frame = pl.DataFrame(schema=COMPANY_FACTS) if facts is None else facts.select(list(COMPANY_FACTS))
    con.register("in_company_facts", frame.to_arrow())
    try:
        con.execute(
            f"CREATE TABLE {TABLE} AS SELECT * FROM in_company_facts "
            "ORDER BY cik, is_latest DESC, concept, period_end DESC, fact_id"
        )
    finally:
        con.unregister("in_company_facts")
