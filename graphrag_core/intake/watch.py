"""What the sensors remember between ticks, and how they tell a new filing from a known one.

The EDGAR sensor keeps, per company, the newest filing it has seen (accession and filing date):
the next tick asks EDGAR only for filings on or after that date, and a filing is new when the
catalog did not hold it. The local inbox remembers each file's SHA-256, so a file dropped in,
or replaced by a different one, is new.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field

from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.intake.discovery import unique_filings
from graphrag_core.tables.records import FilingRef


@dataclass(frozen=True)
class Seen:
    accession: str
    filed: dt.date


@dataclass
class CompanyCursor:
    """Per company (CIK): the newest filing seen."""

    newest: dict[str, Seen] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str | None) -> CompanyCursor:
        if not text:
            return cls()
        try:
            payload = json.loads(text)
        except ValueError:
            # An older cursor (a plain date) or a damaged one: start over; the catalog still
            # knows every filing registered before, so nothing runs twice.
            return cls()
        if not isinstance(payload, dict):
            return cls()
        return cls(
            {
                cik: Seen(entry["accession"], dt.date.fromisoformat(entry["filed"]))
                for cik, entry in payload.items()
                if isinstance(entry, dict) and "accession" in entry and "filed" in entry
            }
        )

    def dump(self) -> str:
        return json.dumps(
            {
                cik: {"accession": s.accession, "filed": s.filed.isoformat()}
                for cik, s in sorted(self.newest.items())
            },
            sort_keys=True,
        )

    def since(self, cik: str) -> dt.date | None:
        seen = self.newest.get(cik)
        return seen.filed if seen else None

    def advance(self, cik: str, refs: list[FilingRef]) -> None:
        """Remember the newest of `refs` (and of what was remembered) for this company."""
        candidates = [Seen(r.accession or r.filing_id, r.filed_date) for r in refs if r.filed_date]
        if cik in self.newest:
            candidates.append(self.newest[cik])
        if candidates:
            self.newest[cik] = max(candidates, key=lambda s: (s.filed, s.accession))


def register_new(
    catalog: FilingCatalog, refs: list[FilingRef], warnings: list[str] | None = None
) -> list[FilingRef]:
    """Record `refs` in the catalog, each filing once (a duplicate id or document is skipped
    with a warning in `warnings`); return those it did not hold (or held with other documents)."""
    found = unique_filings(refs)
    if warnings is not None:
        warnings.extend(found.warnings)
    return [ref for ref in found.refs if catalog.put(ref)]


@dataclass
class InboxCursor:
    """File name (relative to the inbox) → SHA-256 of the version last registered."""

    files: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str | None) -> InboxCursor:
        try:
            payload = json.loads(text) if text else {}
        except ValueError:
            payload = {}
        return cls(
            {str(k): str(v) for k, v in payload.items()} if isinstance(payload, dict) else {}
        )

    def dump(self) -> str:
        return json.dumps(self.files, sort_keys=True)

    def changed(self, refs: list[FilingRef], root: str) -> list[FilingRef]:
        """Refs with a document not seen before in this version; remembers them."""
        fresh = []
        for ref in refs:
            keys = {
                doc.location.removeprefix(root).lstrip("/"): doc.sha256 or ""
                for doc in ref.documents
            }
            if any(self.files.get(name) != sha for name, sha in keys.items()):
                fresh.append(ref)
                self.files.update(keys)
        return fresh
