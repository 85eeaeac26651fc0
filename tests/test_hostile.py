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
import shutil
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
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from graphrag_core.common.errors import FilingError
from graphrag_core.common.ids import sha256_bytes, sha_filing_id
from graphrag_core.intake.catalog import FilingCatalog, register_discovered
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.settings import Settings
from graphrag_core.store import layout
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.reader import SnapshotReader, SnapshotUnavailable
from graphrag_core.text.parsing import parse_markup
from mcp_server import build_server
from mcp_server.http import CLIENT_COOKIE
from tests import snapshot_sample as sample
from tests.mcp_client import session
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
        # Each is told an id to send back (issue 21: evidence numbers per session), and nothing
        # is held for it: the transport stays stateless, ledgers come with tool calls, bounded.
        assert statuses == {200: 300} and sessions == 300
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


# --- issue 21, mcp: evidence numbers per HTTP client, tokens, snapshot folders, LATEST, index path ---
def _tree_digest(root: Path) -> dict[str, str]:
    """Every file under `root` (links not followed) with its sha256: what must not change."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            out[str(path.relative_to(root))] = f"-> {os.readlink(path)}"
        elif path.is_file():
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def sentinel(tmp_path) -> Iterator[Path]:
    """A tree beside the data root that no test may change (checked when the test ends)."""
    tree = tmp_path / "outside"
    (tree / "sub").mkdir(parents=True)
    (tree / "secret.txt").write_text("the first sixty characters of this file must never be served\n")
    (tree / "sub" / "table.parquet").write_bytes(b"PAR1 not really")
    before = _tree_digest(tree)
    yield tree
    assert _tree_digest(tree) == before


def _rpc(http: httpx2.Client, url: str, method: str, params: dict, *, version: str | None,
         session: str | None = None, request_id: int | None = 1) -> httpx2.Response:
    headers = dict(ACCEPT)
    if version is not None:
        headers["mcp-protocol-version"] = version
    if session is not None:
        headers["mcp-session-id"] = session
    if version in MODERN_PROTOCOL_VERSIONS:  # the per-request protocol routes on headers too
        headers["mcp-method"] = method
        headers["mcp-name"] = params.get("name", "")
    body: dict = {"jsonrpc": "2.0", "method": method, "params": params}
    if request_id is not None:
        body["id"] = request_id
    return http.post(url, json=body, headers=headers)


class _HandshakeClient:
    """A client of one handshake-era protocol version, raw JSON-RPC over HTTP, that keeps no
    cookies: only its `Mcp-Session-Id` can tie its requests together."""

    def __init__(self, url: str, version: str):
        self.url, self.version, self.calls = url, version, 1
        self.http = httpx2.Client(timeout=30)
        init = _rpc(self.http, url, "initialize", {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": f"hostile-{version}", "version": "0"}}, version=None)
        assert init.status_code == 200, init.text
        assert init.json()["result"]["protocolVersion"] == version
        self.session = init.headers["mcp-session-id"]
        self.http.cookies.clear()
        done = _rpc(self.http, url, "notifications/initialized", {}, version=version,
                    session=self.session, request_id=None)
        assert done.status_code == 202

    def tool(self, name: str, **args) -> dict:
        self.calls += 1
        response = _rpc(self.http, self.url, "tools/call", {"name": name, "arguments": args},
                        version=self.version, session=self.session, request_id=self.calls)
        self.http.cookies.clear()
        result = response.json()["result"]
        assert not result.get("isError"), result
        return result["structuredContent"]

    def close(self) -> None:
        self.http.close()


def _first_evidence(metrics: dict) -> int:
    return metrics["series"][0]["values"][0]["citation"]["evidence"]


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_evidence_numbers_last_an_http_session_of_every_handshake_version(published, version):
    with http_server(published) as (base, _proc):
        one = _HandshakeClient(f"{base}/mcp", version)
        two = _HandshakeClient(f"{base}/mcp", version)
        try:
            revenue = one.tool("get_metrics", company_id="NVDA", metrics=["revenue"], periods=1)
            n = _first_evidence(revenue)
            assert n == 1
            # The next request continues the session's numbers and resolves the earlier one.
            debt = one.tool("get_metrics", company_id="NVDA", metrics=["total_debt"], periods=1)
            assert _first_evidence(debt) == 2
            again = one.tool("get_metrics", company_id="NVDA", metrics=["revenue"], periods=1)
            assert _first_evidence(again) == n
            report = one.tool("check_citations", answer=f"NVIDIA's revenue was $130.5 billion [{n}].")
            assert report["ok"] is True and report["evidence_known"] == 2, report
            # Another session (same version, same server) has numbers of its own.
            other = two.tool("check_citations", answer=f"NVIDIA's revenue was $130.5 billion [{n}].")
            assert other["evidence_known"] == 0 and [u["citation"] for u in other["unresolved"]] == [str(n)]
            assert _first_evidence(two.tool("get_metrics", company_id="NVDA", metrics=["total_debt"],
                                            periods=1)) == 1
        finally:
            one.close()
            two.close()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_evidence_numbers_last_a_real_client_session_over_http(published, mode):
    """The SDK's own client: `auto` speaks the per-request protocol (no session: its cookie
    is its id), `legacy` the newest handshake version (its session id)."""
    with http_server(published) as (base, _proc):
        url = f"{base}/mcp"
        async with Client(url, mode=mode) as one, Client(url, mode=mode) as two:
            assert one.protocol_version in (MODERN_PROTOCOL_VERSIONS if mode == "auto"
                                            else HANDSHAKE_PROTOCOL_VERSIONS)
            first = await one.call_tool("get_metrics", {"company_id": "NVDA", "metrics": ["revenue"],
                                                        "periods": 1})
            n = _first_evidence(first.structured_content)
            second = await one.call_tool("get_metrics", {"company_id": "NVDA", "metrics": ["total_debt"],
                                                         "periods": 1})
            assert (n, _first_evidence(second.structured_content)) == (1, 2)
            report = await one.call_tool("check_citations", {"answer": f"Revenue was $130.5 billion [{n}]."})
            assert report.structured_content["ok"] is True
            assert report.structured_content["evidence_known"] == 2
            other = await two.call_tool("check_citations", {"answer": f"Revenue was $130.5 billion [{n}]."})
            assert other.structured_content["evidence_known"] == 0


def test_per_request_clients_without_an_id_never_share_numbers(published):
    """A client of the per-request protocol that keeps no cookie is not known again: its
    answers number from 1 each time, and never continue another client's numbers."""
    with http_server(published) as (base, _proc):
        url = f"{base}/mcp"
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSIONS[-1],
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}}
        numbers = []
        with httpx2.Client(timeout=30) as http:
            for metric in ("revenue", "total_debt", "revenue"):
                response = _rpc(http, url, "tools/call", {
                    "name": "get_metrics", "_meta": meta,
                    "arguments": {"company_id": "NVDA", "metrics": [metric], "periods": 1}},
                    version=MODERN_PROTOCOL_VERSIONS[-1])
                assert response.status_code == 200, response.text
                assert CLIENT_COOKIE in response.headers.get("set-cookie", "")
                numbers.append(_first_evidence(response.json()["result"]["structuredContent"]))
                http.cookies.clear()
        assert numbers == [1, 1, 1]


