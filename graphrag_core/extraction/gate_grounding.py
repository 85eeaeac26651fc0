"""Gate 4: entity grounding. Subject and object are each named in the evidence, or
are the filer."""

from __future__ import annotations

import re
from dataclasses import replace

from graphrag_core.common.names import is_legal_form, is_sentence
from graphrag_core.extraction.clauses import paragraph_of
from graphrag_core.extraction.gate_mood import figure_spans, sentence_around
from graphrag_core.extraction.gate_types import (
    RELATIONSHIPS,
    Candidate,
    ChunkContext,
    Reason,
    Rejection,
    Span,
    is_filer,
)
from graphrag_core.extraction.grounding import FILER_PRONOUNS, entity_spans
from graphrag_core.extraction.ownership import implied_acquirer
from graphrag_core.extraction.triples import Relation

# -- gate 4: entity grounding -----------------------------------------------------------------

_BULLET = re.compile(r"^\s*(?:[•●○◦▪■·∙‣⁃*–—-]|\(?[0-9ivxlc]{1,4}[.)]|\(?[a-z][.)]|\|)", re.I)


def _filer_in(text: str, chunk: ChunkContext) -> bool:
    if chunk.filer is not None:
        return bool(chunk.filer.spans(text))
    return FILER_PRONOUNS.search(text) is not None


def _lead_in(text: str, start: int) -> str | None:
    """The paragraph that introduces the list item at `start` ("Our competitors include:")."""
    a, _ = paragraph_of(text, start, start)
    while a > 0:
        b = a - 2
        a = paragraph_of(text, b, b)[0]
        paragraph = text[a:b].strip()
        if paragraph.endswith(":"):
            return paragraph
        if not _BULLET.match(paragraph):
            return None
    return None


def _filer_grounded(c: Candidate, chunk: ChunkContext) -> bool:
    """Is the filer referred to where the quote is? In the quote, else anywhere in its chunk
    (a list item under "Our competitors include:", a segment's paragraph in the filer's own
    10-K), else in the lead-in of the list the chunk continues ("Our competitors include:" at
    the end of the chunk before), else by being the filer's own list of subsidiaries (an
    Exhibit 21)."""
    if _filer_in(c.evidence, chunk) or _filer_in(chunk.text, chunk):
        return True
    if chunk.lead_in and _filer_in(chunk.lead_in, chunk):
        return True
    return bool(chunk.section and "Exhibit 21" in chunk.section)


def _looks_like_company(name: str) -> bool:
    words = name.replace(",", " ").split()
    # "Competition could harm the Company" ends in a legal form too: a heading, not a name.
    return (
        len(words) <= 8
        and bool(words)
        and is_legal_form(words[-1])
        and words[0][:1].isupper()
        and not is_sentence(name)
    )


def gate_grounding(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    """Subject and object are each named in the quote (the filer by "we"/"our" too)."""
    quote = chunk.text[c.span[0] : c.span[1]] if c.span else c.evidence
    relation = c.relation
    parties: list[str] = [c.subject]
    if relation in RELATIONSHIPS:
        parties.append(c.object)
    elif relation == Relation.EXPOSED_TO_RISK and _looks_like_company(c.object):
        return Rejection(
            Reason.RISK_IS_AN_ENTITY,
            f"{c.object!r} is a company, not a risk: state the relationship, or the risk it poses",
        )
    anchors: list[Span] = []
    sentence_start, sentence = sentence_around(c, chunk)
    for party in parties:
        if is_filer(party, chunk):
            implicit = relation in (
                Relation.GUIDES,
                Relation.EXPOSED_TO_RISK,
                Relation.REPORTS_METRIC,
            )
            if implicit or _filer_grounded(c, chunk):
                continue
            if (
                relation == Relation.SUBSIDIARY_OF
                and party == c.object
                and implied_acquirer(sentence, c.subject)
            ):
                continue
            return Rejection(
                Reason.ENTITY_NOT_IN_EVIDENCE, f"the quote does not refer to the filer ({party!r})"
            )
        if not entity_spans(party, quote, chunk.text):
            return Rejection(Reason.ENTITY_NOT_IN_EVIDENCE, f"{party!r} is not named in the quote")
        anchors += entity_spans(party, sentence, chunk.text)
    if relation in (Relation.GUIDES, Relation.REPORTS_METRIC):
        anchors += figure_spans(c, sentence)
    if not anchors and c.span is not None:
        anchors = [(c.span[0] - sentence_start, c.span[1] - sentence_start)]
    return replace(c, anchors=tuple(anchors))
