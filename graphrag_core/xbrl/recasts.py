"""Why a later filing shows a period with another value: what the filing's own XBRL says.

Each observation carries `recast_evidence`: what its filing states about a change to that
value, read from facts only (no model, no prose):

- **split** — `us-gaap:StockholdersEquityNoteStockSplitConversionRatio1` (or its older
  variant): the ratio, for per-share and share-count metrics;
- **accounting_change** — an adopted standard (`us-gaap:AccountingStandardsUpdateExtensibleList`
  naming `AccountingStandardsUpdate202308Member` → "ASU 2023-08") together with an adjustment
  of this concept and period on `srt:RestatementAxis` / `srt:CumulativeEffectPeriodOfAdoptionAxis`,
  or an adjustment member that names the standard update itself;
- **reclassification** — an adjustment on the restatement axis whose member is the
  reclassification one;
- **discontinued_operation** — the filing reports discontinued operations for the same period
  (income-statement metrics);
- **error_correction** — `dei:DocumentFinStmtErrorCorrectionFlag` true, or the error-correction
  adjustment member;
- **restatement** — an adjustment on the restatement axis that says nothing more.

Entries are `kind: detail`, joined with " | ". `classify` turns them (and the values of the two
observations) into the `supersede_reason` of the older one; a split is also recognised from the
value ratio across filings when the diluted share counts behind the two values moved by the
same whole ratio (NVIDIA's ten-for-one split carries no split fact in its FY2025 10-K).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal

import polars as pl

SPLIT_RATIO_CONCEPTS = (
    "us-gaap:StockholdersEquityNoteStockSplitConversionRatio1",
    "us-gaap:StockholdersEquityNoteStockSplitConversionRatio",
)
ASU_LIST_CONCEPT = "us-gaap:AccountingStandardsUpdateExtensibleList"
ERROR_FLAG_CONCEPT = "dei:DocumentFinStmtErrorCorrectionFlag"
ADJUSTMENT_AXES = (
    "srt:RestatementAxis",
    "srt:CumulativeEffectPeriodOfAdoptionAxis",
    "srt:RevisionOfPriorPeriodAxis",
)
DILUTED_SHARES_CONCEPTS = (
    "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding",
    "us-gaap:WeightedAverageNumberOfShareOutstandingBasicAndDiluted",
)
# Metrics a discontinued operation recasts (it moves lines out of continuing operations).
DISCONTINUED_METRICS = frozenset(
    {"revenue", "cost_of_revenue", "gross_profit", "operating_income", "operating_cash_flow"}
)
SPLIT_METRIC_KINDS = frozenset({"per_share", "shares"})

SupersedeReason = str  # restatement | recast | press_release_final | unknown
REASONS = ("restatement", "recast", "press_release_final", "unknown")
RECAST_KINDS = ("split", "accounting_change", "reclassification", "discontinued_operation")

_ASU_RE = re.compile(r"AccountingStandardsUpdate(\d{4})(\d{2})Member")
_SEPARATOR = " | "


def asu_name(member: str) -> str | None:
    """`...#AccountingStandardsUpdate202308Member` → 'ASU 2023-08'."""
    m = _ASU_RE.search(member)
    return f"ASU {m.group(1)}-{m.group(2)}" if m else None


@dataclass
class FilingRecastSignals:
    """What one filing's facts say about recasts, before it is matched to observations."""

    split_ratio: float | None = None
    split_concept: str | None = None
    split_on: str | None = None  # the split fact's date (instant) or period ("start..end")
    standards: list[str] = field(default_factory=list)  # "ASU 2023-08"
    error_correction: bool = False
    # (concept, period_start, period_end) → adjustment members seen on it
    adjustments: dict[tuple[str, dt.date | None, dt.date], set[str]] = field(default_factory=dict)
    discontinued: dict[tuple[dt.date | None, dt.date], str] = field(default_factory=dict)
    diluted_shares: dict[tuple[dt.date | None, dt.date], float] = field(default_factory=dict)

    def evidence(
        self,
        metric: str,
        unit_kind: str | None,
        concepts: list[str],
        start: dt.date | None,
        end: dt.date,
    ) -> str | None:
        """The filing's evidence for a recast of this metric's value for this period."""
        entries: list[str] = []
        if unit_kind in SPLIT_METRIC_KINDS and self.split_ratio:
            on = f" on {self.split_on}" if self.split_on else ""
            entries.append(f"split: {_ratio_text(self.split_ratio)} ({self.split_concept}){on}")
        members = set().union(*(self.adjustments.get((c, start, end), set()) for c in concepts))
        if members:
            named = sorted({n for m in members if (n := asu_name(m))})
            on = ", ".join(concepts)
            axis_note = (
                f"adjustment of {on} for this period on the restatement axis "
                f"({', '.join(sorted(members))})"
            )
            if any("ErrorCorrection" in m for m in members):
                entries.append(f"error_correction: {axis_note}")
            elif any("Reclassification" in m for m in members):
                entries.append(f"reclassification: {axis_note}")
            elif (
                named
                or self.standards
                or any("CumulativeEffect" in m or "AccountingStandardsUpdate" in m for m in members)
            ):
                standards = named or self.standards
                entries.append(
                    "accounting_change: "
                    f"{', '.join(standards) or 'a change in accounting principle'}; "
                    f"{axis_note}"
                )
            else:
                entries.append(f"restatement: {axis_note}")
        if self.error_correction and not any(e.startswith("error_correction") for e in entries):
            entries.append(f"error_correction: {ERROR_FLAG_CONCEPT} is true")
        if metric in DISCONTINUED_METRICS and (start, end) in self.discontinued:
            entries.append(
                f"discontinued_operation: {self.discontinued[(start, end)]} reported for "
                "this period"
            )
        return _SEPARATOR.join(entries) or None


