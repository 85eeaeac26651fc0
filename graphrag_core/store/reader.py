"""Read-only access to the current published snapshot, with hot reload.

This is the only part of `graphrag_core` the MCP server imports. A `SnapshotReader` holds the
snapshot `LATEST` names, opened with DuckDB `read_only=True` and external file access
disabled, after checking the file's sha256 against its manifest. Each `lease()` first checks —
with one `stat` of `LATEST` — whether a newer snapshot was published; if so, new leases get
the new one while leases already handed out keep the old one, which is closed when its last
lease ends.

The reader keeps serving through what a careless operator or a failing disk can do: an
unreadable `LATEST` (not UTF-8, a directory, a name that is no version) or a damaged new
version keeps the current snapshot; with none open yet, the newest intact version is served
instead; a DuckDB error during a call becomes a `SnapshotReadError` naming the snapshot and
what to do, and a file found damaged then is dropped for the newest intact version. Each
failure is logged once per episode (until it changes or clears), not once per call.
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
from graphrag_core.common.freshness import is_stale  # noqa: F401 (get_metrics flags stale companies)
from graphrag_core.common.ids import company_key, file_sha256, normalize_cik
from graphrag_core.common.names import (  # query_words: search_facts' word grammar
    compact_name,
    normalize_name,
    query_words,
)

# The MCP tools' period grammar: labels, and the period / as-of filter of the graph tools.
from graphrag_core.common.periods import (  # noqa: F401
    PERIOD_LABEL_PATTERN,
    PeriodFilter,
    parse_period_filter,
    period_label,
)
from graphrag_core.common.sectors import SectorMatch, resolve_sector, sector_choices
from graphrag_core.store import layout
from graphrag_core.store.manifest import SnapshotManifest
from graphrag_core.store.snapshot_vocabulary import (
    ADDED_COLUMNS,
    BALANCE_METRICS,
    FLOW_METRICS,
    GRAPH_ENTITY_TYPES,
    GRAPH_RELATIONS,
    METRIC_RELATIONS,
    WINDOW_GAP_DAYS,
    WINDOW_PERIODS,
)
from graphrag_core.store.theme_search import filing_label, filing_themes

__all__ = [
    "BALANCE_METRICS",
    "FLOW_METRICS",
    "GRAPH_ENTITY_TYPES",
    "GRAPH_RELATIONS",
    "METRIC_RELATIONS",
    "SectorMatch",
    "Snapshot",
    "SnapshotReadError",
    "SnapshotReader",
    "SnapshotUnavailable",
    "WINDOW_GAP_DAYS",
    "WINDOW_PERIODS",
    "company_key",
    "compact_name",
    "filing_label",
    "filing_themes",
    "normalize_cik",
    "normalize_name",
    "query_words",
    "sector_choices",
    "sector_match",
]

log = logging.getLogger(__name__)

# The snapshot's SIC codes with SEC's descriptions: what a `sector` argument is read against.
_KNOWN_SICS = (
    "SELECT DISTINCT sic, sic_description FROM companies WHERE sic IS NOT NULL ORDER BY sic"
)


class SnapshotUnavailable(GraphragError):
    """No snapshot can be served (none published yet, or the current one cannot be opened)."""


class SnapshotReadError(SnapshotUnavailable):
    """A call failed reading the snapshot it leased; the message names it and what to do."""


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
    # Views an older snapshot's cursors are given (missing_column_views); temporary views belong
    # to one connection, and every call has a cursor of its own. Empty for a current snapshot.
    _shims: tuple[str, ...] = field(default=(), repr=False)

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        with self._cursor_lock:
            cur = self._con.cursor()
        try:
            for statement in self._shims:
                cur.execute(statement)
        except duckdb.Error:
            cur.close()
            raise
        return cur

    @property
    def as_of(self) -> dt.date | None:
        return self.manifest.as_of

    def query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()
    ) -> list[dict[str, Any]]:
        """Run one parameterized statement; rows as dicts. Values never enter `sql` itself."""
        cur = self._cursor()
        try:
            cur.execute(sql, params)
            names = [d[0] for d in cur.description or ()]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
        finally:
            cur.close()

    def execute(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()
    ) -> list[tuple[Any, ...]]:
        """Like `query`, rows as tuples (what a caller measuring the raw engine wants)."""
        cur = self._cursor()
        try:
            return cur.execute(sql, params).fetchall()
        finally:
            cur.close()

    def _close(self) -> None:
        self._con.close()


def open_snapshot(root: Path, version: str, *, threads: int | None = None) -> Snapshot:
    """Open a published version read-only after checking its file against its manifest (size,
    then sha256: a same-size corruption must not be served). Raises `SnapshotUnavailable`."""
    folder = layout.checked_version_dir(root, version)
    manifest_path = folder / layout.MANIFEST_FILE
    db_path = folder / layout.DB_FILE
    for path in (manifest_path, db_path):
        if path.is_symlink():
            raise SnapshotUnavailable(
                f"{path} is a symbolic link; a snapshot's files are the ones the publish wrote "
                "— publish a new snapshot (materialize graph_snapshot)"
            )
    try:
        manifest = SnapshotManifest.model_validate_json(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SnapshotUnavailable(
            f"{manifest_path} is missing: the folder of snapshot {version} is incomplete or "
            "was removed; publish a new snapshot (materialize graph_snapshot)"
        ) from exc
    except (OSError, ValueError) as exc:
        raise SnapshotUnavailable(
            f"{manifest_path} cannot be read ({exc}); the snapshot is damaged — publish a new one"
        ) from exc
    if manifest.version != version:
        raise SnapshotUnavailable(
            f"{manifest_path} names version {manifest.version}, not its folder {version}: the "
            "folder was copied or renamed; remove it and publish a new snapshot (materialize "
            "graph_snapshot)"
        )
    size = db_path.stat().st_size if db_path.exists() else -1
    if size != manifest.database.bytes:
        raise SnapshotUnavailable(
            f"{db_path}: {size} bytes, manifest says {manifest.database.bytes}; the snapshot is "
            "damaged — publish a new one"
        )
    if file_sha256(db_path) != manifest.database.sha256:
        raise SnapshotUnavailable(
            f"{db_path}: sha256 differs from its manifest's; the snapshot is damaged — "
            "publish a new one"
        )
    config: dict[str, Any] = {
        # Nothing a query could name outside the file itself: no CSV, Parquet, HTTP, ATTACH.
        "enable_external_access": False,
        "lock_configuration": True,
    }
    if threads:
        config["threads"] = threads
    con = duckdb.connect(str(db_path), read_only=True, config=config)
    try:
        shims = missing_column_views(con)
    except duckdb.Error:
        con.close()
        raise
    return Snapshot(version=version, manifest=manifest, path=db_path, _con=con, _shims=tuple(shims))


def missing_column_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The statements that shadow each snapshot table lacking columns added since it was
    published by a temporary view holding them as nulls (snapshot_vocabulary.ADDED_COLUMNS); the
    file is not touched. Empty for a current snapshot."""
    row = con.execute("SELECT current_database()").fetchone()
    catalog = str(row[0]) if row else ""
    present: dict[str, set[str]] = {}
    for table, column in con.execute(
        "SELECT table_name, column_name FROM duckdb_columns() "
        "WHERE database_name = current_database() AND schema_name = 'main'"
    ).fetchall():
        present.setdefault(table, set()).add(column)
    views = []
    for table, columns in ADDED_COLUMNS.items():
        missing = [
            (c, t) for c, t in columns.items() if table in present and c not in present[table]
        ]
        if not missing:
            continue
        nulls = ", ".join(f'NULL::{t} AS "{c}"' for c, t in missing)
        quoted = catalog.replace('"', '""')
        views.append(
            f'CREATE TEMP VIEW "{table}" AS SELECT *, {nulls} FROM "{quoted}".main."{table}"'
        )
    return views


