"""The period and the form a question asks about, and whether a filing is of them.

A company's 10-K, its 10-Qs and its earnings releases say much the same in many places; what tells
them apart for a question is the period it names ("at the end of June 2025", "in fiscal 2023",
"the third fiscal quarter of 2024") and, now and then, the form ("in its 10-Q"). Search reads
these here and adds a small bonus to the chunks of the filings they describe.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from graphrag_core.retrieval.claims import Period, period_mentions

_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        1,
    )
    for m in names
}
# "June 2025", "end of July 2025" (a month without its day: a day is read by period_mentions);
# "mid-2025" is the middle of the calendar year.
_MONTH_YEAR_RE = re.compile(
    r"\b(?P<month>"
    + "|".join(sorted(_MONTHS, key=len, reverse=True))
    + r")\.?\s+(?P<year>(?:19|20)\d\d)\b",
    re.I,
)
_MID_YEAR_RE = re.compile(r"\bmid[\s-]+(?:year\s+)?(?P<year>(?:19|20)\d\d)\b", re.I)
_FORM_RES = (
    ("10-Q", re.compile(r"\b10-?Q\b|\bquarterly\s+report\b", re.I)),
    ("10-K", re.compile(r"\b10-?K\b|\bannual\s+report\b", re.I)),
    ("8-K", re.compile(r"\b8-?K\b|\b(?:earnings|press)\s+release\b", re.I)),
)
# How far a filing's period end may lie from a named day (a fiscal period ends on the Saturday or
# Sunday nearest the month's end; "as of June 30" in a 10-Q whose quarter ended June 28).
_SLACK = dt.timedelta(days=7)


@dataclass(frozen=True)
class AskedPeriod:
    """What a question names: periods (fiscal years, quarters, days, bare years), months
    (year, month) and forms."""

    periods: tuple[Period, ...] = ()
    months: tuple[tuple[int, int], ...] = ()
    forms: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.periods or self.months or self.forms)

    def matches(
        self,
        form: str | None,
        fiscal_year: int | None,
        fiscal_period: str | None,
        period_end: dt.date | None,
    ) -> bool:
        """Is a filing of this form and period one the question names? Every kind the question
        names must fit (a named form and a named period both); within a kind, any one."""
        if not self:
            return False
        if self.forms and (form or "").upper() not in self.forms:
            return False
        if not (self.periods or self.months):
            return True
        return any(
            _period_fits(p, fiscal_year, fiscal_period, period_end) for p in self.periods
        ) or any(_month_fits(ym, period_end) for ym in self.months)


def asked_period(query: str) -> AskedPeriod:
    """The periods, months and forms `query` names."""
    text = query[:1000]  # a question, not a document: bounded, so hostile input reads fast
    months = [
        (int(m.group("year")), _MONTHS[m.group("month").lower()])
        for m in _MONTH_YEAR_RE.finditer(text)
    ] + [(int(m.group("year")), 6) for m in _MID_YEAR_RE.finditer(text)]
    periods = [
        m.value
        for m in period_mentions(text)
        if isinstance(m.value, Period)
        # a month's year is read with its month, not again as the whole year
        and not (m.value.kind == "year" and _inside_month(text, m.start))
    ]
    forms = [form for form, pattern in _FORM_RES if pattern.search(text)]
    return AskedPeriod(tuple(periods), tuple(dict.fromkeys(months)), tuple(forms))


def _inside_month(text: str, start: int) -> bool:
    return any(
        m.start("year") == start
        for pattern in (_MONTH_YEAR_RE, _MID_YEAR_RE)
        for m in pattern.finditer(text)
    )


def _period_fits(
    p: Period, fiscal_year: int | None, fiscal_period: str | None, end: dt.date | None
) -> bool:
    if p.kind == "quarter":
        return fiscal_period == f"Q{p.quarter}" and (
            p.year is None or p.year == fiscal_year or (end is not None and end.year == p.year)
        )
    if p.kind == "fiscal_year":
        return fiscal_year == p.year
    if p.kind == "date":
        return end is not None and p.date is not None and abs(end - p.date) <= _SLACK
    # a bare year: the fiscal year of that number, or a period ending in that calendar year
    return p.year is not None and (
        fiscal_year == p.year or (end is not None and end.year == p.year)
    )


def _month_fits(year_month: tuple[int, int], end: dt.date | None) -> bool:
    if end is None:
        return False
    year, month = year_month
    first = dt.date(year, month, 1)
    last = dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)
    return first - _SLACK <= end <= last + _SLACK
