"""Materialize filings through the real Dagster instance: the code path of `filings-graph
ingest` and `make demo`. Each filing is its own run of the per-filing job, so a bad filing
fails its own partition and the others go on; the whole-corpus job runs once at the end, and
its publish refuses to go ahead while any filing has a failed blocking check.

By default the runs go through the instance's run queue (`pipelines/run_queue.py`): a daemon
lets as many run at once as the concurrency limits allow, each in its own subprocess, so every
core is busy. `serial=True` executes them in this process one after another instead (the
baseline `bench/ingest.py` compares against)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field

import dagster as dg

from assets.partitions import FILINGS_PARTITION_SET
from assets.resources import build_resources
from assets.run_failures import failure_message, run_events
from graphrag_core.common.ids import require_filing_id
from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.intake.discovery import discover
from graphrag_core.settings import Settings
from graphrag_core.tables.records import FilingRef
from pipelines.definitions import (
    CORPUS_JOB,
    PER_FILING_JOB,
    STAGE_TAG,
    build_definitions,
    corpus_asset_keys,
    per_filing_asset_keys,
)
from pipelines.instance import get_instance, ingest_session, runner_tags
from pipelines.run_queue import FinishedRun, QueueServer, RunQueue

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
    # Wall time of the per-filing runs and of the whole-corpus job, apart: the corpus job's
    # embedding already uses every core (intra-op threads), the per-filing runs only in parallel.
    filings_seconds: float = 0.0
    corpus_seconds: float = 0.0

    @property
    def failed(self) -> list[PartitionOutcome]:
        return [o for o in self.outcomes if not o.success]


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
    instance = get_instance(settings.data_root, settings.operations)
    defs = build_definitions(settings)
    result = defs.resolve_job_def(CORPUS_JOB).execute_in_process(
        instance=instance, raise_on_error=False, run_config=QUIET_RUN_CONFIG, tags=runner_tags()
    )
    return result.success, None if result.success else failure_message(result.all_events)


def ingest(
    settings: Settings,
    *,
    only: list[str] | None = None,
    limit: int | None = None,
    force: bool = False,
    progress: Callable[[PartitionOutcome, int, int], None] | None = None,
    serial: bool = False,
    publish: bool = True,
) -> IngestReport:
    """Discover, register partitions, run every pending filing, then the whole-corpus job.
    `serial`: in this process, one filing after another, instead of through the run queue.
    `publish=False`: the filings only; the graph stage and the snapshot wait for the next
    corpus run (the nightly schedule, or an ingest that publishes)."""
    started = time.perf_counter()
    for filing_id in only or []:  # before anything is discovered, written or run
        require_filing_id(filing_id)
    instance = get_instance(settings.data_root, settings.operations)
    with ingest_session(settings.data_root, instance, settings.operations) as abandoned:
        report = _ingest(
            instance,
            settings,
            only=only,
            limit=limit,
            force=force,
            progress=progress,
            serial=serial,
            publish=publish,
        )
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
    serial: bool,
    publish: bool,
) -> IngestReport:
    with ExitStack() as stack:
        server: tuple[RunQueue, QueueServer] | None = None
        if not serial:
            # Served from here when no daemon serves the queue: its fork server starts importing
            # now, while the filings are discovered.
            queue = stack.enter_context(RunQueue(instance))
            server = (queue, stack.enter_context(QueueServer(queue, settings)))
        return _discover_and_run(
            instance,
            settings,
            server,
            only=only,
            limit=limit,
            force=force,
            progress=progress,
            publish=publish,
        )


def _discover_and_run(
    instance: dg.DagsterInstance,
    settings: Settings,
    server: tuple[RunQueue, QueueServer] | None,
    *,
    only: list[str] | None,
    limit: int | None,
    force: bool,
    progress: Callable[[PartitionOutcome, int, int], None] | None,
    publish: bool,
) -> IngestReport:
    """`server`: the run queue and its server to submit to; None: run serially in-process."""
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
    corpus = publish and bool(corpus_asset_keys(defs))
    if server is None:
        _run_serially(instance, defs, todo, report, progress, corpus=corpus)
    else:
        todo = largest_first(todo, discovered)
        _run_queued(instance, settings, *server, todo, report, progress, corpus=corpus)
    return report


def largest_first(keys: list[str], refs: Iterable[FilingRef]) -> list[str]:
    """`keys` with the largest filings (by their documents' bytes, when the source knows them)
    first, the rest in their order. Parallel runs finish together this way: the queue lets runs
    go in submission order, and a 10-K left for last would run alone on one core."""
    size = {ref.filing_id: sum(doc.bytes or 0 for doc in ref.documents) for ref in refs}
    return sorted(keys, key=lambda key: -size.get(key, 0))


def _run_serially(
    instance: dg.DagsterInstance,
    defs: dg.Definitions,
    todo: list[str],
    report: IngestReport,
    progress: Callable[[PartitionOutcome, int, int], None] | None,
    *,
    corpus: bool,
) -> None:
    job = defs.resolve_job_def(PER_FILING_JOB)
    stage_started = time.perf_counter()
    for n, key in enumerate(todo, 1):
        t0 = time.perf_counter()
        result = job.execute_in_process(
            partition_key=key,
            instance=instance,
            raise_on_error=False,
            run_config=QUIET_RUN_CONFIG,
            tags=runner_tags(),
        )
        outcome = PartitionOutcome(
            filing_id=key,
            success=result.success,
            seconds=time.perf_counter() - t0,
            error=None if result.success else failure_message(result.all_events),
            warnings=_run_warnings(instance, result.run_id),
        )
        report.outcomes.append(outcome)
        if progress:
            progress(outcome, n, len(todo))
    report.filings_seconds = time.perf_counter() - stage_started
    if corpus:
        stage_started = time.perf_counter()
        result = defs.resolve_job_def(CORPUS_JOB).execute_in_process(
            instance=instance,
            raise_on_error=False,
            run_config=QUIET_RUN_CONFIG,
            tags=runner_tags(),
        )
        report.corpus_seconds = time.perf_counter() - stage_started
        report.corpus_success = result.success
        report.corpus_error = None if result.success else failure_message(result.all_events)


def _run_queued(
    instance: dg.DagsterInstance,
    settings: Settings,
    queue: RunQueue,
    server: QueueServer,
    todo: list[str],
    report: IngestReport,
    progress: Callable[[PartitionOutcome, int, int], None] | None,
    *,
    corpus: bool,
) -> None:
    """Every filing a run of the per-filing job in the run queue, then the corpus job."""
    ops = settings.operations

    def finished(run: FinishedRun) -> None:
        outcome = PartitionOutcome(
            filing_id=run.partition_key or run.run_id,
            success=run.success,
            seconds=run.seconds,
            error=None if run.success else failure_message(run_events(instance, run.run_id)),
            warnings=_run_warnings(instance, run.run_id),
        )
        report.outcomes.append(outcome)
        if progress:
            progress(outcome, len(report.outcomes), len(todo))

    stage_started = time.perf_counter()
    run_ids = [
        queue.submit(PER_FILING_JOB, partition_key=key, run_config=QUIET_RUN_CONFIG) for key in todo
    ]
    queue.wait(
        run_ids,
        timeout_s=ops.run_timeout_s,
        poll_s=ops.poll_interval_s,
        on_finished=finished,
        while_waiting=server.check,
    )
    report.filings_seconds = time.perf_counter() - stage_started
    if corpus:
        stage_started = time.perf_counter()
        corpus_id = queue.submit(
            CORPUS_JOB, tags={STAGE_TAG: "corpus"}, run_config=QUIET_RUN_CONFIG
        )
        [run] = queue.wait(
            [corpus_id],
            timeout_s=ops.run_timeout_s,
            poll_s=ops.poll_interval_s,
            while_waiting=server.check,
        ).values()
        report.corpus_seconds = time.perf_counter() - stage_started
        report.corpus_success = run.success
        report.corpus_error = (
            None if run.success else failure_message(run_events(instance, corpus_id))
        )
