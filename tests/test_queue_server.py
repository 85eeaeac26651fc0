"""The run queue served from the ingest process (pipelines.run_queue.QueueServer), on the real
instance with real run workers forked by the ForkserverRunLauncher: it lets queued runs go
only while no dagster-daemon is alive and no other process serves, workers get the launching
process's Settings, and a run whose worker dies is failed instead of waited for."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import time
from pathlib import Path

import dagster as dg
import pytest

from graphrag_core.settings import OperationsSettings, Settings

DOC = "filings/ORCL/8-K/Oracle.8-K.htm"


def _wait(instance: dg.DagsterInstance, run_id: str, until, timeout_s: float = 120.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        run = instance.get_run_by_id(run_id)
        if until(run):
            return run
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} still {instance.get_run_by_id(run_id).status}")


def _unlocked(db: Path) -> bool:
    """Whether no other process holds a lock on the SQLite file `db` right now."""
    con = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        con.execute("BEGIN EXCLUSIVE")
        con.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        con.close()


def _suspend_between_writes(worker, home: Path, timeout_s: float = 60.0) -> None:
    """Stop `worker` at a moment it holds no lock on the instance's SQLite files. Stopped in
    the middle of a write, it would hold that file's lock until resumed, and the test's own
    next write would fail with "database is locked" (a CI run did)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        worker.suspend()
        if all(_unlocked(db) for db in home.rglob("*.db")):
            return
        worker.resume()
        time.sleep(0.02)
    raise AssertionError(f"worker {worker.pid} held a lock under {home} for {timeout_s} s")


@pytest.fixture
def one_filing(corpus_dir: Path, tmp_path: Path, monkeypatch):
    """Settings with a data root of their own, one filing registered as a partition; the
    process environment points at a decoy data root, which the runs must not use."""
    from assets.resources import build_resources
    from graphrag_core.intake.catalog import FilingCatalog
    from graphrag_core.intake.discovery import discover
    from pipelines.ingest import add_filing_partitions
    from pipelines.instance import get_instance

    decoy = tmp_path / "decoy"
    monkeypatch.setenv("GRAPHRAG_DATA", str(decoy))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(corpus_dir / DOC, inbox)
    settings = Settings(
        data_root=tmp_path / "data",
        corpus=inbox,
        operations=OperationsSettings(max_concurrent_runs=1),
    )
    [ref] = discover(build_resources(settings)["source"].source()).refs
    FilingCatalog(settings.data_root).put(ref)
    instance = get_instance(settings.data_root, settings.operations)
    add_filing_partitions(instance, [ref.filing_id])
    return settings, instance, ref.filing_id, decoy


def _heartbeat(instance: dg.DagsterInstance) -> None:
    from pipelines.dagster_private import DaemonHeartbeat

    instance.add_daemon_heartbeat(
        DaemonHeartbeat(
            timestamp=time.time(),
            daemon_type="QUEUED_RUN_COORDINATOR",
            daemon_id="make-dev",
            errors=None,
        )
    )


@pytest.mark.slow
def test_the_server_stands_back_for_a_daemon_and_its_runs_get_its_settings(one_filing):
    from pipelines.definitions import PER_FILING_JOB
    from pipelines.ingest import QUIET_RUN_CONFIG
    from pipelines.run_queue import QueueServer, RunQueue

    settings, instance, filing_id, decoy = one_filing
    _heartbeat(instance)  # a live daemon (make dev's) serves the queue
    with RunQueue(instance) as queue, QueueServer(queue, settings) as server:
        run_id = queue.submit(PER_FILING_JOB, partition_key=filing_id, run_config=QUIET_RUN_CONFIG)
        server.tick()
        assert not server.serving
        assert instance.get_run_by_id(run_id).status == dg.DagsterRunStatus.QUEUED
        # a second ingest on the instance waits for the first one's server (queue.lock)
        with RunQueue(instance) as other_queue, QueueServer(other_queue, settings) as other:
            instance.wipe_daemon_heartbeats()  # the daemon went away
            server.tick()
            other.tick()
            # whichever took queue.lock first serves, the other stands back
            assert [server.serving, other.serving].count(True) == 1
            run = _wait(instance, run_id, lambda r: r.is_finished)
    assert run.status == dg.DagsterRunStatus.SUCCESS
    # the worker built its Settings from the server's, not from this process's environment
    assert (settings.data_root / "tables").is_dir()
    assert not decoy.exists()


