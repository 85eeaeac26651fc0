"""Chunks: token budget, spans, sentence boundaries, overlap, table split, stable ids."""

import polars as pl
import pytest

from graphrag_core.settings import ChunkingSettings
from graphrag_core.text.chunking import chunk_id, chunk_section, count_tokens
from graphrag_core.text.parsing import parse_markup
from graphrag_core.text.sections import detect_sections
from graphrag_core.text.sentences import sentence_spans

SENTENCE = "Our revenue from data center customers increased substantially during the fiscal year. "


def _chunks(
    html: str,
    settings: ChunkingSettings,
    form: str = "10-K",
    filing_id: str = "0000000000-25-000001",
):
    doc = parse_markup(html, is_html=True)
    sections, _ = detect_sections(doc.blocks, form)
    rows = []
    for section in sections:
        rows.extend(chunk_section(doc.blocks, section, filing_id, form, doc.text, settings))
    return doc, rows


def test_sentence_spans_respect_abbreviations_and_decimals():
    text = "Apple Inc. sold 3.5 million units in the U.S. last year. Revenue rose 12%. See Note 4."
    spans = [text[s:e] for s, e in sentence_spans(text)]
    assert spans == [
        "Apple Inc. sold 3.5 million units in the U.S. last year.",
        "Revenue rose 12%.",
        "See Note 4.",
    ]


def test_prose_respects_budget_paragraphs_and_spans():
    paragraphs = "".join(f"<p>{SENTENCE * 6}</p>" for _ in range(12))
    html = (
        f"<html><body><p>Item 7. Management's Discussion and Analysis</p>{paragraphs}</body></html>"
    )
    settings = ChunkingSettings(max_tokens=200)
    doc, rows = _chunks(html, settings)
    assert len(rows) > 5
    for r in rows:
        assert r["token_count"] <= 200
        assert doc.text[r["char_start"] : r["char_end"]] == r["text"]
        # cut at sentence boundaries: every chunk ends a sentence
        assert r["text"].rstrip().endswith(".")
    # chunks tile the section without gaps or overlap (overlap is off)
    for a, b in zip(rows, rows[1:], strict=False):
        assert a["char_end"] <= b["char_start"]
        assert doc.text[a["char_end"] : b["char_start"]].strip() == ""


def test_a_paragraph_longer_than_the_budget_is_cut_between_sentences():
    html = f"<html><body><p>Item 1A. Risk Factors</p><p>{SENTENCE * 40}</p></body></html>"
    _, rows = _chunks(html, ChunkingSettings(max_tokens=100))
    assert len(rows) >= 6
    assert all(r["text"].endswith("year.") for r in rows)


def test_overlap_repeats_trailing_sentences():
    html = (
        "<html><body><p>Item 1A. Risk "
        "Factors</p><p>"
        f"{' '.join(f'Sentence number {i} talks about risk.' for i in range(60))}"
        "</p></body></html>"
    )
    _, plain = _chunks(html, ChunkingSettings(max_tokens=80))
    _, overlapping = _chunks(html, ChunkingSettings(max_tokens=80, overlap_tokens=20))
    assert len(overlapping) > len(plain)
    for a, b in zip(overlapping, overlapping[1:], strict=False):
        assert b["char_start"] < a["char_end"], "consecutive chunks should share trailing sentences"


def test_chunks_never_cross_sections():
    body = "".join(
        f"<p>Item {item}. {title}</p>" + f"<p>{SENTENCE * 3}</p>" * 3
        for item, title in [
            ("1", "Business"),
            ("1A", "Risk Factors"),
            ("7", "Management's Discussion and Analysis"),
        ]
    )
    doc, rows = _chunks(f"<html><body>{body}</body></html>", ChunkingSettings(max_tokens=2000))
    sections, _ = detect_sections(doc.blocks, "10-K")
    bounds = {s.label: (doc.blocks[s.first].start, doc.blocks[s.last - 1].end) for s in sections}
    for r in rows:
        lo, hi = bounds[r["section"]]
        assert lo <= r["char_start"] and r["char_end"] <= hi
    assert {r["section"] for r in rows} == {"10-K/Item 1", "10-K/Item 1A", "10-K/Item 7"}


TABLE = """<p>Item 8. Financial Statements and Supplementary Data</p>
<p>Some introductory sentence about the statements that follow in this section.</p>
<p>Consolidated Balance Sheets</p><p>(In millions)</p>
<table><tr><td></td><td>2025</td><td>2024</td></tr>{rows}</table>"""


def test_table_is_one_chunk_with_caption_and_scale_header():
    rows = "".join(
        f"<tr><td>Line item {i}</td><td>{i * 10:,}</td><td>{i * 9:,}</td></tr>" for i in range(1, 8)
    )
    doc, chunks = _chunks(
        f"<html><body>{TABLE.format(rows=rows)}</body></html>", ChunkingSettings()
    )
    tables = [c for c in chunks if c["kind"] == "table"]
    assert len(tables) == 1
    t = tables[0]
    assert t["scale_header"] == "in millions"
    assert t["text"].startswith("Consolidated Balance Sheets\n\n(In millions)\n\n| ")
    assert doc.text[t["char_start"] : t["char_end"]] == t["text"]
    prose = [c for c in chunks if c["kind"] == "prose"]
    assert all("Consolidated Balance Sheets" not in c["text"] for c in prose)


