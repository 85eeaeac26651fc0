"""extractions and validated_triples: narrative chunks → raw extractor replies → gated triples.

The work is `graphrag_core.extraction`; this module wires it and guards the result with a
per-filing rejection-rate check.
"""

import dagster as dg
import polars as pl

from assets.checks import check_spec, recorded_results
from assets.partitions import filings_partitions
from assets.pools import EXTRACTOR_POOL
from assets.resources import (
    DataRootResource,
    ExtractorResource,
    FilingSourceResource,
    ReportsResource,
)
from graphrag_core.extraction import Filer, run_extraction
from graphrag_core.extraction.quality import rejection_baseline, rejection_rate_verdict
from graphrag_core.extraction.validated_triples import rejection_summary, validate_extractions
from graphrag_core.tables.records import FilingMeta


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="extraction",
    kinds={"polars", "parquet"},
    # Extraction steps of parallel runs share a pool sized to the model server's capacity.
    pool=EXTRACTOR_POOL,
    description="One row per narrative chunk (10-K Items 1/1A/7/7A, 10-Q Part I Item 2 and Part "
    "II Item 1A, exhibits 99, transcripts; never tables) and extractor: the raw reply, status, "
    "attempts, latency and tokens. Replies are cached by chunk hash + backend + model + prompt "
    "version, so re-materializing makes no model call.",
)
def extractions(
    context: dg.AssetExecutionContext,
    raw_filings: pl.DataFrame,
    section_chunks: pl.DataFrame,
    data: dg.ResourceParam[DataRootResource],
    source: dg.ResourceParam[FilingSourceResource],
    extractor: dg.ResourceParam[ExtractorResource],
) -> dg.Output[pl.DataFrame]:
    tickers = source.company_tickers() if extractor.resolved_backend() == "rules" else []
    if extractor.resolved_backend() == "rules" and not tickers:
        # The rules still find legal-form names and aliases the passage defines.
        context.log.warning("no SEC ticker list for the rules gazetteer")
    backend = extractor.build(tickers=tickers)
    meta = FilingMeta.from_frame(raw_filings)
    table = run_extraction(
        section_chunks,
        backend,
        filer=Filer.of(meta),
        cache=data.extraction_cache(),
        fiscal_year=meta.fiscal_year,
    )
    statuses = dict(table.group_by("status").len().iter_rows())
    fresh = table.filter(~pl.col("cached"))
    return dg.Output(
        table,
        metadata={
            "backend": backend.name,
            "model": backend.model,
            "prompt_version": backend.prompt_version,
            "chunks": table.height,
            "ok": statuses.get("ok", 0),
            "parse_errors": statuses.get("parse_error", 0),
            "failed": statuses.get("failed", 0),
            "cached": int(table["cached"].sum()),
            "requests": int(fresh["attempts"].sum() or 0),
            "prompt_tokens": int(fresh["prompt_tokens"].sum() or 0),
            "completion_tokens": int(fresh["completion_tokens"].sum() or 0),
            "mean_latency_ms": round(
                float(fresh["latency_ms"].fill_null(0.0).sum()) / max(fresh.height, 1), 1
            ),
        },
    )


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="extraction",
    kinds={"polars", "parquet"},
    check_specs=[
        check_spec(
            "rejection_rate",
            "validated_triples",
            blocking=True,
            description="Share of candidate triples the gates rejected, against the rolling "
            "baseline of the last filings (median + max(GRAPHRAG_REPORT_SPIKE_MARGIN, 3 MAD); the "
            "fixed EXTRACTOR_REJECTION_RATE_THRESHOLD until there is one), and of extractions that "
            "failed or did not parse: a spike means the extractor regressed or a new format "
            "arrived",
        )
    ],
    description="Candidate triples through the gates (relation, verbatim quote, stated value, "
    "entities named in the quote, the mood of the clause that carries it, forward-looking "
    "language): accepted ones merged on (subject, relation, object, period) with every evidence "
    "span; rejected ones with their reason code.",
)
def validated_triples(
    context: dg.AssetExecutionContext,
    raw_filings: pl.DataFrame,
    extractions: pl.DataFrame,
    section_chunks: pl.DataFrame,
    data: dg.ResourceParam[DataRootResource],
    extractor: dg.ResourceParam[ExtractorResource],
    reports: dg.ResourceParam[ReportsResource],
):
    meta = FilingMeta.from_frame(raw_filings)
    table = validate_extractions(
        extractions, section_chunks, filer=Filer.of(meta), fiscal_year=meta.fiscal_year
    )
    summary = rejection_summary(table)
    yield dg.Output(
        table,
        metadata={
            "accepted": summary.accepted,
            "rejected": summary.rejected,
            "edges": summary.edges,
            "rejected_by_reason": dg.MetadataValue.json(summary.rejected_by_reason),
            "rejection_rate": round(summary.rejection_rate, 4),
        },
    )
    store = data.store()
    baseline = rejection_baseline(store, reports.settings, exclude=context.partition_key)
    verdict = rejection_rate_verdict(
        table, extractions, extractor.settings, baseline, margin=reports.settings.spike_margin
    )
    yield from recorded_results(store, context.partition_key, "validated_triples", [verdict])
