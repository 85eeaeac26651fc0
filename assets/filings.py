"""raw_filings and section_chunks: the first two per-filing stages."""


import dagster as dg
import polars as pl

from graphrag_core.filings import chunk_filing, ingest_filing
from graphrag_core.sections import form_family
from pipelines.partitions import filings_partitions
from pipelines.resources import DataRootResource, FilingSourceResource, ParsingResource

REQUIRED_10K_ITEMS = ("10-K/Item 1", "10-K/Item 1A", "10-K/Item 7")


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="intake",
    kinds={"polars", "parquet"},
    description="One row of filing metadata (dei facts > SGML header > cover page > source); "
    "the documents' bytes are kept under raw/ and listed in raw_filing_documents.",
)
def raw_filings(
    context: dg.AssetExecutionContext,
    data: DataRootResource,
    source: FilingSourceResource,
    parsing: ParsingResource,
) -> dg.Output[pl.DataFrame]:
    ref = data.catalog().get(context.partition_key)
    store = data.store()
    fetched = source.fetch(ref, data.data_root)
    tickers = source.ticker_map(data.data_root) if (ref.form or "UNKNOWN").upper() in {"UNKNOWN", "TRANSCRIPT"} else {}
    raw = ingest_filing(ref, fetched, store, parsing.parse(), tickers=tickers)
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


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="intake",
    kinds={"polars", "parquet"},
    check_specs=[
        dg.AssetCheckSpec("spans_match_text", asset="section_chunks", description="every prose/turn/qa chunk equals its span of the saved filing text"),
        dg.AssetCheckSpec("required_items_found", asset="section_chunks", description="10-K: Items 1, 1A and 7 found; 10-Q: Part I Item 2 found"),
    ],
    description="Section-aware chunks: never crossing a section, prose packed to a token "
    "budget, tables whole with their scale header, transcript Q&A kept together.",
)
def section_chunks(
    context: dg.AssetExecutionContext,
    raw_filings: pl.DataFrame,
    data: DataRootResource,
    parsing: ParsingResource,
):
    meta = raw_filings.row(0, named=True)
    store = data.store()
    documents = store.read("raw_filing_documents", context.partition_key)
    result = chunk_filing(meta, documents, store, parsing.chunking(), parsing.parse())
    for warning in result.warnings:
        context.log.warning(f"{context.partition_key}: {warning}")
    chunks = result.chunks
    sections = result.sections()
    yield dg.Output(
        chunks,
        metadata={
            "chunks": chunks.height,
            "sections": dg.MetadataValue.json(sections),
            "tables": int((chunks["kind"] == "table").sum()),
            "text_chars": result.text_chars,
            "seconds": round(result.seconds, 3),
            "warnings": len(result.warnings),
        },
    )
    text = store.read_text(meta["filing_id"])
    contiguous = chunks.filter(pl.col("kind") != "table")
    mismatched = [
        r["chunk_id"]
        for r in contiguous.select("chunk_id", "text", "char_start", "char_end").iter_rows(named=True)
        if text[r["char_start"] : r["char_end"]] != r["text"]
    ]
    yield dg.AssetCheckResult(
        check_name="spans_match_text",
        passed=not mismatched,
        metadata={"mismatched": len(mismatched), "first": mismatched[:5]},
    )
    family = form_family(meta["form"])
    required = REQUIRED_10K_ITEMS if family == "10-K" else ("10-Q/Part I/Item 2",) if family == "10-Q" else ()
    missing = [s for s in required if s not in sections]
    yield dg.AssetCheckResult(
        check_name="required_items_found",
        passed=not missing,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={"missing": missing, "form": meta["form"]},
    )
