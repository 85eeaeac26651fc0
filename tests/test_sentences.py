"""The one sentence splitter: abbreviations, legal suffixes and initials that end a sentence only
when the next word starts one."""

from __future__ import annotations

import pytest

from graphrag_core.text.sentences import sentence_spans


def sentences(text: str, **kwargs) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text, **kwargs)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A legal suffix closes the sentence when the next word starts one ...
        (
            "Our products are assembled by Hon Hai Precision Industry Co. We may be harmed "
            "if it fails.",
            [
                "Our products are assembled by Hon Hai Precision Industry Co.",
                "We may be harmed if it fails.",
            ],
        ),
        (
            "We purchase memory from Micron Technology, Inc. In addition, we could lose a "
            "customer.",
            [
                "We purchase memory from Micron Technology, Inc.",
                "In addition, we could lose a customer.",
            ],
        ),
        (
            "Our largest market is the U.S. The rest of our sales are abroad.",
            ["Our largest market is the U.S.", "The rest of our sales are abroad."],
        ),
        (
            "Sales to Customer A. We expect this to continue.",
            ["Sales to Customer A.", "We expect this to continue."],
        ),
        (
            "Our wafers are made by Samsung Electronics Co., Ltd. However, supply may be "
            "constrained.",
            [
                "Our wafers are made by Samsung Electronics Co., Ltd.",
                "However, supply may be constrained.",
            ],
        ),
    ],
)
def test_a_sentence_ends_at_a_suffix_before_a_new_sentence(text: str, expected: list[str]):
    assert sentences(text) == expected
    assert sentences(text, split_lines=True) == expected
    assert sentences(text, require_capital=True) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Apple Inc. sold 3.5 million units in the U.S. last year.",
        "J. P. Morgan Chase & Co. Securities is a subsidiary of the bank.",
        "We sell to The Home Depot, Inc. and Lowe's Companies, Inc. in the U.S. Southeast.",
        "Mr. Huang founded the company with Dr. Priem.",
        "See No. 4 for details, e.g. the table of contents.",
        "Revenue grew approx. 12% in Jan. 2025 versus the prior year.",
    ],
)
def test_an_abbreviation_inside_a_sentence_does_not_end_it(text: str):
    assert sentences(text) == [text]


def test_plain_ends_decimals_and_line_breaks():
    text = "Revenue rose 12%. See Note 4.\n• Competition from Visa Inc.\n• Regulation"
    assert sentences(text, split_lines=True) == [
        "Revenue rose 12%.",
        "See Note 4.",
        "• Competition from Visa Inc.",
        "• Regulation",
    ]


def test_runs_of_initials_and_places_inside_a_sentence():
    text = "Our competitors include Adidas and V.F. Corporation in apparel. J. Smith leads it."
    assert sentences(text) == [
        "Our competitors include Adidas and V.F. Corporation in apparel.",
        "J. Smith leads it.",
    ]
    text = "Sales in the U.S. rose 4.5% vs. last year. Revenue grew."
    assert sentences(text) == ["Sales in the U.S. rose 4.5% vs. last year.", "Revenue grew."]


def test_prose_packing_wants_a_capital_after_the_period():
    text = "It rose 3 pct. in the quarter. Then it fell."
    assert sentences(text, require_capital=True) == [
        "It rose 3 pct. in the quarter.",
        "Then it fell.",
    ]
    assert len(sentences(text)) == 3
