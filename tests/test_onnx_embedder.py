"""The onnx embedding backend with the real packaged model: exported offline once per test
session, its float export agreeing with sentence-transformers to rounding (tokenizer, mean
pooling, normalization), its int8 export close to it, windows cut the same way, batches put
back in order, the export cached by the model's content, and a backend switch re-embedding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphrag_core.retrieval.chunk_index import update_index
from graphrag_core.retrieval.embedder import build_embedder
from graphrag_core.retrieval.onnx_embedder import (
    INT8_FILE,
    MODEL_FILE,
    export_dir,
    mean_pool,
    model_digest,
)
from graphrag_core.settings import RetrievalSettings, Settings
from tests import snapshot_sample as sample

pytestmark = pytest.mark.real_embeddings

TEXTS = [
    "NVIDIA Corp · 10-K · Risk Factors\nExport controls could restrict sales of our data "
    "center chips to China.",
    "Apple",
    "Net sales grew 6% as services revenue reached a record. " * 40,  # past 256 word pieces
    "The Company's credit facility contains covenants limiting additional indebtedness.",
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def torch_embedder():
    return build_embedder(RetrievalSettings(embed_backend="local"))


@pytest.fixture(scope="module")
def int8(cache):
    return build_embedder(RetrievalSettings(embed_backend="onnx", model_cache=cache))


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1)


def test_float_export_matches_sentence_transformers(cache, int8, torch_embedder):
    fp32 = build_embedder(
        RetrievalSettings(embed_backend="onnx", onnx_quantize="none", model_cache=cache)
    )
    ref = torch_embedder.embed(TEXTS)
    got = fp32.embed(TEXTS)
    assert got.shape == ref.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # Same tokens (with truncation), same pooling, same normalization: equal to rounding.
    assert _cos(ref, got).min() > 0.9999


def test_int8_vectors_stay_close_to_torch(int8, torch_embedder):
    cos = _cos(torch_embedder.embed(TEXTS), int8.embed(TEXTS))
    assert cos.mean() > 0.98 and cos.min() > 0.96, cos
    # ... and still rank: the export-control query meets the export-control passage first.
    query = int8.embed(["Are chip export restrictions a risk?"])[0]
    assert int(np.argmax(int8.embed(TEXTS) @ query)) == 0


def test_windows_and_token_counts_match_the_torch_backend(int8, torch_embedder):
    long_text = TEXTS[2] * 3
    assert int8.windows(long_text, 12) == torch_embedder.windows(long_text, 12)
    assert len(int8.windows(long_text, 12)) > 1
    for text in TEXTS:
        assert int8.count_tokens(text) == torch_embedder.count_tokens(text)


def test_length_sorted_batches_come_back_in_input_order(cache):
    # The float model: a text's vector does not depend on its batch, so order errors show.
    fp32 = build_embedder(
        RetrievalSettings(
            embed_backend="onnx", onnx_quantize="none", model_cache=cache, onnx_batch_size=2
        )
    )
    together = fp32.embed(TEXTS)
    alone = np.concatenate([fp32.embed([t]) for t in TEXTS])
    np.testing.assert_allclose(together, alone, atol=1e-4)
    assert fp32.embed([]).shape == (0, 384)


def test_int8_vectors_depend_little_on_batch_mates(cache):
    # Dynamic quantization scales activations per batch, so in batches a window's vector moves
    # with what it is batched with (padding included); one window per run makes a vector a
    # function of its text alone (an index built in one go equals one built incrementally).
    single = build_embedder(
        RetrievalSettings(embed_backend="onnx", model_cache=cache, onnx_batch_size=1)
    )
    alone = np.concatenate([single.embed([t]) for t in TEXTS])
    np.testing.assert_array_equal(single.embed(TEXTS), alone)
    batched = build_embedder(
        RetrievalSettings(embed_backend="onnx", model_cache=cache, onnx_batch_size=2)
    )
    cos = _cos(batched.embed(TEXTS), alone)
    assert cos.min() > 0.97 and cos.min() < 0.9999  # close, but not the same vectors


def test_export_is_cached_by_model_content(cache, int8, tmp_path):
    from graphrag_core.retrieval.embedding_model import model_folder, model_package

    settings = RetrievalSettings(embed_backend="onnx", model_cache=cache)
    folder = model_folder(model_package(settings))
    target = export_dir(folder, settings)
    assert (target / INT8_FILE).is_file() and (target / MODEL_FILE).is_file()
    assert int8.model_id.endswith(target.name[-16:])
    stamp = (target / INT8_FILE).stat().st_mtime_ns
    build_embedder(settings)  # a second load reads the cache, exports nothing
    assert (target / INT8_FILE).stat().st_mtime_ns == stamp
    assert [p.name for p in cache.iterdir() if p.name.startswith(".")] == []  # no leftovers

    # A model whose files differ gets another key (another export, another model id).
    other = tmp_path / "model"
    other.mkdir()
    for name in ("config.json", "tokenizer.json"):
        (other / name).write_bytes((folder / name).read_bytes())
    before = model_digest(other)
    (other / "config.json").write_text((folder / "config.json").read_text() + " ", encoding="utf-8")
    assert model_digest(other) != before


def test_switching_backend_re_embeds_the_index(data_root, cache, int8, torch_embedder):
    tables = sample.sample_tables()
    local = RetrievalSettings(embed_backend="local")
    onnx = RetrievalSettings(embed_backend="onnx", model_cache=cache)
    first = update_index(data_root, tables.chunks, tables.filings, torch_embedder, local)
    switched = update_index(data_root, tables.chunks, tables.filings, int8, onnx)
    assert int8.model_id != torch_embedder.model_id
    assert switched.embedded_chunks == first.embedded_chunks == tables.chunks.height
    assert (
        switched.deleted_chunks == tables.chunks.height and switched.ref.model_id == int8.model_id
    )
    again = update_index(data_root, tables.chunks, tables.filings, int8, onnx)
    assert (again.embedded_chunks, again.changed) == (0, False)


def test_settings_default_to_onnx_cached_under_the_data_root(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHRAG_RETRIEVAL_MODEL_CACHE", raising=False)  # conftest shares one
    settings = Settings(data_root=tmp_path)
    assert settings.retrieval.embed_backend == "onnx" and settings.retrieval.onnx_quantize == "int8"
    assert settings.retrieval.model_cache == tmp_path.resolve() / "models"


def test_mean_pool_ignores_padding():
    states = np.array([[[1.0, 0.0], [3.0, 0.0], [100.0, 100.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0]])
    np.testing.assert_allclose(mean_pool(states, mask), [[1.0, 0.0]])
