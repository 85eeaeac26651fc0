"""The catalog of discovered filings: partition key → where its documents are.

Discovery (the EDGAR sensor, `filings-graph ingest`) writes one small JSON file per filing;
the raw_filings asset reads the entry for its partition key. One file per filing keeps writers
from different processes out of each other's way.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from graphrag_core.common.atomic import write_atomic
from graphrag_core.common.errors import FilingError
from graphrag_core.common.ids import require_filing_id
from graphrag_core.common.paths import confine
from graphrag_core.intake.discovery import discover
from graphrag_core.tables.records import FilingRef


class FilingCatalog:
    def __init__(self, root: Path | str):
        self.data_root = Path(root)
        self.root = self.data_root / "catalog"

    def _path(self, filing_id: str) -> Path:
        return self.root / f"{require_filing_id(filing_id)}.json"

    def path(self, filing_id: str) -> Path:
        """The entry's file, checked to lie inside the data root (links resolved): where
        `put` writes and `remove` deletes."""
        return confine(self.data_root, self._path(filing_id))

    def put(self, ref: FilingRef) -> bool:
        """Record a filing; returns True when it is new or its documents changed.

        The same bytes found under another name (the copy that sorts first is now another
        file) update the entry's locations but are no change: the filing must not run again."""
        path = self.path(ref.filing_id)
        payload = ref.model_dump_json(indent=1)
        previous: FilingRef | None = None
        if path.exists():
            text = path.read_text(encoding="utf-8")
            if text == payload:
                return False
            try:
                previous = FilingRef.model_validate_json(text)
            except ValueError:
                previous = None
        write_atomic(path, payload.encode("utf-8"))
        return previous is None or not _same_content(previous, ref)

    def put_many(self, refs: Iterable[FilingRef]) -> list[str]:
        return [ref.filing_id for ref in refs if self.put(ref)]

    def get(self, filing_id: str) -> FilingRef:
        path = self._path(filing_id)
        if not path.exists():
            raise FilingError(
                str(path),
                f"filing {filing_id!r} is not in the catalog",
                "discover it first (`filings-graph ingest`, or let the EDGAR sensor run); a "
                "partition key alone does not say where the documents are",
                field="filing_id",
            )
        return FilingRef.model_validate_json(path.read_text(encoding="utf-8"))

    def remove(self, filing_id: str) -> bool:
        """Forget a filing (it was taken back); True when it was recorded."""
        path = self.path(filing_id)
        existed = path.exists()
        path.unlink(missing_ok=True)
        return existed

    def ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.stem for p in self.root.glob("*.json") if not p.name.startswith("."))

    def all(self) -> list[FilingRef]:
        return [self.get(i) for i in self.ids()]


def _same_content(a: FilingRef, b: FilingRef) -> bool:
    """Equal but for where the documents lie, and every document's sha256 known."""
    where = {"documents": {"__all__": {"location", "filename"}}}
    return all(d.sha256 for d in (*a.documents, *b.documents)) and a.model_dump(
        exclude=where
    ) == b.model_dump(exclude=where)


def register_discovered(
    source, catalog: FilingCatalog, since=None, warnings: list[str] | None = None
) -> list[FilingRef]:
    """Discover filings from `source` (each once) and record the new or changed ones in the
    catalog; discovery's warnings go to `warnings` when given.

    Returns those refs: they are the partitions to add and materialize.
    """
    found = discover(source, since=since)
    if warnings is not None:
        warnings.extend(found.warnings)
    return [ref for ref in found.refs if catalog.put(ref)]