@pytest.mark.slow
def test_a_run_whose_worker_dies_is_failed_not_waited_for(one_filing):
    from pipelines.definitions import PER_FILING_JOB
    from pipelines.ingest import QUIET_RUN_CONFIG
    from pipelines.run_launcher import WORKER_PID_TAG
    from pipelines.run_queue import QueueServer, RunQueue

    settings, instance, filing_id, _ = one_filing
    with RunQueue(instance) as queue, QueueServer(queue, settings) as server:
        run_id = queue.submit(PER_FILING_JOB, partition_key=filing_id, run_config=QUIET_RUN_CONFIG)
        run = _wait(instance, run_id, lambda r: WORKER_PID_TAG in r.tags)
        os.kill(int(run.tags[WORKER_PID_TAG]), signal.SIGKILL)
        deadline = time.monotonic() + 30
        failed: list[str] = []
        while not failed and time.monotonic() < deadline:
            failed = server.fail_runs_of_dead_workers()
            time.sleep(0.1)
    assert failed == [run_id]
    run = instance.get_run_by_id(run_id)
    assert run.status == dg.DagsterRunStatus.FAILURE
    messages = [e.message for e in instance.all_logs(run_id) if e.message]
    assert any("worker process is gone before the run finished" in m for m in messages)


@pytest.mark.slow
def test_a_run_beyond_the_cores_runs_at_the_extra_niceness(one_filing, corpus_dir, monkeypatch):
    """With one run more than cores, the extra one is niced: it takes a core only while the
    others wait. One core here (monkeypatched count): the first run at 0, the second at 10."""
    import psutil

    from graphrag_core.intake.catalog import FilingCatalog
    from graphrag_core.intake.local_folder import LocalFolderSource
    from pipelines.definitions import PER_FILING_JOB
    from pipelines.ingest import QUIET_RUN_CONFIG, add_filing_partitions
    from pipelines.instance import get_instance
    from pipelines.run_launcher import WORKER_PID_TAG
    from pipelines.run_queue import QueueServer, RunQueue

    settings, _, first_id, _ = one_filing
    shutil.copy(corpus_dir / "filings/BLK/8-K/form8K.Blackrock.htm", settings.corpus)
    refs = {ref.filing_id: ref for ref in LocalFolderSource(settings.corpus).discover()}
    [second_id] = set(refs) - {first_id}
    FilingCatalog(settings.data_root).put(refs[second_id])
    settings = settings.model_copy(update={"operations": OperationsSettings(max_concurrent_runs=2)})
    instance = get_instance(settings.data_root, settings.operations)
    add_filing_partitions(instance, [second_id])
    assert instance.run_launcher.inst_data.config_dict["extra_run_niceness"] == 10
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    started = (dg.DagsterRunStatus.STARTED,)
    with RunQueue(instance) as queue, QueueServer(queue, settings):
        first = queue.submit(PER_FILING_JOB, partition_key=first_id, run_config=QUIET_RUN_CONFIG)
        run = _wait(instance, first, lambda r: r.status in started)
        first_worker = psutil.Process(int(run.tags[WORKER_PID_TAG]))
        # it holds the one core's slot for as long as the test needs
        _suspend_between_writes(first_worker, settings.data_root / "dagster_home")
        try:
            second = queue.submit(
                PER_FILING_JOB, partition_key=second_id, run_config=QUIET_RUN_CONFIG
            )
            run = _wait(instance, second, lambda r: r.status in started)
            second_nice = psutil.Process(int(run.tags[WORKER_PID_TAG])).nice()
            first_nice = first_worker.nice()
        finally:
            first_worker.resume()
        for run_id in (first, second):
            assert _wait(instance, run_id, lambda r: r.is_finished).status == (
                dg.DagsterRunStatus.SUCCESS
            )
    assert (first_nice, second_nice) == (0, 10)
