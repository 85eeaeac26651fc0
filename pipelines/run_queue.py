"""Runs submitted to the instance's run queue, as the UI and sensors submit them, and a daemon
to let them go.

`RunQueue` opens the project's code location, creates a run per request (a partition of the
per-filing job, or the whole-corpus job) and submits it: the QueuedRunCoordinator keeps it
queued until the concurrency limits allow it (max concurrent runs, the `graphrag/stage: corpus`
tag limit, the `edgar` and `extractor` pools), then the run launcher starts it in a subprocess
(pipelines/run_launcher.py). `daemon()` makes sure a `dagster-daemon` serves the queue: the one
`make dev` started when it is alive, else one started here for as long as it is needed.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

import dagster as dg
from dagster._cli.job import _create_run
from dagster._core.remote_origin import InProcessCodeLocationOrigin
from dagster._core.storage.dagster_run import FINISHED_STATUSES, RunsFilter
from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
from dagster._core.workspace.context import WorkspaceProcessContext
from dagster._core.workspace.load_target import InProcessWorkspaceLoadTarget

from graphrag_core.common.errors import GraphragError
from graphrag_core.settings import Settings, settings_environment
from pipelines.instance import (
    LOCATION_NAME,
    POSTGRES_URL_ENV,
    PROJECT_ROOT,
    WORKSPACE_YAML,
    sqlalchemy_url,
)

DEFINITIONS_MODULE = "pipelines.definitions"
# A daemon whose heartbeat is older than this is taken for dead.
HEARTBEAT_TOLERANCE_S = 75.0


class RunQueueError(GraphragError):
    pass


@dataclass(frozen=True)
class FinishedRun:
    run_id: str
    partition_key: str | None
    success: bool
    status: str
    seconds: float


def run_environment(settings: Settings) -> dict[str, str]:
    """This process's environment with `settings` applied, for the daemon and its runs."""
    env = dict(os.environ)
    for key, value in settings_environment(settings).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    if settings.operations.postgres_url is not None:
        env[POSTGRES_URL_ENV] = sqlalchemy_url(settings.operations.postgres_url.get_secret_value())
    return env


def daemon_alive(instance: dg.DagsterInstance) -> bool:
    """A daemon serving the run queue has sent a heartbeat recently."""
    beats = instance.get_daemon_heartbeats()
    beat = beats.get("QUEUED_RUN_COORDINATOR")
    return beat is not None and time.time() - beat.timestamp < HEARTBEAT_TOLERANCE_S


@contextmanager
def daemon(instance: dg.DagsterInstance, settings: Settings) -> Iterator[subprocess.Popen | None]:
    """A `dagster-daemon` for this instance while the block runs: the live one if there is
    one (e.g. `make dev`'s), else one started here and stopped afterwards."""
    if daemon_alive(instance):
        yield None
        return
    log_path = settings.data_root / "dagster_home" / "daemon.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            # This interpreter, not a `dagster-daemon` script found on PATH: the daemon, its code
            # server and every run worker must import the same environment as this process.
            [sys.executable, "-m", "dagster._daemon", "run", "-w", str(WORKSPACE_YAML)],
            cwd=PROJECT_ROOT,
            env=run_environment(settings),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield proc
    finally:
        stop_process(proc)
        # Its last heartbeat stays fresh for HEARTBEAT_TOLERANCE_S: an ingest started right after
        # would take the stopped daemon for a live one and leave its runs queued until then.
        instance.wipe_daemon_heartbeats()


def stop_process(proc: subprocess.Popen, timeout_s: float = 30.0) -> None:
    """SIGINT (Dagster's graceful stop), then SIGKILL to the process group if it lingers."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=timeout_s)


class RunQueue:
    """Create and submit runs of the project's jobs to the instance's run queue."""

    def __init__(self, instance: dg.DagsterInstance):
        self.instance = instance
        origin = InProcessCodeLocationOrigin(
            LoadableTargetOrigin(
                executable_path=sys.executable,
                module_name=DEFINITIONS_MODULE,
                working_directory=str(PROJECT_ROOT),
            ),
            location_name=LOCATION_NAME,
        )
        self._process_context = WorkspaceProcessContext(
            instance, InProcessWorkspaceLoadTarget(origin)
        )

    def __enter__(self) -> RunQueue:
        self._workspace = self._process_context.create_request_context()
        self._location = self._workspace.get_code_location(LOCATION_NAME)
        [self._repo] = self._location.get_repositories().values()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._process_context.__exit__(*exc_info)

    def submit(
        self,
        job_name: str,
        *,
        partition_key: str | None = None,
        tags: Mapping[str, str] | None = None,
        run_config: Mapping[str, object] | None = None,
    ) -> str:
        all_tags = dict(tags or {})
        if partition_key is not None:
            all_tags["dagster/partition"] = partition_key
            all_tags["dagster/partition_set"] = f"{job_name}_partition_set"
        run = _create_run(
            instance=self.instance,
            code_location=self._location,
            remote_repo=self._repo,
            remote_job=self._repo.get_full_job(job_name),
            run_config=dict(run_config or {}),
            tags=all_tags,
            op_selection=None,
            run_id=None,
        )
        self.instance.submit_run(run.run_id, self._workspace)
        return run.run_id

    def wait(
        self,
        run_ids: list[str],
        *,
        timeout_s: float,
        poll_s: float,
        on_finished: Callable[[FinishedRun], None] | None = None,
        while_waiting: Callable[[], None] | None = None,
    ) -> dict[str, FinishedRun]:
        """Block until every run finished; `on_finished` is called as each one does."""
        pending = set(run_ids)
        done: dict[str, FinishedRun] = {}
        deadline = time.monotonic() + timeout_s
        while pending:
            for record in self.instance.get_run_records(RunsFilter(run_ids=list(pending))):
                run = record.dagster_run
                if run.status not in FINISHED_STATUSES:
                    continue
                start = record.start_time or record.create_timestamp.timestamp()
                end = record.end_time or time.time()
                finished = FinishedRun(
                    run_id=run.run_id,
                    partition_key=run.tags.get("dagster/partition"),
                    success=run.status == dg.DagsterRunStatus.SUCCESS,
                    status=run.status.value,
                    seconds=max(0.0, end - start),
                )
                done[run.run_id] = finished
                pending.discard(run.run_id)
                if on_finished:
                    on_finished(finished)
            if not pending:
                break
            if time.monotonic() > deadline:
                raise RunQueueError(
                    f"{len(pending)} run(s) not finished after {timeout_s:.0f}s "
                    f"(GRAPHRAG_DAGSTER_RUN_TIMEOUT_S): {', '.join(sorted(pending)[:5])}; they "
                    "go on in the instance (see `make dev`)"
                )
            if while_waiting:
                while_waiting()
            time.sleep(poll_s)
        return done


def queued_for(instance: dg.DagsterInstance, run_ids: list[str]) -> float:
    """Seconds the oldest of these runs has been waiting in the queue (0 if none is queued)."""
    records = instance.get_run_records(
        RunsFilter(run_ids=run_ids, statuses=[dg.DagsterRunStatus.QUEUED])
    )
    if not records:
        return 0.0
    oldest = min(r.create_timestamp for r in records)
    return (dt.datetime.now(dt.UTC) - oldest).total_seconds()
