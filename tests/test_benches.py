"""Every benchmark in its small mode (`--small`: the same code as the full run, on inputs a
few seconds' worth, written under a temporary folder), so that a schema or interface change
that breaks a benchmark breaks the suite, not the next measurement (issue 26 item 7: bench/mcp.py
had stopped running when metric_observations gained columns, and nothing noticed).

The figures are not judged: a run passes when it exits 0 and prints the lines that carry its
figures (each pattern below must match a line of its output)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.store import statement_lines
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables import schemas

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"


def _apple_questions() -> tuple[int, int]:
    """(dev, held out) among the dev set's Apple questions, which the retrieval and passage
    benches' small runs ask: the set grows, so the lines are matched against its own counts."""
    questions = json.loads((BENCH / "retrieval_questions.json").read_text(encoding="utf-8"))
    apple = [q for q in questions["questions"] if q.get("ticker") == "AAPL"]
    dev = sum(q.get("split", "dev") == "dev" for q in apple)
    return dev, len(apple) - dev


APPLE_DEV, APPLE_HELD = _apple_questions()
# bench → patterns of its figure lines (regular expressions, each searched line by line).
FIGURES: dict[str, tuple[str, ...]] = {
    "communities": (
        r"^  hierarchical Leiden on the corpus graph: \d+ nodes",
        r"^  reports on the corpus graph: \d+ communities",
        r"^  community_themes x5 \(sector/word mixes\) through an MCP session: p50 [\d.]+ ms, "
        r"p95 [\d.]+ ms, 0 errors",
        r"^  hierarchical Leiden on the synthetic graph: 600 nodes",
        r"^    leidenalg\s+[\d.]+ s  modularity [\d.]+",
        r"^    refresh / full\s+[\d.]+%",
    ),
    "extract": (
        r"^  narrative chunks\s+\d+ in 3 filings",
        r"^  extraction\s+[\d.]+ s = [\d,]+ chunks/s wall",
        r"^  candidates accepted\s+\d+ as \d+ edges",
        r"^  rules\s+[\d,]+ chunks/s wall, .*; company edges accepted \d+",
        r"^  rules\+learned\s+[\d,]+ chunks/s wall, .*; company edges accepted \d+",
        r"^\s+1\s+\d+\s+[\d.]+\s+[\d.]+\s+1\.0x",
        r"^  share of planted bad triples that got through: \d+/\d+ = [\d.]+%$",
    ),
    "graph": (
        r"^COMPETES_WITH\s+\d+\s+\d+\s+[\d.]+%",
        r"^== corpus: 3 filings ==$",
        r"^== synthetic, 30 companies: 30 filings ==$",
        r"^  full build\s+[\d.]+\s+[\d.]+\s+[\d.]+",
        r"^  add one filing / full build: [\d.]+%",
        r"^  neighbors\(hops=2\) x5 over \d+ entities, 0 errors$",
        r"^    MCP session   p50\s+[\d.]+ ms  p95\s+[\d.]+ ms",
        r"^  graph_path x2, 0 errors",
        r"^  explore_company x2, 0 errors",
    ),
    "hostile": (
        r"^   40 calls in [\d.]+s: HTTP statuses",
        r"^   server RSS \d+ MB before -> \d+ MB after",
        r"^   body never finished\s+\d+/2 closed by the server",
        r"^   \d+/20 malformed lines answered",
        r"^   LATEST -> same-size-corrupted version\s+\d+\s+\d+\s+\d+",
        r"^   a server started with garbage LATEST: ",
        r"^   [\d,]+ calls across \d+ versions: \d+ errors, \d+ mixed answers$",
        r"^   400 unclosed <font>: \d+/400 words kept",
    ),
    "ingest": (
        r"^serial \(in-process\)\s+1\s+\d+\s+[\d.]+\s+[\d.]+x",
        r"^run queue \(1 runs\)\s+1\s+\d+\s+[\d.]+\s+[\d.]+x",
    ),
    "local_search": (
        r"^local_search\s+calls\s+2\s+p50\s+[\d.]+ ms\s+p95\s+[\d.]+ ms$",
        r"^shared_neighbors\s+calls\s+2\s+p50\s+[\d.]+ ms\s+p95\s+[\d.]+ ms$",
        r"^errors: 0 ",
        r"^local_search answer: mean [\d,]+ chars",
    ),
    "mcp": (
        r"^in-memory MCP client session, 3 calls per tool \(0 errors\)$",
        *(
            rf"^{tool}\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+"
            for tool in (
                "find_company",
                "get_metrics",
                "screen_companies",
                "window_screen",
                "get_chunk",
                "explore_company",
                "get_financials",
                "status",
            )
        ),
        r"^the client's schema check of an answer, 40 answers x 3",
        r"^get_financials\s+p50 [\d.]+ ms vs [\d.]+ ms, p95 [\d.]+ ms vs [\d.]+ ms$",
        r"^  calls 6, errors 0, \d+ calls/s, p50 [\d.]+ ms",
    ),
    "parse": (
        r"^== Throughput \(4 of 4 documents",
        r"^  ours\s+[\d.]+\s+[\d.]+\s+[\d.]+",
        r"^   [\d.]+ s wall for [\d.]+ MB = [\d.]+ MB/s; \d+ chunks",
    ),
    "passages": (
        r"^split\s+n\s+answer shown: window",
        rf"^dev\s+{APPLE_DEV}\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+\d+\s+\d+$",
        rf"^held_out\s+{APPLE_HELD}\s+[\d.]+\s+[\d.]+",
    ),
    "retrieval": (
        r"^== index: \d+ chunks, \d+ windows",
        rf"^== hit@8 on {APPLE_DEV + APPLE_HELD} questions \({APPLE_DEV} dev, {APPLE_HELD} held "
        r"out\)$",
        r"^   hybrid \(default\)\s+[\d.]+\s+[\d.]+\s+[\d.]+$",
        r"^== query latency, corpus \(\d+ windows\): p50 [\d.]+ ms, p95 [\d.]+ ms",
        r"^== query latency, synthetic 2,000-chunk index",
        r"^   steady state \(a server's\): p50 [\d.]+ ms",
    ),
    "section_labels": (
        r'^ "AAPL 10-Q aapl-10-q-2025-08-01\.htm": \[$',
        r'^   "10-Q/Part I/Item 2",$',
    ),
    "what_changed": (
        r"^what_changed TSLA 10-K → 10-Q: first \d+ ms, p50 \d+ ms, p95 \d+ ms over 2 calls$",
    ),
    "xbrl": (
        r"^arelle bare load\s+[\d.]+",
        r"^xbrl \+ metrics stage\s+[\d.]+",
        r"^stage / bare: [\d.]+x",
        r"^metric observations: \d+",
        r"^earnings-release observations: \d+",
    ),
}
# Benches whose small run takes more than a few seconds here (they run in CI all the same).
SLOW = {"graph", "hostile", "ingest"}
# Benches that build their own inputs and read no corpus.
WITHOUT_CORPUS = {"hostile", "mcp"}


