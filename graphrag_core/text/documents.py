"""Bytes of a fetched document → decoded markup, with every way a file can be bad named.

This is the first thing a filing's bytes meet, so it is where an empty, binary, oversized,
mis-encoded, truncated or SGML-wrapped document is recognized and either refused with a
specific `FilingError` (its partition fails, the others go on) or accepted with a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphrag_core.common.errors import (
    BinaryDocumentError,
    DocumentTooLargeError,
    EmptyDocumentError,
)
from graphrag_core.settings import ParseSettings

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF", "a PDF file"),
    (b"PK\x03\x04", "a ZIP archive (an XBRL package?)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file"),
)

_CHARSET_RE = re.compile(rb"""charset\s*=\s*["']?([A-Za-z0-9_\-]+)""", re.I)
_XML_ENCODING_RE = re.compile(rb"""<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_\-]+)""", re.I)
_SGML_DOC_RE = re.compile(r"<DOCUMENT>(.*?)(?:</DOCUMENT>|\Z)", re.S | re.I)
_SGML_FIELD_RE = re.compile(r"^<(TYPE|SEQUENCE|FILENAME|DESCRIPTION)>([^\n<]*)", re.M | re.I)
_SGML_TEXT_RE = re.compile(r"<TEXT>(.*?)(?:</TEXT>|\Z)", re.S | re.I)
_XBRL_WRAP_RE = re.compile(r"^\s*<XBRL>(.*?)(?:</XBRL>\s*)?$", re.S | re.I)
_IX_FACT_RE = re.compile(r"<ix:non(?:fraction|numeric)\b", re.I)
_HEADER_RE = re.compile(r"<(?:SEC|IMS)-HEADER>(.*?)</(?:SEC|IMS)-HEADER>", re.S | re.I)


@dataclass
class DecodedDocument:
    """A document's markup as text, how it was decoded, and what looked wrong."""

    markup: str
    encoding: str
    is_html: bool
    is_inline_xbrl: bool
    sgml_type: str | None = None
    sgml_filename: str | None = None
    sgml_header: str | None = None
    warnings: list[str] = field(default_factory=list)


def _check_size(data: bytes, source: str, settings: ParseSettings, warnings: list[str]) -> None:
    size_mb = len(data) / 1_000_000
    if size_mb > settings.max_document_mb:
        raise DocumentTooLargeError(
            source,
            f"document is {size_mb:.1f} MB, over the {settings.max_document_mb:g} MB limit",
            "if this is a genuine filing, raise GRAPHRAG_MAX_DOCUMENT_MB; otherwise check that "
            "the source did not return a whole submission or an archive instead of one document",
            field="bytes",
        )
    if size_mb > settings.large_document_mb:
        warnings.append(
            f"large document ({size_mb:.1f} MB > {settings.large_document_mb:g} MB): parsed, "
            "but expect several seconds and proportionally more memory"
        )


def _check_binary(data: bytes, source: str) -> None:
    head = data[:8192]
    for magic, what in _MAGIC:
        if head.startswith(magic):
            raise BinaryDocumentError(
                source,
                f"file is {what}, not an HTML or text filing document",
                "point the source at the filing's primary .htm/.txt document",
                field="content",
            )
    # UTF-16 text has NULs too; its BOM is handled by the decoder, so only refuse NULs without one.
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return
    nul = head.count(b"\x00")
    control = sum(1 for b in head if b < 9 or 13 < b < 32)
    if nul or control > len(head) * 0.05:
        raise BinaryDocumentError(
            source,
            f"file looks binary ({nul} NUL and {control} control bytes in the first "
            f"{len(head)} bytes)",
            "check the download (a partial or corrupted transfer?) and that the path names a "
            "filing document, not an image or archive",
            field="content",
        )


