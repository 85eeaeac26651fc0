"""Hierarchical Leiden over the knowledge graph's undirected weighted projection.

The projection: one node per entity that can belong to a community (companies, organizations,
products, segments: every entity but risk categories and metrics, which every company shares and
which would pull everything into one lump; they stay attributes of their companies), one
undirected edge per pair of such entities related by a current, non-metric edge, weighted by the
evidence behind every edge of the pair in either direction. Directions and relation types stay in
the graph; the report of a community reads them there.

The hierarchy, a forest: level 0 is Leiden (modularity) over the whole projection, so every
connected part has roots of its own and an entity with no relations is a singleton community of
its own (kept, not dropped). A community with more members than `max_size` is split by Leiden on
its own subgraph into the next level's communities, recursively, until every community is under
the size or `max_levels` is reached; a community that Leiden cannot split stays a leaf.

Leiden is igraph's own (C), run with a random generator seeded per run from `seed`, the level
and the community being split, so a rebuild of the same graph gives the same communities, in the
same order, under the same ids. (leidenalg finds the same modularity about ten times slower.)
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import igraph as ig
import numpy as np
import polars as pl

from graphrag_core.common.ids import content_hash, sha256_text

# Risk categories and metrics are shared by almost every company: attributes, not members.
ATTRIBUTE_PREFIXES = ("RISK:", "METRIC:")
ALGORITHM = "igraph.community_leiden(objective_function='modularity')"


@dataclass(frozen=True)
class Projection:
    """Entities (sorted) and the undirected weighted pairs between them (`src < dst`)."""

    node_ids: list[str]
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray

    @property
    def nodes(self) -> int:
        return len(self.node_ids)

    @property
    def edges(self) -> int:
        return int(self.src.shape[0])


def project(nodes: Sequence[str], pairs: pl.DataFrame) -> Projection:
    """`nodes`: every entity to cluster; `pairs`: subject_id, object_id, weight (one row per
    graph edge). Endpoints not in `nodes` are added; self-pairs dropped."""
    ends = (
        pl.concat([pairs.get_column("subject_id"), pairs.get_column("object_id")])
        if pairs.height
        else pl.Series([], dtype=pl.String)
    )
    ids = pl.concat([pl.Series(list(nodes), dtype=pl.String), ends]).unique().sort()
    index = (
        pl.DataFrame({"entity_id": ids})
        .with_row_index("i")
        .with_columns(pl.col("i").cast(pl.Int64))
    )
    if not pairs.height:
        empty = np.zeros(0, dtype=np.int64)
        return Projection(ids.to_list(), empty, empty.copy(), np.zeros(0))
    joined = (
        pairs.lazy()
        .join(index.lazy().rename({"entity_id": "subject_id", "i": "s"}), on="subject_id")
        .join(index.lazy().rename({"entity_id": "object_id", "i": "o"}), on="object_id")
        .filter(pl.col("s") != pl.col("o"))
        .select(
            pl.min_horizontal("s", "o").alias("a"),
            pl.max_horizontal("s", "o").alias("b"),
            pl.col("weight").cast(pl.Float64),
        )
        .group_by("a", "b")
        .agg(pl.col("weight").sum())
        .sort("a", "b")
        .collect()
    )
    return Projection(
        ids.to_list(),
        joined.get_column("a").to_numpy().astype(np.int64),
        joined.get_column("b").to_numpy().astype(np.int64),
        joined.get_column("weight").to_numpy().astype(np.float64),
    )


@dataclass(frozen=True)
class Parameters:
    max_size: int
    max_levels: int
    seed: int
    resolution: float
    iterations: int
    beta: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "algorithm": ALGORITHM,
            "max_size": self.max_size,
            "max_levels": self.max_levels,
            "seed": self.seed,
            "resolution": self.resolution,
            "iterations": self.iterations,
            "beta": self.beta,
        }


@dataclass(frozen=True)
class LevelStats:
    level: int
    communities: int  # in the partition at this level (its own and the leaves above it)
    new_communities: int  # made at this level
    nodes: int
    modularity: float
    largest: int
    singletons: int
    seconds: float


@dataclass(frozen=True)
class Hierarchy:
    """The forest. Communities are numbered 0..k-1 (level by level, largest first); `paths[L][v]`
    is node v's community at level L (its leaf when the leaf is at a coarser level)."""

    projection: Projection
    parameters: Parameters
    level: np.ndarray  # per community
    parent: np.ndarray  # per community; -1 for roots
    size: np.ndarray
    weight: np.ndarray  # projection weight inside it
    is_leaf: np.ndarray
    paths: np.ndarray  # (levels, nodes)
    levels: list[LevelStats] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)  # community ids, by number

    @property
    def count(self) -> int:
        return int(self.level.shape[0])

    @property
    def depth(self) -> int:
        return int(self.paths.shape[0])

    def leaf_of(self) -> np.ndarray:
        return self.paths[-1] if self.depth else np.zeros(0, dtype=np.int64)


