"""raw_filings: the filing's documents fetched and kept, its metadata read. The work is
`graphrag_core.intake.raw_filing`; this module wires it."""

import dagster as dg
import polars as pl

from assets.partitions import filings_partitions
from assets.pools import EDGAR_POOL
from assets.resources import DataRootResource, FilingSourceResource, ParsingResource
from graphrag_core.intake.raw_filing import ingest_filing, needs_ticker_map


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="intake",
    kinds={"polars", "parquet"},
    # Steps that call EDGAR share a pool, so parallel runs stay within what SEC tolerates (the
    # request rate itself is held by the EDGAR client's token bucket, shared across processes).
    pool=EDGAR_POOL,
    description="One row of filing metadata (dei facts > SGML header > cover page > source); "
    "the documents' bytes are kept under raw/ and listed in raw_filing_documents.",
)
def raw_filings(
    context: dg.AssetExecutionContext,
    data: dg.ResourceParam[DataRootResource],
    source: dg.ResourceParam[FilingSourceResource],
    parsing: dg.ResourceParam[ParsingResource],
) -> dg.Output[pl.DataFrame]:
    ref = data.catalog().get(context.partition_key)
    store = data.store()
    fetched = source.fetch(ref)
    tickers = source.ticker_map() if needs_ticker_map(ref) else {}
    raw = ingest_filing(ref, fetched, store, parsing.parse, tickers=tickers)
    store.write("raw_filing_documents", raw.documents, context.partition_key)
    for warning in raw.meta.warnings:
        context.log.warning(f"{context.partition_key}: {warning}")
    meta = raw.meta
    return dg.Output(
        raw.frame(),
        metadata={
            "form": meta.form,
            "cik": meta.cik or "",
            "company": meta.company or "",
            "period_end": str(meta.period_end or ""),
            "documents": raw.documents.height,
            "bytes": meta.bytes,
            "inline_xbrl": meta.is_inline_xbrl,
            "warnings": len(meta.warnings),
        },
    )
