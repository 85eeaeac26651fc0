"""section_chunks: the filing parsed into sections and chunks, with its checks. The work is
`graphrag_core.text`; this module wires it."""

import dagster as dg
import polars as pl

from assets.checks import check_spec, recorded_results
from assets.partitions import filings_partitions
from assets.resources import DataRootResource, ParsingResource
from graphrag_core.tables.records import FilingMeta
from graphrag_core.text.chunk_checks import (
    annual_report_items,
    required_items_found,
    spans_match_text,
)
from graphrag_core.text.filing_chunks import chunk_filing


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="text",
    kinds={"polars", "parquet"},
    check_specs=[
        check_spec(
            "spans_match_text",
            "section_chunks",
            blocking=True,
            description="every prose/turn/qa chunk equals its span of the saved filing text",
        ),
        check_spec(
            "required_items_found",
            "section_chunks",
            blocking=False,
            description="10-K: Items 1, 1A and 7 found; 10-Q: Part I Item 2 found",
        ),
        check_spec(
            "annual_report_items",
            "section_chunks",
            blocking=True,
            description="10-K: Items 1A and 7 found, or stated as incorporated by reference / not "
            "applicable / not required (Item 1A only for fiscal years ending from 1 Dec 2005)",
        ),
    ],
    description="Section-aware chunks: never crossing a section, prose packed to a token "
    "budget, tables whole with their scale header, transcript Q&A kept together.",
)
def section_chunks(
    context: dg.AssetExecutionContext,
    raw_filings: pl.DataFrame,
    data: dg.ResourceParam[DataRootResource],
    parsing: dg.ResourceParam[ParsingResource],
):
    meta = FilingMeta.from_frame(raw_filings)
    store = data.store()
    documents = store.read("raw_filing_documents", context.partition_key)
    result = chunk_filing(meta, documents, store, parsing.chunking, parsing.parse)
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
    text = store.read_text(meta.filing_id)
    verdicts = [
        spans_match_text(chunks, text),
        required_items_found(sections, meta.form),
        annual_report_items(sections, meta.form, meta.period_end, text),
    ]
    yield from recorded_results(store, meta.filing_id, "section_chunks", verdicts)
