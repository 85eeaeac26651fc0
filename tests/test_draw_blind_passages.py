"""The second blind split's draw (bench/_draw_blind_passages.py): its cue families, its caps and
its spread over companies, its reproducibility, and the annotator files' fields (issue 22). The
draw itself reads corpora the test suite does not have; its pure parts are tried here."""

from __future__ import annotations

import random

from bench._draw_blind_passages import ANNOTATOR_FIELDS, annotator_line, cue_families, draw


def test_cue_families_read_the_issue_cues():
    assert cue_families("We compete with Globex and other rivals.") == ["compete"]
    assert cue_families("Foxconn is our contract manufacturer.") == ["supplies"]
    assert cue_families("Our bottlers and distributors buy concentrate.") == ["customer"]
    assert cue_families("Initech, our wholly-owned subsidiary, was acquired in 2020.") == [
        "subsidiary"
    ]
    # expect* counts as guidance only with an amount in the same sentence.
    assert cue_families("We expect capital expenditures of $2.1 billion in 2025.") == ["guides"]
    assert cue_families("We expect growth. Revenue was $5 billion.") == []
    assert cue_families("Our outlook is unchanged.") == ["guides"]
    assert cue_families("") == [] and cue_families("Net sales rose 5% in the quarter.") == []


def _pool() -> list[dict]:
    pool = []
    for company, n_cue, n_plain in (("1", 20, 5), ("2", 3, 5), ("3", 0, 5)):
        for k in range(n_cue):
            cues = [("supplies", "compete", "guides")[k % 3]]
            pool.append({"chunk_id": f"{company}-c{k}", "cik": company, "cues": cues})
        for k in range(n_plain):
            pool.append({"chunk_id": f"{company}-p{k}", "cik": company, "cues": []})
    return pool


def test_draw_caps_each_company_spreads_picks_and_is_reproducible():
    chosen = draw(_pool(), random.Random(7), total=12, per_company=6)
    ids = [c["chunk_id"] for c in chosen]
    assert len(ids) == 12 and len(set(ids)) == 12
    per = {cik: sum(1 for c in chosen if c["cik"] == cik) for cik in "123"}
    # Company 1 has most of the cue chunks but the cap and the spread keep it from taking all.
    assert per["1"] <= 6 and per["2"] >= 3 and per["3"] >= 1
    # Every cue chunk company 2 has is drawn before any chunk without a cue fills the rest.
    assert {c["chunk_id"] for c in chosen if c["cik"] == "2" and c["cues"]} == {
        "2-c0",
        "2-c1",
        "2-c2",
    }
    assert [c["chunk_id"] for c in draw(_pool(), random.Random(7), 12, 6)] == ids
    assert [c["chunk_id"] for c in draw(_pool(), random.Random(8), 12, 6)] != ids


def test_draw_stops_when_the_pool_is_spent():
    assert draw([], random.Random(1), total=5, per_company=2) == []
    small = _pool()[:3]  # three cue chunks of one company
    assert len(draw(small, random.Random(1), total=10, per_company=2)) == 2


def test_an_annotator_line_has_only_the_fields_the_guide_names():
    passage = {
        "passage_id": "Q001",
        "company": "Acme Corp",
        "ticker": None,
        "form": "10-K",
        "section": "10-K/Item 1A",
        "preceding_heading": "Risks related to our business",
        "heading_texts": ["We depend on a few suppliers"],
        "text": "We depend on a few suppliers. Foxconn makes our devices.",
        "chunk_id": "secret",
        "cues": ["supplies"],
        "group": "extra",
    }
    line = annotator_line(passage)
    assert set(line) == {*ANNOTATOR_FIELDS, "heading_above", "headings", "text"}
    assert line["heading_above"] == "Risks related to our business"
    assert line["headings"] == ["We depend on a few suppliers"]
