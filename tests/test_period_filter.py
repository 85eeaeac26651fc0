"""parse_period_filter: the one parser of a tool's `period` argument (fiscal label or calendar
range), shared by community_themes and the graph tools (issue 25, item 3)."""

from __future__ import annotations

import datetime as dt

import pytest

from graphrag_core.common.periods import filing_label, parse_period_filter


def test_fiscal_labels_are_matched_against_each_companys_own_calendar():
    p = parse_period_filter(" fy2024 ")
    assert p.fiscal_label == "FY2024" and p.calendar_start is None
    assert p.matches("FY2024", dt.date(2024, 1, 28)) and not p.matches("FY2023", None)
    assert parse_period_filter("Q2-FY2026").fiscal_label == "Q2-FY2026"


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("2024", dt.date(2024, 1, 1), dt.date(2024, 12, 31)),
        ("2024-Q3", dt.date(2024, 7, 1), dt.date(2024, 9, 30)),
        ("Q4 2024", dt.date(2024, 10, 1), dt.date(2024, 12, 31)),
        ("2024-02-01..2024-06-30", dt.date(2024, 2, 1), dt.date(2024, 6, 30)),
        ("2024-02-01 to 2024-06-30", dt.date(2024, 2, 1), dt.date(2024, 6, 30)),
    ],
)
def test_calendar_ranges_match_the_period_end(text, start, end):
    p = parse_period_filter(text)
    assert (p.fiscal_label, p.calendar_start, p.calendar_end) == (None, start, end)
    assert p.matches(None, start) and p.matches("FY2099", end)
    assert not p.matches(None, end + dt.timedelta(days=1)) and not p.matches(None, None)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "FY24",
        "2024-13-01..2024-12-31",
        "2024-06-30..2024-01-01",
        "Q5 2024",
        "1e309",
        "nan",
        "../etc",
        "FY2024; DROP TABLE x",
        "２０２４",
        "2024\n"[:4] + "x",
    ],
)
def test_anything_else_is_refused_saying_what_is_accepted(text):
    with pytest.raises(ValueError, match="fiscal label"):
        parse_period_filter(text)


def test_filing_label():
    assert filing_label("FY", 2025) == "FY2025" and filing_label("Q2", 2026) == "Q2-FY2026"
    assert filing_label(None, 2025) == "FY2025"
    assert filing_label("Q9", 2025) is None and filing_label("FY", None) is None
