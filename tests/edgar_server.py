"""A real HTTP server on loopback that plays SEC EDGAR, serving the shared corpus.

The EDGAR client is tested against this server over real sockets, never against mocks: the server
is the test double. It serves the corpus in EDGAR's URL layout:

    /files/company_tickers.json                          reference/company_tickers.json
    /submissions/CIK##########.json                      reference/submissions/ (newest per CIK),
                                                         else synthesized from manifest.json
    /submissions/CIK##########-submissions-###.json      older pages of synthesized submissions
    /api/xbrl/companyfacts/CIK##########.json            reference/companyfacts/
    /Archives/edgar/data/{cik}/{accession digits}/       a filing folder:
        {accession}-index.htm                            index page ("Document Format Files")
        index.json                                       directory listing
        {document}                                       the corpus file's bytes

Synthesized submissions have SEC's shape (`cik`, `name`, `tickers`, `fiscalYearEnd`,
`filings.recent` as parallel arrays, `filings.files`) and carry the response header
`X-Test-Server-Synthesized: submissions`, so nobody mistakes them for SEC's files.

Corpus filings whose manifest has `accession: null` get an accession minted here, and only here:
filer prefix 9999999999 (no such filer exists), the filing year, and digits of the document's
SHA-256. Filings listed in a real submissions file but absent from the corpus have an index page
that lists the primary document named there; the document itself answers 404.

Faults are planted per path (`plant`): a 429 with Retry-After, a 503, a response slower than the
client's timeout, and a truncated body (a Content-Length larger than the bytes sent, then the
connection closes). Every request is recorded with its arrival time, path and headers.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Literal

import pytest

from graphrag_core.settings import EdgarSettings

FaultKind = Literal["429", "503", "slow", "truncate"]

# Minted accessions only: no EDGAR filer has this id, so a minted number can never collide with
# (or be mistaken for) a real one.
FAKE_FILER_PREFIX = "9999999999"

TEST_IDENTITY = "filings-graphrag tests tests@example.com"

SUBMISSIONS_RE = re.compile(r"^/submissions/CIK(\d{10})\.json$")
SUBMISSIONS_PAGE_RE = re.compile(r"^/submissions/(CIK(\d{10})-submissions-(\d{3})\.json)$")
COMPANYFACTS_RE = re.compile(r"^/api/xbrl/companyfacts/CIK(\d{10})\.json$")
ARCHIVES_RE = re.compile(r"^/Archives/edgar/data/(\d{1,10})/(\d{18})/([^?#]+)$")
REFERENCE_NAME_RE = re.compile(r"CIK(\d{10})")


@dataclass(frozen=True)
class ServedDocument:
    """A document in a filing folder; `path` is None when the corpus lacks its bytes."""

    filename: str
    document_type: str
    description: str
    path: Path | None
    sha256: str | None
    size: int | None
    inline_xbrl: bool = False


@dataclass(frozen=True)
class ServedFiling:
    cik: str
    accession: str
    minted: bool
    form: str
    filed: str
    report: str
    documents: tuple[ServedDocument, ...]

    @property
    def folder(self) -> str:
        return f"/Archives/edgar/data/{int(self.cik)}/{self.accession.replace('-', '')}/"

    @property
    def primary(self) -> ServedDocument:
        return self.documents[0]

    def url_path(self, filename: str) -> str:
        return self.folder + filename


@dataclass(frozen=True)
class RecordedRequest:
    at: float  # time.monotonic() when the request line was read
    method: str
    path: str
    headers: dict[str, str]


@dataclass
class Fault:
    kind: FaultKind
    remaining: int
    retry_after: str | None = None
    delay_s: float = 1.0


@dataclass
class _Response:
    status: int
    body: bytes
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)


def _mint_accession(sha256: str, filed: str, taken: set[str]) -> str:
    number = int(sha256[:12], 16) % 1_000_000
    while True:
        accession = f"{FAKE_FILER_PREFIX}-{filed[2:4]}-{number:06d}"
        if accession not in taken:
            return accession
        number = (number + 1) % 1_000_000


class EdgarCorpusCatalog:
    """What the server knows: filings by accession, submissions by CIK, reference files."""

    def __init__(self, corpus_dir: Path, *, recent_limit: int | None = None):
        self.corpus_dir = corpus_dir
        self.manifest: list[dict] = json.loads((corpus_dir / "manifest.json").read_text("utf-8"))
        self.tickers_path = corpus_dir / "reference" / "company_tickers.json"
        tickers = json.loads(self.tickers_path.read_text("utf-8"))
        self.tickers_by_cik: dict[str, list[str]] = {}
        for row in tickers.values():
            self.tickers_by_cik.setdefault(str(row["cik_str"]).zfill(10), []).append(row["ticker"])
        self.companyfacts = self._reference_files("companyfacts")
        self.real_submissions = {
            cik: json.loads(path.read_text("utf-8"))
            for cik, path in self._reference_files("submissions").items()
        }
        self.filings: dict[str, ServedFiling] = {}
        self._load_corpus_filings()
        self._load_submission_only_filings()
        self.submissions: dict[str, dict] = dict(self.real_submissions)
        self.pages: dict[str, dict] = {}
        self.synthesized: set[str] = set()
        self._synthesize_submissions(recent_limit)

    def _reference_files(self, kind: str) -> dict[str, Path]:
        found: dict[str, Path] = {}
        # Sorted, so the newest snapshot of a company (`_asof-YYYY-MM-DD`) wins.
        for path in sorted((self.corpus_dir / "reference" / kind).glob("*.json")):
            match = REFERENCE_NAME_RE.search(path.name)
            if match:
                found[match.group(1)] = path
        return found

    def _load_corpus_filings(self) -> None:
        exhibits: dict[str, list[dict]] = {}
        for record in self.manifest:
            if record.get("exhibit_of"):
                exhibits.setdefault(record["exhibit_of"], []).append(record)
        taken = {r["accession"] for r in self.manifest if r.get("accession")}
        for record in self.manifest:
            is_primary = not record["document_type"].upper().startswith("EX-")
            # A filing needs a filing date to appear in submissions; a primary without one, and
            # exhibits whose primary is not in the corpus, are not served.
            if record.get("exhibit_of") or not is_primary or not record.get("filed_date"):
                continue
            accession, minted = record.get("accession"), False
            if not accession:
                accession = _mint_accession(record["sha256"], record["filed_date"], taken)
                taken.add(accession)
                minted = True
            documents = [self._served(record, record.get("primary_document"), record["form"])]
            for exhibit in sorted(exhibits.get(record["path"], []), key=lambda r: r["path"]):
                documents.append(
                    self._served(
                        exhibit, exhibit.get("original_filename"), exhibit["document_type"]
                    )
                )
            self.filings[accession] = ServedFiling(
                cik=record["cik"],
                accession=accession,
                minted=minted,
                form=record["form"],
                filed=record["filed_date"],
                report=record.get("period_end") or "",
                documents=tuple(documents),
            )

    def _served(self, record: dict, edgar_name: str | None, doc_type: str) -> ServedDocument:
        path = self.corpus_dir / record["path"]
        return ServedDocument(
            filename=edgar_name or path.name,
            document_type=doc_type,
            description=doc_type,
            path=path,
            sha256=record["sha256"],
            size=record["bytes"],
            inline_xbrl=bool(record.get("is_inline_xbrl")),
        )

    def _load_submission_only_filings(self) -> None:
        for cik, payload in self.real_submissions.items():
            recent = payload["filings"]["recent"]
            for i, accession in enumerate(recent["accessionNumber"]):
                if accession in self.filings or not recent["primaryDocument"][i]:
                    continue
                primary = ServedDocument(
                    filename=recent["primaryDocument"][i],
                    document_type=recent["form"][i],
                    description=recent["primaryDocDescription"][i] or recent["form"][i],
                    path=None,
                    sha256=None,
                    size=None,
                    inline_xbrl=bool(recent["isInlineXBRL"][i]),
                )
                self.filings[accession] = ServedFiling(
                    cik=cik,
                    accession=accession,
                    minted=False,
                    form=recent["form"][i],
                    filed=recent["filingDate"][i],
                    report=recent["reportDate"][i],
                    documents=(primary,),
                )

    def _synthesize_submissions(self, recent_limit: int | None) -> None:
        by_cik: dict[str, list[ServedFiling]] = {}
        for filing in self.filings.values():
            if filing.cik not in self.real_submissions:
                by_cik.setdefault(filing.cik, []).append(filing)
        names = {r["cik"]: r.get("company_name") for r in self.manifest if r.get("company_name")}
        for cik, filings in by_cik.items():
            filings.sort(key=lambda f: (f.filed, f.accession), reverse=True)
            head = filings if recent_limit is None else filings[:recent_limit]
            tail = [] if recent_limit is None else filings[recent_limit:]
            files = []
            if tail:
                name = f"CIK{cik}-submissions-001.json"
                self.pages[name] = _filing_arrays(tail)
                files.append(
                    {
                        "name": name,
                        "filingCount": len(tail),
                        "filingFrom": tail[-1].filed,
                        "filingTo": tail[0].filed,
                    }
                )
            annual = [f for f in filings if f.form == "10-K" and f.report]
            self.submissions[cik] = {
                "cik": cik,
                "entityType": "operating",
                "name": names.get(cik) or f"CIK {cik}",
                "tickers": self.tickers_by_cik.get(cik, []),
                "exchanges": [],
                "fiscalYearEnd": annual[0].report[5:7] + annual[0].report[8:10] if annual else "",
                "formerNames": [],
                "filings": {"recent": _filing_arrays(head), "files": files},
            }
            self.synthesized.add(cik)


def _filing_arrays(filings: list[ServedFiling]) -> dict[str, list]:
    """SEC's parallel-array table of filings (the shape of `filings.recent` and older pages)."""
    return {
        "accessionNumber": [f.accession for f in filings],
        "filingDate": [f.filed for f in filings],
        "reportDate": [f.report for f in filings],
        "acceptanceDateTime": [f"{f.filed}T16:05:00.000Z" for f in filings],
        "act": ["34" for _ in filings],
        "form": [f.form for f in filings],
        "fileNumber": ["" for _ in filings],
        "filmNumber": ["" for _ in filings],
        "items": ["" for _ in filings],
        "core_type": [f.form for f in filings],
        "size": [sum(d.size or 0 for d in f.documents) for f in filings],
        "isXBRL": [int(f.primary.inline_xbrl) for f in filings],
        "isInlineXBRL": [int(f.primary.inline_xbrl) for f in filings],
        "primaryDocument": [f.primary.filename for f in filings],
        "primaryDocDescription": [f.primary.description for f in filings],
    }


