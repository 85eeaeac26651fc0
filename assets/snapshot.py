"""graph_snapshot: every stage's tables, published as one immutable DuckDB snapshot that the MCP
server picks up on its next call. The work is `graphrag_core.graph.snapshot_inputs` (gathering)
and `graphrag_core.store` (building, verifying, publishing); this module wires them and gates.

A filing that failed its own checks (a failed blocking check recorded by the per-filing assets,
or a per-filing stage that failed or never finished) is left out, and the manifest names it
with the reason and the fix; the others publish. The snapshot's own checks still block: every
edge has evidence, and the staged snapshot must open read-only and match its manifest before
`LATEST` moves; nor is a snapshot published when every filing was left out. Either way the last
good snapshot stays current.
"""

from dataclasses import replace

import dagster as dg

from assets.checks import check_result, check_spec, metadata_value
from assets.communities import community_reports
from assets.exclusions import corpus_standing
from assets.graph import knowledge_graph, resolved_entities
from assets.pools import EDGAR_POOL
from assets.resources import (
    CommunityResource,
    DataRootResource,
    FilingSourceResource,
    GraphResource,
    RetrievalResource,
    SnapshotStoreResource,
)
from graphrag_core.graph.companies import CompanyReference, collect_reference
from graphrag_core.graph.graph_checks import edges_have_evidence
from graphrag_core.graph.snapshot_inputs import SNAPSHOT_INPUTS, gather_snapshot_tables
from graphrag_core.retrieval.themes import load_themes, themes_dir
from graphrag_core.store.shrink import CHECK as SHRINK_CHECK
from graphrag_core.store.shrink import (
    GraphSize,
    allowed_shrink,
    current_baseline,
    record_refusal,
    shrink_refusal,
    shrink_verdict,
)


