"""The validation gates: only what the filing says gets into the graph.

Each gate is a pure function of a candidate triple and its chunk that returns the candidate
(possibly rewritten) or a `Rejection` with a reason code. They run in the design's order and the
first rejection wins:

1. `unknown_relation`            the relation is outside the closed vocabulary
2. `evidence_not_in_chunk`       the quote is not in the chunk, whitespace normalized (nothing else:
                                 a paraphrase or a "fixed" apostrophe is not a quote)
3. `value_not_in_chunk`          the value is not a number the chunk states, read at face value, with
                                 its own "million"/"billion"/"%", or with the chunk's scale header
4. `negated`                     the evidence sentence denies the relation ("we do not", "no longer");
                                 a hypothetical relationship ("if we were to lose…", "could", "may")
                                 is kept as EXPOSED_TO_RISK instead (adjustment `hypothetical_to_risk`)
5. `forward_looking_not_guides`  forward-looking language on anything but GUIDES (risks excepted:
                                 a risk is forward-looking by nature)
   `guides_not_forward_looking`  GUIDES without forward-looking language: a result mislabelled
   `metric_from_text`            REPORTS_METRIC from prose (metrics come from XBRL only)

A triple no gate can read (missing fields) is `malformed_triple`. Accepted triples keep their
chunk id and the quote's span in the filing's normalized text; duplicates on (subject, relation,
object, period) merge with the union of their evidence.
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
from graphrag_core.common.numbers import NUMBER_SCALE_WORD_RE, header_exponent, scale_exponent
from graphrag_core.extraction.spans import NormalizedText, collapse_whitespace, enclosing_sentences
from graphrag_core.extraction.triples import (
    VOCABULARY,
    CandidateTriple,
    MalformedItem,
    Relation,
    parse_output,
)
from graphrag_core.tables.schemas import VALIDATED_TRIPLES, frame


class Reason(StrEnum):
    MALFORMED_TRIPLE = "malformed_triple"
    UNKNOWN_RELATION = "unknown_relation"
    EVIDENCE_NOT_IN_CHUNK = "evidence_not_in_chunk"
    VALUE_NOT_IN_CHUNK = "value_not_in_chunk"
    NEGATED = "negated"
    FORWARD_LOOKING_NOT_GUIDES = "forward_looking_not_guides"
    GUIDES_NOT_FORWARD_LOOKING = "guides_not_forward_looking"
    METRIC_FROM_TEXT = "metric_from_text"


HYPOTHETICAL_TO_RISK = "hypothetical_to_risk"

# Relationships that a hypothetical sentence turns into a risk; GUIDES is conditional by nature
# and REPORTS_METRIC is rejected whatever its mood.
_RELATIONSHIPS = frozenset(
    {Relation.SUPPLIES, Relation.CUSTOMER_OF, Relation.COMPETES_WITH, Relation.SUBSIDIARY_OF}
)
# In these the object is the party that depends on the subject: a hypothetical loss exposes it.
_DEPENDENT_IS_OBJECT = frozenset({Relation.SUPPLIES, Relation.CUSTOMER_OF})


@dataclass(frozen=True)
class ChunkContext:
    """The chunk a candidate claims to come from."""

    chunk_id: str
    text: str
    char_start: int  # offset of the chunk in the filing's normalized text
    scale_header: str | None = None

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
    span: tuple[int, int] | None = None  # of the evidence, within the chunk (set by gate 2)
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
        )


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
            f"quote not found in chunk {chunk.chunk_id}: {shown[:160]!r}" if shown else "empty quote",
        )
    return replace(c, span=span)


# -- gate 3 -----------------------------------------------------------------------------------

_NUMBER = re.compile(
    r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s*(?P<word>{NUMBER_SCALE_WORD_RE})\b)?(?P<pct>\s?%)?",
    re.I,
)


def _word_exponent(word: str) -> int:
    exponent = scale_exponent(word)
    assert exponent is not None  # _NUMBER only captures scale words
    return exponent


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
        if header is not None:
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


def gate_value(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    if c.value is None or (isinstance(c.value, str) and not c.value.strip()):
        return c
    value = _as_decimal(c.value)
    if value is None:
        return Rejection(Reason.VALUE_NOT_IN_CHUNK, f"value {c.value!r} is not a number")
    if any(_same(abs(value), n) for n in chunk.stated_numbers):
        return c
    header = f" (scale header: {chunk.scale_header!r})" if chunk.scale_header else ""
    return Rejection(Reason.VALUE_NOT_IN_CHUNK, f"value {c.value!r} is not stated in the chunk{header}")


# -- gate 4 -----------------------------------------------------------------------------------

# Denials that hold whatever the mood of the sentence.
_STRONG_NEGATION = re.compile(r"\b(?:no\s+longer|ceased\s+to|never)\b", re.I)
# Plain denials; inside a conditional ("if a supplier does not deliver…") they are part of the
# hypothesis, not a denial of the relation.
_NEGATION = re.compile(
    r"\b(?:(?:do|does|did|is|are|was|were|has|have|had)\s+not|(?:don|doesn|didn|isn|aren|wasn|"
    r"weren|hasn|haven|hadn)['’]t|none\s+of|neither)\b",
    re.I,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|could|might|would|were\s+to|in\s+the\s+event|potential(?:ly)?|no\s+assurance|"
    r"cannot\s+(?:assure|guarantee)|unable\s+to|(?-i:may))\b",
    re.I,
)


def evidence_sentence(c: Candidate, chunk: ChunkContext) -> str:
    """The whole sentence(s) the quote sits in: a quoted fragment cannot drop its 'if'."""
    if c.span is None:
        return c.evidence
    start, end = enclosing_sentences(chunk.text, *c.span)
    return chunk.text[start:end]


# Legal phrasing with a "not" that denies nothing: "include, but are not limited to, X".
_NOT_A_DENIAL = re.compile(r"\bnot\s+limited\s+to\b|\bnot\s+only\b|\bwhether\s+or\s+not\b", re.I)


def is_negated(sentence: str) -> bool:
    sentence = _NOT_A_DENIAL.sub(" ", sentence)
    if _STRONG_NEGATION.search(sentence):
        return True
    return _NEGATION.search(sentence) is not None and not is_hypothetical(sentence)


def is_hypothetical(sentence: str) -> bool:
    return _HYPOTHETICAL.search(sentence) is not None


def gate_negation(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    sentence = evidence_sentence(c, chunk)
    if is_negated(sentence):
        return Rejection(Reason.NEGATED, f"the evidence sentence denies it: {collapse_whitespace(sentence)[:160]!r}")
    if c.relation in _RELATIONSHIPS and is_hypothetical(sentence):
        exposed, risk = (c.object, c.subject) if c.relation in _DEPENDENT_IS_OBJECT else (c.subject, c.object)
        return replace(
            c, subject=exposed, relation=Relation.EXPOSED_TO_RISK.value, object=risk,
            adjustment=HYPOTHETICAL_TO_RISK,
        )
    return c


# -- gate 5 -----------------------------------------------------------------------------------

_FORWARD = re.compile(
    r"\b(?:expects?|expected|expecting|anticipates?|anticipated|outlook|guidance|forecasts?|"
    r"forecasted|projected|(?:we|currently)\s+projects?|plans?\s+to|intends?\s+to|will|"
    r"going\s+forward|next\s+(?:fiscal\s+)?(?:year|quarter))\b",
    re.I,
)


def is_forward_looking(sentence: str) -> bool:
    return _FORWARD.search(sentence) is not None


def gate_forward_looking(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    forward = is_forward_looking(evidence_sentence(c, chunk))
    if c.relation == Relation.REPORTS_METRIC:
        if forward:
            return Rejection(
                Reason.FORWARD_LOOKING_NOT_GUIDES, "forward-looking figure labelled REPORTS_METRIC"
            )
        return Rejection(Reason.METRIC_FROM_TEXT, "reported metrics come from XBRL, not from prose")
    if c.relation == Relation.GUIDES:
        if forward:
            return c
        return Rejection(
            Reason.GUIDES_NOT_FORWARD_LOOKING, "GUIDES on a sentence with no forward-looking language"
        )
    if forward and c.relation != Relation.EXPOSED_TO_RISK:
        return Rejection(
            Reason.FORWARD_LOOKING_NOT_GUIDES, f"{c.relation} stated in forward-looking language"
        )
    return c


GATES: tuple[Gate, ...] = (gate_relation, gate_evidence, gate_value, gate_negation, gate_forward_looking)


@dataclass(frozen=True)
class Verdict:
    candidate: Candidate
    rejection: Rejection | None = None

    @property
    def accepted(self) -> bool:
        return self.rejection is None


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
        return {"chunk_id": j.chunk.chunk_id, "quote": c.evidence, "char_start": None, "char_end": None}
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


def merge_key(subject: str, relation: str, obj: str, period: str | None) -> tuple[str, str, str, str]:
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
        "unit": next((j.verdict.candidate.unit for j in group if j.verdict.candidate.unit), None),
        "period": first.period,
        "value_conflict": len(set(values)) > 1,
        "support": len(group),
        "evidence": evidence,
        "extraction_ids": list(dict.fromkeys(j.extraction["extraction_id"] for j in group)),
        **_shared(group[0].extraction),
    }


def _malformed_row(filing_id: str, extraction: dict, chunk: ChunkContext, item: MalformedItem) -> dict:
    return {
        "triple_id": _hash(filing_id, extraction["extraction_id"], item.raw),
        "filing_id": filing_id,
        "status": "rejected",
        "reason": Reason.MALFORMED_TRIPLE.value,
        "detail": item.problem,
        "support": 1,
        "value_conflict": False,
        "evidence": [{"chunk_id": chunk.chunk_id, "quote": item.raw, "char_start": None, "char_end": None}],
        "extraction_ids": [extraction["extraction_id"]],
        **_shared(extraction),
    }


def validate_extractions(extractions: pl.DataFrame, chunks: pl.DataFrame) -> pl.DataFrame:
    """A filing's `extractions` and `section_chunks` → its `validated_triples` table."""
    contexts = {
        row["chunk_id"]: (
            ChunkContext(row["chunk_id"], row["text"], row["char_start"], row["scale_header"]),
            (row["char_start"], row["ordinal"]),
        )
        for row in chunks.select("chunk_id", "text", "char_start", "scale_header", "ordinal").iter_rows(named=True)
    }
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
    accepted = int(validated.filter(pl.col("status") == "accepted").select(support.sum()).item() or 0)
    rejected_rows = validated.filter(pl.col("status") == "rejected")
    rejected = int(rejected_rows.select(support.sum()).item() or 0)
    by_reason = {
        r: int(n)
        for r, n in rejected_rows.group_by("reason").agg(support.sum().alias("n")).sort("reason").iter_rows()
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
