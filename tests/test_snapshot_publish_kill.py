"""A publish killed halfway (SIGKILL to a real process) leaves LATEST on the previous, intact
snapshot, and the next publish cleans up after it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphrag_core.common.ids import file_sha256
from graphrag_core.store import layout
from graphrag_core.store.publish import STAGES, SnapshotStore
from graphrag_core.store.reader import SnapshotReader
from tests import snapshot_sample as sample

ROOT = Path(__file__).resolve().parent.parent

# Publishes into argv[1]. Mode "stage:<name>": report each stage on stdout and hang at <name>
# (the parent kills it there). Mode "bulk": a snapshot big enough that DuckDB is still
# writing when the parent kills it.
PUBLISHER = r"""
import dataclasses, sys, time
import polars as pl
from graphrag_core.store.publish import SnapshotStore
from tests import snapshot_sample as sample

data_root, mode = sys.argv[1], sys.argv[2]
tables = sample.sample_tables()
stop_at = mode.split(":", 1)[1] if mode.startswith("stage:") else None
if mode == "bulk":
    n = 300_000
    bulk = pl.DataFrame({
        "chunk_id": [f"{sample.NVDA_10K}:{i:016x}" for i in range(n)],
        "filing_id": [sample.NVDA_10K] * n,
        "section": ["10-K/Item 7"] * n,
        "kind": ["prose"] * n,
        "ordinal": list(range(n)),
        "char_start": [i * 400 for i in range(n)],
    }).with_columns(
        text=pl.format(
            "Paragraph {} of management's discussion: revenue grew in data center "
            "and gaming, and operating expenses rose with headcount.",
            pl.col("ordinal"),
        ),
    )
    bulk = bulk.with_columns(
        char_end=pl.col("char_start") + pl.col("text").str.len_chars(),
        document_type=pl.lit("10-K"), scale_header=pl.lit(None, pl.String),
        token_count=pl.lit(30, pl.Int32), sha256=pl.col("chunk_id"),
        ix_ids=pl.lit([], pl.List(pl.String)),
        headings=pl.lit(None).cast(tables.chunks.schema["headings"]),
    ).select(tables.chunks.columns).cast(dict(tables.chunks.schema))
    tables = dataclasses.replace(tables, chunks=pl.concat([tables.chunks, bulk]))

def progress(stage, path):
    print(stage, flush=True)
    if stage == stop_at:
        time.sleep(120)

# Another code version than the parent's snapshot, so the publish has something to build.
SnapshotStore(data_root).publish(tables, progress=progress, threads=1, code="child-build")
print("done", flush=True)
"""


def _spawn(data_root: Path, mode: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", PUBLISHER, str(data_root), mode],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _kill(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def _assert_previous_intact(data_root: Path, previous: str) -> None:
    store = SnapshotStore(data_root)
    assert store.current_version() == previous
    manifest = store.manifest(previous)
    db = store.database_path(previous)
    assert file_sha256(db) == manifest.database.sha256
    reader = SnapshotReader(data_root)
    with reader.lease() as snap:
        assert snap.version == previous
        assert snap.query("SELECT count(*) AS n FROM filings") == [{"n": 6}]
    reader.close()


@pytest.fixture
def previous(data_root) -> str:
    return SnapshotStore(data_root).publish(sample.sample_tables()).version


@pytest.mark.parametrize("stage", [s for s in STAGES if s not in ("swapped", "pruned")])
def test_kill_at_each_stage_before_the_swap(data_root, previous, stage):
    proc = _spawn(data_root, f"stage:{stage}")
    seen = []
    for line in proc.stdout:
        seen.append(line.strip())
        if line.strip() == stage:
            break
    assert seen[-1] == stage, (seen, proc.stderr.read() if proc.poll() is not None else "")
    _kill(proc)
    _assert_previous_intact(data_root, previous)

    # What the dead publish left (a staging folder, or a complete version never made current)
    # is harmless, and the next publish succeeds and cleans up stale staging folders.
    store = SnapshotStore(data_root, stale_staging_s=0)
    fresh = store.publish(sample.sample_tables(), code="after-the-kill").version
    assert store.current_version() == fresh
    assert not list(store.root.glob(".staging-*"))


def test_kill_after_the_swap_leaves_the_new_snapshot_complete(data_root, previous):
    proc = _spawn(data_root, "stage:swapped")
    for line in proc.stdout:
        if line.strip() == "swapped":
            break
    _kill(proc)
    store = SnapshotStore(data_root)
    current = store.current_version()
    assert current != previous
    assert file_sha256(store.database_path(current)) == store.manifest(current).database.sha256


def test_kill_while_duckdb_is_writing(data_root, previous):
    proc = _spawn(data_root, "bulk")
    root = layout.snapshots_root(data_root)
    deadline = time.monotonic() + 120
    partial = None
    while time.monotonic() < deadline and proc.poll() is None:
        files = [p for p in root.glob(".staging-*/graph.duckdb*") if p.stat().st_size > 0]
        if files:
            partial = files[0]
            break
        time.sleep(0.002)
    assert partial is not None, proc.stderr.read() if proc.poll() is not None else "no staging file"
    _kill(proc)
    # Killed inside build_database: the stage after it was never reached.
    assert proc.stdout.read().split() == ["staging"]
    _assert_previous_intact(data_root, previous)
    # The half-written file is not a snapshot anyone can reach: LATEST never named it.
    assert layout.read_latest(root) == previous
    assert partial.parent.name.startswith(".staging-")
    with pytest.raises(ValueError):
        layout.version_dir(root, partial.parent.name)
