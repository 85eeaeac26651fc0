"""Per-share values and share counts on one basis: the latest stock split's.

A filing states per-share figures on the share basis of its own date: NVIDIA's FY2023 10-K says
FY2022 diluted EPS was 3.85, its FY2025 10-K (after the June 2024 ten-for-one split) says FY2023
was 0.17, and FY2022 is in no later filing. A series read as filed compares 0.17 with 3.85.

Splits are found in the filings, never in a table of known splits:

- **stated** — a filing's `StockholdersEquityNoteStockSplitConversionRatio1` fact
  (`recasts.filing_signals` puts "split: 20-for-1 stock split (…) on 2022-05-27" in the
  evidence of the filing's per-share and share-count observations): the split took effect on
  that date (an instant), or within that period (a duration);
- **recast** — a later filing restated a prior period's per-share value or share count by a
  whole ratio that `recasts.split_recast` recognised (supersede_reason `recast`, detail
  "10-for-1 stock split …"): the split took effect after the older filing was filed and by the
  time the newer one was.

Each split is a window (`not_before`, `by`]. An observation of a filing filed before
`not_before` is on the old basis and is re-based (per share ÷ ratio, shares × ratio); one filed
on or after `by` is on the new basis already; one filed inside the window, or with no filing
date, cannot be placed and keeps its as-filed value (the basis says so). The as-filed `value` is
never changed (it is what SEC's companyfacts holds); `split_adjusted_value` and `split_basis`
sit beside it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl

SPLIT_UNITS = {"per_share": r"^[A-Z]{3}/shares$", "shares": r"^shares$"}

_RATIO_RE = re.compile(r"([\d.]+)-for-([\d.]+) (?:reverse )?stock split")
_STATED_RE = re.compile(r"split: ([\d.]+-for-[\d.]+ (?:reverse )?stock split) \([^)]*\) on (\S+)")


@dataclass(frozen=True, slots=True)
class Split:
    """One stock split of a company: `ratio` new shares per old share, in effect after
    `not_before` − 1 day at the earliest and by `by` at the latest."""

    cik: str
    ratio: float
    not_before: dt.date
    by: dt.date
    evidence: str

    def words(self) -> str:
        if self.ratio >= 1:
            return f"{self.ratio:g}-for-1 stock split"
        return f"1-for-{1 / self.ratio:g} reverse stock split"

    def when(self) -> str:
        if self.not_before == self.by:
            return f"on {self.by}"
        return f"between {self.not_before} and {self.by}"


def ratio_of(text: str) -> float | None:
    """'10-for-1 stock split' → 10.0; '1-for-10 reverse stock split' → 0.1."""
    m = _RATIO_RE.search(text or "")
    if not m or float(m.group(2)) == 0:
        return None
    ratio = float(m.group(1)) / float(m.group(2))
    return ratio if ratio > 0 and ratio != 1 else None


def _day(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _stated(observations: pl.DataFrame) -> list[Split]:
    """Splits a filing states with the split-ratio fact (in its observations' evidence)."""
    rows = observations.filter(pl.col("recast_evidence").str.contains("split: ", literal=True))
    found = []
    for cik, evidence, filing in (
        rows.select("cik", "recast_evidence", "filing_id").unique().iter_rows()
    ):
        m = _STATED_RE.search(evidence or "")
        ratio = ratio_of(m.group(1)) if m else None
        if not m or ratio is None:
            continue
        start, _, end = m.group(2).partition("..")
        first, last = _day(start), _day(end or start)
        if first is None or last is None:
            continue
        found.append(Split(cik, ratio, first, last, f"{m.group(1)} stated in filing {filing}"))
    return found


def _recast(observations: pl.DataFrame) -> list[Split]:
    """Splits a later filing's restated per-share values or share counts show."""
    newer = observations.select(
        pl.col("observation_id").alias("superseded_by"),
        pl.col("filing_id").alias("_new_filing"),
        pl.col("filed_date").alias("_new_filed"),
    )
    pairs = observations.filter(
        (pl.col("supersede_reason") == "recast")
        & pl.col("supersede_detail").str.contains("stock split", literal=True)
    ).join(newer, on="superseded_by", how="inner")
    found = []
    for r in pairs.iter_rows(named=True):
        ratio = ratio_of(r["supersede_detail"])
        if ratio is None or r["filed_date"] is None or r["_new_filed"] is None:
            continue
        found.append(
            Split(
                r["cik"],
                ratio,
                r["filed_date"] + dt.timedelta(days=1),
                r["_new_filed"],
                f"{r['metric']} {r['fiscal_label']} restated from {r['value']:g} (filing "
                f"{r['filing_id']}) "
                f"to a {_words(ratio)} basis in filing {r['_new_filing']}",
            )
        )
    return found


def _words(ratio: float) -> str:
    return Split("", ratio, dt.date.min, dt.date.min, "").words()


def _merge(splits: Iterable[Split]) -> list[Split]:
    """One split per company and ratio whose windows overlap: the narrowest window both allow."""
    merged: list[Split] = []
    for s in sorted(splits, key=lambda s: (s.cik, s.ratio, s.not_before, s.by)):
        last = merged[-1] if merged else None
        if (
            last
            and last.cik == s.cik
            and abs(last.ratio - s.ratio) < 1e-9
            and s.not_before <= last.by
            and last.not_before <= s.by
        ):
            evidence = (
                last.evidence if s.evidence in last.evidence else f"{last.evidence}; {s.evidence}"
            )
            merged[-1] = Split(
                s.cik, s.ratio, max(last.not_before, s.not_before), min(last.by, s.by), evidence
            )
        else:
            merged.append(s)
    return merged


def find_splits(observations: pl.DataFrame) -> list[Split]:
    """Every stock split the observations' filings show, per company (after supersession)."""
    if observations.is_empty():
        return []
    return _merge([*_stated(observations), *_recast(observations)])


def _unit_kind() -> pl.Expr:
    expr = pl.lit(None, dtype=pl.String)
    for kind, pattern in SPLIT_UNITS.items():
        expr = pl.when(pl.col("unit").str.contains(pattern)).then(pl.lit(kind)).otherwise(expr)
    return expr


def rebase(
    value: float, kind: str, filed: dt.date | None, splits: list[Split]
) -> tuple[float | None, str]:
    """(the value on the latest split basis, the basis in words) for one observation: every
    split after its filing applied; None when a split's window holds the filing date."""
    if not splits:
        return value, "as filed; no stock split found in this company's filings"
    latest = max(splits, key=lambda s: s.by)
    if filed is None:
        return (
            None,
            f"as filed; filing date unknown, so its basis against the {latest.words()} "
            "cannot be told",
        )
    factor, applied = 1.0, []
    for s in sorted(splits, key=lambda s: s.by):
        if filed >= s.by:
            continue
        if filed >= s.not_before:
            return (
                None,
                f"as filed; filed {filed}, inside the window of the {s.words()} "
                f"({s.when()}): basis unknown",
            )
        factor *= s.ratio
        applied.append(s)
    if not applied:
        return value, f"as filed, on the basis of the {latest.words()} {latest.when()} (latest)"
    adjusted = value / factor if kind == "per_share" else value * factor
    op = "÷" if kind == "per_share" else "×"
    steps = "; ".join(f"{s.words()} {s.when()} ({s.evidence})" for s in applied)
    return (
        adjusted,
        f"re-based to the latest split basis: as filed {value:g} {op} {factor:g}; {steps}",
    )


def apply_splits(observations: pl.DataFrame) -> pl.DataFrame:
    """`split_adjusted_value` and `split_basis` for every per-share and share-count observation
    (others keep nulls); the as-filed `value` is untouched."""
    if observations.is_empty():
        return observations
    by_cik: dict[str, list[Split]] = {}
    for s in find_splits(observations):
        by_cik.setdefault(s.cik, []).append(s)
    kinds = observations.select(
        "observation_id", "cik", "value", "filed_date", _kind=_unit_kind()
    ).filter(pl.col("_kind").is_not_null())
    rows = []
    for oid, cik, value, filed, kind in kinds.iter_rows():
        if value is None:
            continue
        adjusted, basis = rebase(value, kind, filed, by_cik.get(cik, []))
        rows.append({"observation_id": oid, "_adjusted": adjusted, "_basis": basis})
    base = observations.drop(
        [c for c in ("split_adjusted_value", "split_basis") if c in observations.columns]
    )
    if not rows:
        return base.with_columns(
            split_adjusted_value=pl.lit(None, dtype=pl.Float64),
            split_basis=pl.lit(None, dtype=pl.String),
        )
    found = pl.DataFrame(
        rows, schema={"observation_id": pl.String, "_adjusted": pl.Float64, "_basis": pl.String}
    ).unique("observation_id")
    return base.join(found, on="observation_id", how="left").rename(
        {"_adjusted": "split_adjusted_value", "_basis": "split_basis"}
    )
