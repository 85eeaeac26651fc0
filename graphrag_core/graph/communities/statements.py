"""The words of community findings: how a finding's statement is written from its structure.

Two layers write statements: the graph stage's extractive summarizer (a finding of one
community) and the global search's reduce (`retrieval.global_search`: the same theme merged
across communities, perhaps narrowed to one sector), so the templates live here, once. A
statement asserts exactly the edges it names, each of which the finding cites: nothing in it
that its citations do not back.
"""

from __future__ import annotations

from collections.abc import Sequence

RELATION_FINDING = "relation"
RISK_FINDING = "risk"
MODEL_FINDING = "model"

# Which end of an edge a relation finding is anchored on ("suppliers of NVIDIA": the object),
# and the statement for one partner and for several.
ANCHOR_SIDE: dict[str, str] = {
    "SUPPLIES": "object",
    "CUSTOMER_OF": "object",
    "SUBSIDIARY_OF": "object",
    "COMPETES_WITH": "subject",
    "EXPOSED_TO_RISK": "subject",
}
_ONE: dict[str, str] = {
    "SUPPLIES": "{p} supplies {a}.",
    "CUSTOMER_OF": "{p} is a customer of {a}.",
    "SUBSIDIARY_OF": "{p} is a subsidiary of {a}.",
    "COMPETES_WITH": "{a} names {p} as a competitor.",
    "EXPOSED_TO_RISK": "{a} reports exposure to {p}.",
}
_MANY: dict[str, str] = {
    "SUPPLIES": "{p} supply {a}.",
    "CUSTOMER_OF": "{p} are customers of {a}.",
    "SUBSIDIARY_OF": "{p} are subsidiaries of {a}.",
    "COMPETES_WITH": "{a} names {p} as competitors.",
    "EXPOSED_TO_RISK": "{a} reports exposure to {p}.",
}
_LABEL: dict[str, str] = {
    "SUPPLIES": "suppliers of {a}",
    "CUSTOMER_OF": "customers of {a}",
    "SUBSIDIARY_OF": "subsidiaries of {a}",
    "COMPETES_WITH": "competitors named by {a}",
    "EXPOSED_TO_RISK": "counterparties {a} is exposed to",
}


def join_names(names: Sequence[str]) -> str:
    """['A'] → 'A'; ['A', 'B'] → 'A and B'; ['A', 'B', 'C'] → 'A, B and C'."""
    names = [n for n in names if n]
    if len(names) <= 1:
        return names[0] if names else ""
    return f"{', '.join(names[:-1])} and {names[-1]}"


def risk_phrase(label: str) -> str:
    """'Export controls' → 'export controls' (an acronym keeps its case: 'ESG')."""
    if len(label) > 1 and label[:2].isupper():
        return label
    return label[:1].lower() + label[1:]


def theme_key(kind: str, relation: str | None, anchor_id: str | None) -> str:
    if kind == RISK_FINDING:
        return f"risk:{anchor_id}"
    return f"{relation}>{anchor_id}"


def finding_label(kind: str, relation: str | None, anchor_name: str) -> str:
    if kind == RISK_FINDING:
        return f"{risk_phrase(anchor_name)} risk"
    return _LABEL.get(relation or "", "{a}: " + (relation or "").lower()).format(a=anchor_name)


def render_statement(
    kind: str, relation: str | None, anchor_name: str, partner_names: Sequence[str]
) -> str:
    """The sentence a finding states: every entity it names is one of its partners, each cited."""
    who = join_names(partner_names)
    if kind == RISK_FINDING:
        verb = "reports" if len(partner_names) == 1 else "report"
        return f"{who} {verb} {risk_phrase(anchor_name)} risk."
    templates = _ONE if len(partner_names) == 1 else _MANY
    template = templates.get(relation or "")
    if template is None:
        return f"{anchor_name} {(relation or '').lower().replace('_', ' ')} {who}."
    return template.format(p=who, a=anchor_name)
