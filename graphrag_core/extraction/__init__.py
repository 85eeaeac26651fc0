"""Triple extraction from narrative chunks: schema, versioned prompt, backends, cache, runner.

The gates that decide what is kept live in `graphrag_core.validation`; every backend's output
goes through them alike.
"""

from graphrag_core.extraction.backends import (
    ChunkInput,
    ExtractorBackend,
    OpenAIBackend,
    RawResult,
    RulesBackend,
    build_backend,
)
from graphrag_core.extraction.batch import Filer, extract_chunks, narrative_chunks, run_extraction
from graphrag_core.extraction.prompt import Prompt, load_prompt
from graphrag_core.extraction.reply_cache import ExtractionCache
from graphrag_core.extraction.triples import Extraction, Relation, Triple, extraction_json_schema

__all__ = [
    "ChunkInput",
    "Extraction",
    "ExtractionCache",
    "ExtractorBackend",
    "Filer",
    "OpenAIBackend",
    "Prompt",
    "RawResult",
    "Relation",
    "RulesBackend",
    "Triple",
    "build_backend",
    "extract_chunks",
    "extraction_json_schema",
    "load_prompt",
    "narrative_chunks",
    "run_extraction",
]