def test_a_flood_of_one_off_clients_keeps_a_returning_clients_numbers():
    from mcp_server.evidence import _MAX_NEW_CLIENTS, Ledgers

    ledgers = Ledgers()
    kept = ledgers.for_client("returning")
    assert ledgers.for_client("returning") is kept  # came back once: established
    for i in range(3 * _MAX_NEW_CLIENTS):  # ids never seen again (clients that keep none)
        ledgers.for_client(f"once-{i}")
    assert ledgers.for_client("returning") is kept
    assert ledgers.for_client("once-0") is not ledgers.for_client("returning")


@pytest.mark.parametrize(("token", "why"), [
    (" " * 32, "holds characters a bearer token may not (space"),
    (" " + TOKEN, "holds characters a bearer token may not (space"),
    (TOKEN + " ", "holds characters a bearer token may not (space"),
    (TOKEN[:20] + "\t" + TOKEN[20:], "holds characters a bearer token may not ('\\t'"),
    ("a" * 32, "has only 1 distinct characters"),
    ("abcdefgh" * 4, "is a shorter string repeated"),
])
def test_tokens_no_request_could_send_or_anyone_could_guess_are_refused(published, sentinel, token, why):
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_server", "--data-root", str(published), "--http",
         "--host", "0.0.0.0", "--port", str(free_port())],
        cwd=ROOT, env=_env(GRAPHRAG_MCP_TOKEN=token), capture_output=True, text=True, timeout=30,
    )
    assert proc.returncode == 2, proc.stderr
    assert f"GRAPHRAG_MCP_TOKEN {why}" in proc.stderr
    assert "secrets.token_urlsafe(32)" in proc.stderr and "Traceback" not in proc.stderr


