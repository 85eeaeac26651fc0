"""The distributed setup, for real: the Dagster instance on PostgreSQL and every step of the
per-filing runs executed by the worker processes of a dask.distributed cluster, fed through the
run queue. Several corpus filings go through it and the snapshot is published."""

from __future__ import annotations

import dagster as dg
import pytest

from graphrag_core.settings import OperationsSettings, Settings
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.table_store import TableStore
from tests.services import postgres_server, start_dask, stop_dask  # noqa: F401 - fixture

FILINGS = ["0000943374-24-000509", "0001193125-23-048785", "0001213900-25-032135"]


@pytest.mark.slow
def test_postgres_instance_and_dask_executor(corpus_dir, postgres_server, tmp_path, monkeypatch):  # noqa: F811
    from pipelines.ingest import ingest
    from pipelines.instance import POSTGRES_URL_ENV, get_instance
    from pipelines.run_queue import run_environment

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))
    # get_instance exports the URL for the instance to read; it must not outlive this test (a
    # later Settings() would point at this test's stopped server).
    monkeypatch.setenv(POSTGRES_URL_ENV, "unset")
    monkeypatch.delenv(POSTGRES_URL_ENV)
    base = Settings(data_root=tmp_path / "data", corpus=corpus_dir)
    # The workers rebuild Settings from their environment, so they get this test's.
    provisional = base.model_copy(
        update={"operations": OperationsSettings(postgres_url=postgres_server.url)}
    )
    get_instance(provisional.data_root, provisional.operations)
    env = run_environment(provisional)
    cluster = start_dask(env, workers=2, log_dir=tmp_path / "dask")
    try:
        settings = base.model_copy(
            update={
                "operations": OperationsSettings(
                    postgres_url=postgres_server.url,
                    executor="dask",
                    dask_address=cluster.address,
                    max_concurrent_runs=2,
                )
            }
        )
        report = ingest(settings, only=FILINGS)
        assert [o.filing_id for o in report.failed] == [], [o.error for o in report.failed]
        assert sorted(o.filing_id for o in report.outcomes) == sorted(FILINGS)
        assert report.corpus_success, report.corpus_error

        instance = dg.DagsterInstance.get()
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        # the runs live in PostgreSQL
        assert int(postgres_server.psql("SELECT count(*) FROM runs")) == len(FILINGS) + 1
        # every step of the per-filing runs ran in a dask worker process
        workers = cluster.worker_pids()
        steps = [
            e.dagster_event
            for run in instance.get_runs()
            if run.tags.get("dagster/partition")
            for e in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.STEP_SUCCESS)
        ]
        assert len(steps) == 6 * len(FILINGS)
        assert {s.pid for s in steps} <= workers
        assert len({s.pid for s in steps}) == 2  # spread over both workers
    finally:
        stop_dask(cluster)
    store = TableStore(settings.data_root)
    assert sorted(store.partitions("raw_filings")) == sorted(FILINGS)
    assert SnapshotStore(settings.data_root).current_version() is not None
