"""Any reported fact of a company, searchable, and its segment metrics (issue 23, item 2).

`company_facts` turns the numeric rows of `xbrl_facts` into what an analyst searches: each
fact with its fiscal label (the filing's own calendar), its dimensions as axis → member, the
members' names in words, and one lower-case search text (concept words, the row label as
shown, member names). The newest filing's fact of each (company, concept, unit, period,
dimensions) is marked `is_latest`; older filings' copies stay, for their citations.

Segment metrics are facts of their own: revenue or operating income broken down by one
reportable segment (`us-gaap:StatementBusinessSegmentsAxis`), product or service
(`srt:ProductOrServiceAxis`) or geography (`srt:StatementGeographicalAxis`) is tagged
`segment_revenue`, `segment_operating_income`, `product_revenue`, `geographic_revenue`, ...
with the member named. Filers that adopted ASU 2023-07 pair the segment member with
`srt:ConsolidationItemsAxis = us-gaap:OperatingSegmentsMember`; that pairing says "the
segment's own figure" and does not make the fact a slice.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping

import polars as pl

from graphrag_core.common.ids import company_key, normalize_cik
from graphrag_core.common.names import member_label, search_words
from graphrag_core.store.fact_tables import COMPANY_FACTS
from graphrag_core.xbrl.metrics import METRICS
from graphrag_core.xbrl.periods import FiscalCalendar, FiscalCalendarError, FiscalPeriod

# Axis → the breakdown it names (the prefix of its segment metrics).
BREAKDOWN_AXES: dict[str, str] = {
    "us-gaap:StatementBusinessSegmentsAxis": "segment",
    "srt:ProductOrServiceAxis": "product",
    "srt:StatementGeographicalAxis": "geographic",
}
BREAKDOWNS = tuple(dict.fromkeys(BREAKDOWN_AXES.values()))
# The axis/member pair ASU 2023-07 filers add to a segment's own figure (not a slice of it).
SEGMENT_QUALIFIER = ("srt:ConsolidationItemsAxis", "us-gaap:OperatingSegmentsMember")
# Concepts measured per breakdown: the revenue metric's concepts and operating income.
_REVENUE_CONCEPTS = next(m.concepts for m in METRICS if m.metric == "revenue")
MEASURE_CONCEPTS: dict[str, str] = {
    **dict.fromkeys(_REVENUE_CONCEPTS, "revenue"),
    "us-gaap:OperatingIncomeLoss": "operating_income",
}
SEGMENT_METRICS = tuple(f"{b}_{m}" for b in BREAKDOWNS for m in ("revenue", "operating_income"))


def parse_dimensions(raw: str | None) -> dict[str, str]:
    """The stored JSON axis → member object; {} for anything that is not one."""
    try:
        parsed = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return {}
    if not isinstance(parsed, dict):
        return {}
    return {str(k): str(v) for k, v in parsed.items() if isinstance(v, str)}


def slice_of(dimensions: Mapping[str, str]) -> tuple[str, str] | None:
    """(breakdown, member) when the fact is one member of a breakdown axis and nothing else
    (the ASU 2023-07 qualifier aside); None for consolidated facts and combined slices."""
    rest = {a: m for a, m in dimensions.items() if (a, m) != SEGMENT_QUALIFIER}
    if len(rest) != 1:
        return None
    [(axis, member)] = rest.items()
    breakdown = BREAKDOWN_AXES.get(axis)
    return (breakdown, member) if breakdown else None


def segment_metric(concept: str, dimensions: Mapping[str, str]) -> str | None:
    """'segment_revenue' for us-gaap:Revenues of one reportable segment, etc.; else None."""
    measure = MEASURE_CONCEPTS.get(concept)
    found = slice_of(dimensions)
    if measure is None or found is None:
        return None
    return f"{found[0]}_{measure}"


_FOOTNOTE_RE = re.compile(r"\s*(?:\(\d+\)|\*+)\s*$")


def member_name(member: str, row_label: str | None = None) -> str | None:
    """A member in words: 'goog:GoogleCloudMember' → 'Google Cloud'. A country member
    ('country:TW') is named by the row that shows it ('Taiwan', its footnote mark dropped):
    the code alone is not what a reader searches for."""
    if member.startswith("country:") and row_label:
        label = _FOOTNOTE_RE.sub("", row_label).strip()
        if label:
            return label
    return member_label(member)


def _calendar(filing: Mapping[str, object]) -> FiscalCalendar | None:
    try:
        return FiscalCalendar.from_filing(
            filing.get("fiscal_year_end"),  # type: ignore[arg-type]
            filing.get("fiscal_year"),  # type: ignore[arg-type]
            filing.get("period_end"),  # type: ignore[arg-type]
            filing.get("form"),  # type: ignore[arg-type]
            filing.get("fiscal_period"),  # type: ignore[arg-type]
        )
    except FiscalCalendarError:
        return None


def fiscal_period(
    calendar: FiscalCalendar | None, start: dt.date | None, end: dt.date
) -> FiscalPeriod:
    """The fiscal label of a fact's period in its filing's calendar (dates without one)."""
    if calendar is None:
        return FiscalPeriod(end.isoformat() if start is None else f"{start}..{end}", None, None)
    return calendar.instant(end) if start is None else calendar.duration(start, end)


def company_facts(xbrl_facts: pl.DataFrame, filings: pl.DataFrame) -> pl.DataFrame:
    """Every finite numeric fact of `xbrl_facts` whose filing is in `filings`, in the
    `COMPANY_FACTS` shape (see the module docstring). Labels and member names are worked out
    once per distinct period of a filing and per distinct (concept, dimensions, row label),
    then joined: a filing repeats the same few of each across its thousand facts."""
    needed = {"fact_id", "filing_id", "cik", "concept", "value", "is_numeric", "dimensions"}
    if xbrl_facts.is_empty() or not needed <= set(xbrl_facts.columns):
        return pl.DataFrame(schema=COMPANY_FACTS)
    numeric = xbrl_facts.filter(
        pl.col("is_numeric")
        & pl.col("value").is_not_null()
        & pl.col("value").is_finite()
        & pl.col("period_end").is_not_null()
    ).join(filings.select("filing_id"), on="filing_id", how="semi")
    if numeric.is_empty():
        return pl.DataFrame(schema=COMPANY_FACTS)
    calendars = {r["filing_id"]: _calendar(r) for r in filings.iter_rows(named=True)}
    periods = pl.DataFrame(
        [
            {
                "filing_id": fid,
                "period_start": start,
                "period_end": end,
                **_period_columns(fiscal_period(calendars[fid], start, end)),
            }
            for fid, start, end in numeric.select("filing_id", "period_start", "period_end")
            .unique()
            .iter_rows()
        ],
        schema={
            "filing_id": pl.String,
            "period_start": pl.Date,
            "period_end": pl.Date,
            "fiscal_label": pl.String,
            "fiscal_year": pl.Int32,
            "fiscal_period": pl.String,
        },
    )
    lines = pl.DataFrame(
        [
            {
                "concept": concept,
                "dimensions": dims,
                "row_label": label,
                **_line_columns(concept, dims, label),
            }
            for concept, dims, label in numeric.select("concept", "dimensions", "row_label")
            .unique()
            .iter_rows()
        ],
        schema={
            "concept": pl.String,
            "dimensions": pl.String,
            "row_label": pl.String,
            **_LINE_SCHEMA,
        },
    )
    filing_info = filings.select(
        "filing_id", "form", "filed_date", pl.col("cik").alias("_filing_cik")
    )
    out = (
        numeric.join(
            periods, on=["filing_id", "period_start", "period_end"], how="left", nulls_equal=True
        )
        .join(lines, on=["concept", "dimensions", "row_label"], how="left", nulls_equal=True)
        .join(filing_info, on="filing_id", how="left")
        .with_columns(
            cik=pl.coalesce("cik", "_filing_cik").map_elements(
                normalize_cik, return_dtype=pl.String
            ),
            conflict=pl.col("conflict").fill_null(False)
            if "conflict" in numeric.columns
            else pl.lit(False),
        )
        .with_columns(company_id=pl.col("cik").map_elements(company_key, return_dtype=pl.String))
        .drop("dimensions")
        .rename({"_dimensions": "dimensions"})
    )
    for column in ("unit", "decimals", "period_type", "chunk_id", "row_label"):
        if column not in out.columns:
            out = out.with_columns(pl.lit(None, dtype=COMPANY_FACTS[column]).alias(column))
    schema = {k: v for k, v in COMPANY_FACTS.items() if k != "is_latest"} | {"_slice": pl.String}
    return mark_latest(out.select([pl.col(k).cast(v) for k, v in schema.items()]))


def _period_columns(period: FiscalPeriod) -> dict[str, object]:
    return {
        "fiscal_label": period.label,
        "fiscal_year": period.fiscal_year,
        "fiscal_period": period.fiscal_period,
    }


_LINE_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "concept_words": pl.String,
    "_dimensions": COMPANY_FACTS["dimensions"],
    "dimension_count": pl.Int32,
    "members": pl.List(pl.String),
    "breakdown": pl.String,
    "member": pl.String,
    "member_name": pl.String,
    "segment_metric": pl.String,
    "search_text": pl.String,
    "_slice": pl.String,
}


def _line_columns(concept: str, raw_dimensions: str | None, label: str | None) -> dict[str, object]:
    """What a fact's concept, dimensions and row label make of it (COMPANY_FACTS columns)."""
    dims = parse_dimensions(raw_dimensions)
    names = [
        n
        for a, m in dims.items()
        if (a, m) != SEGMENT_QUALIFIER and (n := member_name(m, label if len(dims) == 1 else None))
    ]
    found = slice_of(dims)
    metric = segment_metric(concept, dims)
    concept_words = member_label(concept) or concept
    return {
        "concept_words": concept_words,
        "_dimensions": [{"axis": a, "member": m} for a, m in sorted(dims.items())],
        "dimension_count": len(dims),
        "members": names,
        "breakdown": found[0] if found else None,
        "member": found[1] if found else None,
        "member_name": member_name(found[1], label) if found else None,
        "segment_metric": metric,
        # The segment metric's words too: "segment revenue" finds every segment's revenue.
        "search_text": " ".join(
            [
                *search_words(concept_words),
                *search_words(label),
                *(w for n in names for w in search_words(n)),
                *search_words(metric),
            ]
        ),
        "_slice": slice_key(dims),
    }


