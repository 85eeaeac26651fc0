"""The MCP server over a snapshot of real corpus filings, run through the pipeline's own stages
(intake, chunking, XBRL facts cited to chunks, metric observations) and published by the
snapshot store with SEC reference data from the corpus. Exact values come from the filings.

The slow test at the end runs the whole corpus through the Dagster pipeline itself (the path of
`make demo`), which ends by publishing the snapshot, and queries it over stdio."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import polars as pl
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from graphrag_core.extraction import Filer, RulesBackend, run_extraction
from graphrag_core.extraction.validated_triples import validate_extractions
from graphrag_core.graph.companies import collect_reference
from graphrag_core.graph.risk_taxonomy import TAXONOMY
from graphrag_core.graph.snapshot_inputs import gather_snapshot_tables
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.intake.raw_filing import ingest_filing
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.table_store import TableStore
from graphrag_core.text.filing_chunks import chunk_filing
from graphrag_core.xbrl.arelle_loader import XbrlDocument
from graphrag_core.xbrl.facts import extract_facts
from graphrag_core.xbrl.metrics import FilingInfo
from graphrag_core.xbrl.releases import observations_for_filing
from tests.mcp_client import call, session

ROOT = Path(__file__).resolve().parent.parent
NVDA_10K_FY2025 = "0001045810-25-000023"
NVDA_10K_FY2023 = "0001045810-23-000017"
NVDA_10Q = "0001045810-25-000209"
GOOGL_10K = "0001652044-25-000014"
TSLA_10K = "0001628280-25-003063"
PLAIN_HTML_10K = "0001193125-10-073212"  # a 2010 10-K without inline XBRL: text, no metrics
FILINGS = (NVDA_10K_FY2025, NVDA_10K_FY2023, NVDA_10Q, GOOGL_10K, TSLA_10K, PLAIN_HTML_10K)

pytestmark = pytest.mark.corpus


def run_stages(corpus: Path, data_root: Path, filing_ids: tuple[str, ...]) -> None:
    """raw_filings → section_chunks → xbrl_facts → metric_observations, and extractions (the
    rules backend) → validated_triples, partition by partition, with the functions the assets
    call."""
    source = LocalFolderSource(corpus)
    refs = {ref.filing_id: ref for ref in source.discover()}
    store = TableStore(data_root)
    rules = RulesBackend.from_rows(source.company_tickers())
    for fid in filing_ids:
        ref = refs[fid]
        raw = ingest_filing(ref, source.fetch(ref), store)
        store.write("raw_filings", raw.frame(), fid)
        store.write("raw_filing_documents", raw.documents, fid)
        chunks = chunk_filing(raw.meta, raw.documents, store).chunks
        store.write("section_chunks", chunks, fid)
        extractions = run_extraction(chunks, rules, filer=Filer.of(raw.meta))
        validated = validate_extractions(
            extractions, chunks, filer=Filer.of(raw.meta), fiscal_year=raw.meta.fiscal_year
        )
        store.write("validated_triples", validated, fid)
        docs = [
            XbrlDocument(d.location, Path(d.location).read_bytes(), Path(d.location))
            for d in ref.documents
        ]
        facts = extract_facts(docs, fid, ref.cik, chunks).facts
        store.write("xbrl_facts", facts, fid)
        info = FilingInfo.from_meta(facts, raw.meta)
        store.write(
            "metric_observations", observations_for_filing(facts, chunks, info).observations, fid
        )


def publish(corpus: Path, data_root: Path) -> str:
    source = LocalFolderSource(corpus)
    tables = gather_snapshot_tables(
        TableStore(data_root),
        lambda ciks: collect_reference(ciks, source.company_tickers, source.submissions),
    )
    return SnapshotStore(data_root).publish(tables).version


@pytest.fixture(scope="module")
def corpus_snapshot(corpus_dir: Path, tmp_path_factory) -> tuple[Path, str]:
    data_root = tmp_path_factory.mktemp("corpus-data")
    run_stages(corpus_dir, data_root, FILINGS)
    return data_root, publish(corpus_dir, data_root)


async def test_find_company_on_the_corpus(corpus_snapshot):
    async with session(corpus_snapshot[0]) as client:
        google = await call(client, "find_company", query="Google")
        assert google["matches"][0]["company_id"] == "CIK-0001652044"
        assert google["matches"][0]["name"] == "Alphabet Inc."
        assert google["matches"][0]["matched_on"].startswith("segment 'Google")
        for query in ("nvidia", "NVDA", "1045810", "NVIDIA Corp"):
            found = await call(client, "find_company", query=query)
            assert found["matches"][0]["company_id"] == "CIK-0001045810", query
        tesla = await call(client, "find_company", query="tesla motors")  # SEC former name
        assert tesla["matches"][0]["company_id"] == "CIK-0001318605"
        miss = await client.call_tool("find_company", {"query": "Alphabett"})
        assert (
            miss.is_error and "did you mean Alphabet Inc. (CIK-0001652044)?" in miss.content[0].text
        )


async def test_nvidia_fy2025_revenue_with_its_citation(corpus_snapshot):
    data_root, version = corpus_snapshot
    async with session(data_root) as client:
        out = await call(
            client, "get_metrics", company_id="CIK-0001045810", metrics=["revenue"], periods=3
        )
        assert (out["snapshot"], out["as_of"]) == (version, "2025-08-27")
        fy25, fy24, fy23 = out["series"][0]["values"]
        assert (fy25["fiscal_label"], fy25["value"], fy25["unit"]) == (
            "FY2025",
            130_497_000_000.0,
            "USD",
        )
        assert fy25["display"] == "130,497 million USD"
        assert (fy25["calendar_start"], fy25["calendar_end"]) == ("2024-01-29", "2025-01-26")
        assert fy25["yoy_change_pct"] == 114.2
        cite = fy25["citation"]
        assert (cite["filing_id"], cite["form"], cite["filed_date"]) == (
            NVDA_10K_FY2025,
            "10-K",
            "2025-02-26",
        )
        # NVIDIA files its statements under Item 15 (Item 8 points there).
        assert cite["section"] == "10-K/Item 15"
        assert cite["chunk_id"].startswith(f"{NVDA_10K_FY2025}:")
        assert (fy24["value"], fy23["value"]) == (60_922e6, 26_974e6)
        # FY2023 is in both 10-Ks with the same figure: one value, cited to the newer filing.
        assert (fy23["citation"]["filing_id"], fy23["restated"]) == (NVDA_10K_FY2025, False)

        chunk = await call(client, "get_chunk", chunk_id=cite["chunk_id"])
        assert "130,497" in chunk["text"]
        assert (chunk["filing_id"], chunk["form"], chunk["section"]) == (
            NVDA_10K_FY2025,
            "10-K",
            "10-K/Item 15",
        )
        assert "millions" in (chunk["scale_header"] or "")
        text = (data_root / "text" / f"{NVDA_10K_FY2025}.txt").read_text(encoding="utf-8")
        if not chunk["truncated"]:
            assert text[chunk["char_start"] : chunk["char_end"]] == chunk["text"]


async def test_nvidia_quarter_and_split_restatement(corpus_snapshot):
    async with session(corpus_snapshot[0]) as client:
        q = await call(
            client,
            "get_metrics",
            company_id="NVDA",
            metrics=["revenue"],
            period_type="quarter",
            periods=2,
        )
        q2 = q["series"][0]["values"][0]
        assert (q2["fiscal_label"], q2["value"], q2["yoy_change_pct"]) == (
            "Q2-FY2026",
            46_743e6,
            55.6,
        )
        assert q2["citation"]["filing_id"] == NVDA_10Q

        # The June 2024 ten-for-one split: the FY2025 10-K recast FY2023 diluted EPS.
        eps = await call(
            client, "get_metrics", company_id="NVDA", metrics=["eps_diluted"], periods=3
        )
        fy23 = next(v for v in eps["series"][0]["values"] if v["fiscal_label"] == "FY2023")
        assert (fy23["value"], fy23["restated"]) == (0.17, True)
        assert [(s["value"], s["citation"]["filing_id"]) for s in fy23["superseded"]] == [
            (1.74, NVDA_10K_FY2023)
        ]


async def test_screen_and_explore_on_the_corpus(corpus_snapshot):
    async with session(corpus_snapshot[0]) as client:
        out = await call(client, "screen_companies", min_revenue_growth=100)
        assert [h["company_id"] for h in out["hits"]] == ["CIK-0001045810"]
        nvda = out["hits"][0]
        assert (nvda["fiscal_label"], nvda["revenue_growth_pct"]) == ("FY2025", 114.2)
        assert nvda["revenue"]["citation"]["chunk_id"].startswith(NVDA_10K_FY2025)

        growth = await call(client, "screen_companies", min_revenue_growth=10, sort_by="revenue")
        assert {h["company_id"] for h in growth["hits"]} >= {"CIK-0001045810", "CIK-0001652044"}

        nv = await call(client, "explore_company", company_id="NVDA")
        assert nv["company"]["sic"] == "3674" and "NVIDIA CORP/CA" in nv["company"]["former_names"]
        assert [f["filing_id"] for f in nv["latest_filings"]] == [
            NVDA_10Q,
            NVDA_10K_FY2025,
            NVDA_10K_FY2023,
        ]
        sections = {s["section"] for s in nv["latest_filings"][1]["sections"]}
        assert {"10-K/Item 1", "10-K/Item 1A", "10-K/Item 7", "10-K/Item 8"} <= sections
        revenue = next(k for k in nv["key_metrics"] if k["metric"] == "revenue")
        assert revenue["latest_annual"]["display"] == "130,497 million USD"

        old = await call(client, "explore_company", company_id="CIK-0000786344")
        assert (
            old["metrics_available"] == []
            and old["latest_filings"][0]["filing_id"] == PLAIN_HTML_10K
        )

        status = await call(client, "status")
        assert status["filings"] == len(FILINGS) and status["as_of"] == "2025-08-27"


async def test_stdio_session_on_the_corpus_snapshot(corpus_snapshot):
    data_root, version = corpus_snapshot
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_server", "--data-root", str(data_root)],
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT)},
    )
    async with Client(params) as client:
        found = await call(client, "find_company", query="Google")
        assert found["matches"][0]["name"] == "Alphabet Inc." and found["snapshot"] == version
        out = await call(
            client,
            "get_metrics",
            company_id=found["matches"][0]["company_id"],
            metrics=["revenue"],
            periods=1,
        )
        assert out["series"][0]["values"][0]["display"] == "350,018 million USD"


TSMC, SAMSUNG = "CIK-0001046179", "ORG:samsung-electronics"


async def test_nvidias_suppliers_with_the_sentence_that_names_them(corpus_snapshot):
    """The knowledge graph over MCP: NVIDIA's suppliers, one node each whatever the spelling
    ("Samsung Electronics Co. Ltd" in the 2023 10-K, "Samsung Electronics Co., Ltd., or Samsung"
    in 2025), each cited to the Item 1 sentence that names it."""
    data_root, version = corpus_snapshot
    async with session(data_root) as client:
        out = await call(
            client, "neighbors", entity_id="NVDA", relation="SUPPLIES", direction="in", limit=50
        )
        assert (out["snapshot"], out["as_of"], out["entity"]["entity_id"]) == (
            version,
            "2025-08-27",
            "CIK-0001045810",
        )
        suppliers = {e["subject"]["entity_id"]: e for e in out["edges"]}
        assert {
            TSMC,
            SAMSUNG,
            "ORG:sk-hynix",
            "CIK-0000723125",
            "ORG:hon-hai-precision-industry",
        } <= set(suppliers)
        assert all(
            e["relation"] == "SUPPLIES" and e["object"]["entity_id"] == "CIK-0001045810"
            for e in out["edges"]
        )
        tsmc = suppliers[TSMC]
        assert (tsmc["filing_count"], tsmc["seen_periods"]) == (2, ["FY2023", "FY2025"])
        cite = tsmc["citations"][0]  # newest first: the FY2025 10-K
        assert (cite["filing_id"], cite["section"]) == (NVDA_10K_FY2025, "10-K/Item 1")
        assert "Taiwan Semiconductor Manufacturing Company Limited" in cite["quote"]
        chunk = await call(client, "get_chunk", chunk_id=cite["chunk_id"], max_chars=20_000)
        assert cite["quote"] in chunk["text"]
        samsung = suppliers[SAMSUNG]
        assert (
            samsung["subject"]["name"] == "Samsung Electronics Co., Ltd."
            and samsung["filing_count"] == 2
        )

        # Two hops from Samsung: through NVIDIA, to what NVIDIA relates to, with both edges.
        two = await call(client, "neighbors", entity_id=SAMSUNG, hops=2, limit=10)
        assert two["paths"] and all(p["via"]["entity_id"] == "CIK-0001045810" for p in two["paths"])
        first = two["paths"][0]
        # The first hops are listed once in `edges`; each path names its own.
        hops1 = {e["edge_id"]: e for e in two["edges"]}
        assert {p["first_edge_id"] for p in two["paths"]} == set(hops1)
        hop = hops1[first["first_edge_id"]]
        assert (hop["subject"]["entity_id"], hop["relation"], hop["object"]["entity_id"]) == (
            SAMSUNG,
            "SUPPLIES",
            "CIK-0001045810",
        )
        assert hop["citations"][0]["quote"]
        assert first["neighbor"]["entity_id"] not in (SAMSUNG, "CIK-0001045810")
        second = first["second"]
        assert "CIK-0001045810" in (second["subject_id"], second["object_id"])
        assert first["neighbor"]["entity_id"] in (second["subject_id"], second["object_id"])
        assert second["citation"]["quote"] and second["citation"]["evidence"]

        # Who else is exposed to export controls (the risk node, from the filings' own words)?
        risk = await call(client, "neighbors", entity_id="RISK:export-controls", direction="in")
        exposed = {e["subject"]["entity_id"] for e in risk["edges"]}
        assert "CIK-0001045810" in exposed
        # The filing's own words stay on the edge: NVIDIA's Item 1A heading on export restrictions.
        assert any(
            "export" in (c["object_text"] or "").lower()
            for e in risk["edges"]
            for c in e["citations"]
        )


async def test_graph_path_and_ontology_on_the_corpus(corpus_snapshot):
    async with session(corpus_snapshot[0]) as client:
        path = await call(client, "graph_path", from_id=TSMC, to_id=SAMSUNG)
        assert (path["hops"], path["through_risks"]) == (2, False)
        nodes = [n["entity_id"] for n in path["paths"][0]["nodes"]]
        assert nodes == [TSMC, "CIK-0001045810", SAMSUNG]
        assert all(e["citations"] for e in path["paths"][0]["edges"])

        onto = await call(client, "get_ontology")
        relations = {r["relation"]: r for r in onto["relations"]}
        assert relations["SUPPLIES"]["edges"] > 5 and relations["COMPETES_WITH"]["edges"] > 10
        assert relations["REPORTS_METRIC"]["edges"] > 100  # XBRL observations are edges too
        assert (
            relations["REPORTS_METRIC"]["current"] < relations["REPORTS_METRIC"]["edges"]
        )  # the EPS restatement
        types = {t["name"]: t["count"] for t in onto["entity_types"]}
        assert types["company"] > 10 and types["organization"] > 3 and types["risk"] >= 20
        taxonomy = {r["entity_id"]: r for r in onto["risk_taxonomy"]}
        assert taxonomy["RISK:export-controls"]["companies"] >= 1
        assert onto["review_queue"] is not None

        samsung = await call(client, "find_company", query="Samsung")
        assert (samsung["matches"][0]["company_id"], samsung["matches"][0]["entity_type"]) == (
            SAMSUNG,
            "organization",
        )
        risk = await call(client, "find_company", query="export controls")
        assert (risk["matches"][0]["company_id"], risk["matches"][0]["entity_type"]) == (
            "RISK:export-controls",
            "risk",
        )

        nvda = await call(client, "explore_company", company_id="NVDA")
        assert nvda["relations"] and all(e["citations"] for e in nvda["relations"])
        assert "RISK:export-controls" in {r["risk"]["entity_id"] for r in nvda["risks"]}
        assert nvda["peers"] and nvda["peers"][0]["shared_risks"]

        miss = await client.call_tool("neighbors", {"entity_id": "ORG:no-such-thing"})
        assert miss.is_error and "no entity" in miss.content[0].text


@pytest.mark.slow
def test_whole_corpus_through_the_pipeline_is_served(corpus_dir: Path, tmp_path: Path):
    """`filings-graph ingest` over the whole corpus ends by publishing a snapshot; the server
    serves every filing that ingested, its chunks, and its companies. (A plain test: Dagster
    runs its own event loops, so the client part runs in one of its own afterwards.)"""
    from graphrag_core.settings import Settings
    from pipelines.ingest import ingest

    settings = Settings(data_root=tmp_path / "data", corpus=corpus_dir)
    report = ingest(settings)
    assert report.corpus_success, report.corpus_error
    ok = {o.filing_id for o in report.outcomes if o.success}
    store = SnapshotStore(settings.data_root)
    version = store.current_version()
    assert version is not None
    assert {i.filing_id for i in store.inputs(version)} == ok
    assert store.manifest(version).counts["filings"] == len(ok)
    tables = TableStore(settings.data_root)
    ciks = (
        tables.scan("raw_filings").select("cik").collect().get_column("cik").drop_nulls().n_unique()
    )
    first = tables.scan("section_chunks").select("chunk_id", "text").head(1).collect()

    async def check() -> None:
        async with session(settings.data_root) as client:
            status = await call(client, "status")
            assert status["snapshot"] == version and status["filings"] == len(ok)
            assert status["companies"] == ciks
            for query, company_id in (
                ("nvidia", "CIK-0001045810"),
                ("Alphabet", "CIK-0001652044"),
                ("Google", "CIK-0001652044"),
                ("AAPL", "CIK-0000320193"),
            ):
                found = await call(client, "find_company", query=query)
                assert found["matches"][0]["company_id"] == company_id, query
            chunk = await call(
                client, "get_chunk", chunk_id=first.item(0, "chunk_id"), max_chars=20_000
            )
            assert first.item(0, "text").startswith(chunk["text"])
            explore = await call(client, "explore_company", company_id="NVDA")
            assert len(explore["latest_filings"]) == 3
            # The metrics stage ran in the pipeline too: the headline figure, cited and quotable.
            metrics = await call(
                client, "get_metrics", company_id="NVDA", metrics=["revenue"], periods=1
            )
            fy25 = metrics["series"][0]["values"][0]
            assert (fy25["fiscal_label"], fy25["display"]) == ("FY2025", "130,497 million USD")
            assert fy25["citation"]["filing_id"] == NVDA_10K_FY2025
            chunk = await call(client, "get_chunk", chunk_id=fy25["citation"]["chunk_id"])
            assert "130,497" in chunk["text"]

    asyncio.run(check())


def test_sample_frames_have_the_pipeline_schema(corpus_snapshot):
    """The snapshot was built from the pipeline's own tables (not the test sample)."""
    data_root, _ = corpus_snapshot
    chunks = TableStore(data_root).scan("section_chunks").collect()
    assert chunks.height > 1000 and set(chunks.get_column("filing_id").unique()) == set(FILINGS)
    facts = TableStore(data_root).scan("xbrl_facts").select(pl.len()).collect().item()
    assert facts > 1000


