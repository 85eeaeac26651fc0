"""Core check verdicts → Dagster asset check results, recorded for the publish gate."""

from __future__ import annotations

from typing import Any

import dagster as dg

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.tables.check_results import record_checks
from graphrag_core.tables.table_store import TableStore


def check_spec(name: str, asset: str, *, blocking: bool, description: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(name, asset=asset, blocking=blocking, description=description)


def check_result(verdict: CheckVerdict) -> dg.AssetCheckResult:
    """A failed blocking verdict is an ERROR (the run stops what depends on it); any other
    failure a warning."""
    severity = dg.AssetCheckSeverity.ERROR if verdict.blocking else dg.AssetCheckSeverity.WARN
    return dg.AssetCheckResult(
        check_name=verdict.check,
        asset_key=verdict.asset,
        passed=verdict.passed,
        severity=severity,
        metadata={k: metadata_value(v) for k, v in verdict.figures.items()},
    )


def recorded_results(
    store: TableStore, filing_id: str, asset: str, verdicts: list[CheckVerdict]
) -> list[dg.AssetCheckResult]:
    """Record this filing's verdicts for `asset` (the publish gate reads them) and return them
    as check results to yield."""
    record_checks(store, filing_id, asset, verdicts)
    return [check_result(v) for v in verdicts]


def metadata_value(value: Any) -> Any:
    if isinstance(value, dict | list):
        return dg.MetadataValue.json(value)
    return value
