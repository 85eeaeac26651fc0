"""Communities at scale: hierarchical Leiden time and peak memory, the refresh of 1% dirty
communities against a full refresh, and `community_themes` through a real MCP session.

1. Hierarchical Leiden (`graph.communities.clustering`, igraph's Leiden, seeded, split until
   every community is under GRAPHRAG_COMMUNITIES_MAX_SIZE), each in a fresh process (time, peak
   RSS): on the corpus graph (every filing of ../shared/corpus through the pipeline, ingested
   once into .bench/graph-corpus and reused, as bench/graph.py does), and on a synthetic
   projection of 1,000,000 weighted edges with planted groups of skewed sizes (target under
   15 s). Beside it, one level of the same synthetic graph by igraph's Leiden and by leidenalg
   (the two libraries the issue names), with their modularity.
2. Reports: every community summarized from scratch (the full refresh), then an update that
   gives random relations one more citation until 1% of the communities change (the real path:
   the edges change, their ends are recorded in `graph_changes`, `apply_changes` marks their
   communities dirty and clears those whose edges did not change), and the scheduled refresh
   that re-summarizes only the dirty ones (target: under 5% of the full refresh). On the
   corpus graph and on a synthetic knowledge graph (companies, organizations, relations with
   evidence, risk exposures). Printed beside it: the share of the edges the dirty communities
   own (what a refresh must read again; the rest of its time is fixed cost).
3. The corpus snapshot published with its communities; `community_themes` called through an
   in-memory MCP client session with a mix of sector and word questions: p50/p95.
4. Themes from the filings' risk factors (`filing_themes`, issue 25): the corpus through the
   pipeline's `ingest` into a fresh data root (.bench/themes-corpus), and the filing_themes
   step's seconds against the corpus job's (target: under 10%); then the build in process from
   scratch (every factor embedded) and again with the vectors kept (what a refresh costs).

    python bench/communities.py [--edges 1000000] [--refresh-edges 1000000] [--calls 200]
                                [--skip-leidenalg] [--skip-corpus] [--skip-synthetic]
                                [--themes-only]
    python bench/communities.py --small

`--small`: every part above on a few small corpus filings (bench/_small.py) and 3,000 synthetic
pairs, five calls, under a temporary folder (for the test suite); not the filing themes' share,
which needs a corpus job run by `ingest` (Dagster's step stats).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
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
import numpy as np
import polars as pl

from graphrag_core.graph.communities.clustering import (
    Projection,
    hierarchical_leiden,
    leiden,
)
from graphrag_core.graph.communities.store import CommunityStore, parameters
from graphrag_core.graph.communities.view import GraphView
from graphrag_core.graph.graph_store import GraphStore
from graphrag_core.settings import CommunitySettings

BENCH = ROOT / ".bench"
RELATIONS = ("SUPPLIES", "CUSTOMER_OF", "COMPETES_WITH", "SUBSIDIARY_OF")


def peak_rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def rss_mb() -> int:
    """The resident set now (Linux), to tell what Leiden adds from what building its input left."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024)
    return 0


