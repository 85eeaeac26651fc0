"""Communities of the knowledge graph and their reports: hierarchical Leiden that a rebuild
reproduces and that finds planted structure; staleness that marks exactly the communities of the
entities an update touched and withholds reports over removed or amended filings; reports whose
every finding cites evidence inside its community (extractive, and a model's behind a real
OpenAI-compatible server on loopback); and the global search over a published snapshot through
a real MCP client session."""

from __future__ import annotations

import json
import re

import numpy as np
import polars as pl
import pytest
from mcp import Client

from graphrag_core.graph.communities.clustering import Parameters, hierarchical_leiden, project
from graphrag_core.graph.communities.openai_summarizer import OpenAISummarizer
from graphrag_core.graph.communities.stage import (
    citations_inside,
    update_communities,
    update_reports,
)
from graphrag_core.graph.communities.store import CommunityStore
from graphrag_core.graph.communities.view import GraphView
from graphrag_core.graph.graph_store import GraphStore
from graphrag_core.graph.snapshot_inputs import gather_snapshot_tables
from graphrag_core.settings import CommunitySettings
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.reader import SnapshotReader
from mcp_server import build_server
from tests import community_world as w
from tests.mcp_client import call, session
from tests.openai_server import OpenAICompatibleServer, Reply

# Semiconductors form one community of 7 at level 0, split in two at level 1.
SMALL = CommunitySettings(max_size=3, resolution=0.5)


def params(**kw) -> Parameters:
    base = {
        "max_size": 8,
        "max_levels": 4,
        "seed": 42,
        "resolution": 1.0,
        "iterations": 2,
        "beta": 0.01,
    }
    return Parameters(**{**base, **kw})


def planted(
    groups: int, size: int, p_in: float, links: int, seed: int = 1
) -> tuple[list[str], pl.DataFrame]:
    """`groups` groups of `size` nodes, each pair inside a group related with probability
    `p_in`, and `links` random edges between groups."""
    rng = np.random.default_rng(seed)
    names = [f"ORG:g{g}-n{i}" for g in range(groups) for i in range(size)]
    rows = []
    for g in range(groups):
        for i in range(size):
            for j in range(i + 1, size):
                if rng.random() < p_in:
                    rows.append((names[g * size + i], names[g * size + j], int(rng.integers(1, 4))))
    for _ in range(links):
        a, b = rng.integers(0, len(names), 2)
        if a // size != b // size:
            rows.append((names[a], names[b], 1))
    return names, pl.DataFrame(rows, schema=["subject_id", "object_id", "weight"], orient="row")


def graph_of(filings) -> GraphStore:
    graph = GraphStore(None)
    graph.update_entities(w.frame_inputs(filings), w.reference())
    graph.update_graph()
    return graph


def clustered(graph: GraphStore, settings: CommunitySettings = SMALL) -> CommunityStore:
    store = CommunityStore(None)
    view = GraphView.of_store(graph)
    update_communities(store, view, settings, "apply")
    update_reports(store, view, settings, "apply")
    return store


def holding(store: CommunityStore, entity_id: str) -> set[str]:
    return set(
        store.frame("SELECT community_id FROM members WHERE entity_id = $e", {"e": entity_id})
        .get_column("community_id")
        .to_list()
    )


def dirty(store: CommunityStore) -> set[str]:
    return set(
        store.frame("SELECT community_id FROM communities WHERE dirty_since IS NOT NULL")
        .get_column("community_id")
        .to_list()
    )


# -- clustering ------------------------------------------------------------------------------------
def test_clustering_is_reproducible_for_a_fixed_seed():
    names, pairs = planted(groups=30, size=12, p_in=0.5, links=200)
    first = hierarchical_leiden(project(names, pairs), params())
    again = hierarchical_leiden(project(names, pairs), params())
    assert first.depth >= 2, "the size limit makes the groups split again"
    assert first.ids == again.ids and (first.paths == again.paths).all()
    assert [lv.modularity for lv in first.levels] == [lv.modularity for lv in again.levels]
    # Through the working store, on a graph of filings: the same communities under the same ids.
    graph = graph_of(w.world_filings())
    one, two = clustered(graph), clustered(graph)
    assert one.tables().members.equals(two.tables().members)
    assert (
        one.tables()
        .communities.drop("clustering_id")
        .equals(two.tables().communities.drop("clustering_id"))
    )


