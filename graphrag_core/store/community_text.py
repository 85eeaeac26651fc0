"""The words of community findings: how a finding's statement is written from its structure, and
the search terms that reports are indexed and questions are matched by.

One home for both, because two layers write statements: the graph stage's extractive summarizer
(a finding of one community) and the global search's reduce (the same theme merged across
communities, perhaps narrowed to one sector). A statement asserts exactly the edges it names,
each of which the finding cites: nothing in it that its citations do not back.
"""

from __future__ import annotations

import re
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


# -- search terms -------------------------------------------------------------------------------
_WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    """a about across all also an and any are as at be been by can could do does for from had has
    have how in into is it its may might most not of on or other our over such than that the their
    them these they this those through to under was we were what when where which while who whom
    why will with within would you your among between each every more much many main major key
    top dominant theme themes risk risks company companies quarter year this these""".split()
)
# Words a question uses for kinds of findings rather than for their content.
_IRREGULAR = {"companies": "company", "industries": "industry", "subsidiaries": "subsidiary"}


def stem(word: str) -> str:
    """A light plural strip, the same for questions and reports: 'semiconductors' →
    'semiconductor', 'controls' → 'control', 'tariffs' → 'tariff', 'supplies' → 'supply'."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def search_terms(text: str | None, *, keep_stopwords: bool = False) -> list[str]:
    """Lower-cased, stemmed words of `text`, stopwords dropped (kept with `keep_stopwords`)."""
    if not text:
        return []
    words = _WORD.findall(text.lower())
    return [stem(w) for w in words if keep_stopwords or (w not in STOPWORDS and len(w) > 1)]
