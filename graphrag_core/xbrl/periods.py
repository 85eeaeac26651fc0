"""Fiscal labels (`FY2025`, `Q2-FY2025`, `H1-FY2025`, `9M-FY2025`) from a company's own calendar.

A company's fiscal year ends on its fiscal-year-end date (`dei:CurrentFiscalYearEndDate`,
`--MM-DD`). Retailers and chip makers use 52/53-week years that end on a weekday *near* that
date, so the actual end drifts by up to six days from year to year (NVIDIA: 2023-01-29,
2024-01-28, 2025-01-26); every comparison with the nominal date therefore allows
`DRIFT_DAYS`. Quarters are positions inside the fiscal year (13-week blocks or calendar
months alike), never calendar quarters.

Which year a fiscal year is *named* after is the company's choice: NVIDIA's year ending
2025-01-26 is FY2025, Home Depot's ending 2025-02-02 is "fiscal 2024". The document's own
`dei:DocumentFiscalYearFocus` against its period end gives that offset.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from graphrag_core.common.dates import fiscal_year_end_month_day
from graphrag_core.common.numbers import to_int

DRIFT_DAYS = 7  # a 52/53-week year ends within six days of its nominal date
_QUARTER_DAYS = 365.25 / 4

# Duration lengths (inclusive days) and what they are when they start with the fiscal year.
# 13-week quarters are 91 days, 14-week ones 98; 52/53-week years 364/371.
_LENGTHS: tuple[tuple[range, int], ...] = (
    (range(84, 99), 3),
    (range(175, 192), 6),
    (range(266, 285), 9),
    (range(357, 374), 12),
)
_YTD_PERIODS = {3: "Q1", 6: "H1", 9: "9M", 12: "FY"}


class FiscalCalendarError(ValueError):
    """The fiscal calendar cannot be determined; the message names the missing field."""


@dataclass(frozen=True, slots=True)
class FiscalPeriod:
    label: str  # FY2025, Q2-FY2025, H1-FY2025, 9M-FY2025; an instant elsewhere: its ISO date
    fiscal_year: int | None
    fiscal_period: str | None  # FY, Q1..Q4, H1, 9M; None for an unaligned period


@dataclass(frozen=True, slots=True)
class FiscalCalendar:
    """A company's fiscal year end (month, day) and how its years are named."""

    month: int
    day: int
    year_offset: int = 0  # label year = calendar year of the fiscal year's end + offset
    # A transition report (10-KT, 10-QT: the fiscal year end changed): its odd-length periods
    # are the transition period, not stubs.
    transition: bool = False

    @classmethod
    def from_filing(
        cls,
        fiscal_year_end: str | None,
        fiscal_year_focus: int | str | None = None,
        period_end: dt.date | None = None,
        form: str | None = None,
        fiscal_period_focus: str | None = None,
    ) -> FiscalCalendar:
        """The calendar one filing states about itself.

        The fiscal year end comes from `dei:CurrentFiscalYearEndDate`; without it, a 10-K's
        period end is its fiscal year end, and a 10-Q's is `fiscal_period_focus` quarters
        before it. The naming offset comes from `dei:DocumentFiscalYearFocus`."""
        fye = fiscal_year_end_month_day(fiscal_year_end)
        if fye is None and period_end is not None:
            fye = _infer_fiscal_year_end(period_end, form, fiscal_period_focus)
        if fye is None:
            raise FiscalCalendarError(
                f"fiscal year end unknown (dei:CurrentFiscalYearEndDate={fiscal_year_end!r}, "
                f"period end {period_end}, form {form!r}); fix: the filing must carry "
                "dei:CurrentFiscalYearEndDate, or be a 10-K/10-Q with DocumentPeriodEndDate"
            )
        calendar = cls(*fye, transition=_is_transition_form(form))
        focus = to_int(fiscal_year_focus)
        if focus is not None and period_end is not None:
            offset = focus - calendar.fiscal_year_ending(period_end)
            # Companies name a year after the calendar year it ends in, or (years ending in
            # the first days of January/February) the one before; anything else is a typo
            # in the filing and is ignored.
            if offset in (-1, 0):
                calendar = cls(calendar.month, calendar.day, offset, calendar.transition)
        return calendar

    # -- the year --------------------------------------------------------------------------
    def nominal_end(self, year: int) -> dt.date:
        day = self.day
        while True:
            try:
                return dt.date(year, self.month, day)
            except ValueError:  # --02-29 in a common year, --06-31 typos
                day -= 1

    def fiscal_year_ending(self, day: dt.date) -> int:
        """Calendar year in which the fiscal year containing `day` (as a period end) ends."""
        drift = dt.timedelta(days=DRIFT_DAYS)
        year = day.year - 1
        while day > self.nominal_end(year) + drift:
            year += 1
        return year

    def year_start(self, end_year: int) -> dt.date:
        """Nominal first day of the fiscal year ending in `end_year`."""
        return self.nominal_end(end_year - 1) + dt.timedelta(days=1)

    def label_year(self, end_year: int) -> int:
        return end_year + self.year_offset

    # -- periods ---------------------------------------------------------------------------
    def duration(self, start: dt.date, end: dt.date) -> FiscalPeriod:
        """A duration's label: aligned with the fiscal year's start it is year-to-date (Q1, H1,
        9M, FY); a three-month span elsewhere is the quarter it ends; a shorter span that starts
        or ends on a fiscal boundary is a stub (after an acquisition or a listing:
        `Stub-Q3-FY2023`); an odd span of a transition report is the transition period; else
        the dates."""
        end_year = self.fiscal_year_ending(end)
        year = self.label_year(end_year)
        days = (end - start).days + 1
        months = next((m for span, m in _LENGTHS if days in span), None)
        fy_start = self.year_start(end_year)
        if months is not None and abs((start - fy_start).days) <= DRIFT_DAYS:
            period = _YTD_PERIODS[months]
            return FiscalPeriod(_label(period, year), year, period)
        if months == 3:
            quarter = _quarter_ending(end, fy_start)
            if quarter is not None:
                period = f"Q{quarter}"
                return FiscalPeriod(_label(period, year), year, period)
        dates = f"{start.isoformat()}..{end.isoformat()}"
        if days >= _LENGTHS[-1][0].start:
            return FiscalPeriod(dates, year, None)  # a year of another calendar (an old one)
        if self.transition:
            return FiscalPeriod(f"Transition {dates}", year, "transition")
        return self._stub(start, end, year, end_year, fy_start) or FiscalPeriod(dates, year, None)

    def _stub(
        self, start: dt.date, end: dt.date, year: int, end_year: int, fy_start: dt.date
    ) -> FiscalPeriod | None:
        """A span shorter than a year that starts or ends on a fiscal boundary: labelled by the
        fiscal period it ends with (`Stub-FY2025`, `Stub-Q3-FY2023`), else by its dates."""
        dates = f"{start.isoformat()}..{end.isoformat()}"
        if abs((end - self.nominal_end(end_year)).days) <= DRIFT_DAYS:
            return FiscalPeriod(f"Stub-FY{year} ({dates})", year, "stub")
        quarter = _quarter_ending(end, fy_start)
        if quarter is not None:
            return FiscalPeriod(f"Stub-Q{quarter}-FY{year} ({dates})", year, "stub")
        starts_quarter = _quarter_ending(start - dt.timedelta(days=1), fy_start) is not None or (
            abs((start - fy_start).days) <= DRIFT_DAYS
        )
        return FiscalPeriod(f"Stub {dates}", year, "stub") if starts_quarter else None

    def instant(self, day: dt.date) -> FiscalPeriod:
        """An instant at a fiscal year or quarter end carries that period's label (a balance
        sheet at FY end is `FY2025`); any other date (a cover-page share count) is its date."""
        end_year = self.fiscal_year_ending(day)
        year = self.label_year(end_year)
        if abs((day - self.nominal_end(end_year)).days) <= DRIFT_DAYS:
            return FiscalPeriod(_label("FY", year), year, "FY")
        quarter = _quarter_ending(day, self.year_start(end_year))
        if quarter is not None and quarter < 4:
            period = f"Q{quarter}"
            return FiscalPeriod(_label(period, year), year, period)
        return FiscalPeriod(day.isoformat(), year, None)


