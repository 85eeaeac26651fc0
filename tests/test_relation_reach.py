"""Relations the learned classifier was never asked about (issue 22): a sentence that leaves the
filer unnamed ("paid to acquire X and Y", "Principal competitors include X, Y", "the X
acquisition") is asked, with the filer placed as the implied party; one-word names a deal or an
agreement introduces are asked; another party's relations ("customers of X include …", "X's
acquisition of Y"), lists of products or places, and chunks that never name the filer are not.

The names are invented; the backend test runs the real packaged MiniLM and the shipped weights.
"""

from __future__ import annotations

import json
import time

import pytest

from graphrag_core.extraction.backends import LearnedBackend, RulesBackend
from graphrag_core.extraction.gates import Candidate as GateCandidate
from graphrag_core.extraction.gates import ChunkContext, judge
from graphrag_core.extraction.relation_candidates import (
    FEATURE_COUNT,
    IMPLIED_LEAD,
    MAX_PER_SENTENCE,
    STAND_IN,
    candidates,
    cue_features,
    marked,
)
from graphrag_core.extraction.relation_classifier import RelationClassifier
from graphrag_core.extraction.triples import CandidateTriple
from graphrag_core.settings import ExtractionSettings
from tests.extraction_inputs import FILER, filer_chunk

EMPTY = RulesBackend.from_rows([]).gazetteer
# A chunk names its filer somewhere; the sentence under test need not.
OPENING = "We design and sell measurement instruments. "


def _found(text: str, opening: str = OPENING) -> list[tuple[str, bool]]:
    return [(c.name, c.implied) for c in candidates(opening + text, FILER, EMPTY)]


def test_a_deal_whose_acquirer_is_left_unnamed_is_asked_with_the_filer_implied():
    assert _found(
        "Cash used in investing activities rose on the price paid to acquire Borvane and "
        "Cerevix Therapeutics."
    ) == [("Borvane", True), ("Cerevix Therapeutics", True)]
    assert _found("Segment revenue grew, driven mainly by the Tallix acquisition.") == [
        ("Tallix", True)
    ]
    assert _found("Margins fell on costs of the Quorra and Vantel Labs acquisitions.") == [
        ("Quorra", True),
        ("Vantel Labs", True),
    ]


def test_a_subject_less_list_is_asked_with_the_filer_implied():
    assert _found("Principal competitors include Zentrix Pro Systems and Orvel Networks.") == [
        ("Zentrix Pro Systems", True),
        ("Orvel Networks", True),
    ]


def test_the_implied_filer_is_marked_as_the_party_the_sentence_speaks_for():
    text = OPENING + "Segment revenue grew, driven mainly by the Tallix acquisition."
    (c,) = candidates(text, FILER, EMPTY)
    assert c.implied and (c.filer_start, c.filer_end) == (0, 0)
    assert (
        marked(c)
        == f"{IMPLIED_LEAD}Segment revenue grew, driven mainly by the {STAND_IN} acquisition."
    )
    features = cue_features(c)
    assert len(features) == FEATURE_COUNT and features[-1] == 1.0
    # "filer nearby" and "candidate before the filer" say nothing of an unnamed filer
    assert features[-5:-3] == [0.0, 0.0]
    # a sentence that names the filer keeps its own marking
    (named,) = candidates("We completed the acquisition of Tallix in May.", FILER, EMPTY)
    assert not named.implied and cue_features(named)[-1] == 0.0
    assert marked(named) == f"we completed the acquisition of {STAND_IN} in May."


def test_our_customers_include_is_asked_but_customers_of_another_include_is_not():
    assert _found("Our customers include Orvel Networks Inc.", opening="") == [
        ("Orvel Networks Inc.", False)
    ]
    # the customers are another company's: a relation between two others, never the filer's
    assert _found("Customers of Zentrix Pro Systems include Orvel Networks Inc.") == []
    assert _found("Principal suppliers to Zentrix include Orvel Networks Inc.") == []
    assert _found("Zentrix's acquisition of Tallix Systems closed in March.") == []
    # an organisation acting before the first relation word: a fact about two others
    assert _found("Harwick Labs Inc. supplies Corvane Systems Inc. with sensors.") == []
    assert _found("Zentrix Pro Systems completed the acquisition of Tallix Systems.") == []


