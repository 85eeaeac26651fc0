"""Gates 1-3: the relation is in the vocabulary, the evidence is a verbatim quote of the
chunk, and a value's digits are stated there (the chunk's scale header allowed)."""

from __future__ import annotations

from dataclasses import replace

from graphrag_core.extraction.gate_types import Candidate, ChunkContext, Reason, Rejection
from graphrag_core.extraction.spans import collapse_whitespace
from graphrag_core.extraction.stated_numbers import as_decimal, is_blank, same_number
from graphrag_core.extraction.triples import VOCABULARY

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


def gate_value(c: Candidate, chunk: ChunkContext) -> Candidate | Rejection:
    header = f" (scale header: {chunk.scale_header!r})" if chunk.scale_header else ""
    for name, value in (
        ("value", c.value),
        ("value_low", c.value_low),
        ("value_high", c.value_high),
    ):
        if is_blank(value):
            continue
        assert value is not None
        number = as_decimal(value)
        if number is None:
            return Rejection(Reason.VALUE_NOT_IN_CHUNK, f"{name} {value!r} is not a number")
        if not any(same_number(abs(number), n) for n in chunk.stated_numbers):
            return Rejection(
                Reason.VALUE_NOT_IN_CHUNK, f"{name} {value!r} is not stated in the chunk{header}"
            )
    return c
