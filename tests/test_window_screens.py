"""Issue 23, item 3: screens over windows of consecutive periods and ratio series computed in
SQL. On a snapshot of corpus filings (NVIDIA's two 10-Ks and a 10-Q, Apple's 10-K and three
10-Qs, Alphabet, Tesla) every window figure is checked against the values get_metrics serves;
the trailing-twelve-months sums need four consecutive quarters, which the corpus does not hold
for any company, so they are checked on a small synthetic snapshot."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from graphrag_core.store.publish import SnapshotStore
from tests.mcp_client import call, error, session
from tests.test_mcp_corpus import run_stages

NVDA = "CIK-0001045810"
AAPL = "CIK-0000320193"
APPLE_FILINGS = (
    "0000320193-24-000081",
    "0000320193-24-000123",
    "0000320193-25-000057",
    "0000320193-25-000073",
)
NVDA_FILINGS = ("0001045810-23-000017", "0001045810-25-000023", "0001045810-25-000209")
OTHER_FILINGS = ("0001652044-25-000014", "0001628280-25-003063", "0001628280-25-035806")
HEADLINE = {"period_type": "quarter", "window": 3, "min_margin_trend": 0, "max_debt_change": 0}


@pytest.fixture(scope="module")
def window_snapshot(corpus_dir: Path, tmp_path_factory) -> Path:
    from tests.test_mcp_corpus import publish

    data_root = tmp_path_factory.mktemp("window-data")
    run_stages(corpus_dir, data_root, APPLE_FILINGS + NVDA_FILINGS + OTHER_FILINGS)
    publish(corpus_dir, data_root)
    return data_root


async def _served(client, company_id: str, metric: str, period_type: str) -> dict[str, dict]:
    out = await call(
        client,
        "get_metrics",
        company_id=company_id,
        metrics=[metric],
        periods=40,
        period_type=period_type,
    )
    return {v["fiscal_label"]: v for s in out["series"] for v in s["values"]}


async def _check_hit(
    client,
    hit: dict,
    *,
    window: int,
    period_type: str,
    margin_metric: str,
    sequential: bool = False,
) -> None:
    """Every figure of a window hit is the value get_metrics serves for that period, with the
    same citation, and every number the screen computed follows from the figures shown."""
    revenue = await _served(client, hit["company_id"], "revenue", period_type)
    income = await _served(client, hit["company_id"], margin_metric, period_type)
    periods = hit["window"]
    assert len(periods) == window
    for newer, older in zip(periods, periods[1:], strict=False):  # newest first, consecutive
        gap = (_date(newer["calendar_start"]) - _date(older["calendar_end"])).days
        assert 1 <= gap <= 8, (newer["fiscal_label"], older["fiscal_label"])
    for p in periods:
        served = revenue[p["fiscal_label"]]
        assert p["revenue"]["value"] == served["value"]
        assert p["revenue"]["citation"]["chunk_id"] == served["citation"]["chunk_id"]
        assert p["revenue"]["citation"]["chunk_id"]
        assert p["margin_figure"]["value"] == income[p["fiscal_label"]]["value"]
        base_rev, base_inc = p["base_revenue"], p["base_margin_figure"]
        if not sequential:
            assert base_rev["fiscal_label"] == served["prior_fiscal_label"]
            assert base_rev["value"] == served["prior_value"]
        assert base_rev["value"] == revenue[base_rev["fiscal_label"]]["value"]
        assert base_inc["value"] == income[base_inc["fiscal_label"]]["value"]
        assert base_rev["citation"]["chunk_id"] and base_inc["citation"]["chunk_id"]
        assert p["revenue_growth_pct"] == round(
            (p["revenue"]["value"] / base_rev["value"] - 1) * 100, 2
        )
        margin = p["margin_figure"]["value"] / p["revenue"]["value"] * 100
        base_margin = base_inc["value"] / base_rev["value"] * 100
        assert p["margin_pct"] == round(margin, 2)
        assert p["base_margin_pct"] == round(base_margin, 2)
        assert p["margin_trend_pp"] == pytest.approx(margin - base_margin, abs=0.011)
    # The latest period is window[0] and the closing debt debt_end: not repeated in flat fields.
    assert hit["fiscal_label"] == periods[0]["fiscal_label"]
    assert (hit["revenue_growth_pct"], hit["margin_trend_pp"]) == (
        periods[0]["revenue_growth_pct"],
        periods[0]["margin_trend_pp"],
    )
    assert (hit["revenue"], hit["prior_revenue"], hit["margin_figures"], hit["total_debt"]) == (
        None,
        None,
        [],
        None,
    )
    debt = await _served(client, hit["company_id"], "total_debt", period_type)
    start, end = hit["debt_start"], hit["debt_end"]
    assert end["value"] == debt[end["fiscal_label"]]["value"]
    assert start["value"] == debt[start["fiscal_label"]]["value"]
    # The opening balance: the end of the period before the window.
    before_window = _date(periods[-1]["calendar_start"])
    assert 1 <= (before_window - _date(debt[start["fiscal_label"]]["calendar_end"])).days <= 8
    assert hit["debt_change_pct"] == round((end["value"] / start["value"] - 1) * 100, 2)


def _date(text: str):
    import datetime as dt

    return dt.date.fromisoformat(text)


async def test_headline_question_is_one_screen_call(window_snapshot):
    async with session(window_snapshot) as client:
        # "Which companies grew margins while cutting debt over the last three quarters?"
        out = await call(client, "screen_companies", **HEADLINE)
        assert out["criteria"]["window"] == 3 and out["criteria"]["max_debt_change"] == 0
        assert "3 three-month fiscal quarters" in out["method"]
        for hit in out["hits"]:
            await _check_hit(
                client, hit, window=3, period_type="quarter", margin_metric="operating_income"
            )
            assert hit["debt_change_pct"] <= 0
            assert all(p["margin_trend_pp"] >= 0 for p in hit["window"])
        if not out["hits"]:
            # The corpus holds no three consecutive quarters of any company (Apple's Q1 FY2025
            # is not in it): the answer says so instead of an empty list alone.
            assert out["notes"] and "consecutive quarters" in out["notes"][-1], out["notes"]
            assert "0 of the" in out["notes"][-1]

        # The same question over fiscal years: NVIDIA raised its operating margin in FY2024
        # and FY2025 while its total debt fell from $10,953M (end of FY2023) to $8,463M.
        years = await call(
            client,
            "screen_companies",
            period_type="annual",
            window=2,
            min_margin_trend=0,
            max_debt_change=0,
        )
        assert [h["company_id"] for h in years["hits"]] == [NVDA]
        nvda = years["hits"][0]
        await _check_hit(
            client, nvda, window=2, period_type="annual", margin_metric="operating_income"
        )
        assert [p["fiscal_label"] for p in nvda["window"]] == ["FY2025", "FY2024"]
        assert [p["margin_trend_pp"] for p in nvda["window"]] == [8.3, 38.46]
        assert (nvda["debt_start"]["value"], nvda["debt_end"]["value"]) == (10_953e6, 8_463e6)
        assert nvda["debt_change_pct"] == -22.73
        # A window figure's citation opens on the statement that shows it.
        chunk = await call(
            client, "get_chunk", chunk_id=nvda["window"][1]["revenue"]["citation"]["chunk_id"]
        )
        assert "60,922" in chunk["text"]
        assert all(p["revenue"]["citation"]["evidence"] for p in nvda["window"])


async def test_a_criterion_failing_in_one_period_excludes_the_company(window_snapshot):
    async with session(window_snapshot) as client:
        two = await call(
            client, "screen_companies", period_type="annual", window=2, min_margin_trend=0
        )
        assert NVDA in {h["company_id"] for h in two["hits"]}
        # Three years: NVIDIA's FY2023 operating margin fell (15.66% vs 37.31% in FY2022).
        three = await call(
            client, "screen_companies", period_type="annual", window=3, min_margin_trend=0
        )
        assert NVDA not in {h["company_id"] for h in three["hits"]}
        every = await call(client, "screen_companies", period_type="annual", window=3)
        nvda = next(h for h in every["hits"] if h["company_id"] == NVDA)
        assert [p["margin_trend_pp"] for p in nvda["window"]] == [8.3, 38.46, -21.65]

        # Apple's last two quarters: operating margin up 0.43 pp (Q3) and 0.29 pp (Q2) year
        # over year. A threshold of 0.3 pp holds in Q3 only, and so excludes Apple.
        quarters = await call(
            client, "screen_companies", period_type="quarter", window=2, min_margin_trend=0
        )
        apple = next(h for h in quarters["hits"] if h["company_id"] == AAPL)
        await _check_hit_no_debt(client, apple, window=2)
        assert [p["margin_trend_pp"] for p in apple["window"]] == [0.43, 0.29]
        strict = await call(
            client, "screen_companies", period_type="quarter", window=2, min_margin_trend=0.3
        )
        assert AAPL not in {h["company_id"] for h in strict["hits"]}
        # Apple's Q1 FY2025 10-Q is not in the corpus: its opening debt for the two quarters is
        # unknown (a balance is never derived), so a debt criterion cannot pass. Its Q1 revenue
        # is derived (H1 − Q2, issue 23 item 4), so quarter on quarter its Q2 compares with it.
        cut = await call(
            client, "screen_companies", period_type="quarter", window=2, max_debt_change=1000
        )
        assert AAPL not in {h["company_id"] for h in cut["hits"]}
        seq2 = await call(
            client, "screen_companies", period_type="quarter", window=2, trend_basis="sequential"
        )
        apple2 = next(h for h in seq2["hits"] if h["company_id"] == AAPL)
        assert [
            (p["fiscal_label"], p["base_revenue"]["fiscal_label"]) for p in apple2["window"]
        ] == [("Q3-FY2025", "Q2-FY2025"), ("Q2-FY2025", "Q1-FY2025")]
        seq1 = await call(
            client, "screen_companies", period_type="quarter", trend_basis="sequential"
        )
        apple = next(h for h in seq1["hits"] if h["company_id"] == AAPL)
        q3 = apple["window"][0]
        assert (q3["fiscal_label"], q3["base_revenue"]["fiscal_label"]) == (
            "Q3-FY2025",
            "Q2-FY2025",
        )
        assert q3["revenue_growth_pct"] == round((94_036 / 95_359 - 1) * 100, 2)


async def _check_hit_no_debt(client, hit: dict, window: int) -> None:
    revenue = await _served(client, hit["company_id"], "revenue", "quarter")
    assert [p["fiscal_label"] for p in hit["window"]] == sorted(
        revenue, key=lambda k: revenue[k]["calendar_end"], reverse=True
    )[:window]
    for p in hit["window"]:
        assert p["revenue"]["value"] == revenue[p["fiscal_label"]]["value"]
        assert p["revenue_growth_pct"] == revenue[p["fiscal_label"]]["yoy_change_pct"]


async def test_one_period_window_matches_the_latest_period_screen(window_snapshot):
    async with session(window_snapshot) as client:
        for period_type in ("annual", "quarter"):
            today = await call(
                client, "screen_companies", period_type=period_type, min_revenue_growth=-100
            )
            assert "window" not in today["criteria"] and all(
                h["window"] == [] for h in today["hits"]
            )
            # The window screen with one period and a debt criterion every company with debt passes.
            win = await call(
                client,
                "screen_companies",
                period_type=period_type,
                min_revenue_growth=-100,
                max_debt_change=100_000,
                sort_by="revenue_growth",
            )
            with_debt = [h for h in today["hits"] if h["total_debt"]]
            for h in win["hits"]:
                same = next(t for t in today["hits"] if t["company_id"] == h["company_id"])
                # The window hit's latest revenue and debt are window[0]'s and debt_end.
                latest, debt = h["window"][0]["revenue"], h["debt_end"]
                assert (
                    h["fiscal_label"],
                    latest["value"],
                    latest["citation"]["chunk_id"],
                    debt["value"],
                    h["revenue_growth_pct"],
                    h["margin_trend_pp"],
                ) == (
                    same["fiscal_label"],
                    same["revenue"]["value"],
                    same["revenue"]["citation"]["chunk_id"],
                    same["total_debt"]["value"],
                    same["revenue_growth_pct"],
                    same["margin_trend_pp"],
                )
            assert {h["company_id"] for h in win["hits"]} <= {h["company_id"] for h in with_debt}


async def test_ratio_series_equal_the_served_values_divided(window_snapshot):
    async with session(window_snapshot) as client:
        for company, period_type in ((NVDA, "annual"), (AAPL, "quarter"), (AAPL, "annual")):
            checked = 0
            for ratio, num, den, scale in (
                ("gross_margin", "gross_profit", "revenue", 100),
                ("operating_margin", "operating_income", "revenue", 100),
                ("net_margin", "net_income", "revenue", 100),
                ("debt_to_equity", "total_debt", "stockholders_equity", 1),
            ):
                out = await call(
                    client,
                    "get_metrics",
                    company_id=company,
                    metrics=[num],
                    periods=4,
                    period_type=period_type,
                    ratios=[ratio, "revenue_growth", "revenue_ttm"],
                )
                assert out["capped"] is None
                served = {
                    (m, label): v
                    for m in (num, den, "revenue")
                    for label, v in (await _served(client, company, m, period_type)).items()
                }
                ratios = {r["ratio"]: r["values"] for r in out["ratios"]}
                assert ratios[ratio], ratio
                for v in ratios[ratio]:
                    n, d = served[(num, v["fiscal_label"])], served[(den, v["fiscal_label"])]
                    assert v["value"] == pytest.approx(n["value"] / d["value"] * scale, abs=1e-4)
                    assert [o["value"] for o in v["operands"]] == [n["value"], d["value"]]
                    assert [o["citation"]["chunk_id"] for o in v["operands"]] == [
                        n["citation"]["chunk_id"],
                        d["citation"]["chunk_id"],
                    ]
                    assert v["unit"] == ("percent" if scale == 100 else "ratio")
                    checked += 1
                for v in ratios["revenue_growth"]:
                    if (rev := served.get(("revenue", v["fiscal_label"]))) is not None:
                        assert v["value"] == pytest.approx(rev["yoy_change_pct"], abs=0.006)
                        checked += 1
                if period_type == "annual":
                    assert not ratios.get("revenue_ttm")  # a TTM is a quarter series' figure
                else:
                    # Derived first quarters (H1 − Q2) and fourth quarters (FY − 9M) complete
                    # Apple's fiscal 2024: each TTM is the sum of four consecutive served quarters.
                    quarters = sorted(
                        (v for (m, _), v in served.items() if m == "revenue"),
                        key=lambda v: v["calendar_end"],
                    )
                    assert ratios["revenue_ttm"]
                    for v in ratios["revenue_ttm"]:
                        end = next(
                            i
                            for i, q in enumerate(quarters)
                            if q["calendar_end"] == v["calendar_end"]
                        )
                        assert end >= 3
                        assert v["value"] == pytest.approx(
                            sum(q["value"] for q in quarters[end - 3 : end + 1])
                        )
            assert checked >= 8, (company, period_type)
        nvda = await call(
            client,
            "get_metrics",
            company_id=NVDA,
            metrics=["revenue"],
            ratios=["net_margin"],
            periods=3,
        )
        assert [v["value"] for v in nvda["ratios"][0]["values"]][0] == pytest.approx(
            72_880 / 130_497 * 100, abs=1e-4
        )

        peers = await call(
            client,
            "compare_companies",
            company_ids=[NVDA, AAPL],
            period="2024",
            metrics=["revenue", "net_income"],
            ratios=["net_margin", "debt_to_equity"],
        )
        for row in peers["companies"]:
            figs = {f["metric"]: f for f in row["figures"]}
            ratios = {r["ratio"]: r["values"] for r in row["ratios"]}
            (margin,) = ratios["net_margin"]
            assert margin["fiscal_label"] == figs["revenue"]["fiscal_label"]
            assert margin["value"] == pytest.approx(
                figs["net_income"]["value"] / figs["revenue"]["value"] * 100, abs=1e-4
            )
            assert len(ratios["debt_to_equity"]) == 1


async def test_hostile_window_and_ratio_arguments(window_snapshot):
    async with session(window_snapshot) as client:
        for args in (
            {"window": 0},
            {"window": 13},
            {"window": 10**12},
            {"window": -3},
            {"window": 2.5},
            {"max_debt_change": -101},
            {"max_debt_change": 1e300},
            {"trend_basis": "monthly"},
            {"sort_by": "debt_change; DROP TABLE metric_values"},
            {"window": "3; --"},
            {"window": 3, "limit": 0},
            {"window": 3, "limit": -1},
            {"window": 3, "limit": 101},
            {"window": 3, "limit": 10**12},
            {"window": 3, "limit": 2.5},
            {"window": 3, "limit": "3; DROP TABLE window_spans"},
            {"window": 3, "limit": ""},
            {"window": 3, "limit": "x" * 10_000},
        ):
            text = await error(client, "screen_companies", **args)
            assert "validation error" in text.lower() or "input should" in text.lower(), (
                args,
                text,
            )
        for args in (
            {"company_id": "", "ratios": ["net_margin"]},
            {"company_id": "NVDA", "ratios": ["pe_ratio"]},
            {"company_id": "NVDA", "ratios": [""]},
            {"company_id": "NVDA", "ratios": ["net_margin"] * 20},
        ):
            await error(client, "get_metrics", **args)
        await error(client, "compare_companies", company_ids=[], ratios=["net_margin"])
        await error(client, "compare_companies", company_ids=[""], ratios=["net_margin"])
        # Empty lists and a huge but valid window are answers, not crashes.
        empty = await call(client, "get_metrics", company_id="NVDA", ratios=[])
        assert empty["ratios"] == []
        long = await call(
            client, "screen_companies", window=12, period_type="quarter", min_margin_trend=0
        )
        assert long["hits"] == [] and "0 of the" in long["notes"][-1]
        still = await call(client, "status")  # the snapshot is intact
        assert still["filings"] == len(APPLE_FILINGS + NVDA_FILINGS + OTHER_FILINGS)


def test_non_finite_thresholds_are_refused(window_snapshot):
    """JSON carries no NaN (a client sends null: no criterion), but a Python caller can: NaN
    compares above every number in DuckDB, so `debt_change <= NaN` would pass everyone."""
    from mcp.server.mcpserver.exceptions import ToolError

    from graphrag_core.store.reader import SnapshotReader
    from mcp_server.context import ToolContext
    from mcp_server.screens import ScreenTools

    reader = SnapshotReader(window_snapshot)
    try:
        tools = ScreenTools(ToolContext(reader))
        for args in (
            {"max_debt_change": math.nan},
            {"max_debt_change": math.inf},
            {"max_debt_change": -math.inf, "window": 3},
            {"min_margin_trend": math.nan, "window": 2},
            {"min_revenue_growth": math.nan},
        ):
            with pytest.raises(ToolError, match="finite"):
                tools.screen_companies(**args)
        assert tools.screen_companies(max_debt_change=0.0, window=2).criteria["window"] == 2
    finally:
        reader.close()


@pytest.fixture(scope="module")
def synthetic_root(tmp_path_factory) -> Path:
    """bench's synthetic snapshot, small: 4 companies, ten fiscal years, each with all four
    quarters reported (the corpus has no company with four consecutive quarters)."""
    from bench import _synthetic_snapshot

    root = tmp_path_factory.mktemp("window-synthetic")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_synthetic_snapshot, "PERIODS", ("Q1", "Q2", "Q3", "Q4", "FY"))
        SnapshotStore(root).publish(_synthetic_snapshot.synthetic_tables(4))
    return root


async def test_headline_and_ttm_on_consecutive_quarters(synthetic_root):
    async with session(synthetic_root) as client:
        out = await call(client, "screen_companies", **HEADLINE, limit=100)
        assert out["matched"] == len(out["hits"]) and out["capped"] is None
        everyone = await call(
            client, "screen_companies", period_type="quarter", window=3, limit=100
        )
        assert everyone["capped"] is None
        assert len(everyone["hits"]) == 4  # every company has three consecutive quarters
        passing = {h["company_id"] for h in out["hits"]}
        for hit in everyone["hits"]:
            await _check_hit(
                client, hit, window=3, period_type="quarter", margin_metric="operating_income"
            )
            ok = (
                all(p["margin_trend_pp"] >= 0 for p in hit["window"])
                and hit["debt_change_pct"] <= 0
            )
            assert (hit["company_id"] in passing) == ok, hit["company_id"]
        seq = await call(
            client,
            "screen_companies",
            period_type="quarter",
            window=4,
            trend_basis="sequential",
            limit=2,
        )
        assert len(seq["hits"]) == 2 and seq["capped"] is None
        for hit in seq["hits"]:
            await _check_hit(
                client,
                hit,
                window=4,
                period_type="quarter",
                margin_metric="operating_income",
                sequential=True,
            )
            labels = [p["fiscal_label"] for p in hit["window"]]
            assert [p["base_revenue"]["fiscal_label"] for p in hit["window"][:-1]] == labels[1:]

        company = everyone["hits"][0]["company_id"]
        out = await call(
            client,
            "get_metrics",
            company_id=company,
            metrics=["revenue", "net_income"],
            period_type="quarter",
            periods=6,
            ratios=["revenue_ttm", "net_income_ttm"],
        )
        assert out["capped"] is None
        revenue = await _served(client, company, "revenue", "quarter")
        quarters = sorted(revenue.values(), key=lambda v: v["calendar_end"])
        ttm = {r["ratio"]: r["values"] for r in out["ratios"]}
        assert len(ttm["revenue_ttm"]) == len(ttm["net_income_ttm"]) == 6
        for v in ttm["revenue_ttm"]:
            end = next(i for i, q in enumerate(quarters) if q["calendar_end"] == v["calendar_end"])
            four = quarters[end - 3 : end + 1]
            assert v["value"] == pytest.approx(sum(q["value"] for q in four))
            assert [o["fiscal_label"] for o in v["operands"]] == [q["fiscal_label"] for q in four]
            assert v["calendar_start"] == four[0]["calendar_start"]
        annual = await call(client, "get_metrics", company_id=company, ratios=["revenue_ttm"])
        assert annual["ratios"] == []  # a TTM is a quarter series' figure


async def test_a_window_screen_shows_whole_hits_that_fit_the_answer(synthetic_root, monkeypatch):
    """A three-period hit is about 8,000 characters: the server builds only the hits one answer
    holds (the cap would cut the rest after building them), best first, and says so; `matched`
    still counts every company. With room for one hit, the first of the full answer comes back
    whole and `capped` stays empty."""
    from mcp_server import windows

    async with session(synthetic_root) as client:
        everyone = await call(
            client, "screen_companies", period_type="quarter", window=3, limit=100
        )
    assert windows.hits_that_fit(3, 40_000) == 4 and windows.hits_that_fit(3, 100) == 1
    monkeypatch.setattr(
        windows,
        "ANSWER_OVERHEAD_CHARS",
        40_000 - windows.HIT_BASE_CHARS - 3 * windows.HIT_PERIOD_CHARS,
    )
    async with session(synthetic_root) as client:
        one = await call(client, "screen_companies", period_type="quarter", window=3, limit=100)
    assert len(one["hits"]) == 1 and one["hits"][0] == everyone["hits"][0]
    assert one["matched"] == everyone["matched"] == 4 and one["truncated"] and one["capped"] is None
    assert any(
        "4 companies matched; the first 1 (by sort_by) are shown whole" in n for n in one["notes"]
    )


async def test_a_window_screen_shows_its_best_few_unless_limit_asks_for_more(synthetic_root):
    """Without `limit` a window screen shows the best DEFAULT_WINDOW_HITS (every hit lists its
    whole window, cited, which the client validates and the model reads); `matched` and
    `truncated` say more passed and the note how to see them; a larger `limit` shows them, the
    same hits first. The one-period screen keeps its default of 25."""
    from mcp_server import windows
    from mcp_server.screens import ScreenTools

    assert f"best {windows.DEFAULT_WINDOW_HITS} by `sort_by`" in " ".join(
        (ScreenTools.screen_companies.__doc__ or "").split()
    )
    async with session(synthetic_root) as client:
        few = await call(client, "screen_companies", period_type="quarter", window=3)
        every = await call(client, "screen_companies", period_type="quarter", window=3, limit=4)
        one_period = await call(client, "screen_companies", period_type="quarter")
    assert len(few["hits"]) == windows.DEFAULT_WINDOW_HITS == 3
    assert few["matched"] == every["matched"] == 4 and few["truncated"]
    assert any(
        "4 companies matched; the first 3 (by sort_by) are shown whole, pass a larger limit "
        "(one answer holds 4)" in n
        for n in few["notes"]
    ), few["notes"]
    assert len(every["hits"]) == 4 and not every["truncated"] and every["capped"] is None
    assert not any("companies matched" in n for n in every["notes"])
    strip = _without_evidence
    assert strip(few["hits"]) == strip(every["hits"][:3])
    assert len(one_period["hits"]) == one_period["matched"] == 4  # under its 25


def _without_evidence(value):
    """`value` with the session's evidence numbers left out (they follow the calls' order)."""
    if isinstance(value, dict):
        return {k: _without_evidence(v) for k, v in value.items() if k != "evidence"}
    if isinstance(value, list):
        return [_without_evidence(v) for v in value]
    return value
