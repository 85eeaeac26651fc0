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
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "hostile", "version": "0"},
    },
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
    (folder / "manifest.json").write_text(
        json.dumps(
            [
                {"path": "one.htm", "accession": accession, "form": "8-K"},
                {"path": "two.htm", "accession": accession, "form": "8-K"},
            ]
        )
    )
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
        '<p><ix:nonNumeric name="dei:EntityCentralIndexKey" '
        f'contextRef="c">{cik}</ix:nonNumeric></p>'
        '<p><ix:nonNumeric name="dei:DocumentPeriodEndDate" '
        f'contextRef="c">{period}</ix:nonNumeric></p>'
        "<p>Item 1. Business</p><p>We make things.</p></body></html>"
    )


def test_file_name_gives_an_accession_only_when_the_content_agrees(tmp_path):
    folder = tmp_path / "inbox"
    (folder / "reference" / "submissions").mkdir(parents=True)
    (folder / "reference" / "company_tickers.json").write_text(
        json.dumps(
            {
                "0": {"cik_str": 1045810, "ticker": "NVDA", "title": "NVIDIA CORP"},
                "1": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
            }
        )
    )
    (folder / "reference" / "submissions" / "CIK0000320193.json").write_text(
        json.dumps(
            {
                "cik": "320193",
                "name": "Apple Inc.",
                "filings": {
                    "recent": {
                        "accessionNumber": ["0000320193-24-000123"],
                        "form": ["10-K"],
                        "filingDate": ["2024-11-01"],
                        "reportDate": ["2024-09-28"],
                    }
                },
            }
        )
    )
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
            "We make", "We made"
        ),
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
    fonts = (
        "<html><body><p>"
        + "".join(f"<font>w{i} " for i in range(400))
        + "</p><p>tail</p></body></html>"
    )
    parsed = parse_markup(fonts, True)
    assert len(re.findall(r"\bw\d+\b", parsed.text)) == 400 and "tail" in parsed.text
    deep = (
        "<html><body>"
        + "<div>" * 400
        + "deep words"
        + "</div>" * 400
        + "<p>after them</p></body></html>"
    )
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
    body = (
        "<p>Item 8.01 Other Events</p>" + "<div>" * 3000 + "<p>words lost past the limit</p>" * 50
    )
    (folder / "deep.htm").write_text(f"<html><body><p>FORM 8-K</p>{body}</body></html>")
    source = LocalFolderSource(folder)
    [ref] = source.discover()
    store = TableStore(tmp_path / "data")
    raw = ingest_filing(ref, source.fetch(ref), store)
    with pytest.raises(FilingError, match="deep.htm") as failure:
        chunk_filing(raw.meta, raw.documents, store)
    assert "parser lost text" in str(failure.value) and "GRAPHRAG_MIN_TEXT_COVERAGE" in str(
        failure.value
    )


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
            "Accept: application/json, text/event-stream\r\nContent-Length: "
            f"{len(body)}\r\n\r\n".encode()
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
        [
            sys.executable,
            "-m",
            "mcp_server",
            "--data-root",
            str(published),
            "--http",
            "--host",
            "0.0.0.0",
            "--port",
            str(free_port()),
        ],
        cwd=ROOT,
        env=_env(GRAPHRAG_MCP_TOKEN="x"),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "GRAPHRAG_MCP_TOKEN is 1 characters; use at least 32" in proc.stderr
    assert "Traceback" not in proc.stderr

    with http_server(published, GRAPHRAG_MCP_TOKEN=TOKEN) as (base, _proc):
        url = f"{base}/mcp"
        with httpx2.Client(timeout=30) as http:
            codes = {
                scheme: http.post(
                    url, json=INIT, headers={**ACCEPT, "authorization": f"{scheme} {TOKEN}"}
                ).status_code
                for scheme in ("Bearer", "bearer", "BEARER")
            }
            wrong = http.post(
                url, json=INIT, headers={**ACCEPT, "authorization": f"Bearer {TOKEN}x"}
            )
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
            huge = http.post(
                url,
                content=b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'
                + b"A" * (5 * 1024 * 1024)
                + b'"}}',
                headers=ACCEPT,
            )
            garbage = http.post(url, content=b"{not json", headers=ACCEPT)
            wrong_type = http.post(
                url, content=json.dumps(INIT), headers={**ACCEPT, "content-type": "text/plain"}
            )
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
        cwd=ROOT,
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    lines = [b"this is not json", b'{"id": 5, "method": 3}', b"[1, 2]", json.dumps(INIT).encode()]
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
    assert [r["result"]["serverInfo"]["name"] for r in replies if "result" in r] == [
        "filings-graph"
    ]


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
    cmd = [
        sys.executable,
        "-m",
        "pipelines.cli",
        "--data",
        str(data),
        "ingest",
        "--corpus",
        str(inbox),
    ]
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
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
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
    proc = subprocess.Popen(
        [sys.executable, "-c", PUBLISH_UNTIL_KILLED, str(published)],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        text=True,
    )
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
INJECTIONS = [
    "'; DROP TABLE companies; --",
    "x' OR '1'='1",
    '") UNION SELECT * FROM duckdb_tables() --',
    "ATTACH '/tmp/evil.db'",
    "COPY companies TO '/tmp/leak.csv'",
    "\x00\u202e" * 20,
]


async def test_injection_through_every_tool_argument_leaves_the_snapshot_untouched(published):
    store = SnapshotStore(published)
    db = store.database_path(store.current_version())
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    reader = SnapshotReader(published)
    calls = 0
    async with Client(build_server(reader)) as client:
        tools = (await client.list_tools()).tools
        for tool in tools:
            strings = [
                name
                for name, spec in tool.input_schema.get("properties", {}).items()
                if "string" in json.dumps(spec)
            ]
            for name in strings:
                for payload in INJECTIONS:
                    args = {"company_id": "CIK-0001045810", "query": "nvidia", "chunk_id": "c"}
                    args = {
                        k: v
                        for k, v in args.items()
                        if k in tool.input_schema.get("properties", {})
                    }
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
                        answers.append(
                            (
                                result.structured_content["snapshot"],
                                sum(result.structured_content["forms"].values()),
                            )
                        )

        tasks = [asyncio.create_task(client_loop()) for _ in range(16)]
        for i in range(4):
            await asyncio.sleep(0.3)
            tables = (
                sample.sample_tables()
                if i % 2 == 0
                else sample.sample_tables(without=(sample.NVDA_10Q,))
            )
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


# --- issue 21, paths: one guard for every destructive path; remove re-run after a kill;
# --- a read-only data root ---------------------------------------------------------------
# A small published data root (three NVIDIA filings: tables, raw documents, text, catalog
# entries, graph, snapshot) is built once per module and copied for each test; a sentinel tree
# beside the copy holds the files each hostile id aims at. Every command is run the way a user
# runs it (the CLI's `main`, the Dagster job with run config) and must refuse before anything
# is deleted: the sentinel and the data root hash the same afterwards.
HOSTILE_SENTINEL = {
    "x.txt": b"text",
    "x.parquet": b"table",
    "x.json": b"{}",
    "keep.txt": b"k",
    "x/doc.htm": b"<html>doc</html>",
    "x/deep/more.htm": b"<html>more</html>",
}


def _hostile_ids(sentinel: Path) -> list[str]:
    """Paths, `..`, empty and odd ids: each aims at the sentinel, the whole data root or a
    whole-corpus table if it reaches a path unchecked."""
    return [
        str(sentinel / "x"),
        str(sentinel),
        "../../sentinel/x",
        "../../../sentinel/x",
        "..",
        ".",
        "",
        " ",
        "_all",
        "*",
        "raw",
        "0001045810-25-000023/../../..",
        "0001045810-25-000023 ",
        "0001045810-25-000023\n",
        "000104581025000023",
        "sha-00000000000000\x00a",
        "SHA-0123456789ABCDEF",
        "sha-0123456789abcdeg",
        "٠٠٠١٠٤٥٨١٠-٢٥-٠٠٠٠٢٣",
        "x" * 5000,
    ]


