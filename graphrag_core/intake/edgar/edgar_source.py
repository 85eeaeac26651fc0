"""EDGAR as a `FilingSource`: the watchlist's newest filings, discovered from submissions JSON.

Discovery resolves each watchlist entry (a ticker, or a CIK) through SEC's ticker map, reads the
company's submissions JSON (`filings.recent`, then older pages when recent ones are too few) and
keeps, per form in `EdgarSettings.forms`, the newest `max_filings_per_company` filings, filed on or
after `since` when given. Forms match exactly: an amendment (`10-K/A`) is discovered only when
listed itself, because most amendments are a cover page plus Part III or one exhibit, and would
stand in the graph beside the complete original as if they were a second annual report.

For an 8-K the substance (results, guidance) is usually in its EX-99 exhibits, the press releases,
so discovery reads the filing's index page for them; other forms' exhibits (contracts,
certifications, subsidiary lists) are left out.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from graphrag_core.common.dates import iso_date
from graphrag_core.common.errors import ConfigurationError, FilingError
from graphrag_core.common.ids import ACCESSION_RE, normalize_cik, sha256_bytes
from graphrag_core.intake.edgar.client import EdgarClient, EdgarNotFoundError
from graphrag_core.intake.edgar.filing_index import FilingIndex
from graphrag_core.intake.sources import DOCUMENT_SUFFIXES, parse_company_tickers
from graphrag_core.settings import EdgarSettings
from graphrag_core.tables.records import DocumentRef, FilingRef

log = logging.getLogger(__name__)

EXHIBIT_FORMS = frozenset({"8-K", "8-K/A"})
EXHIBIT_TYPE_RE = re.compile(r"^EX-99(\.\d+)?$", re.IGNORECASE)
CIK_ENTRY_RE = re.compile(r"^(?:CIK[-_ ]?)?(\d{1,10})$", re.IGNORECASE)


@dataclass(frozen=True)
class WatchedCompany:
    cik: str
    ticker: str | None


@dataclass(frozen=True)
class SubmissionRow:
    """One filing of a submissions JSON (one index across its parallel arrays)."""

    accession: str
    form: str
    filed: dt.date
    report: dt.date | None
    acceptance: str
    primary_document: str


def submission_rows(table: dict) -> Iterator[SubmissionRow]:
    """Rows of `filings.recent` or of an older page (same parallel-array shape)."""
    accessions = table.get("accessionNumber") or []

    def column(name: str) -> list:
        values = table.get(name) or []
        return values if len(values) == len(accessions) else [""] * len(accessions)

    forms, filed, report = column("form"), column("filingDate"), column("reportDate")
    acceptance, primary = column("acceptanceDateTime"), column("primaryDocument")
    for i, accession in enumerate(accessions):
        filed_on = iso_date(filed[i])
        if not ACCESSION_RE.match(str(accession)) or filed_on is None:
            log.warning(
                "submissions row %d skipped: accession %r, filingDate %r", i, accession, filed[i]
            )
            continue
        yield SubmissionRow(
            accession=accession,
            form=str(forms[i]),
            filed=filed_on,
            report=iso_date(report[i]),
            acceptance=str(acceptance[i] or ""),
            primary_document=str(primary[i] or ""),
        )


class EdgarSource:
    """Filings of `settings.watchlist` from SEC EDGAR, through an `EdgarClient`."""

    kind = "edgar"

    def __init__(
        self,
        client: EdgarClient,
        settings: EdgarSettings | None = None,
        *,
        since: dt.date | None = None,
    ):
        self.client = client
        self.settings = settings or client.settings
        self.since = since
        self.discovery_warnings: list[str] = []

    @classmethod
    def from_settings(
        cls, settings: EdgarSettings, cache_dir: Path | str, *, since: dt.date | None = None
    ) -> EdgarSource:
        """The usual construction: a client with its cache under `cache_dir`."""
        return cls(EdgarClient(settings, cache_dir), settings, since=since)

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> EdgarSource:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- discovery ---------------------------------------------------------------------------
    def discover(self, since: dt.date | None = None) -> list[FilingRef]:
        """Newest filings of every watchlist company, filed on/after `since` (or `self.since`)."""
        since = since or self.since
        companies, unresolved = self.resolve_watchlist()
        if unresolved and not companies:
            raise ConfigurationError(
                f"EDGAR_WATCHLIST={list(self.settings.watchlist)}: none of these is a ticker in "
                f"{self.settings.tickers_url} or a CIK. Use tickers like AAPL or CIKs like 320193"
            )
        refs: dict[str, FilingRef] = {}
        for company in companies:
            for ref in self.discover_company(company, since=since):
                refs.setdefault(ref.filing_id, ref)  # two tickers of one CIK share filings
        return sorted(refs.values(), key=lambda ref: ref.filing_id)

    def resolve_watchlist(self) -> tuple[list[WatchedCompany], list[str]]:
        """(companies found, entries not found); entries not found are logged, not fatal, so a
        delisted ticker does not stop the others from being watched."""
        by_ticker, by_cik = self._ticker_maps()
        found: list[WatchedCompany] = []
        missing: list[str] = []
        for entry in self.settings.watchlist:
            company = self._resolve(entry, by_ticker, by_cik)
            if company is None:
                log.warning("EDGAR_WATCHLIST entry %r is neither a known ticker nor a CIK", entry)
                missing.append(entry)
            elif company not in found:
                found.append(company)
        return found, missing

    def _ticker_maps(self) -> tuple[dict[str, str], dict[str, str]]:
        by_ticker: dict[str, str] = {}
        by_cik: dict[str, str] = {}
        for row in self.company_tickers():
            by_ticker.setdefault(row["ticker"], row["cik"])
            # SEC lists a company's main class first (GOOGL before GOOG).
            by_cik.setdefault(row["cik"], row["ticker"])
        return by_ticker, by_cik

    @staticmethod
    def _resolve(
        entry: str, by_ticker: dict[str, str], by_cik: dict[str, str]
    ) -> WatchedCompany | None:
        entry = entry.strip()
        as_cik = CIK_ENTRY_RE.match(entry)
        if as_cik:
            cik = normalize_cik(as_cik.group(1))
            return WatchedCompany(cik=cik, ticker=by_cik.get(cik)) if cik else None
        # SEC writes share classes with a dash (BRK-B) where exchanges often use a dot.
        ticker = entry.upper().replace(".", "-")
        cik = by_ticker.get(ticker)
        return WatchedCompany(cik=cik, ticker=ticker) if cik else None

    def discover_company(
        self, company: WatchedCompany, *, since: dt.date | None = None
    ) -> list[FilingRef]:
        submissions = self.client.submissions(company.cik)
        refs = []
        for row in self._newest_rows(submissions, since):
            ref = self._filing_ref(company, submissions, row)
            if ref is not None:
                refs.append(ref)
        return refs

    def _newest_rows(self, submissions: dict, since: dt.date | None) -> list[SubmissionRow]:
        forms = {form.upper() for form in self.settings.forms}
        limit = self.settings.max_filings_per_company
        chosen: dict[str, list[SubmissionRow]] = {form: [] for form in forms}

        def take(table: dict) -> None:
            for row in submission_rows(table):
                form = row.form.upper()
                if form in chosen and (since is None or row.filed >= since):
                    chosen[form].append(row)

        filings = submissions.get("filings") or {}
        take(filings.get("recent") or {})
        # Busy filers (banks issuing daily prospectuses) push their annual report out of
        # `recent` within months; older pages are read only while some form is still short.
        pages = sorted(
            filings.get("files") or [], key=lambda p: p.get("filingTo", ""), reverse=True
        )
        for page in pages:
            if all(len(rows) >= limit for rows in chosen.values()):
                break
            page_end = iso_date(page.get("filingTo"))
            if since is not None and page_end is not None and page_end < since:
                break
            take(self.client.submissions_page(page["name"]))

        newest: list[SubmissionRow] = []
        for rows in chosen.values():
            unique = {row.accession: row for row in rows}.values()
            ordered = sorted(
                unique, key=lambda r: (r.filed, r.acceptance, r.accession), reverse=True
            )
            newest.extend(ordered[:limit])
        return newest

    def _filing_ref(
        self, company: WatchedCompany, submissions: dict, row: SubmissionRow
    ) -> FilingRef | None:
        cik = company.cik
        index: FilingIndex | None = None
        if row.form.upper() in EXHIBIT_FORMS or not row.primary_document:
            index = self.client.filing_index(cik, row.accession)
        primary = self._primary_document(cik, row, index)
        if primary is None:
            log.warning(
                "EDGAR %s (%s, CIK %s): no primary document in submissions or index; skipped",
                row.accession,
                row.form,
                cik,
            )
            return None
        documents = [primary]
        if index is not None and row.form.upper() in EXHIBIT_FORMS:
            documents.extend(
                DocumentRef(
                    document_type=d.document_type.upper(), filename=d.filename, location=d.url
                )
                for d in index.documents
                if EXHIBIT_TYPE_RE.match(d.document_type)
                and d.filename != primary.filename
                and Path(d.filename).suffix.lower() in DOCUMENT_SUFFIXES
            )
        tickers = submissions.get("tickers") or []
        return FilingRef(
            filing_id=row.accession,
            source_kind="edgar",
            cik=cik,
            ticker=company.ticker or (tickers[0] if tickers else None),
            company=submissions.get("name"),
            form=row.form,
            period_end=row.report,
            filed_date=row.filed,
            accession=row.accession,
            documents=tuple(documents),
        )

    def _primary_document(
        self, cik: str, row: SubmissionRow, index: FilingIndex | None
    ) -> DocumentRef | None:
        filename = row.primary_document
        if not filename and index is not None:
            # Older filings leave primaryDocument empty; the index row typed as the form is it.
            matches = index.by_type(row.form)
            filename = matches[0].filename if matches else ""
        if not filename:
            return None
        return DocumentRef(
            document_type=row.form,
            filename=filename.rsplit("/", 1)[-1],
            location=self.client.document_url(cik, row.accession, filename),
        )

    # -- fetching ----------------------------------------------------------------------------
    def fetch(self, ref: FilingRef) -> list[tuple[DocumentRef, bytes]]:
        """Every document of a discovered filing, primary first; cached after the first time."""
        if ref.source_kind != "edgar":
            raise FilingError(
                ref.filing_id,
                f"filing was discovered by a {ref.source_kind!r} source, not EDGAR",
                "fetch it with the source that discovered it",
                field="source_kind",
            )
        ordered = sorted(ref.documents, key=lambda doc: doc.role != "primary")
        fetched = []
        for doc in ordered:
            data = self.client.get_bytes(doc.location)
            if doc.sha256 and sha256_bytes(data) != doc.sha256:
                self.client.cache.invalidate(doc.location)
                raise FilingError(
                    doc.location,
                    f"content differs from the SHA-256 recorded at discovery ({doc.sha256[:12]}…)",
                    "re-run discovery to refresh the filing's documents, then fetch again",
                    field="sha256",
                )
            fetched.append((doc, data))
        return fetched

    # -- reference data ----------------------------------------------------------------------
    def company_tickers(self) -> list[dict]:
        return list(parse_company_tickers(self.client.company_tickers()))

    def submissions(self, cik: str) -> dict | None:
        try:
            return self.client.submissions(cik)
        except EdgarNotFoundError:
            return None

    def companyfacts(self, cik: str) -> dict | None:
        try:
            return self.client.companyfacts(cik)
        except EdgarNotFoundError:
            return None
