"""The snapshot's tables: one description each (shown by the MCP `status` tool) and the columns
copied from the stages' tables (`graphrag_core.tables.schemas` names them once); derived tables
are defined by the SQL in `database`.

The builder's side: it loads Polars (through the tables' schemas). What the reader and the MCP
server share with the builder (metric ids, the graph's vocabulary) is `snapshot_vocabulary`.
"""

from __future__ import annotations

from graphrag_core.tables import schemas as tables

# Columns of raw_filings copied into the snapshot (the rest is pipeline bookkeeping); a selection,
# so a new bookkeeping column stays out (tests/test_snapshot checks each is one of the table's).
FILING_COLUMNS = (
    "filing_id",
    "accession",
    "cik",
    "ticker",
    "company",
    "form",
    "period_end",
    "fiscal_year",
    "fiscal_period",
    "fiscal_year_end",
    "filed_date",
    "source",
    "sha256",
    "bytes",
    "is_inline_xbrl",
)
CHUNK_COLUMNS = (
    "chunk_id",
    "filing_id",
    "document_type",
    "section",
    "kind",
    "ordinal",
    "text",
    "char_start",
    "char_end",
    "scale_header",
    "token_count",
    "sha256",
    # The spans of the paragraphs' emphasized openings: what_changed cuts Item 1A into risk
    # factors at them (graphrag_core.retrieval.changes).
    "headings",
)

# The knowledge graph (graphrag_core.graph): resolved entities and the edges between them, every
# column of the working tables.
EDGE_COLUMNS = tuple(tables.EDGES)
EDGE_EVIDENCE_COLUMNS = tuple(tables.EDGE_EVIDENCE)
NODE_COLUMNS = tuple(tables.NODES)
ENTITY_ALIAS_COLUMNS = tuple(tables.ENTITY_ALIASES)

