"""What the run launcher's fork server imports of this project, so that a run worker starts with
the job already loaded (about a second of imports per run otherwise, as long as a filing's whole
work on two cores); and how a worker tells that the sources changed since then.

The fork server imports this module once. It stamps the project's sources, then imports the
Definitions. A worker forked later compares the stamp with the sources as they are now, and with
the Settings its launcher gave it: when either differs (an edit under `make dev`, an ingest with
Settings of its own), it forgets every project module and imports them anew, so a code change
still applies to the next run without restarting anything. An import that
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


def settings_fingerprint() -> str | None:
    """A digest of the Settings this process's environment makes (None: it makes none). The
    Definitions are built from them at import (`pipelines.definitions.defs`), so a worker whose
    launcher gave it other Settings than the fork server had must import the project again."""
    from graphrag_core.common.ids import content_hash
    from graphrag_core.settings import Settings, settings_environment

    try:
        env = settings_environment(Settings())
    except Exception:  # noqa: BLE001 - a bad setting fails the worker's own run, with its message
        return None
    return content_hash(*sorted(env.items()), length=32)


Stamp = tuple[tuple[int, int, int], str | None]


def _warm() -> Stamp | None:
    stamp = (source_stamp(), settings_fingerprint())
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
    """In a run worker: re-import the project if its sources or its Settings (the worker's
    environment) changed since the fork server imported it, or that import failed. True when
    it did."""
    if WARM_STAMP is not None and WARM_STAMP == (source_stamp(), settings_fingerprint()):
        return False
    forget_project_modules()
    return True


# Taken when the fork server imports this module (None: the project did not import there).
WARM_STAMP = _warm()
