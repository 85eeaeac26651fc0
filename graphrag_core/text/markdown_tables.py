"""Markdown tables as the chunker renders them: an optional caption, header rows, a rule, body
rows. Read by the release parser (`xbrl.releases`) and the citation check (`retrieval.claims`);
kept free of Polars so the MCP server can read them."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass
class MarkdownTable:
    caption: str
    header: list[list[str]]
    body: list[list[str]]


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [c.replace("\\|", "|").strip() for c in re.split(r"(?<!\\)\|", inner)]


def parse_markdown_table(text: str) -> MarkdownTable | None:
    lines = text.split("\n")
    first = next((k for k, ln in enumerate(lines) if ln.lstrip().startswith("|")), None)
    if first is None:
        return None
    caption = "\n".join(lines[:first]).strip()
    rows = [ln for ln in lines[first:] if ln.lstrip().startswith("|")]
    rule = next(
        (k for k, ln in enumerate(rows) if re.fullmatch(r"\|(?:\s*:?-{3,}:?\s*\|)+", ln.strip())),
        None,
    )
    header = [_cells(r) for r in rows[:rule]] if rule is not None else []
    body = [_cells(r) for r in (rows[rule + 1 :] if rule is not None else rows)]
    return MarkdownTable(caption, header, body)
