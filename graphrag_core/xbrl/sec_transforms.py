"""SEC's inline-XBRL transformation registry (`ixt-sec:`): the transforms numeric and date facts
use that arelle's core lacks. Registered on arelle's model manager by `arelle_loader`."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from graphrag_core.common.numbers import SCALE_WORDS

SEC_TRANSFORMS_NS = "http://www.sec.gov/inlineXBRL/transformation/2015-08-31"


_SMALL_NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())
}
# Number words SEC's transform reads: the scale words up to a billion.
_MAGNITUDES = {w: 10 ** SCALE_WORDS[w] for w in ("thousand", "million", "billion")}


def sec_numwordsen(text: str) -> str:
    """`ixt-sec:numwordsen`: English number words → digits ("no"/"none" → 0, "twenty-five" → 25).

    Raises ValueError on anything else, which arelle turns into an invalid fact (we count it as
    `non_numeric_value`)."""
    words = [w for w in re.split(r"[\s\-]+", text.strip().lower()) if w and w != "and"]
    if words in (["no"], ["none"]):
        return "0"
    if not words:
        raise ValueError(f"not an English number: {text!r}")
    total = current = 0
    for word in words:
        if word in _SMALL_NUMBERS:
            current += _SMALL_NUMBERS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _MAGNITUDES:
            total += max(current, 1) * _MAGNITUDES[word]
            current = 0
        else:
            raise ValueError(f"not an English number: {text!r}")
    return str(total + current)


def _number(text: str) -> Decimal:
    cleaned = text.strip().replace(",", "")
    try:
        return Decimal(cleaned)
    except InvalidOperation:
        return Decimal(sec_numwordsen(cleaned))


def _duration(
    years: Decimal = Decimal(0), months: Decimal = Decimal(0), days: Decimal = Decimal(0)
) -> str:
    """An xs:duration with fractional years/months carried down (1.5 years → P1Y6M), zero parts
    left out, so `two years` and `2` (duryear) and a plain `P2Y` compare equal."""
    total_months = years * 12 + months
    whole_months = int(total_months)
    days += (total_months - whole_months) * Decimal("30.4375")
    y, m = divmod(whole_months, 12)
    d = days.normalize()
    parts = [f"{y}Y" if y else "", f"{m}M" if m else "", f"{d:f}D" if d else ""]
    text = "".join(parts)
    return f"P{text}" if text else "P0D"


_NUMBER_WORD = "|".join(
    sorted([*_SMALL_NUMBERS, *_TENS, "hundred", *_MAGNITUDES], key=len, reverse=True)
)
_DURATION_WORD_RE = re.compile(
    rf"(\d[\d.,]*|(?:{_NUMBER_WORD})(?:[\s-]+(?:{_NUMBER_WORD}))*)\s*(?:\(\d+\)\s*)?(year|month|week|day)s?\b"
)


def sec_durwordsen(text: str) -> str:
    """`ixt-sec:durwordsen`: "two years, six months" / "seven years" / "90 days" → xs:duration."""
    lowered = text.lower().replace(" and ", " ")
    amounts = {"year": Decimal(0), "month": Decimal(0), "day": Decimal(0)}
    found = False
    for m in _DURATION_WORD_RE.finditer(lowered):
        words = m.group(1).strip(" ,")
        value = _number(words)
        unit = m.group(2)
        if unit == "week":
            amounts["day"] += value * 7
        else:
            amounts[unit] += value
        found = True
    if not found:
        raise ValueError(f"not an English duration: {text!r}")
    return _duration(amounts["year"], amounts["month"], amounts["day"])


def _ballot(text: str, checked: str, unchecked: str) -> str:
    value = text.strip()
    if value in {"☒", "x", "X"}:
        return checked
    if value in {"☐", "\u25a1"}:
        return unchecked
    raise ValueError(f"not a ballot box: {text!r}")


SEC_TRANSFORMS: dict[str, Callable[[str], str]] = {
    "numwordsen": sec_numwordsen,
    "boolballotbox": lambda text: _ballot(text, "true", "false"),
    "yesnoballotbox": lambda text: _ballot(text, "Yes", "No"),
    "duryear": lambda text: _duration(years=_number(text)),
    "durmonth": lambda text: _duration(months=_number(text)),
    "durweek": lambda text: _duration(days=_number(text) * 7),
    "durday": lambda text: _duration(days=_number(text)),
    "durwordsen": sec_durwordsen,
}