def _is_transition_form(form: str | None) -> bool:
    return bool(form) and re.fullmatch(r"10-[KQ]T(/A)?", (form or "").strip().upper()) is not None


def _label(period: str, year: int) -> str:
    return f"FY{year}" if period == "FY" else f"{period}-FY{year}"


def _quarter_ending(day: dt.date, fy_start: dt.date) -> int | None:
    """Which quarter of the fiscal year ends on `day` (13-week or calendar-month quarters)."""
    elapsed = (day - fy_start).days + 1
    quarter = round(elapsed / _QUARTER_DAYS)
    if 1 <= quarter <= 4 and abs(elapsed - quarter * _QUARTER_DAYS) <= DRIFT_DAYS:
        return quarter
    return None


def _infer_fiscal_year_end(
    period_end: dt.date, form: str | None, fiscal_period_focus: str | None
) -> tuple[int, int] | None:
    form = (form or "").upper()
    if form.startswith("10-K") or (fiscal_period_focus or "").upper() == "FY":
        return period_end.month, period_end.day
    m = re.match(r"^Q([1-3])$", (fiscal_period_focus or "").upper())
    if form.startswith("10-Q") and m:
        # The year ends (4 - q) quarters after this quarter's end; month-end approximation.
        end = period_end + dt.timedelta(days=round((4 - int(m.group(1))) * _QUARTER_DAYS))
        return end.month, _month_end(end).day if period_end.day >= 28 else end.day
    return None


def _month_end(day: dt.date) -> dt.date:
    first_next = (day.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
    return first_next - dt.timedelta(days=1)
