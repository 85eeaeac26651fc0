"""Names the learned classifier is now asked about (issue 22): a name before the filer's relation
noun or deal ("X is our largest customer", "X, our sole supplier of …", "X and Y accounted for
15% and 12% of our net sales", "our X business, which we had recently acquired"), one word made
for the filer by someone ("manufactured for the Company by X"), and a one-word name with a
capital inside ("webMethods") where a deal introduces it. Not asked: an opening adverb before
"our …", a clause that "our customers" opens, a brand's share of volume, another party's
customer.

The names are invented; the backend test runs the real packaged MiniLM and the shipped weights.
"""

from __future__ import annotations

import json
import time

import pytest

from graphrag_core.extraction.backends import LearnedBackend, RulesBackend
from graphrag_core.extraction.gates import Candidate as GateCandidate
from graphrag_core.extraction.gates import ChunkContext, judge
from graphrag_core.extraction.relation_candidates import MAX_PER_SENTENCE, candidates
from graphrag_core.extraction.relation_classifier import RelationClassifier
from graphrag_core.extraction.triples import CandidateTriple
from graphrag_core.settings import ExtractionSettings
from tests.extraction_inputs import FILER, filer_chunk

EMPTY = RulesBackend.from_rows([]).gazetteer


def _names(text: str) -> list[str]:
    return [c.name for c in candidates(text, FILER, EMPTY)]


def test_a_name_before_the_filers_relation_noun_is_asked():
    assert _names("Zentrix Pro Systems is our largest customer.") == ["Zentrix Pro Systems"]
    assert _names("Zentrix Pro Systems, our sole supplier of sensors, ships from Ohio.") == [
        "Zentrix Pro Systems"
    ]
    assert _names("In 2025, Tallix remained one of our principal distributors.") == ["Tallix"]
    # a generic first word stays part of the name; a word that names nothing does not
    assert _names("General Orvel Motors is our largest customer.") == ["General Orvel Motors"]
    assert _names("The Zentrix Group is our largest customer.") == ["Zentrix Group"]
    assert _names(
        "Zentrix Pro Systems and Orvel Networks accounted for 15% and 12% of our net sales."
    ) == ["Zentrix Pro Systems", "Orvel Networks"]
    assert _names(
        "For example, we reported that our Tallix Labs business, which we had recently "
        "acquired, was subject to a cyberattack."
    ) == ["Tallix Labs"]


def test_made_for_the_filer_by_one_word_and_a_camel_case_name_after_a_deal_are_asked():
    assert _names(
        "The lotion is manufactured for the Company by Quorra under a purchase order."
    ) == ["Quorra"]
    assert "vantelSoft" in _names(
        "We recorded a loss on contracts entered into prior to the acquisition of Borvane and "
        "vantelSoft from Orvel Group."
    )
    # a camel-case word where no deal introduces it is a product, not asked
    assert _names("Our customers use iAnalyzer and other tools.") == []


def test_adverbs_clauses_volumes_and_another_partys_customer_are_not_asked():
    assert _names("Further, our contract manufacturers have experienced closures.") == []
    assert _names("In Consulting, our experts are helping clients design strategies.") == []
    assert (
        _names("The platform runs on Zentrix Cloud, our infrastructure that helps customers.") == []
    )
    assert _names("Trademark Zentrix accounted for 47% of our worldwide unit case volume.") == []
    assert _names("Orvel Networks' largest customer is Zentrix Pro Systems.") == []


def test_hostile_text_on_the_name_before_path():
    for text in (
        "Zentrix, " * 400 + "our largest customer.",
        " and ".join(f"Name{i} Labs" for i in range(300)) + " accounted for 5% of our sales.",
        "Robert'); DROP TABLE Customers;-- is our largest customer.",
        "\u202eZentrix\u202c\u200b is our largest customer.",
        "Ｚｅｎｔｒｉｘ is our largest customer.",
        "is our largest customer.",
        "NaN and Infinity accounted for nan% of our revenue.",
    ):
        started = time.perf_counter()
        found = candidates(text, FILER, EMPTY)
        assert time.perf_counter() - started < 2.0  # no pathological backtracking
        assert len(found) <= MAX_PER_SENTENCE * 2
        assert all(c.name.strip() and not c.implied for c in found)


@pytest.mark.real_embeddings
def test_a_largest_customer_named_first_is_published_through_the_gates(encoder):
    weights = RelationClassifier.load(ExtractionSettings().learned_weights)
    settings = ExtractionSettings()
    backend = LearnedBackend(
        RulesBackend.from_rows([]), weights, encoder, threshold=settings.learned_threshold
    )
    text = (
        "We design and sell measurement instruments. Zentrix Pro Systems is our largest customer."
    )
    (reply,) = backend.extract_batch([filer_chunk(text)])
    context = ChunkContext("c1", text, 0, None, filer=FILER, section="10-K/Item 1")
    accepted = [
        (v.candidate.subject, v.candidate.relation, v.candidate.object)
        for t in json.loads(reply.raw_output or "")["triples"]
        if (v := judge(GateCandidate.of(CandidateTriple.model_validate(t)), context)).accepted
    ]
    assert accepted == [("Zentrix Pro Systems", "CUSTOMER_OF", FILER.name)]
    # a denial of the same is asked too, and the gates drop it
    denied = text.replace("is our largest", "is no longer our largest")
    (reply,) = backend.extract_batch([filer_chunk(denied)])
    context = ChunkContext("c1", denied, 0, None, filer=FILER, section="10-K/Item 1")
    assert not any(
        judge(GateCandidate.of(CandidateTriple.model_validate(t)), context).accepted
        for t in json.loads(reply.raw_output or "")["triples"]
    )
