"""Extraction backends behind one interface (`ExtractorBackend`), chosen by configuration."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.extraction.backends.base import (
    ChunkInput,
    ExtractionStatus,
    ExtractorBackend,
    RawResult,
)
from graphrag_core.extraction.backends.learned_backend import LearnedBackend
from graphrag_core.extraction.backends.openai_backend import OpenAIBackend
from graphrag_core.extraction.backends.rules_backend import RulesBackend
from graphrag_core.extraction.relation_classifier import RelationClassifier, SentenceEncoder
from graphrag_core.settings import ExtractionSettings


def build_backend(
    settings: ExtractionSettings,
    *,
    tickers: Iterable[Mapping] = (),
    resolved: Iterable[tuple[str, str]] = (),
    encoder: SentenceEncoder | None = None,
) -> ExtractorBackend:
    """The configured backend: `openai` when EXTRACTOR_BASE_URL and EXTRACTOR_MODEL are set (or
    EXTRACTOR_BACKEND=openai), else `rules` over the SEC ticker list and resolved entities, with
    the learned relation classifier beside them when EXTRACTOR_LEARNED is set (`encoder`: the
    sentence encoder its weights were trained against, built by the caller: the packaged
    model's runtime lives in `retrieval`, a layer above extraction)."""
    if settings.resolved_backend() == "openai":
        return OpenAIBackend.from_settings(settings)
    rules = RulesBackend.from_rows(tickers, resolved)
    if not settings.learned:
        return rules
    if encoder is None:
        raise ConfigurationError(
            "EXTRACTOR_LEARNED=true needs the sentence encoder the classifier was trained "
            "against; this caller builds none"
        )
    return LearnedBackend(
        rules,
        RelationClassifier.load(settings.learned_weights),
        encoder,
        settings.learned_threshold,
    )


__all__ = [
    "ChunkInput",
    "ExtractionStatus",
    "ExtractorBackend",
    "LearnedBackend",
    "OpenAIBackend",
    "RawResult",
    "RulesBackend",
    "build_backend",
]
