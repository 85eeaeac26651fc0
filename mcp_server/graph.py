"""The graph family: neighbors (one entity's relations, one or two hops) and graph_path (the
shortest evidence-backed paths between two entities). Local search and shared neighbours, which
read the same adjacency, are in `mcp_server.local_search`; the vocabulary is get_ontology's
(`mcp_server.status`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from graphrag_core.retrieval.paths import Step, shortest_paths
from graphrag_core.store.reader import PeriodFilter, Snapshot
from mcp_server import graph_queries
from mcp_server.context import (
    HIDDEN_RELATIONS,
    EntityId,
    Relation,
    ToolContext,
    resolve_entity,
    stamp,
)
from mcp_server.formatting import adjacent_edge, path_edge
from mcp_server.graph_edges import CITATIONS_PER_EDGE, edge_citations, edges_by_id, entity_ref
from mcp_server.graph_models import GraphEdge, GraphPath, NeighborsResult, PathResult, TwoHopPath
from mcp_server.graph_time import (
    NO_TIME,
    AsOfArg,
    PeriodArg,
    as_known,
    graph_time,
    known_paths,
    time_filter,
    time_params,
)

# Breadth of a traversal: the strongest edges of each node at each step.
NEIGHBOR_FANOUT = 50
PATH_FANOUT = 200
PATHS_SHOWN = 5


class GraphTools:
    """neighbors and graph_path over `ctx`'s reader."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx

    def neighbors(
        self,
        entity_id: EntityId,
        relation: Annotated[
            Relation | None,
            Field(
                description="only this relation; omit for all but REPORTS_METRIC and GUIDES "
                "(metric values: use get_metrics, or ask for them by name here)"
            ),
        ] = None,
        direction: Annotated[
            Literal["both", "out", "in"],
            Field(
                description="out: the entity is the subject (NVIDIA COMPETES_WITH x); in: it is "
                "the object (x SUPPLIES NVIDIA: NVIDIA's suppliers are relation=SUPPLIES, "
                "direction=in)"
            ),
        ] = "both",
        hops: Annotated[
            int,
            Field(
                ge=1,
                le=2,
                description="1: direct relations; 2: relations of "
                "those neighbors, each with the path through the middle node",
            ),
        ] = 1,
        period: PeriodArg = None,
        as_of: AsOfArg = None,
        include_superseded: Annotated[
            bool,
            Field(description="also edges a later filing restated (superseded_by says by which)"),
        ] = False,
        limit: Annotated[
            int, Field(ge=1, le=100, description="most edges (hops=1) or paths (hops=2)")
        ] = 25,
    ) -> NeighborsResult:
        """The knowledge graph around one entity: who supplies, buys from, competes with or
        owns it, which risks it reports, and (hops=2) what lies one step further.

        Use for relationship questions: "who supplies NVIDIA?" (relation=SUPPLIES,
        direction=in), "who competes with Boeing?", "which companies name Samsung?", "who else
        is exposed to export controls?" (entity_id=RISK:export-controls, direction=in), "which
        companies share NVIDIA's foundry?" (hops=2, relation=SUPPLIES). Every edge carries its
        citations: the filing, section, chunk_id and the verbatim sentence that states it (pass
        chunk_id to get_chunk for the whole passage), how many citations support it across
        filings, the fiscal period it is about (or the periods of the filings that state it),
        and superseded_by when restated. At two hops each path names the middle node (`via`),
        its first hop by first_edge_id (the first hops are listed once in `edges`, in full) and
        its second hop with its newest citation. Strongest (most cited) first; `truncated` says
        when there are more. `period` and `as_of` answer for a period or as known on a date
        ("who did NVIDIA name as competitors as of 2024-12-31?"); `time_filter` says which.
        """
        when = graph_time(period, as_of)
        with self.ctx.lease() as snap:
            node = resolve_entity(snap, entity_id)
            params = {
                "entity_id": node["entity_id"],
                "ord": node["adjacency_ord"],
                "relation": relation,
                "direction": direction,
                **time_params(when),
                "include_superseded": include_superseded,
                "hidden": HIDDEN_RELATIONS,
            }
            me = entity_ref(node["entity_id"], node["entity_type"], node["name"])
            common = {
                "entity": me,
                "hops": hops,
                "relation": relation,
                "direction": direction,
                "period": when.period,
                "time_filter": time_filter(when),
            }
            if hops == 1:
                rows = snap.query(graph_queries.NEIGHBORS, {**params, "limit": limit + 1})
                cites = edge_citations(snap, [r["edge_id"] for r in rows[:limit]])
                shown = [adjacent_edge(me, r, cites) for r in rows[:limit]]
                shown = as_known(snap, when, shown, CITATIONS_PER_EDGE)
                return NeighborsResult(
                    **stamp(snap),
                    **common,
                    edges=shown,
                    paths=[],
                    truncated=len(rows) > limit,
                    note=None
                    if shown
                    else "no edges match; try direction='both', another relation or no period",
                )
            rows = snap.query(
                graph_queries.NEIGHBORS_2,
                {
                    **params,
                    "limit": limit + 1,
                    "fanout": NEIGHBOR_FANOUT,
                    "per_middle": max(3, min(limit, 25)),
                },
            )
            kept = rows[:limit]
            # One citation per edge at two hops: the paths are the answer, get_chunk the detail.
            cites = edge_citations(
                snap, [i for r in kept for i in (r["first_edge_id"], r["edge_id"])], 1
            )
            # Most paths leave through the same few first hops: each is shown once, in `edges`
            # (the answer, and what every client parses and checks, about half the size).
            firsts: dict[str, GraphEdge] = {}
            paths = []
            for r in kept:
                via = entity_ref(r["entity_id"], r["via_type"], r["via_name"])
                if r["first_edge_id"] not in firsts:
                    firsts[r["first_edge_id"]] = adjacent_edge(me, r, cites, "first_")
                paths.append(
                    TwoHopPath(
                        via=via,
                        first_edge_id=r["first_edge_id"],
                        second=path_edge(via.entity_id, r, cites),
                        neighbor=entity_ref(
                            r["neighbor_id"], r["neighbor_type"], r["neighbor_name"]
                        ),
                    )
                )
            firsts_shown, paths = known_paths(snap, when, list(firsts.values()), paths)
            return NeighborsResult(
                **stamp(snap),
                **common,
                edges=firsts_shown,
                paths=paths,
                truncated=len(rows) > limit,
                note=None if paths else "no two-hop paths match; try hops=1 or fewer filters",
            )

    def graph_path(
        self,
        from_id: EntityId,
        to_id: EntityId,
        max_hops: Annotated[int, Field(ge=1, le=4, description="longest path to look for")] = 3,
        period: PeriodArg = None,
        as_of: AsOfArg = None,
    ) -> PathResult:
        """The shortest evidence-backed paths between two entities in the knowledge graph.

        Use for "how is Tesla connected to NVIDIA?" or "do Apple and TSMC's customers
        overlap?": returns up to five shortest paths (each hop an edge with its citations,
        read in its own direction), through suppliers, customers, competitors, subsidiaries and
        counterparties first; only when none exists within max_hops does it go through a shared
        risk category (`through_risks` then says so). Metric edges are never traversed.
        `period` / `as_of`: only edges stated for that period or known by that date (as in
        neighbors); `time_filter` says which.
        """
        when = graph_time(period, as_of)
        with self.ctx.lease() as snap:
            source = resolve_entity(snap, from_id)
            target = resolve_entity(snap, to_id)
            a, b = source["entity_id"], target["entity_id"]
            found: list[list[tuple[str, str]]] = []
            through_risks = False
            for risks_allowed in (False, True):
                found = shortest_paths(
                    a,
                    b,
                    max_hops,
                    (source["adjacency_ord"], target["adjacency_ord"]),
                    path_step(snap, risks_allowed, when),
                )
                if found:
                    through_risks = risks_allowed
                    break
            shown = found[:PATHS_SHOWN]
            edge_ids = [e for path in shown for _, e in path]
            edges = edges_by_id(snap, edge_ids)
            node_ids = sorted({a, b} | {n for path in shown for n, _ in path})
            names = {
                r["entity_id"]: entity_ref(r["entity_id"], r["entity_type"], r["name"])
                for r in snap.query(graph_queries.NODE_NAMES, {"ids": node_ids})
            }
            known = as_known(snap, when, list(edges.values()), CITATIONS_PER_EDGE)
            edges = {e.edge_id: e for e in known}
            paths = [
                GraphPath(
                    nodes=[names[a], *(names[n] for n, _ in path)],
                    edges=[edges[e] for _, e in path],
                )
                for path in shown
                if all(e in edges for _, e in path)
            ]
            return PathResult(
                **stamp(snap),
                source=names[a],
                target=names[b],
                hops=len(found[0]) if found else None,
                paths=paths,
                through_risks=through_risks and bool(found),
                truncated=len(found) > PATHS_SHOWN,
                time_filter=time_filter(when),
            )


def path_step(snap: Snapshot, through_risks: bool, when: PeriodFilter | None = None) -> Step:
    """One breadth-first step of graph_path over the snapshot: the strongest current edges of
    each frontier node (by ordinal), risk categories traversed only when `through_risks`;
    `when`: only edges stated for its period or known (and not yet restated) by its date."""
    timing = time_params(when) if when else NO_TIME

    def step(frontier: list[int]) -> list[dict[str, Any]]:
        return snap.query(
            graph_queries.PATH_STEP,
            {
                "frontier": frontier,
                "hidden": HIDDEN_RELATIONS,
                "through_risks": through_risks,
                "fanout": PATH_FANOUT,
                **timing,
            },
        )

    return step
