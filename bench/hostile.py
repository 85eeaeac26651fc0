"""Hostile and careless use, measured: what each fault costs the server and the pipeline.

Everything runs against real processes on loopback, black-box (a server is `python -m
mcp_server`, an ingest is `python -m pipelines.cli`), so the same script measures any checkout:
run it from an older one to see the figures before a fix.

1. HTTP: a flood of `initialize` calls nobody follows up: sessions opened, server memory
   (RSS) before and after, and whether a new client still gets in.
2. HTTP: slow clients (headers or body never finished, or nothing sent): how many
   connections the server closes, and after how long.
3. stdio: malformed lines: how many get an answer.
4. Snapshot faults while clients call: an unreadable LATEST (invalid UTF-8, a directory, a
   name that is no version), a same-size corruption of the served file: calls, errors, log
   lines and tracebacks in the server's log per fault; and servers started on a garbage
   LATEST or on a damaged snapshot.
5. Snapshot swaps under 16 concurrent clients: calls, errors, mixed answers.
6. A folder corpus with a duplicate file and an empty one, ingested three times (a copy added
   before the third): exit status, stack traces and error lines on the console, partitions run.
7. Markup: words kept from 400 unclosed <font> tags and from text nested 400 deep.
8. Issue 21, replayed: every broken and weak row of that review, each `held`, `broken` or
   `weak` with the figure that decides it, on copies of one small data root ingested from real
   corpus filings (FILINGS_CORPUS, default /work/shared/corpus), then a tally. A sentinel tree
   outside the work folder and the checkout's `git status` are compared before and after.

    python bench/hostile.py [--flood 10000] [--skip-ingest] [--only issue21] [--small]

`--small`: sections 1-5 and 7 with a few calls, clients and connections each (for the test
suite); the ingests of sections 6 and 8 (minutes of CLI runs) are left out.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this folder comes first on sys.path and bench/mcp.py would shadow the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import httpx2
from mcp import Client

from graphrag_core.store import layout
from graphrag_core.store.publish import SnapshotStore
from tests import snapshot_sample as sample
from tests.services import mcp_http_server

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
EIGHT_K = (
    "<html><body><p>FORM 8-K</p><p>Item 8.01 Other Events</p><p>Northwind Traders announced a "
    "new distribution center in Ohio.</p></body></html>"
)


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"GRAPHRAG_MCP_TOKEN", "GRAPHRAG_MCP_READ_TIMEOUT_S", "FILINGS_CORPUS"}
    }
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextmanager
def server(data_root: Path, log: Path, **env: str) -> Iterator[tuple[str, subprocess.Popen]]:
    with (
        open(log, "w") as errlog,
        mcp_http_server(data_root, _env(**env), stderr=errlog) as running,
    ):
        yield running


def call_status(url: str) -> tuple[bool, dict | str]:
    async def go() -> tuple[bool, dict | str]:
        async with Client(url) as client:
            result = await client.call_tool("status", {})
            return (
                not result.is_error,
                result.structured_content if not result.is_error else result.content[0].text,
            )

    try:
        return asyncio.run(go())
    except Exception as exc:  # noqa: BLE001 - a figure, not a failure
        return False, f"{type(exc).__name__}: {exc}"


# -- 1. initialize flood ------------------------------------------------------------------
def flood(data_root: Path, work: Path, calls: int) -> None:
    print(f"\n1. HTTP: {calls:,} `initialize` calls nobody follows up (4 client threads)")
    with server(data_root, work / "flood.log") as (base, proc):
        url = f"{base}/mcp"
        call_status(url)  # warm: the snapshot is open, the tools are built
        before = rss_mb(proc.pid)
        statuses: Counter[int] = Counter()
        sessions = 0
        lock = threading.Lock()

        def worker(n: int) -> None:
            nonlocal sessions
            local: Counter[int] = Counter()
            opened = 0
            with httpx2.Client(timeout=30) as http:
                for _ in range(n):
                    response = http.post(url, json=INIT, headers=ACCEPT)
                    local[response.status_code] += 1
                    opened += "mcp-session-id" in response.headers
            with lock:
                statuses.update(local)
                sessions += opened

        started = time.perf_counter()
        threads = [threading.Thread(target=worker, args=(calls // 4,)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - started
        after = rss_mb(proc.pid)
        with httpx2.Client(timeout=30) as http:
            fresh = http.post(url, json=INIT, headers=ACCEPT)
        ok, answer = call_status(url)
        print(
            f"   {sum(statuses.values()):,} calls in {seconds:.1f}s: HTTP statuses "
            f"{dict(sorted(statuses.items()))}; sessions opened {sessions:,}"
        )
        print(
            f"   server RSS {before:.0f} MB before -> {after:.0f} MB after "
            f"({after - before:+.0f} MB)"
        )
        print(
            f"   a new client after the flood: initialize HTTP {fresh.status_code}; "
            f"status tool {'ok' if ok else 'FAILED: ' + str(answer)[:120]}"
        )


# -- 2. slow clients ------------------------------------------------------------------------
def slow_clients(data_root: Path, work: Path, per_kind: int, timeout_s: float) -> None:
    print(
        f"\n2. HTTP: slow clients, {per_kind} of each kind (GRAPHRAG_MCP_READ_TIMEOUT_S="
        f"{timeout_s:g}; watched for {timeout_s + 8:g}s)"
    )
    with server(data_root, work / "slow.log", GRAPHRAG_MCP_READ_TIMEOUT_S=str(timeout_s)) as (
        base,
        _proc,
    ):
        port = int(base.rsplit(":", 1)[1])
        body = json.dumps(INIT).encode()
        kinds = {
            "headers never finished": (
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-A: "
            ).encode(),
            "nothing sent": b"",
            "body never finished": (
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json"
                f"\r\nAccept: application/json, text/event-stream\r\nContent-Length: {len(body)}"
                "\r\n\r\n"
            ).encode()
            + body[:10],
        }
        socks: list[tuple[str, socket.socket, float]] = []
        for kind, opening in kinds.items():
            for _ in range(per_kind):
                sock = socket.create_connection(("127.0.0.1", port))
                if opening:
                    sock.sendall(opening)
                sock.setblocking(False)
                socks.append((kind, sock, time.monotonic()))
        closed_after: dict[str, list[float]] = {k: [] for k in kinds}
        deadline = time.monotonic() + timeout_s + 8
        pending = list(socks)
        while pending and time.monotonic() < deadline:
            still = []
            for kind, sock, opened in pending:
                try:
                    data = sock.recv(4096)
                except BlockingIOError:
                    still.append((kind, sock, opened))
                    continue
                except OSError:
                    data = b""
                if data:
                    still.append((kind, sock, opened))
                    continue
                closed_after[kind].append(time.monotonic() - opened)
            pending = still
            time.sleep(0.05)
        for _, sock, _ in socks:
            sock.close()
        for kind, times in closed_after.items():
            longest = f", after {max(times):.1f}s at most" if times else ""
            print(f"   {kind:<24} {len(times)}/{per_kind} closed by the server{longest}")
        with httpx2.Client(timeout=10) as http:
            code = http.post(f"{base}/mcp", json=INIT, headers=ACCEPT).status_code
        print(f"   a normal request meanwhile: HTTP {code}")


# -- 3. stdio -----------------------------------------------------------------------------
def stdio_lines(data_root: Path, count: int) -> None:
    print(f"\n3. stdio: {count} malformed lines, then one ping")
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_server", "--data-root", str(data_root)],
        cwd=ROOT,
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    replies: list[dict] = []

    def read() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            try:
                replies.append(json.loads(raw))
            except ValueError:
                replies.append({"unparseable": raw[:80].decode(errors="replace")})

    threading.Thread(target=read, daemon=True).start()
    bad = [b"not json at all", b'{"id": 3, "method": 7}', b"[1, 2, 3]", b'{"jsonrpc": "2.0"']
    assert proc.stdin is not None
    for i in range(count):
        proc.stdin.write(bad[i % len(bad)] + b"\n")
    proc.stdin.write(
        json.dumps({"jsonrpc": "2.0", "id": "last", "method": "ping"}).encode() + b"\n"
    )
    proc.stdin.flush()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not any(r.get("id") == "last" for r in replies):
        time.sleep(0.05)
    proc.stdin.close()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
    codes = Counter(r["error"]["code"] for r in replies if "error" in r)
    print(
        f"   {sum(codes.values())}/{count} malformed lines answered {dict(codes)}; ping "
        f"{'answered' if any(r.get('id') == 'last' for r in replies) else 'NOT answered'}"
    )


# -- 4. snapshot faults -------------------------------------------------------------------
def _corrupt_same_size(path: Path) -> None:
    """Flip the second half of the file: DuckDB still opens it, table reads fail."""
    size = path.stat().st_size
    offset = size // 2 // 4096 * 4096
    with open(path, "r+b") as fh:
        fh.seek(offset)
        data = fh.read(size - offset - 4096)
        fh.seek(offset)
        fh.write(bytes(b ^ 0x5A for b in data))


def _log_figures(log: Path, start: int) -> tuple[int, int, int]:
    text = log.read_text(errors="replace")[start:]
    errors = sum(1 for line in text.splitlines() if " ERROR " in line)
    return errors, text.count("Traceback (most recent call last)"), len(text.encode())


def snapshot_faults(work: Path, seconds: float, clients: int = 8) -> None:
    print(
        f"\n4. snapshot faults while {clients} clients call explore_company "
        f"({seconds:g}s per fault)"
    )
    data_root = work / "faults"
    store = SnapshotStore(data_root)
    store.publish(sample.sample_tables(without=(sample.NVDA_10Q,)))
    current = store.publish(sample.sample_tables()).version
    newer = store.publish(sample.sample_tables(), code="newer").version
    latest = layout.latest_path(store.root)
    layout.write_latest(store.root, current)
    log = work / "faults.log"

    def set_latest(kind: str) -> None:
        if latest.is_dir():
            latest.rmdir()
        else:
            latest.unlink(missing_ok=True)
        if kind == "invalid UTF-8":
            latest.write_bytes(b"\xff\xfe\x80garbage\n")
        elif kind == "a directory":
            latest.mkdir()
        elif kind == "no version name":
            latest.write_text("../../etc/passwd\n")
        else:
            layout.write_latest(store.root, kind)

    with server(data_root, log) as (base, _proc):
        url = f"{base}/mcp"
        print(
            f"   {'fault':<38} {'calls':>6} {'errors':>6} {'log ERROR lines':>16} "
            f"{'tracebacks':>10} {'log bytes':>10}"
        )

        def phase(name: str, fault) -> None:
            start = log.stat().st_size
            fault()
            calls = errors = 0
            stop = time.monotonic() + seconds
            lock = threading.Lock()

            async def one_client() -> tuple[int, int]:
                c = e = 0
                async with Client(url) as client:
                    while time.monotonic() < stop:
                        result = await client.call_tool("explore_company", {"company_id": "NVDA"})
                        c += 1
                        e += bool(result.is_error)
                return c, e

            def worker() -> None:
                nonlocal calls, errors
                try:
                    c, e = asyncio.run(one_client())
                except Exception:  # noqa: BLE001 - a figure, not a failure
                    c, e = 1, 1
                with lock:
                    calls += c
                    errors += e

            threads = [threading.Thread(target=worker) for _ in range(clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            lines, tracebacks, size = _log_figures(log, start)
            print(f"   {name:<38} {calls:>6} {errors:>6} {lines:>16} {tracebacks:>10} {size:>10,}")

        phase("none (baseline)", lambda: None)
        phase("LATEST invalid UTF-8", lambda: set_latest("invalid UTF-8"))
        phase("LATEST a directory", lambda: set_latest("a directory"))
        phase("LATEST names no version", lambda: set_latest("no version name"))
        phase("LATEST restored", lambda: set_latest(current))

        def damaged_newer() -> None:
            _corrupt_same_size(store.database_path(newer))
            set_latest(newer)

        phase("LATEST -> same-size-corrupted version", damaged_newer)

    for name, fault in (
        ("garbage LATEST", lambda: set_latest("no version name")),
        ("LATEST on the damaged snapshot", lambda: set_latest(newer)),
    ):
        fault()
        try:
            with server(data_root, work / "fresh.log") as (base, _proc):
                ok, answer = call_status(f"{base}/mcp")
            verdict = (
                (
                    f"serves {answer['snapshot']}"
                    + (" (the newest intact version)" if answer["snapshot"] == current else "")
                )
                if ok
                else f"errors: {str(answer)[:100]}"
            )
        except RuntimeError as exc:
            verdict = f"does not start ({str(exc).splitlines()[-1][:100]})"
        print(f"   a server started with {name}: {verdict}")


# -- 5. swaps under concurrent clients ----------------------------------------------------
def swaps(work: Path, clients: int) -> None:
    print(f"\n5. snapshot swaps under {clients} concurrent HTTP clients")
    data_root = work / "swaps"
    store = SnapshotStore(data_root)
    expected = {store.publish(sample.sample_tables(without=(sample.NVDA_10Q,))).version: 5}
    with server(data_root, work / "swaps.log") as (base, _proc):
        url = f"{base}/mcp"

        async def run() -> tuple[list[tuple[str, int]], list[str]]:
            answers: list[tuple[str, int]] = []
            errors: list[str] = []
            stop = asyncio.Event()

            async def loop() -> None:
                async with Client(url) as client:
                    while not stop.is_set():
                        result = await client.call_tool("status", {})
                        if result.is_error:
                            errors.append(result.content[0].text)
                        else:
                            sc = result.structured_content
                            answers.append((sc["snapshot"], sum(sc["forms"].values())))

            tasks = [asyncio.create_task(loop()) for _ in range(clients)]
            for i in range(6):
                await asyncio.sleep(0.5)
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
            return answers, errors

        answers, errors = asyncio.run(run())
    mixed = sum(1 for v, n in answers if expected.get(v) != n)
    print(
        f"   {len(answers) + len(errors):,} calls across {len(expected)} versions: "
        f"{len(errors)} errors, {mixed} mixed answers"
    )


# -- 6. folder corpus ---------------------------------------------------------------------
def ingest_runs(work: Path) -> None:
    print("\n6. a folder with a.htm, b.htm (the same bytes) and an empty file, ingested 3 times")
    inbox, data = work / "inbox", work / "ingest-data"
    inbox.mkdir()
    (inbox / "a.htm").write_text(EIGHT_K)
    (inbox / "b.htm").write_text(EIGHT_K)
    (inbox / "empty.htm").write_bytes(b"")
    for n in (1, 2, 3):
        if n == 3:
            (inbox / "0.htm").write_text(EIGHT_K)  # a copy added later, sorting first
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "pipelines.cli",
                "--data",
                str(data),
                "ingest",
                "--corpus",
                str(inbox),
            ],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        console = out.stdout + out.stderr
        ran = re.search(r"ran (\d+) partitions, (\d+) failed", console)
        print(
            f"   run {n}{' (0.htm added)' if n == 3 else ''}: exit {out.returncode}; "
            f"partitions run/failed {ran.group(1) + '/' + ran.group(2) if ran else '—'}; "
            f"IntegrityError {'yes' if 'IntegrityError' in console else 'no'}; stack traces "
            f"{console.count('Traceback') + console.count('Stack Trace')}; lines naming "
            f"empty.htm {sum('empty.htm' in line for line in console.splitlines())}; "
            f"console lines {len(console.splitlines())}"
        )


# -- 7. markup ----------------------------------------------------------------------------
def markup() -> None:
    from graphrag_core.text.parsing import parse_markup

    print("\n7. markup")
    fonts = (
        "<html><body><p>"
        + "".join(f"<font>w{i} " for i in range(400))
        + "</p><p>tail</p></body></html>"
    )
    parsed = parse_markup(fonts, True)
    words = len(re.findall(r"\bw\d+\b", parsed.text))
    print(
        f"   400 unclosed <font>: {words}/400 words kept, "
        f"text after them {'kept' if 'tail' in parsed.text else 'LOST'}; warnings {parsed.warnings}"
    )
    deep = (
        "<html><body>"
        + "<div>" * 400
        + "deep words"
        + "</div>" * 400
        + "<p>after them</p></body></html>"
    )
    parsed = parse_markup(deep, True)
    print(
        f"   text nested 400 deep: {'kept' if 'deep words' in parsed.text else 'LOST'}; text "
        f"after it {'kept' if 'after them' in parsed.text else 'LOST'}"
    )


# -- 8. issue 21 replayed ---------------------------------------------------------------------
# Each row of the issue, replayed the way the review found it: commands through the CLI, tools
# through a server on loopback, on copies of one small data root this checkout ingests from
# real corpus filings. A row prints `held` when the fault is gone, else the class the issue gave
# it (`broken` or `weak`), with the figure that decides it.
BASE_FILINGS = (  # two small 8-Ks and a 1999 10-K whose competitors SEC's names resolve
    "filings/BCOW/8-K/form8k_122024.htm",
    "filings/ORCL/8-K/Oracle.8-K.htm",
    "filings/CIK0000859368/10-K/0000950153-99-001234.htm",
)
BLK_8K = "filings/BLK/8-K/form8K.Blackrock.htm"
BCOW = "0000943374-24-000509"
NO_CONTEXT, NO_ITEMS = "0000943374-24-900001", "0000000002-25-000001"  # made-up filings' ids
SENTINEL = {
    "x/doc.htm": b"<html>doc</html>",
    "x/deep/more.htm": b"<html>more</html>",
    "x.txt": b"text",
    "x.parquet": b"table",
    "x.json": b"{}",
    "secret.txt": b"the first sixty characters of this file must never be served\n",
}
ENTITY_8K = (
    '<?xml version="1.0"?>\n<!DOCTYPE html [\n<!ENTITY c "Corp]>">\n]>\n<html><body><p>FORM 8-K</p>'
    "<p>Item 8.01 Other Events</p><p>Xxe &c; Corp announced a new distribution center in "
    "Ohio; Xxe &c; Corp expects to hire staff there.</p></body></html>"
)
_IX_NS = (
    'xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL" '
    'xmlns:xbrli="http://www.xbrl.org/2003/instance" '
    'xmlns:iso4217="http://www.xbrl.org/2003/iso4217" '
    'xmlns:link="http://www.xbrl.org/2003/linkbase" xmlns:xlink="http://www.w3.org/1999/xlink" '
    'xmlns:us-gaap="http://fasb.org/us-gaap/2024" xmlns:dei="http://xbrl.sec.gov/dei/2024"'
)
HOSTILE_CIK = "0000000042"
# The same facts as tests/test_hostile.py's, written out again on purpose: this script must run
# from older checkouts (to show the figures before a fix), whose tests do not define them.
HOSTILE_FACTS = [  # (inline id, concept, context, text, attributes): one sound, the rest not
    ("f-scale-up", "us-gaap:Revenues", "FY2024", "1", 'scale="400"'),
    ("f-scale-down", "us-gaap:NetIncomeLoss", "FY2024", "1", 'scale="-400"'),
    ("f-nan", "us-gaap:CostOfRevenue", "FY2024", "NaN", ""),
    ("f-inf", "us-gaap:OperatingIncomeLoss", "FY2024", "Infinity", ""),
    ("f-neg-inf", "us-gaap:GrossProfit", "FY2024", "-Infinity", ""),
    ("f-sound", "us-gaap:Revenues", "FY2023", "120", 'scale="6"'),
]


def _hostile_10k() -> str:
    """An inline-XBRL 10-K of a made-up filer (CIK 42) with its Items, whose FY2024 facts have
    scale 400 / -400 or the text NaN / ±Infinity; FY2023's revenue is sound."""

    def context(cid: str, start: str, end: str) -> str:
        return (
            f'<xbrli:context id="{cid}"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">'
            f"{HOSTILE_CIK}</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:startDate>{start}"
            f"</xbrli:startDate><xbrli:endDate>{end}</xbrli:endDate></xbrli:period></xbrli:context>"
        )

    hidden = "".join(
        f'<ix:nonNumeric id="h{i}" name="dei:{name}" contextRef="FY2024">{text}</ix:nonNumeric>'
        for i, (name, text) in enumerate(
            [
                ("DocumentType", "10-K"),
                ("CurrentFiscalYearEndDate", "--12-31"),
                ("DocumentPeriodEndDate", "2024-12-31"),
                ("DocumentFiscalYearFocus", "2024"),
                ("DocumentFiscalPeriodFocus", "FY"),
                ("EntityCentralIndexKey", HOSTILE_CIK),
                ("EntityRegistrantName", "Hostile Numbers Inc"),
            ]
        )
    )
    lines = "".join(
        f'<tr><td>{concept.split(":")[1]}</td><td><ix:nonFraction id="{fid}" name="{concept}" '
        f'contextRef="{ctx}" unitRef="usd" decimals="-6" {extra}>{text}</ix:nonFraction></td></tr>'
        for fid, concept, ctx, text, extra in HOSTILE_FACTS
    )
    items = "".join(
        f"<p>{head}</p><p>Hostile Numbers Inc {body}</p>"
        for head, body in [
            ("Item 1. Business", "makes widgets for industrial customers in Ohio and Texas."),
            ("Item 1A. Risk Factors", "depends on a single supplier of steel for its widgets."),
            ("Item 7. Management's Discussion and Analysis", "saw demand for widgets rise."),
            ("Item 8. Financial Statements and Supplementary Data", "reports its results below."),
        ]
    )
    return (
        f'<?xml version="1.0" encoding="utf-8"?><html {_IX_NS}><head><title>Hostile '
        "10-K</title></head>"
        f'<body><div style="display:none"><ix:header><ix:hidden>{hidden}</ix:hidden>'
        '<ix:references><link:schemaRef xlink:type="simple" '
        'xlink:href="h-20241231.xsd"/></ix:references>'
        f"<ix:resources>{context('FY2024', '2024-01-01', '2024-12-31')}"
        f"{context('FY2023', '2023-01-01', '2023-12-31')}"
        '<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>'
        "</ix:resources></ix:header></div><p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p>"
        f"<p>FORM 10-K</p>{items}<p>CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)</p>"
        f"<table>{lines}</table></body></html>"
    )


