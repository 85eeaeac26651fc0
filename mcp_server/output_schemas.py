"""Output schemas a client checks quickly, accepting exactly the documents pydantic's do.

An MCP client validates every structured answer against the tool's published output schema (the
Python SDK does so with `jsonschema` on each call). Pydantic writes a nested model as a `$ref`
into `$defs` and an optional field as `anyOf: [X, {"type": "null"}]`; the validator resolves each
reference through its registry and tries each `anyOf` branch in a sub-validator of its own, for
every value of the answer. On the synthetic 5,000-company snapshot a window screen's 23 KB answer
took 11.7 ms to check against pydantic's schema and 7.6 ms against the same schema inlined and
with nullable types written as `"type": [X, "null"]` (docs/design-notes.md, issue 23).

`flat_schema` rewrites only what changes no verdict:
- a local `$ref` is replaced by a copy of its definition (a recursive one is kept, with `$defs`);
- `anyOf: [S, {"type": "null"}]` becomes S with `null` added to its `type` (and to its `enum`),
  when S states one `type` and no other combinator: every other keyword of S applies only to
  instances of its own type, so a null passes S' exactly when it passed the `anyOf`.
"""

from __future__ import annotations

import json
from typing import Any

_REF_PREFIX = "#/$defs/"
# Keywords whose value maps names to subschemas, or is a list of subschemas, or one subschema.
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_ONE = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
# A schema with any of these cannot take `null` by widening its type alone.
_NO_WIDENING = frozenset({"const", "anyOf", "oneOf", "allOf", "not", "$ref", "if"})
_NULL = {"type": "null"}
# Keywords that describe and never reject: a reference's siblings of these replace the target's.
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"}
)


def flat_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with its local references inlined and its nullable `anyOf`s written as type
    lists; `$defs` is kept only when a recursive reference remains."""
    defs: dict[str, Any] = schema.get("$defs", {})
    kept_refs: set[str] = set()

    def node(value: Any, seen: frozenset[str]) -> Any:
        if not isinstance(value, dict):
            return value
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX) and ref[len(_REF_PREFIX) :] in defs:
            name = ref[len(_REF_PREFIX) :]
            if name in seen:  # recursive: the reference stays
                kept_refs.add(name)
                return {key: node_of(key, v, seen) for key, v in value.items()}
            target = node(defs[name], seen | {name})
            siblings = {key: node_of(key, v, seen) for key, v in value.items() if key != "$ref"}
            if (siblings.keys() - _ANNOTATIONS) & target.keys():  # both constrain: keep both
                return {**siblings, "allOf": [target]}
            return {**target, **siblings}
        out = {key: node_of(key, v, seen) for key, v in value.items() if key != "$defs"}
        return _nullable(out)

    def node_of(key: str, value: Any, seen: frozenset[str]) -> Any:
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            return {name: node(sub, seen) for name, sub in value.items()}
        if key in _SCHEMA_LISTS and isinstance(value, list):
            return [node(sub, seen) for sub in value]
        if key in _SCHEMA_ONE:
            return (
                [node(sub, seen) for sub in value] if isinstance(value, list) else node(value, seen)
            )
        return value

    flat: dict[str, Any] = node(
        {key: v for key, v in schema.items() if key != "$defs"}, frozenset()
    )
    # A reference left anywhere (recursive, or under a keyword not walked) still needs $defs.
    if kept_refs or _REF_PREFIX in json.dumps(flat):
        flat["$defs"] = {name: node(defs[name], frozenset({name})) for name in defs}
    return flat


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    any_of = schema.get("anyOf")
    if not (isinstance(any_of, list) and len(any_of) == 2 and _NULL in any_of):
        return schema
    other = any_of[1] if any_of[0] == _NULL else any_of[0]
    if (
        not isinstance(other, dict)
        or not isinstance(other.get("type"), str)
        or other["type"] == "null"
        or _NO_WIDENING & other.keys()
    ):
        return schema
    siblings = {key: v for key, v in schema.items() if key != "anyOf"}
    if _NO_WIDENING & siblings.keys() or "type" in siblings or "enum" in siblings:
        return schema
    widened: dict[str, Any] = {**other, **siblings, "type": [other["type"], "null"]}
    if isinstance(other.get("enum"), list):
        widened["enum"] = [*other["enum"], None]
    return widened
