"""The publish gate's guard against a silently degraded graph
(graph_snapshot/no_unexplained_shrink).

A build that would publish markedly fewer registrants, company nodes or edges of any relation
than the current snapshot is refused, unless there is a named reason:

- filings no longer in the build (`filings-graph remove`, the remove_filing job): what they
  alone contributed to the current snapshot (edges all of whose evidence came from them, and the
  companies only they stood for) is excused;
- an operator's reason (GRAPHRAG_SNAPSHOT_ALLOW_SHRINK, `--allow-shrink REASON`), recorded in
  the manifest of the snapshot it let through.

"Markedly" is SnapshotSettings: a loss above `max_shrink_share` of the expected count and above
`shrink_tolerance` items. Edges are compared relation by relation: the corpus's XBRL metric edges
outnumber its COMPETES_WITH edges a hundredfold, so a lost relation would vanish in a total.
The verdict of the last refused build is kept beside the snapshots for `filings-graph status`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from graphrag_core.common.atomic import write_atomic
from graphrag_core.common.checks import CheckVerdict
from graphrag_core.settings import SnapshotSettings
from graphrag_core.store import layout
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.snapshot_tables import SnapshotTables

log = logging.getLogger(__name__)

CHECK = "no_unexplained_shrink"
ASSET = "graph_snapshot"
VERDICT_FILE = "shrink_check.json"  # under <data root>/snapshots: the last refused build's verdict
REGISTRANTS = "registrants"
COMPANY_NODES = "company nodes"


def _edges(relation: str) -> str:
    return f"{relation} edges"


@dataclass(frozen=True)
class GraphSize:
    """What the check compares: one count per measure."""

    counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, tables: SnapshotTables) -> GraphSize:
        counts = {
            REGISTRANTS: tables.registrants.height,
            COMPANY_NODES: tables.nodes.filter(pl.col("entity_type") == "company").height,
        }
        for relation, n in tables.edges.group_by("relation").len().iter_rows():
            counts[_edges(relation)] = n
        return cls(counts)


@dataclass(frozen=True)
class Baseline:
    """The current snapshot's counts, and what of them filings no longer in the build alone
    contributed."""

    version: str
    before: GraphSize
    excused: GraphSize
    removed_filings: list[str]


_EDGES_BY_RELATION = "SELECT relation, count(*) FROM edges GROUP BY relation"
# Edges every piece of whose evidence comes from a filing no longer in the build.
_GONE_EDGES = """
    SELECT e.edge_id, e.relation, e.subject_id, e.object_id FROM edges e
    WHERE NOT EXISTS (SELECT 1 FROM edge_evidence v WHERE v.edge_id = e.edge_id
                      AND v.filing_id NOT IN (SELECT filing_id FROM gone))
"""
# Company nodes that only removed filings stood for: the filer of a removed filing or an end of
# an edge only they supported, and neither the filer of a remaining filing nor an end of a
# remaining edge.
_GONE_COMPANIES = f"""
    WITH gone_edges AS ({_GONE_EDGES}),
    kept_edges AS (SELECT subject_id, object_id FROM edges
                   WHERE edge_id NOT IN (SELECT edge_id FROM gone_edges)),
    kept_ends AS (SELECT subject_id AS id FROM kept_edges UNION SELECT object_id FROM kept_edges),
    gone_ends AS (SELECT subject_id AS id FROM gone_edges UNION SELECT object_id FROM gone_edges),
    kept_filers AS (SELECT DISTINCT cik FROM filings
                    WHERE filing_id NOT IN (SELECT filing_id FROM gone) AND cik IS NOT NULL),
    gone_filers AS (SELECT DISTINCT cik FROM filings
                    WHERE filing_id IN (SELECT filing_id FROM gone))
    SELECT count(*) FROM nodes n
    WHERE n.entity_type = 'company'
      AND (n.cik IN (SELECT cik FROM gone_filers) OR n.entity_id IN (SELECT id FROM gone_ends))
      AND n.entity_id NOT IN (SELECT id FROM kept_ends)
      AND (n.cik IS NULL OR n.cik NOT IN (SELECT cik FROM kept_filers))
