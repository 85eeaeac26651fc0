"""The analyst tools through a real MCP client session: the sample snapshot published with its
chunk index (the real packaged model), search with filters and graph expansion, evidence
numbers that stay stable in a session and resolve in check_citations, peers on the calendar,
the screen by sector with its units, and the answer cap."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from mcp import Client

from graphrag_core.retrieval.chunk_index import update_index
from graphrag_core.retrieval.search import shared_embedder
from graphrag_core.settings import RetrievalSettings
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.reader import SnapshotReader
from mcp_server import build_server
from mcp_server.evidence import MAX_ANSWER_CHARS, cap_answer
from mcp_server.models import Citation
from mcp_server.search_models import SearchChunksResult, SearchHit
from tests import snapshot_sample as sample
from tests.mcp_client import call, error, session

pytestmark = pytest.mark.real_embeddings

NVDA = "CIK-0001045810"
GOOGL = "CIK-0001652044"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("indexed")
    tables = sample.sample_tables()
    settings = RetrievalSettings()
    update = update_index(root, tables.chunks, tables.filings, shared_embedder(settings), settings)
    manifest = SnapshotStore(root).publish(replace(tables, chunk_index=update.ref))
    return root, manifest.version


async def test_search_chunks_with_citations_filters_and_expansion(indexed):
    root, version = indexed
    async with session(root) as client:
        out = await call(
            client, "search_chunks", query="what risks does NVIDIA see from fast technology change?"
        )
        assert out["snapshot"] == version and out["index_version"] >= 1
        top = out["hits"][0]
        assert top["chunk_id"] == sample.NVDA_RISK["chunk_id"]
        assert top["section_title"] == "Risk Factors" and top["company_id"] == NVDA
        assert top["citation"]["chunk_id"] == top["chunk_id"] and top["citation"]["evidence"] == 1
        assert "rapid changes in technology" in top["passage"]
        assert out["companies_named"] == [NVDA] and out["edges"] == []
        # The same evidence keeps its number; new evidence gets the next ones.
        again = await call(client, "search_chunks", query="NVIDIA technology risks", k=3)
        assert again["hits"][0]["citation"]["evidence"] == 1
        metrics = await call(
            client, "get_metrics", company_id="NVDA", metrics=["revenue"], periods=1
        )
        assert metrics["series"][0]["values"][0]["citation"]["evidence"] > 1

        googl = await call(
            client, "search_chunks", query="revenue", company_id="GOOGL", form="10-K"
        )
        assert googl["hits"] and {h["company_id"] for h in googl["hits"]} == {GOOGL}
        assert {h["form"] for h in googl["hits"]} == {"10-K"}
        fy = await call(
            client, "search_chunks", query="revenue", company_id=NVDA, period="Q2-FY2026"
        )
        assert {h["fiscal_label"] for h in fy["hits"]} == {"Q2-FY2026"}

        expanded = await call(
            client, "search_chunks", query="NVIDIA technology risks", k=2, expand_hops=1
        )
        [edge] = expanded["edges"]  # the resolved graph's edge, shaped as neighbors shows it
        assert edge["relation"] == "EXPOSED_TO_RISK" and edge["subject"]["entity_id"] == NVDA
        assert edge["citations"][0]["quote"] == sample.RISK_QUOTE
        assert edge["citations"][0]["object_text"] == "rapid changes in technology"
        assert edge["citations"][0]["evidence"] >= 1  # graph citations get session numbers too

        assert "expected FY2024" in await error(
            client, "search_chunks", query="x risk", period="lately"
        )
        assert "no company" in await error(client, "search_chunks", query="risk", company_id="NOPE")


async def test_check_citations_resolves_session_numbers(indexed):
    root, _ = indexed
    async with session(root) as client:
        metrics = await call(
            client, "get_metrics", company_id="NVDA", metrics=["revenue"], periods=1
        )
        fy25 = metrics["series"][0]["values"][0]
        n = fy25["citation"]["evidence"]
        good = (
            f"NVIDIA's revenue was $130.5 billion in FY2025 [{n}]. "
            f"It rose {fy25['yoy_change_pct']}% [{n}]. This is not investment advice."
        )
        report = await call(client, "check_citations", answer=good)
        assert report["ok"] is True, report
        assert report["sentences"] == 3 and report["cited_sentences"] == 2

        bad = (
            f"NVIDIA's revenue was $131.9 billion [{n}]. Its margin was 75%. "
            f"Alphabet grew too [{n + 50}]. The risk chunk says so "
            f"[{sample.NVDA_RISK['chunk_id']}]."
        )
        report = await call(client, "check_citations", answer=bad)
        assert report["ok"] is False
        assert [u["figure"] for u in report["unsupported"]] == ["$131.9 billion"]
        assert [u["figures"] for u in report["uncited"]] == [["75%"]]
        assert [u["citation"] for u in report["unresolved"]] == [str(n + 50)]


async def test_handshake_sessions_number_evidence_on_their_own(indexed):
    """Over a handshake transport (stdio, stateful HTTP) each client session has its own
    numbers, starting at 1; the stateless protocol shares the server's (test above)."""
    root, _ = indexed
    reader = SnapshotReader(root)
    server = build_server(reader)
    try:
        async with Client(server, mode="legacy") as one:
            metrics = await call(
                one, "get_metrics", company_id="NVDA", metrics=["revenue"], periods=1
            )
            n = metrics["series"][0]["values"][0]["citation"]["evidence"]
            assert n == 1
            assert (
                await call(
                    one,
                    "check_citations",
                    answer=f"NVIDIA's revenue was $130.5 billion in fiscal 2025 [{n}].",
                )
            )["ok"]
        async with Client(server, mode="legacy") as two:
            report = await call(two, "check_citations", answer="Revenue was $130.5 billion [1].")
            assert [u["citation"] for u in report["unresolved"]] == ["1"]
            assert report["evidence_known"] == 0
    finally:
        reader.close()


