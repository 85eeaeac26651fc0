"""SEC reference data (company_tickers.json, each company's submissions JSON, companyfacts) in a
folder, and the copy of it a data root keeps.

Resolution (tickers, registered and former names) and the snapshot's companies and registrants
tables are built from this data, so it is part of the store's state: a graph built with it and
rebuilt without it loses every registrant and every company resolved by name. The data root
therefore keeps the reference its graph was built with under `<data root>/reference/` (the same
layout as a corpus's `reference/` folder), refreshed from whatever source a command names:

- a source that has a file (SEC's tickers, a company's submissions) replaces the kept copy when
  the rows differ: the source named last is the newer word;
- a source that lacks it (a folder without `reference/`, EDGAR unreachable or unconfigured, an
  empty ticker list) never erases it: the kept copy is read instead.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from graphrag_core.common.atomic import write_atomic
from graphrag_core.common.errors import GraphragError
from graphrag_core.common.ids import normalize_cik, sha256_text
from graphrag_core.intake.sources import FilingSource, parse_company_tickers

REFERENCE_DIR = "reference"  # in a corpus folder and under the data root alike
TICKERS_FILE = "company_tickers.json"
SUBMISSIONS_DIR = "submissions"
COMPANYFACTS_DIR = "companyfacts"
# Under the kept folder: the identity of the source file each kept file was last compared with,
# so an unchanged corpus file is not read again (SEC's tickers are 730 KB of JSON).
SOURCES_FILE = ".sources.json"


def reference_source(paths: Iterable[Path]) -> str:
    """The identity of reference files as they are now: each one's path, size, mtime (ns) and
    inode (a file replaced by a rename is another file). Taken before the files are read, so
    that one rewritten meanwhile counts as changed at the next update; a file that appears or
    goes away changes the list."""
    parts = []
    for path in sorted({str(p) for p in paths}):
        try:
            st = os.stat(path)
            parts.append(f"{path}\x1f{st.st_size}\x1f{st.st_mtime_ns}\x1f{st.st_ino}")
        except FileNotFoundError:
            parts.append(f"{path}\x1f-")
    return sha256_text("\n".join(parts))


def kept_reference_dir(data_root: Path) -> Path:
    """Where a data root keeps the SEC reference its graph was built with."""
    return Path(data_root) / REFERENCE_DIR


class ReferenceFolder:
    """SEC's reference files in a folder: `company_tickers.json`, `submissions/*CIK##########*.json`
    (several of one company: the newest name, e.g. `_asof-YYYY-MM-DD`), `companyfacts/` alike."""

    def __init__(self, folder: Path | str):
        self.folder = Path(folder)

    @property
    def tickers_file(self) -> Path:
        return self.folder / TICKERS_FILE

    def submissions_file(self, cik: str) -> Path | None:
        return self._newest(SUBMISSIONS_DIR, cik)

    def company_tickers(self) -> list[dict]:
        path = self.tickers_file
        if not path.exists():
            return []
        return list(parse_company_tickers(json.loads(path.read_text(encoding="utf-8"))))

    def submissions(self, cik: str) -> dict | None:
        path = self.submissions_file(cik)
        return None if path is None else json.loads(path.read_text(encoding="utf-8"))

    def companyfacts(self, cik: str) -> dict | None:
        path = self._newest(COMPANYFACTS_DIR, cik)
        return None if path is None else json.loads(path.read_text(encoding="utf-8"))

    def files(self, ciks: Iterable[str]) -> list[Path]:
        """The files `company_tickers()` and `submissions(cik)` of these CIKs read (those that
        exist, and the tickers file whether or not): what identifies the data they return."""
        found = [self.tickers_file]
        found += [f for f in (self.submissions_file(c) for c in ciks) if f is not None]
        return found

    def _newest(self, kind: str, cik: str) -> Path | None:
        folder = self.folder / kind
        key = normalize_cik(cik)
        if not folder.is_dir() or key is None:
            return None
        matches = sorted(folder.glob(f"*CIK{key}*.json"))
        return matches[-1] if matches else None


def keep_reference(
    kept: ReferenceFolder,
    source: FilingSource,
    ciks: Iterable[str],
    *,
    warn: Callable[[str], None] | None = None,
) -> list[str]:
    """Bring the kept reference up to date with what `source` has of SEC's tickers and of these
    companies' submissions; returns the kept files rewritten (relative names).

    A kept file is rewritten only when the source's rows differ, so its identity (and the graph
    store's memory of it) stays put while nothing changes. A source folder's file whose identity
    is the one last compared is not read at all. What the source lacks, or fails to give (an
    error is reported through `warn`), leaves the kept copy as it is.
    """
    folder = getattr(source, "reference", None)
    local = folder if isinstance(folder, ReferenceFolder) else None
    state = _read_state(kept)
    changed: list[str] = []

    def refresh(name: str, origin: Path | None, read: Callable[[], Any], what: str) -> None:
        identity = reference_source([origin]) if origin is not None else None
        if identity is not None and state.get(name) == identity:
            return
        try:
            rows = read()
        except (GraphragError, OSError, ValueError) as exc:
            if warn:
                warn(f"{what} unavailable from the source, the kept copy is used: {exc}")
            return
        if rows and _write_if_changed(kept.folder / name, rows):
            changed.append(name)
        if identity is not None:
            state[name] = identity

    tickers_origin = local.tickers_file if local is not None else None
    if local is None or (tickers_origin is not None and tickers_origin.exists()):
        refresh(TICKERS_FILE, tickers_origin, source.company_tickers, "SEC company tickers")
    for cik in sorted({c for c in (normalize_cik(c) for c in ciks) if c}):
        origin = local.submissions_file(cik) if local is not None else None
        if local is not None and origin is None:
            continue  # this folder has nothing of the company: nothing to compare
        refresh(
            f"{SUBMISSIONS_DIR}/CIK{cik}.json",
            origin,
            partial(source.submissions, cik),
            f"SEC submissions of CIK {cik}",
        )
    if state != _read_state(kept):
        _write_json(kept.folder / SOURCES_FILE, state)
    return changed


def _read_state(kept: ReferenceFolder) -> dict[str, str]:
    try:
        state = json.loads((kept.folder / SOURCES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in state.items()} if isinstance(state, dict) else {}


def _write_if_changed(path: Path, rows: Any) -> bool:
    data = json.dumps(rows, sort_keys=True, separators=(",", ":")).encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    write_atomic(path, data)
    return True


def _write_json(path: Path, value: Any) -> None:
    write_atomic(path, json.dumps(value, sort_keys=True, indent=1).encode("utf-8"))
