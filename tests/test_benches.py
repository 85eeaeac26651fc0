"""Every benchmark in its small mode (`--small`: the same code as the full run, on inputs a
few seconds' worth, written under a temporary folder), so that a schema or interface change
that breaks a benchmark breaks the suite, not the next measurement (issue 26 item 7: bench/mcp.py
had stopped running when metric_observations gained columns, and nothing noticed).

The figures are not judged: a run passes when it exits 0 and prints the lines that carry its
figures (each pattern below must match a line of its output)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"

# bench → patterns of its figure lines (regular expressions, each searched line by line).
FIGURES: dict[str, tuple[str, ...]] = {
    "parse": (
        r"^== Throughput \(4 of 4 documents",
        r"^  ours\s+[\d.]+\s+[\d.]+\s+[\d.]+",
        r"^   [\d.]+ s wall for [\d.]+ MB = [\d.]+ MB/s; \d+ chunks",
    ),
    "section_labels": (
        r'^ "AAPL 10-Q aapl-10-q-2025-08-01\.htm": \[$',
        r'^   "10-Q/Part I/Item 2",$',
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
SLOW: set[str] = set()


def benches() -> list[str]:
    return sorted(p.stem for p in BENCH.glob("*.py") if not p.name.startswith("_"))


def test_every_bench_has_a_small_run() -> None:
    """A new benchmark must join this suite (and the retired ones leave it)."""
    assert sorted(FIGURES) == benches()


@pytest.mark.corpus
@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else []) for n in sorted(FIGURES)],
)
def test_bench_small(name: str, corpus_dir: Path, tmp_path: Path) -> None:
    # The environment carries the loopback embeddings endpoint (tests/conftest.py), so a
    # benchmark that embeds does it over the real HTTP path without loading the packaged model.
    env = {**os.environ, "FILINGS_CORPUS": str(corpus_dir), "TMPDIR": str(tmp_path)}
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
