"""The guard on every path the project writes or deletes under a root (the data root, the
table store's root).

A path is built from names that come from outside (a filing id typed on the command line or in
the Dagster UI's run config, a document's file name from a catalog entry), so each one is checked
where it becomes a path: a name is one path component (`safe_name`), and the path it makes,
resolved with its symlinks, lies strictly inside the root (`confine`). A link under the data root
that points elsewhere is refused, not followed: deleting through it would delete someone else's
files.
"""

from __future__ import annotations

import os
from pathlib import Path

from graphrag_core.common.errors import UnsafePathError

_FIX = (
    "filings-graph only writes and deletes inside its data root; give a filing id or name, not "
    "a path, and if a link under the data root points elsewhere, remove or replace that link "
    "by hand"
)


def safe_name(name: str, what: str) -> str:
    """`name` when it is one path component: not empty, no separator or NUL, not `.`/`..`, and
    not hidden (the store's own temporary files start with a dot)."""
    if (
        not isinstance(name, str)
        or not name
        or name.startswith(".")
        or any(c in name for c in ("/", "\\", "\x00"))
    ):
        shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:77] + "..."
        raise UnsafePathError(
            f"{shown}: not a usable {what} name (one path component, not empty, no '/', '\\', "
            f"NUL or leading '.'). Fix: {_FIX}"
        )
    return name


def confine(root: Path | str, path: Path | str, *, local: bool = True) -> Path:
    """`path` when it lies strictly inside `root`, both resolved with their symlinks; else an
    UnsafePathError naming the path, where it leads, and the fix.

    `local=False` is for an object-store root (an fsspec URL): there are no links, so the check
    is on the path's text (under the root's prefix, no `.` or `..` or empty segment)."""
    if local:
        try:
            base = Path(os.path.realpath(root))
            real = Path(os.path.realpath(path))
        except (OSError, ValueError) as exc:  # a NUL byte, a link loop
            raise UnsafePathError(f"{path}: cannot be resolved ({exc}). Fix: {_FIX}") from exc
        if base in real.parents:
            return Path(path)
        where = "" if str(real) == str(path) else f" (it leads to {real})"
        raise UnsafePathError(f"{path}{where}: refused, outside {base}. Fix: {_FIX}")
    prefix, text = str(root).rstrip("/") + "/", str(path)
    rest = text[len(prefix) :].split("/") if text.startswith(prefix) else []
    if rest and all(part not in ("", ".", "..") for part in rest):
        return Path(path) if isinstance(path, str) else path
    raise UnsafePathError(f"{path}: refused, outside {root}. Fix: {_FIX}")
