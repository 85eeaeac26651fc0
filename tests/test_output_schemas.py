"""Published output schemas (`mcp_server.output_schemas.flat_schema`): inlined and with nullable
types as type lists, they give every document the verdict pydantic's schema gives it, and every
tool of the server publishes one that a client validates its answers with."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field, TypeAdapter
from referencing.exceptions import Unresolvable

from graphrag_core.store.publish import SnapshotStore
from mcp_server.output_schemas import flat_schema
from tests import snapshot_sample as sample
from tests.mcp_client import session


class Citation(BaseModel):
    filing_id: str
    chunk_id: str | None = None
    evidence: int | None = Field(default=None, ge=1)


class Figure(BaseModel):
    value: float
    unit: Literal["USD", "shares", "pure"] | None = None
    citation: Citation | None = None


class Node(BaseModel):  # recursive: its reference must stay
    name: str
    children: list[Node] = []


class Answer(BaseModel):
    snapshot: str
    revenue: Figure | None = None
    figures: list[Figure] = []
    either: Figure | Citation | None = None  # three-way anyOf: left as pydantic wrote it
    labels: list[str] | None = None
    tree: Node | None = None
    basis: Literal["year_over_year", "sequential"] = "year_over_year"


FIGURE = {"value": 1.5, "unit": "USD", "citation": {"filing_id": "f", "evidence": 2}}
VALID: list[dict[str, Any]] = [
    {"snapshot": "s"},
    {"snapshot": "s", "revenue": None, "labels": None, "tree": None, "either": None},
    {"snapshot": "s", "revenue": FIGURE, "figures": [FIGURE, {"value": 0}]},
    {"snapshot": "s", "revenue": {"value": 2, "unit": None, "citation": None}},
    {"snapshot": "s", "either": {"filing_id": "f"}, "labels": ["a", "b"]},
    {"snapshot": "s", "tree": {"name": "a", "children": [{"name": "b", "children": []}]}},
    {"snapshot": "s", "basis": "sequential"},
]
INVALID: list[dict[str, Any]] = [
    {},
    {"snapshot": None},
    {"snapshot": "s", "revenue": {"unit": "USD"}},  # no value
    {"snapshot": "s", "revenue": {"value": "1"}},
    {"snapshot": "s", "revenue": {"value": 1, "unit": "EUR"}},  # outside the enum
    {"snapshot": "s", "revenue": {"value": 1, "citation": {"evidence": 1}}},  # no filing_id
    {"snapshot": "s", "revenue": {"value": 1, "citation": {"filing_id": "f", "evidence": 0}}},
    {"snapshot": "s", "revenue": "1.5"},
    {"snapshot": "s", "revenue": []},
    {"snapshot": "s", "figures": None},
    {"snapshot": "s", "figures": [None]},
    {"snapshot": "s", "labels": [None]},
    {"snapshot": "s", "labels": "a"},
    {"snapshot": "s", "either": "f"},
    {"snapshot": "s", "tree": {"name": "a", "children": [{"children": []}]}},
    {"snapshot": "s", "tree": {"name": "a", "children": [None]}},
    {"snapshot": "s", "basis": None},
    {"snapshot": "s", "basis": "daily"},
]


def verdict(schema: dict[str, Any], document: Any) -> bool:
    return Draft202012Validator(schema).is_valid(document)


@pytest.fixture(scope="module")
def schemas() -> tuple[dict[str, Any], dict[str, Any]]:
    original = TypeAdapter(Answer).json_schema()
    return original, flat_schema(original)


@pytest.mark.parametrize("document", VALID + INVALID)
def test_the_flat_schema_gives_every_document_pydantics_verdict(schemas, document):
    original, flat = schemas
    assert verdict(flat, document) == verdict(original, document)
    assert verdict(original, document) == (document in VALID)


def test_references_are_inlined_and_nullable_fields_are_type_lists(schemas):
    original, flat = schemas
    assert "$ref" in str(original) and "anyOf" in str(original["properties"]["revenue"])
    revenue = flat["properties"]["revenue"]
    assert revenue["type"] == ["object", "null"]
    assert revenue["properties"]["citation"]["type"] == ["object", "null"]
    assert revenue["properties"]["unit"]["enum"] == ["USD", "shares", "pure", None]
    assert flat["properties"]["labels"]["type"] == ["array", "null"]
    # A three-way union keeps its anyOf; the recursive model keeps its reference and $defs.
    assert len(flat["properties"]["either"]["anyOf"]) == 3
    assert "$ref" in str(flat["properties"]["tree"]) and "Node" in flat["$defs"]
    assert "$ref" not in str(flat["properties"]["revenue"])


def test_a_reference_with_a_constraint_beside_it_keeps_both():
    schema = {
        "$defs": {"N": {"type": "number", "maximum": 10}},
        "properties": {"x": {"$ref": "#/$defs/N", "maximum": 5, "description": "d"}},
    }
    flat = flat_schema(schema)
    assert "$defs" not in flat
    for value, ok in ((4, True), (7, False), (11, False), (math.inf, False)):
        assert verdict(flat, {"x": value}) == verdict(schema, {"x": value}) == ok


@pytest.mark.parametrize(
    "schema",
    [
        {},
        {"type": "object"},
        {"anyOf": [{"type": "null"}, {"const": 1}]},  # const: no widening
        {"anyOf": [{"type": "null"}, {"type": "null"}]},
        {"anyOf": [{"type": "string"}, {"type": "null"}], "type": "string"},  # typed beside it
        {"$ref": "#/$defs/missing", "$defs": {}},  # not local to this document: left alone
        {"properties": {"anyOf": {"type": "string"}, "$ref": {"type": "integer"}}},
    ],
)
def test_odd_schemas_are_left_with_their_meaning(schema):
    flat = flat_schema(schema)
    for document in (None, 1, "a", {}, {"anyOf": "x", "$ref": 2}, {"anyOf": 1}, [None]):
        try:
            expected = verdict(schema, document)
        except Unresolvable:  # an unresolvable reference fails both the same way
            with pytest.raises(Unresolvable):
                verdict(flat, document)
            continue
        assert verdict(flat, document) == expected, (schema, document)


async def test_every_tool_publishes_a_flat_schema_its_answers_pass(data_root: Path):
    """Each tool's published schema has no `$defs` reference left (none of them is recursive),
    and the client session validates answers with it (a call that passed pydantic on the server
    and failed the published schema would raise in the client)."""
    SnapshotStore(data_root).publish(sample.sample_tables())
    async with session(data_root) as client:
        tools = (await client.list_tools()).tools
        for tool in tools:
            assert tool.output_schema is not None, tool.name
            assert "$ref" not in str(tool.output_schema), tool.name
            assert "$defs" not in tool.output_schema, tool.name
        for name, args in (
            ("status", {}),
            ("find_company", {"query": "Apple"}),
            ("screen_companies", {"min_revenue_growth": -100}),
            ("screen_companies", {"window": 2, "min_margin_trend": -100}),
            ("get_ontology", {}),
        ):
            result = await client.call_tool(name, args)
            assert not result.is_error, (name, result.content)
            assert result.structured_content is not None


def test_a_reference_under_a_keyword_not_walked_keeps_its_definitions():
    schema = {
        "$defs": {"N": {"type": "integer"}},
        "properties": {"x": {"x-unknown": {"$ref": "#/$defs/N"}, "$ref": "#/$defs/N"}},
    }
    flat = flat_schema(schema)
    assert flat["properties"]["x"]["type"] == "integer" and "N" in flat["$defs"]
    assert Draft202012Validator(flat).is_valid({"x": 1})
    assert not Draft202012Validator(flat).is_valid({"x": "1"})
