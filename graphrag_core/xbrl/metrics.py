"""XBRL facts → canonical metric observations (`REPORTS_METRIC`), with fiscal labels; no model.

The mapping (`METRICS`) is a typed table (IFRS `ifrs-full:` concepts of 20-F filers come
last in each list, so a us-gaap filer never reaches them): for each canonical metric, the
us-gaap/dei concepts that report it, in order of preference. For every period a filing reports,
the first concept in the list that has a fact for that period wins, so a company that tags
revenue as `Revenues` and another that tags
`RevenueFromContractWithCustomerExcludingAssessedTax` both yield `revenue`, and a filing that
tags both yields the total (`Revenues`), not the subset.

Only facts without dimensions (the consolidated entity) feed metrics; segment facts stay in
xbrl_facts. A fact flagged as a conflicting duplicate never feeds a metric. Metrics are the
values companies reported — nothing is derived, except `total_debt`, which the issue defines as
a sum of reported parts (see `_total_debt` for how it avoids double counting).

Each filing's observations leave `superseded_by` empty: restatements link observations of
different filings, which `supersession` does over all of them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from graphrag_core.common.dates import iso_date
from graphrag_core.common.ids import content_hash, normalize_cik
from graphrag_core.common.numbers import to_int
from graphrag_core.tables.records import FilingMeta
from graphrag_core.tables.schemas import METRIC_OBSERVATIONS, empty
from graphrag_core.xbrl.derived import derive_gross_profit
from graphrag_core.xbrl.extensions import ExtensionMapping, map_extensions
from graphrag_core.xbrl.facts import dei_values
from graphrag_core.xbrl.periods import FiscalCalendar, FiscalCalendarError, FiscalPeriod
from graphrag_core.xbrl.recasts import filing_signals

PeriodType = Literal["duration", "instant"]
UnitKind = Literal["currency", "per_share", "shares"]


@dataclass(frozen=True, slots=True)
class MetricDefinition:
    metric: str
    period_type: PeriodType
    unit_kind: UnitKind
    concepts: tuple[str, ...]  # ordered fallbacks: the first one reported for a period wins
    description: str


# The mapping. Why each fallback sits where it does is said next to it.
METRICS: tuple[MetricDefinition, ...] = (
    MetricDefinition(
        "revenue",
        "duration",
        "currency",
        (
            "us-gaap:Revenues",  # total revenue, including non-contract revenue (leases, interest)
            "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",  # ASC 606 total
            "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax",
            "us-gaap:SalesRevenueNet",  # pre-2018 filings
            "us-gaap:RevenuesNetOfInterestExpense",  # banks and brokers
            "ifrs-full:Revenue",  # IFRS filers (20-F), after every us-gaap choice
        ),
        "Total revenue (net sales) of the period",
    ),
    MetricDefinition(
        "cost_of_revenue",
        "duration",
        "currency",
        (
            "us-gaap:CostOfRevenue",  # total cost of revenue
            "us-gaap:CostOfGoodsAndServicesSold",  # "cost of sales" (products and services)
            "us-gaap:CostOfGoodsAndServiceExcludingDepreciationDepletionAndAmortization",
            "us-gaap:CostOfGoodsSold",  # pre-2018 filings
            "ifrs-full:CostOfSales",
        ),
        "Cost of revenue / cost of sales",
    ),
    MetricDefinition(
        "gross_profit",
        "duration",
        "currency",
        ("us-gaap:GrossProfit", "ifrs-full:GrossProfit"),
        "Gross profit as reported (not computed: many companies do not report one)",
    ),
    MetricDefinition(
        "operating_income",
        "duration",
        "currency",
        ("us-gaap:OperatingIncomeLoss", "ifrs-full:ProfitLossFromOperatingActivities"),
        "Operating income (loss)",
    ),
    MetricDefinition(
        "net_income",
        "duration",
        "currency",
        (
            "us-gaap:NetIncomeLoss",  # attributable to the parent: what "net income" means
            "us-gaap:ProfitLoss",  # including non-controlling interests, when that is all there is
            "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic",
            "ifrs-full:ProfitLossAttributableToOwnersOfParent",
            "ifrs-full:ProfitLoss",
        ),
        "Net income (loss) attributable to the company",
    ),
    MetricDefinition(
        "eps_diluted",
        "duration",
        "per_share",
        (
            "us-gaap:EarningsPerShareDiluted",
            "us-gaap:EarningsPerShareBasicAndDiluted",
            "ifrs-full:DilutedEarningsLossPerShare",
        ),
        "Diluted earnings per share",
    ),
    MetricDefinition(
        "total_assets",
        "instant",
        "currency",
        ("us-gaap:Assets", "ifrs-full:Assets"),
        "Total assets",
    ),
    MetricDefinition(
        "total_liabilities",
        "instant",
        "currency",
        ("us-gaap:Liabilities", "ifrs-full:Liabilities"),
        "Total liabilities as reported (many balance sheets have no such line; not derived)",
    ),
    MetricDefinition(
        "stockholders_equity",
        "instant",
        "currency",
        (
            "us-gaap:StockholdersEquity",  # attributable to the parent
            "us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
            "ifrs-full:EquityAttributableToOwnersOfParent",
            "ifrs-full:Equity",
        ),
        "Total stockholders' equity",
    ),
    MetricDefinition(
        "cash_and_equivalents",
        "instant",
        "currency",
        (
            "us-gaap:CashAndCashEquivalentsAtCarryingValue",
            # includes restricted cash
            "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
            "us-gaap:Cash",
            "ifrs-full:CashAndCashEquivalents",
        ),
        "Cash and cash equivalents",
    ),
    MetricDefinition(
        "operating_cash_flow",
        "duration",
        "currency",
        (
            "us-gaap:NetCashProvidedByUsedInOperatingActivities",
            "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
            "ifrs-full:CashFlowsFromUsedInOperatingActivities",
        ),
        "Net cash provided by (used in) operating activities",
    ),
    MetricDefinition(
        "capex",
        "duration",
        "currency",
        (
            "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
            "us-gaap:PaymentsToAcquireProductiveAssets",  # PP&E and intangibles (NVIDIA, Amazon)
            "us-gaap:PaymentsForCapitalImprovements",
            "ifrs-full:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities",
        ),
        "Capital expenditures (payments for property and equipment), a positive outflow",
    ),
    MetricDefinition(
        "shares_outstanding",
        "instant",
        "shares",
        (
            "us-gaap:CommonStockSharesOutstanding",  # balance sheet, at the period end
            "dei:EntityCommonStockSharesOutstanding",  # cover page, as of its own later date
        ),
        "Common shares outstanding at the balance-sheet date, else the cover-page count",
    ),
)

# total_debt = long-term debt (noncurrent) + its current portion + short-term borrowings.
# Each role lists concepts in order of preference; see `_total_debt` for how they combine.
DEBT_ROLES: Mapping[str, tuple[str, ...]] = {
    "noncurrent": (
        "us-gaap:LongTermDebtNoncurrent",
        "us-gaap:LongTermDebtAndCapitalLeaseObligations",  # noncurrent, includes finance leases
        # Oracle: "notes payable and other borrowings, non-current"
        "us-gaap:LongTermNotesAndLoans",
        "us-gaap:LongTermNotesPayable",
    ),
    "current_total": ("us-gaap:DebtCurrent",),  # current portion + short-term borrowings
    "current_portion": (
        "us-gaap:LongTermDebtCurrent",
        "us-gaap:LongTermDebtAndCapitalLeaseObligationsCurrent",
        "us-gaap:NotesPayableCurrent",  # Oracle: "notes payable and other borrowings, current"
    ),
    "short_term": ("us-gaap:ShortTermBorrowings",),  # includes commercial paper
    "short_term_parts": ("us-gaap:CommercialPaper", "us-gaap:OtherShortTermBorrowings"),  # disjoint
    # Further borrowings a balance sheet shows as lines of their own (Coca-Cola's "Loans and
    # notes payable", HubSpot's "Convertible senior notes" due within a year): every one on the
    # face counts; in notes only, never (NotesAndLoansPayable may there be a total of both terms).
    "face_lines": (
        "us-gaap:NotesAndLoansPayableCurrent",
        "us-gaap:NotesAndLoansPayable",
        "us-gaap:ShortTermBankLoansAndNotesPayable",
        "us-gaap:LoansPayableCurrent",
        "us-gaap:BankOverdrafts",
        "us-gaap:ConvertibleNotesPayableCurrent",
        "us-gaap:ConvertibleLongTermNotesPayable",
        "us-gaap:SeniorLongTermNotes",
    ),
    "long_term_total": (
        "us-gaap:LongTermDebt",  # by definition includes its current maturities
        "us-gaap:LongTermDebtAndCapitalLeaseObligationsIncludingCurrentMaturities",
    ),
}
BALANCE_SHEET_ANCHORS = ("us-gaap:Assets", "us-gaap:LiabilitiesAndStockholdersEquity")
METRIC_IDS: tuple[str, ...] = (*(m.metric for m in METRICS), "total_debt")

METRIC_SKIP_REASONS: tuple[str, ...] = (
    "conflicting_fact",  # duplicates of the fact disagree; no value is trusted
    "unit_mismatch",  # e.g. a per-share concept in USD, revenue in shares
    "period_type_mismatch",  # an instant where a duration is expected, or the reverse
    "total_debt_ambiguous",  # LongTermDebt next to DebtCurrent with no noncurrent line
    "release_unscaled_table",  # an earnings-release table without a scale statement: amounts unread
    "release_conflict",  # two release tables (or sentences) disagree on a figure: none kept
    "non_finite_value",  # a release figure or a derived value that is not a finite number
)

_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")
_PER_SHARE_RE = re.compile(r"^[A-Z]{3}/shares$")


def unit_kind(unit: str | None) -> UnitKind | None:
    if not unit:
        return None
    if _CURRENCY_RE.match(unit):
        return "currency"
    if _PER_SHARE_RE.match(unit):
        return "per_share"
    if unit == "shares":
        return "shares"
    return None


# ---------------------------------------------------------------------------------------------
# the filing a set of facts came from


@dataclass(frozen=True, slots=True)
class FilingInfo:
    """What an observation needs to know about its filing."""

    filing_id: str
    cik: str | None
    form: str | None
    filed_date: dt.date | None
    fiscal_year_end: str | None  # --MM-DD
    fiscal_year_focus: int | None
    fiscal_period_focus: str | None
    period_end: dt.date | None

    @classmethod
    def from_facts(
        cls,
        facts: pl.DataFrame,
        filing_id: str,
        *,
        cik: str | None = None,
        form: str | None = None,
        filed_date: dt.date | None = None,
        fiscal_year_end: str | None = None,
        fiscal_year_focus: int | None = None,
        fiscal_period_focus: str | None = None,
        period_end: dt.date | None = None,
    ) -> FilingInfo:
        """Given fields win; the filing's own dei facts fill the rest."""
        dei = dei_values(facts)
        return cls(
            filing_id=filing_id,
            cik=normalize_cik(cik or dei.get("EntityCentralIndexKey")),
            form=form or dei.get("DocumentType"),
            filed_date=filed_date,
            fiscal_year_end=fiscal_year_end or dei.get("CurrentFiscalYearEndDate"),
            fiscal_year_focus=fiscal_year_focus
            if fiscal_year_focus is not None
            else to_int(dei.get("DocumentFiscalYearFocus")),
            fiscal_period_focus=fiscal_period_focus or dei.get("DocumentFiscalPeriodFocus"),
            period_end=period_end or iso_date(dei.get("DocumentPeriodEndDate")),
        )

    @classmethod
    def from_meta(cls, facts: pl.DataFrame, meta: FilingMeta) -> FilingInfo:
        """The filing's metadata as raw_filings read it; its dei facts fill what is missing."""
        return cls.from_facts(
            facts,
            meta.filing_id,
            cik=meta.cik,
            form=meta.form,
            filed_date=meta.filed_date,
            fiscal_year_end=meta.fiscal_year_end,
            fiscal_year_focus=meta.fiscal_year,
            fiscal_period_focus=meta.fiscal_period,
            period_end=meta.period_end,
        )

    def calendar(self) -> FiscalCalendar:
        return FiscalCalendar.from_filing(
            self.fiscal_year_end,
            self.fiscal_year_focus,
            self.period_end,
            self.form,
            self.fiscal_period_focus,
        )