def _decode(data: bytes, warnings: list[str]) -> tuple[str, str]:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace"), "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace"), "utf-16"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        bad_offset = exc.start
    head = data[:4096]
    declared = _XML_ENCODING_RE.search(head) or _CHARSET_RE.search(head)
    candidates = []
    if declared:
        candidates.append(declared.group(1).decode("ascii", "replace").lower())
    candidates.append("windows-1252")
    for encoding in candidates:
        if encoding in {"utf-8", "utf8"}:
            continue
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
        warnings.append(
            f"not valid UTF-8 (first invalid byte at offset {bad_offset}); decoded as {encoding}"
            + (" as its charset declares" if declared and encoding == candidates[0] else "")
        )
        return text, encoding
    warnings.append(
        f"not valid UTF-8 (first invalid byte at offset {bad_offset}) and no declared charset "
        "decodes it; undecodable bytes replaced with U+FFFD"
    )
    return data.decode("utf-8", errors="replace"), "utf-8-replace"


def _unwrap_sgml(text: str, doc: DecodedDocument) -> str:
    """EDGAR wraps documents in `<DOCUMENT><TYPE>…<TEXT>…</TEXT>`; keep the inner markup."""
    header = _HEADER_RE.search(text[:200_000])
    if header:
        doc.sgml_header = header.group(1)
    match = _SGML_DOC_RE.search(text)
    if not match:
        return text
    body = match.group(1)
    fields = {k.upper(): v.strip() for k, v in _SGML_FIELD_RE.findall(body[:2000])}
    doc.sgml_type = fields.get("TYPE") or None
    doc.sgml_filename = fields.get("FILENAME") or None
    inner = _SGML_TEXT_RE.search(body)
    if inner is None:
        doc.warnings.append("SGML <DOCUMENT> envelope without a <TEXT> part; using it whole")
        return body
    content = inner.group(1)
    wrapped = _XBRL_WRAP_RE.match(content)
    if wrapped:
        content = wrapped.group(1)
    if len(_SGML_DOC_RE.findall(text)) > 1:
        doc.warnings.append(
            "file holds a whole EDGAR submission with several documents; only the first "
            f"({doc.sgml_type or 'untyped'}) is used"
        )
    return content


def _truncation_warning(markup: str, is_html: bool) -> str | None:
    tail = markup[-4096:].rstrip()
    if not tail:
        return None
    if is_html:
        if not re.search(r"</html\s*>", tail, re.I):
            last = tail[-60:].replace("\n", " ")
            inside_tag = tail.rfind("<") > tail.rfind(">")
            return (
                "document appears truncated: no closing </html> tag"
                + (" and it ends inside a tag" if inside_tag else "")
                + f" (ends with {last!r}); parsed what is there, re-fetch it to get the rest"
            )
    return None


def decode_document(
    data: bytes, source: str, settings: ParseSettings | None = None
) -> DecodedDocument:
    """Validate and decode one document's bytes; raises a `FilingError` when it is unusable."""
    settings = settings or ParseSettings()
    warnings: list[str] = []
    if not data or not data.strip():
        raise EmptyDocumentError(
            source,
            "file is empty" if not data else f"file holds only whitespace ({len(data)} bytes)",
            "re-fetch the document; EDGAR returns empty bodies when throttled or mid-publication",
            field="content",
        )
    _check_size(data, source, settings, warnings)
    _check_binary(data, source)
    text, encoding = _decode(data, warnings)
    doc = DecodedDocument(
        markup="", encoding=encoding, is_html=False, is_inline_xbrl=False, warnings=warnings
    )
    stripped = text.lstrip()
    if (
        stripped[:200]
        .upper()
        .startswith(("<DOCUMENT>", "<SEC-DOCUMENT>", "<IMS-DOCUMENT>", "<SEC-HEADER>"))
    ):
        text = _unwrap_sgml(text, doc)
    if not text.strip():
        raise EmptyDocumentError(
            source,
            "document has no content inside its SGML <TEXT> envelope",
            "re-fetch the document from EDGAR",
            field="TEXT",
        )
    head = text[:20_000].lower()
    doc.is_html = bool(re.search(r"<(html|body|div|p|table|font|br)\b", head))
    doc.is_inline_xbrl = _IX_FACT_RE.search(text) is not None
    doc.markup = text
    warning = _truncation_warning(text, doc.is_html)
    if warning:
        doc.warnings.append(warning)
    return doc
