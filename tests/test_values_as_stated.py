"""Issue 22, item 4: values and periods as the filings state them (a half-year share is an H1
period, a range keeps its bounds to the graph, a subset of a metric is not the metric, a
sentence-heading is not an organisation)."""

from __future__ import annotations

import pytest

from graphrag_core.common.periods import (
    PERIOD_LABEL_PATTERN,
    is_period_label,
    next_period,
    period_label,
)
from graphrag_core.extraction.backends.base import ChunkInput
from graphrag_core.extraction.backends.rules_backend import RulesBackend


@pytest.fixture(scope="module")
def rules() -> RulesBackend:
    return RulesBackend.from_rows([])


def _triples(rules: RulesBackend, text: str, relation: str, company: str = "NVIDIA CORP") -> list:
    chunk = ChunkInput("c", "f", "10-Q/Item 2", text, "0" * 64, None, company)
    return [t for t in rules.triples(chunk) if t.relation == relation]


# -- periods ----------------------------------------------------------------------------------
def test_a_customer_share_for_the_first_half_is_an_h1_period_not_the_year(rules):
    # Verbatim from NVIDIA's 10-Q for the second quarter of fiscal 2026.
    text = ("For the first half of fiscal year 2026, sales to one direct customer, Customer A, represented "
            "20% of total revenue; and sales to a second direct customer, Customer B, represented 15% of "
            "total revenue, respectively, both of which were attributable to the Compute & Networking segment.")
    shares = {(t.subject.split(" (")[0], t.value, t.period) for t in _triples(rules, text, "CUSTOMER_OF")}
    assert shares == {("Customer A", 20.0, "H1-FY2026"), ("Customer B", 15.0, "H1-FY2026")}


def test_nine_months_and_second_half_are_their_own_periods(rules):
    nine = "For the first nine months of fiscal 2025, sales to one direct customer, Customer A, represented 20% of total revenue."
    assert [t.period for t in _triples(rules, nine, "CUSTOMER_OF")] == ["9M-FY2025"]
    six = "For the six months of fiscal years 2024, sales to one direct customer, Customer A, represented 12% of total revenue."
    assert [t.period for t in _triples(rules, six, "CUSTOMER_OF")] == ["H1-FY2024"]
    # A quarter stays a quarter, a year a year.
    quarter = "For the second quarter of fiscal year 2026, sales to one direct customer, Customer A, represented 23% of total revenue."
    assert [t.period for t in _triples(rules, quarter, "CUSTOMER_OF")] == ["Q2-FY2026"]


def test_a_half_named_only_as_the_comparison_base_moves_to_the_next_year():
    assert next_period("H1-FY2025") == "H1-FY2026"
    assert next_period("9M-FY2025") == "9M-FY2026"
    assert next_period("Q3-FY2024") == "Q3-FY2025"
    assert next_period("FY2024") == "FY2025"
    assert next_period("the first half") is None


def test_the_period_grammar_is_one_and_every_label_the_extractor_writes_passes_it():
    import re

    for label in ("FY2025", "Q1-FY2026", "H1-FY2026", "H2-FY2026", "9M-FY2025"):
        assert is_period_label(label) and re.match(PERIOD_LABEL_PATTERN, label)
    for bad in ("FY25", "H3-FY2026", "Q5-FY2026", "first half 2026", "", None):
        assert not is_period_label(bad)
    assert period_label("h1", 2026) == "H1-FY2026" and period_label("FY", 2026) == "FY2026"
    with pytest.raises(ValueError):
        period_label("Q7", 2026)


def test_the_mcp_neighbors_tool_accepts_a_half_year_period():
    from mcp_server import tools

    assert tools.PERIOD_LABEL_PATTERN == PERIOD_LABEL_PATTERN
