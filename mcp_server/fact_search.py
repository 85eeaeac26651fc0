"""`search_facts`: any numeric fact a company reported in XBRL, found by words (issue 23,
item 2). It shares the `ToolContext` (snapshot leases, company resolution); `build_server`
registers it with the others. The matching rules (words as prefixes of the concept's words,
the row label and the member names) live in `graphrag_core.xbrl.segments`; the SQL in
`queries.SEARCH_FACTS`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.store.reader import PERIOD_LABEL_PATTERN, query_words
from mcp_server import queries
from mcp_server.context import ToolContext, resolve_company, stamp
from mcp_server.formatting import display_value
from mcp_server.models import Citation, FactHit, FactMember, SearchFactsResult

_PERIOD_RE = re.compile(PERIOD_LABEL_PATTERN)
_YEAR_RE = re.compile(r"^(?:FY\s?)?(\d{4})$")
# The dimension argument's keywords; anything else names a member ("Google Cloud", "Taiwan").
_DIMENSION_MODES: dict[str, tuple[str, str | None]] = {
    "none": ("none", None),
    "consolidated": ("none", None),
    "any": ("any", None),
    "segment": ("breakdown", "segment"),
    "segments": ("breakdown", "segment"),
    "product": ("breakdown", "product"),
    "products": ("breakdown", "product"),
    "geographic": ("breakdown", "geographic"),
    "geography": ("breakdown", "geographic"),
    "geographical": ("breakdown", "geographic"),
    "region": ("breakdown", "geographic"),
}


def period_filter(period: str | None) -> tuple[str | None, int | None]:
    """'FY2024' / 'Q2-FY2026' → that fiscal label; '2024' or 'FY 2024' → fiscal year 2024."""
    if period is None:
        return None, None
    text = period.strip().upper()
    if _PERIOD_RE.match(text):
        return text, None
    if m := _YEAR_RE.match(text):
        return None, int(m.group(1))
    raise ToolError(
        f"period {period[:40]!r}: pass a fiscal label (FY2024, Q2-FY2026, H1-FY2025, 9M-FY2025) "
        "or a fiscal year (2024), or leave it out for every period"
    )


def dimension_filter(dimension: str | None) -> tuple[str, str | None, list[str]]:
    """(mode, breakdown, member words) of the dimension argument."""
    if dimension is None:
        return "all", None, []
    key = " ".join(dimension.lower().split())
    if key in _DIMENSION_MODES:
        mode, breakdown = _DIMENSION_MODES[key]
        return mode, breakdown, []
    member = query_words(dimension)
    if not member:
        raise ToolError(
            f"dimension {dimension[:40]!r} has no words; pass none, any, segment, product, "
            "geographic, or a member's name (Google Cloud, Data Center, Taiwan)"
        )
    return "member", None, member


def _hit(row: dict[str, Any]) -> FactHit:
    unit = row["unit"] or ""
    return FactHit(
        concept=row["concept"],
        row_label=row["row_label"],
        value=row["value"],
        unit=row["unit"],
        display=display_value(row["value"], unit),
        decimals=row["decimals"],
        period_type=row["period_type"],
        period_start=row["period_start"],
        period_end=row["period_end"],
        fiscal_label=row["fiscal_label"],
        fiscal_year=row["fiscal_year"],
        fiscal_period=row["fiscal_period"],
        dimensions=[
            FactMember(axis=d["axis"], member=d["member"]) for d in row["dimensions"] or []
        ],
        members=list(row["members"] or []),
        breakdown=row["breakdown"],
        member_name=row["member_name"],
        segment_metric=row["segment_metric"],
        conflict=bool(row["conflict"]),
        citation=Citation(
            filing_id=row["filing_id"],
            form=row["form"],
            filed_date=row["filed_date"],
            section=row["section"],
            chunk_id=row["chunk_id"],
            fact_id=row["fact_id"],
            concept=row["concept"],
        ),
    )


class FactSearch:
    """The search_facts tool over `ctx`'s reader."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx

    def search_facts(
        self,
        company_id: Annotated[
            str,
            Field(
                min_length=1,
                max_length=64,
                description="company_id from find_company (CIK-0001045810); a CIK or exact ticker "
                "also "
                "works",
            ),
        ],
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=200,
                description="words of the line wanted: 'dividends paid', 'cloud', 'inventories', "
                "'segment revenue', 'operating income'",
            ),
        ],
        period: Annotated[
            str | None,
            Field(
                None,
                max_length=40,
                description="a fiscal label (FY2024, Q2-FY2026) or fiscal year (2024); omit for "
                "all",
            ),
        ] = None,
        dimension: Annotated[
            str | None,
            Field(
                None,
                max_length=100,
                description="none (consolidated only), any (breakdowns only), segment, product, "
                "geographic, or a member's name ('Google Cloud', 'Taiwan'); omit for both",
            ),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="most facts to return")] = 20,
    ) -> SearchFactsResult:
        """Any number a company tagged in its 10-K/10-Q XBRL, found by words, each cited.

        Use when the figure is not one of get_metrics' canonical metrics: a statement line
        (dividends paid, net cash from investing activities, inventories, interest expense,
        share repurchases), a note's figure, or a breakdown — revenue and operating income per
        reportable segment, per product or service, per geography. Every word of `query` must
        appear (as a word start, any order, plural or not) in the concept's name, the row label
        the filing shows, or the member's name: "cloud" finds Alphabet's Google Cloud lines,
        "segment revenue" every segment's revenue, "geographic revenue" revenue by region.

        `value` is in full units (USD, not millions; `display` is the human form) with the
        filing's `unit` and `decimals`; `fiscal_label` is the company's own period label.
        `dimensions` lists the axis → member pairs (empty = the consolidated company);
        `segment_metric` names a breakdown's revenue or operating income (segment_revenue,
        segment_operating_income, product_revenue, geographic_revenue) with `member_name`. Each
        fact is the newest filing's copy, cited to the filing, section and table chunk (pass
        `chunk_id` to get_chunk to quote it). Prefer get_metrics for the canonical metrics
        (revenue, net income, EPS, debt), which also compares years and resolves restatements.
        A search that finds nothing is an error that lists the periods the company has.
        """
        words = query_words(query)
        if not words:
            raise ToolError(
                f"query {query[:40]!r} has no words to match; pass words of the line wanted, "
                "e.g. 'dividends paid' or 'segment revenue'"
            )
        fiscal_label, fiscal_year = period_filter(period)
        mode, breakdown, member_words = dimension_filter(dimension)
        with self.ctx.lease() as snap:
            company = resolve_company(snap, company_id)
            rows = snap.query(
                queries.SEARCH_FACTS,
                {
                    "cik": company["cik"],
                    "words": words,
                    "fiscal_label": fiscal_label,
                    "fiscal_year": fiscal_year,
                    "dimension_mode": mode,
                    "breakdown": breakdown,
                    "member_words": member_words,
                    "limit": limit,
                },
            )
            if not rows:
                periods = [
                    r["fiscal_label"]
                    for r in snap.query(queries.SEARCH_FACTS_PERIODS, {"cik": company["cik"]})
                ]
                raise ToolError(
                    f"no fact of {company['name']} ({company['company_id']}) in snapshot "
                    f"{snap.version} matches all of {', '.join(words)}"
                    + (f" in {period}" if period else "")
                    + (f" with dimension {dimension!r}" if dimension else "")
                    + "; try fewer or other words (the filing's own wording), or another period. "
                    + (
                        f"Periods with facts: {', '.join(periods)}."
                        if periods
                        else "The snapshot holds no XBRL facts of this company."
                    )
                )
            matched = int(rows[0]["matched"])
            return SearchFactsResult(
                **stamp(snap),
                company_id=company["company_id"],
                name=company["name"],
                query=query,
                words=words,
                period=period,
                dimension=dimension,
                facts=[_hit(r) for r in rows],
                matched=matched,
                truncated=matched > len(rows),
            )
