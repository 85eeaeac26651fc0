"""Whether the published snapshot is recent enough to answer from."""

from __future__ import annotations

import datetime as dt

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.store.publish import SnapshotStore


def snapshot_freshness(
    snapshots: SnapshotStore, max_age_h: float, now: dt.datetime | None = None
) -> CheckVerdict:
    """Warning: a snapshot is current, and was built less than `max_age_h` hours ago (the
    nightly publish has not run, or has been held back by a failed blocking check)."""
    now = now or dt.datetime.now(dt.UTC)
    version = snapshots.current_version()
    if version is None:
        return CheckVerdict(
            asset="graph_snapshot",
            check="snapshot_fresh",
            passed=False,
            blocking=False,
            figures={"version": None, "reason": "no snapshot published yet"},
        )
    built = snapshots.manifest(version).built_at
    age_h = (now - built).total_seconds() / 3600
    return CheckVerdict(
        asset="graph_snapshot",
        check="snapshot_fresh",
        passed=age_h <= max_age_h,
        blocking=False,
        figures={"version": version, "age_hours": round(age_h, 2), "max_age_hours": max_age_h},
    )
