"""The snapshot's `statement_lines` table: every line of each filing's primary statements
(`graphrag_core.xbrl.statements`), with the filing's form and date and the section of the chunk
that displays it, so `get_financials` answers with one pruned range scan."""

from __future__ import annotations

import duckdb
import polars as pl

# Ordered by company, statement, then newest column first: a company's statement is a
# contiguous run of rows. cik_key is the CIK as an integer, whose row-group min/max is exact
# (DuckDB keeps only a string's first 8 bytes, which "00018000…" CIKs share by the hundred):
# get_financials filters on it and reads one company's row groups only.
_SQL = """
CREATE TABLE statement_lines AS
SELECT 'CIK-' || l.cik AS company_id, TRY_CAST(l.cik AS BIGINT) AS cik_key, l.*,
       f.accession, f.form, f.filed_date, c.section
FROM in_statement_lines l
LEFT JOIN filings f USING (filing_id)
LEFT JOIN chunks c ON c.chunk_id = l.chunk_id
ORDER BY cik_key, l.cik, l.statement, l.period_end DESC, l.period_start DESC NULLS FIRST,
         f.filed_date DESC NULLS LAST, l.filing_id, l.line, l.concept, l.fact_id
"""


# One row per line of a statement and column (period) it is shown in: the snapshot's
# statement_lines table. The column is the statement's period; the fact keeps its own (a
# cash-flow statement's opening balance is an instant at the day before the column starts).
STATEMENT_LINES: dict[str, pl.DataType | type[pl.DataType]] = {
    "filing_id": pl.String,
    "cik": pl.String,
    "statement": pl.String,  # income | balance | cash_flow
    "html_table": pl.Int32,  # ordinal of the statement's HTML table in the filing
    "line": pl.Int32,  # position of the line in the statement, 1-based, as filed
    "table_row": pl.Int32,  # the row of the HTML table
    "label": pl.String,  # as filed ("Net sales"), else the concept's words
    "concept": pl.String,
    "standard_line": pl.String,  # standardized id (graphrag_core.xbrl.standard_lines) or null
    "value": pl.Float64,  # scale and sign applied: USD, not USD thousands
    "value_text": pl.String,  # as displayed ("130,497")
    "unit": pl.String,  # USD, USD/shares, shares
    "decimals": pl.Int32,  # -6: rounded to millions as filed; null = exact
    "period_type": pl.String,  # the column's: duration (income, cash flow) | instant (balance)
    "period_start": pl.Date,  # the column's; null for instants
    "period_end": pl.Date,
    "fiscal_label": pl.String,  # FY2025, Q2-FY2025, H1-FY2025; an instant: the period it ends
    "fiscal_year": pl.Int32,
    "fiscal_period": pl.String,
    "fact_period_type": pl.String,  # the fact's own period
    "fact_period_start": pl.Date,
    "fact_period_end": pl.Date,
    "dimensions": pl.String,  # JSON axis → member; "{}" for the consolidated entity
    "conflict": pl.Boolean,  # the filing shows the fact twice with different values
    "fact_id": pl.String,
    "chunk_id": pl.String,  # the chunk that displays it (the statement's table chunk)
}


def write_statement_lines(con: duckdb.DuckDBPyConnection, lines: pl.DataFrame | None) -> None:
    """Create `statement_lines` (empty when the snapshot was built without any)."""
    frame = lines if lines is not None else pl.DataFrame(schema=STATEMENT_LINES)
    con.register("in_statement_lines", frame.select(list(STATEMENT_LINES)).to_arrow())
    try:
        con.execute(_SQL)
    finally:
        con.unregister("in_statement_lines")