def benches() -> list[str]:
    return sorted(p.stem for p in BENCH.glob("*.py") if not p.name.startswith("_"))


def test_every_bench_has_a_small_run() -> None:
    """A new benchmark must join this suite (and the retired ones leave it)."""
    assert sorted(FIGURES) == benches()


def _marks(name: str) -> list[pytest.MarkDecorator]:
    return [
        *([pytest.mark.slow] if name in SLOW else []),
        *([] if name in WITHOUT_CORPUS else [pytest.mark.corpus]),
    ]


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(n)) for n in sorted(FIGURES)])
def test_bench_small(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    # The environment carries the loopback embeddings endpoint (tests/conftest.py), so a
    # benchmark that embeds does it over the real HTTP path without loading the packaged model.
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    if name not in WITHOUT_CORPUS:
        env["FILINGS_CORPUS"] = str(request.getfixturevalue("corpus_dir"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    out = subprocess.run(
        [sys.executable, str(BENCH / f"{name}.py"), "--small"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, f"bench/{name}.py --small exited {out.returncode}:\n" + (
        out.stdout[-3000:] + out.stderr[-5000:]
    )
    missing = [p for p in FIGURES[name] if not re.search(p, out.stdout, re.MULTILINE)]
    assert not missing, (
        f"bench/{name}.py --small printed no line matching {missing}:\n" + (out.stdout[-5000:])
    )


def test_synthetic_snapshot_follows_the_schemas(monkeypatch, tmp_path: Path) -> None:
    """bench/mcp.py's snapshot is cut to the stages' schemas, so a column they gain later is
    published (as nulls) instead of breaking the build, as `source_kind` once did."""
    from bench import _synthetic_snapshot as synthetic

    grown = {
        "filings": schemas.FILINGS,
        "chunks": schemas.CHUNKS,
        "metric_observations": schemas.METRIC_OBSERVATIONS,
        "statement_lines": statement_lines.STATEMENT_LINES,
    }
    for schema in grown.values():
        monkeypatch.setitem(schema, "added_later", pl.List(pl.String))
    tables = synthetic.synthetic_tables(2)
    for name, schema in grown.items():
        frame = getattr(tables, name)
        assert frame.columns == list(schema), name
        assert frame.schema["added_later"] == pl.List(pl.String), name
        assert frame.get_column("added_later").null_count() == frame.height > 0, name
    manifest = SnapshotStore(tmp_path).publish(tables)
    assert manifest.counts["metric_observations"] == tables.metric_observations.height
    assert manifest.counts["statement_lines"] == tables.statement_lines.height
