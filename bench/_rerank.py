"""Training and cross-validating the learned re-rank (issue 24, item 1, fourth round). Not a
benchmark itself: bench/retrieval.py calls it with `--train-rerank` (writes the weights file)
and `--splits` (prints the cross-validated figure beside the two paths).

Training data: the dev questions (`dev`, `dev_new`, `dev_guide`) and the spent blind sets
(`spent`: 447 questions of five guide-only authors, each set measured once and then spent);
never held-out, never a blind set that has not been spent.
For each, the fused pool (the search's hand-set fusion, no re-rank) and its features
(`ChunkSearcher.pool_features`), labelled 1 for the chunks holding the quote.

Choice: the L2 weight and the pool size by cross-validation with companies left out: the
tickers, sorted, are dealt round-robin into FOLDS folds, a fold's questions are scored by a
model trained on the other folds' questions only. Printed: hit@8 and mean reciprocal rank of
the answer over all training questions, learned (cross-validated) beside the hand-set search's.
Aggregates only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench import _questions
from graphrag_core.retrieval.rerank import RerankModel, fit_pairwise
from graphrag_core.retrieval.search import ChunkSearcher, Weights

FOLDS = 5
K = 8
POOLS = (30, 40, 50)
L2S = (0.1, 1.0, 10.0, 100.0)


@dataclass
class Pool:
    """One question's fused pool: features, labels, its company and the hand-set ranks."""

    ticker: str
    x: np.ndarray
    y: np.ndarray
    hand_rank: int | None  # the answer's rank in the hand-set search's top 50 (None: absent)


def collect(
    searcher: ChunkSearcher, questions: Sequence[dict], size: int = max(POOLS)
) -> list[Pool]:
    """The training questions' pools (questions whose quote no chunk holds are left out)."""
    out = []
    for q in questions:
        if q["split"] not in _questions.TRAIN_SPLITS or not q["answers"]:
            continue
        plain = searcher.search(
            q["question"], k=size, weights=Weights(sentences=0.0, learned=False)
        )
        hand = searcher.search(q["question"], k=size, weights=Weights(learned=False))
        ranks = [i for i, h in enumerate(hand, 1) if h.chunk_id in q["answers"]]
        out.append(
            Pool(
                q.get("ticker") or "",
                searcher.pool_features(plain, q["question"]),
                np.array([h.chunk_id in q["answers"] for h in plain], dtype=bool),
                ranks[0] if ranks else None,
            )
        )
    return out


def folds(pools: Sequence[Pool], n: int = FOLDS) -> list[int]:
    """Each pool's fold: its ticker's place among the sorted tickers, dealt round-robin."""
    tickers = sorted({p.ticker for p in pools})
    fold_of = {t: i % n for i, t in enumerate(tickers)}
    return [fold_of[p.ticker] for p in pools]


def learned_rank(model: RerankModel, pool: Pool, size: int) -> int | None:
    """The first answer's rank after the model orders the pool's first `size` (answers beyond
    the pool keep no rank: the learned path cannot lift them)."""
    x, y = pool.x[:size], pool.y[:size]
    if not y.any():
        return None
    scores = model.score(x)
    order = sorted(range(len(x)), key=lambda i: -scores[i])  # stable: fused order breaks ties
    return next(r for r, i in enumerate(order, 1) if y[i])


def _figures(ranks: Sequence[int | None]) -> tuple[float, float]:
    n = max(len(ranks), 1)
    return (
        sum(r is not None and r <= K for r in ranks) / n,
        sum(1 / r for r in ranks if r is not None) / n,
    )


def cross_validate(pools: Sequence[Pool], size: int, l2: float) -> tuple[float, float]:
    """Leave-companies-out hit@8 and MRR of the learned order over every pool."""
    fold = folds(pools)
    ranks: list[int | None] = [None] * len(pools)
    for f in sorted(set(fold)):
        train = [p for p, g in zip(pools, fold, strict=True) if g != f]
        model = fit_pairwise([p.x[:size] for p in train], [p.y[:size] for p in train], l2)
        for i, (p, g) in enumerate(zip(pools, fold, strict=True)):
            if g == f:
                ranks[i] = learned_rank(model, p, size)
    return _figures(ranks)


def choose(
    pools: Sequence[Pool], out: Path | None = None, embedding: str | None = None
) -> tuple[int, float, list[str]]:
    """Every (pool size, L2) cross-validated; the best by hit@8, then MRR, then the larger
    L2 and the smaller pool (the simpler model). With `out`, the model trained on every dev
    pool with the chosen values is written there. Returns the choice and the printed lines."""
    hand = _figures([p.hand_rank for p in pools])
    lines = [
        f"   {len(pools)} training questions (dev + spent), "
        f"{len(set(p.ticker for p in pools))} companies, {FOLDS} folds by company",
        f"   hand-set search: hit@8 {hand[0]:.2f}, MRR {hand[1]:.3f}",
    ]
    best: tuple[float, float, float, int] | None = None
    for size in POOLS:
        for l2 in L2S:
            hit, mrr = cross_validate(pools, size, l2)
            lines.append(f"   learned, pool {size}, L2 {l2:g}: CV hit@8 {hit:.2f}, MRR {mrr:.3f}")
            key = (hit, mrr, l2, -size)
            if best is None or key > best:
                best = key
    assert best is not None
    size, l2 = -best[3], best[2]
    lines.append(f"   chosen: pool {size}, L2 {l2:g} (CV hit@8 {best[0]:.2f}, MRR {best[1]:.3f})")
    if out is not None:
        model = fit_pairwise(
            [p.x[:size] for p in pools],
            [p.y[:size] for p in pools],
            l2,
            embedding=embedding,
            about=(
                f"python bench/retrieval.py --train-rerank: {len(pools)} questions (dev + "
                f"spent blind), pool {size}, L2 {l2:g}, leave-companies-out CV hit@8 "
                f"{best[0]:.2f} (hand-set {hand[0]:.2f})"
            ),
        )
        out.write_text(model.to_json() + "\n", encoding="utf-8")
        lines.append(f"   weights written to {out}")
    return size, l2, lines