def test_the_hierarchy_is_a_forest_under_the_size_limit_with_singletons_kept():
    names, pairs = planted(groups=20, size=15, p_in=0.6, links=150, seed=3)
    names += ["ORG:alone-1", "ORG:alone-2"]  # entities with no relations at all
    proj = project(names, pairs)
    h = hierarchical_leiden(proj, params(max_size=6))
    roots = np.flatnonzero(h.level == 0)
    assert h.paths[0].shape[0] == len(names) and set(np.unique(h.paths[0])) == set(roots)
    for c in range(h.count):
        if h.parent[c] >= 0:  # a child holds a part of its parent
            lv = h.level[c]
            inside = np.flatnonzero(h.paths[lv] == c)
            assert (h.paths[lv - 1][inside] == h.parent[c]).all()
        if not h.is_leaf[c]:
            assert h.size[c] > 6
    singletons = [
        h.size[h.paths[0][proj.node_ids.index(n)]] for n in ("ORG:alone-1", "ORG:alone-2")
    ]
    assert singletons == [1, 1]
    assert [lv.level for lv in h.levels] == list(range(h.depth)) and h.levels[0].modularity > 0.5


def test_a_planted_structure_of_two_dense_groups_joined_by_one_edge_is_recovered():
    rng = np.random.default_rng(7)
    a = [f"ORG:a{i}" for i in range(10)]
    b = [f"ORG:b{i}" for i in range(10)]
    rows = [
        (g[i], g[j], int(rng.integers(1, 5)))
        for g in (a, b)
        for i in range(10)
        for j in range(i + 1, 10)
        if rng.random() < 0.8
    ]
    rows.append((a[0], b[0], 1))
    proj = project(
        a + b, pl.DataFrame(rows, schema=["subject_id", "object_id", "weight"], orient="row")
    )
    h = hierarchical_leiden(proj, params(max_size=25))
    found = {
        frozenset(proj.node_ids[i] for i in np.flatnonzero(h.paths[0] == c)) for c in range(h.count)
    }
    assert found == {frozenset(a), frozenset(b)}
    assert h.levels[0].modularity > 0.4


# -- staleness -------------------------------------------------------------------------------------
AMD_ID = f"CIK-{w.AMD}"


