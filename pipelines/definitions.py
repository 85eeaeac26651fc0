"""The Definitions: assets, checks, jobs, sensors, schedules and resources, built from one
`Settings`."""

from __future__ import annotations

import dagster as dg

from assets import (
    communities,
    extraction,
    graph,
    intake,
    report,
    retrieval,
    snapshot,
    text,
    themes,
    xbrl,
)
from assets.partitions import filings_partitions
from assets.resources import build_resources
from graphrag_core.common.errors import ConfigurationError
from graphrag_core.settings import OperationsSettings, Settings
from pipelines.removal import build_publish_after_removal, remove_filing_job
from pipelines.schedules_communities import community_jobs, community_schedules
from pipelines.sensors import build_edgar_sensor, build_inbox_sensor

PER_FILING_JOB = "ingest_filings"
CORPUS_JOB = "build_corpus"
FRESHNESS_JOB = "check_snapshot_freshness"
STAGE_TAG = "graphrag/stage"

ASSET_MODULES = (
    intake,
    text,
    xbrl,
    extraction,
    graph,
    communities,
    themes,
    retrieval,
    snapshot,
    report,
)

# Downstream per-filing assets follow their upstream partition: when a filing's upstream table
# is re-materialized on its own (from the UI, a backfill), its downstream tables are
# materialized for that partition next. Not after a failure of their own (that waits for a fix).
FOLLOW_UPSTREAM = dg.AutomationCondition.eager() & ~dg.AutomationCondition.execution_failed()


def _assets_defs(defs: dg.Definitions) -> list[dg.AssetsDefinition]:
    return [a for a in defs.assets or [] if isinstance(a, dg.AssetsDefinition)]


def per_filing_asset_keys(defs: dg.Definitions) -> list[dg.AssetKey]:
    return [k for a in _assets_defs(defs) if a.partitions_def == filings_partitions for k in a.keys]


def corpus_asset_keys(defs: dg.Definitions) -> list[dg.AssetKey]:
    return [k for a in _assets_defs(defs) if a.partitions_def is None for k in a.keys]


def build_executor(operations: OperationsSettings) -> dg.ExecutorDefinition:
    """How a run executes its steps (GRAPHRAG_DAGSTER_EXECUTOR): in the run's own process, the
    default, since parallelism comes from concurrent runs; one process per step; or spread over
    the worker processes of an existing dask.distributed cluster."""
    if operations.executor == "multiprocess":
        return dg.multiprocess_executor
    if operations.executor == "dask":
        if not operations.dask_address:
            raise ConfigurationError(
                "GRAPHRAG_DAGSTER_EXECUTOR=dask needs GRAPHRAG_DAGSTER_DASK_ADDRESS, the scheduler "
                "of a running dask.distributed cluster (tcp://host:8786)"
            )
        from pipelines.dask_executor import pickled_run_dask_executor

        return pickled_run_dask_executor.configured(
            {"cluster": {"existing": {"address": operations.dask_address}}}, name="dask"
        )
    return dg.in_process_executor


def _with_automation(assets: list[dg.AssetsDefinition]) -> list[dg.AssetsDefinition]:
    """Per-filing assets below raw_filings get FOLLOW_UPSTREAM (raw_filings is fed by discovery)."""
    out = []
    for a in assets:
        if a.partitions_def == filings_partitions and dg.AssetKey("raw_filings") not in a.keys:
            a = a.map_asset_specs(
                lambda spec: spec.replace_attributes(automation_condition=FOLLOW_UPSTREAM)
            )
        out.append(a)
    return out


def build_definitions(settings: Settings | None = None) -> dg.Definitions:
    settings = settings or Settings()
    ops = settings.operations
    loaded = dg.load_assets_from_modules(list(ASSET_MODULES))
    assets = _with_automation(
        [
            a
            for a in loaded
            if isinstance(a, dg.AssetsDefinition) and not isinstance(a, dg.AssetChecksDefinition)
        ]
    )
    # Checks defined on their own (not in an asset's check_specs), e.g. snapshot_fresh.
    checks = list(dg.load_asset_checks_from_modules(list(ASSET_MODULES)))
    per_filing = [a for a in assets if a.partitions_def == filings_partitions]
    corpus_wide = [a for a in assets if a.partitions_def is None]
    ingest_job = dg.define_asset_job(
        PER_FILING_JOB,
        selection=dg.AssetSelection.assets(*per_filing),
        description="Every per-filing stage for one filing partition.",
    )
    corpus_job = dg.define_asset_job(
        CORPUS_JOB,
        selection=dg.AssetSelection.assets(*corpus_wide),
        description="The whole-corpus stages over every materialized filing: resolved "
        "entities, the knowledge graph, the snapshot publish and the ingestion report.",
        tags={STAGE_TAG: "corpus"},
    )
    freshness_job = dg.define_asset_job(
        FRESHNESS_JOB,
        selection=dg.AssetSelection.checks(*checks),
        description="Whether the published snapshot is recent enough (snapshot_fresh).",
    )
    schedules = [
        dg.ScheduleDefinition(
            name="nightly_snapshot",
            job=corpus_job,
            cron_schedule=ops.snapshot_cron,
            execution_timezone=ops.timezone,
            default_status=dg.DefaultScheduleStatus.STOPPED,
            description="Publishes a snapshot of every materialized filing (unless a blocking "
            "check holds it back) and writes the ingestion report "
            "(GRAPHRAG_DAGSTER_SNAPSHOT_CRON).",
        ),
        dg.ScheduleDefinition(
            name="snapshot_freshness",
            job=freshness_job,
            cron_schedule="0 * * * *",
            execution_timezone=ops.timezone,
            default_status=dg.DefaultScheduleStatus.STOPPED,
            description="Hourly: warns when the current snapshot is older than "
            "GRAPHRAG_REPORT_SNAPSHOT_MAX_AGE_H.",
        ),
    ]
    automation = dg.AutomationConditionSensorDefinition(
        "follow_upstream_partitions",
        target=dg.AssetSelection.assets(*per_filing),
        default_status=dg.DefaultSensorStatus.STOPPED,
        minimum_interval_seconds=60,
        description="Materializes a filing's downstream tables after its upstream one was "
        "re-materialized on its own (FOLLOW_UPSTREAM: eager, not after its own failure).",
    )
    return dg.Definitions(
        assets=assets,
        asset_checks=checks,
        jobs=[ingest_job, corpus_job, freshness_job, remove_filing_job, *community_jobs()],
        sensors=[
            build_edgar_sensor(PER_FILING_JOB, ops),
            build_inbox_sensor(PER_FILING_JOB, ops),
            build_publish_after_removal(corpus_job),
            automation,
        ],
        schedules=[*schedules, *community_schedules(settings.communities)],
        resources=build_resources(settings),
        executor=build_executor(ops),
    )


defs = build_definitions()
