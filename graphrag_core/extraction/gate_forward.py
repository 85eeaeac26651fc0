"""Gate 6: forward-looking language stays GUIDES; and what runs after the gates
(placeholder parties scoped to their filer)."""

from __future__ import annotations

import re
from dataclasses import replace

from graphrag_core.extraction.clauses import FORWARD, clauses_at
from graphrag_core.extraction.gate_mood import candidate_mood, sentence_around
from graphrag_core.extraction.gate_types import (
    FORWARD_LOOKING_TO_GUIDES,
    PLACEHOLDER_SCOPED,
    RELATIONSHIPS,
    Candidate,
    ChunkContext,
    Reason,
    Rejection,
)
from graphrag_core.extraction.grounding import is_placeholder, scoped_placeholder, split_scope
from graphrag_core.extraction.stated_numbers import (
    MONTHS,
    as_decimal,
    is_blank,
    numbers_stated_in,
    same_number,
)
from graphrag_core.extraction.trade_relations import stated_competition, without_stated_competition
from graphrag_core.extraction.triples import Relation

# -- gate 6: forward-looking ------------------------------------------------------------------

_YEAR_IN = re.compile(r"\b(?:19|20)\d{2}\b")


_MONTH_BEFORE = re.compile(rf"{MONTHS}\s+(?:\d{{1,2}},?\s+)?$", re.I)


def _future_period(c: Candidate, chunk: ChunkContext, clause_text: str) -> bool:
    """Does the statement name a period after the filing's fiscal year? A year in a date ("In
    February 2025, we announced…") is when something happened, not the period it is about."""
    if chunk.fiscal_year is None:
        return False
    years = [int(y) for y in _YEAR_IN.findall(c.period or "")]
    for m in _YEAR_IN.finditer(clause_text):
        if not _MONTH_BEFORE.search(clause_text[max(0, m.start() - 16) : m.start()]):
            years.append(int(m.group()))
    return any(y > chunk.fiscal_year for y in years)


def _figure_in_quote(c: Candidate, chunk: ChunkContext) -> bool:
    """Does the quote itself state the candidate's value or range?"""
    figures = [
        as_decimal(v)
        for v in (c.value, c.value_low, c.value_high)
        if v is not None and not is_blank(v)
    ]
    if not figures or any(f is None for f in figures):
        return False
    # A year is when, not how much ("prices effective beginning in 2027").
    if all(f is not None and f == f.to_integral_value() and 1900 <= f <= 2100 for f in figures):
        return False
    stated = numbers_stated_in(c.evidence, chunk.scale_header)
    return all(any(same_number(abs(f), n) for n in stated) for f in figures if f is not None)


def _anchor_text(c: Candidate, chunk: ChunkContext) -> str:
    """The text of the clauses that carry the candidate (see `clauses_at`)."""
    _, sentence = sentence_around(c, chunk)
    held = clauses_at(sentence, c.anchors or [(0, len(sentence))])
    return " … ".join(sentence[k.start : k.end] for k in held)


def _guidance_heading(chunk: ChunkContext, start: int) -> bool:
    """Is the quote under an 'Outlook' or 'Guidance' heading (in the chunk or before it)?"""
    # "2025 Outlook", "Guidance", "Fiscal 2026 expectations"; not "stakeholder expectations"
    heading_re = re.compile(
        r"\b(?:outlook|guidance|forecasts?)\b|\b(?:(?:19|20)\d{2}|fiscal|financial|full[- ]year|"
        r"annual|quarterly)\s+expectations\b",
        re.I,
    )
    before = chunk.text[:start]
    for line in reversed(before.split("\n\n")):
        line = line.strip()
        if line and len(line) <= 100 and not line.endswith((".", ":", ";")):
            return heading_re.search(line) is not None
    return bool(chunk.preceding_heading and heading_re.search(chunk.preceding_heading))


def is_forward_looking(sentence: str) -> bool:
    """Strict forward-looking language anywhere in `sentence` (expectations, plans, "will")."""
    return FORWARD.search(sentence) is not None


def gate_forward_looking(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    m = candidate_mood(c, chunk)
    if c.relation in (Relation.REPORTS_METRIC, Relation.GUIDES):
        # Forward-looking language in the clause; or a figure the quote states, for a later
        # period or under an "Outlook" heading (a heading or a year alone guides nothing).
        forward = m.forward_figure or (
            _figure_in_quote(c, chunk)
            and (
                _future_period(c, chunk, _anchor_text(c, chunk))
                or (c.span is not None and _guidance_heading(chunk, c.span[0]))
            )
        )
        if c.relation == Relation.REPORTS_METRIC:
            if forward:
                return replace(
                    c,
                    relation=Relation.GUIDES.value,
                    adjustment=c.adjusted(FORWARD_LOOKING_TO_GUIDES),
                )
            return Rejection(
                Reason.METRIC_FROM_TEXT, "reported metrics come from XBRL, not from prose"
            )
        if forward:
            return c
        return Rejection(
            Reason.GUIDES_NOT_FORWARD_LOOKING, "GUIDES on a clause with no forward-looking language"
        )
    if c.relation in RELATIONSHIPS and m.forward and not _competition_stated(c, chunk):
        return Rejection(
            Reason.FORWARD_LOOKING_NOT_GUIDES, f"{c.relation} stated in forward-looking language"
        )
    return c


def _competition_stated(c: Candidate, chunk: ChunkContext) -> bool:
    """A competitor named in "We expect continued competition from X, Y": the expectation is
    about the competition going on, the competitors are a fact. Only when nothing else in the
    clauses is forward-looking ("…, and we will compete with Z" stays rejected)."""
    if c.relation != Relation.COMPETES_WITH:
        return False
    text = _anchor_text(c, chunk)
    return stated_competition(text) and FORWARD.search(without_stated_competition(text)) is None


# -- after the gates --------------------------------------------------------------------------


def scope_placeholders(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    """'Customer A' of one filer is not 'Customer A' of another: name it with its filer."""
    if chunk.filer is None:
        return c
    subject, obj = c.subject, c.object
    if is_placeholder(subject) and split_scope(subject)[1] is None:
        subject = scoped_placeholder(subject, chunk.filer.name)
    if c.relation in RELATIONSHIPS and is_placeholder(obj) and split_scope(obj)[1] is None:
        obj = scoped_placeholder(obj, chunk.filer.name)
    if (subject, obj) == (c.subject, c.object):
        return c
    return replace(c, subject=subject, object=obj, adjustment=c.adjusted(PLACEHOLDER_SCOPED))
