"""The three primary statements of a filing, line by line, as filed.

Which HTML table of a filing is its income statement, balance sheet or cash-flow statement is
read from the facts it displays (`xbrl_facts.html_tables`): each statement has anchor concepts
that only its face shows together (total assets beside total liabilities and equity on instants;
the operating, investing and financing totals; revenue, pre-tax income, tax and EPS). A table is
a candidate for a statement when it shows the statement's required anchor; among candidates the
one showing the most anchors wins, then the one with the most lines (an MD&A summary or a note
repeats a few anchors, never the whole face), then the first. A table is one statement only
(the cash-flow statement shows net income too, the balance sheet never a duration).

Every fact the chosen table displays is a line: label as filed (`row_label`), concept, value
with unit and decimals, period with its fiscal label, fact id and the table chunk that shows it,
in the table's row order (`xbrl_facts.table_places`: every display of a fact, so net income
first shown on the income statement still opens the cash-flow statement where it is shown).
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

import polars as pl

from graphrag_core.store.statement_lines import STATEMENT_LINES
from graphrag_core.xbrl.extensions import concept_words
from graphrag_core.xbrl.metrics import FilingInfo
from graphrag_core.xbrl.periods import FiscalCalendar, FiscalCalendarError, FiscalPeriod
from graphrag_core.xbrl.standard_lines import CONCEPT_STANDARD

Statement = Literal["income", "balance", "cash_flow"]
STATEMENTS: tuple[Statement, ...] = ("income", "balance", "cash_flow")

_REVENUE = (
    "us-gaap:Revenues",
    "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
    "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax",
    "us-gaap:SalesRevenueNet",
    "us-gaap:RevenuesNetOfInterestExpense",
    "ifrs-full:Revenue",
)
_PRETAX = (
    "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
    "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments",
)
_EPS = (
    "us-gaap:EarningsPerShareBasic",
    "us-gaap:EarningsPerShareDiluted",
    "us-gaap:EarningsPerShareBasicAndDiluted",
)
_OPERATING_CF = (
    "us-gaap:NetCashProvidedByUsedInOperatingActivities",
    "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
    "ifrs-full:CashFlowsFromUsedInOperatingActivities",
)

# statement → (required: one of these shown; anchors: counted; the period type they are read on)
_ANCHORS: dict[Statement, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "balance": (
        ("us-gaap:Assets", "us-gaap:LiabilitiesAndStockholdersEquity", "ifrs-full:Assets"),
        (
            "us-gaap:Assets",
            "us-gaap:LiabilitiesAndStockholdersEquity",
            "us-gaap:AssetsCurrent",
            "us-gaap:LiabilitiesCurrent",
            "us-gaap:Liabilities",
            "us-gaap:StockholdersEquity",
            "us-gaap:RetainedEarningsAccumulatedDeficit",
            "us-gaap:CashAndCashEquivalentsAtCarryingValue",
            "us-gaap:PropertyPlantAndEquipmentNet",
            "us-gaap:AccountsPayableCurrent",
            "us-gaap:Goodwill",
            "ifrs-full:Assets",
            "ifrs-full:Equity",
            "ifrs-full:EquityAndLiabilities",
        ),
        "instant",
    ),
    "cash_flow": (
        _OPERATING_CF,
        (
            *_OPERATING_CF,
            "us-gaap:NetCashProvidedByUsedInInvestingActivities",
            "us-gaap:NetCashProvidedByUsedInFinancingActivities",
            "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect",
            "us-gaap:DepreciationDepletionAndAmortization",
            "us-gaap:ShareBasedCompensation",
            "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
            "us-gaap:IncomeTaxesPaidNet",
            "us-gaap:IncreaseDecreaseInAccountsReceivable",
            "us-gaap:IncreaseDecreaseInAccountsPayable",
            "us-gaap:DeferredIncomeTaxExpenseBenefit",
            "ifrs-full:CashFlowsFromUsedInInvestingActivities",
            "ifrs-full:CashFlowsFromUsedInFinancingActivities",
        ),
        "duration",
    ),
    "income": (
        (
            *_REVENUE,
            *_PRETAX,
            *_EPS,
            "us-gaap:IncomeTaxExpenseBenefit",
            "us-gaap:OperatingIncomeLoss",
        ),
        (
            *_REVENUE,
            *_PRETAX,
            *_EPS,
            "us-gaap:IncomeTaxExpenseBenefit",
            "us-gaap:OperatingIncomeLoss",
            "us-gaap:CostOfRevenue",
            "us-gaap:CostOfGoodsAndServicesSold",
            "us-gaap:GrossProfit",
            "us-gaap:OperatingExpenses",
            "us-gaap:CostsAndExpenses",
            "us-gaap:NetIncomeLoss",
            "us-gaap:ProfitLoss",
            "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding",
            "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic",
            "ifrs-full:ProfitLoss",
        ),
        "duration",
    ),
}

_PLACE = pl.Struct({"table": pl.Int32, "row": pl.Int32, "label": pl.String})
_ONE_DAY = dt.timedelta(days=1)


def _shown(facts: pl.DataFrame) -> pl.DataFrame:
    """Numeric facts shown in at least one table, one row per (fact, table)."""
    return (
        facts.filter(
            pl.col("is_numeric")
            & pl.col("value").is_not_null()
            & (pl.col("html_tables").list.len() > 0)
        )
        .with_columns(pl.col("html_tables").alias("html_table"))
        .explode("html_table")
    )


def statement_tables(facts: pl.DataFrame) -> dict[Statement, int]:
    """The HTML table of each primary statement the filing shows (statements it lacks are
    absent)."""
    if facts.is_empty() or "html_tables" not in facts.columns:
        return {}
    shown = _shown(facts).filter(pl.col("dimension_count") == 0)
    if shown.is_empty():
        return {}
    sizes = dict(shown.group_by("html_table").agg(pl.col("concept").n_unique()).iter_rows())
    chosen: dict[Statement, int] = {}
    for statement in ("balance", "cash_flow", "income"):  # the most distinctive first
        required, anchors, period_type = _ANCHORS[statement]
        on = shown.filter((pl.col("period_type") == period_type) & pl.col("concept").is_in(anchors))
        best: tuple[int, int, int] | None = None
        for table, concepts in (
            on.group_by("html_table").agg(pl.col("concept").unique()).iter_rows()
        ):
            if table in chosen.values() or not set(concepts) & set(required):
                continue
            key = (len(set(concepts)), sizes.get(table, 0), -table)
            if best is None or key > best:
                best = key
        if best is not None:
            chosen[statement] = -best[2]
    return chosen


def _places(facts: pl.DataFrame, table: int) -> pl.DataFrame:
    """One row per display of a fact in `table`: its row and the row's label. Facts extracted
    before every display was recorded (no `table_places`) have their first display only."""
    if "table_places" in facts.columns:
        places = facts.with_columns(pl.col("table_places").cast(pl.List(_PLACE)))
    else:
        places = facts.with_columns(
            pl.when(pl.col("table_row").is_not_null())
            .then(
                pl.concat_list(
                    pl.struct(
                        pl.col("html_tables").list.first().alias("table"),
                        pl.col("table_row").alias("row"),
                        pl.col("row_label").alias("label"),
                    )
                )
            )
            .otherwise(pl.lit([], dtype=pl.List(_PLACE)))
            .alias("table_places")
        )
    return (
        places.explode("table_places")
        .unnest("table_places")
        .filter(pl.col("table") == table)
        .unique(["fact_id", "row"], keep="first", maintain_order=True)
    )


def _columns(lines: pl.DataFrame, statement: Statement) -> list[tuple[dt.date | None, dt.date]]:
    """The statement's periods (columns): durations of the income and cash-flow statements,
    instants of the balance sheet, as the consolidated lines show them."""
    period_type = "instant" if statement == "balance" else "duration"
    own = lines.filter((pl.col("period_type") == period_type) & (pl.col("dimensions") == "{}"))
    return [
        (None if period_type == "instant" else s, e)
        for s, e in own.select("period_start", "period_end")
        .unique()
        .sort("period_end", "period_start")
        .iter_rows()
    ]


def _in_columns(lines: pl.DataFrame, statement: Statement) -> pl.DataFrame:
    """Each display of a fact under the column(s) it belongs to. A fact of the column's own
    period type sits in its own column. An instant in a duration statement (opening and closing
    cash) is the closing line of the column ending that day (its last row showing it) and the
    opening line of the column starting the next day (its first row); anything else shown with
    the same end date (a share count beside the income statement) sits in that column."""
    columns = _columns(lines, statement)
    if not columns:
        return lines.clear().with_columns(
            pl.lit(None, pl.Date).alias("col_start"), pl.lit(None, pl.Date).alias("col_end")
        )
    frames = []
    col = pl.DataFrame(
        {"col_start": [c[0] for c in columns], "col_end": [c[1] for c in columns]},
        schema={"col_start": pl.Date, "col_end": pl.Date},
    )
    period_type = "instant" if statement == "balance" else "duration"
    same = lines.filter(pl.col("period_type") == period_type)
    if period_type == "instant":
        frames.append(
            same.join(
                col, left_on="period_end", right_on="col_end", how="inner", maintain_order="left"
            ).with_columns(pl.col("period_end").alias("col_end"))
        )
        # A duration in a balance sheet (a dividend rate in a line's caption) sits in the column
        # of the day it ends.
        frames.append(
            lines.filter(pl.col("period_type") != period_type)
            .join(col, left_on="period_end", right_on="col_end", how="inner", maintain_order="left")
            .with_columns(pl.col("period_end").alias("col_end"))
        )
    else:
        frames.append(
            same.join(
                col,
                left_on=["period_start", "period_end"],
                right_on=["col_start", "col_end"],
                how="inner",
                maintain_order="left",
            ).with_columns(
                pl.col("period_start").alias("col_start"), pl.col("period_end").alias("col_end")
            )
        )
        ends = col.get_column("col_end").implode()
        instants = lines.filter(pl.col("period_type") == "instant").with_columns(
            pl.col("row").min().over("fact_id").alias("_first"),
            pl.col("row").max().over("fact_id").alias("_last"),
            pl.col("row").n_unique().over("fact_id").alias("_rows"),
        )
        closing = (
            instants.filter(pl.col("row") == pl.col("_last"))
            .join(col, left_on="period_end", right_on="col_end", how="inner", maintain_order="left")
            .with_columns(pl.col("period_end").alias("col_end"))
        )
        # Shown once, an instant that closes a column is that column's (a supplemental
        # "dividends declared and not paid"), not also the next one's opening balance.
        opening = (
            instants.filter(
                (pl.col("row") == pl.col("_first"))
                & ((pl.col("_rows") > 1) | ~pl.col("period_end").is_in(ends))
            )
            .with_columns((pl.col("period_end") + _ONE_DAY).alias("_next"))
            .join(col, left_on="_next", right_on="col_start", how="inner", maintain_order="left")
            .with_columns(pl.col("_next").alias("col_start"))
        )
        helpers = ("_first", "_last", "_rows")
        frames += [closing.drop(*helpers), opening.drop(*helpers, "_next")]
    return pl.concat(
        [f.select(*lines.columns, "col_start", "col_end") for f in frames], how="vertical_relaxed"
    )


def _numbered(lines: pl.DataFrame) -> pl.DataFrame:
    """Line numbers in the statement's row order (several periods share a row: one number)."""
    rows = lines.select("row").unique().sort("row").with_row_index("line", offset=1)
    return lines.join(rows, on="row", how="left", maintain_order="left")


