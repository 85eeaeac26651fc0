"""Local search (issue 24 item 3): one call that answers a question about named entities with
the bundle an analyst would otherwise gather in five — their neighbourhood in the knowledge
graph with each edge's quotes, their communities' reports, their latest reported metrics and
the best passages — packed under a size bound, every item cited. And shared neighbours: the
entities that two or more entities are all related to ("which suppliers do NVIDIA and Apple
share"), each with the edges that say so.

Everything is read through the tools' own queries and shapes (`neighbors`' adjacency query,
`search_chunks`' engine and name detection, `explore_company`'s key metrics, `community_themes`'
report briefs), so an edge or a passage reads the same here as there.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.retrieval.global_search import relation_themes_in_window
from graphrag_core.store.reader import METRIC_RELATIONS, PeriodFilter, Snapshot
from mcp_server import graph_queries, queries
from mcp_server.companies import KEY_METRICS
from mcp_server.context import CompanyIdArg, ToolContext, resolve_company, resolve_entity, stamp
from mcp_server.formatting import community_brief, metric_value
from mcp_server.graph_edges import edges_by_id, entity_ref
from mcp_server.graph_models import CommunityCitation, GraphEdge
from mcp_server.graph_time import (
    AsOfArg,
    PeriodArg,
    as_known,
    graph_time,
    key_metric_rows,
    time_filter,
    time_params,
)
from mcp_server.models import KeyMetric
from mcp_server.search import QUOTES_PER_EDGE, SearchTools, expand_edges
from mcp_server.search_models import (
    LocalCommunity,
    LocalMetrics,
    LocalSearchResult,
    SearchHit,
    SharedNeighbor,
    SharedNeighborsResult,
)

# The answer is packed to stay well under the server's answer cap, so it is never cut there
# (a cut answer loses the citations after the cut).
LOCAL_MAX_CHARS = 32_000
MAX_ENTITIES = 4
COMMUNITIES_SHOWN = 3
FINDINGS_PER_COMMUNITY = 2
CITATIONS_PER_COMMUNITY = 4
# How many edges of each entity a shared-neighbour question reads before intersecting.
SHARED_FANOUT = 1000
HIDDEN = list(METRIC_RELATIONS)

# Words of a question that say which relation it asks about; those edges are listed first.
_RELATION_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"\b(suppl\w*|vendors?|foundr\w*|manufactur\w+ partners?|sourc\w*)\b", re.I),
        "SUPPLIES",
    ),
    (re.compile(r"\b(customers?|clients?|buyers?|sells? to)\b", re.I), "CUSTOMER_OF"),
    (re.compile(r"\b(compet\w*|rivals?|peers?)\b", re.I), "COMPETES_WITH"),
    (re.compile(r"\b(subsidiar\w*|owns?|owned|parent)\b", re.I), "SUBSIDIARY_OF"),
    (re.compile(r"\b(risks?|exposed|exposure)\b", re.I), "EXPOSED_TO_RISK"),
)

Relation = Literal["SUPPLIES", "CUSTOMER_OF", "COMPETES_WITH", "SUBSIDIARY_OF", "EXPOSED_TO_RISK"]


def relations_asked(query: str) -> list[str]:
    """The relations a question's words ask about, in the order of the vocabulary."""
    return [relation for pattern, relation in _RELATION_WORDS if pattern.search(query)]


def pack(result: LocalSearchResult, max_chars: int = LOCAL_MAX_CHARS) -> LocalSearchResult:
    """Drop edges and passages from the end (the weakest), the longer list first, until the
    answer's JSON fits `max_chars`; `truncated` says so. Communities and metrics are few and
    bounded, and stay."""
    while len(result.model_dump_json()) > max_chars and (result.edges or result.passages):
        longer = "edges" if len(result.edges) >= len(result.passages) else "passages"
        getattr(result, longer).pop()
        result.truncated = True
    return result