def tree_digest(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every entry under `root` (links not followed) → its content hash, link target or 'dir'."""
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        rel = Path(folder).relative_to(root)
        dirs[:] = [d for d in dirs if (rel / d).parts[0] not in skip]
        for name in (*dirs, *files):
            path = Path(folder) / name
            key = str(rel / name)
            if path.is_symlink():
                out[key] = "link:" + os.readlink(path)
            elif path.is_dir():
                out[key] = "dir"
            else:
                out[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def graph_world(tmp_path_factory, embeddings_server) -> Path:
    """The published template: world() of test_knowledge_graph through the real corpus job."""
    from graphrag_core.intake.catalog import FilingCatalog
    from graphrag_core.tables.records import DocumentRef, FilingRef
    from graphrag_core.tables.schemas import FILINGS, METRIC_OBSERVATIONS, VALIDATED_TRIPLES, frame
    from graphrag_core.tables.table_store import TableStore
    from pipelines.ingest import run_corpus_job
    from tests.test_knowledge_graph import TICKERS, world

    base = tmp_path_factory.mktemp("graph-world")
    root, corpus = base / "data", base / "corpus"
    tables, catalog = TableStore(root), FilingCatalog(root)
    for fid, (f, ts, obs) in world().items():
        tables.write("raw_filings", frame([f], FILINGS), fid)
        tables.write("validated_triples", frame(ts, VALIDATED_TRIPLES), fid)
        tables.write("metric_observations", frame(obs, METRIC_OBSERVATIONS), fid)
        doc = tables.write_bytes(tables.raw_dir(fid) / "primary.htm", EIGHT_K.encode())
        tables.write_text(fid, "Northwind Traders announced a new distribution center in Ohio.")
        catalog.put(
            FilingRef(
                filing_id=fid,
                source_kind="local",
                form="10-K",
                documents=(
                    DocumentRef(document_type="10-K", filename="primary.htm", location=str(doc)),
                ),
            )
        )
    (corpus / "reference" / "submissions").mkdir(parents=True)
    (corpus / "reference" / "company_tickers.json").write_text(
        json.dumps(
            {
                str(i): {"cik_str": int(r["cik"]), "ticker": r["ticker"], "title": r["title"]}
                for i, r in enumerate(TICKERS)
            }
        )
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DAGSTER_HOME", str(base / "unused"))
        mp.setenv("FILINGS_CORPUS", str(corpus))
        mp.setenv("GRAPHRAG_RETRIEVAL_EMBED_BACKEND", "openai")
        mp.setenv("GRAPHRAG_RETRIEVAL_EMBED_BASE_URL", embeddings_server.base_url)
        mp.setenv("GRAPHRAG_RETRIEVAL_EMBED_MODEL", "hashed-test")
        assert run_corpus_job(Settings(data_root=root)) == (True, None)
    return base


@pytest.fixture
def world_root(graph_world, tmp_path, monkeypatch) -> tuple[Path, Path]:
    """A copy of the template's data root as tmp/data, with tmp/sentinel beside it."""
    import shutil

    root, sentinel = tmp_path / "data", tmp_path / "sentinel"
    shutil.copytree(graph_world / "data", root, symlinks=True)
    for rel, data in HOSTILE_SENTINEL.items():
        (sentinel / rel).parent.mkdir(parents=True, exist_ok=True)
        (sentinel / rel).write_bytes(data)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))  # restored after the test
    monkeypatch.setenv("FILINGS_CORPUS", str(graph_world / "corpus"))
    monkeypatch.setenv("GRAPHRAG_DATA", str(root))
    return root, sentinel


def _served(root: Path) -> set[str]:
    store = SnapshotStore(root)
    return {i.filing_id for i in store.inputs(store.current_version())}


def _refused(capsys, code: int, *needles: str) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and any(n in err for n in needles), err
    return err


def test_remove_refuses_paths_dotdot_empty_and_odd_ids(world_root, capsys):
    from pipelines.cli import main

    root, sentinel = world_root
    before, outside = tree_digest(root), tree_digest(sentinel)
    for bad in _hostile_ids(sentinel):
        err = _refused(
            capsys,
            main(["--data", str(root), "remove", bad]),
            "not a filing id",
            "an empty filing id",
        )
        assert "[filing_id]" in err and "0001045810-25-000023" in err  # the form, as the fix
        assert tree_digest(sentinel) == outside, bad
        assert tree_digest(root) == before, bad  # nothing deleted, nothing published
    # all or none: a good id before a bad one is not removed either
    good = sorted(_served(root))[0]
    _refused(
        capsys, main(["--data", str(root), "remove", good, "../../sentinel/x"]), "not a filing id"
    )
    assert tree_digest(root) == before and tree_digest(sentinel) == outside


def test_remove_refuses_links_that_lead_out_of_the_data_root(world_root, capsys, tmp_path):
    """A valid id whose raw folder, text, table folder or catalog entry is a link out of the
    data root: refused (path and fix) before the first deletion, the link's target untouched."""
    from graphrag_core.tables.table_store import TableStore
    from pipelines.cli import main

    root, sentinel = world_root
    store = TableStore(root)
    fid = sorted(_served(root))[0]
    aside = tmp_path / "aside"
    aside.mkdir()
    (sentinel / "vt").mkdir()
    (sentinel / "vt" / f"{fid}.parquet").write_bytes(
        store.partition_path("validated_triples", fid).read_bytes()
    )
    links = {
        store.raw_dir(fid): sentinel / "x",
        store.text_path(fid): sentinel / "x.txt",
        store.table_dir("validated_triples"): sentinel / "vt",
        root / "catalog" / f"{fid}.json": sentinel / "x.json",
    }
    for link, target in links.items():
        link.rename(aside / link.name)
        link.symlink_to(target, target_is_directory=target.is_dir())
        before, outside = tree_digest(root), tree_digest(sentinel)
        err = _refused(capsys, main(["--data", str(root), "remove", fid]), "outside")
        assert str(link) in err and "Fix:" in err
        assert tree_digest(sentinel) == outside, link
        assert tree_digest(root) == before, link
        link.unlink()
        (aside / link.name).rename(link)
    # with every link gone the same removal goes through
    assert main(["--data", str(root), "remove", fid]) == 0, capsys.readouterr().err
    assert fid not in _served(root) and not store.raw_dir(fid).exists()
    assert (sentinel / "vt" / f"{fid}.parquet").exists() and tree_digest(sentinel)["x/doc.htm"]


def test_remove_filing_job_refuses_hostile_ids_through_the_instance(world_root):
    """The UI's `remove_filing` job, launched with run config on the real instance: a bad id
    fails the run before any deletion; publish_after_removal only follows a successful run."""
    from pipelines.definitions import build_definitions
    from pipelines.instance import get_instance
    from pipelines.removal import REMOVE_JOB

    root, sentinel = world_root
    settings = Settings(data_root=root)
    instance = get_instance(root, settings.operations)
    job = build_definitions(settings).resolve_job_def(REMOVE_JOB)
    partitions = instance.get_dynamic_partitions("filings")
    before, outside = tree_digest(root, skip=("dagster_home",)), tree_digest(sentinel)
    for bad in [
        "",
        "..",
        "../../sentinel/x",
        str(sentinel / "x"),
        "_all",
        "raw",
        "0001045810-25-000023\n",
        "x" * 5000,
    ]:
        result = job.execute_in_process(
            instance=instance,
            raise_on_error=False,
            run_config={"ops": {"remove_filing_op": {"config": {"filing_id": bad}}}},
        )
        assert not result.success, bad
        [failure] = [e for e in result.all_events if e.is_step_failure]
        message = failure.step_failure_data.error.to_string()  # with its cause
        assert "not a filing id" in message or "an empty filing id" in message, message
        assert tree_digest(sentinel) == outside, bad
        assert tree_digest(root, skip=("dagster_home",)) == before, bad
        assert instance.get_dynamic_partitions("filings") == partitions


