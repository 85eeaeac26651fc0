"""Phrases a text uses for each metric, most specific first: the vocabulary the graph's GUIDES
and REPORTS_METRIC edges meet on (`graph.ontology`), and what the citation check reads a claim's
metric by (`retrieval.claims`). Plain data, so the MCP server can import it without the XBRL
stack."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class MetricTerm:
    metric: str  # canonical id (the XBRL ones) or a guided-only figure
    label: str
    pattern: re.Pattern[str]


# Phrases a text uses for a metric, most specific first ("operating margin" before "margin").
# The XBRL metrics keep their canonical ids so that a GUIDES edge and a REPORTS_METRIC edge of
# the same company meet on one metric node.
_METRIC_PHRASES: tuple[tuple[str, str, str], ...] = (
    ("eps_diluted", "diluted earnings per share", r"\b(?:earnings|eps)\s+per\s+share\b|\beps\b"),
    ("gross_margin", "gross margin", r"\bgross\s+margins?\b"),
    ("operating_margin", "operating margin", r"\boperating\s+margins?\b"),
    ("operating_expenses", "operating expenses", r"\boperating\s+expenses\b|\bopex\b"),
    ("effective_tax_rate", "effective tax rate", r"\btax\s+rate\b"),
    ("free_cash_flow", "free cash flow", r"\bfree\s+cash\s+flows?\b"),
    (
        "operating_cash_flow",
        "operating cash flow",
        r"\b(?:operating\s+cash\s+flows?|cash\s+flows?\s+from\s+operations)\b",
    ),
    ("capex", "capital expenditures", r"\bcapital\s+expenditures?\b|\bcapex\b"),
    ("gross_profit", "gross profit", r"\bgross\s+profit\b"),
    (
        "operating_income",
        "operating income",
        r"\boperating\s+income\b|\bincome\s+from\s+operations\b",
    ),
    ("net_income", "net income", r"\bnet\s+(?:income|earnings)\b"),
    ("cost_of_revenue", "cost of revenue", r"\bcost\s+of\s+(?:revenues?|sales|goods\s+sold)\b"),
    ("revenue", "revenue", r"(?<!deferred\s)(?<!unearned\s)\b(?:revenues?|net\s+sales|sales)\b"),
)
METRIC_TERMS: tuple[MetricTerm, ...] = tuple(
    MetricTerm(m, label, re.compile(p, re.I)) for m, label, p in _METRIC_PHRASES
)
