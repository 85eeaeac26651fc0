"""Hostile and careless input, replayed so a regression fails CI (issue 9).

What broke, now fixed: duplicate files in a folder corpus, file names that claim another
filing's accession, abandoned HTTP sessions, slow HTTP clients, deep or unclosed markup, an
unreadable `LATEST`, a damaged snapshot (also one of the same size), malformed stdio input,
short or lower-case bearer tokens, runs and publishes killed mid-way, a bad filing's console
noise. What held, kept holding: injection through every tool argument, writes, Host/Origin,
tokens, oversized bodies, snapshot swaps under concurrent clients.

Everything is real and on loopback: server processes, MCP client sessions over stdio and
HTTP, the Dagster instance, DuckDB files. Counts and waits are bounded (seconds each).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
import httpx2
import pytest
from mcp import Client

from graphrag_core.common.errors import FilingError
from graphrag_core.common.ids import sha256_bytes, sha_filing_id
from graphrag_core.intake.catalog import FilingCatalog, register_discovered
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.settings import Settings
from graphrag_core.store import layout
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.reader import SnapshotReader
from graphrag_core.text.parsing import parse_markup
from mcp_server import build_server
from tests import snapshot_sample as sample
from tests.services import free_port, mcp_http_server

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "hostile-tests-token-0123456789abcdefghij"
INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "hostile", "version": "0"}},
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}

# A small plain-HTML 8-K: cheap to ingest, and identical bytes under two names are a duplicate.
EIGHT_K = (
    "<html><body><p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p><p>FORM 8-K</p>"
    "<p>Item 8.01 Other Events</p><p>Northwind Traders announced a new distribution center "
    "in Ohio.</p></body></html>"
)


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for key in ("GRAPHRAG_MCP_TOKEN", "GRAPHRAG_MCP_READ_TIMEOUT_S", "FILINGS_CORPUS"):
        env.pop(key, None)
    env.update(extra)
    return env


@contextmanager
def http_server(data_root: Path, **env: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """`python -m mcp_server --http` on a free loopback port; yields (base URL, process)."""
    with mcp_http_server(data_root, _env(**env)) as running:
        yield running


@pytest.fixture
def published(data_root) -> Path:
    SnapshotStore(data_root).publish(sample.sample_tables())
    return data_root


# =============================================================================================
# 1. Folder-corpus identity
# =============================================================================================
def test_duplicate_files_are_discovered_once_with_a_warning(tmp_path):
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "a.htm").write_text(EIGHT_K)
    (folder / "b.htm").write_text(EIGHT_K)
    source = LocalFolderSource(folder)
    refs = source.discover()
    assert [r.documents[0].filename for r in refs] == ["a.htm"]
    assert source.discovery_warnings == ["b.htm duplicates a.htm (same sha256), skipped"]

    # The sensor's path (discover → catalog) sees one filing and passes the warning on.
    notes: list[str] = []
    new = register_discovered(source, FilingCatalog(tmp_path / "data"), warnings=notes)
    assert len(new) == 1 and notes == ["b.htm duplicates a.htm (same sha256), skipped"]


def test_same_accession_twice_in_a_manifest_is_offered_once(tmp_path):
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "one.htm").write_text(EIGHT_K)
    (folder / "two.htm").write_text(EIGHT_K.replace("Ohio", "Iowa"))
    accession = "0000950170-25-000001"
    (folder / "manifest.json").write_text(json.dumps([
        {"path": "one.htm", "accession": accession, "form": "8-K"},
        {"path": "two.htm", "accession": accession, "form": "8-K"},
    ]))
    source = LocalFolderSource(folder)
    assert [r.filing_id for r in source.discover()] == [accession]
    assert source.discovery_warnings == [
        f"two.htm duplicates one.htm (same filing id {accession}), skipped"
    ]


def test_a_relocated_copy_is_no_change(tmp_path):
    """The copy that sorts first is now another file: the catalog follows it without
    counting the filing as changed (it must not run again)."""
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "b.htm").write_text(EIGHT_K)
    catalog = FilingCatalog(tmp_path / "data")
    assert len(register_discovered(LocalFolderSource(folder), catalog)) == 1
    (folder / "a.htm").write_text(EIGHT_K)
    assert register_discovered(LocalFolderSource(folder), catalog) == []
    [fid] = catalog.ids()
    assert catalog.get(fid).documents[0].filename == "a.htm"
    (folder / "a.htm").write_text(EIGHT_K.replace("Ohio", "Utah"))  # new content: a new filing
    [new] = register_discovered(LocalFolderSource(folder), catalog)
    assert new.filing_id != fid and new.documents[0].filename == "a.htm"
    assert catalog.get(fid).documents[0].filename == "b.htm"  # back to its only copy, no rerun


def _ixbrl(cik: str, form: str, period: str) -> str:
    return (
        '<html xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"><body>'
        f'<p><ix:nonNumeric name="dei:DocumentType" contextRef="c">{form}</ix:nonNumeric></p>'
        f'<p><ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="c">{cik}</ix:nonNumeric></p>'
        f'<p><ix:nonNumeric name="dei:DocumentPeriodEndDate" contextRef="c">{period}</ix:nonNumeric></p>'
        "<p>Item 1. Business</p><p>We make things.</p></body></html>"
    )


def test_file_name_gives_an_accession_only_when_the_content_agrees(tmp_path):
    folder = tmp_path / "inbox"
    (folder / "reference" / "submissions").mkdir(parents=True)
    (folder / "reference" / "company_tickers.json").write_text(json.dumps({
        "0": {"cik_str": 1045810, "ticker": "NVDA", "title": "NVIDIA CORP"},
        "1": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
    }))
    (folder / "reference" / "submissions" / "CIK0000320193.json").write_text(json.dumps({
        "cik": "320193", "name": "Apple Inc.",
        "filings": {"recent": {
            "accessionNumber": ["0000320193-24-000123"], "form": ["10-K"],
            "filingDate": ["2024-11-01"], "reportDate": ["2024-09-28"],
        }},
    }))
    docs = {
        # Alphabet's 10-K named with one of NVIDIA's accessions: refused (another registrant's).
        "0001045810-25-000023.htm": _ixbrl("0001652044", "10-K", "2025-01-26"),
        # Apple's own accession, listed by SEC with this form and period: taken.
        "0000320193-24-000123.htm": _ixbrl("0000320193", "10-K", "2024-09-28"),
        # Apple's CIK, but an accession SEC does not list for Apple: refused.
        "0000320193-24-000999.htm": _ixbrl("0000320193", "10-Q", "2024-06-29"),
        # No reference data for this CIK; filing-agent prefix and a fitting year: taken.
        "0001193125-10-073212.htm": _ixbrl("0000786344", "10-K", "2009-12-31"),
        # Filing-agent prefix, but a year that cannot be this period's: refused.
        "0001193125-19-000001.htm": _ixbrl("0000786344", "10-K", "2009-12-31").replace(
            "We make", "We made"),
        # The SGML header names another accession: refused.
        "0000887919-21-000012.txt": "<SEC-HEADER>\nACCESSION NUMBER:\t\t0000887919-21-000099\n"
        "CENTRAL INDEX KEY:\t\t\t0000887919\n</SEC-HEADER>\n<DOCUMENT>\n<TYPE>8-K\n<TEXT>\n"
        "FORM 8-K\nItem 8.01 Other Events\n</TEXT>\n</DOCUMENT>\n",
    }
    for name, text in docs.items():
        (folder / name).write_text(text)
    source = LocalFolderSource(folder)
    ids = {r.documents[0].filename: r.filing_id for r in source.discover()}
    taken = {"0000320193-24-000123.htm", "0001193125-10-073212.htm"}
    for name in docs:
        if name in taken:
            assert ids[name] == name.rsplit(".", 1)[0]
        else:
            assert ids[name] == sha_filing_id(sha256_bytes((folder / name).read_bytes())), name
    why = {w.split(":", 1)[0]: w for w in source.discovery_warnings}
    assert set(why) == set(docs) - taken
    assert "filed by CIK 0001045810 (NVIDIA CORP)" in why["0001045810-25-000023.htm"]
    assert "do not list it" in why["0000320193-24-000999.htm"]
    assert "does not fit" in why["0001193125-19-000001.htm"]
    assert "SGML header names accession 0000887919-21-000099" in why["0000887919-21-000012.txt"]
    assert all("content key sha-" in w for w in why.values())


# =============================================================================================
# 3. No silent text loss
# =============================================================================================
def test_unclosed_and_deep_markup_keeps_every_word():
    fonts = "<html><body><p>" + "".join(f"<font>w{i} " for i in range(400)) + "</p><p>tail</p></body></html>"
    parsed = parse_markup(fonts, True)
    assert len(re.findall(r"\bw\d+\b", parsed.text)) == 400 and "tail" in parsed.text
    deep = "<html><body>" + "<div>" * 400 + "deep words" + "</div>" * 400 + "<p>after them</p></body></html>"
    parsed = parse_markup(deep, True)
    assert "deep words" in parsed.text and "after them" in parsed.text
    # Beyond the parser's hard limit, unclosed presentational tags are read again without them.
    many = "<html><body><p>" + "".join(f"<font>w{i} " for i in range(3000)) + "</p></body></html>"
    parsed = parse_markup(many, True)
    assert len(re.findall(r"\bw\d+\b", parsed.text)) == 3000
    assert any("2048 levels" in w for w in parsed.warnings)


def test_a_document_that_lost_its_text_fails_its_partition(tmp_path):
    from graphrag_core.intake.raw_filing import ingest_filing
    from graphrag_core.tables.table_store import TableStore
    from graphrag_core.text.filing_chunks import chunk_filing

    folder = tmp_path / "inbox"
    folder.mkdir()
    body = "<p>Item 8.01 Other Events</p>" + "<div>" * 3000 + "<p>words lost past the limit</p>" * 50
    (folder / "deep.htm").write_text(f"<html><body><p>FORM 8-K</p>{body}</body></html>")
    source = LocalFolderSource(folder)
    [ref] = source.discover()
    store = TableStore(tmp_path / "data")
    raw = ingest_filing(ref, source.fetch(ref), store)
    with pytest.raises(FilingError, match="deep.htm") as failure:
        chunk_filing(raw.meta, raw.documents, store)
    assert "parser lost text" in str(failure.value) and "GRAPHRAG_MIN_TEXT_COVERAGE" in str(failure.value)


# =============================================================================================
# 4. A snapshot reader that keeps serving
# =============================================================================================
def _errors_with_traceback(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]


@pytest.mark.parametrize("damage", ["invalid-utf8", "directory", "garbage-name"])
def test_unreadable_latest_keeps_the_current_snapshot_and_logs_once(published, caplog, damage):
    reader = SnapshotReader(published)
    version = reader.current_version()
    latest = layout.latest_path(layout.snapshots_root(published))
    latest.unlink()
    if damage == "invalid-utf8":
        latest.write_bytes(b"\xff\xfe\x00garbage\x80")
    elif damage == "directory":
        latest.mkdir()
    else:
        latest.write_text("../../etc/passwd\n")
    caplog.set_level(logging.INFO, logger="graphrag_core.store.reader")
    for _ in range(50):
        with reader.lease() as snap:
            assert snap.version == version
            assert snap.query("SELECT count(*) AS n FROM companies") == [{"n": 4}]
    assert [r.getMessage()[:18] for r in caplog.records if r.levelno >= logging.ERROR] == [
        "LATEST unreadable:"
    ]
    assert not _errors_with_traceback(caplog)
    # A server started now serves the newest intact version instead of "nothing published".
    fresh = SnapshotReader(published)
    assert fresh.current_version() == version
    fresh.close()
    reader.close()


def _corrupt_same_size(path: Path) -> None:
    """Flip the bits of the second half of the file in place: same size, other content. The
    header and catalog at its start stay intact, so DuckDB still opens it (only the size was
    checked before), and queries that read table data fail."""
    size = path.stat().st_size
    offset = size // 2 // 4096 * 4096
    with open(path, "r+b") as fh:
        fh.seek(offset)
        data = fh.read(size - offset - 4096)
        fh.seek(offset)
        fh.write(bytes(b ^ 0x5A for b in data))
    assert path.stat().st_size == size


def test_same_size_corruption_is_caught_when_opening(data_root):
    store = SnapshotStore(data_root)
    good = store.publish(sample.sample_tables(without=(sample.NVDA_10Q,))).version
    bad = store.publish(sample.sample_tables()).version
    _corrupt_same_size(store.database_path(bad))
    reader = SnapshotReader(data_root)  # a server started on the damaged snapshot
    with reader.lease() as snap:
        assert snap.version == good
        assert snap.query("SELECT count(*) AS n FROM filings") == [{"n": 5}]
    reader.close()


async def test_damage_during_service_is_a_tool_error_then_the_intact_version(data_root, caplog):
    store = SnapshotStore(data_root)
    good = store.publish(sample.sample_tables(without=(sample.NVDA_10Q,))).version
    bad = store.publish(sample.sample_tables()).version
    reader = SnapshotReader(data_root)
    caplog.set_level(logging.INFO)
    async with Client(build_server(reader)) as client:
        first = await client.call_tool("status", {})
        assert first.structured_content["snapshot"] == bad
        _corrupt_same_size(store.database_path(bad))  # under the open connection
        failed = await client.call_tool("explore_company", {"company_id": "NVDA"})
        assert failed.is_error
        text = failed.content[0].text
        assert f"snapshot {bad} is damaged" in text and f"now serves {good}" in text
        after = await client.call_tool("status", {})
        assert not after.is_error and after.structured_content["snapshot"] == good
    reader.close()
    assert len(_errors_with_traceback(caplog)) == 1


async def test_persistent_read_errors_log_one_traceback(data_root, caplog):
    store = SnapshotStore(data_root)
    only = store.publish(sample.sample_tables()).version
    reader = SnapshotReader(data_root)
    caplog.set_level(logging.INFO)
    async with Client(build_server(reader)) as client:
        await client.call_tool("status", {})
        _corrupt_same_size(store.database_path(only))
        texts = []
        for _ in range(20):
            result = await client.call_tool("explore_company", {"company_id": "NVDA"})
            assert result.is_error
            texts.append(result.content[0].text)
    reader.close()
    assert f"snapshot {only} is damaged" in texts[0] and "publish a new snapshot" in texts[0]
    assert all(only in t and "materialize graph_snapshot" in t for t in texts)
    assert len(_errors_with_traceback(caplog)) == 1


# =============================================================================================
# 2 and 5. HTTP: no sessions to pile up, read deadlines, tokens
# =============================================================================================
async def test_initialize_flood_opens_no_session_and_locks_nobody_out(published):
    with http_server(published) as (base, _proc):
        url = f"{base}/mcp"
        statuses: dict[int, int] = {}
        sessions = 0
        with httpx2.Client(timeout=30) as http:
            for _ in range(300):
                response = http.post(url, json=INIT, headers=ACCEPT)
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                sessions += "mcp-session-id" in response.headers
        assert statuses == {200: 300} and sessions == 0
        async with Client(url) as client:  # a new client after the flood
            status = await client.call_tool("status", {})
            assert not status.is_error and status.structured_content["companies"] == 4


def _read_until_closed(sock: socket.socket, limit_s: float) -> tuple[bool, bytes]:
    """(closed by the server within limit_s, what it sent)."""
    sock.settimeout(limit_s)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return False, received
    return True, received


def test_slow_headers_and_bodies_are_cut_off(published):
    with http_server(published, GRAPHRAG_MCP_READ_TIMEOUT_S="1") as (base, _proc):
        port = int(base.rsplit(":", 1)[1])
        started = time.monotonic()
        slow_headers = socket.create_connection(("127.0.0.1", port))
        slow_headers.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode())
        silent = socket.create_connection(("127.0.0.1", port))  # connects, never sends a byte
        slow_body = socket.create_connection(("127.0.0.1", port))
        body = json.dumps(INIT).encode()
        slow_body.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body[:10]
        )
        for sock in (slow_headers, silent, slow_body):
            closed, _ = _read_until_closed(sock, 8)
            sock.close()
            assert closed
        assert time.monotonic() - started < 8
        with httpx2.Client(timeout=10) as http:  # and the server still answers
            assert http.post(f"{base}/mcp", json=INIT, headers=ACCEPT).status_code == 200


def test_tokens_short_refused_and_scheme_case_insensitive(published):
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_server", "--data-root", str(published), "--http",
         "--host", "0.0.0.0", "--port", str(free_port())],
        cwd=ROOT, env=_env(GRAPHRAG_MCP_TOKEN="x"), capture_output=True, text=True, timeout=30,
    )
    assert proc.returncode == 2
    assert "GRAPHRAG_MCP_TOKEN is 1 characters; use at least 32" in proc.stderr
    assert "Traceback" not in proc.stderr

    with http_server(published, GRAPHRAG_MCP_TOKEN=TOKEN) as (base, _proc):
        url = f"{base}/mcp"
        with httpx2.Client(timeout=30) as http:
            codes = {
                scheme: http.post(url, json=INIT,
                                  headers={**ACCEPT, "authorization": f"{scheme} {TOKEN}"}).status_code
                for scheme in ("Bearer", "bearer", "BEARER")
            }
            wrong = http.post(url, json=INIT, headers={**ACCEPT, "authorization": f"Bearer {TOKEN}x"})
            basic = http.post(url, json=INIT, headers={**ACCEPT, "authorization": f"Basic {TOKEN}"})
            missing = http.post(url, json=INIT, headers=ACCEPT)
        assert codes == {"Bearer": 200, "bearer": 200, "BEARER": 200}
        assert wrong.status_code == basic.status_code == missing.status_code == 401


def test_bodies_hosts_and_origins_are_checked(published):
    """Stateless serving keeps the transport's guards: body size, JSON, Host and Origin."""
    with http_server(published) as (base, proc):
        url = f"{base}/mcp"
        port = base.rsplit(":", 1)[1]
        with httpx2.Client(timeout=30) as http:
            rebound = http.post(url, json=INIT, headers={**ACCEPT, "host": f"evil.example:{port}"})
            foreign = http.post(url, json=INIT, headers={**ACCEPT, "origin": "http://evil.example"})
            huge = http.post(url, content=b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'
                             + b"A" * (5 * 1024 * 1024) + b'"}}', headers=ACCEPT)
            garbage = http.post(url, content=b"{not json", headers=ACCEPT)
            wrong_type = http.post(url, content=json.dumps(INIT),
                                   headers={**ACCEPT, "content-type": "text/plain"})
            ok = http.post(url, json=INIT, headers=ACCEPT)
        assert rebound.status_code == 421 and foreign.status_code == 403
        assert huge.status_code == 413
        assert garbage.status_code == 400 and garbage.json()["error"]["code"] == -32700
        assert wrong_type.status_code in (400, 415)
        assert ok.status_code == 200 and proc.poll() is None