def test_entities_arguments_never_reach_a_path(world_root, capsys):
    """merge/unmerge take entity ids and review ids: they go into the merge log as values and
    into parameterised queries, never into a path. Hostile ones are refused, the log unchanged."""
    from pipelines.cli import main

    root, sentinel = world_root
    before, outside = tree_digest(root), tree_digest(sentinel)
    for bad in _hostile_ids(sentinel) + ["ORG:x\n", "CIK-٠٠٠١٠٤٥٨١٠", "mention:"]:
        for args in (
            ["merge", bad, "ORG:frobnitz-labs"],
            ["merge", "mention:Frobnitz Labs", bad],
            ["unmerge", bad],
        ):
            code = main(["--data", str(root), "entities", *args, "--no-apply"])
            _refused(
                capsys,
                code,
                "not an entity id",
                "neither an entity",
                "no active merge",
                "needs the mention's text",
            )
            assert tree_digest(sentinel) == outside, (args, bad)
            assert tree_digest(root) == before, (args, bad)


def test_ingest_force_refuses_hostile_filing_ids_before_anything(world_root, capsys, tmp_path):
    from pipelines.cli import main

    root, sentinel = world_root
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "a.htm").write_text(EIGHT_K)
    before, outside = tree_digest(root), tree_digest(sentinel)
    for bad in _hostile_ids(sentinel):
        code = main(
            [
                "--data",
                str(root),
                "ingest",
                "--corpus",
                str(inbox),
                "--serial",
                "--force",
                "--filing",
                bad,
            ]
        )
        _refused(capsys, code, "not a filing id", "an empty filing id")
        assert tree_digest(sentinel) == outside, bad
        assert tree_digest(root) == before, bad  # not discovered, not run, not published


def test_store_writes_and_deletes_stay_inside_the_root(tmp_path):
    """The guard itself: a document name from a catalog entry, a link, an object-store path."""
    import uuid

    from graphrag_core.common.errors import UnsafePathError
    from graphrag_core.tables.table_store import TableStore

    root, sentinel = tmp_path / "data", tmp_path / "sentinel"
    sentinel.mkdir()
    (sentinel / "x.txt").write_text("keep")
    store = TableStore(root)
    fid = "sha-0123456789abcdef"
    for name in ("../../../sentinel/x.txt", str(sentinel / "x.txt")):
        with pytest.raises(UnsafePathError, match="outside"):
            store.write_bytes(store.raw_dir(fid) / name, b"overwritten")
    (root / "tables").mkdir(parents=True)
    (root / "tables" / "raw_filings").symlink_to(sentinel, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="outside"):
        store.write("raw_filings", sample.sample_tables().filings.head(1), fid)
    for name in ("", "..", "a/b", ".tmp"):
        with pytest.raises(UnsafePathError):
            store.partition_path("section_chunks", name)
    assert sorted(p.name for p in sentinel.iterdir()) == ["x.txt"]
    assert (sentinel / "x.txt").read_text() == "keep"
    remote = TableStore(f"memory://guard-{uuid.uuid4().hex}")
    with pytest.raises(UnsafePathError):
        remote.write_bytes(remote.raw_dir(fid) / ".." / ".." / "elsewhere.htm", b"x")
    remote.write_bytes(remote.raw_dir(fid) / "primary.htm", b"x")
    assert remote.delete_filing_files(fid) == [str(remote.raw_dir(fid) / "primary.htm")]


def test_remove_again_after_a_kill_before_publishing(world_root, capsys):
    """A remove killed after deleting and before publishing leaves the filing served by the
    current snapshot only: removing it again publishes without it (exit 0); an id known
    nowhere still fails clearly."""
    from graphrag_core.intake.catalog import FilingCatalog
    from graphrag_core.operations.removal import remove_filing
    from graphrag_core.tables.table_store import TableStore
    from pipelines.cli import main

    root, _sentinel = world_root
    fid = sorted(_served(root))[0]
    remove_filing(TableStore(root), FilingCatalog(root), fid)  # what the killed process did
    assert fid in _served(root)
    assert main(["--data", str(root), "remove", fid]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert f"filing {fid} is in no working table" in out and "still serves it" in out
    assert fid not in _served(root) and len(_served(root)) == 2
    assert main(["--data", str(root), "remove", fid]) == 2  # now gone everywhere
    err = capsys.readouterr().err
    assert "no table, document or catalog entry holds this filing" in err and "Traceback" not in err
    assert main(["--data", str(root), "remove", "0000000000-00-000000"]) == 2
    assert "does not serve it" in capsys.readouterr().err


def _without_write_access() -> list[str]:
    """A prefix that runs a command without write access to files it does not own the write
    bits of: root bypasses permission bits unless it drops CAP_DAC_OVERRIDE (setpriv)."""
    if os.geteuid() != 0:
        return []
    import shutil

    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only folder cannot be made")
    drop = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={drop}", f"--bounding-set={drop}", "--"]


@pytest.mark.parametrize("home", ["existing", "absent"])
def test_a_read_only_data_root_is_named_with_the_fix(tmp_path, home):
    from pipelines.instance import get_instance

    root, inbox = tmp_path / "data", tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "a.htm").write_text(EIGHT_K)
    root.mkdir()
    if home == "existing":  # a data root used before: its instance's SQLite files read-only
        env = dict(os.environ)
        try:
            get_instance(root)
        finally:
            os.environ.clear()
            os.environ.update(env)
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    # `status` only opens the instance when there is one: without, it reads the tables only
    commands = [["ingest", "--corpus", str(inbox)]] + [["status"]] * (home == "existing")
    try:
        for command in commands:
            out = subprocess.run(
                [
                    *_without_write_access(),
                    sys.executable,
                    "-m",
                    "pipelines.cli",
                    "--data",
                    str(root),
                    *command,
                ],
                cwd=ROOT,
                env=_env(),
                capture_output=True,
                text=True,
                timeout=300,
            )
            console = out.stdout + out.stderr
            assert out.returncode == 2, console
            assert "Traceback" not in console and "sqlalchemy" not in console.lower(), console
            assert f"{root}: the data root is not writable" in out.stderr, console
            assert "Fix: give this user write access" in out.stderr
    finally:
        for path in [root, *root.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)


# --- issue 21, reference: SEC reference data is part of the store's state; no silent shrink ---
# Commands that named no source with SEC's reference files (the README's `remove`, `entities
# merge`/`unmerge` in a shell without FILINGS_CORPUS, `ingest --corpus <folder without
# reference/>`) rebuilt the graph without them and published: registrants 9,610 -> 0, company
# nodes 98 -> 43. The data root now keeps the reference it was built with, and a publish that
# shrinks markedly without a named reason fails graph_snapshot/no_unexplained_shrink.


def _outside_digest(root: Path, data_root: Path) -> str:
    """A digest of every file under `root` outside `data_root` (names, sizes, bytes)."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_relative_to(data_root):
            h.update(f"{path.relative_to(root)}\0{path.stat().st_size}\0".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def _sample_reference(folder: Path, *, extra_registrants: int = 40) -> Path:
    """A folder with SEC's reference files only: the sample's tickers plus registrants with no
    filings here (so losing them is well past the shrink tolerance), and NVIDIA's submissions."""
    from tests.test_snapshot_asset import _reference_folder

    _reference_folder(folder)
    rows = [
        *sample.TICKER_ROWS,
        *(
            {"cik": f"{8_000_000 + i:010d}", "ticker": f"ZZ{i}", "title": f"Registrant {i} Inc"}
            for i in range(extra_registrants)
        ),
    ]
    tickers = {
        str(i): {"cik_str": int(r["cik"]), "ticker": r["ticker"], "title": r["title"]}
        for i, r in enumerate(rows)
    }
    (folder / "reference" / "company_tickers.json").write_text(json.dumps(tickers))
    return folder


def _materialize(
    data_root: Path, corpus: Path | None, **snapshot: object
) -> dg.ExecuteInProcessResult:
    from assets.resources import build_resources
    from graphrag_core.settings import SnapshotSettings
    from tests.test_snapshot_asset import GRAPH_ASSETS

    settings = Settings(data_root=data_root, corpus=corpus, snapshots=SnapshotSettings(**snapshot))
    return dg.materialize(GRAPH_ASSETS, resources=build_resources(settings), raise_on_error=False)


def _graph_size(data_root: Path) -> dict[str, object]:
    reader = SnapshotReader(data_root)
    try:
        with reader.lease() as snap:
            return {
                "version": snap.version,
                "registrants": snap.query("SELECT count(*) AS n FROM registrants")[0]["n"],
                "companies": snap.query(
                    "SELECT count(*) AS n FROM nodes WHERE entity_type = 'company'"
                )[0]["n"],
                "edges": snap.query("SELECT count(*) AS n FROM edges")[0]["n"],
                "nvda_sic": snap.query("SELECT sic FROM companies WHERE cik = ?", [sample.NVDA])[0][
                    "sic"
                ],
            }
    finally:
        reader.close()


