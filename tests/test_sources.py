"""The local-folder source and the discovery catalog."""

import datetime as dt

import pytest

from graphrag_core.common.errors import ConfigurationError, FilingError
from graphrag_core.intake.catalog import FilingCatalog, register_discovered
from graphrag_core.intake.local_folder import LocalFolderSource


def test_manifest_groups_exhibits_with_their_filing(corpus_dir):
    refs = {r.filing_id: r for r in LocalFolderSource(corpus_dir).discover()}
    assert len(refs) == 60  # 62 documents, two exhibits joined to their 8-K
    abvc = refs["0001213900-25-032135"]
    assert [d.document_type for d in abvc.documents] == ["8-K", "EX-99.1"]
    nvda = refs["0001045810-25-000023"]
    assert (nvda.cik, nvda.ticker, nvda.form) == ("0001045810", "NVDA", "10-K")
    assert nvda.period_end == dt.date(2025, 1, 26) and nvda.filed_date == dt.date(2025, 2, 26)
    # a document without an accession number is keyed by its content
    no_accession = [r for r in refs.values() if r.accession is None]
    assert no_accession and all(
        r.filing_id.startswith("sha-") and len(r.filing_id) == 20 for r in no_accession
    )


def test_folder_without_manifest_reads_each_document(tmp_path, corpus_dir):
    folder = tmp_path / "filings"
    folder.mkdir()
    (folder / "0000950153-99-001234.htm").write_bytes(
        (corpus_dir / "filings/CIK0000859368/10-K/0000950153-99-001234.htm").read_bytes()
    )
    (folder / "notes.htm").write_text("<html><body><p>hello</p></body></html>")
    (folder / "image.png").write_bytes(b"\x89PNG")
    refs = LocalFolderSource(folder).discover()
    assert sorted(r.filing_id[:4] for r in refs) == ["0000", "sha-"]
    assert all(r.form is None for r in refs)


def test_since_filters_by_filing_date(corpus_dir):
    refs = LocalFolderSource(corpus_dir).discover(since=dt.date(2025, 7, 1))
    assert refs and all(r.filed_date is None or r.filed_date >= dt.date(2025, 7, 1) for r in refs)


def test_missing_folder_names_the_setting(tmp_path):
    with pytest.raises(ConfigurationError, match="FILINGS_CORPUS"):
        LocalFolderSource(tmp_path / "nope")


def test_reference_files(corpus_dir):
    source = LocalFolderSource(corpus_dir)
    tickers = {r["ticker"]: r["cik"] for r in source.company_tickers()}
    assert tickers["NVDA"] == "0001045810" and tickers["GOOGL"] == "0001652044"
    assert source.submissions("1045810")["name"] == "NVIDIA CORP"
    assert source.submissions("0000000001") is None


def test_catalog_records_new_and_changed_only(corpus_dir, data_root):
    source = LocalFolderSource(corpus_dir)
    catalog = FilingCatalog(data_root)
    first = register_discovered(source, catalog)
    assert len(first) == 60 and len(catalog.ids()) == 60
    assert register_discovered(source, catalog) == []
    ref = catalog.get("0001045810-25-000023")
    assert ref.documents[0].location.endswith("nvda-10-k-2025-02-26.htm")
    with pytest.raises(FilingError, match="not in the catalog"):
        catalog.get("0000000000-00-000000")