def index_page(filing: ServedFiling) -> bytes:
    """A filing's `-index.htm` in the layout SEC serves (the parts a client reads)."""
    rows = []
    for seq, doc in enumerate(filing.documents, start=1):
        href = filing.url_path(doc.filename)
        link = f'<a href="/ix?doc={href}">' if doc.inline_xbrl else f'<a href="{href}">'
        badge = ' &nbsp;&nbsp;<span style="color: green">iXBRL</span>' if doc.inline_xbrl else ""
        rows.append(
            "<tr>"
            f'<td scope="row">{seq}</td>'
            f'<td scope="row">{html.escape(doc.description)}</td>'
            f'<td scope="row">{link}{html.escape(doc.filename)}</a>{badge}</td>'
            f'<td scope="row">{html.escape(doc.document_type)}</td>'
            f'<td scope="row">{doc.size if doc.size is not None else "&nbsp;"}</td>'
            "</tr>"
        )
    txt = f"{filing.accession}.txt"
    rows.append(
        '<tr class="blueRow"><td scope="row">&nbsp;</td>'
        '<td scope="row">Complete submission text file</td>'
        f'<td scope="row"><a href="{filing.url_path(txt)}">{txt}</a></td>'
        '<td scope="row">&nbsp;</td><td scope="row">&nbsp;</td></tr>'
    )
    page = f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"
 "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head>