@pytest.fixture
def no_source_env(monkeypatch):
    """The shell the README's commands run in: no FILINGS_CORPUS, no EDGAR identity."""
    for name in ("FILINGS_CORPUS", "EDGAR_IDENTITY"):
        monkeypatch.delenv(name, raising=False)


def test_a_graph_rebuilt_without_a_source_keeps_its_reference(data_root, tmp_path, no_source_env):
    """Built with SEC's reference, then rebuilt with no source at all and with a folder that has
    no reference/: registrants, SIC and the graph stay as they were."""
    from tests.test_snapshot_asset import _write_partitions

    _write_partitions(data_root)
    corpus = _sample_reference(tmp_path / "corpus")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    assert _materialize(data_root, corpus).success
    first = _graph_size(data_root)
    assert first["registrants"] == 45 and first["nvda_sic"] == "3674"
    outside = _outside_digest(tmp_path, data_root)

    for source in (None, inbox):
        result = _materialize(data_root, source)
        assert result.success, source
        served = _graph_size(data_root)
        assert {k: served[k] for k in ("registrants", "companies", "edges", "nvda_sic")} == {
            k: first[k] for k in ("registrants", "companies", "edges", "nvda_sic")
        }, source
    assert _outside_digest(tmp_path, data_root) == outside


def test_kept_reference_is_replaced_by_a_source_that_has_it_never_erased(tmp_path):
    from graphrag_core.intake.local_folder import LocalFolderSource
    from graphrag_core.intake.reference import ReferenceFolder, keep_reference

    kept = ReferenceFolder(tmp_path / "data" / "reference")
    first = LocalFolderSource(_sample_reference(tmp_path / "first", extra_registrants=3))
    assert keep_reference(kept, first, [sample.NVDA, sample.AAPL]) == [
        "company_tickers.json",
        f"submissions/CIK{sample.NVDA}.json",
    ]
    assert len(kept.company_tickers()) == 8 and kept.submissions(sample.NVDA)["sic"] == "3674"
    stat = kept.tickers_file.stat()
    assert keep_reference(kept, first, [sample.NVDA]) == []  # unchanged: not rewritten
    assert (kept.tickers_file.stat().st_ino, kept.tickers_file.stat().st_mtime_ns) == (
        stat.st_ino,
        stat.st_mtime_ns,
    )

    empty = tmp_path / "empty"
    (empty / "reference").mkdir(parents=True)
    (empty / "reference" / "company_tickers.json").write_text("{}")  # an empty ticker list

    class Unreachable:  # a source whose reference calls fail (EDGAR down)
        reference = None

        def company_tickers(self) -> list[dict]:
            raise OSError("connection refused")

        def submissions(self, cik: str) -> dict | None:
            raise OSError("connection refused")

    warnings: list[str] = []
    for source in (LocalFolderSource(tmp_path / "empty"), Unreachable()):
        assert keep_reference(kept, source, [sample.NVDA], warn=warnings.append) == []  # type: ignore[arg-type]
        assert len(kept.company_tickers()) == 8 and kept.submissions(sample.NVDA)["sic"] == "3674"
    assert any("connection refused" in w for w in warnings)

    newer = LocalFolderSource(_sample_reference(tmp_path / "newer", extra_registrants=9))
    assert keep_reference(kept, newer, [sample.NVDA]) == ["company_tickers.json"]
    assert len(kept.company_tickers()) == 14


def test_a_markedly_smaller_graph_is_refused_and_latest_stays(
    data_root, tmp_path, no_source_env, capsys
):
    """A data root that kept no reference (built before it was kept) rebuilt without a source:
    the publish fails its blocking check, LATEST stays, `status` names the check, the figures
    and the fix; --allow-shrink (GRAPHRAG_SNAPSHOT_ALLOW_SHRINK) lets it through, recorded."""
    import shutil

    from graphrag_core.store.shrink import CHECK
    from pipelines.cli import main
    from tests.test_snapshot_asset import _write_partitions

    _write_partitions(data_root)
    assert _materialize(data_root, _sample_reference(tmp_path / "corpus")).success
    before = _graph_size(data_root)
    shutil.rmtree(data_root / "reference")
    outside = _outside_digest(tmp_path, data_root)

    result = _materialize(data_root, None)
    assert not result.success
    [check] = [c for c in result.get_asset_check_evaluations() if c.check_name == CHECK]
    assert not check.passed and check.severity == dg.AssetCheckSeverity.ERROR
    assert check.metadata["marked"].value == {"registrants": "45 -> 0"}
    assert SnapshotStore(data_root).current_version() == before["version"]
    assert _graph_size(data_root) == before

    capsys.readouterr()
    assert main(["--data", str(data_root), "status"]) == 0
    status = capsys.readouterr().out
    assert f"graph_snapshot/{CHECK} failed" in status and "registrants: 45 -> 0" in status
    assert str(data_root / "reference") in status and "--allow-shrink" in status

    assert (
        _materialize(data_root, None, allow_shrink="   ").success is False
    )  # a blank reason is none
    assert _materialize(data_root, None, allow_shrink="delisted test registrants").success
    store = SnapshotStore(data_root)
    manifest = store.manifest(store.current_version())
    assert manifest.allowed_shrink == {
        "reason": "delisted test registrants",
        "marked": {"registrants": "45 -> 0"},
        "check": f"graph_snapshot/{CHECK}",
    }
    capsys.readouterr()
    main(["--data", str(data_root), "status"])
    assert CHECK not in capsys.readouterr().out
    assert _outside_digest(tmp_path, data_root) == outside


def test_removed_filings_excuse_what_they_alone_contributed(data_root, tmp_path, no_source_env):
    """Taking Apple's only filing out loses its metric edges (6 of 47, past the tolerance) and
    its company node: named by the removal, so the publish goes ahead; the verdict says so."""
    from graphrag_core.store.shrink import CHECK
    from graphrag_core.tables.table_store import TableStore
    from tests.test_snapshot_asset import _write_partitions

    _write_partitions(data_root)
    assert _materialize(data_root, _sample_reference(tmp_path / "corpus")).success
    before = _graph_size(data_root)
    store = TableStore(data_root)
    for table in ("raw_filings", "section_chunks", "metric_observations", "validated_triples"):
        store.delete_partition(table, sample.AAPL_10K)
    result = _materialize(data_root, None)
    assert result.success
    [check] = [c for c in result.get_asset_check_evaluations() if c.check_name == CHECK]
    assert check.passed and check.metadata["removed_filings"].value == 1
    excused = check.metadata["excused"].value
    assert excused["REPORTS_METRIC edges"] == 6 and excused["company nodes"] == 1
    after = _graph_size(data_root)
    assert after["registrants"] == before["registrants"] and after["nvda_sic"] == "3674"
    assert after["companies"] == before["companies"] - 1 and after["edges"] == before["edges"] - 6


def test_shrink_bounds_let_growth_and_small_losses_through():
    from graphrag_core.settings import SnapshotSettings
    from graphrag_core.store.shrink import Baseline, GraphSize, shrink_verdict

    corpus = {
        "registrants": 9610,
        "company nodes": 98,
        "COMPETES_WITH edges": 77,
        "REPORTS_METRIC edges": 5000,
    }
    base = Baseline("v1", GraphSize(corpus), GraphSize({}), [])
    settings = SnapshotSettings()

    def verdict(**changes: int):
        return shrink_verdict(base, GraphSize({**corpus, **changes}), settings)

    assert verdict(**{"REPORTS_METRIC edges": 5200, "company nodes": 101}).passed  # growth
    assert verdict(**{"company nodes": 97, "COMPETES_WITH edges": 75}).passed  # a merge
    assert verdict(**{"COMPETES_WITH edges": 70}).passed  # 7 of 77: within 10 %
    degraded = verdict(registrants=0, **{"company nodes": 43, "COMPETES_WITH edges": 62})
    assert not degraded.passed and degraded.blocking
    assert degraded.figures["marked"] == {
        "COMPETES_WITH edges": "77 -> 62",
        "company nodes": "98 -> 43",
        "registrants": "9610 -> 0",
    }
    assert shrink_verdict(None, GraphSize({}), settings).passed  # nothing published yet


