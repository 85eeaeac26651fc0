"""communities and community_reports: the communities of the knowledge graph (hierarchical
Leiden) and a report on each, kept in `<data root>/graph/communities.duckdb`. The work is
`graphrag_core.graph.communities` (clustering, staleness, summarizers); this module wires it.

Both run in every corpus run in `apply` mode (cluster the first time; afterwards only mark what
the graph updates made dirty or withheld, and build missing reports); the schedules of
`pipelines/schedules_communities.py` run them in `refresh` mode (re-summarize dirty communities;
re-cluster past the dirty threshold) and `recluster` mode (monthly).
"""

import dagster as dg
from pydantic import Field

from assets.checks import check_result, check_spec
from assets.graph import knowledge_graph
from assets.resources import CommunityResource, GraphResource
from graphrag_core.graph.communities.stage import (
    MODES,
    citations_inside,
    update_communities,
    update_reports,
)
from graphrag_core.graph.communities.view import GraphView


class CommunityRunConfig(dg.Config):
    mode: str = Field(
        "apply",
        description="apply: cluster once, then mark dirty and build missing reports (every corpus "
        "run); refresh: also re-summarize dirty and withheld communities, re-clustering past the "
        "dirty threshold (daily schedule); recluster: re-cluster the whole graph (monthly "
        "schedule)",
    )


def run_mode(config: CommunityRunConfig) -> str:
    if config.mode not in MODES:
        raise dg.Failure(
            description=f"mode {config.mode!r} is not one of {', '.join(MODES)}; fix the "
            "run config (ops: communities/community_reports: config: mode)"
        )
    return config.mode


@dg.asset(
    deps=[knowledge_graph],
    group_name="graph",
    kinds={"duckdb"},
    description="Communities of the knowledge graph: hierarchical Leiden (igraph, seeded) over "
    "the undirected projection of current relations between companies and organizations, "
    "weighted by evidence; levels 0..n, a forest, communities over GRAPHRAG_COMMUNITIES_MAX_SIZE "
    "split again; modularity per level. Afterwards the graph's updates mark the communities of "
    "every touched entity dirty, new entities join their strongest neighbor's community, and "
    "reports over removed, changed or amended filings are withheld.",
)
def communities(
    context: dg.AssetExecutionContext,
    config: CommunityRunConfig,
    graph: dg.ResourceParam[GraphResource],
    community: dg.ResourceParam[CommunityResource],
):
    mode = run_mode(config)
    with graph.store() as graph_store, community.store() as store:
        outcome = update_communities(
            store, GraphView.of_store(graph_store), community.settings, mode
        )
        counts = store.counts()
    context.log.info(f"communities: {outcome.action} ({outcome.why})")
    return dg.MaterializeResult(
        metadata={
            **{
                k: dg.MetadataValue.json(v) if isinstance(v, dict | list) else v
                for k, v in outcome.metadata().items()
            },
            "communities_by_level": dg.MetadataValue.json(counts["communities_by_level"]),
            "dirty": counts["dirty"],
            "withheld": counts["withheld"],
        }
    )


@dg.asset(
    deps=[communities],
    group_name="graph",
    kinds={"duckdb"},
    check_specs=[
        check_spec(
            "findings_cite_inside_their_community",
            "community_reports",
            blocking=True,
            description="every citation of every current report (findings and summary) is a piece "
            "of evidence of an edge inside its community: a relation between two members or a "
            "risk exposure of one",
        )
    ],
    description="A report per community: title, summary, findings each citing the evidence of "
    "the edges behind it, member companies, dominant relations and risks, impact 0-10 with its "
    "explanation, the graph version, as_of and source filings; written by the embedded "
    "extractive summarizer, or by an OpenAI-compatible model (GRAPHRAG_COMMUNITIES_BASE_URL, "
    "_MODEL) whose findings are kept only when every citation is evidence inside the community.",
)
def community_reports(
    context: dg.AssetExecutionContext,
    config: CommunityRunConfig,
    graph: dg.ResourceParam[GraphResource],
    community: dg.ResourceParam[CommunityResource],
):
    mode = run_mode(config)
    with graph.store() as graph_store, community.store() as store:
        view = GraphView.of_store(graph_store)
        report = update_reports(store, view, community.settings, mode)
        verdict = citations_inside(store, view)
        counts = store.counts()
    context.log.info(f"community reports: {report.built} built by {report.summarizer}")
    yield dg.MaterializeResult(
        metadata={
            **report.metadata(),
            "reports": counts["reports"],
            "dirty": counts["dirty"],
            "withheld": counts["withheld"],
        }
    )
    yield check_result(verdict)
