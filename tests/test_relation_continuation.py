"""Relations stated across two sentences (issue 22): a list with no relation word of its own whose
lead-in continues the sentence before it ("Examples include X, Y", "These include", "Among them
are", the paragraph after "…, including:") takes that sentence's relation with the filer, when
that sentence is the filer's and states a fact; the evidence is both sentences, and the gates
accept it on the real text. Another party's relation, a list of products, a denial, two kinds of
relation, or nothing before the list give nothing.

The names are invented; the rules run with an empty gazetteer (names by list context only).
"""

from __future__ import annotations

import time

import pytest

from graphrag_core.extraction.backends import RulesBackend
from graphrag_core.extraction.backends.rules_continuation import (
    continued_relation,
    continues,
    opens_list,
)
from graphrag_core.extraction.gates import Candidate as GateCandidate
from graphrag_core.extraction.gates import ChunkContext, judge
from graphrag_core.extraction.triples import Relation
from tests.extraction_inputs import FILER, filer_chunk

RULES = RulesBackend.from_rows([])
OPENING = "We design and sell measurement instruments.\n\n"


def _found(text: str, opening: str = OPENING) -> list[tuple[str, str, str, str]]:
    return [
        (t.subject, t.relation.value, t.object, t.evidence)
        for t in RULES.triples(filer_chunk(opening + text))
    ]


def _pairs(text: str, opening: str = OPENING) -> list[tuple[str, str, str]]:
    return [(s, r, o) for s, r, o, _ in _found(text, opening)]


def _accepted(text: str) -> list[GateCandidate]:
    """The rules' triples on `text` that the six gates accept, on the chunk as written."""
    chunk = OPENING + text
    context = ChunkContext("c1", chunk, 0, None, filer=FILER, section="10-K/Item 1")
    out = []
    for t in RULES.triples(filer_chunk(chunk)):
        verdict = judge(GateCandidate.of(t), context)
        assert verdict.accepted, (t, verdict.rejection)
        out.append(verdict.candidate)
    return out


def test_a_continuation_list_takes_the_previous_sentences_relation_and_both_as_evidence():
    first = "We face intense competition in each of our markets."
    second = "Examples include Zentrix Pro Systems, Orvel Networks and Brandt Kellner Group."
    found = _found(f"{first} {second}")
    assert [(s, r, o) for s, r, o, _ in found] == [
        (FILER.name, "COMPETES_WITH", "Zentrix Pro Systems"),
        (FILER.name, "COMPETES_WITH", "Orvel Networks"),
        (FILER.name, "COMPETES_WITH", "Brandt Kellner Group"),
    ]
    assert {e for *_, e in found} == {f"{first} {second}"}
    accepted = _accepted(f"{first} {second}")
    assert len(accepted) == 3
    chunk = OPENING + f"{first} {second}"
    for c in accepted:
        # the cited span is both sentences of the chunk, verbatim
        assert c.span is not None and chunk[c.span[0] : c.span[1]] == f"{first} {second}"


@pytest.mark.parametrize(
    ("first", "second", "relation"),
    [
        (
            "We rely on a small number of contract manufacturers.",
            "These include Zentrix Pro Systems and Orvel Networks.",
            "SUPPLIES",
        ),
        (
            "We sell most of our instruments through distributors.",
            "Among them are Zentrix Pro Systems and Orvel Networks.",
            "CUSTOMER_OF",
        ),
        (
            "Competition in the instrument industry is intense.",
            "Notable examples include Zentrix Pro Systems and Orvel Networks.",
            "COMPETES_WITH",
        ),
        (
            "The Company conducts its European business through subsidiaries.",
            "These include Zentrix Pro Systems and Orvel Networks.",
            "SUBSIDIARY_OF",
        ),
    ],
)
def test_each_relation_continues_by_its_own_words(first: str, second: str, relation: str):
    got = _pairs(f"{first} {second}")
    assert {r for _, r, _ in got} == {relation}
    assert {s if relation != "COMPETES_WITH" else o for s, _, o in got} == {
        "Zentrix Pro Systems",
        "Orvel Networks",
    }
    assert len(_accepted(f"{first} {second}")) == 2