ORACLE_SUBMISSIONS = {
    "cik": "0001341439",
    "name": "ORACLE CORP",
    "sic": "7372",
    "sicDescription": "Services-Prepackaged Software",
    "tickers": ["ORCL"],
    "exchanges": ["NYSE"],
    "fiscalYearEnd": "0531",
    "formerNames": [],
}


def _small_corpus(corpus_dir: Path, folder: Path, paths: list[str]) -> Path:
    """A few corpus filings (linked, not copied) with the corpus's SEC ticker file and a
    submissions file for Oracle, as a folder corpus with its manifest."""
    records = [
        r for r in json.loads((corpus_dir / "manifest.json").read_text()) if r["path"] in paths
    ]
    for r in records:
        (folder / r["path"]).parent.mkdir(parents=True, exist_ok=True)
        (folder / r["path"]).symlink_to(corpus_dir / r["path"])
    (folder / "manifest.json").write_text(json.dumps(records))
    (folder / "reference" / "submissions").mkdir(parents=True)
    (folder / "reference" / "company_tickers.json").symlink_to(
        corpus_dir / "reference" / "company_tickers.json"
    )
    (folder / "reference" / "submissions" / "ORCL_CIK0001341439_submissions.json").write_text(
        json.dumps(ORACLE_SUBMISSIONS)
    )
    return folder


def _graph_counts(data_root: Path) -> dict[str, object]:
    reader = SnapshotReader(data_root)
    try:
        with reader.lease() as snap:
            edges = snap.query("SELECT relation, count(*) AS n FROM edges GROUP BY relation")
            return {
                "registrants": snap.query("SELECT count(*) AS n FROM registrants")[0]["n"],
                "companies": snap.query(
                    "SELECT count(*) AS n FROM nodes WHERE entity_type = 'company'"
                )[0]["n"],
                "edges": {r["relation"]: r["n"] for r in edges},
                "oracle_sic": snap.query("SELECT sic FROM companies WHERE cik = '0001341439'")[0][
                    "sic"
                ],
            }
    finally:
        reader.close()


@pytest.mark.slow
def test_readme_commands_without_filings_corpus_keep_the_graph_whole(corpus_dir, tmp_path):
    """`ingest --corpus DIR`, then as the README writes them in a shell without FILINGS_CORPUS:
    `ingest --corpus <inbox without reference/>`, `entities merge` / `unmerge`, `remove`. Each
    publishes (exit 0) and keeps the registrants, the companies resolved by SEC's names (Pfizer,
    Bristol-Myers named in a 10-K) and Oracle's SIC code."""
    data = tmp_path / "data"
    corpus = _small_corpus(
        corpus_dir,
        tmp_path / "corpus",
        ["filings/CIK0000859368/10-K/0000950153-99-001234.htm", "filings/ORCL/8-K/Oracle.8-K.htm"],
    )
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "form8K.Blackrock.htm").write_bytes(
        (corpus_dir / "filings/BLK/8-K/form8K.Blackrock.htm").read_bytes()
    )

    def cli(*args: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "pipelines.cli", "--data", str(data), *args],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=400,
        )
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout

    cli("ingest", "--corpus", str(corpus), "--serial")
    first = _graph_counts(data)
    assert first["registrants"] > 9000 and first["oracle_sic"] == "7372"
    assert first["companies"] >= 4  # the two filers and the competitors SEC's names resolve
    outside = _outside_digest(tmp_path, data)

    cli("ingest", "--corpus", str(inbox), "--serial")
    grown = _graph_counts(data)
    assert grown["registrants"] == first["registrants"] and grown["oracle_sic"] == "7372"
    assert grown["companies"] == first["companies"] + 1  # BlackRock, the new filer
    assert all(grown["edges"].get(r, 0) >= n for r, n in first["edges"].items())

    reader = SnapshotReader(data)
    with reader.lease() as snap:
        orgs = [
            r["entity_id"]
            for r in snap.query(
                "SELECT entity_id FROM nodes WHERE entity_type = 'organization' ORDER BY "
                "entity_id LIMIT 2"
            )
        ]
    reader.close()
    cli("entities", "merge", orgs[0], orgs[1], "--reason", "test")
    merged = _graph_counts(data)
    assert (merged["registrants"], merged["companies"], merged["oracle_sic"]) == (
        grown["registrants"],
        grown["companies"],
        "7372",
    )
    cli("entities", "unmerge", "1")
    assert _graph_counts(data) == grown

    [blackrock] = set(FilingCatalog(data).ids()) - {
        r.filing_id for r in LocalFolderSource(corpus).discover()
    }
    cli("remove", blackrock)
    assert _graph_counts(data) == first
    assert _outside_digest(tmp_path, data) == outside


# =============================================================================================
# --- issue 21, xbrl: a value that is not a number is never stored, and never served ---
# =============================================================================================
# Inline-XBRL facts with scale 400 / -400 or the text NaN / Infinity were stored as +inf, 0.0,
# nan and ±inf without a word, and one such filing broke screen_companies for every company.
_IX_NS = (
    'xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL" '
    'xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12" '
    'xmlns:xbrli="http://www.xbrl.org/2003/instance" '
    'xmlns:iso4217="http://www.xbrl.org/2003/iso4217" '
    'xmlns:link="http://www.xbrl.org/2003/linkbase" xmlns:xlink="http://www.w3.org/1999/xlink" '
    'xmlns:us-gaap="http://fasb.org/us-gaap/2024" xmlns:dei="http://xbrl.sec.gov/dei/2024"'
)


def _ix_context(cid: str, start: str, end: str) -> str:
    return (
        f'<xbrli:context id="{cid}"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">'
        "0000000042</xbrli:identifier></xbrli:entity><xbrli:period>"
        f"<xbrli:startDate>{start}</xbrli:startDate><xbrli:endDate>{end}</xbrli:endDate>"
        "</xbrli:period></xbrli:context>"
    )


def _hostile_10k(rows: list[tuple[str, str, str, str, str]]) -> str:
    """A small inline-XBRL 10-K of CIK 42 for fiscal 2024; rows: (id, concept, context, text,
    extra attributes) of income-statement lines."""
    hidden = "".join(
        f'<ix:nonNumeric id="h{i}" name="dei:{name}" contextRef="FY2024">{text}</ix:nonNumeric>'
        for i, (name, text) in enumerate(
            [
                ("DocumentType", "10-K"),
                ("CurrentFiscalYearEndDate", "--12-31"),
                ("DocumentPeriodEndDate", "2024-12-31"),
                ("DocumentFiscalYearFocus", "2024"),
                ("DocumentFiscalPeriodFocus", "FY"),
                ("EntityCentralIndexKey", "0000000042"),
            ]
        )
    )
    lines = "".join(
        f'<tr><td>{concept.split(":")[1]}</td><td><ix:nonFraction id="{fid}" name="{concept}" '
        f'contextRef="{ctx}" unitRef="usd" decimals="-6" {extra}>{text}</ix:nonFraction></td></tr>'
        for fid, concept, ctx, text, extra in rows
    )
    return (
        f'<?xml version="1.0" encoding="utf-8"?><html {_IX_NS}><head><title>Hostile '
        "10-K</title></head>"
        f'<body><div style="display:none"><ix:header><ix:hidden>{hidden}</ix:hidden>'
        '<ix:references><link:schemaRef xlink:type="simple" '
        'xlink:href="h-20241231.xsd"/></ix:references>'
        f"<ix:resources>{_ix_context('FY2024', '2024-01-01', '2024-12-31')}"
        f"{_ix_context('FY2023', '2023-01-01', '2023-12-31')}"
        '<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>'
        "</ix:resources></ix:header></div><p>CONSOLIDATED STATEMENTS OF OPERATIONS (in "
        "millions)</p>"
        f"<table>{lines}</table></body></html>"
    )