def slice_key(dimensions: Mapping[str, str]) -> str:
    """The dimensions as one comparable string: members by their words (NVIDIA renamed
    nvda:GraphicsMember to nvda:GraphicsSegmentMember between its FY2023 and FY2025 10-Ks:
    the same segment), the ASU 2023-07 qualifier left out (a filing that adds it reports the
    same segment figure as the filing before that did not)."""
    return ";".join(
        f"{a}={(member_label(m) or m).lower()}"
        for a, m in sorted(dimensions.items())
        if (a, m) != SEGMENT_QUALIFIER
    )


def mark_latest(frame: pl.DataFrame) -> pl.DataFrame:
    """`is_latest`: per company, concept, unit, period and slice (`_slice`), the copy of the
    newest filing (filing date, then filing id: deterministic when two share a date)."""
    key = pl.concat_str(
        [
            pl.col("cik"),
            pl.col("concept"),
            pl.col("unit").fill_null(""),
            pl.col("period_start").cast(pl.String).fill_null(""),
            pl.col("period_end").cast(pl.String),
            pl.col("_slice"),
        ],
        separator="|",
    )
    ranked = frame.with_columns(_key=key).sort(
        ["_key", "filed_date", "filing_id", "fact_id"],
        descending=[False, True, True, False],
        nulls_last=True,
    )
    return ranked.with_columns(is_latest=pl.col("_key").is_first_distinct()).select(
        list(COMPANY_FACTS)
    )