def test_adding_edges_to_one_entity_marks_exactly_its_communities_dirty():
    filings = w.world_filings()
    graph = graph_of(filings)
    store = clustered(graph)
    expected = holding(store, AMD_ID)
    assert len(expected) >= 2, "AMD sits in a community at two levels"
    assert not dirty(store)
    before = {r["community_id"]: r for r in store.tables().reports.iter_rows(named=True)}

    fid, added = w.extra_filing(
        w.AMD,
        [
            (
                "we",
                "COMPETES_WITH",
                "Tenstorrent Inc.",
                "We also compete with Tenstorrent Inc. in AI chips.",
            ),
            (
                "we",
                "EXPOSED_TO_RISK",
                "tariffs",
                "Tariffs on imported components could raise our costs.",
            ),
        ],
    )
    graph.update_entities(w.frame_inputs({**filings, fid: added}), w.reference())
    graph.update_graph()
    view = GraphView.of_store(graph)
    report = update_communities(store, view, SMALL, "apply").applied
    assert report is not None and report.members_added == 1 and report.communities_added == 0
    assert dirty(store) == expected
    assert (
        holding(store, "ORG:tenstorrent") == expected
    )  # the new organization joins AMD's communities

    # Until the refresh, the dirty reports are served stale, with the as_of they were built at.
    update_reports(store, view, SMALL, "apply")
    served = {r["community_id"]: r for r in store.tables().reports.iter_rows(named=True)}
    assert {c for c, r in served.items() if r["stale"]} == expected
    assert all(
        served[c]["as_of"] == before[c]["as_of"] and served[c]["summary"] == before[c]["summary"]
        for c in expected
    )
    statuses = dict(store.tables().communities.select("community_id", "report_status").iter_rows())
    assert {c for c, s in statuses.items() if s == "stale"} == expected

    update_reports(store, view, SMALL, "refresh")
    assert not dirty(store)
    fresh = {r["community_id"]: r for r in store.tables().reports.iter_rows(named=True)}
    leaf = max(expected, key=lambda c: int(c[1]))
    assert "Tenstorrent" in " ".join(
        store.tables()
        .findings.filter(pl.col("community_id") == leaf)
        .get_column("statement")
        .to_list()
    )
    assert not any(r["stale"] for r in fresh.values())
    assert fresh[leaf]["graph_version"] == view.version() > before[leaf]["graph_version"]
    # Untouched communities kept their reports as they were.
    for c in set(before) - expected:
        assert fresh[c]["built_at"] == before[c]["built_at"]

    # The filing withdrawn again: Tenstorrent leaves the graph; its communities are dirty, and a
    # snapshot lists it in none of them.
    graph.update_entities(w.frame_inputs(filings), w.reference())
    graph.update_graph()
    view = GraphView.of_store(graph)
    update_communities(store, view, SMALL, "apply")
    nodes = graph.tables().nodes.select("entity_id")
    assert "ORG:tenstorrent" not in set(nodes.get_column("entity_id").to_list())
    assert dirty(store) == expected
    published = store.tables().consistent(
        pl.DataFrame({"filing_id": list(filings)}),
        graph.tables().edge_evidence.select("evidence_id"),
        nodes,
    )
    assert "ORG:tenstorrent" not in set(published.members.get_column("entity_id").to_list())


def test_edges_that_come_back_as_they_were_leave_no_report_stale():
    """An update that changes AMD's edges makes its communities dirty; a later one that puts them
    back exactly as the reports were built from (a regressed run, then the fixed one) makes
    them clean again, so an unchanged graph publishes an unchanged snapshot."""
    filings = w.world_filings()
    graph = graph_of(filings)
    store = clustered(graph)
    expected = holding(store, AMD_ID)
    fid, added = w.extra_filing(
        w.AMD,
        [
            (
                "we",
                "COMPETES_WITH",
                "Intel Corporation",
                "We compete with Intel Corporation in servers too.",
            )
        ],
    )
    graph.update_entities(w.frame_inputs({**filings, fid: added}), w.reference())
    graph.update_graph()
    update_communities(store, GraphView.of_store(graph), SMALL, "apply")
    assert dirty(store) == expected

    graph.update_entities(w.frame_inputs(filings), w.reference())
    graph.update_graph()
    outcome = update_communities(store, GraphView.of_store(graph), SMALL, "apply")
    assert outcome.applied is not None and outcome.applied.restored == len(expected)
    assert not dirty(store)
    assert set(store.tables().communities.get_column("report_status").to_list()) <= {
        "current",
        "no_evidence",
    }

    # A filing taken away withholds the reports over it; put back as it was, they are served again.
    micron_10k = w.accession(w.MU, 2024)
    graph.update_entities(
        w.frame_inputs({k: v for k, v in filings.items() if k != micron_10k}), w.reference()
    )
    graph.update_graph()
    update_communities(store, GraphView.of_store(graph), SMALL, "apply")
    assert "withheld" in store.tables().communities.get_column("report_status").to_list()
    graph.update_entities(w.frame_inputs(filings), w.reference())
    graph.update_graph()
    update_communities(store, GraphView.of_store(graph), SMALL, "apply")
    assert set(store.tables().communities.get_column("report_status").to_list()) <= {
        "current",
        "no_evidence",
    }


def _publish(tmp_path, filings, graph: GraphStore, store: CommunityStore) -> str:
    tables = w.write_store(tmp_path, filings)
    snapshot = gather_snapshot_tables(tables, w.company_reference(), graph.tables(), store.tables())
    return SnapshotStore(tmp_path).publish(snapshot).version


