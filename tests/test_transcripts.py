"""Earnings-call transcripts: turns in prepared remarks, each Q&A exchange in one chunk."""

import pytest

from graphrag_core.settings import ChunkingSettings
from graphrag_core.text.documents import decode_document
from graphrag_core.text.parsing import parse_markup
from graphrag_core.text.transcripts import (
    PREPARED,
    QA,
    chunk_transcript,
    looks_like_transcript,
    parse_turns,
    transcript_meta,
)
from tests.conftest import FIXTURES

FIXTURE_FILES = ["northwind_q2_fy2026.txt", "northwind_q2_fy2026.html"]


def _load(name: str):
    path = FIXTURES / "transcripts" / name
    decoded = decode_document(path.read_bytes(), str(path))
    return parse_markup(decoded.markup, decoded.is_html)


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_roles_and_qa_start(name):
    doc = _load(name)
    structure = parse_turns(doc.blocks)
    roles = {t.speaker: t.role for t in structure.turns}
    assert roles["Operator"] == "operator"
    assert roles["Tomas Ehrlich"] == roles["Lena Park"] == roles["Owen Castillo"] == "analyst"
    assert roles["Marcus Oyelaran"] == roles["Priya Raman"] == "executive"
    prepared = [t.speaker for t in structure.turns if not t.in_qa]
    assert prepared == ["Operator", "Dana Whitfield", "Marcus Oyelaran", "Priya Raman"]


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_each_question_stays_with_its_answers(name):
    doc = _load(name)
    rows, warnings = chunk_transcript(
        doc.blocks, "sha-0123456789abcdef", "TRANSCRIPT", doc.text, ChunkingSettings()
    )
    assert not warnings
    qa = [r for r in rows if r["kind"] == "qa"]
    assert len(qa) == 3  # one exchange per analyst
    first = qa[0]["text"]
    # question, both answers, the same analyst's follow-up and its answer: one chunk
    assert "how much of the data center growth came from the two hyperscale customers" in first
    assert "accounted for 31% of revenue" in first
    assert "inventory purchase obligations rose to $2.1 billion" in first
    assert "pressure from Broadcom" in first and "We compete with Broadcom and Marvell" in first
    assert "Lena Park" not in first  # the next exchange starts a new chunk
    assert (
        "walk us through the gross margin outlook" in qa[1]["text"]
        and "not guiding beyond" in qa[1]["text"]
    )
    assert "export restrictions" in qa[2]["text"] and "roughly 9% of our revenue" in qa[2]["text"]
    for r in rows:
        assert doc.text[r["char_start"] : r["char_end"]] == r["text"]
        assert r["section"] in {PREPARED, QA}
    prepared = [r for r in rows if r["section"] == PREPARED]
    assert any(
        r["text"].startswith("Priya Raman") and "we expect revenue of $1.95 billion" in r["text"]
        for r in prepared
    )
    # the closing remarks are turns in the Q&A section, not a question
    assert any(
        r["kind"] == "turn" and "Thank you all for joining us" in r["text"]
        for r in rows
        if r["section"] == QA
    )


def test_detection_and_meta():
    doc = _load("northwind_q2_fy2026.txt")
    assert looks_like_transcript(doc.text)
    meta = transcript_meta(doc.blocks)
    assert (
        meta["ticker"] == "NWSC" and meta["fiscal_period"] == "Q2" and meta["fiscal_year"] == 2026
    )
    assert str(meta["call_date"]) == "2026-08-20"
    ten_k = parse_markup("<html><body><p>FORM 10-K</p><p>Item 1. Business</p></body></html>", True)
    assert not looks_like_transcript(ten_k.text)


def test_transcript_without_speakers_falls_back_to_prose_with_a_warning():
    doc = parse_markup("Quarterly call notes.\n\nRevenue was up. Margins were down.", is_html=False)
    rows, warnings = chunk_transcript(
        doc.blocks, "sha-x", "TRANSCRIPT", doc.text, ChunkingSettings()
    )
    assert rows and all(r["kind"] == "turn" for r in rows)
    assert warnings and "no speaker lines" in warnings[0]
