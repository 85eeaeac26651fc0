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
        description="per-share values and share counts: the share basis of `value`, and the "
        "split(s) applied",
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
    revenue: Figure | None = Field(
        description="the latest period's revenue, cited; window screens: null, see window[0]"
    )
    prior_revenue: Figure | None = Field(
        description="the revenue compared with; window screens: null, see window[0]"
    )
    revenue_growth_pct: Number
    margin_pct: Number = Field(description="the chosen margin in the latest period, percent")
    prior_margin_pct: Number
    margin_trend_pp: Number = Field(
        description="margin change vs a year earlier, percentage points"
    )
    margin_figures: list[Figure] = Field(
        description="the income figures the margins divide by revenue; window screens: empty, "
        "see window[0]"
    )
    total_debt: Figure | None = Field(
        description="at the latest period's end; window screens: null, see debt_end"
    )
    stockholders_equity: Figure | None
    debt_to_equity: Number
    window: list[WindowPeriod] = Field(
        default_factory=list,
        description="window screens (window > 1, trend_basis, max_debt_change): every period of "
        "the "
        "window, newest first, with the figures each criterion used, cited",
    )
    debt_start: Figure | None = Field(
        None,
        description="window screens: total debt at the window's start (end of the period before "
        "it)",
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


# -- time on the graph (issue 25): the filter the graph tools and changes_across applied ------
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


ScreenHit.model_rebuild()
GetMetricsResult.model_rebuild()
PeerRow.model_rebuild()
