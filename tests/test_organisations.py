"""Issue 22: the check a name passes before it becomes a provisional organization node, and
the reason code a name that fails it is kept out with."""

from __future__ import annotations

import pytest

from graphrag_core.graph.organisations import (
    DRUG,
    GENERIC,
    HEADING,
    INTRODUCED,
    LEGAL_FORM,
    LISTED,
    LOWER_CASE,
    PRODUCT,
    PROPER_NAME,
    SEGMENT,
    SENTENCE,
    check_organisation,
    introduced_as_organisation,
)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("Samsung Electronics Co., Ltd.", LEGAL_FORM),
        ("Koninklijke Philips N.V.", LEGAL_FORM),
        ("Siemens AG", LEGAL_FORM),
        ("Robert Bosch GmbH", LEGAL_FORM),
        ("Coca-Cola Europacific Partners plc", LEGAL_FORM),
        ("Fully Will Limited", LEGAL_FORM),  # a subsidiary's name, though "will" is a verb too
        ("Sojitz", PROPER_NAME),
        ("Deckers Brands", PROPER_NAME),
        ("Bank of America", PROPER_NAME),
        ("ASICS", PROPER_NAME),
        ("eBay", PROPER_NAME),
    ],
)
def test_organisations_pass_with_their_evidence(name, reason):
    verdict = check_organisation(name)
    assert verdict.ok and verdict.reason == reason


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("Certain of our executives and directors own a majority of our stock", SENTENCE),
        ("We may not be able to compete", SENTENCE),
        ("RISKS RELATED TO OUR BUSINESS", HEADING),
        ("our customers", GENERIC),
        ("Key Suppliers", GENERIC),
        ("Third Parties", GENERIC),
        ("Data Center segment", SEGMENT),
        ("Consumer Health business", SEGMENT),
        ("Instinct MI300X", PRODUCT),
        ("Radeon GPUs", PRODUCT),
        ("Opdivo®", PRODUCT),
        ("nivolumab", DRUG),
        ("Ibrutinib", DRUG),
        ("semiconductors", LOWER_CASE),
    ],
)
def test_what_is_not_an_organisation_stays_out_with_its_reason(name, reason):
    verdict = check_organisation(name)
    assert not verdict.ok and verdict.reason == reason
    assert verdict.reason.startswith("not_org:")


def test_a_listed_name_passes_whatever_it_looks_like():
    """A registrant or curated name is a company on the list's word ("adidas" is lower case)."""
    assert not check_organisation("adidas").ok
    assert check_organisation("adidas", listed=True).reason == LISTED


def test_the_way_a_text_introduces_a_name_is_evidence():
    assert introduced_as_organisation(
        "Alexion", "Alexion, a subsidiary of AstraZeneca, markets it."
    )
    assert introduced_as_organisation(
        "Puma", "We compete with companies such as adidas, Puma and ASICS."
    )
    assert introduced_as_organisation(
        "ImmunoGen", "In February we completed the acquisition of ImmunoGen."
    )
    assert not introduced_as_organisation("Puma", "Puma is a wild cat.")
    # A lower-case brand is an organisation when its sentence lists it among competitors.
    assert (
        check_organisation(
            "adidas", context="Our competitors include adidas, Puma and ASICS."
        ).reason
        == INTRODUCED
    )
    # ...but the introduction never overrides what the words themselves say.
    assert (
        check_organisation("our customers", context="competitors such as our customers").reason
        == GENERIC
    )
