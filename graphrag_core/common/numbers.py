"""Numbers as filings write them: scale words ("in millions", "(000s)", "$2.2 billion"),
loosely typed integers, and the one test of what counts as a usable number (finite, within a
float's range, an inline-XBRL scale filers actually use) that every stage applies where figures
enter. The one table of scale words lives here, so the parser that finds a
table's scale header and the gate that checks a value's digits agree on what a header means."""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

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


# -- finite numbers ----------------------------------------------------------------------------
# Inline XBRL's `scale` is the power of ten a displayed figure is multiplied by. The schema
# allows any integer; filers use a handful: -2 (percentages shown as 12.5), -4 (basis points),
# 0, 3, 6, 9, and 12 for trillions (the shared corpus of real EDGAR filings uses exactly
# -4, -2, 0, 3, 6, 9, 12). The bounds leave room on both sides and stop far inside a float's
# range (about ±308), so a scale outside them is a broken or hostile document, never a filing
# that states trillions: 400 makes +inf, -400 makes 0.0 out of any figure.
SCALE_MIN = -10
SCALE_MAX = 15


def xbrl_scale(raw: object) -> int | None:
    """An inline-XBRL `scale` attribute as the power of ten it states: '6' → 6, ' -2 ' → -2,
    absent → 0; None when it is not an integer within SCALE_MIN..SCALE_MAX ('400', '1e3')."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return 0
    scale = to_int(raw)
    if scale is None or not SCALE_MIN <= scale <= SCALE_MAX:
        return None
    return scale


def finite_float(value: object) -> float | None:
    """A float for a number or numeric text when it is a finite number that a float holds
    faithfully; None for NaN, ±Infinity, a figure that overflows a float (a 400-digit string)
    or that a float rounds to zero although it is not zero, and for anything that is not a
    number (None, '', 'n/a', booleans). Decimal text is read exactly before conversion, so
    '1e-400' is caught instead of becoming 0.0."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, int):
        return finite_float(Decimal(value))
    try:
        exact = (
            value if isinstance(value, Decimal) else Decimal(str(value).strip().replace(",", ""))
        )
    except (InvalidOperation, ValueError):
        return None
    if not exact.is_finite():
        return None
    out = float(exact)
    if not math.isfinite(out) or (out == 0.0 and exact != 0):
        return None
    return out


# -- a figure stated as a bound ---------------------------------------------------------------
# "to exceed $11.00 billion", "at least 5%" state a floor; "up to 1.0%", "no more than $2
# billion" a ceiling. The cue must stand right before the figure (an optional "approximately"
# and currency sign between), so "more than doubled to $5 billion" binds nothing. The negated
# forms are tried first: "no more than" is a ceiling although it contains "more than".
LOWER = "lower"
UPPER = "upper"
_CUE_TAIL = r")\s+(?:approximately\s+|about\s+|roughly\s+)?(?:US\s?)?\$?\s*$"
_BOUND_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (LOWER, re.compile(r"\b(?:no\s+less\s+than|not\s+less\s+than" + _CUE_TAIL, re.I)),
    (
        UPPER,
        re.compile(
            r"\b(?:(?:not|never)\s+(?:to\s+)?exceed(?:ing)?|no\s+more\s+than|not\s+more\s+than|up\s+to"
            r"|at\s+most|a\s+maximum\s+of|less\s+than|below|under" + _CUE_TAIL,
            re.I,
        ),
    ),
    (
        LOWER,
        re.compile(
            r"\b(?:exceed(?:s|ed|ing)?|at\s+least|more\s+than|in\s+excess\s+of|greater\s+than"
            r"|a\s+minimum\s+of|upwards\s+of|over|above" + _CUE_TAIL,
            re.I,
        ),
    ),
)
_FIGURE_RE = re.compile(
    r"(?<![\w.])(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<scale>" + NUMBER_SCALE_WORD_RE + r")?(?![\w])",
    re.I,
)


def _same_figure(stated: Decimal, scale: str | None, value: float) -> bool:
    """The figure as written ("11.00", "billion") is `value` with or without its scale word
    (extractors write 11000000000 for "$11 billion"; a percentage stays 1.0)."""
    candidates = [stated]
    if scale and (exp := scale_exponent(scale)) is not None:
        candidates.append(stated * (Decimal(10) ** exp))
    target = Decimal(repr(abs(value)))
    return any(abs(c - target) <= abs(target) * Decimal("1e-9") for c in candidates)


def stated_bound(text: str | None, value: float | None) -> str | None:
    """Whether `text` states `value` as a floor (LOWER: "exceed $11 billion", "at least") or a
    ceiling (UPPER: "up to 1.0%", "no more than"): the cue right before the first place the
    figure is written; None when it is stated as such (or not found)."""
    if not text or value is None or not math.isfinite(value):
        return None
    for m in _FIGURE_RE.finditer(text):
        try:
            stated = Decimal(m.group("num").replace(",", ""))
        except InvalidOperation:
            continue
        if not _same_figure(stated, m.group("scale"), value):
            continue
        before = text[max(0, m.start() - 60) : m.start()]
        return next((bound for bound, cue in _BOUND_CUES if cue.search(before)), None)
    return None
