"""Taking a filing back: every row it contributed to a working table, its recorded check
verdicts, its documents and text, and its catalog entry. The next snapshot is built without it
(its chunks, metrics and edges with their evidence disappear with its partitions); older
snapshots stay as published until retention removes them."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphrag_core.common.errors import FilingError
from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.tables.check_results import TABLE as CHECKS_TABLE
from graphrag_core.tables.check_results import forget_checks
from graphrag_core.tables.table_store import TableStore


@dataclass
class Removal:
    filing_id: str
    rows: dict[str, int] = field(default_factory=dict)  # table → rows removed
    checks: int = 0
    files: list[str] = field(default_factory=list)
    catalog: bool = False

    def describe(self) -> str:
        tables = ", ".join(f"{t} {n}" for t, n in sorted(self.rows.items())) or "none"
        return (
            f"removed filing {self.filing_id}: rows from {len(self.rows)} tables ({tables}); "
            f"{self.checks} check verdicts; {len(self.files)} files; "
            f"catalog entry {'removed' if self.catalog else 'absent'}"
        )


def remove_filing(store: TableStore, catalog: FilingCatalog, filing_id: str) -> Removal:
    """Delete the filing's partition of every working table, its verdicts, raw documents and
    text, and its catalog entry. Raises FilingError when nothing of it is known."""
    removal = Removal(filing_id)
    for table in store.tables():
        if table == CHECKS_TABLE or not store.exists(table, filing_id):
            continue
        removal.rows[table] = store.read(table, filing_id).height
        store.delete_partition(table, filing_id)
    before = len(store.partitions(CHECKS_TABLE))
    forget_checks(store, filing_id)
    removal.checks = before - len(store.partitions(CHECKS_TABLE))
    removal.files = store.delete_filing_files(filing_id)
    removal.catalog = catalog.remove(filing_id)
    if not (removal.rows or removal.checks or removal.files or removal.catalog):
        raise FilingError(
            filing_id,
            "no table, document or catalog entry holds this filing",
            "check the id with `filings-graph status` (partition keys are accession numbers "
            "like 0001045810-25-000023, or sha- plus 16 hex digits)",
            field="filing_id",
        )
    return removal
