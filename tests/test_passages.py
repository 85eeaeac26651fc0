"""Passages that show the answer (issue 24, item 2): a search hit's passage is the whole-sentence
span of its chunk that best matches the query, or a table's matching rows under its header and
scale. On the corpus Tesla 10-K's chunks, on hostile input, and through a real MCP session."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from graphrag_core.retrieval.passages import (
    Passage,
    TablePassage,
    best_span,
    hit_passage,
    table_rows,
)
from graphrag_core.retrieval.search import content_words
from graphrag_core.text.sentences import sentence_spans

TSLA_10K = "0001628280-25-003063"
BATTERY_SENTENCE = (
    "Currently, we rely on suppliers such as Panasonic and Contemporary Amperex Technology Co. "
    "Limited"
)


@pytest.fixture(scope="module")
def tesla_chunks(corpus_dir: Path, tmp_path_factory) -> pl.DataFrame:
    from graphrag_core.intake.local_folder import LocalFolderSource
    from graphrag_core.intake.raw_filing import ingest_filing
    from graphrag_core.tables.table_store import TableStore
    from graphrag_core.text.filing_chunks import chunk_filing

    source = LocalFolderSource(corpus_dir)
    ref = next(r for r in source.discover() if r.filing_id == TSLA_10K)
    store = TableStore(tmp_path_factory.mktemp("tesla"))
    raw = ingest_filing(ref, source.fetch(ref), store)
    return chunk_filing(raw.meta, raw.documents, store).chunks


def _whole_sentences(text: str, passage: Passage) -> None:
    """The span is exactly text[start:end] and starts and ends on the splitter's boundaries."""
    spans = sentence_spans(text, split_lines=True)
    assert passage.text == text[passage.start : passage.end]
    assert passage.start in {a for a, _ in spans}, passage.text[:60]
    assert passage.end in {b for _, b in spans}, passage.text[-60:]


QUERIES = [
    "Which suppliers does Tesla rely on for battery cells?",
    "raw materials lithium nickel cobalt prices",
    "Megapack energy storage for utilities",
    "insurance product based on real-time driving behavior",
    "resale value guarantees on leased vehicles",
]


@pytest.mark.parametrize("query", QUERIES)
def test_corpus_spans_hold_whole_sentences_and_the_best_sentence(tesla_chunks, query):
    prose = tesla_chunks.filter(pl.col("kind") == "prose")
    words = content_words(query)
    # The chunks that hold most of the query's words: where a search would land.
    ranked = sorted(
        prose.iter_rows(named=True),
        key=lambda r: -sum(1 for w in words if w in r["text"].lower()),
    )[:5]
    for row in ranked:
        text = row["text"]
        passage = best_span(text, query, 700)
        _whole_sentences(text, passage)
        assert len(passage.text) <= 700 or len(sentence_spans(passage.text, split_lines=True)) == 1
        # The sentence holding the most query words is inside the span.
        counts = [
            (sum(1 for w in words if w in set(content_words(text[a:b]))), -a, a, b)
            for a, b in sentence_spans(text, split_lines=True)
        ]
        top, _, a, b = max(counts)
        if top:
            shown = {w for w in words if w in set(content_words(passage.text))}
            assert len(shown) >= top, (query, passage.text[:200])


def test_tesla_battery_cell_sentence_is_not_cut(tesla_chunks):
    row = tesla_chunks.filter(pl.col("text").str.contains(BATTERY_SENTENCE, literal=True)).row(
        0, named=True
    )
    text = row["text"]
    passage = best_span(text, "Which suppliers does Tesla rely on for battery cells?", 700)
    _whole_sentences(text, passage)
    start = text.index(BATTERY_SENTENCE)
    end = text.index("for these cells.", start) + len("for these cells.")
    # The whole sentence, names and all, from "Currently" to its period.
    assert passage.start <= start and end <= passage.end
    assert "Panasonic" in passage.text and "CATL" in passage.text
    assert {"supplier", "battery", "cell"} <= set(passage.matched)


def test_corpus_table_returns_header_matching_rows_and_scale(tesla_chunks):
    row = tesla_chunks.filter(
        (pl.col("kind") == "table")
        & pl.col("text").str.contains("Consolidated Statements of Cash Flows")
        & pl.col("text").str.contains("Net cash provided by operating activities")
    ).row(0, named=True)
    shown = hit_passage(
        row["text"],
        "table",
        "net cash provided by operating activities",
        700,
        8,
        row["scale_header"],
    )
    assert isinstance(shown, TablePassage)
    assert shown.scale == "in millions" and shown.caption.startswith(
        "Consolidated Statements of Cash Flows"
    )
    assert ["", "2024", "2023", "2022"] == shown.header[-1]
    labels = [r[0] for r in shown.rows]
    assert "Net cash provided by operating activities" in labels
    assert ["Net cash provided by operating activities", "14,923", "13,256", "14,724"] in shown.rows
    assert len(shown.rows) <= 8 < shown.rows_total
    # Rows keep the table's order, every shown line is verbatim, the header and rule come first.
    lines = shown.text.split("\n")
    assert all(line in row["text"] for line in lines)
    assert "|---|---|---|---|" in lines
    assert lines.index("|---|---|---|---|") < lines.index(
        "| Net cash provided by operating activities | 14,923 | 13,256 | 14,724 |"
    )
    assert row["text"][shown.start : shown.end].startswith("|")
    positions = [row["text"].index("| " + label + " |") for label in labels]
    assert positions == sorted(positions)


