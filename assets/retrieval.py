"""chunk_index: every published chunk embedded (windows of it) into a LanceDB table with a
full-text index, incrementally; graph_snapshot records the version it publishes with. The work
is `graphrag_core.retrieval.chunk_index`; this module wires it."""

import dagster as dg
import polars as pl

from assets.exclusions import corpus_standing
from assets.resources import DataRootResource, RetrievalResource


@dg.asset(
    deps=[
        dg.AssetDep(key, partition_mapping=dg.AllPartitionMapping())
        for key in ("raw_filings", "section_chunks")
    ],
    group_name="serving",
    kinds={"lancedb"},
    description="Passage search index: every chunk of every filing, cut into windows the "
    "embedding model reads whole (all-MiniLM-L6-v2 from its package, offline, or an "
    "OpenAI-compatible embeddings endpoint), each with its vector and its text under the "
    "chunk's heading (company, form, section title) for the full-text index. Only new or "
    "changed chunks are embedded; an unchanged corpus writes no new version. graph_snapshot "
    "publishes the version it was built with, and search_chunks reads exactly that one.",
)
def chunk_index(
    context: dg.AssetExecutionContext,
    data: dg.ResourceParam[DataRootResource],
    retrieval: dg.ResourceParam[RetrievalResource],
) -> dg.MaterializeResult:
    store = data.store()
    # The filings the snapshot publishes: one that failed its own checks is left out here too,
    # so that search never finds a passage the snapshot does not hold.
    standing = corpus_standing(context.instance, store)
    if standing.nothing_left:
        # No snapshot is published then (graph_snapshot refuses): the index stays as it was.
        context.log.warning("every filing failed its own checks: the chunk index is left as it was")
        return dg.MaterializeResult(metadata={"left_as_it_was": True, "changed": False})
    # scan() gives an empty frame with the table's schema when there is no partition.
    chunks = store.scan("section_chunks", standing.included).collect()
    filings = store.scan("raw_filings", standing.included).collect()
    update = retrieval.update(chunks, filings, progress=context.log.info)
    figures = update.figures()
    return dg.MaterializeResult(
        metadata={
            **{k: v for k, v in figures.items() if v is not None},
            "model": update.ref.model_id,
            "path": dg.MetadataValue.path(update.ref.path),
            "changed": update.changed,
            "windows_per_chunk": round(update.ref.rows / max(update.ref.chunks, 1), 2),
            "input_chunks": int(chunks.select(pl.len()).item()),
        }
    )
