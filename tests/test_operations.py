"""Operating the pipeline end to end on the real instance: parallel runs through the run queue
write the ingestion report (metadata, Markdown, chart, history); a filing taken back leaves
every table, its verdicts, the catalog and the partitions, and the next snapshot is published
without it while the older one stays within retention."""

from __future__ import annotations

import shutil

import dagster as dg
import pytest

from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.settings import Settings
from graphrag_core.store.layout import snapshots_root
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.check_results import recorded_checks
from graphrag_core.tables.table_store import TableStore

DOCS = [
    "filings/ORCL/8-K/Oracle.8-K.htm",
    "filings/BLK/8-K/form8K.Blackrock.htm",
    "filings/BCOW/8-K/form8k_122024.htm",
]


@pytest.mark.slow
def test_report_then_take_a_filing_back(corpus_dir, tmp_path, monkeypatch, capsys):
    from graphrag_core.store.reader import SnapshotReader
    from pipelines.cli import main
    from pipelines.ingest import ingest

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for doc in DOCS:
        shutil.copy(corpus_dir / doc, inbox)
    settings = Settings(data_root=tmp_path / "data", corpus=inbox)
    report = ingest(settings)
    assert len(report.outcomes) == 3 and not report.failed and report.corpus_success, (
        report.corpus_error
    )

    # the ingestion report: Dagster metadata, the Markdown beside the snapshots, its history
    instance = dg.DagsterInstance.get()
    event = instance.get_latest_materialization_event(dg.AssetKey("ingestion_report"))
    meta = event.asset_materialization.metadata
    assert meta["filings_processed"].value == 3 and meta["filings_failed"].value == 0
    assert meta["chunks"].value > 0 and meta["facts"].value > 0
    assert "| filings processed | 3 |" in meta["report"].value
    # the graph stage's figures: three new filers at least, and what waits for review
    assert meta["new_entities"].value >= 3
    assert "| new entities | " in meta["report"].value and "company" in meta["report"].value
    queue_check = instance.event_log_storage.get_latest_asset_check_execution_by_key(
        [dg.AssetCheckKey(dg.AssetKey("resolved_entities"), "review_queue")]
    )
    [execution] = queue_check.values()
    evaluation = execution.event.dagster_event.event_specific_data
    assert evaluation.metadata["max_share"].value == settings.graph.review_queue_max_share
    # this first report covers every filing of the graph, so what its filings left waiting for
    # review is the whole queue the review_queue check counted (another query of the store)
    assert meta["queued_for_review"].value == evaluation.metadata["review_queue"].value
    assert meta["rejection_rate_chart"].value.startswith(
        "![rejection rate per run](data:image/svg+xml;base64,"
    )
    reports = snapshots_root(settings.data_root) / "reports"
    assert "| filings processed | 3 |" in (reports / "ingestion_report.md").read_text()
    assert (reports / "rejection_rate.svg").read_text().startswith("<svg")
    store = TableStore(settings.data_root)
    assert store.read("ingestion_reports").height == 1

    snapshots = SnapshotStore(settings.data_root)
    before = snapshots.current_version()
    victim = sorted(store.partitions("raw_filings"))[0]
    assert store.read("section_chunks", victim).height > 0
    assert not recorded_checks(store, [victim]).is_empty()

    assert main(["--data", str(settings.data_root), "remove", victim]) == 0
    out = capsys.readouterr().out
    assert f"removed filing {victim}" in out and "section_chunks" in out
    for table in store.tables():
        assert victim not in store.partitions(table), table
    assert recorded_checks(store, [victim]).is_empty()
    assert victim not in FilingCatalog(settings.data_root).ids()
    assert not store.raw_dir(victim).exists() and not store.text_path(victim).exists()
    assert victim not in dg.DagsterInstance.get().get_dynamic_partitions("filings")

    after = snapshots.current_version()
    assert after != before and before in snapshots.versions()  # the old one follows retention
    reader = SnapshotReader(settings.data_root)
    with reader.lease() as snap:
        ids = {r["filing_id"] for r in snap.query("SELECT filing_id FROM filings")}
        assert victim not in ids and len(ids) == 2
        assert snap.query("SELECT count(*) AS n FROM chunks WHERE filing_id = ?", [victim]) == [
            {"n": 0}
        ]
        assert snap.query(
            "SELECT count(*) AS n FROM edge_evidence WHERE filing_id = ?", [victim]
        ) == [{"n": 0}]
    reader.close()
    # removing it again says there is nothing to remove
    assert main(["--data", str(settings.data_root), "remove", victim]) == 2
    assert "no table, document or catalog entry" in capsys.readouterr().err


def test_remove_filing_job_from_the_ui_then_publish(corpus_dir, tmp_path, monkeypatch):
    """The same removal as a job (what the UI launches), and the sensor that publishes after it."""
    from graphrag_core.intake.local_folder import LocalFolderSource
    from pipelines.definitions import CORPUS_JOB, build_definitions
    from pipelines.instance import get_instance
    from pipelines.removal import REMOVE_JOB

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(corpus_dir / DOCS[0], inbox)
    settings = Settings(data_root=tmp_path / "data", corpus=inbox)
    [ref] = LocalFolderSource(inbox).discover()
    FilingCatalog(settings.data_root).put(ref)
    instance = get_instance(settings.data_root, settings.operations)
    instance.add_dynamic_partitions("filings", [ref.filing_id])
    defs = build_definitions(settings)
    ingested = defs.resolve_job_def("ingest_filings").execute_in_process(
        partition_key=ref.filing_id, instance=instance
    )
    assert ingested.success
    result = defs.resolve_job_def(REMOVE_JOB).execute_in_process(
        instance=instance,
        run_config={"ops": {"remove_filing_op": {"config": {"filing_id": ref.filing_id}}}},
    )
    assert result.success
    assert TableStore(settings.data_root).partitions("section_chunks") == []
    assert instance.get_dynamic_partitions("filings") == []
    sensor = defs.resolve_sensor_def("publish_after_removal")
    context = dg.build_run_status_sensor_context(
        sensor_name=sensor.name,
        dagster_event=result.get_run_success_event(),
        dagster_instance=instance,
        dagster_run=result.dagster_run,
    )
    request = sensor(context)
    assert isinstance(request, dg.RunRequest) and request.job_name in (None, CORPUS_JOB)
    assert sensor.targets[0].job_name == CORPUS_JOB
