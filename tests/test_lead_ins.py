"""Lists whose lead-in ended an earlier chunk of the section (issue 22): the chunk is read as
continuing the list, the grounding gate lets the lead-in name the filer, and the evidence stays a
verbatim span of the chunk that names the parties."""

from __future__ import annotations

import json

import polars as pl
import pytest

from graphrag_core.extraction.backends import RulesBackend
from graphrag_core.extraction.batch import chunk_inputs
from graphrag_core.extraction.gates import Candidate, ChunkContext, Reason, judge
from graphrag_core.extraction.gazetteer import enumerated_names
from graphrag_core.extraction.lead_ins import lead_ins, open_at_end
from graphrag_core.extraction.triples import CandidateTriple
from graphrag_core.extraction.validated_triples import validate_extractions
from graphrag_core.tables.schemas import EXTRACTIONS, frame
from tests.extraction_inputs import FILER, filer_chunk, section_chunks

LEAD = "Our network competitors principally include:"
OPENING = (
    "We compete against all forms of payment. " + LEAD + "\n\n"
    "Global Networks: These networks offer branded card products. "
    "Examples include Brisk Analytics Corp. and Tollan Networks Inc."
)
CONTINUING = (
    "Regional Networks: Operated in many countries, these networks focus on debit. "
    "Examples include Quarry Payments Inc. and Meridel Systems Corp. in Canada."
)
FOOTNOTES = "(1)Figures sourced from an industry report.\n\n(2)Total volume is payments plus cash."


def section(*chunks: tuple[str, str], name: str = "10-K/Item 1") -> pl.DataFrame:
    """(kind, text) chunks of one section of one filing, in order."""
    return section_chunks(list(chunks), section=name)


def competitors(chunk_text: str, lead_in: str | None) -> list[str]:
    rules = RulesBackend.from_rows([])
    chunk = filer_chunk(chunk_text)
    reply = rules.extract_one(
        type(chunk)(**{**chunk.__dict__, "lead_in": lead_in})  # a frozen dataclass: a copy
    )
    return [
        t["object"]
        for t in json.loads(reply.raw_output or "")["triples"]
        if t["relation"] == "COMPETES_WITH"
    ]


# -- which lead-in is open where a chunk starts ----------------------------------------------------


def test_the_open_lead_in_is_carried_to_the_next_chunk_of_the_section():
    plain = "Net sales rose 4%."
    chunks = section(("prose", OPENING), ("prose", CONTINUING), ("prose", plain), ("prose", plain))
    # the list is still open after a chunk of its items; a plain paragraph closes it
    expected = {"10-K/Item 1#1": LEAD, "10-K/Item 1#2": LEAD}
    assert lead_ins(chunks) == expected
    # another section starts with nothing open
    other = section(("prose", CONTINUING), name="10-K/Item 7")
    assert lead_ins(pl.concat([chunks, other])) == expected


def test_a_table_its_introduction_and_its_footnotes_stay_inside_the_list():
    intro = OPENING + "\n\nThe following chart compares our network with certain competitors(1):"
    chunks = section(
        ("prose", intro),
        ("table", "| | A | B |\n|---|---|---|"),
        ("prose", FOOTNOTES + "\n\n" + CONTINUING),
    )
    assert lead_ins(chunks) == {"10-K/Item 1#2": LEAD}
    # only the narrative chunks given (the table left out): the gap is read as the table
    assert lead_ins(chunks.filter(pl.col("kind") != "table")) == {"10-K/Item 1#2": LEAD}
    # an introduction followed by prose, not a table, closes the list
    assert lead_ins(section(("prose", intro), ("prose", CONTINUING))) == {}


def test_a_chunk_that_holds_its_lead_in_gets_none_and_odd_chunks_change_nothing():
    assert lead_ins(section(("prose", OPENING), ("prose", LEAD + "\n\n" + CONTINUING))) == {}
    assert lead_ins(section(("prose", ""), ("prose", "   \n\n "), ("prose", CONTINUING))) == {}
    assert lead_ins(pl.DataFrame({"chunk_id": ["x"]})) == {}
    assert open_at_end("", None) == (None, False)
    assert open_at_end("• Acme\n\n• Beta", LEAD) == (LEAD, False)
    # a closing introduction keeps what was open, pending the table it introduces
    assert open_at_end("The chart below compares us with them:", LEAD) == (LEAD, True)
    assert open_at_end("Net sales rose.\n\nThe chart below compares us:", LEAD) == (None, True)
    hostile = "\u202e\x00 " * 500 + "Examples include:\n" + "(1)" * 3000
    assert open_at_end(hostile, None)[0] is None or open_at_end(hostile, None)[0].endswith(":")


# -- the rules read the chunk as the list's continuation -------------------------------------------