async def test_compare_companies_lines_up_calendar_periods(indexed):
    root, _ = indexed
    async with session(root) as client:
        out = await call(
            client,
            "compare_companies",
            company_ids=["NVDA", "GOOGL", "AAPL"],
            metrics=["revenue", "total_debt"],
            period="2024",
        )
        assert (out["calendar_start"], out["calendar_end"], out["period_type"]) == (
            "2024-01-01",
            "2024-12-31",
            "annual",
        )
        rows = {c["company_id"]: c for c in out["companies"]}
        nv = {f["metric"]: f for f in rows[NVDA]["figures"]}
        assert (nv["revenue"]["fiscal_label"], nv["revenue"]["display"]) == (
            "FY2025",
            "130,497 million USD",
        )
        assert nv["revenue"]["overlap_days"] == 338  # 2024-01-29 .. 2024-12-31
        assert rows[NVDA]["sector"] == "Information Technology"
        assert {f["fiscal_label"] for f in rows[GOOGL]["figures"]} == {"FY2024"}
        apple = rows["CIK-0000320193"]
        assert [f["fiscal_label"] for f in apple["figures"]] == ["FY2024"] and apple["missing"] == [
            "total_debt"
        ]
        quarter = await call(
            client, "compare_companies", company_ids=["NVDA"], metrics=["revenue"], period="2024-Q2"
        )
        assert quarter["companies"][0]["figures"][0]["fiscal_label"] == "Q2-FY2025"
        latest = await call(client, "compare_companies", company_ids=["NVDA", "GOOGL"])
        assert latest["period"] == "2024"
        by_sector = await call(
            client, "compare_companies", sector="tech", metrics=["revenue"], period="2024"
        )
        assert [c["company_id"] for c in by_sector["companies"]] == [NVDA]
        assert "sectors (SIC-based)" in await error(client, "compare_companies", sector="widgets")
        assert "calendar year" in await error(
            client, "compare_companies", company_ids=["NVDA"], period="FY2025"
        )


