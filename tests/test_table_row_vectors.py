"""Table rows by meaning (issue 24, item 1, third round): every table chunk's body rows are
embedded at index time (the row's label under its group label, the table's caption and the
chunk's section, without figures) into the sentence table, so a table hit's rows are picked by
meaning as well as by words; an index built before gets them by an incremental update. With
the real packaged model on the sample snapshot's chunks."""

from __future__ import annotations

import math
import shutil

import polars as pl
import pytest

from graphrag_core.retrieval.chunk_index import index_input, read_current, update_index
from graphrag_core.retrieval.passages import hit_passage, table_rows
from graphrag_core.retrieval.search import ChunkSearcher, Mentions, shared_embedder
from graphrag_core.retrieval.sections import section_title
from graphrag_core.retrieval.sentence_index import chunk_sentences
from graphrag_core.settings import RetrievalSettings
from graphrag_core.text.markdown_tables import table_row_units
from tests import snapshot_sample as sample

SETTINGS = RetrievalSettings(
    embed_backend="local", table_row_vectors=True, passage_row_vector_weight=4.0
)

CASH_FLOWS = (
    "Consolidated Statements of Cash Flows\n"
    "(In millions)\n"
    "| | 2024 | 2023 |\n"
    "|---|---|---|\n"
    "| Cash flows from investing activities: | | |\n"
    "| Purchases of marketable securities | (9,012) | (7,500) |\n"
    "| Acquisitions, net of cash acquired | (1,250) | (320) |\n"
    "| Net cash used in investing activities | (10,262) | (7,820) |\n"
    "| 4,100 | 3,900 | |\n"
)
QUERY = "How much cash was spent on purchases of other businesses?"


def _rows(text: str) -> list[str]:
    return [ln for ln in text.split("\n") if ln.startswith("|")]


def test_each_row_is_embedded_as_its_label_group_and_caption_without_figures():
    units = table_row_units(CASH_FLOWS, "Financial Statements")
    body = _rows(CASH_FLOWS)[2:]  # the group label, then the rows
    # The group label (no figure) and the row without a label get no vector of their own.
    assert [CASH_FLOWS[a:b] for a, b, _ in units] == body[1:4]
    assert [e for _, _, e in units] == [
        f"{label} (Cash flows from investing activities) — Consolidated Statements of Cash "
        "Flows · Financial Statements"
        for label in (
            "Purchases of marketable securities",
            "Acquisitions, net of cash acquired",
            "Net cash used in investing activities",
        )
    ]
    # The scale line under the caption is not what the table is about; no figure is embedded.
    assert not any("millions" in e or any(ch.isdigit() for ch in e) for _, _, e in units)
    # Without a caption, the header's first cell names the table when it holds words.
    bare = "| As of December 31 | 2024 |\n|---|---|\n| Long-term debt | 8,463 |"
    assert table_row_units(bare) == [
        (bare.rindex("| Long"), len(bare), "Long-term debt — As of December 31")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "no table here, only prose.",
        "|",
        "| |\n|---|",
        "|---|---|\n| | |",
        "| '; DROP TABLE sentences; -- | 1 |",
        "| \x00\ufffd | nan |\n" * 3,
        "| " + "x" * 100_000 + " | 1 |",
    ],
)
def test_odd_tables_give_rows_whose_offsets_stay_inside_the_text(text):
    for start, end, embedded in table_row_units(text, "context"):
        assert 0 <= start < end <= len(text)
        assert text[start:end].startswith("|") and embedded


def test_a_row_worded_unlike_the_question_wins_by_its_vector():
    units = table_row_units(CASH_FLOWS)
    spans = [(a, b) for a, b, _ in units]
    words_only = table_rows(CASH_FLOWS, QUERY, 1, "millions")
    assert words_only is not None
    assert words_only.rows[0][0] == "Purchases of marketable securities"  # "purchases", "cash"
    sims = {spans[0]: 0.2, spans[1]: 0.68, spans[2]: 0.3}
    picked = table_rows(CASH_FLOWS, QUERY, 1, "millions", True, sims, 4.0)
    assert picked is not None and picked.rows[0][0] == "Acquisitions, net of cash acquired"
    assert CASH_FLOWS[picked.start : picked.end] == _rows(CASH_FLOWS)[4]
    # Weight 0, no cosines, cosines of other offsets, negative or NaN ones: words alone.
    for similarity, weight in (
        (sims, 0.0),
        (None, 4.0),
        ({(0, 3): 0.9}, 4.0),
        ({s: -1.0 for s in spans}, 4.0),
        ({s: float("nan") for s in spans}, 4.0),
    ):
        assert table_rows(CASH_FLOWS, QUERY, 1, "millions", True, similarity, weight) == words_only
    # hit_passage passes the rows' cosines on at the row weight, not the prose one.
    shown = hit_passage(CASH_FLOWS, "table", QUERY, 400, 1, "millions", sims, 0.0, 4.0)
    assert shown == picked
    assert hit_passage(CASH_FLOWS, "table", QUERY, 400, 1, "millions", sims, 4.0, 0.0) == (
        words_only
    )


