"""Standardized statement lines: one id per kind of line, so that peers compare on the same line
whatever their filings call it (NVIDIA's "Revenue", Walmart's "Net sales", Coca-Cola's "Net
operating revenues" are all `revenue`).

A small, documented mapping in the spirit of edgartools' standardization: a line's us-gaap (or
ifrs-full) concept decides its id, never its label, so the mapping is exact and checkable. The
canonical metrics' concept lists (`graphrag_core.xbrl.metrics.METRICS`) are reused for the lines
they cover, in their order of preference; the other ids list their concepts here. Within one
statement of one filing and period, an id goes to one line only: the first concept of its list
that the statement shows (a statement showing `Revenues` and, above it, the contract revenue
it includes marks `Revenues` as `revenue`). Lines no id applies to keep a null standard id and
are served all the same, with their label as filed.
"""

from __future__ import annotations

from collections.abc import Mapping

from graphrag_core.xbrl.metrics import METRICS

_FROM_METRICS = (
    "revenue",
    "cost_of_revenue",
    "gross_profit",
    "operating_income",
    "net_income",
    "eps_diluted",
    "total_assets",
    "total_liabilities",
    "stockholders_equity",
    "cash_and_equivalents",
    "operating_cash_flow",
    "capex",
)

# id → concepts in order of preference (the first one a statement shows takes the id).
_OWN: dict[str, tuple[str, ...]] = {
    # income statement
    # Net income including non-controlling interests (Tesla's cash-flow statement opens with
    # it): not the parent's net income the metric means.
    "net_income_including_noncontrolling": ("us-gaap:ProfitLoss", "ifrs-full:ProfitLoss"),
    "research_and_development": (
        "us-gaap:ResearchAndDevelopmentExpense",
        "us-gaap:ResearchAndDevelopmentExpenseExcludingAcquiredInProcessCost",
    ),
    "selling_general_administrative": (
        "us-gaap:SellingGeneralAndAdministrativeExpense",
        "us-gaap:GeneralAndAdministrativeExpense",
    ),
    "operating_expenses": ("us-gaap:OperatingExpenses", "us-gaap:CostsAndExpenses"),
    "interest_expense": (
        "us-gaap:InterestExpense",
        "us-gaap:InterestExpenseNonoperating",
        "us-gaap:InterestExpenseDebt",
        "us-gaap:InterestAndDebtExpense",
    ),
    "interest_income": (
        "us-gaap:InvestmentIncomeInterest",
        "us-gaap:InterestIncomeOther",
        "us-gaap:InvestmentIncomeInterestAndDividend",
    ),
    "pretax_income": (
        "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
        "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments",
        "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesDomestic",
    ),
    "income_tax": ("us-gaap:IncomeTaxExpenseBenefit",),
    "eps_basic": ("us-gaap:EarningsPerShareBasic",),  # BasicAndDiluted is eps_diluted
    "shares_basic": (
        "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic",
        "us-gaap:WeightedAverageNumberOfShareOutstandingBasicAndDiluted",
    ),
    "shares_diluted": ("us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding",),
    # balance sheet
    "current_assets": ("us-gaap:AssetsCurrent",),
    "short_term_investments": (
        "us-gaap:ShortTermInvestments",
        "us-gaap:MarketableSecuritiesCurrent",
        "us-gaap:AvailableForSaleSecuritiesDebtSecuritiesCurrent",
    ),
    "accounts_receivable": (
        "us-gaap:AccountsReceivableNetCurrent",
        "us-gaap:ReceivablesNetCurrent",
    ),
    "inventories": ("us-gaap:InventoryNet", "us-gaap:InventoryFinishedGoodsNetOfReserves"),
    "property_plant_equipment": (
        "us-gaap:PropertyPlantAndEquipmentNet",
        "us-gaap:PropertyPlantAndEquipmentAndFinanceLeaseRightOfUseAssetAfterAccumulatedDepreciationAndAmortization",
    ),
    "goodwill": ("us-gaap:Goodwill",),
    "current_liabilities": ("us-gaap:LiabilitiesCurrent",),
    "accounts_payable": (
        "us-gaap:AccountsPayableCurrent",
        "us-gaap:AccountsPayableAndAccruedLiabilitiesCurrent",
    ),
    "current_debt": (
        "us-gaap:DebtCurrent",
        "us-gaap:LongTermDebtCurrent",
        "us-gaap:LongTermDebtAndCapitalLeaseObligationsCurrent",
    ),
    "short_term_borrowings": (
        "us-gaap:ShortTermBorrowings",
        "us-gaap:CommercialPaper",
        "us-gaap:NotesAndLoansPayable",
        "us-gaap:NotesPayableCurrent",
        "us-gaap:ShortTermBankLoansAndNotesPayable",
    ),
    "long_term_debt": (
        "us-gaap:LongTermDebtNoncurrent",
        "us-gaap:LongTermDebtAndCapitalLeaseObligations",
        "us-gaap:LongTermNotesAndLoans",
        "us-gaap:LongTermDebt",
    ),
    "retained_earnings": ("us-gaap:RetainedEarningsAccumulatedDeficit",),
    "total_liabilities_and_equity": ("us-gaap:LiabilitiesAndStockholdersEquity",),
    # cash-flow statement
    # The cash-flow statement's balances include restricted cash: a figure of its own, not the
    # balance sheet's cash and equivalents (the metric falls back to it; a line does not).
    "cash_restricted_and_equivalents": (
        "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
        "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsIncludingDisposalGroupAndDiscontinuedOperations",
    ),
    "depreciation_amortization": (
        "us-gaap:DepreciationDepletionAndAmortization",
        "us-gaap:DepreciationAmortizationAndAccretionNet",
        "us-gaap:DepreciationAndAmortization",
        "us-gaap:Depreciation",
    ),
    "stock_based_compensation": (
        "us-gaap:ShareBasedCompensation",
        "us-gaap:AllocatedShareBasedCompensationExpense",
    ),
    "net_cash_investing": (
        "us-gaap:NetCashProvidedByUsedInInvestingActivities",
        "us-gaap:NetCashProvidedByUsedInInvestingActivitiesContinuingOperations",
        "ifrs-full:CashFlowsFromUsedInInvestingActivities",
    ),
    "net_cash_financing": (
        "us-gaap:NetCashProvidedByUsedInFinancingActivities",
        "us-gaap:NetCashProvidedByUsedInFinancingActivitiesContinuingOperations",
        "ifrs-full:CashFlowsFromUsedInFinancingActivities",
    ),
    "dividends_paid": (
        "us-gaap:PaymentsOfDividends",
        "us-gaap:PaymentsOfDividendsCommonStock",
        "us-gaap:PaymentsOfOrdinaryDividends",
        "ifrs-full:DividendsPaidClassifiedAsFinancingActivities",
    ),
    "share_repurchases": (
        "us-gaap:PaymentsForRepurchaseOfCommonStock",
        "us-gaap:PaymentsForRepurchaseOfEquity",
    ),
    "debt_issued": (
        "us-gaap:ProceedsFromIssuanceOfLongTermDebt",
        "us-gaap:ProceedsFromIssuanceOfDebt",
        "us-gaap:ProceedsFromIssuanceOfSeniorLongTermDebt",
    ),
    "debt_repaid": (
        "us-gaap:RepaymentsOfLongTermDebt",
        "us-gaap:RepaymentsOfDebt",
        "us-gaap:RepaymentsOfSeniorDebt",
    ),
    "net_change_in_cash": (
        "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect",
        "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseExcludingExchangeRateEffect",
        "us-gaap:CashAndCashEquivalentsPeriodIncreaseDecrease",
    ),
}


def _standard_concepts() -> dict[str, tuple[str, ...]]:
    """The metrics' lists (less any concept an id of this module claims), then this module's."""
    metrics = {m.metric: m.concepts for m in METRICS}
    own = {c for concepts in _OWN.values() for c in concepts}
    reused = {line: tuple(c for c in metrics[line] if c not in own) for line in _FROM_METRICS}
    return {**reused, **_OWN}


# Every standardized line id → its concepts in order of preference.
STANDARD_LINES: Mapping[str, tuple[str, ...]] = _standard_concepts()

# concept → (standard id, rank within the id's list). A concept belongs to one id only.
CONCEPT_STANDARD: Mapping[str, tuple[str, int]] = {
    concept: (line, rank)
    for line, concepts in STANDARD_LINES.items()
    for rank, concept in enumerate(concepts)
}


def standard_line(concept: str) -> tuple[str, int] | None:
    """The standardized id a concept maps to, with its rank among the id's concepts."""
    return CONCEPT_STANDARD.get(concept)
