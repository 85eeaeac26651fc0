"""Publishing: build a snapshot in a staging folder, make it durable, rename it into place,
then swap `LATEST`. Any crash before the swap leaves `LATEST` on the previous snapshot, which
is never touched; any crash after it leaves the new snapshot complete.

    staging folder  → graph.duckdb (built) → manifest.json → fsync all → verified (opened
                      read-only, digest and row counts checked) → rename to versions/<version>
                    → fsync → LATEST swap → prune old versions

A publish whose inputs and code are those of the current version builds nothing.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import logging
import os
import secrets
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl

from graphrag_core.common.errors import GraphragError
from graphrag_core.common.ids import file_sha256, sha256_stream
from graphrag_core.settings import SnapshotSettings
from graphrag_core.store import layout
from graphrag_core.store import snapshot_schema as schema
from graphrag_core.store.database import build_database
from graphrag_core.store.manifest import (
    DatabaseFile,
    InputFiling,
    InputsFile,
    SnapshotManifest,
    code_version,
    inputs_digest,
)
from graphrag_core.store.snapshot_tables import SnapshotTables, as_of_basis
from graphrag_core.store.verification import Verification, verify_database

log = logging.getLogger(__name__)

# Stages reported to `progress`, in order (the Dagster asset logs them; tests stop a real
# publishing process at each of them).
STAGES = ("staging", "database", "manifest", "synced", "verified", "renamed", "swapped", "pruned")

Progress = Callable[[str, Path], None]


class SnapshotPublishError(GraphragError):
    pass


class SnapshotVerificationError(SnapshotPublishError):
    """The staged snapshot did not open as a reader would open it; `LATEST` did not move."""

    def __init__(self, verification: Verification):
        self.verification = verification
        super().__init__(
            f"snapshot {verification.version} failed verification before publishing "
            f"({verification.describe()}); LATEST still names the previous snapshot. Fix: "
            "rebuild it (materialize graph_snapshot again); if it fails again, check the disk"
        )


class StagingLock:
    """An exclusive `flock` on a staging folder's lock file, held by the publish building it.

    The kernel drops the lock when that process dies, however it dies, so `prune` can remove a
    dead publish's folder at once and never a live one's, whatever their ages."""

    def __init__(self, folder: Path):
        self.path = folder / layout.STAGING_LOCK_FILE
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def release(self, *, unlink: bool = False) -> None:
        """Drop the lock (first removing its file when `unlink`: a published version keeps no
        lock file)."""
        if unlink:
            self.path.unlink(missing_ok=True)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    @staticmethod
    def held(folder: Path) -> bool | None:
        """Whether a live publish holds `folder`'s lock; None when it has no lock file (a
        publish between making the folder and locking it, or one from older code)."""
        try:
            fd = os.open(folder / layout.STAGING_LOCK_FILE, os.O_RDWR)
        except FileNotFoundError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False


@dataclass(frozen=True)
class StagedSnapshot:
    """A built, durable snapshot that is not current yet."""

    store: SnapshotStore
    path: Path
    manifest: SnapshotManifest
    report: Progress
    lock: StagingLock | None = None

    @property
    def version(self) -> str:
        return self.manifest.version

    def verify(self) -> Verification:
        """Open the staged database read-only, as the MCP server will, and compare it with its
        manifest: file digest and the row count of every table."""
        verification = verify_database(self.path / layout.DB_FILE, self.manifest)
        self.report("verified", self.path)
        return verification

    def commit(self) -> SnapshotManifest:
        """Rename the staged folder into place, swap `LATEST` to it, prune old versions."""
        final = layout.version_dir(self.store.root, self.version)
        if final.exists():
            self.discard()
            raise SnapshotPublishError(
                f"{final} already exists; two publishes in the same microsecond? Run it again"
            )
        try:
            if self.lock is not None:
                self.lock.release(unlink=True)
            os.rename(self.path, final)
        except BaseException:
            self.discard()
            raise
        layout.fsync_path(final.parent)
        self.report("renamed", final)
        layout.write_latest(self.store.root, self.version)
        self.report("swapped", layout.latest_path(self.store.root))
        removed = self.store.prune()
        self.report("pruned", self.store.root)
        log.info(
            "published snapshot %s (as_of %s, counts %s); removed %s",
            self.version,
            self.manifest.as_of,
            self.manifest.counts,
            removed,
        )
        return self.manifest

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if self.lock is not None:
            self.lock.release()


def content_digest(tables: SnapshotTables, code: str) -> str:
    """sha256 over `code` and every table's schema and row hashes, in order. Polars' row hash is
    stable within one Polars version, which is part of the digest for that reason."""

    def parts() -> Iterator[bytes | str]:
        yield f"{code}\npolars {pl.__version__}\nreview queue {tables.review_queue_size}\n"
        for name, frame in tables.frames().items():
            yield f"{name}\t{frame.height}\t{frame.schema}\n"
            if frame.height:
                yield frame.hash_rows(seed=0).to_numpy().tobytes()
        if tables.chunk_index is not None:
            # The index version is part of what is published: a re-embedded index is a new pair.
            ref = tables.chunk_index
            yield (
                f"chunk_index\t{ref.path}\t{ref.table}\t{ref.version}\t"
                f"{ref.model_id}\t{ref.keys_digest}\n"
            )
        for item in tables.excluded:
            # The manifest names what was left out and why: a change there is a new version,
            # so the manifest never names a failure that was fixed (or misses a new one).
            yield f"excluded\t{item.filing_id}\t{item.reason}\t{item.fix}\n"

    return sha256_stream(parts())


def version_name(built_at: dt.datetime, digest: str) -> str:
    return f"{built_at.astimezone(dt.UTC).strftime('%Y%m%dT%H%M%S%fZ')}-{digest[:8]}"


class SnapshotStore:
    """Published snapshots under `<data root>/snapshots`.

    `retain` is how many versions are kept (newest by name), never counting out the one
    `LATEST` names. A staging folder whose publish died is removed by the next publish or
    prune: each publish holds a lock on its folder (`StagingLock`); `stale_staging_s` is only
    for folders without a lock file.
    """

    def __init__(
        self, data_root: Path | str, *, retain: int = 5, stale_staging_s: float = 6 * 3600
    ):
        if retain < 1:
            raise ValueError("retain must be at least 1: the current snapshot is always kept")
        self.root = layout.snapshots_root(data_root)
        self.retain = retain
        self.stale_staging_s = stale_staging_s

    def _relative_index(self, tables: SnapshotTables) -> SnapshotTables:
        """The chunk index recorded relative to the data root: a copied or moved data root
        then searches its own index, not the original's."""
        if tables.chunk_index is None:
            return tables
        return replace(tables, chunk_index=tables.chunk_index.relative_to(self.root.parent))

    @classmethod
    def from_settings(cls, data_root: Path | str, settings: SnapshotSettings) -> SnapshotStore:
        return cls(data_root, retain=settings.retain, stale_staging_s=settings.stale_staging_s)

    # -- reading the store ---------------------------------------------------------------
    def current_version(self) -> str | None:
        return layout.read_latest(self.root)

    def versions(self) -> list[str]:
        directory = layout.versions_dir(self.root)
        if not directory.is_dir():
            return []
        return sorted(p.name for p in directory.iterdir() if layout.VERSION_RE.match(p.name))

    def manifest(self, version: str) -> SnapshotManifest:
        path = layout.version_dir(self.root, version) / layout.MANIFEST_FILE
        return SnapshotManifest.model_validate_json(path.read_text(encoding="utf-8"))

    def inputs(self, version: str) -> list[InputFiling]:
        """The filings (id, sha256) a version was built from."""
        path = layout.version_dir(self.root, version) / layout.INPUTS_FILE
        return [InputFiling(**item) for item in json.loads(path.read_text(encoding="utf-8"))]

    def database_path(self, version: str) -> Path:
        return layout.version_dir(self.root, version) / layout.DB_FILE

    # -- publishing ----------------------------------------------------------------------
    def _current_manifest(self) -> SnapshotManifest | None:
        current = self.current_version()
        if current is None:
            return None
        try:
            return self.manifest(current)
        except (OSError, ValueError):
            return None

    def stage(
        self,
        tables: SnapshotTables,
        *,
        code: str | None = None,
        progress: Progress | None = None,
        threads: int | None = None,
        digest: str | None = None,
        allowed_shrink: dict[str, Any] | None = None,
    ) -> StagedSnapshot:
        """Build a snapshot of `tables` in a staging folder and make it durable; it becomes
        current only when `commit()`ed, after `verify()`. `digest` is `content_digest` of the
        consistent tables when the caller has it already."""
        report = progress or (lambda stage, path: None)
        tables = self._relative_index(tables.consistent())
        code = code or code_version()
        digest = digest or content_digest(tables, code)
        built_at = dt.datetime.now(dt.UTC)
        inputs = [
            InputFiling(filing_id=fid, sha256=sha)
            for fid, sha in tables.filings.select("filing_id", "sha256")
            .sort("filing_id")
            .iter_rows()
        ]
        filings_digest = inputs_digest(inputs)
        version = version_name(built_at, filings_digest)
        as_of, as_of_from = as_of_basis(tables.filings)

        layout.versions_dir(self.root).mkdir(parents=True, exist_ok=True)
        staging = self.root / f"{layout.STAGING_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        staging.mkdir()
        lock = StagingLock(staging)
        report("staging", staging)
        try:
            db_path = staging / layout.DB_FILE
            counts = build_database(
                tables,
                db_path,
                info={
                    "version": version,
                    "as_of": as_of,
                    "built_at": built_at,
                    "code_version": code,
                    "inputs_digest": filings_digest,
                },
                threads=threads,
            )
            report("database", db_path)
            inputs_path = staging / layout.INPUTS_FILE
            inputs_path.write_text(
                json.dumps([i.model_dump() for i in inputs], separators=(",", ":")),
                encoding="utf-8",
            )
            manifest = SnapshotManifest(
                version=version,
                as_of=as_of,
                as_of_basis=as_of_from,
                built_at=built_at,
                code_version=code,
                content_digest=digest,
                counts=counts,
                tables={k: v for k, v in schema.TABLES.items() if k in counts},
                inputs=InputsFile(
                    file=layout.INPUTS_FILE,
                    count=len(inputs),
                    digest=filings_digest,
                    sha256=file_sha256(inputs_path),
                ),
                database=DatabaseFile(
                    file=layout.DB_FILE, bytes=db_path.stat().st_size, sha256=file_sha256(db_path)
                ),
                review_queue=tables.review_queue_size,
                chunk_index=tables.chunk_index,
                allowed_shrink=allowed_shrink,
                excluded=list(tables.excluded),
            )
            (staging / layout.MANIFEST_FILE).write_text(
                manifest.model_dump_json(indent=2), encoding="utf-8"
            )
            report("manifest", staging / layout.MANIFEST_FILE)
            layout.fsync_tree(staging)
            report("synced", staging)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            lock.release()
            raise
        return StagedSnapshot(self, staging, manifest, report, lock)

    def stage_if_changed(
        self,
        tables: SnapshotTables,
        *,
        code: str | None = None,
        progress: Progress | None = None,
        threads: int | None = None,
        allowed_shrink: dict[str, Any] | None = None,
    ) -> StagedSnapshot | None:
        """`stage()`, unless the current version was built from exactly these tables by this
        code: then None (there is nothing to publish)."""
        self.remove_dead_staging()
        tables = self._relative_index(tables.consistent())
        code = code or code_version()
        digest = content_digest(tables, code)
        current = self._current_manifest()
        if current is not None and current.content_digest == digest:
            log.info(
                "snapshot %s is current and its inputs are unchanged; nothing published",
                current.version,
            )
            return None
        return self.stage(
            tables,
            code=code,
            progress=progress,
            threads=threads,
            digest=digest,
            allowed_shrink=allowed_shrink,
        )

    def publish(
        self,
        tables: SnapshotTables,
        *,
        code: str | None = None,
        progress: Progress | None = None,
        threads: int | None = None,
    ) -> SnapshotManifest:
        """Build, verify and publish a snapshot of `tables`; returns its manifest once `LATEST`
        names it. When the current version was built from the same tables by the same code,
        nothing is built and the current manifest is returned (compare versions to tell)."""
        staged = self.stage_if_changed(tables, code=code, progress=progress, threads=threads)
        if staged is None:
            current = self._current_manifest()
            assert current is not None  # stage_if_changed returns None only when there is one
            return current
        verification = staged.verify()
        if not verification.passed:
            staged.discard()
            raise SnapshotVerificationError(verification)
        return staged.commit()

    # -- retention -----------------------------------------------------------------------
    def prune(self) -> list[str]:
        """Remove versions beyond `retain` (never the current one) and dead staging folders."""
        current = self.current_version()
        versions = self.versions()
        keep = set(versions[-self.retain :])
        if current:
            keep.add(current)
        removed = []
        for version in versions:
            if version not in keep:
                # An MCP server may still hold this file open; POSIX keeps an unlinked file
                # readable until it is closed, so its in-flight calls finish undisturbed.
                shutil.rmtree(layout.version_dir(self.root, version), ignore_errors=True)
                removed.append(version)
        self.remove_dead_staging()
        return removed

    def remove_dead_staging(self) -> list[Path]:
        """Remove staging folders no live publish holds: unlocked ones at once, ones without a
        lock file (never locked, or left by older code) once older than `stale_staging_s`."""
        cutoff = time.time() - self.stale_staging_s
        removed = []
        for path in self.root.glob(f"{layout.STAGING_PREFIX}*"):
            try:
                held = StagingLock.held(path)
                if held is False or (held is None and path.stat().st_mtime < cutoff):
                    shutil.rmtree(path, ignore_errors=True)
                    removed.append(path)
            except (FileNotFoundError, NotADirectoryError):
                continue
        if removed:
            log.info(
                "removed staging folders of dead publishes: %s", ", ".join(p.name for p in removed)
            )
        return removed