def _standardize(lines: pl.DataFrame) -> pl.DataFrame:
    """The standardized id on one line per statement and column: the first concept of its list
    that the statement shows, consolidated, then the first row."""
    mapped = lines.with_columns(
        pl.col("concept")
        .replace_strict(
            {c: s for c, (s, _) in CONCEPT_STANDARD.items()}, default=None, return_dtype=pl.String
        )
        .alias("_std"),
        pl.col("concept")
        .replace_strict(
            {c: r for c, (_, r) in CONCEPT_STANDARD.items()}, default=None, return_dtype=pl.Int32
        )
        .alias("_rank"),
    ).with_row_index("_i")
    # An opening balance (an instant before its column starts) never takes the id: the
    # closing one is the period's figure.
    opening = pl.col("period_end") < pl.col("col_start")
    winners = (
        mapped.filter(
            (pl.col("dimensions") == "{}")
            & pl.col("_std").is_not_null()
            & ~opening.fill_null(False)
        )
        .sort("_rank", "line")
        .unique(["statement", "_std", "col_start", "col_end"], keep="first")
        .select("_i", pl.col("_std").alias("standard_line"))
    )
    return mapped.join(winners, on="_i", how="left", maintain_order="left").drop(
        "_std", "_rank", "_i"
    )


def _fiscal(calendar: FiscalCalendar | None, start: dt.date | None, end: dt.date) -> FiscalPeriod:
    if calendar is None:
        return FiscalPeriod(end.isoformat() if start is None else f"{start}..{end}", None, None)
    return calendar.instant(end) if start is None else calendar.duration(start, end)


