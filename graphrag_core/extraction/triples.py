"""What an extractor may say: the closed relation vocabulary and the triple it is returned in.

`Triple`/`Extraction` are the contract with the model: their JSON schema is what the `openai`
backend sends as structured output. `CandidateTriple` is how a reply is read back: leniently, so
that a relation outside the vocabulary or a value written as text reaches the validation gates
and is rejected there with a reason code, instead of failing the whole reply at parse time.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Relation(StrEnum):
    """How the subject relates to the object; no other relation exists."""

    REPORTS_METRIC = "REPORTS_METRIC"  # from XBRL only; rejected when it comes from text
    GUIDES = "GUIDES"  # company → metric it gives a forward-looking figure for
    SUPPLIES = "SUPPLIES"  # supplier → the company it supplies
    CUSTOMER_OF = "CUSTOMER_OF"  # customer → the company it buys from
    COMPETES_WITH = "COMPETES_WITH"  # company → competitor
    SUBSIDIARY_OF = "SUBSIDIARY_OF"  # subsidiary → parent
    EXPOSED_TO_RISK = "EXPOSED_TO_RISK"  # company → the risk it names (its risk-factor heading)


VOCABULARY: frozenset[str] = frozenset(r.value for r in Relation)


class Triple(BaseModel):
    """One relation stated by the passage, with the verbatim quote that states it."""

    model_config = ConfigDict(extra="forbid")

    subject: str = Field(
        description="Name of the subject entity as written in the passage (the filer for 'we')."
    )
    relation: Relation
    object: str = Field(
        description="Name of the object entity, the metric, or the risk (for a 10-K risk factor: "
        "its "
        "heading)."
    )
    value: float | None = Field(
        description="A number stated in the passage (e.g. 12 for '12%', 2200000000 for '$2.2 "
        "billion'); null when the relation carries no figure. Never computed."
    )
    value_low: float | None = Field(
        description="Low end of a stated range ('between $151.0 billion and $155.5 billion' → "
        "151000000000); null when the passage states a single figure or none."
    )
    value_high: float | None = Field(description="High end of a stated range; null otherwise.")
    unit: str | None = Field(
        description="Unit of value: 'USD', '%', 'shares', ...; null without a value."
    )
    period: str | None = Field(
        description="Fiscal period the statement is about, as FY2025 or Q1-FY2026; null when not "
        "stated."
    )
    evidence: str = Field(
        description="An exact, contiguous quote from the passage that states the relation."
    )


class Extraction(BaseModel):
    """Every relation a passage states; an empty list when it states none."""

    model_config = ConfigDict(extra="forbid")

    triples: list[Triple]


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = copy.deepcopy(defs[ref.removeprefix("#/$defs/")])
            extra = {k: v for k, v in node.items() if k != "$ref"}
            return _inline_refs({**target, **extra}, defs)
        return {k: _inline_refs(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    return node


def extraction_json_schema() -> dict[str, Any]:
    """The JSON schema sent to the model, generated from `Extraction`.

    References are inlined because several guided-decoding engines compile `$ref` poorly or not
    at all; every property is required and no extra property is allowed, which is what OpenAI's
    strict structured outputs demand (nullable fields are `anyOf [..., null]`).
    """
    schema = Extraction.model_json_schema()
    return _inline_refs(schema, schema.get("$defs", {}))


def schema_fingerprint() -> str:
    return json.dumps(extraction_json_schema(), sort_keys=True, separators=(",", ":"))


class CandidateTriple(BaseModel):
    """A triple as a backend returned it, before any gate has looked at it."""

    model_config = ConfigDict(extra="ignore")

    subject: str
    relation: str
    object: str
    value: float | str | None = None
    value_low: float | str | None = None
    value_high: float | str | None = None
    unit: str | None = None
    period: str | None = None
    evidence: str
    # Where the triple came from, as the embedded backends write it beside the fields ("method":
    # "rule:supplies" | "learned", "score": the classifier's probability). Any type is taken (a
    # reply's odd value must not make the triple malformed) and left out of dumps (the triple's
    # identity); `provenance` decides what is kept.
    method: Any = Field(None, exclude=True)
    score: Any = Field(None, exclude=True)


# A method code as the embedded backends write them: short, lowercase, no spaces.
_METHOD_CODE = re.compile(r"[a-z][a-z0-9_]*(?::[a-z0-9_]+)?")
# Backends whose replies are this code's own output: their per-triple method is believed. A model
# server's reply is not (it could claim to be a rule); its triples carry the backend's name.
SELF_TRACING_BACKENDS = frozenset({"rules", "rules+learned"})


def method_code(written: object, backend: str) -> str:
    """The method a triple is credited to: the code a self-tracing backend wrote, if it is one
    (short, lowercase, `family` or `family:detail`), else the backend's name."""
    if backend not in SELF_TRACING_BACKENDS:
        return backend
    if isinstance(written, str) and len(written) <= 40 and _METHOD_CODE.fullmatch(written):
        return written
    return backend


def provenance(item: CandidateTriple, backend: str) -> tuple[str, float | None]:
    """(method, confidence) of a read triple: the method code its backend wrote (else the
    backend's name), and the score as a probability in [0, 1] (else None)."""
    if backend not in SELF_TRACING_BACKENDS:
        return backend, None
    method = method_code(item.method, backend)
    score = item.score
    confidence = (
        float(score)
        if isinstance(score, int | float)
        and not isinstance(score, bool)
        and 0.0 <= float(score) <= 1.0
        else None
    )
    return method, confidence


@dataclass(frozen=True)
class MalformedItem:
    """An element of `triples` that is not a triple at all (missing fields, wrong types)."""

    raw: str
    problem: str


@dataclass(frozen=True)
class ParsedOutput:
    """A reply read back: its candidates, or why it could not be read at all."""

    items: tuple[CandidateTriple | MalformedItem, ...] = ()
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n\s*```\s*$", re.S)


def parse_output(raw: str | None) -> ParsedOutput:
    """Raw model text → candidates. Never raises: an unreadable reply comes back with `error`."""
    if raw is None or not raw.strip():
        return ParsedOutput(error="empty output")
    fenced = _FENCE.match(raw)
    text = fenced.group(1) if fenced else raw
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        return ParsedOutput(error=f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    if not isinstance(payload, dict) or not isinstance(payload.get("triples"), list):
        return ParsedOutput(error="JSON is not an object with a 'triples' list")
    items: list[CandidateTriple | MalformedItem] = []
    for element in payload["triples"]:
        try:
            items.append(CandidateTriple.model_validate(element))
        except ValidationError as exc:
            problem = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg']}" for e in exc.errors()
            )
            items.append(
                MalformedItem(raw=json.dumps(element, ensure_ascii=False), problem=problem)
            )
    return ParsedOutput(items=tuple(items))
