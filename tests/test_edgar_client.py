"""EdgarClient against a real HTTP server on loopback that serves the corpus as EDGAR does.

No mocks: every assertion about requests is made on what the server received.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.common.ids import normalize_accession
from graphrag_core.intake.edgar import (
    EdgarClient,
    EdgarNotFoundError,
    EdgarRequestError,
    TokenBucket,
    validate_identity,
)
from graphrag_core.intake.edgar.client import parse_retry_after
from graphrag_core.settings import EdgarSettings
from tests.edgar_server import (  # noqa: F401 - the *_fixture names register pytest fixtures
    TEST_IDENTITY,
    EdgarTestServer,
    edgar_server_fixture,
    edgar_server_session_fixture,
    max_requests_in_window,
    sha256_of,
)

NVDA_CIK = "0001045810"
NVDA_10K_2025 = "0001045810-25-000023"
ABVC_CIK = "0001173313"
ABVC_8K = "0001213900-25-032135"  # an 8-K with an EX-99.1 press release, both in the corpus


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "edgar-cache"


@pytest.fixture
def client(edgar_server: EdgarTestServer, cache_dir: Path) -> Iterator[EdgarClient]:
    with EdgarClient(edgar_server.settings(), cache_dir) as c:
        yield c


def primary_url_path(server: EdgarTestServer, accession: str) -> str:
    filing = server.filing(accession)
    return filing.url_path(filing.primary.filename)


def small_document_paths(server: EdgarTestServer, count: int) -> list[str]:
    """URL paths of the smallest corpus documents the server serves (fast to hammer)."""
    docs = [
        (doc.size, filing.url_path(doc.filename))
        for filing in server.catalog.filings.values()
        for doc in filing.documents
        if doc.path is not None
    ]
    return [path for _, path in sorted(docs)[:count]]


# -- identity ------------------------------------------------------------------------------
def test_refuses_to_construct_without_identity(cache_dir: Path, monkeypatch) -> None:
    monkeypatch.delenv("EDGAR_IDENTITY", raising=False)
    with pytest.raises(ConfigurationError) as raised:
        EdgarClient(EdgarSettings(identity=None), cache_dir)
    message = str(raised.value)
    assert 'EDGAR_IDENTITY="Name email"' in message
    assert "FILINGS_CORPUS=" in message
    assert not cache_dir.exists(), "nothing is set up for a client that cannot be used"


@pytest.mark.parametrize(
    "identity", ["", "   ", "Jane Doe", "jane@example.com", "Jane Doe jane@example", "Jane jane@"]
)
def test_refuses_an_identity_that_is_not_name_and_email(identity: str, cache_dir: Path) -> None:
    with pytest.raises(ConfigurationError, match="EDGAR_IDENTITY"):
        EdgarClient(EdgarSettings(identity=identity), cache_dir)


@pytest.mark.parametrize(
    "identity", ["Jane Doe jane@example.com", "Acme Research  ops@acme.co.uk", "Acme <a@b.io>"]
)
def test_accepts_name_and_email(identity: str) -> None:
    assert validate_identity(identity) == " ".join(identity.split())


def test_identity_header_on_every_request(edgar_server: EdgarTestServer, client) -> None:
    doc = primary_url_path(edgar_server, ABVC_8K)
    edgar_server.plant(doc, "503")  # the retried attempt must carry it too
    client.company_tickers()
    client.submissions(NVDA_CIK)
    client.companyfacts("1318605")
    client.filing_index(ABVC_CIK, ABVC_8K)
    client.filing_directory(ABVC_CIK, ABVC_8K)
    client.get_bytes(edgar_server.url(doc))
    seen = edgar_server.requests()
    assert len(seen) == 7
    assert {r.headers.get("user-agent") for r in seen} == {TEST_IDENTITY}


# -- rate limit ----------------------------------------------------------------------------
def _hammer(fetch, items: list, threads: int) -> None:
    errors: list[BaseException] = []
    chunks = [items[i::threads] for i in range(threads)]

    def work(chunk: list) -> None:
        try:
            for item in chunk:
                fetch(item)
        except BaseException as exc:  # surfaced to the test below
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(chunk,)) for chunk in chunks]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert not errors, errors


def test_rate_limit_holds_across_threads(edgar_server: EdgarTestServer, client) -> None:
    paths = small_document_paths(edgar_server, 30)
    started = time.monotonic()
    _hammer(lambda path: client.get_bytes(edgar_server.url(path)), paths, threads=6)
    elapsed = time.monotonic() - started
    times = [r.at for r in edgar_server.requests()]
    assert len(times) == len(paths)
    assert max_requests_in_window(times) <= 10
    # 30 requests at under 10/s cannot finish in less than ~2.9 s; the limiter is not idle either.
    assert 2.8 <= elapsed < 10


def test_window_measure_sees_a_burst_without_the_limiter(edgar_server: EdgarTestServer) -> None:
    """Control: the same hammering without the client's bucket exceeds 10 in a second, so the
    assertion above would catch a client that does not limit itself."""
    paths = small_document_paths(edgar_server, 30)
    with httpx.Client(headers={"User-Agent": TEST_IDENTITY}) as raw:
        _hammer(lambda path: raw.get(edgar_server.url(path)).raise_for_status(), paths, threads=6)
    assert max_requests_in_window([r.at for r in edgar_server.requests()]) > 10


def test_token_bucket_schedule() -> None:
    """The bucket's arithmetic on a fake clock: even spacing, bursts up to capacity, pauses."""
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    def starts(bucket: TokenBucket, n: int) -> list[float]:
        out = []
        for _ in range(n):
            bucket.acquire()
            out.append(round(now[0], 9))
        return out

    assert starts(TokenBucket(10.0, clock=lambda: now[0], sleep=sleep), 4) == [0, 0.1, 0.2, 0.3]
    now[0] = 0.0
    burst = TokenBucket(10.0, capacity=3, clock=lambda: now[0], sleep=sleep)
    assert starts(burst, 5) == [0, 0, 0, 0.1, 0.2]
    now[0] = 5.0
    paused = TokenBucket(10.0, clock=lambda: now[0], sleep=sleep)
    paused.pause_until(7.0)  # as after a 429 with Retry-After: 2
    assert starts(paused, 2) == [7.0, 7.1]