def statement_lines(facts: pl.DataFrame, filing: FilingInfo) -> pl.DataFrame:
    """Every line of the filing's income statement, balance sheet and cash-flow statement, for
    every period each shows (schema `STATEMENT_LINES`)."""
    tables = statement_tables(facts)
    if not tables:
        return pl.DataFrame(schema=STATEMENT_LINES)
    try:
        calendar: FiscalCalendar | None = filing.calendar()
    except FiscalCalendarError:
        calendar = None  # lines carry their dates as labels, as metric observations do
    numeric = facts.filter(pl.col("is_numeric") & pl.col("value").is_not_null())
    frames = []
    for statement, table in tables.items():
        lines = _in_columns(_places(numeric, table), statement)
        frames.append(
            _numbered(lines).with_columns(
                pl.lit(statement).alias("statement"), pl.lit(table, pl.Int32).alias("html_table")
            )
        )
    lines = _standardize(pl.concat(frames, how="vertical_relaxed"))
    periods = {
        key: _fiscal(calendar, *key)
        for key in lines.select("col_start", "col_end").unique().iter_rows()
    }
    fiscal = pl.DataFrame(
        [
            {
                "col_start": k[0],
                "col_end": k[1],
                "fiscal_label": p.label,
                "fiscal_year": p.fiscal_year,
                "fiscal_period": p.fiscal_period,
            }
            for k, p in periods.items()
        ],
        schema={
            "col_start": pl.Date,
            "col_end": pl.Date,
            "fiscal_label": pl.String,
            "fiscal_year": pl.Int32,
            "fiscal_period": pl.String,
        },
    )
    lines = lines.join(
        fiscal, on=["col_start", "col_end"], how="left", nulls_equal=True, maintain_order="left"
    )
    out = lines.with_columns(
        pl.col("period_type").alias("fact_period_type"),
        pl.col("period_start").alias("fact_period_start"),
        pl.col("period_end").alias("fact_period_end"),
    ).with_columns(
        pl.when(pl.col("col_start").is_null())
        .then(pl.lit("instant"))
        .otherwise(pl.lit("duration"))
        .alias("period_type"),
        pl.col("col_start").alias("period_start"),
        pl.col("col_end").alias("period_end"),
        pl.col("row").alias("table_row"),
        pl.coalesce(
            "label", pl.col("concept").map_elements(concept_words, return_dtype=pl.String)
        ).alias("label"),
        pl.lit(filing.cik, pl.String).alias("cik"),
        pl.col("conflict").fill_null(False),
    )
    return out.select([pl.col(c).cast(t) for c, t in STATEMENT_LINES.items()]).sort(
        "statement", "period_end", "period_start", "line", "concept", nulls_last=False
    )
