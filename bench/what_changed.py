"""what_changed and changes_across latency through a real MCP client session (issue 25 target:
< 500 ms).

Builds (once, under .bench/what_changed) a snapshot of the corpus's NVIDIA FY2023 and FY2025
10-Ks, Tesla's 10-K and later 10-Q and Apple's 10-K and 10-Qs with the pipeline's stages (the
rules extraction), then calls the tools through the SDK's in-memory transport: the first call
(which loads the embedding model, or compares the snapshot's pairs) and p50/p95 of the calls
after it, for what_changed on NVIDIA's default pair and Tesla's 10-K → 10-Q, and changes_across
on a topic for a period (a new topic each call: only the topic is embedded again). Figures, not
pass/fail.

    python bench/what_changed.py [--calls 30] [--rebuild] [--small]

`--small`: Tesla's pair only, two calls, under a temporary folder (for the test suite).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path and bench/mcp.py would shadow the
# `mcp` SDK package; import from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from graphrag_core.settings import default_corpus  # noqa: E402
from tests.mcp_client import call, session  # noqa: E402
from tests.test_mcp_corpus import publish, run_stages  # noqa: E402
from tests.test_what_changed import PAIRS, TSLA_10K, TSLA_10Q  # noqa: E402

CASES = {
    "what_changed NVDA default (FY2023 → FY2025 10-K)": ("what_changed", {"company_id": "NVDA"}),
    "what_changed TSLA 10-K → 10-Q": (
        "what_changed",
        {"company_id": "TSLA", "from_filing": TSLA_10K, "to_filing": TSLA_10Q},
    ),
    "changes_across 'export controls' FY2025 10-K": (
        "changes_across",
        {"topic": "export controls", "period": "FY2025"},
    ),
    "changes_across 'export controls' 10-Q (latest pairs)": (
        "changes_across",
        {"topic": "export controls", "form": "10-Q"},
    ),
}
# changes_across asked a different topic each call: each one's own embedding is in the figure.
TOPICS = (
    "export controls",
    "tariffs",
    "climate change",
    "supply chain",
    "cybersecurity",
    "interest rates",
    "China",
    "artificial intelligence regulation",
)


FILINGS = tuple(PAIRS)
SMALL_CASE = "what_changed TSLA 10-K → 10-Q"


def build(data_root: Path, corpus: Path, rebuild: bool, filings: tuple[str, ...] = FILINGS) -> None:
    if rebuild and data_root.exists():
        shutil.rmtree(data_root)
    if (data_root / "snapshots" / "LATEST").exists():
        return
    data_root.mkdir(parents=True, exist_ok=True)
    run_stages(corpus, data_root, filings)
    publish(corpus, data_root)


async def measure(data_root: Path, calls: int, cases: dict[str, tuple[str, dict]] = CASES) -> None:
    async with session(data_root) as client:
        for name, (tool, args) in cases.items():
            start = time.perf_counter()
            await call(client, tool, **args)
            first = (time.perf_counter() - start) * 1000
            times = []
            for i in range(calls):
                asked = {**args, "topic": TOPICS[i % len(TOPICS)]} if "topic" in args else args
                start = time.perf_counter()
                await call(client, tool, **asked)
                times.append((time.perf_counter() - start) * 1000)
            times.sort()
            p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
            print(
                f"{name}: first {first:.0f} ms, p50 {statistics.median(times):.0f} ms, "
                f"p95 {p95:.0f} ms over {calls} calls"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=ROOT / ".bench" / "what_changed")
    parser.add_argument("--corpus", type=Path, default=default_corpus())
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--small", action="store_true", help="Tesla's pair, two calls (seconds)")
    args = parser.parse_args(argv)
    if args.small:
        from bench._small import corpus, work_folder

        with work_folder("what-changed") as tmp:
            build(tmp / "data", corpus(args.corpus), False, (TSLA_10K, TSLA_10Q))
            asyncio.run(measure(tmp / "data", 2, {SMALL_CASE: CASES[SMALL_CASE]}))
        return 0
    if args.corpus is None:
        parser.error("no corpus: pass --corpus or set FILINGS_CORPUS")
    build(args.data_root, args.corpus, args.rebuild)
    asyncio.run(measure(args.data_root, args.calls))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
