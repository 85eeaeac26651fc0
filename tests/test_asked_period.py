"""A question's period and form, and the bonus search gives the filings of them (issue 24, item
1): a company's 10-K and its 10-Q say much the same, and the period the question names is what
tells them apart. Parsing and matching are pure; the bonus is checked on a real index (LanceDB, the
packaged MiniLM) with one passage filed in both of NVIDIA's sample filings."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from graphrag_core.retrieval.asked_period import AskedPeriod, asked_period

TEN_K = ("10-K", 2025, "FY", dt.date(2025, 1, 26))  # NVIDIA's fiscal 2025
TEN_Q = ("10-Q", 2026, "Q2", dt.date(2025, 7, 27))  # its second quarter of fiscal 2026
APPLE_Q3 = ("10-Q", 2024, "Q3", dt.date(2024, 6, 29))
RELEASE = ("8-K", None, None, dt.date(2024, 11, 14))


@pytest.mark.parametrize(
    ("question", "matching", "not_matching"),
    [
        ("What were NVIDIA's stakes worth at the end of July 2025?", [TEN_Q], [TEN_K]),
        ("How much deferred revenue did it carry at mid-2025?", [], [TEN_K, APPLE_Q3]),
        ("How much did NVIDIA charge to R&D in fiscal 2025?", [TEN_K], [TEN_Q]),
        ("What were sales in the third fiscal quarter of 2024?", [APPLE_Q3], [TEN_K, TEN_Q]),
        ("What was the balance as of July 27, 2025?", [TEN_Q], [TEN_K]),
        ("How much revenue came from credits in 2024?", [APPLE_Q3, RELEASE], [TEN_K, TEN_Q]),
        ("What did its 10-Q say about tariffs?", [TEN_Q, APPLE_Q3], [TEN_K, RELEASE]),
        ("What did the earnings release for 2024 say?", [RELEASE], [APPLE_Q3, TEN_K]),
        ("What did the 10-Q for the quarter ended June 29, 2024 show?", [APPLE_Q3], [TEN_Q]),
    ],
)
def test_a_question_names_the_filings_of_its_period(question, matching, not_matching):
    asked = asked_period(question)
    assert asked
    for filing in matching:
        assert asked.matches(*filing), filing
    for filing in not_matching:
        assert not asked.matches(*filing), filing


def test_mid_year_is_june():
    asked = asked_period("How much did it carry at mid-2025?")
    assert asked.months == ((2025, 6),)
    assert asked.matches("10-Q", 2025, "Q2", dt.date(2025, 6, 30))
    assert not asked.matches("10-K", 2024, "FY", dt.date(2024, 12, 31))


def test_a_month_year_is_not_read_again_as_the_whole_year():
    asked = asked_period("at the end of June 2025")
    assert asked.months == ((2025, 6),) and asked.periods == ()
    # a 10-K ending in December 2025 is of the same year but not of June
    assert not asked.matches("10-K", 2025, "FY", dt.date(2025, 12, 31))


@pytest.mark.parametrize(
    "question",
    [
        "",
        "Who supplies NVIDIA?",
        "How much cash is $2,024 million?",  # a figure, not a year
        "'; DROP TABLE chunks; -- OR 1=1",
        "\x00\u202e\ufeff🙂 ../../etc/passwd",
        "NaN inf -inf 1e309",
    ],
)
def test_no_period_no_bonus(question):
    asked = asked_period(question)
    assert not asked and asked == AskedPeriod()
    assert not asked.matches(*TEN_K)


def test_odd_filings_and_long_questions():
    asked = asked_period("in fiscal 2025 " * 50_000)  # read within its first 1,000 characters
    assert asked.periods and len(asked.periods) < 100
    # a filing without period or form matches nothing
    assert not asked.matches(None, None, None, None)
    assert not asked_period("in its 10-Q").matches(None, None, None, None)
    assert not asked_period("at the end of June 2025").matches("10-Q", None, None, None)


PASSAGE = (
    "Non-marketable equity securities held by the company were carried at fair value with "
    "adjustments recorded in other income, and the balance of these private investments grew."
)


@pytest.mark.real_embeddings
def test_the_filing_of_the_named_period_gets_the_bonus(tmp_path):
    from graphrag_core.retrieval.chunk_index import read_current, update_index
    from graphrag_core.retrieval.search import ChunkSearcher, Mentions, Weights, shared_embedder
    from graphrag_core.settings import RetrievalSettings
    from tests import snapshot_sample as sample

    settings = RetrievalSettings(embed_backend="local")
    tables = sample.sample_tables()
    chunks = tables.chunks
    base = chunks.filter(pl.col("chunk_id") == sample.NVDA_IS["chunk_id"]).row(0, named=True)
    nvda = tables.filings.filter(pl.col("ticker") == "NVDA")
    by_form = {r["form"]: r["filing_id"] for r in nvda.iter_rows(named=True)}
    ids = {"10-K": "c3c3c3c3c3c3c3c3c3c3c3c3", "10-Q": "d4d4d4d4d4d4d4d4d4d4d4d4"}
    added = pl.DataFrame(
        [
            {**base, "chunk_id": ids[form], "filing_id": by_form[form], "kind": "prose",
             "section": f"{form}/Item 7" if form == "10-K" else "10-Q/Part I/Item 2",
             "text": PASSAGE, "char_end": len(PASSAGE), "scale_header": None, "ordinal": 95}
            for form in ("10-K", "10-Q")
        ],
        schema=chunks.schema,
    )  # fmt: skip
    update_index(
        tmp_path, pl.concat([chunks, added]), tables.filings, shared_embedder(settings), settings
    )
    searcher = ChunkSearcher(
        read_current(tmp_path / settings.index_dir),
        shared_embedder(settings),
        settings,
        Mentions(tickers={"NVDA": "CIK-0001045810"}),
    )

    def scores(question: str, route: float) -> dict[str, float]:
        hits = searcher.search(question, k=20, weights=Weights(period=route, learned=False))
        return {h.chunk_id: h.score for h in hits if h.chunk_id in ids.values()}

    for question, named in (
        ("What were NVDA's private investments worth at the end of July 2025?", "10-Q"),
        ("What were NVDA's private investments worth at the end of fiscal 2025?", "10-K"),
    ):
        off, on = scores(question, 0.0), scores(question, 0.005)
        assert set(off) == set(on) == set(ids.values())
        other = "10-K" if named == "10-Q" else "10-Q"
        # the named filing's passage gains exactly the bonus, the other one nothing
        assert on[ids[named]] - off[ids[named]] == pytest.approx(0.005)
        assert on[ids[other]] == pytest.approx(off[ids[other]])
        assert on[ids[named]] > on[ids[other]]
    # a question without a period or form leaves every score as it was
    question = "What were NVDA's private investments worth?"
    assert scores(question, 0.0) == pytest.approx(scores(question, 0.005))
