"""A polite client for SEC EDGAR's public endpoints.

SEC's fair-access rules shape every line here: each request names its sender in the User-Agent
(`EDGAR_IDENTITY`), the whole process stays under 10 requests per second (one token bucket shared
by every thread using the client), failures that are SEC's or the network's (429, 5xx, timeouts,
resets, bodies cut short) are retried with exponential backoff and jitter, and every complete
response is cached on disk so a re-run asks SEC for nothing it already has.

The client is safe to share between threads: httpx's `Client` is, the bucket and counters take
locks, and requests for one URL are serialised so two threads never download the same thing.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import logging
import random
import re
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from graphrag_core.common.errors import ConfigurationError, FilingError
from graphrag_core.common.ids import normalize_accession, require_cik
from graphrag_core.intake.edgar.filing_index import (
    DirectoryItem,
    FilingIndex,
    parse_directory_listing,
    parse_index_page,
)
from graphrag_core.intake.edgar.rate_limit import SharedTokenBucket
from graphrag_core.intake.edgar.response_cache import CachedResponse, ResponseCache
from graphrag_core.settings import EdgarSettings

log = logging.getLogger(__name__)

# "Name email@domain": SEC asks for a company or person name and a contact address.
IDENTITY_RE = re.compile(r"^(?P<name>\S.*?)\s+<?(?P<email>[^@\s<>]+@[^@\s<>]+\.[^@\s<>.]+)>?$")
SUBMISSIONS_PAGE_RE = re.compile(r"^CIK\d{10}-submissions-\d{3}\.json$")
_URL_LOCK_STRIPES = 64

IDENTITY_HELP = (
    'set EDGAR_IDENTITY="Name email" (for example EDGAR_IDENTITY="Jane Doe jane@example.com"); '
    "SEC refuses requests whose User-Agent does not name a person or company and an email "
    "address. To work without EDGAR, read a local folder of filings instead: "
    "FILINGS_CORPUS=../shared/corpus"
)


def validate_identity(identity: str | None) -> str:
    """The User-Agent to send, or a ConfigurationError that says how to set it."""
    if identity is None or not identity.strip():
        raise ConfigurationError(f"EDGAR_IDENTITY is not set: {IDENTITY_HELP}")
    identity = " ".join(identity.split())
    if not IDENTITY_RE.match(identity):
        raise ConfigurationError(
            f"EDGAR_IDENTITY={identity!r} is not a name followed by an email address: "
            f"{IDENTITY_HELP}"
        )
    return identity


class EdgarRequestError(FilingError):
    """A request to EDGAR failed for good; names the URL, the last status and what to do."""

    def __init__(
        self,
        url: str,
        problem: str,
        fix: str,
        *,
        status: int | None = None,
        attempts: int = 1,
    ):
        super().__init__(url, problem, fix)
        self.url = url
        self.status = status
        self.attempts = attempts


class EdgarNotFoundError(EdgarRequestError):
    """EDGAR has nothing at this URL (404): not retried, since it will not appear by waiting."""


@dataclass(frozen=True)
class RequestStats:
    """What a client did: HTTP requests sent (every attempt counts) versus cache hits."""

    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    bytes_downloaded: int = 0


class _Transient(Exception):
    """A failure worth another attempt."""

    def __init__(self, reason: str, status: int | None = None, retry_after_s: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retry_after_s = retry_after_s


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delay-seconds or an HTTP date), if readable."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


class EdgarClient:
    """SEC EDGAR over HTTP: rate-limited, retried, cached on disk under `cache_dir`."""

    def __init__(self, settings: EdgarSettings, cache_dir: Path | str):
        self.settings = settings
        self.identity = validate_identity(settings.identity)
        self.cache = ResponseCache(cache_dir)
        # One schedule per cache folder, shared by every process using it (see SharedTokenBucket).
        self._bucket = SharedTokenBucket(
            Path(cache_dir) / ".rate-schedule",
            settings.max_requests_per_second * (1.0 - settings.rate_headroom),
            capacity=1.0,
        )
        self._http = httpx.Client(
            headers={"User-Agent": self.identity, "Accept-Encoding": "gzip, deflate"},
            timeout=httpx.Timeout(settings.timeout_s),
            follow_redirects=True,
        )
        self._stats = RequestStats()
        self._stats_lock = threading.Lock()
        self._url_locks = [threading.Lock() for _ in range(_URL_LOCK_STRIPES)]

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> EdgarClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @property
    def stats(self) -> RequestStats:
        with self._stats_lock:
            return self._stats

    def _count(self, **increments: int) -> None:
        with self._stats_lock:
            current = self._stats
            self._stats = replace(
                current, **{k: getattr(current, k) + v for k, v in increments.items()}
            )

    # -- URLs (the layout of SEC's sites; hosts come from settings) ----------------------------
    def submissions_url(self, cik: str | int) -> str:
        return f"{self.settings.data_base_url.rstrip('/')}/submissions/CIK{require_cik(cik)}.json"

    def submissions_page_url(self, name: str) -> str:
        if not SUBMISSIONS_PAGE_RE.match(name):
            raise ValueError(
                f"not a submissions page name: {name!r} (want CIK##########-submissions-###.json, "
                "as listed in filings.files of a submissions JSON)"
            )
        return f"{self.settings.data_base_url.rstrip('/')}/submissions/{name}"

    def companyfacts_url(self, cik: str | int) -> str:
        base = self.settings.data_base_url.rstrip("/")
        return f"{base}/api/xbrl/companyfacts/CIK{require_cik(cik)}.json"

    def filing_folder_url(self, cik: str | int, accession: str) -> str:
        """`…/Archives/edgar/data/{cik without zeros}/{accession without dashes}/`."""
        base = self.settings.archives_base_url.rstrip("/")
        folder = normalize_accession(accession).replace("-", "")
        return f"{base}/Archives/edgar/data/{int(require_cik(cik))}/{folder}/"

    def document_url(self, cik: str | int, accession: str, filename: str) -> str:
        # Some primary documents sit in a subfolder (`xslF345X05/form4.xml`); none climbs out.
        if not filename.strip("/") or ".." in filename.split("/"):
            raise ValueError(f"not a document file name: {filename!r}")
        return self.filing_folder_url(cik, accession) + filename.lstrip("/")

    def filing_index_url(self, cik: str | int, accession: str) -> str:
        accession = normalize_accession(accession)
        return self.filing_folder_url(cik, accession) + f"{accession}-index.htm"

    # -- SEC endpoints -----------------------------------------------------------------------
    def company_tickers(self, *, max_age_s: float | None = None) -> dict:
        """SEC's ticker → CIK map, as published (`{"0": {"cik_str", "ticker", "title"}, …}`)."""
        age = self.settings.tickers_max_age_s if max_age_s is None else max_age_s
        return self.get_json(self.settings.tickers_url, max_age_s=age)

    def submissions(self, cik: str | int, *, max_age_s: float | None = None) -> dict:
        """A company's submissions JSON (recent filings as parallel arrays, older pages listed)."""
        age = self.settings.live_max_age_s if max_age_s is None else max_age_s
        return self.get_json(self.submissions_url(cik), max_age_s=age)

    def submissions_page(self, name: str, *, max_age_s: float | None = None) -> dict:
        """An older page of a company's filings, named in `filings.files` of its submissions."""
        age = self.settings.live_max_age_s if max_age_s is None else max_age_s
        return self.get_json(self.submissions_page_url(name), max_age_s=age)

    def companyfacts(self, cik: str | int, *, max_age_s: float | None = None) -> dict:
        """Every XBRL fact a company has filed (SEC's companyfacts JSON)."""
        age = self.settings.live_max_age_s if max_age_s is None else max_age_s
        return self.get_json(self.companyfacts_url(cik), max_age_s=age)

    def filing_index(self, cik: str | int, accession: str) -> FilingIndex:
        """The documents of a filing with their EDGAR types, from its `-index.htm` page."""
        page_url = self.filing_index_url(cik, accession)
        body = self.get_bytes(page_url)
        try:
            return parse_index_page(
                body,
                page_url=page_url,
                folder_url=self.filing_folder_url(cik, accession),
                cik=require_cik(cik),
                accession=normalize_accession(accession),
            )
        except FilingError:
            # A page SEC served whole but we cannot read must not stay cached as if it were good.
            self.cache.invalidate(page_url)
            raise

    def filing_directory(self, cik: str | int, accession: str) -> list[DirectoryItem]:
        """Every file in a filing's folder (names and sizes), from its `index.json`."""
        folder = self.filing_folder_url(cik, accession)
        listing_url = folder + "index.json"
        body = self.get_bytes(listing_url)
        try:
            return parse_directory_listing(body, listing_url=listing_url, folder_url=folder)
        except FilingError:
            self.cache.invalidate(listing_url)
            raise

    # -- generic GETs ------------------------------------------------------------------------
    def get_bytes(self, url: str, *, max_age_s: float | None = None) -> bytes:
        """The body at `url`; from the cache when present and no older than `max_age_s`
        (None: any age, right for Archives documents, which never change once filed)."""
        return self.get(url, max_age_s=max_age_s).body

    def get_json(self, url: str, *, max_age_s: float | None = None) -> Any:
        body = self.get_bytes(url, max_age_s=max_age_s)
        try:
            return json.loads(body)
        except ValueError as exc:
            self.cache.invalidate(url)
            raise EdgarRequestError(
                url,
                f"response is not JSON ({exc}); first bytes: {body[:80]!r}",
                "check the EDGAR_*_URL settings point at SEC or a faithful mirror",
                status=200,
            ) from exc

    def get(self, url: str, *, max_age_s: float | None = None) -> CachedResponse:
        with self._url_locks[hash(url) % _URL_LOCK_STRIPES]:
            cached = self.cache.get(url, max_age_s)
            if cached is not None:
                self._count(cache_hits=1)
                return cached
            body, content_type = self._download(url)
            return self.cache.put(url, body, content_type)

    # -- one download, retried -----------------------------------------------------------------
    def _download(self, url: str) -> tuple[bytes, str | None]:
        attempts = self.settings.max_retries + 1
        failure: _Transient | None = None
        for attempt in range(attempts):
            if failure is not None:
                delay = self._delay_before_retry(url, attempt, failure)
                self._count(retries=1)
                log.warning(
                    "EDGAR %s: %s; attempt %d of %d in %.2fs",
                    url,
                    failure.reason,
                    attempt + 1,
                    attempts,
                    delay,
                )
                time.sleep(delay)
            try:
                response = self._attempt(url)
            except _Transient as exc:
                failure = exc
                continue
            return response.content, response.headers.get("content-type")
        assert failure is not None
        raise EdgarRequestError(
            url,
            f"gave up after {attempts} attempts; last failure: {failure.reason}",
            self._fix_for(failure),
            status=failure.status,
            attempts=attempts,
        )

    def _attempt(self, url: str) -> httpx.Response:
        self._bucket.acquire()
        self._count(requests=1)
        try:
            response = self._http.get(url)
        except httpx.UnsupportedProtocol as exc:
            raise EdgarRequestError(
                url, f"unsupported URL ({exc})", "EDGAR_*_URL settings must start with https://"
            ) from exc
        except httpx.TimeoutException as exc:
            raise _Transient(
                f"no response within EDGAR_TIMEOUT_S={self.settings.timeout_s}s "
                f"({type(exc).__name__})"
            ) from exc
        except httpx.RequestError as exc:
            # Connection refused/reset, and bodies shorter than their Content-Length
            # (httpx raises RemoteProtocolError when the peer closes early).
            raise _Transient(f"{type(exc).__name__}: {exc}") from exc
        self._count(bytes_downloaded=response.num_bytes_downloaded)
        self._check_status(url, response)
        self._check_complete(response)
        return response

    def _check_status(self, url: str, response: httpx.Response) -> None:
        status = response.status_code
        if status == 200:
            return
        label = f"HTTP {status} {response.reason_phrase}".strip()
        if status == 429:
            raise _Transient(label, status, parse_retry_after(response.headers.get("retry-after")))
        if status >= 500:
            raise _Transient(label, status)
        if status == 404:
            raise EdgarNotFoundError(
                url,
                f"{label}: EDGAR has no such document",
                "check the CIK, accession number and file name (a filing's index page lists "
                "its documents); if a base URL was changed, check EDGAR_*_URL",
                status=status,
            )
        if status == 403:
            raise EdgarRequestError(
                url,
                f"{label}: SEC refused the request",
                f"SEC blocks clients without a proper User-Agent or above 10 requests/s: "
                f"{IDENTITY_HELP}; if EDGAR_IDENTITY is set, wait ten minutes before retrying",
                status=status,
            )
        raise EdgarRequestError(
            url, f"{label}", "check the URL and the EDGAR_*_URL settings", status=status
        )

    @staticmethod
    def _check_complete(response: httpx.Response) -> None:
        """Refuse a body shorter than its Content-Length, in case the transport let one through."""
        declared = response.headers.get("content-length")
        if declared is None or not declared.isdigit():
            return
        received = response.num_bytes_downloaded
        if received != int(declared):
            raise _Transient(
                f"truncated body: received {received} of {declared} bytes", response.status_code
            )

    def _delay_before_retry(self, url: str, attempt: int, failure: _Transient) -> float:
        cap = min(self.settings.backoff_max_s, self.settings.backoff_base_s * 2 ** (attempt - 1))
        # Equal jitter: at least half the exponential step, so retries still back off, plus a
        # random half, so threads that failed together do not come back together.
        delay = cap / 2 + random.uniform(0, cap / 2)
        wait = failure.retry_after_s
        if wait is None:
            if failure.status == 429:
                self._bucket.pause_until(time.monotonic() + delay)
            return delay
        if wait > self.settings.backoff_max_s:
            raise EdgarRequestError(
                url,
                f"{failure.reason}: SEC asks to wait {wait:.0f}s (Retry-After), longer than "
                f"EDGAR_BACKOFF_MAX_S={self.settings.backoff_max_s}s",
                "wait that long and re-run (cached responses are kept), or raise "
                "EDGAR_BACKOFF_MAX_S; make sure no other process uses this identity at full rate",
                status=failure.status,
                attempts=attempt,
            )
        # Hold back every thread, not only this one: the server throttles the client.
        self._bucket.pause_until(time.monotonic() + wait)
        return max(wait, delay)

    @staticmethod
    def _fix_for(failure: _Transient) -> str:
        if failure.status == 429:
            return (
                "SEC is throttling this client: lower EDGAR_MAX_REQUESTS_PER_SECOND, make sure "
                "one process fetches per identity, and re-run later (cached responses are kept)"
            )
        return (
            "EDGAR or the network is failing: re-run later (cached responses are kept), or "
            "raise EDGAR_MAX_RETRIES / EDGAR_TIMEOUT_S"
        )
