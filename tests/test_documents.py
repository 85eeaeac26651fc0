"""Bad input at the byte level: each case gets a specific error or warning."""

import pytest

from graphrag_core.common.errors import (
    BinaryDocumentError,
    DocumentTooLargeError,
    EmptyDocumentError,
)
from graphrag_core.settings import ParseSettings
from graphrag_core.text.documents import decode_document

HTML = b"<html><body><p>Item 1. Business</p><p>We make things.</p></body></html>"


def test_empty_file_is_refused_with_fix():
    with pytest.raises(EmptyDocumentError) as exc:
        decode_document(b"", "filings/x/empty.htm")
    message = str(exc.value)
    assert "filings/x/empty.htm" in message and "empty" in message and "Fix:" in message


def test_whitespace_only_file_is_empty():
    with pytest.raises(EmptyDocumentError, match="only whitespace"):
        decode_document(b"  \n\t\n ", "blank.htm")


@pytest.mark.parametrize(
    "data, what",
    [
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "PDF"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "PNG"),
        (b"PK\x03\x04\x14\x00\x06\x00", "ZIP"),
        (bytes(range(256)) * 40, "binary"),
    ],
)
def test_binary_files_are_refused_naming_what_they_are(data, what):
    with pytest.raises(BinaryDocumentError) as exc:
        decode_document(data, "doc.htm")
    assert what in str(exc.value)
    assert exc.value.field == "content"


def test_non_utf8_file_is_decoded_with_a_warning():
    data = "<html><body><p>Caf\u00e9 \u2014 \u201cquoted\u201d revenue</p></body></html>".encode(
        "cp1252"
    )
    doc = decode_document(data, "latin.htm")
    assert "Café — “quoted” revenue" in doc.markup
    assert doc.encoding == "windows-1252"
    assert any("not valid UTF-8" in w and "offset" in w for w in doc.warnings)


def test_declared_charset_is_honoured():
    data = (
        '<html><head><meta charset="iso-8859-1"></head><body><p>\u00a9 2025 '
        "\u00c5ngstr\u00f6m</p></body></html>"
    ).encode("latin-1")
    doc = decode_document(data, "declared.htm")
    assert "© 2025 Ångström" in doc.markup
    assert doc.encoding == "iso-8859-1"


def test_truncated_html_gets_a_specific_warning():
    doc = decode_document(HTML[:-20] + b"<p>Revenue was $1", "cut.htm")
    assert any("truncated" in w and "</html>" in w for w in doc.warnings)
    complete = decode_document(HTML, "whole.htm")
    assert not complete.warnings


def test_oversized_document_is_refused_before_parsing():
    settings = ParseSettings(max_document_mb=0.001, large_document_mb=0.0005)
    with pytest.raises(DocumentTooLargeError) as exc:
        decode_document(HTML * 50, "big.htm", settings)
    assert "GRAPHRAG_MAX_DOCUMENT_MB" in str(exc.value)


def test_large_document_is_parsed_with_a_warning():
    settings = ParseSettings(max_document_mb=1, large_document_mb=0.001)
    doc = decode_document(HTML * 50, "large.htm", settings)
    assert any("large document" in w for w in doc.warnings)


def test_sgml_envelope_is_unwrapped():
    data = (
        b"<DOCUMENT>\n<TYPE>EX-99.1\n<SEQUENCE>2\n<FILENAME>ex991.htm\n<DESCRIPTION>EX-99.1\n<TEXT>\n"
        + HTML
        + b"\n</TEXT>\n</DOCUMENT>\n"
    )
    doc = decode_document(data, "wrapped.htm")
    assert doc.sgml_type == "EX-99.1" and doc.sgml_filename == "ex991.htm"
    assert doc.markup.strip().startswith("<html>") and "<TYPE>" not in doc.markup
    assert doc.is_html


def test_inline_xbrl_is_detected():
    ix = (
        b'<html><body><ix:nonFraction name="us-gaap:Revenues" '
        b'id="f1">1</ix:nonFraction></body></html>'
    )
    assert decode_document(ix, "ix.htm").is_inline_xbrl
    assert not decode_document(HTML, "plain.htm").is_inline_xbrl
