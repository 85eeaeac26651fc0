"""The words the snapshot's builder, its reader and the MCP server share: the canonical metric
ids the derived tables compute on, how many periods a window screen keeps, and the graph's
entity types and relations as the snapshot publishes them.

Imports nothing: the reader (and so the MCP server) loads it without Polars, which the
snapshot's column lists (`snapshot_schema`, taken from the tables' schemas) would bring.
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
# The newest periods per company and kind that window_basis keeps: a window of up to 12 periods
# plus the one before it (a sequential comparison's base).
WINDOW_PERIODS = 13
# Periods of a window follow one another when the next starts the day after the previous ends
# (up to a week later: 52/53-week fiscal calendars); a gap (a quarter not in the snapshot) or an
# overlap breaks the window.
WINDOW_GAP_DAYS = 8

# The graph's vocabulary as the snapshot publishes it (graphrag_core.graph.ontology builds on
# these; the MCP server's get_ontology reads them here).
GRAPH_ENTITY_TYPES: dict[str, str] = {
    "company": "an SEC registrant, keyed by its CIK (CIK-0001045810)",
    "organization": "a company or body that files nothing with the SEC (ORG:samsung-electronics), "
    "kept with every name it was found under",
    "risk": "a category of the curated risk taxonomy (RISK:export-controls); the filing's own "
    "phrase stays on each edge",
    "metric": "a canonical financial metric (METRIC:revenue) that companies report (XBRL) or guide",
    "product": "a product or service (reserved: not extracted yet)",
    "segment": "a reporting segment (reserved: segments are found as aliases of their company)",
}
GRAPH_RELATIONS: dict[str, str] = {
    "REPORTS_METRIC": "company → metric it reported for a period (XBRL only, with value)",
    "GUIDES": "company → metric it gave a forward-looking figure for",
    "SUPPLIES": "supplier → the company it supplies",
    "CUSTOMER_OF": "customer → the company it buys from (with its share of revenue)",
    "COMPETES_WITH": "company → a competitor it names",
    "SUBSIDIARY_OF": "subsidiary → parent",
    "EXPOSED_TO_RISK": "company → a risk category (or a counterparty whose loss is the risk)",
}
# Relations a traversal skips unless asked for by name: every company reports revenue, so a
# metric node would connect everything to everything in two hops.
METRIC_RELATIONS = ("REPORTS_METRIC", "GUIDES")

# Columns added to snapshot tables after snapshots had been published without them, with their
# DuckDB types (tests/test_snapshot_compat checks them against the tables' schemas). The reader
# gives an older snapshot's table a temporary view holding them as nulls, so a server upgraded
# before the next publish still answers (a citation without its method) instead of failing on
# a missing column; a snapshot that has them gets no view.
_RANGE_COLUMNS = {"value_low": "DOUBLE", "value_high": "DOUBLE", "bound": "VARCHAR"}
ADDED_COLUMNS: dict[str, dict[str, str]] = {
    "edges": _RANGE_COLUMNS,
    "graph_adjacency": _RANGE_COLUMNS,  # the edges' columns, on both sides of an edge
    "edge_evidence": {"method": "VARCHAR", "confidence": "DOUBLE"},
}
