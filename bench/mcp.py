"""MCP server latency at scale, against the floor of the same SQL run straight in DuckDB.

1. A synthetic snapshot (bench/_synthetic_snapshot.py: 5,000 companies × 40 periods × 15
   metrics, plus a second snapshot one quarter earlier), generated once under .bench/mcp.
2. Every tool through a real MCP client session (the SDK's in-memory transport): p50/p95 per
   tool. While it runs, the SQL each call executes is recorded; the floor is that same SQL,
   with the same parameters, replayed on a plain read-only DuckDB connection.
3. 32 concurrent clients over streamable HTTP against a server process, while LATEST is
   swapped between the two snapshots underneath them: errors (target: zero), latency, and
   which snapshot versions answered.

Figures, not pass/fail: targets are p95 < 50 ms and within 3x of the floor.

    python bench/mcp.py [--companies 5000] [--calls 200] [--clients 32] [--rebuild] [--small]

`--small`: the same with 20 companies, a few calls and two HTTP clients, under a temporary
folder (seconds), for the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path and this file would shadow the
# `mcp` SDK package; import from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from mcp import Client

from bench import _synthetic_snapshot
from graphrag_core.store import layout
from graphrag_core.store import reader as reader_module
from graphrag_core.store.publish import SnapshotStore
from mcp_server import build_server

TOOLS = (
    "find_company",
    "get_metrics",
    "screen_companies",
    "window_screen",
    "get_chunk",
    "explore_company",
    "get_financials",
    "status",
)
# Rows of the table that call another tool with their own arguments: the window screen (issue
# 23: "grew margins while cutting debt over the last three quarters") is screen_companies.
TOOL_OF = {"window_screen": "screen_companies"}
METRICS = [*_synthetic_snapshot.FLOW, *_synthetic_snapshot.INSTANT]


# -- the snapshots ------------------------------------------------------------------------
def ensure_snapshots(data_root: Path, companies: int, rebuild: bool) -> tuple[str, str]:
    marker = data_root / "bench.json"
    if not rebuild and marker.exists():
        info = json.loads(marker.read_text())
        store = SnapshotStore(data_root)
        if info.get("companies") == companies and {info["latest"], info["earlier"]} <= set(
            store.versions()
        ):
            layout.write_latest(store.root, info["latest"])
            print(f"reusing snapshots {info['earlier']} and {info['latest']} ({info['timings']})")
            return info["latest"], info["earlier"]
    if data_root.exists():
        import shutil

        shutil.rmtree(data_root)
    print(f"generating {companies} companies × 40 periods × 15 metrics ...", flush=True)
    latest, earlier, timings = _synthetic_snapshot.generate(data_root, companies)
    marker.write_text(
        json.dumps(
            {"companies": companies, "latest": latest, "earlier": earlier, "timings": timings}
        )
    )
    print(f"generated: {timings}")
    return latest, earlier


class Workload:
    """Arguments drawn from what both snapshots hold, so every call is valid on either."""

    def __init__(self, db_path: Path, seed: int = 11, window_limit: int | None = None):
        self.rng = random.Random(seed)
        # None: the tool's own default number of hits; a number measures larger answers.
        self.window_limit = window_limit
        con = duckdb.connect(str(db_path), read_only=True)
        self.companies = con.execute(
            "SELECT company_id, cik, name, tickers[1] FROM companies ORDER BY cik"
        ).fetchall()
        # Chunks of filings at least a year old are in both snapshots.
        self.chunks = [
            r[0]
            for r in con.execute(
                "SELECT chunk_id FROM (SELECT chunk_id, filing_id FROM chunks USING SAMPLE "
                "2000 ROWS "
                "(reservoir, 5)) JOIN filings USING (filing_id) "
                "WHERE filed_date < (SELECT max(filed_date) - 365 FROM filings)"
            ).fetchall()
        ]
        con.close()

    def args(self, tool: str) -> dict:
        r = self.rng
        company_id, cik, name, ticker = r.choice(self.companies)
        if tool == "find_company":
            return {
                "query": r.choice([name, ticker, name.split()[0], cik.lstrip("0"), name.lower()])
            }
        if tool == "get_metrics":
            return {
                "company_id": company_id,
                "metrics": r.sample(METRICS, 3),
                "periods": 8,
                "period_type": r.choice(["annual", "quarter"]),
            }
        if tool == "screen_companies":
            return r.choice(
                [
                    {"min_revenue_growth": 15},
                    {"min_revenue_growth": 5, "max_debt_to_equity": 0.7},
                    {"min_margin_trend": 1, "margin": "gross", "sort_by": "margin_trend"},
                    {"min_revenue": 5e9, "period_type": "quarter", "sort_by": "revenue"},
                ]
            )
        if tool == "window_screen":
            limit = {} if self.window_limit is None else {"limit": self.window_limit}
            return limit | r.choice(
                [
                    {
                        "period_type": "quarter",
                        "window": 3,
                        "min_margin_trend": 0,
                        "max_debt_change": 0,
                    },
                    {
                        "period_type": "quarter",
                        "window": 4,
                        "min_revenue_growth": 5,
                        "trend_basis": "sequential",
                    },
                    {
                        "period_type": "annual",
                        "window": 3,
                        "min_margin_trend": 0,
                        "margin": "gross",
                        "max_debt_change": -5,
                        "sort_by": "debt_change",
                    },
                ]
            )
        if tool == "get_chunk":
            return {"chunk_id": r.choice(self.chunks)}
        if tool == "explore_company":
            return {"company_id": r.choice([company_id, ticker])}
        if tool == "get_financials":  # a year both snapshots hold, or the latest
            period = r.choice([None, *(f"FY{y}" for y in range(2016, 2025))])
            return {
                "company_id": company_id,
                "statement": r.choice(["income", "balance", "cash_flow"]),
                **({"period": period} if period else {}),
            }
        return {}


# -- recording the SQL a tool runs --------------------------------------------------------
class SqlRecorder:
    """Wraps Snapshot.query to note (sql, params) of the call in progress."""

    def __init__(self):
        self.calls: list[tuple[str, object]] = []
        self._original = reader_module.Snapshot.query
        recorder = self

        def query(snap, sql, params=()):
            recorder.calls.append((sql, params))
            return recorder._original(snap, sql, params)

        reader_module.Snapshot.query = query

    def take(self) -> list[tuple[str, object]]:
        calls, self.calls = self.calls, []
        return calls

    def close(self) -> None:
        reader_module.Snapshot.query = self._original


def pct(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


# Answers per tool whose client-side schema check is timed (kept in memory during the run).
SCHEMA_CHECKS = 40


def pydantic_schema(server, name: str) -> dict:
    """The output schema pydantic writes for a tool's answer model (`$defs` references, nullable
    `anyOf`s): what the server published before `mcp_server.output_schemas`. Read through the
    server's private tool table: the SDK exposes only the published schema."""
    from pydantic import TypeAdapter

    model = server._tool_manager.get_tool(name).fn_metadata.output_model
    return TypeAdapter(model).json_schema()


