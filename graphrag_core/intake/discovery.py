"""Discovery that offers each filing once.

A folder can hold the same filing twice (a copy under a second name, an exhibit filed again),
and a watchlist can name one company twice. Two refs with one filing id would be added twice
to the dynamic partition set (a UNIQUE violation that stops the whole run) and would take
turns in the catalog, so the filing would count as changed, and re-run, on every ingest. The
first ref of each filing id and of each primary-document sha256 is kept (sources list refs in
a stable order); every other one is skipped with a warning that names both.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from graphrag_core.intake.sources import FilingSource
from graphrag_core.tables.records import FilingRef


@dataclass
class Discovery:
    """The filings a source offers, each once, and what discovery skipped or doubted."""

    refs: list[FilingRef]
    warnings: list[str] = field(default_factory=list)


def _name(ref: FilingRef, root: Path | None) -> str:
    if not ref.documents:
        return ref.filing_id
    location = ref.documents[0].location
    if root is not None:
        try:
            return str(Path(location).relative_to(root))
        except ValueError:
            pass
    return location


def unique_filings(refs: Iterable[FilingRef], root: Path | None = None) -> Discovery:
    """Keep the first ref of each filing id and primary-document sha256; warn for the rest.
    `root` shortens local paths in the warnings."""
    kept: list[FilingRef] = []
    warnings: list[str] = []
    by_id: dict[str, FilingRef] = {}
    by_sha: dict[str, FilingRef] = {}
    for ref in refs:
        sha = ref.documents[0].sha256 if ref.documents else None
        if sha and (first := by_sha.get(sha)) is not None:
            warnings.append(
                f"{_name(ref, root)} duplicates {_name(first, root)} (same sha256), skipped"
            )
            continue
        if (first := by_id.get(ref.filing_id)) is not None:
            warnings.append(
                f"{_name(ref, root)} duplicates {_name(first, root)} (same filing id "
                f"{ref.filing_id}), skipped"
            )
            continue
        by_id[ref.filing_id] = ref
        if sha:
            by_sha[sha] = ref
        kept.append(ref)
    return Discovery(kept, warnings)


def discover(source: FilingSource, since: dt.date | None = None) -> Discovery:
    """`source.discover(since)`, each filing once, with the source's own discovery warnings."""
    refs = source.discover(since=since) if since is not None else source.discover()
    found = unique_filings(refs)
    found.warnings[:0] = source.discovery_warnings
    return found