def _ratio_text(ratio: float) -> str:
    if ratio >= 1:
        return f"{ratio:g}-for-1 stock split"
    return f"1-for-{1 / ratio:g} reverse stock split"


def filing_signals(facts: pl.DataFrame) -> FilingRecastSignals:
    """Read a filing's recast signals from its facts (all of them, dimensions included)."""
    signals = FilingRecastSignals()
    if facts.is_empty():
        return signals
    concepts = pl.col("concept")
    # Split ratio.
    split = facts.filter(
        concepts.is_in(SPLIT_RATIO_CONCEPTS) & pl.col("value").is_not_null() & (pl.col("value") > 0)
    )
    if split.height:
        row = split.sort("period_end", descending=True).row(0, named=True)
        signals.split_ratio, signals.split_concept = float(row["value"]), row["concept"]
        # When it took effect bounds which filings predate it (`splits` re-bases those).
        start, end = row["period_start"], row["period_end"]
        signals.split_on = end.isoformat() if start is None or start == end else f"{start}..{end}"
    # Standards adopted.
    for text in facts.filter(concepts == ASU_LIST_CONCEPT)["normalized"].drop_nulls().to_list():
        for part in str(text).split():
            if (name := asu_name(part)) and name not in signals.standards:
                signals.standards.append(name)
    flag = facts.filter(concepts == ERROR_FLAG_CONCEPT)["normalized"].drop_nulls().to_list()
    signals.error_correction = any(str(v).strip().lower() == "true" for v in flag)
    # Adjustments of individual lines on the restatement / adoption axes.
    dimensional = facts.filter(
        (pl.col("dimension_count") > 0)
        & pl.col("dimensions").str.contains(
            r"RestatementAxis|CumulativeEffectPeriodOfAdoptionAxis|RevisionOfPriorPeriodAxis|AccountingStandardsUpdate\d"
        )
    )
    for concept, start, end, dims in dimensional.select(
        "concept", "period_start", "period_end", "dimensions"
    ).iter_rows():
        try:
            axes = json.loads(dims)
        except (TypeError, ValueError):
            continue
        members = {str(axes[a]) for a in ADJUSTMENT_AXES if a in axes}
        members |= {str(m) for m in axes.values() if _ASU_RE.search(str(m))}
        # "As previously reported" columns say a change happened; the adjustment members say
        # which. Both mark the line.
        if members:
            signals.adjustments.setdefault((concept, start, end), set()).update(members)
    # Discontinued operations reported for a period.
    consolidated = facts.filter(
        (pl.col("dimension_count") == 0)
        & pl.col("is_numeric")
        & pl.col("value").is_not_null()
        & (pl.col("value") != 0)
    )
    disc = consolidated.filter(
        concepts.str.contains("DiscontinuedOperation") & (pl.col("period_type") == "duration")
    )
    for concept, start, end in disc.select("concept", "period_start", "period_end").iter_rows():
        signals.discontinued.setdefault((start, end), concept)
    shares = consolidated.filter(
        pl.col("concept").is_in(DILUTED_SHARES_CONCEPTS) & (pl.col("unit") == "shares")
    )
    for concept in DILUTED_SHARES_CONCEPTS:  # the first concept reported wins per period
        for start, end, value in (
            shares.filter(pl.col("concept") == concept)
            .select("period_start", "period_end", "value")
            .iter_rows()
        ):
            signals.diluted_shares.setdefault((start, end), float(value))
    return signals