def schema_checks(published: dict, original: dict, answers: list) -> dict[str, list[float]]:
    """Seconds the MCP Python client's check of each answer takes against each schema (a
    compiled validator and `best_match` over its errors, as `ClientSession` does), alternating."""
    from jsonschema import exceptions
    from jsonschema.validators import validator_for

    validators = {
        label: validator_for(schema)(schema)
        for label, schema in (("published", published), ("pydantic", original))
    }
    seconds: dict[str, list[float]] = defaultdict(list)
    for answer in answers * 3:
        for label, validator in validators.items():
            t = time.perf_counter()
            error = exceptions.best_match(validator.iter_errors(answer))
            seconds[label].append(time.perf_counter() - t)
            assert error is None, (label, error)
    return seconds


async def in_memory(
    data_root: Path, db_path: Path, calls: int, workload: Workload, tools: tuple[str, ...] = TOOLS
) -> dict:
    reader = reader_module.SnapshotReader(data_root)
    recorder = SqlRecorder()
    timings: dict[str, list[float]] = defaultdict(list)
    statements: dict[str, list[list]] = defaultdict(list)
    errors = 0
    answers: dict[str, list] = defaultdict(list)
    schemas: dict[str, tuple[dict, dict]] = {}
    try:
        server = build_server(reader)
        async with Client(server) as client:
            published = {t.name: t.output_schema for t in (await client.list_tools()).tools}
            for tool in tools:
                name = TOOL_OF.get(tool, tool)
                schemas[tool] = (published[name], pydantic_schema(server, name))
                for i in range(calls + 10):
                    args = workload.args(tool)
                    recorder.take()
                    t = time.perf_counter()
                    result = await client.call_tool(TOOL_OF.get(tool, tool), args)
                    elapsed = time.perf_counter() - t
                    sql = recorder.take()
                    if result.is_error:
                        errors += 1
                        print(f"  error {tool} {args}: {result.content[0].text[:200]}")
                    if i >= 10:  # warm-up calls are not counted
                        timings[tool].append(elapsed)
                        statements[tool].append(sql)
                        if not result.is_error and len(answers[tool]) < SCHEMA_CHECKS:
                            answers[tool].append(result.structured_content)
    finally:
        recorder.close()
        reader.close()

    con = duckdb.connect(str(db_path), read_only=True, config={"enable_external_access": False})
    floor: dict[str, list[float]] = defaultdict(list)
    for tool in tools:
        for call_sql in statements[tool]:
            t = time.perf_counter()
            for sql, params in call_sql:
                con.execute(sql, params).fetchall()
            floor[tool].append(time.perf_counter() - t)
    con.close()
    return {
        "timings": timings,
        "floor": floor,
        "checks": {t: schema_checks(*schemas[t], answers[t]) for t in tools},
        "errors": errors,
        "statements": {t: statistics.mean(len(s) for s in statements[t]) for t in tools},
    }


