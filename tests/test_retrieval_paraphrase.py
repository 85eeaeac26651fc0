"""Retrieval for questions worded unlike their answer (issue 24, item 1, second round): a
question asking for an amount is routed to tables, and the full-text query holds the filings'
words for an analyst's. Real index (LanceDB, the packaged MiniLM) on the sample snapshot's
chunks plus a prose chunk and a table of the same filing that share the question's topic."""

from __future__ import annotations

import polars as pl
import pytest

from graphrag_core.retrieval.chunk_index import read_current, update_index
from graphrag_core.retrieval.search import (
    ChunkSearcher,
    Mentions,
    Weights,
    asks_amount,
    shared_embedder,
    text_terms,
)
from graphrag_core.retrieval.synonyms import SYNONYMS, expand_terms
from graphrag_core.settings import RetrievalSettings
from tests import snapshot_sample as sample

pytestmark = pytest.mark.real_embeddings

SETTINGS = RetrievalSettings(embed_backend="local")
PROSE_ID = "a1a1a1a1a1a1a1a1a1a1a1a1"
TABLE_ID = "b2b2b2b2b2b2b2b2b2b2b2b2"
PROSE = (
    "Research and development expenses increased in fiscal year 2025 compared to fiscal "
    "year 2024, driven by compensation and benefits, including stock-based compensation, "
    "reflecting employee growth and compensation increases. Research and development also "
    "rose on compute and infrastructure and engineering development costs for new products."
)
TABLE = (
    "Operating Expenses\n(In millions)\n| | Jan 26, 2025 | Jan 28, 2024 |\n|---|---|---|\n"
    "| Research and development expenses | $12,914 | $8,675 |\n"
    "| Sales, general and administrative expenses | 3,491 | 2,654 |\n"
    "| Total operating expenses | $16,405 | $11,329 |"
)


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    embedder = shared_embedder(SETTINGS)
    tables = sample.sample_tables()
    chunks = tables.chunks
    base = chunks.filter(pl.col("chunk_id") == sample.NVDA_IS["chunk_id"]).row(0, named=True)
    added = pl.DataFrame(
        [
            {**base, "chunk_id": PROSE_ID, "kind": "prose", "section": "10-K/Item 7",
             "text": PROSE, "char_end": len(PROSE), "scale_header": None, "ordinal": 90},
            {**base, "chunk_id": TABLE_ID, "kind": "table", "section": "10-K/Item 7",
             "text": TABLE, "char_end": len(TABLE), "ordinal": 91},
        ],
        schema=chunks.schema,
    )  # fmt: skip
    root = tmp_path_factory.mktemp("paraphrase")
    update_index(root, pl.concat([chunks, added]), tables.filings, embedder, SETTINGS)
    ref = read_current(root / SETTINGS.index_dir)
    return ChunkSearcher(ref, embedder, SETTINGS, Mentions(tickers={"NVDA": "CIK-0001045810"}))


def _ids(hits) -> list[str]:
    return [h.chunk_id for h in hits]


def test_an_amount_question_meets_the_table_before_the_prose_about_it(searcher):
    question = "How much did NVDA spend on research and development in fiscal 2025?"
    # The fused ranks alone (no re-rank: in an index of a dozen chunks the sentence re-rank's
    # pool mean, which a table gets, is made of two or three sentences' cosines, and the
    # learned re-rank's pool-relative features have a handful of chunks to be relative to).
    unrouted = _ids(
        searcher.search(question, k=5, weights=Weights(tables=0.0, sentences=0.0, learned=False))
    )
    routed = _ids(searcher.search(question, k=5, weights=Weights(sentences=0.0, learned=False)))
    # Without the route the prose that discusses the expense comes first; with it, the row
    # holding the figure does.
    assert unrouted.index(PROSE_ID) < unrouted.index(TABLE_ID)
    assert routed.index(TABLE_ID) < routed.index(PROSE_ID)
    # A question that asks no amount is not routed: the prose explains "why".
    why = "Why did NVDA's research and development expenses increase in fiscal 2025?"
    assert (
        _ids(searcher.search(why, k=5, weights=Weights(sentences=0.0, learned=False)))[0]
        == PROSE_ID
    )


def test_the_full_text_query_holds_the_filings_words(searcher):
    # "borrowings" is in no sample chunk; the balance sheets say "Long-term debt".
    assert searcher.search("borrowings", k=5, mode="text", weights=Weights(expand=False)) == []
    found = searcher.search("borrowings", k=5, mode="text")
    assert found and all("debt" in h.window_text.lower() for h in found)
    # off by settings too
    off = ChunkSearcher(
        searcher.ref,
        searcher.embedder,
        SETTINGS.model_copy(update={"query_expansion": False}),
        searcher.mentions,
    )
    assert off.search("borrowings", k=5, mode="text") == []


@pytest.mark.parametrize(
    "question",
    [
        "How much did Tesla spend on R&D?",
        "How many people work for Walmart?",
        "What share of revenue came from China?",
        "What were NVIDIA's private stakes worth in July?",
        "What was Apple's total operating income?",
        "what average price did apple pay for its shares",
        "HOW MUCH cash?",
        # a named line's figure, asked without "how much"
        "What were Visa's data processing revenues in fiscal 2024?",
        "What was HubSpot's subscription revenue in Q2 2025?",
        "What were AbbVie's U.S. Skyrizi sales in 2024?",
        "What is Nordstrom's Chief Customer Officer's 2023 base salary?",
        "what was home depot's average ticket in fiscal 2024",
    ],
)
def test_amount_questions_are_recognised(question):
    assert asks_amount(question)


