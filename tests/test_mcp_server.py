"""The MCP server through a real client session (the SDK's in-memory transport) over a
snapshot of the sample tables: tool list and schemas, every tool's answers, errors a model can
act on, read-only, and hot reload."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import pytest
from mcp import Client

from graphrag_core.settings import CommunitySettings, RetrievalSettings
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.reader import SnapshotReader
from mcp_server import build_server
from mcp_server.formatting import display_value
from tests import snapshot_sample as sample
from tests.mcp_client import call, error, session

TOOLS = {
    "find_company",
    "get_metrics",
    "screen_companies",
    "get_chunk",
    "explore_company",
    "status",
    "neighbors",
    "graph_path",
    "get_ontology",
    "search_chunks",
    "compare_companies",
    "check_citations",
    "community_themes",
}
TOOLS |= {"search_facts", "get_financials"}  # issue 23, items 2 and 1
TOOLS |= {"what_changed", "changes_across"}  # issue 25, item 1
TOOLS |= {"local_search", "shared_neighbors"}  # issue 24, item 3


@pytest.fixture
def published(data_root: Path) -> tuple[Path, str]:
    return data_root, SnapshotStore(data_root).publish(sample.sample_tables()).version


# -- the tool list --------------------------------------------------------------------------
async def test_tool_list_schemas_and_annotations(published):
    async with session(published[0]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            a = tool.annotations
            assert (a.read_only_hint, a.idempotent_hint, a.destructive_hint) == (
                True,
                True,
                False,
            ), tool.name
            assert a.title == tool.title, tool.name
            assert len(tool.description) > 200, tool.name  # a prompt, not a label
            assert {"snapshot", "as_of"} <= set(tool.output_schema["required"]), tool.name

        metrics = tools["get_metrics"].input_schema["properties"]
        assert (metrics["periods"]["minimum"], metrics["periods"]["maximum"]) == (1, 40)
        assert metrics["period_type"]["enum"] == ["annual", "quarter", "half_year", "nine_months"]
        assert tools["get_metrics"].input_schema["required"] == ["company_id"]
        assert tools["find_company"].input_schema["properties"]["query"]["maxLength"] == 200
        assert tools["get_chunk"].input_schema["properties"]["max_chars"]["maximum"] == 20_000
        screen = tools["screen_companies"].input_schema["properties"]
        # No limit: 25 companies, or the best few of a window screen (its hits are long).
        assert screen["limit"]["default"] is None
        assert screen["limit"]["anyOf"][0]["maximum"] == 100
        assert "percent" in screen["min_revenue_growth"]["description"]
        assert tools["status"].input_schema.get("properties", {}) == {}
        hops = tools["neighbors"].input_schema["properties"]["hops"]
        assert (hops["minimum"], hops["maximum"]) == (1, 2)
        assert tools["graph_path"].input_schema["required"] == ["from_id", "to_id"]


# Tools that may send text to a model endpoint outside the server, and which setting lets them.
MAY_CALL_A_MODEL = {
    "community_themes": "an answer model (GRAPHRAG_COMMUNITY_BASE_URL and _MODEL), or an "
    "embeddings endpoint: it embeds the question to match the filing themes",
    "search_chunks": "an embeddings endpoint (embed_backend=openai)",
    "local_search": "an embeddings endpoint, through search_chunks",
    "what_changed": "an embeddings endpoint (embed_backend=openai)",
    "changes_across": "an embeddings endpoint: it embeds the topic and the factors",
}


async def _annotations(published, retrieval, communities) -> dict[str, tuple]:
    reader = SnapshotReader(published[0])
    try:
        async with Client(build_server(reader, retrieval, communities)) as client:
            return {
                t.name: (
                    t.annotations.read_only_hint,
                    t.annotations.destructive_hint,
                    t.annotations.idempotent_hint,
                    t.annotations.open_world_hint,
                )
                for t in (await client.list_tools()).tools
            }
    finally:
        reader.close()


async def test_each_tools_annotations_tell_the_truth(published):
    """Every tool is read-only, idempotent and never destructive; a tool is open-world exactly
    when this server's configuration lets it call a model outside it: none with the packaged
    embedder and no answer model, those of MAY_CALL_A_MODEL with both endpoints set."""
    closed = await _annotations(published, RetrievalSettings(embed_backend="local"), None)
    assert closed == {name: (True, False, True, False) for name in TOOLS}
    endpoints = await _annotations(
        published,
        RetrievalSettings(
            embed_backend="openai", embed_base_url="http://127.0.0.1:9/v1", embed_model="e"
        ),
        CommunitySettings(base_url="http://127.0.0.1:9/v1", model="m"),
    )
    assert endpoints == {name: (True, False, True, name in MAY_CALL_A_MODEL) for name in TOOLS}
    # An answer model configured but switched off (reduce=deterministic) is never called.
    deterministic = await _annotations(
        published,
        RetrievalSettings(embed_backend="local"),
        CommunitySettings(base_url="http://127.0.0.1:9/v1", model="m", reduce="deterministic"),
    )
    assert deterministic["community_themes"][3] is False
    # No answer model, but the question is embedded by an endpoint (the filing themes' match).
    embeds_only = await _annotations(
        published,
        RetrievalSettings(
            embed_backend="openai", embed_base_url="http://127.0.0.1:9/v1", embed_model="e"
        ),
        None,
    )
    assert embeds_only["community_themes"][3] is True


async def test_graph_tools_on_the_sample(published):
    """The sample's one text edge: NVIDIA exposed to technological change, cited; bad arguments
    are refused by the schema before any SQL runs."""
    async with session(published[0]) as client:
        out = await call(client, "neighbors", entity_id="NVDA")
        [edge] = out["edges"]
        assert (edge["subject"]["entity_id"], edge["relation"], edge["object"]["entity_id"]) == (
            "CIK-0001045810",
            "EXPOSED_TO_RISK",
            "RISK:technology-change",
        )
        assert edge["citations"][0]["quote"] == sample.RISK_QUOTE
        assert edge["citations"][0]["object_text"] == "rapid changes in technology"
        # how the quote's relation was extracted: a rule family, so no confidence
        assert (edge["citations"][0]["method"], edge["citations"][0]["confidence"]) == (
            "rule:risks",
            None,
        )
        back = await call(client, "neighbors", entity_id="RISK:technology-change", direction="in")
        assert [e["subject"]["name"] for e in back["edges"]] == ["NVIDIA CORPORATION"]
        metrics = await call(
            client, "neighbors", entity_id="NVDA", relation="REPORTS_METRIC", period="FY2025"
        )
        assert metrics["edges"] and all(
            e["period"] == "FY2025" or "FY2025" in e["seen_periods"] for e in metrics["edges"]
        )
        onto = await call(client, "get_ontology")
        assert {r["relation"]: r["edges"] for r in onto["relations"]}["EXPOSED_TO_RISK"] == 1
        assert (await client.call_tool("neighbors", {"entity_id": "NVDA", "hops": 3})).is_error
        assert (
            await client.call_tool("neighbors", {"entity_id": "NVDA", "period": "2025; DROP"})
        ).is_error
        none = await call(client, "graph_path", from_id="NVDA", to_id="GOOGL")
        assert (none["hops"], none["paths"]) == (None, [])


# -- find_company ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "company_id", "matched_on"),
    [
        ("nvidia", "CIK-0001045810", "name 'NVIDIA CORPORATION'"),
        ("NVDA", "CIK-0001045810", "ticker 'NVDA'"),
        ("1045810", "CIK-0001045810", "cik '0001045810'"),
        ("CIK-0001045810", "CIK-0001045810", "cik '0001045810'"),
        ("nvidia corp/ca", "CIK-0001045810", "name 'NVIDIA CORPORATION'"),
        ("Alphabet", "CIK-0001652044", "name 'Alphabet Inc.'"),
        ("GOOGL", "CIK-0001652044", "ticker 'GOOGL'"),
        ("goog", "CIK-0001652044", "ticker 'GOOG'"),
        ("Google", "CIK-0001652044", "segment 'Google Services'"),
        ("youtube", "CIK-0001652044", "segment 'You Tube Ads'"),
        ("iPhone", "CIK-0000320193", "segment 'IPhone'"),
    ],
)
async def test_find_company(published, query, company_id, matched_on):
    async with session(published[0]) as client:
        out = await call(client, "find_company", query=query)
        assert out["matches"][0]["company_id"] == company_id
        assert out["matches"][0]["matched_on"] == matched_on


async def test_find_company_returns_identity(published):
    async with session(published[0]) as client:
        out = await call(client, "find_company", query="NVDA")
        assert out["matches"] == [
            {
                "company_id": "CIK-0001045810",
                "name": "NVIDIA CORPORATION",
                "entity_type": "company",
                "tickers": ["NVDA"],
                "cik": "0001045810",
                "fiscal_year_end": "01-25",
                "sic": "3674",
                "sic_description": "Semiconductors & Related Devices",
                "matched_on": "ticker 'NVDA'",
                "score": 1.0,
            }
        ]
        assert out["truncated"] is False


async def test_find_company_misses_are_actionable(published):
    async with session(published[0]) as client:
        text = await error(client, "find_company", query="Alphabett")
        assert "no company matches 'Alphabett'" in text
        assert "did you mean Alphabet Inc. (CIK-0001652044)?" in text

        text = await error(client, "find_company", query="Microsoft")
        assert "MICROSOFT CORP (MSFT, CIK-0000789019)" in text and "no filings" in text

        text = await error(client, "find_company", query="Zyxwvut Holdings")
        assert "try another spelling" in text


async def test_find_company_treats_sql_as_text(published):
    async with session(published[0]) as client:
        text = await error(client, "find_company", query="x'; DROP TABLE companies; --")
        assert "no company matches" in text
        assert (await call(client, "status"))["companies"] == 4


# -- get_metrics ----------------------------------------------------------------------------
async def test_get_metrics_nvidia_revenue(published):
    async with session(published[0]) as client:
        out = await call(
            client, "get_metrics", company_id="CIK-0001045810", metrics=["revenue"], periods=2
        )
        assert (out["company_id"], out["name"], out["period_type"]) == (
            "CIK-0001045810",
            "NVIDIA CORPORATION",
            "annual",
        )
        [series] = out["series"]
        assert series["metric"] == "revenue" and series["more_periods_available"] is True
        fy25, fy24 = series["values"]
        assert fy25 == {
            "fiscal_label": "FY2025",
            "fiscal_year": 2025,
            "fiscal_period": "FY",
            "period_type": "duration",
            "calendar_start": "2024-01-29",
            "calendar_end": "2025-01-26",
            "value": 130_497_000_000.0,
            "unit": "USD",
            "display": "130,497 million USD",
            "yoy_change_pct": 114.2,
            "prior_fiscal_label": "FY2024",
            "prior_value": 60_922_000_000.0,
            "citation": {
                "filing_id": sample.NVDA_10K,
                "form": "10-K",
                "filed_date": "2025-02-26",
                "section": "10-K/Item 8",
                "chunk_id": sample.NVDA_IS["chunk_id"],
                "fact_id": fy25["citation"]["fact_id"],
                "concept": "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
                # The session's first evidence: the first citation of the first answer.
                "evidence": 1,
            },
            "restated": False,
            "superseded": [],
            "source_kind": "xbrl",
            "derived": False,
            "derivation": None,
            "derived_from": [],
            "mapping_rule": None,
            # Currency values are never re-based: the filing's figure, no split basis.
            "as_filed_value": 130_497_000_000.0,
            "split_basis": None,
        }
        assert (fy24["fiscal_label"], fy24["value"], fy24["yoy_change_pct"]) == (
            "FY2024",
            60_922e6,
            125.85,
        )


async def test_get_metrics_quarters_and_defaults(published):
    async with session(published[0]) as client:
        out = await call(client, "get_metrics", company_id="NVDA", period_type="quarter")
        assert [s["metric"] for s in out["series"]] == ["revenue", "operating_income"]
        assert out["missing"] == ["gross_profit", "net_income"]
        q = out["series"][0]["values"][0]
        assert (q["fiscal_label"], q["display"], q["yoy_change_pct"]) == (
            "Q2-FY2026",
            "46,743 million USD",
            55.6,
        )
        assert q["citation"]["section"] == "10-Q/Part I/Item 1"


async def test_get_metrics_shows_restatements(published):
    async with session(published[0]) as client:
        out = await call(
            client, "get_metrics", company_id="CIK-0009999901", metrics=["revenue"], periods=40
        )
        fy24, fy23 = out["series"][0]["values"]
        assert (fy24["value"], fy24["yoy_change_pct"], fy24["restated"]) == (1_200e6, 26.32, False)
        assert (fy23["value"], fy23["restated"]) == (950e6, True)
        assert fy23["citation"]["filing_id"] == sample.RSTD_10K_24
        assert [
            (s["value"], s["display"], s["citation"]["filing_id"]) for s in fy23["superseded"]
        ] == [(1_000e6, "1,000 million USD", sample.RSTD_10K_23)]


async def test_get_metrics_errors(published):
    async with session(published[0]) as client:
        text = await error(client, "get_metrics", company_id="CIK-0001045810", metrics=["revnue"])
        assert "unknown metric id(s) revnue" in text and "revenue" in text
        text = await error(
            client, "get_metrics", company_id="CIK-0001652044", period_type="quarter"
        )
        assert "has no quarter values" in text and "revenue (annual)" in text
        text = await error(client, "get_metrics", company_id="Alphabett")
        assert "did you mean Alphabet Inc. (CIK-0001652044)?" in text and "find_company" in text
        text = await error(client, "get_metrics", company_id="CIK-0001045810", periods=0)
        assert "periods" in text and "greater than or equal to 1" in text
        text = await error(client, "get_metrics", company_id="CIK-0001045810", periods=41)
        assert "less than or equal to 40" in text
        text = await error(
            client, "get_metrics", company_id="CIK-0001045810", period_type="monthly"
        )
        assert "period_type" in text


# -- screen_companies -----------------------------------------------------------------------
async def test_screen_on_growth(published):
    async with session(published[0]) as client:
        out = await call(client, "screen_companies", min_revenue_growth=10)
        assert out["matched"] == 3 and out["truncated"] is False
        assert [(h["name"], h["revenue_growth_pct"]) for h in out["hits"]] == [
            ("NVIDIA CORPORATION", 114.2),
            ("Restated Widgets Inc.", 26.32),
            ("Alphabet Inc.", 13.87),
        ]
        nvda = out["hits"][0]
        assert (nvda["fiscal_label"], nvda["prior_fiscal_label"]) == ("FY2025", "FY2024")
        assert nvda["revenue"]["display"] == "130,497 million USD"
        assert nvda["revenue"]["citation"]["chunk_id"] == sample.NVDA_IS["chunk_id"]
        assert nvda["prior_revenue"]["value"] == 60_922e6
        assert (nvda["margin_pct"], nvda["prior_margin_pct"], nvda["margin_trend_pp"]) == (
            62.42,
            54.12,
            8.3,
        )
        assert [f["value"] for f in nvda["margin_figures"]] == [81_453e6, 32_972e6]
        assert nvda["debt_to_equity"] == round(8_463 / 79_327, 4)
        assert nvda["total_debt"]["citation"]["chunk_id"] == sample.NVDA_BS["chunk_id"]


async def test_screen_combines_criteria_and_ranks(published):
    async with session(published[0]) as client:
        out = await call(client, "screen_companies", min_revenue_growth=10, max_debt_to_equity=1)
        assert [h["name"] for h in out["hits"]] == ["NVIDIA CORPORATION", "Alphabet Inc."]

        out = await call(client, "screen_companies", min_margin_trend=0, margin="operating")
        assert [(h["name"], h["margin_trend_pp"]) for h in out["hits"]] == [
            ("NVIDIA CORPORATION", 8.3),
            ("Alphabet Inc.", 4.69),
            ("Apple Inc.", 1.69),
        ]  # ranked by revenue growth: 114.2, 13.87, 2.02

        out = await call(client, "screen_companies", min_revenue=300e9, sort_by="revenue", limit=1)
        assert (out["matched"], out["truncated"], out["hits"][0]["name"]) == (2, True, "Apple Inc.")

        out = await call(client, "screen_companies", sort_by="debt_to_equity")
        assert [h["name"] for h in out["hits"]][:2] == ["Alphabet Inc.", "NVIDIA CORPORATION"]

        out = await call(client, "screen_companies", period_type="quarter", min_revenue_growth=50)
        assert [(h["fiscal_label"], h["revenue_growth_pct"]) for h in out["hits"]] == [
            ("Q2-FY2026", 55.6)
        ]
        assert out["criteria"]["period_type"] == "quarter"


async def test_screen_nothing_passes(published):
    async with session(published[0]) as client:
        out = await call(client, "screen_companies", min_revenue_growth=500)
        assert (out["matched"], out["hits"], out["truncated"]) == (0, [], False)


# -- get_chunk ------------------------------------------------------------------------------
async def test_get_chunk_of_a_citation(published):
    async with session(published[0]) as client:
        metrics = await call(
            client, "get_metrics", company_id="NVDA", metrics=["revenue"], periods=1
        )
        cite = metrics["series"][0]["values"][0]["citation"]
        out = await call(client, "get_chunk", chunk_id=cite["chunk_id"])
        assert "| Revenue | $ 130,497 |" in out["text"]
        assert out["text"] == sample.NVDA_IS["text"]
        assert (out["filing_id"], out["form"], out["section"], out["kind"]) == (
            sample.NVDA_10K,
            "10-K",
            "10-K/Item 8",
            "table",
        )
        assert (out["char_start"], out["char_end"]) == (
            sample.NVDA_IS["char_start"],
            sample.NVDA_IS["char_end"],
        )
        assert out["scale_header"] == "in millions, except per share data"
        assert (out["company_id"], out["truncated"]) == ("CIK-0001045810", False)


async def test_get_chunk_pages_long_text(published):
    async with session(published[0]) as client:
        chunk_id = sample.NVDA_IS["chunk_id"]
        first = await call(client, "get_chunk", chunk_id=chunk_id, max_chars=100)
        assert (len(first["text"]), first["truncated"]) == (100, True)
        rest = await call(client, "get_chunk", chunk_id=chunk_id, offset=100, max_chars=20_000)
        assert first["text"] + rest["text"] == sample.NVDA_IS["text"] and rest["truncated"] is False
        text = await error(client, "get_chunk", chunk_id=chunk_id, offset=10_000)
        assert "past the end" in text


async def test_get_chunk_errors(published):
    async with session(published[0]) as client:
        text = await error(client, "get_chunk", chunk_id="0001045810-25-000023:ffffffffffffffff")
        assert "no chunk" in text and "citations" in text
        text = await error(client, "get_chunk", chunk_id="x'; DELETE FROM chunks; --")
        assert "chunk_id" in text and "pattern" in text


# -- explore_company and status -------------------------------------------------------------
async def test_explore_company(published):
    async with session(published[0]) as client:
        out = await call(client, "explore_company", company_id="NVDA")
        assert out["company"]["name"] == "NVIDIA CORPORATION"
        assert out["company"]["former_names"] == ["NVIDIA CORP/CA"]
        assert [f["filing_id"] for f in out["latest_filings"]] == [sample.NVDA_10Q, sample.NVDA_10K]
        assert out["latest_filings"][1]["sections"] == [
            {"section": "10-K/Item 1A", "chunks": 1, "kinds": ["prose"]},
            {"section": "10-K/Item 8", "chunks": 2, "kinds": ["table"]},
        ]
        key = {k["metric"]: k for k in out["key_metrics"]}
        assert key["revenue"]["latest_annual"]["display"] == "130,497 million USD"
        assert key["revenue"]["latest_quarter"]["fiscal_label"] == "Q2-FY2026"
        assert key["total_debt"]["latest_annual"]["fiscal_label"] == "FY2025"
        assert out["metrics_available"] == [
            "gross_profit",
            "net_income",
            "operating_income",
            "revenue",
            "stockholders_equity",
            "total_debt",
        ]
        assert out["filings_truncated"] is False


async def test_status(published):
    async with session(published[0]) as client:
        out = await call(client, "status")
        assert (out["snapshot"], out["as_of"]) == (published[1], "2025-08-27")
        assert (out["companies"], out["filings"], out["forms"]) == (4, 6, {"10-K": 5, "10-Q": 1})
        tables = {t["name"]: t for t in out["tables"]}
        assert tables["metric_values"]["rows"] == 44 and tables["chunks"]["holds"]
        revenue = next(m for m in out["metrics"] if m["metric"] == "revenue")
        assert (revenue["companies"], revenue["units"], revenue["last_period_end"]) == (
            4,
            ["USD"],
            "2025-07-27",
        )


async def _call_every_tool(client: Client, version: str) -> None:
    calls = [
        ("find_company", {"query": "nvidia"}),
        ("get_metrics", {"company_id": "NVDA"}),
        ("screen_companies", {}),
        ("get_chunk", {"chunk_id": sample.GOOGL_BIZ["chunk_id"]}),
        ("explore_company", {"company_id": "GOOGL"}),
        ("status", {}),
        ("neighbors", {"entity_id": "NVDA", "hops": 2}),
        ("graph_path", {"from_id": "NVDA", "to_id": "RISK:technology-change"}),
        ("get_ontology", {}),
        ("compare_companies", {"company_ids": ["NVDA", "GOOGL"], "period": "2024"}),
        ("check_citations", {"answer": "Revenue was reported [1]."}),
        ("community_themes", {}),
        (
            "what_changed",
            {"company_id": "NVDA", "from_filing": sample.NVDA_10K, "to_filing": sample.NVDA_10Q},
        ),
        ("changes_across", {"topic": "export controls"}),
        ("local_search", {"query": "NVIDIA's risks"}),  # no chunk index: its notes say so
        ("shared_neighbors", {"entity_ids": ["NVDA", "GOOGL"]}),
    ]
    # The sample snapshot is published without a chunk index: search says so (see
    # test_retrieval_mcp for searches over a real index).
    assert {name for name, _ in calls} | {
        "search_chunks",
        "search_facts",
        "get_financials",
    } == TOOLS
    for name, args in calls:
        out = await call(client, name, **args)
        assert (out["snapshot"], out["as_of"]) == (version, "2025-08-27"), name
    assert "without a chunk index" in await error(client, "search_chunks", query="export controls")
    # The sample is published without XBRL facts (test_fact_search covers a snapshot with them).
    assert "holds no XBRL facts" in await error(
        client, "search_facts", company_id="NVDA", query="revenue"
    )
    # ... and without statement lines (see test_financials for statements of real filings).
    assert "has no income statement" in await error(
        client, "get_financials", company_id="NVDA", statement="income"
    )


async def test_every_answer_is_stamped(published):
    async with session(published[0]) as client:
        await _call_every_tool(client, published[1])


# -- bad arguments, read-only, hot reload ---------------------------------------------------
async def test_huge_argument_is_refused(published):
    async with session(published[0]) as client:
        text = await error(client, "find_company", query="A" * 10_000_000)
        assert "at most 200 characters" in text


async def test_session_leaves_the_snapshot_file_byte_identical(published):
    data_root, version = published
    path = SnapshotStore(data_root).database_path(version)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    reader = SnapshotReader(data_root)
    async with Client(build_server(reader)) as c:
        await _call_every_tool(c, version)
        await error(c, "find_company", query="'); DROP TABLE companies; --")
    reader.close()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


async def test_hot_reload_within_a_session(data_root):
    store = SnapshotStore(data_root)
    old = store.publish(sample.sample_tables(without=(sample.NVDA_10Q,))).version
    reader = SnapshotReader(data_root)
    async with Client(build_server(reader)) as c:
        before = await call(c, "status")
        assert (before["snapshot"], before["as_of"], before["filings"]) == (old, "2025-03-03", 5)
        await error(c, "get_metrics", company_id="NVDA", period_type="quarter")

        new = store.publish(sample.sample_tables()).version
        after = await call(c, "status")
        assert (after["snapshot"], after["as_of"], after["filings"]) == (new, "2025-08-27", 6)
        out = await call(c, "get_metrics", company_id="NVDA", period_type="quarter")
        assert (
            out["snapshot"] == new and out["series"][0]["values"][0]["fiscal_label"] == "Q2-FY2026"
        )
    reader.close()


async def test_no_snapshot_yet_is_a_tool_error(data_root):
    reader = SnapshotReader(data_root)
    async with Client(build_server(reader)) as c:
        text = await error(c, "status")
        assert "no snapshot has been published" in text
        SnapshotStore(data_root).publish(sample.sample_tables())
        assert (await call(c, "status"))["filings"] == 6
    reader.close()


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (130_497e6, "USD", "130,497 million USD"),
        (-1_234.5e6, "USD", "-1,234.5 million USD"),
        (950_000.0, "USD", "950,000 USD"),
        (2.94, "USD/shares", "2.94 USD/shares"),
        (24_490e6, "shares", "24,490 million shares"),
    ],
)
def test_display_value(value, unit, text):
    assert display_value(value, unit) == text


def test_dates_in_answers_are_iso():
    # Guard on the fixture itself: as_of is the newest filing date of the sample.
    assert max(f["filed_date"] for f in sample.FILING_ROWS) == dt.date(2025, 8, 27)


def test_server_imports_only_the_snapshot_reader():
    """mcp_server reaches graphrag_core through the snapshot reader, its settings, retrieval and
    the project's error classes (a refused token is a ConfigurationError) alone, and loads
    neither Polars nor Dagster nor the OpenAI SDK (checked in a fresh interpreter)."""
    import ast
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    imported = set()
    for path in (root / "mcp_server").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    assert {m for m in imported if m.startswith("graphrag_core")} == {
        "graphrag_core.store.reader",
        "graphrag_core.settings",
        "graphrag_core.retrieval.search",
        "graphrag_core.retrieval.citations",
        "graphrag_core.retrieval.claims",
        "graphrag_core.common.errors",
        "graphrag_core.retrieval.changes",  # what_changed's comparison (issue 25)
        "graphrag_core.retrieval.passages",  # search hits' sentence-complete passages (issue 24)
        "graphrag_core.retrieval.themes_answer",  # community_themes' written answer (issue 26)
        "graphrag_core.retrieval.global_search",  # community_themes (issue 26)
        "graphrag_core.retrieval.paths",  # graph_path's shortest-path search (issue 26)
    }
    # The OpenAI SDK too is loaded only by a server that calls a model.
    probe = (
        "import sys, mcp_server; "
        "print(*(m in sys.modules for m in ('polars', 'dagster', 'openai')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False", "False"]
