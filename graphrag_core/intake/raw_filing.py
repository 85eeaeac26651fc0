"""raw_filings for one filing: validate the fetched documents, keep their bytes, read the
filing's metadata (and recognise an earnings-call transcript by its shape).

The raw_filings asset calls `ingest_filing`; it takes and returns plain values and frames,
writing only through the `TableStore` it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from graphrag_core.common.errors import FilingError
from graphrag_core.common.ids import sha256_bytes
from graphrag_core.intake.metadata import resolve_meta
from graphrag_core.settings import ParseSettings
from graphrag_core.tables import schemas
from graphrag_core.tables.records import DocumentRef, FilingMeta, FilingRef
from graphrag_core.tables.table_store import TableStore
from graphrag_core.text.documents import DecodedDocument, decode_document
from graphrag_core.text.parsing import parse_markup
from graphrag_core.text.transcripts import looks_like_transcript, transcript_meta


@dataclass
class RawFiling:
    meta: FilingMeta
    documents: pl.DataFrame  # DOCUMENTS schema

    def frame(self) -> pl.DataFrame:
        """The filing's one row of `raw_filings`."""
        return self.meta.frame()


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


def needs_ticker_map(ref: FilingRef) -> bool:
    """Whether `ingest_filing` needs SEC's ticker map for this filing: a transcript (or a
    document whose form is unknown and may be one) names its company only by ticker."""
    return (ref.form or "UNKNOWN").upper() in {"UNKNOWN", "TRANSCRIPT"}


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
        raise FilingError(
            ref.filing_id, "the source returned no documents", "re-run discovery", field="documents"
        )
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
                "document_type": dec.sgml_type
                if doc.document_type == "UNKNOWN" and dec.sgml_type
                else doc.document_type,
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
    return RawFiling(meta=meta, documents=schemas.frame(doc_rows, schemas.DOCUMENTS))


def _maybe_transcript(
    meta: FilingMeta, primary: DecodedDocument, tickers: dict[str, str]
) -> FilingMeta:
    parsed = parse_markup(primary.markup, primary.is_html)
    if meta.form != "TRANSCRIPT" and not looks_like_transcript(parsed.text):
        return meta
    info = transcript_meta(parsed.blocks)
    update: dict[str, Any] = {
        "form": "TRANSCRIPT",
        "meta_sources": {**meta.meta_sources, "form": "transcript heuristics"},
    }
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
