"""Screens over windows of consecutive periods, and ratio series (issue 23).

The arithmetic is SQL's (`queries.WINDOW_SCREENS`, `queries.RATIO_SERIES`): this module chooses
the statement's parameters and turns its rows into cited answers. A window screen judges each
company on its newest `window` periods of one kind (fiscal years or three-month quarters) that
follow one another; every trend criterion must hold in every period of the window, and the
change in total debt is measured from the window's opening balance to its closing one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal, get_args

from graphrag_core.store.reader import Snapshot
from mcp_server import queries
from mcp_server.formatting import display_value, row_citation
from mcp_server.models import (
    Figure,
    RatioOperand,
    RatioSeries,
    RatioValue,
    ScreenHit,
    WindowPeriod,
    finite,
)

TrendBasis = Literal["year_over_year", "sequential"]
MARGIN_METRICS = {"gross": "gross_profit", "operating": "operating_income", "net": "net_income"}

# A window hit's size in the answer's JSON, measured on the 5,000-company bench snapshot: about
# 2,000 characters for the company, its debt at both ends and equity, and 1,800 per period of its
# window (four cited figures each). The answer cap (evidence.MAX_ANSWER_CHARS) would drop every
# hit past the first few anyway; building only those that fit saves most of a call (25
# three-period hits were 215 KB, of which 40 KB was sent).
HIT_BASE_CHARS, HIT_PERIOD_CHARS = 2_000, 1_800
ANSWER_OVERHEAD_CHARS = 4_000  # the answer's own fields: criteria, units, notes, method
# The hits a window screen shows when no `limit` is given: the best few, each with its whole
# window cited (about 7,000 characters for three periods). Every shown figure is validated by
# the client, numbered and read by the model, so a default answer stays near half the cap;
# `matched` counts every company that passed and a larger `limit` shows more.
DEFAULT_WINDOW_HITS = 3


def hits_that_fit(window: int, answer_chars: int) -> int:
    """How many hits of a `window`-period screen an answer of `answer_chars` holds whole (≥ 1)."""
    per_hit = HIT_BASE_CHARS + HIT_PERIOD_CHARS * max(window, 1)
    return max(1, (answer_chars - ANSWER_OVERHEAD_CHARS) // per_hit)


RatioId = Literal[
    "gross_margin",
    "operating_margin",
    "net_margin",
    "debt_to_equity",
    "revenue_growth",
    "revenue_ttm",
    "operating_income_ttm",
    "net_income_ttm",
]
RATIO_IDS: tuple[str, ...] = get_args(RatioId)
# The SQL computes exactly the ratios the tools offer.
assert RATIO_IDS == queries.RATIO_IDS


def figure(fig: dict[str, Any] | None) -> Figure | None:
    """A figure row (value, unit, fiscal_label and a citation's fields) → Figure; missing or not
    finite → None."""
    if fig is None or fig.get("filing_id") is None:
        return None
    value = finite(fig["value"])
    if value is None:
        return None
    return Figure(
        value=value,
        unit=fig["unit"],
        display=display_value(value, fig["unit"]),
        fiscal_label=fig["fiscal_label"],
        citation=row_citation(fig),
        source_kind=fig.get("source_kind"),
        derived=fig.get("derived"),
    )


def prior_of(row: dict[str, Any]) -> dict[str, Any]:
    """The like period a year earlier that a WINDOW_FIGURES row pairs with it, as a figure row
    (cited to its filing and chunk; metric_values keeps no fact of it)."""
    return {
        "value": row["prior_value"],
        "unit": row["unit"],
        "fiscal_label": row["prior_fiscal_label"],
        "filing_id": row["prior_filing_id"],
        "form": row["prior_form"],
        "filed_date": row["prior_filed_date"],
        "section": row["prior_section"],
        "chunk_id": row["prior_chunk_id"],
    }


def window_params(
    *,
    period_type: Literal["annual", "quarter"],
    window: int,
    trend_basis: TrendBasis,
    margin: str,
    sort_by: str,
    limit: int,
    sics: list[str] | None,
    min_revenue_growth: float | None,
    min_margin_trend: float | None,
    max_debt_change: float | None,
    max_debt_to_equity: float | None,
    min_revenue: float | None,
) -> dict[str, Any]:
    """The parameters of the window screen (`screen_rows`): its best `limit` hits are read with
    their periods, `matched` counts them all."""
    return {
        "annual": period_type == "annual",
        "window": window,
        "sequential": trend_basis == "sequential",
        "margin_metric": MARGIN_METRICS[margin],
        "sort_by": sort_by,
        "limit": limit,
        "sics": sics,
        "min_revenue_growth": min_revenue_growth,
        "min_margin_trend": min_margin_trend,
        "max_debt_change": max_debt_change,
        "max_debt_to_equity": max_debt_to_equity,
        "min_revenue": min_revenue,
    }


PERIOD_FIELDS = (
    "growth",
    "margin",
    "base_margin",
    "trend",
    "rev_row",
    "inc_row",
    "prev_rev_row",
    "prev_inc_row",
)


def screen_rows(snap: Snapshot, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The window screen's hits, best first, each with its company and its window's periods
    under `periods` (newest first): one statement, one row per hit and period."""
    sql = queries.WINDOW_SCREENS[params["sequential"], params["margin_metric"]]
    used = {k: v for k, v in params.items() if k not in ("sequential", "margin_metric")}
    hits: list[dict[str, Any]] = []
    for row in snap.query(sql, used):
        period = {f: row[f] for f in PERIOD_FIELDS}
        if hits and hits[-1]["cik"] == row["cik"]:
            hits[-1]["periods"].append(period)
            continue
        hit = {k: v for k, v in row.items() if k not in PERIOD_FIELDS and k != "k"}
        hits.append({**hit, "periods": [period]})
    return hits


def window_hits(snap: Snapshot, rows: list[dict[str, Any]], sequential: bool) -> list[ScreenHit]:
    """Hits of `screen_rows` → ScreenHits, their cited figures fetched in one statement by row
    id."""
    wanted = {
        r
        for row in rows
        for r in (
            row["debt_start_row"],
            row["debt_end_row"],
            row["equity_row"],
            *(
                x
                for p in row["periods"]
                for x in (p["rev_row"], p["inc_row"], p["prev_rev_row"], p["prev_inc_row"])
            ),
        )
        if r is not None
    }
    figs = (
        {f["row_id"]: f for f in snap.query(queries.WINDOW_FIGURES, {"rows": sorted(wanted)})}
        if wanted
        else {}
    )

    def fig(row_id: int | None, prior: bool = False) -> Figure | None:
        found = figs.get(row_id) if row_id is not None else None
        return figure(prior_of(found) if prior else found) if found else None

    def period(p: dict[str, Any]) -> WindowPeriod:
        revenue = fig(p["rev_row"])
        assert revenue is not None  # the window is built on reported, finite revenue
        row = figs[p["rev_row"]]
        return WindowPeriod(
            fiscal_label=row["fiscal_label"],
            calendar_start=row["calendar_start"],
            calendar_end=row["calendar_end"],
            revenue=revenue,
            base_revenue=fig(p["prev_rev_row"]) if sequential else fig(p["rev_row"], prior=True),
            revenue_growth_pct=p["growth"],
            margin_figure=fig(p["inc_row"]),
            base_margin_figure=fig(p["prev_inc_row"])
            if sequential
            else fig(p["inc_row"], prior=True),
            margin_pct=p["margin"],
            base_margin_pct=p["base_margin"],
            margin_trend_pp=p["trend"],
        )

    hits = []
    for row in rows:
        periods = [period(p) for p in row["periods"]]
        latest = periods[0]
        # The latest period's figures are window[0]'s and its debt is debt_end: the flat figure
        # fields stay empty rather than repeat them (a quarter of a hit's size, which the client
        # validates and the model reads twice).
        hits.append(
            ScreenHit(
                company_id=row["company_id"],
                name=row["name"],
                tickers=row["tickers"] or [],
                fiscal_label=latest.fiscal_label,
                calendar_end=latest.calendar_end,
                prior_fiscal_label=latest.base_revenue.fiscal_label
                if latest.base_revenue
                else None,
                revenue=None,
                prior_revenue=None,
                revenue_growth_pct=latest.revenue_growth_pct,
                margin_pct=latest.margin_pct,
                prior_margin_pct=latest.base_margin_pct,
                margin_trend_pp=latest.margin_trend_pp,
                margin_figures=[],
                total_debt=None,
                stockholders_equity=fig(row["equity_row"]),
                debt_to_equity=row["debt_to_equity"],
                window=periods,
                debt_start=fig(row["debt_start_row"]),
                debt_end=fig(row["debt_end_row"]),
                debt_change_pct=row["debt_change_pct"],
            )
        )
    return hits


def window_method(period_type: str, window: int, trend_basis: TrendBasis, margin: str) -> str:
    kind = "fiscal years" if period_type == "annual" else "three-month fiscal quarters"
    base = (
        "the like period a year earlier"
        if trend_basis == "year_over_year"
        else "the period just before it"
    )
    return (
        f"per company its newest {window} {kind} with reported revenue, one after another (a gap "
        f"excludes the company); each trend criterion must hold in every period of the window, "
        f"against {base}; margin = {MARGIN_METRICS[margin]} / revenue; debt change = total_debt at "
        "the window's end vs at its start (the end of the period before the window), percent; "
        "debt_to_equity at the window's end; computed in SQL from the snapshot's current "
        "(restated where restated) values"
    )


def ratio_series(
    snap: Snapshot,
    ciks: list[str],
    ratios: list[str],
    *,
    annual: bool,
    periods: int,
    start: dt.date | None = None,
    end: dt.date | None = None,
) -> dict[str, list[RatioSeries]]:
    """Per CIK, the asked ratios newest first (those with no value left out); with `start` and
    `end`, each ratio's one period that best covers that calendar range."""
    rows = snap.query(
        queries.RATIO_SERIES,
        {
            "ciks": ciks,
            "ratios": ratios,
            "annual": annual,
            "periods": periods,
            "start": start.isoformat() if start else None,
            "end": end.isoformat() if end else None,
        },
    )
    grouped: dict[str, dict[str, list[RatioValue]]] = {}
    for r in rows:
        grouped.setdefault(r["cik"], {}).setdefault(r["ratio"], []).append(
            RatioValue(
                fiscal_label=r["fiscal_label"],
                calendar_start=r["calendar_start"],
                calendar_end=r["calendar_end"],
                value=r["value"],
                unit=r["unit"],
                display=_ratio_display(r["value"], r["unit"]),
                formula=r["formula"],
                operands=[
                    RatioOperand(
                        metric=o["metric"],
                        value=o["value"],
                        display=display_value(o["value"], o["unit"]),
                        fiscal_label=o["fiscal_label"],
                        calendar_end=o["calendar_end"],
                        source_kind=o.get("source_kind") or "xbrl",
                        citation=row_citation(o),
                    )
                    for o in r["operands"]
                ],
            )
        )
    return {
        cik: [RatioSeries(ratio=k, values=by_ratio[k]) for k in ratios if k in by_ratio]
        for cik, by_ratio in grouped.items()
    }


def _ratio_display(value: float, unit: str) -> str:
    if unit == "percent":
        return f"{value:,.2f}%"
    if unit == "ratio":
        return f"{value:,.2f}×"
    return display_value(value, unit)


def coverage_note(snap: Snapshot, period_type: str, window: int) -> str:
    """What a window screen without hits tells the model: how many companies it could judge."""
    row = snap.query(
        queries.WINDOW_COVERAGE, {"annual": period_type == "annual", "window": window}
    )[0]
    kind = "fiscal years" if period_type == "annual" else "quarters"
    return (
        f"no company passed: {row['with_window']} of the {row['companies']} companies with "
        f"{kind} of "
        f"revenue in this snapshot have {window} consecutive {kind} to judge; a shorter window or "
        "period_type annual may answer"
    )
