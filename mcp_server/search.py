"""The search-and-citations family: search_chunks (passages by meaning and words, with graph
expansion), get_chunk (a cited chunk's verbatim text) and check_citations (a drafted answer's
citations checked against what they cite, no model). The snapshot's company names, which both
search and the citation check read, are cached here per snapshot version.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.retrieval.citations import Evidence, check_answer
from graphrag_core.retrieval.claims import ChunkRecord, CompanyNames, FactRecord
from graphrag_core.retrieval.passages import TablePassage, hit_passage
from graphrag_core.retrieval.search import Filters, Mentions, SearcherCache, SearchError
from graphrag_core.settings import RetrievalSettings
from graphrag_core.store.reader import METRIC_RELATIONS, PeriodFilter, Snapshot
from mcp_server import graph_queries, queries
from mcp_server.context import CompanyIdArg, ToolContext, resolve_company, stamp
from mcp_server.evidence import Ledgers
from mcp_server.graph_edges import edges_by_id
from mcp_server.graph_models import GraphEdge
from mcp_server.graph_time import NO_TIME, time_params
from mcp_server.models import ChunkResult, Citation
from mcp_server.search_models import (
    CheckCitationsResult,
    MismatchedClaim,
    SearchChunksResult,
    SearchHit,
    TableRows,
    UncitedSentence,
    UnresolvedCitation,
    UnsupportedFigure,
)

MAX_EDGES = 40
QUOTES_PER_EDGE = 2


class SearchTools:
    """search_chunks, get_chunk and check_citations over `ctx`'s reader."""

    def __init__(self, ctx: ToolContext, settings: RetrievalSettings, ledgers: Ledgers):
        self.ctx = ctx
        self.settings = settings
        self.ledgers = ledgers
        self.searchers = SearcherCache(settings)
        self._names: dict[str, tuple[Mentions, dict[str, str]]] = {}
        self._claim_names: dict[str, CompanyNames] = {}
        self._names_lock = threading.Lock()

    def calls_an_endpoint(self) -> bool:
        """Whether a search embeds its query through an embeddings endpoint outside the server
        (`embed_backend=openai`) rather than a model loaded in-process."""
        return self.settings.embed_backend == "openai"

    # -- names in queries and answers ------------------------------------------------------
    def known_names(self, snap: Snapshot) -> tuple[Mentions, dict[str, str]]:
        """(query matcher, normalized name → display name) of this snapshot's companies."""
        with self._names_lock:
            if snap.version in self._names:
                return self._names[snap.version]
        mentions = Mentions()
        names: dict[str, str] = {}
        for row in snap.query(queries.MENTION_ALIASES):
            alias, kind, company_id = row["alias_norm"], row["kind"], row["company_id"]
            if kind == "ticker":
                mentions.tickers[alias.upper()] = company_id
                continue
            mentions.aliases.setdefault(alias, company_id)
            if kind == "segment":
                mentions.topics.add(alias)
            if kind in ("name", "registrant_name", "ticker_title"):
                names.setdefault(alias, row["name"])
                # "nvidia corp" is found as "NVIDIA" too: the name's first word when distinctive.
                head = alias.split()[0]
                if len(head) >= 5 and head not in _COMMON_WORDS:
                    mentions.aliases.setdefault(head, company_id)
                    names.setdefault(head, row["name"])
        with self._names_lock:
            self._names = {snap.version: (mentions, names)}
        return mentions, names

    def _claim_names_of(self, snap: Snapshot) -> CompanyNames:
        """Every name, alias, segment and ticker of the snapshot's companies → display name, for
        reading whose figure a claim is."""
        with self._names_lock:
            if snap.version in self._claim_names:
                return self._claim_names[snap.version]
        names = CompanyNames()
        for row in snap.query(queries.MENTION_ALIASES):
            alias, kind, display = row["alias_norm"], row["kind"], row["name"]
            if kind == "ticker":
                names.add_ticker(alias, display)
                continue
            # A segment's name confirms whose figure a claim is, never contradicts it.
            weak = kind == "segment"
            names.add(alias, display, weak=weak)
            head = alias.split()[0]
            if len(head) >= 5 and head not in _COMMON_WORDS:
                names.add(head, display, weak=weak)
        with self._names_lock:
            self._claim_names = {snap.version: names}
        return names

    # -- tools -------------------------------------------------------------------------------
    def search_chunks(
        self,
        query: Annotated[
            str, Field(min_length=2, max_length=500, description="what to find, in plain words")
        ],
        company_id: CompanyIdArg = None,
        section: Annotated[
            str | None,
            Field(
                None,
                max_length=80,
                description="a section label ('10-K/Item 1A'), an item "
                "('Item 7', any form) or a title ('Risk Factors')",
            ),
        ] = None,
        form: Annotated[
            str | None, Field(None, max_length=12, description="10-K, 10-Q or 8-K")
        ] = None,
        period: Annotated[
            str | None,
            Field(
                None,
                max_length=16,
                description="FY2024 or Q2-FY2025 (the company's fiscal "
                "labels), or 2024 / 2024-Q3 (calendar period the filing covers)",
            ),
        ] = None,
        k: Annotated[int, Field(ge=1, le=25, description="passages to return")] = 8,
        expand_hops: Annotated[
            int,
            Field(
                ge=0,
                le=2,
                description="1-2: also the graph edges touching the companies "
                "found (at most 4 × k, never more than 40), each with its evidence",
            ),
        ] = 0,
    ) -> SearchChunksResult:
        """Find passages of filings that answer a question in words: what a company said about
        a topic (export controls, supply chain, litigation, guidance, risks), how it describes
        its business, what changed and why.

        Searches every chunk of every filing in the snapshot by meaning (sentence vectors) and
        by words (full text), fused and re-ranked; companies named in the query rank their own
        passages first. Narrow with `company_id` (from find_company), `section`, `form` or
        `period`. Each hit is a verbatim passage — the whole sentences of its chunk that best
        match the query, with their offsets and the heading above them; for a table, its
        caption, header rows, scale and the rows holding the query's words — with its citation — its
        `evidence` number [n] is what an answer cites; pass `chunk_id` to
        get_chunk for the whole chunk. For reported figures use get_metrics instead (exact,
        from XBRL); use this to explain them. With `expand_hops` 1–2 the answer also lists the
        knowledge-graph edges (customers, suppliers, competitors, risks, guidance) stated by or
        about the companies found, each with its quote.
        """
        with self.ctx.lease() as snap:
            ref = snap.manifest.chunk_index
            if ref is None:
                raise ToolError(
                    f"snapshot {snap.version} was published without a chunk index, so passages "
                    "cannot be searched; materialize chunk_index and graph_snapshot (make demo "
                    "does), or read cited chunks with get_chunk"
                )
            company = resolve_company(snap, company_id) if company_id else None
            filters = Filters(
                company_ids=(company["company_id"],) if company else (),
                section=section,
                form=form,
                period=period,
            )
            try:  # the index folder under the data root served (recorded relative to it)
                ref = ref.model_copy(update={"path": str(ref.location(self.ctx.reader.data_root))})
            except ValueError as exc:
                raise ToolError(str(exc)) from exc
            try:
                searcher = self.searchers.get(ref, lambda: self.known_names(snap)[0])
                named = () if company else searcher.mentions.find(query)
                hits = searcher.search(query, filters, k)
            except SearchError as exc:
                raise ToolError(str(exc)) from exc
            details = {
                r["chunk_id"]: r
                for r in snap.query(
                    queries.SEARCH_HIT_DETAILS, {"chunk_ids": [h.chunk_id for h in hits]}
                )
            }
            texts = {
                r["chunk_id"]: r
                for r in snap.query(
                    queries.SEARCH_HIT_TEXTS, {"chunk_ids": [h.chunk_id for h in hits]}
                )
            }
            sims = (
                searcher.sentence_similarities(query, [h.key for h in hits])
                if self.settings.passage_vector_weight > 0
                else {}
            )
            results = []
            for h in hits:
                d = details.get(h.chunk_id, {})
                shown = self._passage(h, texts.get(h.chunk_id), query, sims.get(h.key or ""))
                label = None
                if h.fiscal_period and h.fiscal_year:
                    label = (
                        f"FY{h.fiscal_year}"
                        if h.fiscal_period == "FY"
                        else f"{h.fiscal_period}-FY{h.fiscal_year}"
                    )
                matched = [
                    name
                    for name, hit in (
                        ("vector", h.vector_rank),
                        ("full_text", h.text_rank),
                        ("company named", h.matched_company),
                    )
                    if hit
                ]
                results.append(
                    SearchHit(
                        chunk_id=h.chunk_id,
                        score=round(h.score, 5),
                        company_id=h.company_id,
                        company=h.company,
                        form=h.form,
                        section=h.section,
                        section_title=h.section_title,
                        kind=h.kind,
                        fiscal_label=label,
                        period_end=h.period_end,
                        **shown,
                        chunk_chars=d.get("chunk_chars"),
                        matched=matched,
                        citation=Citation(
                            filing_id=h.filing_id,
                            form=h.form,
                            filed_date=d.get("filed_date"),
                            section=h.section,
                            chunk_id=h.chunk_id,
                        ),
                    )
                )
            edges: list[GraphEdge] = []
            truncated = False
            if expand_hops:
                company_ids = list(dict.fromkeys(h.company_id for h in hits if h.company_id))
                edges, truncated = expand_edges(
                    snap, company_ids, expand_hops, min(4 * k, MAX_EDGES)
                )
            return SearchChunksResult(
                **stamp(snap),
                query=query,
                filters={
                    "company_id": company["company_id"] if company else None,
                    "section": section,
                    "form": form,
                    "period": period,
                    "k": k,
                    "expand_hops": expand_hops,
                },
                index_version=ref.version,
                hits=results,
                companies_named=list(named),
                edges=edges,
                edges_truncated=truncated,
            )

    def _passage(
        self,
        hit: Any,
        row: dict[str, Any] | None,
        query: str,
        similarity: dict[tuple[int, int], float] | None = None,
    ) -> dict[str, Any]:
        """The hit's passage fields: chosen from its whole chunk for the query (whole sentences,
        by words and by the stored sentence vectors' cosines when the index has them, or a
        table's matching rows); the index window when the chunk's text is not at hand."""
        text = (row or {}).get("text") or ""
        if not text:
            return {
                "passage": hit.window_text,
                "passage_start": hit.window_start,
                "passage_end": hit.window_end,
                "heading": hit.section_title,
            }
        shown = hit_passage(
            text,
            hit.kind,
            query,
            self.settings.passage_chars,
            self.settings.passage_table_rows,
            (row or {}).get("scale_header"),
            similarity,
            self.settings.passage_vector_weight,
            self.settings.passage_row_vector_weight,
        )
        table = None
        heading = hit.section_title
        if isinstance(shown, TablePassage):
            table = TableRows(
                caption=shown.caption,
                header=shown.header,
                rows=shown.rows,
                scale=shown.scale,
                rows_total=shown.rows_total,
            )
            heading = shown.caption.split("\n", 1)[0] or heading
        elif shown.heading:
            heading = shown.heading
        return {
            "passage": shown.text,
            "passage_start": shown.start,
            "passage_end": shown.end,
            "heading": heading,
            "table": table,
        }

    def get_chunk(
        self,
        chunk_id: Annotated[
            str,
            Field(
                min_length=1,
                max_length=128,
                pattern=r"^[A-Za-z0-9_.:\-]+$",
                description="a chunk_id from a citation",
            ),
        ],
        max_chars: Annotated[
            int, Field(ge=100, le=20_000, description="most characters to return")
        ] = 6_000,
        offset: Annotated[
            int, Field(ge=0, le=10_000_000, description="character to start from")
        ] = 0,
    ) -> ChunkResult:
        """The verbatim text of a filing chunk, to quote or check a cited number.

        Use with a chunk_id from a citation (get_metrics, screen_companies, explore_company).
        The text is exactly as in the filing's normalized text (tables as Markdown rows), with
        the filing, form, section and character span it came from; `scale_header` says how the
        table's numbers are scaled ("in millions"), so "130,497" under "in millions" is
        130,497,000,000. Long chunks come in pieces: when `truncated` is true, call again with
        `offset` = offset + len(text).
        """
        with self.ctx.lease() as snap:
            rows = snap.query(
                queries.GET_CHUNK, {"chunk_id": chunk_id, "offset": offset, "max_chars": max_chars}
            )
            if not rows:
                raise ToolError(
                    f"no chunk {chunk_id!r} in snapshot {snap.version}; chunk ids come from the "
                    "citations of get_metrics, screen_companies or explore_company in this snapshot"
                )
            r = rows[0]
            if offset and offset >= r["total_chars"]:
                raise ToolError(
                    f"offset {offset} is past the end of chunk {chunk_id} "
                    f"({r['total_chars']} characters)"
                )
            return ChunkResult(
                **stamp(snap),
                chunk_id=r["chunk_id"],
                filing_id=r["filing_id"],
                form=r["form"],
                company_id=r["company_id"],
                company=r["company"],
                filed_date=r["filed_date"],
                section=r["section"],
                kind=r["kind"],
                char_start=r["char_start"],
                char_end=r["char_end"],
                scale_header=r["scale_header"],
                text=r["text"],
                offset=offset,
                total_chars=r["total_chars"],
                truncated=offset + len(r["text"]) < r["total_chars"],
            )

    def check_citations(
        self,
        answer: Annotated[
            str,
            Field(
                min_length=1, max_length=40_000, description="the drafted answer, citations inline"
            ),
        ],
        ctx: Context,
    ) -> CheckCitationsResult:
        """Check a drafted answer's citations before giving it; no model.

        Cite evidence inline as [n] — the `evidence` number every citation in this session's
        tool answers carries — or by chunk_id. Each cited sentence is read as a claim: a figure
        cited to a metric value must be that value (at any scale: "$350.0 billion" or
        "$350,018 million"), and the sentence must name its company (name, ticker or alias),
        its metric and its period (fiscal year or quarter, or a date inside it); a sentence
        without them takes them from the sentence before ("Its revenue grew 14% [1]"). A figure
        cited to a chunk must stand in a sentence or table row of it that names (or a filing
        that is) the company and period claimed. Growth rates ("grew 15%") and ratios ("a
        gross margin of 58%") must be the server's own computation from the cited values
        (`yoy_change_pct`, or two cited values of one period): cite both parts of a ratio.

        Reports: `unresolved` citations that point at nothing; `uncited` sentences stating a
        figure or naming a company without a citation; `unsupported` figures in none of the
        cited evidence; `mismatched` claims whose citation holds the figure for another company,
        metric or period (or a rate it does not give), each with `problem` saying what the
        citation actually holds. `ok` is true when nothing is listed. Fix every listed sentence
        (cite the right evidence, correct the claim to what it says, or drop it) and check again.
        """
        ledger = self.ledgers.for_context(ctx)
        with self.ctx.lease() as snap:
            _, names = self.known_names(snap)
            companies = self._claim_names_of(snap)

            def chunk(chunk_id: str) -> dict[str, Any] | None:
                rows = snap.query(queries.CLAIM_CHUNK, {"chunk_id": chunk_id})
                return rows[0] if rows else None

            def chunk_record(label: str, row: dict[str, Any]) -> ChunkRecord:
                return ChunkRecord(
                    label,
                    row["text"],
                    row["scale_header"],
                    row["company"],
                    row["fiscal_year"],
                    row["fiscal_period"],
                    row["period_end"],
                )

            def fact(
                label: str, fact_id: str, value: float | None, fiscal_label: str | None
            ) -> FactRecord | None:
                rows = snap.query(queries.CLAIM_FACT, {"fact_id": fact_id})
                # One fact may feed two metrics (revenue, and gross profit derived from it): the
                # one the tool reported is the one with its value and period.
                row = next(
                    (
                        r
                        for r in rows
                        if (value is None or r["value"] == value)
                        and (fiscal_label is None or r["fiscal_label"] == fiscal_label)
                    ),
                    None,
                )
                if row is None:
                    return None
                return FactRecord(
                    label=label,
                    company=row["company"],
                    metric=row["metric"],
                    value=row["value"],
                    unit=row["unit"],
                    fiscal_label=row["fiscal_label"],
                    fiscal_year=row["fiscal_year"],
                    fiscal_period=row["fiscal_period"],
                    calendar_start=row["calendar_start"],
                    calendar_end=row["calendar_end"],
                    prior_value=row["prior_value"],
                    prior_fiscal_label=row["prior_fiscal_label"],
                    prior_calendar_start=row["prior_calendar_start"],
                    prior_calendar_end=row["prior_calendar_end"],
                    scale_header=row["scale_header"],
                )

            def resolve(citation: str) -> Evidence | None:
                if citation.isdigit():
                    item = ledger.get(int(citation))
                    if item is None:
                        return None
                    label = f"[{citation}]"
                    record = (
                        fact(label, item.fact_id, item.value, item.fiscal_label)
                        if item.fact_id
                        else None
                    )
                    row = chunk(item.chunk_id) if item.chunk_id else None
                    text = "\n".join(p for p in ((row or {}).get("text"), item.stated) if p)
                    # A quote or an edge's figures are checked as text; a passage cited on its own
                    # (a search hit) also by where its figure stands.
                    record_of_chunk = (
                        chunk_record(label, row) if row and not item.stated.strip(" |") else None
                    )
                    return Evidence(
                        label, text, (row or {}).get("scale_header"), record, record_of_chunk
                    )
                row = chunk(citation)
                if row is None:
                    return None
                return Evidence(
                    citation, row["text"], row["scale_header"], chunk=chunk_record(citation, row)
                )

            report = check_answer(answer, resolve, names, companies)
            return CheckCitationsResult(
                **stamp(snap),
                ok=report.ok,
                sentences=report.sentences,
                cited_sentences=report.cited_sentences,
                unresolved=[UnresolvedCitation(**u) for u in report.unresolved],
                uncited=[UncitedSentence(**u) for u in report.uncited],
                unsupported=[UnsupportedFigure(**u) for u in report.unsupported],
                mismatched=[MismatchedClaim(**u) for u in report.mismatched],
                summary=report.summary(),
                evidence_known=len(ledger.items),
            )


