"""Shared fixtures. The corpus is found through one setting, FILINGS_CORPUS, defaulting to
../shared/corpus; under CI=true a missing corpus fails the run instead of skipping tests."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from graphrag_core.settings import default_corpus

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _corpus_path() -> Path | None:
    env = os.environ.get("FILINGS_CORPUS")
    if env:
        return Path(env).expanduser().resolve()
    return default_corpus()


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    path = _corpus_path()
    if path is None or not (path / "filings").is_dir():
        message = (
            f"shared corpus not found (FILINGS_CORPUS={os.environ.get('FILINGS_CORPUS')!r}, "
            "default ../shared/corpus); set FILINGS_CORPUS to the corpus folder"
        )
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def corpus_manifest(corpus_dir: Path) -> list[dict]:
    return json.loads((corpus_dir / "manifest.json").read_text(encoding="utf-8"))


def corpus_file(corpus_dir: Path, relative: str) -> Path:
    return corpus_dir / "filings" / relative


@pytest.fixture
def data_root(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    return root


# -- embeddings ------------------------------------------------------------------------------
# Every pipeline run now ends with the chunk_index asset. The packaged model embeds a few dozen
# windows a second on these machines, so tests that run the pipeline for other reasons embed
# through the OpenAI-compatible endpoint backend against the loopback server (hashed vectors,
# the real HTTP path); tests of retrieval itself are marked `real_embeddings` and use the model.
@pytest.fixture(scope="session")
def embeddings_server():
    from tests.openai_server import OpenAICompatibleServer

    with OpenAICompatibleServer() as server:
        yield server


# The learned relation classifier (on by default) always embeds with the packaged model, which
# is exported to ONNX once per model cache, by default under each data root: a test's fresh data
# root would re-export it (torch, tens of seconds) for every pipeline run. One cache per session.
@pytest.fixture(scope="session")
def shared_model_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def encoder(shared_model_cache):
    """The packaged MiniLM's ONNX int8 encoder, as the learned relation classifier reads it: one
    session for every test that scores relations with the real model."""
    from graphrag_core.retrieval.onnx_embedder import OnnxEmbedder
    from graphrag_core.settings import RetrievalSettings

    return OnnxEmbedder(RetrievalSettings(model_cache=shared_model_cache))


@pytest.fixture(autouse=True)
def _embeddings_endpoint(request, monkeypatch):
    if request.node.get_closest_marker("real_embeddings"):
        yield
        return
    if "GRAPHRAG_RETRIEVAL_MODEL_CACHE" not in os.environ:
        cache = request.getfixturevalue("shared_model_cache")
        monkeypatch.setenv("GRAPHRAG_RETRIEVAL_MODEL_CACHE", str(cache))
    server = request.getfixturevalue("embeddings_server")
    monkeypatch.setenv("GRAPHRAG_RETRIEVAL_EMBED_BACKEND", "openai")
    monkeypatch.setenv("GRAPHRAG_RETRIEVAL_EMBED_BASE_URL", server.base_url)
    monkeypatch.setenv("GRAPHRAG_RETRIEVAL_EMBED_MODEL", "hashed-test")
    yield
