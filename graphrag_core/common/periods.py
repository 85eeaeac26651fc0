"""Fiscal period labels as the graph writes them: `FY2025`, `Q2-FY2026`, `H1-FY2026`, `9M-FY2026`.

One grammar for every layer that states or validates a period (the extractor, the graph, the
MCP tools), so a label the extractor writes is never one a later layer refuses.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

# The part of a fiscal year a label names, before "-FY": a quarter, a half, nine months to date.
PART_OF_YEAR = ("Q1", "Q2", "Q3", "Q4", "H1", "H2", "9M")
PERIOD_LABEL_PATTERN = r"^(?:FY\d{4}|Q[1-4]-FY\d{4}|H[12]-FY\d{4}|9M-FY\d{4})$"
_LABEL_RE = re.compile(r"^(?:(?P<part>Q[1-4]|H[12]|9M)-)?FY(?P<year>\d{4})$")


def period_label(part: str | None, year: int) -> str:
    """'FY' or None, 2025 → 'FY2025'; 'H1', 2026 → 'H1-FY2026'."""
    if not part or part.upper() == "FY":
        return f"FY{year}"
    part = part.upper()
    if part not in PART_OF_YEAR:
        raise ValueError(f"not a part of a fiscal year: {part!r}")
    return f"{part}-FY{year}"


def is_period_label(label: str | None) -> bool:
    return bool(label) and _LABEL_RE.match(label or "") is not None


def next_period(label: str) -> str | None:
    """The same part of the following fiscal year: 'H1-FY2025' → 'H1-FY2026' (the period a
    statement is about when it only names the one it compares with); None for a non-label."""
    m = _LABEL_RE.match(label)
    if m is None:
        return None
    return period_label(m.group("part"), int(m.group("year")) + 1)


# -- a period or date a question is asked for (issue 25: time on the graph) ---------------------

# 'Q2 FY2025', 'q2-fy2025', 'FY 2024': the fiscal label as people type it.
_TYPED_LABEL_RE = re.compile(r"^(?:(Q[1-4]|H[12]|9M)[\s-]*)?FY\s?(\d{4})$", re.I)
_CAL_YEAR_RE = re.compile(r"^(?:CY\s?)?(\d{4})$", re.I)
_CAL_QUARTER_RE = re.compile(
    r"^(?:CY\s?)?(\d{4})[\s-]*Q([1-4])$|^Q([1-4])[\s-]*(?:CY\s?)?(\d{4})$", re.I
)
# An explicit calendar range: two ISO dates joined by '..', '/' or ' to '.
_RANGE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})\s*(?:\.\.|/|\s+to\s+)\s*(\d{4}-\d{2}-\d{2})$", re.I)
_ISO_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Years a filing can be about or filed in: EDGAR starts in 1993; a few years ahead for guidance.
FIRST_YEAR, LAST_YEAR = 1990, 2100
PERIOD_FILTER_HELP = (
    "pass a fiscal label (FY2024, Q2-FY2025 or 'Q2 FY2025'), a calendar year (2024), a calendar "
    "quarter (2024-Q3) or a calendar range (2024-07-01..2024-12-31)"
)


@dataclass(frozen=True)
class PeriodFilter:
    """What a question is asked for: a fiscal `label` (each company's own fiscal calendar) or a
    calendar range [`start`, `end`] (inclusive), and/or `as_of`, the date by which a fact must
    have been filed. `period` is the period as normalized ('Q2-FY2025', '2024-Q3', '2024')."""

    period: str | None = None
    label: str | None = None
    start: dt.date | None = None
    end: dt.date | None = None
    as_of: dt.date | None = None

    @property
    def kind(self) -> str | None:
        """'fiscal', 'calendar' or None (no period)."""
        if self.label:
            return "fiscal"
        return "calendar" if self.start else None

    @property
    def active(self) -> bool:
        return self.kind is not None or self.as_of is not None


def _year(value: int, text: str) -> int:
    if not FIRST_YEAR <= value <= LAST_YEAR:
        raise ValueError(f"period {text!r}: year {value} is outside {FIRST_YEAR}-{LAST_YEAR}")
    return value


def _iso(text: str, what: str) -> dt.date:
    if not _ISO_DATE_RE.match(text):
        raise ValueError(f"{what} {text[:40]!r}: pass an ISO date (YYYY-MM-DD)")
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a calendar date") from None
    if not FIRST_YEAR <= day.year <= LAST_YEAR:
        raise ValueError(f"{what} {text!r}: year outside {FIRST_YEAR}-{LAST_YEAR}")
    return day


def _quarter(year: int, q: int) -> tuple[dt.date, dt.date]:
    start = dt.date(year, 3 * q - 2, 1)
    end = dt.date(year + (q == 4), (3 * q) % 12 + 1, 1) - dt.timedelta(days=1)
    return start, end


def parse_period_filter(period: str | None, as_of: str | None = None) -> PeriodFilter:
    """A period and an as-of date as a tool receives them → PeriodFilter; ValueError (saying
    what to pass instead) for anything else. None or blank: no filter of that kind.

    'FY2024', 'Q2 FY2025', 'h1-fy2026' → a fiscal label; '2024' → calendar 2024; '2024-Q3' or
    'Q3 2024' → that calendar quarter; '2024-07-01..2024-12-31' → that range (from ≤ to).
    `as_of`: an ISO date."""
    text = (period or "").strip()
    known_by = _iso(as_of.strip(), "as_of") if as_of and as_of.strip() else None
    if not text:
        return PeriodFilter(as_of=known_by)
    if m := _TYPED_LABEL_RE.match(text):
        label = period_label(m.group(1), _year(int(m.group(2)), text))
        return PeriodFilter(label, label=label, as_of=known_by)
    if m := _CAL_YEAR_RE.match(text):
        year = _year(int(m.group(1)), text)
        return PeriodFilter(
            str(year), start=dt.date(year, 1, 1), end=dt.date(year, 12, 31), as_of=known_by
        )
    if m := _CAL_QUARTER_RE.match(text):
        year = _year(int(m.group(1) or m.group(4)), text)
        q = int(m.group(2) or m.group(3))
        start, end = _quarter(year, q)
        return PeriodFilter(f"{year}-Q{q}", start=start, end=end, as_of=known_by)
    if m := _RANGE_RE.match(text):
        start, end = _iso(m.group(1), "period start"), _iso(m.group(2), "period end")
        if start > end:
            raise ValueError(f"period {text!r}: the start {start} is after the end {end}")
        return PeriodFilter(f"{start}..{end}", start=start, end=end, as_of=known_by)
    raise ValueError(f"period {text[:40]!r} is not a period: {PERIOD_FILTER_HELP}")