def test_token_rule_accepts_generated_secrets():
    import secrets as random_secrets

    from graphrag_core.common.errors import ConfigurationError
    from mcp_server.http import HttpExposureError, check_exposure, token_problem

    for _ in range(200):
        assert token_problem(random_secrets.token_urlsafe(32)) is None
        assert token_problem(random_secrets.token_hex(32)) is None
    with pytest.raises(ConfigurationError, match="GRAPHRAG_MCP_TOKEN"):  # on loopback too
        check_exposure("127.0.0.1", " " * 40)
    assert issubclass(HttpExposureError, ConfigurationError)


def _published_twice(data_root: Path) -> tuple[SnapshotStore, str, str]:
    store = SnapshotStore(data_root)
    older = store.publish(sample.sample_tables(without=(sample.NVDA_10Q,))).version
    newer = store.publish(sample.sample_tables()).version
    return store, older, newer


def test_a_version_folder_linked_outside_the_store_is_not_served(data_root, sentinel, caplog):
    store, older, newer = _published_twice(data_root)
    folder = layout.version_dir(store.root, newer)
    moved = sentinel.parent / "elsewhere" / newer
    moved.parent.mkdir()
    folder.rename(moved)
    folder.symlink_to(moved, target_is_directory=True)
    caplog.set_level(logging.INFO, logger="graphrag_core.store.reader")
    reader = SnapshotReader(data_root)
    with reader.lease() as snap:  # LATEST names the linked folder: the last intact one is served
        assert snap.version == older
    reader.close()
    said = " ".join(r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)
    assert f"{folder} is a symbolic link" in said and "publish a new snapshot" in said


def test_a_manifest_naming_another_version_is_not_served(data_root, sentinel, caplog):
    store, older, newer = _published_twice(data_root)
    # A copy of the older version under a newer name: intact files, the wrong folder.
    impostor = "29991231T235959999999Z-00000000"
    shutil.copytree(layout.version_dir(store.root, older), layout.version_dir(store.root, impostor))
    layout.write_latest(store.root, impostor)
    caplog.set_level(logging.INFO, logger="graphrag_core.store.reader")
    reader = SnapshotReader(data_root)
    with reader.lease() as snap:
        assert snap.version == newer
    reader.close()
    said = " ".join(r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)
    assert f"manifest.json names version {older}, not its folder {impostor}" in said