@pytest.mark.real_embeddings
def test_an_older_index_gets_its_table_rows_by_an_incremental_update(data_root):
    embedder = shared_embedder(SETTINGS)
    tables = sample.sample_tables()
    old = SETTINGS.model_copy(update={"table_row_vectors": False})
    first = update_index(data_root, tables.chunks, tables.filings, embedder, old)
    prose = tables.chunks.filter(pl.col("kind") != "table")
    assert first.embedded_sentences == sum(
        len(chunk_sentences(t)) for t in prose.get_column("text").to_list()
    )
    ref = read_current(data_root / SETTINGS.index_dir)
    assert ref is not None
    searcher = ChunkSearcher(ref, embedder, SETTINGS, Mentions())
    frame = index_input(tables.chunks, tables.filings)
    hits = {h.chunk_id: h for h in searcher.search("long-term debt", k=20)}
    table_hit = next(h for h in hits.values() if h.kind == "table")
    assert searcher.sentence_similarities("long-term debt", [table_hit.key]) == {}

    upgrade = update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    assert upgrade.embedded_chunks == 0  # no window is embedded again
    assert upgrade.ref.version == ref.version  # the chunk table is as it was
    table_frame = frame.filter(pl.col("kind") == "table")
    expected = {
        r["chunk_id"]: table_row_units(r["text"], section_title(r["section"]))
        for r in table_frame.iter_rows(named=True)
    }
    assert upgrade.embedded_sentences == sum(len(u) for u in expected.values()) > 0
    assert (  # a second run has nothing left to embed
        update_index(
            data_root, tables.chunks, tables.filings, embedder, SETTINGS
        ).embedded_sentences
        == 0
    )

    searcher = ChunkSearcher(upgrade.ref, embedder, SETTINGS, Mentions())
    query = "How much does the company owe in long-term borrowings?"
    sims = searcher.sentence_similarities(query, [table_hit.key])[table_hit.key]
    units = expected[table_hit.chunk_id]
    assert sorted(sims) == [(a, b) for a, b, _ in units]
    q = embedder.embed([query])[0]
    for a, b, embedded in units:
        assert math.isclose(sims[a, b], float(embedder.embed([embedded])[0] @ q), abs_tol=0.02)
    # The re-rank reads by chunk id and still gives tables the pool's mean: their rows are
    # stored without one.
    assert searcher.sentences is not None
    assert searcher.sentences.best_by_chunk(list(expected), q) == {}
    assert searcher.sentences.best_by_chunk([prose.get_column("chunk_id")[0]], q)


@pytest.mark.real_embeddings
def test_a_copied_index_is_recorded_where_it_now_lies(data_root, tmp_path):
    embedder = shared_embedder(SETTINGS)
    tables = sample.sample_tables()
    update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    copy = tmp_path / "copy"
    shutil.copytree(data_root, copy)
    moved = update_index(copy, tables.chunks, tables.filings, embedder, SETTINGS)
    assert moved.embedded_chunks == moved.embedded_sentences == 0
    assert moved.ref.path == str((copy / SETTINGS.index_dir).resolve())
    assert read_current(copy / SETTINGS.index_dir) == moved.ref
    # The original keeps naming its own folder.
    original = read_current(data_root / SETTINGS.index_dir)
    assert original is not None and original.path == str((data_root / SETTINGS.index_dir).resolve())


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -0.5, 1e9])
def test_hostile_row_weights_are_refused(value):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        RetrievalSettings(passage_row_vector_weight=value)


def test_row_vectors_change_nothing_of_a_table_they_do_not_match():
    """A cosine for every row the same: the word order stands (the vector only breaks what
    the words leave open)."""
    units = table_row_units(CASH_FLOWS)
    even = {(a, b): 0.4 for a, b, _ in units}
    words = table_rows(CASH_FLOWS, "net cash used in investing activities", 1, None)
    both = table_rows(CASH_FLOWS, "net cash used in investing activities", 1, None, True, even, 4.0)
    assert words is not None and both is not None
    assert (
        both.rows
        == words.rows
        == [["Net cash used in investing activities", "(10,262)", "(7,820)"]]
    )
