"""The one interface every extraction backend implements, and what it hands back per chunk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

ExtractionStatus = Literal["ok", "parse_error", "failed"]


@dataclass(frozen=True)
class ChunkInput:
    """A narrative chunk and who filed it: everything a backend may look at."""

    chunk_id: str
    filing_id: str
    section: str
    text: str
    sha256: str
    scale_header: str | None
    company: str  # the filer's name, what "we" and "the Company" stand for
    cik: str | None = None
    ticker: str | None = None
    fiscal_year: int | None = None  # of the filing: a later year in the text is a future period
    kind: str = "prose"  # prose | table (a subsidiaries exhibit) | turn | qa
    headings: tuple[tuple[int, int], ...] = ()  # spans of the chunk's emphasized openings
    preceding_heading: str | None = None  # the last heading before the chunk in its section
    # The lead-in sentence of a list still open where the chunk starts, from an earlier chunk of
    # its section ("Our competitors include:"; extraction.lead_ins); never part of `text`.
    lead_in: str | None = None


@dataclass(frozen=True)
class RawResult:
    """What a backend produced for one chunk: its raw text, never interpreted here.

    `status` is `ok` when text came back (whether it parses is decided later, and recorded as
    `parse_error` then), `failed` when no text came back after every retry.
    """

    raw_output: str | None
    status: ExtractionStatus = "ok"
    error: str | None = None
    attempts: int = 1
    latency_ms: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@runtime_checkable
class ExtractorBackend(Protocol):
    """`extract` takes chunks and returns one `RawResult` per chunk, in the same order.

    `name`, `model` and `prompt_version` identify the output: they are columns of every
    extraction row and parts of the cache key. `cacheable` is false for backends whose output
    is cheaper to recompute than to read back (the rules backend).
    """

    name: str
    model: str
    prompt_version: str
    cacheable: bool

    async def extract(self, chunks: Sequence[ChunkInput]) -> list[RawResult]: ...

    def context_key(self, chunk: ChunkInput) -> str:
        """Everything besides the chunk text that the output depends on (goes into the cache
        key)."""
        ...