# -- retries -------------------------------------------------------------------------------
def test_503_is_retried_and_bytes_match_the_corpus(edgar_server: EdgarTestServer, client) -> None:
    path = primary_url_path(edgar_server, ABVC_8K)
    edgar_server.plant(path, "503", times=2)
    body = client.get_bytes(edgar_server.url(path))
    assert sha256_of(body) == edgar_server.filing(ABVC_8K).primary.sha256
    assert len(edgar_server.requests(path)) == 3
    assert client.stats.retries == 2


def test_429_waits_for_retry_after(edgar_server: EdgarTestServer, client) -> None:
    path = primary_url_path(edgar_server, ABVC_8K)
    edgar_server.plant(path, "429", retry_after="1")
    body = client.get_bytes(edgar_server.url(path))
    first, second = edgar_server.requests(path)
    assert second.at - first.at >= 0.95
    assert sha256_of(body) == edgar_server.filing(ABVC_8K).primary.sha256


def test_429_holds_back_the_other_threads_too(edgar_server: EdgarTestServer, client) -> None:
    throttled = primary_url_path(edgar_server, ABVC_8K)
    other = edgar_server.filing(ABVC_8K).documents[1]
    other_path = edgar_server.filing(ABVC_8K).url_path(other.filename)
    edgar_server.plant(throttled, "429", retry_after="1")
    first = threading.Thread(target=client.get_bytes, args=(edgar_server.url(throttled),))
    first.start()
    while not edgar_server.requests(throttled):
        time.sleep(0.01)
    time.sleep(0.05)  # the 429 has been answered; the second thread starts during the wait
    client.get_bytes(edgar_server.url(other_path))
    first.join()
    refused_at = edgar_server.requests(throttled)[0].at
    assert edgar_server.requests(other_path)[0].at - refused_at >= 0.95


def test_retry_after_beyond_backoff_max_gives_up_at_once(
    edgar_server: EdgarTestServer, cache_dir: Path
) -> None:
    path = primary_url_path(edgar_server, ABVC_8K)
    edgar_server.plant(path, "429", retry_after="600")
    with EdgarClient(edgar_server.settings(backoff_max_s=2.0), cache_dir) as client:
        started = time.monotonic()
        with pytest.raises(EdgarRequestError) as raised:
            client.get_bytes(edgar_server.url(path))
    assert time.monotonic() - started < 1.0
    assert raised.value.status == 429
    assert "Retry-After" in str(raised.value) and edgar_server.url(path) in str(raised.value)
    assert len(edgar_server.requests(path)) == 1


def test_slow_response_times_out_and_is_retried(
    edgar_server: EdgarTestServer, cache_dir: Path
) -> None:
    path = primary_url_path(edgar_server, ABVC_8K)
    edgar_server.plant(path, "slow", delay_s=1.5)
    with EdgarClient(edgar_server.settings(timeout_s=0.3), cache_dir) as client:
        started = time.monotonic()
        body = client.get_bytes(edgar_server.url(path))
    assert time.monotonic() - started < 1.4, "the client must not wait for the slow answer"
    assert len(edgar_server.requests(path)) == 2
    assert sha256_of(body) == edgar_server.filing(ABVC_8K).primary.sha256


