"""Publishing: build a snapshot in a staging folder, make it durable, rename it into place,
then swap `LATEST`. Any crash before the swap leaves `LATEST` on the previous snapshot, which
is never touched; any crash after it leaves the new snapshot complete.

    staging folder  → graph.duckdb (built) → manifest.json → fsync all
                    → rename to versions/<version> → fsync → LATEST swap → prune old versions
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import secrets
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from graphrag_core.errors import GraphragError
from graphrag_core.store import layout, schema
from graphrag_core.store.builder import SnapshotTables, build_database
from graphrag_core.store.manifest import (
    DatabaseFile,
    InputFiling,
    InputsFile,
    SnapshotManifest,
    code_version,
    file_sha256,
    inputs_digest,
)

log = logging.getLogger(__name__)

# Stages reported to `progress`, in order (the Dagster asset logs them; tests stop a real
# publishing process at each of them).
STAGES = ("staging", "database", "manifest", "synced", "renamed", "swapped", "pruned")

Progress = Callable[[str, Path], None]


class SnapshotPublishError(GraphragError):
    pass


def version_name(built_at: dt.datetime, digest: str) -> str:
    return f"{built_at.astimezone(dt.UTC).strftime('%Y%m%dT%H%M%S%fZ')}-{digest[:8]}"


class SnapshotStore:
    """Published snapshots under `<data root>/snapshots`.

    `retain` is how many versions are kept (newest by name), never counting out the one
    `LATEST` names; `stale_staging_s` is how old a staging folder must be before it is taken
    for the remains of a dead publish and removed.
    """

    def __init__(self, data_root: Path | str, *, retain: int = 5, stale_staging_s: float = 6 * 3600):
        if retain < 1:
            raise ValueError("retain must be at least 1: the current snapshot is always kept")
        self.root = layout.snapshots_root(data_root)
        self.retain = retain
        self.stale_staging_s = stale_staging_s

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
    def publish(
        self,
        tables: SnapshotTables,
        *,
        code: str | None = None,
        progress: Progress | None = None,
        threads: int | None = None,
    ) -> SnapshotManifest:
        """Build and publish a snapshot of `tables`; returns its manifest once `LATEST` names it."""
        report = progress or (lambda stage, path: None)
        tables = tables.consistent()
        built_at = dt.datetime.now(dt.UTC)
        inputs = [
            InputFiling(filing_id=fid, sha256=sha)
            for fid, sha in tables.filings.select("filing_id", "sha256").sort("filing_id").iter_rows()
        ]
        digest = inputs_digest(inputs)
        version = version_name(built_at, digest)
        as_of = tables.as_of()
        code = code or code_version()

        layout.versions_dir(self.root).mkdir(parents=True, exist_ok=True)
        staging = self.root / f"{layout.STAGING_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        staging.mkdir()
        report("staging", staging)
        try:
            db_path = staging / layout.DB_FILE
            counts = build_database(
                tables,
                db_path,
                info={"version": version, "as_of": as_of, "built_at": built_at,
                      "code_version": code, "inputs_digest": digest},
                threads=threads,
            )
            report("database", db_path)
            inputs_path = staging / layout.INPUTS_FILE
            inputs_path.write_text(
                json.dumps([i.model_dump() for i in inputs], separators=(",", ":")), encoding="utf-8"
            )
            manifest = SnapshotManifest(
                version=version,
                as_of=as_of,
                built_at=built_at,
                code_version=code,
                counts=counts,
                tables=dict(schema.TABLES),
                inputs=InputsFile(
                    file=layout.INPUTS_FILE, count=len(inputs), digest=digest,
                    sha256=file_sha256(inputs_path),
                ),
                database=DatabaseFile(
                    file=layout.DB_FILE, bytes=db_path.stat().st_size, sha256=file_sha256(db_path)
                ),
            )
            (staging / layout.MANIFEST_FILE).write_text(
                manifest.model_dump_json(indent=2), encoding="utf-8"
            )
            report("manifest", staging / layout.MANIFEST_FILE)
            layout.fsync_tree(staging)
            report("synced", staging)
            final = layout.version_dir(self.root, version)
            if final.exists():
                raise SnapshotPublishError(
                    f"{final} already exists; two publishes in the same microsecond? Run it again"
                )
            os.rename(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        layout.fsync_path(final.parent)
        report("renamed", final)
        layout.write_latest(self.root, version)
        report("swapped", layout.latest_path(self.root))
        removed = self.prune()
        report("pruned", self.root)
        log.info("published snapshot %s (as_of %s, counts %s); removed %s", version, as_of, counts, removed)
        return manifest

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
        cutoff = time.time() - self.stale_staging_s
        for path in self.root.glob(f"{layout.STAGING_PREFIX}*"):
            try:
                if path.stat().st_mtime < cutoff:
                    shutil.rmtree(path, ignore_errors=True)
            except FileNotFoundError:
                continue
        return removed
