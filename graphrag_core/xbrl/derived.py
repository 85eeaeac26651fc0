"""Values computed from reported ones, each stored as `derived` with every operand cited.

- **Gross profit** = revenue − cost of revenue, for a filing that reports no gross-profit line
  at all (about half of 10-K/10-Q filings), period by period, from the same filing's two
  observations (the same statement, so never across filings or restatements).
- **Quarters from year-to-date figures**: Q4 = FY − 9M, Q3 = 9M − H1, Q2 = H1 − Q1, for flow
  metrics only (income-statement and cash-flow lines; never per-share values, share counts or
  balances), where no filing reports the quarter itself. 10-Ks report the year and not its
  fourth quarter; cash-flow statements report year-to-date only. Operands are the current
  values (after supersession) and must share the fiscal year's first day (a changed fiscal
  year end or a transition period never pairs); no operand may predate a filing that restated
  or recast that metric while the other follows it (a restatement boundary); the difference
  must span a quarter.
- **A missing first quarter**: Q1 = H1 − Q2, where a filer's half year and second quarter are
  reported (the 10-Q of the second quarter) and no filing here reports the first quarter:
  the same flows and checks, the two operands ending the same day.

A derived observation cites its operands (`derived_from`, observation ids; `fact_ids`, every
fact), names the formula with their labels (`derivation`: "FY2024 − 9M-FY2024"), takes the
citing chunk of the longer period's statement, and belongs to the newer operand's filing. Its
`source_kind` is `press_release` when any operand is unaudited.
"""

from __future__ import annotations

import datetime as dt

import polars as pl

from graphrag_core.common.ids import content_hash
from graphrag_core.tables.schemas import METRIC_OBSERVATIONS, frame

# Additive flow metrics: a quarter is the difference of two year-to-date sums.
DERIVABLE_FLOWS = (
    "revenue",
    "cost_of_revenue",
    "gross_profit",
    "operating_income",
    "net_income",
    "operating_cash_flow",
    "capex",
)
# Year-to-date periods in order, and the quarter each one's difference with the previous gives.
YTD_STEPS = (("Q1", "H1", "Q2"), ("H1", "9M", "Q3"), ("9M", "FY", "Q4"))
QUARTER_DAYS = range(84, 99)  # 12–14 weeks, inclusive days
# Supersede reasons that mean the metric's basis changed (not a press release made final).
BOUNDARY_REASONS = ("restatement", "recast", "unknown")


