"""Dates as filings and SEC's files write them: ISO strings, prose dates, fiscal year ends."""

from __future__ import annotations

import datetime as dt
import re

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for m in names
}  # fmt: skip
_MDY_RE = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})\s*,?\s*(\d{4})\b")
_DMY_RE = re.compile(r"\b(\d{1,2})\s+([A-Za-z]{3,9})\.?\s*,?\s*(\d{4})\b")
_ISO_RE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_US_RE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_COMPACT_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_FYE_RE = re.compile(r"^--(\d{2})-(\d{2})$")


def iso_date(value: object) -> dt.date | None:
    """A date, or '2025-01-26' / '2025-01-26T00:00:00' (as SEC's JSON and the corpus manifest
    write dates) → date; None for empty or malformed values."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not value:
        return None
    try:
        return dt.date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        return None


def parse_date_loose(text: str | None) -> dt.date | None:
    """'January 26, 2025', 'Jan. 26, 2025', '26 January 2025', '2025-01-26', '01/26/2025',
    '20250126' → date; None if nothing parses."""
    if not text:
        return None
    t = text.strip()
    candidates = []
    if m := _ISO_RE.search(t):
        candidates.append((int(m[1]), int(m[2]), int(m[3])))
    if m := _COMPACT_RE.match(t):
        candidates.append((int(m[1]), int(m[2]), int(m[3])))
    if m := _MDY_RE.search(t):
        month = _MONTHS.get(m[1].lower())
        if month:
            candidates.append((int(m[3]), month, int(m[2])))
    if m := _DMY_RE.search(t):
        month = _MONTHS.get(m[2].lower())
        if month:
            candidates.append((int(m[3]), month, int(m[1])))
    if m := _US_RE.search(t):
        candidates.append((int(m[3]), int(m[1]), int(m[2])))
    for y, mo, d in candidates:
        try:
            return dt.date(y, mo, d)
        except ValueError:
            continue
    return None


def parse_fiscal_year_end(text: str | None) -> str | None:
    """A fiscal year end as filings write it ('--01-26' in dei:CurrentFiscalYearEndDate, '0126'
    in SEC's submissions JSON, 'January 26' on a cover page) → '--MM-DD'; None otherwise."""
    if not text:
        return None
    t = text.strip()
    if _FYE_RE.match(t):
        return t if fiscal_year_end_month_day(t) else None
    m = re.match(r"^(\d{2})-?(\d{2})$", t)
    if m:
        candidate = f"--{m[1]}-{m[2]}"
        return candidate if fiscal_year_end_month_day(candidate) else None
    m = re.search(r"([A-Za-z]{3,9})\.?\s+(\d{1,2})", t)
    if m and _MONTHS.get(m[1].lower()):
        return f"--{_MONTHS[m[1].lower()]:02d}-{int(m[2]):02d}"
    return None


def fiscal_year_end_month_day(value: str | None) -> tuple[int, int] | None:
    """'--01-26' → (1, 26); None when absent or not a valid month and day."""
    if not value:
        return None
    m = _FYE_RE.match(value.strip())
    if not m:
        return None
    month, day = int(m.group(1)), int(m.group(2))
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return month, day
