"""The chunk index and hybrid search with the real packaged model (all-MiniLM-L6-v2, offline)
on the sample snapshot's chunks; the embeddings-endpoint backend against a loopback server;
citation checks, sectors and answer caps as plain functions."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from graphrag_core.common.sectors import (
    SECTORS,
    SIC_RANGES,
    primary_sector,
    resolve_sector,
    sector_of_sic,
    vocabulary_clashes,
)
from graphrag_core.retrieval.chunk_index import (
    read_current,
    table_digest,
    update_index,
)
from graphrag_core.retrieval.citations import Evidence, check_answer, figures
from graphrag_core.retrieval.search import (
    ChunkSearcher,
    Filters,
    Mentions,
    SearchError,
    shared_embedder,
    text_terms,
)
from graphrag_core.retrieval.sections import heading, section_title
from graphrag_core.settings import RetrievalSettings
from tests import snapshot_sample as sample
from tests.openai_server import EMBEDDING_DIM, OpenAICompatibleServer

pytestmark = pytest.mark.real_embeddings

SETTINGS = RetrievalSettings(embed_backend="local")


@pytest.fixture(scope="module")
def embedder():
    return shared_embedder(SETTINGS)


@pytest.fixture
def tables():
    return sample.sample_tables()


def _searcher(root: Path, embedder, ref=None) -> ChunkSearcher:
    ref = ref or read_current(root / SETTINGS.index_dir)
    return ChunkSearcher(ref, embedder, SETTINGS, Mentions(tickers={"NVDA": "CIK-0001045810"}))


def test_index_is_incremental_and_versions_are_immutable(data_root, tables, embedder):
    first = update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    assert first.embedded_chunks == tables.chunks.height > 0
    assert first.ref.chunks == tables.chunks.height and first.ref.rows >= first.ref.chunks
    assert first.ref.model_id == embedder.model_id and first.ref.dimensions == 384

    again = update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    assert (again.embedded_chunks, again.deleted_chunks, again.changed) == (0, 0, False)
    assert again.ref.version == first.ref.version  # nothing changed: no new version

    # One chunk edited, one filing gone: only the edited chunk is embedded.
    edited = tables.chunks.with_columns(
        pl.when(pl.col("chunk_id") == sample.GOOGL_BIZ["chunk_id"])
        .then(pl.lit("Waymo offers paid robotaxi rides in several cities."))
        .otherwise(pl.col("text"))
        .alias("text"),
        pl.when(pl.col("chunk_id") == sample.GOOGL_BIZ["chunk_id"])
        .then(pl.lit("edited"))
        .otherwise(pl.col("sha256"))
        .alias("sha256"),
    )
    gone = sample.AAPL_IS["filing_id"]
    third = update_index(
        data_root, edited, tables.filings.filter(pl.col("filing_id") != gone), embedder, SETTINGS
    )
    aapl_chunks = tables.chunks.filter(pl.col("filing_id") == gone).height
    assert (third.embedded_chunks, third.deleted_chunks) == (1, 1 + aapl_chunks)
    assert third.ref.version > first.ref.version

    # The old version still reads as it was: a snapshot published with it stays consistent.
    old = _searcher(data_root, embedder, first.ref)
    new = _searcher(data_root, embedder, third.ref)
    assert any(h.filing_id == gone for h in old.search("Apple net sales", k=20))
    assert not any(h.filing_id == gone for h in new.search("Apple net sales", k=20))
    assert new.search("self-driving taxi service", k=1)[0].chunk_id == sample.GOOGL_BIZ["chunk_id"]


def test_long_chunks_are_embedded_in_windows(data_root, tables, embedder):
    long_text = " ".join(
        f"Sentence {i} about data center demand for accelerated computing." for i in range(120)
    )
    chunks = tables.chunks.with_columns(
        pl.when(pl.col("chunk_id") == sample.NVDA_RISK["chunk_id"])
        .then(pl.lit(long_text + " Export restrictions on shipments to China could hurt sales."))
        .otherwise(pl.col("text"))
        .alias("text")
    )
    update = update_index(data_root, chunks, tables.filings, embedder, SETTINGS)
    assert update.ref.rows > update.ref.chunks  # the long chunk has several windows
    hit = _searcher(data_root, embedder).search("export restrictions China", k=1)[0]
    # Found by its last window, far past the model's 256 word pieces.
    assert hit.chunk_id == sample.NVDA_RISK["chunk_id"] and "Export restrictions" in hit.window_text
    hit = _searcher(data_root, embedder).search("export restrictions China", k=1, mode="text")[0]
    assert hit.chunk_id == sample.NVDA_RISK["chunk_id"] and "Export restrictions" in hit.window_text


def test_search_modes_filters_and_mentions(data_root, tables, embedder):
    update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    searcher = _searcher(data_root, embedder)
    risk = sample.NVDA_RISK["chunk_id"]
    for mode in ("vector", "text", "hybrid"):
        hits = searcher.search("rapid changes in technology risk", k=3, mode=mode)
        assert risk in [h.chunk_id for h in hits], mode
    hit = searcher.search("risks NVDA faces", k=1)[0]
    assert hit.chunk_id == risk and hit.matched_company
    googl = searcher.search("revenue", Filters(company_ids=("CIK-0001652044",)), k=10)
    assert googl and {h.company_id for h in googl} == {"CIK-0001652044"}
    assert {h.form for h in searcher.search("revenue", Filters(form="10-Q"), k=10)} == {"10-Q"}
    in_item_1a = searcher.search("technology", Filters(section="Risk Factors"), k=10)
    assert [h.chunk_id for h in in_item_1a] == [risk]
    assert searcher.search("revenue", Filters(section="Item 1A"), k=10)[0].chunk_id == risk
    fy = searcher.search("revenue", Filters(period="FY2025", company_ids=("CIK-0001045810",)), k=10)
    assert fy and {h.fiscal_year for h in fy} == {2025}
    with pytest.raises(SearchError, match="expected FY2024"):
        searcher.search("revenue", Filters(period="last year"))
    with pytest.raises(SearchError, match="section"):
        searcher.search("revenue", Filters(section="x'; DROP TABLE chunks; --"))


def test_a_table_is_one_row_found_by_its_figures_and_by_its_digest(data_root, tables, embedder):
    import lancedb

    update = update_index(data_root, tables.chunks, tables.filings, embedder, SETTINGS)
    table = lancedb.connect(update.ref.path).open_table(update.ref.table)
    income = sample.NVDA_IS["chunk_id"]
    rows = (
        table.search()
        .where(f"chunk_id = '{income}'")
        .select(["windows", "char_end", "text"])
        .to_list()
    )
    assert (
        len(rows) == 1
        and rows[0]["windows"] == 1
        and rows[0]["char_end"] == len(sample.NVDA_IS["text"])
    )
    assert "130,497" in rows[0]["text"]  # the whole table is its full-text document
    searcher = _searcher(data_root, embedder)
    assert (
        searcher.search("130,497", k=1, mode="text")[0].chunk_id == income
    )  # a figure, word for word
    # What the table is about, by the vector of its digest (its figures are not embedded).
    hits = searcher.search("NVIDIA gross profit and operating income", k=3, mode="vector")
    assert income in [h.chunk_id for h in hits]
    assert "Gross profit | 97,858" in next(h for h in hits if h.chunk_id == income).window_text


def test_table_digest_keeps_words_and_drops_figures():
    digest = table_digest(sample.NVDA_IS["text"])
    assert digest.splitlines()[:2] == [
        "NVIDIA Corporation and Subsidiaries",
        "Consolidated Statements of Income",
    ]
    assert "Gross profit" in digest and "Jan 26, 2025 · Jan 28, 2024" in digest
    assert not any(figure in digest for figure in ("130,497", "97,858", "$"))


def test_full_text_query_leaves_out_the_named_company_but_not_its_segments():
    mentions = Mentions(
        aliases={"nvidia": "CIK-1", "meta platforms": "CIK-2", "reality labs": "CIK-2"},
        tickers={"NVDA": "CIK-1"},
        topics={"reality labs"},
    )
    query = "What did NVIDIA's (NVDA) filings say about export controls?"
    assert mentions.find(query) == ("CIK-1",)
    assert text_terms(query) == ["nvidia", "nvda", "export", "controls"]
    assert text_terms(query, mentions.name_words(query, ("CIK-1",))) == ["export", "controls"]
    query = "How much did Meta Platforms spend on Reality Labs?"
    assert mentions.find(query) == ("CIK-2",)
    assert text_terms(query, mentions.name_words(query, ("CIK-2",))) == [
        "much",
        "spend",
        "reality",
        "labs",
    ]


def test_embeddings_endpoint_backend(data_root, tables):
    with OpenAICompatibleServer() as server:
        settings = RetrievalSettings(
            embed_backend="openai",
            embed_base_url=server.base_url,
            embed_model="hashed",
            index_dir="chunk_index_remote",
        )
        remote = shared_embedder(settings)
        update = update_index(data_root, tables.chunks, tables.filings, remote, settings)
        assert update.ref.model_id == "openai:hashed" and update.ref.dimensions == EMBEDDING_DIM
        searcher = ChunkSearcher(update.ref, remote, settings)
        assert (
            searcher.search("rapid changes in technology", k=1)[0].chunk_id
            == sample.NVDA_RISK["chunk_id"]
        )
        assert any(r.get("input") for r in server.requests)
    # An index is read only with the model that built it.
    with pytest.raises(SearchError, match="built with openai:hashed"):
        ChunkSearcher(update.ref, shared_embedder(SETTINGS), SETTINGS)


def test_section_titles_and_headings():
    assert section_title("10-K/Item 1A") == "Risk Factors"
    assert section_title("10-Q/Part II/Item 1A") == "Risk Factors"
    assert section_title("8-K/Item 2.02") == "Results of Operations and Financial Condition"
    assert section_title("8-K/Exhibit 99.1") == "Press Release"
    assert section_title("10-K/Item 99Z") == "Item 99Z"
    assert heading("NVIDIA Corp", "10-K", "10-K/Item 7", "table").startswith(
        "NVIDIA Corp · 10-K · Management"
    )


def test_citation_checks_are_literal():
    evidence = {
        "3": Evidence(
            "[3]", "Revenue | $ 130,497 | $ 60,922", "(In millions, except per share data)"
        ),
        "4": Evidence("[4]", "Revenue grew 114% from a year ago."),
    }
    answer = (
        "NVIDIA's revenue was $130.5 billion in fiscal 2025 [3]. It grew 114% [4]. "
        "Data center revenue was $115.2 billion. Margins were 75.0% [9]. "
        "Revenue was $131.9 billion [3]. NVIDIA faces export controls. The 10-K's Item 7 "
        "explains it [4]."
    )
    report = check_answer(answer, evidence.get, {"nvidia": "NVIDIA Corp"})
    assert not report.ok and report.sentences == 7
    assert [u["citation"] for u in report.unresolved] == ["9"]
    assert [u["figures"] for u in report.uncited] == [["$115.2 billion"], []]
    assert report.uncited[1]["companies"] == ["NVIDIA Corp"]
    assert [(u["figure"], u["citations"]) for u in report.unsupported] == [
        ("$131.9 billion", ["[3]"])
    ]
    assert check_answer("Revenue was $130,497 million [3].", evidence.get).ok
    assert [
        f.text for f in figures("In 2024 the 10-K Item 7A named 3 risks; EPS was $2.94, up 5.1%.")
    ] == ["$2.94", "5.1%"]


def test_sectors_from_sic():
    assert sector_of_sic("3674") == "Information Technology"  # semiconductors
    assert sector_of_sic("2834") == "Health Care"  # pharmaceutical preparations
    assert sector_of_sic("6021") == "Financials"
    assert sector_of_sic("6798") == "Real Estate"  # REITs, inside the 6700s
    assert sector_of_sic("1311") == "Energy"  # inside mining's 1000-1499
    assert sector_of_sic("9995") == "Other" and sector_of_sic(None) is None
    assert sector_of_sic("6324") == "Health Care"  # health insurers, inside Financials' 6000s
    assert primary_sector("3674") == "semiconductors" and primary_sector("4911") == "Utilities"
    assert primary_sector(None) is None


KNOWN = [
    ("3674", "SEMICONDUCTORS & RELATED DEVICES"),
    ("6021", "NATIONAL COMMERCIAL BANKS"),
    ("6324", "HOSPITAL & MEDICAL SERVICE PLANS"),
    ("7372", "SERVICES-PREPACKAGED SOFTWARE"),
    ("2080", "BEVERAGES"),
]


@pytest.mark.parametrize(
    ("text", "named", "grain", "codes"),
    [
        # the sectors and their words
        ("Information Technology", "Information Technology", "sector", ("3674", "7372")),
        ("tech", "Information Technology", "sector", ("3674", "7372")),
        ("IT", "Information Technology", "sector", ("3674", "7372")),
        ("healthcare", "Health Care", "sector", ("6324",)),
        ("Health-Care", "Health Care", "sector", ("6324",)),
        ("financials", "Financials", "sector", ("6021",)),
        ("Utilities", "Utilities", "sector", ()),  # named, but no company of it here
        # the finer industries and their words
        ("semiconductors", "semiconductors", "industry", ("3674",)),
        ("Chip makers", "semiconductors", "industry", ("3674",)),
        ("banks", "banks", "industry", ("6021",)),
        ("software", "software", "industry", ("7372",)),
        # a SIC code, named by its finest name
        (" 3674 ", "semiconductors", "sic", ("3674",)),
        ("9995", "Other", "sic", ()),
        # SEC's descriptions, word by word
        ("commercial banks", None, "description", ("6021",)),
        ("medical service", None, "description", ("6324",)),
        # nothing
        ("shipbuilding", None, "none", ()),
        ("", None, "none", ()),
        ("   ", None, "none", ()),
        ("the", None, "none", ()),
        ("nan", None, "none", ()),
        ("-inf", None, "none", ()),
        ("../../etc/passwd", None, "none", ()),
        ("'; DROP TABLE companies; --", None, "none", ()),
    ],
)
def test_one_resolver_reads_sectors_and_industries_alike(text, named, grain, codes):
    match = resolve_sector(text, KNOWN)
    assert (match.sector, match.grain, match.sic_codes) == (named, grain, codes)


def test_the_sector_vocabulary_is_unambiguous():
    """No word names two sectors or industries, and every sector has a range or is Other."""
    assert vocabulary_clashes() == []
    assert {s for s in SECTORS if s != "Other"} == {sector_of_sic(lo) for lo, _, _ in SIC_RANGES}
    # Odd codes in the snapshot (blank, non-numeric, None) are skipped, not matched.
    odd = [(None, "X"), ("", "Y"), ("abc", "SEMICONDUCTORS"), ("3674", None)]
    assert resolve_sector("semiconductors", odd).sic_codes == ("3674",)
