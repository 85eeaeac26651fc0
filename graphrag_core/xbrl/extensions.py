"""A company's own concepts (`nvda:`, `tsla:`) mapped to canonical metrics, when the filing
itself says what they are.

Extension concepts carry no definition an offline reader can look up (their taxonomy schema is
not in the filing's HTML), but the statement displays each one on a labelled row of a known
statement, in a known place. A line is mapped only when both agree:

- **where it sits** (its presentation role): capex lines sit in the cash-flow statement between
  the operating and the investing totals (the investing section); debt lines sit on the face of
  the balance sheet, below total assets (the liabilities side);
- **what it is called** (its label, else its concept name split into words): "Purchases related
  to property and equipment and intangible assets" is capex; "Principal payments on property
  and equipment" (financing) and "Proceeds from sales of property" are not.

A mapped concept only ever ranks after every us-gaap concept of its metric, so it fills a gap
and never replaces a standard tag. The rule that matched is recorded on each observation it
feeds (`mapping_rule`), naming the concept, the label and the statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import polars as pl

# Prefixes of standard taxonomies: a concept under any other prefix is a company extension.
STANDARD_CONCEPT_PREFIXES = frozenset(
    {"us-gaap", "ifrs-full", "dei", "srt", "ecd", "country", "currency"}
)

OPERATING_TOTALS = (
    "us-gaap:NetCashProvidedByUsedInOperatingActivities",
    "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
)
INVESTING_TOTALS = (
    "us-gaap:NetCashProvidedByUsedInInvestingActivities",
    "us-gaap:NetCashProvidedByUsedInInvestingActivitiesContinuingOperations",
)
ASSET_TOTALS = ("us-gaap:Assets",)
CURRENT_LIABILITY_TOTALS = ("us-gaap:LiabilitiesCurrent",)
LIABILITY_AND_EQUITY_TOTALS = ("us-gaap:LiabilitiesAndStockholdersEquity",)

_CAPEX_LABEL_RE = re.compile(
    r"\bcapital\s+expenditures?\b|\bcapex\b"
    r"|\b(?:purchases?|acquisitions?|additions?|payments?|expenditures?|investments?)\b.*"
    r"\b(?:property|plant|equipment|fixed\s+assets|capital\s+assets|premises)\b",
    re.I,
)
_CAPEX_EXCLUDE_RE = re.compile(
    r"\b(?:sales?|sold|proceeds|disposals?|dispositions?|financed|financing|principal|"
    r"right[- ]of[- ]use|leased|accrued|unpaid|non-?cash|depreciation)\b",
    re.I,
)
_DEBT_LABEL_RE = re.compile(
    r"\b(?:debt|borrowings?|notes\s+payable|loans?\s+payable|(?:convertible|senior)\s+notes|"
    r"term\s+loans?|commercial\s+paper|credit\s+facilit(?:y|ies))\b",
    re.I,
)
_DEBT_EXCLUDE_RE = re.compile(
    r"\b(?:investments?|securities|receivables?|assets?|issuance\s+costs?|discounts?|interest\s+"
    r"payable|accrued\s+interest|guarantees?|fair\s+value|derivatives?)\b",
    re.I,
)
_NONCURRENT_RE = re.compile(
    r"non-?current|net\s+of\s+(?:the\s+)?current|less\s*:?\s+current|excluding\s+current", re.I
)
_LONG_TERM_RE = re.compile(r"long[- ]term", re.I)
_CURRENT_RE = re.compile(r"\bcurrent\b|short[- ]term|due\s+within\s+one\s+year", re.I)
_SHORT_TERM_RE = re.compile(
    r"short[- ]term\s+borrowings?|commercial\s+paper|short[- ]term\s+debt", re.I
)
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")

Target = Literal["capex", "debt:noncurrent", "debt:current_portion", "debt:short_term"]


@dataclass(frozen=True, slots=True)
class ExtensionMapping:
    concept: str
    target: Target
    rule: str  # what matched, recorded on the observation
    negate: bool = False  # the company shows the outflow as a negative cash flow


def concept_words(concept: str) -> str:
    """`nvda:PurchasesOfPropertyAndEquipment` → 'Purchases Of Property And Equipment'."""
    return _CAMEL_RE.sub(" ", concept.split(":", 1)[-1])


def _label(row: dict) -> tuple[str, str]:
    """The line's label and where it came from: the displayed row, else the concept name."""
    if row["row_label"]:
        return row["row_label"], "label"
    return concept_words(row["concept"]), "concept name"


def _anchor_rows(facts: pl.DataFrame, concepts: tuple[str, ...]) -> dict[tuple[int, object], int]:
    """(table, period_end) → the row of a statement total in that table (its first display)."""
    rows = facts.filter(
        pl.col("concept").is_in(concepts)
        & pl.col("table_row").is_not_null()
        & (pl.col("html_tables").list.len() > 0)
    )
    return {
        (tables[0], end): row
        for tables, end, row in rows.select("html_tables", "period_end", "table_row").iter_rows()
    }