def drop_non_finite(observations: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """The observations whose value is a finite number, and one line per row left out (filing,
    metric, fiscal label, concept or derivation, value). Facts are checked where they are read;
    this is the last gate before a value is stored or published, for what arithmetic makes of
    finite operands (a difference past a float's range) and for partitions written before the
    facts were checked."""
    if observations.is_empty():
        return observations, []
    bad = pl.col("value").is_not_null() & ~pl.col("value").is_finite()
    dropped = observations.filter(bad)
    if dropped.is_empty():
        return observations, []
    lines = [
        f"filing {r['filing_id']}: {r['metric']} {r['fiscal_label'] or r['calendar_end']} "
        f"({r['derivation'] or r['concept'] or r['fact_id']}) = {r['value']!r} is not a "
        "finite number; left out"
        for r in dropped.iter_rows(named=True)
    ]
    return observations.filter(~bad), lines


def _derived_id(filing_id: str, *parts: object) -> str:
    return f"{filing_id}:derived-{content_hash(*parts)}"


def derive_gross_profit(
    observations: pl.DataFrame, eligible: set[tuple[dt.date | None, dt.date]] | None = None
) -> pl.DataFrame:
    """Gross profit = revenue − cost of revenue for each filing that reports no gross profit,
    per period and unit both are reported for. `eligible`: the (start, end) periods whose
    statement shows the cost line right after revenue (None: every period; a release's table
    is checked by its reader)."""
    if observations.is_empty():
        return observations.clear()
    reported = observations.filter(~pl.col("derived").fill_null(False))
    has_gp = set(reported.filter(pl.col("metric") == "gross_profit")["filing_id"].to_list())
    key = ["filing_id", "cik", "period_type", "calendar_start", "calendar_end", "unit"]
    pool = reported.filter(
        ~pl.col("filing_id").is_in(list(has_gp)) & (pl.col("period_type") == "duration")
    )
    revenue = pool.filter(pl.col("metric") == "revenue")
    cost = pool.filter(pl.col("metric") == "cost_of_revenue").select(
        *key,
        *[
            pl.col(c).alias(f"cost_{c}")
            for c in ("value", "observation_id", "fact_ids", "concept", "source_kind")
        ],
    )
    pairs = revenue.join(cost, on=key, how="inner")
    if eligible is not None:
        allowed = pl.DataFrame(
            [{"calendar_start": a, "calendar_end": b} for a, b in eligible],
            schema={"calendar_start": pl.Date, "calendar_end": pl.Date},
        )
        pairs = pairs.join(allowed, on=["calendar_start", "calendar_end"], how="semi")
    if pairs.is_empty():
        return observations.clear()
    rows = []
    for r in pairs.iter_rows(named=True):
        rows.append(
            {
                **{c: r[c] for c in METRIC_OBSERVATIONS if c in r},
                "observation_id": _derived_id(
                    r["filing_id"], "gross_profit", r["observation_id"], r["cost_observation_id"]
                ),
                "metric": "gross_profit",
                "value": r["value"] - r["cost_value"],
                "fact_ids": [*(r["fact_ids"] or []), *(r["cost_fact_ids"] or [])],
                "concept": f"{r['concept']} − {r['cost_concept']}",
                "superseded_by": None,
                "restated": None,
                "derived": True,
                "derivation": "revenue − cost_of_revenue",
                "derived_from": [r["observation_id"], r["cost_observation_id"]],
                "mapping_rule": None,
                "recast_evidence": None,
                "shares_basis": None,
                "supersede_reason": None,
                "supersede_detail": None,
                "source_kind": "press_release"
                if "press_release" in (r["source_kind"], r["cost_source_kind"])
                else r["source_kind"],
            }
        )
    return frame(rows, METRIC_OBSERVATIONS)


def _order_key(row: dict) -> tuple:
    """Where a filing sits in time, as supersession orders it (unknown dates first)."""
    filed = row["filed_date"] or dt.date.min
    return (filed, row["filing_id"] or "")


def _boundaries(observations: pl.DataFrame) -> dict[tuple[str, str], list[tuple]]:
    """(cik, metric) → order keys of the filings that restated or recast a value of it."""
    if "supersede_reason" not in observations.columns:
        return {}
    changed = observations.filter(pl.col("supersede_reason").is_in(BOUNDARY_REASONS))
    if changed.is_empty():
        return {}
    newer = observations.select(
        pl.col("observation_id").alias("superseded_by"),
        pl.col("filing_id").alias("_f"),
        pl.col("filed_date").alias("_d"),
    )
    out: dict[tuple[str, str], list[tuple]] = {}
    for cik, metric, filing, filed in (
        changed.join(newer, on="superseded_by").select("cik", "metric", "_f", "_d").iter_rows()
    ):
        out.setdefault((cik, metric), []).append((filed or dt.date.min, filing or ""))
    return out


def _crosses_boundary(a: dict, b: dict, boundaries: list[tuple]) -> bool:
    older, newer = sorted((_order_key(a), _order_key(b)))
    return any(older < k <= newer for k in boundaries)


def derive_quarters(observations: pl.DataFrame) -> pl.DataFrame:
    """Quarters from year-to-date differences, from the current observations of all filings
    (run after `apply_supersession`, whose links and reasons it reads)."""
    if observations.is_empty():
        return observations.clear()
    current = observations.filter(
        pl.col("superseded_by").is_null()
        & pl.col("metric").is_in(DERIVABLE_FLOWS)
        & (pl.col("period_type") == "duration")
    )
    # A quarter any source reports (other than an unaudited release) is never derived.
    reported = {
        (r["cik"], r["metric"], r["unit"], r["calendar_start"], r["calendar_end"])
        for r in current.filter(pl.col("source_kind").fill_null("xbrl") != "press_release")
        .select("cik", "metric", "unit", "calendar_start", "calendar_end")
        .iter_rows(named=True)
    }
    boundaries = _boundaries(observations)
    ytd = current.filter(pl.col("fiscal_period").is_in(["Q1", "H1", "9M", "FY"]))
    by_start: dict[tuple, dict[str, dict]] = {}
    for r in ytd.iter_rows(named=True):
        slot = by_start.setdefault((r["cik"], r["metric"], r["unit"], r["calendar_start"]), {})
        slot.setdefault(r["fiscal_period"], r)
    rows = []
    for (cik, metric, unit, _), periods in by_start.items():
        for shorter_p, longer_p, quarter in YTD_STEPS:
            shorter, longer = periods.get(shorter_p), periods.get(longer_p)
            if shorter is None or longer is None or shorter["fiscal_year"] != longer["fiscal_year"]:
                continue
            start = shorter["calendar_end"] + dt.timedelta(days=1)
            end = longer["calendar_end"]
            if (end - start).days + 1 not in QUARTER_DAYS or (
                cik,
                metric,
                unit,
                start,
                end,
            ) in reported:
                continue
            if _crosses_boundary(shorter, longer, boundaries.get((cik, metric), [])):
                continue
            rows.append(_quarter_row(shorter, longer, quarter, start, end))
    rows += _first_quarters(current, reported, boundaries)
    return frame(rows, METRIC_OBSERVATIONS) if rows else observations.clear()


def _first_quarters(
    current: pl.DataFrame, reported: set[tuple], boundaries: dict[tuple[str, str], list[tuple]]
) -> list[dict]:
    """Q1 = H1 − Q2 for each half year whose second quarter ends the same day."""
    second = {
        (r["cik"], r["metric"], r["unit"], r["calendar_end"]): r
        for r in current.filter(pl.col("fiscal_period") == "Q2").iter_rows(named=True)
    }
    rows = []
    for half in current.filter(pl.col("fiscal_period") == "H1").iter_rows(named=True):
        key = (half["cik"], half["metric"], half["unit"])
        q2 = second.get((*key, half["calendar_end"]))
        if q2 is None or q2["fiscal_year"] != half["fiscal_year"]:
            continue
        start, end = half["calendar_start"], q2["calendar_start"] - dt.timedelta(days=1)
        if (end - start).days + 1 not in QUARTER_DAYS or (*key, start, end) in reported:
            continue
        if _crosses_boundary(q2, half, boundaries.get((half["cik"], half["metric"]), [])):
            continue
        rows.append(_quarter_row(q2, half, "Q1", start, end))
    return rows


def _quarter_row(shorter: dict, longer: dict, quarter: str, start: dt.date, end: dt.date) -> dict:
    newer = max((shorter, longer), key=_order_key)
    concept = (
        longer["concept"]
        if longer["concept"] == shorter["concept"]
        else f"{longer['concept']} − {shorter['concept']}"
    )
    unaudited = "press_release" in (shorter["source_kind"], longer["source_kind"])
    return {
        **{c: newer[c] for c in ("filing_id", "form", "filed_date")},
        "observation_id": _derived_id(
            newer["filing_id"], quarter, longer["observation_id"], shorter["observation_id"]
        ),
        "cik": longer["cik"],
        "metric": longer["metric"],
        "value": longer["value"] - shorter["value"],
        "unit": longer["unit"],
        "fiscal_label": f"{quarter}-FY{longer['fiscal_year']}",
        "fiscal_year": longer["fiscal_year"],
        "fiscal_period": quarter,
        "period_type": "duration",
        "calendar_start": start,
        "calendar_end": end,
        "fact_id": longer["fact_id"],
        "fact_ids": [*(longer["fact_ids"] or []), *(shorter["fact_ids"] or [])],
        "concept": concept,
        "chunk_id": longer["chunk_id"] or shorter["chunk_id"],
        "superseded_by": None,
        "restated": None,
        "source_kind": "press_release" if unaudited else "xbrl",
        "derived": True,
        "derivation": f"{longer['fiscal_label']} − {shorter['fiscal_label']}",
        "derived_from": [longer["observation_id"], shorter["observation_id"]],
        "mapping_rule": None,
        "recast_evidence": None,
        "shares_basis": None,
        "supersede_reason": None,
        "supersede_detail": None,
    }