def _digest(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every entry under `root` (links not followed) → its content hash, link target or 'dir'."""
    out: dict[str, str] = {}
    if not root.exists():
        return out
    for folder, dirs, files in os.walk(root, followlinks=False):
        rel = Path(folder).relative_to(root)
        dirs[:] = [d for d in dirs if (rel / d).parts[0] not in skip]
        for name in (*dirs, *files):
            path = Path(folder) / name
            if path.is_symlink():
                out[str(rel / name)] = "link:" + os.readlink(path)
            elif path.is_dir():
                out[str(rel / name)] = "dir"
            else:
                out[str(rel / name)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _changed(before: dict[str, str], after: dict[str, str]) -> int:
    return sum(before.get(k) != after.get(k) for k in before.keys() | after.keys())


def _make_sentinel(folder: Path) -> dict[str, str]:
    shutil.rmtree(folder, ignore_errors=True)
    for rel, data in SENTINEL.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return _digest(folder)


def _folder_corpus(folder: Path, corpus: Path, paths: list[str], *, reference: bool) -> Path:
    """Corpus filings (linked, not copied) as a folder corpus with their manifest records; with
    SEC's ticker file under reference/ when `reference`."""
    records = [r for r in json.loads((corpus / "manifest.json").read_text()) if r["path"] in paths]
    for r in records:
        (folder / r["path"]).parent.mkdir(parents=True, exist_ok=True)
        (folder / r["path"]).symlink_to(corpus / r["path"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps(records))
    if reference:
        (folder / "reference" / "submissions").mkdir(parents=True)
        (folder / "reference" / "company_tickers.json").symlink_to(
            corpus / "reference" / "company_tickers.json"
        )
    return folder


def _add_document(folder: Path, path: str, data: bytes, **record: str) -> None:
    """Put a made-up document into a folder corpus, with its manifest record."""
    (folder / path).parent.mkdir(parents=True, exist_ok=True)
    (folder / path).write_bytes(data)
    manifest = folder / "manifest.json"
    records = json.loads(manifest.read_text()) if manifest.exists() else []
    records.append(
        {**record, "path": path, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    )
    manifest.write_text(json.dumps(records))


def _without_write_access() -> list[str]:
    """Root ignores permission bits unless it drops CAP_DAC_OVERRIDE: run it under setpriv."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    drop = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={drop}", f"--bounding-set={drop}", "--"] if setpriv else []


def cli(
    data: Path, *args: str, prefix: list[str] | None = None, timeout: float = 400
) -> tuple[int, str]:
    """`python -m pipelines.cli --data DATA ...` in a shell without FILINGS_CORPUS: (exit,
    console)."""
    try:
        out = subprocess.run(
            [*(prefix or []), sys.executable, "-m", "pipelines.cli", "--data", str(data), *args],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        return 124, f"timed out after {timeout:g}s: {exc.stdout or ''}{exc.stderr or ''}"
    return out.returncode, out.stdout + out.stderr


def _snapshot(data: Path) -> dict:
    """What the current snapshot holds, read from its DuckDB file (read-only)."""
    import duckdb

    store = SnapshotStore(data)
    version = store.current_version()
    if version is None:
        return {"version": None, "registrants": 0, "companies": 0, "edges": 0, "filings": set()}
    con = duckdb.connect(str(store.database_path(version)), read_only=True)
    try:

        def one(sql: str) -> object:
            return con.execute(sql).fetchone()[0]

        non_finite = 0
        for table, column in con.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE data_type IN ('DOUBLE', 'FLOAT', 'REAL')"
        ).fetchall():
            non_finite += one(f'SELECT count(*) FROM "{table}" WHERE NOT isfinite("{column}")')
        return {
            "version": version,
            "registrants": one("SELECT count(*) FROM registrants"),
            "companies": one("SELECT count(*) FROM nodes WHERE entity_type = 'company'"),
            "edges": one("SELECT count(*) FROM edges"),
            "filings": {r[0] for r in con.execute("SELECT filing_id FROM filings").fetchall()},
            "non_finite": non_finite,
            "hostile_fy2024": one(
                f"SELECT count(*) FROM metric_observations WHERE cik = '{HOSTILE_CIK}' "
                "AND fiscal_label = 'FY2024'"
            ),
            "hostile_fy2023": one(
                f"SELECT count(*) FROM metric_observations WHERE cik = '{HOSTILE_CIK}' "
                "AND fiscal_label = 'FY2023' AND metric = 'revenue' AND value = 120e6"
            ),
            "entity_chunks": con.execute(
                "SELECT count(*) FILTER (WHERE text LIKE '%Xxe%'), count(*) FILTER (WHERE "
                "text LIKE '%&c;%' "
                "OR ltrim(text) LIKE ']>%' OR text LIKE '%Corp]>%') FROM chunks"
            ).fetchone(),
            "chunk_index": store.manifest(version).chunk_index,
        }
    finally:
        con.close()


def _sizes(s: dict) -> str:
    return f"registrants {s['registrants']:,}, company nodes {s['companies']}, edges {s['edges']}"


def _tool_calls(url: str, calls: list[tuple[str, dict]]) -> list[tuple[bool, str]]:
    """Each (tool, arguments) through one MCP client session: (ok, text)."""

    async def go() -> list[tuple[bool, str]]:
        out = []
        async with Client(url) as client:
            for tool, args in calls:
                result = await client.call_tool(tool, args)
                out.append((not result.is_error, result.content[0].text if result.content else ""))
        return out

    try:
        return asyncio.run(go())
    except Exception as exc:  # noqa: BLE001 - a figure, not a failure
        return [(False, f"{type(exc).__name__}: {exc}")] * len(calls)


def _rpc(
    http: httpx2.Client,
    url: str,
    method: str,
    params: dict,
    *,
    version: str | None,
    session: str | None,
    request_id: int | None,
) -> httpx2.Response:
    headers = dict(ACCEPT)
    if version:
        headers["mcp-protocol-version"] = version
    if session:
        headers["mcp-session-id"] = session
    body: dict = {"jsonrpc": "2.0", "method": method, "params": params}
    if request_id is not None:
        body["id"] = request_id
    return http.post(url, json=body, headers=headers)


def _rpc_result(response: httpx2.Response) -> dict:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])["result"]
    return response.json()["result"]


def _evidence_numbers(url: str, version: str) -> tuple[list[int], int]:
    """A client of one handshake protocol version that keeps no cookies, only the session id
    the protocol gives it: the evidence numbers of two answers, and how many numbers
    check_citations in a third request knows."""
    with httpx2.Client(timeout=30) as http:
        init = _rpc(
            http,
            url,
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
            version=None,
            session=None,
            request_id=1,
        )
        session = init.headers.get("mcp-session-id")
        http.cookies.clear()
        _rpc(
            http,
            url,
            "notifications/initialized",
            {},
            version=version,
            session=session,
            request_id=None,
        )
        numbers = []
        for i, metric in enumerate(("revenue", "total_debt"), start=2):
            answer = _rpc_result(
                _rpc(
                    http,
                    url,
                    "tools/call",
                    {
                        "name": "get_metrics",
                        "arguments": {"company_id": "NVDA", "metrics": [metric], "periods": 1},
                    },
                    version=version,
                    session=session,
                    request_id=i,
                )
            )
            http.cookies.clear()
            numbers.append(
                answer["structuredContent"]["series"][0]["values"][0]["citation"]["evidence"]
            )
        report = _rpc_result(
            _rpc(
                http,
                url,
                "tools/call",
                {
                    "name": "check_citations",
                    "arguments": {"answer": f"NVIDIA's revenue was $130.5 billion [{numbers[0]}]."},
                },
                version=version,
                session=session,
                request_id=9,
            )
        )
        return numbers, report["structuredContent"]["evidence_known"]


def _server_figure(
    data: Path, log: Path, calls: list[tuple[str, dict]], **env: str
) -> tuple[list[tuple[bool, str]], str]:
    """Start a server, make the calls; (results, everything it said: startup error and log)."""
    try:
        with server(data, log, **env) as (base, _proc):
            results = _tool_calls(f"{base}/mcp", calls)
    except Exception as exc:  # noqa: BLE001 - a server that does not start is a figure
        results = [(False, f"server did not start: {exc}")]
    return results, log.read_text(errors="replace") if log.exists() else ""


class Replay:
    """The rows, their verdicts and figures, printed as they come, and the tally."""

    def __init__(self, work: Path, base: Path):
        self.work, self.base, self.rows = work, base, []

    def copy(self, name: str) -> Path:
        """A copy of the ingested data root as <work>/<name>/data."""
        folder = self.work / name
        shutil.copytree(self.base, folder / "data", symlinks=True)
        return folder / "data"

    def row(self, kind: str, label: str, held: bool, figure: str) -> None:
        verdict = "held" if held else kind
        self.rows.append(verdict)
        print(f"   {verdict:<6} {label:<58} {figure}", flush=True)

    def done(self) -> None:
        tally = Counter(self.rows)
        print(
            f"   issue 21 replay: {len(self.rows)} rows: {tally['held']} held, "
            f"{tally['broken']} broken, "
            f"{tally['weak']} weak"
        )


def _remove_attacks(rp: Replay) -> None:
    """Row 1: `remove` with a path, `..` and an empty id, through the CLI and the UI's job."""
    figures, held = [], True
    for via in ("cli", "job"):
        data = rp.copy(f"remove-{via}")
        sentinel = data.parent / "sentinel"
        for bad in (str(sentinel / "x"), "../../sentinel/x", ""):
            outside = _make_sentinel(sentinel)
            inside = _digest(data, skip=("dagster_home",))
            raw_before = sum(1 for p in (data / "raw").rglob("*") if p.is_file())
            version = SnapshotStore(data).current_version()
            if via == "cli":
                code, console = cli(data, "remove", bad)
            else:
                code = subprocess.run(
                    [sys.executable, "-c", REMOVE_JOB_RUN, str(data), bad],
                    cwd=ROOT,
                    env=_env(),
                    capture_output=True,
                    text=True,
                    timeout=400,
                ).returncode
            out_changed = _changed(outside, _digest(sentinel))
            in_changed = _changed(inside, _digest(data, skip=("dagster_home",)))
            raw_after = sum(1 for p in (data / "raw").rglob("*") if p.is_file())
            published = SnapshotStore(data).current_version() != version
            held &= code != 0 and out_changed == 0 and in_changed == 0 and not published
            name = "path" if bad.startswith("/") else bad or '""'
            figures.append(
                f"{via} {name}: exit {code}, outside changed {out_changed}, raw docs "
                f"{raw_before}->{raw_after}{', published' if published else ''}"
            )
        shutil.rmtree(data.parent)
    rp.row(
        "broken",
        '1. remove <path> / ../.. / "" (CLI and remove_filing job)',
        held,
        "; ".join(figures),
    )


# The UI's remove_filing job, launched with run config on the data root's instance.
REMOVE_JOB_RUN = """
import sys
from pathlib import Path
from graphrag_core.settings import Settings
from pipelines.definitions import build_definitions
from pipelines.instance import get_instance
from pipelines.removal import REMOVE_JOB
root, bad = Path(sys.argv[1]), sys.argv[2]
settings = Settings(data_root=root)
instance = get_instance(root, settings.operations)
job = build_definitions(settings).resolve_job_def(REMOVE_JOB)
result = job.execute_in_process(instance=instance, raise_on_error=False,
    run_config={"ops": {"remove_filing_op": {"config": {"filing_id": bad}}}})
sys.exit(0 if result.success else 1)
"""


def _without_source(rp: Replay, corpus: Path) -> None:
    """Row 2 (with rows 3 and the entities row, which need the same inbox ingest): the README's
    commands in a shell without FILINGS_CORPUS, and an inbox without reference/."""
    data = rp.copy("no-source")
    first = _snapshot(data)
    orgs = sorted(n for n in _graph_ids(data) if n.startswith("ORG:"))[:2]
    inbox = rp.work / "no-source" / "inbox"
    inbox.mkdir()
    (inbox / "blackrock.htm").write_bytes((corpus / BLK_8K).read_bytes())
    (inbox / "hostile-10k.htm").write_text(_hostile_10k())
    (inbox / "entities.htm").write_text(ENTITY_8K)
    steps = [
        ("merge", ["entities", "merge", *orgs, "--reason", "bench"]),
        ("unmerge", ["entities", "unmerge", "1"]),
        ("ingest inbox", ["ingest", "--corpus", str(inbox), "--serial"]),
        ("remove", ["remove", sorted(first["filings"])[-1]]),
    ]
    figures, held, after_ingest, url_figure = [], True, None, ""
    for name, args in steps:
        before = _snapshot(data)
        code, console = cli(data, *args)
        after = _snapshot(data)
        published = after["version"] != before["version"]
        lost = after["registrants"] < first["registrants"] or (
            name != "remove"
            and (after["companies"] < before["companies"] or after["edges"] < before["edges"])
        )
        held &= not (published and lost)
        figures.append(
            f"{name}: exit {code}, registrants "
            f"{before['registrants']:,}->{after['registrants']:,}, "
            f"company nodes {before['companies']}->{after['companies']}, edges "
            f"{before['edges']}->{after['edges']}{'' if published else ', not published'}"
        )
        if name == "ingest inbox":
            after_ingest = after
            url_figure = _hostile_tools(data, rp.work / "no-source" / "server.log")
    rp.row(
        "broken",
        "2. commands without FILINGS_CORPUS / inbox w/o reference/",
        held,
        "; ".join(figures),
    )

    assert after_ingest is not None
    nf, fy24, fy23 = (after_ingest[k] for k in ("non_finite", "hostile_fy2024", "hostile_fy2023"))
    rp.row(
        "broken",
        "3. scale 400/-400, NaN, ±Infinity facts",
        nf == 0 and fy24 == 0 and fy23 > 0 and "failing 0/" in url_figure,
        f"non-finite numbers in the snapshot {nf}; the hostile filing's unusable FY2024 "
        "values published "
        f"{fy24} (of 5), its sound FY2023 revenue "
        f"{'published' if fy23 else 'NOT published'}; {url_figure}",
    )
    seen, raw = after_ingest["entity_chunks"]
    rp.row(
        "weak",
        "w10. unresolved character entities",
        seen > 0 and raw == 0,
        f"chunks of the document {seen}, of them with '&c;' or ']>' as text {raw}",
    )
    shutil.rmtree(data.parent)


def _graph_ids(data: Path) -> list[str]:
    import duckdb

    store = SnapshotStore(data)
    con = duckdb.connect(str(store.database_path(store.current_version())), read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT entity_id FROM nodes").fetchall()]
    finally:
        con.close()


def _hostile_tools(data: Path, log: Path) -> str:
    """The tools the hostile filing broke: the screen for everyone, the filer's own tools."""
    filer = f"CIK-{HOSTILE_CIK}"
    # revenue named: the other default metrics are in no snapshot whose only figures are these
    calls = [
        ("screen_companies", {}),
        ("get_metrics", {"company_id": filer, "metrics": ["revenue"], "periods": 4}),
        ("explore_company", {"company_id": filer}),
        ("compare_companies", {"company_ids": [filer, "CIK-0001341439"], "metrics": ["revenue"]}),
    ]
    results, _ = _server_figure(data, log, calls)
    failed = [tool for (tool, _), (ok, _text) in zip(calls, results, strict=False) if not ok]
    return f"tool calls failing {len(failed)}/{len(calls)}" + (
        f" ({', '.join(failed)})" if failed else ""
    )


def _failed_filing(rp: Replay, corpus: Path) -> None:
    """Row 4, and the weak rows of the items check and the --force fix text: a good 8-K beside an
    exhibit whose contexts live elsewhere and a 10-K with no Item heading."""
    data = rp.copy("failed-filing")
    inbox = _folder_corpus(rp.work / "failed-filing" / "inbox", corpus, [BLK_8K], reference=False)
    blackrock = json.loads((inbox / "manifest.json").read_text())[0]["accession"]
    bcow = (corpus / BASE_FILINGS[0]).read_text(encoding="utf-8")
    made_up = {
        "cik": "0000943374",
        "company_name": "Bad Corp",
        "period_end": "2024-12-31",
        "filed_date": "2025-02-01",
    }
    _add_document(
        inbox,
        "bad/exhibit.htm",
        re.sub(r"<xbrli:context\b.*?</xbrli:context>", "", bcow, flags=re.S).encode(),
        form="8-K",
        document_type="8-K",
        accession=NO_CONTEXT,
        **made_up,
    )
    _add_document(
        inbox,
        "bad/letter.htm",
        b"<html><body><p>FORM 10-K</p><p>To our shareholders: it "
        b"was a good year.</p></body></html>",
        form="10-K",
        document_type="10-K",
        accession=NO_ITEMS,
        **made_up,
    )
    code, console = cli(data, "ingest", "--corpus", str(inbox), "--serial")
    status_code, status = cli(data, "status")
    after = _snapshot(data)

    def outcome(fid: str) -> str:
        found = re.search(rf"\]\s+(\S+)\s+{re.escape(fid)}", console)
        return found.group(1) if found else "not listed"

    good_in, bad_in = blackrock in after["filings"], NO_CONTEXT in after["filings"]
    named = NO_CONTEXT in status
    rp.row(
        "broken",
        "4. one failed filing among good ones",
        good_in and not bad_in and named,
        f"ingest exit {code}; the good 8-K {'published' if good_in else 'NOT published'}; the "
        f"failed exhibit {outcome(NO_CONTEXT)}, {'served' if bad_in else 'not served'}, "
        f"{'named in status' if named else 'not named in status'}",
    )
    letter_in = NO_ITEMS in after["filings"]
    rp.row(
        "weak",
        "w1. a 10-K with no Item heading",
        outcome(NO_ITEMS) != "ok" and not letter_in,
        f"its ingest line '{outcome(NO_ITEMS)}', {'served' if letter_in else 'not served'}",
    )
    force = sum("--force" in line for line in (console + status).splitlines())
    rp.row(
        "weak",
        "w2. fix texts suggesting --force",
        force == 0,
        f"lines suggesting --force in the ingest and status output {force}",
    )
    shutil.rmtree(data.parent)


def _remove_after_kill(rp: Replay) -> None:
    """Weak row: a remove killed after its deletions, before its publish, then run again."""
    data = rp.copy("kill")
    fid = BCOW
    raw = data / "raw" / fid
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipelines.cli", "--data", str(data), "remove", fid],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while raw.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if proc.poll() is None:
        os.killpg(proc.pid, 9)
    proc.wait()
    served = fid in _snapshot(data)["filings"]
    code, console = cli(data, "remove", fid)
    after = fid in _snapshot(data)["filings"]
    rp.row(
        "weak",
        "w3. remove re-run after a kill mid-publish",
        served and code == 0 and not after,
        f"killed {'before' if served else 'AFTER'} its publish; re-run exit {code}; filing served "
        f"after {'yes' if after else 'no'}"
        + (f" ({console.strip().splitlines()[-1][:80]})" if code else ""),
    )
    shutil.rmtree(data.parent)


def _read_only(rp: Replay) -> None:
    data = rp.copy("read-only")
    inbox = data.parent / "inbox"
    inbox.mkdir()
    (inbox / "a.htm").write_text(EIGHT_K)
    for path in [data, *data.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & ~0o222)
    figures, held = [], True
    try:
        for args in (["status"], ["ingest", "--corpus", str(inbox)]):
            code, console = cli(data, *args, prefix=_without_write_access(), timeout=300)
            traces = console.count("Traceback")
            sqla = "sqlalchemy" in console.lower()
            held &= code != 0 and traces == 0 and not sqla
            figures.append(
                f"{args[0]}: exit {code}, tracebacks {traces}{', SQLAlchemy' if sqla else ''}"
            )
    finally:
        for path in [data, *data.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o200)
    rp.row("weak", "w4. a read-only data root", held, "; ".join(figures))
    shutil.rmtree(data.parent)


def _tokens(rp: Replay, data: Path) -> None:
    good = "bench-" + "0123456789abcdefghijklmnopqrstuvwxyz"
    started = []
    for name, token in (
        ("32 spaces", " " * 32),
        ("leading space", " " + good),
        ('"a"*32', "a" * 32),
    ):
        port = str(socket_port())
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mcp_server",
                "--data-root",
                str(data),
                "--http",
                "--port",
                port,
            ],
            cwd=ROOT,
            env=_env(GRAPHRAG_MCP_TOKEN=token),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline, listening = time.monotonic() + 30, False
        while proc.poll() is None and time.monotonic() < deadline and not listening:
            try:
                socket.create_connection(("127.0.0.1", int(port)), timeout=0.2).close()
                listening = True
            except OSError:
                time.sleep(0.1)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if listening:
            started.append(name)
    rp.row(
        "weak",
        'w5. tokens of spaces, with a leading space, "a"*32',
        not started,
        f"servers started {len(started)}/3"
        + (f" ({', '.join(started)})" if started else " (each refused)"),
    )


def socket_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _snapshot_folders(rp: Replay) -> None:
    """Weak rows: a version folder linked outside the store, a manifest naming another version,
    and LATEST linked to any file when no snapshot is intact."""
    folder = rp.work / "folders"
    data, sentinel = folder / "data", folder / "sentinel"
    outside = _make_sentinel(sentinel)
    store = SnapshotStore(data)
    older = store.publish(sample.sample_tables(without=(sample.NVDA_10Q,))).version
    newer = store.publish(sample.sample_tables()).version
    version_dir = store.database_path(newer).parent
    moved = folder / "elsewhere" / newer
    moved.parent.mkdir()
    version_dir.rename(moved)
    version_dir.symlink_to(moved, target_is_directory=True)
    results, _ = _server_figure(data, folder / "linked.log", [("status", {})])
    served = _served_version(results)
    what = (
        "the linked folder"
        if served == newer
        else "the last intact version"
        if served == older
        else served
    )
    rp.row(
        "weak", "w6. a version folder linked outside the store", served == older, f"serves {what}"
    )
    version_dir.unlink()
    moved.rename(version_dir)

    impostor = "29991231T235959999999Z-00000000"
    shutil.copytree(store.database_path(older).parent, version_dir.parent / impostor)
    layout.write_latest(store.root, impostor)
    results, _ = _server_figure(data, folder / "impostor.log", [("status", {})])
    served = _served_version(results)
    what = (
        "the impostor folder"
        if served in (impostor, older)
        else "the newest intact version"
        if served == newer
        else served
    )
    rp.row(
        "weak",
        "w7. a manifest naming another version than its folder",
        served == newer,
        f"serves {what}",
    )
    shutil.rmtree(version_dir.parent / impostor)

    for version in (older, newer):
        store.database_path(version).write_bytes(b"damaged")  # no intact snapshot to fall back on
    latest = layout.latest_path(store.root)
    latest.unlink()
    latest.symlink_to(sentinel / "secret.txt")
    results, said = _server_figure(data, folder / "latest.log", [("status", {})])
    echoed = sum(text.count("sixty characters") for _, text in results) + said.count(
        "sixty characters"
    )
    rp.row(
        "weak",
        "w8. LATEST linked to any file, no intact snapshot",
        echoed == 0,
        f"the linked file's text repeated {echoed} times in tool errors and the log",
    )
    changed = _changed(outside, _digest(sentinel))
    if changed:
        print(f"   (the sentinel beside these snapshots changed: {changed} entries)")
    shutil.rmtree(folder)


def _served_version(results: list[tuple[bool, str]]) -> str:
    ok, text = results[0]
    if not ok:
        return f"an error ({text[:60]})"
    try:
        return json.loads(text)["snapshot"]
    except (ValueError, KeyError):
        found = re.search(r"\d{8}T\d{6,}Z-[0-9a-f]{8}", text)
        return found.group(0) if found else text[:60]


def _evidence(rp: Replay) -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    data = rp.work / "evidence" / "data"
    SnapshotStore(data).publish(sample.sample_tables())
    figures, held = [], True
    with server(data, rp.work / "evidence" / "server.log") as (base, _proc):
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            try:
                numbers, known = _evidence_numbers(f"{base}/mcp", version)
            except Exception as exc:  # noqa: BLE001 - a figure, not a failure
                held = False
                figures.append(f"{version}: {type(exc).__name__}")
                continue
            held &= numbers == [1, 2] and known == 2
            figures.append(
                f"{version}: [{numbers[0]}] then [{numbers[1]}], known next request {known}"
            )
    rp.row("broken", "5. evidence numbers per protocol version (HTTP)", held, "; ".join(figures))
    shutil.rmtree(data.parent)


def _moved_index(rp: Replay) -> None:
    """Weak row: the base data root moved (the original gone) searches its own chunk index."""
    moved = rp.work / "moved" / "data"
    moved.parent.mkdir()
    rp.base.rename(moved)
    recorded = _snapshot(moved)["chunk_index"]
    path = getattr(recorded, "path", None)
    results, _ = _server_figure(
        moved,
        rp.work / "moved" / "server.log",
        [("search_chunks", {"query": "Oracle cloud infrastructure", "k": 3})],
    )
    ok, text = results[0]
    hits = len(json.loads(text).get("hits", [])) if ok and text.startswith("{") else 0
    written = len(_digest(rp.base))  # the original's place: anything there was put by the server
    rp.row(
        "weak",
        "w9. a moved data root's chunk index",
        ok and hits > 0 and written == 0,
        "index recorded as "
        f"{'an absolute' if path and Path(path).is_absolute() else 'a relative'} path; "
        "search on the moved root: "
        f"{f'{hits} hits' if ok else 'error (' + text[:70] + ')'}; entries "
        f"written at the original's place {written}",
    )


def issue21(work: Path, corpus: Path) -> None:
    print(f"\n8. issue 21 replayed (corpus {corpus})")
    started = time.monotonic()
    guard = Path(tempfile.mkdtemp(prefix="hostile-bench-sentinel-"))
    guarded = _make_sentinel(guard)
    try:
        checkout = subprocess.run(
            ["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True
        ).stdout
        base = work / "base" / "data"
        source = _folder_corpus(
            work / "base" / "corpus", corpus, list(BASE_FILINGS), reference=True
        )
        code, console = cli(base, "ingest", "--corpus", str(source), "--serial", timeout=600)
        built = _snapshot(base)
        print(
            f"   base: {len(BASE_FILINGS)} corpus filings ingested (exit {code}, "
            f"{time.monotonic() - started:.0f}s): "
            f"{_sizes(built)}"
        )
        if code != 0 or built["version"] is None:
            print("   the base data root could not be built; its console ends:\n" + console[-2000:])
            return
        rp = Replay(work, base)
        _remove_attacks(rp)
        _without_source(rp, corpus)
        _failed_filing(rp, corpus)
        _evidence(rp)
        _remove_after_kill(rp)
        _read_only(rp)
        _tokens(rp, base)
        _snapshot_folders(rp)
        _moved_index(rp)  # last: it moves the base data root away
        rp.done()
        guard_changed = _changed(guarded, _digest(guard))
        after = subprocess.run(
            ["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True
        ).stdout
        print(
            f"   outside the work folder: sentinel entries changed {guard_changed}; checkout "
            f"{'unchanged' if after == checkout else 'CHANGED: ' + after[:200]}; "
            f"{time.monotonic() - started:.0f}s"
        )
    finally:
        shutil.rmtree(guard, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=10_000, help="initialize calls")
    parser.add_argument("--slow", type=int, default=20, help="slow connections of each kind")
    parser.add_argument("--read-timeout", type=float, default=2.0, help="server read timeout (s)")
    parser.add_argument("--fault-seconds", type=float, default=2.0)
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--stdio-lines", type=int, default=200, help="malformed stdio lines")
    parser.add_argument(
        "--clients", type=int, default=16, help="HTTP clients under swaps (half under faults)"
    )
    parser.add_argument("--small", action="store_true", help="a few of each (seconds)")
    parser.add_argument("--only", choices=["issue21"], help="run only this section")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=os.environ.get("FILINGS_CORPUS"),
        help="the real filings corpus issue 21's replay ingests from (FILINGS_CORPUS)",
    )
    args = parser.parse_args()
    if args.small:
        small = {"flood": 40, "slow": 2, "read_timeout": 0.5, "fault_seconds": 0.3}
        small |= {"stdio_lines": 20, "clients": 4, "skip_ingest": True}
        args = argparse.Namespace(**{**vars(args), **small})
    work = Path(tempfile.mkdtemp(prefix="hostile-bench-"))
    try:
        print(f"checkout {ROOT}")
        if args.only != "issue21":
            before_issue21(work, args)
        if args.small:
            print("\n6. and 8. (ingests through the CLI) are not run in the small mode")
        elif args.corpus is None:
            print("\n8. issue 21 replay skipped: set FILINGS_CORPUS or pass --corpus")
        else:
            issue21(work, args.corpus.resolve())
    finally:
        shutil.rmtree(work, ignore_errors=True)


def before_issue21(work: Path, args: argparse.Namespace) -> None:
    """Sections 1-7."""
    data_root = work / "data"
    SnapshotStore(data_root).publish(sample.sample_tables())
    flood(data_root, work, args.flood)
    slow_clients(data_root, work, args.slow, args.read_timeout)
    stdio_lines(data_root, args.stdio_lines)
    snapshot_faults(work, args.fault_seconds, max(1, args.clients // 2))
    swaps(work, args.clients)
    if not args.skip_ingest:
        ingest_runs(work)
    markup()


if __name__ == "__main__":
    main()