# =============================================================================================
# 5. stdio: an answer for every line
# =============================================================================================
def test_stdio_answers_malformed_lines(published):
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_server", "--data-root", str(published)],
        cwd=ROOT, env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    lines = [b"this is not json", b'{"id": 5, "method": 3}', b"[1, 2]",
             json.dumps(INIT).encode()]
    replies: list[dict] = []

    def read() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            replies.append(json.loads(raw))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert proc.stdin is not None
        proc.stdin.write(b"\n".join(lines) + b"\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        while len(replies) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    errors = [(r["id"], r["error"]["code"]) for r in replies if "error" in r]
    assert errors == [(None, -32700), (5, -32600), (None, -32600)]
    assert [r["result"]["serverInfo"]["name"] for r in replies if "result" in r] == ["filings-graph"]


# =============================================================================================
# 5. Dagster runs and publishes killed mid-way; one line per bad filing
# =============================================================================================
def test_cli_ingest_with_a_duplicate_and_a_bad_file(tmp_path, monkeypatch):
    """One run: the duplicate is skipped with a warning (no UNIQUE violation), the bad file
    fails its own partition with one error line and no stack trace; a later copy settles."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "a.htm").write_text(EIGHT_K)
    (inbox / "b.htm").write_text(EIGHT_K)
    (inbox / "empty.htm").write_bytes(b"")
    data = tmp_path / "data"
    cmd = [sys.executable, "-m", "pipelines.cli", "--data", str(data), "ingest", "--corpus", str(inbox)]
    out = subprocess.run(cmd, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    console = out.stdout + out.stderr
    assert out.returncode == 1, console
    assert "IntegrityError" not in console and "Traceback" not in console
    assert "Stack Trace" not in console
    assert "warning: b.htm duplicates a.htm (same sha256), skipped" in console
    assert len([line for line in console.splitlines() if "empty.htm" in line]) == 1
    assert "ran 2 partitions, 1 failed" in console

    # A copy added later (sorting first) is skipped too and the filing does not run again.
    (inbox / "0.htm").write_text(EIGHT_K)
    from pipelines.ingest import ingest

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))  # restored after the test

    report = ingest(Settings(data_root=data, corpus=inbox))
    assert [o.filing_id for o in report.outcomes] == [sha_filing_id(sha256_bytes(b""))]
    assert "a.htm duplicates 0.htm (same sha256), skipped" in report.warnings


INGEST_UNTIL_KILLED = r"""
import sys, time
from pathlib import Path
import assets.intake
from graphrag_core.settings import Settings
from pipelines.ingest import ingest

def stuck(*args, **kwargs):  # the run's first step waits there until the process is killed
    print("running", flush=True)
    time.sleep(600)

assets.intake.ingest_filing = stuck
# serial: the run executes in this process (what the runner tags and the ingest lock cover;
# queued runs execute in the daemon's workers)
ingest(Settings(data_root=Path(sys.argv[1]), corpus=Path(sys.argv[2])), serial=True)
"""


def test_a_run_killed_mid_way_is_marked_failed_by_the_next_ingest(tmp_path, monkeypatch):
    from pipelines.ingest import ingest
    from pipelines.instance import get_instance

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))  # restored after the test

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "a.htm").write_text(EIGHT_K)
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [sys.executable, "-c", INGEST_UNTIL_KILLED, str(data), str(inbox)],
        cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "running", proc.stderr.read() if proc.stderr else ""
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    instance = get_instance(data)
    [run] = instance.get_runs()
    assert run.status == dg.DagsterRunStatus.STARTED  # what a killed process leaves
    report = ingest(Settings(data_root=data, corpus=inbox), serial=True)  # the next start
    assert instance.get_run_by_id(run.run_id).status == dg.DagsterRunStatus.FAILURE
    assert [o.success for o in report.outcomes] == [True]
    assert report.abandoned_runs == [run.run_id]


PUBLISH_UNTIL_KILLED = r"""
import sys, time
from graphrag_core.store.publish import SnapshotStore
from tests import snapshot_sample as sample
from tests.services import free_port, mcp_http_server

def progress(stage, path):
    if stage == "database":
        print("database", flush=True)
        time.sleep(600)

SnapshotStore(sys.argv[1]).publish(sample.sample_tables(), progress=progress, code="killed")
"""


def test_a_killed_publish_leaves_no_staging_folder_behind(published):
    store = SnapshotStore(published)  # default: a folder without a lock is stale after 6 h
    proc = subprocess.Popen([sys.executable, "-c", PUBLISH_UNTIL_KILLED, str(published)],
                            cwd=ROOT, env=_env(), stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "database"
        # While it is alive its folder is kept, even by a prune that finds every folder stale.
        SnapshotStore(published, stale_staging_s=1e-9).prune()
        assert len(list(store.root.glob(".staging-*"))) == 1
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert len(list(store.root.glob(".staging-*"))) == 1
    store.publish(sample.sample_tables(), code="after-the-kill")  # the next publish
    assert not list(store.root.glob(".staging-*"))


# =============================================================================================
# 6. What held: injection, writes, Host/Origin, swaps under concurrent clients
# =============================================================================================
INJECTIONS = ["'; DROP TABLE companies; --", "x' OR '1'='1", "\") UNION SELECT * FROM duckdb_tables() --",
              "ATTACH '/tmp/evil.db'", "COPY companies TO '/tmp/leak.csv'", "\x00\u202e" * 20]


async def test_injection_through_every_tool_argument_leaves_the_snapshot_untouched(published):
    store = SnapshotStore(published)
    db = store.database_path(store.current_version())
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    reader = SnapshotReader(published)
    calls = 0
    async with Client(build_server(reader)) as client:
        tools = (await client.list_tools()).tools
        for tool in tools:
            strings = [name for name, spec in tool.input_schema.get("properties", {}).items()
                       if "string" in json.dumps(spec)]
            for name in strings:
                for payload in INJECTIONS:
                    args = {"company_id": "CIK-0001045810", "query": "nvidia", "chunk_id": "c"}
                    args = {k: v for k, v in args.items() if k in tool.input_schema.get("properties", {})}
                    args[name] = payload
                    result = await client.call_tool(tool.name, args)
                    calls += 1
                    # Refused (an error the model can read) or answered as plain data.
                    assert result.is_error or result.structured_content is not None
        for sql in ("DROP TABLE companies", "INSERT INTO companies VALUES (1)"):
            assert (await client.call_tool("execute_sql", {"sql": sql})).is_error
        status = await client.call_tool("status", {})
        assert status.structured_content["companies"] == 4
    reader.close()
    assert calls >= 5 * len(INJECTIONS)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


async def test_swaps_under_concurrent_http_clients_never_mix_answers(data_root):
    """16 clients call status while snapshots of different content are published: every
    answer's filing count is the one of the version it names."""
    store = SnapshotStore(data_root)
    expected = {store.publish(sample.sample_tables(without=(sample.NVDA_10Q,))).version: 5}
    with http_server(data_root) as (base, _proc):
        url = f"{base}/mcp"
        answers: list[tuple[str, int]] = []
        errors: list[str] = []
        stop = asyncio.Event()

        async def client_loop() -> None:
            async with Client(url) as client:
                while not stop.is_set():
                    result = await client.call_tool("status", {})
                    if result.is_error:
                        errors.append(result.content[0].text)
                    else:  # the count by form is read from the database, not the manifest
                        answers.append((result.structured_content["snapshot"],
                                        sum(result.structured_content["forms"].values())))

        tasks = [asyncio.create_task(client_loop()) for _ in range(16)]
        for i in range(4):
            await asyncio.sleep(0.3)
            tables = sample.sample_tables() if i % 2 == 0 else sample.sample_tables(
                without=(sample.NVDA_10Q,))
            manifest = await asyncio.to_thread(store.publish, tables, code=f"swap-{i}")
            expected[manifest.version] = manifest.counts["filings"]
        await asyncio.sleep(0.5)
        stop.set()
        await asyncio.gather(*tasks)
    assert errors == []
    assert len(answers) >= 100
    mixed = [(v, n) for v, n in answers if expected.get(v) != n]
    assert mixed == []
    assert {v for v, _ in answers} - set(expected) == set()


# --- issue 21, corpus: one failed filing is left out of the corpus job, the others publish ---
# Row 4 and the weak rows "a 10-K with no Item heading passes the items check" and "the fix for
# a blocked corpus job suggests --force". Real corpus filings (two small 8-Ks) beside filings
# made to fail in the ways real ones do: an inline-XBRL document whose facts reference contexts
# it does not hold (an exhibit whose contexts live in another document of its set), a 10-K with
# no Item heading, and an empty document (its raw_filings partition fails outright).

_GOOD_8KS = ("filings/BCOW/8-K/form8k_122024.htm", "filings/BLK/8-K/form8K.Blackrock.htm")
_NO_CONTEXT = "0000943374-24-900001"  # accession numbers for the made-up filings
_NO_ITEMS = "0000000002-25-000001"
_EMPTY = "0000000003-25-000001"


def _tree_digest(root: Path) -> str:
    """Every path and file's bytes under `root`: equal before and after means untouched."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _sentinel(tmp_path: Path) -> Path:
    folder = tmp_path / "sentinel"
    (folder / "raw").mkdir(parents=True)
    (folder / "raw" / "keep.txt").write_text("outside the data root")
    (folder / "tables.parquet").write_bytes(b"not a table")
    return folder


class _Inbox:
    """A folder corpus with its manifest.json: documents keep their accession when replaced."""

    def __init__(self, root: Path):
        self.root = root
        self.records: dict[str, dict] = {}

    def put(self, path: str, data: bytes, **fields) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        record = {**self.records.get(path, {}), **fields, "path": path}
        self.records[path] = {**record, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        self._write()

    def drop(self, path: str) -> None:
        (self.root / path).unlink()
        del self.records[path]
        self._write()

    def _write(self) -> None:
        (self.root / "manifest.json").write_text(json.dumps(list(self.records.values())))


def _snapshot_filings(data: Path) -> tuple[set[str], set[str], list]:
    """(filing ids, filing ids of chunks, manifest.excluded) of the current snapshot."""
    import duckdb

    store = SnapshotStore(data)
    version = store.current_version()
    assert version is not None
    con = duckdb.connect(str(store.database_path(version)), read_only=True)
    try:
        filings = {r[0] for r in con.execute("SELECT filing_id FROM filings").fetchall()}
        chunks = {r[0] for r in con.execute("SELECT DISTINCT filing_id FROM chunks").fetchall()}
    finally:
        con.close()
    return filings, chunks, store.manifest(version).excluded


def test_a_failed_filing_is_left_out_named_and_comes_back_once_fixed(
    tmp_path, corpus_dir, monkeypatch, capsys
):
    from pipelines.cli import main
    from pipelines.ingest import ingest

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))  # restored after the test
    sentinel = _sentinel(tmp_path)
    before = _tree_digest(sentinel)
    manifest = {r["path"]: r for r in json.loads((corpus_dir / "manifest.json").read_text())}
    inbox = _Inbox(tmp_path / "inbox")
    for path in _GOOD_8KS:
        inbox.put(path, (corpus_dir / path).read_bytes(), **{
            k: v for k, v in manifest[path].items() if k not in {"sha256", "bytes", "path"}})
    good = {manifest[p]["accession"] for p in _GOOD_8KS}
    bcow = (corpus_dir / _GOOD_8KS[0]).read_text(encoding="utf-8")
    without_contexts = re.sub(r"<xbrli:context\b.*?</xbrli:context>", "", bcow, flags=re.S)
    assert without_contexts != bcow and "<ix:nonNumeric" in without_contexts
    made_up = {"cik": "0000943374", "company_name": "Bad Corp", "period_end": "2024-12-31",
               "filed_date": "2025-02-01"}
    inbox.put("bad/exhibit.htm", without_contexts.encode(), form="8-K", document_type="8-K",
              accession=_NO_CONTEXT, **made_up)
    inbox.put("bad/letter.htm", b"<html><body><p>FORM 10-K</p><p>To our shareholders: it was a "
              b"good year.</p></body></html>", form="10-K", document_type="10-K",
              accession=_NO_ITEMS, **made_up)
    inbox.put("bad/empty.htm", b"", form="8-K", document_type="8-K", accession=_EMPTY, **made_up)
    data = tmp_path / "data"
    settings = Settings(data_root=data, corpus=inbox.root)

    report = ingest(settings, serial=True)
    assert {o.filing_id for o in report.failed} == {_NO_CONTEXT, _NO_ITEMS, _EMPTY}
    # the whole-corpus job went on without them: graph, index, snapshot of the good filings
    assert report.corpus_success, report.corpus_error
    filings, chunk_filings, excluded = _snapshot_filings(data)
    assert filings == good and chunk_filings == good
    why = {e.filing_id: e for e in excluded}
    assert set(why) == {_NO_CONTEXT, _NO_ITEMS, _EMPTY}
    assert "xbrl_facts/inline_xbrl_yields_facts failed" in why[_NO_CONTEXT].reason
    assert "exhibit_of" in why[_NO_CONTEXT].fix
    assert "section_chunks/annual_report_items failed" in why[_NO_ITEMS].reason
    assert "no_item_headings=True" in why[_NO_ITEMS].reason
    assert "raw_filings" in why[_EMPTY].reason and "empty" in why[_EMPTY].reason
    for item in excluded:  # what helps, never a re-run of the same document
        assert "--force" not in item.fix
        assert f"filings-graph ingest --filing {item.filing_id}" in item.fix
        assert f"filings-graph remove {item.filing_id}" in item.fix

    # named in the ingestion report and in `filings-graph status`, with the check and the fix
    text = (layout.snapshots_root(data) / "reports" / "ingestion_report.md").read_text()
    assert "| filings left out of the snapshot | 3 |" in text
    left_out = text.split("## Left out of the snapshot")[1].split("\n- ")[1:]
    assert [item.split(":")[0] for item in left_out] == sorted([_NO_CONTEXT, _NO_ITEMS, _EMPTY])
    for item in left_out:
        assert "failed" in item and f"filings-graph remove {item.split(':')[0]}" in item
    assert main(["--data", str(data), "status"]) == 0
    out = capsys.readouterr().out
    assert "LEFT OUT of the snapshot: 3 filing(s) failed their own checks; the other 2 publish" in out
    assert f"filing {_NO_ITEMS}: blocking check section_chunks/annual_report_items failed" in out

    # The fixes carried out. The letter taken out with `filings-graph remove` (and out of the
    # folder): the next snapshot no longer names it.
    inbox.drop("bad/letter.htm")
    assert main(["--data", str(data), "remove", _NO_ITEMS]) == 0
    assert "LEFT OUT of the snapshot: 2 filing(s)" in capsys.readouterr().out
    filings, _, excluded = _snapshot_filings(data)
    assert filings == good and sorted(e.filing_id for e in excluded) == sorted([_NO_CONTEXT, _EMPTY])
    # The exhibit and the empty document replaced, and ingested again: both come back in.
    inbox.put("bad/exhibit.htm", (bcow + "<!-- re-filed with its contexts -->").encode())
    inbox.put("bad/empty.htm", (corpus_dir / "filings/ORCL/8-K/Oracle.8-K.htm").read_bytes())
    again = ingest(settings, serial=True)
    assert {o.filing_id: o.success for o in again.outcomes} == {_NO_CONTEXT: True, _EMPTY: True}
    assert again.corpus_success, again.corpus_error
    filings, chunk_filings, excluded = _snapshot_filings(data)
    assert filings == good | {_NO_CONTEXT, _EMPTY} and chunk_filings == filings
    assert excluded == []
    assert main(["--data", str(data), "status"]) == 0
    assert "LEFT OUT" not in capsys.readouterr().out
    assert _tree_digest(sentinel) == before


def test_exclusions_name_each_reason_and_a_fix_that_is_not_a_rerun(tmp_path):
    """The store alone: a failed blocking check, a failed run, a missing partition; a passed or
    warning-only check leaves the filing in. `--force` only where the document is not at fault."""
    from graphrag_core.common.checks import CheckVerdict
    from graphrag_core.graph.snapshot_inputs import SNAPSHOT_INPUTS
    from graphrag_core.operations.exclusions import corpus_exclusions, corpus_filings
    from graphrag_core.tables.check_results import record_checks
    from graphrag_core.tables.schemas import SCHEMAS, frame
    from graphrag_core.tables.table_store import TableStore

    store = TableStore(tmp_path / "data")
    ids = ["0000000001-25-000001", "0000000001-25-000002", "0000000001-25-000003",
           "sha-0123456789abcdef", "0000000001-25-000005"]
    for fid in ids:
        for table in SNAPSHOT_INPUTS:
            store.write(table, frame([{"filing_id": fid}], SCHEMAS[table]), fid)
    record_checks(store, ids[0], "section_chunks", [CheckVerdict(
        asset="section_chunks", check="annual_report_items", passed=False, blocking=True,
        figures={"missing": ["10-K/Item 7"]})])
    record_checks(store, ids[1], "validated_triples", [CheckVerdict(
        asset="validated_triples", check="rejection_rate", passed=False, blocking=True,
        figures={"rejection_rate": 0.9})])
    record_checks(store, ids[2], "metric_observations", [CheckVerdict(
        asset="metric_observations", check="companyfacts_agree", passed=False, blocking=False)])
    store.delete_partition("metric_observations", ids[3])
    excluded = corpus_exclusions(store, SNAPSHOT_INPUTS, {ids[4]: "section_chunks: parser lost text"})
    why = {e.filing_id: e for e in excluded}
    assert sorted(why) == sorted([ids[0], ids[1], ids[3], ids[4]])
    assert corpus_filings(store, excluded) == [ids[2]]  # a warning never leaves a filing out
    assert "annual_report_items failed" in why[ids[0]].reason and "--force" not in why[ids[0]].fix
    # the extractor, not the document, is at fault: re-run the same document once it is fixed
    assert "GRAPHRAG_EXTRACTION_" in why[ids[1]].fix and "--force" in why[ids[1]].fix
    assert "no metric_observations partition" in why[ids[3]].reason
    # a local file keyed by its content comes back under a new id: the old one must be removed
    assert "new id" in why[ids[3]].fix and f"filings-graph remove {ids[3]}" in why[ids[3]].fix
    assert "section_chunks: parser lost text" in why[ids[4]].reason
    assert all(f"filings-graph remove {e.filing_id}" in e.fix for e in excluded)
    assert all(tmp_path / "data" in p.parents for p in (tmp_path / "data").rglob("*"))


def test_a_missing_partition_names_a_fix_that_is_not_force(tmp_path):
    """The graph stage's own guard (a filing that lost a partition between the job's look and
    its read) names the fix that helps, not a re-run of the same document."""
    from graphrag_core.graph.graph_store import GraphInputError, GraphStore
    from graphrag_core.tables.schemas import FILINGS, frame
    from graphrag_core.tables.table_store import TableStore

    store = TableStore(tmp_path / "data")
    fid = "0000000001-25-000001"
    store.write("raw_filings", frame([{"filing_id": fid, "form": "8-K"}], FILINGS), fid)
    graph = GraphStore(None)
    try:
        with pytest.raises(GraphInputError) as caught:
            graph.update_entities(store)
    finally:
        graph.close()
    message = str(caught.value)
    assert "is missing" in message and "--force" not in message
    assert f"filings-graph remove {fid}" in message and f"filings-graph ingest --filing {fid}" in message
