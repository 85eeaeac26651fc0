"""The numbers a text states, as the value gate reads them: digits with their scale (the
chunk's scale header, or a scale word beside them), where years, dates and percentages are
never scaled; and how a candidate's value is compared with them."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from graphrag_core.common.numbers import NUMBER_SCALE_WORD_RE, header_exponent, scale_exponent

NUMBER = re.compile(
    r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s*(?P<word>{NUMBER_SCALE_WORD_RE})\b)?(?P<pct>\)?\s?(?:%|percent\b|per\s+cent\b))?",
    re.I,
)
MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DATE_BEFORE = re.compile(
    rf"(?:{MONTHS}\s+(?:\d{{1,2}},?\s+)?|\d{{1,2}}/(?:\d{{1,2}}/)?|\d{{4}}-(?:\d{{2}}-)?)$", re.I
)
_DATE_AFTER = re.compile(r"(?:,?\s+(?:19|20)\d{2}\b|/\d{1,4}|-\d{2}\b)", re.I)
_YEAR = re.compile(r"^(?:19|20)\d{2}$")


def _word_exponent(word: str) -> int:
    exponent = scale_exponent(word)
    assert exponent is not None  # NUMBER only captures scale words
    return exponent


def _is_year_date_or_percent(text: str, m: re.Match[str]) -> bool:
    """A year ("2025"), part of a date ("December 31, 2024", "12/31/24") or a percentage: a
    figure the table's scale header does not apply to."""
    if m.group("pct"):
        return True
    if _YEAR.match(m.group("num")) and text[max(0, m.start() - 1) : m.start()] != "$":
        return True
    before = text[max(0, m.start() - 16) : m.start()]
    return _DATE_BEFORE.search(before) is not None or _DATE_AFTER.match(text, m.end()) is not None


def numbers_stated_in(text: str, scale_header: str | None) -> tuple[Decimal, ...]:
    """Every value a reader may take a number of the chunk to mean."""
    header = header_exponent(scale_header)
    out: set[Decimal] = set()
    for m in NUMBER.finditer(text):
        n = Decimal(m.group("num").replace(",", ""))
        out.add(n)
        if m.group("word"):
            out.add(n.scaleb(_word_exponent(m.group("word"))))
        if m.group("pct"):
            out.add(n.scaleb(-2))
        if header is not None and not m.group("word") and not _is_year_date_or_percent(text, m):
            out.add(n.scaleb(header))
    return tuple(out)


def as_decimal(value: float | str) -> Decimal | None:
    """A value as the backend gave it: a number, or text such as '$2.2 billion' or '12%'."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return Decimal(repr(float(value)))
        except InvalidOperation:
            return None
    m = NUMBER.search(value)
    if m is None or re.search(r"\d", value[: m.start()]):
        return None
    n = Decimal(m.group("num").replace(",", ""))
    return n.scaleb(_word_exponent(m.group("word"))) if m.group("word") else n


def same_number(a: Decimal, b: Decimal) -> bool:
    # Exact up to float noise: 2.2e9 written as 2200000000.0000002 is still 2.2 billion.
    return abs(a - b) <= Decimal("1e-9") * max(Decimal(1), abs(b))


def is_blank(value: float | str | None) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())
