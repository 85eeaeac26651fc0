"""Extraction backends behind one interface (`ExtractorBackend`), chosen by configuration."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from graphrag_core.extraction.backends.base import (
    ChunkInput,
    ExtractionStatus,
    ExtractorBackend,
    RawResult,
)
from graphrag_core.extraction.backends.openai_backend import OpenAIBackend
from graphrag_core.extraction.backends.rules_backend import RulesBackend
from graphrag_core.settings import ExtractionSettings


def build_backend(
    settings: ExtractionSettings,
    *,
    tickers: Iterable[Mapping] = (),
    resolved: Iterable[tuple[str, str]] = (),
) -> ExtractorBackend:
    """The configured backend: `openai` when EXTRACTOR_BASE_URL and EXTRACTOR_MODEL are set (or
    EXTRACTOR_BACKEND=openai), else `rules` over the SEC ticker list and resolved entities."""
    if settings.resolved_backend() == "openai":
        return OpenAIBackend.from_settings(settings)
    return RulesBackend.from_rows(tickers, resolved)


__all__ = [
    "ChunkInput",
    "ExtractionStatus",
    "ExtractorBackend",
    "OpenAIBackend",
    "RawResult",
    "RulesBackend",
    "build_backend",
]
