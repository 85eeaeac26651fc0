"""Check verdicts recorded per filing and stage, so that the corpus-wide publish can see what
the per-filing runs found: a failed blocking check on any filing stops the publish.

Kept in the table store (one partition per filing and asset) rather than read back from
Dagster's event log, so the gate works the same from the CLI, the UI, and any instance storage.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable

import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.tables.schemas import CHECK_RESULTS, frame
from graphrag_core.tables.table_store import TableStore

TABLE = "asset_checks"
# Filing ids are accession numbers or `sha-` + hex, so this separator never occurs in one.
_SEPARATOR = "@"


def partition_key(filing_id: str, asset: str) -> str:
    return f"{filing_id}{_SEPARATOR}{asset}"


def record_checks(
    store: TableStore, filing_id: str, asset: str, verdicts: Iterable[CheckVerdict]
) -> None:
    """Replace what is recorded for this filing's `asset` with `verdicts`."""
    now = dt.datetime.now(dt.UTC)
    rows = [
        {
            "filing_id": filing_id,
            "asset": v.asset,
            "check": v.check,
            "passed": v.passed,
            "blocking": v.blocking,
            "figures": json.dumps(v.figures, sort_keys=True, default=str),
            "evaluated_at": now,
        }
        for v in verdicts
    ]
    store.write(TABLE, frame(rows, CHECK_RESULTS), partition_key(filing_id, asset))


def recorded_checks(store: TableStore, filing_ids: Iterable[str] | None = None) -> pl.DataFrame:
    """Every recorded verdict (of these filings, when given)."""
    keys = store.partitions(TABLE)
    if filing_ids is not None:
        wanted = set(filing_ids)
        keys = [k for k in keys if k.split(_SEPARATOR, 1)[0] in wanted]
    return store.scan(TABLE, keys).collect()


def blocking_failures(store: TableStore, filing_ids: Iterable[str] | None = None) -> list[str]:
    """One line per failed blocking check: 'filing 0001…: validated_triples/rejection_rate failed
    (rejection_rate=0.8, …)'. Empty when nothing blocks a publish."""
    failed = (
        recorded_checks(store, filing_ids)
        .filter(pl.col("blocking") & ~pl.col("passed"))
        .sort("filing_id", "asset", "check")
    )
    lines = []
    for row in failed.iter_rows(named=True):
        verdict = CheckVerdict(
            asset=row["asset"],
            check=row["check"],
            passed=False,
            blocking=True,
            figures=json.loads(row["figures"] or "{}"),
        )
        lines.append(f"filing {row['filing_id']}: {verdict.summary()}")
    return lines


def check_partitions(store: TableStore, filing_id: str) -> list[str]:
    """The partitions holding a filing's verdicts."""
    return [k for k in store.partitions(TABLE) if k.split(_SEPARATOR, 1)[0] == filing_id]