@dg.asset(
    # Every partition of each input is read; the snapshot is whole-corpus, hence unpartitioned.
    deps=[
        *(dg.AssetDep(key, partition_mapping=dg.AllPartitionMapping()) for key in SNAPSHOT_INPUTS),
        resolved_entities,
        knowledge_graph,
        "chunk_index",
        community_reports,
        "filing_themes",
    ],
    group_name="serving",
    kinds={"duckdb"},
    pool=EDGAR_POOL,  # reads SEC reference data (tickers, submissions) for the companies table
    check_specs=[
        check_spec(
            "edges_have_evidence",
            "graph_snapshot",
            blocking=True,
            description="every edge has a verbatim evidence row (chunk and span); checked on the "
            "gathered tables before anything is staged, so an uncitable edge is never published",
        ),
        check_spec(
            SHRINK_CHECK,
            "graph_snapshot",
            blocking=True,
            description="the build has not markedly fewer registrants, company nodes or edges of "
            "any relation than the current snapshot (GRAPHRAG_SNAPSHOT_MAX_SHRINK_SHARE, "
            "GRAPHRAG_SNAPSHOT_SHRINK_TOLERANCE), beyond what removed filings contributed, unless "
            "GRAPHRAG_SNAPSHOT_ALLOW_SHRINK (--allow-shrink) names a reason; e.g. a rebuild "
            "without SEC's reference data is refused instead of published",
        ),
        check_spec(
            "current_snapshot_opens",
            "graph_snapshot",
            blocking=True,
            description="the staged snapshot opens read-only, its file matches the manifest's "
            "sha256, and every table has the row count the manifest records; checked before "
            "LATEST moves, so a snapshot that fails it is never served",
        ),
    ],
    description="The published snapshot: companies, filings, chunks, metrics and the knowledge "
    "graph (nodes, edges with their evidence, entity aliases; the review queue's size in the "
    "manifest), communities with their reports and cited findings, themes from the filings' "
    "risk factors, in one DuckDB file with a manifest (version, as_of, "
    "counts, inputs with sha256, code version, the filings left out with the reason and the fix); "
    "LATEST is swapped atomically once it is complete and verified. A filing that failed its own "
    "checks is left out and the others publish; not published when every filing was left out, "
    "nor when nothing changed. Serve it with `filings-graph mcp`.",
)
def graph_snapshot(
    context: dg.AssetExecutionContext,
    data: dg.ResourceParam[DataRootResource],
    source: dg.ResourceParam[FilingSourceResource],
    snapshots: dg.ResourceParam[SnapshotStoreResource],
    graph: dg.ResourceParam[GraphResource],
    retrieval: dg.ResourceParam[RetrievalResource],
    community: dg.ResourceParam[CommunityResource],
):
    store = data.store()
    warn = context.log.warning
    standing = corpus_standing(context.instance, store)
    left_out = [e.model_dump() for e in standing.excluded]
    if standing.nothing_left:
        # Publishing nothing in place of the last good snapshot would only degrade what is served.
        raise dg.Failure(
            description=f"publish blocked: every filing ({len(standing.excluded)}) failed its own "
            "checks; the last good snapshot stays current. Fix each, or take it out:\n"
            + "\n".join(e.describe() for e in standing.excluded[:20]),
            metadata={"filings_left_out": dg.MetadataValue.json(left_out)},
        )
    for line in standing.log_lines():
        warn(line)

    def reference(ciks: list[str]) -> CompanyReference:
        kept = source.reference(ciks, warn)  # the data root's copy, refreshed from the source
        return collect_reference(ciks, kept.company_tickers, kept.submissions, warn=warn)

    with graph.store() as graph_store:
        graph_tables = graph_store.tables()
    # The communities stage's tables: served reports (current and stale), the others withheld.
    with community.store() as community_store:
        community_tables = community_store.tables() if community_store.clustered() else None
    tables = gather_snapshot_tables(
        store,
        reference,
        graph_tables,
        community_tables,
        community.settings,
        filing_ids=standing.included,
    )
    # The themes stage's tables, kept to the snapshot's filings (None before its first run).
    themes = load_themes(themes_dir(data.data_root))
    tables = replace(tables, excluded=tuple(standing.excluded), filing_themes=themes).consistent()
    evidence = edges_have_evidence(tables)
    yield check_result(evidence)
    if not evidence.passed:
        raise dg.Failure(
            description=f"publish blocked: {evidence.summary()}; the last good snapshot stays "
            "current",
            metadata={k: metadata_value(v) for k, v in evidence.figures.items()},
        )
    shrink = shrink_verdict(
        current_baseline(snapshots.store(), set(tables.filings.get_column("filing_id"))),
        GraphSize.of(tables),
        snapshots.settings,
    )
    record_refusal(data.data_root, shrink)
    yield check_result(shrink)
    if not shrink.passed:
        raise dg.Failure(
            description=shrink_refusal(shrink, source.kept_reference().folder),
            metadata={k: metadata_value(v) for k, v in shrink.figures.items()},
        )
    index = retrieval.current()
    if index is not None and index.chunks != tables.chunks.height:
        warn(
            f"chunk index version {index.version} holds {index.chunks} chunks, the snapshot "
            f"{tables.chunks.height}; materialize chunk_index to bring it in line"
        )
    tables = replace(tables, chunk_index=index)
    snapshot_store = snapshots.store()
    staged = snapshot_store.stage_if_changed(
        tables,
        progress=lambda stage, path: context.log.debug(f"snapshot {stage}: {path}"),
        allowed_shrink=allowed_shrink(shrink),
    )
    if staged is None:
        version = snapshot_store.current_version()
        yield dg.AssetCheckResult(
            check_name="current_snapshot_opens",
            passed=True,
            metadata={"version": version, "unchanged": True},
        )
        yield dg.MaterializeResult(
            metadata={
                "version": version,
                "published": False,
                "filings_left_out": dg.MetadataValue.json(left_out),
            }
        )
        return
    verification = staged.verify()
    yield dg.AssetCheckResult(
        check_name="current_snapshot_opens",
        passed=verification.passed,
        severity=dg.AssetCheckSeverity.ERROR,
        metadata={k: metadata_value(v) for k, v in verification.figures().items()},
    )
    if not verification.passed:
        staged.discard()
        raise dg.Failure(
            description=f"staged snapshot {staged.version} failed verification "
            f"({verification.describe()}); LATEST was not moved"
        )
    manifest = staged.commit()
    yield dg.MaterializeResult(
        metadata={
            "version": manifest.version,
            "published": True,
            "filings_left_out": dg.MetadataValue.json(left_out),
            "as_of": str(manifest.as_of or ""),
            "code_version": manifest.code_version,
            "path": dg.MetadataValue.path(str(snapshot_store.database_path(manifest.version))),
            **{f"rows_{name}": count for name, count in manifest.counts.items()},
        }
    )
