"""The packaged sentence-transformers model run by onnxruntime, its weights quantized to int8.

On a small CPU the torch model embeds about ten 256-word-piece windows a second; the same
network exported to ONNX with its matrix multiplications dynamically quantized to int8 (weights
per output channel, activations per batch) runs about 1.6x faster at a cosine of about 0.99
to the torch vectors (bench/retrieval.py `--compare-backends` prints both). Nothing is
downloaded: the model is exported once from the package's own safetensors (torch is needed for
that step only), quantized with onnxruntime.quantization, and cached under
`<model cache>/<package>-<hash of the model's files and the recipe>/`, so a different model, or
a different recipe, exports anew and never reads a stale file.

Tokenizing uses the model's own `tokenizer.json` (the same fast tokenizer sentence-transformers
wraps), truncated to the model's `max_seq_length`; pooling is sentence-transformers' mean over
the attention mask, then L2 normalization.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.common.ids import content_hash, sha256_stream
from graphrag_core.retrieval.embedding_model import (
    EmbeddingError,
    Window,
    cpu_threads,
    model_folder,
    model_package,
    window_spans,
)
from graphrag_core.settings import RetrievalSettings, model_cache_dir

log = logging.getLogger(__name__)

# Bump when the export or quantization recipe changes: the cache key changes, so every
# machine exports anew (and the model id changes, so the index re-embeds).
EXPORT_RECIPE = 1
OPSET = 17
MODEL_FILE = "model.onnx"
INT8_FILE = "model.int8.onnx"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# The model's files that decide its vectors (weights, architecture, tokenizer, pooling).
_MODEL_FILES = (
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "sentence_bert_config.json",
    "modules.json",
    "1_Pooling/config.json",
)


def model_digest(folder: Path) -> str:
    """SHA-256 over the model folder's files that decide its vectors (names and contents)."""

    def parts():
        for name in _MODEL_FILES:
            path = folder / name
            if not path.is_file():
                continue
            yield name + "\0"
            with path.open("rb") as fh:
                while block := fh.read(1 << 20):
                    yield block

    return sha256_stream(parts())


def _pooling_mode(folder: Path) -> None:
    """Only mean pooling is implemented here; a model that pools otherwise must say so."""
    config = folder / "1_Pooling" / "config.json"
    if not config.is_file():
        return
    modes = json.loads(config.read_text(encoding="utf-8"))
    on = sorted(k for k, v in modes.items() if k.startswith("pooling_mode") and v is True)
    if on != ["pooling_mode_mean_tokens"]:
        raise ConfigurationError(
            f"{config}: the onnx embedding backend pools by mean only, this model asks for {on}; "
            "set GRAPHRAG_RETRIEVAL_EMBED_BACKEND=local"
        )


def _max_seq_length(folder: Path, fallback: int) -> int:
    config = folder / "sentence_bert_config.json"
    if config.is_file():
        value = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length")
        if isinstance(value, int) and value > 0:
            return value
    return fallback


def export_dir(folder: Path, settings: RetrievalSettings) -> Path:
    """Where this model's exported files are cached (keyed by its content and the recipe)."""
    key = content_hash(model_digest(folder), EXPORT_RECIPE, OPSET, length=16)
    return model_cache_dir(settings) / f"{settings.local_model_package}-{key}"


