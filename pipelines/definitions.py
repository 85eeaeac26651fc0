"""The Definitions: assets, checks, jobs, sensors and resources, built from one `Settings`."""

from __future__ import annotations

import dagster as dg

from assets import communities, extraction, graph, intake, snapshot, text, xbrl
from assets.partitions import filings_partitions
from assets.resources import build_resources
from graphrag_core.settings import Settings
from pipelines.schedules_communities import community_jobs, community_schedules
from pipelines.sensors import build_filings_sensor

PER_FILING_JOB = "ingest_filings"
CORPUS_JOB = "build_corpus"

ASSET_MODULES = (intake, text, xbrl, extraction, graph, snapshot, communities)


def _assets_defs(defs: dg.Definitions) -> list[dg.AssetsDefinition]:
    return [a for a in defs.assets or [] if isinstance(a, dg.AssetsDefinition)]


def per_filing_asset_keys(defs: dg.Definitions) -> list[dg.AssetKey]:
    return [k for a in _assets_defs(defs) if a.partitions_def == filings_partitions for k in a.keys]


def corpus_asset_keys(defs: dg.Definitions) -> list[dg.AssetKey]:
    return [k for a in _assets_defs(defs) if a.partitions_def is None for k in a.keys]


def build_definitions(settings: Settings | None = None) -> dg.Definitions:
    settings = settings or Settings()
    assets = [
        a for a in dg.load_assets_from_modules(list(ASSET_MODULES))
        if isinstance(a, dg.AssetsDefinition)
    ]
    per_filing = [a for a in assets if a.partitions_def == filings_partitions]
    corpus_wide = [a for a in assets if a.partitions_def is None]
    jobs = [
        dg.define_asset_job(
            PER_FILING_JOB,
            selection=dg.AssetSelection.assets(*per_filing),
            description="Every per-filing stage for one filing partition.",
        ),
        dg.define_asset_job(
            CORPUS_JOB,
            selection=dg.AssetSelection.assets(*corpus_wide),
            description="The whole-corpus stages over every materialized filing.",
        ),
    ]
    jobs.extend(community_jobs())
    return dg.Definitions(
        assets=assets,
        jobs=jobs,
        schedules=community_schedules(settings.communities),
        sensors=[build_filings_sensor(PER_FILING_JOB)],
        resources=build_resources(settings),
    )


defs = build_definitions()
