"""Output models of the MCP tools: each becomes the tool's output schema, and every answer
says which snapshot it came from (`snapshot`) and how fresh that is (`as_of`)."""

from __future__ import annotations

import datetime as dt
import math
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


def _nullable_as_type_list(schema: dict[str, Any]) -> None:
    """`anyOf: [{type: X}, {type: null}]` → `type: [X, null]`: the same constraint, and clients
    that validate answers against the output schema (the Python SDK's does, with jsonschema)
    check it without trying two branches per field, which halves their validation time."""
    for prop in schema.get("properties", {}).values():
        options = prop.get("anyOf")
        if not options or len(options) != 2 or {"type": "null"} not in options:
            continue
        [other] = [o for o in options if o != {"type": "null"}]
        if isinstance(other.get("type"), str) and "$ref" not in other:
            del prop["anyOf"]
            prop.update(other)
            prop["type"] = [other["type"], "null"]


def finite(value: Any) -> float | None:
    """The one conversion of a stored number for output: a finite float, else None (missing).
    JSON has no NaN or Infinity, and a snapshot published before facts were checked may hold
    them; the queries filter such rows where they can, and this catches the rest (a year-ago
    value, a ratio that overflowed)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


# A figure that may be missing: non-finite input becomes None instead of NaN in the answer.
Number = Annotated[float | None, BeforeValidator(finite)]


class Output(BaseModel):
    """Base of every output model (and of the models nested in them). A required number that
    is not finite fails validation (a tool error) rather than reaching a client as NaN."""

    model_config = ConfigDict(json_schema_extra=_nullable_as_type_list, allow_inf_nan=False)


class Stamped(Output):
    snapshot: str = Field(description="version of the published snapshot that answered")
    as_of: dt.date | None = Field(
        description="newest filing date in that snapshot; nothing filed after it is known"
    )
    capped: str | None = Field(
        None, description="set when the answer was cut to fit the size cap: what was left out"
    )


class Citation(Output):
    filing_id: str = Field(description="the filing (EDGAR accession number when it has one)")
    form: str | None = None
    filed_date: dt.date | None = None
    section: str | None = Field(None, description="e.g. '10-K/Item 8'")
    chunk_id: str | None = Field(None, description="pass to get_chunk to read the text shown")
    fact_id: str | None = None
    concept: str | None = Field(None, description="XBRL concept reported, e.g. us-gaap:Revenues")
    evidence: int | None = Field(
        None, description="this evidence's number in the session: cite it in an answer as [n]"
    )


class CompanyMatch(Output):
    company_id: str = Field(
        description="canonical id, e.g. CIK-0001045810 (or ORG:…/RISK:… for an organization or "
        "risk); pass to other tools"
    )
    name: str
    entity_type: str = Field(
        "company",
        description="company (SEC registrant), organization (files nothing with the "
        "SEC: use neighbors/explore only), or risk (a risk category: use neighbors)",
    )
    tickers: list[str]
    cik: str | None
    fiscal_year_end: str | None = Field(None, description="MM-DD")
    sic: str | None = None
    sic_description: str | None = None
    matched_on: str = Field(
        description="what matched the query, e.g. \"segment 'Google Services'\""
    )
    score: float = Field(description="1.0 = exact CIK or ticker; lower = looser match")


class FindCompanyResult(Stamped):
    query: str
    matches: list[CompanyMatch]
    truncated: bool = Field(description="more companies matched than `limit`")


SOURCE_KIND = (
    "xbrl: a tagged fact of a 10-K/10-Q (audited or reviewed); press_release: a table or "
    "sentence of an 8-K earnings release, unaudited, replaced by the 10-Q/10-K's figure when it "
    "arrives"
)


class SupersededValue(Output):
    value: float
    display: str
    fiscal_label: str | None
    citation: Citation
    source_kind: str = Field("xbrl", description=SOURCE_KIND)
    supersede_reason: str | None = Field(
        None,
        description=(
            "why a later figure replaced this one: restatement (an error correction or a stated "
            "restatement), recast (a stock split, an accounting change, a reclassification, a "
            "discontinued operation), press_release_final (the earnings release's figure, made "
            "final by the 10-Q/10-K), unknown (the value changed and the filing does not say why)"
        ),
    )
    supersede_detail: str | None = Field(
        None, description="the evidence: split ratio, the accounting standard, the difference found"
    )


class Operand(Output):
    """A value a derived figure was computed from, with its own citation."""

    value: float
    display: str
    fiscal_label: str | None
    source_kind: str = Field("xbrl", description=SOURCE_KIND)
    citation: Citation


class MetricValue(Output):
    fiscal_label: str = Field(description="the company's own fiscal label, e.g. FY2025, Q2-FY2026")
    fiscal_year: int | None
    fiscal_period: str | None
    period_type: str = Field(description="duration (income statement) or instant (balance sheet)")
    calendar_start: dt.date
    calendar_end: dt.date
    value: float = Field(description="in `unit`, scale applied (USD, not millions)")
    unit: str
    display: str = Field(description="human form, e.g. '130,497 million USD'")
    yoy_change_pct: Number = Field(
        None, description="change vs the like period a year earlier, percent (computed in SQL)"
    )
    prior_fiscal_label: str | None = None
    prior_value: Number = None
    citation: Citation
    restated: bool = Field(
        description="true when an earlier report of this period gave another value"
    )
    superseded: list[SupersededValue] = Field(
        description=(
            "earlier, different values reported for this period, and the earnings-release figure "
            "a filing made final, each with supersede_reason (newest first)"
        )
    )
    source_kind: str = Field("xbrl", description=SOURCE_KIND)
    derived: bool = Field(
        False,
        description=(
            "computed, not reported: a quarter from year-to-date figures (Q4 = FY − 9M) or gross "
            "profit = revenue − cost of revenue; `derivation` names the formula and `derived_from` "
            "cites every operand"
        ),
    )
    derivation: str | None = Field(None, description="e.g. 'FY2024 − 9M-FY2024'")
    derived_from: list[Operand] = Field(
        default_factory=list, description="the operands, each cited"
    )
    mapping_rule: str | None = Field(
        None,
        description=(
            "how the line was recognised when not by a standard us-gaap concept: a company "
            "concept's label and statement, or the earnings-release row or sentence"
        ),
    )
    as_filed_value: Number = Field(
        None,
        description=(
            "the filing's own figure; differs from `value` only for a per-share value or share "
            "count filed before a later stock split (`value` is then re-based to the latest split)"
        ),
    )
    split_basis: str | None = Field(
        None,
        description="per-share values and share counts: the share basis of `value`, and the split(s) applied",
    )


class MetricSeries(Output):
    metric: str
    values: list[MetricValue] = Field(description="newest first")
    more_periods_available: bool


class GetMetricsResult(Stamped):
    company_id: str
    name: str
    period_type: str
    series: list[MetricSeries]
    missing: list[str] = Field(description="requested metrics with no value of this period type")
    latest_period_end: dt.date | None = Field(
        None, description="the end of the company's latest reported period"
    )
    stale: bool = Field(
        False,
        description=(
            "true when that latest period ended long before the snapshot's as_of (more than "
            "GRAPHRAG_METRICS_STALE_AFTER_DAYS): its figures are not current"
        ),
    )
    ratios: list[RatioSeries] = Field(
        default_factory=list,
        description="the asked ratio series, computed in SQL, each value with its operands",
    )


class Figure(Output):
    value: float
    unit: str
    display: str
    fiscal_label: str | None
    citation: Citation
    source_kind: str | None = Field(None, description=SOURCE_KIND)
    derived: bool | None = Field(None, description="computed from other figures (see get_metrics)")


class ScreenHit(Output):
    company_id: str
    name: str
    tickers: list[str]
    fiscal_label: str = Field(description="the company's latest period of the requested kind")
    calendar_end: dt.date
    prior_fiscal_label: str | None
    revenue: Figure
    prior_revenue: Figure | None
    revenue_growth_pct: Number
    margin_pct: Number = Field(description="the chosen margin in the latest period, percent")
    prior_margin_pct: Number
    margin_trend_pp: Number = Field(
        description="margin change vs a year earlier, percentage points"
    )
    margin_figures: list[Figure] = Field(
        description="the income figures the margins divide by revenue"
    )
    total_debt: Figure | None
    stockholders_equity: Figure | None
    debt_to_equity: Number
    window: list[WindowPeriod] = Field(
        default_factory=list,
        description="window screens (window > 1, trend_basis, max_debt_change): every period of the "
        "window, newest first, with the figures each criterion used, cited",
    )
    debt_start: Figure | None = Field(
        None,
        description="window screens: total debt at the window's start (end of the period before it)",
    )
    debt_end: Figure | None = Field(
        None, description="window screens: total debt at the window's end"
    )
    debt_change_pct: Number = Field(
        None, description="window screens: debt_end vs debt_start, percent (negative = debt cut)"
    )
    stale: bool = Field(
        False,
        description="true when this latest period ended long before the snapshot's as_of "
        "(more than GRAPHRAG_METRICS_STALE_AFTER_DAYS): an old filing's figures, not current ones",
    )


class ScreenResult(Stamped):
    criteria: dict[str, int | float | str | None]
    matched: int = Field(description="companies passing every criterion")
    hits: list[ScreenHit]
    truncated: bool = Field(description="more companies passed than `limit`")
    method: str = Field(description="how the figures were chosen and computed")
    units: dict[str, str] = Field(
        default_factory=dict,
        description="the unit of every criterion and figure (growth in percent)",
    )
    notes: list[str] = Field(
        default_factory=list, description="warnings about the criteria as read"
    )


class ChunkResult(Stamped):
    chunk_id: str
    filing_id: str
    form: str | None
    company_id: str | None
    company: str | None
    filed_date: dt.date | None
    section: str | None
    kind: str | None
    char_start: int | None = Field(description="span in the filing's normalized text")
    char_end: int | None
    scale_header: str | None = Field(description="e.g. 'in millions, except per share data'")
    text: str = Field(description="verbatim, from `offset`, at most `max_chars` characters")
    offset: int
    total_chars: int
    truncated: bool = Field(description="more text follows; call again with a larger offset")


class SectionSummary(Output):
    section: str
    chunks: int
    kinds: list[str]


class FilingSummary(Output):
    filing_id: str
    form: str
    period_end: dt.date | None
    fiscal_year: int | None
    fiscal_period: str | None
    filed_date: dt.date | None
    sections: list[SectionSummary]


class KeyMetric(Output):
    metric: str
    latest_annual: MetricValue | None
    latest_quarter: MetricValue | None


class CompanyProfile(Output):
    company_id: str
    name: str
    cik: str
    tickers: list[str]
    exchanges: list[str]
    fiscal_year_end: str | None
    sic: str | None
    sic_description: str | None
    former_names: list[str]
    filings: int
    first_filed: dt.date | None
    last_filed: dt.date | None
    latest_period_end: dt.date | None = Field(
        None, description="the end of its latest period (filing or metric)"
    )
    stale: bool = Field(
        False,
        description="true when that period ended long before the snapshot's as_of: not current",
    )


# -- the knowledge graph ---------------------------------------------------------------------
class EntityRef(Output):
    entity_id: str = Field(
        description="CIK-…, ORG:…, RISK:… or METRIC:…; pass to neighbors / graph_path"
    )
    entity_type: str | None
    name: str


class GraphCitation(Citation):
    """A Citation (so it gets its session evidence number) with the sentence behind an edge."""

    quote: str | None = Field(None, description="verbatim from the filing; null for an XBRL fact")
    subject_text: str | None = Field(None, description="the subject as the filing wrote it")
    object_text: str | None = Field(
        None, description="the object as the filing wrote it (a risk's own phrase)"
    )


class TimeFilter(Output):
    """The period or date a graph answer was restricted to (issue 25: time on the graph)."""

    period: str | None = Field(
        description="the period asked for, normalized (FY2025, Q2-FY2026, 2024, 2024-Q3, "
        "2024-07-01..2024-12-31); null when only as_of was given"
    )
    period_kind: str | None = Field(
        description="fiscal (each company's own fiscal calendar) or calendar"
    )
    calendar_start: dt.date | None = Field(description="a calendar period's first day")
    calendar_end: dt.date | None = Field(description="a calendar period's last day")
    as_of: dt.date | None = Field(description="answered from what was filed on or before this date")
    rule: str = Field(description="how the filter was applied, in words")


TIME_FILTER_FIELD = Field(
    None, description="the period / as-of filter this answer applied; null when none"
)


class GraphEdge(Output):
    edge_id: str
    subject: EntityRef
    relation: str
    object: EntityRef
    period: str | None = Field(
        description="fiscal label the statement is about (FY2025); null when undated"
    )
    calendar_start: dt.date | None
    calendar_end: dt.date | None
    value: Number
    value_low: Number = Field(None, description="a stated range's low end (value is then null)")
    value_high: Number = Field(None, description="a stated range's high end")
    bound: str | None = Field(
        None,
        description="lower: value is a floor ('exceed $11 billion', 'at least'); upper: a ceiling "
        "('up to'); null: the figure as stated",
    )
    unit: str | None
    evidence_count: int = Field(description="citations behind the edge, across filings")
    filing_count: int
    first_filed: dt.date | None = None
    last_filed: dt.date | None = Field(description="newest filing that states it")
    seen_periods: list[str] = Field(description="fiscal periods of the filings that state it")
    superseded_by: str | None = Field(
        description="edge id of a later, different value (a restatement)"
    )
    citations: list[GraphCitation] = Field(description="newest first, at most a few")
    more_citations: int = Field(description="citations not shown")


class PathEdge(Output):
    """An edge of a two-hop path, read in its own direction (subject_id → object_id), with its
    newest citation; neighbors(entity_id=<via>) shows its periods and every citation."""

    edge_id: str
    subject_id: str
    relation: str
    object_id: str
    period: str | None = Field(description="fiscal label the statement is about; null when undated")
    value: Number
    unit: str | None
    evidence_count: int = Field(description="citations behind the edge, across filings")
    last_filed: dt.date | None = Field(description="newest filing that states it")
    superseded_by: str | None = Field(
        description="edge id of a later, different value (a restatement)"
    )
    citation: GraphCitation | None = Field(description="its newest citation")


class TwoHopPath(Output):
    via: EntityRef = Field(description="the middle node")
    first_edge_id: str = Field(
        description="the edge between the entity asked about and `via`: listed once in `edges`, with its citation"
    )
    second: PathEdge = Field(description="the edge between `via` and `neighbor`")
    neighbor: EntityRef


class NeighborsResult(Stamped):
    entity: EntityRef
    hops: int
    relation: str | None
    direction: str
    period: str | None
    edges: list[GraphEdge] = Field(
        description="hops=1: the entity's edges, strongest first; hops=2: the first hops the paths "
        "go through, each once (a path names its own by first_edge_id)"
    )
    paths: list[TwoHopPath] = Field(description="hops=2: entity → via → neighbor, strongest first")
    truncated: bool = Field(description="more edges or paths matched than `limit`")
    note: str | None = None
    time_filter: TimeFilter | None = TIME_FILTER_FIELD


class GraphPath(Output):
    nodes: list[EntityRef] = Field(description="from `from_id` to `to_id`")
    edges: list[GraphEdge] = Field(
        description="one per hop, in order; read each in its own direction"
    )


class PathResult(Stamped):
    source: EntityRef
    target: EntityRef
    hops: int | None = Field(
        description="length of the shortest paths; null when none within max_hops"
    )
    paths: list[GraphPath]
    through_risks: bool = Field(description="the paths pass through a shared risk category")
    truncated: bool
    time_filter: TimeFilter | None = TIME_FILTER_FIELD


class TypeCount(Output):
    name: str
    description: str
    count: int


class RelationCount(Output):
    relation: str
    description: str
    edges: int
    current: int = Field(description="edges not superseded by a restatement")
    citations: int


class RiskCategoryInfo(Output):
    entity_id: str
    label: str
    description: str | None
    companies: int = Field(description="entities exposed to it in this snapshot")


class OntologyResult(Stamped):
    entity_types: list[TypeCount]
    relations: list[RelationCount]
    risk_taxonomy: list[RiskCategoryInfo]
    review_queue: int | None = Field(
        description="mentions left unresolved (or flagged) when the snapshot was built"
    )


class RiskExposure(Output):
    risk: EntityRef
    evidence_count: int
    phrases: list[str] = Field(description="the risk in the filings' own words")
    last_filed: dt.date | None
    edge_id: str


class Peer(Output):
    company: EntityRef
    shared_suppliers: list[EntityRef]
    shared_customers: list[EntityRef]
    shared_risks: list[EntityRef]
    score: int = Field(description="3 per shared supplier or customer, 1 per shared risk")


class ExploreResult(Stamped):
    company: CompanyProfile
    latest_filings: list[FilingSummary] = Field(description="newest first, with their sections")
    filings_truncated: bool
    key_metrics: list[KeyMetric]
    metrics_available: list[str] = Field(
        description="every metric id this company has; use get_metrics"
    )
    relations: list[GraphEdge] = Field(
        default_factory=list,
        description="its strongest relations in the knowledge graph (suppliers, customers, "
        "competitors, subsidiaries, counterparties), most cited first; use neighbors for all",
    )
    risks: list[RiskExposure] = Field(
        default_factory=list, description="risk categories it is exposed to"
    )
    peers: list[Peer] = Field(
        default_factory=list, description="companies sharing its suppliers, customers or risks"
    )
    time_filter: TimeFilter | None = TIME_FILTER_FIELD


class TableInfo(Output):
    name: str
    rows: int
    holds: str


class MetricInfo(Output):
    metric: str
    units: list[str]
    companies: int
    annual_values: int
    quarterly_values: int
    first_period_end: dt.date | None
    last_period_end: dt.date | None


class StatusResult(Stamped):
    as_of_basis: str | None = Field(
        None,
        description="how as_of was derived: the filing it comes "
        "from, by its filing date or (a filing without one) its period end",
    )
    built_at: dt.datetime
    code_version: str
    companies: int
    filings: int
    forms: dict[str, int]
    tables: list[TableInfo]
    metrics: list[MetricInfo]


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
        description="knowledge-graph edges touching the hits' companies (expand_hops ≥ 1), strongest "
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


class PeerFigure(Output):
    metric: str
    value: float
    unit: str
    display: str
    fiscal_label: str = Field(description="the company's own label for the period used")
    calendar_start: dt.date
    calendar_end: dt.date
    overlap_days: int = Field(
        description="days this period shares with the requested calendar range"
    )
    yoy_change_pct: Number
    citation: Citation


class PeerRow(Output):
    company_id: str
    name: str
    tickers: list[str]
    sector: str | None
    fiscal_year_end: str | None = Field(None, description="MM-DD")
    figures: list[PeerFigure]
    missing: list[str] = Field(description="metrics with no period covering the range")
    ratios: list[RatioSeries] = Field(
        default_factory=list,
        description="the asked ratios for the period that best covers the range",
    )


class CompareResult(Stamped):
    period: str = Field(description="the calendar range compared, e.g. 2024 or 2024-Q3")
    calendar_start: dt.date
    calendar_end: dt.date
    period_type: str
    metrics: list[str]
    companies: list[PeerRow]
    truncated: bool = Field(description="more companies matched than `limit`")
    method: str


# -- community_themes ------------------------------------------------------------------------
class CommunityCitation(Citation):
    """A Citation (so it gets its session evidence number) with the quote a finding rests on."""

    quote: str | None = Field(None, description="the sentence of the filing that states the edge")
    entity_id: str | None = Field(None, description="the entity the quote is about")


class ThemeFinding(Output):
    theme: str = Field(
        description="what the finding is about: risk:RISK:…, SUPPLIES>CIK-…, or model:…"
    )
    kind: str = Field(
        description="risk (companies reporting one risk category), relation (the "
        "suppliers, customers, competitors or subsidiaries of one entity), or model "
        "(written by the report model, checked against its citations)"
    )
    label: str
    statement: str = Field(description="one sentence naming only entities whose evidence is cited")
    entities: list[EntityRef] = Field(
        description="the entities the statement names, strongest first"
    )
    entities_total: int = Field(
        description="entities behind the theme in the communities read (named or not)"
    )
    support: int = Field(description="citations behind the named entities")
    communities: list[str] = Field(description="community ids whose reports it merges")
    citations: list[CommunityCitation]


class SectorShare(Output):
    sic: str | None = Field(description="SIC code (null: member companies SEC gives none for)")
    sic_description: str | None = None
    sector: str | None = None
    companies: int
    share: float = Field(description="of the community's member companies")


class CommunityBrief(Output):
    community_id: str
    level: int = Field(description="0 = coarsest; deeper levels are sub-communities")
    title: str
    summary: str = Field(description="the sentences of its top findings")
    impact_rating: int = Field(description="0-10")
    impact_explanation: str
    members: int
    companies: int
    member_companies: list[EntityRef] = Field(description="strongest first (at most 10 shown)")
    top_risks: list[str] = Field(description="risk categories most of its companies report")
    sector_mix: list[SectorShare]
    relevance: float = Field(description="how well it fits the question (the ranking score)")
    stale: bool = Field(
        description="its members gained or lost edges since the report was built; "
        "the report is from as_of and is refreshed on schedule"
    )
    as_of: dt.date | None = Field(
        description="newest filing date of the graph the report was built from"
    )
    graph_version: int | None = None


class CommunityThemesResult(Stamped):
    sector: str | None
    sector_matched: str | None = Field(
        description="the curated sector the argument matched, if any"
    )
    sic_codes: list[str] = Field(
        description="SIC codes the sector argument covers in this snapshot"
    )
    query: str | None
    terms: list[str] = Field(description="the words of the query that were matched")
    level: int | None = Field(description="the deepest hierarchy level answered from")
    levels_used: list[int]
    selection: str = Field(description="how the level was chosen")
    answer: str = Field(
        description="the top themes in a few sentences (or the model's answer, "
        "each sentence citing themes as [T1])"
    )
    answer_by: str = Field(description="deterministic, or model:<name> when a model wrote `answer`")
    themes: list[ThemeFinding] = Field(
        description="merged, de-duplicated findings, strongest first"
    )
    communities: list[CommunityBrief] = Field(description="the reports read, most relevant first")
    stale_reports: int = Field(description="reports read that are stale (served with their as_of)")
    withheld_reports: int = Field(
        description="reports in the snapshot withheld until rebuilt "
        "(a source filing was removed, changed or amended)"
    )
    truncated: bool
    note: str | None = None


# -- search_facts (issue 23, item 2) -------------------------------------------------------
class FactMember(Output):
    axis: str = Field(description="XBRL axis, e.g. us-gaap:StatementBusinessSegmentsAxis")
    member: str = Field(description="XBRL member, e.g. goog:GoogleCloudMember")


class FactHit(Output):
    concept: str = Field(description="XBRL concept, e.g. us-gaap:OperatingIncomeLoss")
    row_label: str | None = Field(
        description="the statement or note row's label as the filing shows it"
    )
    value: float = Field(description="full units (USD, not millions), sign as reported")
    unit: str | None = Field(description="USD, shares, USD/shares, pure (a ratio), ...")
    display: str = Field(description="human form, e.g. '43,229 million USD'")
    decimals: int | None = Field(
        description="XBRL precision: -6 = rounded to millions; null = exact"
    )
    period_type: str | None = Field(
        description="duration (a flow over the period) or instant (a balance)"
    )
    period_start: dt.date | None = None
    period_end: dt.date
    fiscal_label: str = Field(description="the company's own label: FY2024, Q2-FY2026, or dates")
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    dimensions: list[FactMember] = Field(description="empty = the consolidated company")
    members: list[str] = Field(description="the members in words, e.g. ['Google Cloud']")
    breakdown: str | None = Field(
        description="segment, product or geographic when the fact is one member of that breakdown"
    )
    member_name: str | None = Field(description="that member in words")
    segment_metric: str | None = Field(
        description="segment_revenue, segment_operating_income, product_revenue, "
        "geographic_revenue, ... when the fact is that metric of one member"
    )
    conflict: bool = Field(
        False,
        description="the filing displays this fact more than once with "
        "different values; quote it with care and read the cited chunk",
    )
    citation: Citation


class SearchFactsResult(Stamped):
    company_id: str
    name: str
    query: str
    words: list[str] = Field(
        description="the words matched (each must appear in the concept, row label or member names)"
    )
    period: str | None
    dimension: str | None
    facts: list[FactHit] = Field(
        description="consolidated facts first, then single members, newest period first"
    )
    matched: int = Field(description="facts that matched in all (more than shown when truncated)")
    truncated: bool


# -- issue 23: windows of periods and ratio series ---------------------------------------------
class WindowPeriod(Output):
    fiscal_label: str
    calendar_start: dt.date
    calendar_end: dt.date
    revenue: Figure
    base_revenue: Figure | None = Field(
        description="the revenue compared with: the like period a year earlier, or the period just "
        "before (trend_basis sequential)"
    )
    revenue_growth_pct: Number = Field(
        description="revenue vs base_revenue, percent (computed in SQL)"
    )
    margin_figure: Figure | None = Field(
        description="the income figure the margin divides by revenue"
    )
    base_margin_figure: Figure | None
    margin_pct: Number = Field(description="percent")
    base_margin_pct: Number = Field(description="percent, of the base period")
    margin_trend_pp: Number = Field(description="margin_pct − base_margin_pct, percentage points")


class RatioOperand(Operand):
    metric: str
    calendar_end: dt.date | None = None


class RatioValue(Output):
    fiscal_label: str
    calendar_start: dt.date
    calendar_end: dt.date
    value: float = Field(
        description="in `unit`: percent (25.3 = 25.3%), ratio (1.5), or a currency (TTM sums)"
    )
    unit: str
    display: str
    formula: str = Field(description="how it was computed, e.g. operating_income / revenue × 100")
    operands: list[RatioOperand] = Field(
        description="the reported figures it was computed from, each cited"
    )


class RatioSeries(Output):
    ratio: str
    values: list[RatioValue] = Field(description="newest first")


ScreenHit.model_rebuild()
GetMetricsResult.model_rebuild()
PeerRow.model_rebuild()


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