# ---------------------------------------------------------------------------------------------
# facts → observations


@dataclass
class MetricExtraction:
    observations: pl.DataFrame
    skipped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(METRIC_SKIP_REASONS, 0))
    warnings: list[str] = field(default_factory=list)

    def metadata(self) -> dict[str, Any]:
        counts = (
            Counter(self.observations["metric"].to_list())
            if self.observations.height
            else Counter()
        )
        meta: dict[str, Any] = {"observations": self.observations.height}
        meta.update({f"metric_{m}": counts.get(m, 0) for m in METRIC_IDS})
        meta.update({f"skipped_{r}": n for r, n in self.skipped.items()})
        return meta


_EXTENSION_RANK = 1000  # after every standard concept of the metric
_MAPPING_SCHEMA = {
    "metric": pl.String,
    "concept": pl.String,
    "rank": pl.Int32,
    "want_period": pl.String,
    "want_unit": pl.String,
    "mapping_rule": pl.String,
    "_negate": pl.Boolean,
}


def _mapping_frame(extensions: Sequence[ExtensionMapping] = ()) -> pl.DataFrame:
    """The concept → metric mapping, plus this filing's extension concepts (ranked last)."""
    rows = [
        {
            "metric": m.metric,
            "concept": c,
            "rank": i,
            "want_period": m.period_type,
            "want_unit": m.unit_kind,
            "mapping_rule": None,
            "_negate": False,
        }
        for m in METRICS
        for i, c in enumerate(m.concepts)
    ]
    definitions = {m.metric: m for m in METRICS}
    for k, e in enumerate(extensions):
        if e.target in definitions:
            d = definitions[e.target]
            rows.append(
                {
                    "metric": d.metric,
                    "concept": e.concept,
                    "rank": _EXTENSION_RANK + k,
                    "want_period": d.period_type,
                    "want_unit": d.unit_kind,
                    "mapping_rule": e.rule,
                    "_negate": e.negate,
                }
            )
    return pl.DataFrame(rows, schema=_MAPPING_SCHEMA)


