"""Sentence vectors stored at index time (issue 24, item 1): every prose chunk's sentences are
embedded when it is indexed, kept beside the chunk index under the chunk's key, and a hit's
passage is then picked by a dot product with the query's vector instead of embedding sentences
per call. With the real packaged model on the sample snapshot's chunks."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from graphrag_core.retrieval.chunk_index import read_current, update_index
from graphrag_core.retrieval.passages import best_span, hit_passage
from graphrag_core.retrieval.search import ChunkSearcher, Mentions, Weights, shared_embedder
from graphrag_core.retrieval.sentence_index import (
    SENTENCE_TABLE,
    chunk_sentences,
    dequantize,
    quantize,
)
from graphrag_core.settings import RetrievalSettings
from tests import snapshot_sample as sample

pytestmark = pytest.mark.real_embeddings

SETTINGS = RetrievalSettings(embed_backend="local")


@pytest.fixture(scope="module")
def embedder():
    return shared_embedder(SETTINGS)


@pytest.fixture
def tables():
    return sample.sample_tables()


def _searcher(root: Path, embedder, settings: RetrievalSettings = SETTINGS) -> ChunkSearcher:
    ref = read_current(root / settings.index_dir)
    assert ref is not None
    return ChunkSearcher(ref, embedder, settings, Mentions())


def test_sentences_are_embedded_at_index_time_and_follow_the_chunks(data_root, tables, embedder):
    first = update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    prose = tables.chunks.filter(pl.col("kind") != "table")
    expected = sum(len(chunk_sentences(t)) for t in prose.get_column("text").to_list())
    assert first.embedded_sentences == expected > 0

    searcher = _searcher(data_root, embedder)
    assert searcher.sentences is not None
    query = "self-driving taxi service"
    hit = next(
        h for h in searcher.search(query, k=20) if h.chunk_id == sample.GOOGL_BIZ["chunk_id"]
    )
    assert hit.key  # the hit carries the key its sentences are stored under
    sims = searcher.sentence_similarities(query, [hit.key])[hit.key]
    text = prose.filter(pl.col("chunk_id") == hit.chunk_id).get_column("text")[0]
    assert sorted(sims) == chunk_sentences(text)
    # The stored (int8) cosine is the model's own, to well under 0.02.
    q = embedder.embed([query])[0]
    for (a, b), cos in sims.items():
        assert math.isclose(cos, float(embedder.embed([text[a:b]])[0] @ q), abs_tol=0.02)

    again = update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    assert again.embedded_sentences == 0  # nothing new: nothing embedded

    # An edited chunk gets the new text's sentences; its old key's row is deleted.
    edited = tables.chunks.with_columns(
        pl.when(pl.col("chunk_id") == sample.GOOGL_BIZ["chunk_id"])
        .then(pl.lit("Waymo offers paid robotaxi rides in several cities. It grows fast."))
        .otherwise(pl.col("text"))
        .alias("text"),
        pl.when(pl.col("chunk_id") == sample.GOOGL_BIZ["chunk_id"])
        .then(pl.lit("edited"))
        .otherwise(pl.col("sha256"))
        .alias("sha256"),
    )
    third = update_index(data_root, edited, tables.filings, embedder, SETTINGS)
    assert third.embedded_sentences == 2
    searcher = _searcher(data_root, embedder)
    new = next(
        h for h in searcher.search(query, k=20) if h.chunk_id == sample.GOOGL_BIZ["chunk_id"]
    )
    assert new.key != hit.key
    assert searcher.sentence_similarities(query, [hit.key]) == {}
    assert len(searcher.sentence_similarities(query, [new.key])[new.key]) == 2


def test_an_index_without_sentence_vectors_picks_by_words(data_root, tables, embedder):
    off = SETTINGS.model_copy(update={"sentence_vectors": False})
    update = update_index(data_root, tables.chunks, tables.filings, embedder, off)
    assert update.embedded_sentences == 0
    assert not (data_root / off.index_dir / f"{SENTENCE_TABLE}.lance").exists()
    searcher = _searcher(data_root, embedder, off)
    assert searcher.sentences is None
    hits = searcher.search("self-driving taxi service", k=3)
    assert searcher.sentence_similarities("self-driving taxi service", [h.key for h in hits]) == {}


@pytest.mark.parametrize(
    "keys",
    [[], [None], [""], ["no-such-key"], ["x' OR '1'='1"], ["'; DROP TABLE sentences; --"]],
)
def test_hostile_keys_find_nothing(data_root, tables, embedder, keys):
    update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    searcher = _searcher(data_root, embedder)
    assert searcher.sentence_similarities("revenue", keys) == {}
    # and the table is still whole afterwards
    assert searcher.sentences is not None and searcher.sentences.table.count_rows() > 0


def test_quantized_vectors_keep_the_cosine():
    rng = np.random.default_rng(3)
    v = rng.normal(size=(50, 384)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    back = dequantize(quantize(v).ravel(), 384)
    assert np.abs((back * v).sum(axis=1) - 1).max() < 0.01
    assert quantize(np.array([[2.0, -2.0]])).tolist() == [[127, -127]]  # clipped, no wrap


TEXT = (
    "Our segments are described below. "
    "Panasonic makes the battery packs we install in cars. "
    "We compete with cell makers on battery price and supplier terms."
)
QUERY = "Who is the supplier of battery cells?"


def test_a_sentence_worded_unlike_the_question_wins_by_its_vector():
    spans = chunk_sentences(TEXT)
    assert len(spans) == 3
    words_only = best_span(TEXT, QUERY, 60)
    assert "compete" in words_only.text  # it holds "supplier", "battery" and "cell"
    sims = {spans[0]: 0.05, spans[1]: 0.71, spans[2]: 0.10}
    picked = best_span(TEXT, QUERY, 60, sims, 2.0)
    assert picked.text == TEXT[spans[1][0] : spans[1][1]]
    # Weight 0, no cosines, or cosines of other offsets: the word score alone, as before.
    for similarity, weight in ((sims, 0.0), (None, 2.0), ({(0, 3): 0.9}, 2.0)):
        assert best_span(TEXT, QUERY, 60, similarity, weight) == words_only
    # A negative cosine never lowers a sentence below its word score.
    assert best_span(TEXT, QUERY, 60, {s: -1.0 for s in spans}, 2.0) == words_only
    # hit_passage passes them on for prose.
    assert hit_passage(TEXT, "prose", QUERY, 60, 8, None, sims, 2.0).text == picked.text


def test_the_rerank_adds_each_chunks_best_sentence_cosine(data_root, tables, embedder):
    update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    searcher = _searcher(data_root, embedder)
    query = "self-driving taxi service"
    plain = {
        h.chunk_id: h
        for h in searcher.search(query, k=50, weights=Weights(sentences=0.0, learned=False))
    }
    ranked = searcher.search(
        query, k=50, weights=Weights(sentences=0.5, sentence_pool=50, learned=False)
    )
    assert {h.chunk_id for h in ranked} == set(plain)
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)
    sims = searcher.sentence_similarities(query, [h.key for h in ranked])
    with_sentences = [h for h in ranked if sims.get(h.key or "")]
    assert with_sentences
    for h in with_sentences:
        added = h.score - plain[h.chunk_id].score
        assert math.isclose(added, 0.5 * max(sims[h.key or ""].values()), abs_tol=1e-6)
    # A pool of one only raises the first: the order stays as without the re-rank.
    one = searcher.search(
        query, k=50, weights=Weights(sentences=0.5, sentence_pool=1, learned=False)
    )
    assert [h.chunk_id for h in one] == list(plain)


@pytest.mark.parametrize(
    "field,value",
    [
        ("sentence_rerank", float("nan")),
        ("sentence_rerank", float("inf")),
        ("sentence_rerank", -0.01),
        ("sentence_rerank_pool", 0),
        ("passage_vector_weight", float("nan")),
        ("passage_vector_weight", -1.0),
    ],
)
def test_hostile_settings_are_refused(field, value):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        RetrievalSettings(**{field: value})


class _Counting:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self, inner):
        self.inner = inner
        self.model_id = inner.model_id
        self.dimensions = inner.dimensions
        self.windows = inner.windows
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.embed(texts)


def test_each_distinct_sentence_is_embedded_once(tmp_path, embedder):
    """A document that repeats one paragraph (boilerplate, or the 60 MB test filing) costs one
    embedding per distinct sentence, and every chunk still gets its own rows."""
    import lancedb

    from graphrag_core.retrieval.sentence_index import SentenceVectors, update_sentences

    para = "Our suppliers make the cells we use. Demand for vehicles may fall in a recession. "
    frame = pl.DataFrame(
        {
            "key": [f"k{i}" for i in range(40)] + ["odd"],
            "chunk_id": [f"c{i}" for i in range(40)] + ["c-odd"],
            "kind": ["text"] * 41,
            "text": [para * 3] * 40 + ["A different sentence about tariffs on imported steel."],
        }
    )
    counting = _Counting(embedder)
    db = lancedb.connect(str(tmp_path / "index"))
    total, _ = update_sentences(db, frame, counting, [], lambda _: None)
    assert total == 40 * 6 + 1  # every chunk's sentences are stored
    assert sorted(counting.texts) == sorted(
        {
            "Our suppliers make the cells we use.",
            "Demand for vehicles may fall in a recession.",
            "A different sentence about tariffs on imported steel.",
        }
    )
    vectors = SentenceVectors.open(str(tmp_path / "index"), embedder.dimensions)
    assert vectors is not None
    q = embedder.embed(["who makes the battery cells"])[0]
    best = vectors.best_by_chunk(["c0", "c39", "c-odd"], q)
    assert set(best) == {"c0", "c39", "c-odd"}
    assert math.isclose(best["c0"], best["c39"]) and best["c0"] > best["c-odd"]