# -- HTTP under load with swaps -----------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data_root: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("GRAPHRAG_MCP_TOKEN", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcp_server",
            "--data-root",
            str(data_root),
            "--http",
            "--port",
            str(port),
            "--log-level",
            "WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start")


def swapper(
    root: Path, versions: list[str], interval: float, stop: threading.Event, count: list[int]
) -> None:
    i = 0
    while not stop.wait(interval):
        i += 1
        layout.write_latest(root, versions[i % 2])
        count[0] += 1


async def http_load(
    data_root: Path,
    versions: list[str],
    clients: int,
    calls: int,
    interval: float,
    workload: Workload,
) -> dict:
    port = free_port()
    proc = start_server(data_root, port)
    url = f"http://127.0.0.1:{port}/mcp"
    latencies: list[float] = []
    errors: list[str] = []
    seen: dict[str, int] = defaultdict(int)
    stop = threading.Event()
    swaps = [0]

    async def one_client(n: int) -> None:
        rng = random.Random(n)
        try:
            async with Client(url) as client:
                for _ in range(calls):
                    tool = rng.choice(TOOLS)
                    args = workload.args(tool)
                    t = time.perf_counter()
                    result = await client.call_tool(TOOL_OF.get(tool, tool), args)
                    latencies.append(time.perf_counter() - t)
                    if result.is_error:
                        errors.append(f"{tool}: {result.content[0].text[:200]}")
                    else:
                        seen[result.structured_content["snapshot"]] += 1
        except Exception as exc:  # a transport failure is an error of this run, reported below
            errors.append(f"client {n}: {type(exc).__name__}: {exc}")

    thread = threading.Thread(
        target=swapper,
        args=(layout.snapshots_root(data_root), versions, interval, stop, swaps),
        daemon=True,
    )
    try:
        started = time.perf_counter()
        thread.start()
        await asyncio.gather(*(one_client(n) for n in range(clients)))
        wall = time.perf_counter() - started
    finally:
        stop.set()
        thread.join()
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            # A server that outlives its SIGTERM is a finding of this run, not a reason to lose
            # the figures measured before it: reported with the errors (the run exits 1).
            proc.kill()
            proc.wait()
            errors.append("server: still running 30 s after SIGTERM (killed)")
        layout.write_latest(layout.snapshots_root(data_root), versions[0])
    return {
        "latencies": latencies,
        "errors": errors,
        "seen": dict(seen),
        "swaps": swaps[0],
        "wall": wall,
    }


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=ROOT / ".bench" / "mcp")
    parser.add_argument("--companies", type=int, default=5_000)
    parser.add_argument(
        "--calls", type=int, default=200, help="measured calls per tool (in memory)"
    )
    parser.add_argument("--clients", type=int, default=32, help="concurrent HTTP clients")
    parser.add_argument("--client-calls", type=int, default=20, help="calls per HTTP client")
    parser.add_argument(
        "--swap-interval", type=float, default=0.5, help="seconds between LATEST swaps"
    )
    parser.add_argument(
        "--tools",
        nargs="+",
        choices=TOOLS,
        default=list(TOOLS),
        help="rows of the in-memory table to measure (all by default)",
    )
    parser.add_argument(
        "--window-limit",
        type=int,
        default=None,
        help="hits a window screen asks for (default: the tool's own default)",
    )
    parser.add_argument("--rebuild", action="store_true", help="regenerate the synthetic snapshots")
    parser.add_argument("--small", action="store_true", help="tiny inputs (seconds)")
    args = parser.parse_args(argv)
    if args.small:
        from bench._small import work_folder

        with work_folder("mcp") as tmp:
            small = {"data_root": tmp / "mcp", "companies": 20, "calls": 3, "clients": 2}
            return measure(
                argparse.Namespace(
                    **{**vars(args), **small, "client_calls": 3, "swap_interval": 0.2}
                )
            )
    return measure(args)