# (inline id, concept, context, displayed text, attributes): each is broken in its own way; the
# prior year's revenue is sound and must still land.
HOSTILE_FACTS = [
    ("f-scale-up", "us-gaap:Revenues", "FY2024", "1", 'scale="400"'),
    ("f-scale-down", "us-gaap:NetIncomeLoss", "FY2024", "1", 'scale="-400"'),
    ("f-nan", "us-gaap:CostOfRevenue", "FY2024", "NaN", ""),
    ("f-inf", "us-gaap:OperatingIncomeLoss", "FY2024", "Infinity", ""),
    ("f-neg-inf", "us-gaap:GrossProfit", "FY2024", "-Infinity", ""),
    ("f-sound", "us-gaap:Revenues", "FY2023", "120", 'scale="6"'),
]


def _finite_column(frame, column: str) -> bool:
    import math

    return all(v is None or math.isfinite(v) for v in frame.get_column(column).to_list())


def test_facts_that_are_not_finite_numbers_are_skipped_with_a_warning():
    import polars as pl

    from graphrag_core.xbrl.arelle_loader import XbrlDocument
    from graphrag_core.xbrl.facts import extract_facts
    from graphrag_core.xbrl.metrics import FilingInfo
    from graphrag_core.xbrl.releases import observations_for_filing

    doc = _hostile_10k(HOSTILE_FACTS)
    result = extract_facts(
        [XbrlDocument("hostile-10k.htm", doc.encode(), None)], "0000000042-25-000001", "42"
    )
    assert result.skipped["scale_out_of_range"] == 2 and result.skipped["non_finite_value"] == 3
    assert result.metadata()["skipped_non_finite_value"] == 3
    # Each skipped fact is named by file, concept, inline id and context, with the fix.
    warnings = " ".join(result.warnings)
    for fid, concept, ctx, _, _ in HOSTILE_FACTS[:5]:
        assert re.search(
            rf"hostile-10k\.htm: {re.escape(concept)} \(id={fid}, line \d+\) contextRef='{ctx}'",
            warnings,
        ), fid
    assert "scale='400'" in warnings and "scale='-400'" in warnings and "text='NaN'" in warnings
    assert all("Fix:" in w for w in result.warnings if "skipped" in w)

    numeric = result.facts.filter(pl.col("is_numeric"))
    assert _finite_column(result.facts, "value")
    assert numeric.select("concept", "value").rows() == [("us-gaap:Revenues", 120_000_000.0)]

    # Nothing that is not a finite number reaches metric_observations either.
    info = FilingInfo.from_facts(result.facts, "0000000042-25-000001")
    metrics = observations_for_filing(result.facts, None, info)
    assert _finite_column(metrics.observations, "value")
    assert metrics.observations.select("metric", "fiscal_label", "value").rows() == [
        ("revenue", "FY2023", 120_000_000.0)
    ]


def test_a_scale_filers_use_is_read_and_one_beyond_it_is_not():
    from graphrag_core.common.numbers import SCALE_MAX, SCALE_MIN, finite_float, xbrl_scale

    assert [
        xbrl_scale(s) for s in (None, "", "6", " -2 ", "12", str(SCALE_MIN), str(SCALE_MAX))
    ] == [0, 0, 6, -2, 12, SCALE_MIN, SCALE_MAX]
    assert [
        xbrl_scale(s) for s in ("400", "-400", str(SCALE_MAX + 1), str(SCALE_MIN - 1), "1e3", "six")
    ] == [None] * 6
    assert [
        finite_float(v)
        for v in ("NaN", "Infinity", "-inf", "9" * 400, "1e-400", float("nan"), None, "n/a")
    ] == [None] * 8
    assert [finite_float(v) for v in ("0", "1,024", "-0.42", 7, 1e308)] == [
        0.0,
        1024.0,
        -0.42,
        7.0,
        1e308,
    ]


def test_release_figures_that_are_not_finite_are_skipped_with_a_warning():
    from tests.test_releases import INCOME, chunk, release

    huge = "9" * 400  # a number in a release's text that no float holds
    table = INCOME.replace("$293,618", f"${huge}")
    prose = f"Net income for the third quarter of fiscal 2024 was ${huge} million."
    out = release(
        chunk(prose, "prose", ordinal=0),
        chunk(table, scale="amounts in thousands except per share amounts", ordinal=1),
    )
    assert _finite_column(out.observations, "value")
    assert out.skipped["non_finite_value"] == 2
    bad = [w for w in out.warnings if "not a finite number" in w]
    assert any("acme-8k:table1" in w and "SALES" in w and "revenue" in w for w in bad)
    assert any("acme-8k:prose0" in w and "net_income" in w for w in bad)
    # The rest of the table still lands.
    assert {"gross_profit", "net_income"} <= set(out.observations["metric"])


def test_companyfacts_values_that_are_not_numbers_are_skipped_and_named():
    from graphrag_core.xbrl.companyfacts import read_companyfacts

    entries = [
        {
            "end": "2024-12-31",
            "start": "2024-01-01",
            "val": v,
            "accn": "0000000042-25-000001",
            "form": "10-K",
            "fy": 2024,
            "fp": "FY",
        }
        for v in (float("nan"), float("inf"), "x", 5)
    ]
    payload = json.loads(
        json.dumps({"cik": 42, "facts": {"us-gaap": {"Revenues": {"units": {"USD": entries}}}}})
    )
    skipped: list[str] = []
    frame = read_companyfacts(payload, skipped)
    assert frame.get_column("value").to_list() == [5.0]
    assert len(skipped) == 3 and all(
        "us-gaap:Revenues USD" in s and "0000000042-25-000001" in s for s in skipped
    )


def test_older_partitions_and_derivations_holding_non_finite_values_are_left_out(caplog):
    import polars as pl

    from graphrag_core.xbrl.supersession import link_observations

    metrics = sample.sample_tables().metric_observations
    poisoned = metrics.with_columns(
        value=pl.when(
            (pl.col("cik") == sample.NVDA)
            & (pl.col("metric") == "revenue")
            & (pl.col("fiscal_label") == "FY2025")
        )
        .then(float("nan"))
        .otherwise(pl.col("value"))
    )
    with caplog.at_level(logging.WARNING, logger="graphrag_core.xbrl.supersession"):
        linked = link_observations(poisoned)
    assert _finite_column(linked, "value") and linked.height == metrics.height - 1
    assert any(
        sample.NVDA_10K in r.getMessage() and "revenue FY2025" in r.getMessage()
        for r in caplog.records
    )


# Values an older snapshot may hold: written straight into the published tables.
POISON = {
    (sample.NVDA, "revenue", "FY2025", None): float("nan"),
    (sample.NVDA, "net_income", "FY2024", None): float("inf"),  # the year-ago value of FY2025's
    (sample.NVDA, "operating_income", "Q2-FY2025", None): float("inf"),  # Q2-FY2026's year-ago
    (sample.GOOGL, "operating_income", "FY2024", None): float("-inf"),
    (sample.AAPL, "net_income", "FY2023", None): float("nan"),
    (sample.RSTD, "revenue", "FY2023", sample.RSTD_10K_23): float("nan"),  # a superseded value
}


def _poisoned_tables():
    from dataclasses import replace as _replace

    import polars as pl

    tables = sample.sample_tables()
    value = pl.col("value")
    for (cik, metric, label, filing), bad in POISON.items():
        hit = (
            (pl.col("cik") == cik)
            & (pl.col("metric") == metric)
            & (pl.col("fiscal_label") == label)
        )
        if filing:
            hit = hit & (pl.col("filing_id") == filing)
        value = pl.when(hit).then(pl.lit(bad)).otherwise(value)
    metrics = tables.metric_observations.with_columns(value=value)
    edge_hit = (pl.col("subject_id") == f"CIK-{sample.NVDA}") & (
        pl.col("relation") == "REPORTS_METRIC"
    )
    edges = tables.edges.with_columns(
        value=pl.when(edge_hit).then(float("nan")).otherwise(pl.col("value"))
    )
    return _replace(tables, metric_observations=metrics, edges=edges)


def _strict_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise AssertionError(f"{constant} in a tool's JSON")

    return json.loads(text, parse_constant=refuse)