def test_lists_of_products_or_places_give_no_candidate():
    assert _found("Competing products include Velo Shield, Aero Mesh and Tri Guard.") == []
    assert _found("Our competitors sell in regions including Lower Saxony and Rhine Valley.") == []
    assert _found("We compete with brands such as Velo Shield and Aero Mesh.", opening="") == []
    # one capitalised word is a party only where a deal or an agreement introduces it
    assert _found("Our suppliers are located in areas including Bavaria.", opening="") == []
    assert _found("We rely on a supply agreement with Quorra for our lenses.", opening="") == [
        ("Quorra", False)
    ]


def test_products_acquired_and_headings_are_not_parties():
    # a deal for products, not for a company: a trademark sign or a kind noun after the name
    assert _found("We acquired the Zorvex® and Quilda® products in 2019.", opening="") == []
    assert _found("We acquired the Zorvex brand in 2019.", opening="") == []
    # a title-case heading capitalises every word: its runs are not names
    assert _found("Acquisitions of Businesses, Equity Method Investments and Other Assets") == []
    # a named organisation after the product is still asked
    assert _found("We acquired the Zorvex brand from Tallix Labs Inc.", opening="") == [
        ("Tallix Labs Inc.", False)
    ]


def test_a_chunk_that_never_names_the_filer_asks_nothing_unnamed():
    # the gates could not ground the filer there: no embedding is spent on it
    assert _found("Segment revenue grew, driven mainly by the Tallix acquisition.", "") == []
    assert _found("Principal competitors include Zentrix Pro Systems.", opening="") == []


def test_a_run_in_heading_is_not_an_acting_party():
    assert _found("Volume Growth – Output rose, driven by the Tallix acquisition.") == [
        ("Tallix", True)
    ]
    assert _found("Volume Growth Partners reported output driven by the Tallix acquisition.") == []


def test_hostile_text_on_the_unnamed_filer_path():
    for text in (
        "",
        "acquisition of " * 500,
        "the " + "Acquisition " * 300 + "acquisition.",
        "Competitors include " + ", ".join(f"Name{i} Labs" for i in range(400)) + ".",
        "paid to acquire Robert'); DROP TABLE Suppliers;-- and <script>alert(1)</script> Inc.",
        "the NaN acquisition and the Infinity acquisition and the \x00\u202e🚀 acquisition.",
        "agreement " + "with " * 500 + "Quorra.",
    ):
        started = time.perf_counter()
        found = candidates(OPENING + text, FILER, EMPTY)
        assert time.perf_counter() - started < 2.0  # no pathological backtracking
        assert len(found) <= MAX_PER_SENTENCE * 2
        for c in found:
            assert STAND_IN in marked(c) and len(cue_features(c)) == FEATURE_COUNT


# -- the backend, with the real model and the shipped weights -----------------------------------


@pytest.mark.real_embeddings
def test_an_unnamed_filer_triple_goes_through_the_same_gates(encoder):
    weights = RelationClassifier.load(ExtractionSettings().learned_weights)
    backend = LearnedBackend(RulesBackend.from_rows([]), weights, encoder, threshold=0.0)
    text = (
        "We design and sell measurement instruments. Cash used in investing activities rose "
        "on the price paid to acquire Borvane Instruments Corp. in the second quarter."
    )
    (reply,) = backend.extract_batch([filer_chunk(section="10-K/Item 7", text=text)])
    context = ChunkContext("c1", text, 0, None, filer=FILER, section="10-K/Item 7")
    learned = [t for t in json.loads(reply.raw_output or "")["triples"] if t["method"] == "learned"]
    assert learned, "the unnamed filer's deal was never asked"
    for t in learned:
        assert FILER.name in (t["subject"], t["object"])
        verdict = judge(GateCandidate.of(CandidateTriple.model_validate(t)), context)
        if t["relation"] == "SUBSIDIARY_OF":
            # grounded by the chunk's own "We", as a rule's triple would be
            assert verdict.accepted and t["subject"].startswith("Borvane")
    # the same sentence in a chunk that never names the filer proposes nothing unnamed
    alone = text.split(". ", 1)[1]
    (reply,) = backend.extract_batch([filer_chunk(section="10-K/Item 7", text=alone)])
    assert [
        t for t in json.loads(reply.raw_output or "")["triples"] if t["method"] == "learned"
    ] == []