def _placed(facts: pl.DataFrame, period_type: str) -> pl.DataFrame:
    """Consolidated numeric extension facts shown in a table, in currency."""
    return facts.filter(
        pl.col("is_numeric")
        & (pl.col("dimension_count") == 0)
        & pl.col("value").is_not_null()
        & ~pl.col("conflict")
        & (pl.col("period_type") == period_type)
        & pl.col("unit").str.contains(r"^[A-Z]{3}$")
        & pl.col("table_row").is_not_null()
        & (pl.col("html_tables").list.len() > 0)
        & ~pl.col("concept").str.split(":").list.first().is_in(list(STANDARD_CONCEPT_PREFIXES))
    )


def _capex(facts: pl.DataFrame) -> list[ExtensionMapping]:
    candidates = _placed(facts, "duration")
    if candidates.is_empty():
        return []
    investing = _anchor_rows(facts, INVESTING_TOTALS)
    operating = _anchor_rows(facts, OPERATING_TOTALS)
    found: dict[str, ExtensionMapping] = {}
    values: dict[str, list[float]] = {}
    for row in candidates.iter_rows(named=True):
        table, end, line = row["html_tables"][0], row["period_end"], row["table_row"]
        top = investing.get((table, end))
        if top is None or line >= top or line <= operating.get((table, end), -1):
            continue  # not in this period's investing section of the cash-flow statement
        label, source = _label(row)
        if not _CAPEX_LABEL_RE.search(label) or _CAPEX_EXCLUDE_RE.search(label):
            continue
        values.setdefault(row["concept"], []).append(row["value"])
        found.setdefault(
            row["concept"],
            ExtensionMapping(
                row["concept"],
                "capex",
                f"extension {row['concept']} → capex: {source} '{label}' is a purchase of property "
                "and equipment, in the investing section of the cash-flow statement",
            ),
        )
    out = []
    for concept, mapping in found.items():
        # Payments are positive outflows; a company that shows its purchases as negative cash
        # flows (every value ≤ 0) has them turned around, and the rule says so.
        if all(v <= 0 for v in values[concept]) and any(v < 0 for v in values[concept]):
            mapping = ExtensionMapping(
                concept,
                "capex",
                mapping.rule + " (sign turned: shown as a negative cash flow)",
                True,
            )
        out.append(mapping)
    return out


def _debt_role(label: str, line: int, current_total_row: int | None) -> Target | None:
    if _NONCURRENT_RE.search(label):
        return "debt:noncurrent"
    if _CURRENT_RE.search(label):  # "current portion of long-term debt" is current
        return "debt:short_term" if _SHORT_TERM_RE.search(label) else "debt:current_portion"
    if _LONG_TERM_RE.search(label):
        return "debt:noncurrent"
    if current_total_row is not None:  # no word says which: the side of the current total
        return "debt:current_portion" if line < current_total_row else "debt:noncurrent"
    return None


def _debt(facts: pl.DataFrame) -> list[ExtensionMapping]:
    candidates = _placed(facts, "instant")
    if candidates.is_empty():
        return []
    assets = _anchor_rows(facts, ASSET_TOTALS)
    current_totals = _anchor_rows(facts, CURRENT_LIABILITY_TOTALS)
    bottoms = _anchor_rows(facts, LIABILITY_AND_EQUITY_TOTALS)
    found: dict[str, ExtensionMapping] = {}
    for row in candidates.iter_rows(named=True):
        if row["concept"] in found:
            continue
        table, end, line = row["html_tables"][0], row["period_end"], row["table_row"]
        top = assets.get((table, end))
        if top is None or line <= top or line >= bottoms.get((table, end), 1 << 30):
            continue  # not on the liabilities side of this date's balance sheet
        label, source = _label(row)
        if not _DEBT_LABEL_RE.search(label) or _DEBT_EXCLUDE_RE.search(label):
            continue
        role = _debt_role(label, line, current_totals.get((table, end)))
        if role is None:
            continue
        found[row["concept"]] = ExtensionMapping(
            row["concept"],
            role,
            f"extension {row['concept']} → {role.split(':', 1)[1].replace('_', ' ')} debt: "
            f"{source} "
            f"'{label}' on the liabilities side of the balance sheet",
        )
    return list(found.values())


def map_extensions(facts: pl.DataFrame) -> list[ExtensionMapping]:
    """Every extension concept of a filing that its statements show to be capex or a debt line."""
    if facts.is_empty() or "row_label" not in facts.columns:
        return []
    return [*_capex(facts), *_debt(facts)]