def _tree_digest(root: Path) -> dict[str, str]:
    """Every file and folder under `root` (links not followed, each file with its sha256): what
    must not change."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            out[str(path.relative_to(root))] = f"-> {os.readlink(path)}"
        elif path.is_file():
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            out[str(path.relative_to(root))] = "folder"
    return out


async def test_tools_serve_a_non_finite_stored_value_as_missing(data_root):
    from tests.mcp_client import session

    sentinel = data_root.parent / "sentinel"
    (sentinel / "keep").mkdir(parents=True)
    (sentinel / "keep" / "a.parquet").write_bytes(b"not yours")
    SnapshotStore(data_root).publish(_poisoned_tables())
    before = _tree_digest(sentinel), _tree_digest(data_root)

    async def ok(client, tool: str, **args) -> dict:
        result = await client.call_tool(tool, args)
        assert not result.is_error, f"{tool} {args}: {result.content[0].text}"
        _strict_json(result.content[0].text)
        _strict_json(json.dumps(result.structured_content, allow_nan=False))
        return result.structured_content

    companies = ["NVDA", "GOOGL", "AAPL", f"CIK-{sample.RSTD}"]
    async with session(data_root) as client:
        await ok(
            client, "get_metrics", company_id="NVDA", period_type="quarter", periods=8
        )  # the one with quarters
        for company in companies:
            await ok(client, "get_metrics", company_id=company, periods=8)
            await ok(client, "explore_company", company_id=company)
            await ok(client, "neighbors", entity_id=company, relation="REPORTS_METRIC", limit=50)
        for period_kind in ("annual", "quarter"):
            for margin in ("gross", "operating", "net"):
                for sort_by in ("revenue_growth", "revenue", "margin_trend", "debt_to_equity"):
                    await ok(
                        client,
                        "screen_companies",
                        period_type=period_kind,
                        margin=margin,
                        sort_by=sort_by,
                    )
        for period in (None, "2024", "2023"):
            await ok(
                client,
                "compare_companies",
                company_ids=companies,
                metrics=["revenue", "operating_income", "net_income"],
                **({"period": period} if period else {}),
            )

        # NVIDIA's FY2025 revenue is missing: its latest annual revenue is FY2024's.
        nvda = await ok(
            client, "get_metrics", company_id="NVDA", metrics=["revenue", "net_income"], periods=3
        )
        series = {s["metric"]: s["values"] for s in nvda["series"]}
        assert [v["fiscal_label"] for v in series["revenue"]] == ["FY2024", "FY2023"]
        # FY2024 net income is missing, so FY2025's year-ago value and growth are too.
        fy25 = next(v for v in series["net_income"] if v["fiscal_label"] == "FY2025")
        assert fy25["prior_value"] is None and fy25["yoy_change_pct"] is None
        assert "FY2024" not in [v["fiscal_label"] for v in series["net_income"]]
        quarter = await ok(
            client,
            "get_metrics",
            company_id="NVDA",
            metrics=["operating_income"],
            period_type="quarter",
        )
        q2 = next(v for v in quarter["series"][0]["values"] if v["fiscal_label"] == "Q2-FY2026")
        assert q2["prior_value"] is None and q2["yoy_change_pct"] is None

        explore = await ok(client, "explore_company", company_id="NVDA")
        [revenue] = [m for m in explore["key_metrics"] if m["metric"] == "revenue"]
        assert revenue["latest_annual"]["fiscal_label"] == "FY2024"

        # The screen: NVIDIA has no usable latest annual revenue, so it is not screened on it;
        # Alphabet's operating margin is missing, not NaN; the other companies are unaffected.
        screen = await ok(client, "screen_companies", margin="operating", limit=10)
        hits = {h["company_id"]: h for h in screen["hits"]}
        assert f"CIK-{sample.NVDA}" not in hits
        googl = hits[f"CIK-{sample.GOOGL}"]
        assert googl["margin_pct"] is None and googl["margin_trend_pp"] is None
        assert googl["revenue_growth_pct"] is not None
        assert hits[f"CIK-{sample.AAPL}"]["margin_pct"] is not None

        # Restated Widgets' superseded FY2023 revenue is NaN: the current value stands alone.
        rstd = await ok(
            client, "get_metrics", company_id=f"CIK-{sample.RSTD}", metrics=["revenue"], periods=2
        )
        fy23 = next(v for v in rstd["series"][0]["values"] if v["fiscal_label"] == "FY2023")
        assert fy23["value"] == 950_000_000 and fy23["superseded"] == []

        compare = await ok(
            client,
            "compare_companies",
            company_ids=["NVDA", "GOOGL"],
            period="2024",
            metrics=["revenue", "operating_income"],
        )
        rows = {c["company_id"]: c for c in compare["companies"]}
        assert "revenue" in rows[f"CIK-{sample.NVDA}"]["missing"]
        assert "operating_income" in rows[f"CIK-{sample.GOOGL}"]["missing"]

        edges = await ok(client, "neighbors", entity_id="NVDA", relation="REPORTS_METRIC", limit=50)
        assert edges["edges"] and all(e["value"] is None for e in edges["edges"])
    assert (_tree_digest(sentinel), _tree_digest(data_root)) == before


def test_display_value_of_a_non_finite_number_is_missing():
    from mcp_server.formatting import display_value

    assert [display_value(v, "USD") for v in (float("nan"), float("inf"), float("-inf"), None)] == [
        "missing"
    ] * 4
    assert display_value(130_497_000_000, "USD") == "130,497 million USD"


def test_unresolved_entities_and_a_doctype_subset_never_reach_the_text():
    """Weak row: 'Xxe &c; Corp' and a chunk starting ']>' were published as text. The internal
    subset is dropped (never expanded: the XXE and billion-laughs defences stay as they were),
    undefined entity references are removed with a warning, HTML's own entities still read."""
    doc = (
        '<?xml version="1.0"?>\n<!DOCTYPE html [\n<!ENTITY c "Corp]>">\n'
        '<!ENTITY xxe SYSTEM "file:///etc/passwd">\n'
        '<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n]>\n'
        "<html><body><p>Xxe &c; Corp announced &xxe; results &lol2;.</p><p>Item 1. Business</p>"
        "<p>We make things &amp; more &#169; &hellip; &bigstar;</p></body></html>"
    )
    parsed = parse_markup(doc, True)
    assert parsed.text.startswith("Xxe Corp announced results")
    assert "]>" not in parsed.text and "&" not in parsed.text.replace("things & more", "")
    assert "root:" not in parsed.text and "lol" not in parsed.text
    assert "things & more © … ★" in parsed.text
    assert any("internal subset" in w for w in parsed.warnings)
    assert any("&c;" in w and "&xxe;" in w and "&lol2;" in w for w in parsed.warnings)
    # A plain document keeps its ampersands and HTML entities as they were.
    plain = parse_markup(
        "<html><body><p>AT&amp;T and Procter &amp; Gamble &nbsp;&mdash; Q&A</p></body></html>", True
    )
    assert "AT&T and Procter & Gamble" in plain.text and plain.text.endswith("— Q&A")
    assert plain.warnings == []


# --- issue 21, mcp: evidence numbers per HTTP client, tokens, snapshot folders, LATEST, index path
# ---
@pytest.fixture
def sentinel(tmp_path) -> Iterator[Path]:
    """A tree beside the data root that no test may change (checked when the test ends)."""
    tree = tmp_path / "outside"
    (tree / "sub").mkdir(parents=True)
    (tree / "secret.txt").write_text(
        "the first sixty characters of this file must never be served\n"
    )
    (tree / "sub" / "table.parquet").write_bytes(b"PAR1 not really")
    before = _tree_digest(tree)
    yield tree
    assert _tree_digest(tree) == before


