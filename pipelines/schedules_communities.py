"""The communities' schedules: a daily refresh of the reports of dirty communities, a monthly
full re-clustering. Each runs the two community assets in its mode and publishes a snapshot, so
the MCP server serves the refreshed reports on its next call.

Both schedules start stopped, like the filings sensor: switch them on in the UI (`make dev`) or
with `dagster schedule start`. Cron strings and time zone are settings
(GRAPHRAG_COMMUNITIES_REFRESH_CRON, _RECLUSTER_CRON, _SCHEDULE_TIMEZONE).
"""

from __future__ import annotations

import dagster as dg

from graphrag_core.settings import CommunitySettings

REFRESH_JOB = "refresh_communities"
RECLUSTER_JOB = "recluster_communities"
REFRESH_SCHEDULE = "community_refresh_schedule"
RECLUSTER_SCHEDULE = "community_recluster_schedule"
COMMUNITY_ASSETS = ("communities", "community_reports", "filing_themes", "graph_snapshot")


def _run_config(mode: str) -> dict:
    return {
        "ops": {
            name: {"config": {"mode": mode}}
            for name in ("communities", "community_reports", "filing_themes")
        }
    }


def community_jobs() -> list[dg.UnresolvedAssetJobDefinition]:
    selection = dg.AssetSelection.assets(*COMMUNITY_ASSETS)
    return [
        dg.define_asset_job(
            REFRESH_JOB,
            selection=selection,
            config=_run_config("refresh"),
            description="Re-summarize the dirty and withheld communities (re-cluster instead when "
            "the dirty share reached GRAPHRAG_COMMUNITIES_DIRTY_THRESHOLD), re-cluster the "
            "filing themes when a filing joined or left one, and publish.",
        ),
        dg.define_asset_job(
            RECLUSTER_JOB,
            selection=selection,
            config=_run_config("recluster"),
            description="Re-cluster the whole knowledge graph, rebuild the reports that did not "
            "come back unchanged, and publish.",
        ),
    ]


def community_schedules(settings: CommunitySettings) -> list[dg.ScheduleDefinition]:
    return [
        dg.ScheduleDefinition(
            name=REFRESH_SCHEDULE,
            job_name=REFRESH_JOB,
            cron_schedule=settings.refresh_cron,
            execution_timezone=settings.schedule_timezone,
            default_status=dg.DefaultScheduleStatus.STOPPED,
            description="Refresh the reports of communities whose members gained or lost edges.",
        ),
        dg.ScheduleDefinition(
            name=RECLUSTER_SCHEDULE,
            job_name=RECLUSTER_JOB,
            cron_schedule=settings.recluster_cron,
            execution_timezone=settings.schedule_timezone,
            default_status=dg.DefaultScheduleStatus.STOPPED,
            description="Re-cluster the whole knowledge graph (monthly).",
        ),
    ]
