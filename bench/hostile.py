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

    python bench/hostile.py [--flood 10000] [--skip-ingest]
"""

from __future__ import annotations

import argparse
import asyncio
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
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "bench", "version": "0"}},
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
EIGHT_K = (
    "<html><body><p>FORM 8-K</p><p>Item 8.01 Other Events</p><p>Northwind Traders announced a "
    "new distribution center in Ohio.</p></body></html>"
)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"GRAPHRAG_MCP_TOKEN", "GRAPHRAG_MCP_READ_TIMEOUT_S", "FILINGS_CORPUS"}}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextmanager
def server(data_root: Path, log: Path, **env: str) -> Iterator[tuple[str, subprocess.Popen]]:
    with open(log, "w") as errlog, mcp_http_server(data_root, _env(**env), stderr=errlog) as running:
        yield running


def call_status(url: str) -> tuple[bool, dict | str]:
    async def go() -> tuple[bool, dict | str]:
        async with Client(url) as client:
            result = await client.call_tool("status", {})
            return (not result.is_error,
                    result.structured_content if not result.is_error else result.content[0].text)
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
        print(f"   {sum(statuses.values()):,} calls in {seconds:.1f}s: HTTP statuses "
              f"{dict(sorted(statuses.items()))}; sessions opened {sessions:,}")
        print(f"   server RSS {before:.0f} MB before -> {after:.0f} MB after "
              f"({after - before:+.0f} MB)")
        print(f"   a new client after the flood: initialize HTTP {fresh.status_code}; "
              f"status tool {'ok' if ok else 'FAILED: ' + str(answer)[:120]}")


# -- 2. slow clients ------------------------------------------------------------------------
def slow_clients(data_root: Path, work: Path, per_kind: int, timeout_s: float) -> None:
    print(f"\n2. HTTP: slow clients, {per_kind} of each kind (GRAPHRAG_MCP_READ_TIMEOUT_S="
          f"{timeout_s:g}; watched for {timeout_s + 8:g}s)")
    with server(data_root, work / "slow.log",
                GRAPHRAG_MCP_READ_TIMEOUT_S=str(timeout_s)) as (base, _proc):
        port = int(base.rsplit(":", 1)[1])
        body = json.dumps(INIT).encode()
        kinds = {
            "headers never finished": f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-A: ".encode(),
            "nothing sent": b"",
            "body never finished": (
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json"
                f"\r\nAccept: application/json, text/event-stream\r\nContent-Length: {len(body)}"
                "\r\n\r\n").encode() + body[:10],
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
        cwd=ROOT, env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": "last", "method": "ping"}).encode() + b"\n")
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
    print(f"   {sum(codes.values())}/{count} malformed lines answered {dict(codes)}; ping "
          f"{'answered' if any(r.get('id') == 'last' for r in replies) else 'NOT answered'}")


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


def snapshot_faults(work: Path, seconds: float) -> None:
    print(f"\n4. snapshot faults while 8 clients call explore_company ({seconds:g}s per fault)")
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
        print(f"   {'fault':<38} {'calls':>6} {'errors':>6} {'log ERROR lines':>16} "
              f"{'tracebacks':>10} {'log bytes':>10}")

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

            threads = [threading.Thread(target=worker) for _ in range(8)]
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

    for name, fault in (("garbage LATEST", lambda: set_latest("no version name")),
                        ("LATEST on the damaged snapshot", lambda: set_latest(newer))):
        fault()
        try:
            with server(data_root, work / "fresh.log") as (base, _proc):
                ok, answer = call_status(f"{base}/mcp")
            verdict = (f"serves {answer['snapshot']}" + (" (the newest intact version)"
                       if answer["snapshot"] == current else "")) if ok else f"errors: {str(answer)[:100]}"
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
                tables = sample.sample_tables() if i % 2 == 0 else sample.sample_tables(
                    without=(sample.NVDA_10Q,))
                manifest = await asyncio.to_thread(store.publish, tables, code=f"swap-{i}")
                expected[manifest.version] = manifest.counts["filings"]
            await asyncio.sleep(0.5)
            stop.set()
            await asyncio.gather(*tasks)
            return answers, errors

        answers, errors = asyncio.run(run())
    mixed = sum(1 for v, n in answers if expected.get(v) != n)
    print(f"   {len(answers) + len(errors):,} calls across {len(expected)} versions: "
          f"{len(errors)} errors, {mixed} mixed answers")


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
            [sys.executable, "-m", "pipelines.cli", "--data", str(data), "ingest", "--corpus",
             str(inbox)], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600,
        )
        console = out.stdout + out.stderr
        ran = re.search(r"ran (\d+) partitions, (\d+) failed", console)
        print(f"   run {n}{' (0.htm added)' if n == 3 else ''}: exit {out.returncode}; "
              f"partitions run/failed {ran.group(1) + '/' + ran.group(2) if ran else '—'}; "
              f"IntegrityError {'yes' if 'IntegrityError' in console else 'no'}; stack traces "
              f"{console.count('Traceback') + console.count('Stack Trace')}; lines naming "
              f"empty.htm {sum('empty.htm' in line for line in console.splitlines())}; "
              f"console lines {len(console.splitlines())}")


# -- 7. markup ----------------------------------------------------------------------------
def markup() -> None:
    from graphrag_core.text.parsing import parse_markup

    print("\n7. markup")
    fonts = "<html><body><p>" + "".join(f"<font>w{i} " for i in range(400)) + "</p><p>tail</p></body></html>"
    parsed = parse_markup(fonts, True)
    words = len(re.findall(r"\bw\d+\b", parsed.text))
    print(f"   400 unclosed <font>: {words}/400 words kept, "
          f"text after them {'kept' if 'tail' in parsed.text else 'LOST'}; warnings {parsed.warnings}")
    deep = "<html><body>" + "<div>" * 400 + "deep words" + "</div>" * 400 + "<p>after them</p></body></html>"
    parsed = parse_markup(deep, True)
    print(f"   text nested 400 deep: {'kept' if 'deep words' in parsed.text else 'LOST'}; text "
          f"after it {'kept' if 'after them' in parsed.text else 'LOST'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=10_000, help="initialize calls")
    parser.add_argument("--slow", type=int, default=20, help="slow connections of each kind")
    parser.add_argument("--read-timeout", type=float, default=2.0, help="server read timeout (s)")
    parser.add_argument("--fault-seconds", type=float, default=2.0)
    parser.add_argument("--skip-ingest", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hostile-bench-"))
    try:
        data_root = work / "data"
        SnapshotStore(data_root).publish(sample.sample_tables())
        print(f"checkout {ROOT}")
        flood(data_root, work, args.flood)
        slow_clients(data_root, work, args.slow, args.read_timeout)
        stdio_lines(data_root, 200)
        snapshot_faults(work, args.fault_seconds)
        swaps(work, 16)
        if not args.skip_ingest:
            ingest_runs(work)
        markup()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
