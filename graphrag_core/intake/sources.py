"""Where filings come from: one protocol, a local folder (`local_folder`) and EDGAR (`edgar/`).

A source *discovers* filings (cheap: metadata and document locations, as `FilingRef`s) and
*fetches* a discovered filing's documents (bytes). Discovery feeds the dynamic partition set;
fetching happens inside the raw_filings asset, one partition at a time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from graphrag_core.common.ids import normalize_cik
from graphrag_core.tables.records import DocumentRef, FilingRef

DOCUMENT_SUFFIXES = (".htm", ".html", ".xhtml", ".txt")


@runtime_checkable
class FilingSource(Protocol):
    """What the pipeline needs from a source of filings."""

    kind: str
    # What the last `discover()` skipped or doubted, one line each ("b.htm duplicates a.htm
    # (same sha256), skipped"); callers show them to whoever started the discovery.
    discovery_warnings: list[str]

    def discover(self, since: dt.date | None = None) -> list[FilingRef]:
        """Filings this source can provide now, filed on or after `since` when given."""
        ...

    def fetch(self, ref: FilingRef) -> list[tuple[DocumentRef, bytes]]:
        """The bytes of every document of a discovered filing, primary document first."""
        ...

    def company_tickers(self) -> list[dict]:
        """SEC's ticker map as rows `{cik, ticker, title}` (empty when unavailable)."""
        ...

    def submissions(self, cik: str) -> dict | None:
        """SEC submissions JSON of a company (SIC, former names, fiscal year end), if known."""
        ...


def parse_company_tickers(payload: dict[str, Any] | list[Any]) -> Iterable[dict[str, Any]]:
    """SEC's company_tickers.json (`{"0": {"cik_str", "ticker", "title"}, …}`) → rows."""
    values = payload.values() if isinstance(payload, dict) else payload
    for row in values:
        cik = normalize_cik(row.get("cik_str") or row.get("cik"))
        if cik and row.get("ticker"):
            yield {"cik": cik, "ticker": str(row["ticker"]).upper(), "title": row.get("title")}