def consolidated(facts: pl.DataFrame) -> pl.DataFrame:
    """Numeric facts of the consolidated entity (no dimensions) with a value."""
    return facts.filter(
        pl.col("is_numeric") & (pl.col("dimension_count") == 0) & pl.col("value").is_not_null()
    )


def select_reported(
    facts: pl.DataFrame,
    period_end: dt.date | None = None,
    out: MetricExtraction | None = None,
    extensions: Sequence[ExtensionMapping] = (),
) -> pl.DataFrame:
    """For each metric, the one concept this filing reports it with, and that concept's facts.

    The concept is the first in the mapping's order that has a fact for the filing's own period
    (`period_end`), else the first reported at all. One concept per filing keeps a series
    coherent: without it, cash at the balance-sheet dates would come from
    `CashAndCashEquivalentsAtCarryingValue` and cash two years back from the cash-flow
    statement's `…RestrictedCash…` total, a different quantity under the same metric."""
    mapping = _mapping_frame(extensions)
    candidates = (
        consolidated(facts)
        .join(mapping, on="concept", how="inner")
        .with_columns(_unit_kind=pl.col("unit").map_elements(unit_kind, return_dtype=pl.String))
    )
    if out is not None and candidates.height:
        out.skipped["conflicting_fact"] += int(candidates["conflict"].sum())
        out.skipped["unit_mismatch"] += candidates.filter(
            pl.col("_unit_kind").ne_missing(pl.col("want_unit"))
        ).height
        out.skipped["period_type_mismatch"] += candidates.filter(
            pl.col("period_type") != pl.col("want_period")
        ).height
    usable = candidates.filter(
        ~pl.col("conflict")
        & (pl.col("_unit_kind") == pl.col("want_unit"))
        & (pl.col("period_type") == pl.col("want_period"))
    )
    current = pl.lit(False) if period_end is None else pl.col("period_end") == pl.lit(period_end)
    chosen = (
        usable.group_by("metric", "concept")
        .agg(pl.col("rank").first(), _current=current.any())
        .sort(["metric", "_current", "rank"], descending=[False, True, False])
        .group_by("metric", maintain_order=True)
        .agg(pl.col("concept").first())
    )
    return (
        usable.join(chosen, on=["metric", "concept"], how="semi")
        .sort(["metric", "period_end", "period_start"], nulls_last=False)
        .with_columns(
            fact_ids=pl.concat_list(pl.col("fact_id")),
            value=pl.when(pl.col("_negate")).then(-pl.col("value")).otherwise(pl.col("value")),
        )
        .select(*_SELECTED)
    )


