"""The filings the corpus job takes in, and those it leaves out with the reason and the fix
(`graphrag_core.operations.exclusions`); this module adds what only the Dagster instance knows:
which filings' latest per-filing run failed."""

from __future__ import annotations

from dataclasses import dataclass

import dagster as dg

from assets.partitions import FILINGS_PARTITION_SET, filings_partitions
from assets.run_failures import failure_message, run_events
from graphrag_core.graph.graph_store import INPUT_TABLES
from graphrag_core.graph.snapshot_inputs import SNAPSHOT_INPUTS
from graphrag_core.operations.exclusions import corpus_exclusions, corpus_filings
from graphrag_core.store.manifest import ExcludedFiling
from graphrag_core.tables.table_store import TableStore

# The per-filing tables the corpus job cannot do without: the graph's inputs. They come last in
# the per-filing job, so a filing whose chunks or XBRL stage failed has none of them either.
REQUIRED_TABLES = INPUT_TABLES
# Every per-filing stage whose failed run can leave an older partition behind.
PER_FILING_TABLES = tuple(dict.fromkeys((*SNAPSHOT_INPUTS, "extractions")))


@dataclass(frozen=True)
class CorpusStanding:
    included: list[str]
    excluded: list[ExcludedFiling]

    @property
    def nothing_left(self) -> bool:
        """Every filing was left out: there is nothing to publish in place of the last good
        snapshot, and the working stores are left as they were."""
        return bool(self.excluded) and not self.included

    def log_lines(self) -> list[str]:
        return [f"left out of the corpus: {e.describe()}" for e in self.excluded]


def failed_filings(instance: dg.DagsterInstance) -> dict[str, str]:
    """filing → what its latest failed run said, for every filing whose latest attempt at one
    of the per-filing tables the corpus job reads failed."""
    keys = instance.get_dynamic_partitions(FILINGS_PARTITION_SET)
    if not keys:
        return {}
    failed: dict[str, str] = {}
    for table in PER_FILING_TABLES:
        statuses = (
            instance.get_status_by_partition(dg.AssetKey(table), keys, filings_partitions) or {}
        )
        for key, status in statuses.items():
            if status == dg.AssetPartitionStatus.FAILED and key not in failed:
                failed[key] = f"{table}: {_latest_failure(instance, key)}"
    return failed


def _latest_failure(instance: dg.DagsterInstance, filing_id: str) -> str:
    runs = instance.get_runs(
        filters=dg.RunsFilter(
            tags={"dagster/partition": filing_id}, statuses=[dg.DagsterRunStatus.FAILURE]
        ),
        limit=1,
    )
    if not runs:
        return "run failed (see the Dagster UI for its event log)"
    return failure_message(run_events(instance, runs[0].run_id))


def corpus_standing(instance: dg.DagsterInstance | None, store: TableStore) -> CorpusStanding:
    """Which filings the corpus job takes in and which it leaves out (`instance` None: from the
    store alone)."""
    failed = failed_filings(instance) if instance is not None else {}
    excluded = corpus_exclusions(store, REQUIRED_TABLES, failed)
    return CorpusStanding(corpus_filings(store, excluded), excluded)
