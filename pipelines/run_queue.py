"""Runs submitted to the instance's run queue, as the UI and sensors submit them, and the
server that lets them go.

`RunQueue` opens the project's code location, creates a run per request (a partition of the
per-filing job, or the whole-corpus job) and submits it: the QueuedRunCoordinator keeps it
queued until the concurrency limits allow it (max concurrent runs, the `graphrag/stage: corpus`
tag limit, the `edgar` and `extractor` pools), then the run launcher starts it in a subprocess
(pipelines/run_launcher.py). A `dagster-daemon` serves the queue when one is alive (`make
dev`'s); otherwise `QueueServer` does, in this process, for as long as it is needed.
"""

from __future__ import annotations

import fcntl
import multiprocessing.connection
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import dagster as dg

from graphrag_core.common.errors import GraphragError
from graphrag_core.settings import Settings, settings_environment
from pipelines.dagster_private import (
    InProcessCodeLocationOrigin,
    InProcessWorkspaceLoadTarget,
    LoadableTargetOrigin,
    QueuedRunCoordinatorDaemon,
    WorkerStatus,
    WorkspaceProcessContext,
    create_run,
)
from pipelines.instance import (
    LOCATION_NAME,
    POSTGRES_URL_ENV,
    PROJECT_ROOT,
    sqlalchemy_url,
)
from pipelines.run_launcher import WORKER_PID_TAG, ForkserverRunLauncher

DEFINITIONS_MODULE = "pipelines.definitions"
# A daemon whose heartbeat is older than this is taken for dead.
HEARTBEAT_TOLERANCE_S = 75.0
# Held by the process whose QueueServer serves the queue (several ingests may share an instance).
QUEUE_LOCK = "queue.lock"
# How often the QueueServer looks for started runs whose worker died.
HEALTH_CHECK_S = 2.0


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