@pytest.mark.parametrize(
    "question",
    [
        "",
        "   ",
        "Why did Boeing's margin fall?",
        "Who manufactures NVIDIA's wafers?",
        "What are Apple's main risks from its suppliers?",
        "What is Netflix's strategy for live programming?",
        "Why were Tesla's sales lower? What is the cause?",
        "Which risks does Meta describe about artificial intelligence?",
        "'; DROP TABLE chunks; --",
        "NaN",
        "../../etc/passwd",
        "\x00\x01 how\x00much",
        "x" * 100_000,
    ],
)
def test_other_questions_and_hostile_text_are_not_routed(question):
    assert not asks_amount(question)


def test_a_long_run_of_what_is_is_read_in_bounded_time():
    # the line-figure pattern looks at most 160 characters past "what is": a hostile query of
    # thousands of them is read in one pass, and a figure named far away is not an amount
    assert not asks_amount("what is the " * 20_000 + "x" * 500 + " revenue")
    assert asks_amount("what is the " * 20_000 + "revenue")


def test_expansion_adds_filing_words_once_and_keeps_the_question_first():
    assert expand_terms(["profit", "buyback"]) == [
        "profit",
        "buyback",
        "income",
        "earnings",
        "repurchase",
    ]
    assert expand_terms(["debt", "borrowings"]) == ["debt", "borrowings", "notes"]
    assert expand_terms([]) == []
    hostile = text_terms("'; DROP TABLE chunks; -- NaN inf ../../x " + "y" * 5000)
    assert expand_terms(hostile) == hostile  # nothing to add, nothing lost
    # the table only maps lower-case words to lower-case words (text_terms' form), never a
    # word to itself
    for word, alternatives in SYNONYMS.items():
        assert word == word.lower() and word not in alternatives
        assert all(a == a.lower() and " " not in a for a in alternatives)


@pytest.mark.parametrize("field", ["table_route", "period_route"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -0.001, 11.0])
def test_hostile_route_settings_are_refused(field, value):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        RetrievalSettings(**{field: value})


CASH_FLOWS = (
    "|  | Year Ended December 31, |  |\n|  | 2023 | 2024 |\n|---|---|---|\n"
    "| Cash provided by (used in): |  |  |\n"
    "| Operating activities | $84,946 | $115,877 |\n"
    "| Investing activities | (49,833) | (94,342) |\n"
    "| Financing activities | (15,879) | (11,812) |"
)
PER_SHARE = (
    "|  | Three Months Ended March 31 |  |\n|---|---|---|\n"
    "| Net earnings attributable to the company (Basic) | $3,698 | $3,685 |\n"
    "| Net earnings attributable to the company (Diluted) | 3,766 | 3,754 |\n"
    "| NET EARNINGS PER COMMON SHARE |  |  |\n"
    "| Basic | $1.58 | $1.56 |\n"
    "| Diluted | $1.54 | $1.52 |"
)


def test_a_table_row_is_read_under_its_group_label():
    from graphrag_core.retrieval.passages import table_rows

    question = "How much cash did the business generate from operations in 2024?"
    with_labels = table_rows(CASH_FLOWS, question, 8, "in millions")
    without = table_rows(CASH_FLOWS, question, 8, "in millions", group_labels=False)
    assert with_labels is not None and without is not None
    assert ["Operating activities", "$84,946", "$115,877"] in with_labels.rows
    assert ["Operating activities", "$84,946", "$115,877"] not in without.rows
    question = "What were diluted earnings per share for the quarter?"
    rows = table_rows(PER_SHARE, question, 1, None)
    assert rows is not None and rows.rows == [["Diluted", "$1.54", "$1.52"]]
    without = table_rows(PER_SHARE, question, 1, None, group_labels=False)
    assert without is not None and without.rows != [["Diluted", "$1.54", "$1.52"]]


@pytest.mark.parametrize(
    "text",
    [
        "| Only a label |  |\n|---|---|\n| Another label |  |",  # nothing but group labels
        "| a | b |\n|---|---|\n|  |  |\n| x | 1 |",  # an empty row is no group label
        "| a | b |\n|---|---|\n| x | 1 |\n| Trailing group: |  |",
        "| '; DROP TABLE x; -- |  |\n|---|---|\n| NaN | inf |\n| ../../etc | " + "9" * 5000 + " |",
    ],
)
def test_group_labels_on_odd_tables(text):
    from graphrag_core.retrieval.passages import table_rows

    for query in ("", "x", "label", "'; DROP TABLE x; --", "NaN inf", "y" * 10_000):
        shown = table_rows(text, query, 8, None)
        assert shown is not None and 1 <= len(shown.rows) <= 8
        assert all(row in parse_rows(text) for row in shown.rows)


def parse_rows(text: str) -> list[list[str]]:
    from graphrag_core.text.markdown_tables import parse_markdown_table

    table = parse_markdown_table(text)
    assert table is not None
    return table.body