_SELECTED = (
    "metric",
    "value",
    "unit",
    "period_type",
    "period_start",
    "period_end",
    "fact_id",
    "fact_ids",
    "concept",
    "chunk_id",
    "mapping_rule",
)


def _first(pool: dict[str, dict], concepts: Iterable[str]) -> dict | None:
    for concept in concepts:
        if concept in pool:
            return pool[concept]
    return None


def _debt_roles(extensions: Sequence[ExtensionMapping]) -> dict[str, tuple[str, ...]]:
    """DEBT_ROLES plus this filing's extension debt lines, each after the standard concepts."""
    roles = dict(DEBT_ROLES)
    for e in extensions:
        if e.target.startswith("debt:"):
            role = e.target.split(":", 1)[1]
            roles[role] = (*roles[role], e.concept)
    return roles


def _total_debt(
    facts: pl.DataFrame,
    out: MetricExtraction | None = None,
    extensions: Sequence[ExtensionMapping] = (),
) -> list[dict]:
    """total_debt at every balance-sheet date: noncurrent long-term debt + its current portion
    + short-term borrowings, without double counting.

    1. Pool: the debt lines shown on the balance sheet itself (the HTML table(s) that show
       total assets for that date). Lines of one statement are disjoint amounts, which rules
       out the classic double count of a note that repeats a total next to its parts. Only
       when the face has no us-gaap debt line (extension concepts) do the notes' facts serve.
    2. Noncurrent debt (N) present: N + DebtCurrent when reported (it already is current
       portion + short-term borrowings), else N + current portion + short-term borrowings
       (ShortTermBorrowings, which includes commercial paper, else CommercialPaper +
       OtherShortTermBorrowings).
    3. No N but LongTermDebt (T): on the face, a LongTermDebt line beside current lines is the
       noncurrent part, so as in 2; from notes, T includes its current maturities by
       definition, so T + short-term borrowings — unless DebtCurrent is reported too, which
       may or may not overlap T: that case is skipped as ambiguous rather than guessed.
    4. Only current lines: their sum as in 2.

    A company's own debt lines on the face (`extensions`: "Debt and finance leases, net of
    current portion") take the role their label gives them, after every us-gaap concept."""
    roles = _debt_roles(extensions)
    rules = {e.concept: e.rule for e in extensions}
    debt_concepts = {c for concepts in roles.values() for c in concepts}
    base = consolidated(facts).filter(pl.col("period_type") == "instant", ~pl.col("conflict"))
    debt = base.filter(pl.col("concept").is_in(debt_concepts)).filter(
        pl.col("unit").map_elements(unit_kind, return_dtype=pl.String) == "currency"
    )
    if debt.is_empty():
        return []
    anchors = base.filter(pl.col("concept").is_in(BALANCE_SHEET_ANCHORS))
    statement_tables: dict[dt.date, set[int]] = {}
    for day, tables in anchors.select("period_end", "html_tables").iter_rows():
        statement_tables.setdefault(day, set()).update(tables or [])
    rows: list[dict] = []
    shown: set[dt.date] = set()
    for (day, unit), group in debt.group_by(["period_end", "unit"], maintain_order=True):
        records = group.to_dicts()
        face_tables = statement_tables.get(day, set())
        face = [r for r in records if face_tables.intersection(r["html_tables"] or [])]
        on_face = bool(face)
        pool = {r["concept"]: r for r in (face if on_face else records)}
        n = _first(pool, roles["noncurrent"])
        d = _first(pool, roles["current_total"])
        c = _first(pool, roles["current_portion"])
        s = _first(pool, roles["short_term"])
        s_parts = [] if s else [pool[k] for k in roles["short_term_parts"] if k in pool]
        t = _first(pool, roles["long_term_total"])
        current = [d] if d else [x for x in [c, s, *s_parts] if x]
        if on_face:
            current += [
                pool[k]
                for k in roles["face_lines"]
                if k in pool and pool[k] not in (n, t, *current)
            ]
        if n:
            parts = [n, *current]
        elif t and on_face:
            parts = [t, *current]
        elif t:
            if d:
                if out is not None:
                    out.skipped["total_debt_ambiguous"] += 1
                continue
            parts = [t, *[x for x in [s, *s_parts] if x]]
        else:
            parts = current
        if not parts:
            continue
        shown.add(day)
        rows.append(
            {
                "metric": "total_debt",
                "value": float(sum(p["value"] for p in parts)),
                "unit": unit,
                "period_type": "instant",
                "period_start": None,
                "period_end": day,
                "fact_id": parts[0]["fact_id"],
                "fact_ids": [p["fact_id"] for p in parts],
                "concept": " + ".join(p["concept"] for p in parts),
                "chunk_id": next((p["chunk_id"] for p in parts if p["chunk_id"]), None),
                "mapping_rule": "; ".join(
                    rules[p["concept"]] for p in parts if p["concept"] in rules
                )
                or None,
                "lines": [(p["concept"], p["fact_id"], float(p["value"])) for p in parts],
            }
        )
    return rows + _repaid(debt, statement_tables, shown)


