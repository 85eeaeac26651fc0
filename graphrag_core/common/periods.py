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


# -- a period asked about: a fiscal label or a calendar range (issue 25, item 3) --------------
# ASCII digits only ([0-9], not \d: other scripts' digits are not a period a filing states).
_CAL_YEAR_RE = re.compile(r"^([0-9]{4})$")
_CAL_QUARTER_RE = re.compile(r"^([0-9]{4})-?Q([1-4])$|^Q([1-4])[ -]+([0-9]{4})$")
_CAL_RANGE_RE = re.compile(
    r"^([0-9]{4}-[0-9]{2}-[0-9]{2}) *(?:\.\.|/| to ) *([0-9]{4}-[0-9]{2}-[0-9]{2})$", re.I
)


@dataclass(frozen=True)
class PeriodFilter:
    """What a `period` argument names: a fiscal label ('FY2024', 'Q2-FY2026'), matched against
    each company's own fiscal calendar, or a calendar range (inclusive dates), matched against
    the end of the period a filing or edge reports."""

    text: str
    fiscal_label: str | None = None
    calendar_start: dt.date | None = None
    calendar_end: dt.date | None = None

    def matches(self, fiscal_label: str | None, period_end: dt.date | None) -> bool:
        """Does a filing (or edge) of this fiscal label and period end fall in the period?"""
        if self.fiscal_label is not None:
            return fiscal_label == self.fiscal_label
        if period_end is None or self.calendar_start is None or self.calendar_end is None:
            return False
        return self.calendar_start <= period_end <= self.calendar_end


def parse_period_filter(text: str) -> PeriodFilter:
    """A period as a tool's caller writes it → PeriodFilter; ValueError (saying what is
    accepted) for anything else.

    'FY2024', 'q2-fy2026' → fiscal label; '2024' → calendar 2024; '2024-Q3', 'Q3 2024' → that
    calendar quarter; '2024-01-01..2024-06-30' (or '/' or ' to ') → that calendar range."""
    raw = " ".join((text or "").split())
    t = raw.upper()
    if is_period_label(t) and t.isascii():
        return PeriodFilter(raw, fiscal_label=t)
    if m := _CAL_YEAR_RE.match(t):
        year = int(m.group(1))
        return PeriodFilter(
            raw, calendar_start=dt.date(year, 1, 1), calendar_end=dt.date(year, 12, 31)
        )
    if m := _CAL_QUARTER_RE.match(t):
        year = int(m.group(1) or m.group(4))
        q = int(m.group(2) or m.group(3))
        start = dt.date(year, 3 * q - 2, 1)
        end = dt.date(year + (q == 4), (3 * q) % 12 + 1, 1) - dt.timedelta(days=1)
        return PeriodFilter(raw, calendar_start=start, calendar_end=end)
    if m := _CAL_RANGE_RE.match(raw):
        try:
            start, end = dt.date.fromisoformat(m.group(1)), dt.date.fromisoformat(m.group(2))
        except ValueError:
            start = end = None  # type: ignore[assignment]
        if start is not None and end is not None and start <= end:
            return PeriodFilter(raw, calendar_start=start, calendar_end=end)
    raise ValueError(
        f"period {raw[:40]!r}: pass a fiscal label (FY2024, Q2-FY2026, H1-FY2025, 9M-FY2025), a "
        "calendar year (2024), a calendar quarter (2024-Q3) or a calendar range "
        "(2024-01-01..2024-06-30)"
    )


def filing_label(fiscal_period: str | None, fiscal_year: int | None) -> str | None:
    """A filing's fiscal label from its metadata ('FY', 2025 → 'FY2025'; 'Q2', 2026 →
    'Q2-FY2026'); None when it has no fiscal year or an unknown part."""
    if not fiscal_year:
        return None
    try:
        return period_label(fiscal_period, int(fiscal_year))
    except ValueError:
        return None
