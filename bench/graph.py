"""The graph stage at scale: build time and peak memory, one filing added against a full build,
and `neighbors` at two hops through a real MCP session against the same SQL in DuckDB.

Two worlds, each measured the same way:

1. the corpus: every filing of ../shared/corpus through the pipeline (`filings-graph ingest`,
   run once into .bench/graph-corpus and reused), or the data root given by --corpus-data;
2. a synthetic graph (bench/_synthetic_graph.py: 5,000 companies, ~1,000,000 edges, generated
   once into .bench/graph and reused).

For each: a full build from scratch (resolved_entities + knowledge_graph over every partition)
in a fresh process (time, peak RSS); then the newest filing removed and added back again,
incrementally, --cycles times (median time and CPU time, peak RSS; the spread of the adds); the
ratio add / full (target < 5%), by time and by CPU time (which the machine's load moves less). Then
a
snapshot is published and `neighbors(hops=2)` is called through an in-memory MCP client session;
the SQL each call ran is replayed on a plain read-only DuckDB connection (the floor); both sides
run their calls twice and are timed the second time (warm). p50/p95 of both (targets: p95 < 50 ms
and within 3x of the floor), with the MCP SDK client's own output-schema check shown apart, and
the load average of the machine.

With --other-calls N, graph_path and explore_company are timed the same way (N calls each).

With --publication, only the corpus's publication share is printed (issue 22): a graph built
from scratch by this checkout's resolution, then per relation the claims the gates accepted,
those published, those kept out as no organisation, and those withheld by the review queue
(targets: ≥ 95% published for every relation, 0 withheld).

    python bench/graph.py [--companies 5000] [--calls 200] [--cycles 5] [--other-calls 0]
    [--rebuild] [--skip-corpus] [--skip-synthetic]
    python bench/graph.py --small

`--small`: every part above (the publication share too) on a few small corpus filings
(bench/_small.py) and 30 synthetic companies, five calls and one cycle, under a temporary folder
(for the test suite).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path and bench/mcp.py would shadow the
# `mcp` SDK package; import from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import duckdb
from mcp import Client

from bench.mcp import SqlRecorder, pct
from graphrag_core.graph.graph_store import GraphStore, Reference, reference_source
from graphrag_core.settings import GraphSettings
from graphrag_core.store import reader as reader_module
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.table_store import TableStore
from mcp_server import build_server

BENCH = ROOT / ".bench"


# -- one measured step, in a process of its own ----------------------------------------------
def _reference(spec: str) -> Reference:
    """The reference rows as the pipeline reads them (assets/graph.py), with the identity of
    their files (`reference_source`), read before the timed update as the rows are."""
    path = Path(spec)
    if path.suffix == ".json":
        return Reference(json.loads(path.read_text()), {}, source=reference_source([path]))
    from graphrag_core.graph.companies import collect_reference
    from graphrag_core.intake.local_folder import LocalFolderSource

    source = LocalFolderSource(path)
    ciks = _filer_ciks(path)
    identity = reference_source(source.reference_files(ciks))
    ref = collect_reference(ciks, source.company_tickers, source.submissions)
    return Reference(ref.tickers, ref.submissions, source=identity)


def _filer_ciks(corpus: Path) -> list[str]:
    manifest = json.loads((corpus / "manifest.json").read_text())
    return sorted({m["cik"] for m in manifest if m.get("cik")})


def step(args: argparse.Namespace) -> None:
    """--step full|remove|add: one update of the graph store, printed as JSON."""
    data = Path(args.data)
    db = Path(args.db)
    reference = _reference(args.reference)
    tables = TableStore(data)
    present = tables.partitions("raw_filings")
    if args.step == "full":
        db.unlink(missing_ok=True)
    elif args.step == "remove":
        present = [f for f in present if f != args.filing]
    settings = GraphSettings()  # the pipeline's GraphResource holds its settings already
    t0, c0 = time.perf_counter(), time.process_time()
    with GraphStore(
        db,
        memory_limit_mb=settings.memory_limit_mb,
        single_thread_below_mb=settings.single_thread_below_mb,
    ) as store:
        entities = store.update_entities(tables, reference, filing_ids=present)
        t1 = time.perf_counter()
        graph = store.update_graph()
        t2, c2 = time.perf_counter(), time.process_time()
        counts = store.counts()
    print(
        json.dumps(
            {
                "step": args.step,
                "entities_s": round(t1 - t0, 3),
                "graph_s": round(t2 - t1, 3),
                "total_s": round(t2 - t0, 4),
                "cpu_s": round(c2 - c0, 4),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                "filings_read": len(entities.added) + len(entities.changed),
                "mentions_resolved": entities.mentions_resolved,
                "evidence_added": graph.evidence_added,
                "evidence_removed": graph.evidence_removed,
                "edges": counts["edges"],
                "evidence": counts["evidence"],
                "nodes": sum(counts["nodes_by_type"].values()),
                "review_queue": counts["review_queue"],
            }
        )
    )


def run_step(name: str, data: Path, db: Path, reference: str, filing: str | None = None) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--step",
        name,
        "--data",
        str(data),
        "--db",
        str(db),
        "--reference",
        reference,
    ]
    if filing:
        cmd += ["--filing", filing]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise SystemExit(f"step {name} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- neighbors through MCP vs the floor -----------------------------------------------------
class ClientCheckTimer:
    """Times the MCP SDK client's own check of each result against the tool's output schema
    (`ClientSession.validate_tool_result`, jsonschema in pure Python): client work, proportional
    to the size of the answer, that no server change removes; printed beside the total."""

    def __init__(self):
        from mcp.client.session import ClientSession

        self._cls = ClientSession
        self._original = ClientSession.validate_tool_result
        self.seconds = 0.0
        timer = self

        async def validate_tool_result(session, name, result):
            t = time.perf_counter()
            try:
                return await timer._original(session, name, result)
            finally:
                timer.seconds += time.perf_counter() - t

        ClientSession.validate_tool_result = validate_tool_result

    def take(self) -> float:
        seconds, self.seconds = self.seconds, 0.0
        return seconds

    def close(self) -> None:
        self._cls.validate_tool_result = self._original


async def neighbors_latency(data_root: Path, calls: int, seed: int = 5) -> dict:
    """`calls` two-hop calls through an MCP client session, then the SQL each ran on a plain
    connection (see `tool_latency`)."""
    entities = _graph_entities(data_root)
    rng = random.Random(seed)
    workload = [{"entity_id": rng.choice(entities), "hops": 2, "limit": 25} for _ in range(calls)]
    return {**await tool_latency(data_root, "neighbors", workload), "entities": len(entities)}


def _graph_entities(data_root: Path, companies_only: bool = False) -> list[str]:
    """Companies and organizations with edges (`companies_only`: the snapshot's companies)."""
    store = SnapshotStore(data_root)
    con = duckdb.connect(str(store.database_path(store.current_version())), read_only=True)
    sql = (
        "SELECT c.company_id FROM companies c JOIN nodes n ON n.entity_id = c.company_id "
        "WHERE n.degree > 0 ORDER BY 1"
        if companies_only
        else "SELECT entity_id FROM nodes WHERE entity_type IN ('company', 'organization') AND "
        "degree > 0 ORDER BY 1"
    )
    try:
        return [r[0] for r in con.execute(sql).fetchall()]
    finally:
        con.close()


async def tool_latency(data_root: Path, tool: str, workload: list[dict]) -> dict:
    """Each call of `workload` through an MCP client session, then the SQL each ran on a plain
    connection. Each side runs the whole list twice and is timed the second time, so both read
    from a warm buffer pool: the comparison is of what the server adds, not of cold reads."""
    store = SnapshotStore(data_root)
    db_path = store.database_path(store.current_version())
    reader = reader_module.SnapshotReader(data_root)
    recorder = SqlRecorder()
    checks = ClientCheckTimer()
    timings, statements, client_checks, errors = [], [], [], 0
    try:
        async with Client(build_server(reader)) as client:
            for timed in (False, True):
                for args in workload:
                    recorder.take()
                    checks.take()
                    t = time.perf_counter()
                    result = await client.call_tool(tool, args)
                    elapsed = time.perf_counter() - t
                    sql = recorder.take()
                    if result.is_error:
                        errors += timed
                        print(f"  error {args}: {result.content[0].text[:200]}")
                    if timed:
                        timings.append(elapsed)
                        statements.append(sql)
                        client_checks.append(checks.take())
    finally:
        checks.close()
        recorder.close()
        reader.close()
    con = duckdb.connect(str(db_path), read_only=True, config={"enable_external_access": False})
    floor = []
    for timed in (False, True):
        for call_sql in statements:
            t = time.perf_counter()
            for sql, params in call_sql:
                con.execute(sql, params).fetchall()
            if timed:
                floor.append(time.perf_counter() - t)
    con.close()
    return {
        "timings": timings,
        "floor": floor,
        "client_checks": client_checks,
        "errors": errors,
        "statements": sum(len(s) for s in statements) / max(len(statements), 1),
    }


def other_tools(data_root: Path, calls: int, seed: int = 7) -> None:
    """graph_path and explore_company, measured as neighbors is (fewer calls: figures, no
    targets)."""
    rng = random.Random(seed)
    entities = [e for e in _graph_entities(data_root) if len(e) <= 128]  # the tools' id limit
    companies = _graph_entities(data_root, companies_only=True)
    workloads = {
        "graph_path": [
            {"from_id": rng.choice(entities), "to_id": rng.choice(entities)} for _ in range(calls)
        ],
        "explore_company": [{"company_id": rng.choice(companies)} for _ in range(calls)],
    }
    for tool, workload in workloads.items():
        result = asyncio.run(tool_latency(data_root, tool, workload))
        tool_t, floor = result["timings"], result["floor"]
        print(
            f"  {tool} x{len(tool_t)}, {result['errors']} errors, "
            f"{result['statements']:.1f} statements a call: "
            f"MCP p50 {pct(tool_t, 50) * 1e3:6.1f} p95 {pct(tool_t, 95) * 1e3:6.1f} ms; "
            "DuckDB floor p50 "
            f"{pct(floor, 50) * 1e3:6.1f} p95 {pct(floor, 95) * 1e3:6.1f} ms",
            flush=True,
        )


def publish(data_root: Path, db: Path, reference: Reference) -> tuple[str, float, dict]:
    from graphrag_core.graph.companies import CompanyReference
    from graphrag_core.graph.snapshot_inputs import gather_snapshot_tables

    t = time.perf_counter()
    with GraphStore(db) as graph:
        graph_tables = graph.tables()
    tables = gather_snapshot_tables(
        TableStore(data_root),
        CompanyReference(list(reference.tickers), dict(reference.submissions)),
        graph_tables,
    )
    manifest = SnapshotStore(data_root, retain=2).publish(tables)
    return manifest.version, time.perf_counter() - t, manifest.counts


def measure(
    label: str,
    data_root: Path,
    reference_spec: str,
    reference: Reference,
    calls: int,
    other_calls: int = 0,
    cycles: int = 5,
) -> None:
    db = data_root / "graph" / "bench.duckdb"
    tables = TableStore(data_root)
    filings = tables.scan("raw_filings").select("filing_id", "filed_date").collect()
    newest = filings.sort(["filed_date", "filing_id"], nulls_last=False).item(-1, "filing_id")
    print(f"\n== {label}: {filings.height} filings ==", flush=True)
    full = run_step("full", data_root, db, reference_spec)
    # Remove and add back `cycles` times, each in a fresh process; the median of each is shown
    # with the spread of the adds (one filing's update is a tenth of a second: on a loaded
    # machine a single run mostly measures the load).
    runs = [
        (
            run_step("remove", data_root, db, reference_spec, newest),
            run_step("add", data_root, db, reference_spec, newest),
        )
        for _ in range(cycles)
    ]
    removed = sorted((c[0] for c in runs), key=lambda r: r["total_s"])[cycles // 2]
    adds = sorted((c[1] for c in runs), key=lambda r: r["total_s"])
    added = adds[cycles // 2]
    print(
        f"  graph: {full['nodes']:,} nodes, {full['edges']:,} edges, {full['evidence']:,} "
        "citations, "
        f"review queue {full['review_queue']:,}"
    )
    print(f"  {'':<28}{'seconds':>9}{'entities':>10}{'graph':>9}{'CPU s':>9}{'peak RSS':>11}")
    for name, r in (
        ("full build", full),
        (f"remove one filing ({newest})", removed),
        (f"add it back (median of {cycles})", added),
    ):
        print(
            f"  {name[:27]:<28}{r['total_s']:>9.3f}{r['entities_s']:>10.3f}"
            f"{r['graph_s']:>9.3f}{r['cpu_s']:>9.3f}"
            f"{r['peak_rss_mb']:>8} MB"
        )
    ratio = added["total_s"] / full["total_s"]
    print(
        f"  add one filing / full build: {ratio:.1%}  (target < 5%: "
        f"{'met' if ratio < 0.05 else 'NOT met'}); "
        f"adds {adds[0]['total_s']:.3f}-{adds[-1]['total_s']:.3f} s "
        f"({adds[0]['total_s'] / full['total_s']:.1%}-"
        f"{adds[-1]['total_s'] / full['total_s']:.1%}); by CPU time "
        f"{added['cpu_s'] / full['cpu_s']:.1%}"
    )
    assert (added["edges"], added["evidence"]) == (full["edges"], full["evidence"]), (
        "add-back differs from full build"
    )

    version, seconds, counts = publish(data_root, db, reference)
    print(
        f"  snapshot {version} published in {seconds:.1f}s (edges {counts.get('edges'):,}, "
        f"graph_adjacency {counts.get('graph_adjacency'):,})",
        flush=True,
    )
    result = asyncio.run(neighbors_latency(data_root, calls))
    tool, floor = result["timings"], result["floor"]
    p50, p95, f50, f95 = (
        pct(tool, 50) * 1e3,
        pct(tool, 95) * 1e3,
        pct(floor, 50) * 1e3,
        pct(floor, 95) * 1e3,
    )
    print(
        f"  neighbors(hops=2) x{len(tool)} over {result['entities']:,} entities, "
        f"{result['errors']} errors"
    )
    print(
        f"    MCP session   p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  (target p95 < 50 ms: "
        f"{'met' if p95 < 50 else 'NOT met'})"
    )
    print(
        f"    DuckDB floor  p50 {f50:6.1f} ms  p95 {f95:6.1f} ms  ratio p95 {p95 / f95:.1f}x "
        f"(target <= 3x: {'met' if p95 <= 3 * f95 else 'NOT met'})"
    )
    check = result["client_checks"]
    rest = [t - c for t, c in zip(tool, check, strict=True)]
    c50, c95, r50, r95 = (
        pct(check, 50) * 1e3,
        pct(check, 95) * 1e3,
        pct(rest, 50) * 1e3,
        pct(rest, 95) * 1e3,
    )
    print(
        f"    of the MCP session: the SDK client's output-schema check  p50 {c50:6.1f} ms  "
        f"p95 {c95:6.1f} ms;"
    )
    print(
        f"      the rest (server, transport)  p50 {r50:6.1f} ms  p95 {r95:6.1f} ms  ratio "
        "p95 to the floor "
        f"{r95 / f95:.1f}x"
    )
    print(
        f"    (load average while measuring: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
        f"on {os.cpu_count()} cores)"
    )
    if other_calls:
        other_tools(data_root, other_calls)
        print(f"    (load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())})")


def publication(data: Path, reference: Reference, db: Path = BENCH / "publication.duckdb") -> None:
    """The corpus's claims per relation, resolved from scratch by this checkout (a stored graph
    keeps the resolutions of the code that built it)."""
    from pipelines.commands.status import publication_lines

    db.parent.mkdir(parents=True, exist_ok=True)
    db.unlink(missing_ok=True)
    with GraphStore(db) as store:
        store.update_entities(TableStore(data), reference)
        store.update_graph()
        rows = store.publication()
    print(
        f"{'relation':<16} {'accepted':>9} {'published':>10} {'share':>7} {'not_org':>8} "
        f"{'withheld':>9}"
    )
    for r in rows:
        print(
            f"{r.relation:<16} {r.accepted:>9} {r.published:>10} {r.share:>7.1%} "
            f"{r.not_org:>8} {r.withheld:>9}"
        )
    print("\n".join(publication_lines(rows)))
    db.unlink(missing_ok=True)


def corpus_data(args: argparse.Namespace) -> Path:
    if args.corpus_data:
        return Path(args.corpus_data).resolve()
    root = BENCH / "graph-corpus"
    if args.rebuild and root.exists():
        shutil.rmtree(root)
    if not (root / "tables" / "validated_triples").is_dir():
        from graphrag_core.settings import Settings, default_corpus
        from pipelines.ingest import ingest

        corpus = default_corpus()
        if corpus is None:
            raise SystemExit("no corpus: pass --corpus-data or put the corpus at ../shared/corpus")
        print(f"ingesting {corpus} into {root} (once; reused afterwards) ...", flush=True)
        report = ingest(Settings(data_root=root, corpus=corpus))
        print(
            f"  {len(report.outcomes)} filings in {report.seconds:.0f}s, "
            f"{len(report.failed)} failed"
        )
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--companies", type=int, default=5_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument(
        "--cycles", type=int, default=5, help="remove/add-back cycles (median shown)"
    )
    parser.add_argument(
        "--other-calls",
        type=int,
        default=0,
        help="also time graph_path and explore_company this many calls each",
    )
    parser.add_argument("--rebuild", action="store_true", help="regenerate the inputs")
    parser.add_argument(
        "--corpus-data",
        help="a data root the corpus was ingested into (e.g. ./data after make demo)",
    )
    parser.add_argument(
        "--synthetic-data", help="where the synthetic inputs are (default .bench/graph)"
    )
    parser.add_argument("--skip-corpus", action="store_true")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument(
        "--publication",
        action="store_true",
        help="print accepted vs published claims per relation for the corpus, and stop",
    )
    parser.add_argument("--step", choices=["full", "remove", "add"], help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--reference", help=argparse.SUPPRESS)
    parser.add_argument("--filing", help=argparse.SUPPRESS)
    parser.add_argument("--small", action="store_true", help="tiny inputs (seconds)")
    args = parser.parse_args(argv)
    if args.step:
        step(args)
        return 0
    logging_quiet()
    if args.small:
        return small()
    if args.publication:
        from graphrag_core.settings import default_corpus

        corpus = default_corpus()
        if corpus is None:
            raise SystemExit("no corpus: set FILINGS_CORPUS or put the corpus at ../shared/corpus")
        publication(corpus_data(args), _reference(str(corpus)))
        return 0
    if not args.skip_corpus:
        from graphrag_core.settings import default_corpus

        root = corpus_data(args)
        corpus = default_corpus()
        assert corpus is not None
        measure(
            "corpus",
            root,
            str(corpus),
            _reference(str(corpus)),
            args.calls,
            args.other_calls,
            args.cycles,
        )
    if not args.skip_synthetic:
        root = Path(args.synthetic_data).resolve() if args.synthetic_data else BENCH / "graph"
        synthetic(root, args.companies, args.calls, args.other_calls, args.cycles, args.rebuild)
    return 0


def synthetic(
    root: Path, companies: int, calls: int, other_calls: int, cycles: int, rebuild: bool
) -> None:
    from bench import _synthetic_graph

    marker = root / "bench.json"
    info = json.loads(marker.read_text()) if marker.exists() and not rebuild else None
    if info is None or info["companies"] != companies:
        shutil.rmtree(root, ignore_errors=True)
        print(f"\ngenerating {companies:,} companies (once; reused afterwards) ...", flush=True)
        info = _synthetic_graph.generate(root, companies)
        marker.write_text(json.dumps(info))
        print(f"  {info}")
    (root / "tickers.json").write_text(json.dumps(_synthetic_graph.ticker_rows(companies)))
    spec = str(root / "tickers.json")
    measure(
        f"synthetic, {companies:,} companies",
        root,
        spec,
        _reference(spec),
        calls,
        other_calls,
        cycles,
    )


def small() -> int:
    """Both worlds and the publication share on tiny inputs, under a temporary folder."""
    from bench._small import corpus, corpus_data, corpus_subset, work_folder

    with work_folder("graph") as tmp:
        source = corpus_subset(corpus(None), tmp / "corpus")
        root = corpus_data(source, tmp / "corpus-data")
        reference = _reference(str(source))
        publication(root, reference, tmp / "publication.duckdb")
        measure("corpus", root, str(source), reference, calls=5, other_calls=2, cycles=1)
        synthetic(tmp / "synthetic", 30, calls=5, other_calls=2, cycles=1, rebuild=True)
    return 0


def logging_quiet() -> None:
    import logging

    logging.getLogger().setLevel(logging.WARNING)
    for name in ("mcp", "graphrag_core", "httpx"):
        logging.getLogger(name).setLevel(logging.WARNING)


if __name__ == "__main__":
    sys.exit(main())
