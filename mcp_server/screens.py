"""The companies-and-metrics family, many companies at once: screen_companies (deterministic
screens on reported fundamentals, over one period or a window of periods) and
compare_companies (peers lined up on the same calendar period)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.store.reader import FLOW_METRICS, WINDOW_PERIODS, Snapshot, is_stale
from mcp_server import queries, windows
from mcp_server.context import ToolContext, resolve_company, resolve_sector, stamp
from mcp_server.formatting import display_value, figure
from mcp_server.models import (
    Citation,
    CompareResult,
    PeerFigure,
    PeerRow,
    ScreenHit,
    ScreenResult,
    finite,
)

SCREEN_UNITS = {
    "min_revenue_growth": "percent, year over year (5 = 5%, not 0.05)",
    "min_margin_trend": "percentage points vs a year earlier (2 = +2 pp)",
    "max_debt_to_equity": "ratio, total debt / stockholders' equity (1.5)",
    "min_revenue": "USD, full units (10e9 = 10 billion)",
    "revenue_growth_pct": "percent",
    "margin_pct": "percent",
    "margin_trend_pp": "percentage points",
    "debt_to_equity": "ratio",
    "max_debt_change": "percent, total debt at the window's end vs its start (-10 = cut by ≥ 10%)",
    "debt_change_pct": "percent",
}
# window_basis keeps a company's newest WINDOW_PERIODS periods per kind: a window of one fewer,
# plus the period before it (a sequential comparison's base).
MAX_WINDOW = WINDOW_PERIODS - 1
MAX_PEERS = 50
_PERIOD_YEAR = re.compile(r"^\s*(?:CY\s?)?(\d{4})\s*$", re.I)
_PERIOD_QUARTER = re.compile(r"^\s*(?:CY\s?)?(\d{4})[\s-]*Q([1-4])\s*$", re.I)
_PERIOD_QUARTER_FIRST = re.compile(r"^\s*Q([1-4])[\s-]*(?:CY\s?)?(\d{4})\s*$", re.I)


def calendar_range(period: str) -> tuple[dt.date, dt.date, Literal["annual", "quarter"], str]:
    """'2024' → the calendar year; '2024-Q3' or 'Q3 2024' → that calendar quarter."""
    if m := _PERIOD_YEAR.match(period):
        year = int(m.group(1))
        return dt.date(year, 1, 1), dt.date(year, 12, 31), "annual", str(year)
    m = _PERIOD_QUARTER.match(period)
    year, q = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    if not m and (m2 := _PERIOD_QUARTER_FIRST.match(period)):
        year, q = int(m2.group(2)), int(m2.group(1))
    if not year:
        raise ToolError(
            f"period {period[:40]!r}: pass a calendar year (2024) or a calendar quarter (2024-Q3); "
            "fiscal labels differ between companies, which is what this tool lines up"
        )
    start = dt.date(year, 3 * q - 2, 1)
    end = dt.date(year + (q == 4), (3 * q) % 12 + 1, 1) - dt.timedelta(days=1)
    return start, end, "quarter", f"{year}-Q{q}"


class ScreenTools:
    """screen_companies and compare_companies over `ctx`'s reader."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx

    def screen_companies(
        self,
        min_revenue_growth: Annotated[
            float | None,
            Field(
                ge=-100,
                le=100_000,
                description="percent, year over year: 20 means revenue up ≥ 20%",
            ),
        ] = None,
        max_debt_to_equity: Annotated[
            float | None,
            Field(
                ge=0,
                le=1_000,
                description="total debt / stockholders' equity at the period end, e.g. 1.5",
            ),
        ] = None,
        min_margin_trend: Annotated[
            float | None,
            Field(
                ge=-100,
                le=100,
                description="percentage points: 2 means the margin rose ≥ 2 pp vs a year earlier",
            ),
        ] = None,
        min_revenue: Annotated[
            float | None,
            Field(
                ge=0, le=1e13, description="USD, full units (10e9 = 10 billion); USD reporters only"
            ),
        ] = None,
        period_type: Annotated[
            Literal["annual", "quarter"],
            Field(description="compare latest fiscal years or quarters"),
        ] = "annual",
        margin: Annotated[
            Literal["operating", "gross", "net"],
            Field(description="which margin min_margin_trend uses"),
        ] = "operating",
        sort_by: Annotated[
            Literal["revenue_growth", "revenue", "margin_trend", "debt_to_equity", "debt_change"],
            Field(
                description="ranking; debt_to_equity ranks the least leveraged first, debt_change "
                "the largest debt cut first (window screens)"
            ),
        ] = "revenue_growth",
        limit: Annotated[
            int | None,
            Field(
                ge=1,
                le=100,
                description="most companies to return; default 25, or "
                f"{windows.DEFAULT_WINDOW_HITS} for a window screen (each hit lists its whole "
                "window, cited)",
            ),
        ] = None,
        sector: Annotated[
            str | None,
            Field(
                None,
                max_length=40,
                description="only companies of this sector: a SIC-based sector "
                "('Information Technology', 'Health Care'), a finer industry ('semiconductors', "
                "'banks', 'software') or a SIC code ('3674'); an unknown one lists them",
            ),
        ] = None,
        window: Annotated[
            int,
            Field(
                ge=1,
                le=MAX_WINDOW,
                description="consecutive periods (of period_type) in which every "
                "trend criterion must hold: 3 with period_type quarter = the last three quarters",
            ),
        ] = 1,
        trend_basis: Annotated[
            Literal["year_over_year", "sequential"],
            Field(
                description="what each period of the window is compared with: the like period a "
                "year earlier, or the period just before it (quarter on quarter)"
            ),
        ] = "year_over_year",
        max_debt_change: Annotated[
            float | None,
            Field(
                ge=-100,
                le=100_000,
                description="percent change of total debt from the window's "
                "start to its end: 0 means debt not up, -10 means cut by at least 10%",
            ),
        ] = None,
    ) -> ScreenResult:
        """Screen all companies on reported fundamentals with deterministic SQL.

        Use for questions like "which companies grew revenue over 20% with debt/equity under
        1": each company is judged on its own latest period of `period_type` against the same
        fiscal period a year earlier (like for like; fiscal years differ between companies, so
        `fiscal_label` and `calendar_end` say which period was used). Growth, margins and
        leverage are computed in SQL from reported figures; every hit shows the figures used,
        each with a citation (filing and chunk_id for get_chunk). A criterion left empty is not
        applied; a company lacking a figure a criterion needs (no prior year, no debt tagged,
        negative equity) does not pass that criterion. Results are a screen of reported
        numbers, not advice.

        Units: min_revenue_growth and min_margin_trend are in PERCENT (5 means 5%, not 0.05);
        max_debt_to_equity is a plain ratio (1.5); min_revenue is in full USD. `units` in the
        answer repeats this, and `notes` flags a value that looks like a fraction. `sector`
        keeps one SIC-based sector (Information Technology, Health Care, Financials, …) or a
        finer industry (semiconductors, banks, software, …).

        Trends over several periods ("grew margins while cutting debt over the last three
        quarters") are ONE call: `window=3, period_type="quarter", min_margin_trend=0,
        max_debt_change=0` (or `trend_basis="sequential"` for quarter on quarter). Every trend
        criterion must then hold in each period of the window, and each hit lists the window's
        periods (`window`, newest first) with the figures each criterion used, cited, plus
        total debt at the window's start and end (`debt_start`, `debt_end`, `debt_change_pct`).
        The latest period's figures are `window[0]`'s and its debt is `debt_end`: a window hit
        leaves the flat `revenue`, `prior_revenue`, `margin_figures` and `total_debt` empty
        instead of repeating them (its flat percentages and labels are the latest period's).
        A hit whose latest period ended long before the snapshot's as_of is `stale` (an old
        filing's figures): say so, or leave it out. A company without that many consecutive
        periods in the snapshot is left out. A window hit is long (every period cited): a
        window screen shows the best 3 by `sort_by` unless `limit` asks for more, and never
        more whole hits than one answer holds (about four of three periods); `matched` counts
        every company that passed, `truncated` says more did and `notes` how to see them. Use
        a screen to find companies; use get_metrics (with `ratios`) for one company's history.
        max_debt_change is in PERCENT (-10 = debt cut by at least 10%).
        """
        criteria: dict[str, float | str | None] = {
            "min_revenue_growth": min_revenue_growth,
            "max_debt_to_equity": max_debt_to_equity,
            "min_margin_trend": min_margin_trend,
            "min_revenue": min_revenue,
            "period_type": period_type,
            "margin": margin,
            "sort_by": sort_by,
            "sector": sector,
        }
        notes = [
            f"{name}={value:g} is read as {value:g} percent; if you meant {value * 100:g}%, pass "
            f"{value * 100:g}"
            for name, value in (
                ("min_revenue_growth", min_revenue_growth),
                ("min_margin_trend", min_margin_trend),
            )
            if value is not None and 0 < abs(value) < 1
        ]
        thresholds = {
            "min_revenue_growth": min_revenue_growth,
            "max_debt_to_equity": max_debt_to_equity,
            "min_margin_trend": min_margin_trend,
            "min_revenue": min_revenue,
            "max_debt_change": max_debt_change,
        }
        # NaN compares above every number in DuckDB: `x <= NaN` would pass every company.
        if bad := [k for k, v in thresholds.items() if v is not None and finite(v) is None]:
            raise ToolError(f"{', '.join(bad)} must be a finite number (or omitted)")
        if (
            window > 1
            or trend_basis != "year_over_year"
            or max_debt_change is not None
            or sort_by == "debt_change"
        ):
            criteria.update(window=window, trend_basis=trend_basis, max_debt_change=max_debt_change)
        with self.ctx.lease() as snap:
            sics = None
            if sector is not None:
                match = resolve_sector(snap, sector)
                criteria["sector"] = match.sector or sector
                sics = list(match.sic_codes)
            if "window" in criteria:
                return self._window_screen(
                    snap, criteria, notes, limit=limit or windows.DEFAULT_WINDOW_HITS, sics=sics
                )
            limit = limit or 25
            rows = snap.query(
                queries.SCREEN,
                {
                    "period_kind": period_type,
                    "margin": margin,
                    "sort_by": sort_by,
                    "min_revenue_growth": min_revenue_growth,
                    "max_debt_to_equity": max_debt_to_equity,
                    "min_margin_trend": min_margin_trend,
                    "min_revenue": min_revenue,
                    "sics": sics,
                    "limit": limit + 1,
                },
            )
            margin_metric = {"gross": "gross_profit", "net": "net_income"}.get(
                margin, "operating_income"
            )
            hits = [
                ScreenHit(
                    company_id=r["company_id"],
                    name=r["name"],
                    tickers=r["tickers"],
                    fiscal_label=r["fiscal_label"],
                    calendar_end=r["calendar_end"],
                    prior_fiscal_label=r["prior_fiscal_label"],
                    revenue=figure(r["revenue"]),
                    prior_revenue=figure(r["revenue"], prior=True),
                    revenue_growth_pct=r["revenue_growth_pct"],
                    margin_pct=r["margin_pct"],
                    prior_margin_pct=r["prior_margin_pct"],
                    margin_trend_pp=r["margin_trend_pp"],
                    margin_figures=[
                        f
                        for f in (figure(r[margin_metric]), figure(r[margin_metric], prior=True))
                        if f
                    ],
                    total_debt=figure(r["total_debt"]),
                    stockholders_equity=figure(r["stockholders_equity"]),
                    debt_to_equity=r["debt_to_equity"],
                )
                for r in rows[:limit]
            ]
            return ScreenResult(
                **stamp(snap),
                criteria=criteria,
                units=dict(SCREEN_UNITS),
                notes=notes,
                matched=rows[0]["matched"] if rows else 0,
                hits=self._dated(snap, hits),
                truncated=len(rows) > limit,
                method=(
                    f"latest {period_type} period per company with reported revenue vs the same "
                    f"fiscal period a year earlier; margin = {margin_metric} / revenue; "
                    "debt_to_equity = total_debt / stockholders_equity at the period end; "
                    "computed in SQL from the snapshot's current (restated where restated) values"
                ),
            )

    def _dated(self, snap: Snapshot, hits: list[ScreenHit]) -> list[ScreenHit]:
        """Each hit flagged `stale` when its latest period ended long before the snapshot's
        as_of."""
        days = self.ctx.metric_settings.stale_after_days
        return [
            h.model_copy(update={"stale": is_stale(h.calendar_end, snap.as_of, days)}) for h in hits
        ]

    def _window_screen(
        self,
        snap: Snapshot,
        criteria: dict[str, Any],
        notes: list[str],
        limit: int,
        sics: list[str] | None,
    ) -> ScreenResult:
        """screen_companies over a window of periods (`mcp_server.windows`)."""
        args = {
            k: criteria[k]
            for k in (
                "period_type",
                "window",
                "trend_basis",
                "margin",
                "sort_by",
                "min_revenue_growth",
                "min_margin_trend",
                "max_debt_change",
                "max_debt_to_equity",
                "min_revenue",
            )
        }
        # Only the hits one answer holds whole are read (best by sort_by first).
        fit = windows.hits_that_fit(criteria["window"], self.ctx.answer_chars)
        params = windows.window_params(limit=min(limit, fit), sics=sics, **args)
        rows = windows.screen_rows(snap, params)
        matched = rows[0]["matched"] if rows else 0
        if not rows:
            notes = [
                *notes,
                windows.coverage_note(snap, criteria["period_type"], criteria["window"]),
            ]
        if matched > len(rows):
            more = (
                f"as many {criteria['window']}-period hits as one answer holds: narrow the "
                "screen (thresholds, sector) or change sort_by to see others"
                if len(rows) >= fit
                else f"pass a larger limit (one answer holds {fit}) or narrow the screen "
                "(thresholds, sector) to see others"
            )
            notes = [
                *notes,
                f"{matched} companies matched; the first {len(rows)} (by sort_by) are shown "
                f"whole, {more}",
            ]
        return ScreenResult(
            **stamp(snap),
            criteria=criteria,
            units=dict(SCREEN_UNITS),
            notes=notes,
            matched=matched,
            hits=self._dated(snap, windows.window_hits(snap, rows, params["sequential"])),
            truncated=matched > len(rows),
            method=windows.window_method(
                criteria["period_type"],
                criteria["window"],
                criteria["trend_basis"],
                criteria["margin"],
            ),
        )

    def compare_companies(
        self,
        company_ids: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=64)]] | None,
            Field(
                None, max_length=MAX_PEERS, description="company_ids (or tickers/CIKs) to line up"
            ),
        ] = None,
        sector: Annotated[
            str | None,
            Field(
                None,
                max_length=40,
                description="instead of company_ids: every company of a "
                "sector (SIC-based), e.g. 'Information Technology', 'Health Care', 'Financials', "
                "a finer industry ('semiconductors', 'banks') or a SIC code ('3674')",
            ),
        ] = None,
        metrics: Annotated[
            list[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")]] | None,
            Field(
                None,
                max_length=8,
                description="metric ids; omit for revenue, gross_profit, "
                "operating_income, net_income",
            ),
        ] = None,
        period: Annotated[
            str | None,
            Field(
                None,
                max_length=16,
                description="calendar year (2024) or calendar quarter "
                "(2024-Q3); omit for the latest one most of the companies have reported",
            ),
        ] = None,
        period_type: Annotated[
            Literal["annual", "quarter"],
            Field(description="when `period` is omitted: compare fiscal years or quarters"),
        ] = "annual",
        limit: Annotated[int, Field(ge=1, le=MAX_PEERS, description="most companies")] = 20,
        ratios: Annotated[
            list[windows.RatioId] | None,
            Field(
                None,
                max_length=len(windows.RATIO_IDS),
                description=(
                    "ratios to line up too, computed by the server: gross_margin, "
                    "operating_margin, "
                    "net_margin, revenue_growth (percent), debt_to_equity (ratio), *_ttm (quarters)"
                ),
            ),
        ] = None,
    ) -> CompareResult:
        """Line peers up on the same calendar period, with each company's own reported figures.

        Fiscal years differ (NVIDIA's FY2025 ends in January 2025, Apple's in September 2024,
        Microsoft's in June), so "2024" means, for each company, its fiscal year sharing the most
        days with calendar 2024 (at least half of it), and "2024-Q3" its fiscal quarter covering
        most of July–September 2024. Every figure says which fiscal period was used
        (`fiscal_label`, `calendar_start`/`calendar_end`, `overlap_days`) and carries its
        citation. Give `company_ids`, or a `sector` (a SIC-based sector such as Information
        Technology, a finer industry such as semiconductors, or a SIC code; the error lists
        them). Values are reported figures in full units (USD, not millions). `ratios` adds,
        per company, each ratio for its period best covering the range, computed in SQL with
        its cited operands (margins and growth in percent, debt_to_equity a ratio).
        """
        if not company_ids and not sector:
            raise ToolError("pass company_ids (from find_company) or a sector")
        wanted = list(dict.fromkeys(metrics or FLOW_METRICS))
        with self.ctx.lease() as snap:
            known = {r["metric"] for r in snap.query(queries.METRIC_IDS)}
            if unknown := [m for m in wanted if m not in known]:
                raise ToolError(
                    f"unknown metric id(s) {', '.join(unknown)}; metrics in snapshot "
                    f"{snap.version}: {', '.join(sorted(known)) or 'none'}"
                )
            companies = self._peers(snap, company_ids, sector)
            truncated = len(companies) > limit
            companies = companies[:limit]
            ciks = [c["cik"] for c in companies]
            if period:
                start, end, kind, label = calendar_range(period)
            else:
                start, end, kind, label = self._latest_common(snap, ciks, wanted[0], period_type)
            rows = snap.query(
                queries.COMPARE_PEERS,
                {
                    "ciks": ciks,
                    "metrics": wanted,
                    "annual": kind == "annual",
                    "start": start.isoformat(),
                    "end": end.isoformat(),
                },
            )
            by_cik: dict[str, list[PeerFigure]] = {}
            for r in rows:
                by_cik.setdefault(r["cik"], []).append(
                    PeerFigure(
                        metric=r["metric"],
                        value=r["value"],
                        unit=r["unit"],
                        display=display_value(r["value"], r["unit"]),
                        fiscal_label=r["fiscal_label"],
                        calendar_start=r["calendar_start"],
                        calendar_end=r["calendar_end"],
                        overlap_days=r["overlap_days"],
                        yoy_change_pct=r["yoy_change_pct"],
                        citation=Citation(
                            filing_id=r["filing_id"],
                            form=r["form"],
                            filed_date=r["filed_date"],
                            section=r["section"],
                            chunk_id=r["chunk_id"],
                            fact_id=r["fact_id"],
                            concept=r["concept"],
                        ),
                    )
                )
            ratio_rows = (
                windows.ratio_series(
                    snap,
                    ciks,
                    list(dict.fromkeys(ratios)),
                    annual=kind == "annual",
                    periods=1,
                    start=start,
                    end=end,
                )
                if ratios
                else {}
            )
            peers = []
            for c in companies:
                figs = sorted(by_cik.get(c["cik"], []), key=lambda f: wanted.index(f.metric))
                peers.append(
                    PeerRow(
                        company_id=c["company_id"],
                        name=c["name"],
                        tickers=c["tickers"] or [],
                        sector=c.get("sector"),
                        fiscal_year_end=c.get("fiscal_year_end"),
                        figures=figs,
                        missing=[m for m in wanted if m not in {f.metric for f in figs}],
                        ratios=ratio_rows.get(c["cik"], []),
                    )
                )
            return CompareResult(
                **stamp(snap),
                period=label,
                calendar_start=start,
                calendar_end=end,
                period_type=kind,
                metrics=wanted,
                companies=peers,
                truncated=truncated,
                method=(
                    "per company and metric, the "
                    f"{'fiscal year' if kind == 'annual' else 'fiscal quarter'} "
                    f"sharing the most days with {start}..{end} (at least half the range; "
                    "balance-sheet "
                    "values: the period end closest to the range end, up to a quarter after it); "
                    "current (restated where restated) reported values"
                ),
            )

    def _peers(
        self, snap: Snapshot, company_ids: list[str] | None, sector: str | None
    ) -> list[dict[str, Any]]:
        if company_ids:
            out = []
            for cid in dict.fromkeys(company_ids):
                company = resolve_company(snap, cid)
                rows = snap.query(queries.COMPANY_SECTOR, {"cik": company["cik"]})
                out.append({**company, "sector": rows[0]["sector"] if rows else None})
            return out
        assert sector is not None
        match = resolve_sector(snap, sector)
        rows = snap.query(queries.SECTOR_COMPANIES, {"sics": list(match.sic_codes)})
        if not rows:
            raise ToolError(
                f"no company of sector {match.sector or sector!r} in snapshot {snap.version}"
            )
        return rows

    def _latest_common(
        self,
        snap: Snapshot,
        ciks: list[str],
        metric: str,
        period_type: Literal["annual", "quarter"],
    ) -> tuple[dt.date, dt.date, Literal["annual", "quarter"], str]:
        """The latest calendar year (quarter) that the companies' latest periods mostly cover:
        placed by the middle of the earliest of their latest periods."""
        rows = snap.query(
            queries.LATEST_PERIOD_ENDS,
            {"ciks": ciks, "metric": metric, "annual": period_type == "annual"},
        )
        if not rows:
            raise ToolError(f"none of these companies reports {metric} as {period_type} values")
        ends = sorted(r["latest_end"] for r in rows)
        # The median company's latest period: most peers have reached it.
        end = ends[(len(ends) - 1) // 2]
        if period_type == "annual":
            middle = end - dt.timedelta(days=182)
            return calendar_range(str(middle.year))
        middle = end - dt.timedelta(days=45)
        return calendar_range(f"{middle.year}-Q{(middle.month - 1) // 3 + 1}")
