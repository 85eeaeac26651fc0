"""Numbers as filings write them: scale words ("in millions", "(000s)", "$2.2 billion") and
loosely typed integers. The one table of scale words lives here, so the parser that finds a
table's scale header and the gate that checks a value's digits agree on what a header means."""

from __future__ import annotations

import re

# Scale words and abbreviations → powers of ten. "mm" and "mil." are the abbreviations filings
# use in headers ("$ in mm"); "000s" is "in thousands".
SCALE_WORDS: dict[str, int] = {
    "thousand": 3,
    "thousands": 3,
    "000": 3,
    "000s": 3,
    "000's": 3,
    "k": 3,
    "million": 6,
    "millions": 6,
    "mm": 6,
    "mil": 6,
    "mln": 6,
    "billion": 9,
    "billions": 9,
    "bn": 9,
    "trillion": 12,
    "trillions": 12,
}

# Scale words spelled out after a number in prose ("$2.2 billion"); abbreviations such as "k"
# or "mm" after a number are too ambiguous in running text to scale it.
NUMBER_SCALE_WORD_RE = r"(?:thousand|million|billion|trillion)s?"

# A scale statement in a header or caption: "(In millions, except per share data)",
# "Dollars in thousands", "($ in mm)", "(000s)".
SCALE_HEADER_RE = re.compile(
    r"(?:\b(?:in|amounts\s+in|dollars\s+in|\$\s*in|expressed\s+in)\s+"
    r"(?P<word>thousands|millions|billions|trillions|mm|mil\.?|mln|bn)\b"
    r"|\(\s*\$?\s*(?:in\s+)?(?P<abbr>000s|000'?s|000|mm|mil\.?|mln|bn)\s*\))",
    re.I,
)


def scale_exponent(word: str | None) -> int | None:
    """'millions' → 6, 'mil.' → 6, "000's" → 3; None for anything that is not a scale word."""
    if not word:
        return None
    return SCALE_WORDS.get(word.strip().lower().rstrip("."))


# Any scale word inside a header phrase that `SCALE_HEADER_RE` already found ("in millions,
# except per share data", "000s", "in mm").
_HEADER_WORD_RE = re.compile(
    r"(?<![\w'])(thousands?|millions?|billions?|trillions?|mm|mil\.?|mln|bn|000'?s?)(?![\w'])", re.I
)


def header_exponent(scale_header: str | None) -> int | None:
    """The power of ten a table's scale header applies to its figures: 'in millions, except per
    share data' → 6, '(000s)' → 3; None when the header states no scale."""
    if not scale_header:
        return None
    m = _HEADER_WORD_RE.search(scale_header)
    return scale_exponent(m.group(1)) if m else None


def to_int(value: object) -> int | None:
    """An integer from an int or a string such as ' 2025 ' or '1,024'; None otherwise."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = str(value).strip().replace(",", "")
    try:
        return int(text)
    except ValueError:
        return None
