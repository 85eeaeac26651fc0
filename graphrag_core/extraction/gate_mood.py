"""Gate 5: mood, judged on the clause that carries the relation. A negated statement is
dropped; a hypothetical one becomes EXPOSED_TO_RISK of the party at risk."""

from __future__ import annotations

from dataclasses import replace

from graphrag_core.extraction.clauses import Mood, is_boilerplate, mood
from graphrag_core.extraction.gate_types import (
    HYPOTHETICAL_TO_RISK,
    RELATIONSHIPS,
    RISK_OF,
    Candidate,
    ChunkContext,
    Reason,
    Rejection,
    Span,
    is_filer,
)
from graphrag_core.extraction.grounding import entity_spans
from graphrag_core.extraction.ownership import apposition, blank
from graphrag_core.extraction.spans import collapse_whitespace, enclosing_sentences
from graphrag_core.extraction.stated_numbers import (
    NUMBER,
    as_decimal,
    is_blank,
    numbers_stated_in,
    same_number,
)
from graphrag_core.extraction.triples import Relation


def figure_spans(c: Candidate, sentence: str) -> list[Span]:
    """Where the sentence states the candidate's value (or a range's bounds)."""
    wanted = [
        d
        for v in (c.value, c.value_low, c.value_high)
        if v is not None and not is_blank(v) and (d := as_decimal(v)) is not None
    ]
    spans = []
    for m in NUMBER.finditer(sentence):
        stated = set(numbers_stated_in(m.group(), None))
        if any(same_number(abs(w), n) for w in wanted for n in stated):
            spans.append((m.start(), m.end()))
    return spans


# -- gate 5: mood -----------------------------------------------------------------------------


def sentence_around(c: Candidate, chunk: ChunkContext) -> tuple[int, str]:
    """(offset, text) of the whole sentence(s) the quote sits in: a fragment keeps its 'if'."""
    if c.span is None:
        return 0, c.evidence
    start, end = enclosing_sentences(chunk.text, *c.span)
    return start, chunk.text[start:end]


def evidence_sentence(c: Candidate, chunk: ChunkContext) -> str:
    return sentence_around(c, chunk)[1]


def candidate_mood(c: Candidate, chunk: ChunkContext) -> Mood:
    _, sentence = sentence_around(c, chunk)
    if c.relation not in RELATIONSHIPS:
        return mood(sentence, c.anchors or [(0, len(sentence))])
    # The parties' names are blanked first: a name ("Fully Will Limited") is no cue of mood.
    parties = [
        entity_spans(party, sentence, chunk.text) if not is_filer(party, chunk) else []
        for party in (c.subject, c.object)
    ]
    if c.relation == Relation.SUBSIDIARY_OF and _in_apposition(
        sentence, parties[0], parties[1], is_filer(c.object, chunk)
    ):
        # "Alexion, a subsidiary of AstraZeneca": the apposition states ownership as a fact,
        # whatever the sentence around it plans, denies or supposes.
        return Mood(False, False, False, False, False)
    return mood(blank(sentence, parties[0] + parties[1]), c.anchors or [(0, len(sentence))])


def _in_apposition(
    sentence: str, subject: list[Span], parent: list[Span], parent_is_filer: bool
) -> bool:
    return any(
        apposition(sentence, s, None) is not None
        if parent_is_filer
        else any(apposition(sentence, s, p) for p in parent)
        for s in subject
    )


def _risk_object(c: Candidate) -> tuple[str, str]:
    """(exposed party, risk) of a hypothetical relationship."""
    object_exposed, wording = RISK_OF[Relation(c.relation)]
    exposed, other = (c.object, c.subject) if object_exposed else (c.subject, c.object)
    if other[:1].islower():  # a class of parties ("foundry partners"), not a named one
        wording = (
            wording.replace(" supplier", "").replace(" customer", "").replace(" subsidiary", "")
        )
    return exposed, wording.format(other=other)


def gate_mood(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    if c.span is not None and is_boilerplate(chunk.text, *c.span):
        return Rejection(
            Reason.SAFE_HARBOR_BOILERPLATE,
            "the quote is part of a forward-looking-statements legend, not a statement of the "
            "company's",
        )
    m = candidate_mood(c, chunk)
    shown = collapse_whitespace(evidence_sentence(c, chunk))[:160]
    if c.relation == Relation.EXPOSED_TO_RISK:
        if m.risk_denied or m.negated:
            return Rejection(Reason.NEGATED, f"the sentence denies the risk: {shown!r}")
        return c
    if m.negated:
        return Rejection(Reason.NEGATED, f"the clause carrying it denies it: {shown!r}")
    if c.relation in RELATIONSHIPS and m.hypothetical:
        exposed, risk = _risk_object(c)
        return replace(
            c,
            subject=exposed,
            relation=Relation.EXPOSED_TO_RISK.value,
            object=risk,
            value=None,
            value_low=None,
            value_high=None,
            unit=None,
            adjustment=c.adjusted(HYPOTHETICAL_TO_RISK),
        )
    return c
