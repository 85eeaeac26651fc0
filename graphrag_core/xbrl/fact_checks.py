"""The XBRL stage's checks on one filing: an inline-XBRL filing must yield facts, and (when SEC's
companyfacts is at hand) its metric observations should agree with SEC's own extraction."""

from __future__ import annotations

from typing import Any

import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.tables.records import FilingMeta
from graphrag_core.xbrl.companyfacts import crosscheck, read_companyfacts


def inline_xbrl_yields_facts(meta: FilingMeta, facts: pl.DataFrame) -> CheckVerdict:
    """Blocking: a filing whose documents carry inline XBRL yields at least one fact; none
    means arelle could not read it, and its numbers would silently be missing from the graph."""
    return CheckVerdict(
        asset="xbrl_facts",
        check="inline_xbrl_yields_facts",
        passed=not meta.is_inline_xbrl or facts.height > 0,
        blocking=True,
        figures={"inline_xbrl": meta.is_inline_xbrl, "facts": facts.height},
    )


def companyfacts_agree(
    meta: FilingMeta,
    observations: pl.DataFrame,
    facts: pl.DataFrame,
    companyfacts: dict[str, Any] | None,
) -> CheckVerdict:
    """Warning only: the facts behind this filing's metric observations against SEC's
    companyfacts for the same accession (same concept, unit, period and form), each within the
    fact's stated precision. Not judged when companyfacts is unavailable (EDGAR unreachable, no
    reference file) or lists nothing of this accession."""

    def verdict(passed: bool, **figures: Any) -> CheckVerdict:
        return CheckVerdict(
            asset="metric_observations",
            check="companyfacts_agree",
            passed=passed,
            blocking=False,
            figures=figures,
        )

    if companyfacts is None:
        return verdict(True, judged=False, reason="companyfacts not available")
    if not meta.accession:
        return verdict(True, judged=False, reason="filing has no accession number")
    skipped: list[str] = []
    reference = read_companyfacts(companyfacts, skipped).filter(
        pl.col("accession") == meta.accession
    )
    unreadable = (
        {"skipped_non_finite": len(skipped), "skipped_first": skipped[:5]} if skipped else {}
    )
    if reference.is_empty() or observations.is_empty():
        return verdict(
            True, judged=False, reason="companyfacts lists nothing of this accession", **unreadable
        )
    behind = facts.filter(pl.col("fact_id").is_in(observations["fact_id"].implode()))
    checked = crosscheck(behind, reference, form=meta.form)
    mismatched = checked.filter(~pl.col("match"))
    return verdict(
        mismatched.is_empty(),
        judged=True,
        compared=checked.height,
        mismatched=mismatched.height,
        first=[
            f"{r['concept']} {r['period_end']}: {r['value']} vs SEC {r['reference_value']}"
            for r in mismatched.head(5).iter_rows(named=True)
        ],
        **unreadable,
    )
