"""A run launcher that starts every run in its own subprocess, forked from a server process that
has the heavy libraries imported already.

Dagster's default launcher spawns a fresh interpreter per run, which re-imports Dagster, Polars,
Arrow, DuckDB and arelle: about three seconds of CPU before a filing that takes two. Here a
`multiprocessing` forkserver imports them once (`preload_modules`), then the project's own
Definitions (`pipelines.warm_start`), and forks a worker per run. A worker whose project sources
changed since the fork server imported them re-imports the project first, so a code change is
picked up by the next run without restarting anything. A worker executes the run exactly as
`dagster api execute_run` does (same events, same instance), so the UI, run monitoring and the
run queue see an ordinary run.

The worker's pid is recorded as a run tag, so a run can be terminated (and its worker checked)
from any process on the machine: the webserver's Terminate button, the daemon, or the CLI.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
import signal
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import dagster as dg

from pipelines.dagster_private import (
    INSTANCE_OPEN_MODULES,
    RUN_API_MODULES,
    CheckRunHealthResult,
    ConfigurableClass,
    ConfigurableClassData,
    LaunchRunContext,
    RunLauncher,
    WorkerStatus,
)

WORKER_PID_TAG = "graphrag/worker_pid"

# Imported once by the fork server; every run worker inherits them. The project's own modules
# come last, through warm_start, which notices when their sources change afterwards.
DEFAULT_PRELOAD = (
    "dagster",
    *RUN_API_MODULES,
    "polars",
    "pyarrow",
    "pyarrow.parquet",
    "duckdb",
    "lxml.etree",
    "lxml.html",
    "pydantic",
    "pydantic_settings",
    "httpx",
    "arelle.Cntlr",
    "arelle.ModelXbrl",
    "pipelines.warm_start",
)
# A worker opens the instance from its ref before anything else: these are imported then, along
# with the modules of the instance's own classes (its storage, compute logs, coordinator), which
# `instance_modules` names. About 0.45 s of CPU per run when left to the worker.
INSTANCE_PRELOAD = INSTANCE_OPEN_MODULES

# Last of all, whatever the configured preload: freezes the fork server's heap for the GC.
FREEZE_MODULE = "pipelines.fork_server_ready"

_context: Any = None


def _fork_context(preload: Sequence[str]) -> Any:
    """One forkserver per process (multiprocessing keeps one), with `preload` imported."""
    global _context
    if _context is None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(preload))
        _context = context
    return _context


@contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    """This process's environment replaced by `env` while the block runs."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def instance_modules(ref: Any) -> tuple[str, ...]:
    """The modules of the classes an instance ref names (storage, run launcher, compute log
    manager, ...): what opening that instance imports."""
    names = [
        data.module_name
        for data in ref._asdict().values()
        if isinstance(data, ConfigurableClassData)
    ]
    return tuple(dict.fromkeys(names))


