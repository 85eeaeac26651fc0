"""resolved_entities and knowledge_graph: the corpus-wide graph stage, updated incrementally
from every filing's validated triples and metric observations. The work is
`graphrag_core.graph` (resolution, the working store); this module wires it and guards it.

Both are unpartitioned: each run reads the partitions that changed since the last one (and
removes what a filing no longer in raw_filings contributed), in one transaction, so a failure
leaves the previous graph as it was. A filing that failed its own checks is left out (and what
it contributed before is removed), named in the run's log and metadata; the others go on.
"""

import dagster as dg

from assets.checks import check_result, check_spec
from assets.exclusions import corpus_standing
from assets.resources import DataRootResource, FilingSourceResource, GraphResource
from graphrag_core.graph.companies import collect_reference
from graphrag_core.graph.graph_checks import review_queue_within_limit
from graphrag_core.graph.graph_store import Reference
from graphrag_core.intake.reference import reference_source

GRAPH_INPUTS = ("raw_filings", "validated_triples", "metric_observations")


@dg.asset(
    deps=[dg.AssetDep(key, partition_mapping=dg.AllPartitionMapping()) for key in GRAPH_INPUTS],
    group_name="graph",
    kinds={"duckdb"},
    check_specs=[
        check_spec(
            "review_queue",
            "resolved_entities",
            blocking=False,
            description="the review queue (`filings-graph entities review`: unresolved subjects "
            "and objects, kept out of the graph with their evidence, and possible duplicates) "
            "holds at most GRAPHRAG_GRAPH_REVIEW_QUEUE_MAX_SHARE of the mentions the filings "
            "make; a warning, since what waits is held out and the graph stays correct",
        )
    ],
    description="Every subject and object the filings name, resolved to one entity: companies "
    "by CIK (ticker → SEC registered and former names → curated aliases → name variants), "
    "companies that file nothing with the SEC as ORG: nodes, risks as categories of the risk "
    "taxonomy, metrics; merges from the merge log applied; what does not resolve goes to the "
    "review queue. Stored in <data root>/graph/graph.duckdb.",
)
def resolved_entities(
    context: dg.AssetExecutionContext,
    data: dg.ResourceParam[DataRootResource],
    source: dg.ResourceParam[FilingSourceResource],
    graph: dg.ResourceParam[GraphResource],
):
    warn = context.log.warning
    standing = corpus_standing(context.instance, data.store())
    for line in standing.log_lines():
        warn(line)
    if standing.nothing_left:
        # Emptying the graph (and re-clustering it from nothing) for a snapshot that will not be
        # published would only cost the rebuild when the filings are fixed.
        warn("every filing failed its own checks: the graph is left as it was")

    with graph.store() as store:

        def reference(ciks: list[str]) -> Reference:
            # The data root's kept copy, refreshed from the source: a command that names no
            # source with reference data must not rebuild the graph without it. Its identity,
            # taken before the files are read, lets the store skip rows it has seen (SEC's
            # tickers alone are 730 KB of JSON, about 25 ms a filing).
            kept = source.reference(ciks, warn)
            identity = reference_source(kept.files(ciks))
            if identity == store.reference_source():
                return Reference(source=identity)
            ref = collect_reference(ciks, kept.company_tickers, kept.submissions, warn=warn)
            return Reference(ref.tickers, ref.submissions, source=identity)

        report = (
            None
            if standing.nothing_left
            else store.update_entities(
                data.store(),
                reference,
                merges=graph.merge_log().active(),
                review_similarity=graph.settings.review_similarity,
                auto_merge_similarity=graph.settings.auto_merge_similarity,
                filing_ids=standing.included,
            )
        )
        counts = store.counts()
        queued, mentions = store.review_share()
    yield dg.MaterializeResult(
        metadata={
            **(report.metadata() if report is not None else {"left_as_it_was": True}),
            "entities_by_type": dg.MetadataValue.json(counts["nodes_by_type"]),
            "filings_left_out": dg.MetadataValue.json([e.model_dump() for e in standing.excluded]),
        }
    )
    yield check_result(
        review_queue_within_limit(
            queued, mentions, graph.settings.review_queue_max_share, counts["claims_unresolved"]
        )
    )


@dg.asset(
    deps=[resolved_entities],
    group_name="graph",
    kinds={"duckdb"},
    check_specs=[
        check_spec(
            "graph_integrity",
            "knowledge_graph",
            blocking=True,
            description="every edge cites at least one piece of evidence and counts exactly what "
            "it has; every citation belongs to an edge and to a filing of the graph; "
            "superseded_by points at an edge that exists",
        )
    ],
    description="Nodes (companies, organizations, risks, metrics) and edges from validated "
    "triples and XBRL metric observations (REPORTS_METRIC): one edge per subject, relation, "
    "object, period and value with the union of its citations, its fiscal label and calendar "
    "range, first and last filing, superseded_by for restatements. Updated incrementally: only "
    "the filings that changed are re-derived; the entities each update touched are recorded.",
)
def knowledge_graph(graph: dg.ResourceParam[GraphResource]):
    with graph.store() as store:
        report = store.update_graph()
        verdict = store.integrity()
        counts = store.counts()
    yield dg.MaterializeResult(
        metadata={
            **report.metadata(),
            "edges": counts["edges"],
            "evidence": counts["evidence"],
            "superseded_edges": counts["superseded_edges"],
            "nodes_by_type": dg.MetadataValue.json(counts["nodes_by_type"]),
            "edges_by_relation": dg.MetadataValue.json(counts["edges_by_relation"]),
        }
    )
    yield check_result(verdict)