def test_the_rules_read_a_chunk_that_continues_a_lead_in_of_the_chunk_before():
    assert competitors(CONTINUING, None) == []
    found = competitors(CONTINUING, LEAD)
    assert found == ["Quarry Payments Inc.", "Meridel Systems Corp."]
    # footnotes first, then the next item of the list
    assert competitors(FOOTNOTES + "\n\n" + CONTINUING, LEAD) == found
    # a paragraph that is not an item of the list ends it
    assert competitors("Net sales rose 4% in fiscal 2025.\n\n" + CONTINUING, LEAD) == []
    # a lead-in that names no relation carries nothing
    assert competitors(CONTINUING, "Our operating expenses consist of the following:") == []


@pytest.mark.parametrize(
    "lead_in",
    ["", ":", "include:", "x" * 5000 + " competitors include:", "Robert'); DROP TABLE x;-- :"],
)
def test_hostile_lead_ins_do_not_fail_the_chunk(lead_in):
    assert competitors(CONTINUING, lead_in) in (
        [],
        ["Quarry Payments Inc.", "Meridel Systems Corp."],
    )


# -- the gates: the lead-in names the filer, the quote stays the chunk's ---------------------------


def test_the_grounding_gate_lets_the_carried_lead_in_name_the_filer():
    quote = "Examples include Quarry Payments Inc. and Meridel Systems Corp. in Canada."
    triple = CandidateTriple(
        subject=FILER.name, relation="COMPETES_WITH", object="Quarry Payments Inc.", evidence=quote
    )

    def verdict(lead_in: str | None):
        context = ChunkContext(
            "c1", CONTINUING, 0, None, filer=FILER, section="10-K/Item 1", lead_in=lead_in
        )
        return judge(Candidate.of(triple), context)

    assert verdict(None).rejection.reason is Reason.ENTITY_NOT_IN_EVIDENCE  # type: ignore[union-attr]
    assert verdict(LEAD).accepted
    # a lead-in that does not speak for the filer grounds nothing
    other = verdict("Competitors of Quarry Payments Inc. include:")
    assert other.rejection.reason is Reason.ENTITY_NOT_IN_EVIDENCE  # type: ignore[union-attr]
    # the lead-in is context, never a quote: evidence from it is not in the chunk
    from_lead = CandidateTriple(
        subject=FILER.name, relation="COMPETES_WITH", object="Quarry Payments Inc.", evidence=LEAD
    )
    context = ChunkContext("c1", CONTINUING, 0, None, filer=FILER, lead_in=LEAD)
    assert judge(Candidate.of(from_lead), context).rejection.reason is Reason.EVIDENCE_NOT_IN_CHUNK  # type: ignore[union-attr]


def test_the_pipeline_carries_the_lead_in_and_cites_the_chunk_that_names_the_parties():
    chunks = section(("prose", OPENING), ("prose", CONTINUING))
    rules = RulesBackend.from_rows([])
    inputs = chunk_inputs(chunks, FILER, 2025)
    assert [i.lead_in for i in inputs] == [None, LEAD]
    replies = [rules.extract_one(i) for i in inputs]
    extractions = frame(
        [
            {
                "extraction_id": f"e{k}",
                "filing_id": "f1",
                "chunk_id": i.chunk_id,
                "backend": "rules",
                "model": "m",
                "prompt_version": "v",
                "status": "ok",
                "raw_output": r.raw_output,
            }
            for k, (i, r) in enumerate(zip(inputs, replies, strict=True))
        ],
        EXTRACTIONS,
    )
    table = validate_extractions(extractions, chunks, FILER, 2025)
    accepted = table.filter(
        (pl.col("status") == "accepted") & (pl.col("relation") == "COMPETES_WITH")
    )
    by_object = {r["object"]: r for r in accepted.iter_rows(named=True)}
    assert set(by_object) == {
        "Brisk Analytics Corp.",
        "Tollan Networks Inc.",
        "Quarry Payments Inc.",
        "Meridel Systems Corp.",
    }
    second = chunks.row(1, named=True)
    for name in ("Quarry Payments Inc.", "Meridel Systems Corp."):
        [evidence] = by_object[name]["evidence"]
        assert evidence["chunk_id"] == second["chunk_id"]
        offset = evidence["char_start"] - second["char_start"]
        assert second["text"][offset : offset + len(evidence["quote"])] == evidence["quote"]
        assert name in evidence["quote"] and LEAD not in evidence["quote"]
        assert by_object[name]["method"] == "rule:continuation"


# -- names placed by where they are ----------------------------------------------------------------


def test_an_item_placed_by_where_it_is_is_still_a_name():
    text = (
        "Examples include NORVO, Pellam and STARX in the U.S.; Intera in Canada; "
        "and eftcard in Australia."
    )
    names = [n for _, _, n in enumerated_names(text, len("Examples include "), len(text))]
    assert names == ["NORVO", "Pellam", "STARX", "Intera"]  # a lowercase brand is not read
    # a place is never the item: "in" must follow a name that stands as an item
    clause = "We sell our products in Europe, in Asia and in the U.S. through distributors."
    assert enumerated_names(clause, 0, len(clause)) == []
