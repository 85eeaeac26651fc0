"""Issue 23's window screen over `window_spans`: the table computed at publish holds, per company,
kind and window length, exactly what the screen filters and ranks on (recomputed here in Python
from window_basis), and the screen built on it returns the same hits, periods and figures as the
one-statement screen it replaced (restated below on purpose, as the reference) on every
combination of criteria, on a synthetic snapshot whose dropped figures leave gaps and missing
values."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import duckdb
import pytest

from graphrag_core.store import layout
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.reader import WINDOW_GAP_DAYS, WINDOW_PERIODS, Snapshot, SnapshotReader
from mcp_server import queries, windows
from tests.mcp_client import call, session

COMPANIES = 40
INCOMES = ("gross_profit", "operating_income", "net_income")

# The window screen as one statement over window_basis (before window_spans): the reference.
REFERENCE_SCREEN = f"""
WITH per AS (
    SELECT cik, k, unit, calendar_start, prev_end, revenue_value, revenue_row,
        debt_end_value, debt_end_row, equity_value, equity_row, debt_open_value, debt_open_row,
        CASE WHEN $sequential THEN revenue_before_value ELSE revenue_prior_value END AS base_rev,
        revenue_before_row AS prev_rev_row,
        CASE $margin_metric WHEN 'gross_profit' THEN gross_profit_value
             WHEN 'net_income' THEN net_income_value ELSE operating_income_value END AS inc,
        CASE WHEN $sequential THEN
             CASE $margin_metric WHEN 'gross_profit' THEN gross_profit_before_value
                  WHEN 'net_income' THEN net_income_before_value
                  ELSE operating_income_before_value END
             ELSE CASE $margin_metric WHEN 'gross_profit' THEN gross_profit_prior_value
                  WHEN 'net_income' THEN net_income_prior_value
                  ELSE operating_income_prior_value END
        END AS base_inc,
        CASE $margin_metric WHEN 'gross_profit' THEN gross_profit_row
             WHEN 'net_income' THEN net_income_row ELSE operating_income_row END AS inc_row,
        CASE $margin_metric WHEN 'gross_profit' THEN gross_profit_before_row
             WHEN 'net_income' THEN net_income_before_row
             ELSE operating_income_before_row END AS prev_inc_row
    FROM window_basis
    WHERE period_kind = CASE WHEN $annual THEN 'annual' ELSE 'quarter' END AND k <= $window
      AND ($sics IS NULL
           OR cik IN (SELECT cik FROM company_sectors WHERE list_contains($sics, sic)))
),
calc AS (
    SELECT *,
        CASE WHEN base_rev > 0 THEN (revenue_value / base_rev - 1) * 100 END AS growth,
        CASE WHEN revenue_value > 0 THEN inc / revenue_value * 100 END AS margin,
        CASE WHEN base_rev > 0 THEN base_inc / base_rev * 100 END AS base_margin,
        datediff('day', prev_end, calendar_start) BETWEEN 1 AND {WINDOW_GAP_DAYS} AS follows
    FROM per
),
firms AS (
    SELECT cik, any_value(unit) FILTER (WHERE k = 1) AS unit,
           any_value(revenue_value) FILTER (WHERE k = 1) AS latest_rev,
           any_value(growth) FILTER (WHERE k = 1) AS latest_growth,
           any_value(margin - base_margin) FILTER (WHERE k = 1) AS latest_trend,
           any_value(debt_end_value) FILTER (WHERE k = 1) AS debt_end,
           any_value(debt_end_row) FILTER (WHERE k = 1) AS debt_end_row,
           any_value(equity_value) FILTER (WHERE k = 1) AS equity,
           any_value(equity_row) FILTER (WHERE k = 1) AS equity_row,
           any_value(debt_open_value) FILTER (WHERE k = $window) AS debt_start,
           any_value(debt_open_row) FILTER (WHERE k = $window) AS debt_start_row
    FROM calc
    GROUP BY cik
    HAVING count(*) = $window
       AND bool_and(follows OR (k = $window AND NOT $sequential))
       AND ($min_revenue_growth IS NULL
            OR bool_and(coalesce(growth >= $min_revenue_growth, false)))
       AND ($min_margin_trend IS NULL
            OR bool_and(coalesce(margin - base_margin >= $min_margin_trend, false)))
),
passed AS (
    SELECT *, count(*) OVER () AS matched,
           CASE $sort_by
               WHEN 'revenue' THEN latest_rev
               WHEN 'margin_trend' THEN latest_trend
               WHEN 'debt_to_equity' THEN -dte
               WHEN 'debt_change' THEN -debt_change
               ELSE latest_growth END AS rank_key
    FROM (
        SELECT *,
               CASE WHEN debt_start > 0 THEN (debt_end / debt_start - 1) * 100 END AS debt_change,
               CASE WHEN equity > 0 THEN debt_end / equity END AS dte
        FROM firms
    )
    WHERE ($max_debt_change IS NULL OR debt_change <= $max_debt_change)
      AND ($max_debt_to_equity IS NULL OR dte <= $max_debt_to_equity)
      AND ($min_revenue IS NULL OR (unit = 'USD' AND latest_rev >= $min_revenue))
),
top AS (SELECT * FROM passed ORDER BY rank_key DESC NULLS LAST, cik LIMIT $limit)
SELECT c.company_id, t.cik, c.name, c.tickers, t.matched, t.rank_key,
       round(t.latest_growth, 2) AS revenue_growth_pct, round(t.debt_change, 2) AS debt_change_pct,
       round(t.dte, 4) AS debt_to_equity, t.debt_start_row, t.debt_end_row, t.equity_row,
       p.k, round(p.growth, 2) AS growth, round(p.margin, 2) AS margin,
       round(p.base_margin, 2) AS base_margin, round(p.margin - p.base_margin, 2) AS trend,
       p.revenue_row AS rev_row, p.inc_row, p.prev_rev_row, p.prev_inc_row
