"""ingestion_report: what the runs since the previous report did, as Dagster metadata (numbers,
a Markdown table, the rejection-rate chart) and as files beside the snapshots. The figures are
`graphrag_core.operations.ingestion_report`'s; this module finds the runs the report covers."""

import base64

import dagster as dg

from assets.checks import check_result, check_spec
from assets.exclusions import corpus_standing
from assets.resources import DataRootResource, GraphResource, ReportsResource, SnapshotStoreResource
from assets.run_failures import failure_message, run_events
from graphrag_core.graph.snapshot_inputs import SNAPSHOT_INPUTS
from graphrag_core.operations.ingestion_report import (
    build_report,
    record,
    rejection_chart,
    write_report_files,
)
from graphrag_core.store.freshness import snapshot_freshness
from graphrag_core.store.layout import snapshots_root

REPORT_KEY = dg.AssetKey("ingestion_report")
# The statuses for which DagsterRun.is_finished holds, spelled with the public enum because a
# runs query filters by status (tests/test_dagster_private.py keeps the two equal).
FINISHED_STATUSES = (
    dg.DagsterRunStatus.SUCCESS,
    dg.DagsterRunStatus.FAILURE,
    dg.DagsterRunStatus.CANCELED,
)


def runs_since_last_report(
    instance: dg.DagsterInstance, current_run_id: str
) -> tuple[list[str], dict[str, str]]:
    """(filings materialized, filing → error of those that failed) by the per-filing runs that
    finished since the last ingestion report; a filing's latest run decides."""
    last = instance.get_latest_materialization_event(REPORT_KEY)
    after = None
    if last is not None:
        import datetime as dt

        after = dt.datetime.fromtimestamp(last.timestamp, dt.UTC)
    records = instance.get_run_records(
        dg.RunsFilter(statuses=list(FINISHED_STATUSES), created_after=after),
        order_by="create_timestamp",
        ascending=True,
    )
    latest: dict[str, dg.DagsterRun] = {}
    for record_ in records:
        run = record_.dagster_run
        key = run.tags.get("dagster/partition")
        if key and run.run_id != current_run_id:
            latest[key] = run
    ok = [k for k, run in latest.items() if run.status == dg.DagsterRunStatus.SUCCESS]
    failed = {
        k: failure_message(run_events(instance, run.run_id))
        for k, run in latest.items()
        if run.status != dg.DagsterRunStatus.SUCCESS
    }
    return ok, failed


@dg.asset(
    # After resolution, whose tables give the entities the run's filings brought. Not after
    # knowledge_graph or graph_snapshot: a blocked publish still gets its report. When resolution
    # itself fails, the next report covers these runs too (it counts from the previous report).
    deps=[dg.AssetDep(key, partition_mapping=dg.AllPartitionMapping()) for key in SNAPSHOT_INPUTS]
    + [dg.AssetKey("resolved_entities")],
    group_name="serving",
    kinds={"markdown"},
    check_specs=[
        check_spec(
            "rejection_rate_within_baseline",
            "ingestion_report",
            blocking=False,
            description="the run's rejection rate is below the spike limit of its baseline",
        )
    ],
    description="Per run (every per-filing run since the previous report): filings processed "
    "and failed with their errors, chunks by kind, XBRL facts, metric observations, triples "
    "accepted and rejected by reason, new entities and mentions queued for review, the "
    "rejection rate against its rolling baseline, and "
    "the filings left out of the snapshot (failed their own checks) with the reason and "
    "fix. Kept as metadata (numbers, a Markdown table, a chart of the "
    "rejection rate over runs) and as snapshots/reports/ingestion_report.md.",
)
def ingestion_report(
    context: dg.AssetExecutionContext,
    data: dg.ResourceParam[DataRootResource],
    reports: dg.ResourceParam[ReportsResource],
    graph: dg.ResourceParam[GraphResource],
):
    processed, failed = runs_since_last_report(context.instance, context.run.run_id)
    store = data.store()
    with graph.store() as working:
        contribution = working.filings_contribution(processed)
    report = build_report(
        store,
        processed,
        failed,
        reports.settings,
        new_entities=contribution.new_entities,
        queued_for_review=contribution.queued_for_review,
        left_out=corpus_standing(context.instance, store).excluded,
    )
    history = record(store, report)
    chart = rejection_chart(history, reports.settings.history_runs)
    path = write_report_files(snapshots_root(data.data_root) / "reports", report, chart)
    image = base64.b64encode(chart.encode("utf-8")).decode("ascii")
    yield dg.MaterializeResult(
        metadata={
            **report.figures(),
            "report": dg.MetadataValue.md(report.markdown()),
            "rejection_rate_chart": dg.MetadataValue.md(
                f"![rejection rate per run](data:image/svg+xml;base64,{image})"
            ),
            "path": dg.MetadataValue.path(str(path)),
        }
    )
    yield dg.AssetCheckResult(
        check_name="rejection_rate_within_baseline",
        passed=not report.spike,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "rejection_rate": report.rejection_rate if report.rejection_rate is not None else -1.0,
            "limit": report.limit if report.limit is not None else -1.0,
        },
    )


@dg.asset_check(
    asset="graph_snapshot",
    name="snapshot_fresh",
    blocking=False,
    description="the current snapshot was built within GRAPHRAG_REPORT_SNAPSHOT_MAX_AGE_H hours",
)
def snapshot_fresh(
    snapshots: dg.ResourceParam[SnapshotStoreResource],
    reports: dg.ResourceParam[ReportsResource],
) -> dg.AssetCheckResult:
    return check_result(snapshot_freshness(snapshots.store(), reports.settings.snapshot_max_age_h))
