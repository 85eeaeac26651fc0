"""Read-only access to the current published snapshot, with hot reload.

This is the only part of `graphrag_core` the MCP server imports. A `SnapshotReader` holds the
snapshot `LATEST` names, opened with DuckDB `read_only=True` and external file access
disabled. Each `lease()` first checks — with one `stat` of `LATEST` — whether a newer snapshot
was published; if so, new leases get the new one while leases already handed out keep the old
one, which is closed when its last lease ends.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from graphrag_core.common.errors import GraphragError
from graphrag_core.common.ids import company_key, normalize_cik
from graphrag_core.common.names import compact_name, normalize_name
from graphrag_core.store import layout
from graphrag_core.store.manifest import SnapshotManifest
from graphrag_core.store.snapshot_schema import (
    BALANCE_METRICS,
    FLOW_METRICS,
    GRAPH_ENTITY_TYPES,
    GRAPH_RELATIONS,
    METRIC_RELATIONS,
)

__all__ = [
    "BALANCE_METRICS",
    "FLOW_METRICS",
    "GRAPH_ENTITY_TYPES",
    "GRAPH_RELATIONS",
    "METRIC_RELATIONS",
    "Snapshot",
    "SnapshotReader",
    "SnapshotUnavailable",
    "company_key",
    "compact_name",
    "normalize_cik",
    "normalize_name",
]

log = logging.getLogger(__name__)


class SnapshotUnavailable(GraphragError):
    """No snapshot can be served (none published yet, or the current one cannot be opened)."""


@dataclass(eq=False)
class Snapshot:
    """One opened snapshot. Query it through `query`, which uses a cursor of its own per call
    so that concurrent calls (the MCP server runs tools in worker threads) never share one."""

    version: str
    manifest: SnapshotManifest
    path: Path
    _con: duckdb.DuckDBPyConnection = field(repr=False)
    _leases: int = 0
    _retired: bool = False
    # A DuckDB connection is not thread-safe; its cursors are, one per thread. Making a cursor
    # touches the parent connection, so that step is serialized.
    _cursor_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def as_of(self) -> dt.date | None:
        return self.manifest.as_of

    def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[dict[str, Any]]:
        """Run one parameterized statement; rows as dicts. Values never enter `sql` itself."""
        with self._cursor_lock:
            cur = self._con.cursor()
        try:
            cur.execute(sql, params)
            names = [d[0] for d in cur.description or ()]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
        finally:
            cur.close()

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[tuple[Any, ...]]:
        """Like `query`, rows as tuples (what a caller measuring the raw engine wants)."""
        with self._cursor_lock:
            cur = self._con.cursor()
        try:
            return cur.execute(sql, params).fetchall()
        finally:
            cur.close()

    def _close(self) -> None:
        self._con.close()


def open_snapshot(root: Path, version: str, *, threads: int | None = None) -> Snapshot:
    folder = layout.version_dir(root, version)
    manifest_path = folder / layout.MANIFEST_FILE
    db_path = folder / layout.DB_FILE
    try:
        manifest = SnapshotManifest.model_validate_json(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SnapshotUnavailable(
            f"{manifest_path} is missing: LATEST names {version} but its folder is incomplete or "
            "was removed; publish a new snapshot (materialize graph_snapshot)"
        ) from exc
    size = db_path.stat().st_size if db_path.exists() else -1
    if size != manifest.database.bytes:
        raise SnapshotUnavailable(
            f"{db_path}: {size} bytes, manifest says {manifest.database.bytes}; the snapshot is "
            "damaged — publish a new one"
        )
    config: dict[str, Any] = {
        # Nothing a query could name outside the file itself: no CSV, Parquet, HTTP, ATTACH.
        "enable_external_access": False,
        "lock_configuration": True,
    }
    if threads:
        config["threads"] = threads
    con = duckdb.connect(str(db_path), read_only=True, config=config)
    return Snapshot(version=version, manifest=manifest, path=db_path, _con=con)


class SnapshotReader:
    """The current snapshot of one data root, reopened when `LATEST` moves."""

    def __init__(self, data_root: Path | str, *, threads: int | None = None):
        self.data_root = Path(data_root)
        self.root = layout.snapshots_root(self.data_root)
        self.threads = threads
        self._lock = threading.Lock()
        self._current: Snapshot | None = None
        self._latest_key: tuple[int, int, int] | None = None
        self._failed_version: str | None = None
        self._failure: str | None = None

    def _stat_latest(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(layout.latest_path(self.root))
        except FileNotFoundError:
            return None
        # os.replace gives LATEST a new inode, so the key changes on every swap.
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _refresh_locked(self) -> None:
        key = self._stat_latest()
        if key is not None and key == self._latest_key and self._current is not None:
            return
        version = layout.read_latest(self.root)
        self._latest_key = key
        if version is None or (self._current is not None and version == self._current.version):
            return
        if version == self._failed_version:
            if self._current is None:
                raise SnapshotUnavailable(self._failure or f"cannot open snapshot {version}")
            return
        try:
            fresh = open_snapshot(self.root, version, threads=self.threads)
        except (SnapshotUnavailable, duckdb.Error, OSError, ValueError) as exc:
            # Keep serving the snapshot we have; a broken publish must not take the server down.
            self._failed_version, self._failure = version, str(exc)
            log.error("cannot open snapshot %s (%s); still serving %s", version, exc,
                      self._current.version if self._current else "nothing")
            if self._current is None:
                raise SnapshotUnavailable(str(exc)) from exc
            return
        self._failed_version = self._failure = None
        old, self._current = self._current, fresh
        log.info("serving snapshot %s (as_of %s)", fresh.version, fresh.as_of)
        if old is not None:
            old._retired = True
            if old._leases == 0:
                old._close()

    @contextmanager
    def lease(self) -> Iterator[Snapshot]:
        """The current snapshot for the duration of one call."""
        with self._lock:
            self._refresh_locked()
            snap = self._current
            if snap is None:
                raise SnapshotUnavailable(
                    f"no snapshot has been published under {self.root}; materialize the "
                    "graph_snapshot asset (or run `make demo`) and try again"
                )
            snap._leases += 1
        try:
            yield snap
        finally:
            with self._lock:
                snap._leases -= 1
                if snap._retired and snap._leases == 0:
                    snap._close()

    def current_version(self) -> str | None:
        with self._lock:
            self._refresh_locked()
            return self._current.version if self._current else None

    def close(self) -> None:
        with self._lock:
            if self._current is not None:
                self._current._retired = True
                if self._current._leases == 0:
                    self._current._close()
                self._current = None
            self._latest_key = None
