"""What the gates speak: a candidate triple, the chunk it is judged against, a rejection
with its reason code, the adjustments a gate may make, and who the filer is (the gates' shared
vocabulary)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from functools import cached_property

from graphrag_core.extraction.grounding import FILER_PRONOUNS, Filer
from graphrag_core.extraction.spans import NormalizedText
from graphrag_core.extraction.stated_numbers import numbers_stated_in
from graphrag_core.extraction.triples import CandidateTriple, Relation

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
RISK_OF = {
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
    lead_in: str | None = None  # a list's lead-in in an earlier chunk (extraction.lead_ins)

    @cached_property
    def normalized(self) -> NormalizedText:
        return NormalizedText.of(self.text)

    @cached_property
    def stated_numbers(self) -> tuple[Decimal, ...]:
        return numbers_stated_in(self.text, self.scale_header)


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
    # The method code the backend wrote beside the triple, unchecked (triples.provenance checks
    # it against the backend that wrote it): what eval-extraction tallies per method.
    method: str | None = None

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
            # a `Triple` (the contract, no method) is read here too
            method=method if isinstance(method := getattr(triple, "method", None), str) else None,
        )

    def adjusted(self, adjustment: str) -> str:
        return ",".join(sorted({*(self.adjustment or "").split(","), adjustment} - {""}))


@dataclass(frozen=True)
class Rejection:
    reason: Reason
    detail: str


Gate = Callable[[Candidate, ChunkContext], "Candidate | Rejection"]


def is_filer(name: str, chunk: ChunkContext) -> bool:
    if chunk.filer is not None:
        return chunk.filer.is_self(name)
    return FILER_PRONOUNS.fullmatch(name.strip()) is not None