def test_truncated_body_is_retried(edgar_server: EdgarTestServer, client) -> None:
    path = primary_url_path(edgar_server, NVDA_10K_2025)
    edgar_server.plant(path, "truncate")
    body = client.get_bytes(edgar_server.url(path))
    assert len(edgar_server.requests(path)) == 2
    assert sha256_of(body) == edgar_server.filing(NVDA_10K_2025).primary.sha256


def test_gives_up_after_max_retries_naming_url_and_status(
    edgar_server: EdgarTestServer, cache_dir: Path
) -> None:
    path = primary_url_path(edgar_server, ABVC_8K)
    url = edgar_server.url(path)
    edgar_server.plant(path, "503", times=10)
    with EdgarClient(edgar_server.settings(max_retries=2), cache_dir) as client:
        with pytest.raises(EdgarRequestError) as raised:
            client.get_bytes(url)
        assert client.cache.get(url) is None
    error = raised.value
    assert (error.status, error.attempts, error.url) == (503, 3, url)
    assert url in str(error) and "503" in str(error) and "EDGAR_MAX_RETRIES" in str(error)
    assert len(edgar_server.requests(path)) == 3


def test_connection_refused_is_retried_then_reported(cache_dir: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    settings = EdgarSettings(
        identity=TEST_IDENTITY,
        data_base_url=base,
        max_retries=2,
        backoff_base_s=0.01,
        timeout_s=1.0,
    )
    with EdgarClient(settings, cache_dir) as client:
        with pytest.raises(EdgarRequestError, match="ConnectError") as raised:
            client.submissions(NVDA_CIK)
        assert client.stats.requests == 3
    assert raised.value.attempts == 3 and base in str(raised.value)


def test_not_found_is_neither_retried_nor_cached(edgar_server: EdgarTestServer, client) -> None:
    url = edgar_server.url("/submissions/CIK0000000001.json")
    for _ in range(2):
        with pytest.raises(EdgarNotFoundError, match="404"):
            client.get_bytes(url)
    assert len(edgar_server.requests("/submissions/CIK0000000001.json")) == 2


# -- cache ---------------------------------------------------------------------------------
def _everything(client: EdgarClient, server: EdgarTestServer) -> dict[str, bytes | dict]:
    return {
        "tickers": client.company_tickers(),
        "submissions": client.submissions(NVDA_CIK),
        "facts": client.companyfacts("1318605"),
        "index": {"n": len(client.filing_index(ABVC_CIK, ABVC_8K).documents)},
        "listing": {"n": len(client.filing_directory(ABVC_CIK, ABVC_8K))},
        "doc": client.get_bytes(server.url(primary_url_path(server, NVDA_10K_2025))),
    }


def test_second_run_makes_no_requests(edgar_server: EdgarTestServer, cache_dir: Path) -> None:
    with EdgarClient(edgar_server.settings(), cache_dir) as first:
        before = _everything(first, edgar_server)
        assert first.stats.requests == 6 and first.stats.cache_hits == 0
    sent = len(edgar_server.requests())
    with EdgarClient(edgar_server.settings(), cache_dir) as second:
        after = _everything(second, edgar_server)
        assert second.stats.requests == 0 and second.stats.cache_hits == 6
    assert len(edgar_server.requests()) == sent
    assert after == before


def test_damaged_cache_entries_are_fetched_again(
    edgar_server: EdgarTestServer, client: EdgarClient
) -> None:
    path = primary_url_path(edgar_server, ABVC_8K)
    url = edgar_server.url(path)
    expected = edgar_server.filing(ABVC_8K).primary.sha256
    body_file, meta_file = client.cache.paths(url)
    damages = {
        "cut short": lambda: body_file.write_bytes(body_file.read_bytes()[:100]),
        "same size, other bytes": lambda: body_file.write_bytes(b"x" * body_file.stat().st_size),
        "body missing": body_file.unlink,
        "sidecar missing (crash between writes)": meta_file.unlink,
        "sidecar garbage": lambda: meta_file.write_text("{not json"),
    }
    client.get_bytes(url)
    for n, (label, damage) in enumerate(damages.items(), start=2):
        damage()
        assert sha256_of(client.get_bytes(url)) == expected, label
        assert len(edgar_server.requests(path)) == n, f"{label}: not fetched again"


def test_archives_are_cached_forever_and_live_json_refreshes(
    edgar_server: EdgarTestServer, client: EdgarClient
) -> None:
    doc_url = edgar_server.url(primary_url_path(edgar_server, ABVC_8K))
    client.get_bytes(doc_url)
    client.submissions(NVDA_CIK)
    for url in (doc_url, client.submissions_url(NVDA_CIK)):  # age both entries by years
        meta_file = client.cache.paths(url)[1]
        meta = json.loads(meta_file.read_text())
        meta["fetched_at"] = 0.0
        meta_file.write_text(json.dumps(meta))
    client.get_bytes(doc_url)
    client.submissions(NVDA_CIK)
    client.submissions(NVDA_CIK, max_age_s=0)  # a sensor asking for the newest state
    assert [r.path for r in edgar_server.requests()] == [
        primary_url_path(edgar_server, ABVC_8K),
        "/submissions/CIK0001045810.json",
        "/submissions/CIK0001045810.json",
        "/submissions/CIK0001045810.json",
    ]


def test_failed_downloads_leave_no_cache_entry(
    edgar_server: EdgarTestServer, cache_dir: Path
) -> None:
    path = primary_url_path(edgar_server, NVDA_10K_2025)
    url = edgar_server.url(path)
    edgar_server.plant(path, "truncate")
    with EdgarClient(edgar_server.settings(max_retries=0), cache_dir) as client:
        with pytest.raises(EdgarRequestError, match="RemoteProtocolError|truncated"):
            client.get_bytes(url)
        assert client.cache.get(url) is None
        assert not any(cache_dir.rglob("*.body"))
        body = client.get_bytes(url)
    assert sha256_of(body) == edgar_server.filing(NVDA_10K_2025).primary.sha256


# -- endpoints -----------------------------------------------------------------------------
def test_filing_index_gives_document_types(client: EdgarClient, edgar_server) -> None:
    index = client.filing_index(ABVC_CIK, ABVC_8K)
    folder = edgar_server.url("/Archives/edgar/data/1173313/000121390025032135/")
    primary, exhibit = index.documents[0], index.by_type("EX-99.1")[0]
    # The primary is inline XBRL, linked through the viewer (/ix?doc=...) on the index page.
    assert (primary.document_type, primary.filename) == ("8-K", "ea0238372-8k_abvcbio.htm")
    assert primary.url == folder + "ea0238372-8k_abvcbio.htm"
    assert (exhibit.filename, exhibit.size) == ("ea023837201ex99-1_abvcbio.htm", 20847)
    assert index.by_filename("0001213900-25-032135.txt").document_type == ""


def test_filing_directory_lists_the_folder(client: EdgarClient) -> None:
    items = {item.name: item for item in client.filing_directory(ABVC_CIK, ABVC_8K)}
    assert items["ea0238372-8k_abvcbio.htm"].size == 30163
    assert "0001213900-25-032135-index.htm" in items


def test_reference_endpoints(client: EdgarClient) -> None:
    tickers = client.company_tickers()
    assert {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."} in tickers.values()
    assert client.companyfacts("1318605")["cik"] == 1318605
    submissions = client.submissions("1045810")
    assert submissions["name"] == "NVIDIA CORP"
    assert "accessionNumber" in submissions["filings"]["recent"]


def test_url_layout(client: EdgarClient, edgar_server: EdgarTestServer) -> None:
    base = edgar_server.base_url
    assert client.submissions_url(320193) == f"{base}/submissions/CIK0000320193.json"
    assert client.companyfacts_url("CIK-0000320193") == (
        f"{base}/api/xbrl/companyfacts/CIK0000320193.json"
    )
    assert client.filing_index_url("0000320193", "000032019324000123") == (
        f"{base}/Archives/edgar/data/320193/000032019324000123/0000320193-24-000123-index.htm"
    )
    with pytest.raises(ValueError):
        normalize_accession("32019324000123")
    with pytest.raises(ValueError):
        client.document_url(320193, "0000320193-24-000123", "../other/secret.htm")


def test_retry_after_forms() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_rate_limit_holds_across_processes(edgar_server: EdgarTestServer, cache_dir: Path) -> None:
    """Two processes (as Dagster's multiprocess executor would run them) with one cache folder
    share one schedule: together they stay under 10 requests in any second."""
    import subprocess
    import sys

    paths = small_document_paths(edgar_server, 24)
    settings_json = edgar_server.settings().model_dump_json()
    script = (
        "import sys, json\n"
        "from graphrag_core.intake.edgar import EdgarClient\n"
        "from graphrag_core.settings import EdgarSettings\n"
        "settings = EdgarSettings.model_validate_json(sys.argv[1])\n"
        "with EdgarClient(settings, sys.argv[2]) as c:\n"
        "    for url in sys.argv[3:]:\n"
        "        c.get_bytes(url, max_age_s=0)\n"
    )
    halves = [paths[0::2], paths[1::2]]
    started = time.monotonic()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                script,
                settings_json,
                str(cache_dir),
                *[edgar_server.url(p) for p in half],
            ]
        )
        for half in halves
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    elapsed = time.monotonic() - started
    times = [r.at for r in edgar_server.requests()]
    assert len(times) == len(paths)
    assert max_requests_in_window(times) <= 10
    assert elapsed >= 2.2  # 24 requests under 10/s, whichever process made them