def _repaid(
    debt: pl.DataFrame, statement_tables: dict[dt.date, set[int]], shown: set[dt.date]
) -> list[dict]:
    """total_debt = 0 at a balance-sheet date whose balance sheet shows debt lines for another
    date and none for this one (HubSpot settled its convertible notes: the row reads "—" in
    the current column). The filing states the zero; a date whose balance sheet never shows a
    debt line says nothing, and gets no figure."""
    rows = []
    for day, tables in sorted(statement_tables.items()):
        if day in shown or not tables:
            continue
        earlier = debt.filter(
            (pl.col("period_end") != day)
            & pl.col("html_tables").list.eval(pl.element().is_in(list(tables))).list.any()
        )
        if earlier.is_empty():
            continue
        line = earlier.sort("period_end", descending=True).row(0, named=True)
        rows.append(
            {
                "metric": "total_debt",
                "value": 0.0,
                "unit": line["unit"],
                "period_type": "instant",
                "period_start": None,
                "period_end": day,
                "fact_id": line["fact_id"],
                "fact_ids": [line["fact_id"]],
                "concept": line["concept"],
                "chunk_id": line["chunk_id"],
                "mapping_rule": (
                    f"the balance sheet shows {line['concept']} at {line['period_end']} "
                    f"({line['value']:,.0f}) and no debt line at {day}: debt repaid, 0"
                ),
                "lines": [],
            }
        )
    return rows


