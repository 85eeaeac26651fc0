"""What the run launcher's fork server imports of this project, so that a run worker starts with
the job already loaded (about a second of imports per run otherwise, as long as a filing's whole
work on two cores); and how a worker tells that the sources changed since then.

The fork server imports this module once. It stamps the project's sources, then imports the
Definitions. A worker forked later compares the stamp with the sources as they are now: when
they differ (an edit under `make dev`), it forgets every project module and imports them anew,
so a code change still applies to the next run without restarting anything. An import that
fails here (a syntax error, a bad GRAPHRAG_* setting) is left for the worker to meet again and
report in its own run, rather than taking down the fork server."""

from __future__ import annotations

import os
import sys
from pathlib import Path

PROJECT_PACKAGES = ("graphrag_core", "assets", "pipelines", "analyst", "mcp_server")
_ROOT = Path(__file__).resolve().parent.parent
# The module a run's code origin names (workspace.yaml): importing it loads every asset.
ENTRY_MODULE = "pipelines.definitions"


def source_stamp(root: Path = _ROOT) -> tuple[int, int, int]:
    """(files, total size, newest modification in ns) of the project's Python sources under
    `root`: any edit, added or removed module changes it. About 200 stat calls."""
    files = size = newest = 0
    for package in PROJECT_PACKAGES:
        if not (root / package).is_dir():
            continue
        stack = [root / package]
        while stack:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if not entry.name.startswith((".", "__pycache__")):
                            stack.append(Path(entry.path))
                    elif entry.name.endswith(".py"):
                        st = entry.stat()
                        files += 1
                        size += st.st_size
                        newest = max(newest, st.st_mtime_ns)
    return files, size, newest


def _warm() -> tuple[int, int, int] | None:
    stamp = source_stamp()
    try:
        __import__(ENTRY_MODULE)
    except Exception:  # noqa: BLE001 - the worker imports it again and fails its run with it
        return None
    return stamp


def forget_project_modules() -> int:
    """Drop every project module from this process's import cache (a worker's, before it loads
    the job): the next import reads the sources as they are now. Returns how many."""
    names = [n for n in sys.modules if n.split(".", 1)[0] in PROJECT_PACKAGES and n != __name__]
    for name in names:
        del sys.modules[name]
    return len(names)


def refresh_if_changed() -> bool:
    """In a run worker: re-import the project if its sources changed since the fork server
    imported them (or that import failed). True when it did."""
    if WARM_STAMP is not None and WARM_STAMP == source_stamp():
        return False
    forget_project_modules()
    return True


# Taken when the fork server imports this module (None: the project did not import there).
WARM_STAMP = _warm()
