"""Where snapshots live and how the `LATEST` pointer is read and swapped.

    <data root>/snapshots/
        LATEST                      one line: the current version's name
        versions/<version>/         immutable once renamed into place
            graph.duckdb
            manifest.json           version, as_of, counts, code version, file digests
            inputs.json             the input filings: id and sha256 of each
        .staging-<pid>-<random>/    a publish in progress (or one that died)
            .publishing.lock        flock'd by the publish while it is alive

`LATEST` is a small file replaced with `os.replace` after an fsync, so a reader sees either the
old name or the new one, never a torn write; the version folder it names was renamed into
place (and fsynced) before the swap, so `LATEST` never names a partial snapshot.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

SNAPSHOTS_DIR = "snapshots"
VERSIONS_DIR = "versions"
LATEST_FILE = "LATEST"
DB_FILE = "graph.duckdb"
MANIFEST_FILE = "manifest.json"
INPUTS_FILE = "inputs.json"
STAGING_PREFIX = ".staging-"
STAGING_LOCK_FILE = ".publishing.lock"  # held (flock) by the live publish of a staging folder

# Versions sort by build time: `20250827T101500123456Z-3f9a1c2e` (UTC, then a content digest).
VERSION_RE = re.compile(r"^\d{8}T\d{12}Z-[0-9a-f]{8}$")


def snapshots_root(data_root: Path | str) -> Path:
    return Path(data_root) / SNAPSHOTS_DIR


def versions_dir(root: Path) -> Path:
    return root / VERSIONS_DIR


def version_dir(root: Path, version: str) -> Path:
    if not VERSION_RE.match(version):
        # The name comes from a file on disk; refuse anything that could walk out of the folder.
        raise ValueError(f"not a snapshot version name: {version!r}")
    return versions_dir(root) / version


def latest_path(root: Path) -> Path:
    return root / LATEST_FILE


_LATEST_MAX_BYTES = 256  # a version name and a newline; anything longer is not a LATEST


def read_latest_checked(root: Path) -> tuple[str | None, str | None]:
    """(the version `LATEST` names, why `LATEST` cannot be used); (None, None): no `LATEST`.

    `LATEST` must be a small regular file in the snapshots folder itself: a symbolic link is
    refused without being followed (wherever it points), a FIFO is not waited on, and what a
    file that names no version holds is never repeated (it could be any file's content)."""
    path = latest_path(root)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        if path.is_symlink():
            return None, (
                "it is a symbolic link; LATEST must be the file the publish writes "
                f"— remove {path} and publish again"
            )
        return None, f"{type(exc).__name__}: {exc.strerror}"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, "it is not a regular file"
        data = os.read(fd, _LATEST_MAX_BYTES + 1)
    except OSError as exc:
        return None, f"{type(exc).__name__}: {exc.strerror}"
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8").strip()
    except UnicodeError:
        text = ""
    if len(data) > _LATEST_MAX_BYTES or not VERSION_RE.match(text):
        return None, f"it names no snapshot version ({len(data)} bytes that are not a version name)"
    return text, None


def read_latest(root: Path) -> str | None:
    """The current version's name, or None when nothing has been published or `LATEST` names
    nothing usable (`read_latest_checked` says why; a publish replaces it)."""
    return read_latest_checked(root)[0]


def checked_version_dir(root: Path, version: str) -> Path:
    """`version_dir`, refused (ValueError naming the path and the fix) when the folder is a
    symbolic link or resolves outside the store's versions folder: a published version is a
    real folder the publish renamed into place, never a link to files elsewhere."""
    folder = version_dir(root, version)
    if folder.is_symlink() or folder.resolve().parent != versions_dir(root).resolve():
        raise ValueError(
            f"{folder} is a symbolic link (or resolves outside {versions_dir(root)}); a "
            "snapshot version must be the folder the publish wrote — remove it and publish a "
            "new snapshot (materialize graph_snapshot)"
        )
    return folder


def fsync_path(path: Path) -> None:
    """fsync a file or a directory (a directory's fsync makes renames inside it durable)."""
    flags = os.O_RDONLY | (os.O_DIRECTORY if path.is_dir() else 0)
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(path: Path) -> None:
    """fsync every file under `path`, then every directory bottom-up, then `path` itself."""
    dirs: list[Path] = []
    for current, _dirnames, filenames in os.walk(path):
        for name in filenames:
            fsync_path(Path(current) / name)
        dirs.append(Path(current))
    for directory in reversed(dirs):
        fsync_path(directory)


def write_latest(root: Path, version: str) -> None:
    """Point `LATEST` at `version`: temp file, fsync, atomic rename, fsync of the folder."""
    if not VERSION_RE.match(version):
        raise ValueError(f"not a snapshot version name: {version!r}")
    fd, tmp = tempfile.mkstemp(dir=root, prefix=".LATEST-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(version + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, latest_path(root))
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_path(root)