class QueueServer:
    """Serves the instance's run queue from this process while the block runs and no
    `dagster-daemon` is alive: Dagster's own QueuedRunCoordinatorDaemon iteration (the same
    limits: max concurrent runs, tag limits, pools) on a thread, every `dequeue_interval_s`.

    A daemon started for an ingest cost about 5 s (its imports and a code server's) before the
    first run, and lets queued runs go once a second at best: on two cores, a filing takes about
    as long. Here the code location is the RunQueue's, loaded in this process already, and the
    fork server is started at once, so it imports while filings are discovered and submitted.

    When a daemon is alive (`make dev`'s) it serves the queue and this server stands back, tick
    by tick: one that appears mid-ingest takes over, one that goes away is replaced. Of several
    ingests on one instance, the one holding `dagster_home/queue.lock` serves."""

    def __init__(self, queue: RunQueue, settings: Settings):
        self._queue = queue
        self._instance = queue.instance
        self._settings = settings
        self._interval_s = settings.operations.dequeue_interval_s
        self._lock_path = settings.data_root / "dagster_home" / QUEUE_LOCK
        self._lock_fd: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="run-queue-server", daemon=True)
        # Written to when a run is submitted here: the loop wakes at once instead of at its
        # next interval (as it does when one of its workers exits).
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        queue.on_submit.append(self.wake)
        self._error: BaseException | None = None
        self._coordinator: QueuedRunCoordinatorDaemon | None = None
        self.serving = False  # whether the last tick let runs go from here
        self._last_health_check = 0.0
        self._tick_lock = threading.RLock()

    def __enter__(self) -> QueueServer:
        launcher = self._instance.run_launcher
        if isinstance(launcher, ForkserverRunLauncher):
            launcher.environment = run_environment(self._settings)
        if self._may_serve():
            # The fork server imports for about 2 s of CPU: start it before the runs are
            # submitted, not at the first launch.
            if isinstance(launcher, ForkserverRunLauncher):
                launcher.start_server()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self.wake()
        self._thread.join()
        self._queue.on_submit.remove(self.wake)
        os.close(self._wake_r)
        os.close(self._wake_w)
        launcher = self._instance.run_launcher
        if isinstance(launcher, ForkserverRunLauncher):
            launcher.environment = None
        if self._coordinator is not None:
            self._coordinator.__exit__(None, None, None)
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def check(self) -> None:
        """Raise what stopped the server thread, in the caller's thread."""
        if self._error is not None:
            raise RunQueueError(f"serving the run queue failed: {self._error!r}") from self._error

    def _may_serve(self) -> bool:
        if daemon_alive(self._instance):
            return False
        if self._lock_fd is None:
            self._lock_path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return False
            self._lock_fd = fd
        return True

    def tick(self) -> None:
        """Let the queued runs go that the limits allow, unless someone else serves the queue."""
        # One iteration at a time: two at once could both see a run QUEUED and launch it twice.
        with self._tick_lock:
            self._tick()

    def _tick(self) -> None:
        self.serving = self._may_serve()
        if not self.serving:
            return
        if self._coordinator is None:
            self._coordinator = QueuedRunCoordinatorDaemon(interval_seconds=self._interval_s)
        for _ in self._coordinator.run_iteration(self._queue.process_context):
            pass
        now = time.monotonic()
        if now - self._last_health_check >= HEALTH_CHECK_S:
            self._last_health_check = now
            self._fail_runs_of_dead_workers()

    def fail_runs_of_dead_workers(self) -> list[str]:
        """Mark failed the started runs whose worker process is gone (killed, out of memory, or
        unable to start), as Dagster's run monitoring would: otherwise ingest waits for them
        until GRAPHRAG_DAGSTER_RUN_TIMEOUT_S. Returns their run ids."""
        with self._tick_lock:
            return self._fail_runs_of_dead_workers()

    def _fail_runs_of_dead_workers(self) -> list[str]:
        launcher = self._instance.run_launcher
        if not isinstance(launcher, ForkserverRunLauncher):
            return []
        failed = []
        records = self._instance.get_run_records(
            dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED])
        )
        for record in records:
            run = record.dagster_run
            if WORKER_PID_TAG not in run.tags:
                continue
            health = launcher.check_run_worker_health(run)
            if health.status in (WorkerStatus.RUNNING, WorkerStatus.UNKNOWN):
                continue
            latest = self._instance.get_run_by_id(run.run_id)
            if latest is None or latest.is_finished:
                continue  # it finished between the two reads
            hint = (
                "; a script that runs ingest must guard its entry point with "
                '`if __name__ == "__main__":`, since every run worker imports it'
                if latest.status == dg.DagsterRunStatus.STARTING
                else ""
            )
            self._instance.report_run_failed(
                latest,
                message=f"the run's worker process is gone before the run finished "
                f"({health.msg or health.status.value}){hint}",
            )
            failed.append(run.run_id)
        return failed

    def wake(self) -> None:
        """Make the loop tick now (a run was submitted)."""
        try:
            os.write(self._wake_w, b"x")
        except BlockingIOError:  # the pipe is full: a tick is pending anyway
            pass

    def _loop(self) -> None:
        launcher = self._instance.run_launcher
        try:
            while not self._stop.is_set():
                self.tick()
                # Until a worker of ours exits (its slot is free), a run is submitted here, or
                # the interval is up (runs submitted elsewhere, a daemon come or gone).
                sentinels = (
                    launcher.worker_sentinels()
                    if isinstance(launcher, ForkserverRunLauncher)
                    else []
                )
                ready = multiprocessing.connection.wait(
                    [self._wake_r, *sentinels], timeout=self._interval_s
                )
                if self._wake_r in ready:
                    os.read(self._wake_r, 4096)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread by check()
            self._error = exc


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
        # Called after each run is submitted (a QueueServer's wake).
        self.on_submit: list[Callable[[], None]] = []

    def __enter__(self) -> RunQueue:
        self._workspace = self._process_context.create_request_context()
        self._location = self._workspace.get_code_location(LOCATION_NAME)
        [self._repo] = self._location.get_repositories().values()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._process_context.__exit__(*exc_info)

    @property
    def process_context(self) -> WorkspaceProcessContext:
        return self._process_context

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
        run = create_run(
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
        for listener in self.on_submit:
            listener()
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
            for record in self.instance.get_run_records(dg.RunsFilter(run_ids=list(pending))):
                run = record.dagster_run
                if not run.is_finished:
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
