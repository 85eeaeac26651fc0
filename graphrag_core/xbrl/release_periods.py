"""Periods as earnings releases write them: column headings ("Thirteen Weeks Ended", "November 2,
2024"), and phrases in sentences ("for the 39-week fiscal period ended November 2, 2024", "the
third quarter of fiscal 2024", "in 2024").

A release states a duration by its length and end; the start is computed (weeks exactly;
months as calendar months when the end is a month end, else as 13-week blocks, which is what
"three months ended July 27, 2025" means for a 52/53-week company). Supersession later aligns a
start that is a week off with the filing's exact one.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from graphrag_core.common.dates import parse_date_loose

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "twenty-six": 26, "twenty six": 26, "twenty-seven": 27, "thirty-nine": 39, "thirty nine": 39,
    "forty": 40, "fifty-two": 52, "fifty two": 52, "fifty-three": 53, "fifty three": 53,
}  # fmt: skip
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_COUNT = (
    r"(?P<count>\d{1,2}|"
    + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True))
    + r")"
)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
DATE_RE = re.compile(rf"\b{_MONTH}\s+\d{{1,2}}\s*,?\s*\d{{4}}\b", re.I)
MONTH_DAY_RE = re.compile(rf"\b{_MONTH}\s+\d{{1,2}}\b", re.I)
YEAR_RE = re.compile(r"(?<![\d,.$])((?:19|20)\d\d)(?![\d,.%])")
# "Thirteen Weeks Ended", "Three Months Ended", "39-week fiscal period ended", "Six-Month Period
# Ended", "13 weeks ended"
LENGTH_RE = re.compile(
    rf"\b{_COUNT}[\s-]+(?P<unit>weeks?|months?)(?:\s+(?:fiscal\s+)?periods?)?\s+ended\b", re.I
)
YEAR_ENDED_RE = re.compile(r"\b(?:fiscal\s+)?(?:year|twelve\s+months)\s+ended\b", re.I)
QUARTER_ENDED_RE = re.compile(r"\b(?:fiscal\s+)?quarter\s+ended\b", re.I)
ORDINAL_QUARTER_RE = re.compile(
    r"\b(?P<ord>first|second|third|fourth)[\s-]+(?:fiscal\s+)?quarter(?:\s+of)?(?:\s+(?:fiscal\s+(?:year\s+)?)?(?P<year>(?:19|20)\d\d))?",
    re.I,
)
FISCAL_YEAR_RE = re.compile(r"\bfiscal\s+(?:year\s+)?(?P<year>(?:19|20)\d\d)\b", re.I)


@dataclass(frozen=True, slots=True)
class Span:
    """A release's period: a duration (with start) or an instant (start is None)."""

    start: dt.date | None
    end: dt.date

    @property
    def is_instant(self) -> bool:
        return self.start is None

    @property
    def days(self) -> int:
        return 0 if self.start is None else (self.end - self.start).days + 1


def _month_end(day: dt.date) -> bool:
    return (day + dt.timedelta(days=1)).day == 1


def months_back(end: dt.date, months: int) -> dt.date:
    """First day of a span of `months` calendar months ending on month-end `end`."""
    year, month = end.year, end.month - months + 1
    while month <= 0:
        month += 12
        year -= 1
    return dt.date(year, month, 1)


def duration_start(end: dt.date, count: int, unit: str) -> dt.date:
    """The first day of a duration of `count` weeks or months ending on `end` (inclusive)."""
    if unit.lower().startswith("week"):
        return end - dt.timedelta(days=7 * count - 1)
    if _month_end(end):
        return months_back(end, count)
    # A 52/53-week company's "three months": 13-week blocks.
    return end - dt.timedelta(days=7 * 13 * count // 3 - 1)


def length_of(text: str) -> tuple[int, str] | None:
    """'Thirteen Weeks Ended' → (13, 'weeks'); 'Year Ended' → (12, 'months'); None if no length."""
    if m := LENGTH_RE.search(text):
        raw = m.group("count").lower()
        count = int(raw) if raw.isdigit() else _NUMBER_WORDS[raw]
        unit = m.group("unit").lower()
        # A release reports up to a year: "0 weeks" or "40 months" is not a period heading.
        return (count, unit) if 1 <= count <= (53 if unit.startswith("week") else 12) else None
    if YEAR_ENDED_RE.search(text):
        return 12, "months"
    if QUARTER_ENDED_RE.search(text):
        return 3, "months"
    return None


def find_date(text: str) -> dt.date | None:
    m = DATE_RE.search(text)
    return parse_date_loose(m.group()) if m else None


def column_spans(header_rows: list[list[str]]) -> dict[int, Span]:
    """Column index → the period its heading states, from the header rows of a Markdown table.

    A heading spanning several columns ("Thirteen Weeks Ended" over two dates) is rendered as
    one cell followed by empty ones: each empty cell inherits the text to its left. A column's
    heading is then its cells from top to bottom; a date may be split across rows ("June 30,"
    above "2025")."""
    if not header_rows:
        return {}
    width = max(len(r) for r in header_rows)
    filled: list[list[str]] = []
    for row in header_rows:
        cells = [*row, *[""] * (width - len(row))]
        out, carry = [], ""
        for k, cell in enumerate(cells):
            if k == 0:
                out.append(cell)  # the label column never spans
                continue
            text = cell.strip()
            if text:
                carry = text
            out.append(text or carry)
        filled.append(out)
    spans: dict[int, Span] = {}
    for col in range(1, width):
        heading = " ".join(r[col] for r in filled if r[col]).strip()
        end = find_date(heading)
        if end is None:
            # "June 30," in one row and "2025" in the next
            md, year = MONTH_DAY_RE.search(heading), YEAR_RE.findall(heading)
            if md and year:
                end = parse_date_loose(f"{md.group()}, {year[-1]}")
        if end is None:
            continue
        length = length_of(heading)
        spans[col] = Span(None, end) if length is None else Span(duration_start(end, *length), end)
    return spans


def quarter_number(text: str) -> tuple[int, int | None] | None:
    """'third quarter of fiscal 2024' → (3, 2024); 'fourth quarter' → (4, None). The first
    mention that names its year wins over an earlier one that does not (a headline's "THIRD
    QUARTER")."""
    matches = list(ORDINAL_QUARTER_RE.finditer(text))
    m = next((x for x in matches if x.group("year")), matches[0] if matches else None)
    if not m:
        return None
    year = m.group("year")
    return _ORDINALS[m.group("ord").lower()], int(year) if year else None
