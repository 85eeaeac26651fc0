"""The first two stages for one filing: fetch → raw_filings, then parse → section_chunks.

These are the functions the Dagster assets and the CLI both call; they take and return plain
values and frames, reading and writing only through the `TableStore` they are given.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field

import polars as pl

from graphrag_core import tables
from graphrag_core.chunking import chunk_section
from graphrag_core.documents import DecodedDocument, decode_document
from graphrag_core.errors import FilingError
from graphrag_core.metadata import resolve_meta
from graphrag_core.models import DocumentRef, FilingMeta, FilingRef, sha256_bytes
from graphrag_core.parsing import ParsedDocument, parse_markup
from graphrag_core.sections import Section, detect_sections, exhibit_label, form_family
from graphrag_core.settings import ChunkingSettings, ParseSettings
from graphrag_core.tables import TableStore
from graphrag_core.transcripts import chunk_transcript, looks_like_transcript, transcript_meta

DOCUMENT_SEPARATOR = "\n\n"


@dataclass
class RawFiling:
    meta: FilingMeta
    documents: pl.DataFrame  # DOCUMENTS schema

    def frame(self) -> pl.DataFrame:
        row = self.meta.model_dump()
        row["meta_sources"] = json.dumps(row["meta_sources"], sort_keys=True)
        row["documents"] = self.documents.height
        return tables.frame([row], tables.FILINGS)


@dataclass
class ChunkedFiling:
    chunks: pl.DataFrame  # CHUNKS schema
    text_chars: int
    seconds: float
    warnings: list[str] = field(default_factory=list)

    def sections(self) -> dict[str, int]:
        return dict(Counter(self.chunks["section"].to_list()))


def _decode_all(
    fetched: list[tuple[DocumentRef, bytes]], settings: ParseSettings
) -> tuple[list[tuple[DocumentRef, bytes, DecodedDocument]], list[str]]:
    """Decode every document; a bad primary document fails the filing, a bad exhibit is
    dropped with a warning (the filing's main text is still worth having)."""
    out, warnings = [], []
    for k, (doc, data) in enumerate(fetched):
        try:
            decoded = decode_document(data, doc.location, settings)
        except FilingError as exc:
            if k == 0:
                raise
            warnings.append(f"exhibit {doc.document_type} ({doc.filename}) skipped: {exc}")
            continue
        out.append((doc, data, decoded))
    return out, warnings


def ingest_filing(
    ref: FilingRef,
    fetched: list[tuple[DocumentRef, bytes]],
    store: TableStore,
    settings: ParseSettings | None = None,
    tickers: dict[str, str] | None = None,
) -> RawFiling:
    """Validate a fetched filing, keep its bytes under raw/, and read its metadata.

    `tickers` (ticker → CIK) lets a transcript, which carries only a ticker, find its company.
    """
    settings = settings or ParseSettings()
    if not fetched:
        raise FilingError(ref.filing_id, "the source returned no documents", "re-run discovery", field="documents")
    decoded, warnings = _decode_all(fetched, settings)
    doc_rows = []
    raw_dir = store.raw_dir(ref.filing_id)
    for doc, data, dec in decoded:
        path = store.write_bytes(raw_dir / doc.filename, data)
        sha = sha256_bytes(data)
        if doc.sha256 and doc.sha256 != sha:
            warnings.append(
                f"{doc.filename}: sha256 {sha[:12]}… differs from the source's {doc.sha256[:12]}… "
                "(the file changed since discovery)"
            )
        doc_rows.append(
            {
                "filing_id": ref.filing_id,
                "document_type": dec.sgml_type if doc.document_type == "UNKNOWN" and dec.sgml_type else doc.document_type,
                "filename": doc.filename,
                "source": doc.location,
                "raw_path": str(path.relative_to(store.root)),
                "sha256": sha,
                "bytes": len(data),
                "encoding": dec.encoding,
                "is_inline_xbrl": dec.is_inline_xbrl,
            }
        )
        warnings.extend(f"{doc.filename}: {w}" for w in dec.warnings)
    primary_doc, primary_bytes, primary = decoded[0]
    # Plain-HTML filings carry form, period and name only on their cover page.
    cover_text = ""
    if not primary.is_inline_xbrl:
        cover_text = parse_markup(primary.markup[:400_000], primary.is_html).text
    meta = resolve_meta(
        ref,
        primary.markup,
        primary.sgml_header,
        cover_text,
        sha256=sha256_bytes(primary_bytes),
        total_bytes=sum(len(d) for _doc, d, _dec in decoded),
        documents=len(decoded),
        is_inline_xbrl=primary.is_inline_xbrl,
        warnings=warnings,
    )
    if meta.form == "UNKNOWN" or (ref.form or "").upper() == "TRANSCRIPT":
        meta = _maybe_transcript(meta, primary, tickers or {})
    if not doc_rows[0]["document_type"] or doc_rows[0]["document_type"] == "UNKNOWN":
        doc_rows[0]["document_type"] = meta.form
    return RawFiling(meta=meta, documents=tables.frame(doc_rows, tables.DOCUMENTS))


def _maybe_transcript(meta: FilingMeta, primary: DecodedDocument, tickers: dict[str, str]) -> FilingMeta:
    parsed = parse_markup(primary.markup, primary.is_html)
    if meta.form != "TRANSCRIPT" and not looks_like_transcript(parsed.text):
        return meta
    info = transcript_meta(parsed.blocks)
    update: dict = {"form": "TRANSCRIPT", "meta_sources": {**meta.meta_sources, "form": "transcript heuristics"}}
    warnings = [w for w in meta.warnings if not w.startswith("form type not found")]
    if info.get("ticker") and not meta.ticker:
        update["ticker"] = info["ticker"]
    ticker = update.get("ticker") or meta.ticker
    if not meta.cik and ticker and ticker in tickers:
        update["cik"] = tickers[ticker]
        update["meta_sources"]["cik"] = "ticker map"
        warnings = [w for w in warnings if not w.startswith("no CIK")]
    if info.get("company") and not meta.company:
        update["company"] = info["company"]
    for key in ("fiscal_year", "fiscal_period"):
        if info.get(key) and getattr(meta, key) is None:
            update[key] = info[key]
    if info.get("call_date"):
        update["period_end"] = meta.period_end or info["call_date"]
        update["filed_date"] = meta.filed_date or info["call_date"]
    update["warnings"] = warnings
    return meta.model_copy(update=update)


def chunk_filing(
    meta: dict,
    documents: pl.DataFrame,
    store: TableStore,
    chunking: ChunkingSettings | None = None,
    parse: ParseSettings | None = None,
) -> ChunkedFiling:
    """Parse the kept documents of a filing into sections and chunks, and save its text."""
    chunking = chunking or ChunkingSettings()
    parse = parse or ParseSettings()
    started = time.perf_counter()
    filing_id = meta["filing_id"]
    form = meta["form"]
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
        else:
            sections = [Section(exhibit_label(form, doc_type), 0, len(parsed.blocks))]
        for section in sections:
            rows.extend(chunk_section(parsed.blocks, section, filing_id, doc_type, view, chunking))  # type: ignore[arg-type]
    text = DOCUMENT_SEPARATOR.join(texts)
    store.write_text(filing_id, text)
    chunks = tables.frame(rows, tables.CHUNKS)
    return ChunkedFiling(
        chunks=chunks,
        text_chars=len(text),
        seconds=time.perf_counter() - started,
        warnings=warnings,
    )


class _OffsetText:
    """A document's text addressed with filing-wide offsets (`view[a:b]`)."""

    __slots__ = ("text", "offset")

    def __init__(self, text: str, offset: int):
        self.text = text
        self.offset = offset

    def __getitem__(self, item: slice) -> str:
        return self.text[item.start - self.offset : item.stop - self.offset]