def test_the_paragraph_after_an_including_colon_continues_the_lead_in():
    text = (
        "We compete with a number of companies, including:\n\n"
        "Zentrix Pro Systems and Orvel Networks."
    )
    assert _pairs(text) == [
        (FILER.name, "COMPETES_WITH", "Zentrix Pro Systems"),
        (FILER.name, "COMPETES_WITH", "Orvel Networks"),
    ]
    assert len(_accepted(text)) == 2


def test_a_continuation_of_another_partys_relation_gives_nothing():
    for first in (
        "Customers of Morland Retail Group include large grocers.",
        "Morland Retail Group's suppliers are mostly in Asia.",
        "Morland Retail Group competes with regional chains.",
        "Suppliers to Morland Retail Group are few.",
    ):
        assert _pairs(f"{first} Examples include Zentrix Pro Systems and Orvel Networks.") == []


def test_a_product_list_continuation_gives_nothing():
    assert (
        _pairs(
            "Our products include handheld analysers. Examples include Zentrix Pro and Orvel Max."
        )
        == []
    )
    assert (
        _pairs("We sell three product lines. These include Zentrix Pro Systems and Orvel Networks.")
        == []
    )


def test_a_denied_supposed_or_ambiguous_sentence_before_gives_nothing():
    for first in (
        "We do not compete with large banks.",
        "If we lose our suppliers, our sales would fall.",
        "We compete with other suppliers of instruments and sell to distributors.",
    ):
        assert _pairs(f"{first} Examples include Zentrix Pro Systems and Orvel Networks.") == []


def test_a_list_in_a_new_paragraph_or_with_nothing_before_it_continues_nothing():
    names = "Examples include Zentrix Pro Systems and Orvel Networks."
    assert _pairs(names, opening="") == []
    assert _pairs(f"We face intense competition.\n\n{names}", opening="") == []
    # a lead-in that is not a list's ("These companies are larger than we are") reads no names
    assert (
        _pairs("We face intense competition. These companies are larger than Orvel Networks.") == []
    )


def test_the_helpers_read_only_lead_ins_and_one_kind_of_relation():
    assert continues("Examples include Acme") is not None
    assert continues("Among them are Acme Widgets") is not None
    assert continues("Among them are many small firms") is None
    assert continues("Such suppliers include Acme") is not None
    assert continues("The examples include Acme") is None
    assert opens_list("We compete with several firms, including:")
    assert not opens_list("We compete with several firms, including Acme.")
    assert continued_relation("We face intense competition.", ()) == Relation.COMPETES_WITH
    assert continued_relation("We rely on foundries.", ()) == Relation.SUPPLIES
    assert continued_relation("We sell instruments.", ()) is None
    # another kind's noun as what is competed with is still competition
    assert (
        continued_relation("We compete with other suppliers of instruments.", ())
        == Relation.COMPETES_WITH
    )
    assert continued_relation("", ()) is None


def test_hostile_text_is_read_in_bounded_time_and_never_crashes():
    # a very long list: every name read, in well under a second
    many = ", ".join(f"Zentrix Unit{i} Systems" for i in range(400))
    started = time.perf_counter()
    got = _pairs(f"We face intense competition. Examples include {many} and Orvel Networks.")
    assert time.perf_counter() - started < 5
    assert all(r == "COMPETES_WITH" for _, r, _ in got)
    # odd unicode: zero-width and bidi marks, fullwidth letters, an emoji, an astral-plane
    # bold alphabet, NUL; nothing crashes, nothing is invented from the marks
    for text in (
        "We face intense competition.\u200b Examples include \u202eZentrix\u202c Pro and 🙂.",
        "We face intense competition. Examples include Ｚｅｎｔｒｉｘ Ｐｒｏ and Orvel\u0000 "
        "Networks.",
        "We face intense competition. Examples include 𝐙𝐞𝐧𝐭𝐫𝐢𝐱 𝐏𝐫𝐨.",
        "Examples include",
        "We face intense competition. Examples include",
        "We face intense competition. Examples include ; ; , and .",
    ):
        for s, r, o in _pairs(text):
            assert r == "COMPETES_WITH" and s == FILER.name and o.strip()
    # injection strings are only text: a name is whatever the list holds, never a command
    got = _pairs(
        "We face intense competition. Examples include Robert'); DROP TABLE Triples;-- "
        "Systems and Orvel Networks."
    )
    assert all(r == "COMPETES_WITH" for _, r, _ in got)
