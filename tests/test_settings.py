"""Settings come from the environment with typed defaults."""

from pathlib import Path

from graphrag_core.settings import Settings


def test_environment_overrides(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHRAG_DATA", str(tmp_path / "d"))
    monkeypatch.setenv("FILINGS_CORPUS", str(tmp_path))
    monkeypatch.setenv("EDGAR_WATCHLIST", "AAPL, MSFT,NVDA")
    monkeypatch.setenv("EDGAR_FORMS", '["10-K", "10-Q"]')
    monkeypatch.setenv("GRAPHRAG_CHUNK_MAX_TOKENS", "256")
    monkeypatch.setenv("GRAPHRAG_MAX_DOCUMENT_MB", "42")
    s = Settings()
    assert s.data_root == (tmp_path / "d").resolve() and s.corpus == tmp_path
    assert s.edgar.watchlist == ("AAPL", "MSFT", "NVDA") and s.edgar.forms == ("10-K", "10-Q")
    assert s.chunking.max_tokens == 256 and s.parse.max_document_mb == 42


def test_defaults(monkeypatch):
    for var in ("GRAPHRAG_DATA", "FILINGS_CORPUS", "EDGAR_IDENTITY", "EDGAR_WATCHLIST"):
        monkeypatch.delenv(var, raising=False)
    s = Settings()
    assert s.data_root == Path("data").resolve() and s.corpus is None and s.edgar.identity is None
    assert s.chunking.max_tokens == 512 and s.edgar.max_requests_per_second == 10
