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
                                 forward-looking one is relabelled GUIDES instead, keeping its
                                 value, range and period (adjustment `forward_looking_to_guides`)

Cues are read in the clause that carries the relation (`graphrag_core.extraction.clauses`), never
anywhere in a long sentence. A triple no gate can read (missing fields) is `malformed_triple`.
Accepted triples keep their chunk id and the quote's span in the filing's normalized text;
designated placeholders ("Customer A") are scoped to their filer (adjustment
`placeholder_scoped`); duplicates on (subject, relation, object, period) merge with the union of
their evidence.

This module holds the order (`GATES`) and `judge()`, and re-exports the gates and their types.
The shared types are in `gate_types`, the numbers a text states in `stated_numbers`, gates 1-3
in `gate_values`, 4 in `gate_grounding`, 5 in `gate_mood`, 6 and the placeholder scoping in
`gate_forward`; the validated_triples table built from the verdicts in `validated_triples`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from graphrag_core.extraction.clauses import mood
from graphrag_core.extraction.gate_forward import (
    gate_forward_looking,
    is_forward_looking,
    scope_placeholders,
)
from graphrag_core.extraction.gate_grounding import gate_grounding
from graphrag_core.extraction.gate_mood import evidence_sentence, gate_mood
from graphrag_core.extraction.gate_types import (
    FORWARD_LOOKING_TO_GUIDES,
    HYPOTHETICAL_TO_RISK,
    PLACEHOLDER_SCOPED,
    RELATIONSHIPS,
    Candidate,
    ChunkContext,
    Gate,
    Reason,
    Rejection,
    Span,
)
from graphrag_core.extraction.gate_values import gate_evidence, gate_relation, gate_value

__all__ = [
    "Candidate",
    "ChunkContext",
    "FORWARD_LOOKING_TO_GUIDES",
    "GATES",
    "Gate",
    "HYPOTHETICAL_TO_RISK",
    "PLACEHOLDER_SCOPED",
    "RELATIONSHIPS",
    "Reason",
    "Rejection",
    "Span",
    "Verdict",
    "evidence_sentence",
    "gate_evidence",
    "gate_forward_looking",
    "gate_grounding",
    "gate_mood",
    "gate_relation",
    "gate_value",
    "is_forward_looking",
    "is_hypothetical",
    "is_negated",
    "judge",
    "scope_placeholders",
]


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