def _run_worker(
    run_id: str, instance_ref: Any, environment: Mapping[str, str], niceness: int
) -> None:
    """Body of a run's worker process: what `dagster api execute_run` does, in the environment
    of the process that launched the run (its Settings), which may not be the fork server's,
    at `niceness` (see ForkserverRunLauncher.niceness_for_next_run)."""
    from pipelines.dagster_private import execute_run_command_body
    from pipelines.warm_start import refresh_if_changed

    if niceness:
        os.nice(niceness)
    os.environ.clear()
    os.environ.update(environment)
    refresh_if_changed()
    # A worker must not inherit the launching process's handling of SIGINT (the daemon's):
    # Dagster turns SIGINT into a graceful run termination.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with dg.DagsterInstance.from_ref(instance_ref) as instance:
        execute_run_command_body(
            run_id, instance, write_stream_fn=lambda event: None, set_exit_code_on_failure=False
        )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ForkserverRunLauncher(RunLauncher, ConfigurableClass):
    """Launch each run in a worker process forked from a pre-warmed server (see module doc)."""

    def __init__(
        self,
        inst_data: ConfigurableClassData | None = None,
        preload_modules: Sequence[str] | None = None,
        extra_run_niceness: int = 0,
    ):
        self._inst_data = inst_data
        self._extra_run_niceness = extra_run_niceness
        self._preload = tuple(preload_modules or DEFAULT_PRELOAD)
        self._workers: dict[str, Any] = {}
        # The environment runs get (their Settings are rebuilt from it); None: this process's.
        # A process serving the run queue for a Settings of its own (pipelines.run_queue)
        # sets it.
        self.environment: Mapping[str, str] | None = None
        self._server_started = False
        super().__init__()

    @property
    def inst_data(self) -> ConfigurableClassData | None:
        return self._inst_data

    @classmethod
    def config_type(cls) -> Mapping[str, Any]:
        return {
            "preload_modules": dg.Field([str], is_required=False),
            "extra_run_niceness": dg.Field(int, is_required=False, default_value=0),
        }

    @classmethod
    def from_config_value(
        cls, inst_data: ConfigurableClassData, config_value: Mapping[str, Any]
    ) -> ForkserverRunLauncher:
        return cls(inst_data=inst_data, **config_value)

    # -- launching -------------------------------------------------------------------------
    def start_server(self) -> None:
        """Start the fork server now (it imports for about 2 s of CPU) instead of at the first
        launch, in the environment runs will get, so that the Definitions it imports match the
        workers' Settings and no worker has to import them again."""
        if self._server_started:
            return
        _fork_context(
            (
                *self._preload,
                *INSTANCE_PRELOAD,
                *instance_modules(self._instance.get_ref()),
                FREEZE_MODULE,
            )
        )
        # The server is spawned with this process's environment at that moment.
        with _environment(self._run_environment()):
            multiprocessing.forkserver.ensure_running()
        self._server_started = True

    def _run_environment(self) -> dict[str, str]:
        return dict(self.environment if self.environment is not None else os.environ)

    def launch_run(self, context: LaunchRunContext) -> None:
        run = context.dagster_run
        if run.job_code_origin is None:
            raise dg.DagsterInvariantViolationError(
                f"run {run.run_id} has no code origin; submit it from a code location"
            )
        self.start_server()
        process = _fork_context(()).Process(
            target=_run_worker,
            args=(
                run.run_id,
                self._instance.get_ref(),
                self._run_environment(),
                self.niceness_for_next_run(),
            ),
            name=f"dagster-run-{run.run_id[:8]}",
        )
        process.start()
        self._workers[run.run_id] = process
        self._reap()
        self._instance.add_run_tags(run.run_id, {WORKER_PID_TAG: str(process.pid)})
        self._instance.report_engine_event(
            f"Run worker forked (pid {process.pid}) by {type(self).__name__}", run
        )

    def niceness_for_next_run(self) -> int:
        """`extra_run_niceness` when this launcher's workers already fill every core, else 0.
        With one run more than cores, the extra one takes a core whenever another run waits
        (on its SQLite commits, or while its worker starts: about 0.3 s a run) and yields it
        otherwise: on two cores, three runs at equal priority cost about 10% more CPU in
        contention, a third at nice 10 does not, and fills the gaps."""
        self._reap()
        return self._extra_run_niceness if len(self._workers) >= (os.cpu_count() or 1) else 0

    def worker_sentinels(self) -> list[int]:
        """Handles that become ready when a worker launched from this process exits."""
        self._reap()
        return [process.sentinel for process in list(self._workers.values())]

    def _reap(self) -> None:
        """Forget finished workers (joining them so none is left a zombie)."""
        for run_id, process in list(self._workers.items()):
            if not process.is_alive():
                process.join(timeout=0)
                del self._workers[run_id]

    def _worker_pid(self, run_id: str) -> int | None:
        process = self._workers.get(run_id)
        if process is not None:
            return process.pid
        run = self._instance.get_run_by_id(run_id)
        pid = (run.tags if run else {}).get(WORKER_PID_TAG)
        return int(pid) if pid and pid.isdigit() else None

    # -- termination and health ------------------------------------------------------------
    def terminate(self, run_id: str) -> bool:
        run = self._instance.get_run_by_id(run_id)
        pid = self._worker_pid(run_id)
        if run is None or pid is None or not _alive(pid):
            return False
        self._instance.report_run_canceling(run)
        # SIGINT: Dagster stops the run between steps and records it as canceled.
        os.kill(pid, signal.SIGINT)
        return True

    @property
    def supports_check_run_worker_health(self) -> bool:
        return True

    def check_run_worker_health(self, run: dg.DagsterRun) -> CheckRunHealthResult:
        process = self._workers.get(run.run_id)
        if process is not None:
            if process.is_alive():
                return CheckRunHealthResult(WorkerStatus.RUNNING)
            code = process.exitcode
            status = WorkerStatus.SUCCESS if code == 0 else WorkerStatus.FAILED
            return CheckRunHealthResult(status, f"run worker exited with code {code}")
        pid = self._worker_pid(run.run_id)
        if pid is None:
            return CheckRunHealthResult(WorkerStatus.UNKNOWN, "no worker pid recorded")
        if _alive(pid):
            return CheckRunHealthResult(WorkerStatus.RUNNING)
        return CheckRunHealthResult(WorkerStatus.NOT_FOUND, f"run worker pid {pid} is gone")

    def join(self, timeout: float = 30) -> None:
        for process in list(self._workers.values()):
            process.join(timeout=timeout)
        self._reap()