_OPEN_ERRORS = (SnapshotUnavailable, duckdb.Error, OSError, ValueError)


class SnapshotReader:
    """The current snapshot of one data root, reopened when `LATEST` moves."""

    def __init__(self, data_root: Path | str, *, threads: int | None = None):
        self.data_root = Path(data_root)
        self.root = layout.snapshots_root(self.data_root)
        self.threads = threads
        self._lock = threading.Lock()
        self._current: Snapshot | None = None
        self._latest_key: tuple[int, int, int] | None = None
        # Versions that cannot be served, and why (versions are immutable once published).
        self._damaged: dict[str, str] = {}
        # Versions already re-checked after a failed call (one sha256 per version, not per call).
        self._rechecked: set[str] = set()
        self._episode: str | None = None

    # -- logging once per episode ---------------------------------------------------------
    def _report(
        self, key: str, message: str, *args: object, exc: BaseException | None = None
    ) -> None:
        """Log a failure once until another failure replaces it or a success clears it."""
        if key == self._episode:
            return
        self._episode = key
        log.error(message, *args, exc_info=exc)

    def _serving(self) -> str:
        return self._current.version if self._current else "nothing"

    # -- LATEST ---------------------------------------------------------------------------
    def _stat_latest(self) -> tuple[int, int, int] | None:
        try:  # the link itself: a LATEST that is a link is refused, wherever it points
            st = os.lstat(layout.latest_path(self.root))
        except FileNotFoundError:
            return None
        except OSError:
            return (-1, -1, -1)  # unreadable; _read_latest says why
        # os.replace gives LATEST a new inode, so the key changes on every swap.
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _read_latest(self) -> tuple[str | None, str | None]:
        """(the version LATEST names, why LATEST cannot be used); (None, None): no LATEST."""
        return layout.read_latest_checked(self.root)

    # -- opening --------------------------------------------------------------------------
    def _open(self, version: str) -> Snapshot | None:
        """The version opened, or None (and remembered as damaged, and logged once)."""
        if version in self._damaged:
            return None
        try:
            return open_snapshot(self.root, version, threads=self.threads)
        except _OPEN_ERRORS as exc:
            self._damaged[version] = str(exc)
            log.error(
                "cannot open snapshot %s (%s); still serving %s", version, exc, self._serving()
            )
            return None

    def _install(self, fresh: Snapshot) -> None:
        old, self._current = self._current, fresh
        self._episode = None
        log.info("serving snapshot %s (as_of %s)", fresh.version, fresh.as_of)
        if old is not None:
            old._retired = True
            if old._leases == 0:
                old._close()

    def _versions(self) -> list[str]:
        folder = layout.versions_dir(self.root)
        try:
            names = [p.name for p in folder.iterdir() if layout.VERSION_RE.match(p.name)]
        except OSError:
            return []
        return sorted(names)

    def _fall_back_locked(self, why: str) -> None:
        """With nothing being served, serve the newest intact version (newest by name)."""
        for version in reversed(self._versions()):
            fresh = self._open(version)
            if fresh is not None:
                log.warning("%s; serving %s, the newest intact snapshot version", why, version)
                self._install(fresh)
                return

    def _refresh_locked(self) -> None:
        key = self._stat_latest()
        if key is not None and key == self._latest_key and self._current is not None:
            return
        self._latest_key = key
        version, problem = self._read_latest()
        if problem is not None:
            self._report(
                f"latest:{problem}",
                "LATEST unreadable: %s; still serving %s",
                problem,
                self._serving(),
            )
            if self._current is None:
                self._fall_back_locked(f"LATEST unreadable: {problem}")
            return
        if version is None or (self._current is not None and version == self._current.version):
            return
        fresh = self._open(version)
        if fresh is not None:
            self._install(fresh)
        elif self._current is None:
            self._fall_back_locked(f"snapshot {version} (LATEST) is damaged")

    def _unavailable(self) -> SnapshotUnavailable:
        version, problem = self._read_latest()
        if problem is not None:
            return SnapshotUnavailable(
                f"LATEST under {self.root} is unreadable ({problem}) and no intact snapshot "
                "version was found; publish a new snapshot (materialize graph_snapshot)"
            )
        if version is not None and version in self._damaged:
            return SnapshotUnavailable(
                f"snapshot {version} is damaged ({self._damaged[version]}) and no intact "
                "version is left to serve; publish a new snapshot (materialize graph_snapshot)"
            )
        return SnapshotUnavailable(
            f"no snapshot has been published under {self.root}; materialize the "
            "graph_snapshot asset (or run `make demo`) and try again"
        )

    # -- failures during a call ------------------------------------------------------------
    def _query_failed(self, snap: Snapshot, exc: duckdb.Error) -> str:
        """Log the failure (once per episode), re-check the snapshot's file once, drop it for
        the newest intact version when it no longer matches its manifest; the caller's message."""
        first_line = (str(exc).splitlines() or [""])[0][:300]
        with self._lock:
            self._report(
                f"query:{snap.version}:{type(exc).__name__}:{first_line}",
                "reading snapshot %s failed",
                snap.version,
                exc=exc,
            )
            damaged = None
            if snap.version not in self._rechecked:
                self._rechecked.add(snap.version)
                try:
                    if file_sha256(snap.path) != snap.manifest.database.sha256:
                        damaged = "its file no longer matches its manifest's sha256"
                except OSError as err:
                    damaged = f"its file cannot be read ({err})"
            if damaged is not None:
                self._damaged[snap.version] = f"{snap.path}: {damaged}"
                log.error(
                    "snapshot %s is damaged: %s; it is no longer served", snap.version, damaged
                )
                if self._current is snap:
                    self._current = None
                    snap._retired = True  # closed when its last lease ends
                    self._latest_key = None
                    self._fall_back_locked(f"snapshot {snap.version} is damaged")
            replacement = self._current.version if self._current is not None else None
        if damaged is not None:
            then = (
                f"the server now serves {replacement}; call again"
                if replacement
                else "no intact version is left; publish a new snapshot (materialize "
                "graph_snapshot)"
            )
            return f"snapshot {snap.version} is damaged ({damaged}); {then}"
        return (
            f"reading snapshot {snap.version} failed ({type(exc).__name__}: {first_line}); call "
            "again, and if it keeps failing publish a new snapshot (materialize graph_snapshot) "
            "or restart the MCP server"
        )

    # -- the API ---------------------------------------------------------------------------
    @contextmanager
    def lease(self) -> Iterator[Snapshot]:
        """The current snapshot for the duration of one call. A DuckDB error inside the call
        comes out as a `SnapshotReadError` that names the snapshot and what to do."""
        with self._lock:
            self._refresh_locked()
            snap = self._current
            if snap is None:
                raise self._unavailable()
            snap._leases += 1
        try:
            yield snap
        except duckdb.Error as exc:
            raise SnapshotReadError(self._query_failed(snap, exc)) from exc
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


def sector_match(snap: Snapshot, text: str) -> SectorMatch:
    """A tool's `sector` argument → the SIC codes of this snapshot's companies that it names: the
    one resolver (`common.sectors.resolve_sector`) every tool's `sector` goes through, so
    "Information Technology" and "semiconductors" are read alike everywhere."""
    known = [(r["sic"], r["sic_description"]) for r in snap.query(_KNOWN_SICS)]
    return resolve_sector(text, known)
