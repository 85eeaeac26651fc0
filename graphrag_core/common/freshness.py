"""Whether a company's latest reported period is too old to pass as current.

A snapshot mixes a 1999 10-K with 2025 10-Qs; served side by side, the 1999 company's "latest"
revenue reads like a current one. A company is stale when its latest period ended more than
`MetricSettings.stale_after_days` before the snapshot's `as_of` (its newest filing date).
"""

from __future__ import annotations

import datetime as dt


def age_days(latest_end: dt.date | None, as_of: dt.date | None) -> int | None:
    """Days from the latest period's end to `as_of`; None when either is unknown."""
    if latest_end is None or as_of is None:
        return None
    return (as_of - latest_end).days


def is_stale(latest_end: dt.date | None, as_of: dt.date | None, stale_after_days: int) -> bool:
    """True when the latest period ended more than `stale_after_days` before `as_of`."""
    age = age_days(latest_end, as_of)
    return age is not None and age > stale_after_days
