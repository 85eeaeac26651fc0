"""graphrag_core.retrieval.paths: the bidirectional search graph_path runs, on plain graphs (a
step function over an adjacency list, as the snapshot's graph_adjacency holds every edge from
both ends), checked against every simple path enumerated by brute force."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from graphrag_core.retrieval.paths import Path, shortest_paths

Edge = tuple[str, str, str]  # (edge_id, subject, object)


class Graph:
    """An undirected multigraph read the way graph_path reads graph_adjacency: by ordinal."""

    def __init__(self, edges: Iterable[Edge]):
        self.edges = list(edges)
        nodes = sorted({n for _, s, o in self.edges for n in (s, o)})
        self.ord = {n: i for i, n in enumerate(nodes)}
        self.node = {i: n for n, i in self.ord.items()}
        self.steps: list[list[str]] = []

    def step(self, frontier: list[int]) -> list[dict[str, object]]:
        names = [self.node[o] for o in frontier]
        self.steps.append(names)
        rows = []
        for edge_id, s, o in self.edges:
            for me, other in ((s, o), (o, s)):
                if me in names:
                    rows.append(
                        {
                            "entity_id": me,
                            "edge_id": edge_id,
                            "neighbor_id": other,
                            "neighbor_ord": self.ord[other],
                        }
                    )
        return rows

    def paths(self, a: str, b: str, max_hops: int) -> list[Path]:
        return shortest_paths(a, b, max_hops, (self.ord.get(a), self.ord.get(b)), self.step)


def brute_force(edges: list[Edge], a: str, b: str, max_hops: int) -> list[Path]:
    """Every simple path a → b of the least length ≤ max_hops, as [(node, edge into it)]."""
    found: list[Path] = []

    def extend(node: str, path: Path, visited: set[str]) -> None:
        if node == b and path:
            found.append(path)
            return
        if len(path) == max_hops:
            return
        for edge_id, s, o in edges:
            for me, other in ((s, o), (o, s)):
                if me == node and other not in visited:
                    extend(other, [*path, (other, edge_id)], visited | {other})

    extend(a, [], {a})
    if not found:
        return []
    least = min(len(p) for p in found)
    return sorted((p for p in found if len(p) == least), key=lambda p: (len(p), [e for _, e in p]))


def test_a_direct_edge_is_the_one_path():
    g = Graph([("e1", "A", "B"), ("e2", "B", "C")])
    assert g.paths("A", "B", 3) == [[("B", "e1")]]
    assert g.paths("B", "A", 3) == [[("A", "e1")]]


def test_every_shortest_path_and_no_longer_one():
    g = Graph(
        [
            ("e1", "A", "X"),
            ("e2", "X", "B"),
            ("e3", "A", "Y"),
            ("e4", "Y", "B"),
            ("e5", "A", "P"),
            ("e6", "P", "Q"),
            ("e7", "Q", "B"),
        ]
    )
    assert g.paths("A", "B", 4) == [[("X", "e1"), ("B", "e2")], [("Y", "e3"), ("B", "e4")]]


def test_max_hops_bounds_the_search():
    chain = Graph([("e1", "A", "B"), ("e2", "B", "C"), ("e3", "C", "D")])
    assert chain.paths("A", "D", 2) == []
    assert chain.paths("A", "D", 3) == [[("B", "e1"), ("C", "e2"), ("D", "e3")]]
    # Two steps of one hop each, one from each end: the search never reads past max_hops.
    chain.steps.clear()
    chain.paths("A", "D", 2)
    assert len(chain.steps) == 2


def test_the_same_node_the_unknown_node_and_the_node_without_edges():
    g = Graph([("e1", "A", "B")])
    assert g.paths("A", "A", 3) == []
    assert shortest_paths("A", "Z", 3, (g.ord["A"], None), g.step) == []
    assert g.steps == []  # a side with nothing to expand: no step is read at all


def test_parallel_edges_are_separate_paths_and_no_node_is_visited_twice():
    g = Graph([("e2", "A", "B"), ("e1", "A", "B"), ("e3", "B", "C"), ("e4", "C", "A")])
    assert g.paths("A", "B", 3) == [[("B", "e1")], [("B", "e2")]]
    for path in g.paths("A", "C", 3):
        assert len({n for n, _ in path}) == len(path)


def test_the_smaller_frontier_is_expanded_first():
    # A hub on A's side: after one step from each end, B's side (one node) goes next.
    hub = [(f"h{i}", "A", f"N{i}") for i in range(5)]
    g = Graph([*hub, ("e1", "N0", "M"), ("e2", "M", "B")])
    assert g.paths("A", "B", 4) == [[("N0", "h0"), ("M", "e1"), ("B", "e2")]]
    assert g.steps[:3] == [["A"], ["B"], ["M"]]


@pytest.mark.parametrize("seed", range(60))
def test_random_graphs_agree_with_brute_force(seed):
    rng = random.Random(seed)
    nodes = [f"N{i}" for i in range(7)]
    edges = [(f"e{i:02d}", *rng.sample(nodes, 2)) for i in range(rng.randint(5, 11))]
    g = Graph(edges)
    for a in nodes[:3]:
        for b in nodes[3:]:
            for max_hops in (1, 2, 3, 4):
                if a in g.ord and b in g.ord:
                    assert g.paths(a, b, max_hops) == brute_force(edges, a, b, max_hops), (
                        a,
                        b,
                        max_hops,
                    )
