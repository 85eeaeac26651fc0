"""community_themes' themes from the filings' own risk factors on corpus filings, through an MCP
session (issue 25, items 2 and 3): "export controls" names NVIDIA with its risk factor cited, a
theme statement with [n] markers passes check_citations, and period, as_of and the age limit
choose the filings counted. The snapshot is built from the filings' chunks by the pipeline's own
functions and the packaged MiniLM (no extraction or XBRL: the themes need neither)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from pathlib import Path

import pytest

from graphrag_core.extraction import Filer, RulesBackend, run_extraction
from graphrag_core.extraction.validated_triples import validate_extractions
from graphrag_core.graph.companies import collect_reference
from graphrag_core.graph.snapshot_inputs import gather_snapshot_tables
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.intake.raw_filing import ingest_filing
from graphrag_core.retrieval.search import shared_embedder
from graphrag_core.retrieval.themes import update_themes
from graphrag_core.settings import CommunitySettings, RetrievalSettings
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.tables.schemas import METRIC_OBSERVATIONS, empty
from graphrag_core.tables.table_store import TableStore
from graphrag_core.text.filing_chunks import chunk_filing
from tests.mcp_client import call, error, session

pytestmark = [pytest.mark.corpus, pytest.mark.real_embeddings]

NVIDIA = "CIK-0001045810"
NVDA_10K_FY2023 = "0001045810-23-000017"  # filed 2023-02-24
NVDA_10K_FY2025 = "0001045810-25-000023"  # filed 2025-02-26
FILINGS = (
    NVDA_10K_FY2023,
    NVDA_10K_FY2025,
    "sha-5b199385846cb6ed",  # HubSpot 10-Q, Q2-FY2025: a factor on export controls
    "sha-4b181008a668650f",  # Salesforce 10-K: sanctions and export controls
    "sha-e8cd4419df5d1855",  # Adobe 10-K
    "0000320193-24-000123",  # Apple 10-K
    "0001628280-25-003063",  # Tesla 10-K
    "0001652044-25-000014",  # Alphabet 10-K
)


def chunk_filings(corpus: Path, data_root: Path, filing_ids: tuple[str, ...]) -> None:
    """raw_filings → section_chunks → extractions (rules) → validated_triples, with the
    functions the assets call; no metrics (as for a filing without XBRL)."""
    source = LocalFolderSource(corpus)
    refs = {ref.filing_id: ref for ref in source.discover()}
    store = TableStore(data_root)
    rules = RulesBackend.from_rows(source.company_tickers())
    for fid in filing_ids:
        raw = ingest_filing(refs[fid], source.fetch(refs[fid]), store)
        store.write("raw_filings", raw.frame(), fid)
        store.write("raw_filing_documents", raw.documents, fid)
        chunks = chunk_filing(raw.meta, raw.documents, store).chunks
        store.write("section_chunks", chunks, fid)
        filer = Filer.of(raw.meta)
        extractions = run_extraction(chunks, rules, filer=filer)
        validated = validate_extractions(
            extractions, chunks, filer=filer, fiscal_year=raw.meta.fiscal_year
        )
        store.write("validated_triples", validated, fid)
        store.write("metric_observations", empty(METRIC_OBSERVATIONS), fid)


def publish_with_themes(corpus: Path, data_root: Path) -> str:
    """The snapshot as graph_snapshot publishes it: the stages' tables and the themes stage's."""
    source = LocalFolderSource(corpus)
    tables = gather_snapshot_tables(
        TableStore(data_root),
        lambda ciks: collect_reference(ciks, source.company_tickers, source.submissions),
    )
    themes = update_themes(
        None,
        tables.chunks,
        tables.filings,
        shared_embedder(RetrievalSettings()).embed,
        CommunitySettings(),
    )
    tables = replace(tables, filing_themes=themes.tables).consistent()
    return SnapshotStore(data_root).publish(tables).version


@pytest.fixture(scope="module")
def themes_root(corpus_dir: Path, tmp_path_factory) -> Path:
    data_root = tmp_path_factory.mktemp("themes-data")
    chunk_filings(corpus_dir, data_root, FILINGS)
    publish_with_themes(corpus_dir, data_root)
    return data_root


def _export_theme(out: dict) -> dict:
    for theme in out["filing_themes"]:
        if any(m["company_id"] == NVIDIA for m in theme["members"]):
            return theme
    raise AssertionError([t["label"] for t in out["filing_themes"]])


async def test_export_controls_names_nvidia_with_its_risk_factor_cited_and_checks(themes_root):
    async with session(themes_root) as client:
        out = await call(
            client, "community_themes", query="export controls", include_old=True, limit=5
        )
        theme = _export_theme(out)
        nvidia = next(m for m in theme["members"] if m["company_id"] == NVIDIA)
        assert "export" in nvidia["quote"].lower()
        assert nvidia["citation"]["section"] == "10-K/Item 1A" and nvidia["citation"]["evidence"]
        chunk = await call(client, "get_chunk", chunk_id=nvidia["citation"]["chunk_id"])
        assert nvidia["quote"] in chunk["text"]
        # Other companies state it too; the statement counts them and cites every one named.
        assert theme["companies"] >= 2 and theme["filings"] >= theme["companies"]
        statement = theme["statement"]
        assert f"stated by {theme['companies']} companies in {theme['filings']} filings" in (
            statement
        )
        assert all(p in statement for p in theme["fiscal_periods"])
        numbers = [int(n) for n in re.findall(r"\[(\d+)\]", statement)]
        assert sorted(numbers) == sorted(m["citation"]["evidence"] for m in theme["members"])
        assert "NVIDIA" in statement and f"[{nvidia['citation']['evidence']}]" in statement
        checked = await call(client, "check_citations", answer=statement)
        assert checked["ok"], checked
        # The answer leads with the filing themes' statements, markers and all.
        assert out["answer"].startswith(out["filing_themes"][0]["statement"])
        checked = await call(client, "check_citations", answer=out["filing_themes"][0]["statement"])
        assert checked["ok"], checked
        # Without its markers the same sentence names companies uncited, and fails.
        bare = re.sub(r" \[\d+\]", "", statement)
        assert (await call(client, "check_citations", answer=bare))["uncited"]


async def test_period_as_of_and_the_age_limit_choose_the_filings(themes_root):
    async with session(themes_root) as client:
        fy2025 = await call(client, "community_themes", query="export controls", period="FY2025")
        for theme in fy2025["filing_themes"]:
            assert theme["fiscal_periods"] == ["FY2025"]
            assert all(m["fiscal_label"] == "FY2025" for m in theme["members"])
        assert fy2025["period"] == "FY2025"
        # Known by the end of March 2025: not HubSpot's 10-Q (filed 2025-08-06), which the
        # snapshot's own as_of includes.
        early = await call(
            client,
            "community_themes",
            query="export controls",
            as_of="2025-03-31",
            include_old=True,
        )
        assert early["as_of_asked"] == "2025-03-31"
        theme = _export_theme(early)
        assert "HubSpot" not in theme["statement"]
        for theme in early["filing_themes"]:
            assert all(
                dt.date.fromisoformat(m["citation"]["filed_date"]) <= dt.date(2025, 3, 31)
                for m in theme["members"]
            )
        now = await call(client, "community_themes", query="export controls", include_old=True)
        assert "HubSpot" in _export_theme(now)["statement"]
        # Before any two companies had filed, there is no theme across companies.
        assert (
            await call(client, "community_themes", query="export controls", as_of="2023-12-31")
        )["filing_themes"] == []
        # By default NVIDIA's FY2023 10-K (filed February 2023) is out of date against the
        # snapshot's as_of in 2025: left out, and counted.
        recent = await call(client, "community_themes", query="export controls")
        assert recent["old_filings_left_out"] >= 1
        assert all(
            m["citation"]["filing_id"] != NVDA_10K_FY2023
            for t in recent["filing_themes"]
            for m in t["members"]
        )
        assert "include_old" in recent["note"]
        everything = await call(
            client, "community_themes", query="export controls", include_old=True
        )
        assert everything["old_filings_left_out"] == 0
        # A calendar range: filings whose period ends in it.
        cal = await call(client, "community_themes", period="2024-01-01..2024-12-31", limit=3)
        for theme in cal["filing_themes"]:
            assert all(p.startswith("FY2024") or "2024" in p for p in theme["fiscal_periods"])
        # No question: the widest themes, by companies.
        broad = await call(client, "community_themes", include_old=True, limit=3)
        counts = [t["companies"] for t in broad["filing_themes"]]
        assert counts == sorted(counts, reverse=True) and counts[0] >= 3
        assert all(t["matched_by"] == "all" for t in broad["filing_themes"])


async def test_hostile_arguments(themes_root):
    async with session(themes_root) as client:
        for args, message in (
            ({"period": "FY24"}, "fiscal label"),
            ({"period": "../../etc/passwd"}, "fiscal label"),
            ({"period": "2024-06-30..2024-01-01"}, "after the end"),
            ({"period": "FY2024' OR '1'='1"}, "fiscal label"),
            ({"period": "FY9999"}, "outside"),
            ({"period": "9" * 41}, "40"),
            ({"as_of": "not a date"}, "date"),
            ({"as_of": "2024-02-30"}, "date"),
            ({"as_of": "NaN"}, "date"),
            ({"limit": 0}, "greater than or equal"),
        ):
            assert message in await error(client, "community_themes", **args), args
        # Odd but valid: a future date, a date before any filing, a query of symbols only.
        future = await call(client, "community_themes", as_of="2999-01-01", query="export")
        assert future["as_of_asked"] == "2999-01-01"
        none = await call(client, "community_themes", as_of="1990-01-01", query="export")
        assert none["filing_themes"] == [] and none["themes"] == []
        odd = await call(client, "community_themes", query="%%% ' ; --")
        assert isinstance(odd["filing_themes"], list)


async def test_relation_theme_statements_count_date_and_cite_and_check(themes_root):
    async with session(themes_root) as client:
        out = await call(client, "community_themes", query="competition", limit=5)
        relation = [t for t in out["themes"] if t["kind"] != "model"]
        assert relation, out["themes"]
        for theme in relation:
            statement = theme["statement"]
            assert theme["companies"] >= 1 and theme["filings"] >= theme["companies"]
            noun = "company" if theme["companies"] == 1 else "companies"
            filings = "filing" if theme["filings"] == 1 else "filings"
            assert (
                f"stated by {theme['companies']} {noun} in {theme['filings']} {filings}, "
                f"fiscal periods {', '.join(theme['fiscal_periods'])})."
            ) in statement
            assert theme["fiscal_periods"] and all(
                p.startswith(("FY", "Q")) for p in theme["fiscal_periods"]
            )
            # Every entity named carries the evidence number of its own citation.
            numbers = {int(n) for n in re.findall(r"\[(\d+)\]", statement)}
            by_entity = {c["entity_id"]: c["evidence"] for c in theme["citations"]}
            for entity in theme["entities"]:
                assert f"{entity['name']} [{by_entity[entity['entity_id']]}]" in statement
            assert numbers and numbers <= {c["evidence"] for c in theme["citations"]}
            checked = await call(client, "check_citations", answer=statement)
            assert checked["ok"], (statement, checked)
            bare = re.sub(r" \[\d+\]", "", statement)
            assert (await call(client, "check_citations", answer=bare))["uncited"], bare
        # The deterministic answer is those statements, markers and all: it checks as a whole.
        assert out["answer_by"] == "deterministic"
        assert relation[0]["statement"] in out["answer"]
        assert (await call(client, "check_citations", answer=out["answer"]))["ok"]
        # Counted over the window: as of a date before the 2025 filings, fewer filings support
        # a theme, and no period after the date is listed.
        early = await call(client, "community_themes", query="competition", as_of="2024-12-31")
        for theme in early["themes"]:
            # A filing with no filing date (the local filings of some companies) counts as known
            # at its period end: its fiscal period is checked instead.
            assert all((c["filed_date"] or "") <= "2024-12-31" for c in theme["citations"])
            assert "FY2025" not in theme["fiscal_periods"]
            assert (await call(client, "check_citations", answer=theme["statement"]))["ok"]
        fy = await call(client, "community_themes", query="competition", period="FY2024")
        for theme in fy["themes"]:
            assert theme["fiscal_periods"] == ["FY2024"]


async def test_mdna_statements_are_theme_members_cited_counted_and_checked(themes_root):
    async with session(themes_root) as client:
        out = await call(
            client,
            "community_themes",
            query="research and development expense",
            include_old=True,
            limit=5,
        )
        theme = next(t for t in out["filing_themes"] if t["mdna_statements"] >= 2)
        assert theme["companies"] >= 2
        assert theme["members_total"] == theme["risk_factors"] + theme["mdna_statements"]
        statement = theme["statement"]
        assert f"{theme['mdna_statements']} MD&A statements" in statement
        assert f"stated by {theme['companies']} companies in {theme['filings']} filings" in (
            statement
        )
        for member in theme["members"]:
            if member["kind"] != "mdna":
                continue
            # The statement is a sentence of the MD&A, verbatim, saying what changed and why.
            assert member["citation"]["section"] in ("10-K/Item 7", "10-Q/Part I/Item 2")
            chunk = await call(client, "get_chunk", chunk_id=member["citation"]["chunk_id"])
            assert member["quote"] in chunk["text"]
            assert "research" in member["quote"].lower() or "r&d" in member["quote"].lower()
            assert f"[{member['citation']['evidence']}]" in statement
        checked = await call(client, "check_citations", answer=statement)
        assert checked["ok"], checked
        bare = re.sub(r" \[\d+\]", "", statement)
        assert (await call(client, "check_citations", answer=bare))["uncited"]
        # The window applies to MD&A members as to risk factors.
        fy25 = await call(
            client, "community_themes", query="research and development expense", period="FY2025"
        )
        for t in fy25["filing_themes"]:
            assert t["fiscal_periods"] == ["FY2025"]
            assert all(m["fiscal_label"] == "FY2025" for m in t["members"])
