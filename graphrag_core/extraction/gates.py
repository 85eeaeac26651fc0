"""The validation gates: only what the filing says gets into the graph.

Each gate is a pure function of a candidate triple and its chunk that returns the candidate
(possibly rewritten) or a `Rejection` with a reason code. They run in order and the first
rejection wins:

1. `unknown_relation`            the relation is outside the closed vocabulary
2. `evidence_not_in_chunk`       the quote is not in the chunk, whitespace normalized (nothing else:
                                 a paraphrase or a "fixed" apostrophe is not a quote)
3. `value_not_in_chunk`          a value (or a range's low or high) is not a number the chunk
                                 states, read at face value, with its own "million"/"billion"/"%",
                                 or with the chunk's scale header; years, dates and percentages are
                                 never scaled by the header
4. `entity_not_in_evidence`      (the sixth gate of the design, run here so that the mood gates
                                 below read the clause that names the parties) the subject and the
                                 object are each named in the quote: by name, first words, an alias
                                 the chunk defines, initials or ticker; "we", "our", "the Company"
                                 name the filer (also in the quote's paragraph or list lead-in, and
                                 implicitly for guidance and risks, which are the filer's by nature)
   `risk_is_an_entity`           a risk whose object is a company name ("Acme Corp."): a company is
                                 a counterparty, never a risk
5. `safe_harbor_boilerplate`     the quote sits in a forward-looking-statements legend
   `negated`                     the clause that carries the relation denies it ("we do not", "no
                                 longer", "we have no"; for a risk: "will not have a material
                                 adverse effect"); a hypothetical relationship ("if we were to lose
                                 X", "X could") is kept as EXPOSED_TO_RISK of the party at risk,
                                 with the risk as object (adjustment `hypothetical_to_risk`)
6. `forward_looking_not_guides`  a relationship stated in forward-looking language
   `guides_not_forward_looking`  GUIDES without forward-looking language: a result mislabelled
   `metric_from_text`            REPORTS_METRIC from prose (metrics come from XBRL only); a
                                 forward-looking one is relabelled GUIDES instead, keeping its value,
                                 range and period (adjustment `forward_looking_to_guides`)

Cues are read in the clause that carries the relation (`graphrag_core.extraction.clauses`), never
anywhere in a long sentence. A triple no gate can read (missing fields) is `malformed_triple`.
Accepted triples keep their chunk id and the quote's span in the filing's normalized text;
designated placeholders ("Customer A") are scoped to their filer (adjustment
`placeholder_scoped`); duplicates on (subject, relation, object, period) merge with the union of
their evidence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from functools import cached_property

import polars as pl

from graphrag_core.common.ids import content_hash
from graphrag_core.common.names import is_legal_form, is_sentence
from graphrag_core.common.numbers import NUMBER_SCALE_WORD_RE, header_exponent, scale_exponent
from graphrag_core.extraction.clauses import (
    FORWARD,
    Mood,
    clauses_at,
    is_boilerplate,
    mood,
    paragraph_of,
)
from graphrag_core.extraction.grounding import (
    FILER_PRONOUNS,
    Filer,
    entity_spans,
    is_placeholder,
    scoped_placeholder,
    split_scope,
)
from graphrag_core.extraction.ownership import apposition, blank
from graphrag_core.extraction.spans import NormalizedText, collapse_whitespace, enclosing_sentences
from graphrag_core.extraction.trade_relations import stated_competition, without_stated_competition
from graphrag_core.extraction.triples import (
    VOCABULARY,
    CandidateTriple,
    MalformedItem,
    Relation,
    parse_output,
)
from graphrag_core.tables.schemas import VALIDATED_TRIPLES, frame

Span = tuple[int, int]


class Reason(StrEnum):
    MALFORMED_TRIPLE = "malformed_triple"
    UNKNOWN_RELATION = "unknown_relation"
    EVIDENCE_NOT_IN_CHUNK = "evidence_not_in_chunk"
    VALUE_NOT_IN_CHUNK = "value_not_in_chunk"
    ENTITY_NOT_IN_EVIDENCE = "entity_not_in_evidence"
    RISK_IS_AN_ENTITY = "risk_is_an_entity"
    SAFE_HARBOR_BOILERPLATE = "safe_harbor_boilerplate"
    NEGATED = "negated"
    FORWARD_LOOKING_NOT_GUIDES = "forward_looking_not_guides"
    GUIDES_NOT_FORWARD_LOOKING = "guides_not_forward_looking"
    METRIC_FROM_TEXT = "metric_from_text"


HYPOTHETICAL_TO_RISK = "hypothetical_to_risk"
FORWARD_LOOKING_TO_GUIDES = "forward_looking_to_guides"
PLACEHOLDER_SCOPED = "placeholder_scoped"

# Relationships between two parties; GUIDES is conditional by nature, REPORTS_METRIC is
# relabelled or rejected whatever its mood, EXPOSED_TO_RISK is a risk already.
RELATIONSHIPS = frozenset(
    {Relation.SUPPLIES, Relation.CUSTOMER_OF, Relation.COMPETES_WITH, Relation.SUBSIDIARY_OF}
)
# A hypothetical relationship as a risk: (is the exposed party the object?, the risk's wording).
_RISK_OF = {
    Relation.SUPPLIES: (True, "dependence on supplier {other}"),
    Relation.CUSTOMER_OF: (True, "dependence on customer {other}"),
    Relation.COMPETES_WITH: (False, "competition from {other}"),
    Relation.SUBSIDIARY_OF: (True, "changes at subsidiary {other}"),
}


@dataclass(frozen=True)
class ChunkContext:
    """The chunk a candidate claims to come from, and who filed it."""

    chunk_id: str
    text: str
    char_start: int  # offset of the chunk in the filing's normalized text
    scale_header: str | None = None
    filer: Filer | None = None
    section: str | None = None
    fiscal_year: int | None = None  # of the filing: a later year is a future period
    preceding_heading: str | None = None  # the last heading before the chunk in its section

    @cached_property
    def normalized(self) -> NormalizedText:
        return NormalizedText.of(self.text)

    @cached_property
    def stated_numbers(self) -> tuple[Decimal, ...]:
        return _stated_numbers(self.text, self.scale_header)


@dataclass(frozen=True)
class Candidate:
    """A triple on its way through the gates."""

    subject: str
    relation: str
    object: str
    value: float | str | None
    unit: str | None
    period: str | None
    evidence: str
    proposed_relation: str
    value_low: float | str | None = None
    value_high: float | str | None = None
    span: Span | None = None  # of the evidence, within the chunk (set by gate 2)
    anchors: tuple[Span, ...] = ()  # where the quote's sentence names the counterparty (gate 4)
    adjustment: str | None = None

    @classmethod
    def of(cls, triple: CandidateTriple) -> Candidate:
        return cls(
            subject=triple.subject.strip(),
            relation=triple.relation.strip(),
            object=triple.object.strip(),
            value=triple.value,
            unit=triple.unit,
            period=triple.period.strip() if triple.period else None,
            evidence=triple.evidence,
            proposed_relation=triple.relation,
            value_low=triple.value_low,
            value_high=triple.value_high,
        )

    def adjusted(self, adjustment: str) -> str:
        return ",".join(sorted({*(self.adjustment or "").split(","), adjustment} - {""}))


@dataclass(frozen=True)
class Rejection:
    reason: Reason
    detail: str


Gate = Callable[[Candidate, ChunkContext], "Candidate | Rejection"]


# -- gate 1 -----------------------------------------------------------------------------------


def gate_relation(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    if c.relation in VOCABULARY:
        return c
    return Rejection(Reason.UNKNOWN_RELATION, f"relation {c.relation!r} is not in the vocabulary")


# -- gate 2 -----------------------------------------------------------------------------------


def gate_evidence(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    span = chunk.normalized.find(c.evidence)
    if span is None:
        shown = collapse_whitespace(c.evidence)
        return Rejection(
            Reason.EVIDENCE_NOT_IN_CHUNK,
            f"quote not found in chunk {chunk.chunk_id}: {shown[:160]!r}"
            if shown
            else "empty quote",
        )
    return replace(c, span=span)


# -- gate 3 -----------------------------------------------------------------------------------

_NUMBER = re.compile(
    r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s*(?P<word>{NUMBER_SCALE_WORD_RE})\b)?(?P<pct>\)?\s?(?:%|percent\b|per\s+cent\b))?",
    re.I,
)
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DATE_BEFORE = re.compile(
    rf"(?:{_MONTHS}\s+(?:\d{{1,2}},?\s+)?|\d{{1,2}}/(?:\d{{1,2}}/)?|\d{{4}}-(?:\d{{2}}-)?)$", re.I
)
_DATE_AFTER = re.compile(r"(?:,?\s+(?:19|20)\d{2}\b|/\d{1,4}|-\d{2}\b)", re.I)
_YEAR = re.compile(r"^(?:19|20)\d{2}$")


def _word_exponent(word: str) -> int:
    exponent = scale_exponent(word)
    assert exponent is not None  # _NUMBER only captures scale words
    return exponent


def _is_year_date_or_percent(text: str, m: re.Match[str]) -> bool:
    """A year ("2025"), part of a date ("December 31, 2024", "12/31/24") or a percentage: a
    figure the table's scale header does not apply to."""
    if m.group("pct"):
        return True
    if _YEAR.match(m.group("num")) and text[max(0, m.start() - 1) : m.start()] != "$":
        return True
    before = text[max(0, m.start() - 16) : m.start()]
    return _DATE_BEFORE.search(before) is not None or _DATE_AFTER.match(text, m.end()) is not None