def _rpc(
    http: httpx2.Client,
    url: str,
    method: str,
    params: dict,
    *,
    version: str | None,
    session: str | None = None,
    request_id: int | None = 1,
) -> httpx2.Response:
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
        init = _rpc(
            self.http,
            url,
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": f"hostile-{version}", "version": "0"},
            },
            version=None,
        )
        assert init.status_code == 200, init.text
        assert init.json()["result"]["protocolVersion"] == version
        self.session = init.headers["mcp-session-id"]
        self.http.cookies.clear()
        done = _rpc(
            self.http,
            url,
            "notifications/initialized",
            {},
            version=version,
            session=self.session,
            request_id=None,
        )
        assert done.status_code == 202

    def tool(self, name: str, **args) -> dict:
        self.calls += 1
        response = _rpc(
            self.http,
            self.url,
            "tools/call",
            {"name": name, "arguments": args},
            version=self.version,
            session=self.session,
            request_id=self.calls,
        )
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
            report = one.tool(
                "check_citations",
                answer=f"NVIDIA's revenue was $130.5 billion in fiscal 2025 [{n}].",
            )
            assert report["ok"] is True and report["evidence_known"] == 2, report
            # Another session (same version, same server) has numbers of its own.
            other = two.tool(
                "check_citations",
                answer=f"NVIDIA's revenue was $130.5 billion in fiscal 2025 [{n}].",
            )
            assert other["evidence_known"] == 0 and [
                u["citation"] for u in other["unresolved"]
            ] == [str(n)]
            assert (
                _first_evidence(
                    two.tool("get_metrics", company_id="NVDA", metrics=["total_debt"], periods=1)
                )
                == 1
            )
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
            assert one.protocol_version in (
                MODERN_PROTOCOL_VERSIONS if mode == "auto" else HANDSHAKE_PROTOCOL_VERSIONS
            )
            first = await one.call_tool(
                "get_metrics", {"company_id": "NVDA", "metrics": ["revenue"], "periods": 1}
            )
            n = _first_evidence(first.structured_content)
            second = await one.call_tool(
                "get_metrics", {"company_id": "NVDA", "metrics": ["total_debt"], "periods": 1}
            )
            assert (n, _first_evidence(second.structured_content)) == (1, 2)
            report = await one.call_tool(
                "check_citations",
                {"answer": f"NVIDIA's revenue was $130.5 billion in fiscal 2025 [{n}]."},
            )
            assert report.structured_content["ok"] is True
            assert report.structured_content["evidence_known"] == 2
            other = await two.call_tool(
                "check_citations",
                {"answer": f"NVIDIA's revenue was $130.5 billion in fiscal 2025 [{n}]."},
            )
            assert other.structured_content["evidence_known"] == 0


def test_per_request_clients_without_an_id_never_share_numbers(published):
    """A client of the per-request protocol that keeps no cookie is not known again: its
    answers number from 1 each time, and never continue another client's numbers."""
    with http_server(published) as (base, _proc):
        url = f"{base}/mcp"
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSIONS[-1],
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        }
        numbers = []
        with httpx2.Client(timeout=30) as http:
            for metric in ("revenue", "total_debt", "revenue"):
                response = _rpc(
                    http,
                    url,
                    "tools/call",
                    {
                        "name": "get_metrics",
                        "_meta": meta,
                        "arguments": {"company_id": "NVDA", "metrics": [metric], "periods": 1},
                    },
                    version=MODERN_PROTOCOL_VERSIONS[-1],
                )
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


@pytest.mark.parametrize(
    ("token", "why"),
    [
        (" " * 32, "holds characters a bearer token may not (space"),
        (" " + TOKEN, "holds characters a bearer token may not (space"),
        (TOKEN + " ", "holds characters a bearer token may not (space"),
        (TOKEN[:20] + "\t" + TOKEN[20:], "holds characters a bearer token may not ('\\t'"),
        ("a" * 32, "has only 1 distinct characters"),
        ("abcdefgh" * 4, "is a shorter string repeated"),
    ],
)
def test_tokens_no_request_could_send_or_anyone_could_guess_are_refused(
    published, sentinel, token, why
):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_server",
            "--data-root",
            str(published),
            "--http",
            "--host",
            "0.0.0.0",
            "--port",
            str(free_port()),
        ],
        cwd=ROOT,
        env=_env(GRAPHRAG_MCP_TOKEN=token),
        capture_output=True,
        text=True,
        timeout=30,
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
    link = {
        "secret": sentinel / "secret.txt",
        "version-folder-file": layout.version_dir(store.root, version) / layout.MANIFEST_FILE,
        "dangling": sentinel / "missing",
    }[target]
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
    with (
        pytest.raises(SnapshotUnavailable, match="names no snapshot version") as failed,
        reader.lease(),
    ):
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
    update = update_index(
        original, tables.chunks, tables.filings, shared_embedder(settings), settings
    )
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
    update = update_index(
        original, tables.chunks, tables.filings, shared_embedder(settings), settings
    )
    absolute = update.ref.model_copy(
        update={"path": str((original / settings.index_dir).resolve())}
    )
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    shutil.rmtree(original)
    assert ChunkIndexRef.location(absolute, copy) == (copy / settings.index_dir).resolve()
    assert absolute.relative_to(copy) == absolute  # outside this root: kept as recorded
    escaping = update.ref.model_copy(update={"path": "../../outside"})
    with pytest.raises(ValueError, match="leads outside the data root"):
        escaping.location(copy)


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
        self.records[path] = {
            **record,
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
        }
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
        inbox.put(
            path,
            (corpus_dir / path).read_bytes(),
            **{k: v for k, v in manifest[path].items() if k not in {"sha256", "bytes", "path"}},
        )
    good = {manifest[p]["accession"] for p in _GOOD_8KS}
    bcow = (corpus_dir / _GOOD_8KS[0]).read_text(encoding="utf-8")
    without_contexts = re.sub(r"<xbrli:context\b.*?</xbrli:context>", "", bcow, flags=re.S)
    assert without_contexts != bcow and "<ix:nonNumeric" in without_contexts
    made_up = {
        "cik": "0000943374",
        "company_name": "Bad Corp",
        "period_end": "2024-12-31",
        "filed_date": "2025-02-01",
    }
    inbox.put(
        "bad/exhibit.htm",
        without_contexts.encode(),
        form="8-K",
        document_type="8-K",
        accession=_NO_CONTEXT,
        **made_up,
    )
    inbox.put(
        "bad/letter.htm",
        b"<html><body><p>FORM 10-K</p><p>To our shareholders: it was a "
        b"good year.</p></body></html>",
        form="10-K",
        document_type="10-K",
        accession=_NO_ITEMS,
        **made_up,
    )
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
    assert (
        "LEFT OUT of the snapshot: 3 filing(s) failed their own checks; the other 2 publish" in out
    )
    assert f"filing {_NO_ITEMS}: blocking check section_chunks/annual_report_items failed" in out

    # The fixes carried out. The letter taken out with `filings-graph remove` (and out of the
    # folder): the next snapshot no longer names it.
    inbox.drop("bad/letter.htm")
    assert main(["--data", str(data), "remove", _NO_ITEMS]) == 0
    assert "LEFT OUT of the snapshot: 2 filing(s)" in capsys.readouterr().out
    filings, _, excluded = _snapshot_filings(data)
    assert filings == good and sorted(e.filing_id for e in excluded) == sorted(
        [_NO_CONTEXT, _EMPTY]
    )
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
    ids = [
        "0000000001-25-000001",
        "0000000001-25-000002",
        "0000000001-25-000003",
        "sha-0123456789abcdef",
        "0000000001-25-000005",
    ]
    for fid in ids:
        for table in SNAPSHOT_INPUTS:
            store.write(table, frame([{"filing_id": fid}], SCHEMAS[table]), fid)
    record_checks(
        store,
        ids[0],
        "section_chunks",
        [
            CheckVerdict(
                asset="section_chunks",
                check="annual_report_items",
                passed=False,
                blocking=True,
                figures={"missing": ["10-K/Item 7"]},
            )
        ],
    )
    record_checks(
        store,
        ids[1],
        "validated_triples",
        [
            CheckVerdict(
                asset="validated_triples",
                check="rejection_rate",
                passed=False,
                blocking=True,
                figures={"rejection_rate": 0.9},
            )
        ],
    )
    record_checks(
        store,
        ids[2],
        "metric_observations",
        [
            CheckVerdict(
                asset="metric_observations",
                check="companyfacts_agree",
                passed=False,
                blocking=False,
            )
        ],
    )
    store.delete_partition("metric_observations", ids[3])
    excluded = corpus_exclusions(
        store, SNAPSHOT_INPUTS, {ids[4]: "section_chunks: parser lost text"}
    )
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
    assert (
        f"filings-graph remove {fid}" in message
        and f"filings-graph ingest --filing {fid}" in message
    )