# ---------------------------------------------------------------------------------------------
# the reason an observation was superseded


def parse_evidence(evidence: str | None) -> dict[str, str]:
    """'split: 10-for-1 … | accounting_change: ASU 2023-08; …' → {kind: detail}."""
    out: dict[str, str] = {}
    for entry in (evidence or "").split(_SEPARATOR):
        kind, _, detail = entry.partition(": ")
        if kind and detail:
            out.setdefault(kind.strip(), detail.strip())
    return out


def _half_unit(value: float, per_share: bool = False) -> float:
    """Half the last unit a reported figure is rounded to: 0.17 → 0.005, 2_487_000_000 → 500_000.
    Per-share figures are stated to the cent at least (3.00 is 3.00, not 3)."""
    if value == 0 or not math.isfinite(value):
        return 0.0
    if per_share:
        exponent = Decimal(repr(abs(value))).normalize().as_tuple().exponent
        places = max(2, -exponent) if isinstance(exponent, int) else 2
        return 0.5 * 10**-places
    if value == round(value):
        digits = str(int(abs(value)))
        zeros = len(digits) - len(digits.rstrip("0"))
        return 0.5 * 10 ** min(zeros, len(digits) - 1)
    exponent = Decimal(repr(abs(value))).normalize().as_tuple().exponent
    return 0.5 * 10 ** int(exponent) if isinstance(exponent, int) else 0.0


def _ratio_bounds(
    numerator: float, denominator: float, per_share: bool = False
) -> tuple[float, float] | None:
    """The range numerator / denominator can take given both figures' rounding."""
    if numerator == 0 or denominator == 0 or (numerator > 0) != (denominator > 0):
        return None
    n, d = abs(numerator), abs(denominator)
    hn, hd = _half_unit(n, per_share), _half_unit(d, per_share)
    if d - hd <= 0:
        return None
    return (n - hn) / (d + hd), (n + hn) / (d - hd)


def _whole_ratios(bounds: tuple[float, float] | None, largest: int = 100) -> list[int]:
    if bounds is None:
        return []
    lo, hi = bounds
    return [k for k in range(max(2, math.ceil(lo)), min(largest, math.floor(hi)) + 1)]


@dataclass(frozen=True, slots=True)
class Observed:
    """The fields of an observation that the reason depends on."""

    value: float
    unit_kind: str | None
    source_kind: str | None
    form: str | None
    filing_id: str
    evidence: str | None
    shares_basis: float | None


