"""What the knowledge graph is made of: entity types and their keys, the relations, and the
metric vocabulary that GUIDES and REPORTS_METRIC point at.

Entity ids are typed keys, stable across rebuilds:

    company       CIK-0001045810               an SEC registrant, keyed by its CIK
    organization  ORG:samsung-electronics       a company that files nothing with the SEC (or an
                                                anonymous one a filing names:
                                                ORG:customer-a-of-cik-0001045810)
    risk          RISK:export-controls          a category of the curated risk taxonomy
    metric        METRIC:revenue                a canonical metric (XBRL) or a guided figure
    product       PRODUCT:<slug>                reserved: no extractor names products yet
    segment       SEGMENT:<slug>                reserved: segments are aliases of their company
                                                today
"""

from __future__ import annotations

import re

from graphrag_core.common.metric_terms import METRIC_TERMS
from graphrag_core.common.names import normalize_name
from graphrag_core.extraction.triples import Relation
from graphrag_core.store.snapshot_vocabulary import GRAPH_ENTITY_TYPES, GRAPH_RELATIONS
from graphrag_core.xbrl.metrics import METRICS

COMPANY = "company"
ORGANIZATION = "organization"
RISK = "risk"
METRIC = "metric"
PRODUCT = "product"
SEGMENT = "segment"

ENTITY_TYPES: dict[str, str] = GRAPH_ENTITY_TYPES
PREFIXES: dict[str, str] = {
    "CIK-": COMPANY,
    "ORG:": ORGANIZATION,
    "RISK:": RISK,
    "METRIC:": METRIC,
    "PRODUCT:": PRODUCT,
    "SEGMENT:": SEGMENT,
}
# ASCII digits, no trailing newline (`\d` and `$` would let both through into the merge log).
ENTITY_ID_RE = re.compile(
    r"^(?:CIK-[0-9]{10}|(?:ORG|RISK|METRIC|PRODUCT|SEGMENT):[a-z0-9][a-z0-9\-_.]*)\Z"
)

RELATIONS: dict[str, str] = GRAPH_RELATIONS
assert set(RELATIONS) == {r.value for r in Relation}, "the published vocabulary is the extractor's"

# How the object of each relation is read: a party (company or organization), a risk reference
# that may also name a counterparty (untyped), or a metric.
PARTY = "party"
RISK_REFERENCE = "risk"
METRIC_REFERENCE = "metric"
OBJECT_ROLE: dict[str, str] = {
    Relation.SUPPLIES: PARTY,
    Relation.CUSTOMER_OF: PARTY,
    Relation.COMPETES_WITH: PARTY,
    Relation.SUBSIDIARY_OF: PARTY,
    Relation.EXPOSED_TO_RISK: RISK_REFERENCE,
    Relation.GUIDES: METRIC_REFERENCE,
    Relation.REPORTS_METRIC: METRIC_REFERENCE,
}


def entity_type(entity_id: str) -> str | None:
    """'CIK-0001045810' → 'company', 'ORG:samsung-electronics' → 'organization', …"""
    for prefix, kind in PREFIXES.items():
        if entity_id.startswith(prefix):
            return kind
    return None


def metric_id(metric: str) -> str:
    return f"METRIC:{metric}"


METRIC_LABELS: dict[str, str] = {
    **{m.metric: m.description for m in METRICS},
    "total_debt": "Total debt: short-term and long-term borrowings",
    **{t.metric: t.label for t in METRIC_TERMS if t.metric not in {m.metric for m in METRICS}},
}


# Words that may stand before a metric's own name and leave it the whole metric: its period
# ("fourth quarter", "full-year 2025"), its basis ("GAAP", "adjusted", "diluted", "effective"),
# its scope as the whole company ("total", "consolidated"). Anything else before it narrows it to
# a part ("Data Center revenue", "segment operating income"), and anything after it ("for
# pollution control", "as a share of net sales", "growth") makes it another figure.
_WHOLE_METRIC_QUALIFIERS = frozenset(
    """the our its their company's company’s total consolidated overall annual annualized full year
    full-year fiscal quarter quarterly first second third fourth q1 q2 q3 q4 h1 h2 half fy gaap
    non-gaap adjusted reported diluted basic effective net""".split()
)
_WHOLE_METRIC_TAIL = re.compile(
    r"^(?:\s+(?:guidance|outlook|forecast|target|estimate)s?)?[\s.,;:]*$", re.I
)
_QUALIFIER_TOKEN = re.compile(r"[\w’'-]+")


def _whole_metric(text: str, start: int, end: int) -> bool:
    """Does the phrase name the metric itself: only qualifiers of the whole before the match
    (a year or other number among them), nothing but a word like "guidance" after it?"""
    before = [w.lower() for w in _QUALIFIER_TOKEN.findall(text[:start])]
    return (
        all(
            w in _WHOLE_METRIC_QUALIFIERS or w.isdigit() or re.fullmatch(r"fy\d{2,4}", w)
            for w in before
        )
        and _WHOLE_METRIC_TAIL.match(text[end:]) is not None
    )


def match_metric(phrase: str) -> str | None:
    """A metric phrase ('capital expenditures', 'net_income', 'fourth quarter revenue') → its
    canonical metric id, or None when it names no metric of the vocabulary or only a part of one
    or another figure built on it ('capital expenditures for pollution control', 'Data Center
    revenue', 'net sales growth'): a guided subset published as the whole would be wrong."""
    text = phrase.strip()
    if text in METRIC_LABELS:
        return text
    snake = normalize_name(text).replace(" ", "_")
    if snake in METRIC_LABELS:
        return snake
    for term in METRIC_TERMS:
        m = term.pattern.search(text)
        if m is not None:
            # The most specific term that matches decides: "operating margin" never falls
            # through to "margin", nor "capital expenditures for X" to another metric.
            return term.metric if _whole_metric(text, m.start(), m.end()) else None
    return None
