"""Corpus filings ingested and chunked into a bench's own table store, as the `raw_filings` and
`section_chunks` assets would write them (not a benchmark itself: files starting with `_` are
helpers). The benches that read chunks share it so that all of them read the same chunks."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from graphrag_core.tables.records import FilingRef
from graphrag_core.tables.table_store import TableStore


def chunked_store(
    corpus: Path, data_root: Path, keep: Callable[[FilingRef], bool] = lambda ref: True
) -> TableStore:
    """The store under `data_root` with raw filings and section chunks of every corpus filing
    `keep` accepts; a filing chunked by an earlier run is not chunked again."""
    from graphrag_core.intake.local_folder import LocalFolderSource
    from graphrag_core.intake.raw_filing import ingest_filing
    from graphrag_core.text.filing_chunks import chunk_filing

    store = TableStore(data_root)
    source = LocalFolderSource(corpus)
    done = set(store.partitions("section_chunks"))
    todo = [ref for ref in source.discover() if keep(ref) and ref.filing_id not in done]
    if todo:
        print(
            f"chunking {len(todo)} corpus filings into {data_root} …", file=sys.stderr, flush=True
        )
    for ref in todo:
        raw = ingest_filing(ref, source.fetch(ref), store)
        store.write("raw_filings", raw.frame(), ref.filing_id)
        store.write("raw_filing_documents", raw.documents, ref.filing_id)
        store.write(
            "section_chunks", chunk_filing(raw.meta, raw.documents, store).chunks, ref.filing_id
        )
    return store
