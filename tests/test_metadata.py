"""Filing metadata: dei facts first, then SGML header and cover page, with provenance."""

import datetime as dt

import pytest

from graphrag_core.common.dates import parse_date_loose, parse_fiscal_year_end
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.intake.metadata import cover_fields, dei_facts, header_fields
from graphrag_core.intake.raw_filing import ingest_filing
from graphrag_core.tables.records import DocumentRef, FilingRef
from graphrag_core.tables.table_store import TableStore
from graphrag_core.text.documents import decode_document


@pytest.mark.parametrize(
    "text, expected",
    [
        ("January 26, 2025", dt.date(2025, 1, 26)),
        ("Jan. 26, 2025", dt.date(2025, 1, 26)),
        ("26 January 2025", dt.date(2025, 1, 26)),
        ("2025-01-26", dt.date(2025, 1, 26)),
        ("01/26/2025", dt.date(2025, 1, 26)),
        ("20250126", dt.date(2025, 1, 26)),
        ("sometime soon", None),
        ("February 30, 2025", None),
    ],
)
def test_parse_date_loose(text, expected):
    assert parse_date_loose(text) == expected


def test_fiscal_year_end_forms():
    assert parse_fiscal_year_end("--01-26") == "--01-26"
    assert parse_fiscal_year_end("0928") == "--09-28"
    assert parse_fiscal_year_end("January 26") == "--01-26"
    assert parse_fiscal_year_end("whenever") is None


def test_dei_facts_hidden_and_visible():
    markup = (
        '<div style="display:none"><ix:hidden><ix:nonNumeric '
        'name="dei:CurrentFiscalYearEndDate" '
        'contextRef="c">--01-26</ix:nonNumeric></ix:hidden></div>'
        '<p>For the fiscal year ended <ix:nonNumeric name="dei:DocumentPeriodEndDate" '
        'contextRef="c" format="ixt:date-monthname-day-year-en">January <span>26</span>, '
        "2025</ix:nonNumeric></p>"
    )
    facts = dei_facts(markup)
    assert facts == {
        "CurrentFiscalYearEndDate": "--01-26",
        "DocumentPeriodEndDate": "January 26 , 2025",
    }
    assert parse_date_loose(facts["DocumentPeriodEndDate"]) == dt.date(2025, 1, 26)


def test_header_and_cover_fields():
    header = (
        "ACCESSION NUMBER:\t\t0000950153-99-001234\nCONFORMED SUBMISSION TYPE:\t10-K\nCENTRAL "
        "INDEX KEY:\t\t\t0000859368\nCONFORMED PERIOD OF REPORT:\t19990630\n"
    )
    assert header_fields(header) == {
        "accession": "0000950153-99-001234",
        "form": "10-K",
        "cik": "0000859368",
        "period_end": "19990630",
    }
    cover = (
        "UNITED STATES\n\nFORM 10-K\n\nFor the fiscal year ended June 30, 1999.\n\nMEDICIS "
        "PHARMACEUTICAL CORPORATION\n\n(Exact name of registrant as specified in its charter)"
    )
    assert cover_fields(cover) == {
        "form": "10-K",
        "period_end": "June 30, 1999",
        "company": "MEDICIS PHARMACEUTICAL CORPORATION",
    }


def _ref_for(corpus_dir, filing_id):
    return next(r for r in LocalFolderSource(corpus_dir).discover() if r.filing_id == filing_id)


def test_nvidia_meta_comes_from_dei_facts(corpus_dir, data_root):
    source = LocalFolderSource(corpus_dir)
    ref = _ref_for(corpus_dir, "0001045810-25-000023")
    meta = ingest_filing(ref, source.fetch(ref), TableStore(data_root)).meta
    assert (meta.cik, meta.form, meta.company) == ("0001045810", "10-K", "NVIDIA CORP")
    assert meta.period_end == dt.date(2025, 1, 26)
    assert (meta.fiscal_year, meta.fiscal_period, meta.fiscal_year_end) == (2025, "FY", "--01-26")
    assert meta.meta_sources["period_end"] == "dei:DocumentPeriodEndDate"
    assert meta.ticker == "NVDA" and meta.filed_date == dt.date(2025, 2, 26)


def test_plain_html_filing_falls_back_to_cover_and_source(corpus_dir, data_root):
    source = LocalFolderSource(corpus_dir)
    ref = _ref_for(corpus_dir, "0000950153-99-001234")
    # drop what the manifest knows, so only the document itself can tell
    bare = FilingRef(filing_id=ref.filing_id, source_kind="local", documents=ref.documents)
    meta = ingest_filing(bare, source.fetch(ref), TableStore(data_root)).meta
    assert meta.form == "10-K" and meta.meta_sources["form"] == "cover page"
    assert (
        meta.period_end == dt.date(1999, 6, 30) and meta.meta_sources["period_end"] == "cover page"
    )
    assert not meta.is_inline_xbrl
    assert any("no CIK" in w for w in meta.warnings)


def test_transcript_meta_resolves_its_company_by_ticker(data_root):
    from tests.conftest import FIXTURES

    path = FIXTURES / "transcripts" / "northwind_q2_fy2026.txt"
    doc = DocumentRef(document_type="UNKNOWN", filename=path.name, location=str(path))
    ref = FilingRef(filing_id="sha-00000000000000aa", source_kind="local", documents=(doc,))
    meta = ingest_filing(
        ref, [(doc, path.read_bytes())], TableStore(data_root), tickers={"NWSC": "0000999999"}
    ).meta
    assert meta.form == "TRANSCRIPT" and meta.ticker == "NWSC" and meta.cik == "0000999999"
    assert (meta.fiscal_year, meta.fiscal_period) == (2026, "Q2")
    assert meta.period_end == dt.date(2026, 8, 20)
    assert decode_document(path.read_bytes(), str(path)).encoding == "utf-8"
