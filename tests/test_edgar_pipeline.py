"""EDGAR live intake end to end: the real pipeline (discovery → partitions → raw_filings →
section_chunks on the real Dagster instance) against the loopback EDGAR server."""

import polars as pl

from graphrag_core.settings import Settings
from graphrag_core.tables.table_store import TableStore
from tests.edgar_server import (  # noqa: F401 - the *_fixture names register pytest fixtures
    TEST_IDENTITY,
    edgar_server_fixture,
    edgar_server_session_fixture,
)


def test_edgar_watchlist_through_the_pipeline(edgar_server, tmp_path, monkeypatch):
    from pipelines.ingest import ingest

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))
    edgar = edgar_server.settings(watchlist=("NVDA",), forms=("10-K",), max_filings_per_company=4)
    settings = Settings(data_root=tmp_path / "data", corpus=None, edgar=edgar)
    report = ingest(settings)

    outcome = {o.filing_id: o for o in report.outcomes}
    # NVIDIA's four newest 10-Ks per its real submissions file; the corpus holds two of them.
    assert set(outcome) == {
        "0001045810-26-000021",
        "0001045810-25-000023",
        "0001045810-24-000029",
        "0001045810-23-000017",
    }
    assert outcome["0001045810-25-000023"].success and outcome["0001045810-23-000017"].success
    for missing in ("0001045810-26-000021", "0001045810-24-000029"):
        # a document EDGAR cannot serve fails its own partition, naming the URL
        assert not outcome[missing].success
        assert (
            "404" in outcome[missing].error
            and "/Archives/edgar/data/1045810/" in outcome[missing].error
        )

    store = TableStore(settings.data_root)
    filings = store.scan("raw_filings").collect()
    row = filings.filter(pl.col("filing_id") == "0001045810-25-000023").row(0, named=True)
    assert row["source"].startswith(
        edgar_server.base_url + "/Archives/edgar/data/1045810/000104581025000023/"
    )
    assert (row["cik"], row["form"], str(row["period_end"])) == ("0001045810", "10-K", "2025-01-26")
    chunks = store.read("section_chunks", "0001045810-25-000023")
    assert {"10-K/Item 1", "10-K/Item 1A", "10-K/Item 7"} <= set(chunks["section"])
    # every request carried the identity; a second run is served from the cache
    assert all(r.headers.get("user-agent") == TEST_IDENTITY for r in edgar_server.requests())
    edgar_server.reset()
    again = ingest(settings)
    assert {o.filing_id for o in again.outcomes} == {"0001045810-26-000021", "0001045810-24-000029"}
    archived = [
        r for r in edgar_server.requests() if "/Archives/" in r.path and "index" not in r.path
    ]
    assert all("000104581025000023" not in r.path for r in archived)