# -- a synthetic graph -----------------------------------------------------------------------
def synthetic_pairs(edges: int, seed: int = 5) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """`edges` distinct undirected weighted pairs over `edges / 5` nodes: groups of lognormal
    sizes (a few hundred nodes at most, most a dozen), 85% of pairs inside a group, the rest
    anywhere (what the knowledge graph looks like: dense industries, sparse links across)."""
    rng = np.random.default_rng(seed)
    n = max(10, edges // 5)
    sizes = np.clip(rng.lognormal(2.6, 0.9, n).astype(np.int64), 2, 400)
    sizes = sizes[np.cumsum(sizes) <= n]
    group = np.repeat(np.arange(sizes.size), sizes)
    group = np.concatenate([group, rng.integers(0, sizes.size, n - group.size)])
    count = np.bincount(group)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    by_group = np.argsort(group, kind="stable")
    drawn = int(edges * 1.25)
    inside = int(drawn * 0.85)
    src = rng.integers(0, n, drawn)
    g = group[src[:inside]]
    dst = np.concatenate(
        [
            by_group[start[g] + (rng.random(inside) * count[g]).astype(np.int64)],
            rng.integers(0, n, drawn - inside),
        ]
    )
    keep = src != dst
    a, b = np.minimum(src, dst)[keep], np.maximum(src, dst)[keep]
    _, first = np.unique(a.astype(np.int64) * n + b, return_index=True)
    first = np.sort(rng.permutation(first)[:edges])
    weight = rng.integers(1, 6, first.size).astype(np.float64)
    return n, a[first], b[first], weight


def synthetic_projection(edges: int) -> Projection:
    n, a, b, w = synthetic_pairs(edges)
    order = np.lexsort((b, a))
    return Projection([f"ORG:n{i:07d}" for i in range(n)], a[order], b[order], w[order])


def synthetic_view(edges: int, risks_per_company: int = 3, seed: int = 9) -> GraphView:
    """A knowledge graph in the shape the communities stage reads (`GraphView`): one in five
    entities a company (with a filing), the rest organizations; the synthetic pairs as
    relations with one citation each; each company exposed to a few of 30 risk categories."""
    n, a, b, w = synthetic_pairs(edges)
    rng = np.random.default_rng(seed)
    is_company = np.arange(n) % 5 == 0
    ids = np.asarray(
        [f"CIK-{i:010d}" if is_company[i] else f"ORG:n{i:07d}" for i in range(n)], dtype=object
    )
    companies = np.flatnonzero(is_company)
    filing_of = {int(c): f"{c:010d}-25-000001" for c in companies}
    risks = [f"RISK:r{i:02d}" for i in range(30)]
    rel = np.asarray(RELATIONS, dtype=object)[rng.integers(0, len(RELATIONS), a.size)]
    # Each relation is stated in a filing of one of its companies (the subject if it is one).
    stated_by = np.where(
        is_company[a],
        a,
        np.where(is_company[b], b, companies[rng.integers(0, companies.size, a.size)]),
    )
    edge_ids = [f"e{i:08d}" for i in range(a.size)]
    r_sub = np.repeat(companies, risks_per_company)
    r_obj = np.asarray(risks, dtype=object)[rng.integers(0, len(risks), r_sub.size)]
    edges_frame = pl.DataFrame(
        {
            "edge_id": edge_ids + [f"r{i:08d}" for i in range(r_sub.size)],
            "subject_id": list(ids[a]) + list(ids[r_sub]),
            "relation": list(rel) + ["EXPOSED_TO_RISK"] * r_sub.size,
            "object_id": list(ids[b]) + list(r_obj),
            "evidence_count": np.concatenate([w.astype(np.int64), rng.integers(1, 4, r_sub.size)]),
            "superseded_by": pl.Series([None] * (a.size + r_sub.size), dtype=pl.String),
        }
    ).unique(["subject_id", "relation", "object_id"], keep="first", maintain_order=True)
    filing_col = [filing_of[int(c)] for c in stated_by] + [filing_of[int(c)] for c in r_sub]
    evidence = (
        pl.DataFrame(
            {
                "edge_id": edge_ids + [f"r{i:08d}" for i in range(r_sub.size)],
                "filing_id": filing_col,
            }
        )
        .join(edges_frame.select("edge_id", "subject_id", "relation", "object_id"), on="edge_id")
        .with_columns(
            ("v" + pl.col("edge_id")).alias("evidence_id"),
            (pl.col("filing_id") + ":" + (pl.col("edge_id").str.slice(-3)).str.zfill(4)).alias(
                "chunk_id"
            ),
            pl.format(
                "{} {} {} (synthetic evidence).", "subject_id", "relation", "object_id"
            ).alias("quote"),
            pl.lit(0, dtype=pl.Int64).alias("char_start"),
        )
        .select("edge_id", "evidence_id", "filing_id", "chunk_id", "quote", "char_start")
    )
    entities = pl.DataFrame(
        {
            "entity_id": list(ids) + risks,
            "entity_type": ["company" if c else "organization" for c in is_company]
            + ["risk"] * len(risks),
            "name": [f"Company {i}" if is_company[i] else f"Organization {i}" for i in range(n)]
            + [f"risk category {i}" for i in range(len(risks))],
        }
    )
    filings = pl.DataFrame(
        {
            "filing_id": list(filing_of.values()),
            "cik": [f"{c:010d}" for c in filing_of],
            "form": "10-K",
            "fiscal_label": "FY2025",
            "filed_date": pl.Series([None] * len(filing_of), dtype=pl.Date),
            "digest": [f"sha-{c}" for c in filing_of],
        }
    ).with_columns(pl.lit("2025-03-01").str.to_date().alias("filed_date"))
    con = duckdb.connect()
    for name, frame in (
        ("edges", edges_frame),
        ("edge_evidence", evidence),
        ("entities", entities),
        ("filings", filings),
    ):
        con.register(f"_{name}", frame.to_arrow())
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM _{name}").fetchall()
        con.unregister(f"_{name}")
    con.execute("CREATE TABLE graph_changes (update_id BIGINT, entity_id VARCHAR)").fetchall()
    con.execute(
        "CREATE TABLE graph_updates (update_id BIGINT, filing_ids VARCHAR[], "
        "edges_touched BIGINT, entities_touched BIGINT)"
    ).fetchall()
    con.execute("INSERT INTO graph_updates VALUES (1, [], 0, 0)").fetchall()
    return GraphView(con, owned=True)


# -- 1. hierarchical Leiden, one process per measurement -------------------------------------
def step_leiden(args: argparse.Namespace) -> dict:
    settings = CommunitySettings()
    params = parameters(settings)
    if args.world == "corpus":
        with GraphStore.under(Path(args.data), read_only=True) as graph:
            store = CommunityStore(None)
            t = time.perf_counter()
            report = store.cluster(GraphView.of_store(graph), settings)
            seconds = time.perf_counter() - t
            store.close()
        return {
            "nodes": report.nodes,
            "pairs": report.pairs,
            "communities": report.communities,
            "leiden_s": report.leiden_s,
            "seconds": seconds,
            "levels": report.levels,
            "peak_rss_mb": peak_rss_mb(),
        }
    t = time.perf_counter()
    proj = synthetic_projection(args.edges)
    generated = time.perf_counter() - t
    import gc

    gc.collect()
    base_rss = rss_mb()
    t = time.perf_counter()
    h = hierarchical_leiden(proj, params)
    seconds = time.perf_counter() - t
    return {
        "nodes": proj.nodes,
        "pairs": proj.edges,
        "communities": h.count,
        "leiden_s": seconds,
        "seconds": seconds,
        "generated_s": generated,
        "levels": [lv.__dict__ for lv in h.levels],
        "rss_before_mb": base_rss,
        "peak_rss_mb": peak_rss_mb(),
    }


def step_one_level(args: argparse.Namespace) -> dict:
    """One level (no recursion) of the synthetic graph by igraph's Leiden or by leidenalg."""
    import igraph as ig

    proj = synthetic_projection(args.edges)
    graph = ig.Graph(
        n=proj.nodes,
        edges=np.column_stack([proj.src, proj.dst]),
        directed=False,
        edge_attrs={"weight": proj.weight},
    )
    settings = CommunitySettings()
    t = time.perf_counter()
    if args.step == "igraph":
        membership = leiden(
            graph,
            settings.seed,
            resolution=settings.resolution,
            iterations=settings.iterations,
            beta=settings.beta,
        ).tolist()
    else:
        import leidenalg

        partition = leidenalg.find_partition(
            graph,
            leidenalg.ModularityVertexPartition,
            weights="weight",
            n_iterations=settings.iterations,
            seed=settings.seed,
        )
        membership = list(partition.membership)
    seconds = time.perf_counter() - t
    return {
        "seconds": seconds,
        "communities": len(set(membership)),
        "modularity": graph.modularity(membership, weights="weight"),
        "peak_rss_mb": peak_rss_mb(),
    }


def run_step(step: str, **kw: object) -> dict:
    cmd = [sys.executable, __file__, "--step", step]
    for k, v in kw.items():
        cmd += [f"--{k.replace('_', '-')}", str(v)]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise SystemExit(f"step {step} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_leiden(label: str, r: dict) -> None:
    target = (
        " (target < 15 s: " + ("met" if r["leiden_s"] < 15 else "NOT met") + ")"
        if r["pairs"] >= 500_000
        else ""
    )
    print(
        f"  hierarchical Leiden on {label}: {r['nodes']:,} nodes, {r['pairs']:,} weighted pairs → "
        f"{r['communities']:,} communities in {len(r['levels'])} level(s)"
    )
    print(
        f"    {r['leiden_s']:.2f} s, peak RSS {r['peak_rss_mb']:,} MB"
        + (
            f" (resident {r['rss_before_mb']:,} MB with the projection loaded, before Leiden)"
            if "rss_before_mb" in r
            else ""
        )
        + target
    )
    print(
        f"    {'level':>7}{'communities':>13}{'new':>9}{'largest':>9}"
        f"{'singletons':>12}{'modularity':>12}{'seconds':>9}"
    )
    for lv in r["levels"]:
        print(
            f"    {lv['level']:>7}{lv['communities']:>13,}{lv['new_communities']:>9,}"
            f"{lv['largest']:>9,}"
            f"{lv['singletons']:>12,}{lv['modularity']:>12.4f}{lv['seconds']:>9.2f}"
        )


# -- 2. refresh of 1% dirty against a full refresh ---------------------------------------------
def touch_until(
    store: CommunityStore, view: GraphView, share: float, seed: int = 3
) -> tuple[list[str], int]:
    """Relations drawn at random, each given one more citation, until the communities holding
    their ends are `share` of all; both ends recorded as one graph update (`graph_changes`), the
    way the graph stage records what a filing touched. Returns the touched entities."""
    total = store.run("SELECT count(*) FROM communities")[0][0]
    want = max(1, int(round(total * share)))
    edges = store.frame(
        "SELECT edge_id, subject_id, object_id, community_id FROM edge_home "
        "WHERE kind = 'relation' ORDER BY edge_id"
    ).rows()
    rng = random.Random(seed)
    rng.shuffle(edges)
    parent = dict(store.frame("SELECT community_id, parent_id FROM communities").rows())
    bumped: list[str] = []
    touched: set[str] = set()
    hit: set[str] = set()
    for edge_id, subject, obj, home in edges:
        if len(hit) >= want:
            break
        # What a new citation of this relation changes: its home community and every ancestor.
        more, c = set(), home
        while c is not None:
            more.add(c)
            c = parent.get(c)
        if len(hit | more) > want * 1.5 and hit:
            continue  # a relation whose communities would overshoot by far
        bumped.append(edge_id)
        touched |= {subject, obj}
        hit |= more
    view.con.executemany(
        "UPDATE edges SET evidence_count = evidence_count + 1 WHERE edge_id = ?",
        [[e] for e in bumped],
    )
    update = view.version() + 1
    view.con.execute(
        "INSERT INTO graph_updates VALUES (?, [], ?, ?)", [update, len(bumped), len(touched)]
    ).fetchall()
    view.con.executemany(
        "INSERT INTO graph_changes VALUES (?, ?)", [[update, e] for e in sorted(touched)]
    )
    return sorted(touched), total


def refresh_figures(
    label: str, store: CommunityStore, view: GraphView, settings: CommunitySettings
) -> dict:
    t = time.perf_counter()
    clustered = store.cluster(view, settings)
    cluster_s = time.perf_counter() - t
    full = store.summarize(view, settings)
    touched, total = touch_until(store, view, 0.01)
    applied = store.apply_changes(view)
    [(owned, homed)] = store.run(
        "SELECT count(*) FILTER (WHERE c.dirty_since IS NOT NULL), count(*) FROM edge_home h "
        "JOIN communities c USING (community_id)"
    )
    refresh = store.summarize(view, settings, refresh=True)
    ratio = (applied.seconds + refresh.seconds) / full.seconds
    print(
        f"  reports on {label}: {total:,} communities ({clustered.nodes:,} entities, "
        f"{clustered.pairs:,} "
        f"weighted pairs; clustered in {cluster_s:.2f} s)"
    )
    print(
        f"    full refresh     {full.seconds:8.2f} s  {full.built:,} reports, "
        f"{full.findings:,} findings "
        f"({full.no_evidence:,} communities with no evidence)"
    )
    print(
        f"    1% dirty         {applied.seconds + refresh.seconds:8.2f} s  {len(touched)} "
        "entities touched → "
        f"{applied.dirtied - applied.restored:,} communities dirty "
        f"({applied.dirty_fraction:.2%}); apply {applied.seconds:.2f} s, "
        f"{refresh.built:,} reports rebuilt in {refresh.seconds:.2f} s"
    )
    print(
        f"    refresh / full   {ratio:8.1%}  (target < 5%: "
        f"{'met' if ratio < 0.05 else 'NOT met'}); the dirty "
        f"communities own {owned / max(homed, 1):.1%} of the edges ({owned:,} of {homed:,})"
    )
    if total < 200:
        print(
            f"    (with {total} communities one is {1 / total:.1%} of them, and both runs "
            "are fixed costs "
            "of well under a second: the target is about scale, see the synthetic graph)"
        )
    return {"full_s": full.seconds, "refresh_s": applied.seconds + refresh.seconds, "ratio": ratio}


def refresh_corpus(data_root: Path) -> None:
    settings = CommunitySettings()
    with GraphStore.under(data_root, read_only=True) as graph:
        # A writable copy of the graph: the measured update records its changes in it.
        view = GraphView(duckdb.connect(), owned=True)
        for name in (
            "edges",
            "edge_evidence",
            "entities",
            "filings",
            "graph_changes",
            "graph_updates",
        ):
            frame = GraphView.of_store(graph).frame(f"SELECT * FROM {name}")
            view.con.register("_t", frame.to_arrow())
            view.con.execute(f"CREATE TABLE {name} AS SELECT * FROM _t").fetchall()
            view.con.unregister("_t")
    store = CommunityStore(None)
    try:
        refresh_figures("the corpus graph", store, view, settings)
    finally:
        store.close()
        view.close()


def refresh_synthetic(edges: int) -> None:
    t = time.perf_counter()
    view = synthetic_view(edges)
    built = time.perf_counter() - t
    print(
        f"  (synthetic knowledge graph of {edges:,} relations generated in {built:.1f} s)",
        flush=True,
    )
    store = CommunityStore(None)
    try:
        refresh_figures(
            f"a synthetic graph of {edges:,} relations", store, view, CommunitySettings()
        )
    finally:
        store.close()
        view.close()


# -- 3. community_themes through MCP ---------------------------------------------------------
# Sectors are drawn from those the snapshot's companies have SIC codes in (by name and by code),
# so that the latency is that of questions with answers; None (no sector) as often as any.
QUERIES = (
    None,
    None,
    "export controls",
    "supplier concentration",
    "competition",
    "cybersecurity",
    "tariffs",
    "litigation",
    "foreign currency",
)


def publish_corpus(data_root: Path, corpus: Path) -> str:
    from bench.graph import _reference
    from graphrag_core.graph.communities.store import build_communities
    from graphrag_core.graph.companies import CompanyReference
    from graphrag_core.graph.snapshot_inputs import gather_snapshot_tables
    from graphrag_core.store.publish import SnapshotStore
    from graphrag_core.tables.table_store import TableStore

    reference = _reference(str(corpus))
    with GraphStore.under(data_root, read_only=True) as graph:
        graph_tables = graph.tables()
        communities = build_communities(GraphView.of_store(graph), CommunitySettings())
    tables = gather_snapshot_tables(
        TableStore(data_root),
        CompanyReference(list(reference.tickers), dict(reference.submissions)),
        graph_tables,
        communities,
    )
    manifest = SnapshotStore(data_root, retain=2).publish(tables)
    return manifest.version


async def themes_latency(data_root: Path, calls: int, seed: int = 5) -> dict:
    from mcp import Client

    from bench.mcp import pct
    from graphrag_core.common.sectors import primary_sector
    from graphrag_core.store.reader import SnapshotReader
    from mcp_server import build_server

    rng = random.Random(seed)
    reader = SnapshotReader(data_root)
    with reader.lease() as snap:
        sics = [
            r["sic"]
            for r in snap.query(
                "SELECT DISTINCT sic FROM companies WHERE sic IS NOT NULL ORDER BY sic"
            )
        ]
    named = sorted({n for n in map(primary_sector, sics) if n})
    sectors: list[str | None] = [None] * max(1, len(named) + len(sics) // 2) + named + sics
    timings: list[float] = []
    errors = themes = answered = 0
    try:
        async with Client(build_server(reader)) as client:
            for i in range(calls + 10):
                args: dict[str, object] = {"limit": 10}
                sector, query = rng.choice(sectors), rng.choice(QUERIES)
                if sector:
                    args["sector"] = sector
                if query:
                    args["query"] = query
                if rng.random() < 0.1:
                    args["level"] = 0
                t = time.perf_counter()
                result = await client.call_tool("community_themes", args)
                elapsed = time.perf_counter() - t
                if result.is_error:
                    errors += 1
                    print(f"    error {args}: {result.content[0].text[:200]}")
                else:
                    found = len((result.structured_content or {}).get("themes", []))
                    themes += found
                    if i >= 10 and found:
                        answered += 1
                if i >= 10:
                    timings.append(elapsed)
    finally:
        reader.close()
    return {
        "p50": pct(timings, 50),
        "p95": pct(timings, 95),
        "errors": errors,
        "calls": len(timings),
        "themes": themes,
        "answered": answered,
        "sectors": [s for s in sectors if s],
    }


def corpus_data() -> Path:
    from bench.graph import corpus_data as ingest_once

    return ingest_once(argparse.Namespace(corpus_data=None, rebuild=False))


def themes_share(root: Path) -> None:
    """Item 4 of the module: the corpus job with the filing_themes step, timed by Dagster."""
    import os

    import dagster as dg
    import polars as pl

    from graphrag_core.retrieval.search import shared_embedder
    from graphrag_core.retrieval.themes import MDNA, theme_sections, update_themes
    from graphrag_core.settings import Settings, default_corpus
    from graphrag_core.tables.table_store import TableStore
    from pipelines.definitions import CORPUS_JOB
    from pipelines.ingest import ingest
    from pipelines.instance import get_instance

    env = os.environ.get("FILINGS_CORPUS")
    corpus = Path(env) if env else default_corpus()
    if corpus is None:
        raise SystemExit("no corpus: put it at ../shared/corpus or set FILINGS_CORPUS")
    settings = Settings(data_root=root, corpus=corpus)
    if not (root / "tables").exists():
        print(f"ingesting {corpus} into {root} (once; reused afterwards) ...", flush=True)
        report = ingest(settings)
        print(
            f"  {len(report.outcomes)} filings in {report.seconds:.0f} s (per-filing runs "
            f"{report.filings_seconds:.0f} s, corpus job {report.corpus_seconds:.0f} s), "
            f"{len(report.failed)} failed",
            flush=True,
        )
    instance = get_instance(root, settings.operations)
    runs = [
        r
        for r in instance.get_run_records(dg.RunsFilter(job_name=CORPUS_JOB), limit=20)
        if r.start_time and r.end_time
    ]
    if not runs:
        raise SystemExit(f"no finished {CORPUS_JOB} run in {root}: ingest it again")
    first = min(runs, key=lambda r: r.start_time or 0.0)  # the run that built the themes
    total = (first.end_time or 0.0) - (first.start_time or 0.0)
    steps = {
        s.step_key: (s.end_time or 0.0) - (s.start_time or 0.0)
        for s in instance.get_run_step_stats(first.dagster_run.run_id)
    }
    themes = steps.get("filing_themes")
    if themes is None:
        raise SystemExit("the corpus job ran no filing_themes step (built before the asset?)")
    slowest = sorted(steps.items(), key=lambda kv: -kv[1])[:4]
    print(
        f"  corpus job (first run, which built every theme): {total:.1f} s; filing_themes step "
        f"{themes:.1f} s = {100 * themes / total:.1f}% of it (target < 10%); slowest steps: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in slowest),
        flush=True,
    )
    store = TableStore(root)
    chunks = (
        store.scan("section_chunks", store.partitions("section_chunks"))
        .filter(theme_sections())
        .collect()
    )
    filings = store.scan("raw_filings", store.partitions("raw_filings")).collect()
    embed = shared_embedder(settings.retrieval)
    embed.embed(["warm the model"])
    t = time.perf_counter()
    cold = update_themes(None, chunks, filings, embed.embed, settings.communities)
    cold_s = time.perf_counter() - t
    t = time.perf_counter()
    update_themes(cold.tables, chunks, filings, embed.embed, settings.communities, "recluster")
    warm_s = time.perf_counter() - t
    meta = cold.metadata()
    mdna = cold.tables.members.filter(pl.col("kind") == MDNA).height
    print(
        f"  in process: {meta['members'] - mdna} risk factors and {mdna} MD&A statements of "
        f"{filings.height} filings, "
        f"{meta['themes']} themes across companies ({meta['unassigned']} factors in none); "
        f"from scratch {cold_s:.1f} s ({meta['embedded']} texts embedded), re-clustered with "
        f"the vectors kept {warm_s:.2f} s",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--edges", type=int, default=1_000_000, help="weighted pairs of the synthetic Leiden graph"
    )
    parser.add_argument(
        "--refresh-edges",
        type=int,
        default=1_000_000,
        help="relations of the synthetic knowledge graph whose reports are refreshed",
    )
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument(
        "--corpus-data",
        help="a data root the corpus was ingested into (default .bench/graph-corpus)",
    )
    parser.add_argument(
        "--skip-leidenalg", action="store_true", help="leave out leidenalg's one level (~30 s)"
    )
    parser.add_argument("--skip-corpus", action="store_true")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument(
        "--themes-only", action="store_true", help="only the filing themes' share (item 4)"
    )
    parser.add_argument("--step", choices=["leiden", "igraph", "leidenalg"], help=argparse.SUPPRESS)
    parser.add_argument("--world", choices=["corpus", "synthetic"], help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--small", action="store_true", help="tiny inputs (seconds)")
    args = parser.parse_args(argv)
    if args.step:
        out = step_leiden(args) if args.step == "leiden" else step_one_level(args)
        print(json.dumps(out))
        return 0
    from bench.graph import logging_quiet

    logging_quiet()
    if args.themes_only and args.small:
        raise SystemExit("--themes-only needs the whole corpus through ingest; not with --small")
    if not args.small and (args.themes_only or not args.skip_corpus):
        print("\n== filing themes: their share of the corpus job ==", flush=True)
        themes_share(Path(".bench/themes-corpus").resolve())
        if args.themes_only:
            return 0
    if args.small:
        from bench._small import corpus, corpus_data, corpus_subset, work_folder

        with work_folder("communities") as tmp:
            source = corpus_subset(corpus(None), tmp / "corpus")
            small = {
                "corpus_data": str(corpus_data(source, tmp / "data")),
                "edges": 3_000,
                "refresh_edges": 3_000,
                "calls": 5,
            }
            return measure(argparse.Namespace(**{**vars(args), **small}), source)
    return measure(args, None)


def measure(args: argparse.Namespace, corpus: Path | None) -> int:
    """`corpus`: the corpus the data root was ingested from (None: the default corpus)."""
    settings = CommunitySettings()
    print(
        f"settings: max_size {settings.max_size}, max_levels {settings.max_levels}, seed "
        f"{settings.seed}, "
        f"resolution {settings.resolution}, iterations {settings.iterations}"
    )
    if not args.skip_corpus:
        from graphrag_core.settings import default_corpus

        root = Path(args.corpus_data).resolve() if args.corpus_data else corpus_data()
        print(f"\n== corpus ({root}) ==", flush=True)
        print_leiden("the corpus graph", run_step("leiden", world="corpus", data=root))
        refresh_corpus(root)
        corpus = corpus or default_corpus()
        if corpus is None:
            raise SystemExit("no corpus: put it at ../shared/corpus or set FILINGS_CORPUS")
        t = time.perf_counter()
        version = publish_corpus(root, corpus)
        print(
            f"  snapshot {version} published with its communities in "
            f"{time.perf_counter() - t:.1f} s",
            flush=True,
        )
        lat = asyncio.run(themes_latency(root, args.calls))
        print(
            f"  community_themes x{lat['calls']} (sector/word mixes) through an MCP session: "
            f"p50 {lat['p50'] * 1e3:.1f} ms, p95 {lat['p95'] * 1e3:.1f} ms, "
            f"{lat['errors']} errors, "
            f"{lat['answered']} of {lat['calls']} answers with themes "
            f"({lat['themes'] / max(lat['calls'] + 10, 1):.1f} themes per answer; sectors asked: "
            f"{', '.join(lat['sectors'])}, the only ones SEC gives this corpus's "
            "companies SIC codes in; "
            "a sector with words no report holds answers with none and says so)"
        )
    if not args.skip_synthetic:
        print(f"\n== synthetic: {args.edges:,} weighted pairs ==", flush=True)
        print_leiden("the synthetic graph", run_step("leiden", world="synthetic", edges=args.edges))
        one = {"igraph": run_step("igraph", edges=args.edges)}
        if not args.skip_leidenalg:
            one["leidenalg"] = run_step("leidenalg", edges=args.edges)
        print("  one level (no recursion) of the same graph:")
        for name, r in one.items():
            print(
                f"    {name:<10} {r['seconds']:6.2f} s  modularity {r['modularity']:.4f}  "
                f"{r['communities']:,} communities  peak RSS {r['peak_rss_mb']:,} MB"
            )
        if "leidenalg" in one:
            print(
                "    leidenalg / igraph: "
                f"{one['leidenalg']['seconds'] / one['igraph']['seconds']:.1f}x the time"
            )
        print(f"\n== synthetic knowledge graph: {args.refresh_edges:,} relations ==", flush=True)
        refresh_synthetic(args.refresh_edges)
    return 0


if __name__ == "__main__":
    sys.exit(main())
