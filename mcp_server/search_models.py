"""Output models of the search-and-citations tools (search_chunks, check_citations) and of
local search, which packs graph edges, metrics and passages into one answer."""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from mcp_server.graph_models import CommunityBrief, CommunityCitation, EntityRef, GraphEdge
from mcp_server.models import (
    TIME_FILTER_FIELD,
    Citation,
    KeyMetric,
    Output,
    Stamped,
    TimeFilter,
)


# -- passages, citations, peers (retrieval) ---------------------------------------------------
class TableRows(Output):
    """A table hit's rows that match the query, with what reads them."""

    caption: str = Field(description="the table's caption lines (title, '(in millions)')")
    header: list[list[str]] = Field(description="the header rows' cells, as filed")
    rows: list[list[str]] = Field(
        description="the body rows holding the query's words, in the table's order"
    )
    scale: str | None = Field(
        description="the table's scale as stated, e.g. 'in millions'; figures are in it"
    )
    rows_total: int = Field(description="body rows of the whole table (get_chunk shows them all)")


class SearchHit(Output):
    chunk_id: str
    score: float = Field(description="fused relevance; compare within one answer only")
    company_id: str | None
    company: str | None
    form: str | None
    section: str | None = Field(description="e.g. '10-K/Item 1A'")
    section_title: str | None = Field(description="the section in words, e.g. 'Risk Factors'")
    kind: str | None = Field(description="prose or table")
    fiscal_label: str | None = Field(
        description="the filing's fiscal period, e.g. FY2025, Q2-FY2026"
    )
    period_end: dt.date | None
    passage: str = Field(
        description="the part of the chunk that best matches the query: whole sentences, verbatim "
        "(a table: its caption, header rows and matching rows)"
    )
    passage_start: int = Field(
        description="where the passage starts in the chunk's text (a table: its first row shown)"
    )
    passage_end: int | None = Field(None, description="where the passage ends in the chunk's text")
    heading: str | None = Field(
        None, description="the heading above the passage in the chunk, else the section title"
    )
    table: TableRows | None = Field(
        None, description="a table hit: its matching rows, header and scale"
    )
    chunk_chars: int | None = Field(description="length of the whole chunk; read it with get_chunk")
    matched: list[str] = Field(
        description="which searches found it: vector, full_text, company named"
    )
    citation: Citation


class SearchChunksResult(Stamped):
    query: str
    filters: dict[str, str | int | None]
    index_version: int = Field(description="chunk index version published with this snapshot")
    hits: list[SearchHit] = Field(description="best first")
    companies_named: list[str] = Field(
        description="company ids the query names (their passages rank higher)"
    )
    edges: list[GraphEdge] = Field(
        description="knowledge-graph edges touching the hits' companies (expand_hops ≥ 1), "
        "strongest "
        "first, each with its newest citations"
    )
    edges_truncated: bool


class UnresolvedCitation(Output):
    citation: str
    sentence: str


class UncitedSentence(Output):
    sentence: str
    figures: list[str]
    companies: list[str]


class UnsupportedFigure(Output):
    sentence: str
    figure: str
    citations: list[str] = Field(description="the evidence the sentence cites")
    cited_says: str | None = Field(
        None, description="what the cited metric values are, when they are"
    )


class MismatchedClaim(Output):
    sentence: str
    figure: str | None = Field(description="the figure at fault; null when a name or period is")
    citations: list[str] = Field(description="the evidence the sentence cites")
    problem: str = Field(description="what the sentence claims against what the citation holds")


class CheckCitationsResult(Stamped):
    ok: bool = Field(description="true when nothing below is listed")
    sentences: int
    cited_sentences: int
    unresolved: list[UnresolvedCitation] = Field(description="citations that point at nothing")
    uncited: list[UncitedSentence] = Field(
        description="sentences with figures or company names and no citation"
    )
    unsupported: list[UnsupportedFigure] = Field(
        description="cited figures absent from the cited evidence"
    )
    mismatched: list[MismatchedClaim] = Field(
        default_factory=list,
        description="cited figures or names the citation holds for another "
        "company, metric or period, and growth rates or ratios the server does not compute so",
    )
    summary: str
    evidence_known: int = Field(description="evidence numbers handed out in this session so far")


# -- local search (issue 24 item 3) -------------------------------------------------------------
class LocalCommunity(Output):
    report: CommunityBrief = Field(
        description="the community's report (relevance: the member's weight in it)"
    )
    member: str = Field(description="the entity asked about that belongs to it")
    findings: list[str] = Field(description="its top findings, strongest first")
    citations: list[CommunityCitation] = Field(description="the quotes those findings rest on")


class LocalMetrics(Output):
    company: EntityRef
    key_metrics: list[KeyMetric] = Field(
        description="latest annual and quarterly values, each cited"
    )


class LocalSearchResult(Stamped):
    query: str
    entities: list[EntityRef] = Field(
        description="what the question names (or company_id), resolved"
    )
    edges: list[GraphEdge] = Field(
        description="their neighbourhood, the relation the question asks about first, then the "
        "strongest; each edge with the sentences that state it"
    )
    communities: list[LocalCommunity]
    metrics: list[LocalMetrics]
    passages: list[SearchHit] = Field(description="the best passages for the query, each cited")
    truncated: bool = Field(
        description="more edges or passages than fit the size bound were left out"
    )
    notes: list[str] = Field(description="what could not be answered and why")
    time_filter: TimeFilter | None = TIME_FILTER_FIELD


class SharedNeighbor(Output):
    neighbor: EntityRef
    edges: list[GraphEdge] = Field(
        description="one edge per entity asked about, each with its citations"
    )
    min_evidence: int = Field(
        description="citations behind the weakest of those edges (the ranking)"
    )


class SharedNeighborsResult(Stamped):
    entities: list[EntityRef]
    relation: str | None
    direction: str
    shared: list[SharedNeighbor] = Field(
        description="the entities every one of them is related to, strongest first"
    )
    truncated: bool
    note: str | None = None
    time_filter: TimeFilter | None = TIME_FILTER_FIELD
