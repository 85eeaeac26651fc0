"""A tool answer cut to the model's budget on item boundaries, so what the model reads stays
whole JSON: every item it sees is complete (with its citation and evidence number), and
`capped` says what was left out.

Cutting the serialized text at a character count (what the agent used to do) ends mid-value:
the model reads half a passage and a citation without its number, and nothing after the cut.
Here items are dropped from the end of the longest list until the answer fits (the server's
own cap works the same way, `mcp_server.evidence.cap_answer`); only when no list is left to
shorten are the longest strings shortened, at a word, marked with "…".
"""

from __future__ import annotations

import json
from typing import Any

CAPPED = "capped"
_MIN_STRING = 80  # a string is never shortened below this many characters


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _lists(node: Any, path: str, out: list[tuple[int, str, list[Any]]]) -> None:
    """Every non-empty list in `node` as (serialized size, path, the list)."""
    if isinstance(node, dict):
        for key, value in node.items():
            _lists(value, f"{path}.{key}" if path else str(key), out)
    elif isinstance(node, list):
        if node:
            out.append((len(dumps(node)), path or "answer", node))
        for item in node:
            _lists(item, f"{path}[]", out)


def _strings(node: Any, out: list[tuple[int, Any, Any]]) -> None:
    """Every string value as (length, container, key)."""
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, value in items:
        if isinstance(value, str):
            if not (isinstance(node, dict) and key == CAPPED):
                out.append((len(value), node, key))
        else:
            _strings(value, out)


def _note(data: dict[str, Any], dropped: dict[str, int], shortened: int, limit: int) -> None:
    parts = [f"{n} from {path}" for path, n in dropped.items()]
    if shortened:
        parts.append(f"{shortened} long text(s) shortened")
    note = (
        f"cut to {limit:,} characters for the model (dropped {', '.join(parts)}); narrow the "
        "call (a filter, fewer items, a smaller limit) to see the rest"
    )
    data[CAPPED] = f"{data[CAPPED]}; {note}" if data.get(CAPPED) else note


def fit_json(data: Any, limit: int) -> str:
    """`data` (a tool's structured answer) as compact JSON of at most about `limit` characters,
    cut on item boundaries; an answer that fits comes back unchanged. The result always parses."""
    text = dumps(data)
    if len(text) <= limit:
        return text
    data = json.loads(text)  # a copy: the caller's answer stays as it came
    root = data if isinstance(data, dict) else {"answer": data}
    dropped: dict[str, int] = {}
    shortened = 0
    reserve = 220  # room for the `capped` note
    size = len(dumps(root)) + reserve
    while size > limit:
        found: list[tuple[int, str, list[Any]]] = []
        _lists(root, "", found)
        if not found:
            break
        _, path, items = max(found, key=lambda f: f[0])
        # Drop about the share that is over, at least one item.
        cut = min(len(items), max(1, int(len(items) * (size - limit) / size) + 1))
        del items[len(items) - cut :]
        dropped[path] = dropped.get(path, 0) + cut
        size = len(dumps(root)) + reserve
    while size > limit:
        strings: list[tuple[int, Any, Any]] = []
        _strings(root, strings)
        strings = [s for s in strings if s[0] > _MIN_STRING]
        if not strings:
            break
        length, container, key = max(strings, key=lambda s: s[0])
        keep = max(_MIN_STRING, length - (size - limit) - 1)
        value = container[key][:keep]
        container[key] = (
            value.rsplit(" ", 1)[0] if " " in value[_MIN_STRING // 2 :] else value
        ) + "…"
        shortened += 1
        size = len(dumps(root)) + reserve
    _note(root, dropped, shortened, limit)
    return dumps(root)
