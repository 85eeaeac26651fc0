"""The tools: typed, bounded arguments; pydantic answers stamped with the snapshot; misses
raised as `ToolError`s whose text tells the model what to do next.

Every call leases the current snapshot from the `SnapshotReader` for its whole duration, so a
snapshot published mid-call is picked up by the next call while this one finishes on its own.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from graphrag_core.retrieval.themes_answer import ThemesAnswerWriter
from graphrag_core.settings import CommunitySettings, MetricSettings, RetrievalSettings
from graphrag_core.store.reader import (
    BALANCE_METRICS,
    FLOW_METRICS,
    GRAPH_ENTITY_TYPES,
    GRAPH_RELATIONS,
    METRIC_RELATIONS,
    PERIOD_LABEL_PATTERN,
    WINDOW_PERIODS,
    Snapshot,
    SnapshotReader,
    SnapshotUnavailable,
    community_themes,
    compact_name,
    company_key,
    is_stale,
    normalize_cik,
    normalize_name,
)
from mcp_server import queries, windows
from mcp_server.analyst_tools import AnalystTools
from mcp_server.evidence import MAX_ANSWER_CHARS, Ledgers, with_evidence
from mcp_server.fact_search import FactSearch
from mcp_server.financials import FinancialsTools
from mcp_server.graph_edges import (
    edge_citations,
    edges_by_id,
    entity_ref,
)
from mcp_server.local_search import LocalSearch
from mcp_server.models import (
    ChunkResult,
    Citation,
    CommunityBrief,
    CommunityCitation,
    CommunityThemesResult,
    CompanyMatch,
    CompanyProfile,
    EntityRef,
    ExploreResult,
    Figure,
    FilingSummary,
    FindCompanyResult,
    GetMetricsResult,
    GraphCitation,
    GraphEdge,
    GraphPath,
    KeyMetric,
    MetricInfo,
    MetricSeries,
    MetricValue,
    NeighborsResult,
    OntologyResult,
    Operand,
    PathEdge,
    PathResult,
    Peer,
    RelationCount,
    RiskCategoryInfo,
    RiskExposure,
    ScreenHit,
    ScreenResult,
    SectionSummary,
    SectorShare,
    StatusResult,
    SupersededValue,
    TableInfo,
    ThemeFinding,
    TwoHopPath,
    TypeCount,
    finite,
)
from mcp_server.what_changed import WhatChangedTools

log = logging.getLogger(__name__)

KEY_METRICS = (*FLOW_METRICS, *BALANCE_METRICS)
SCREEN_UNITS = {
    "min_revenue_growth": "percent, year over year (5 = 5%, not 0.05)",
    "min_margin_trend": "percentage points vs a year earlier (2 = +2 pp)",
    "max_debt_to_equity": "ratio, total debt / stockholders' equity (1.5)",
    "min_revenue": "USD, full units (10e9 = 10 billion)",
    "revenue_growth_pct": "percent",
    "margin_pct": "percent",
    "margin_trend_pp": "percentage points",
    "debt_to_equity": "ratio",
    "max_debt_change": "percent, total debt at the window's end vs its start (-10 = cut by ≥ 10%)",
    "debt_change_pct": "percent",
}
# window_basis keeps a company's newest WINDOW_PERIODS periods per kind: a window of one fewer,
# plus the period before it (a sequential comparison's base).
MAX_WINDOW = WINDOW_PERIODS - 1
LATEST_FILINGS_SHOWN = 8
SECTIONS_PER_FILING = 40
SUGGESTION_THRESHOLD = 0.85
# "1045810", "0001045810", "CIK-0001045810", "cik 1045810": a CIK, not a name.
_CIK_QUERY_RE = re.compile(r"^\s*(?:cik[\s:-]*)?\d{1,10}\s*$", re.I)

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

HIDDEN_RELATIONS = list(METRIC_RELATIONS)
RELATIONS_SHOWN = 10
RISKS_SHOWN = 12
PEERS_SHOWN = 8
# Breadth of a traversal: the strongest edges of each node at each step.
NEIGHBOR_FANOUT = 50
PATH_FANOUT = 200
PATHS_SHOWN = 5
Relation = Literal[
    "SUPPLIES",
    "CUSTOMER_OF",
    "COMPETES_WITH",
    "SUBSIDIARY_OF",
    "EXPOSED_TO_RISK",
    "GUIDES",
    "REPORTS_METRIC",
]
EntityId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=128,
        description="an entity id from find_company or another graph answer: CIK-0001045810, "
        "ORG:samsung-electronics, RISK:export-controls, METRIC:revenue (a ticker or CIK also works)",
    ),
]

CompanyId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        description="company_id from find_company (CIK-0001045810); a CIK or exact ticker also works",
    ),
]
MetricId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")]


# -- formatting ----------------------------------------------------------------------------
def display_value(value: float | None, unit: str) -> str:
    """130497000000, 'USD' → '130,497 million USD'; 2.94, 'USD/shares' → '2.94 USD/shares';
    'missing' for None, NaN or ±Infinity (never a crash on a value an older snapshot holds)."""
    number = finite(value)
    if number is None:
        return "missing"
    value = number
    if abs(value) >= 1_000_000 and "/" not in unit:
        scaled = value / 1_000_000
        text = (
            f"{scaled:,.0f}"
            if scaled == round(scaled)
            else f"{scaled:,.2f}".rstrip("0").rstrip(".")
        )
        return f"{text} million {unit}"
    text = f"{value:,.0f}" if value == round(value) else f"{value:,.4f}".rstrip("0").rstrip(".")
    return f"{text} {unit}"


def _citation(row: dict[str, Any]) -> Citation:
    return Citation(
        filing_id=row["filing_id"],
        form=row.get("form"),
        filed_date=row.get("filed_date"),
        section=row.get("section"),
        chunk_id=row.get("chunk_id"),
        fact_id=row.get("fact_id"),
        concept=row.get("concept"),
    )


def _metric_value(row: dict[str, Any]) -> MetricValue:
    superseded = [
        SupersededValue(
            value=s["value"],
            display=display_value(s["value"], row["unit"]),
            fiscal_label=s["fiscal_label"],
            citation=_citation(s),
            source_kind=s.get("source_kind") or "xbrl",
            supersede_reason=s.get("supersede_reason"),
            supersede_detail=s.get("supersede_detail"),
        )
        for s in row["superseded"] or []
    ]
    operands = [
        Operand(
            value=o["value"],
            display=display_value(o["value"], row["unit"]),
            fiscal_label=o["fiscal_label"],
            source_kind=o.get("source_kind") or "xbrl",
            citation=_citation(o),
        )
        for o in row.get("derived_from") or []
    ]
    return MetricValue(
        fiscal_label=row["fiscal_label"],
        fiscal_year=row["fiscal_year"],
        fiscal_period=row["fiscal_period"],
        period_type=row["period_type"],
        calendar_start=row["calendar_start"],
        calendar_end=row["calendar_end"],
        value=row["value"],
        unit=row["unit"],
        display=display_value(row["value"], row["unit"]),
        yoy_change_pct=row["yoy_change_pct"],
        prior_fiscal_label=row["prior_fiscal_label"],
        prior_value=row["prior_value"],
        citation=_citation(row),
        restated=bool(row.get("restated", bool(superseded))),
        superseded=superseded,
        source_kind=row.get("source_kind") or "xbrl",
        derived=bool(row.get("derived")),
        derivation=row.get("derivation"),
        derived_from=operands,
        mapping_rule=row.get("mapping_rule"),
        as_filed_value=row.get("as_filed_value"),
        split_basis=row.get("split_basis"),
    )


def _figure(fig: dict[str, Any] | None, prior: bool = False) -> Figure | None:
    """A figure struct of screen_basis → Figure (its year-ago half when `prior`)."""
    if fig is None:
        return None
    p = "prior_" if prior else ""
    value = finite(fig[f"{p}value"])
    if value is None:
        return None  # not reported, or not a finite number: missing
    return Figure(
        value=value,
        unit=fig["unit"],
        display=display_value(value, fig["unit"]),
        fiscal_label=fig[f"{p}fiscal_label"],
        citation=Citation(
            filing_id=fig[f"{p}filing_id"],
            form=fig[f"{p}form"],
            filed_date=fig[f"{p}filed_date"],
            section=fig[f"{p}section"],
            chunk_id=fig[f"{p}chunk_id"],
        ),
        source_kind=None if prior else fig.get("source_kind"),
        derived=None if prior else fig.get("derived"),
    )


def _adjacent_edge(
    me: EntityRef, row: dict[str, Any], citations: dict[str, list[GraphCitation]], prefix: str = ""
) -> GraphEdge:
    """An edge from a graph_adjacency row (`prefix` first_ for a two-hop row's first edge),
    read in its own direction: 'out' rows have `me` as subject."""
    p = prefix
    other = entity_ref(
        row["neighbor_id"] if not p else row["entity_id"],
        row[f"{'via' if p else 'neighbor'}_type"],
        row[f"{'via' if p else 'neighbor'}_name"],
    )
    outgoing = row[f"{p}direction"] == "out"
    shown = citations.get(row[f"{p}edge_id"], [])
    return GraphEdge(
        edge_id=row[f"{p}edge_id"],
        subject=me if outgoing else other,
        relation=row[f"{p}relation"],
        object=other if outgoing else me,
        period=row[f"{p}period"],
        calendar_start=row[f"{p}calendar_start"],
        calendar_end=row[f"{p}calendar_end"],
        value=row[f"{p}value"],
        value_low=row[f"{p}value_low"],
        value_high=row[f"{p}value_high"],
        bound=row[f"{p}bound"],
        unit=row[f"{p}unit"],
        evidence_count=row[f"{p}evidence_count"],
        filing_count=row[f"{p}filing_count"],
        first_filed=row[f"{p}first_filed"],
        last_filed=row[f"{p}last_filed"],
        seen_periods=row[f"{p}seen_periods"] or [],
        superseded_by=row[f"{p}superseded_by"],
        citations=shown,
        more_citations=max(row[f"{p}evidence_count"] - len(shown), 0),
    )


def _path_edge(me: str, row: dict[str, Any], citations: dict[str, list[GraphCitation]]) -> PathEdge:
    """The second edge of a two-hop row (from `me`, the middle node), in its own direction."""
    outgoing = row["direction"] == "out"
    shown = citations.get(row["edge_id"], [])
    return PathEdge(
        edge_id=row["edge_id"],
        subject_id=me if outgoing else row["neighbor_id"],
        relation=row["relation"],
        object_id=row["neighbor_id"] if outgoing else me,
        period=row["period"],
        value=row["value"],
        unit=row["unit"],
        evidence_count=row["evidence_count"],
        last_filed=row["last_filed"],
        superseded_by=row["superseded_by"],
        citation=shown[0] if shown else None,
    )


def _entity_type(entity_id: str) -> str | None:
    for prefix, kind in (
        ("CIK-", "company"),
        ("ORG:", "organization"),
        ("RISK:", "risk"),
        ("METRIC:", "metric"),
        ("PRODUCT:", "product"),
        ("SEGMENT:", "segment"),
    ):
        if entity_id.startswith(prefix):
            return kind
    return None


def _theme(t: dict[str, Any]) -> ThemeFinding:
    return ThemeFinding(
        theme=t["theme"],
        kind=t["kind"],
        label=t["label"],
        statement=t["statement"],
        entities=[
            entity_ref(p["entity_id"], _entity_type(p["entity_id"]), p["name"])
            for p in t["partners"]
        ],
        entities_total=t["companies"],
        support=t["support"],
        communities=list(dict.fromkeys(t["communities"])),
        citations=[
            CommunityCitation(
                filing_id=c["filing_id"],
                form=c.get("form"),
                filed_date=c.get("filed_date"),
                section=c.get("section"),
                chunk_id=c["chunk_id"],
                quote=c["quote"],
                entity_id=c["entity_id"],
            )
            for c in t["citations"]
        ],
    )


def _brief(row: dict[str, Any], relevance: float) -> CommunityBrief:
    return CommunityBrief(
        community_id=row["community_id"],
        level=row["level"],
        title=row["title"],
        summary=row["summary"],
        impact_rating=row["impact_rating"],
        impact_explanation=row["impact_explanation"],
        members=row["members"],
        companies=row["companies"],
        member_companies=[
            entity_ref(m["entity_id"], m["entity_type"], m["name"])
            for m in (row["member_companies"] or [])[:10]
        ],
        top_risks=[r["label"] for r in (row["risks"] or [])[:5]],
        sector_mix=[SectorShare(**m) for m in row["sector_mix"] or []],
        relevance=round(relevance, 4),
        stale=bool(row["stale"]),
        as_of=row["as_of"],
        graph_version=row["graph_version"],
    )


class GraphTools:
    """The tool functions, bound to one reader. Tests call them through an MCP client."""

    def __init__(
        self,
        reader: SnapshotReader,
        community_settings: CommunitySettings | None = None,
        metric_settings: MetricSettings | None = None,
    ):
        self.reader = reader
        # The model endpoint community_themes may write its answer with (none: deterministic).
        self.community_settings = community_settings
        self.themes_writer = ThemesAnswerWriter.from_settings(community_settings)
        # When a company's latest period is too old to pass as current (`stale`).
        self.metric_settings = metric_settings or MetricSettings()
        # The answer cap the server applies (evidence.cap_answer): long lists are cut to it.
        self.answer_chars = MAX_ANSWER_CHARS

    @contextmanager
    def _snapshot(self) -> Iterator[Snapshot]:
        try:
            with self.reader.lease() as snap:
                yield snap
        except SnapshotUnavailable as exc:
            raise ToolError(str(exc)) from exc

    @staticmethod
    def _stamp(snap: Snapshot) -> dict[str, Any]:
        return {"snapshot": snap.version, "as_of": snap.as_of}

    # -- company resolution --------------------------------------------------------------
    def _suggestions(self, snap: Snapshot, text: str) -> str:
        rows = snap.query(
            queries.SUGGEST_COMPANY,
            {
                "norm": normalize_name(text),
                "ticker": text.strip().upper(),
                "threshold": SUGGESTION_THRESHOLD,
                "limit": 3,
            },
        )
        if rows:
            names = " or ".join(f"{r['name']} ({r['company_id']})" for r in rows)
            return f"did you mean {names}?"
        known = snap.query(
            queries.KNOWN_REGISTRANT, {"ticker": text.strip().upper(), "norm": normalize_name(text)}
        )
        if known:
            names = ", ".join(
                f"{r['title']} ({r['ticker']}, {company_key(r['cik'])})" for r in known
            )
            return (
                f"SEC lists {names}, but this snapshot holds no filings of it; its filings must be "
                "ingested (add it to the watchlist) before it can be queried"
            )
        return "try another spelling, a ticker or a CIK, or call status to see what the snapshot covers"

    def _resolve(self, snap: Snapshot, company_id: str) -> dict[str, Any]:
        text = company_id.strip()
        rows: list[dict[str, Any]] = []
        cik = normalize_cik(text) if _CIK_QUERY_RE.match(text) else None
        if cik:
            rows = snap.query(queries.COMPANY_BY_CIK, {"cik": cik})
        if not rows:
            rows = snap.query(queries.COMPANY_BY_TICKER, {"ticker": text.upper()})
        if not rows:
            raise ToolError(
                f"no company with id {text[:80]!r} in snapshot {snap.version}; "
                f"{self._suggestions(snap, text[:200])} Use find_company to get a company_id."
            )
        return rows[0]

    # -- graph helpers -------------------------------------------------------------------
    def _entity(self, snap: Snapshot, entity_id: str) -> dict[str, Any]:
        """A node by its id; a company also by CIK or ticker."""
        text = entity_id.strip()
        rows = snap.query(queries.ENTITY, {"entity_id": text})
        if rows:
            return rows[0]
        try:
            company = self._resolve(snap, text)
        except ToolError:
            company = None
        if company is not None:
            rows = snap.query(queries.ENTITY, {"entity_id": company["company_id"]})
            if rows:
                return rows[0]
            raise ToolError(
                f"{company['name']} ({company['company_id']}) has no relations in the knowledge "
                f"graph of snapshot {snap.version}; use get_metrics or explore_company instead"
            )
        near = snap.query(
            queries.SUGGEST_ENTITY,
            {"norm": normalize_name(text), "threshold": SUGGESTION_THRESHOLD, "limit": 3},
        )
        hint = (
            "did you mean " + " or ".join(f"{r['name']} ({r['entity_id']})" for r in near) + "?"
            if near
            else "use find_company to get an entity id"
        )
        raise ToolError(
            f"no entity {text[:80]!r} in the knowledge graph of snapshot {snap.version}; {hint}"
        )

    # -- tools ---------------------------------------------------------------------------
    def find_company(
        self,
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=200,
                description="a name, ticker, former name, brand/segment name or CIK",
            ),
        ],
        limit: Annotated[int, Field(ge=1, le=25, description="most matches to return")] = 5,
    ) -> FindCompanyResult:
        """Find a company and get its `company_id` (e.g. CIK-0001045810) for the other tools.

        Call this first whenever the user names a company; every other tool takes the
        `company_id` it returns. It also finds companies that file nothing with the SEC
        ("Samsung" → ORG:samsung-electronics, entity_type organization) and risk categories
        ("export controls" → RISK:export-controls, entity_type risk): pass those ids to
        neighbors and graph_path. Matching ignores case, punctuation and legal suffixes, so
        "nvidia", "NVIDIA Corp", "NVDA", "1045810" and "CIK-0001045810" all find NVIDIA; former
        names and reporting segments find the company too ("Google" finds Alphabet Inc. through
        its Google Services segment). Matches are ranked (`score`, 1.0 = exact ticker or CIK)
        and `matched_on` says why each one matched — check it before assuming a loose match is
        the company meant.

        A miss is an error that names the closest companies ("did you mean …?") or says SEC
        knows the company but this snapshot holds none of its filings; retry with a suggested
        name rather than guessing an id.
        """
        with self._snapshot() as snap:
            text = query.strip()
            cik = normalize_cik(text) if _CIK_QUERY_RE.match(text) else None
            if cik:
                rows = [
                    {**r, "score": 1.0, "matched_alias": r["cik"], "matched_kind": "cik"}
                    for r in snap.query(queries.COMPANY_BY_CIK, {"cik": cik})
                ]
            else:
                if not text:
                    raise ToolError("the query is blank; pass a name, ticker or CIK")
                norm = normalize_name(text)
                rows = snap.query(
                    queries.FIND_COMPANY,
                    {
                        "norm": norm,
                        "compact": compact_name(text),
                        "ticker": text.upper(),
                        "limit": limit + 1,
                    },
                )
                # Every graph node by name or alias (issue 22): organizations that file nothing
                # with the SEC (provisional ones included), companies the graph names without
                # their filings ("TSMC"), risks and metrics. A company the first query found
                # is not listed twice.
                found = {r["company_id"] for r in rows}
                entities = [
                    e
                    for e in snap.query(
                        queries.FIND_ENTITY,
                        {
                            "norm": norm,
                            "compact": compact_name(text),
                            "limit": limit + 1 + len(found),
                        },
                    )
                    if e["entity_id"] not in found
                ]
                rows = sorted(
                    [
                        *rows,
                        *(
                            {
                                **e,
                                "company_id": e["entity_id"],
                                "cik": None,
                                "tickers": [],
                                "fiscal_year_end": None,
                                "sic": None,
                                "sic_description": None,
                                "filings": 0,
                            }
                            for e in entities
                        ),
                    ],
                    key=lambda r: (-r["score"], -(r["filings"] or 0), r["company_id"]),
                )
            if not rows:
                raise ToolError(
                    f"no company matches {text[:80]!r} in snapshot {snap.version}; "
                    f"{self._suggestions(snap, text)}"
                )
            matches = [
                CompanyMatch(
                    company_id=r["company_id"],
                    name=r["name"],
                    entity_type=r.get("entity_type") or "company",
                    tickers=r["tickers"] or [],
                    cik=r["cik"],
                    fiscal_year_end=r["fiscal_year_end"],
                    sic=r["sic"],
                    sic_description=r["sic_description"],
                    score=r["score"],
                    matched_on=f"{r['matched_kind'].replace('_', ' ')} {r['matched_alias']!r}",
                )
                for r in rows[:limit]
            ]
            return FindCompanyResult(
                **self._stamp(snap), query=text, matches=matches, truncated=len(rows) > limit
            )

    def get_metrics(
        self,
        company_id: CompanyId,
        metrics: Annotated[
            list[MetricId] | None,
            Field(
                max_length=10,
                description=(
                    "canonical metric ids, e.g. revenue, gross_profit, operating_income, "
                    "net_income, total_debt, stockholders_equity (status lists all); "
                    "omit for the four income-statement metrics"
                ),
            ),
        ] = None,
        periods: Annotated[int, Field(ge=1, le=40, description="newest periods per metric")] = 4,
        period_type: Annotated[
            Literal["annual", "quarter", "half_year", "nine_months"],
            Field(
                description=(
                    "annual = fiscal years; quarter = three-month fiscal quarters; half_year = "
                    "the first (and second) six months (H1); nine_months = nine months to date (9M)"
                )
            ),
        ] = "annual",
        ratios: Annotated[
            list[windows.RatioId] | None,
            Field(
                None,
                max_length=len(windows.RATIO_IDS),
                description=(
                    "ratio series to add, computed by the server: gross_margin, operating_margin, "
                    "net_margin, revenue_growth (percent), debt_to_equity (ratio), revenue_ttm, "
                    "operating_income_ttm, net_income_ttm (sum of four quarters; period_type quarter)"
                ),
            ),
        ] = None,
    ) -> GetMetricsResult:
        """Reported values of a company's financial metrics, newest period first, each cited.

        Use for "what was X's revenue / income / debt" and for trends over several periods.
        Values come from the company's filings, never from a model: `value` is in full units
        (USD, not millions) and `display` is the human form ("130,497 million USD"). Every
        value carries its fiscal label (the company's own: FY2025, Q2-FY2026), the calendar
        range it covers, and a citation (filing, form, section, chunk_id); pass the chunk_id to
        get_chunk to quote the filing. `yoy_change_pct` compares with the like period a year
        earlier and is computed by the server — quote it instead of doing the arithmetic
        yourself.

        `source_kind` says where a number comes from: `xbrl` (a 10-K/10-Q's tagged fact) or
        `press_release` (an 8-K earnings release's table or sentence: unaudited, weeks before the
        10-Q; say so when you quote it). `derived` values are computed, not reported — a fourth
        quarter as FY − 9M, any quarter from year-to-date differences, gross profit as revenue −
        cost of revenue — with `derivation` and every operand cited in `derived_from`. When a
        later filing replaced a figure, `superseded` lists the earlier ones with their
        citations and `supersede_reason`: restatement, recast (e.g. a stock split — not an
        accounting error), press_release_final (the release's figure made final by the
        10-Q/10-K; any difference is in `supersede_detail`), or unknown; `restated` is true
        when an earlier report gave another value.

        Per-share values and share counts are like for like: a figure filed before a later
        stock split is re-based to the latest split (`as_filed_value` keeps the filing's own
        figure, `split_basis` says which split was applied), so `yoy_change_pct` never compares
        a pre-split EPS with a post-split one.

        Quarterly values are three-month quarters; a fourth quarter is usually derived from the
        annual figure, a missing first quarter from the half year (Q1 = H1 − Q2). `half_year`
        and `nine_months` serve the year-to-date periods a 10-Q reports (H1, 9M). `stale` is
        true when the company's latest period ended long before the snapshot's `as_of` (it
        stopped filing, or the corpus has only old filings): never present its figures as
        current. Unknown metric ids and companies are errors that list what is available.

        `ratios` adds series computed in SQL from these reported values, newest first, each
        value with its formula and cited operands: margins and revenue_growth in PERCENT (25.3
        means 25.3%), debt_to_equity a plain ratio, TTM sums in the metric's unit. Quote them
        rather than dividing yourself. For many companies at once use screen_companies.
        """
        with self._snapshot() as snap:
            company = self._resolve(snap, company_id)
            wanted = list(dict.fromkeys(metrics or FLOW_METRICS))
            known = {r["metric"] for r in snap.query(queries.METRIC_IDS)}
            if unknown := [m for m in wanted if m not in known]:
                raise ToolError(
                    f"unknown metric id(s) {', '.join(unknown)}; metrics in snapshot "
                    f"{snap.version}: {', '.join(sorted(known)) or 'none'}"
                )
            available = snap.query(queries.COMPANY_METRICS, {"cik": company["cik"]})
            freshness = self._freshness(snap, company["cik"])
            kind_key = {"annual": "annual", "quarter": "quarterly"}.get(period_type, period_type)
            if not {r["metric"] for r in available if r[kind_key]} & set(wanted):
                listing = (
                    "; ".join(
                        f"{r['metric']} ("
                        + "/".join(
                            k for k in ("annual", "quarterly", "half_year", "nine_months") if r[k]
                        )
                        + ")"
                        for r in available
                    )
                    or "none"
                )
                stale = (
                    f" Its latest period ended {freshness['latest_period_end']}: stale, long before "
                    f"as_of {snap.as_of}."
                    if freshness["stale"]
                    else ""
                )
                raise ToolError(
                    f"{company['name']} ({company['company_id']}) has no {period_type} values for "
                    f"{', '.join(wanted)} in snapshot {snap.version}. Metrics it has: {listing}.{stale}"
                )
            rows = snap.query(
                queries.GET_METRICS,
                {"cik": company["cik"], "metrics": wanted, "kind": period_type, "periods": periods},
            )
            by_metric: dict[str, list[dict[str, Any]]] = {}
            for row in rows:
                by_metric.setdefault(row["metric"], []).append(row)
            series = [
                MetricSeries(
                    metric=m,
                    values=[_metric_value(r) for r in by_metric[m]],
                    more_periods_available=by_metric[m][0]["available"] > len(by_metric[m]),
                )
                for m in wanted
                if m in by_metric
            ]
            ratio_series = (
                windows.ratio_series(
                    snap,
                    [company["cik"]],
                    list(dict.fromkeys(ratios)),
                    annual=period_type == "annual",
                    periods=periods,
                ).get(company["cik"], [])
                if ratios
                else []
            )
            return GetMetricsResult(
                **self._stamp(snap),
                company_id=company["company_id"],
                name=company["name"],
                period_type=period_type,
                series=series,
                missing=[m for m in wanted if m not in by_metric],
                ratios=ratio_series,
                **freshness,
            )

    def _freshness(self, snap: Snapshot, cik: str) -> dict[str, Any]:
        """The end of the company's latest period (filings and metrics), and whether it is stale."""
        rows = snap.query(queries.COMPANY_LATEST_PERIOD, {"cik": cik})
        latest = rows[0]["latest_end"] if rows else None
        return {
            "latest_period_end": latest,
            "stale": is_stale(latest, snap.as_of, self.metric_settings.stale_after_days),
        }

    def screen_companies(
        self,
        min_revenue_growth: Annotated[
            float | None,
            Field(
                ge=-100,
                le=100_000,
                description="percent, year over year: 20 means revenue up ≥ 20%",
            ),
        ] = None,
        max_debt_to_equity: Annotated[
            float | None,
            Field(
                ge=0,
                le=1_000,
                description="total debt / stockholders' equity at the period end, e.g. 1.5",
            ),
        ] = None,
        min_margin_trend: Annotated[
            float | None,
            Field(
                ge=-100,
                le=100,
                description="percentage points: 2 means the margin rose ≥ 2 pp vs a year earlier",
            ),
        ] = None,
        min_revenue: Annotated[
            float | None,
            Field(
                ge=0, le=1e13, description="USD, full units (10e9 = 10 billion); USD reporters only"
            ),
        ] = None,
        period_type: Annotated[
            Literal["annual", "quarter"],
            Field(description="compare latest fiscal years or quarters"),
        ] = "annual",
        margin: Annotated[
            Literal["operating", "gross", "net"],
            Field(description="which margin min_margin_trend uses"),
        ] = "operating",
        sort_by: Annotated[
            Literal["revenue_growth", "revenue", "margin_trend", "debt_to_equity", "debt_change"],
            Field(
                description="ranking; debt_to_equity ranks the least leveraged first, debt_change "
                "the largest debt cut first (window screens)"
            ),
        ] = "revenue_growth",
        limit: Annotated[int, Field(ge=1, le=100, description="most companies to return")] = 25,
        sector: Annotated[
            str | None,
            Field(
                None,
                max_length=40,
                description="only companies of this sector (SIC-based plain "
                "names, e.g. 'Information Technology', 'Health Care'; an unknown one lists them)",
            ),
        ] = None,
        window: Annotated[
            int,
            Field(
                ge=1,
                le=MAX_WINDOW,
                description="consecutive periods (of period_type) in which every "
                "trend criterion must hold: 3 with period_type quarter = the last three quarters",
            ),
        ] = 1,
        trend_basis: Annotated[
            Literal["year_over_year", "sequential"],
            Field(
                description="what each period of the window is compared with: the like period a "
                "year earlier, or the period just before it (quarter on quarter)"
            ),
        ] = "year_over_year",
        max_debt_change: Annotated[
            float | None,
            Field(
                ge=-100,
                le=100_000,
                description="percent change of total debt from the window's "
                "start to its end: 0 means debt not up, -10 means cut by at least 10%",
            ),
        ] = None,
    ) -> ScreenResult:
        """Screen all companies on reported fundamentals with deterministic SQL.

        Use for questions like "which companies grew revenue over 20% with debt/equity under
        1": each company is judged on its own latest period of `period_type` against the same
        fiscal period a year earlier (like for like; fiscal years differ between companies, so
        `fiscal_label` and `calendar_end` say which period was used). Growth, margins and
        leverage are computed in SQL from reported figures; every hit shows the figures used,
        each with a citation (filing and chunk_id for get_chunk). A criterion left empty is not
        applied; a company lacking a figure a criterion needs (no prior year, no debt tagged,
        negative equity) does not pass that criterion. Results are a screen of reported
        numbers, not advice.

        Units: min_revenue_growth and min_margin_trend are in PERCENT (5 means 5%, not 0.05);
        max_debt_to_equity is a plain ratio (1.5); min_revenue is in full USD. `units` in the
        answer repeats this, and `notes` flags a value that looks like a fraction. `sector`
        keeps one SIC-based sector (Information Technology, Health Care, Financials, …).

        Trends over several periods ("grew margins while cutting debt over the last three
        quarters") are ONE call: `window=3, period_type="quarter", min_margin_trend=0,
        max_debt_change=0` (or `trend_basis="sequential"` for quarter on quarter). Every trend
        criterion must then hold in each period of the window, and each hit lists the window's
        periods (`window`, newest first) with the figures each criterion used, cited, plus
        total debt at the window's start and end (`debt_start`, `debt_end`, `debt_change_pct`).
        A hit whose latest period ended long before the snapshot's as_of is `stale` (an old
        filing's figures): say so, or leave it out. A company without that many consecutive
        periods in the snapshot is left out. A window hit is long (every period cited), so
        an answer shows as many whole hits as it holds (about four of three periods), the best
        by `sort_by` first; `matched` counts them all and `notes` says so. Use a screen
        to find companies; use get_metrics (with `ratios`) for one company's history.
        max_debt_change is in PERCENT (-10 = debt cut by at least 10%).
        """
        criteria: dict[str, float | str | None] = {
            "min_revenue_growth": min_revenue_growth,
            "max_debt_to_equity": max_debt_to_equity,
            "min_margin_trend": min_margin_trend,
            "min_revenue": min_revenue,
            "period_type": period_type,
            "margin": margin,
            "sort_by": sort_by,
            "sector": sector,
        }
        notes = [
            f"{name}={value:g} is read as {value:g} percent; if you meant {value * 100:g}%, pass "
            f"{value * 100:g}"
            for name, value in (
                ("min_revenue_growth", min_revenue_growth),
                ("min_margin_trend", min_margin_trend),
            )
            if value is not None and 0 < abs(value) < 1
        ]
        thresholds = {
            "min_revenue_growth": min_revenue_growth,
            "max_debt_to_equity": max_debt_to_equity,
            "min_margin_trend": min_margin_trend,
            "min_revenue": min_revenue,
            "max_debt_change": max_debt_change,
        }
        # NaN compares above every number in DuckDB: `x <= NaN` would pass every company.
        if bad := [k for k, v in thresholds.items() if v is not None and finite(v) is None]:
            raise ToolError(f"{', '.join(bad)} must be a finite number (or omitted)")
        if (
            window > 1
            or trend_basis != "year_over_year"
            or max_debt_change is not None
            or sort_by == "debt_change"
        ):
            criteria.update(window=window, trend_basis=trend_basis, max_debt_change=max_debt_change)
        with self._snapshot() as snap:
            if sector is not None:
                from mcp_server.analyst_tools import resolve_sector

                sector = resolve_sector(snap, sector)
                criteria["sector"] = sector
            if "window" in criteria:
                return self._window_screen(snap, criteria, notes, limit=limit)
            rows = snap.query(
                queries.SCREEN,
                {
                    "period_kind": period_type,
                    "margin": margin,
                    "sort_by": sort_by,
                    "min_revenue_growth": min_revenue_growth,
                    "max_debt_to_equity": max_debt_to_equity,
                    "min_margin_trend": min_margin_trend,
                    "min_revenue": min_revenue,
                    "sector": sector,
                    "limit": limit + 1,
                },
            )
            margin_metric = {"gross": "gross_profit", "net": "net_income"}.get(
                margin, "operating_income"
            )
            hits = [
                ScreenHit(
                    company_id=r["company_id"],
                    name=r["name"],
                    tickers=r["tickers"],
                    fiscal_label=r["fiscal_label"],
                    calendar_end=r["calendar_end"],
                    prior_fiscal_label=r["prior_fiscal_label"],
                    revenue=_figure(r["revenue"]),
                    prior_revenue=_figure(r["revenue"], prior=True),
                    revenue_growth_pct=r["revenue_growth_pct"],
                    margin_pct=r["margin_pct"],
                    prior_margin_pct=r["prior_margin_pct"],
                    margin_trend_pp=r["margin_trend_pp"],
                    margin_figures=[
                        f
                        for f in (_figure(r[margin_metric]), _figure(r[margin_metric], prior=True))
                        if f
                    ],
                    total_debt=_figure(r["total_debt"]),
                    stockholders_equity=_figure(r["stockholders_equity"]),
                    debt_to_equity=r["debt_to_equity"],
                )
                for r in rows[:limit]
            ]
            return ScreenResult(
                **self._stamp(snap),
                criteria=criteria,
                units=dict(SCREEN_UNITS),
                notes=notes,
                matched=rows[0]["matched"] if rows else 0,
                hits=self._dated(snap, hits),
                truncated=len(rows) > limit,
                method=(
                    f"latest {period_type} period per company with reported revenue vs the same "
                    f"fiscal period a year earlier; margin = {margin_metric} / revenue; "
                    "debt_to_equity = total_debt / stockholders_equity at the period end; "
                    "computed in SQL from the snapshot's current (restated where restated) values"
                ),
            )

    def _dated(self, snap: Snapshot, hits: list[ScreenHit]) -> list[ScreenHit]:
        """Each hit flagged `stale` when its latest period ended long before the snapshot's as_of."""
        days = self.metric_settings.stale_after_days
        return [
            h.model_copy(update={"stale": is_stale(h.calendar_end, snap.as_of, days)}) for h in hits
        ]

    def _window_screen(
        self, snap: Snapshot, criteria: dict[str, Any], notes: list[str], limit: int
    ) -> ScreenResult:
        """screen_companies over a window of periods (`mcp_server.windows`)."""
        args = {
            k: criteria[k]
            for k in (
                "period_type",
                "window",
                "trend_basis",
                "margin",
                "sort_by",
                "sector",
                "min_revenue_growth",
                "min_margin_trend",
                "max_debt_change",
                "max_debt_to_equity",
                "min_revenue",
            )
        }
        rows = windows.group_periods(
            snap.query(queries.WINDOW_SCREEN, windows.window_params(limit=limit, **args))
        )
        if not rows:
            notes = [
                *notes,
                windows.coverage_note(snap, criteria["period_type"], criteria["window"]),
            ]
        fit = windows.hits_that_fit(criteria["window"], self.answer_chars)
        shown = rows[: min(limit, fit)]
        if len(shown) < min(limit, len(rows)):
            notes = [
                *notes,
                (
                    f"{rows[0]['matched']} companies matched; the first {len(shown)} (by sort_by) are shown "
                    f"whole, as many {criteria['window']}-period hits as one answer holds: narrow the "
                    "screen (thresholds, sector) or change sort_by to see others"
                ),
            ]
        return ScreenResult(
            **self._stamp(snap),
            criteria=criteria,
            units=dict(SCREEN_UNITS),
            notes=notes,
            matched=rows[0]["matched"] if rows else 0,
            hits=self._dated(
                snap, windows.window_hits(snap, shown, criteria["trend_basis"] == "sequential")
            ),
            truncated=len(rows) > len(shown),
            method=windows.window_method(
                criteria["period_type"],
                criteria["window"],
                criteria["trend_basis"],
                criteria["margin"],
            ),
        )

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
        with self._snapshot() as snap:
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
                    f"offset {offset} is past the end of chunk {chunk_id} ({r['total_chars']} characters)"
                )
            return ChunkResult(
                **self._stamp(snap),
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

    def explore_company(self, company_id: CompanyId) -> ExploreResult:
        """A first look at one company in a single call.

        `company.stale` is true when its latest period (filing or metric) ended long before the
        snapshot's `as_of`: say so before quoting any of its figures as current.

        Returns its identity (names, tickers, SIC industry, fiscal year end, former names), its
        latest filings with the sections each contains, the latest annual and quarterly value
        of the key metrics (revenue, gross profit, operating income, net income, total debt,
        stockholders' equity) with the change vs a year earlier and citations, and every metric
        id it has. From the knowledge graph: its strongest relations (suppliers, customers,
        competitors, subsidiaries; most cited first, each with the sentence that states it), the
        risk categories it reports with its own phrases, and peers that share its suppliers,
        customers or risks. Use it when asked about a company in general or before choosing
        what to look up; then get_metrics for longer histories, neighbors for every relation,
        and get_chunk to quote text.
        """
        with self._snapshot() as snap:
            company = self._resolve(snap, company_id)
            cik = company["cik"]
            profile = snap.query(queries.COMPANY_PROFILE, {"cik": cik})[0]
            filings = snap.query(
                queries.LATEST_FILINGS, {"cik": cik, "limit": LATEST_FILINGS_SHOWN + 1}
            )
            shown = filings[:LATEST_FILINGS_SHOWN]
            sections: dict[str, list[SectionSummary]] = {}
            for row in snap.query(
                queries.FILING_SECTIONS, {"cik": cik, "filing_ids": [f["filing_id"] for f in shown]}
            ):
                listed = sections.setdefault(row["filing_id"], [])
                if len(listed) < SECTIONS_PER_FILING:
                    listed.append(
                        SectionSummary(
                            section=row["section"], chunks=row["chunks"], kinds=row["kinds"]
                        )
                    )
            latest = snap.query(
                queries.LATEST_KEY_METRICS, {"cik": cik, "metrics": list(KEY_METRICS)}
            )
            by_kind = {(r["metric"], r["kind"]): _metric_value(r) for r in latest}
            available = snap.query(queries.COMPANY_METRICS, {"cik": cik})
            node = snap.query(queries.ENTITY, {"entity_id": company["company_id"]})
            # Its rows in graph_adjacency by its ordinal (None: no edges, and the queries find none).
            entity = {
                "entity_id": company["company_id"],
                "ord": node[0]["adjacency_ord"] if node else None,
            }
            strongest = [
                r["edge_id"]
                for r in snap.query(
                    queries.COMPANY_RELATIONS,
                    {**entity, "hidden": HIDDEN_RELATIONS, "limit": RELATIONS_SHOWN},
                )
            ]
            edges = edges_by_id(snap, strongest)
            risks = [
                RiskExposure(
                    risk=entity_ref(r["neighbor_id"], "risk", r["name"]),
                    evidence_count=r["evidence_count"],
                    phrases=r["phrases"] or [],
                    last_filed=r["last_filed"],
                    edge_id=r["edge_id"],
                )
                for r in snap.query(queries.COMPANY_RISKS, {**entity, "limit": RISKS_SHOWN})
            ]
            links = snap.query(queries.PEER_LINKS, entity) if entity["ord"] is not None else []
            peer_rows = (
                snap.query(
                    queries.COMPANY_PEERS,
                    {
                        "entity_id": entity["entity_id"],
                        "links": links,
                        "limit": PEERS_SHOWN,
                        "shared": sorted({r["shared_ord"] for r in links}),
                    },
                )
                if links
                else []
            )
            shared_ids = {
                i
                for r in peer_rows
                for k in ("suppliers", "customers", "risks")
                for i in r[k] or []
            }
            names = {
                n["entity_id"]: entity_ref(n["entity_id"], n["entity_type"], n["name"])
                for n in (
                    snap.query(queries.NODE_NAMES, {"ids": sorted(shared_ids)})
                    if shared_ids
                    else []
                )
            }
            peers = [
                Peer(
                    company=entity_ref(r["peer_id"], r["peer_type"], r["peer_name"]),
                    score=r["score"],
                    shared_suppliers=[names[i] for i in sorted(r["suppliers"] or []) if i in names],
                    shared_customers=[names[i] for i in sorted(r["customers"] or []) if i in names],
                    shared_risks=[names[i] for i in sorted(r["risks"] or []) if i in names],
                )
                for r in peer_rows
            ]
            return ExploreResult(
                **self._stamp(snap),
                company=CompanyProfile(**profile, **self._freshness(snap, cik)),
                latest_filings=[
                    FilingSummary(**f, sections=sections.get(f["filing_id"], [])) for f in shown
                ],
                filings_truncated=len(filings) > LATEST_FILINGS_SHOWN,
                key_metrics=[
                    KeyMetric(
                        metric=m,
                        latest_annual=by_kind.get((m, "annual")),
                        latest_quarter=by_kind.get((m, "quarter")),
                    )
                    for m in KEY_METRICS
                    if (m, "annual") in by_kind or (m, "quarter") in by_kind
                ],
                metrics_available=[r["metric"] for r in available],
                relations=[edges[i] for i in strongest if i in edges],
                risks=risks,
                peers=peers,
            )

    def neighbors(
        self,
        entity_id: EntityId,
        relation: Annotated[
            Relation | None,
            Field(
                description="only this relation; omit for all but REPORTS_METRIC and GUIDES "
                "(metric values: use get_metrics, or ask for them by name here)"
            ),
        ] = None,
        direction: Annotated[
            Literal["both", "out", "in"],
            Field(
                description="out: the entity is the subject (NVIDIA COMPETES_WITH x); in: it is "
                "the object (x SUPPLIES NVIDIA: NVIDIA's suppliers are relation=SUPPLIES, "
                "direction=in)"
            ),
        ] = "both",
        hops: Annotated[
            int,
            Field(
                ge=1,
                le=2,
                description="1: direct relations; 2: relations of "
                "those neighbors, each with the path through the middle node",
            ),
        ] = 1,
        period: Annotated[
            str | None,
            Field(
                max_length=16,
                pattern=PERIOD_LABEL_PATTERN,
                description="a fiscal label (FY2025, Q2-FY2026): edges stated for it or in a filing for it",
            ),
        ] = None,
        include_superseded: Annotated[
            bool,
            Field(description="also edges a later filing restated (superseded_by says by which)"),
        ] = False,
        limit: Annotated[
            int, Field(ge=1, le=100, description="most edges (hops=1) or paths (hops=2)")
        ] = 25,
    ) -> NeighborsResult:
        """The knowledge graph around one entity: who supplies, buys from, competes with or
        owns it, which risks it reports, and (hops=2) what lies one step further.

        Use for relationship questions: "who supplies NVIDIA?" (relation=SUPPLIES,
        direction=in), "who competes with Boeing?", "which companies name Samsung?", "who else
        is exposed to export controls?" (entity_id=RISK:export-controls, direction=in), "which
        companies share NVIDIA's foundry?" (hops=2, relation=SUPPLIES). Every edge carries its
        citations: the filing, section, chunk_id and the verbatim sentence that states it (pass
        chunk_id to get_chunk for the whole passage), how many citations support it across
        filings, the fiscal period it is about (or the periods of the filings that state it),
        and superseded_by when restated. At two hops each path names the middle node (`via`),
        its first hop by first_edge_id (the first hops are listed once in `edges`, in full) and
        its second hop with its newest citation. Strongest (most cited) first; `truncated` says
        when there are more.
        """
        with self._snapshot() as snap:
            node = self._entity(snap, entity_id)
            params = {
                "entity_id": node["entity_id"],
                "ord": node["adjacency_ord"],
                "relation": relation,
                "direction": direction,
                "period": period,
                "include_superseded": include_superseded,
                "hidden": HIDDEN_RELATIONS,
            }
            me = entity_ref(node["entity_id"], node["entity_type"], node["name"])
            common = {
                "entity": me,
                "hops": hops,
                "relation": relation,
                "direction": direction,
                "period": period,
            }
            if hops == 1:
                rows = snap.query(queries.NEIGHBORS, {**params, "limit": limit + 1})
                cites = edge_citations(snap, [r["edge_id"] for r in rows[:limit]])
                shown = [_adjacent_edge(me, r, cites) for r in rows[:limit]]
                return NeighborsResult(
                    **self._stamp(snap),
                    **common,
                    edges=shown,
                    paths=[],
                    truncated=len(rows) > limit,
                    note=None
                    if shown
                    else "no edges match; try direction='both', another relation or no period",
                )
            rows = snap.query(
                queries.NEIGHBORS_2,
                {
                    **params,
                    "limit": limit + 1,
                    "fanout": NEIGHBOR_FANOUT,
                    "per_middle": max(3, min(limit, 25)),
                },
            )
            kept = rows[:limit]
            # One citation per edge at two hops: the paths are the answer, get_chunk the detail.
            cites = edge_citations(
                snap, [i for r in kept for i in (r["first_edge_id"], r["edge_id"])], 1
            )
            # Most paths leave through the same few first hops: each is shown once, in `edges`
            # (the answer, and what every client parses and checks, about half the size).
            firsts: dict[str, GraphEdge] = {}
            paths = []
            for r in kept:
                via = entity_ref(r["entity_id"], r["via_type"], r["via_name"])
                if r["first_edge_id"] not in firsts:
                    firsts[r["first_edge_id"]] = _adjacent_edge(me, r, cites, "first_")
                paths.append(
                    TwoHopPath(
                        via=via,
                        first_edge_id=r["first_edge_id"],
                        second=_path_edge(via.entity_id, r, cites),
                        neighbor=entity_ref(
                            r["neighbor_id"], r["neighbor_type"], r["neighbor_name"]
                        ),
                    )
                )
            return NeighborsResult(
                **self._stamp(snap),
                **common,
                edges=list(firsts.values()),
                paths=paths,
                truncated=len(rows) > limit,
                note=None if paths else "no two-hop paths match; try hops=1 or fewer filters",
            )

    def graph_path(
        self,
        from_id: EntityId,
        to_id: EntityId,
        max_hops: Annotated[int, Field(ge=1, le=4, description="longest path to look for")] = 3,
    ) -> PathResult:
        """The shortest evidence-backed paths between two entities in the knowledge graph.

        Use for "how is Tesla connected to NVIDIA?" or "do Apple and TSMC's customers
        overlap?": returns up to five shortest paths (each hop an edge with its citations,
        read in its own direction), through suppliers, customers, competitors, subsidiaries and
        counterparties first; only when none exists within max_hops does it go through a shared
        risk category (`through_risks` then says so). Metric edges are never traversed.
        """
        with self._snapshot() as snap:
            source = self._entity(snap, from_id)
            target = self._entity(snap, to_id)
            a, b = source["entity_id"], target["entity_id"]
            found: list[list[tuple[str, str]]] = []
            through_risks = False
            for risks_allowed in (False, True):
                found = self._shortest_paths(
                    snap,
                    a,
                    b,
                    max_hops,
                    risks_allowed,
                    (source["adjacency_ord"], target["adjacency_ord"]),
                )
                if found:
                    through_risks = risks_allowed
                    break
            shown = found[:PATHS_SHOWN]
            edge_ids = [e for path in shown for _, e in path]
            edges = edges_by_id(snap, edge_ids)
            node_ids = sorted({a, b} | {n for path in shown for n, _ in path})
            names = {
                r["entity_id"]: entity_ref(r["entity_id"], r["entity_type"], r["name"])
                for r in snap.query(queries.NODE_NAMES, {"ids": node_ids})
            }
            paths = [
                GraphPath(
                    nodes=[names[a], *(names[n] for n, _ in path)],
                    edges=[edges[e] for _, e in path],
                )
                for path in shown
                if all(e in edges for _, e in path)
            ]
            return PathResult(
                **self._stamp(snap),
                source=names[a],
                target=names[b],
                hops=len(found[0]) if found else None,
                paths=paths,
                through_risks=through_risks and bool(found),
                truncated=len(found) > PATHS_SHOWN,
            )

    def _shortest_paths(
        self,
        snap: Snapshot,
        a: str,
        b: str,
        max_hops: int,
        through_risks: bool,
        ords_ab: tuple[int | None, int | None],
    ) -> list[list[tuple[str, str]]]:
        """Bidirectional breadth-first search; every shortest path as [(node, edge into it)]."""
        if a == b:
            return []
        parents: tuple[dict[str, list[tuple[str, str]]], dict[str, list[tuple[str, str]]]] = (
            {a: []},
            {b: []},
        )
        # graph_adjacency is read by entity ordinal (nodes.adjacency_ord); a node without edges has none.
        ords = {n: o for n, o in zip((a, b), ords_ab, strict=True) if o is not None}
        frontiers = ([a] if a in ords else [], [b] if b in ords else [])
        hops = [0, 0]
        meet: set[str] = set()
        while not meet and hops[0] + hops[1] < max_hops and frontiers[0] and frontiers[1]:
            side = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
            rows = snap.query(
                queries.PATH_STEP,
                {
                    "frontier": [ords[n] for n in frontiers[side]],
                    "hidden": HIDDEN_RELATIONS,
                    "through_risks": through_risks,
                    "fanout": PATH_FANOUT,
                },
            )
            seen, nxt = parents[side], []
            level: dict[str, list[tuple[str, str]]] = {}
            for r in rows:
                node = r["neighbor_id"]
                if node in seen:
                    continue
                ords[node] = r["neighbor_ord"]
                level.setdefault(node, []).append((r["entity_id"], r["edge_id"]))
            for node, links in level.items():
                seen[node] = links
                nxt.append(node)
            hops[side] += 1
            frontiers = (nxt, frontiers[1]) if side == 0 else (frontiers[0], nxt)
            meet = set(parents[0]) & set(parents[1])

        def walk(node: str, side: int) -> list[list[tuple[str, str]]]:
            """Paths from the side's root to `node` as [(node, edge)] (root excluded)."""
            links = parents[side][node]
            if not links:
                return [[]]
            out = []
            for prev, edge in links:
                for head in walk(prev, side):
                    out.append([*head, (node, edge)])
                    if len(out) > 50:
                        return out
            return out

        paths: list[list[tuple[str, str]]] = []
        for m in sorted(meet):
            for head in walk(m, 0):
                for tail in walk(m, 1):
                    # The backward half runs from b to m: reverse it into m → … → b.
                    nodes_back = [n for n, _ in tail]
                    edges_back = [e for _, e in tail]
                    back_nodes = [*reversed(nodes_back[:-1]), b] if tail else []
                    back = list(zip(back_nodes, reversed(edges_back), strict=True))
                    path = [*head, *back]
                    if path and len({n for n, _ in path}) == len(path):
                        paths.append(path)
        paths.sort(key=lambda p: (len(p), [e for _, e in p]))
        shortest = len(paths[0]) if paths else 0
        return [p for p in paths if len(p) == shortest]

    def community_themes(
        self,
        sector: Annotated[
            str | None,
            Field(
                max_length=80,
                description="an industry as analysts say it ('semiconductors', "
                "'banks', 'software', 'pharmaceuticals', 'oil and gas', 'retail') or a SIC code "
                "('3674'); the answer then names only that sector's companies",
            ),
        ] = None,
        query: Annotated[
            str | None,
            Field(
                max_length=300,
                description="what the question is about, in words: 'export "
                "controls', 'supplier concentration', 'competition', 'cybersecurity'",
            ),
        ] = None,
        level: Annotated[
            int | None,
            Field(
                ge=0,
                le=12,
                description="hierarchy level to answer from (0 = broadest "
                "communities); omit to let the tool choose the level that fits the question",
            ),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=30, description="most themes to return")] = 10,
    ) -> CommunityThemesResult:
        """The global search: themes across many companies at once, from the reports written
        ahead of time on communities of the knowledge graph (groups of companies and the
        organizations they name, tied by supply, customer, competition and ownership).

        Use it for questions that start from no single company: "what are the dominant risk
        themes among semiconductor companies?" (sector="semiconductors"), "which supply chains
        are exposed to export controls?" (query="export controls"), "what are the main themes
        in this data?" (no arguments). For one company's relations use neighbors or
        explore_company instead.

        Returns `themes`: findings merged across the communities read and de-duplicated, each a
        sentence naming only entities whose evidence it cites (`citations`: filing, section,
        chunk_id for get_chunk, the verbatim quote), strongest first; `answer`: the top themes
        in a few sentences; `communities`: the reports read (title, summary, impact 0-10 with
        why, member companies, sector mix by SIC). The level is chosen for the question
        (`selection` says how). A report built before its companies' latest filings is served
        with `stale: true` and its `as_of`; one whose source filing was removed or amended is
        withheld (`withheld_reports`) until it is rebuilt. Sectors come from SEC SIC codes, which
        SEC gives only some companies here: `sector_mix` shows how many are unknown.
        """
        with self._snapshot() as snap:
            if "community_reports" not in snap.manifest.counts:
                raise ToolError(
                    f"snapshot {snap.version} has no community reports (it was built without the "
                    "communities stage); publish a new snapshot (materialize graph_snapshot)"
                )
            found = community_themes(snap, sector=sector, query=query, level=level, limit=limit)
            answer, answer_by, note = found.answer, found.answer_by, found.note
            writer = self.themes_writer
            if found.themes and writer is not None:
                written = writer.write(sector, query, found.themes)
                if written is not None:
                    answer, answer_by = written, f"model:{writer.model}"
                else:
                    note = (
                        (note + " " if note else "") + "the model's answer was unavailable or "
                        "cited no theme; the deterministic answer is shown"
                    )
            match = found.sector
            return CommunityThemesResult(
                **self._stamp(snap),
                sector=sector,
                sector_matched=match.sector if match else None,
                sic_codes=list(match.sic_codes) if match else [],
                query=query,
                terms=found.terms,
                level=found.level,
                levels_used=found.levels_used,
                selection=found.selection,
                answer=answer,
                answer_by=answer_by,
                themes=[_theme(t) for t in found.themes],
                communities=[_brief(s.row, s.relevance) for s in found.communities],
                stale_reports=found.stale,
                withheld_reports=found.withheld,
                truncated=found.truncated,
                note=note,
            )

    def get_ontology(self) -> OntologyResult:
        """What the knowledge graph is made of: entity types and relation types with how many
        there are, and the risk taxonomy with how many entities each category covers.

        Call it before a graph question to learn the vocabulary: relation names for
        neighbors(relation=…), RISK:… ids for "who is exposed to …", and what each entity type
        means (company = SEC registrant by CIK; organization = a company that files nothing with
        the SEC; risk = a category of the curated taxonomy; metric = a reported metric).
        """
        with self._snapshot() as snap:
            types = {r["entity_type"]: r["n"] for r in snap.query(queries.ENTITY_TYPE_COUNTS)}
            relations = {r["relation"]: r for r in snap.query(queries.RELATION_COUNTS)}
            return OntologyResult(
                **self._stamp(snap),
                entity_types=[
                    TypeCount(name=k, description=d, count=types.get(k, 0))
                    for k, d in GRAPH_ENTITY_TYPES.items()
                ],
                relations=[
                    RelationCount(
                        relation=k,
                        description=d,
                        edges=relations.get(k, {}).get("edges", 0),
                        current=relations.get(k, {}).get("current", 0),
                        citations=relations.get(k, {}).get("citations", 0) or 0,
                    )
                    for k, d in GRAPH_RELATIONS.items()
                ],
                risk_taxonomy=[RiskCategoryInfo(**r) for r in snap.query(queries.RISK_TAXONOMY)],
                review_queue=snap.manifest.review_queue,
            )

    def status(self) -> StatusResult:
        """What the snapshot behind these tools holds and how fresh it is.

        Returns the snapshot version, `as_of` (the date its knowledge runs to: the newest
        filing date, or the period end of a filing that carries no date; nothing later is
        known) with `as_of_basis` saying which filing it comes from, when and by which code it
        was built, how many companies and
        filings (by form) it has, what each table holds, and every metric id with its units,
        coverage and period range. Call it when the user asks how current the data is, which
        metrics exist, or before saying that something is not in the data.
        """
        with self._snapshot() as snap:
            info = snap.query(queries.STATUS_INFO)[0]
            manifest = snap.manifest
            forms = {r["form"]: r["filings"] for r in snap.query(queries.STATUS_FORMS)}
            return StatusResult(
                **self._stamp(snap),
                as_of_basis=manifest.as_of_basis,
                built_at=info["built_at"],
                code_version=info["code_version"],
                companies=manifest.counts.get("companies", 0),
                filings=manifest.counts.get("filings", 0),
                forms=forms,
                tables=[
                    TableInfo(name=name, rows=manifest.counts.get(name, 0), holds=holds)
                    for name, holds in manifest.tables.items()
                ],
                metrics=[MetricInfo(**r) for r in snap.query(queries.STATUS_METRICS)],
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
from reports on communities of the graph, each finding cited.
A question about one or a few named companies ("NVIDIA's suppliers and what it says about
them") can start with local_search: their graph neighbourhood with quotes, their communities,
latest metrics and the best passages in one call, every item cited; what several entities all
share (suppliers, risks, competitors) is shared_neighbors.
Numbers come from filings, each with a citation; growth and ratios are computed by the server.
Quote them with their fiscal labels and citations; do not invent figures or give investment
advice."""


def build_server(
    reader: SnapshotReader,
    retrieval: RetrievalSettings | None = None,
    community_settings: CommunitySettings | None = None,
) -> MCPServer:
    """The MCP server over `reader`'s snapshots, every tool read-only and idempotent. Every
    answer's citations get session evidence numbers, and every answer is capped in size
    (`mcp_server.evidence`). `community_settings`: the model endpoint community_themes may
    write its answer with."""
    tools = GraphTools(reader, community_settings)
    ledgers = Ledgers()
    analyst = AnalystTools(tools, retrieval or RetrievalSettings(), ledgers)
    local = LocalSearch(analyst)
    server = MCPServer("filings-graph", instructions=INSTRUCTIONS, version=_version())
    for fn, title in (
        (tools.find_company, "Find a company"),
        (tools.get_metrics, "Reported metrics of a company"),
        (tools.screen_companies, "Screen companies on reported fundamentals"),
        (tools.get_chunk, "Read a cited filing chunk"),
        (tools.explore_company, "Explore a company"),
        (tools.neighbors, "Relations of an entity in the knowledge graph"),
        (tools.graph_path, "Shortest paths between two entities"),
        (tools.get_ontology, "The knowledge graph's vocabulary"),
        (tools.community_themes, "Themes across companies (global search)"),
        (tools.status, "Snapshot status"),
        (analyst.search_chunks, "Search filing passages"),
        (analyst.compare_companies, "Compare peers on the calendar"),
        (analyst.check_citations, "Check a draft's citations"),
        (FactSearch(tools).search_facts, "Search any reported fact of a company"),
        (FinancialsTools(tools).get_financials, "A financial statement as filed"),
        (
            WhatChangedTools(tools, retrieval or RetrievalSettings()).what_changed,
            "What changed between two filings",
        ),
        (local.local_search, "Everything about the companies a question names (local search)"),
        (local.shared_neighbors, "Neighbours that several entities share"),
    ):
        server.add_tool(
            with_evidence(fn, ledgers),
            title=title,
            annotations=READ_ONLY.model_copy(update={"title": title}),
            structured_output=True,
        )
    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("filings-graphrag")
    except PackageNotFoundError:
        return "0"