class LocalSearch:
    """local_search and shared_neighbors over `ctx`'s reader, with `search`'s name detection
    and passage search."""

    def __init__(self, ctx: ToolContext, search: SearchTools):
        self.ctx = ctx
        self.search = search

    # -- pieces ------------------------------------------------------------------------------
    def _named(self, snap: Snapshot, query: str, company_id: str | None) -> list[dict[str, Any]]:
        """The companies the question names (company_id first), resolved to company rows."""
        ids: list[str] = []
        if company_id:
            ids.append(resolve_company(snap, company_id)["company_id"])
        ids.extend(self.search.known_names(snap)[0].find(query))
        return [resolve_company(snap, i) for i in list(dict.fromkeys(ids))[:MAX_ENTITIES]]

    @staticmethod
    def _relation_edges(
        snap: Snapshot,
        nodes: list[dict[str, Any]],
        relation: str,
        limit: int,
        when: PeriodFilter,
    ) -> list[str]:
        """Edge ids of one relation touching these nodes (either direction), strongest first."""
        found: list[str] = []
        for node in nodes:
            found.extend(
                r["edge_id"]
                for r in snap.query(
                    graph_queries.NEIGHBORS,
                    {
                        "entity_id": node["entity_id"],
                        "ord": node["adjacency_ord"],
                        "relation": relation,
                        "direction": "both",
                        **time_params(when),
                        "include_superseded": False,
                        "hidden": HIDDEN,
                        "limit": limit,
                    },
                )
            )
        return found

    def _edges(
        self,
        snap: Snapshot,
        nodes: list[dict[str, Any]],
        query: str,
        hops: int,
        limit: int,
        when: PeriodFilter,
    ) -> tuple[list[GraphEdge], bool]:
        """The relation the question asks about first, then the neighbourhood by strength."""
        asked: list[str] = []
        for relation in relations_asked(query):
            asked.extend(self._relation_edges(snap, nodes, relation, limit + 1, when))
        asked = list(dict.fromkeys(asked))
        first = edges_by_id(snap, asked[:limit], QUOTES_PER_EDGE)
        edges = [first[e] for e in asked[:limit] if e in first]
        rest, truncated = expand_edges(snap, [n["entity_id"] for n in nodes], hops, limit, when)
        seen = {e.edge_id for e in edges}
        for edge in rest:
            if edge.edge_id not in seen:
                edges.append(edge)
        shown = as_known(snap, when, edges[:limit], QUOTES_PER_EDGE)
        return shown, truncated or len(asked) > limit or len(edges) > limit

    @staticmethod
    def _communities(
        snap: Snapshot, entity_ids: list[str], when: PeriodFilter
    ) -> list[LocalCommunity]:
        if "community_reports" not in snap.manifest.counts:
            return []
        rows: dict[str, dict[str, Any]] = {}
        for r in snap.query(
            graph_queries.LOCAL_COMMUNITIES, {"entity_ids": entity_ids, "limit": 50}
        ):
            rows.setdefault(r["community_id"], r)
        chosen = list(rows.values())[:COMMUNITIES_SHOWN]
        if not chosen:
            return []
        findings: dict[str, list[dict[str, Any]]] = {}
        for f in snap.query(
            graph_queries.LOCAL_COMMUNITY_FINDINGS,
            {
                "ids": [r["community_id"] for r in chosen],
                # For a period or date more are read: some may have nothing in it.
                "per_community": FINDINGS_PER_COMMUNITY * (5 if when.active else 1),
            },
        ):
            findings.setdefault(f["community_id"], []).append(f)
        if when.active:
            # Reports are built over the whole graph: for a period or date each finding keeps
            # the partners cited in filings of the window, restated for them, and a community
            # with no finding left is not shown (as community_themes does with its themes).
            window = when if when.kind is not None else None
            findings = {
                cid: kept
                for cid, fs in findings.items()
                if (
                    kept := relation_themes_in_window(snap, fs, window, when.as_of)[
                        :FINDINGS_PER_COMMUNITY
                    ]
                )
            }
            chosen = [r for r in chosen if r["community_id"] in findings]
        cited = {
            c["chunk_id"] for fs in findings.values() for f in fs for c in f["citations"] or []
        }
        detail = {
            d["chunk_id"]: d
            for d in snap.query(graph_queries.CITED_CHUNK_DETAILS, {"chunks": sorted(cited)})
        }
        out = []
        for r in chosen:
            fs = findings.get(r["community_id"], [])
            cites = [c for f in fs for c in f["citations"] or []][:CITATIONS_PER_COMMUNITY]
            report = community_brief(r, float(r["weight"] or 0.0))
            if when.active:
                report.summary = " ".join(f["statement"] for f in fs)
            out.append(
                LocalCommunity(
                    report=report,
                    member=r["member_id"],
                    findings=[f["statement"] for f in fs],
                    citations=[
                        CommunityCitation(
                            filing_id=c["filing_id"],
                            form=detail.get(c["chunk_id"], {}).get("form"),
                            filed_date=detail.get(c["chunk_id"], {}).get("filed_date"),
                            section=detail.get(c["chunk_id"], {}).get("section"),
                            chunk_id=c["chunk_id"],
                            quote=c["quote"],
                            entity_id=c["entity_id"],
                        )
                        for c in cites
                    ],
                )
            )
        return out

    @staticmethod
    def _metrics(
        snap: Snapshot, companies: list[dict[str, Any]], when: PeriodFilter
    ) -> list[LocalMetrics]:
        out = []
        for company in companies:
            latest = key_metric_rows(snap, company["cik"], list(KEY_METRICS), when)
            by_kind = {(r["metric"], r["kind"]): metric_value(r) for r in latest}
            shown = [
                KeyMetric(
                    metric=m,
                    latest_annual=by_kind.get((m, "annual")),
                    latest_quarter=by_kind.get((m, "quarter")),
                )
                for m in KEY_METRICS
                if (m, "annual") in by_kind or (m, "quarter") in by_kind
            ]
            if shown:
                out.append(
                    LocalMetrics(
                        company=entity_ref(company["company_id"], "company", company["name"]),
                        key_metrics=shown,
                    )
                )
        return out

    def _passages(
        self,
        snap: Snapshot,
        query: str,
        companies: list[dict[str, Any]],
        k: int,
        when: PeriodFilter,
    ) -> tuple[list[SearchHit], str | None]:
        only = companies[0]["company_id"] if len(companies) == 1 else None
        # search_chunks reads a fiscal label, a calendar year or quarter; a range it does not.
        period = when.period if when.period and ".." not in when.period else None
        try:
            found = self.search.search_chunks(
                query=query,
                company_id=only,
                section=None,
                form=None,
                period=period,
                k=k,
                expand_hops=0,
            )
        except ToolError as exc:
            return [], f"no passages: {exc}"
        if found.snapshot != snap.version:
            return (
                [],
                f"no passages: snapshot {found.snapshot} was published during the call; ask again",
            )
        if when.as_of is None:
            return found.hits, None
        filed = {
            r["chunk_id"]: r["filed_date"]
            for r in snap.query(
                queries.SEARCH_HIT_DETAILS, {"chunk_ids": [h.chunk_id for h in found.hits]}
            )
        }
        known = [h for h in found.hits if (filed.get(h.chunk_id) or dt.date.max) <= when.as_of]
        return known, None

    # -- tools -------------------------------------------------------------------------------
    def local_search(
        self,
        query: Annotated[
            str,
            Field(
                min_length=2,
                max_length=500,
                description="the question, naming the company "
                "or companies it is about ('NVIDIA's suppliers and what it says about them')",
            ),
        ],
        company_id: CompanyIdArg = None,
        hops: Annotated[
            int,
            Field(
                ge=1,
                le=2,
                description="1: direct relations; 2: also the relations of those neighbours",
            ),
        ] = 1,
        max_edges: Annotated[int, Field(ge=1, le=40, description="most graph edges")] = 20,
        k: Annotated[int, Field(ge=0, le=10, description="passages to return (0: none)")] = 5,
        period: PeriodArg = None,
        as_of: AsOfArg = None,
    ) -> LocalSearchResult:
        """Everything about the companies a question names, in one call (local search): use it
        first for a question about one or a few named companies ("tell me about NVIDIA's
        suppliers and what it says about them", "Tesla's competitors and risks").

        Resolves the companies the question names (or `company_id`, from find_company), then
        returns: `edges`, their knowledge-graph neighbourhood (suppliers, customers,
        competitors, subsidiaries, risks; the relation the question asks about first, then the
        most cited), each edge with the verbatim sentences that state it; `communities`, the
        reports of the graph communities they belong to (summary, top findings with quotes);
        `metrics`, their latest annual and quarterly key figures (revenue, income, debt, equity
        in the unit shown, with the change vs a year earlier); and `passages`, the best
        passages of filings for the question. Every item is cited (its `evidence` number [n]
        is what an answer cites). The answer is packed under a size bound: `truncated` says
        edges or passages were left out (then use neighbors or search_chunks for more);
        `notes` say what was missing. For figures over time use get_metrics; for themes
        across many companies use community_themes. `period` / `as_of` keep everything to that
        period or date: edges stated for the period or known by the date (as in neighbors),
        passages of filings for the period filed by the date, community findings naming only
        partners cited in those filings (a community with none left is not shown), and key
        metrics of the period, as reported by the filings filed by the date.
        """
        when = graph_time(period, as_of)
        with self.ctx.lease() as snap:
            companies = self._named(snap, query, company_id)
            if not companies:
                raise ToolError(
                    f"the query {query[:80]!r} names no company of snapshot {snap.version}; "
                    "name one "
                    "(a name or ticker) or pass company_id from find_company"
                )
            refs = [entity_ref(c["company_id"], "company", c["name"]) for c in companies]
            notes: list[str] = []
            nodes = []
            for c in companies:
                found = snap.query(graph_queries.ENTITY, {"entity_id": c["company_id"]})
                if found:
                    nodes.append(found[0])
                else:
                    notes.append(f"{c['name']} has no relations in the knowledge graph")
            edges, truncated = (
                self._edges(snap, nodes, query, hops, max_edges, when) if nodes else ([], False)
            )
            communities = self._communities(snap, [c["company_id"] for c in companies], when)
            if "community_reports" not in snap.manifest.counts:
                notes.append("the snapshot has no community reports")
            metrics = self._metrics(snap, companies, when)
            passages, note = self._passages(snap, query, companies, k, when) if k else ([], None)
            if note:
                notes.append(note)
            return pack(
                LocalSearchResult(
                    **stamp(snap),
                    query=query,
                    entities=refs,
                    edges=edges,
                    communities=communities,
                    metrics=metrics,
                    passages=passages,
                    truncated=truncated,
                    notes=notes,
                    time_filter=time_filter(when),
                )
            )

    def shared_neighbors(
        self,
        entity_ids: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=128)]],
            Field(
                min_length=2,
                max_length=MAX_ENTITIES,
                description="two to four entity ids from "
                "find_company (CIK-0001045810, ORG:…, RISK:…; a ticker or CIK also works)",
            ),
        ],
        relation: Annotated[
            Relation | None,
            Field(description="only this relation; omit for all but metric relations"),
        ] = None,
        direction: Annotated[
            Literal["both", "out", "in"],
            Field(
                description="as in neighbors, for every entity: in = the entity is the object "
                "(shared suppliers: relation=SUPPLIES, direction=in); out = the subject"
            ),
        ] = "both",
        limit: Annotated[int, Field(ge=1, le=50, description="most shared neighbours")] = 20,
        period: PeriodArg = None,
        as_of: AsOfArg = None,
    ) -> SharedNeighborsResult:
        """The entities that every one of two to four entities is related to: "which suppliers
        do NVIDIA and Apple share?" (relation=SUPPLIES, direction=in), "which risks do Tesla and
        Ford both report?" (relation=EXPOSED_TO_RISK, direction=out), "whom do both compete
        with?" (relation=COMPETES_WITH).

        Each shared neighbour comes with one edge per entity asked about (the strongest, with
        the sentences that state it and their citations), ranked by the weakest of those edges'
        citation counts. The same as intersecting neighbors' answers for each entity, in one
        call. `period` / `as_of`: only edges stated for that period or known by that date (as
        in neighbors); `time_filter` says which.
        """
        when = graph_time(period, as_of)
        with self.ctx.lease() as snap:
            nodes = [resolve_entity(snap, e) for e in entity_ids]
            ids = list(dict.fromkeys(n["entity_id"] for n in nodes))
            if len(ids) < 2:
                raise ToolError("pass two or more different entities (these name the same one)")
            nodes = [next(n for n in nodes if n["entity_id"] == i) for i in ids]
            per_entity: list[dict[str, dict[str, Any]]] = []
            truncated = False
            for node in nodes:
                rows = snap.query(
                    graph_queries.NEIGHBORS,
                    {
                        "entity_id": node["entity_id"],
                        "ord": node["adjacency_ord"],
                        "relation": relation,
                        "direction": direction,
                        **time_params(when),
                        "include_superseded": False,
                        "hidden": HIDDEN,
                        "limit": SHARED_FANOUT + 1,
                    },
                )
                truncated = truncated or len(rows) > SHARED_FANOUT
                strongest: dict[str, dict[str, Any]] = {}
                for r in rows[:SHARED_FANOUT]:
                    strongest.setdefault(r["neighbor_id"], r)  # rows come strongest first
                per_entity.append(strongest)
            common = set(per_entity[0]).intersection(*per_entity[1:]) - set(ids)
            ranked = sorted(
                common, key=lambda n: (-min(p[n]["evidence_count"] for p in per_entity), n)
            )
            truncated = truncated or len(ranked) > limit
            ranked = ranked[:limit]
            found = edges_by_id(
                snap, [p[n]["edge_id"] for n in ranked for p in per_entity], QUOTES_PER_EDGE
            )
            edges = {
                e.edge_id: e for e in as_known(snap, when, list(found.values()), QUOTES_PER_EDGE)
            }
            shared = [
                SharedNeighbor(
                    neighbor=entity_ref(
                        n, per_entity[0][n]["neighbor_type"], per_entity[0][n]["neighbor_name"]
                    ),
                    edges=[edges[p[n]["edge_id"]] for p in per_entity if p[n]["edge_id"] in edges],
                    min_evidence=min(p[n]["evidence_count"] for p in per_entity),
                )
                for n in ranked
            ]
            return SharedNeighborsResult(
                **stamp(snap),
                entities=[entity_ref(n["entity_id"], n["entity_type"], n["name"]) for n in nodes],
                relation=relation,
                direction=direction,
                shared=shared,
                truncated=truncated,
                note=None
                if shared
                else "no neighbour is shared; try direction='both', another relation or none",
                time_filter=time_filter(when),
            )
