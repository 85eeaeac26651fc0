"""A company's own concepts mapped to canonical metrics when their statement says what they are:
a purchase of property and equipment in the cash-flow statement's investing section is capex; a
debt line on the liabilities side of the balance sheet is a part of total debt. The rule that
matched is recorded on the observation."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.tables.schemas import XBRL_FACTS, frame
from graphrag_core.xbrl.extensions import concept_words, map_extensions
from graphrag_core.xbrl.metrics import FilingInfo, observations_from_facts
from tests.xbrl_corpus import one_filing

D = dt.date.fromisoformat
INFO = FilingInfo(
    "F", "0000000042", "10-K", D("2025-02-01"), "--12-31", 2024, "FY", D("2024-12-31")
)


def fact(
    concept: str,
    value: float,
    row: int,
    label: str | None,
    table: int = 5,
    start: str | None = "2024-01-01",
    end: str = "2024-12-31",
) -> dict:
    return {
        "fact_id": f"{concept}:{start}:{end}",
        "filing_id": "F",
        "cik": "0000000042",
        "concept": concept,
        "value": value,
        "value_text": str(value),
        "normalized": str(value),
        "is_numeric": True,
        "unit": "USD",
        "decimals": -6,
        "period_type": "duration" if start else "instant",
        "period_start": D(start) if start else None,
        "period_end": D(end),
        "dimensions": "{}",
        "dimension_count": 0,
        "inline_id": None,
        "inline_ids": [],
        "source_document": "x",
        "html_tables": [table],
        "chunk_id": None,
        "duplicate_count": 1,
        "conflict": False,
        "conflict_values": [],
        "table_row": row,
        "row_label": label,
    }


CASH_FLOW = [
    fact(
        "us-gaap:NetCashProvidedByUsedInOperatingActivities",
        5_641.0,
        21,
        "Net cash provided by operating activities",
    ),
    fact(
        "acme:PurchasesOfPropertyAndEquipmentAndIntangibleAssets",
        1_833.0,
        26,
        "Purchases related to property and equipment and intangible assets",
    ),
    fact(
        "acme:ProceedsFromSaleOfEquipment",
        12.0,
        27,
        "Proceeds from sales of property and equipment",
    ),
    fact(
        "us-gaap:NetCashProvidedByUsedInInvestingActivities",
        7_375.0,
        31,
        "Net cash provided by (used in) investing activities",
    ),
    fact(
        "acme:PaymentsForFinancedPropertyPlantAndEquipment",
        58.0,
        37,
        "Principal payments on property and equipment",
    ),
]


def test_capex_from_the_investing_section_only():
    [mapping] = map_extensions(frame(CASH_FLOW, XBRL_FACTS))
    assert (mapping.concept, mapping.target, mapping.negate) == (
        "acme:PurchasesOfPropertyAndEquipmentAndIntangibleAssets",
        "capex",
        False,
    )
    o = observations_from_facts(frame(CASH_FLOW, XBRL_FACTS), INFO).observations
    [capex] = o.filter(pl.col("metric") == "capex").iter_rows(named=True)
    assert capex["value"] == 1_833.0
    assert capex["mapping_rule"] == (
        "extension acme:PurchasesOfPropertyAndEquipmentAndIntangibleAssets → capex: label "
        "'Purchases related to "
        "property and equipment and intangible assets' is a purchase of property and "
        "equipment, in the investing "
        "section of the cash-flow statement"
    )


def test_a_standard_capex_concept_wins_and_negative_outflows_turn_around():
    standard = [
        *CASH_FLOW,
        fact(
            "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
            1_800.0,
            25,
            "Purchases of property",
        ),
    ]
    [capex] = (
        observations_from_facts(frame(standard, XBRL_FACTS), INFO)
        .observations.filter(pl.col("metric") == "capex")
        .iter_rows(named=True)
    )
    assert (capex["concept"], capex["mapping_rule"]) == (
        "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
        None,
    )
    negative = [
        r | {"value": -r["value"]} if r["concept"].startswith("acme:Purchases") else r
        for r in CASH_FLOW
    ]
    [capex] = (
        observations_from_facts(frame(negative, XBRL_FACTS), INFO)
        .observations.filter(pl.col("metric") == "capex")
        .iter_rows(named=True)
    )
    assert capex["value"] == 1_833.0 and capex["mapping_rule"].endswith(
        "(sign turned: shown as a negative cash flow)"
    )


def test_outside_the_statement_nothing_maps():
    elsewhere = [
        r | {"html_tables": [9]} if r["concept"].startswith("acme:") else r for r in CASH_FLOW
    ]
    assert map_extensions(frame(elsewhere, XBRL_FACTS)) == []
    # Without a label the concept's own words are read.
    unlabelled = [r | {"row_label": None} for r in CASH_FLOW]
    [mapping] = map_extensions(frame(unlabelled, XBRL_FACTS))
    assert (
        "concept name 'Purchases Of Property And Equipment And Intangible Assets'" in mapping.rule
    )
    assert (
        concept_words("tsla:LongTermDebtAndFinanceLeasesCurrent")
        == "Long Term Debt And Finance Leases Current"
    )


BALANCE = [
    fact("us-gaap:Assets", 122_070.0, 19, "Total assets", start=None),
    fact(
        "acme:DebtAndFinanceLeasesCurrent",
        2_456.0,
        25,
        "Current portion of debt and finance leases",
        start=None,
    ),
    fact("us-gaap:LiabilitiesCurrent", 28_821.0, 26, "Total current liabilities", start=None),
    fact(
        "acme:DebtAndFinanceLeasesNoncurrent",
        5_757.0,
        27,
        "Debt and finance leases, net of current portion",
        start=None,
    ),
    fact(
        "acme:InvestmentsInDebtSecurities", 999.0, 28, "Investments in debt securities", start=None
    ),
    fact(
        "us-gaap:LiabilitiesAndStockholdersEquity",
        122_070.0,
        45,
        "Total liabilities and equity",
        start=None,
    ),
]


def test_debt_lines_take_the_role_their_label_gives():
    roles = {m.concept: m.target for m in map_extensions(frame(BALANCE, XBRL_FACTS))}
    assert roles == {
        "acme:DebtAndFinanceLeasesCurrent": "debt:current_portion",
        "acme:DebtAndFinanceLeasesNoncurrent": "debt:noncurrent",
    }
    [debt] = (
        observations_from_facts(frame(BALANCE, XBRL_FACTS), INFO)
        .observations.filter(pl.col("metric") == "total_debt")
        .iter_rows(named=True)
    )
    assert debt["value"] == 5_757.0 + 2_456.0
    assert (
        debt["concept"] == "acme:DebtAndFinanceLeasesNoncurrent + acme:DebtAndFinanceLeasesCurrent"
    )
    assert (
        "'Debt and finance leases, net of current portion' on the liabilities side"
        in debt["mapping_rule"]
    )


@pytest.mark.corpus
def test_nvidia_fy2023_capex_and_tesla_total_debt(corpus_dir: Path):
    nvda = one_filing(corpus_dir, "NVDA/10-K/Nvidia.10-K.htm").metrics.observations
    [capex] = nvda.filter(
        (pl.col("metric") == "capex") & (pl.col("fiscal_label") == "FY2023")
    ).iter_rows(named=True)
    assert (
        capex["value"] == 1_833_000_000
        and capex["concept"] == "nvda:PurchasesOfPropertyAndEquipmentAndIntangibleAssets"
    )
    assert (
        "label 'Purchases related to property and equipment and intangible assets'"
        in capex["mapping_rule"]
    )
    # "Principal payments on property and equipment" is a financing line: not capex.
    assert nvda.filter(
        pl.col("concept") == "nvda:PaymentsForFinancedPropertyPlantAndEquipmentFinancingActivities"
    ).is_empty()

    tsla = one_filing(corpus_dir, "TSLA/10-K/tsla-10-k-2025-01-30.htm").metrics.observations
    debt = {
        r["fiscal_label"]: r
        for r in tsla.filter(pl.col("metric") == "total_debt").iter_rows(named=True)
    }
    # The balance sheet: current portion 2,456 + debt and finance leases net of it 5,757.
    assert debt["FY2024"]["value"] == 8_213_000_000 and debt["FY2023"]["value"] == 5_230_000_000
    assert (
        debt["FY2024"]["concept"]
        == "tsla:LongTermDebtAndFinanceLeasesNoncurrent + tsla:LongTermDebtAndFinanceLeasesCurrent"
    )
    assert "'Current portion of debt and finance leases'" in debt["FY2024"]["mapping_rule"]