def test_a_report_over_a_removed_filing_is_withheld_until_rebuilt(tmp_path):
    filings = w.world_filings()
    graph = graph_of(filings)
    store = clustered(graph)
    micron_10k = w.accession(w.MU, 2024)
    over_micron = {
        r["community_id"]
        for r in store.tables().reports.iter_rows(named=True)
        if micron_10k in r["source_filings"]
    }
    assert over_micron

    remaining = {k: v for k, v in filings.items() if k != micron_10k}
    graph.update_entities(w.frame_inputs(remaining), w.reference())
    graph.update_graph()
    view = GraphView.of_store(graph)
    update_communities(store, view, SMALL, "apply")
    tables = store.tables()
    status = {r["community_id"]: r for r in tables.communities.iter_rows(named=True)}
    assert {c for c, r in status.items() if r["report_status"] == "withheld"} == over_micron
    assert all(
        f"source filing {micron_10k} was removed" == status[c]["status_reason"] for c in over_micron
    )
    assert not set(tables.reports.get_column("community_id").to_list()) & over_micron

    # The published snapshot does not serve them; the search says how many are withheld.
    data_root = tmp_path / "data"
    _publish(data_root, remaining, graph, store)
    with SnapshotReader(data_root).lease() as snap:
        published = {
            r["community_id"] for r in snap.query("SELECT community_id FROM community_reports")
        }
        assert not published & over_micron
        cited = snap.query(
            "SELECT DISTINCT unnest(citations).filing_id AS f FROM community_findings"
        )
        assert micron_10k not in {r["f"] for r in cited}

    update_reports(store, view, SMALL, "refresh")
    statuses = set(store.tables().communities.get_column("report_status").to_list())
    assert "withheld" not in statuses and "stale" not in statuses
    assert all(
        micron_10k not in r["source_filings"] for r in store.tables().reports.iter_rows(named=True)
    )


def test_a_report_over_an_amended_filing_is_withheld():
    filings = w.world_filings()
    graph = graph_of(filings)
    store = clustered(graph)
    nvda_10k = w.accession(w.NVDA, 2025)
    fid, amendment = w.extra_filing(
        w.NVDA,
        [
            (
                "we",
                "EXPOSED_TO_RISK",
                "export controls",
                "Export controls now require licenses for our products.",
            )
        ],
        form="10-K/A",
        fiscal_year=2024,
        filed="2025-04-30",
    )
    graph.update_entities(w.frame_inputs({**filings, fid: amendment}), w.reference())
    graph.update_graph()
    update_communities(store, GraphView.of_store(graph), SMALL, "apply")
    reasons = (
        store.tables()
        .communities.filter(pl.col("report_status") == "withheld")
        .get_column("status_reason")
    )
    assert reasons.len() and all(
        r == f"source filing {nvda_10k} was amended by {fid}" for r in reasons
    )


def test_a_refresh_reclusters_once_the_dirty_share_reaches_the_threshold():
    filings = w.world_filings()
    fid, added = w.extra_filing(
        w.JPM,
        [
            (
                "we",
                "COMPETES_WITH",
                "Goldman Sachs Group, Inc.",
                "We compete with Goldman Sachs Group, Inc.",
            )
        ],
    )
    for threshold, action in ((1.0, "applied"), (0.05, "reclustered")):
        graph = graph_of(filings)
        store = clustered(graph)
        graph.update_entities(w.frame_inputs({**filings, fid: added}), w.reference())
        graph.update_graph()
        settings = SMALL.model_copy(update={"dirty_threshold": threshold})
        outcome = update_communities(store, GraphView.of_store(graph), settings, "refresh")
        assert outcome.action == action, outcome.why
    assert outcome.applied is not None and outcome.applied.dirty_fraction >= 0.05
    assert not dirty(store)  # a re-clustering starts clean
    assert (
        update_communities(store, GraphView.of_store(graph), SMALL, "recluster").action
        == "reclustered"
    )


