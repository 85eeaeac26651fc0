"""The snapshot's `statement_lines` table: every line of each filing's primary statements
(`graphrag_core.xbrl.statements`), with the filing's form and date and the section of the chunk
that displays it, so `get_financials` answers with one pruned range scan."""

from __future__ import annotations

import duckdb
import polars as pl

from graphrag_core.tables.schemas import STATEMENT_LINES

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
ORDER BY cik_key, l.cik, l.statement, l.period_end DESC, l.period_start DESC NULLS FIRST, f.filed_date DESC NULLS LAST,
         l.filing_id, l.line, l.concept, l.fact_id
"""


def write_statement_lines(con: duckdb.DuckDBPyConnection, lines: pl.DataFrame | None) -> None:
    """Create `statement_lines` (empty when the snapshot was built without any)."""
    frame = lines if lines is not None else pl.DataFrame(schema=STATEMENT_LINES)
    con.register("in_statement_lines", frame.select(list(STATEMENT_LINES)).to_arrow())
    try:
        con.execute(_SQL)
    finally:
        con.unregister("in_statement_lines")