def measure(args: argparse.Namespace) -> int:
    # Figures on stdout; the SDK's and httpx's per-request INFO logs would bury them.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    latest, earlier = ensure_snapshots(args.data_root, args.companies, args.rebuild)
    store = SnapshotStore(args.data_root)
    db_path = store.database_path(latest)
    manifest = store.manifest(latest)
    print(
        f"snapshot {latest}: {manifest.database.bytes / 2**20:.0f} MiB, "
        f"{manifest.counts['metric_observations']:,} observations, "
        f"{manifest.counts['companies']:,} companies, "
        f"{manifest.counts['chunks']:,} chunks; cpus: {os.cpu_count()}"
    )
    workload = Workload(store.database_path(earlier), window_limit=args.window_limit)

    tools = tuple(t for t in TOOLS if t in args.tools)
    result = asyncio.run(in_memory(args.data_root, db_path, args.calls, workload, tools))
    print(
        f"\nin-memory MCP client session, {args.calls} calls per tool ({result['errors']} errors)"
    )
    print(
        f"{'tool':<18}{'p50 ms':>9}{'p95 ms':>9}{'floor p50':>11}{'floor p95':>11}"
        f"{'x p50':>8}{'x p95':>8}{'sql/call':>10}"
    )
    for tool in tools:
        t, f = result["timings"][tool], result["floor"][tool]
        p50, p95, f50, f95 = pct(t, 50), pct(t, 95), pct(f, 50), pct(f, 95)
        print(
            f"{tool:<18}{ms(p50):>9}{ms(p95):>9}{ms(f50):>11}{ms(f95):>11}"
            f"{p50 / f50:>8.1f}{p95 / f95:>8.1f}{result['statements'][tool]:>10.1f}"
        )

    print(
        f"\nthe client's schema check of an answer, {SCHEMA_CHECKS} answers x 3 (alternating): "
        "as published vs pydantic's schema ($defs references, nullable anyOf)"
    )
    for tool in tools:
        check = result["checks"][tool]
        if not check["published"]:
            continue
        pub, orig = check["published"], check["pydantic"]
        print(
            f"{tool:<18} p50 {ms(pct(pub, 50)).strip()} ms vs {ms(pct(orig, 50)).strip()} ms, "
            f"p95 {ms(pct(pub, 95)).strip()} ms vs {ms(pct(orig, 95)).strip()} ms"
        )

    load = asyncio.run(
        http_load(
            args.data_root,
            [latest, earlier],
            args.clients,
            args.client_calls,
            args.swap_interval,
            workload,
        )
    )
    lat = load["latencies"]
    print(
        f"\nHTTP: {args.clients} concurrent clients × {args.client_calls} calls, LATEST swapped "
        f"{load['swaps']} times underneath"
    )
    print(
        f"  calls {len(lat)}, errors {len(load['errors'])}, {len(lat) / load['wall']:.0f} calls/s, "
        f"p50 {ms(pct(lat, 50)).strip()} ms, p95 {ms(pct(lat, 95)).strip()} ms"
    )
    print(f"  answers by snapshot: {load['seen']}")
    for err in load["errors"][:10]:
        print(f"  error: {err}")
    return 1 if load["errors"] or result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
