"""The analyst tools through a real MCP client session on a snapshot of real corpus filings,
published with its chunk index (embedded through the OpenAI-compatible endpoint backend against
the loopback server; the packaged model's quality on the whole corpus is bench/retrieval.py's)."""

from __future__ import annotations

import asyncio
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
from graphrag_core.tables.table_store import TableStore
from tests.mcp_client import call, session
from tests.test_mcp_corpus import GOOGL_10K, NVDA_10K_FY2025, NVDA_10Q, run_stages

pytestmark = [pytest.mark.corpus, pytest.mark.real_embeddings]
NVDA = "CIK-0001045810"
GOOGL = "CIK-0001652044"


@pytest.fixture(scope="module")
def indexed_corpus(corpus_dir: Path, tmp_path_factory, embeddings_server) -> Path:
    root = tmp_path_factory.mktemp("corpus-indexed")
    run_stages(corpus_dir, root, (NVDA_10K_FY2025, NVDA_10Q, GOOGL_10K))
    source = LocalFolderSource(corpus_dir)
    tables = gather_snapshot_tables(
        TableStore(root),
        lambda ciks: collect_reference(ciks, source.company_tickers, source.submissions),
    )
    settings = RetrievalSettings(
        embed_backend="openai", embed_base_url=embeddings_server.base_url, embed_model="hashed-test"
    )
    update = update_index(root, tables.chunks, tables.filings, shared_embedder(settings), settings)
    assert update.ref.chunks == tables.chunks.height
    SnapshotStore(root).publish(replace(tables, chunk_index=update.ref))
    return root


def test_the_analyst_tools_on_corpus_filings(indexed_corpus, embeddings_server, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_RETRIEVAL_EMBED_BACKEND", "openai")
    monkeypatch.setenv("GRAPHRAG_RETRIEVAL_EMBED_BASE_URL", embeddings_server.base_url)
    monkeypatch.setenv("GRAPHRAG_RETRIEVAL_EMBED_MODEL", "hashed-test")

    async def scenario() -> None:
        async with session(indexed_corpus) as client:
            found = await call(
                client,
                "search_chunks",
                query="NVIDIA export control licensing requirements China",
                k=8,
            )
            assert found["companies_named"] == [NVDA]
            top = found["hits"][0]
            assert top["company_id"] == NVDA and "export" in top["passage"].lower()
            assert top["citation"]["evidence"] >= 1
            risks = await call(
                client,
                "search_chunks",
                query="competition",
                company_id="GOOGL",
                section="Risk Factors",
            )
            assert risks["hits"] and {h["section"] for h in risks["hits"]} == {"10-K/Item 1A"}

            metrics = await call(
                client, "get_metrics", company_id="NVDA", metrics=["revenue"], periods=1
            )
            fy25 = metrics["series"][0]["values"][0]
            n = fy25["citation"]["evidence"]
            assert fy25["fiscal_label"] == "FY2025"
            ok = await call(
                client,
                "check_citations",
                answer=f"NVIDIA's revenue was $130.5 billion in fiscal 2025 [{n}].",
            )
            assert ok["ok"] is True, ok
            wrong = await call(
                client,
                "check_citations",
                answer=f"NVIDIA's revenue was $135.2 billion in fiscal 2025 [{n}].",
            )
            assert [u["figure"] for u in wrong["unsupported"]] == ["$135.2 billion"]

            peers = await call(
                client,
                "compare_companies",
                company_ids=["NVDA", "GOOGL"],
                metrics=["revenue"],
                period="2024",
            )
            labels = {c["company_id"]: c["figures"][0]["fiscal_label"] for c in peers["companies"]}
            assert labels == {NVDA: "FY2025", GOOGL: "FY2024"}
            screen = await call(client, "screen_companies", sector="Information Technology")
            assert NVDA in {h["company_id"] for h in screen["hits"]}

    asyncio.run(scenario())
