"""Fiscal period labels as the graph writes them: `FY2025`, `Q2-FY2026`, `H1-FY2026`, `9M-FY2026`.

One grammar for every layer that states or validates a period (the extractor, the graph, the
MCP tools), so a label the extractor writes is never one a later layer refuses.
"""

from __future__ import annotations

import re

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
