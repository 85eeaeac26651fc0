"""Materialize filings through the real Dagster instance: the code path of `filings-graph
ingest` and `make demo`. Each filing is its own run of the per-filing job, so a bad filing
fails its own partition and the others go on; the whole-corpus job runs once at the end, and
its publish refuses to go ahead while any filing has a failed blocking check."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import dagster as dg

from assets.partitions import FILINGS_PARTITION_SET
from assets.resources import build_resources
from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.intake.discovery import discover
from graphrag_core.settings import Settings
from graphrag_core.tables.records import FilingRef
from pipelines.definitions import (
    CORPUS_JOB,
    PER_FILING_JOB,
    build_definitions,
    corpus_asset_keys,
    per_filing_asset_keys,
)
from pipelines.instance import get_instance, ingest_session, runner_tags

# Runs log through Dagster's console logger, which prints a failed step twice, each time with a
# stack trace. The CLI prints each failure once (`PartitionOutcome.error`) and each warning
# (`PartitionOutcome.warnings`, read back from the event log), so the console logger is kept
# quiet; the event log in the instance (and the UI) keeps everything regardless of this level.
QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@dataclass
class PartitionOutcome:
    filing_id: str
    success: bool
    seconds: float
    error: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class IngestReport:
    discovered: int
    new_or_changed: int
    outcomes: list[PartitionOutcome] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # discovery's: duplicates, doubtful names
    abandoned_runs: list[str] = field(default_factory=list)  # dead runs marked failed first
    corpus_success: bool | None = None
    corpus_error: str | None = None
    seconds: float = 0.0

    @property
    def failed(self) -> list[PartitionOutcome]:
        return [o for o in self.outcomes if not o.success]


def _failure_message(result: dg.ExecuteInProcessResult) -> str:
    """The user-code error behind a failed run, and any failed asset checks with their figures."""
    messages: list[str] = []
    for event in result.all_events:
        failure = event.step_failure_data if event.is_step_failure else None
        err = failure.error if failure else None
        # The user-code error is the cause of Dagster's wrapper exception.
        while err is not None and err.cause is not None:
            err = err.cause
        if err is not None:
            messages.append(err.message.strip())
    for evaluation in result.get_asset_check_evaluations():
        if not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR:
            figures = ", ".join(
                f"{k}={getattr(v, 'value', v)}" for k, v in (evaluation.metadata or {}).items()
            )
            messages.append(
                f"check {evaluation.asset_key.to_user_string()}/{evaluation.check_name} failed"
                + (f" ({figures})" if figures else "")
            )
    return "; ".join(dict.fromkeys(messages)) or "run failed (see the Dagster UI for its event log)"


def _run_warnings(instance: dg.DagsterInstance, run_id: str) -> list[str]:
    """What the run's steps logged as warnings, in order."""
    return [
        entry.user_message
        for entry in instance.all_logs(run_id)
        if not entry.is_dagster_event and entry.level == logging.WARNING and entry.user_message
    ]


def add_filing_partitions(instance: dg.DagsterInstance, keys: Iterable[str]) -> list[str]:
    """Add the keys not yet in the partition set, each once; returns those added. A key that
    another process (the sensor, a second ingest) adds in between is not an error."""
    existing = set(instance.get_dynamic_partitions(FILINGS_PARTITION_SET))
    missing = [k for k in dict.fromkeys(keys) if k not in existing]
    if not missing:
        return []
    try:
        instance.add_dynamic_partitions(FILINGS_PARTITION_SET, missing)
    except Exception:  # noqa: BLE001 - the storage's IntegrityError; retried key by key below
        added = []
        for key in missing:
            if not instance.has_dynamic_partition(FILINGS_PARTITION_SET, key):
                instance.add_dynamic_partitions(FILINGS_PARTITION_SET, [key])
                added.append(key)
        return added
    return missing


def _pending(
    instance: dg.DagsterInstance, defs: dg.Definitions, keys: Iterable[str], changed: set[str]
) -> list[str]:
    """Partitions not yet materialized for every per-filing asset, or whose documents changed."""
    done: set[str] | None = None
    for key in per_filing_asset_keys(defs):
        materialized = instance.get_materialized_partitions(key)
        done = materialized if done is None else done & materialized
    done = done or set()
    return [k for k in keys if k in changed or k not in done]


def run_corpus_job(settings: Settings) -> tuple[bool, str | None]:
    """Run the whole-corpus job once (graph stage and publish): what `ingest` ends with, and
    what a merge or unmerge needs to rebuild the graph from the merge log."""
    instance = get_instance(settings.data_root)
    defs = build_definitions(settings)
    result = defs.resolve_job_def(CORPUS_JOB).execute_in_process(
        instance=instance, raise_on_error=False, run_config=QUIET_RUN_CONFIG
    )
    return result.success, None if result.success else _failure_message(result)


def ingest(
    settings: Settings,
    *,
    only: list[str] | None = None,
    limit: int | None = None,
    force: bool = False,
    progress: Callable[[PartitionOutcome, int, int], None] | None = None,
) -> IngestReport:
    started = time.perf_counter()
    instance = get_instance(settings.data_root)
    with ingest_session(settings.data_root, instance) as abandoned:
        report = _ingest(instance, settings, only=only, limit=limit, force=force, progress=progress)
    report.abandoned_runs = abandoned
    report.seconds = time.perf_counter() - started
    return report


def _ingest(
    instance: dg.DagsterInstance,
    settings: Settings,
    *,
    only: list[str] | None,
    limit: int | None,
    force: bool,
    progress: Callable[[PartitionOutcome, int, int], None] | None,
) -> IngestReport:
    defs = build_definitions(settings)
    catalog = FilingCatalog(settings.data_root)
    found = discover(build_resources(settings)["source"].source())
    discovered: list[FilingRef] = found.refs
    changed = {ref.filing_id for ref in discovered if catalog.put(ref)}
    keys = [ref.filing_id for ref in discovered]
    if only:
        unknown = sorted(set(only) - set(keys) - set(catalog.ids()))
        if unknown:
            raise KeyError(f"not discovered and not in the catalog: {', '.join(unknown)}")
        keys = list(dict.fromkeys(only))
    if limit is not None:
        keys = keys[:limit]
    add_filing_partitions(instance, keys)
    todo = keys if force else _pending(instance, defs, keys, changed)
    report = IngestReport(
        discovered=len(discovered), new_or_changed=len(changed), warnings=found.warnings
    )
    job = defs.resolve_job_def(PER_FILING_JOB)
    for n, key in enumerate(todo, 1):
        t0 = time.perf_counter()
        result = job.execute_in_process(
            partition_key=key, instance=instance, raise_on_error=False,
            run_config=QUIET_RUN_CONFIG, tags=runner_tags(),
        )
        outcome = PartitionOutcome(
            filing_id=key,
            success=result.success,
            seconds=time.perf_counter() - t0,
            error=None if result.success else _failure_message(result),
            warnings=_run_warnings(instance, result.run_id),
        )
        report.outcomes.append(outcome)
        if progress:
            progress(outcome, n, len(todo))
    if corpus_asset_keys(defs):
        result = defs.resolve_job_def(CORPUS_JOB).execute_in_process(
            instance=instance, raise_on_error=False, run_config=QUIET_RUN_CONFIG,
            tags=runner_tags(),
        )
        report.corpus_success = result.success
        report.corpus_error = None if result.success else _failure_message(result)
    return report