def test_huge_table_is_split_by_row_groups_repeating_the_header():
    rows = "".join(
        f"<tr><td>Line item number {i}</td><td>{i * 10:,}</td><td>{i * 9:,}</td></tr>"
        for i in range(1, 400)
    )
    doc, chunks = _chunks(
        f"<html><body>{TABLE.format(rows=rows)}</body></html>",
        ChunkingSettings(table_max_tokens=300),
    )
    parts = [c for c in chunks if c["kind"] == "table"]
    assert len(parts) > 5
    header = "|  | 2025 | 2024 |\n|---|---|---|"
    for p in parts:
        assert header in p["text"]
        assert (
            p["token_count"] <= 300 + count_tokens("Consolidated Balance Sheets (In millions)") + 5
        )
        assert p["scale_header"] == "in millions"
    body_lines = [ln for p in parts for ln in p["text"].split("\n") if ln.startswith("| Line item")]
    assert len(body_lines) == 399 and len(set(body_lines)) == 399  # every row exactly once
    for p in parts[1:]:  # a continuation's span covers its own rows
        assert doc.text[p["char_start"] : p["char_end"]] in p["text"]


def test_chunk_ids_are_deterministic_and_distinct_across_filings():
    html = f"<html><body><p>Item 1. Business</p><p>{SENTENCE * 30}</p></body></html>"
    _, a = _chunks(html, ChunkingSettings(max_tokens=100))
    _, b = _chunks(html, ChunkingSettings(max_tokens=100))
    _, c = _chunks(html, ChunkingSettings(max_tokens=100), filing_id="0000000000-25-000002")
    assert [r["chunk_id"] for r in a] == [r["chunk_id"] for r in b]
    assert not {r["chunk_id"] for r in a} & {r["chunk_id"] for r in c}
    assert len({r["chunk_id"] for r in a}) == len(a)
    assert chunk_id("f", "10-K/Item 1", 0, "x") != chunk_id("f", "10-K/Item 1", 0, "y")


def test_rows_fit_the_chunks_schema():
    from graphrag_core.tables import schemas as tables

    _, rows = _chunks(
        f"<html><body><p>Item 1. Business</p><p>{SENTENCE}</p></body></html>", ChunkingSettings()
    )
    frame = tables.frame(rows, tables.CHUNKS)
    assert frame.schema == pl.Schema(tables.CHUNKS)


@pytest.mark.parametrize("max_tokens", [128, 512])
def test_corpus_filing_chunks_tile_their_text(corpus_dir, data_root, max_tokens):
    from graphrag_core.intake.local_folder import LocalFolderSource
    from graphrag_core.intake.raw_filing import ingest_filing
    from graphrag_core.tables.table_store import TableStore
    from graphrag_core.text.filing_chunks import chunk_filing

    source = LocalFolderSource(corpus_dir)
    ref = next(r for r in source.discover() if r.filing_id == "0001045810-25-000023")
    store = TableStore(data_root)
    raw = ingest_filing(ref, source.fetch(ref), store)
    out = chunk_filing(raw.meta, raw.documents, store, ChunkingSettings(max_tokens=max_tokens))
    text = store.read_text(ref.filing_id)
    prose = out.chunks.filter(pl.col("kind") == "prose")
    assert prose["token_count"].max() <= max_tokens
    for r in prose.iter_rows(named=True):
        assert text[r["char_start"] : r["char_end"]] == r["text"]
    ix = out.chunks.filter(pl.col("kind") == "table")["ix_ids"].explode().drop_nulls()
    assert ix.n_unique() > 500  # the statements' facts are attributed to their tables


def test_a_list_stays_with_its_lead_in():
    filler = f"<p>{SENTENCE * 4}</p>" * 3
    bullets = "".join(
        f"<p>• competitor number {k} that designs chips, systems and software for data centers;</p>"
        for k in range(6)
    )
    html = (
        f"<html><body><p>Item 1. Business</p>{filler}<p>Our current competitors "
        f"include:</p>{bullets}<p>{SENTENCE}</p></body></html>"
    )
    _, rows = _chunks(html, ChunkingSettings(max_tokens=260))
    holder = [r for r in rows if "Our current competitors include:" in r["text"]]
    assert len(holder) == 1
    assert all(f"competitor number {k}" in holder[0]["text"] for k in range(6))


def test_corpus_nvidia_competitor_list_keeps_its_lead_in(corpus_dir, data_root):
    from graphrag_core.intake.local_folder import LocalFolderSource
    from graphrag_core.intake.raw_filing import ingest_filing
    from graphrag_core.tables.table_store import TableStore
    from graphrag_core.text.filing_chunks import chunk_filing

    source = LocalFolderSource(corpus_dir)
    ref = next(r for r in source.discover() if r.filing_id == "0001045810-25-000023")
    store = TableStore(data_root)
    raw = ingest_filing(ref, source.fetch(ref), store)
    chunks = chunk_filing(raw.meta, raw.documents, store).chunks
    holder = chunks.filter(pl.col("text").str.contains("Our current competitors include:"))
    assert holder.height == 1
    text = holder["text"][0]
    for name in ("Broadcom", "Qualcomm", "Cisco", "Arista", "Marvell"):
        assert name in text, name
