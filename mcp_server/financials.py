"""`get_financials`: a company's income statement, balance sheet or cash-flow statement of one
period, every line as filed (issue 23, items 1 and 5). Reads the snapshot's `statement_lines`
(`graphrag_core.xbrl.statements`) with the named, parameterized queries below."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

import duckdb
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.store.reader import PERIOD_LABEL_PATTERN
from mcp_server.context import ToolContext, resolve_company, stamp
from mcp_server.formatting import display_value
from mcp_server.models import Citation, Number, Output, Stamped

StatementKind = Literal["income", "balance", "cash_flow"]
PERIODS_LISTED = 12
# decimals as filed → the rounding it states (-6: the statement is in millions)
_ROUNDING = {-3: "thousands", -6: "millions", -9: "billions"}

# -- queries (values only ever enter as parameters) -------------------------------------------

# The periods (columns) a company's statement is shown for, newest first; per period the newest
# filing that shows it (a later filing's comparative column restates an earlier one's).
STATEMENT_PERIODS = """
SELECT fiscal_label, period_type, period_start, period_end, filing_id, form, filed_date
FROM statement_lines
WHERE cik_key = TRY_CAST($cik AS BIGINT) AND cik = $cik AND statement = $statement
QUALIFY row_number() OVER (
    PARTITION BY fiscal_label, period_start, period_end
    ORDER BY filed_date DESC NULLS LAST, filing_id DESC) = 1
ORDER BY period_end DESC, period_start DESC NULLS FIRST
"""
# One statement in one query: the period asked for ($period NULL: the latest, and of those
# ending last the shortest, a 10-Q's quarter before its year to date), from the newest filing
# that shows it, every line in order, with the other periods' labels. No row: no such period.
STATEMENT = f"""
WITH periods AS ({STATEMENT_PERIODS}),
chosen AS (
    SELECT * FROM periods WHERE $period IS NULL OR fiscal_label = $period
    ORDER BY period_end DESC, period_start DESC NULLS FIRST LIMIT 1
)
SELECT l.line, l.table_row, l.label, l.concept, l.standard_line, l.value, l.value_text, l.unit,
    l.decimals,
       l.fact_period_type, l.fact_period_start, l.fact_period_end, l.dimensions, l.conflict,
           l.fact_id,
       l.chunk_id, l.section, l.filing_id, l.form, l.filed_date, l.html_table,
       c.fiscal_label, c.period_start, c.period_end,
       (SELECT list(fiscal_label ORDER BY period_end DESC, period_start DESC NULLS FIRST) FROM
           periods) AS labels
FROM statement_lines l
JOIN chosen c ON l.filing_id = c.filing_id AND l.fiscal_label = c.fiscal_label AND l.period_end =
    c.period_end
 AND l.period_start IS NOT DISTINCT FROM c.period_start