def export_onnx(folder: Path, target: Path) -> None:
    """Export the transformer (token states out; pooling is done here) and its int8 version
    into `target`, atomically: written in a temporary folder beside it, then renamed, so two
    processes exporting at once never leave a half-written model."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel, AutoTokenizer

    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        # eager attention: the SDPA path traces a mask shortcut that is wrong for other batches.
        model = AutoModel.from_pretrained(
            str(folder), local_files_only=True, attn_implementation="eager"
        )
        model.eval()
        tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        sample = tokenizer(
            ["a short text", "a somewhat longer text, so that the batch is padded"],
            padding=True,
            return_tensors="pt",
        )

        class _States(torch.nn.Module):
            def __init__(self, inner: Any):
                super().__init__()
                self.inner = inner

            def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
                return self.inner(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    token_type_ids=token_type_ids,
                ).last_hidden_state

        # eval() on the wrapper: the exporter puts the module back in the mode it found it in,
        # and a fresh wrapper's train mode would switch the model's dropout on again.
        states = _States(model).eval()
        axes = {name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "token_states")}
        # The tracer warns that shape checks become constants; the check below runs the export
        # on a batch of another shape against torch instead of trusting or printing that.
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                states,
                tuple(sample[name] for name in _INPUTS),
                str(work / MODEL_FILE),
                input_names=list(_INPUTS),
                output_names=["token_states"],
                dynamic_axes=axes,
                opset_version=OPSET,
                dynamo=False,
            )
        _check_export(work / MODEL_FILE, states, tokenizer)
        # Matrix multiplications only (the embedding table stays exact), weights per output
        # channel: per-tensor weight scales cost about 0.08 of cosine on this model.
        root = logging.getLogger()
        quiet = _Drop("pre-processing before quantization")  # advice for static quantization
        root.addFilter(quiet)
        try:
            quantize_dynamic(
                work / MODEL_FILE,
                work / INT8_FILE,
                weight_type=QuantType.QInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul"],
            )
        finally:
            root.removeFilter(quiet)
        (work / "export.json").write_text(
            json.dumps(
                {
                    "source": str(folder),
                    "recipe": EXPORT_RECIPE,
                    "opset": OPSET,
                    "torch": torch.__version__,
                },
                indent=2,
            ),
            encoding="utf-8",
        )
        work.chmod(0o755)  # mkdtemp's 0700 would hide the cache from other users of the data root
        try:
            work.rename(target)
        except OSError:
            if not (target / INT8_FILE).is_file():  # not another process's finished export
                raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)


class _Drop(logging.Filter):
    def __init__(self, text: str):
        super().__init__()
        self.text = text

    def filter(self, record: logging.LogRecord) -> bool:
        return self.text not in record.getMessage()


def _check_export(path: Path, module: Any, tokenizer: Any) -> None:
    """The exported graph gives torch's token states on a batch of another size and length than
    the one it was traced with (a trace that froze a shape would fail here, not in search)."""
    import onnxruntime as ort
    import torch

    texts = [
        "one",
        "three short words",
        "a sentence that is a good deal longer than the others, "
        "with punctuation; and numbers: 1,234.5",
    ]
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        want = module(*(batch[name] for name in _INPUTS)).numpy()
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = session.run(None, {name: batch[name].numpy() for name in _INPUTS})[0]
    mask = batch["attention_mask"].numpy().astype(bool)
    diff = float(np.abs(got - want)[mask].max())
    if diff > 1e-3:
        raise EmbeddingError(f"the ONNX export of {path.parent} differs from torch by {diff:.2g}")


class OnnxEmbedder:
    """The packaged model's network in onnxruntime (int8 weights by default), loaded with no
    network; exports it on first use."""

    def __init__(self, settings: RetrievalSettings):
        self.settings = settings
        folder = model_folder(model_package(settings))
        _pooling_mode(folder)
        target = export_dir(folder, settings)
        weights = target / (INT8_FILE if settings.onnx_quantize == "int8" else MODEL_FILE)
        if not weights.is_file():
            log.info("exporting %s to ONNX under %s (once)", folder, target)
            try:
                export_onnx(folder, target)
            except ConfigurationError:
                raise
            except Exception as exc:
                raise EmbeddingError(
                    f"cannot export the embedding model {folder} to ONNX: {exc}"
                ) from exc
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = cpu_threads(settings)
        options.inter_op_num_threads = 1
        # Idle threads sleep instead of spinning: after a query's embedding, spinning threads
        # took the cores the searches that follow need (synthetic 400k p50 67 vs 43 ms on 2
        # cores), and bulk embedding is as fast without (70 vs 68 windows/s).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self.session = ort.InferenceSession(
                str(weights), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own unrelated exception types
            raise EmbeddingError(f"cannot load the ONNX embedding model {weights}: {exc}") from exc
        self._input_names = {i.name for i in self.session.get_inputs()}
        self.dimensions = int(self.session.get_outputs()[0].shape[-1])
        self._max_tokens = min(settings.window_tokens, _max_seq_length(folder, 512))
        # Two tokenizers: one reads whole chunks (windows, counts), one cuts to the model's length.
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self._model_tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._model_tokenizer.enable_truncation(self._max_tokens)
        self._model_tokenizer.no_padding()
        self.model_id = (
            f"onnx-{settings.onnx_quantize}:{settings.local_model_package}:{target.name[-16:]}"
        )

    def windows(self, text: str, reserved_tokens: int) -> list[Window]:
        """Windows of at most max_seq_length word pieces, `reserved_tokens` of them kept for
        the heading and the special tokens (as the torch backend cuts them)."""
        offsets = self.tokenizer.encode(text, add_special_tokens=False).offsets
        if not offsets:
            return [Window(0, len(text))]
        budget = max(self._max_tokens - reserved_tokens - 2, 16)
        stride = max(min(self.settings.window_stride, budget), 1)
        return [
            Window(offsets[s][0], offsets[e - 1][1])
            for s, e in window_spans(len(offsets), budget, stride)
        ]

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        encodings = self._model_tokenizer.encode_batch(texts)
        # Longest first, batches of similar length: padding costs compute, and under int8 it
        # also widens the activation range the batch is quantized with (onnx_batch_size=1
        # makes every vector independent of its batch-mates, about 20% slower).
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        size = self.settings.onnx_batch_size
        for start in range(0, len(order), size):
            idx = order[start : start + size]
            width = max(len(encodings[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            types = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                enc = encodings[i]
                n = len(enc.ids)
                ids[row, :n] = enc.ids
                mask[row, :n] = 1
                types[row, :n] = enc.type_ids
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            try:
                states = self.session.run(
                    None, {k: v for k, v in feed.items() if k in self._input_names}
                )[0]
            except Exception as exc:
                raise EmbeddingError(f"the ONNX embedding model failed: {exc}") from exc
            out[idx] = mean_pool(states, mask)
        return out


def mean_pool(states: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """sentence-transformers' mean pooling (token states averaged over the attention mask, the
    count clamped at 1e-9) followed by its Normalize (L2, norm clamped at 1e-12)."""
    weights = mask[..., None].astype(np.float32)
    summed = (states.astype(np.float32) * weights).sum(axis=1)
    pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
