"""Markdown tables as the chunker renders them: an optional caption, header rows, a rule, body
rows. Read by the release parser (`xbrl.releases`), the citation check (`retrieval.claims`), a
table hit's row pick (`retrieval.passages`) and the row vectors (`retrieval.sentence_index`);
kept free of Polars so the MCP server can read them."""

from __future__ import annotations

import re
from dataclasses import dataclass

TABLE_RULE = re.compile(r"\|(?:\s*:?-{3,}:?\s*\|)+")  # the line under the header rows
# A cell without words: a figure, a sign, a currency mark or a footnote mark.
NUMERIC_CELL = re.compile(r"^[\s$€£¥%()\-–—.,:;0-9x×/*+]*$")


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
        (k for k, ln in enumerate(rows) if TABLE_RULE.fullmatch(ln.strip())),
        None,
    )
    header = [_cells(r) for r in rows[:rule]] if rule is not None else []
    body = [_cells(r) for r in (rows[rule + 1 :] if rule is not None else rows)]
    return MarkdownTable(caption, header, body)


def row_lines(text: str) -> list[tuple[int, int, str]]:
    """(start, end, line) of each table line ('|' first) of `text`, in order."""
    out = []
    pos = 0
    for line in text.split("\n"):
        if line.lstrip().startswith("|"):
            out.append((pos, pos + len(line), line))
        pos += len(line) + 1
    return out


def is_group_label(cells: list[str]) -> bool:
    """A row that only names the rows under it: a label and no figure ("Cash provided by (used
    in):", "NET EARNINGS PER COMMON SHARE", "June 2, 2024 to June 29, 2024:")."""
    return bool(cells and cells[0].strip()) and not any(c.strip() for c in cells[1:])


def label_words(cells: list[str]) -> str:
    """The cells of a row that hold words (its label, a unit), without its figures."""
    return " ".join(dict.fromkeys(c for c in cells if c and not NUMERIC_CELL.match(c)))


def table_row_units(text: str, context: str = "") -> list[tuple[int, int, str]]:
    """(start, end, what is embedded) for each body row of the Markdown table in `text` that
    holds a figure and a label: the row's offsets are its line's in `text` (the spans
    `retrieval.passages.table_rows` shows), and what is embedded is what the row means, not
    its figures: its label, the label of the group above it, then the table's caption or first
    header cell and `context` ("Net cash used in investing activities — Consolidated Statements
    of Cash Flows · Financial Statements"). A group label holds no figure and gets no vector of
    its own."""
    table = parse_markdown_table(text)
    if table is None or not table.body:
        return []
    lines = row_lines(text)
    rule = next((k for k, (_, _, ln) in enumerate(lines) if TABLE_RULE.fullmatch(ln.strip())), None)
    body_lines = lines[rule + 1 :] if rule is not None else lines
    # The caption's last line that names something: "Consolidated Statements of Income", not
    # the "(In millions, except per share data)" under it.
    named = [ln.strip() for ln in table.caption.split("\n") if ln.strip()[:1].isalpha()]
    about = named[-1] if named else ""
    if not about and table.header and table.header[0] and table.header[0][0][:1].isalpha():
        about = label_words(table.header[0][:1])
    tail = " · ".join(p for p in (about, context) if p)
    out: list[tuple[int, int, str]] = []
    group = ""
    for cells, (start, end, _) in zip(table.body, body_lines, strict=False):
        if is_group_label(cells):
            group = cells[0].strip().rstrip(":")
            continue
        label = label_words(cells)
        if not label or not any(c.strip() for c in cells[1:]):
            continue
        head = f"{label} ({group})" if group else label
        out.append((start, end, f"{head} — {tail}" if tail else head))
    return out
