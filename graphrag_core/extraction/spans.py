"""Text positions that survive whitespace normalization, and sentence boundaries.

Gate 2 compares a quote with its chunk after collapsing whitespace only, so a quote that a model
copied across a line break still matches; the span it cites must nevertheless point into the
chunk as stored. `NormalizedText` keeps, for every character of the normalized text, the offset
of the character it came from, so a match found in normalized text maps back exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WS_RUN = re.compile(r"\s+")

# A sentence ends at . ! ? (optionally followed by a closing quote or bracket) before whitespace,
# or at a line break (chunks join paragraphs and bullets with newlines). Periods of common
# abbreviations and initials ("Inc.", "U.S.", "Co., Ltd.") are not sentence ends.
_SENTENCE_END = re.compile(r"[.!?][\"”’')\]]*(?=\s)|\n+")
_ABBREVIATION = re.compile(
    r"(?:\b(?:Inc|Corp|Co|Ltd|No|Nos|Mr|Mrs|Ms|Dr|St|vs|etc|approx|Jan|Feb|Mar|Apr|Jun|Jul|Aug|"
    r"Sep|Sept|Oct|Nov|Dec|Fig|U\.S|U\.K|S\.A|N\.V|L\.P|L\.L\.C)|\b[A-Z])\.$"
)


def collapse_whitespace(text: str) -> str:
    return _WS_RUN.sub(" ", text).strip()


@dataclass(frozen=True)
class NormalizedText:
    """`text` with whitespace runs collapsed to one space and ends stripped.

    `origin[i]` is the offset in the original text of normalized character `i`; `origin` has one
    extra entry, the original length, so an exclusive end maps too.
    """

    original: str
    text: str
    origin: tuple[int, ...]

    @classmethod
    def of(cls, original: str) -> NormalizedText:
        out: list[str] = []
        origin: list[int] = []
        pending_space: int | None = None
        for i, ch in enumerate(original):
            if ch.isspace():
                if out and pending_space is None:
                    pending_space = i
                continue
            if pending_space is not None:
                out.append(" ")
                origin.append(pending_space)
                pending_space = None
            out.append(ch)
            origin.append(i)
        end = (origin[-1] + 1) if origin else 0
        origin.append(end)
        return cls(original=original, text="".join(out), origin=tuple(origin))

    def find(self, quote: str) -> tuple[int, int] | None:
        """Span in the original text of the first occurrence of `quote` (whitespace-normalized)."""
        needle = collapse_whitespace(quote)
        if not needle:
            return None
        at = self.text.find(needle)
        if at < 0:
            return None
        end = at + len(needle)
        # The end maps through the last matched character so trailing whitespace is not included.
        return self.origin[at], self.origin[end - 1] + 1


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentences of `text` as (start, end) offsets, leading/trailing whitespace excluded."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        if match.group().startswith(".") and _ABBREVIATION.search(text[max(start, end - 12) : end]):
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


def enclosing_sentences(text: str, start: int, end: int) -> tuple[int, int]:
    """The smallest run of whole sentences of `text` that covers [start, end)."""
    spans = sentence_spans(text)
    covering = [s for s in spans if s[1] > start and s[0] < end]
    if not covering:
        return start, end
    return min(start, covering[0][0]), max(end, covering[-1][1])