def _stated_numbers(text: str, scale_header: str | None) -> tuple[Decimal, ...]:
    """Every value a reader may take a number of the chunk to mean."""
    header = header_exponent(scale_header)
    out: set[Decimal] = set()
    for m in _NUMBER.finditer(text):
        n = Decimal(m.group("num").replace(",", ""))
        out.add(n)
        if m.group("word"):
            out.add(n.scaleb(_word_exponent(m.group("word"))))
        if m.group("pct"):
            out.add(n.scaleb(-2))
        if header is not None and not m.group("word") and not _is_year_date_or_percent(text, m):
            out.add(n.scaleb(header))
    return tuple(out)


def _as_decimal(value: float | str) -> Decimal | None:
    """A value as the backend gave it: a number, or text such as '$2.2 billion' or '12%'."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return Decimal(repr(float(value)))
        except InvalidOperation:
            return None
    m = _NUMBER.search(value)
    if m is None or re.search(r"\d", value[: m.start()]):
        return None
    n = Decimal(m.group("num").replace(",", ""))
    return n.scaleb(_word_exponent(m.group("word"))) if m.group("word") else n


def _same(a: Decimal, b: Decimal) -> bool:
    # Exact up to float noise: 2.2e9 written as 2200000000.0000002 is still 2.2 billion.
    return abs(a - b) <= Decimal("1e-9") * max(Decimal(1), abs(b))


def _blank(value: float | str | None) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def gate_value(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    header = f" (scale header: {chunk.scale_header!r})" if chunk.scale_header else ""
    for name, value in (
        ("value", c.value),
        ("value_low", c.value_low),
        ("value_high", c.value_high),
    ):
        if _blank(value):
            continue
        assert value is not None
        number = _as_decimal(value)
        if number is None:
            return Rejection(Reason.VALUE_NOT_IN_CHUNK, f"{name} {value!r} is not a number")
        if not any(_same(abs(number), n) for n in chunk.stated_numbers):
            return Rejection(
                Reason.VALUE_NOT_IN_CHUNK, f"{name} {value!r} is not stated in the chunk{header}"
            )
    return c


# -- gate 4: entity grounding -----------------------------------------------------------------

_BULLET = re.compile(r"^\s*(?:[•●○◦▪■·∙‣⁃*–—-]|\(?[0-9ivxlc]{1,4}[.)]|\(?[a-z][.)]|\|)", re.I)


def _is_filer(name: str, chunk: ChunkContext) -> bool:
    if chunk.filer is not None:
        return chunk.filer.is_self(name)
    return FILER_PRONOUNS.fullmatch(name.strip()) is not None


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
    10-K), else by being the filer's own list of subsidiaries (an Exhibit 21)."""
    if _filer_in(c.evidence, chunk) or _filer_in(chunk.text, chunk):
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
    sentence_start, sentence = _sentence(c, chunk)
    for party in parties:
        if _is_filer(party, chunk):
            implicit = relation in (
                Relation.GUIDES,
                Relation.EXPOSED_TO_RISK,
                Relation.REPORTS_METRIC,
            )
            if implicit or _filer_grounded(c, chunk):
                continue
            return Rejection(
                Reason.ENTITY_NOT_IN_EVIDENCE, f"the quote does not refer to the filer ({party!r})"
            )
        if not entity_spans(party, quote, chunk.text):
            return Rejection(Reason.ENTITY_NOT_IN_EVIDENCE, f"{party!r} is not named in the quote")
        anchors += entity_spans(party, sentence, chunk.text)
    if relation in (Relation.GUIDES, Relation.REPORTS_METRIC):
        anchors += _figure_spans(c, sentence)
    if not anchors and c.span is not None:
        anchors = [(c.span[0] - sentence_start, c.span[1] - sentence_start)]
    return replace(c, anchors=tuple(anchors))


