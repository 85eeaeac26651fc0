"""extractions and validated_triples: narrative chunks → raw extractor replies → gated triples.

The work is `graphrag_core.extraction` and `graphrag_core.validation`; this module wires them and
guards the result with a per-filing rejection-rate check.
"""

import dagster as dg
import polars as pl

from graphrag_core.errors import GraphragError
from graphrag_core.extraction import ExtractionCache, Filer, run_extraction
from graphrag_core.validation import rejection_summary, validate_extractions
from pipelines.partitions import filings_partitions
from pipelines.resources import DataRootResource, ExtractorResource, FilingSourceResource


def _filer(raw_filings: pl.DataFrame) -> Filer:
    meta = raw_filings.row(0, named=True)
    return Filer(meta["company"] or meta["ticker"] or meta["filing_id"], meta["cik"])


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="extraction",
    kinds={"polars", "parquet"},
    description="One row per narrative chunk (10-K Items 1/1A/7/7A, 10-Q Part I Item 2 and Part "
    "II Item 1A, exhibits 99, transcripts; never tables) and extractor: the raw reply, status, "
    "attempts, latency and tokens. Replies are cached by chunk hash + backend + model + prompt "
    "version, so re-materializing makes no model call.",
)
def extractions(
    context: dg.AssetExecutionContext,
    raw_filings: pl.DataFrame,
    section_chunks: pl.DataFrame,
    data: DataRootResource,
    source: FilingSourceResource,
    extractor: ExtractorResource,
) -> dg.Output[pl.DataFrame]:
    tickers: list[dict] = []
    if extractor.resolved_backend() == "rules":
        try:
            tickers = source.source(data.data_root).company_tickers()
        except GraphragError as exc:  # the rules still find legal-form names and aliases
            context.log.warning(f"no SEC ticker list for the rules gazetteer ({exc})")
    backend = extractor.build(tickers=tickers)
    table = run_extraction(
        section_chunks,
        backend,
        filer=_filer(raw_filings),
        cache=ExtractionCache.under(data.data_root),
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
            "mean_latency_ms": round(float(fresh["latency_ms"].mean() or 0.0), 1),
        },
    )


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="extraction",
    kinds={"polars", "parquet"},
    check_specs=[
        dg.AssetCheckSpec(
            "rejection_rate",
            asset="validated_triples",
            blocking=True,
            description="Share of candidate triples the gates rejected, and of extractions that "
            "failed or did not parse, each at most EXTRACTOR_REJECTION_RATE_THRESHOLD: a spike "
            "means the extractor regressed or a new format arrived",
        )
    ],
    description="Candidate triples through the gates: accepted ones merged on (subject, relation, "
    "object, period) with every evidence span; rejected ones with their reason code.",
)
def validated_triples(
    context: dg.AssetExecutionContext,
    extractions: pl.DataFrame,
    section_chunks: pl.DataFrame,
    extractor: ExtractorResource,
):
    table = validate_extractions(extractions, section_chunks)
    summary = rejection_summary(table)
    yield dg.Output(
        table,
        metadata={
            "accepted": summary["accepted"],
            "rejected": summary["rejected"],
            "edges": summary["edges"],
            "rejected_by_reason": dg.MetadataValue.json(summary["rejected_by_reason"]),
            "rejection_rate": round(summary["rejection_rate"], 4),
        },
    )
    yield rejection_rate_check(table, extractions, extractor)


def rejection_rate_check(
    validated: pl.DataFrame, extractions: pl.DataFrame, extractor: ExtractorResource
) -> dg.AssetCheckResult:
    summary = rejection_summary(validated)
    threshold = extractor.rejection_rate_threshold
    unusable = int(extractions["status"].is_in(["failed", "parse_error"]).sum())
    unusable_share = unusable / extractions.height if extractions.height else 0.0
    judged = summary["candidates"] >= extractor.rejection_check_min_triples
    too_many_rejected = judged and summary["rejection_rate"] > threshold
    # Extraction failures are judged on any filing: if every request failed there is no triple
    # to reject, and that must not pass as a clean filing.
    too_many_unusable = unusable_share > threshold
    return dg.AssetCheckResult(
        check_name="rejection_rate",
        passed=not (too_many_rejected or too_many_unusable),
        metadata={
            "rejection_rate": round(summary["rejection_rate"], 4),
            "candidates": summary["candidates"],
            "judged": judged,
            "unusable_extractions": unusable,
            "unusable_share": round(unusable_share, 4),
            "threshold": threshold,
            "rejected_by_reason": dg.MetadataValue.json(summary["rejected_by_reason"]),
        },
    )