async def test_community_themes_for_semiconductors_on_the_corpus(corpus_snapshot):
    """The global search on the corpus snapshot: "what are the dominant risk themes among
    semiconductor companies?" answered from the community reports, every theme cited to the
    filing sentence behind it (NVIDIA is the corpus's one company SEC files under SIC 3674)."""
    data_root, version = corpus_snapshot
    async with session(data_root) as client:
        out = await call(client, "community_themes", sector="semiconductors")
        assert (out["snapshot"], out["sector_matched"], out["sic_codes"]) == (
            version,
            "semiconductors",
            ["3674"],
        )
        assert out["themes"] and out["communities"] and out["answer"]
        nvda = "CIK-0001045810"
        assert any(
            c["member_companies"] and nvda in {m["entity_id"] for m in c["member_companies"]}
            for c in out["communities"]
        )
        risks = [t for t in out["themes"] if t["kind"] == "risk"]
        assert risks and all({e["entity_id"] for e in t["entities"]} == {nvda} for t in risks)
        # NVIDIA states a dozen risk categories about equally often (its Item 1A headings as
        # written, issue 10); the reports keep its strongest, each a category of the taxonomy.
        assert {t["theme"] for t in risks} <= {f"risk:{c.entity_id}" for c in TAXONOMY}
        for theme in out["themes"]:
            assert theme["citations"], theme
            for cite in theme["citations"]:
                assert cite["filing_id"] in FILINGS and cite["quote"] and cite["section"]
        cite = risks[0]["citations"][0]
        chunk = await call(client, "get_chunk", chunk_id=cite["chunk_id"], max_chars=20_000)
        assert cite["quote"] in chunk["text"]

        broad = await call(client, "community_themes")
        assert broad["levels_used"] == [0] and broad["themes"]
        assert all(t["citations"] for t in broad["themes"])