def _rng_seed(*parts: object) -> int:
    return int(content_hash(*parts, length=16), 16)


def leiden(
    graph: ig.Graph, seed: int, *, resolution: float, iterations: int, beta: float
) -> np.ndarray:
    """One Leiden run (modularity, weighted) with igraph's generator seeded for this run only."""
    if graph.vcount() == 0:
        return np.zeros(0, dtype=np.int64)
    # igraph draws from one process-wide generator; it is seeded for this run and put back.
    ig.set_random_number_generator(random.Random(seed))
    try:
        found = graph.community_leiden(
            objective_function="modularity",
            weights="weight" if graph.ecount() else None,
            resolution=resolution,
            beta=beta,
            n_iterations=iterations,
        )
    finally:
        ig.set_random_number_generator(random)
    return np.asarray(found.membership, dtype=np.int64)


def _graph(n: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray) -> ig.Graph:
    edges = np.column_stack([src, dst]) if src.shape[0] else np.zeros((0, 2), dtype=np.int64)
    return ig.Graph(n=n, edges=edges, directed=False, edge_attrs={"weight": weight})


def _ordered(labels: np.ndarray, nodes: np.ndarray) -> list[np.ndarray]:
    """Groups of `nodes` by label, largest first, ties by their smallest node (deterministic
    whatever numbers Leiden gave the labels)."""
    if labels.shape[0] == 0:
        return []
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    cuts = np.flatnonzero(np.diff(sorted_labels)) + 1
    groups = [np.sort(nodes[g]) for g in np.split(order, cuts)]
    groups.sort(key=lambda g: (-g.shape[0], int(g[0])))
    return groups


