"""The extraction stage's quality check: a filing whose triples the gates reject far more often
than the filings before it, or whose extractions mostly failed, means the extractor regressed or
a new format arrived.

The rejection rate is judged against a rolling baseline, the median of the last filings' rates
(recorded with their verdicts), so a spike fails whatever the usual level is; until enough
filings are recorded the fixed EXTRACTOR_REJECTION_RATE_THRESHOLD applies.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.extraction.validated_triples import rejection_summary
from graphrag_core.settings import ExtractionSettings, ReportSettings
from graphrag_core.tables.check_results import recorded_checks
from graphrag_core.tables.schemas import Schema
from graphrag_core.tables.table_store import TableStore

CHECK = "rejection_rate"


@dataclass(frozen=True)
class RejectionBaseline:
    """The usual rejection rate: median and median absolute deviation of the last filings."""

    median: float
    mad: float
    filings: int

    def limit(self, margin: float) -> float:
        """Above this rate a filing is a spike."""
        return min(1.0, self.median + max(margin, 3 * self.mad))


def rejection_history(
    store: TableStore, exclude: Iterable[str] | str | None = None
) -> pl.DataFrame:
    """Judged rejection rates recorded per filing, oldest first: filing_id, evaluated_at, rate."""
    excluded = {exclude} if isinstance(exclude, str) else set(exclude or ())
    checks = recorded_checks(store).filter(pl.col("check") == CHECK)
    rows = []
    for row in checks.iter_rows(named=True):
        figures = json.loads(row["figures"] or "{}")
        if row["filing_id"] not in excluded and figures.get("judged"):
            rows.append(
                {
                    "filing_id": row["filing_id"],
                    "evaluated_at": row["evaluated_at"],
                    "rejection_rate": float(figures.get("rejection_rate", 0.0)),
                }
            )
    schema: Schema = {
        "filing_id": pl.String,
        "evaluated_at": pl.Datetime("us", "UTC"),
        "rejection_rate": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema).sort("evaluated_at")


def rejection_baseline(
    store: TableStore, settings: ReportSettings, exclude: Iterable[str] | str | None = None
) -> RejectionBaseline | None:
    """The baseline over the last `baseline_window` judged filings other than `exclude`; None
    while fewer than `baseline_min_filings` are recorded."""
    rates = (
        rejection_history(store, exclude).tail(settings.baseline_window)["rejection_rate"].to_list()
    )
    if len(rates) < settings.baseline_min_filings:
        return None
    median = statistics.median(rates)
    mad = statistics.median(abs(r - median) for r in rates)
    return RejectionBaseline(median=median, mad=mad, filings=len(rates))


def rejection_rate_verdict(
    validated: pl.DataFrame,
    extractions: pl.DataFrame,
    settings: ExtractionSettings,
    baseline: RejectionBaseline | None = None,
    margin: float = 0.15,
) -> CheckVerdict:
    """Blocking: the share of candidate triples rejected is no spike over `baseline` (above the
    fixed threshold while there is no baseline), and the share of extractions that failed or
    did not parse is at most `settings.rejection_rate_threshold`."""
    summary = rejection_summary(validated)
    threshold = settings.rejection_rate_threshold
    unusable = int(extractions["status"].is_in(["failed", "parse_error"]).sum())
    unusable_share = unusable / extractions.height if extractions.height else 0.0
    candidates, rate = summary.candidates, summary.rejection_rate
    judged = candidates >= settings.rejection_check_min_triples
    limit = baseline.limit(margin) if baseline is not None else threshold
    too_many_rejected = judged and rate > limit
    # Extraction failures are judged on any filing: if every request failed there is no triple
    # to reject, and that must not pass as a clean filing.
    too_many_unusable = unusable_share > threshold
    figures: dict[str, object] = {
        "rejection_rate": round(rate, 4),
        "candidates": candidates,
        "judged": judged,
        "limit": round(limit, 4),
    }
    if baseline is not None:
        figures |= {
            "baseline": round(baseline.median, 4),
            "baseline_mad": round(baseline.mad, 4),
            "baseline_filings": baseline.filings,
        }
    figures |= {
        "unusable_extractions": unusable,
        "unusable_share": round(unusable_share, 4),
        "threshold": threshold,
        "rejected_by_reason": summary.rejected_by_reason,
    }
    return CheckVerdict(
        asset="validated_triples",
        check=CHECK,
        passed=not (too_many_rejected or too_many_unusable),
        blocking=True,
        figures=figures,
    )