def debt_derivation(lines: Sequence[tuple[str, str, float]]) -> str | None:
    """total_debt's lines in words, each with its fact and value: the one definition applied."""
    if not lines:
        return None
    return "sum of balance-sheet debt lines: " + " + ".join(
        f"{c} {v:,.0f} (fact {f})" for c, f, v in lines
    )


def observation_id(
    filing_id: str, cik: str | None, metric: str, period_type: str, start: Any, end: Any, unit: str
) -> str:
    return f"{filing_id}:{content_hash(filing_id, cik, metric, period_type, start, end, unit)}"


def _label(
    calendar: FiscalCalendar | None, period_type: str, start: dt.date | None, end: dt.date
) -> FiscalPeriod:
    if calendar is None:
        return FiscalPeriod(end.isoformat() if start is None else f"{start}..{end}", None, None)
    if period_type == "instant" or start is None:
        return calendar.instant(end)
    return calendar.duration(start, end)


def observations_from_facts(facts: pl.DataFrame, filing: FilingInfo) -> MetricExtraction:
    """The canonical metrics one filing reports, each with its fiscal label and calendar range.

    `superseded_by` is left empty here: supersession needs every filing of the company and is
    applied by `apply_supersession` over all partitions."""
    out = MetricExtraction(observations=empty(METRIC_OBSERVATIONS))
    if facts.is_empty():
        return out
    extensions = map_extensions(facts)
    chosen = select_reported(facts, filing.period_end, out, extensions)
    debt_rows = _total_debt(facts, out, extensions)
    derivations = {(r["period_end"], r["unit"]): debt_derivation(r.pop("lines")) for r in debt_rows}
    if debt_rows:
        chosen = pl.concat([chosen, pl.DataFrame(debt_rows, schema=chosen.schema)], how="vertical")
    if chosen.is_empty():
        return out  # an 8-K's cover page: no metric, so no calendar is needed
    try:
        calendar: FiscalCalendar | None = filing.calendar()
    except FiscalCalendarError as exc:
        calendar = None
        out.warnings.append(
            f"filing {filing.filing_id}: {exc}; observations carry dates, not fiscal labels"
        )
    signals = filing_signals(facts)
    kinds = {m.metric: m.unit_kind for m in METRICS} | {"total_debt": "currency"}
    rows = []
    for r in chosen.iter_rows(named=True):
        period = _label(calendar, r["period_type"], r["period_start"], r["period_end"])
        start = r["period_start"] or r["period_end"]
        concepts = r["concept"].split(" + ")
        per_share = kinds.get(r["metric"]) == "per_share"
        rows.append(
            {
                "observation_id": observation_id(
                    filing.filing_id,
                    filing.cik,
                    r["metric"],
                    r["period_type"],
                    start,
                    r["period_end"],
                    r["unit"],
                ),
                "cik": filing.cik,
                "metric": r["metric"],
                "value": r["value"],
                "unit": r["unit"],
                "fiscal_label": period.label,
                "fiscal_year": period.fiscal_year,
                "fiscal_period": period.fiscal_period,
                "period_type": r["period_type"],
                "calendar_start": start,
                "calendar_end": r["period_end"],
                "filing_id": filing.filing_id,
                "form": filing.form,
                "filed_date": filing.filed_date,
                "fact_id": r["fact_id"],
                "fact_ids": r["fact_ids"],
                "concept": r["concept"],
                "chunk_id": r["chunk_id"],
                "superseded_by": None,
                "restated": None,
                "source_kind": "xbrl",
                "derived": False,
                "derivation": derivations.get((r["period_end"], r["unit"]))
                if r["metric"] == "total_debt"
                else None,
                "derived_from": [],
                "mapping_rule": r["mapping_rule"],
                "recast_evidence": signals.evidence(
                    r["metric"],
                    kinds.get(r["metric"]),
                    concepts,
                    r["period_start"],
                    r["period_end"],
                ),
                "shares_basis": signals.diluted_shares.get((r["period_start"], r["period_end"]))
                if per_share
                else None,
                "supersede_reason": None,
                "supersede_detail": None,
            }
        )
    reported = pl.DataFrame(rows, schema=METRIC_OBSERVATIONS, strict=False)
    gross = derive_gross_profit(reported, _cost_follows_revenue(facts, chosen))
    out.observations = sort_observations(pl.concat([reported, gross]))
    return out


