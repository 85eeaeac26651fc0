"""Time on the graph (issue 25, item 3): the graph tools answer for a period (a fiscal label, a
calendar year, quarter or range) or as of a date — the period grammar
(graphrag_core.common.periods.parse_period_filter), then neighbors, graph_path,
explore_company, local_search and shared_neighbors through a real MCP session on a snapshot of
the corpus's NVIDIA 10-Ks, Tesla's 10-K and later 10-Q, and Apple's 10-K and 10-Qs."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from graphrag_core.common.periods import parse_period_filter
from tests.mcp_client import call, error, session
from tests.test_mcp_corpus import publish, run_stages
from tests.test_what_changed import NVDA_10K_FY2023, NVDA_10K_FY2025, TSLA_10K, TSLA_10Q

D = dt.date.fromisoformat
AAPL_10K = "0000320193-24-000123"
AAPL_10Q_Q2 = "0000320193-25-000057"
AAPL_10Q_Q3_FY2024 = "0000320193-24-000081"
HUAWEI = "ORG:huawei-technologies"
AMD = "CIK-0000002488"

# -- the grammar -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("period", "normalized", "label", "start", "end"),
    [
        ("FY2024", "FY2024", "FY2024", None, None),
        ("Q2 FY2025", "Q2-FY2025", "Q2-FY2025", None, None),
        ("q2-fy2025", "Q2-FY2025", "Q2-FY2025", None, None),
        ("9M FY2026", "9M-FY2026", "9M-FY2026", None, None),
        ("2024", "2024", None, "2024-01-01", "2024-12-31"),
        ("2024-Q4", "2024-Q4", None, "2024-10-01", "2024-12-31"),
        ("Q1 2025", "2025-Q1", None, "2025-01-01", "2025-03-31"),
        ("2024-07-01..2024-12-31", "2024-07-01..2024-12-31", None, "2024-07-01", "2024-12-31"),
        ("2024-07-01 to 2024-07-01", "2024-07-01..2024-07-01", None, "2024-07-01", "2024-07-01"),
    ],
)
def test_periods_parse_to_a_fiscal_label_or_a_calendar_range(period, normalized, label, start, end):
    got = parse_period_filter(period, "2025-03-01")
    assert (got.period, got.label, got.as_of) == (normalized, label, D("2025-03-01"))
    assert (got.start, got.end) == ((D(start), D(end)) if start else (None, None))
    assert got.kind == ("fiscal" if label else "calendar") and got.active


def test_no_period_and_no_date_is_no_filter():
    for blank in (None, "", "   "):
        assert not parse_period_filter(blank, blank).active


@pytest.mark.parametrize(
    ("period", "as_of", "message"),
    [
        ("2024-12-31..2024-01-01", None, "after the end"),  # from > to
        ("2024-02-30..2024-03-01", None, "not a calendar date"),
        ("FY20255", None, "not a period"),
        ("Q5-FY2024", None, "not a period"),
        ("2025; DROP TABLE edges", None, "not a period"),
        ("FY1066", None, "outside"),
        ("../../etc/passwd", None, "not a period"),
        (None, "2024-02-30", "not a calendar date"),
        (None, "2024-1-1", "ISO date"),
        (None, "NaN", "ISO date"),
        (None, "inf", "ISO date"),
        (None, "yesterday", "ISO date"),
        (None, "0001-01-01", "outside"),
    ],
)
def test_malformed_periods_and_dates_are_refused_with_what_to_pass(period, as_of, message):
    with pytest.raises(ValueError, match=message):
        parse_period_filter(period, as_of)


# -- the corpus, through an MCP session --------------------------------------------------------


@pytest.fixture(scope="module")
def time_snapshot(corpus_dir: Path, tmp_path_factory) -> Path:
    data_root = tmp_path_factory.mktemp("graph-time")
    filings = (NVDA_10K_FY2023, NVDA_10K_FY2025, TSLA_10K, TSLA_10Q, AAPL_10K, AAPL_10Q_Q2)
    run_stages(corpus_dir, data_root, filings)
    publish(corpus_dir, data_root)
    return data_root


def objects(out: dict) -> set[str]:
    return {e["object"]["entity_id"] for e in out["edges"]}


@pytest.mark.corpus
async def test_an_edge_first_filed_in_2025_is_not_served_as_of_2024(time_snapshot):
    async with session(time_snapshot) as client:
        ask = {"entity_id": "NVDA", "relation": "COMPETES_WITH", "direction": "out"}
        everything = await call(client, "neighbors", **ask)
        assert {HUAWEI, AMD} <= objects(everything) and everything["time_filter"] is None
        # Huawei is first named a competitor in the FY2025 10-K, filed 2025-02-26.
        before = await call(client, "neighbors", **ask, as_of="2024-12-31")
        assert AMD in objects(before) and HUAWEI not in objects(before)
        assert before["time_filter"]["as_of"] == "2024-12-31"
        assert "first filed on or before" in before["time_filter"]["rule"]
        # What was known then is cited from what was filed by then, and counted over it.
        amd = next(e for e in before["edges"] if e["object"]["entity_id"] == AMD)
        now = next(e for e in everything["edges"] if e["object"]["entity_id"] == AMD)
        assert {c["filing_id"] for c in amd["citations"]} == {NVDA_10K_FY2023}
        assert amd["last_filed"] == "2023-02-24" and amd["filing_count"] == 1
        assert amd["evidence_count"] < now["evidence_count"]
        on_the_day = await call(client, "neighbors", **ask, as_of="2025-02-26")
        assert HUAWEI in objects(on_the_day)
        nothing = await call(client, "neighbors", **ask, as_of="2001-01-01")
        assert nothing["edges"] == [] and nothing["note"]


@pytest.mark.corpus
async def test_a_period_keeps_the_edges_stated_for_it_fiscal_or_calendar(time_snapshot):
    async with session(time_snapshot) as client:
        ask = {"entity_id": "NVDA", "relation": "COMPETES_WITH", "direction": "out"}
        fy23 = await call(client, "neighbors", **ask, period="FY2023")
        fy25 = await call(client, "neighbors", **ask, period="FY2025")
        assert HUAWEI not in objects(fy23) and HUAWEI in objects(fy25)
        assert fy25["period"] == "FY2025" and fy25["time_filter"]["period_kind"] == "fiscal"
        # NVIDIA's fiscal 2025 runs February 2024 to January 2025: calendar 2024, not 2023.
        cal24 = await call(client, "neighbors", **ask, period="2024")
        cal23 = await call(client, "neighbors", **ask, period="2023")
        assert objects(cal24) == objects(fy25) and HUAWEI not in objects(cal23)
        assert (cal24["time_filter"]["calendar_start"], cal24["time_filter"]["calendar_end"]) == (
            "2024-01-01",
            "2024-12-31",
        )
        # Apple's Q2 FY2025 10-Q (quarter ended 2025-03-29) is calendar 2025-Q1; its 10-K not.
        risks = {"entity_id": "AAPL", "relation": "EXPOSED_TO_RISK", "direction": "out"}
        q2 = await call(client, "neighbors", **risks, period="Q2 FY2025")
        cal = await call(client, "neighbors", **risks, period="2025-Q1")
        assert q2["period"] == "Q2-FY2025" and objects(q2) == objects(cal)
        assert "RISK:geopolitical" in objects(q2)
        assert len(objects(q2)) < len(
            objects(await call(client, "neighbors", **risks, period="FY2024"))
        )
        span = await call(client, "neighbors", **risks, period="2025-01-01..2025-03-31")
        assert objects(span) == objects(cal)


@pytest.mark.corpus
async def test_a_revision_filed_later_does_not_supersede_as_of_an_earlier_date(time_snapshot):
    async with session(time_snapshot) as client:
        ask = {"entity_id": "TSLA", "relation": "GUIDES", "direction": "out"}
        capex = lambda out: [  # noqa: E731
            e for e in out["edges"] if e["object"]["entity_id"] == "METRIC:capex"
        ]
        # The 10-Q of July 2025 revises the 10-K's $11B capex guidance to $9B.
        [now] = capex(await call(client, "neighbors", **ask))
        assert now["value"] == 9e9 and now["superseded_by"] is None
        [then] = capex(await call(client, "neighbors", **ask, as_of="2025-03-01"))
        assert then["value"] == 11e9 and then["superseded_by"] is None
        assert {c["filing_id"] for c in then["citations"]} == {TSLA_10K}
        both = capex(await call(client, "neighbors", **ask, include_superseded=True))
        assert {e["value"] for e in both} == {11e9, 9e9}
        assert any(e["superseded_by"] for e in both)


@pytest.mark.corpus
async def test_every_graph_tool_takes_a_period_and_a_date_and_says_so(time_snapshot):
    async with session(time_snapshot) as client:
        explore = await call(client, "explore_company", company_id="NVDA", as_of="2024-12-31")
        assert explore["time_filter"]["as_of"] == "2024-12-31"
        assert explore["relations"] and all(
            c["filing_id"] == NVDA_10K_FY2023 for e in explore["relations"] for c in e["citations"]
        )
        assert HUAWEI not in {e["object"]["entity_id"] for e in explore["relations"]}
        later = await call(client, "explore_company", company_id="NVDA", period="FY2025")
        assert later["time_filter"]["period"] == "FY2025"

        path = await call(client, "graph_path", from_id="NVDA", to_id=HUAWEI)
        assert path["hops"] == 1 and path["time_filter"] is None
        before = await call(client, "graph_path", from_id="NVDA", to_id=HUAWEI, as_of="2024-12-31")
        assert before["time_filter"]["as_of"] == "2024-12-31"
        assert all(
            e["object"]["entity_id"] != HUAWEI or e["subject"]["entity_id"] != "CIK-0001045810"
            for p in before["paths"]
            for e in p["edges"]
        )
        assert all(e["first_filed"] <= "2024-12-31" for p in before["paths"] for e in p["edges"])

        local = await call(
            client, "local_search", query="NVIDIA competitors", as_of="2024-12-31", k=0
        )
        assert local["time_filter"]["as_of"] == "2024-12-31"
        assert local["edges"] and HUAWEI not in {
            e["object"]["entity_id"] for e in local["edges"]
        } | {e["subject"]["entity_id"] for e in local["edges"]}
        # Communities and metrics are filtered too now: nothing of them is noted as unfiltered.
        assert not any("period/as_of" in n for n in local["notes"])

        shared = await call(
            client,
            "shared_neighbors",
            entity_ids=["NVDA", "AAPL"],
            relation="EXPOSED_TO_RISK",
            direction="out",
        )
        assert shared["shared"] and shared["time_filter"] is None
        # Apple's 10-K was filed 2024-11-01: nothing it states was known in 2023.
        early = await call(
            client,
            "shared_neighbors",
            entity_ids=["NVDA", "AAPL"],
            relation="EXPOSED_TO_RISK",
            direction="out",
            as_of="2023-12-31",
        )
        assert early["shared"] == [] and early["time_filter"]["as_of"] == "2023-12-31"


@pytest.mark.corpus
async def test_hostile_periods_and_dates(time_snapshot):
    async with session(time_snapshot) as client:
        for tool, base in (
            ("neighbors", {"entity_id": "NVDA"}),
            ("graph_path", {"from_id": "NVDA", "to_id": "TSLA"}),
            ("explore_company", {"company_id": "NVDA"}),
            ("local_search", {"query": "NVIDIA suppliers", "k": 0}),
            ("shared_neighbors", {"entity_ids": ["NVDA", "AAPL"]}),
        ):
            for args, message in (
                ({"as_of": "2024-02-30"}, "not a calendar date"),
                ({"as_of": "31/12/2024"}, "ISO date"),
                ({"as_of": "2024-12-31T00:00:00Z"}, "10"),
                ({"period": "2025-01-01..2024-01-01"}, "after the end"),
                ({"period": "FY20255"}, "not a period"),
                ({"period": "x' OR '1'='1"}, "not a period"),
                ({"period": "9" * 41}, "40"),
            ):
                assert message in await error(client, tool, **base, **args), (tool, args)


@pytest.mark.corpus
async def test_explore_company_filings_and_metrics_follow_the_date_and_the_period(time_snapshot):
    async with session(time_snapshot) as client:
        now = await call(client, "explore_company", company_id="NVDA")
        assert [f["filing_id"] for f in now["latest_filings"]] == [NVDA_10K_FY2025, NVDA_10K_FY2023]
        revenue = next(m for m in now["key_metrics"] if m["metric"] == "revenue")
        assert revenue["latest_annual"]["fiscal_label"] == "FY2025"
        # Before the FY2025 10-K was filed (2025-02-26): its filing and its figures are hidden,
        # the FY2023 10-K's are the latest, cited to that 10-K.
        before = await call(client, "explore_company", company_id="NVDA", as_of="2024-12-31")
        assert [f["filing_id"] for f in before["latest_filings"]] == [NVDA_10K_FY2023]
        assert before["key_metrics"]
        for m in before["key_metrics"]:
            for value in (m["latest_annual"], m["latest_quarter"]):
                if value is not None:
                    assert value["citation"]["filed_date"] <= "2024-12-31", m
                    assert value["citation"]["filing_id"] == NVDA_10K_FY2023, m
        revenue = next(m for m in before["key_metrics"] if m["metric"] == "revenue")
        assert revenue["latest_annual"]["fiscal_label"] == "FY2023"
        assert revenue["latest_annual"]["value"] == 26_974e6
        # Known on the day it was filed.
        day = await call(client, "explore_company", company_id="NVDA", as_of="2025-02-26")
        assert day["latest_filings"][0]["filing_id"] == NVDA_10K_FY2025
        # Nothing filed yet: no filings, no figures.
        empty = await call(client, "explore_company", company_id="NVDA", as_of="2020-01-01")
        assert empty["latest_filings"] == [] and empty["key_metrics"] == []
        # A period: the FY2023 10-K, and FY2023's figures (the current ones, restatements in
        # later filings applied).
        fy23 = await call(client, "explore_company", company_id="NVDA", period="FY2023")
        assert [f["filing_id"] for f in fy23["latest_filings"]] == [NVDA_10K_FY2023]
        assert {m["latest_annual"]["fiscal_label"] for m in fy23["key_metrics"]} == {"FY2023"}
        # NVIDIA's fiscal 2025 is calendar 2024 (more than half of it): the FY2025 10-K.
        cal24 = await call(client, "explore_company", company_id="NVDA", period="2024")
        assert [f["filing_id"] for f in cal24["latest_filings"]] == [NVDA_10K_FY2025]

        # Tesla: the 10-K (filed 2025-01-30), then the Q2 10-Q (filed 2025-07-24).
        tesla = await call(client, "explore_company", company_id="TSLA", as_of="2025-03-01")
        assert [f["filing_id"] for f in tesla["latest_filings"]] == [TSLA_10K]
        assert all(
            v["citation"]["filed_date"] <= "2025-03-01"
            for m in tesla["key_metrics"]
            for v in (m["latest_annual"], m["latest_quarter"])
            if v is not None
        )
        q2 = await call(client, "explore_company", company_id="TSLA", period="Q2 FY2025")
        assert [f["filing_id"] for f in q2["latest_filings"]] == [TSLA_10Q]
        quarter = [m["latest_quarter"] for m in q2["key_metrics"] if m["latest_quarter"]]
        assert quarter and {v["fiscal_label"] for v in quarter} == {"Q2-FY2025"}
        assert all(m["latest_annual"] is None for m in q2["key_metrics"])

        # Apple: its 10-K (filed 2024-11-01), its Q2 FY2025 10-Q (filed 2025-05-02).
        apple = await call(client, "explore_company", company_id="AAPL", as_of="2025-01-31")
        assert [f["filing_id"] for f in apple["latest_filings"]] == [AAPL_10K]
        assert all(
            m["latest_quarter"] is None or m["latest_quarter"]["citation"]["filing_id"] == AAPL_10K
            for m in apple["key_metrics"]
        )
        later = await call(client, "explore_company", company_id="AAPL", as_of="2025-05-02")
        assert later["latest_filings"][0]["filing_id"] == AAPL_10Q_Q2


@pytest.fixture(scope="module")
def derived_snapshot(corpus_dir: Path, tmp_path_factory) -> Path:
    """Apple's Q3 FY2024 10-Q (filed 2024-08-02) and its FY2024 10-K (filed 2024-11-01): its
    Q4 is derived as FY − 9M from the two."""
    data_root = tmp_path_factory.mktemp("graph-time-derived")
    run_stages(corpus_dir, data_root, (AAPL_10Q_Q3_FY2024, AAPL_10K))
    publish(corpus_dir, data_root)
    return data_root


@pytest.mark.corpus
async def test_a_value_derived_as_of_a_date_cites_its_operands(derived_snapshot):
    """As of a date, a derived key metric (Q4 = FY − 9M) cites both operands, each filed by
    then, as the current value does; before the 10-K it is not there to derive."""
    async with session(derived_snapshot) as client:
        for as_of in (None, "2025-01-31"):
            out = await call(
                client, "explore_company", company_id="AAPL", **({"as_of": as_of} if as_of else {})
            )
            revenue = next(m for m in out["key_metrics"] if m["metric"] == "revenue")
            q4 = revenue["latest_quarter"]
            assert q4["fiscal_label"] == "Q4-FY2024" and q4["derived"], as_of
            assert [o["fiscal_label"] for o in q4["derived_from"]] == ["FY2024", "9M-FY2024"]
            assert [o["citation"]["filing_id"] for o in q4["derived_from"]] == [
                AAPL_10K,
                AAPL_10Q_Q3_FY2024,
            ]
            assert q4["value"] == pytest.approx(
                q4["derived_from"][0]["value"] - q4["derived_from"][1]["value"]
            )
        before = await call(client, "explore_company", company_id="AAPL", as_of="2024-10-01")
        revenue = next(m for m in before["key_metrics"] if m["metric"] == "revenue")
        assert revenue["latest_quarter"]["fiscal_label"] == "Q3-FY2024"
        assert not revenue["latest_quarter"]["derived"]


@pytest.mark.corpus
async def test_local_search_communities_and_metrics_follow_the_date(time_snapshot):
    async with session(time_snapshot) as client:
        ask = {"query": "NVIDIA competitors", "k": 0}
        now = await call(client, "local_search", **ask)
        cited = {c["filing_id"] for x in now["communities"] for c in x["citations"]}
        assert NVDA_10K_FY2025 in cited
        assert any("Huawei" in f for x in now["communities"] for f in x["findings"])
        nvidia = next(m for m in now["metrics"] if m["company"]["entity_id"] == "CIK-0001045810")
        annual = {m["latest_annual"]["fiscal_label"] for m in nvidia["key_metrics"]}
        assert annual == {"FY2025"}
        before = await call(client, "local_search", **ask, as_of="2024-12-31")
        # No community finding cites a filing filed after the date, and no finding names a
        # partner cited only there (Huawei: first named in the FY2025 10-K); the partners the
        # report cites from the FY2025 10-K are cited again from the FY2023 10-K that named them.
        assert before["communities"]
        assert {c["filing_id"] for x in before["communities"] for c in x["citations"]} == {
            NVDA_10K_FY2023
        }
        assert any(
            "ADVANCED MICRO DEVICES" in f for x in before["communities"] for f in x["findings"]
        )
        for community in before["communities"]:
            assert all(c["filing_id"] != NVDA_10K_FY2025 for c in community["citations"])
            assert all("Huawei" not in f for f in community["findings"])
            assert community["report"]["summary"] == " ".join(community["findings"])
        nvidia = next(m for m in before["metrics"] if m["company"]["entity_id"] == "CIK-0001045810")
        assert {m["latest_annual"]["fiscal_label"] for m in nvidia["key_metrics"]} == {"FY2023"}
        assert all(
            m["latest_annual"]["citation"]["filing_id"] == NVDA_10K_FY2023
            for m in nvidia["key_metrics"]
        )
        fy25 = await call(client, "local_search", **ask, period="FY2025")
        for community in fy25["communities"]:
            assert {c["filing_id"] for c in community["citations"]} <= {NVDA_10K_FY2025}
        fy23 = await call(client, "local_search", **ask, period="FY2023")
        nvidia = next(m for m in fy23["metrics"] if m["company"]["entity_id"] == "CIK-0001045810")
        assert {m["latest_annual"]["fiscal_label"] for m in nvidia["key_metrics"]} == {"FY2023"}
        nothing = await call(client, "local_search", **ask, as_of="2020-01-01")
        assert nothing["communities"] == [] and nothing["metrics"] == []


@pytest.mark.corpus
async def test_hostile_time_arguments_on_filings_metrics_and_communities(time_snapshot):
    async with session(time_snapshot) as client:
        for tool, base in (
            ("explore_company", {"company_id": "NVDA"}),
            ("local_search", {"query": "NVIDIA competitors", "k": 0}),
        ):
            for args, message in (
                ({"as_of": "NaN"}, "ISO date"),
                ({"as_of": "-inf"}, "ISO date"),
                ({"as_of": "0000-00-00"}, "date"),
                ({"as_of": "2024-12-31'; DROP TABLE filings; --"}, "10"),
                ({"period": "FY2023; DROP TABLE metric_values"}, "not a period"),
                ({"period": "../../../etc/passwd"}, "not a period"),
                ({"period": "inf"}, "not a period"),
                ({"period": ""}, None),
            ):
                if message is None:
                    out = await call(client, tool, **base, **args)
                    assert out["time_filter"] is None
                    continue
                assert message in await error(client, tool, **base, **args), (tool, args)
            # Odd but valid: far future and far past; a calendar range of one day.
            assert "outside" in await error(client, tool, **base, as_of="2999-12-31")
            future = await call(client, tool, **base, as_of="2099-12-31")
            assert future["time_filter"]["as_of"] == "2099-12-31"
            day = await call(client, tool, **base, period="2024-01-01..2024-01-01")
            assert day["time_filter"]["period_kind"] == "calendar"
