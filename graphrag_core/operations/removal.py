"""Taking a filing back: every row it contributed to a working table, its recorded check
verdicts, its documents and text, and its catalog entry. The next snapshot is built without it
(its chunks, metrics and edges with their evidence disappear with its partitions); older
snapshots stay as published until retention removes them.

The id is checked before anything else, and every path to delete is found and checked to lie
inside its root (links resolved) before the first deletion: a bad id or a link that leads out
refuses the whole removal. A removal that stopped after deleting and before publishing (killed)
left the filing in the current snapshot only; removing it again is then not an error but says
so, and the caller publishes without it."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphrag_core.common.errors import FilingError
from graphrag_core.common.ids import require_filing_id
from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.check_results import TABLE as CHECKS_TABLE
from graphrag_core.tables.check_results import check_partitions
from graphrag_core.tables.table_store import TableStore


@dataclass
class Removal:
    filing_id: str
    rows: dict[str, int] = field(default_factory=dict)  # table → rows removed
    checks: int = 0
    files: list[str] = field(default_factory=list)
    catalog: bool = False
    served_in: str | None = None  # the published version that still holds it, when only one does

    def describe(self) -> str:
        if self.served_in is not None:
            return (
                f"filing {self.filing_id} is in no working table, document or catalog entry any "
                f"more (an earlier removal stopped before publishing), but snapshot "
                f"{self.served_in} still serves it: the next publish leaves it out"
            )
        tables = ", ".join(f"{t} {n}" for t, n in sorted(self.rows.items())) or "none"
        return (
            f"removed filing {self.filing_id}: rows from {len(self.rows)} tables ({tables}); "
            f"{self.checks} check verdicts; {len(self.files)} files; "
            f"catalog entry {'removed' if self.catalog else 'absent'}"
        )


def served_version(snapshots: SnapshotStore, filing_id: str) -> str | None:
    """The current snapshot's version when it was built with this filing, else None."""
    version = snapshots.current_version()
    if version is None:
        return None
    try:
        inputs = snapshots.inputs(version)
    except (OSError, ValueError):
        return None  # an unreadable snapshot serves nothing; publishing replaces it anyway
    return version if any(i.filing_id == filing_id for i in inputs) else None


def remove_filing(
    store: TableStore,
    catalog: FilingCatalog,
    filing_id: str,
    snapshots: SnapshotStore | None = None,
) -> Removal:
    """Delete the filing's partition of every working table, its verdicts, raw documents and
    text, and its catalog entry. With nothing of it left but the current snapshot of
    `snapshots` built with it, returns a Removal saying so (`served_in`). Raises FilingError
    for a bad id or when nothing knows the filing, UnsafePathError (before deleting anything)
    when a path to delete leads out of its root."""
    filing_id = require_filing_id(filing_id)
    tables = [t for t in store.tables() if t != CHECKS_TABLE and store.exists(t, filing_id)]
    verdicts = check_partitions(store, filing_id)
    for path in [store.partition_path(t, filing_id) for t in tables] + [
        store.partition_path(CHECKS_TABLE, key) for key in verdicts
    ]:
        store.confine(path)
    store.filing_files(filing_id)
    catalog.path(filing_id)

    removal = Removal(filing_id)
    for table in tables:
        removal.rows[table] = store.read(table, filing_id).height
        store.delete_partition(table, filing_id)
    for key in verdicts:
        store.delete_partition(CHECKS_TABLE, key)
    removal.checks = len(verdicts)
    removal.files = store.delete_filing_files(filing_id)
    removal.catalog = catalog.remove(filing_id)
    if removal.rows or removal.checks or removal.files or removal.catalog:
        return removal
    removal.served_in = served_version(snapshots, filing_id) if snapshots else None
    if removal.served_in is None:
        raise FilingError(
            filing_id,
            "no table, document or catalog entry holds this filing, and the current snapshot does "
            "not serve it",
            "check the id with `filings-graph status` (partition keys are accession numbers "
            "like 0001045810-25-000023, or sha- plus 16 hex digits)",
            field="filing_id",
        )
    return removal
