"""What the learned-relation tests feed the extractor: one invented filer and a chunk of its
10-K (shared by the relation tests), and a section of chunks (the lead-in and method tests)."""

from __future__ import annotations

import polars as pl

from graphrag_core.extraction.backends.base import ChunkInput
from graphrag_core.extraction.grounding import Filer

FILER = Filer("Halvern Dynamics, Inc.")


def filer_chunk(text: str, section: str = "10-K/Item 1") -> ChunkInput:
    """`text` as one chunk of the filer's fiscal 2025 10-K."""
    return ChunkInput(
        chunk_id="c1",
        filing_id="f1",
        section=section,
        text=text,
        sha256="x",
        scale_header=None,
        company=FILER.name,
        fiscal_year=2025,
    )


def section_chunks(
    chunks: list[tuple[str, str]],
    *,
    section: str = "10-K/Item 1",
    filing_id: str = "f1",
    ids: str = "{section}#{i}",
) -> pl.DataFrame:
    """(kind, text) chunks of one section of one filing, in order, as section_chunks rows;
    chunk ids from `ids` ({section}, {i})."""
    from graphrag_core.tables.schemas import CHUNKS, frame

    rows, start = [], 0
    for i, (kind, text) in enumerate(chunks):
        rows.append(
            {
                "chunk_id": ids.format(section=section, i=i),
                "filing_id": filing_id,
                "document_type": "10-K",
                "section": section,
                "kind": kind,
                "ordinal": i,
                "text": text,
                "char_start": start,
                "char_end": start + len(text),
                "sha256": f"{i:064d}",
                "headings": [],
            }
        )
        start += len(text) + 2
    return frame(rows, CHUNKS)
