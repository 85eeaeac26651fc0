"""filing_themes: themes stated across companies in their own risk-factor headings and MD&A
statements of a trend and its driver, kept in
`<data root>/graph/filing_themes`. The work is `graphrag_core.retrieval.themes` (members,
embeddings, clustering, staleness); this module wires it.

It runs in every corpus run in `apply` mode (cluster the first time; afterwards a new filing's
risk factors join the nearest theme, marked dirty, and a removed filing's leave), and with the
communities' schedules (`pipelines/schedules_communities.py`) in `refresh` mode (re-cluster when
anything is dirty) and `recluster` mode.
"""

import dagster as dg
import polars as pl

from assets.communities import CommunityRunConfig, run_mode
from assets.resources import CommunityResource, DataRootResource, RetrievalResource
from assets.text import section_chunks
from graphrag_core.retrieval.search import shared_embedder
from graphrag_core.retrieval.themes import (
    load_themes,
    save_themes,
    theme_sections,
    themes_dir,
    update_themes,
)


@dg.asset(
    deps=[
        dg.AssetDep(section_chunks, partition_mapping=dg.AllPartitionMapping()),
        dg.AssetDep("raw_filings", partition_mapping=dg.AllPartitionMapping()),
    ],
    group_name="graph",
    kinds={"parquet"},
    description="Themes across companies from their own risk factors (Item 1A headings and "
    "first sentences) and MD&A statements of a trend and its driver (embedded by the packaged "
    "MiniLM, average-linkage clusters at "
    "GRAPHRAG_COMMUNITIES_THEME_SIMILARITY spanning at least _THEME_MIN_COMPANIES companies), "
    "labelled by the words they share, every member cited to its chunk. A new filing's factors "
    "join the nearest theme and mark it dirty; the daily refresh re-clusters.",
)
def filing_themes(
    context: dg.AssetExecutionContext,
    config: CommunityRunConfig,
    data: dg.ResourceParam[DataRootResource],
    retrieval: dg.ResourceParam[RetrievalResource],
    community: dg.ResourceParam[CommunityResource],
):
    mode = run_mode(config)
    store = data.store()
    chunk_keys = store.partitions("section_chunks")
    chunks = (
        store.scan("section_chunks", chunk_keys).filter(theme_sections()).collect()
        if chunk_keys
        else pl.DataFrame()
    )
    filing_keys = store.partitions("raw_filings")
    filings = store.scan("raw_filings", filing_keys).collect() if filing_keys else pl.DataFrame()
    folder = themes_dir(data.data_root)
    if chunks.is_empty() or filings.is_empty():
        context.log.info("filing themes: no risk factors or MD&A yet")
        return dg.MaterializeResult(metadata={"action": "none", "themes": 0})
    outcome = update_themes(
        load_themes(folder),
        chunks,
        filings,
        shared_embedder(retrieval.settings).embed,
        community.settings,
        mode,
    )
    save_themes(folder, outcome.tables)
    context.log.info(f"filing themes: {outcome.action} ({outcome.why})")
    return dg.MaterializeResult(metadata=outcome.metadata())