"""


def baseline(database: Path, version: str, filing_ids: set[str]) -> Baseline:
    """The counts of the snapshot in `database` (read-only), and what of them the filings it
    holds that are not in `filing_ids` (the build's) alone contributed."""
    con = duckdb.connect(str(database), read_only=True)
    try:
        before = {
            REGISTRANTS: _scalar(con, "SELECT count(*) FROM registrants"),
            COMPANY_NODES: _scalar(con, "SELECT count(*) FROM nodes WHERE entity_type = 'company'"),
        }
        before.update({_edges(r): n for r, n in con.execute(_EDGES_BY_RELATION).fetchall()})
        previous = {row[0] for row in con.execute("SELECT filing_id FROM filings").fetchall()}
        removed = sorted(previous - filing_ids)
        excused: dict[str, int] = {}
        if removed:
            con.register("gone", pl.DataFrame({"filing_id": removed}).to_arrow())
            for relation, n in con.execute(
                f"SELECT relation, count(*) FROM ({_GONE_EDGES}) GROUP BY relation"
            ).fetchall():
                excused[_edges(relation)] = n
            excused[COMPANY_NODES] = _scalar(con, _GONE_COMPANIES)
    finally:
        con.close()
    return Baseline(version, GraphSize(before), GraphSize(excused), removed)


def current_baseline(snapshots: SnapshotStore, filing_ids: set[str]) -> Baseline | None:
    """The baseline of the current snapshot; None when none is published or it cannot be read
    (a damaged current snapshot must not stop a good one from replacing it)."""
    version = snapshots.current_version()
    if version is None:
        return None
    try:
        return baseline(snapshots.database_path(version), version, filing_ids)
    except (duckdb.Error, OSError) as exc:
        log.warning(
            "current snapshot %s unreadable, the shrink check has no baseline: %s", version, exc
        )
        return None


def _scalar(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    row = con.execute(sql).fetchone()
    return int(row[0]) if row else 0


def shrink_verdict(
    base: Baseline | None, after: GraphSize, settings: SnapshotSettings
) -> CheckVerdict:
    """Blocking: no measure loses more than the settings allow, beyond what removed filings
    contributed, unless `settings.allow_shrink` names a reason (then it passes, saying so)."""
    if base is None:
        return CheckVerdict(
            asset=ASSET,
            check=CHECK,
            passed=True,
            blocking=True,
            figures={"baseline": "no current snapshot"},
        )
    marked: dict[str, str] = {}
    for measure, count in sorted(base.before.counts.items()):
        expected = count - base.excused.counts.get(measure, 0)
        now = after.counts.get(measure, 0)
        loss = expected - now
        if loss > settings.shrink_tolerance and loss > settings.max_shrink_share * expected:
            excused = (
                f" ({expected} once removed filings are allowed for)" if expected != count else ""
            )
            marked[measure] = f"{count} -> {now}{excused}"
    figures: dict[str, Any] = {
        "current_version": base.version,
        "before": dict(sorted(base.before.counts.items())),
        "after": dict(sorted(after.counts.items())),
        "removed_filings": len(base.removed_filings),
        "max_shrink_share": settings.max_shrink_share,
        "shrink_tolerance": settings.shrink_tolerance,
    }
    if base.removed_filings:
        figures["excused"] = dict(sorted(base.excused.counts.items()))
    if marked:
        figures["marked"] = marked
        if settings.allow_shrink:
            figures["allowed_by"] = settings.allow_shrink
    return CheckVerdict(
        asset=ASSET,
        check=CHECK,
        passed=not marked or bool(settings.allow_shrink),
        blocking=True,
        figures=figures,
    )


def shrink_refusal(verdict: CheckVerdict, reference_dir: Path) -> str:
    """What a refused build tells the operator: the check, each marked measure before and after,
    and the fix (`reference_dir`: where the data root keeps SEC's reference data)."""
    marked = verdict.figures.get("marked", {})
    lines = [
        f"publish blocked: {ASSET}/{CHECK} failed: this build would publish markedly fewer than "
        f"the current snapshot {verdict.figures.get('current_version')}, with no reason named; "
        "it stays current:",
        *(f"  {measure}: {change}" for measure, change in marked.items()),
        "fix:",
    ]
    if REGISTRANTS in marked or COMPANY_NODES in marked:
        lines.append(
            "  - SEC's reference data (tickers, names, SIC) was likely missing: name a source that "
            "has it once (`--corpus DIR` whose DIR/reference/ holds company_tickers.json and "
            "submissions/, or FILINGS_CORPUS, or EDGAR with EDGAR_IDENTITY), or copy such a "
            f"reference/ folder to {reference_dir}; then publish again (run the command again, or "
            "`filings-graph ingest` with that source)"
        )
    lines.append(
        '  - if the loss is intended, run the command again with --allow-shrink "REASON" '
        "(GRAPHRAG_SNAPSHOT_ALLOW_SHRINK=REASON in the UI); the reason is recorded in the "
        "snapshot's manifest"
    )
    return "\n".join(lines)


def verdict_path(data_root: Path) -> Path:
    return layout.snapshots_root(data_root) / VERDICT_FILE


def record_refusal(data_root: Path, verdict: CheckVerdict) -> None:
    """Keep a failed verdict for `filings-graph status`; a passing one clears it."""
    path = verdict_path(data_root)
    if verdict.passed:
        path.unlink(missing_ok=True)
        return
    write_atomic(path, verdict.model_dump_json(indent=1).encode("utf-8"))


def recorded_refusal(data_root: Path, reference_dir: Path) -> str | None:
    """The refusal text of the last build this check refused, when no build has passed since."""
    try:
        verdict = CheckVerdict.model_validate_json(
            verdict_path(data_root).read_text(encoding="utf-8")
        )
    except (OSError, ValueError):
        return None
    return None if verdict.passed else shrink_refusal(verdict, reference_dir)


def allowed_shrink(verdict: CheckVerdict) -> dict[str, Any] | None:
    """What the manifest records when an operator's reason let a marked shrink through."""
    if "allowed_by" not in verdict.figures:
        return None
    return {
        "reason": verdict.figures["allowed_by"],
        "marked": verdict.figures["marked"],
        "check": f"{ASSET}/{CHECK}",
    }