# -- reports ---------------------------------------------------------------------------------------
def _inside(graph: GraphStore, store: CommunityStore) -> None:
    """Every citation of every finding and summary: evidence of that edge, the edge inside the
    community; every entity a statement names is a partner with its own citation."""
    edges = {r["edge_id"]: r for r in graph.tables().edges.iter_rows(named=True)}
    evidence = {
        r["evidence_id"]: r["edge_id"] for r in graph.tables().edge_evidence.iter_rows(named=True)
    }
    members: dict[str, set[str]] = {}
    for cid, ent in store.tables().members.select("community_id", "entity_id").iter_rows():
        members.setdefault(cid, set()).add(ent)
    tables = store.tables()
    cites = [
        (f["community_id"], c)
        for f in tables.findings.iter_rows(named=True)
        for c in f["citations"]
    ]
    cites += [
        (r["community_id"], c)
        for r in tables.reports.iter_rows(named=True)
        for c in r["summary_citations"]
    ]
    assert cites
    for cid, c in cites:
        edge = edges[c["edge_id"]]
        assert evidence[c["evidence_id"]] == c["edge_id"]
        assert edge["subject_id"] in members[cid]
        assert edge["object_id"] in members[cid] or edge["object_id"].startswith("RISK:")
    for f in tables.findings.iter_rows(named=True):
        if f["kind"] != "model":
            assert f["partners"] and all(
                p["name"] in f["statement"] and p["citation"] for p in f["partners"]
            )


def test_every_finding_of_every_report_cites_evidence_inside_its_community():
    graph = graph_of(w.world_filings())
    store = clustered(graph)
    _inside(graph, store)
    verdict = citations_inside(store, GraphView.of_store(graph))
    assert verdict.passed and verdict.figures["citations"] > 20
    reports = store.tables().reports
    assert reports.height >= 3 and (reports.get_column("findings") > 0).all()
    semis = reports.filter(
        pl.col("member_companies")
        .list.eval(pl.element().struct.field("entity_id"))
        .list.contains(AMD_ID)
    )
    row = semis.sort("level").row(0, named=True)
    assert {r["risk_id"] for r in row["risks"]} >= {"RISK:export-controls"}
    assert 0 <= row["impact_rating"] <= 10 and "compan" in row["impact_explanation"]
    assert row["source_filings"] and row["as_of"] is not None and row["graph_version"] >= 1
    # A parent's report merges its children's: the export-controls finding names every company.
    export = semis.join(store.tables().findings, on="community_id").filter(
        pl.col("theme") == "risk:RISK:export-controls"
    )
    assert export.height


