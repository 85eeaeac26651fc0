"""section_chunks for one filing: its kept documents parsed into sections and chunks, and its
normalized text saved (chunk spans index into it). The section_chunks asset calls
`chunk_filing`; the documents are read back through the `TableStore` it is given."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import polars as pl

from graphrag_core.common.errors import FilingError
from graphrag_core.settings import ChunkingSettings, ParseSettings
from graphrag_core.tables import schemas
from graphrag_core.tables.records import FilingMeta
from graphrag_core.tables.table_store import TableStore
from graphrag_core.text.chunking import chunk_section
from graphrag_core.text.documents import decode_document
from graphrag_core.text.inferred_sections import with_inferred_sections
from graphrag_core.text.parsing import ParsedDocument, parse_markup, text_coverage
from graphrag_core.text.sections import Section, detect_sections, exhibit_label, form_family
from graphrag_core.text.transcripts import chunk_transcript

# Between the texts of a filing's documents in its normalized text.
DOCUMENT_SEPARATOR = "\n\n"


@dataclass
class ChunkedFiling:
    chunks: pl.DataFrame  # CHUNKS schema
    text_chars: int
    seconds: float
    warnings: list[str] = field(default_factory=list)

    def sections(self) -> dict[str, int]:
        return dict(Counter(self.chunks["section"].to_list()))


def chunk_filing(
    meta: FilingMeta,
    documents: pl.DataFrame,
    store: TableStore,
    chunking: ChunkingSettings | None = None,
    parse: ParseSettings | None = None,
) -> ChunkedFiling:
    """Parse the kept documents of a filing into sections and chunks, and save its text."""
    chunking = chunking or ChunkingSettings()
    parse = parse or ParseSettings()
    started = time.perf_counter()
    filing_id = meta.filing_id
    form = meta.form
    family = "transcript" if form == "TRANSCRIPT" else form_family(form)
    warnings: list[str] = []
    texts: list[str] = []
    offset = 0
    rows: list[dict] = []
    doc_rows = documents.to_dicts()
    for k, doc in enumerate(doc_rows):
        data = (store.root / doc["raw_path"]).read_bytes()
        decoded = decode_document(data, doc["source"], parse)
        if k:
            offset += len(DOCUMENT_SEPARATOR)
        parsed: ParsedDocument = parse_markup(decoded.markup, decoded.is_html, offset=offset)
        _check_coverage(doc, decoded.markup, decoded.is_html, parsed, parse, warnings)
        doc_start = offset
        texts.append(parsed.text)
        offset += len(parsed.text)
        warnings.extend(f"{doc['filename']}: {w}" for w in parsed.warnings)
        doc_type = doc["document_type"] or form
        # Block offsets are filing-wide; chunk text is sliced through a view that honours them.
        view = _OffsetText(parsed.text, doc_start)
        if family == "transcript" and k == 0:
            doc_chunks, w = chunk_transcript(parsed.blocks, filing_id, doc_type, view, chunking)  # type: ignore[arg-type]
            rows.extend(doc_chunks)
            warnings.extend(w)
            continue
        if k == 0 and not doc_type.upper().startswith("EX-"):
            sections, w = detect_sections(parsed.blocks, form)
            warnings.extend(w)
            # A layout the finder does not know still has its narrative found and extracted.
            sections, w = with_inferred_sections(parsed.blocks, form, sections, parse)
            warnings.extend(w)
        else:
            sections = [Section(exhibit_label(form, doc_type), 0, len(parsed.blocks))]
        for section in sections:
            rows.extend(chunk_section(parsed.blocks, section, filing_id, doc_type, view, chunking))  # type: ignore[arg-type]
    text = DOCUMENT_SEPARATOR.join(texts)
    store.write_text(filing_id, text)
    chunks = schemas.frame(rows, schemas.CHUNKS)
    return ChunkedFiling(
        chunks=chunks,
        text_chars=len(text),
        seconds=time.perf_counter() - started,
        warnings=warnings,
    )


def _check_coverage(
    doc: dict,
    markup: str,
    is_html: bool,
    parsed: ParsedDocument,
    settings: ParseSettings,
    warnings: list[str],
) -> None:
    """Fail the filing when parsing lost much of a document's text, warn when it lost some."""
    coverage = text_coverage(markup, is_html, parsed.text)
    if coverage.ratio < settings.min_text_coverage:
        raise FilingError(
            doc["source"],
            f"{coverage.describe()}; the parser lost text",
            "check the document's markup (nesting deeper than 2048 levels? a truncated "
            "download?) and re-fetch or repair it; to accept it as it is, lower "
            f"GRAPHRAG_MIN_TEXT_COVERAGE (now {settings.min_text_coverage:g})",
            field="text",
        )
    if coverage.ratio < settings.warn_text_coverage:
        warnings.append(f"{doc['filename']}: {coverage.describe()}; some text may be missing")


class _OffsetText:
    """A document's text addressed with filing-wide offsets (`view[a:b]`)."""

    __slots__ = ("text", "offset")

    def __init__(self, text: str, offset: int):
        self.text = text
        self.offset = offset

    def __getitem__(self, item: slice) -> str:
        return self.text[item.start - self.offset : item.stop - self.offset]