FROM top t JOIN companies c ON c.cik = t.cik JOIN calc p ON p.cik = t.cik
ORDER BY t.rank_key DESC NULLS LAST, t.cik, p.k
"""

REFERENCE_COVERAGE = f"""
SELECT count(*) AS companies, count(*) FILTER (WHERE n = $window AND follows) AS with_window
FROM (
    SELECT cik, count(*) FILTER (WHERE k <= $window) AS n,
           bool_and(k >= $window OR datediff('day', prev_end, calendar_start) BETWEEN 1 AND
               {WINDOW_GAP_DAYS}) AS follows
    FROM window_basis
    WHERE period_kind = CASE WHEN $annual THEN 'annual' ELSE 'quarter' END
    GROUP BY cik
)
"""


# The window screen's figure fetch before it read plain columns: each figure and its year-earlier
# pair built as structs in SQL. The reference the new fetch must match, figure for figure.
_REFERENCE_FIG = """{{'value': {a}.value, 'unit': {a}.unit, 'fiscal_label': {a}.fiscal_label,
    'calendar_start': {a}.calendar_start, 'calendar_end': {a}.calendar_end,
    'filing_id': {a}.filing_id, 'form': {a}.form, 'filed_date': {a}.filed_date,
    'section': {a}.section, 'chunk_id': {a}.chunk_id, 'fact_id': {a}.fact_id,
    'concept': {a}.concept, 'source_kind': {a}.source_kind, 'derived': {a}.derived}}"""
_REFERENCE_PRIOR_FIG = """CASE WHEN isfinite({a}.prior_value)
    THEN {{'value': {a}.prior_value, 'unit': {a}.unit,
    'fiscal_label': {a}.prior_fiscal_label, 'calendar_start': {a}.prior_calendar_start,
    'calendar_end': {a}.prior_calendar_end, 'filing_id': {a}.prior_filing_id,
    'form': {a}.prior_form, 'filed_date': {a}.prior_filed_date, 'section': {a}.prior_section,
    'chunk_id': {a}.prior_chunk_id,
    'fact_id': NULL::VARCHAR, 'concept': NULL::VARCHAR, 'source_kind': NULL::VARCHAR,
    'derived': NULL::BOOLEAN}} END"""
REFERENCE_FIGURES = f"""
SELECT rowid AS row_id, {_REFERENCE_FIG.format(a="m")} AS figure,
       {_REFERENCE_PRIOR_FIG.format(a="m")} AS prior
