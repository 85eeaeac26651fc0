"""What reading an earnings release yields before fiscal labels: each figure found (`Found`) and
the reading that collects them (`ReleaseReading`).

A leaf module: the tables' reader (`releases`) and the sentences' reader (`release_prose`) both
append to one `ReleaseReading`, so its types live here and neither reader imports the other
back (`releases` calls `release_prose`, never the reverse).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphrag_core.common.numbers import finite_float
from graphrag_core.xbrl.release_periods import Span


@dataclass
class Found:
    metric: str
    value: float
    unit: str
    span: Span
    chunk_id: str
    rule: str
    from_table: bool


@dataclass
class ReleaseReading:
    found: list[Found] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)  # every period a table heading states
    unscaled_tables: int = 0
    conflicts: int = 0
    non_finite: int = 0
    warnings: list[str] = field(default_factory=list)

    def add(self, found: Found) -> None:
        """Keep a figure, unless it is not a finite number (a 400-digit cell, or one that
        overflows once scaled): that one is skipped with a warning naming the chunk, the row
        or sentence and the column."""
        if finite_float(found.value) is None:
            self.non_finite += 1
            self.warnings.append(
                f"chunk {found.chunk_id}: {found.rule} gives {found.metric} = {found.value!r} for "
                f"{found.span.start}..{found.span.end}, not a finite number; skipped. Fix: none, "
                "unless the release's figure is needed (check the release's text)"
            )
            return
        self.found.append(found)
