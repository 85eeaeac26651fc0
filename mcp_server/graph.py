"""The graph family: neighbors (one entity's relations, one or two hops) and graph_path (the
shortest evidence-backed paths between two entities). Local search and shared neighbours, which
read the same adjacency, are in `mcp_server.local_search`; the vocabulary is get_ontology's
(`mcp_server.status`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from graphrag_core.store.reader import PERIOD_LABEL_PATTERN, Snapshot
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
from mcp_server.graph_edges import edge_citations, edges_by_id, entity_ref
from mcp_server.graph_models import GraphEdge, GraphPath, NeighborsResult, PathResult, TwoHopPath

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
        period: Annotated[
            str | None,
            Field(
                max_length=16,
                pattern=PERIOD_LABEL_PATTERN,
                description="a fiscal label (FY2025, Q2-FY2026): edges stated for it or in a filing for it",
            ),
        ] = None,
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
        when there are more.
        """
        with self.ctx.lease() as snap:
            node = resolve_entity(snap, entity_id)
            params = {
                "entity_id": node["entity_id"],
                "ord": node["adjacency_ord"],
                "relation": relation,
                "direction": direction,
                "period": period,
                "include_superseded": include_superseded,
                "hidden": HIDDEN_RELATIONS,
            }
            me = entity_ref(node["entity_id"], node["entity_type"], node["name"])
            common = {
                "entity": me,
                "hops": hops,
                "relation": relation,
                "direction": direction,
                "period": period,
            }
            if hops == 1:
                rows = snap.query(graph_queries.NEIGHBORS, {**params, "limit": limit + 1})
                cites = edge_citations(snap, [r["edge_id"] for r in rows[:limit]])
                shown = [adjacent_edge(me, r, cites) for r in rows[:limit]]
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
            return NeighborsResult(
                **stamp(snap),
                **common,
                edges=list(firsts.values()),
                paths=paths,
                truncated=len(rows) > limit,
                note=None if paths else "no two-hop paths match; try hops=1 or fewer filters",
            )

    def graph_path(
        self,
        from_id: EntityId,
        to_id: EntityId,
        max_hops: Annotated[int, Field(ge=1, le=4, description="longest path to look for")] = 3,
    ) -> PathResult:
        """The shortest evidence-backed paths between two entities in the knowledge graph.

        Use for "how is Tesla connected to NVIDIA?" or "do Apple and TSMC's customers
        overlap?": returns up to five shortest paths (each hop an edge with its citations,
        read in its own direction), through suppliers, customers, competitors, subsidiaries and
        counterparties first; only when none exists within max_hops does it go through a shared
        risk category (`through_risks` then says so). Metric edges are never traversed.
        """
        with self.ctx.lease() as snap:
            source = resolve_entity(snap, from_id)
            target = resolve_entity(snap, to_id)
            a, b = source["entity_id"], target["entity_id"]
            found: list[list[tuple[str, str]]] = []
            through_risks = False
            for risks_allowed in (False, True):
                found = self._shortest_paths(
                    snap,
                    a,
                    b,
                    max_hops,
                    risks_allowed,
                    (source["adjacency_ord"], target["adjacency_ord"]),
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
            )

    def _shortest_paths(
        self,
        snap: Snapshot,
        a: str,
        b: str,
        max_hops: int,
        through_risks: bool,
        ords_ab: tuple[int | None, int | None],
    ) -> list[list[tuple[str, str]]]:
        """Bidirectional breadth-first search; every shortest path as [(node, edge into it)]."""
        if a == b:
            return []
        parents: tuple[dict[str, list[tuple[str, str]]], dict[str, list[tuple[str, str]]]] = (
            {a: []},
            {b: []},
        )
        # graph_adjacency is read by entity ordinal (nodes.adjacency_ord); a node without edges has none.
        ords = {n: o for n, o in zip((a, b), ords_ab, strict=True) if o is not None}
        frontiers = ([a] if a in ords else [], [b] if b in ords else [])
        hops = [0, 0]
        meet: set[str] = set()
        while not meet and hops[0] + hops[1] < max_hops and frontiers[0] and frontiers[1]:
            side = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
            rows = snap.query(
                graph_queries.PATH_STEP,
                {
                    "frontier": [ords[n] for n in frontiers[side]],
                    "hidden": HIDDEN_RELATIONS,
                    "through_risks": through_risks,
                    "fanout": PATH_FANOUT,
                },
            )
            seen, nxt = parents[side], []
            level: dict[str, list[tuple[str, str]]] = {}
            for r in rows:
                node = r["neighbor_id"]
                if node in seen:
                    continue
                ords[node] = r["neighbor_ord"]
                level.setdefault(node, []).append((r["entity_id"], r["edge_id"]))
            for node, links in level.items():
                seen[node] = links
                nxt.append(node)
            hops[side] += 1
            frontiers = (nxt, frontiers[1]) if side == 0 else (frontiers[0], nxt)
            meet = set(parents[0]) & set(parents[1])

        def walk(node: str, side: int) -> list[list[tuple[str, str]]]:
            """Paths from the side's root to `node` as [(node, edge)] (root excluded)."""
            links = parents[side][node]
            if not links:
                return [[]]
            out = []
            for prev, edge in links:
                for head in walk(prev, side):
                    out.append([*head, (node, edge)])
                    if len(out) > 50:
                        return out
            return out

        paths: list[list[tuple[str, str]]] = []
        for m in sorted(meet):
            for head in walk(m, 0):
                for tail in walk(m, 1):
                    # The backward half runs from b to m: reverse it into m → … → b.
                    nodes_back = [n for n, _ in tail]
                    edges_back = [e for _, e in tail]
                    back_nodes = [*reversed(nodes_back[:-1]), b] if tail else []
                    back = list(zip(back_nodes, reversed(edges_back), strict=True))
                    path = [*head, *back]
                    if path and len({n for n, _ in path}) == len(path):
                        paths.append(path)
        paths.sort(key=lambda p: (len(p), [e for _, e in p]))
        shortest = len(paths[0]) if paths else 0
        return [p for p in paths if len(p) == shortest]