def hierarchical_leiden(projection: Projection, parameters: Parameters) -> Hierarchy:
    p = parameters
    n = projection.nodes
    src, dst, w = projection.src, projection.dst, projection.weight
    graph = _graph(n, src, dst, w)
    levels: list[LevelStats] = []
    level: list[int] = []
    parent: list[int] = []
    members: list[np.ndarray] = []

    t0 = time.perf_counter()
    current = np.full(n, -1, dtype=np.int64)
    for group in _ordered(
        leiden(
            graph,
            _rng_seed(p.seed, 0, "root"),
            resolution=p.resolution,
            iterations=p.iterations,
            beta=p.beta,
        ),
        np.arange(n),
    ):
        current[group] = len(level)
        level.append(0)
        parent.append(-1)
        members.append(group)
    paths = [current.copy()]
    stats_seconds = [time.perf_counter() - t0]
    new_at = [len(level)]

    for depth in range(1, p.max_levels):
        oversized = [
            c
            for c in range(len(level))
            if level[c] == depth - 1 and members[c].shape[0] > p.max_size
        ]
        if not oversized:
            break
        t0 = time.perf_counter()
        made = 0
        nxt = current.copy()
        split = np.zeros(len(level), dtype=bool)
        split[oversized] = True
        inside = (current[src] == current[dst]) & split[current[src]]
        e_comm = current[src][inside]
        order = np.argsort(e_comm, kind="stable")
        e_comm, e_src, e_dst, e_w = (
            e_comm[order],
            src[inside][order],
            dst[inside][order],
            w[inside][order],
        )
        starts = np.searchsorted(e_comm, oversized, side="left")
        ends = np.searchsorted(e_comm, oversized, side="right")
        for c, lo, hi in zip(oversized, starts, ends, strict=True):
            nodes = members[c]
            sub = _graph(
                nodes.shape[0],
                np.searchsorted(nodes, e_src[lo:hi]),
                np.searchsorted(nodes, e_dst[lo:hi]),
                e_w[lo:hi],
            )
            labels = leiden(
                sub,
                _rng_seed(p.seed, depth, c),
                resolution=p.resolution,
                iterations=p.iterations,
                beta=p.beta,
            )
            groups = _ordered(labels, nodes)
            if len(groups) < 2:
                continue  # Leiden finds no split: it stays a leaf, over the size or not
            for group in groups:
                nxt[group] = len(level)
                level.append(depth)
                parent.append(c)
                members.append(group)
                made += 1
        current = nxt
        paths.append(current.copy())
        stats_seconds.append(time.perf_counter() - t0)
        new_at.append(made)
        if not made:
            paths.pop()
            stats_seconds.pop()
            new_at.pop()
            break

    k = len(level)
    level_a = np.asarray(level, dtype=np.int64)
    parent_a = np.asarray(parent, dtype=np.int64)
    size = np.asarray([m.shape[0] for m in members], dtype=np.int64)
    has_child = np.zeros(k, dtype=bool)
    if k:
        has_child[parent_a[parent_a >= 0]] = True
    path_arr = np.vstack(paths) if paths else np.zeros((0, n), dtype=np.int64)
    inner = np.zeros(k)
    for depth in range(path_arr.shape[0]):
        at = path_arr[depth]
        same = at[src] == at[dst]
        sums = np.bincount(at[src][same], weights=w[same], minlength=k)
        own = level_a == depth
        inner[own] = sums[own]
    for depth in range(path_arr.shape[0]):
        at = path_arr[depth]
        sizes = np.bincount(at, minlength=k)[np.unique(at)] if n else np.zeros(0, dtype=np.int64)
        modularity = (
            graph.modularity(
                at.tolist(), weights="weight" if graph.ecount() else None, resolution=p.resolution
            )
            if graph.ecount()
            else 0.0
        )
        levels.append(
            LevelStats(
                level=depth,
                communities=int(np.unique(at).shape[0]) if n else 0,
                new_communities=new_at[depth],
                nodes=n,
                modularity=float(modularity),
                largest=int(sizes.max()) if sizes.shape[0] else 0,
                singletons=int((sizes == 1).sum()),
                seconds=stats_seconds[depth],
            )
        )
    ids = [
        f"L{level[c]}-"
        + sha256_text("\x1f".join(projection.node_ids[i] for i in members[c].tolist()))[:12]
        for c in range(k)
    ]
    return Hierarchy(
        projection=projection,
        parameters=p,
        level=level_a,
        parent=parent_a,
        size=size,
        weight=inner,
        is_leaf=~has_child,
        paths=path_arr,
        levels=levels,
        ids=ids,
    )


def member_rows(h: Hierarchy) -> pl.DataFrame:
    """(community number, level, node index, weighted degree inside the community) for every
    community at its own level."""
    p = h.projection
    frames = []
    for depth in range(h.depth):
        at = h.paths[depth]
        own = h.level[at] == depth
        same = at[p.src] == at[p.dst]
        degree = np.bincount(p.src[same], weights=p.weight[same], minlength=p.nodes) + np.bincount(
            p.dst[same], weights=p.weight[same], minlength=p.nodes
        )
        nodes = np.flatnonzero(own)
        frames.append(
            pl.DataFrame(
                {
                    "c": at[nodes],
                    "level": np.full(nodes.shape[0], depth, dtype=np.int32),
                    "node": nodes,
                    "weight": degree[nodes],
                }
            )
        )
    if not frames:
        return pl.DataFrame(
            schema={"c": pl.Int64, "level": pl.Int32, "node": pl.Int64, "weight": pl.Float64}
        )
    return pl.concat(frames)
