"""Output models of the knowledge-graph tools (neighbors, graph_path, get_ontology,
explore_company, community_themes); the shared bases (`Output`, `Stamped`, `Citation`) are in
`mcp_server.models`."""

from __future__ import annotations

import datetime as dt
import re

from pydantic import Field, PrivateAttr

from graphrag_core.retrieval.global_search import MODEL_FINDING, render_statement
from mcp_server.models import (
    TIME_FILTER_FIELD,
    Citation,
    CompanyProfile,
    FilingSummary,
    KeyMetric,
    Number,
    Output,
    Stamped,
    TimeFilter,
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
    method: str | None = Field(
        None,
        description="how the quote's relation was extracted: rule:<family> (a fixed pattern), "
        "learned (a classifier: see confidence), or a model backend's name; comma-joined when "
        "several agreed; null for an XBRL fact",
    )
    confidence: float | None = Field(
        None, description="the classifier's probability (0-1) for learned; null for rules"
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
        description="the edge between the entity asked about and `via`: listed once in `edges`, "
        "with its citation"
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


# -- community_themes ------------------------------------------------------------------------
class CommunityCitation(Citation):
    """A Citation (so it gets its session evidence number) with the quote a finding rests on."""

    quote: str | None = Field(None, description="the sentence of the filing that states the edge")
    entity_id: str | None = Field(None, description="the entity the quote is about")


# A model finding's statement is the model's text: each of its sentences is cited at its end.
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


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
    statement: str = Field(
        description="one sentence naming only entities whose evidence is cited, each with its "
        "evidence number [n] (a model finding: the numbers at its end), then how many companies "
        "and filings state it and in which fiscal periods (quote it as is: it passes "
        "check_citations)"
    )
    entities: list[EntityRef] = Field(
        description="the entities the statement names, strongest first"
    )
    entities_total: int = Field(
        description="entities behind the theme in the communities read (named or not)"
    )
    support: int = Field(description="citations behind the named entities")
    companies: int = Field(
        0, description="companies whose filings state what the statement names (in the window)"
    )
    filings: int = Field(0, description="filings stating it (in the window asked about)")
    fiscal_periods: list[str] = Field(
        default_factory=list, description="fiscal labels of those filings, e.g. FY2025"
    )
    communities: list[str] = Field(description="community ids whose reports it merges")
    citations: list[CommunityCitation]
    # What the statement is written from (render_markers writes it once numbers are given).
    _relation: str | None = PrivateAttr(None)
    _anchor_name: str = PrivateAttr("")
    _model_text: str | None = PrivateAttr(None)

    def written_from(self, relation: str | None, anchor_name: str) -> ThemeFinding:
        self._relation, self._anchor_name = relation, anchor_name
        return self

    def _marker(self, entity_id: str) -> str:
        numbers = [
            f"[{c.evidence}]"
            for c in self.citations
            if c.entity_id == entity_id and c.evidence is not None
        ]
        return f" {numbers[0]}" if numbers else ""

    def render_markers(self) -> None:
        """Write `statement` with the evidence numbers the citations hold now (given after the
        size cap), and the theme's support: companies, filings, fiscal periods."""
        if self.kind == MODEL_FINDING:
            if self._model_text is None:
                self._model_text = self.statement
            markers = "".join(
                dict.fromkeys(f"[{c.evidence}]" for c in self.citations if c.evidence is not None)
            )
            sentences = [x.strip() for x in _SENTENCE_SPLIT.split(self._model_text) if x.strip()]
            text = " ".join(f"{x.rstrip('.!? ')} {markers}." if markers else x for x in sentences)
        else:
            names = [f"{e.name}{self._marker(e.entity_id)}" for e in self.entities]
            text = render_statement(self.kind, self._relation, self._anchor_name, names)
        periods = ", ".join(self.fiscal_periods) or "no fiscal label"
        self.statement = (
            f"{text.rstrip('.')} (stated by {self.companies} "
            f"compan{'y' if self.companies == 1 else 'ies'} in {self.filings} "
            f"filing{'' if self.filings == 1 else 's'}, fiscal periods {periods})."
        )


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


# -- community_themes: themes from the filings' own risk factors (issue 25, item 2) -------------
_SUFFIX_RE = re.compile(
    r"(?:,?\s+(?:inc|corp|corporation|co|company|incorporated|ltd|plc|llc|n\.v|s\.a)\.?)+$"
    r"|/[a-z]{2}$",
    re.I,
)


def short_company_name(name: str) -> str:
    """'NVIDIA CORP' → 'NVIDIA', 'Tesla, Inc.' → 'Tesla': a name without its legal suffix, so a
    statement listing companies has no 'Inc.' a reader (or a sentence splitter) takes for an end."""
    short = _SUFFIX_RE.sub("", name.strip()).strip(" ,")
    return short or name


class ThemeMemberOut(Output):
    company_id: str
    company: str = Field(description="the company as the statement names it")
    fiscal_label: str | None = Field(description="fiscal period of the filing that states it")
    form: str | None = None
    kind: str = Field(
        "risk_factor",
        description="risk_factor (an Item 1A heading) or mdna (an MD&A statement of a trend "
        "and its driver)",
    )
    quote: str = Field(
        description="the risk factor's heading, or the MD&A statement, verbatim from the filing"
    )
    opening: str | None = Field(
        None,
        description="the first sentence of the factor's body (an MD&A statement: the "
        "subheading it stands under)",
    )
    relevance: float = Field(description="cosine to the question plus its share of query words")
    citation: CommunityCitation


class FilingTheme(Output):
    theme_id: str = Field(description="THEME-…: stable while its members are the same")
    label: str = Field(description="the words its members' headings share most")
    statement: str = Field(
        description="one sentence: the theme, how many companies and filings state it, the "
        "fiscal periods, and the companies shown, each with its evidence number [n]"
    )
    companies: int = Field(description="companies stating it in the filings read")
    filings: int = Field(description="filings stating it in the filings read")
    risk_factors: int = Field(0, description="risk factors (Item 1A) behind it in those filings")
    mdna_statements: int = Field(
        0, description="MD&A statements of a trend and its driver behind it in those filings"
    )
    fiscal_periods: list[str] = Field(description="fiscal labels of those filings, e.g. FY2025")
    first_period_end: dt.date | None = None
    last_period_end: dt.date | None = None
    newest_filing: dt.date | None = Field(
        description="newest filing date among them (period end for a filing without one)"
    )
    stale: bool = Field(
        description="a filing joined or left it since it was built; rebuilt by the daily refresh"
    )
    matched_by: str = Field(description="words, meaning, words+meaning, or all (no query)")
    relevance: float
    members: list[ThemeMemberOut] = Field(
        description="the best risk factor or MD&A statement of each company shown (at most "
        "6), best first"
    )
    members_total: int = Field(
        description="risk factors and MD&A statements behind it in the filings read"
    )

    def render_markers(self) -> None:
        """Write `statement` with the evidence numbers the members' citations hold now (given
        after the size cap, so only members the client receives are named)."""
        periods = ", ".join(self.fiscal_periods) or "no fiscal label"
        named = "; ".join(
            f"{m.company} ({m.fiscal_label or m.form or 'filing'}) [{m.citation.evidence}]"
            if m.citation.evidence is not None
            else f"{m.company} ({m.fiscal_label or m.form or 'filing'})"
            for m in self.members
        )
        rest = self.companies - len({m.company_id for m in self.members})
        more = f"; and {rest} other compan{'y' if rest == 1 else 'ies'}" if rest > 0 else ""
        kinds = [
            f"{n} {what}{'' if n == 1 else 's'}"
            for n, what in (
                (self.risk_factors, "risk factor"),
                (self.mdna_statements, "MD&A statement"),
            )
            if n
        ]
        what = " and ".join(
            w for n, w in ((self.risk_factors, "Risk factors"), (self.mdna_statements, "MD&A")) if n
        )
        self.statement = (
            f"{what or 'Risk factors'} on {self.label}: stated by {self.companies} "
            f"compan{'y' if self.companies == 1 else 'ies'} in {self.filings} "
            f"filing{'' if self.filings == 1 else 's'} ({', '.join(kinds) or 'none'}; fiscal "
            f"periods {periods}): {named}{more}."
        )


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
    filing_themes: list[FilingTheme] = Field(
        default_factory=list,
        description="themes the companies state in their own risk factors, across companies, "
        "best first; each statement counts companies and filings and cites every company named",
    )
    filing_themes_matched: int = Field(0, description="filing themes that fit, before `limit`")
    period: str | None = Field(None, description="the period asked about, as given")
    as_of_asked: dt.date | None = Field(
        None, description="the date asked about: only filings known by then were read"
    )
    old_filings_left_out: int = Field(
        0,
        description="filings older than the age limit before as_of, left out of the filing "
        "themes (include_old=true counts them)",
    )
    stale_reports: int = Field(description="reports read that are stale (served with their as_of)")
    withheld_reports: int = Field(
        description="reports in the snapshot withheld until rebuilt "
        "(a source filing was removed, changed or amended)"
    )
    truncated: bool
    note: str | None = None
    # The answer from the relation communities alone; render_markers puts the filing themes'
    # statements (which need their evidence numbers) before it.
    _relation_answer: str | None = PrivateAttr(None)

    def render_markers(self) -> None:
        if self._relation_answer is None:
            self._relation_answer = self.answer
        if self.answer_by == "deterministic":
            # The relation themes' statements as rendered with their numbers (inner models are
            # rendered first); a model's answer cites themes as [T1] and is kept as written.
            self._relation_answer = " ".join(t.statement for t in self.themes[:5])
        self.answer = " ".join(
            [t.statement for t in self.filing_themes[:3]] + [self._relation_answer]
        ).strip()