# Rows per row group of the snapshot file (DuckDB's default is 122,880): point lookups by key
# read one group's columns, so smaller groups make the MCP server's lookups cheaper. 2,048 (one
# vector, DuckDB's smallest): a two-hop neighbors call reads the groups of ~50 entities and ~50
# edges' citations, one group each (at 1M edges: citations 2.4x, the second hop 1.5x faster
# than at 8,192; the file about 15% larger).
ROW_GROUP_SIZE = 2048
TABLES: dict[str, str] = {
    "companies": (
        "one row per company (CIK) with filings or metrics in this snapshot: canonical id "
        "CIK-##########, name, tickers, fiscal year end, SIC code where SEC lists it, former names"
    ),
    "company_aliases": (
        "every name a company is found by: current and registrant names, tickers, SEC former "
        "names, and its XBRL segment / product names"
    ),
    "registrants": "SEC's ticker list (CIK, ticker, name), including companies with no filings "
    "here",
    "filings": "one row per filing: form, period end, fiscal year and period, filing date, "
    "source, sha256",
    "chunks": "filing text cut into sections and chunks (prose, tables); every citation points "
    "here",
    "filing_sections": "per filing and section: number of chunks and their kinds",
    "metric_observations": (
        "every reported value of a canonical metric (XBRL; earnings releases as source_kind "
        "press_release, unaudited; derived values such as Q4 = FY − 9M with the observations they "
        "derive from), with fiscal label, calendar range, filing, fact, concept and the chunk that "
        "displays it; superseded values are kept and linked by superseded_by with a "
        "supersede_reason (restatement, recast, press_release_final, unknown)"
    ),
    "metric_values": (
        "the current value per company, metric and period (a filing's XBRL over an earnings "
        "release, reported over derived, then the newest filing), with the values it superseded "
        "and why, the operands of a derived value, and the like period a year earlier"
    ),
    "nodes": (
        "the resolved entities of the knowledge graph: companies (CIK-##########), organizations "
        "that file nothing with the SEC (ORG:…), risk categories of the curated taxonomy (RISK:…) "
        "and metrics (METRIC:…), with their degree"
    ),
    "entity_aliases": (
        "every name an entity is found under: SEC titles, former names, tickers, curated "
        "brands and "
        "short forms, and the mentions the filings wrote that resolved to it"
    ),
    "edges": (
        "relations between resolved entities: accepted triples from filing text and reported "
        "metrics from XBRL (REPORTS_METRIC), one edge per subject, relation, object, period and "
        "value, with the fiscal label and calendar range, first and last filing that state it, "
        "how many citations support it, and superseded_by when a later filing restated it "
        "(superseded_on: the date that filing was filed), and stated_spans, the calendar spans "
        "of the filings that state it (what a calendar period filters on)"
    ),
    "edge_evidence": (
        "every citation behind an edge: the filing, chunk, section and character span of the "
        "verbatim quote (or the XBRL fact and observation), and the subject and object as the "
        "filing wrote them"
    ),
    "graph_adjacency": (
        "every edge from both ends (entity, neighbor, direction), ordered by entity: what "
        "neighbors, graph_path and explore_company traverse"
    ),
    "communities": (
        "communities of the knowledge graph (hierarchical Leiden, levels 0..n, a forest): level, "
        "parent, size, companies, and whether its report is current, stale (served with stale: "
        "true until the next refresh), withheld (a source filing was removed, changed or amended) "
        "or missing"
    ),
    "community_members": "the entities of each community at its level, strongest first",
    "community_levels": "per level of the hierarchy: communities, largest, singletons, and the "
    "modularity of its partition",
    "community_reports": (
        "per community: title, summary, member companies, dominant relations and risks, sector "
        "mix (SIC), impact rating 0-10 with its explanation, the graph version, as_of and source "
        "filings it was built from, stale"
    ),
    "community_findings": (
        "the findings of each report, each with the citations (filing, chunk, verbatim quote) of "
        "the edges inside the community behind it"
    ),
    "filing_themes": (
        "themes stated across companies in their own risk-factor headings and MD&A statements "
        "of a trend and its driver (clustered by meaning with the packaged MiniLM): label (the "
        "words they share), companies, filings, risk factors and MD&A statements, fiscal "
        "periods, first and last period end, newest filing date, centroid vector, stale (a "
        "filing joined or left it since it was built; rebuilt by the daily refresh)"
    ),
    "filing_theme_members": (
        "every risk factor of the filings' Item 1A (kind risk_factor) and MD&A statement of a "
        "trend and its driver (kind mdna): its theme (null: none near enough), filing, company, "
        "fiscal label, period end, filing date, the chunk and span of its heading or statement "
        "(the verbatim quote), its first sentence (MD&A: the subheading above it), vector and "
        "similarity to its theme"
    ),
    "community_sectors": "per community and SIC code of its member companies: companies, share, "
    "sector",
    "community_terms": "the search terms of each report (title, summary, findings, members), "
    "weighted",
    "metric_catalog": "per metric: units, how many companies and values (annual, quarterly), "
    "period range",
    "chunk_index": (
        "the chunk index (LanceDB table and version, embedding model) published with this "
        "snapshot: search_chunks reads exactly that version; no row when published without one"
    ),
    "sic_sectors": (
        "SIC code ranges and the plain sector each maps to (graphrag_core/common/sectors.py); "
        "where ranges nest, the narrowest wins"
    ),
    "company_sectors": "per company: its SIC code and plain sector name (screen and compare by "
    "sector)",
    "screen_basis": (
        "per company and period kind: the latest period's key figures and the same period a year "
        "earlier, each with its citation (what screen_companies computes on)"
    ),
    "company_facts": (
        "every numeric XBRL fact of the snapshot's filings, dimensional ones included: concept, "
        "row label as shown, value, unit, decimals, period and fiscal label, dimensions (axis → "
        "member) and member names, the segment metric it is (segment_revenue, "
        "segment_operating_income, product_revenue, geographic_revenue, ...) with its member, "
        "and the chunk that shows it; is_latest marks the newest filing's copy (what "
        "search_facts serves)"
    ),
    "window_basis": (
        "per company and period kind: its newest periods with revenue (k = 1 newest), each with "
        "its income figures and their year-earlier values, the same figures of the period just "
        "before (k + 1), total debt and equity at its end and total debt at its start, as "
        "metric_values row ids (what window screens' hits show)"
    ),
    "window_spans": (
        "per company, period kind and window length (span = 1..12 newest periods of window_basis): "
        "whether the periods follow one another, the window's lowest revenue growth and margin "
        "trends (year over year and sequential; null when a period lacks the figure), the latest "
        "period's values, debt at the window's start and end and its change, debt to equity "
        "(what window screens filter and rank on)"
    ),
    "statement_lines": (
        "every line of each filing's income statement, balance sheet and cash-flow statement as "
        "filed, per period (column): line order, label as filed, concept, standardized line id, "
        "value (unit, decimals), the fact and the chunk that displays it (get_financials)"
    ),
}