def split_recast(old: Observed, new: Observed) -> str | None:
    """A detail string when the change from `old` to `new` is a stock split (forward or reverse):
    the split fact's ratio matches the value ratio, or the value ratio is one whole number
    within rounding and the share counts behind the values moved by the same ratio."""
    if old.unit_kind not in SPLIT_METRIC_KINDS:
        return None
    per_share = old.unit_kind == "per_share"
    forward = (
        _ratio_bounds(old.value, new.value, True)
        if per_share
        else _ratio_bounds(new.value, old.value)
    )
    reverse = (
        _ratio_bounds(new.value, old.value, True)
        if per_share
        else _ratio_bounds(old.value, new.value)
    )
    stated = parse_evidence(new.evidence).get("split")
    for direction, bounds in (("forward", forward), ("reverse", reverse)):
        candidates = _whole_ratios(bounds)
        if not candidates:
            continue
        if stated:
            ratio = re.match(r"([\d.]+)-for-([\d.]+)", stated)
            if ratio:
                n = float(ratio.group(1)) / float(ratio.group(2))
                n = n if direction == "forward" else 1 / n
                if any(abs(k - n) < 1e-6 for k in candidates):
                    return f"{stated}; value ratio {_ratio(old, new, per_share, direction)}"
        if len(candidates) != 1:
            continue
        k = candidates[0]
        if per_share:
            if not (old.shares_basis and new.shares_basis):
                continue
            moved = (
                new.shares_basis / old.shares_basis
                if direction == "forward"
                else old.shares_basis / new.shares_basis
            )
            if abs(moved - k) / k > 0.02:
                continue
            basis = f"; diluted shares {old.shares_basis:,.0f} → {new.shares_basis:,.0f}"
        else:
            basis = ""
        words = (
            f"{k}-for-1 stock split" if direction == "forward" else f"1-for-{k} reverse stock split"
        )
        return f"{words} (value ratio {_ratio(old, new, per_share, direction)}{basis})"
    return None


def _ratio(old: Observed, new: Observed, per_share: bool, direction: str) -> str:
    a, b = (
        (old.value, new.value) if per_share == (direction == "forward") else (new.value, old.value)
    )
    return f"{a:g} / {b:g} = {a / b:.3g}"


def _difference(old: Observed, new: Observed) -> str:
    delta = new.value - old.value
    pct = f" ({delta / abs(old.value):+.2%})" if old.value else ""
    return f"{old.value:,.6g} → {new.value:,.6g}, a difference of {delta:+,.6g}{pct}"


def classify(old: Observed, new: Observed) -> tuple[str | None, str | None]:
    """(supersede_reason, supersede_detail) for `old` replaced by `new`; (None, None) when an
    XBRL value was merely repeated unchanged."""
    if old.source_kind == "press_release" and new.source_kind != "press_release":
        where = f"{new.form or 'filing'} {new.filing_id}"
        if old.value == new.value:
            return "press_release_final", f"the earnings release's figure, confirmed by {where}"
        return (
            "press_release_final",
            f"the earnings release said {_difference(old, new)} in {where}",
        )
    if old.value == new.value:
        return None, None
    if detail := split_recast(old, new):
        return "recast", detail
    evidence = parse_evidence(new.evidence)
    if "error_correction" in evidence:
        return (
            "restatement",
            f"error correction: {evidence['error_correction']}; {_difference(old, new)}",
        )
    for kind in RECAST_KINDS[1:]:
        if kind in evidence:
            return "recast", f"{kind.replace('_', ' ')}: {evidence[kind]}; {_difference(old, new)}"
    if "restatement" in evidence:
        return "restatement", f"{evidence['restatement']}; {_difference(old, new)}"
    return (
        "unknown",
        f"no recast or restatement stated in {new.form or 'filing'} {new.filing_id}; "
        f"{_difference(old, new)}",
    )
