"""The server: `build_server` makes one `ToolContext` over the reader, binds every tool family
to it and registers their tools, each wrapped so its citations get session evidence numbers
and its answer is capped (`mcp_server.evidence`)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp_types import ToolAnnotations

from graphrag_core.settings import CommunitySettings, RetrievalSettings
from graphrag_core.store.reader import SnapshotReader
from mcp_server.changes_across import ChangesAcross
from mcp_server.companies import CompanyTools
from mcp_server.context import ToolContext
from mcp_server.evidence import Ledgers, with_evidence
from mcp_server.fact_search import FactSearch
from mcp_server.financials import FinancialsTools
from mcp_server.graph import GraphTools
from mcp_server.local_search import LocalSearch
from mcp_server.output_schemas import flat_schema
from mcp_server.screens import ScreenTools
from mcp_server.search import SearchTools
from mcp_server.status import StatusTools
from mcp_server.themes import ThemeTools
from mcp_server.what_changed import WhatChangedTools


def tool_annotations(title: str, open_world: bool) -> ToolAnnotations:
    """Every tool only reads the published snapshot (read-only, idempotent, never destructive);
    `open_world` when this server's configuration lets the tool send text to a model endpoint
    outside it (an answer model, an embeddings service), so a client can tell which tools may
    reach one."""
    return ToolAnnotations(
        title=title,
        read_only_hint=True,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=open_world,
    )


INSTRUCTIONS = """\
Reported financials and filing text of SEC registrants, from a published, versioned snapshot of
EDGAR filings. Read-only. Every answer carries `snapshot` (version) and `as_of` (newest filing
date known): say how current an answer is when it matters.

Typical flow: find_company → company_id; explore_company for a first look; get_metrics for
values and histories; get_chunk on a citation's chunk_id to quote the filing;
screen_companies to filter many companies; compare_companies to line peers up on the same
calendar period; search_chunks for what filings say in words; status for coverage and freshness.
Relationship questions (suppliers, customers, competitors, subsidiaries, shared risks) go to the
knowledge graph: get_ontology for its vocabulary, neighbors around one entity (one or two hops),
graph_path between two; every edge comes with the sentence that states it.
Any other reported number (a statement line outside get_metrics' metrics, a note's figure) and
revenue or operating income per segment, product or geography: search_facts, by words.
Every citation carries an evidence number [n], stable for the session: cite claims as [n] and
run check_citations on a draft before giving it. Answers are capped at about 40,000 characters
(`capped` says what was left out).
Questions about many companies at once ("dominant risk themes among semiconductor companies",
"which supply chains are exposed to export controls") go to community_themes: themes merged
from reports on communities of the graph and themes the companies state in their own risk
factors, each finding cited; it too takes `period` and `as_of`.
A question about one or a few named companies ("NVIDIA's suppliers and what it says about
them") can start with local_search: their graph neighbourhood with quotes, their communities,
latest metrics and the best passages in one call, every item cited; what several entities all
share (suppliers, risks, competitors) is shared_neighbors.
What a newer filing changes (risk factors, relations, guidance, restated figures): what_changed;
one topic across companies ("who added an export-control risk factor this year?"):
changes_across. The graph tools take `period` and `as_of` to answer for a period or as known on
a date.
Numbers come from filings, each with a citation; growth and ratios are computed by the server.
Quote them with their fiscal labels and citations; do not invent figures or give investment
advice."""


def build_server(
    reader: SnapshotReader,
    retrieval: RetrievalSettings | None = None,
    community_settings: CommunitySettings | None = None,
) -> MCPServer:
    """The MCP server over `reader`'s snapshots, every tool read-only and idempotent, and
    open-world where this configuration lets it call a model endpoint (`tool_annotations`). Every
    answer's citations get session evidence numbers, and every answer is capped in size
    (`mcp_server.evidence`). `community_settings`: the model endpoint community_themes may
    write its answer with; `retrieval`: the embeddings search_chunks, local_search,
    what_changed and changes_across use."""
    ctx = ToolContext(reader)
    ledgers = Ledgers()
    retrieval = retrieval or RetrievalSettings()
    companies = CompanyTools(ctx)
    screens = ScreenTools(ctx)
    graph = GraphTools(ctx)
    search = SearchTools(ctx, retrieval, ledgers)
    themes = ThemeTools(ctx, community_settings, retrieval)
    status = StatusTools(ctx)
    local = LocalSearch(ctx, search)
    changed = WhatChangedTools(ctx, retrieval)
    across = ChangesAcross(changed)
    # Which tools may call a model outside the server is known here, from the configuration:
    # the annotations say it for this server, not for every configuration it could have.
    themes_out, embeddings = themes.calls_a_model(), search.calls_an_endpoint()
    tools: list[Tool] = []
    for fn, title, open_world in (
        (companies.find_company, "Find a company", False),
        (companies.get_metrics, "Reported metrics of a company", False),
        (screens.screen_companies, "Screen companies on reported fundamentals", False),
        (search.get_chunk, "Read a cited filing chunk", False),
        (companies.explore_company, "Explore a company", False),
        (graph.neighbors, "Relations of an entity in the knowledge graph", False),
        (graph.graph_path, "Shortest paths between two entities", False),
        (status.get_ontology, "The knowledge graph's vocabulary", False),
        (themes.community_themes, "Themes across companies (global search)", themes_out),
        (status.status, "Snapshot status", False),
        (search.search_chunks, "Search filing passages", embeddings),
        (screens.compare_companies, "Compare peers on the calendar", False),
        (search.check_citations, "Check a draft's citations", False),
        (FactSearch(ctx).search_facts, "Search any reported fact of a company", False),
        (FinancialsTools(ctx).get_financials, "A financial statement as filed", False),
        (changed.what_changed, "What changed between two filings", changed.calls_an_endpoint()),
        (
            across.changes_across,
            "Which companies changed a risk factor on a topic",
            across.calls_an_endpoint(),  # it embeds the topic and the factors
        ),
        (
            local.local_search,
            "Everything about the companies a question names (local search)",
            embeddings,  # its passages come from search_chunks
        ),
        (local.shared_neighbors, "Neighbours that several entities share", False),
    ):
        tool = Tool.from_function(
            with_evidence(fn, ledgers),
            title=title,
            annotations=tool_annotations(title, open_world),
            structured_output=True,
        )
        # Published before any client reads it; the server still checks answers with pydantic.
        if tool.fn_metadata.output_schema is not None:
            tool.fn_metadata.output_schema = flat_schema(tool.fn_metadata.output_schema)
        tools.append(tool)
    return MCPServer("filings-graph", instructions=INSTRUCTIONS, version=_version(), tools=tools)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("filings-graphrag")
    except PackageNotFoundError:
        return "0"