WHERE l.cik_key = TRY_CAST($cik AS BIGINT) AND l.cik = $cik AND l.statement = $statement
ORDER BY l.line, l.dimensions <> '{{}}', l.concept, l.fact_id
"""

# -- answer models ----------------------------------------------------------------------------


class StatementLine(Output):
    line: int = Field(description="position in the statement as filed, 1 = first line")
    label: str = Field(description="the line's label as the filing shows it")
    concept: str = Field(description="XBRL concept, e.g. us-gaap:PaymentsOfDividends")
    standard_line: str | None = Field(
        None,
        description="standardized id shared across companies (revenue, net_income, "
        "dividends_paid, net_cash_investing, ...); null when none applies",
    )
    value: Number = Field(description="full units (USD, not millions), sign as filed")
    unit: str = Field(description="USD, USD/shares (per share), shares")
    display: str = Field(description="human form: '130,497 million USD'")
    rounded_to: str | None = Field(
        None, description="the rounding the filing states (thousands, millions); null = exact"
    )
    period_start: dt.date | None = Field(
        None, description="the fact's own period (null: an instant)"
    )
    period_end: dt.date
    opening_balance: bool = Field(
        False,
        description="an instant at the day before the period: the cash-flow statement's "
        "beginning-of-period balance",
    )
    dimensions: str | None = Field(
        None,
        description="axis → member (a line for one class or "
        "segment); null for the consolidated company",
    )
    conflict: bool = Field(
        False, description="the filing shows this fact twice with different values"
    )
    citation: Citation


class FinancialsResult(Stamped):
    company_id: str
    name: str
    statement: StatementKind
    fiscal_label: str = Field(
        description="the period shown: FY2025, Q2-FY2026, H1-FY2026; a "
        "balance sheet: the period it closes"
    )
    period_start: dt.date | None = Field(None, description="null for a balance sheet (an instant)")
    period_end: dt.date
    filing_id: str = Field(description="the newest filing that shows this period")
    form: str | None = None
    filed_date: dt.date | None = None
    lines: list[StatementLine]
    periods_available: list[str] = Field(
        description="other periods of this statement, newest first: pass one as `period`"
    )


# -- the tool ---------------------------------------------------------------------------------


def _line(row: dict[str, Any], period_start: dt.date | None, display: Any) -> StatementLine:
    instant = row["fact_period_type"] == "instant"
    return StatementLine(
        line=row["line"],
        label=row["label"],
        concept=row["concept"],
        standard_line=row["standard_line"],
        value=row["value"],
        unit=row["unit"],
        display=display(row["value"], row["unit"]),
        rounded_to=_ROUNDING.get(row["decimals"]) if row["decimals"] is not None else None,
        period_start=None if instant else row["fact_period_start"],
        period_end=row["fact_period_end"],
        opening_balance=bool(
            instant and period_start is not None and row["fact_period_end"] < period_start
        ),
        dimensions=None if row["dimensions"] in (None, "{}") else row["dimensions"],
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


class FinancialsTools:
    """get_financials over `ctx`'s reader."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx

    def get_financials(
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
        statement: Annotated[
            StatementKind,
            Field(
                description="income = income statement; balance = balance sheet; cash_flow = "
                "cash-flow "
                "statement"
            ),
        ],
        period: Annotated[
            str | None,
            Field(
                max_length=16,
                pattern=PERIOD_LABEL_PATTERN,
                description="fiscal label: FY2024, Q2-FY2025, H1-FY2025, 9M-FY2025; omit for the "
                "latest",
            ),
        ] = None,
    ) -> FinancialsResult:
        """One financial statement of a company as filed: every line, in the filing's order.

        Use this when the question is about a line of a statement — dividends paid, net cash
        from investing or financing activities, inventories, accounts payable, D&A, interest
        expense, share repurchases, current assets — or when the user wants to see the whole
        income statement, balance sheet or cash-flow statement of a period. Use get_metrics
        instead for a series of one of the canonical metrics over several periods (revenue,
        net income, total debt…: year-over-year change computed, restatements shown), and
        screen_companies to find companies by those metrics; this tool shows one period of one
        company.

        `statement`: income, balance or cash_flow. `period`: the company's fiscal label
        (FY2024, Q2-FY2025; a 10-Q's cash-flow statement is year to date: H1-FY2025,
        9M-FY2025); omitted, the latest period. The answer lists `periods_available`.

        Each line has its label as filed, the XBRL concept, a `standard_line` id where one
        applies (the same id across companies: revenue, cost_of_revenue, gross_profit,
        operating_income, net_income, eps_diluted, total_assets, total_liabilities,
        cash_and_equivalents, inventories, accounts_payable, depreciation_amortization,
        interest_expense, dividends_paid, share_repurchases, net_cash_investing,
        net_cash_financing, …), and a citation (filing, section, the table chunk: pass its
        chunk_id to get_chunk to quote it). Units: `value` is in full units — USD, not the
        thousands or millions the statement is printed in (`rounded_to` says which) — per-share
        lines are USD/shares, share counts are shares; `display` is the human form. Signs are
        as filed: outflows on a cash-flow statement are usually positive payments
        (PaymentsOfDividends 2.3e9), net totals carry their sign. In a cash-flow statement the
        opening cash balance is an instant at the day before the period (`opening_balance`).
        Lines with `dimensions` are shown for one class or member only (not the whole company).
        """
        with self.ctx.lease() as snap:
            company = resolve_company(snap, company_id)
            try:
                rows = snap.query(
                    STATEMENT, {"cik": company["cik"], "statement": statement, "period": period}
                )
            except duckdb.CatalogException as exc:
                raise ToolError(
                    f"snapshot {snap.version} was published without statement lines; use "
                    "get_metrics, "
                    "or search_chunks for the statement's table"
                ) from exc
            if not rows:
                periods = snap.query(
                    STATEMENT_PERIODS, {"cik": company["cik"], "statement": statement}
                )
                if not periods:
                    raise ToolError(
                        f"{company['name']} ({company['company_id']}) has no {statement} "
                        "statement in snapshot "
                        f"{snap.version} (no inline-XBRL 10-K or 10-Q of it shows one); try "
                        "get_metrics or "
                        "search_chunks"
                    )
                labels = list(dict.fromkeys(p["fiscal_label"] for p in periods))
                raise ToolError(
                    f"{company['name']} has no {statement} statement for {period} in "
                    f"snapshot {snap.version}; "
                    f"periods it has: {', '.join(labels[:PERIODS_LISTED])}"
                )
            first = rows[0]
            others = [x for x in dict.fromkeys(first["labels"]) if x != first["fiscal_label"]]
            return FinancialsResult(
                **stamp(snap),
                company_id=company["company_id"],
                name=company["name"],
                statement=statement,
                fiscal_label=first["fiscal_label"],
                period_start=first["period_start"],
                period_end=first["period_end"],
                filing_id=first["filing_id"],
                form=first["form"],
                filed_date=first["filed_date"],
                lines=[_line(r, first["period_start"], display_value) for r in rows],
                periods_available=others[:PERIODS_LISTED],
            )
