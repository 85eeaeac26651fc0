"""The project's Dagster instance: SQLite storage under $GRAPHRAG_DATA/dagster_home."""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

PROJECT_ROOT = Path(__file__).resolve().parent.parent
INSTANCE_YAML = PROJECT_ROOT / "dagster.yaml"


def prepare_dagster_home(data_root: Path) -> Path:
    """Create DAGSTER_HOME inside the data root with the project's dagster.yaml, and point
    the environment at it so `dagster dev` and in-process runs share one instance."""
    home = Path(data_root) / "dagster_home"
    home.mkdir(parents=True, exist_ok=True)
    if not INSTANCE_YAML.exists():
        raise FileNotFoundError(
            f"{INSTANCE_YAML}: the project's dagster.yaml is missing; run from a checkout of "
            "filings-graphrag (it is installed editable by `make`)"
        )
    target = home / "dagster.yaml"
    if not target.exists() or target.read_bytes() != INSTANCE_YAML.read_bytes():
        shutil.copyfile(INSTANCE_YAML, target)
    os.environ["DAGSTER_HOME"] = str(home)
    return home


def get_instance(data_root: Path) -> dg.DagsterInstance:
    prepare_dagster_home(data_root)
    return dg.DagsterInstance.get()


# -- runs whose process died -------------------------------------------------------------------
# Runs started by `filings-graph ingest` execute in its own process; killed mid-run (SIGKILL,
# OOM, a closed laptop), nobody reports their end and they stay STARTED for ever. Every CLI run
# carries these tags, and every ingest holds INGEST_LOCK (shared) while it runs, so the next
# ingest can tell a dead run from a live one without guessing from its age.
RUNNER_TAG = "filings_graph/runner"
PID_TAG = "filings_graph/pid"
HOST_TAG = "filings_graph/host"
INGEST_LOCK = "ingest.lock"
UNFINISHED = (
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
)


def runner_tags() -> dict[str, str]:
    return {RUNNER_TAG: "cli", PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()}


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def fail_abandoned_runs(instance: dg.DagsterInstance, *, others_running: bool) -> list[str]:
    """Mark unfinished CLI runs whose process is gone as failed; returns their run ids.

    With no other ingest running every unfinished CLI run is dead. With others running, only
    runs of this host whose process no longer exists are (a reused pid only delays that)."""
    runs = instance.get_runs(
        filters=dg.RunsFilter(statuses=list(UNFINISHED), tags={RUNNER_TAG: "cli"})
    )
    host = socket.gethostname()
    failed = []
    for run in runs:
        pid = int(run.tags.get(PID_TAG, "0") or 0)
        if others_running and (run.tags.get(HOST_TAG) != host or pid <= 0 or _process_alive(pid)):
            continue
        instance.report_run_failed(
            run,
            message=f"marked failed by the next ingest: the process that ran it (pid {pid} on "
            f"{run.tags.get(HOST_TAG, '?')}) ended without finishing it (killed?). "
            "`filings-graph ingest` runs the filing again",
        )
        failed.append(run.run_id)
    return failed


@contextmanager
def ingest_session(data_root: Path, instance: dg.DagsterInstance) -> Iterator[list[str]]:
    """Hold the ingest lock (shared) for the length of an ingest, after failing the runs that
    dead ingests left unfinished; yields their run ids."""
    home = prepare_dagster_home(data_root)
    fd = os.open(home / INGEST_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            others_running = False
        except BlockingIOError:
            others_running = True
        failed = fail_abandoned_runs(instance, others_running=others_running)
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield failed
    finally:
        os.close(fd)