async def test_screen_by_sector_states_its_units(indexed):
    root, _ = indexed
    async with session(root) as client:
        out = await call(client, "screen_companies", sector="Information Technology")
        assert [h["company_id"] for h in out["hits"]] == [NVDA]
        assert out["criteria"]["sector"] == "Information Technology"
        assert "percent" in out["units"]["min_revenue_growth"]
        fraction = await call(client, "screen_companies", min_revenue_growth=0.05)
        assert "read as 0.05 percent" in fraction["notes"][0] and "pass 5" in fraction["notes"][0]
        assert (await call(client, "screen_companies", min_revenue_growth=5))["notes"] == []


@pytest.mark.parametrize(
    ("sector", "named"),
    [
        ("Information Technology", "Information Technology"),
        ("tech", "Information Technology"),
        ("semiconductors", "semiconductors"),
        ("Chip makers", "semiconductors"),
        ("3674", "semiconductors"),
        ("Semiconductors & Related Devices", "Semiconductors & Related Devices"),
    ],
)
async def test_every_sector_taking_tool_reads_sectors_and_industries_alike(indexed, sector, named):
    """screen_companies (one period and a window) and compare_companies read `sector` through the
    one resolver community_themes uses: NVIDIA (SIC 3674) is Information Technology and a
    semiconductor company alike; the other sample companies have no SIC code."""
    root, _ = indexed
    async with session(root) as client:
        screen = await call(client, "screen_companies", sector=sector)
        assert [h["company_id"] for h in screen["hits"]] == [NVDA]
        assert screen["criteria"]["sector"] == named
        every = await call(client, "screen_companies", window=2, period_type="annual")
        window = await call(
            client, "screen_companies", sector=sector, window=2, period_type="annual"
        )
        assert {h["company_id"] for h in every["hits"]} - {NVDA}
        assert [h["company_id"] for h in window["hits"]] == [NVDA]
        peers = await call(
            client, "compare_companies", sector=sector, metrics=["revenue"], period="2024"
        )
        assert [c["company_id"] for c in peers["companies"]] == [NVDA]


@pytest.mark.parametrize("sector", ["", "   ", "nan", "../../etc/passwd", "'; DROP TABLE x; --"])
async def test_an_unknown_sector_lists_what_the_tools_take(indexed, sector):
    root, _ = indexed
    async with session(root) as client:
        for tool in ("screen_companies", "compare_companies"):
            text = await error(client, tool, sector=sector)
            if tool == "compare_companies" and not sector:
                assert "pass company_ids (from find_company) or a sector" in text
                continue
            assert "sectors (SIC-based)" in text and "semiconductors" in text, (tool, text)
        # A known name with no company here: an empty screen, and no peers to compare.
        assert (await call(client, "screen_companies", sector="banks"))["hits"] == []
        assert "no company of sector 'banks'" in await error(
            client, "compare_companies", sector="banks"
        )


async def test_search_without_an_index_and_answers_are_capped(data_root: Path):
    SnapshotStore(data_root).publish(sample.sample_tables())
    async with session(data_root) as client:
        assert "without a chunk index" in await error(client, "search_chunks", query="risk factors")
    reader = SnapshotReader(data_root)
    reader.close()
    hit = SearchHit(
        chunk_id="c",
        score=1.0,
        company_id=None,
        company=None,
        form=None,
        section=None,
        section_title=None,
        kind=None,
        fiscal_label=None,
        period_end=None,
        passage="x" * 3000,
        passage_start=0,
        chunk_chars=3000,
        matched=[],
        citation=Citation(filing_id="f"),
    )
    big = SearchChunksResult(
        snapshot="s",
        as_of=None,
        query="q",
        filters={},
        index_version=1,
        hits=[hit] * 25,
        companies_named=[],
        edges=[],
        edges_truncated=False,
    )
    capped = cap_answer(big)
    assert len(capped.model_dump_json()) <= MAX_ANSWER_CHARS + 300
    assert capped.capped and "SearchChunksResult.hits" in capped.capped
    assert 0 < len(capped.hits) < 25