<title>EDGAR Filing Documents for {filing.accession}</title></head>
<body>
<div id="PageTitle">Filing Detail</div>
<div id="formDiv">
<div id="formHeader"><div id="formName"><strong>Form {html.escape(filing.form)}</strong></div>
<div id="secNum"><strong><acronym title="Securities and Exchange Commission">SEC</acronym>
Accession <acronym title="Number">No.</acronym></strong> {filing.accession}</div></div>
<div class="formContent">
<div class="formGrouping"><div class="infoHead">Filing Date</div><div class="info">{filing.filed}</div></div>
<div class="formGrouping"><div class="infoHead">Period of Report</div><div class="info">{filing.report}</div></div>
</div>
<div style="padding: 4px 0px 4px 0px; font-size: 12px; margin: 0px 2px 0px 5px; width: 100%; overflow:hidden">
<p>Document Format Files</p>
<table class="tableFile" summary="Document Format Files">
<tr><th scope="col" style="width: 5%;"><acronym title="Sequence Number">Seq</acronym></th>
<th scope="col" style="width: 40%;">Description</th><th scope="col" style="width: 20%;">Document</th>
<th scope="col" style="width: 10%;">Type</th><th scope="col">Size</th></tr>
{"".join(rows)}
</table></div></div></body></html>
"""  # noqa: E501
    return page.encode("utf-8")


def directory_listing(filing: ServedFiling) -> bytes:
    """A filing folder's `index.json`: `type` is an icon name, as on SEC's servers."""
    modified = f"{filing.filed} 16:05:00"
    items = [
        {
            "last-modified": modified,
            "name": f"{filing.accession}-index.htm",
            "type": "text.gif",
            "size": "",
        },
        {
            "last-modified": modified,
            "name": f"{filing.accession}.txt",
            "type": "text.gif",
            "size": "",
        },
    ]
    items += [
        {
            "last-modified": modified,
            "name": doc.filename,
            "type": "text.gif",
            "size": "" if doc.size is None else str(doc.size),
        }
        for doc in filing.documents
    ]
    folder = filing.folder.rstrip("/")
    payload = {
        "directory": {
            "item": items,
            "name": folder,
            "parent-dir": folder.rsplit("/", 1)[0] + "/",
        }
    }
    return json.dumps(payload).encode("utf-8")


class EdgarTestServer:
    """The corpus over HTTP on 127.0.0.1 (port chosen by the OS), with planted faults."""

    def __init__(self, corpus_dir: Path, *, recent_limit: int | None = None):
        self.catalog = EdgarCorpusCatalog(corpus_dir, recent_limit=recent_limit)
        self._lock = threading.Lock()
        self._faults: dict[str, list[Fault]] = {}
        self._requests: list[RecordedRequest] = []
        self._withheld: set[str] = set()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> EdgarTestServer:
        server = self

        class Handler(_Handler):
            edgar = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="edgar-test-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> EdgarTestServer:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def settings(self, **overrides) -> EdgarSettings:
        """EdgarSettings aimed at this server, with every field the tests rely on given here
        (not left to EDGAR_* variables of whoever runs the tests) and small timeouts."""
        values: dict = {
            "identity": TEST_IDENTITY,
            "data_base_url": self.base_url,
            "archives_base_url": self.base_url,
            "tickers_url": f"{self.base_url}/files/company_tickers.json",
            "max_requests_per_second": 10.0,
            "rate_headroom": 0.10,
            "max_retries": 3,
            "timeout_s": 2.0,
            "backoff_base_s": 0.01,
            "backoff_max_s": 2.0,
            "live_max_age_s": 600.0,
            "tickers_max_age_s": 86400.0,
            "watchlist": ("NVDA", "AAPL", "TSLA"),
            "forms": ("10-K", "10-Q", "8-K"),
            "max_filings_per_company": 4,
        }
        values.update(overrides)
        return EdgarSettings(**values)

    def url(self, path: str) -> str:
        return self.base_url + path

    # -- faults and the request log ------------------------------------------------------------
    def plant(
        self,
        path: str,
        kind: FaultKind,
        *,
        times: int = 1,
        retry_after: str | None = None,
        delay_s: float = 1.0,
    ) -> None:
        """The next `times` requests for `path` get `kind` instead of the normal answer."""
        with self._lock:
            self._faults.setdefault(path, []).append(
                Fault(kind=kind, remaining=times, retry_after=retry_after, delay_s=delay_s)
            )

    def requests(self, path: str | None = None) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self._requests if path is None or r.path == path]

    def reset(self) -> None:
        with self._lock:
            self._faults.clear()
            self._requests.clear()
            self._withheld.clear()

    def withhold(self, accession: str) -> None:
        """Leave a filing out of its company's submissions until `release` (a filing that has
        not been filed yet, for the sensor's ticks)."""
        with self._lock:
            self._withheld.add(accession)

    def release(self, accession: str) -> None:
        with self._lock:
            self._withheld.discard(accession)

    def _visible(self, payload: dict) -> dict:
        with self._lock:
            withheld = set(self._withheld)
        if not withheld:
            return payload
        recent = payload["filings"]["recent"]
        keep = [i for i, a in enumerate(recent["accessionNumber"]) if a not in withheld]
        filtered = {
            k: [v[i] for i in keep] if isinstance(v, list) else v for k, v in recent.items()
        }
        return {**payload, "filings": {**payload["filings"], "recent": filtered}}

    def _record(self, request: RecordedRequest) -> Fault | None:
        with self._lock:
            self._requests.append(request)
            queue = self._faults.get(request.path, [])
            while queue and queue[0].remaining <= 0:
                queue.pop(0)
            if not queue:
                return None
            queue[0].remaining -= 1
            return queue[0]

    # -- catalog helpers for tests -------------------------------------------------------------
    def filing(self, accession: str) -> ServedFiling:
        return self.catalog.filings[accession]

    def corpus_filings(self, cik: str) -> list[ServedFiling]:
        """Filings of a company whose primary document the corpus holds."""
        return sorted(
            (f for f in self.catalog.filings.values() if f.cik == cik and f.primary.path),
            key=lambda f: f.accession,
        )

    # -- routing -------------------------------------------------------------------------------
    def route(self, path: str) -> _Response:
        catalog = self.catalog
        if path == "/files/company_tickers.json":
            return _json_file(catalog.tickers_path)
        if match := SUBMISSIONS_RE.match(path):
            payload = catalog.submissions.get(match.group(1))
            if payload is None:
                return _not_found()
            headers = (
                {"X-Test-Server-Synthesized": "submissions"}
                if match.group(1) in catalog.synthesized
                else {}
            )
            return _Response(
                200, json.dumps(self._visible(payload)).encode(), "application/json", headers
            )
        if match := SUBMISSIONS_PAGE_RE.match(path):
            page = catalog.pages.get(match.group(1))
            if page is None:
                return _not_found()
            return _Response(
                200,
                json.dumps(page).encode(),
                "application/json",
                {"X-Test-Server-Synthesized": "submissions"},
            )
        if match := COMPANYFACTS_RE.match(path):
            facts = catalog.companyfacts.get(match.group(1))
            return _json_file(facts) if facts else _not_found()
        if match := ARCHIVES_RE.match(path):
            return self._archives(int(match.group(1)), match.group(2), match.group(3))
        return _not_found()

    def _archives(self, cik: int, folder: str, name: str) -> _Response:
        accession = f"{folder[:10]}-{folder[10:12]}-{folder[12:]}"
        filing = self.catalog.filings.get(accession)
        if filing is None or int(filing.cik) != cik:
            return _not_found()
        if name == f"{accession}-index.htm":
            return _Response(200, index_page(filing), "text/html")
        if name == "index.json":
            return _Response(200, directory_listing(filing), "application/json")
        for doc in filing.documents:
            if doc.filename == name and doc.path is not None:
                return _Response(200, doc.path.read_bytes(), "text/html")
        return _not_found()


