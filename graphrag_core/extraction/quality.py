"""The extraction stage's quality check: a filing whose triples the gates mostly reject, or whose
extractions mostly failed, means the extractor regressed or a new format arrived."""

from __future__ import annotations

import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.extraction.gates import rejection_summary
from graphrag_core.settings import ExtractionSettings


def rejection_rate_verdict(
    validated: pl.DataFrame, extractions: pl.DataFrame, settings: ExtractionSettings
) -> CheckVerdict:
    """Blocking: the share of candidate triples rejected, and of extractions that failed or did
    not parse, each at most `settings.rejection_rate_threshold`."""
    summary = rejection_summary(validated)
    threshold = settings.rejection_rate_threshold
    unusable = int(extractions["status"].is_in(["failed", "parse_error"]).sum())
    unusable_share = unusable / extractions.height if extractions.height else 0.0
    candidates, rate = summary.candidates, summary.rejection_rate
    judged = candidates >= settings.rejection_check_min_triples
    too_many_rejected = judged and rate > threshold
    # Extraction failures are judged on any filing: if every request failed there is no triple
    # to reject, and that must not pass as a clean filing.
    too_many_unusable = unusable_share > threshold
    return CheckVerdict(
        asset="validated_triples",
        check="rejection_rate",
        passed=not (too_many_rejected or too_many_unusable),
        blocking=True,
        figures={
            "rejection_rate": round(rate, 4),
            "candidates": candidates,
            "judged": judged,
            "unusable_extractions": unusable,
            "unusable_share": round(unusable_share, 4),
            "threshold": threshold,
            "rejected_by_reason": summary.rejected_by_reason,
        },
    )