FROM metric_values m
WHERE list_contains($rows, rowid)
"""


@pytest.fixture(scope="module")
def gappy_root(tmp_path_factory) -> Path:
    """bench's synthetic snapshot (Q1-Q3 and FY reported, Q4 derived) of 40 companies: one
    observation in a hundred is dropped, which leaves quarters out of a company's chain and
    figures missing inside windows."""
    from bench import _synthetic_snapshot

    root = tmp_path_factory.mktemp("window-spans")
    SnapshotStore(root).publish(_synthetic_snapshot.synthetic_tables(COMPANIES))
    return root


def _db(root: Path) -> Path:
    store = SnapshotStore(root)
    version = layout.read_latest(store.root)
    assert version
    return store.database_path(version)


def _reference_hits(snap: Snapshot, params: dict[str, Any]) -> list[dict]:
    hits: list[dict] = []
    for row in snap.query(REFERENCE_SCREEN, params):
        period = {f: row[f] for f in windows.PERIOD_FIELDS}
        if hits and hits[-1]["cik"] == row["cik"]:
            hits[-1]["periods"].append(period)
            continue
        hit = {k: v for k, v in row.items() if k not in windows.PERIOD_FIELDS and k != "k"}
        hits.append({**hit, "periods": [period]})
    return hits


def _floor(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else min(values)  # type: ignore[type-var]


def _expected_spans(rows: list[dict]) -> dict[tuple, dict]:
    """window_spans recomputed from window_basis rows in Python."""
    out: dict[tuple, dict] = {}
    by_company: dict[tuple, list[dict]] = {}
    for r in rows:
        by_company.setdefault((r["period_kind"], r["cik"]), []).append(r)
    for (kind, cik), periods in by_company.items():
        periods.sort(key=lambda r: r["k"])
        for span in range(1, min(len(periods), WINDOW_PERIODS - 1) + 1):
            window = periods[:span]

            def follows(p: dict) -> bool | None:
                if p["prev_end"] is None:
                    return None
                return 1 <= (p["calendar_start"] - p["prev_end"]).days <= WINDOW_GAP_DAYS

            def growth(p: dict, base: str) -> float | None:
                b = p[f"revenue_{base}_value"]
                return (p["revenue_value"] / b - 1) * 100 if b is not None and b > 0 else None

            def trend(p: dict, m: str, base: str) -> float | None:
                b = p[f"revenue_{base}_value"]
                if p["revenue_value"] <= 0 or p[f"{m}_value"] is None:
                    return None
                if b is None or not b > 0 or p[f"{m}_{base}_value"] is None:
                    return None
                return p[f"{m}_value"] / p["revenue_value"] * 100 - p[f"{m}_{base}_value"] / b * 100

            chain = [follows(p) for p in window]
            seq = [c for c in chain if c is not None]
            yoy = [
                c for c, p in zip(chain, window, strict=True) if p["k"] != span and c is not None
            ]
            first, last = window[0], window[-1]
            debt_end, debt_start, equity = (
                first["debt_end_value"],
                last["debt_open_value"],
                first["equity_value"],
            )
            row = {
                "chain_yoy": all(yoy),
                "chain_seq": all(seq) if seq else None,
                "latest_rev": first["revenue_value"],
                "debt_end_row": first["debt_end_row"],
                "equity_row": first["equity_row"],
                "debt_start_row": last["debt_open_row"],
                "debt_change": (debt_end / debt_start - 1) * 100
                if debt_start is not None and debt_start > 0 and debt_end is not None
                else None,
                "dte": debt_end / equity
                if equity is not None and equity > 0 and debt_end is not None
                else None,
            }
            for base, col in (("yoy", "prior"), ("seq", "before")):
                row[f"growth_{base}_floor"] = _floor([growth(p, col) for p in window])
                row[f"growth_{base}_latest"] = growth(first, col)
                for m in INCOMES:
                    row[f"{m}_trend_{base}_floor"] = _floor([trend(p, m, col) for p in window])
                    row[f"{m}_trend_{base}_latest"] = trend(first, m, col)
            out[(kind, cik, span)] = row
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


def test_window_spans_hold_every_window_of_window_basis(gappy_root):
    con = duckdb.connect(str(_db(gappy_root)), read_only=True)
    try:
        cur = con.execute("SELECT * FROM window_basis")
        names = [d[0] for d in cur.description]
        basis = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        cur = con.execute("SELECT * FROM window_spans")
        names = [d[0] for d in cur.description]
        spans = {
            (r["period_kind"], r["cik"], r["span"]): r
            for r in (dict(zip(names, row, strict=True)) for row in cur.fetchall())
        }
    finally:
        con.close()
    expected = _expected_spans(basis)
    assert set(spans) == set(expected)
    # The fixture exercises what the table must get right: broken chains, missing figures.
    assert any(r["chain_yoy"] is False for r in expected.values())
    assert any(r["growth_seq_floor"] is None and r["chain_seq"] for r in expected.values())
    for key, want in expected.items():
        got = spans[key]
        bad = {c: (got[c], v) for c, v in want.items() if not _same(got[c], v)}
        assert not bad, (key, bad)


MARGINS = ("operating", "gross", "net")
SORTS = ("revenue_growth", "margin_trend", "debt_change", "debt_to_equity", "revenue")
# Every kind, basis and set of criteria at short, middling and the longest windows; margins and
# rankings taken in turn (each met with each basis and kind).
GRID = [
    {
        "period_type": kind,
        "window": window,
        "trend_basis": basis,
        "margin": MARGINS[i % len(MARGINS)],
        "sort_by": SORTS[i % len(SORTS)],
        **criteria,
    }
    for i, (kind, window, basis, criteria) in enumerate(
        itertools.product(
            ("annual", "quarter"),
            (1, 3, 12),
            ("year_over_year", "sequential"),
            (
                {},
                {"min_margin_trend": 0, "max_debt_change": 0},
                {"min_revenue_growth": 2, "max_debt_to_equity": 2.5, "min_revenue": 1e8},
            ),
        )
    )
]


def test_window_screen_equals_the_one_statement_screen(gappy_root):
    """Every combination: the same hits in the same order, `matched`, every period's values and
    the row ids of every figure cited; sector-filtered too."""
    reader = SnapshotReader(gappy_root)
    nonempty = 0
    try:
        with reader.lease() as snap:
            sic = snap.query(
                "SELECT sic FROM company_sectors GROUP BY sic ORDER BY count(*) DESC, sic"
            )[0]["sic"]
        for case, sics in itertools.product(GRID, (None, [sic])):
            args = {
                "min_revenue_growth": None,
                "min_margin_trend": None,
                "max_debt_change": None,
                "max_debt_to_equity": None,
                "min_revenue": None,
                **case,
            }
            params = windows.window_params(limit=10, sics=sics, **args)
            with reader.lease() as snap:
                want = _reference_hits(snap, params)
                got = windows.screen_rows(snap, params)
            assert got == want, (case, sics)
            nonempty += bool(want)
    finally:
        reader.close()
    assert nonempty > len(GRID) // 2  # the grid is not vacuous


def test_coverage_note_counts_as_before(gappy_root):
    """What an empty screen says (companies with the kind, and with a whole window of it) comes
    from window_spans now; the counts are those of window_basis grouped per call."""
    reader = SnapshotReader(gappy_root)
    try:
        with reader.lease() as snap:
            for annual, window in itertools.product((True, False), range(1, WINDOW_PERIODS)):
                params = {"annual": annual, "window": window}
                want = snap.query(REFERENCE_COVERAGE, params)
                assert snap.query(queries.WINDOW_COVERAGE, params) == want, params
                assert want[0]["companies"] == COMPANIES
    finally:
        reader.close()


async def test_headline_screen_answers_from_window_spans(gappy_root):
    """Through an MCP session the headline screen shows the reference's companies, in its order,
    with its figures."""
    reader = SnapshotReader(gappy_root)
    try:
        params = windows.window_params(
            period_type="quarter",
            window=3,
            trend_basis="year_over_year",
            margin="operating",
            sort_by="revenue_growth",
            limit=100,
            sics=None,
            min_revenue_growth=None,
            min_margin_trend=0,
            max_debt_change=0,
            max_debt_to_equity=None,
            min_revenue=None,
        )
        with reader.lease() as snap:
            want = _reference_hits(snap, params)
    finally:
        reader.close()
    assert want
    async with session(gappy_root) as client:
        out = await call(
            client,
            "screen_companies",
            period_type="quarter",
            window=3,
            min_margin_trend=0,
            max_debt_change=0,
        )
    assert out["matched"] == want[0]["matched"]
    shown = [h["company_id"] for h in out["hits"]]
    assert shown == [h["company_id"] for h in want[: len(shown)]]
    for hit, ref in zip(out["hits"], want, strict=False):
        assert [p["revenue_growth_pct"] for p in hit["window"]] == [
            p["growth"] for p in ref["periods"]
        ]
        assert hit["debt_change_pct"] == ref["debt_change_pct"]


def test_numbering_a_window_screen_asks_no_model_for_a_field_it_lacks(gappy_root, monkeypatch):
    """Numbering an answer's citations reads the figure fields each citation's model has, found
    by its class: asking a pydantic model for an attribute it lacks takes the slow path (an
    exception raised and caught), and for every figure field of every citation of a window hit
    that was a tenth of the screen's time. The numbers and what the ledger records stay put."""
    from pydantic import BaseModel

    from mcp_server import evidence
    from mcp_server.context import ToolContext
    from mcp_server.screens import ScreenTools

    reader = SnapshotReader(gappy_root)
    try:
        answer = ScreenTools(ToolContext(reader)).screen_companies(
            period_type="quarter", window=3, limit=3
        )
    finally:
        reader.close()
    assert answer.hits
    misses: list[str] = []
    lacking = BaseModel.__getattr__

    def counted(self: BaseModel, name: str) -> Any:
        misses.append(name)
        return lacking(self, name)

    monkeypatch.setattr(BaseModel, "__getattr__", counted)
    ledger = evidence.EvidenceLedger()
    evidence.reserve_numbers(answer, ledger)
    evidence.render_markers(answer)
    evidence.number_citations(answer, ledger, "v1")
    monkeypatch.undo()
    assert misses == []
    first = answer.hits[0].window[0].revenue
    revenue = ledger.get(first.citation.evidence)
    assert revenue is not None and revenue.value == first.value
    assert revenue.fiscal_label == first.fiscal_label
    assert revenue.stated == f"{first.value} | {first.display} | {first.unit}"


