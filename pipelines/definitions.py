"""The Definitions: assets, checks, jobs, sensors and resources, built from Settings."""

from __future__ import annotations

import dagster as dg

from assets import extraction as extraction_assets
from assets import filings as filings_assets
from assets import snapshot as snapshot_assets
from assets import xbrl as xbrl_assets
from graphrag_core.settings import Settings
from pipelines.partitions import filings_partitions
from pipelines.resources import (
    DataRootResource,
    ExtractorResource,
    FilingSourceResource,
    ParquetTablesIOManager,
    ParsingResource,
    SnapshotStoreResource,
)

PER_FILING_JOB = "ingest_filings"
CORPUS_JOB = "build_corpus"


def _assets_defs(defs: dg.Definitions) -> list[dg.AssetsDefinition]:
    return [a for a in defs.assets or [] if isinstance(a, dg.AssetsDefinition)]


def per_filing_asset_keys(defs: dg.Definitions) -> list[dg.AssetKey]:
    return [k for a in _assets_defs(defs) if a.partitions_def == filings_partitions for k in a.keys]


def corpus_asset_keys(defs: dg.Definitions) -> list[dg.AssetKey]:
    return [k for a in _assets_defs(defs) if a.partitions_def is None for k in a.keys]


def build_definitions(settings: Settings | None = None) -> dg.Definitions:
    settings = settings or Settings()
    assets = dg.load_assets_from_modules([filings_assets, extraction_assets, snapshot_assets, xbrl_assets])
    per_filing = [a for a in assets if isinstance(a, dg.AssetsDefinition) and a.partitions_def == filings_partitions]
    corpus_wide = [a for a in assets if isinstance(a, dg.AssetsDefinition) and a.partitions_def is None]
    jobs = [
        dg.define_asset_job(
            PER_FILING_JOB,
            selection=dg.AssetSelection.assets(*per_filing),
            description="Every per-filing stage for one filing partition.",
        )
    ]
    if corpus_wide:
        jobs.append(
            dg.define_asset_job(
                CORPUS_JOB,
                selection=dg.AssetSelection.assets(*corpus_wide),
                description="The whole-corpus stages over every materialized filing.",
            )
        )
    from pipelines.sensors import build_filings_sensor

    chunking = settings.chunking
    parse = settings.parse
    edgar = settings.edgar
    extraction = settings.extraction
    data_root = str(settings.data_root)
    return dg.Definitions(
        assets=assets,
        jobs=jobs,
        sensors=[build_filings_sensor(PER_FILING_JOB)],
        resources={
            "data": DataRootResource(data_root=data_root),
            "tables_io": ParquetTablesIOManager(data_root=data_root),
            "snapshots": SnapshotStoreResource(data_root=data_root),
            "extractor": ExtractorResource(
                backend=extraction.backend,
                base_url=extraction.base_url,
                model=extraction.model,
                api_key=dg.EnvVar("EXTRACTOR_API_KEY") if extraction.api_key else None,
                prompt=extraction.prompt,
                concurrency=extraction.concurrency,
                timeout_s=extraction.timeout_s,
                max_retries=extraction.max_retries,
                max_tokens=extraction.max_tokens,
                guided_field=extraction.guided_field,
                rejection_rate_threshold=extraction.rejection_rate_threshold,
                rejection_check_min_triples=extraction.rejection_check_min_triples,
            ),
            "parsing": ParsingResource(
                max_tokens=chunking.max_tokens,
                overlap_tokens=chunking.overlap_tokens,
                table_max_tokens=chunking.table_max_tokens,
                max_document_mb=parse.max_document_mb,
                large_document_mb=parse.large_document_mb,
            ),
            "source": FilingSourceResource(
                corpus=str(settings.corpus) if settings.corpus else None,
                edgar_identity=edgar.identity,
                edgar_data_base_url=edgar.data_base_url,
                edgar_archives_base_url=edgar.archives_base_url,
                edgar_tickers_url=edgar.tickers_url,
                watchlist=list(edgar.watchlist),
                forms=list(edgar.forms),
                max_filings_per_company=edgar.max_filings_per_company,
            ),
        },
    )


defs = build_definitions()