@pytest.mark.parametrize("target", ["secret", "version-folder-file", "dangling"])
async def test_latest_linked_anywhere_is_refused_and_never_echoed(data_root, sentinel, target):
    store = SnapshotStore(data_root)
    version = store.publish(sample.sample_tables()).version
    latest = layout.latest_path(store.root)
    latest.unlink()
    # No intact snapshot left to fall back on: the error is all a client sees.
    store.database_path(version).write_bytes(b"damaged")
    link = {"secret": sentinel / "secret.txt",
            "version-folder-file": layout.version_dir(store.root, version) / layout.MANIFEST_FILE,
            "dangling": sentinel / "missing"}[target]
    latest.symlink_to(link)
    assert layout.read_latest(store.root) is None
    reader = SnapshotReader(data_root)
    async with Client(build_server(reader)) as client:
        result = await client.call_tool("status", {})
    reader.close()
    assert result.is_error
    text = result.content[0].text
    assert "LATEST" in text and "symbolic link" in text and "publish a new snapshot" in text
    assert "sixty characters" not in text and '"format"' not in text and str(link) not in text


def test_latest_content_is_never_echoed(data_root, sentinel):
    store = SnapshotStore(data_root)
    version = store.publish(sample.sample_tables()).version
    store.database_path(version).write_bytes(b"damaged")
    layout.latest_path(store.root).write_text("the first sixty characters of a secret go here\n")
    reader = SnapshotReader(data_root)
    with pytest.raises(SnapshotUnavailable, match="names no snapshot version") as failed, reader.lease():
        pass
    reader.close()
    assert "sixty" not in str(failed.value)


@pytest.mark.real_embeddings
async def test_a_copied_data_root_searches_its_own_chunk_index(tmp_path, sentinel):
    from dataclasses import replace

    from graphrag_core.retrieval.chunk_index import update_index
    from graphrag_core.retrieval.search import shared_embedder
    from graphrag_core.settings import RetrievalSettings

    original = tmp_path / "original"
    original.mkdir()
    tables = sample.sample_tables()
    settings = RetrievalSettings()
    update = update_index(original, tables.chunks, tables.filings, shared_embedder(settings), settings)
    manifest = SnapshotStore(original).publish(replace(tables, chunk_index=update.ref))
    assert manifest.chunk_index is not None and manifest.chunk_index.path == settings.index_dir
    copy = tmp_path / "moved" / "data"
    shutil.copytree(original, copy.parent / "data", symlinks=True)
    shutil.rmtree(original)
    before = _tree_digest(copy)
    async with session(copy) as client:
        out = await client.call_tool("search_chunks", {"query": "NVIDIA technology risks", "k": 2})
    assert not out.is_error, out.content[0].text
    assert out.structured_content["hits"][0]["company_id"] == "CIK-0001045810"
    assert _tree_digest(copy) == before and not original.exists()


@pytest.mark.real_embeddings
async def test_an_old_snapshot_with_an_absolute_index_path_reads_the_copy(tmp_path, sentinel):
    """Snapshots published before paths were relative hold the original's absolute folder: a
    copy of the data root finds its own index by the path's trailing parts."""
    from graphrag_core.retrieval.chunk_index import update_index
    from graphrag_core.retrieval.search import shared_embedder
    from graphrag_core.settings import RetrievalSettings
    from graphrag_core.store.chunk_index_ref import ChunkIndexRef

    original = tmp_path / "original"
    original.mkdir()
    tables = sample.sample_tables()
    settings = RetrievalSettings()
    update = update_index(original, tables.chunks, tables.filings, shared_embedder(settings), settings)
    absolute = update.ref.model_copy(update={"path": str((original / settings.index_dir).resolve())})
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    shutil.rmtree(original)
    assert ChunkIndexRef.location(absolute, copy) == (copy / settings.index_dir).resolve()
    assert absolute.relative_to(copy) == absolute  # outside this root: kept as recorded
    escaping = update.ref.model_copy(update={"path": "../../outside"})
    with pytest.raises(ValueError, match="leads outside the data root"):
        escaping.location(copy)
