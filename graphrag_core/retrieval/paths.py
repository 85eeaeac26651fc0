"""Shortest paths between two entities of the knowledge graph: a bidirectional breadth-first
search over a step function the caller supplies. The MCP server's graph_path reads each step
from a published snapshot's adjacency; the search itself reads nothing, so it is tested on
plain graphs.

A node is known by its id and, once reached, by its ordinal (the snapshot's `adjacency_ord`,
by which a step reads its rows); a node without an ordinal has no edges and is never expanded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

# [(node, edge into it)], the start excluded.
Path = list[tuple[str, str]]
# Frontier ordinals → the edges leaving them: rows with entity_id (the frontier node), edge_id,
# neighbor_id and neighbor_ord, strongest first.
Step = Callable[[list[int]], Iterable[Mapping[str, Any]]]

# Half-paths walked back from a meeting node, at most: a hub reached many ways would otherwise
# multiply the paths combined at the middle.
MAX_HALF_PATHS = 50


def shortest_paths(
    a: str,
    b: str,
    max_hops: int,
    ords_ab: tuple[int | None, int | None],
    step: Step,
) -> list[Path]:
    """Every shortest path from `a` to `b` of at most `max_hops` edges, each as
    [(node, edge into it)], sorted by edge ids; [] when none (or when a is b).

    The smaller frontier is expanded first; the search stops at the first level where the
    two sides meet, so every path returned has the same, least, length. A path never visits a
    node twice."""
    if a == b:
        return []
    parents: tuple[dict[str, list[tuple[str, str]]], dict[str, list[tuple[str, str]]]] = (
        {a: []},
        {b: []},
    )
    ords = {n: o for n, o in zip((a, b), ords_ab, strict=True) if o is not None}
    frontiers = ([a] if a in ords else [], [b] if b in ords else [])
    hops = [0, 0]
    meet: set[str] = set()
    while not meet and hops[0] + hops[1] < max_hops and frontiers[0] and frontiers[1]:
        side = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
        rows = step([ords[n] for n in frontiers[side]])
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

    def walk(node: str, side: int) -> list[Path]:
        """Paths from the side's root to `node` as [(node, edge)] (root excluded)."""
        links = parents[side][node]
        if not links:
            return [[]]
        out = []
        for prev, edge in links:
            for head in walk(prev, side):
                out.append([*head, (node, edge)])
                if len(out) > MAX_HALF_PATHS:
                    return out
        return out

    paths: list[Path] = []
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
