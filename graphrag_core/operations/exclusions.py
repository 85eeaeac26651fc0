"""Which filings the corpus job leaves out, and why: one failed filing never stops the others.

A filing is left out of the whole-corpus stages (entities, graph, communities, chunk index,
snapshot) when it fails its own checks:
1. a blocking check of one of its per-filing stages failed (recorded in `asset_checks`);
2. the latest run of one of its per-filing stages failed (the caller reads that from the
   Dagster instance: its partitions may still hold an older, now inconsistent, output);
3. one of the per-filing tables the corpus job reads has no partition for it (its run failed
   before writing, or has not finished).
Each exclusion carries the reason and a fix that gets past it: fix or replace the document and
ingest again, or take the filing out with `filings-graph remove`. Re-running the same document
with `--force` is never the fix: it fails the same check again. The exclusions are named in
the ingestion report, in `filings-graph status` and in the snapshot's manifest; the snapshot's
own corpus-wide checks still block its publish.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.store.manifest import ExcludedFiling
from graphrag_core.tables.check_results import recorded_checks
from graphrag_core.tables.table_store import TableStore

# What fixes a failed blocking check, by asset/check. Every text names the document or the
# configuration to change; the re-ingest that follows is `_again`.
_CHECK_FIXES: dict[str, str] = {
    "section_chunks/annual_report_items": (
        "the document is most likely not the 10-K's primary document (or its Item headings are "
        "not recognized): put the primary 10-K document, with its Item headings, in its place"
    ),
    "section_chunks/spans_match_text": (
        "the parser's chunks do not match the filing's saved text: replace the document with a "
        "clean copy from EDGAR (and report the document if a clean copy fails too)"
    ),
    "xbrl_facts/inline_xbrl_yields_facts": (
        "arelle read no facts from its inline XBRL: when the document is an exhibit whose "
        "contexts live in another document of its filing, ingest it with the filing's primary "
        "document (list it with `exhibit_of` in the folder's manifest.json); otherwise replace "
        "it with a complete copy from EDGAR"
    ),
    "validated_triples/rejection_rate": (
        "the extraction backend's output was mostly rejected by the gates: fix the backend (its "
        "model, endpoint or GRAPHRAG_EXTRACTION_* settings)"
    ),
}
# Checks whose fix lies outside the document: the unchanged document must be run again.
_RERUN_WITHOUT_CHANGE = {"validated_triples/rejection_rate"}


def _again(filing_id: str, *, rerun: bool) -> str:
    if rerun:
        return f"then run it again (`filings-graph ingest --filing {filing_id} --force`)"
    text = f"then ingest again (`filings-graph ingest --filing {filing_id}`)"
    if filing_id.startswith("sha-"):
        # A local file without an accession number is keyed by its content.
        text += (
            "; a corrected local file without an accession number comes in under a new id, "
            f"so take this one out with `filings-graph remove {filing_id}`"
        )
    return text


def fix_text(filing_id: str, check: str | None = None) -> str:
    """How to get the filing past `check` (asset/check), or past a failed or missing stage."""
    what = _CHECK_FIXES.get(check or "", "fix or replace the filing's document as the reason says")
    again = _again(filing_id, rerun=check in _RERUN_WITHOUT_CHANGE)
    return (
        f"{what}, {again}; or take it out of the corpus: `filings-graph remove {filing_id}` (and "
        "delete its file from a source folder, else the next ingest takes it in again)"
    )


def _failed_blocking(store: TableStore, filing_ids: Iterable[str]) -> dict[str, CheckVerdict]:
    """filing → its first failed blocking check."""
    checks = recorded_checks(store, filing_ids)
    failed = checks.filter(pl.col("blocking") & ~pl.col("passed")).sort(
        "filing_id", "asset", "check"
    )
    out: dict[str, CheckVerdict] = {}
    for row in failed.iter_rows(named=True):
        out.setdefault(
            row["filing_id"],
            CheckVerdict(
                asset=row["asset"],
                check=row["check"],
                passed=False,
                blocking=True,
                figures=json.loads(row["figures"] or "{}"),
            ),
        )
    return out


def corpus_exclusions(
    store: TableStore,
    tables: Sequence[str],
    failed_runs: Mapping[str, str] | None = None,
) -> list[ExcludedFiling]:
    """The filings to leave out of the corpus job, sorted by id. `tables`: the per-filing tables
    the corpus job reads (raw_filings first); `failed_runs`: filing → what its latest failed
    per-filing run said (from the Dagster instance), for filings whose failure left no mark in
    the store."""
    failed_runs = failed_runs or {}
    present = set(store.partitions("raw_filings"))
    candidates = sorted(present | set(failed_runs))
    checks = _failed_blocking(store, candidates)
    partitions = {table: set(store.partitions(table)) for table in tables}
    excluded: list[ExcludedFiling] = []
    for fid in candidates:
        verdict = checks.get(fid)
        if verdict is not None:
            name = f"{verdict.asset}/{verdict.check}"
            excluded.append(
                ExcludedFiling(
                    filing_id=fid,
                    reason=f"blocking check {verdict.summary()}",
                    fix=fix_text(fid, name),
                )
            )
            continue
        if fid in failed_runs:
            excluded.append(
                ExcludedFiling(
                    filing_id=fid,
                    reason=f"its run failed at {_first_line(failed_runs[fid])}",
                    fix=fix_text(fid),
                )
            )
            continue
        missing = [t for t in tables if fid not in partitions[t]]
        if missing:
            excluded.append(
                ExcludedFiling(
                    filing_id=fid,
                    reason=f"no {', '.join(missing)} partition (its run failed or has not "
                    "finished)",
                    fix=fix_text(fid),
                )
            )
    return excluded


def corpus_filings(store: TableStore, excluded: Iterable[ExcludedFiling]) -> list[str]:
    """The filings the corpus job takes in: every raw_filings partition not excluded."""
    out = {e.filing_id for e in excluded}
    return [fid for fid in store.partitions("raw_filings") if fid not in out]


def _first_line(text: str) -> str:
    line = (text.strip().splitlines() or [""])[0]
    return line[:400]
