"""A softmax layer over entity-marked sentence embeddings: is the marked organisation the filer's
supplier, customer, competitor, subsidiary or parent, or none of these?

The embeddings come from a `SentenceEncoder` handed in by the caller (the pipeline, the eval
command, the bench: the packaged MiniLM in onnxruntime lives in `retrieval`, a higher layer).
The weights file records the encoder's `model_id`, which names the model's files, the export
recipe and the quantization: weights trained against other vectors are meaningless, so loading
them for another encoder is a `ConfigurationError` (never a silent fall-back: the configuration
asked for the classifier, and a run without it would publish a different graph unannounced).

Training is plain full-batch gradient descent on the cross-entropy with L2, classes weighted by
their inverse frequency, from zero weights: deterministic for the same examples and seed (the
seed only orders the examples, which float sums depend on).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.common.ids import content_hash
from graphrag_core.extraction.relation_candidates import (
    CUE_STEMS,
    FEATURE_COUNT,
    IMPLIED_LEAD,
    STAND_IN,
    Candidate,
    cue_features,
    marked,
)

NONE = "none"
PARENT = "PARENT_OF_FILER"  # the filer is the candidate's subsidiary
CLASSES: tuple[str, ...] = (
    NONE,
    "SUPPLIES",
    "CUSTOMER_OF",
    "COMPETES_WITH",
    "SUBSIDIARY_OF",
    PARENT,
)
FORMAT = 1
# What the rows besides the embedding mean: weights of another feature list are refused.
FEATURES = content_hash(STAND_IN, IMPLIED_LEAD, *CUE_STEMS, FEATURE_COUNT, length=12)


class SentenceEncoder(Protocol):
    """Unit vectors for texts; `model_id` names the model and how it is run."""

    model_id: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class RelationClassifier:
    weights: np.ndarray  # (dimensions, classes)
    bias: np.ndarray  # (classes,)
    model_id: str  # the encoder the weights were trained against
    classes: tuple[str, ...] = CLASSES
    trained_on: str = ""  # digest of the training examples
    features: str = FEATURES

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        """Class probabilities per row; a row that is not finite gets all its mass on `none`."""
        vectors = np.asarray(vectors, dtype=np.float64)
        if vectors.size == 0:
            return np.zeros((0, len(self.classes)))
        finite = np.isfinite(vectors).all(axis=1)
        logits = np.where(finite[:, None], vectors, 0.0) @ self.weights + self.bias
        out = _softmax(logits)
        out[~finite] = 0.0
        out[~finite, self.classes.index(NONE)] = 1.0
        return out

    def check_encoder(self, encoder: SentenceEncoder) -> None:
        if encoder.model_id != self.model_id:
            raise ConfigurationError(
                f"the relation classifier's weights were trained against the embedding model "
                f"{self.model_id!r}, but the encoder is {encoder.model_id!r}: retrain them "
                "(`filings-graph train-relation-classifier`) or set EXTRACTOR_LEARNED=false"
            )

    def save(self, path: Path) -> None:
        try:
            self._write(path)
        except OSError as exc:
            raise ConfigurationError(f"{path}: cannot write the weights there ({exc})") from exc

    def _write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": FORMAT,
            "model_id": self.model_id,
            "classes": list(self.classes),
            "trained_on": self.trained_on,
            "features": self.features,
        }
        with path.open("wb") as fh:
            np.savez_compressed(
                fh,
                weights=self.weights.astype(np.float32),
                bias=self.bias.astype(np.float32),
                meta=np.array(json.dumps(meta, sort_keys=True)),
            )

    @classmethod
    def load(cls, path: Path) -> RelationClassifier:
        if not path.is_file():
            raise ConfigurationError(
                f"{path}: no relation classifier weights; build them with `filings-graph "
                "train-relation-classifier` or set EXTRACTOR_LEARNED=false"
            )
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                weights = np.asarray(data["weights"], dtype=np.float64)
                bias = np.asarray(data["bias"], dtype=np.float64)
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigurationError(
                f"{path}: not a relation classifier weights file ({exc})"
            ) from exc
        classes = tuple(meta.get("classes") or ())
        if meta.get("format") != FORMAT or classes != CLASSES or meta.get("features") != FEATURES:
            raise ConfigurationError(
                f"{path}: weights of another format, class list or feature list; retrain them "
                "(`filings-graph train-relation-classifier`)"
            )
        if weights.shape != (weights.shape[0], len(classes)) or bias.shape != (len(classes),):
            raise ConfigurationError(f"{path}: weights of shape {weights.shape} {bias.shape}")
        if not (np.isfinite(weights).all() and np.isfinite(bias).all()):
            raise ConfigurationError(f"{path}: weights that are not finite")
        return cls(
            weights, bias, str(meta.get("model_id")), classes, str(meta.get("trained_on")), FEATURES
        )


def featurize(candidates: list[Candidate], encoder: SentenceEncoder) -> np.ndarray:
    """One row per candidate: the embedding of its marked sentence, then its cue features."""
    if not candidates:
        return np.zeros((0, 0))
    vectors = np.asarray(encoder.embed([marked(c) for c in candidates]), dtype=np.float64)
    return np.hstack([vectors, np.array([cue_features(c) for c in candidates])])


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def train(
    vectors: np.ndarray,
    labels: list[str],
    model_id: str,
    *,
    seed: int = 20261207,
    epochs: int = 2000,
    learning_rate: float = 10.0,
    l2: float = 1e-5,
    trained_on: str = "",
) -> RelationClassifier:
    """Fit the softmax layer (see the module doc); `labels` are names from CLASSES."""
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or len(x) != len(labels) or not len(x):
        raise ValueError(f"{len(labels)} labels for vectors of shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("training vectors that are not finite")
    unknown = sorted(set(labels) - set(CLASSES))
    if unknown:
        raise ValueError(f"labels outside {CLASSES}: {unknown}")
    order = np.random.default_rng(seed).permutation(len(x))
    x = x[order]
    y = np.array([CLASSES.index(labels[i]) for i in order])
    onehot = np.eye(len(CLASSES))[y]
    counts = onehot.sum(axis=0)
    # Inverse frequency, so that the few positives are not drowned by `none`; absent classes
    # weigh nothing (their logits only fall).
    class_weight = np.where(counts > 0, len(y) / (len(CLASSES) * np.maximum(counts, 1)), 0.0)
    row_weight = class_weight[y] / class_weight[y].sum()
    w = np.zeros((x.shape[1], len(CLASSES)))
    b = np.zeros(len(CLASSES))
    for _ in range(epochs):
        p = _softmax(x @ w + b)
        grad = (p - onehot) * row_weight[:, None]
        w -= learning_rate * (x.T @ grad + l2 * w)
        b -= learning_rate * grad.sum(axis=0)
    return RelationClassifier(w, b, model_id, CLASSES, trained_on)