def test_window_figures_are_the_structs_they_replaced(gappy_root):
    """Every figure a window hit can cite (each window_basis row id: revenue, the incomes, the
    periods before, debt at both ends, equity), read as plain columns, becomes the same Figure,
    and its year-earlier pair the same prior Figure, as the struct fetch it replaced."""
    reader = SnapshotReader(gappy_root)
    try:
        with reader.lease() as snap:
            cols = [
                r["column_name"]
                for r in snap.query(
                    "SELECT column_name FROM duckdb_columns() "
                    "WHERE table_name = 'window_basis' AND column_name LIKE '%_row'"
                )
            ]
            assert len(cols) >= 10
            ids = sorted(
                {
                    v
                    for row in snap.query("SELECT * FROM window_basis")
                    for c in cols
                    if (v := row[c]) is not None
                }
            )
            want = {r["row_id"]: r for r in snap.query(REFERENCE_FIGURES, {"rows": ids})}
            got = {r["row_id"]: r for r in snap.query(queries.WINDOW_FIGURES, {"rows": ids})}
    finally:
        reader.close()
    assert set(got) == set(want) == set(ids)
    priors = 0
    for row_id, ref in want.items():
        row = got[row_id]
        assert windows.figure(row) == windows.figure(ref["figure"]), row_id
        assert windows.figure(windows.prior_of(row)) == windows.figure(ref["prior"]), row_id
        assert (row["calendar_start"], row["calendar_end"]) == (
            ref["figure"]["calendar_start"],
            ref["figure"]["calendar_end"],
        )
        priors += ref["prior"] is not None
    assert priors > len(want) // 2  # the year-earlier pairs are exercised, not all missing
