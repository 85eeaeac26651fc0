"""Chunks made of real corpus passages, in the `section_chunks` schema, for extraction tests.

A chunk here is one or more consecutive paragraphs of a filing, chosen by a marker phrase, with
its true span in the filing's normalized text (the text `parse_markup` assembles), so tests can
check that an accepted quote's span points at the quote in the filing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import polars as pl

from graphrag_core.tables.records import FilingMeta
from graphrag_core.tables.schemas import CHUNKS, frame
from graphrag_core.text.documents import decode_document
from graphrag_core.text.parsing import ParsedDocument, parse_markup


@cache
def parsed(path: Path) -> ParsedDocument:
    decoded = decode_document(path.read_bytes(), str(path))
    return parse_markup(decoded.markup, decoded.is_html)


@dataclass(frozen=True)
class Passage:
    path: str  # relative to the corpus's filings/ folder
    marker: str  # a phrase of the first paragraph
    section: str
    paragraphs: int = 1  # how many consecutive text paragraphs, from the marked one
    kind: str = "prose"


def filing_text(corpus_dir: Path, relative: str) -> str:
    return parsed(corpus_dir / "filings" / relative).text


def passage_row(corpus_dir: Path, passage: Passage, filing_id: str, ordinal: int) -> dict:
    doc = parsed(corpus_dir / "filings" / passage.path)
    blocks = [b for b in doc.blocks if b.kind == "text"]
    first = next((i for i, b in enumerate(blocks) if passage.marker in b.text), None)
    if first is None:
        raise LookupError(f"{passage.marker!r} not found in {passage.path}")
    chosen = blocks[first : first + passage.paragraphs]
    start, end = chosen[0].start, chosen[-1].end
    text = doc.text[start:end]
    sha = hashlib.sha256(text.encode()).hexdigest()
    return {
        "chunk_id": f"{filing_id}:"
        f"{hashlib.sha256(f'{passage.section}{start}{sha}'.encode()).hexdigest()[:16]}",
        "filing_id": filing_id,
        "document_type": passage.section.split("/")[0],
        "section": passage.section,
        "kind": passage.kind,
        "ordinal": ordinal,
        "text": text,
        "char_start": start,
        "char_end": end,
        "scale_header": None,
        "token_count": len(text.split()),
        "sha256": sha,
        "ix_ids": [],
    }


def chunk_frame(corpus_dir: Path, passages: list[Passage], filing_id: str) -> pl.DataFrame:
    return frame([passage_row(corpus_dir, p, filing_id, i) for i, p in enumerate(passages)], CHUNKS)


@dataclass(frozen=True)
class ChunkedCorpusFiling:
    meta: FilingMeta  # the raw_filings row
    chunks: pl.DataFrame  # section_chunks, as the pipeline's chunker cuts them
    text: str  # the filing's normalized text that chunk spans index into


def chunked_filing(corpus_dir: Path, relative: str, data_root: Path) -> ChunkedCorpusFiling:
    """A corpus filing through the real intake and chunking stages (no Dagster)."""
    from graphrag_core.intake.local_folder import LocalFolderSource
    from graphrag_core.intake.raw_filing import ingest_filing
    from graphrag_core.tables.table_store import TableStore
    from graphrag_core.text.filing_chunks import chunk_filing

    source = LocalFolderSource(corpus_dir)
    ref = next(r for r in source.discover() if r.documents[0].location.endswith(relative))
    store = TableStore(data_root)
    raw = ingest_filing(ref, source.fetch(ref), store)
    chunked = chunk_filing(raw.meta, raw.documents, store)
    return ChunkedCorpusFiling(raw.meta, chunked.chunks, store.read_text(ref.filing_id))