def _figure_spans(c: Candidate, sentence: str) -> list[Span]:
    """Where the sentence states the candidate's value (or a range's bounds)."""
    wanted = [
        d
        for v in (c.value, c.value_low, c.value_high)
        if v is not None and not _blank(v) and (d := _as_decimal(v)) is not None
    ]
    spans = []
    for m in _NUMBER.finditer(sentence):
        stated = set(_stated_numbers(m.group(), None))
        if any(_same(abs(w), n) for w in wanted for n in stated):
            spans.append((m.start(), m.end()))
    return spans


# -- gate 5: mood -----------------------------------------------------------------------------


def _sentence(c: Candidate, chunk: ChunkContext) -> tuple[int, str]:
    """(offset, text) of the whole sentence(s) the quote sits in: a fragment keeps its 'if'."""
    if c.span is None:
        return 0, c.evidence
    start, end = enclosing_sentences(chunk.text, *c.span)
    return start, chunk.text[start:end]


def evidence_sentence(c: Candidate, chunk: ChunkContext) -> str:
    return _sentence(c, chunk)[1]


def _mood(c: Candidate, chunk: ChunkContext) -> Mood:
    _, sentence = _sentence(c, chunk)
    if c.relation not in RELATIONSHIPS:
        return mood(sentence, c.anchors or [(0, len(sentence))])
    # The parties' names are blanked first: a name ("Fully Will Limited") is no cue of mood.
    parties = [
        entity_spans(party, sentence, chunk.text) if not _is_filer(party, chunk) else []
        for party in (c.subject, c.object)
    ]
    if c.relation == Relation.SUBSIDIARY_OF and _in_apposition(
        sentence, parties[0], parties[1], _is_filer(c.object, chunk)
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
    object_exposed, wording = _RISK_OF[Relation(c.relation)]
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
            "the quote is part of a forward-looking-statements legend, not a statement of the company's",
        )
    m = _mood(c, chunk)
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