def _json_file(path: Path) -> _Response:
    return _Response(200, path.read_bytes(), "application/json")


def _not_found() -> _Response:
    return _Response(404, b"<html><body>Not Found</body></html>", "text/html")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as SEC's servers and httpx's pool use it
    server_version = "EdgarTestServer/1.0"
    timeout = 30  # an idle kept-alive connection does not hold a thread forever
    edgar: EdgarTestServer

    def log_message(self, format: str, *args) -> None:
        """Quiet: the request log is `EdgarTestServer.requests()`."""

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        fault = self.edgar._record(
            RecordedRequest(
                at=time.monotonic(),
                method="GET",
                path=path,
                headers={k.lower(): v for k, v in self.headers.items()},
            )
        )
        try:
            self._answer(path, fault)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up first (a timeout it was meant to hit): nothing to answer.
            self.close_connection = True

    def _answer(self, path: str, fault: Fault | None) -> None:
        if fault is None:
            self._send(self.edgar.route(path))
        elif fault.kind == "429":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            self._send(_Response(429, b"Request Rate Threshold Exceeded", "text/plain", headers))
        elif fault.kind == "503":
            self._send(_Response(503, b"Service Unavailable", "text/plain"))
        elif fault.kind == "slow":
            time.sleep(fault.delay_s)
            self._send(self.edgar.route(path))
        elif fault.kind == "truncate":
            self._send_truncated(self.edgar.route(path))
        else:
            raise ValueError(f"unknown fault {fault.kind!r}")

    def _send(self, response: _Response) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(response.body)
        self.wfile.flush()

    def _send_truncated(self, response: _Response) -> None:
        """Promise the whole body, send half, hang up."""
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        self.wfile.write(response.body[: len(response.body) // 2])
        self.wfile.flush()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def max_requests_in_window(times: list[float], window_s: float = 1.0) -> int:
    """The most requests whose arrival times fall in any half-open window [t, t + window_s)."""
    ordered = sorted(times)
    best, start = 0, 0
    for end, at in enumerate(ordered):
        while at - ordered[start] >= window_s:
            start += 1
        best = max(best, end - start + 1)
    return best


# -- fixtures: import `edgar_server_fixture` and `edgar_server_session_fixture` into a test
# module; tests then ask for `edgar_server` by name. ------------------------------------------
@pytest.fixture(scope="session", name="edgar_server_session")
def edgar_server_session_fixture(corpus_dir: Path) -> Iterator[EdgarTestServer]:
    # recent_limit=1 pushes older filings of synthesized companies onto a second page, so
    # discovery's paging through `filings.files` is exercised.
    with EdgarTestServer(corpus_dir, recent_limit=1) as server:
        yield server


@pytest.fixture(name="edgar_server")
def edgar_server_fixture(edgar_server_session: EdgarTestServer) -> EdgarTestServer:
    """The running server with no planted faults and an empty request log."""
    edgar_server_session.reset()
    return edgar_server_session
