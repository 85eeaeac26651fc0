"""Narrative chunks → one extraction row per chunk, through a backend and the cache.

Only narrative sections reach an extractor (10-K Items 1, 1A, 7, 7A; 10-Q Part I Item 2 and
Part II Item 1A; the same items and the narrative inferred for an unknown layout; exhibits 99;
transcripts), and never a table chunk: numbers in tables come from
XBRL, and an extractor reading them would only produce REPORTS_METRIC edges the gates reject.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Awaitable, Sequence
from typing import TypeVar

import polars as pl

from graphrag_core.common.ids import content_hash
from graphrag_core.extraction.backends.base import ChunkInput, ExtractorBackend, RawResult
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.headings import preceding_headings, spans_of
from graphrag_core.extraction.lead_ins import lead_ins
from graphrag_core.extraction.reply_cache import ExtractionCache
from graphrag_core.extraction.triples import parse_output
from graphrag_core.tables.schemas import EXTRACTIONS, frame

NARRATIVE_SECTIONS = re.compile(
    r"^(?:10-K(?:/A)?/Item (?:1|1A|7|7A)"
    r"|10-Q(?:/A)?/Part I/Item 2"
    r"|10-Q(?:/A)?/Part II/Item 1A"
    # Sections inferred from the text of a layout the section finder could not read.
    r"|10-[KQ](?:/A)?/Inferred/(?:Narrative|Item (?:1|1A|7)|Part I/Item 2|Part II/Item 1A)"
    r"|8-K(?:/A)?/Item (?:1\.01|2\.01|7\.01|8\.01)"
    r"|[^/]+/Exhibit 99(?:\.\d+)?"
    r"|[^/]+/Exhibit 21(?:\.\d+)?"
    r"|transcript/[a-z_]+)$"
)
# A subsidiaries exhibit is a table: the one place where a table chunk states relations.
TABLE_SECTIONS = re.compile(r"^[^/]+/Exhibit 21(?:\.\d+)?$")

T = TypeVar("T")


def narrative_chunks(chunks: pl.DataFrame) -> pl.DataFrame:
    """The chunks an extractor reads: narrative prose, and the tables of a subsidiaries list."""
    section = pl.col("section")
    return chunks.filter(
        section.str.contains(NARRATIVE_SECTIONS.pattern)
        & ((pl.col("kind") != "table") | section.str.contains(TABLE_SECTIONS.pattern))
    )


def chunk_inputs(
    chunks: pl.DataFrame,
    filer: Filer,
    fiscal_year: int | None = None,
    *,
    context: pl.DataFrame | None = None,
) -> list[ChunkInput]:
    """Backend inputs for `chunks`; `context` (all of the filing's chunks, default `chunks`)
    supplies the heading each chunk sits under."""
    before = preceding_headings(context if context is not None else chunks)
    open_lists = lead_ins(context if context is not None else chunks)
    has_headings = "headings" in chunks.columns
    return [
        ChunkInput(
            chunk_id=row["chunk_id"],
            filing_id=row["filing_id"],
            section=row["section"],
            text=row["text"],
            sha256=row["sha256"],
            scale_header=row["scale_header"],
            company=filer.name,
            cik=filer.cik,
            ticker=filer.ticker,
            fiscal_year=fiscal_year,
            kind=row["kind"],
            headings=tuple(spans_of(row["headings"])) if has_headings else (),
            preceding_heading=before.get(row["chunk_id"]),
            lead_in=open_lists.get(row["chunk_id"]),
        )
        for row in chunks.iter_rows(named=True)
    ]


def extraction_id(chunk_id: str, backend: str, model: str, prompt_version: str) -> str:
    return content_hash(chunk_id, backend, model, prompt_version, length=24)


def run_sync(awaitable: Awaitable[T]) -> T:
    """Run a coroutine from synchronous code, also when the caller already runs an event loop
    (a notebook, an async asset): then it runs on a loop of its own in a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(awaitable)  # type: ignore[arg-type]
    box: dict[str, object] = {}

    def work() -> None:
        try:
            box["value"] = asyncio.run(awaitable)  # type: ignore[arg-type]
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=work, name="extraction")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def _row(chunk: ChunkInput, backend: ExtractorBackend, result: RawResult, cached: bool) -> dict:
    status = result.status
    error = result.error
    count = None
    if status == "ok":
        parsed = parse_output(result.raw_output)
        if parsed.ok:
            count = len(parsed.items)
        else:
            status, error = "parse_error", parsed.error
    return {
        "extraction_id": extraction_id(
            chunk.chunk_id, backend.name, backend.model, backend.prompt_version
        ),
        "filing_id": chunk.filing_id,
        "chunk_id": chunk.chunk_id,
        "chunk_sha256": chunk.sha256,
        "section": chunk.section,
        "backend": backend.name,
        "model": backend.model,
        "prompt_version": backend.prompt_version,
        "status": status,
        "raw_output": result.raw_output,
        "error": error,
        "triple_count": count,
        "attempts": 0 if cached else result.attempts,
        "latency_ms": result.latency_ms,
        "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens,
        "cached": cached,
    }


def extract_chunks(
    inputs: Sequence[ChunkInput], backend: ExtractorBackend, cache: ExtractionCache | None = None
) -> pl.DataFrame:
    """Chunk inputs → extraction rows; cached replies are reused, fresh replies are cached."""
    usable = cache if backend.cacheable else None

    def key(chunk: ChunkInput) -> dict[str, str]:
        return {
            "backend": backend.name,
            "model": backend.model,
            "prompt_version": backend.prompt_version,
            "chunk_sha256": chunk.sha256,
            "context": backend.context_key(chunk),
        }

    hits: dict[int, RawResult] = {}
    if usable is not None:
        for i, chunk in enumerate(inputs):
            found = usable.get(**key(chunk))
            if found is not None:
                hits[i] = found
    misses = [c for i, c in enumerate(inputs) if i not in hits]
    fresh = run_sync(backend.extract(misses)) if misses else []
    if len(fresh) != len(misses):
        raise RuntimeError(
            f"backend {backend.name} returned {len(fresh)} results for {len(misses)} chunks"
        )
    if usable is not None:
        for chunk, result in zip(misses, fresh, strict=True):
            usable.put(result, **key(chunk))
    fresh_iter = iter(fresh)
    rows = [
        _row(chunk, backend, hits[i], cached=True)
        if i in hits
        else _row(chunk, backend, next(fresh_iter), cached=False)
        for i, chunk in enumerate(inputs)
    ]
    return frame(rows, EXTRACTIONS)


def run_extraction(
    chunks: pl.DataFrame,
    backend: ExtractorBackend,
    *,
    filer: Filer,
    cache: ExtractionCache | None = None,
    fiscal_year: int | None = None,
) -> pl.DataFrame:
    """A filing's `section_chunks` → its `extractions` table (narrative chunks only)."""
    inputs = chunk_inputs(narrative_chunks(chunks), filer, fiscal_year, context=chunks)
    return extract_chunks(inputs, backend, cache)
