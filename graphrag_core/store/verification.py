"""A snapshot opened the way the MCP server opens it, and compared with its manifest."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from graphrag_core.common.ids import file_sha256
from graphrag_core.store.manifest import SnapshotManifest


@dataclass(frozen=True)
class Verification:
    version: str
    opened: bool
    sha256_matches: bool
    count_mismatches: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.opened and self.sha256_matches and not self.count_mismatches

    def describe(self) -> str:
        if not self.opened:
            return f"could not open it read-only: {self.error}"
        parts = []
        if not self.sha256_matches:
            parts.append("file sha256 differs from the manifest")
        for name, (expected, actual) in self.count_mismatches.items():
            parts.append(f"{name}: {actual} rows, manifest says {expected}")
        return "; ".join(parts) or "ok"

    def figures(self) -> dict[str, object]:
        return {
            "version": self.version,
            "opened": self.opened,
            "sha256_matches": self.sha256_matches,
            "count_mismatches": {k: list(v) for k, v in self.count_mismatches.items()},
            "error": self.error,
        }


def verify_database(db_path: Path, manifest: SnapshotManifest) -> Verification:
    """Open `db_path` read-only with external access off (as the reader does); check its sha256
    and that every table the manifest counts has that many rows."""
    digest_ok = db_path.exists() and file_sha256(db_path) == manifest.database.sha256
    try:
        con = duckdb.connect(str(db_path), read_only=True, config={"enable_external_access": False})
    except (duckdb.Error, OSError) as exc:
        return Verification(
            manifest.version, opened=False, sha256_matches=digest_ok, error=str(exc)
        )
    mismatched: dict[str, tuple[int, int | None]] = {}
    try:
        for name, expected in manifest.counts.items():
            # Table names come from the manifest this project wrote, never from outside input.
            try:
                row = con.execute(f'SELECT count(*) FROM "{name}"').fetchone()
                actual: int | None = int(row[0]) if row else None
            except duckdb.Error:
                actual = None
            if actual != expected:
                mismatched[name] = (expected, actual)
    finally:
        con.close()
    return Verification(
        manifest.version, opened=True, sha256_matches=digest_ok, count_mismatches=mismatched
    )