def _scripted_report(body: dict) -> Reply:
    """A model that writes one finding citing evidence it was shown, one citing a number it was
    not shown, one citing a chunk of another community, and one citing nothing."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    outside = (
        f"{w.accession(w.JPM, 2025)}:0001"
        if "JPMORGAN" not in user and "WELLS" not in user
        else f"{w.accession(w.NVDA, 2025)}:0001"
    )
    return Reply(
        json.dumps(
            {
                "title": "A scripted title",
                "summary": "A summary resting on the first piece of evidence.",
                "summary_citations": ["E1"],
                "findings": [
                    {"statement": "The first piece of evidence says so.", "citations": ["E1"]},
                    {"statement": "Evidence it was never shown.", "citations": ["E999"]},
                    {"statement": "Evidence of another community.", "citations": [outside]},
                    {"statement": "No citation at all.", "citations": []},
                ],
                "impact_rating": 7,
                "impact_explanation": "scripted",
            }
        )
    )


def test_the_model_summarizer_keeps_only_findings_cited_inside_the_community():
    graph = graph_of(w.world_filings())
    with OpenAICompatibleServer(_scripted_report) as server:
        settings = SMALL.model_copy(update={"base_url": server.base_url, "model": "scripted"})
        assert settings.resolved_summarizer() == "openai"
        store = CommunityStore(None)
        view = GraphView.of_store(graph)
        update_communities(store, view, settings, "apply")
        result = update_reports(store, view, settings, "apply")
        assert server.requests and server.requests[0]["model"] == "scripted"
    reports = store.tables().reports
    assert (
        result.built == reports.height
        and (reports.get_column("summarizer") == "openai:scripted").all()
    )
    assert (
        reports.get_column("findings_dropped") == 3
    ).all() and result.findings_dropped == 3 * reports.height
    assert (reports.get_column("title") == "A scripted title").all()
    findings = store.tables().findings
    assert (findings.get_column("kind") == "model").all() and findings.height == reports.height
    _inside(graph, store)
    assert citations_inside(store, view).passed


def test_a_failed_model_reply_keeps_the_extractive_report():
    graph = graph_of(w.world_filings())
    with OpenAICompatibleServer(lambda body: Reply("not json at all")) as server:
        settings = SMALL.model_copy(update={"base_url": server.base_url, "model": "scripted"})
        store = CommunityStore(None)
        view = GraphView.of_store(graph)
        update_communities(store, view, settings, "apply")
        update_reports(store, view, settings, "apply", summarizer=OpenAISummarizer(settings))
    reports = store.tables().reports
    assert (reports.get_column("summarizer") == "extractive:fallback").all()
    assert (store.tables().findings.get_column("kind") != "model").all()


# -- the global search over MCP ---------------------------------------------------------------
@pytest.fixture
def world_snapshot(tmp_path):
    filings = w.world_filings()
    graph = graph_of(filings)
    store = clustered(graph)
    version = _publish(tmp_path, filings, graph, store)
    return tmp_path, version


SEMIS = {f"CIK-{c}" for c in (w.NVDA, w.AMD, w.MU, w.INTC)}
BANKS = {f"CIK-{c}" for c in (w.JPM, w.WFC, w.C)}


async def test_community_themes_answers_sector_questions_with_citations(world_snapshot):
    data_root, version = world_snapshot
    async with session(data_root) as client:
        semis = await call(client, "community_themes", sector="semiconductors")
        assert (semis["snapshot"], semis["sic_codes"], semis["sector_matched"]) == (
            version,
            ["3674"],
            "semiconductors",
        )
        risk = next(t for t in semis["themes"] if t["theme"] == "risk:RISK:export-controls")
        assert {e["entity_id"] for e in risk["entities"]} == {
            f"CIK-{w.NVDA}",
            AMD_ID,
            f"CIK-{w.MU}",
        }
        # Each company named with its evidence number, then the theme's support.
        assert (
            "report export controls and sanctions risk (stated by 3 companies in 3 filings"
            in (risk["statement"])
        )
        numbers = {f"[{c['evidence']}]" for c in risk["citations"]}
        assert all(n in risk["statement"] for n in numbers) and len(numbers) == 3
        for theme in semis["themes"]:
            assert theme["citations"]
            if theme["kind"] == "risk":
                assert {e["entity_id"] for e in theme["entities"]} <= SEMIS
        cite = risk["citations"][0]
        chunk = await call(client, "get_chunk", chunk_id=cite["chunk_id"])
        assert cite["quote"] in chunk["text"] and cite["section"] == "10-K/Item 1A"
        assert not {e["entity_id"] for t in semis["themes"] for e in t["entities"]} & BANKS

        banks = await call(client, "community_themes", sector="banks")
        assert banks["sic_codes"] == ["6021"]
        assert {e["entity_id"] for t in banks["themes"] for e in t["entities"]} & BANKS
        assert not {e["entity_id"] for t in banks["themes"] for e in t["entities"]} & SEMIS

        words = await call(client, "community_themes", query="export controls")
        assert (
            words["terms"] == ["export", "control"]
            and words["themes"][0]["theme"] == "risk:RISK:export-controls"
        )

        broad = await call(client, "community_themes", limit=3)
        assert broad["levels_used"] == [0] and len(broad["themes"]) == 3 and broad["truncated"]
        assert broad["communities"][0]["title"] and broad["answer"]

        unknown = await call(client, "community_themes", sector="shipbuilding")
        assert unknown["themes"] == [] and "no company" in unknown["note"]
        bad = await client.call_tool("community_themes", {"level": -1})
        assert bad.is_error


async def test_community_themes_reads_sectors_and_industries_as_every_tool_does(world_snapshot):
    """The SIC-based sector ("Information Technology"), the finer industry ("semiconductors"), a
    SIC code and SEC's own description name the same companies here; the matched name says
    which it was. Odd arguments find no company and say so."""
    data_root, _ = world_snapshot
    async with session(data_root) as client:
        semis = await call(client, "community_themes", sector="semiconductors")
        for sector, named in [
            ("Information Technology", "Information Technology"),
            ("tech", "Information Technology"),
            ("3674", "semiconductors"),
            ("Semiconductors & Related Devices", None),
        ]:
            out = await call(client, "community_themes", sector=sector)
            assert (out["sector_matched"], out["sic_codes"]) == (named, ["3674"]), sector
            assert out["themes"] == semis["themes"]
        financials = await call(client, "community_themes", sector="Financials")
        assert financials["sic_codes"] == ["6021"]
        assert {e["entity_id"] for t in financials["themes"] for e in t["entities"]} & BANKS
        assert not {e["entity_id"] for t in financials["themes"] for e in t["entities"]} & SEMIS
        for odd in ("   ", "nan", "../../etc/passwd", "'; DROP TABLE companies; --", "Utilities"):
            out = await call(client, "community_themes", sector=odd)
            assert out["themes"] == [] and "no company" in out["note"], odd


async def test_community_themes_descends_to_the_level_that_fits(world_snapshot):
    data_root, _ = world_snapshot
    async with session(data_root) as client:
        top = await call(client, "community_themes", level=0)
        assert top["levels_used"] == [0]
        deep = await call(client, "community_themes", sector="semiconductors", query="competitors")
        assert "descended" in deep["selection"]
        assert all(c["level"] in deep["levels_used"] for c in deep["communities"])


async def test_community_themes_with_a_model_writes_a_cited_answer(world_snapshot):
    data_root, _ = world_snapshot
    replies = iter(
        [
            Reply(json.dumps({"answer": "Export controls weigh on three chipmakers [T1]."})),
            Reply(json.dumps({"answer": "An answer citing no theme."})),
        ]
    )
    with OpenAICompatibleServer(lambda body: next(replies)) as server:
        settings = CommunitySettings(base_url=server.base_url, model="scripted")
        reader = SnapshotReader(data_root)
        try:
            async with Client(build_server(reader, community_settings=settings)) as client:
                first = await call(
                    client, "community_themes", sector="semiconductors", query="export controls"
                )
                assert first["answer_by"] == "model:scripted" and "[T1]" in first["answer"]
                assert re.search(r"T1", server.requests[0]["messages"][1]["content"])
                second = await call(client, "community_themes", sector="semiconductors")
                assert (
                    second["answer_by"] == "deterministic"
                    and "deterministic answer" in second["note"]
                )
        finally:
            reader.close()


def test_the_refresh_and_recluster_schedules_are_registered(tmp_path):
    import dagster as dg

    from graphrag_core.settings import Settings
    from pipelines.definitions import build_definitions

    settings = Settings(data_root=tmp_path, communities=CommunitySettings(refresh_cron="0 5 * * *"))
    defs = build_definitions(settings)
    refresh = defs.resolve_schedule_def("community_refresh_schedule")
    recluster = defs.resolve_schedule_def("community_recluster_schedule")
    assert (refresh.cron_schedule, refresh.job_name) == ("0 5 * * *", "refresh_communities")
    assert (recluster.cron_schedule, recluster.job_name) == ("0 3 1 * *", "recluster_communities")
    assert refresh.default_status == dg.DefaultScheduleStatus.STOPPED
    for name, mode in (("refresh_communities", "refresh"), ("recluster_communities", "recluster")):
        job = defs.resolve_job_def(name)
        assert {k.to_user_string() for k in job.asset_layer.executable_asset_keys} == {
            "communities",
            "community_reports",
            "filing_themes",
            "graph_snapshot",
        }
        assert job.run_config["ops"]["communities"]["config"]["mode"] == mode
        assert job.run_config["ops"]["filing_themes"]["config"]["mode"] == mode