def expand_edges(
    snap: Snapshot,
    company_ids: list[str],
    hops: int,
    limit: int,
    when: PeriodFilter | None = None,
) -> tuple[list[GraphEdge], bool]:
    """Edges touching the companies (hop 1), then those touching hop 1's other ends (hop 2),
    strongest first, at most `limit` in all."""
    found: list[str] = []
    seen_entities = set(company_ids)
    truncated = False
    frontier = company_ids
    for _hop in range(hops):
        if not frontier:
            break
        rows = edges_touching(snap, frontier, limit + 1, when)
        truncated = truncated or len(rows) > limit
        ends: list[str] = []
        for row in rows:
            if row["edge_id"] in found:
                continue
            if len(found) >= limit:
                truncated = True
                break
            found.append(row["edge_id"])
            ends.extend([row["subject_id"], row["object_id"]])
        frontier = [e for e in dict.fromkeys(ends) if e not in seen_entities]
        seen_entities.update(frontier)
    edges = edges_by_id(snap, found, QUOTES_PER_EDGE)
    return [edges[e] for e in found if e in edges], truncated


def edges_touching(
    snap: Snapshot, entity_ids: list[str], limit: int, when: PeriodFilter | None = None
) -> list[dict[str, Any]]:
    """The one query graph expansion goes through (the published knowledge graph): current
    edges with one of these entities as subject or object, or stated by one of these companies'
    filings; metric relations are left to get_metrics. `when`: only those stated for its
    period or known by its date (mcp_server.graph_time)."""
    return snap.query(
        graph_queries.GRAPH_EDGES_FOR_ENTITIES,
        {
            "entity_ids": entity_ids,
            "limit": limit,
            "hidden": list(METRIC_RELATIONS),
            **(time_params(when) if when else NO_TIME),
        },
    )


_COMMON_WORDS = frozenset(
    "general american international national united first global first american digital "
    "energy financial public southern northern western eastern pacific atlantic capital "
    "health service services systems technologies technology group holdings union home bank "
    "banks trust mobile motors foods brands solutions resources industries partners "
    "communications entertainment media networks software therapeutics pharmaceuticals".split()
)
