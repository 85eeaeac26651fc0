"""Trade relations beyond the fixed cues (issue 22): supply, manufacturing and licence
agreements, hosting providers, licensors; largest customers, bottlers, licensees' payments;
competitors the filer "expects continued competition from". Each sentence is invented, in the
shapes filings use, with names no gazetteer holds, so that the patterns are of language only."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_core.extraction import Filer, RulesBackend
from graphrag_core.extraction.backends.base import ChunkInput
from graphrag_core.extraction.gates import Candidate, ChunkContext, Reason, judge
from graphrag_core.extraction.trade_relations import (
    organisation_at,
    organisation_before,
    stated_competition,
)
from graphrag_core.extraction.triples import CandidateTriple
from graphrag_core.intake.local_folder import LocalFolderSource

FILER = "Example Holdings, Inc."


@pytest.fixture(scope="module")
def rules(corpus_dir: Path) -> RulesBackend:
    return RulesBackend.from_rows(LocalFolderSource(corpus_dir).company_tickers())


def edges(rules: RulesBackend, text: str, relation: str) -> set[tuple[str, str]]:
    chunk = ChunkInput("c", "f", "10-K/Item 1", text, "0" * 64, None, FILER)
    return {(t.subject, t.object) for t in rules.triples(chunk) if t.relation == relation}


def accepted(subject: str, relation: str, obj: str, text: str) -> tuple[bool, Reason | None]:
    candidate = Candidate.of(
        CandidateTriple(subject=subject, relation=relation, object=obj, evidence=text)
    )
    verdict = judge(candidate, ChunkContext("c", text, 0, filer=Filer(FILER, None, None)))
    return verdict.outcome == "accepted", verdict.rejection.reason if verdict.rejection else None


# -- SUPPLIES ---------------------------------------------------------------------------------


def test_a_manufacturing_and_supply_agreement_names_a_supplier(rules):
    text = (
        "In 2019, we entered into a manufacturing and supply agreement with Quenby Biologics "
        "GmbH for the drug substance."
    )
    assert edges(rules, text, "SUPPLIES") == {("Quenby Biologics GmbH", FILER)}


def test_a_supply_agreement_between_two_other_parties_is_not_the_filers():
    text = (
        "Quenby Biologics GmbH has a supply agreement with Tarrow Pharma Ltd. for the active "
        "ingredient."
    )
    # no filer word: the cue is not read at all
    from graphrag_core.extraction.trade_relations import trade_cues

    assert trade_cues(text, [], []) == []


def test_a_licence_from_a_licensor_and_a_maker_for_us(rules):
    text = "We hold an exclusive license from Harwick Therapeutics, Inc. to the compound."
    assert edges(rules, text, "SUPPLIES") == {("Harwick Therapeutics, Inc.", FILER)}
    made = "Pellmont Labs LLC manufactures our finished tablets for us at its plant in Ohio."
    assert edges(rules, made, "SUPPLIES") == {("Pellmont Labs LLC", FILER)}
    licensor = "Harwick Therapeutics, Inc., our licensor, receives royalties on net sales."
    assert ("Harwick Therapeutics, Inc.", FILER) in edges(rules, licensor, "SUPPLIES")


def test_a_hosting_provider_we_rely_on(rules):
    text = "We rely on Stratocloud Corporation to host our streaming service and its data."
    assert edges(rules, text, "SUPPLIES") == {("Stratocloud Corporation", FILER)}
    # relying on someone for something other than making, supplying or hosting is no supply
    other = "We rely on Stratocloud Corporation to refer new members to our service."
    assert edges(rules, other, "SUPPLIES") == set()


# -- CUSTOMER_OF ------------------------------------------------------------------------------


def test_our_largest_customer_in_either_order(rules):
    text = (
        "Our largest customer, Brenmart Stores, Inc., accounted for a significant portion of "
        "net sales."
    )
    assert ("Brenmart Stores, Inc.", FILER) in edges(rules, text, "CUSTOMER_OF")
    after = "Brenmart Stores, Inc., our largest customer, operates discount stores."
    assert edges(rules, after, "CUSTOMER_OF") == {("Brenmart Stores, Inc.", FILER)}


def test_bottlers_and_a_licensees_payments_are_customers(rules):
    text = "Our bottling partners include Halvane Bottling Company and Ostry Beverages plc."
    assert edges(rules, text, "CUSTOMER_OF") == {
        ("Halvane Bottling Company", FILER),
        ("Ostry Beverages plc", FILER),
    }
    pays = "Under the agreement, Seekly Inc. pays us a share of the advertising revenue it earns."
    assert edges(rules, pays, "CUSTOMER_OF") == {("Seekly Inc.", FILER)}
    royalties = "We receive royalties from Seekly Inc. on every device sold."
    assert edges(rules, royalties, "CUSTOMER_OF") == {("Seekly Inc.", FILER)}


def test_a_customer_of_someone_else_is_not_the_filers(rules):
    text = "Brenmart Stores, Inc. is the largest customer of Pellmont Labs LLC."
    assert edges(rules, text, "CUSTOMER_OF") == set()


# -- COMPETES_WITH and the forward-looking gate -----------------------------------------------


def test_expected_continued_competition_names_todays_competitors():
    text = "We expect continued competition from Vantor Systems and Kellam Networks."
    assert stated_competition(text)
    assert accepted(FILER, "COMPETES_WITH", "Vantor Systems", text) == (True, None)


def test_a_real_expectation_in_the_clause_is_still_rejected():
    planned = (
        "We expect continued competition from Vantor Systems, and we will compete with Kellam "
        "Networks."
    )
    ok, reason = accepted(FILER, "COMPETES_WITH", "Kellam Networks", planned)
    assert not ok and reason is Reason.FORWARD_LOOKING_NOT_GUIDES
    future = "We expect that Vantor Systems will become a competitor."
    assert not stated_competition(future)
    ok, reason = accepted(FILER, "COMPETES_WITH", "Vantor Systems", future)
    assert not ok and reason is Reason.FORWARD_LOOKING_NOT_GUIDES
    # the narrow exception is for competitors only: an expected supplier stays forward-looking
    supply = (
        "We expect continued competition from Vantor Systems, and Kellam Networks will supply us."
    )
    ok, reason = accepted("Kellam Networks", "SUPPLIES", FILER, supply)
    assert not ok and reason is Reason.FORWARD_LOOKING_NOT_GUIDES


def test_the_rules_and_the_gates_keep_a_stated_competitor_list(rules):
    text = "We expect continued competition from Vantor Systems, Kellam Networks and Ostry Labs."
    found = edges(rules, text, "COMPETES_WITH")
    assert {
        ("Example Holdings, Inc.", "Vantor Systems"),
        ("Example Holdings, Inc.", "Kellam Networks"),
    } <= found


# -- organisations by their legal form ----------------------------------------------------------


def test_names_with_a_legal_form_beyond_the_gazetteer():
    assert organisation_at("with Quenby Biologics GmbH for", 5) == ("Quenby Biologics GmbH", 26)
    assert organisation_at("with Harwick Therapeutics, Inc. to", 5) == (
        "Harwick Therapeutics, Inc.",
        31,
    )
    assert organisation_at("with the Quenby family trust", 5) is None  # no legal form
    text = "Pellmont Labs LLC manufactures"
    assert organisation_before(text, 17) == ("Pellmont Labs LLC", 0)


def test_a_phrase_before_our_customers_is_no_apposition(rules):
    # a product or a sentence adverb before "our customers" / "our contract manufacturers"
    text = "With Brightpage Studio, our customers can edit documents in the browser."
    assert edges(rules, text, "CUSTOMER_OF") == set()
    adverb = "Further, our contract manufacturers have experienced closures and rising wages."
    assert edges(rules, adverb, "SUPPLIES") == set()
    # a description of the customers is no name of one
    kind = "We believe that a significant portion of our customers is Hispanic."
    assert edges(rules, kind, "CUSTOMER_OF") == set()
