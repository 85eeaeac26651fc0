"""What the learned-relation tests feed the extractor: one invented filer and a chunk of its
10-K (shared by tests/test_learned_relations.py and tests/test_relation_reach.py)."""

from __future__ import annotations

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
