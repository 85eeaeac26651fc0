"""The sensors tick against real sources: the EDGAR sensor against the loopback EDGAR server (a
filing appears between two ticks; EDGAR fails on a third), the local_inbox sensor against a
folder that files are dropped into."""

from __future__ import annotations

import json
import shutil

import dagster as dg

from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.settings import OperationsSettings, Settings
from graphrag_core.tables.table_store import TableStore
from pipelines.definitions import PER_FILING_JOB, build_definitions
from tests.edgar_server import (  # noqa: F401 - the *_fixture names register pytest fixtures
    edgar_server_fixture,
    edgar_server_session_fixture,
    max_requests_in_window,
)

NVDA_CIK = "0001045810"
APPEARS = "0001045810-25-000023"  # NVIDIA's FY2025 10-K, in the corpus


def _tick(defs: dg.Definitions, instance: dg.DagsterInstance, name: str, cursor: str | None):
    sensor = defs.resolve_sensor_def(name)
    context = dg.build_sensor_context(instance=instance, resources=defs.resources, cursor=cursor)
    result = sensor(context)
    if isinstance(result, dg.SensorResult) and result.dynamic_partitions_requests:
        for request in result.dynamic_partitions_requests:
            instance.add_dynamic_partitions(
                request.partitions_def_name, list(request.partition_keys)
            )
    return result


def test_edgar_sensor_cursor_per_company(edgar_server, tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))
    # Submissions are never served from the cache here: each tick must see what EDGAR has now.
    edgar = edgar_server.settings(
        watchlist=("NVDA", "AAPL"), forms=("10-K",), max_filings_per_company=2, live_max_age_s=0
    )
    settings = Settings(data_root=tmp_path / "data", corpus=None, edgar=edgar)
    defs = build_definitions(settings)
    edgar_server.withhold(APPEARS)
    edgar_server.withhold("0001045810-26-000021")
    with dg.instance_for_test() as instance:
        first = _tick(defs, instance, "edgar_sensor", None)
        assert isinstance(first, dg.SensorResult)
        keys = {r.partition_key for r in first.run_requests}
        assert APPEARS not in keys and len(keys) == 4  # two 10-Ks each of NVIDIA and Apple
        cursor = json.loads(first.cursor)
        assert set(cursor) == {NVDA_CIK, "0000320193"}
        assert cursor[NVDA_CIK]["accession"] == "0001045810-24-000029"
        assert set(instance.get_dynamic_partitions("filings")) == keys

        # NVIDIA files its 10-K: the next tick requests it, and only it.
        edgar_server.release(APPEARS)
        second = _tick(defs, instance, "edgar_sensor", first.cursor)
        assert [r.partition_key for r in second.run_requests] == [APPEARS]
        assert json.loads(second.cursor)[NVDA_CIK] == {"accession": APPEARS, "filed": "2025-02-26"}
        assert json.loads(second.cursor)["0000320193"] == cursor["0000320193"]
        assert APPEARS in instance.get_dynamic_partitions("filings")

        # nothing new: no run requested, cursor unchanged
        third = _tick(defs, instance, "edgar_sensor", second.cursor)
        assert not third.run_requests and third.cursor == second.cursor

        # EDGAR fails: the tick is skipped with the reason, and the cursor is kept
        path = f"/submissions/CIK{NVDA_CIK}.json"
        edgar_server.plant(path, "503", times=edgar.max_retries + 1)
        failed = _tick(defs, instance, "edgar_sensor", second.cursor)
        assert isinstance(failed, dg.SkipReason)
        assert "EDGAR unavailable" in failed.skip_message and "503" in failed.skip_message

        # the requested run of the new filing materializes it from what the sensor cataloged
        assert FilingCatalog(settings.data_root).get(APPEARS).filed_date.isoformat() == "2025-02-26"
        job = defs.resolve_job_def(PER_FILING_JOB)
        result = job.execute_in_process(
            partition_key=APPEARS, instance=instance, raise_on_error=False
        )
        assert result.success
    assert TableStore(settings.data_root).read("raw_filings", APPEARS)["form"].to_list() == ["10-K"]
    # every request of the ticks and the run stayed under SEC's limit
    times = [r.at for r in edgar_server.requests()]
    assert max_requests_in_window(times) <= 10


def test_local_inbox_sensor(corpus_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))
    inbox = tmp_path / "inbox"
    settings = Settings(
        data_root=tmp_path / "data", corpus=None, operations=OperationsSettings(inbox=inbox)
    )
    defs = build_definitions(settings)
    with dg.instance_for_test() as instance:
        missing = _tick(defs, instance, "local_inbox", None)
        assert isinstance(missing, dg.SkipReason) and "does not exist" in missing.skip_message
        inbox.mkdir()
        shutil.copy(corpus_dir / "filings/ORCL/8-K/Oracle.8-K.htm", inbox)
        first = _tick(defs, instance, "local_inbox", None)
        [request] = first.run_requests
        assert request.partition_key.startswith("sha-")
        again = _tick(defs, instance, "local_inbox", first.cursor)
        assert not again.run_requests
        shutil.copy(corpus_dir / "filings/BLK/8-K/form8K.Blackrock.htm", inbox)
        second = _tick(defs, instance, "local_inbox", again.cursor)
        assert [r.partition_key for r in second.run_requests] != [request.partition_key]
        assert len(second.run_requests) == 1
        assert len(instance.get_dynamic_partitions("filings")) == 2
        result = defs.resolve_job_def(PER_FILING_JOB).execute_in_process(
            partition_key=second.run_requests[0].partition_key,
            instance=instance,
            raise_on_error=False,
        )
        assert result.success
