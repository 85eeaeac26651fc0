"""Issue 23 item 4, like for like: per-share values and share counts on the latest split basis
(the as-filed value beside them), one total-debt definition with every line cited, a stale
flag on a company whose latest period is old, half years and nine months as periods, and a
missing first quarter derived as H1 − Q2. On corpus filings."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.common.freshness import age_days, is_stale
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.xbrl.splits import Split, find_splits, ratio_of, rebase
from tests.mcp_client import call, error, session
from tests.test_mcp_corpus import publish, run_stages
from tests.xbrl_corpus import by_path, corpus_observations

D = dt.date.fromisoformat
NVDA = "0001045810"


def _current(observations: pl.DataFrame, cik: str, metric: str) -> dict[str, dict]:
    rows = observations.filter(
        (pl.col("cik") == cik) & (pl.col("metric") == metric) & pl.col("superseded_by").is_null()
    )
    return {r["fiscal_label"]: r for r in rows.iter_rows(named=True)}


def test_split_ratios_and_windows_place_a_filing():
    assert ratio_of("10-for-1 stock split (value ratio 1.74 / 0.17 = 10.2)") == 10.0
    assert ratio_of("1-for-10 reverse stock split (value ratio …)") == pytest.approx(0.1)
    assert ratio_of("no split here") is None
    split = Split("1", 10.0, D("2023-02-25"), D("2025-02-26"), "restated in a later filing")
    # Filed before the window: on the old basis, re-based (per share ÷ 10, shares × 10).
    assert rebase(3.85, "per_share", D("2023-02-24"), [split])[0] == pytest.approx(0.385)
    assert rebase(2_506e6, "shares", D("2023-02-24"), [split])[0] == pytest.approx(25_060e6)
    # Filed after it: already on the latest basis.
    value, basis = rebase(0.17, "per_share", D("2025-02-26"), [split])
    assert value == 0.17 and basis.startswith("as filed, on the basis of the 10-for-1 stock split")
    # Inside the window, or undated: cannot be placed, so no re-based value is made up.
    assert rebase(1.5, "per_share", D("2024-08-28"), [split])[0] is None
    assert rebase(1.5, "per_share", None, [split])[0] is None
    # No split: as filed.
    assert rebase(1.5, "per_share", D("2020-01-01"), []) == (
        1.5,
        "as filed; no stock split found in this company's filings",
    )
    # A reverse split multiplies per-share values.
    reverse = Split("1", 0.1, D("2024-01-01"), D("2024-01-01"), "stated")
    assert rebase(0.30, "per_share", D("2023-06-01"), [reverse])[0] == pytest.approx(3.0)


@pytest.mark.corpus
def test_nvidia_eps_series_compares_like_for_like_across_the_2024_split(corpus_dir: Path):
    observations = corpus_observations(corpus_dir)
    [split] = [s for s in find_splits(observations) if s.cik == NVDA]
    assert (
        split.ratio == 10.0 and split.not_before == D("2023-02-25") and split.by == D("2025-02-26")
    )
    eps = _current(observations, NVDA, "eps_diluted")
    fy22, fy23 = eps["FY2022"], eps["FY2023"]
    # As filed: FY2022 3.85 (pre-split 10-K), FY2023 0.17 (post-split 10-K): -95.6%, not a fall in
    # earnings.
    assert (fy22["value"], fy23["value"]) == (3.85, 0.17)
    assert round((fy23["value"] / fy22["value"] - 1) * 100, 1) == -95.6
    # Like for like: FY2022 on the ten-for-one basis, so FY2023 is about -55%.
    assert fy22["split_adjusted_value"] == pytest.approx(0.385)
    change = (fy23["split_adjusted_value"] / fy22["split_adjusted_value"] - 1) * 100
    assert -60 < change < -50
    assert fy22["split_basis"].startswith(
        "re-based to the latest split basis: as filed 3.85 ÷ 10; 10-for-1 stock split"
    )
    assert fy23["split_basis"].startswith("as filed, on the basis of the 10-for-1 stock split")
    # Share counts too; currency values never.
    shares = _current(observations, NVDA, "shares_outstanding")
    assert shares["FY2023"]["split_adjusted_value"] == pytest.approx(shares["FY2023"]["value"] * 10)
    revenue = _current(observations, NVDA, "revenue")
    assert (
        revenue["FY2022"]["split_adjusted_value"] is None
        and revenue["FY2022"]["split_basis"] is None
    )


@pytest.mark.corpus
def test_coca_cola_total_debt_includes_notes_payable_each_line_cited(corpus_dir: Path):
    ko = by_path(corpus_dir, "KO/10-Q/ko-10-q-2025-07-24.htm")
    facts = {r["fact_id"]: r for r in ko.xbrl.facts.iter_rows(named=True)}
    [debt] = ko.metrics.observations.filter(
        (pl.col("metric") == "total_debt") & (pl.col("calendar_end") == D("2025-06-27"))
    ).iter_rows(named=True)
    lines = {facts[f]["concept"]: facts[f]["value"] for f in debt["fact_ids"]}
    # Loans and notes payable (~$4.4B) is a balance-sheet line of its own, and counts.
    assert lines == {
        "us-gaap:LongTermDebtAndCapitalLeaseObligations": 44_976e6,
        "us-gaap:LongTermDebtAndCapitalLeaseObligationsCurrent": 91e6,
        "us-gaap:NotesAndLoansPayable": 4_379e6,
    }
    assert debt["value"] == sum(lines.values()) == 49_446e6
    # Each line is cited with its fact and value; every fact is on the balance sheet's chunk.
    for fact_id in debt["fact_ids"]:
        assert f"(fact {fact_id})" in debt["derivation"]
    assert "us-gaap:NotesAndLoansPayable 4,379,000,000" in debt["derivation"]


@pytest.mark.corpus
def test_hubspot_that_repaid_its_notes_has_a_debt_of_zero(corpus_dir: Path):
    hubs = by_path(corpus_dir, "HUBS/10-Q/hubs-10-q-2025-08-06.htm").metrics.observations
    debt = {
        r["calendar_end"]: r
        for r in hubs.filter(pl.col("metric") == "total_debt").iter_rows(named=True)
    }
    assert debt[D("2024-12-31")]["value"] == 458_184_000  # the convertible notes due within a year
    repaid = debt[D("2025-06-30")]
    assert repaid["value"] == 0.0
    assert "no debt line at 2025-06-30: debt repaid, 0" in repaid["mapping_rule"]
    assert repaid["fact_ids"] == [debt[D("2024-12-31")]["fact_id"]]  # the row that now reads "—"


# -- through a real MCP client session, on a snapshot of corpus filings ----------------------

SNAPSHOT_DOCUMENTS = (
    "NVDA/10-K/Nvidia.10-K.htm",
    "NVDA/10-K/nvda-10-k-2025-02-26.htm",
    "NVDA/10-Q/nvda-10-q-2025-08-27.htm",
    "KO/10-Q/ko-10-q-2025-07-24.htm",
    "AAPL/10-Q/aapl-10-q-2025-08-01.htm",
    "CIK0000859368/10-K/0000950153-99-001234.htm",
)


@pytest.fixture(scope="module")
def like_snapshot(corpus_dir: Path, tmp_path_factory) -> Path:
    wanted = {(corpus_dir / "filings" / d).resolve() for d in SNAPSHOT_DOCUMENTS}
    ids = tuple(
        ref.filing_id
        for ref in LocalFolderSource(corpus_dir).discover()
        if Path(ref.documents[0].location).resolve() in wanted
    )
    assert len(ids) == len(SNAPSHOT_DOCUMENTS)
    data_root = tmp_path_factory.mktemp("like-for-like")
    run_stages(corpus_dir, data_root, ids)
    publish(corpus_dir, data_root)
    return data_root


@pytest.mark.corpus
async def test_get_metrics_serves_nvidia_eps_like_for_like(like_snapshot: Path):
    async with session(like_snapshot) as client:
        eps = await call(
            client, "get_metrics", company_id="NVDA", metrics=["eps_diluted"], periods=5
        )
        values = {v["fiscal_label"]: v for v in eps["series"][0]["values"]}
        fy22, fy23 = values["FY2022"], values["FY2023"]
        # Today's series said -95.6% (0.17 after the split against 3.85 before it).
        assert (fy22["value"], fy22["as_filed_value"]) == (0.385, 3.85)
        assert fy22["split_basis"].startswith(
            "re-based to the latest split basis: as filed 3.85 ÷ 10"
        )
        assert (fy23["value"], fy23["prior_value"], fy23["yoy_change_pct"]) == (0.17, 0.385, -55.84)
        assert fy23["as_filed_value"] == 0.17 and fy23["superseded"][0]["value"] == 1.74
        assert eps["stale"] is False and eps["latest_period_end"] == "2025-07-27"


@pytest.mark.corpus
async def test_coca_cola_debt_lines_are_cited_in_the_answer(like_snapshot: Path):
    async with session(like_snapshot) as client:
        debt = await call(
            client,
            "get_metrics",
            company_id="KO",
            metrics=["total_debt"],
            period_type="quarter",
            periods=1,
        )
        [q2] = debt["series"][0]["values"]
        assert (q2["fiscal_label"], q2["value"]) == ("Q2-FY2025", 49_446e6)
        assert "us-gaap:NotesAndLoansPayable 4,379,000,000 (fact " in q2["derivation"]
        assert q2["derivation"].count("(fact ") == 3


@pytest.mark.corpus
async def test_the_1999_filer_is_flagged_stale(like_snapshot: Path):
    async with session(like_snapshot) as client:
        old = await call(client, "explore_company", company_id="CIK-0000859368")
        assert (
            old["company"]["stale"] is True and old["company"]["latest_period_end"] == "1999-06-30"
        )
        nvda = await call(client, "explore_company", company_id="NVDA")
        assert nvda["company"]["stale"] is False


@pytest.mark.corpus
async def test_half_year_and_nine_month_periods_and_a_derived_first_quarter(like_snapshot: Path):
    async with session(like_snapshot) as client:
        half = await call(
            client,
            "get_metrics",
            company_id="NVDA",
            metrics=["revenue"],
            period_type="half_year",
            periods=2,
        )
        h1 = [(v["fiscal_label"], v["value"]) for v in half["series"][0]["values"]]
        assert h1 == [("H1-FY2026", 90_805e6), ("H1-FY2025", 56_084e6)]
        nine = await call(
            client,
            "get_metrics",
            company_id="AAPL",
            metrics=["revenue"],
            period_type="nine_months",
            periods=1,
        )
        assert nine["series"][0]["values"][0]["fiscal_label"] == "9M-FY2025"
        # NVIDIA's first quarter of FY2026 is in no filing here: H1 − Q2, with both operands cited.
        quarters = await call(
            client,
            "get_metrics",
            company_id="NVDA",
            metrics=["revenue"],
            period_type="quarter",
            periods=2,
        )
        q1 = next(v for v in quarters["series"][0]["values"] if v["fiscal_label"] == "Q1-FY2026")
        assert (q1["value"], q1["derived"], q1["derivation"]) == (
            44_062e6,
            True,
            "H1-FY2026 − Q2-FY2026",
        )
        assert [o["fiscal_label"] for o in q1["derived_from"]] == ["H1-FY2026", "Q2-FY2026"]
        assert all(o["citation"]["filing_id"] == "0001045810-25-000209" for o in q1["derived_from"])


def test_staleness_against_as_of():
    as_of = D("2025-08-27")
    assert is_stale(D("1999-06-30"), as_of, 550)
    assert not is_stale(D("2025-07-27"), as_of, 550)
    assert age_days(D("2024-02-23"), as_of) == 551 and is_stale(D("2024-02-23"), as_of, 550)
    # Unknown dates are never called stale (nothing says so).
    assert not is_stale(None, as_of, 550) and not is_stale(D("1999-06-30"), None, 550)


@pytest.mark.corpus
async def test_hostile_period_types_and_ids(like_snapshot: Path):
    async with session(like_snapshot) as client:
        for bad in ("H1", "9M", "", "half_year; DROP TABLE metric_values"):
            await error(client, "get_metrics", company_id="NVDA", period_type=bad)
        # A company with no metric values at all (the 1999 10-K has no XBRL) says it is stale.
        text = await error(
            client, "get_metrics", company_id="CIK-0000859368", metrics=["eps_diluted"]
        )
        assert "stale" in text and "1999-06-30" in text
        for odd in ("CIK-", "../../etc/passwd", "NaN"):
            await error(client, "explore_company", company_id=odd)


@pytest.mark.corpus
async def test_screen_hits_say_when_their_latest_period_is_stale(like_snapshot: Path, monkeypatch):
    """A screen hit carries `stale` as get_metrics does: its latest period ended more than
    GRAPHRAG_METRICS_STALE_AFTER_DAYS before the snapshot's as_of."""
    async with session(like_snapshot) as client:
        default = await call(client, "screen_companies", period_type="annual")
    assert default["hits"] and not any(h["stale"] for h in default["hits"])
    monkeypatch.setenv("GRAPHRAG_METRICS_STALE_AFTER_DAYS", "30")
    async with session(like_snapshot) as client:
        strict = await call(client, "screen_companies", period_type="annual")
    as_of = D(strict["as_of"])
    assert [h["stale"] for h in strict["hits"]] == [
        (as_of - D(h["calendar_end"])).days > 30 for h in strict["hits"]
    ]
    assert any(h["stale"] for h in strict["hits"])
