"""local_search and shared_neighbors latency through a real MCP client session (the SDK's
in-memory transport) on a snapshot of corpus filings: p50/p95 per tool over a fixed set of
questions. Figures, not pass/fail; the target (issue 24) is local_search p95 < 300 ms.

The snapshot is built once under --data-root from the corpus's 10-K and 10-Q filings (the
pipeline's own stages, the packaged embedding model for the chunk index), or read from a data
root that already holds a published snapshot (`make demo`'s).

    python bench/local_search.py [--data-root .bench/local_search] [--filings 16] [--calls 50]
                                 [--small]

`--small`: one filing of each company the questions name (NVIDIA's and Tesla's 10-Qs, Alphabet's
10-K), two calls per tool, under a temporary folder (for the test suite).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder would come first on sys.path and shadow the `mcp` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from mcp import Client  # noqa: E402

from graphrag_core.graph.companies import collect_reference  # noqa: E402
from graphrag_core.graph.snapshot_inputs import gather_snapshot_tables  # noqa: E402
from graphrag_core.intake.local_folder import LocalFolderSource  # noqa: E402
from graphrag_core.retrieval.chunk_index import update_index  # noqa: E402
from graphrag_core.retrieval.search import shared_embedder  # noqa: E402
from graphrag_core.settings import RetrievalSettings, default_corpus  # noqa: E402
from graphrag_core.store.publish import SnapshotStore  # noqa: E402
from graphrag_core.store.reader import SnapshotReader  # noqa: E402
from graphrag_core.tables.table_store import TableStore  # noqa: E402
from mcp_server import build_server  # noqa: E402
from tests.test_mcp_corpus import GOOGL_10K, NVDA_10K_FY2025, NVDA_10Q, TSLA_10K, run_stages  # noqa: E402
from tests.test_what_changed import TSLA_10Q  # noqa: E402

ASKED_FILINGS = (NVDA_10K_FY2025, NVDA_10Q, GOOGL_10K, TSLA_10K)
SMALL_FILINGS = (NVDA_10Q, GOOGL_10K, TSLA_10Q)
QUESTIONS = (
    "Tell me about NVIDIA's suppliers and what it says about them",
    "Who does Alphabet compete with and what risks does it report?",
    "Tesla's suppliers, customers and risks",
    "NVIDIA and Alphabet: competition and export controls",
    "What does NVIDIA say about its customers?",
)


def corpus_filings(corpus: Path, count: int) -> tuple[str, ...]:
    """The filings the questions are about (NVIDIA's 10-K and 10-Q, Alphabet's and Tesla's
    10-Ks), then other 10-K and 10-Q filings of the corpus in manifest order, `count` in all."""
    source = LocalFolderSource(corpus)
    others = [ref.filing_id for ref in source.discover() if ref.form in ("10-K", "10-Q")]
    return tuple(dict.fromkeys([*ASKED_FILINGS, *others]))[: max(count, len(ASKED_FILINGS))]


def ensure_snapshot(
    corpus: Path | None, data_root: Path, filings: int, ids: tuple[str, ...] = ()
) -> None:
    if any(data_root.glob("snapshots/*")):
        return
    assert corpus is not None
    data_root.mkdir(parents=True, exist_ok=True)
    ids = ids or corpus_filings(corpus, filings)
    print(f"building a snapshot of {len(ids)} corpus filings under {data_root} ...", flush=True)
    run_stages(corpus, data_root, ids)
    source = LocalFolderSource(corpus)
    tables = gather_snapshot_tables(
        TableStore(data_root),
        lambda ciks: collect_reference(ciks, source.company_tickers, source.submissions),
    )
    settings = RetrievalSettings()
    update = update_index(
        data_root, tables.chunks, tables.filings, shared_embedder(settings), settings
    )
    SnapshotStore(data_root).publish(replace(tables, chunk_index=update.ref))


def pct(values: list[float], q: int) -> float:
    return (
        values[0]
        if len(values) == 1
        else statistics.quantiles(values, n=100, method="inclusive")[q - 1]
    )


async def measure(data_root: Path, calls: int, warm: int = 5) -> dict[str, list[float]]:
    reader = SnapshotReader(data_root)
    timings: dict[str, list[float]] = {
        "local_search": [],
        "shared_neighbors": [],
        "size_chars": [],
        "errors": [],
    }
    try:
        async with Client(build_server(reader)) as client:
            pairs = (["NVDA", "GOOGL"], ["GOOGL", "TSLA"], ["NVDA", "TSLA"])
            for i in range(calls + warm):
                query = QUESTIONS[i % len(QUESTIONS)]
                t = time.perf_counter()
                result = await client.call_tool("local_search", {"query": query})
                elapsed = time.perf_counter() - t
                if result.is_error:
                    print(f"  error local_search {query!r}: {result.content[0].text[:200]}")
                    timings["errors"].append(1)
                    continue
                args = {"entity_ids": pairs[i % len(pairs)]}
                t2 = time.perf_counter()
                shared = await client.call_tool("shared_neighbors", args)
                elapsed2 = time.perf_counter() - t2
                if shared.is_error:
                    print(f"  error shared_neighbors {args}: {shared.content[0].text[:200]}")
                    timings["errors"].append(1)
                if i >= warm:  # warm-up calls (model load, caches) are not counted
                    timings["local_search"].append(elapsed)
                    timings["shared_neighbors"].append(elapsed2)
                    timings["size_chars"].append(len(json.dumps(result.structured_content)))
    finally:
        reader.close()
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=ROOT / ".bench" / "local_search")
    parser.add_argument("--corpus", type=Path, default=default_corpus())
    parser.add_argument(
        "--filings", type=int, default=16, help="corpus 10-K/10-Q filings to build from"
    )
    parser.add_argument("--calls", type=int, default=50, help="measured calls per tool")
    parser.add_argument("--small", action="store_true", help="three filings, two calls (seconds)")
    args = parser.parse_args(argv)
    if args.small:
        from bench._small import corpus, work_folder

        with work_folder("local-search") as tmp:
            ensure_snapshot(corpus(args.corpus), tmp / "data", 0, SMALL_FILINGS)
            report(asyncio.run(measure(tmp / "data", 2, warm=1)))
        return 0
    if args.corpus is None and not any(args.data_root.glob("snapshots/*")):
        raise SystemExit("no corpus: pass --corpus or set FILINGS_CORPUS")
    ensure_snapshot(args.corpus, args.data_root, args.filings)
    report(asyncio.run(measure(args.data_root, args.calls)))
    return 0


def report(timings: dict[str, list[float]]) -> None:
    for tool in ("local_search", "shared_neighbors"):
        values = timings[tool]
        if values:
            print(
                f"{tool:18s} calls {len(values):4d}  p50 {1000 * pct(values, 50):7.1f} ms  "
                f"p95 {1000 * pct(values, 95):7.1f} ms"
            )
    print(f"errors: {len(timings['errors'])} (failed calls are not timed)")
    if timings["size_chars"]:
        print(
            f"local_search answer: mean {statistics.mean(timings['size_chars']):,.0f} chars, "
            f"max {max(timings['size_chars']):,} chars"
        )


if __name__ == "__main__":
    raise SystemExit(main())
