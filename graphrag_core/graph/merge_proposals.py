"""Merge proposals by embedding similarity: the second way the review queue finds candidates
for a provisional organization (issue 22), beside Jaro-Winkler over names (resolution.py).

Names alone miss a duplicate written differently ("Taiwan Semiconductor" and "TSMC", a parent
and its trading name); a sentence-embedding of the name with the sentence that introduced it
("Sojitz, our supplier of footwear in Japan") places it near the entity whose own name and
context say the same. Proposals only: a merge is a person's decision through the merge log,
reversible by unmerge, because a wrong merge is worse than a duplicate.

The embedder is the project's (`retrieval.embedder.build_embedder`: the packaged MiniLM, or
its ONNX export); any object with `embed(texts) -> array` will do, which keeps this testable.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import polars as pl


class TextEmbedder(Protocol):
    def embed(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Described:
    """An entity with the words it is embedded by: its name and, when known, a sentence that
    names it."""

    entity_id: str
    name: str
    context: str = ""

    @property
    def text(self) -> str:
        return f"{self.name}: {self.context}" if self.context else self.name


@dataclass(frozen=True)
class MergeProposal:
    entity_id: str  # the provisional node
    into: str  # the entity it may be
    score: float  # cosine similarity
    via: str = "embedding"


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def propose_merges(
    provisional: Sequence[Described],
    known: Sequence[Described],
    embedder: TextEmbedder,
    threshold: float,
    limit: int = 3,
    apart: Collection[frozenset[str]] = (),
) -> list[MergeProposal]:
    """For each provisional organization, the known entities (never itself, never one it is
    named `apart` from) whose name and context embed at cosine ≥ `threshold`, best first, at
    most `limit` each."""
    if not provisional or not known:
        return []
    left = _unit(np.asarray(embedder.embed([p.text for p in provisional]), dtype=np.float32))
    right = _unit(np.asarray(embedder.embed([k.text for k in known]), dtype=np.float32))
    scores = left @ right.T
    out: list[MergeProposal] = []
    for i, item in enumerate(provisional):
        order = np.argsort(-scores[i], kind="stable")
        picked = 0
        for j in order:
            if picked >= limit or scores[i, j] < threshold:
                break
            if (
                known[j].entity_id == item.entity_id
                or frozenset((item.entity_id, known[j].entity_id)) in apart
            ):
                continue
            out.append(
                MergeProposal(item.entity_id, known[j].entity_id, round(float(scores[i, j]), 4))
            )
            picked += 1
    return out


def graph_proposals(
    contexts: pl.DataFrame,
    together: pl.DataFrame,
    embedder: TextEmbedder,
    threshold: float,
    limit: int = 3,
) -> list[MergeProposal]:
    """Merge proposals by meaning for a graph: every provisional organization of `contexts`
    (`GraphStore.organisation_contexts`) against every company and organization there, each
    embedded by its name and the first sentence that names it. Two entities the filings tell
    apart (`together`: pairs `a`, `b`, `GraphStore.named_together`: one chunk lists both, or
    an edge relates them) are never proposed: list-mates would otherwise look alike by their
    shared context. A pair of provisional nodes proposed both ways is listed once."""
    rows = contexts.iter_rows(named=True)
    described = [
        (
            Described(r["entity_id"], r["name"] or r["entity_id"], r["context"] or ""),
            bool(r["provisional"]),
        )
        for r in rows
    ]
    apart = {frozenset((a, b)) for a, b in together.select("a", "b").iter_rows()}
    proposals = propose_merges(
        [d for d, p in described if p], [d for d, _ in described], embedder, threshold, limit, apart
    )
    # Two provisional nodes proposed for each other are one decision: listed once.
    seen: set[frozenset[str]] = set()
    out = []
    for p in proposals:
        pair = frozenset((p.entity_id, p.into))
        if pair not in seen:
            seen.add(pair)
            out.append(p)
    return out
