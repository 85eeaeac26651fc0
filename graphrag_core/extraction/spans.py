"""Text positions that survive whitespace normalization, and the sentences around a quote.

Gate 2 compares a quote with its chunk after collapsing whitespace only, so a quote that a model
copied across a line break still matches; the span it cites must nevertheless point into the
chunk as stored. `NormalizedText` keeps, for every character of the normalized text, the offset
of the character it came from, so a match found in normalized text maps back exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_core.text.sentences import sentence_spans

_WS_RUN = re.compile(r"\s+")


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


def enclosing_sentences(text: str, start: int, end: int) -> tuple[int, int]:
    """The smallest run of whole sentences of `text` that covers [start, end)."""
    spans = sentence_spans(text, split_lines=True)
    covering = [s for s in spans if s[1] > start and s[0] < end]
    if not covering:
        return start, end
    return min(start, covering[0][0]), max(end, covering[-1][1])
