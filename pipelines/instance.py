"""The project's Dagster instance: its configuration rendered from dagster.yaml and Settings
into $GRAPHRAG_DATA/dagster_home, SQLite storage there unless PostgreSQL is configured."""

from __future__ import annotations

import fcntl
import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dagster as dg
import sqlalchemy.exc
import yaml

from assets.pools import EDGAR_POOL, EXTRACTOR_POOL
from graphrag_core.common.atomic import write_atomic
from graphrag_core.common.errors import ConfigurationError
from graphrag_core.settings import OperationsSettings

PROJECT_ROOT = Path(__file__).resolve().parent.parent
INSTANCE_YAML = PROJECT_ROOT / "dagster.yaml"
WORKSPACE_YAML = PROJECT_ROOT / "workspace.yaml"
LOCATION_NAME = "filings_graphrag"
# The PostgreSQL URL is read by the instance from the environment, so no password is written
# into dagster_home.
POSTGRES_URL_ENV = "GRAPHRAG_DAGSTER_POSTGRES_URL"


def instance_config(operations: OperationsSettings) -> dict[str, Any]:
    """The project's dagster.yaml with the settings applied."""
    if not INSTANCE_YAML.exists():
        raise FileNotFoundError(
            f"{INSTANCE_YAML}: the project's dagster.yaml is missing; run from a checkout of "
            "filings-graphrag (it is installed editable by `make`)"
        )
    config: dict[str, Any] = yaml.safe_load(INSTANCE_YAML.read_text(encoding="utf-8")) or {}
    runs = config.setdefault("concurrency", {}).setdefault("runs", {})
    runs["max_concurrent_runs"] = operations.max_concurrent_runs
    launcher = config.get("run_launcher") or {}
    if launcher.get("class") == "ForkserverRunLauncher":
        launcher.setdefault("config", {})["extra_run_niceness"] = operations.extra_run_niceness
    if operations.postgres_url is not None:
        config["storage"] = {"postgres": {"postgres_url": {"env": POSTGRES_URL_ENV}}}
    return config


def prepare_dagster_home(data_root: Path, operations: OperationsSettings | None = None) -> Path:
    """Create DAGSTER_HOME inside the data root with the rendered dagster.yaml, and point the
    environment at it so `dagster dev`, the daemon and in-process runs share one instance."""
    operations = operations or OperationsSettings()
    home = Path(data_root) / "dagster_home"
    rendered = (
        f"# rendered from {INSTANCE_YAML} by filings-graph; edit that file or the "
        "GRAPHRAG_DAGSTER_* settings, not this one\n"
        + yaml.safe_dump(instance_config(operations), sort_keys=False)
    ).encode("utf-8")
    target = home / "dagster.yaml"
    try:
        home.mkdir(parents=True, exist_ok=True)
        # Every command records its runs here: a read-only data root is found now, with the
        # path and the fix, not as a storage traceback from inside Dagster.
        fd, probe = tempfile.mkstemp(dir=home, prefix=".write-probe-")
        os.close(fd)
        os.unlink(probe)
        if not target.exists() or target.read_bytes() != rendered:
            write_atomic(target, rendered)
    except OSError as exc:
        raise not_writable(Path(data_root), home, exc.strerror or str(exc)) from exc
    os.environ["DAGSTER_HOME"] = str(home)
    if operations.postgres_url is not None:
        os.environ[POSTGRES_URL_ENV] = sqlalchemy_url(operations.postgres_url.get_secret_value())
    return home


def not_writable(data_root: Path, home: Path, reason: str) -> ConfigurationError:
    return ConfigurationError(
        f"{data_root}: the data root is not writable ({reason}); every filings-graph command "
        f"records its runs in the Dagster instance at {home}. Fix: give this user write access "
        f"to {data_root} and everything in it (e.g. `chmod -R u+w {data_root}`), or point "
        "--data / GRAPHRAG_DATA at a writable folder"
    )


def sqlalchemy_url(url: str) -> str:
    """The URL with the driver dagster-postgres ships with (psycopg2) named: SQLAlchemy 2.1
    takes a bare postgresql:// for psycopg 3, which is not installed."""
    for scheme in ("postgresql://", "postgres://"):
        if url.startswith(scheme):
            return "postgresql+psycopg2://" + url[len(scheme) :]
    return url


def apply_pool_limits(instance: dg.DagsterInstance, operations: OperationsSettings) -> None:
    """Set the slots of the `edgar` and `extractor` pools to what the settings say."""
    storage = instance.event_log_storage
    if not storage.supports_global_concurrency_limits:
        return
    for pool, limit in (
        (EDGAR_POOL, operations.edgar_pool_limit),
        (EXTRACTOR_POOL, operations.extractor_pool_limit),
    ):
        if storage.get_concurrency_info(pool).slot_count != limit:
            storage.set_concurrency_slots(pool, limit)


def get_instance(
    data_root: Path, operations: OperationsSettings | None = None
) -> dg.DagsterInstance:
    operations = operations or OperationsSettings()
    home = prepare_dagster_home(data_root, operations)
    try:
        instance = dg.DagsterInstance.get()
        apply_pool_limits(instance, operations)
    except sqlalchemy.exc.OperationalError as exc:
        if operations.postgres_url is not None:
            raise
        # The folder is writable but the SQLite files in it are not (copied read-only, or
        # another user's).
        raise not_writable(Path(data_root), home, str(exc.orig)) from exc
    return instance


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
def ingest_session(
    data_root: Path,
    instance: dg.DagsterInstance,
    operations: OperationsSettings | None = None,
) -> Iterator[list[str]]:
    """Hold the ingest lock (shared) for the length of an ingest, after failing the runs that
    dead ingests left unfinished; yields their run ids."""
    home = prepare_dagster_home(data_root, operations)
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
