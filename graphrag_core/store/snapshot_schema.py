"""The snapshot's tables: one description each (shown by the MCP `status` tool) and the columns
copied from the stages' tables (`graphrag_core.tables.schemas` names them); derived tables are
defined by the SQL in `database`.
"""

from __future__ import annotations

# Metric ids the snapshot's derived tables and the screen use. They are the canonical ids of
# `metric_observations` (issue 3); a snapshot without one of them simply has nulls there.
REVENUE = "revenue"
GROSS_PROFIT = "gross_profit"
OPERATING_INCOME = "operating_income"
NET_INCOME = "net_income"
TOTAL_DEBT = "total_debt"
STOCKHOLDERS_EQUITY = "stockholders_equity"
FLOW_METRICS = (REVENUE, GROSS_PROFIT, OPERATING_INCOME, NET_INCOME)
BALANCE_METRICS = (TOTAL_DEBT, STOCKHOLDERS_EQUITY)
QUARTERS = ("Q1", "Q2", "Q3", "Q4")

# Columns of raw_filings copied into the snapshot (the rest is pipeline bookkeeping).
FILING_COLUMNS = (
    "filing_id", "accession", "cik", "ticker", "company", "form", "period_end", "fiscal_year",
    "fiscal_period", "fiscal_year_end", "filed_date", "source", "sha256", "bytes",
    "is_inline_xbrl",
)
CHUNK_COLUMNS = (
    "chunk_id", "filing_id", "document_type", "section", "kind", "ordinal", "text",
    "char_start", "char_end", "scale_header", "token_count", "sha256",
)

EDGE_COLUMNS = (
    "edge_id", "filing_id", "filer_id", "subject", "relation", "object", "value", "unit",
    "period", "support", "value_conflict", "adjustment", "backend", "model", "prompt_version",
)
EDGE_EVIDENCE_COLUMNS = ("edge_id", "filing_id", "chunk_id", "quote", "char_start", "char_end")

TABLES: dict[str, str] = {
    "companies": (
        "one row per company (CIK) with filings or metrics in this snapshot: canonical id "
        "CIK-##########, name, tickers, fiscal year end, SIC code where SEC lists it, former names"
    ),
    "company_aliases": (
        "every name a company is found by: current and registrant names, tickers, SEC former "
        "names, and its XBRL segment / product names"
    ),
    "registrants": "SEC's ticker list (CIK, ticker, name), including companies with no filings here",
    "filings": "one row per filing: form, period end, fiscal year and period, filing date, source, sha256",
    "chunks": "filing text cut into sections and chunks (prose, tables); every citation points here",
    "filing_sections": "per filing and section: number of chunks and their kinds",
    "metric_observations": (
        "every reported value of a canonical metric (XBRL), with fiscal label, calendar range, "
        "filing, fact, concept and the chunk that displays it; restated values are kept and linked "
        "by superseded_by"
    ),
    "metric_values": (
        "the current value per company, metric and period (newest filing wins), with the "
        "values it superseded and the like period a year earlier"
    ),
    "edges": (
        "relations between companies, and their risks and guidance, extracted from filing text "
        "and accepted by the validation gates: subject, relation, object, value, period, the "
        "filer whose filing states it, and how many statements support it"
    ),
    "edge_evidence": (
        "every verbatim quote behind an edge: the chunk, its section and the character span in "
        "the filing's text"
    ),
    "metric_catalog": "per metric: units, how many companies and values (annual, quarterly), period range",
    "chunk_index": (
        "the chunk index (LanceDB table and version, embedding model) published with this "
        "snapshot: search_chunks reads exactly that version; no row when published without one"
    ),
    "sic_sectors": (
        "SIC code ranges and the plain sector each maps to (graphrag_core/common/sectors.py); "
        "where ranges nest, the narrowest wins"
    ),
    "company_sectors": "per company: its SIC code and plain sector name (screen and compare by sector)",
    "screen_basis": (
        "per company and period kind: the latest period's key figures and the same period a year "
        "earlier, each with its citation (what screen_companies computes on)"
    ),
}