def test_a_table_without_matching_rows_shows_its_first_rows():
    text = "Sales by region\n| | 2024 |\n|---|---|\n| Americas | 10 |\n| Europe | 5 |\n| Asia | 3 |"
    shown = table_rows(text, "dividends", 2, None)
    assert shown is not None and shown.rows == [["Americas", "10"], ["Europe", "5"]]
    assert shown.matched == () and shown.scale is None and shown.rows_total == 3


@pytest.mark.parametrize("query", ["", "the of and what is", "   ", "??!!"])
def test_queries_without_topic_words_get_the_opening_sentences(query):
    text = (
        "First sentence here. Second one follows. " + "Third is much longer than the others. " * 30
    )
    passage = best_span(text, query, 120)
    _whole_sentences(text, passage)
    assert passage.start == 0 and passage.text.startswith("First sentence here.")
    assert len(passage.text) <= 120 and passage.matched == ()


def test_a_one_sentence_chunk_is_returned_whole_even_over_the_budget():
    text = (
        "We rely on " + ", ".join(f"supplier number {k}" for k in range(80)) + " for battery cells."
    )
    passage = best_span(text, "battery cell suppliers", 100)
    assert (passage.start, passage.end) == (0, len(text)) and passage.text == text


def test_empty_chunk_and_a_table_chunk_that_is_not_a_table():
    assert best_span("", "anything", 500) == Passage("", 0, 0, None, ())
    shown = hit_passage("No table here. Just words about cells.", "table", "cells", 500, 8)
    assert isinstance(shown, Passage) and shown.text == "No table here. Just words about cells."


def test_the_heading_above_the_span_is_reported():
    text = (
        "Energy Storage Products\n\nPowerwall and Megapack are our storage products. They store "
        "energy.\n\nSolar Energy Offerings\n\nWe sell retrofit solar energy systems to customers."
    )
    passage = best_span(text, "retrofit solar systems", 60)
    assert passage.heading == "Solar Energy Offerings"
    assert best_span(text, "Megapack", 60).heading == "Energy Storage Products"


@pytest.mark.real_embeddings
async def test_search_chunks_serves_sentence_spans_and_table_rows(tmp_path):
    from dataclasses import replace

    from graphrag_core.retrieval.chunk_index import update_index
    from graphrag_core.retrieval.search import shared_embedder
    from graphrag_core.settings import RetrievalSettings
    from graphrag_core.store.publish import SnapshotStore
    from tests import snapshot_sample as sample
    from tests.mcp_client import call, session

    tables = sample.sample_tables()
    settings = RetrievalSettings()
    update = update_index(
        tmp_path, tables.chunks, tables.filings, shared_embedder(settings), settings
    )
    SnapshotStore(tmp_path).publish(replace(tables, chunk_index=update.ref))
    async with session(tmp_path) as client:
        out = await call(
            client, "search_chunks", query="Alphabet net income", company_id="GOOGL", k=8
        )
        [table] = [h for h in out["hits"] if h["chunk_id"] == sample.GOOGL_IS["chunk_id"]]
        assert table["table"]["scale"] == "in millions, except per share data"
        assert table["table"]["rows"] == [["Net income", "$ 73,795", "$ 100,118"]]
        assert table["table"]["header"] == [["", "2023", "2024"]]
        assert table["heading"] == "CONSOLIDATED STATEMENTS OF INCOME"
        risk = await call(
            client, "search_chunks", query="rapid changes in technology", company_id="NVDA"
        )
        [hit] = [h for h in risk["hits"] if h["chunk_id"] == sample.NVDA_RISK["chunk_id"]]
        text = sample.NVDA_RISK["text"]
        assert hit["passage"] == text[hit["passage_start"] : hit["passage_end"]]
        assert hit["passage"].endswith("rapid changes in technology.")
        assert hit["heading"] == "Risk Factors"


def test_a_possessive_query_word_matches_the_name():
    text = "Licenses are perpetual. Oracle sells cloud services by subscription."
    passage = best_span(text, "Oracle's", 30)
    assert passage.text == "Oracle sells cloud services by subscription." and passage.matched == (
        "oracle",
    )


def test_a_span_that_opens_with_its_heading_reports_it():
    text = (
        "Intro sentence about the company.\n\nSolar Energy Offerings\n\nWe sell retrofit solar "
        "energy systems to customers."
    )
    passage = best_span(text, "solar energy offerings retrofit", 80)
    assert (
        passage.text.startswith("Solar Energy Offerings")
        and passage.heading == "Solar Energy Offerings"
    )
    assert best_span(text, "company intro", 35).heading is None
