"""Sentence boundaries: the one splitter that chunking (packing prose to a budget) and the
extraction gates (the sentence that carries a relation) share."""

from __future__ import annotations

import re

# Words whose period is not a sentence end ("Inc.", "U.S.", "e.g.", "Jan."), compared
# case-insensitively without their final period. Single letters (initials) are never ends.
ABBREVIATIONS = frozenset(
    "u.s inc corp co ltd no nos mr mrs ms dr st jr sr vs etc e.g i.e approx fig sec ref "
    "jan feb mar apr jun jul aug sep sept oct nov dec l.p l.l.c n.a n.v s.a u.k p.m a.m".split()
)
# A candidate end: . ! ? with any closing quotes or brackets, before whitespace.
_END_RE = re.compile(r"[.!?][\"'”’)\]]*(?=\s)")
_END_OR_LINE_RE = re.compile(r"[.!?][\"'”’)\]]*(?=\s)|\n+")
_NEXT_STARTS_SENTENCE_RE = re.compile(r"\s+[A-Z0-9“\"'(•]")


def _is_abbreviation(text: str, start: int, end: int) -> bool:
    """Does the candidate end at `end` close an abbreviation or an initial?"""
    head = text[start:end].rstrip("\"'”’)]")
    if not head.endswith("."):
        return False
    words = head[:-1].rsplit(None, 1)
    last = words[-1].lower() if words else ""
    last = last.lstrip("(\"'“‘")
    # An initial, alone or in a run of them ("J.", "V.F.", "U.S.").
    initial = last.rsplit(".", 1)[-1]
    return last in ABBREVIATIONS or (len(initial) == 1 and initial.isalpha())


def sentence_spans(
    text: str, *, split_lines: bool = False, require_capital: bool = False
) -> list[tuple[int, int]]:
    """Sentences of `text` as (start, end) offsets, surrounding whitespace excluded.

    `split_lines`: a line break also ends a sentence (chunks join bullets with newlines).
    `require_capital`: a period ends a sentence only before an upper-case letter, a digit or an
    opening quote or bracket (prose packing prefers a missed end to a false one)."""
    pattern = _END_OR_LINE_RE if split_lines else _END_RE
    spans: list[tuple[int, int]] = []
    start = 0
    for match in pattern.finditer(text):
        end = match.end()
        if match.group().startswith("\n"):
            _append_trimmed(text, start, end, spans)
            start = end
            continue
        if require_capital and not _NEXT_STARTS_SENTENCE_RE.match(text, end):
            continue
        if _is_abbreviation(text, start, end):
            continue
        _append_trimmed(text, start, end, spans)
        start = end
    _append_trimmed(text, start, len(text), spans)
    return spans


def _append_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))
