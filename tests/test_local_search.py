"""local_search and shared_neighbors (issue 24 item 3) through a real MCP client session on a
snapshot of real corpus filings (NVIDIA's 10-K and 10-Q, Alphabet's and Tesla's 10-Ks, run
through the pipeline's stages) published with its chunk index: the bundle one call returns for
"NVIDIA's suppliers", every item cited; shared neighbours equal to the intersection of the
`neighbors` answers; hostile arguments."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from graphrag_core.graph.companies import collect_reference
from graphrag_core.graph.snapshot_inputs import gather_snapshot_tables
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.retrieval.chunk_index import update_index
from graphrag_core.retrieval.search import shared_embedder
from graphrag_core.settings import RetrievalSettings
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.reader import SnapshotReader
from graphrag_core.tables.table_store import TableStore
from mcp_server.context import ToolContext
from mcp_server.graph import GraphTools
from mcp_server.local_search import LOCAL_MAX_CHARS, pack, relations_asked
from mcp_server.search_models import LocalSearchResult
from tests.mcp_client import call, error, session
from tests.test_mcp_corpus import GOOGL_10K, NVDA_10K_FY2025, NVDA_10Q, TSLA_10K, run_stages

NVDA = "CIK-0001045810"
GOOGL = "CIK-0001652044"
TSLA = "CIK-0001318605"


@pytest.fixture(scope="module")
def local_corpus(corpus_dir: Path, tmp_path_factory, embeddings_server) -> Path:
    root = tmp_path_factory.mktemp("corpus-local")
    run_stages(corpus_dir, root, (NVDA_10K_FY2025, NVDA_10Q, GOOGL_10K, TSLA_10K))
    source = LocalFolderSource(corpus_dir)
    tables = gather_snapshot_tables(
        TableStore(root),
        lambda ciks: collect_reference(ciks, source.company_tickers, source.submissions),
    )
    # The same embedding endpoint the autouse fixture points the server at.
    settings = RetrievalSettings(
        embed_backend="openai", embed_base_url=embeddings_server.base_url, embed_model="hashed-test"
    )
    update = update_index(root, tables.chunks, tables.filings, shared_embedder(settings), settings)
    SnapshotStore(root).publish(replace(tables, chunk_index=update.ref))
    return root


def _cited(citation: dict) -> bool:
    return isinstance(citation.get("evidence"), int) and bool(citation["filing_id"])


def test_relations_asked_reads_the_question():
    assert relations_asked("NVIDIA's suppliers and what it says about them") == ["SUPPLIES"]
    assert relations_asked("Tesla's competitors and its risks") == [
        "COMPETES_WITH",
        "EXPOSED_TO_RISK",
    ]
    assert relations_asked("tell me about Alphabet") == []


@pytest.mark.corpus
async def test_local_search_bundles_nvidias_suppliers(local_corpus):
    async with session(local_corpus) as client:
        question = "Tell me about NVIDIA's suppliers and what it says about them"
        out = await call(client, "local_search", query=question)
        assert [e["entity_id"] for e in out["entities"]] == [NVDA]
        assert out["capped"] is None and out["notes"] == []
        assert len(json.dumps(out)) < 40_000

        # The relation asked about first, in neighbors' order, each edge with its quotes.
        suppliers = await call(client, "neighbors", entity_id=NVDA, relation="SUPPLIES", limit=100)
        supply_ids = [e["edge_id"] for e in suppliers["edges"]]
        shown = [e for e in out["edges"] if e["relation"] == "SUPPLIES"]
        assert len(shown) >= 3
        assert [e["edge_id"] for e in out["edges"][: len(shown)]] == supply_ids[: len(shown)]
        names = {e["subject"]["name"] for e in shown}
        assert "TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD" in names
        for edge in shown:
            assert edge["object"]["entity_id"] == NVDA
            assert edge["citations"] and all(_cited(c) and c["quote"] for c in edge["citations"])
        tsmc = next(e for e in shown if e["subject"]["name"].startswith("TAIWAN SEMICONDUCTOR"))
        assert "Taiwan Semiconductor Manufacturing Company" in tsmc["citations"][0]["quote"]

        # Its community's report, with the quotes its findings rest on.
        [first, *_] = out["communities"]
        assert first["member"] == NVDA and first["report"]["summary"] and first["findings"]
        assert NVDA in {m["entity_id"] for m in first["report"]["member_companies"]}
        assert first["citations"] and all(_cited(c) and c["quote"] for c in first["citations"])

        # Its latest reported figures, as explore_company shows them.
        [metrics] = out["metrics"]
        explored = await call(client, "explore_company", company_id=NVDA)
        assert metrics["company"]["entity_id"] == NVDA
        assert metrics["key_metrics"] == explored["key_metrics"]
        revenue = next(m for m in metrics["key_metrics"] if m["metric"] == "revenue")
        assert revenue["latest_annual"]["value"] == 130_497_000_000.0
        assert revenue["latest_annual"]["fiscal_label"] == "FY2025"
        assert _cited(revenue["latest_annual"]["citation"])

        # The best passages, NVIDIA's own (the only company named), each cited.
        assert out["passages"]
        assert {p["company_id"] for p in out["passages"]} == {NVDA}
        assert all(_cited(p["citation"]) and p["passage"] for p in out["passages"])

        # Packed under a size bound: the weakest edges and passages go first, the rest stay.
        packed = pack(LocalSearchResult.model_validate(out), 20_000)
        assert packed.truncated and len(packed.model_dump_json()) <= 20_000 and packed.edges
        assert [e.edge_id for e in packed.edges] == [
            e["edge_id"] for e in out["edges"][: len(packed.edges)]
        ]
        assert len(packed.communities) == len(out["communities"]) and packed.metrics
        assert (
            len(LocalSearchResult.model_validate(out).model_dump_json()) <= LOCAL_MAX_CHARS + 2_000
        )

        # company_id instead of a name; two hops reach further.
        by_id = await call(
            client, "local_search", query="who are the suppliers", company_id="NVDA", k=0
        )
        assert [e["entity_id"] for e in by_id["entities"]] == [NVDA] and by_id["passages"] == []
        assert by_id["edges"][0]["relation"] == "SUPPLIES"
        two = await call(
            client, "local_search", query="Alphabet and Tesla", hops=2, max_edges=40, k=2
        )
        assert {e["entity_id"] for e in two["entities"]} == {GOOGL, TSLA}


def _neighbour_ids(
    tools: GraphTools, entity_id: str, relation: str | None, direction: str
) -> set[str]:
    """The other ends of the entity's edges in neighbors' answer (the tool's own function: over
    MCP an answer of NVIDIA's every edge is cut by the server's answer cap)."""
    out = tools.neighbors(
        entity_id=entity_id,
        relation=relation,
        direction=direction,  # type: ignore[arg-type]
        hops=1,
        period=None,
        include_superseded=False,
        limit=100,
    )
    assert not out.truncated
    return {
        e.subject.entity_id if e.object.entity_id == entity_id else e.object.entity_id
        for e in out.edges
    }


@pytest.mark.corpus
async def test_shared_neighbors_equal_the_intersection_of_neighbors(local_corpus):
    tools = GraphTools(ToolContext(SnapshotReader(local_corpus)))
    async with session(local_corpus) as client:
        cases = [
            ([NVDA, GOOGL], None, "both"),
            ([NVDA, TSLA], "EXPOSED_TO_RISK", "out"),
            ([GOOGL, TSLA], "COMPETES_WITH", "both"),
            ([NVDA, GOOGL, TSLA], None, "both"),
            ([NVDA, GOOGL], "SUPPLIES", "in"),
        ]
        nonempty = 0
        for ids, relation, direction in cases:
            args = {"entity_ids": ids, "direction": direction, "limit": 50}
            if relation:
                args["relation"] = relation
            out = await call(client, "shared_neighbors", **args)
            assert out["capped"] is None and not out["truncated"]
            expected = set.intersection(
                *[_neighbour_ids(tools, i, relation, direction) for i in ids]
            )
            got = [s["neighbor"]["entity_id"] for s in out["shared"]]
            assert set(got) == expected and len(got) == len(expected), (
                ids,
                relation,
                set(got) ^ expected,
            )
            nonempty += bool(got)
            for shared in out["shared"]:
                n = shared["neighbor"]["entity_id"]
                assert len(shared["edges"]) == len(ids)
                for asked, edge in zip(ids, shared["edges"], strict=True):
                    assert {edge["subject"]["entity_id"], edge["object"]["entity_id"]} == {asked, n}
                    assert relation is None or edge["relation"] == relation
                    assert edge["citations"] and all(_cited(c) for c in edge["citations"])
                assert shared["min_evidence"] == min(e["evidence_count"] for e in shared["edges"])
            assert [s["min_evidence"] for s in out["shared"]] == sorted(
                (s["min_evidence"] for s in out["shared"]), reverse=True
            )
        assert nonempty >= 3  # the cases are not vacuous
        # Tickers name the entities too.
        by_ticker = await call(client, "shared_neighbors", entity_ids=["NVDA", "GOOGL"])
        assert by_ticker["shared"] and [e["entity_id"] for e in by_ticker["entities"]] == [
            NVDA,
            GOOGL,
        ]


@pytest.mark.corpus
async def test_local_search_and_shared_neighbors_refuse_hostile_arguments(local_corpus):
    async with session(local_corpus) as client:
        assert "names no company" in await error(
            client, "local_search", query="what is the weather like"
        )
        assert "no company" in await error(
            client, "local_search", query="suppliers", company_id="NOPE"
        )
        assert "no company" in await error(
            client, "local_search", query="x y", company_id="../../etc/passwd"
        )
        for bad in (
            {"query": ""},
            {"query": "x" * 501},
            {"query": "NVIDIA", "k": -1},
            {"query": "NVIDIA", "k": 11},
            {"query": "NVIDIA", "max_edges": 0},
            {"query": "NVIDIA", "max_edges": 1000},
            {"query": "NVIDIA", "hops": 3},
            {"query": "NVIDIA", "company_id": ""},
            {"query": "NVIDIA", "k": "NaN"},
            {"query": "NVIDIA", "hops": float("inf")},
        ):
            assert await error(client, "local_search", **bad), bad
        assert "two or more different" in await error(
            client, "shared_neighbors", entity_ids=["NVDA", NVDA]
        )
        assert "no entity" in await error(
            client, "shared_neighbors", entity_ids=[NVDA, "ORG:no-such-thing"]
        )
        for bad in (
            {"entity_ids": [NVDA]},
            {"entity_ids": []},
            {"entity_ids": [NVDA, ""]},
            {"entity_ids": [NVDA, GOOGL, TSLA, "A", "B"]},
            {"entity_ids": [NVDA, "x" * 129]},
            {"entity_ids": [NVDA, GOOGL], "relation": "LIKES"},
            {"entity_ids": [NVDA, GOOGL], "direction": "sideways"},
            {"entity_ids": [NVDA, GOOGL], "relation": "REPORTS_METRIC"},
            {"entity_ids": [NVDA, GOOGL], "limit": 0},
            {"entity_ids": NVDA},
        ):
            assert await error(client, "shared_neighbors", **bad), bad
        # Still serving after all that.
        assert (await call(client, "local_search", query="NVIDIA competitors", k=1))["entities"]