def _cost_follows_revenue(
    facts: pl.DataFrame, chosen: pl.DataFrame
) -> set[tuple[dt.date | None, dt.date]]:
    """Periods whose cost-of-revenue line is the first amount after the revenue line on the same
    statement: then revenue − cost is the gross profit the statement implies. An insurer's
    "cost of products sold" after its medical costs covers part of its revenue only, and
    subtracting it would make a number no one reports."""
    lines = chosen.filter(pl.col("metric").is_in(["revenue", "cost_of_revenue"]))
    if lines.is_empty() or "table_row" not in facts.columns:
        return set()
    place = facts.select("fact_id", "html_tables", "table_row")
    placed = lines.join(place, on="fact_id", how="inner").filter(
        pl.col("table_row").is_not_null() & (pl.col("html_tables").list.len() > 0)
    )
    where: dict[tuple, dict[str, tuple[int, int]]] = {}
    for metric, start, end, tables, row in placed.select(
        "metric", "period_start", "period_end", "html_tables", "table_row"
    ).iter_rows():
        where.setdefault((start, end), {})[metric] = (tables[0], row)
    shown = consolidated(facts).filter(
        pl.col("table_row").is_not_null() & (pl.col("html_tables").list.len() > 0)
    )
    eligible = set()
    for (start, end), found in where.items():
        if len(found) < 2 or found["revenue"][0] != found["cost_of_revenue"][0]:
            continue
        table = found["revenue"][0]
        low, high = sorted((found["revenue"][1], found["cost_of_revenue"][1]))
        between = shown.filter(
            (pl.col("html_tables").list.first() == table)
            & (pl.col("table_row") > low)
            & (pl.col("table_row") < high)
            & (
                pl.col("period_start") == start
                if start is not None
                else pl.col("period_start").is_null()
            )
            & (pl.col("period_end") == end)
        )
        if between.is_empty():
            eligible.add((start, end))
    return eligible


def sort_observations(observations: pl.DataFrame) -> pl.DataFrame:
    """Metrics in the mapping's order, newest period first."""
    order = {m: i for i, m in enumerate(METRIC_IDS)}
    return (
        observations.with_columns(_o=pl.col("metric").replace_strict(order, return_dtype=pl.Int32))
        .sort(["_o", "calendar_end", "calendar_start"], descending=[False, True, False])
        .drop("_o")
    )