# -- gate 6: forward-looking ------------------------------------------------------------------

_YEAR_IN = re.compile(r"\b(?:19|20)\d{2}\b")


_MONTH_BEFORE = re.compile(rf"{_MONTHS}\s+(?:\d{{1,2}},?\s+)?$", re.I)


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
        _as_decimal(v)
        for v in (c.value, c.value_low, c.value_high)
        if v is not None and not _blank(v)
    ]
    if not figures or any(f is None for f in figures):
        return False
    # A year is when, not how much ("prices effective beginning in 2027").
    if all(f is not None and f == f.to_integral_value() and 1900 <= f <= 2100 for f in figures):
        return False
    stated = _stated_numbers(c.evidence, chunk.scale_header)
    return all(any(_same(abs(f), n) for n in stated) for f in figures if f is not None)


def _anchor_text(c: Candidate, chunk: ChunkContext) -> str:
    """The text of the clauses that carry the candidate (see `clauses_at`)."""
    _, sentence = _sentence(c, chunk)
    held = clauses_at(sentence, c.anchors or [(0, len(sentence))])
    return " … ".join(sentence[k.start : k.end] for k in held)


def _guidance_heading(chunk: ChunkContext, start: int) -> bool:
    """Is the quote under an 'Outlook' or 'Guidance' heading (in the chunk or before it)?"""
    # "2025 Outlook", "Guidance", "Fiscal 2026 expectations"; not "stakeholder expectations"
    heading_re = re.compile(
        r"\b(?:outlook|guidance|forecasts?)\b|\b(?:(?:19|20)\d{2}|fiscal|financial|full[- ]year|annual|quarterly)\s+expectations\b",
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
    m = _mood(c, chunk)
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


GATES: tuple[Gate, ...] = (
    gate_relation,
    gate_evidence,
    gate_value,
    gate_grounding,
    gate_mood,
    gate_forward_looking,
    scope_placeholders,
)


def is_negated(sentence: str) -> bool:
    """Does any clause of `sentence` deny what it states (whole sentence as the anchor)?"""
    return mood(sentence, [(0, len(sentence))]).negated


def is_hypothetical(sentence: str) -> bool:
    return mood(sentence, [(0, len(sentence))]).hypothetical


@dataclass(frozen=True)
class Verdict:
    candidate: Candidate
    rejection: Rejection | None = None

    @property
    def accepted(self) -> bool:
        return self.rejection is None

    @property
    def outcome(self) -> str:
        """accepted, rejected, or relabelled (accepted under another relation)."""
        if self.rejection is not None:
            return "rejected"
        return (
            "relabelled"
            if self.candidate.relation != self.candidate.proposed_relation
            else "accepted"
        )


def judge(candidate: Candidate, chunk: ChunkContext, gates: Iterable[Gate] = GATES) -> Verdict:
    """Run the gates in order; the first rejection is the verdict."""
    for gate in gates:
        outcome = gate(candidate, chunk)
        if isinstance(outcome, Rejection):
            return Verdict(candidate, outcome)
        candidate = outcome
    return Verdict(candidate)


# -- tables -----------------------------------------------------------------------------------


@dataclass
class _Judged:
    verdict: Verdict
    chunk: ChunkContext
    extraction: dict
    order: tuple
    raw: str = field(default="")


def _evidence_entry(j: _Judged) -> dict:
    c = j.verdict.candidate
    if c.span is None:
        return {
            "chunk_id": j.chunk.chunk_id,
            "quote": c.evidence,
            "char_start": None,
            "char_end": None,
        }
    start, end = c.span
    return {
        "chunk_id": j.chunk.chunk_id,
        "quote": j.chunk.text[start:end],
        "char_start": j.chunk.char_start + start,
        "char_end": j.chunk.char_start + end,
    }


def _float(value: float | str | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    d = _as_decimal(value) if isinstance(value, str) else None
    return float(d) if d is not None else None


def merge_key(
    subject: str, relation: str, obj: str, period: str | None
) -> tuple[str, str, str, str]:
    """Duplicates are the same (subject, relation, object, period) up to case and spacing."""

    def fold(text: str) -> str:
        return collapse_whitespace(text).casefold()

    return fold(subject), relation, fold(obj), fold(period or "")


def _hash(*parts: object) -> str:
    return content_hash(*parts, length=24)


def _shared(extraction: dict) -> dict:
    return {k: extraction[k] for k in ("backend", "model", "prompt_version")}


def _rejected_row(filing_id: str, j: _Judged) -> dict:
    c, rejection = j.verdict.candidate, j.verdict.rejection
    assert rejection is not None  # only rejected verdicts reach here
    return {
        "triple_id": _hash(filing_id, j.extraction["extraction_id"], j.raw),
        "filing_id": filing_id,
        "status": "rejected",
        "reason": rejection.reason.value,
        "detail": rejection.detail,
        "adjustment": c.adjustment,
        "subject": c.subject,
        "relation": c.relation,
        "object": c.object,
        "proposed_relation": c.proposed_relation,
        "value": _float(c.value),
        "value_low": _float(c.value_low),
        "value_high": _float(c.value_high),
        "unit": c.unit,
        "period": c.period,
        "value_conflict": False,
        "support": 1,
        "evidence": [_evidence_entry(j)],
        "extraction_ids": [j.extraction["extraction_id"]],
        **_shared(j.extraction),
    }


def _merged_row(filing_id: str, key: tuple, group: list[_Judged]) -> dict:
    group = sorted(group, key=lambda j: j.order)
    first = group[0].verdict.candidate
    values = [v for v in (_float(j.verdict.candidate.value) for j in group) if v is not None]
    evidence: list[dict] = []
    seen: set[tuple] = set()
    for j in group:
        entry = _evidence_entry(j)
        mark = (entry["chunk_id"], entry["char_start"], entry["char_end"])
        if mark not in seen:
            seen.add(mark)
            evidence.append(entry)
    adjustments = sorted({a for j in group if (a := j.verdict.candidate.adjustment)})
    proposed = sorted({j.verdict.candidate.proposed_relation for j in group})
    return {
        "triple_id": _hash(filing_id, *key),
        "filing_id": filing_id,
        "status": "accepted",
        "reason": None,
        "detail": None,
        "adjustment": ",".join(adjustments) or None,
        "subject": first.subject,
        "relation": first.relation,
        "object": first.object,
        "proposed_relation": ",".join(proposed),
        "value": values[0] if values else None,
        "value_low": next(
            (v for j in group if (v := _float(j.verdict.candidate.value_low)) is not None), None
        ),
        "value_high": next(
            (v for j in group if (v := _float(j.verdict.candidate.value_high)) is not None), None
        ),
        "unit": next((j.verdict.candidate.unit for j in group if j.verdict.candidate.unit), None),
        "period": first.period,
        "value_conflict": len(set(values)) > 1,
        "support": len(group),
        "evidence": evidence,
        "extraction_ids": list(dict.fromkeys(j.extraction["extraction_id"] for j in group)),
        **_shared(group[0].extraction),
    }


def _malformed_row(
    filing_id: str, extraction: dict, chunk: ChunkContext, item: MalformedItem
) -> dict:
    return {
        "triple_id": _hash(filing_id, extraction["extraction_id"], item.raw),
        "filing_id": filing_id,
        "status": "rejected",
        "reason": Reason.MALFORMED_TRIPLE.value,
        "detail": item.problem,
        "support": 1,
        "value_conflict": False,
        "evidence": [
            {"chunk_id": chunk.chunk_id, "quote": item.raw, "char_start": None, "char_end": None}
        ],
        "extraction_ids": [extraction["extraction_id"]],
        **_shared(extraction),
    }


def chunk_contexts(
    chunks: pl.DataFrame, filer: Filer | None = None, fiscal_year: int | None = None
) -> dict[str, tuple[ChunkContext, tuple]]:
    """chunk id → (its context for the gates, its sort order in the filing)."""
    from graphrag_core.extraction.headings import preceding_headings

    before = preceding_headings(chunks)
    columns = ["chunk_id", "text", "char_start", "scale_header", "ordinal", "section"]
    return {
        row["chunk_id"]: (
            ChunkContext(
                row["chunk_id"],
                row["text"],
                row["char_start"],
                row["scale_header"],
                filer=filer,
                section=row["section"],
                fiscal_year=fiscal_year,
                preceding_heading=before.get(row["chunk_id"]),
            ),
            (row["char_start"], row["ordinal"]),
        )
        for row in chunks.select(columns).iter_rows(named=True)
    }


def validate_extractions(
    extractions: pl.DataFrame,
    chunks: pl.DataFrame,
    filer: Filer | None,
    fiscal_year: int | None = None,
) -> pl.DataFrame:
    """A filing's `extractions` and `section_chunks` → its `validated_triples` table. `filer`
    is who "we" are (grounding, placeholders): without it (None) no "we" can ground a triple, so
    it is a required argument; `fiscal_year` the filing's, so that a later year reads as a future
    period."""
    contexts = chunk_contexts(chunks, filer, fiscal_year)
    rows: list[dict] = []
    accepted: dict[tuple, list[_Judged]] = {}
    for extraction in extractions.filter(pl.col("status") == "ok").iter_rows(named=True):
        chunk_id = extraction["chunk_id"]
        if chunk_id not in contexts:
            raise ValueError(
                f"extraction {extraction['extraction_id']} cites chunk {chunk_id}, which is not in "
                "this filing's section_chunks; re-materialize extractions after section_chunks"
            )
        chunk, chunk_order = contexts[chunk_id]
        filing_id = extraction["filing_id"]
        for index, item in enumerate(parse_output(extraction["raw_output"]).items):
            if isinstance(item, MalformedItem):
                rows.append(_malformed_row(filing_id, extraction, chunk, item))
                continue
            raw = json.dumps(item.model_dump(), sort_keys=True, ensure_ascii=False)
            verdict = judge(Candidate.of(item), chunk)
            span_start = verdict.candidate.span[0] if verdict.candidate.span else -1
            judged = _Judged(verdict, chunk, extraction, (*chunk_order, span_start, index), raw)
            if verdict.accepted:
                c = verdict.candidate
                key = merge_key(c.subject, c.relation, c.object, c.period)
                accepted.setdefault((filing_id, key), []).append(judged)
            else:
                rows.append(_rejected_row(filing_id, judged))
    for (filing_id, key), group in accepted.items():
        rows.append(_merged_row(filing_id, key, group))
    table = frame(rows, VALIDATED_TRIPLES)
    return table.sort(["status", "relation", "subject", "object", "triple_id"], nulls_last=True)


@dataclass(frozen=True)
class RejectionSummary:
    """Candidates, accepted and rejected counts (by reason code), and the rejection rate."""

    candidates: int
    accepted: int
    rejected: int
    rejected_by_reason: dict[str, int]
    rejection_rate: float
    edges: int  # accepted rows: merged duplicates count once


def rejection_summary(validated: pl.DataFrame) -> RejectionSummary:
    """Candidates, accepted and rejected counts (by reason), and the rejection rate."""
    support = pl.col("support").cast(pl.Int64)
    accepted = int(
        validated.filter(pl.col("status") == "accepted").select(support.sum()).item() or 0
    )
    rejected_rows = validated.filter(pl.col("status") == "rejected")
    rejected = int(rejected_rows.select(support.sum()).item() or 0)
    by_reason = {
        r: int(n)
        for r, n in rejected_rows.group_by("reason")
        .agg(support.sum().alias("n"))
        .sort("reason")
        .iter_rows()
    }
    candidates = accepted + rejected
    return RejectionSummary(
        candidates=candidates,
        accepted=accepted,
        rejected=rejected,
        rejected_by_reason=by_reason,
        rejection_rate=(rejected / candidates) if candidates else 0.0,
        edges=int(validated.filter(pl.col("status") == "accepted").height),
    )
