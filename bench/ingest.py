"""The corpus through `ingest`: serially in one process, through the run queue with parallel runs,
and (with --distributed) through the PostgreSQL instance with a dask.distributed cluster.

Each mode starts from an empty data root, in a process of its own (as `filings-graph ingest`
runs), and runs every corpus filing plus the corpus job (snapshot and report). Printed side by
side: wall time and speed-up over serial of the whole ingest, then of the per-filing runs alone (the
part that runs one filing after another when
serial), the corpus job's wall time (its embedding uses every core in either mode), peak
resident memory of the mode's process tree (the ingest process, fork server, run workers), and
the CPU seconds that tree used: the machine's other load moves wall times, hardly CPU time.

    .venv/bin/python bench/ingest.py [--limit N] [--distributed] [--filings-only] [--runs N ...]
                                     [--small]

`--small`: one small 8-K (bench/_small.py), serially and through the run queue with one run,
its per-filing runs only (--filings-only), for the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil

from graphrag_core.settings import OperationsSettings, Settings, default_corpus

SMALL_FILING = "filings/BCOW/8-K/form8k_122024.htm"


class PeakMemory:
    """Peak summed RSS of this process's descendants, sampled every 0.2 s, and the CPU time they
    used (the last reading of each process: one that lived under 0.2 s is missed). CPU seconds
    are a figure the machine's other load hardly moves, unlike wall time."""

    def __init__(self) -> None:
        self.peak = 0
        self._cpu: dict[tuple[int, float], float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            total = 0
            for proc in me.children(recursive=True):
                try:
                    total += proc.memory_info().rss
                    times = proc.cpu_times()
                    self._cpu[(proc.pid, proc.create_time())] = times.user + times.system
                except psutil.Error:
                    continue
            self.peak = max(self.peak, total)
            time.sleep(0.2)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def cpu_seconds(self) -> float:
        return sum(self._cpu.values())


def run(
    name: str, settings: Settings, limit: int | None, serial: bool, publish: bool = True
) -> dict:
    """One mode in a process of its own, as `filings-graph ingest` runs: nothing (imports, a
    fork server started with another mode's Settings) carries over from the mode before. The
    Settings reach it through the environment, as they reach the run workers."""
    from pipelines.run_queue import run_environment

    env = run_environment(settings)
    env.pop("DAGSTER_HOME", None)
    args = [
        sys.executable,
        __file__,
        "--one-mode",
        json.dumps({"limit": limit, "serial": serial, "publish": publish}),
    ]
    with PeakMemory() as memory:
        proc = subprocess.run(args, env=env, stdout=subprocess.PIPE, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{name}: the ingest process exited with code {proc.returncode}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"mode": name, **result, "peak_mb": memory.peak / 2**20, "cpu_s": memory.cpu_seconds}


def one_mode(spec: str) -> int:
    """The child of `run`: ingest with the Settings of this environment, print the figures."""
    from pipelines.ingest import ingest

    options = json.loads(spec)
    t0 = time.perf_counter()
    report = ingest(
        Settings(), limit=options["limit"], serial=options["serial"], publish=options["publish"]
    )
    print(
        json.dumps(
            {
                "filings": len(report.outcomes),
                "failed": len(report.failed),
                "published": bool(report.corpus_success),
                "seconds": time.perf_counter() - t0,
                "filings_s": report.filings_seconds,
                "corpus_s": report.corpus_seconds,
            }
        )
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, help="only the first N filings")
    parser.add_argument("--distributed", action="store_true", help="also PostgreSQL + dask")
    parser.add_argument(
        "--filings-only",
        action="store_true",
        help="the per-filing runs only (ingest --no-publish): no corpus job",
    )
    parser.add_argument(
        "--runs",
        type=int,
        action="append",
        help="concurrent runs of a run-queue mode (repeatable; default: the "
        "setting's default, GRAPHRAG_DAGSTER_MAX_CONCURRENT_RUNS)",
    )
    parser.add_argument("--small", action="store_true", help="one small filing (seconds)")
    parser.add_argument("--one-mode", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_mode:
        return one_mode(args.one_mode)
    corpus = Path(os.environ.get("FILINGS_CORPUS") or default_corpus() or "")
    if not (corpus / "manifest.json").exists():
        print("corpus not found: set FILINGS_CORPUS", file=sys.stderr)
        return 2
    if args.small:
        from bench._small import corpus_subset, work_folder

        with work_folder("ingest") as tmp:
            # The per-filing runs only: the corpus job is the same code whatever the mode, and
            # half a minute even for one filing.
            args.runs, args.filings_only = [1], True
            return measure(args, corpus_subset(corpus, tmp / "corpus", (SMALL_FILING,)))
    return measure(args, corpus)


def measure(args: argparse.Namespace, corpus: Path) -> int:
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0]
    print(f"corpus: {corpus} ({cores} cores, load average {load:.1f} at start)", flush=True)
    print(
        f"{'mode':<30} {'filings':>7} {'failed':>6} {'seconds':>8} {'speed-up':>8} "
        f"{'per-filing s':>12} {'filings/s':>9} {'speed-up':>8} {'corpus job s':>12} "
        f"{'peak MB':>8} "
        f"{'CPU s':>7}",
        flush=True,
    )
    results: list[dict] = []

    def show(r: dict) -> None:
        results.append(r)
        serial = results[0]
        print(
            f"{r['mode']:<30} {r['filings']:>7} {r['failed']:>6} {r['seconds']:>8.1f} "
            f"{serial['seconds'] / r['seconds']:>7.2f}x {r['filings_s']:>12.1f} "
            f"{r['filings'] / r['filings_s']:>9.2f} {serial['filings_s'] / r['filings_s']:>7.2f}x "
            f"{r['corpus_s']:>12.1f} {r['peak_mb']:>8.0f} {r['cpu_s']:>7.1f}",
            flush=True,
        )

    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as tmp:
        root = Path(tmp)
        publish = not args.filings_only
        show(
            run(
                "serial (in-process)",
                Settings(data_root=root / "serial", corpus=corpus),
                args.limit,
                serial=True,
                publish=publish,
            )
        )
        for runs in args.runs or [OperationsSettings().max_concurrent_runs]:
            ops = OperationsSettings(max_concurrent_runs=runs)
            show(
                run(
                    f"run queue ({runs} runs)",
                    Settings(data_root=root / f"queue{runs}", corpus=corpus, operations=ops),
                    args.limit,
                    serial=False,
                    publish=publish,
                )
            )
        if args.distributed:
            show(distributed(root, corpus, args.limit, cores, publish))
    print(
        f"load average at the end: {os.getloadavg()[0]:.1f} (other work on the machine skews "
        "the ratio; compare runs made at similar load)"
    )
    return 0


def distributed(root: Path, corpus: Path, limit: int | None, cores: int, publish: bool) -> dict:
    """PostgreSQL (Debian's binaries) and a dask cluster of `cores` workers, both on loopback."""
    import pytest

    from tests.services import postgres

    try:
        with postgres() as server:
            return _distributed_run(server, root, corpus, limit, cores, publish)
    except pytest.skip.Exception as exc:  # no PostgreSQL binaries here
        return {
            "mode": f"distributed: skipped ({exc})",
            "filings": 0,
            "failed": 0,
            "published": False,
            "seconds": float("nan"),
            "filings_s": float("nan"),
            "corpus_s": float("nan"),
            "peak_mb": 0,
            "cpu_s": float("nan"),
        }


def _distributed_run(
    server, root: Path, corpus: Path, limit: int | None, cores: int, publish: bool
) -> dict:
    from pipelines.instance import get_instance
    from pipelines.run_queue import run_environment
    from tests.services import start_dask, stop_dask

    base = Settings(
        data_root=root / "dist",
        corpus=corpus,
        operations=OperationsSettings(postgres_url=server.url),
    )
    get_instance(base.data_root, base.operations)
    cluster = start_dask(run_environment(base), workers=cores, log_dir=root / "dask")
    try:
        ops = OperationsSettings(
            postgres_url=server.url,
            executor="dask",
            dask_address=cluster.address,
            max_concurrent_runs=cores,
        )
        settings = base.model_copy(update={"operations": ops})
        result = run(
            f"postgres + dask ({cores} workers)", settings, limit, serial=False, publish=publish
        )
    finally:
        stop_dask(cluster)
    return result


if __name__ == "__main__":
    sys.exit(main())
