"""The shapes issue 22 lists as missed on filings nobody on the team saw, each read by the rules
and judged by the gates as the pipeline does: buyers named by their trade (bottlers,
wholesalers, resellers, lessees), completed acquisitions stated in lower case, undated or without
the acquirer, "its" after a filer whose name ends in a legal form, and guidance figures in the
shapes outlooks use. Every name is invented, so that what passes is the shape, not a company;
every shape has its negatives (pending deals, another buyer, the filer's own products, a
sensitivity, a past figure, a target without a figure)."""

from __future__ import annotations

import math

import pytest

from graphrag_core.extraction.backends.base import ChunkInput
from graphrag_core.extraction.backends.rules_backend import RulesBackend
from graphrag_core.extraction.gates import Candidate, ChunkContext, judge
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.ownership import implied_acquirer
from graphrag_core.extraction.triples import CandidateTriple

FILER = "Example Holdings, Inc."

Edge = tuple[str, str, str, str | None]


@pytest.fixture(scope="module")
def rules() -> RulesBackend:
    return RulesBackend.from_rows([])


def _judged(
    rules: RulesBackend,
    text: str,
    *,
    company: str = FILER,
    section: str = "10-K/Item 1",
    chunk: str | None = None,
) -> list[tuple[Edge, bool, dict[str, object]]]:
    """Each triple the rules find in `text` (inside `chunk`, default the text alone): (subject,
    relation, object, period), whether the gates accept it as emitted, and its figure."""
    whole = chunk if chunk is not None else text
    start = whole.index(text)
    found = rules.triples(ChunkInput("c", "f", section, whole, "0" * 64, None, company))
    out = []
    for t in found:
        candidate = Candidate.of(
            CandidateTriple(
                subject=t.subject,
                relation=t.relation,
                object=t.object,
                evidence=t.evidence,
                period=t.period,
                value=t.value,
                value_low=t.value_low,
                value_high=t.value_high,
                unit=t.unit,
            )
        )
        verdict = judge(candidate, ChunkContext("c", whole, 0, filer=Filer(company)))
        figure = {"value": t.value, "low": t.value_low, "high": t.value_high, "unit": t.unit}
        if t.evidence and t.evidence in whole[start : start + len(text)]:
            out.append(((t.subject, str(t.relation), t.object, t.period), verdict.accepted, figure))
    return out


def accepted(rules: RulesBackend, text: str, relation: str, **kw: str) -> set[Edge]:
    return {e for e, ok, _ in _judged(rules, text, **kw) if ok and e[1] == relation}


def found(rules: RulesBackend, text: str, relation: str, **kw: str) -> set[Edge]:
    """What the rules emit for `relation`, accepted or not: a negative must not even be proposed."""
    return {e for e, _, _ in _judged(rules, text, **kw) if e[1] == relation}


# -- buyers named by their trade --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (
            "We sell our concentrates to independent bottlers, including Harlow Bottling Company "
            "and Westmere Beverages Ltd., which bottle and distribute our products.",
            {"Harlow Bottling Company", "Westmere Beverages Ltd."},
        ),
        (
            "Our largest wholesalers, Amberley Health Corp., Norland Drug Company and Pembrook "
            "Inc., accounted for 80% of our net revenues.",
            {"Amberley Health Corp.", "Norland Drug Company", "Pembrook Inc."},
        ),
        (
            "Resellers, including Tessaro Systems Inc., purchase our products for resale to end "
            "customers.",
            {"Tessaro Systems Inc."},
        ),
        (
            "Our lessees include Skyhaven Airlines Inc., Blue Meridian Airways Ltd. and Corvane "
            "Air S.A.",
            {"Skyhaven Airlines Inc.", "Blue Meridian Airways Ltd.", "Corvane Air S.A."},
        ),
        (
            "We lease the vessels to Maristow Shipping Ltd. under long-term charters.",
            {"Maristow Shipping Ltd."},
        ),
    ],
)
def test_buyers_named_by_their_trade_are_customers(rules, text, names):
    assert accepted(rules, text, "CUSTOMER_OF") == {(n, "CUSTOMER_OF", FILER, None) for n in names}


def test_a_licensees_payments_and_a_host_named_as_it_trades(rules):
    text = "Licensees such as Orbis Electronics pay us royalties on each device sold."
    assert accepted(rules, text, "CUSTOMER_OF") == {
        ("Orbis Electronics", "CUSTOMER_OF", FILER, None)
    }
    host = "We rely on Nimbus Web Services to host our streaming service."
    assert accepted(rules, host, "SUPPLIES") == {("Nimbus Web Services", "SUPPLIES", FILER, None)}
    # relied on for something else, or a provider that is no name
    other = "We rely on Nimbus Web Services to refer new members to us."
    assert found(rules, other, "SUPPLIES") == set()
    vague = "We rely on third-party providers to host our streaming service."
    assert found(rules, vague, "SUPPLIES") == set()


def test_principal_operating_subsidiaries_listed_after_are(rules):
    text = "Our principal operating subsidiaries are Orion Bancorp LLC and Orion Securities Corp."
    assert accepted(rules, text, "SUBSIDIARY_OF") == {
        ("Orion Bancorp LLC", "SUBSIDIARY_OF", FILER, None),
        ("Orion Securities Corp.", "SUBSIDIARY_OF", FILER, None),
    }
    located = "Our principal operating subsidiaries are located in Ohio and Texas."
    assert found(rules, located, "SUBSIDIARY_OF") == set()


def test_equipment_leased_to_a_lessee_in_the_filers_chunk(rules):
    text = (
        "The aircraft are leased to Skyhaven Airlines Inc. and Blue Meridian Airways Ltd. under "
        "operating leases."
    )
    chunk = "We own four aircraft.\n\n" + text
    assert accepted(rules, text, "CUSTOMER_OF", chunk=chunk) == {
        ("Skyhaven Airlines Inc.", "CUSTOMER_OF", FILER, None),
        ("Blue Meridian Airways Ltd.", "CUSTOMER_OF", FILER, None),
    }


def test_a_list_of_product_names_is_no_list_of_customers(rules):
    products = "Our customers include users of Zentrix, Quillo and Marlin products."
    assert found(rules, products, "CUSTOMER_OF") == set()
    # "Products" written as part of a name, and a product noun far after the list, do not count
    named = "Our customers include Harlow Foods Inc., Westmere Products Inc. and Calder Stores Inc."
    assert {e[0] for e in accepted(rules, named, "CUSTOMER_OF")} == {
        "Harlow Foods Inc.",
        "Westmere Products Inc.",
        "Calder Stores Inc.",
    }
    supplied = (
        "We supply Zentrix to wholesalers, including Amberley Health Corp. and Norland Drug "
        "Company, which resell our products."
    )
    assert {e[0] for e in accepted(rules, supplied, "CUSTOMER_OF")} == {
        "Amberley Health Corp.",
        "Norland Drug Company",
    }


@pytest.mark.parametrize(
    "text",
    [
        # rivals named by their trade are competitors, not buyers
        "We compete with distributors such as Calder Distribution Inc. and Brightline Supply Co.",
        # the filer's own product lines and units
        "We sell our Zentrix platform to distributors, including Zentrix Pro and Zentrix Cloud.",
        "We sell our products to wholesalers, including our own Zentra division.",
        # a lessor that rents to the filer, and a tenant that is no name
        "The office space we occupy is leased to us by Halden Properties LLC.",
        "The building was leased to a tenant in 2019.",
        "Lessees may default on their obligations to us.",
        # a trade between two other parties
        "Calder Distribution Inc. sells to wholesalers, including Norland Drug Company.",
    ],
)
def test_no_customer_where_the_buyer_is_not_the_filers(rules, text):
    assert found(rules, text, "CUSTOMER_OF") == set()


def test_a_long_list_of_named_competitors_gives_every_name(rules):
    names = [
        "Arista Networks, Inc.",
        "Bexley Inc.",
        "Check Vale Software Ltd.",
        "Dalmore Holding Company, Inc.",
        "F5, Inc.",
        "Hartwell Packard Enterprise Company",
        "Huawen Technologies Co., Ltd.",
        "Palo Verde Networks, Inc.",
        "Zoomer Video Communications, Inc.",
    ]
    text = "Our competitors include " + "; ".join(names[:-1]) + "; and " + names[-1]
    text += ", among others."
    assert accepted(rules, text, "COMPETES_WITH") == {
        (FILER, "COMPETES_WITH", n, None) for n in names
    }
    # "We expect continued competition from X, Y": the competitors are a fact
    expected = "We expect continued competition from Aldane Corporation and Bexley Inc."
    assert accepted(rules, expected, "COMPETES_WITH") == {
        (FILER, "COMPETES_WITH", "Aldane Corporation", None),
        (FILER, "COMPETES_WITH", "Bexley Inc.", None),
    }


# -- completed acquisitions in lower case, undated, without the acquirer ----------------------


@pytest.mark.parametrize(
    ("text", "edge"),
    [
        (
            "The 1998 acquisition of the Lalande Group expanded our presence in Europe.",
            ("Lalande Group", "SUBSIDIARY_OF", FILER, "FY1998"),
        ),
        (
            "Our acquisition of Norvale Systems Inc. increases our exposure to the healthcare "
            "market.",
            ("Norvale Systems Inc.", "SUBSIDIARY_OF", FILER, None),
        ),
        (
            "The acquisition of Norvale Systems Inc. was completed on March 3, 2023.",
            ("Norvale Systems Inc.", "SUBSIDIARY_OF", FILER, "FY2023"),
        ),
        (
            "On March 3, 2023, the acquisition of Norvale Systems Inc. was completed.",
            ("Norvale Systems Inc.", "SUBSIDIARY_OF", FILER, "FY2023"),
        ),
        # "The" that is part of the name stays in it
        (
            "The Company’s 2005 acquisition of The Gillmore Company added razors to our brands.",
            ("The Gillmore Company", "SUBSIDIARY_OF", FILER, "FY2005"),
        ),
    ],
)
def test_a_completed_acquisition_the_filer_states_of_itself(rules, text, edge):
    assert accepted(rules, text, "SUBSIDIARY_OF") == {edge}


@pytest.mark.parametrize(
    "text",
    [
        "We agreed to acquire Norvale Systems Inc., and our acquisition of Norvale Systems Inc. "
        "requires regulatory approval.",
        "Our acquisition of Norvale Systems Inc. is expected to close in 2025.",
        "Our pending acquisition of Norvale Systems Inc. increases our exposure to the "
        "healthcare market.",
        "The acquisition of Norvale Systems Inc. by Tarrant Group plc was completed on March 3, "
        "2023.",
        "The acquisition of Norvale Systems Inc. is subject to shareholder approval.",
        "The acquisition of Norvale Systems Inc. would increase our exposure to healthcare.",
        "Bexley Inc.'s acquisition of Norvale Systems Inc. was completed in 2023.",
        "Our acquisition of John Smith's shares increased our stake.",
        "Our former subsidiary, Orion Bancorp LLC, was sold in 2020.",
        # an effect that is not the filer's: no "our", "us" or "we" after the verb
        "Our acquisition of Norvale Systems Inc. increases competition in the market.",
    ],
)
def test_no_subsidiary_from_a_deal_pending_anothers_or_not_an_acquisition(rules, text):
    assert found(rules, text, "SUBSIDIARY_OF") == set()


def test_the_implied_acquirer_only_for_a_deal_the_sentence_opens_on_as_done():
    done = "The acquisition of Norvale Systems Inc. was completed on March 3, 2023."
    assert implied_acquirer(done, "Norvale Systems Inc.")
    assert not implied_acquirer(done, "Systems Inc.")  # the name must be the one acquired
    for text in (
        "The acquisition of Norvale Systems Inc. by Tarrant Group plc was completed in 2023.",
        "The acquisition of Norvale Systems Inc. is expected to be completed in 2025.",
        "Tarrant said the acquisition of Norvale Systems Inc. was completed.",
        "The acquisition of Norvale Systems Inc. will increase our exposure.",
        "",
        "The acquisition of ",
    ):
        assert not implied_acquirer(text, "Norvale Systems Inc."), text


def test_the_grounding_gate_still_wants_the_filer_for_a_deal_it_does_not_open_on():
    text = "Tarrant said the acquisition of Norvale Systems Inc. was completed in 2023."
    candidate = Candidate.of(
        CandidateTriple(
            subject="Norvale Systems Inc.", relation="SUBSIDIARY_OF", object=FILER, evidence=text
        )
    )
    verdict = judge(candidate, ChunkContext("c", text, 0, filer=Filer(FILER)))
    assert not verdict.accepted
    assert verdict.rejection is not None and verdict.rejection.reason == "entity_not_in_evidence"


@pytest.mark.parametrize(
    "text",
    [
        "The Company is the parent holding company of Harbor Bank, N.A.",
        "Example Holdings, Inc. is the holding company for Harbor Bank, N.A.",
        "The Company has one subsidiary, Harbor Bank, N.A.",
        'Harbor Bank, N.A. (the "Bank") is the Company\'s wholly owned banking subsidiary.',
    ],
)
def test_a_bank_holding_companys_subsidiary(rules, text):
    assert accepted(rules, text, "SUBSIDIARY_OF") == {
        ("Harbor Bank, N.A.", "SUBSIDIARY_OF", FILER, None)
    }


@pytest.mark.parametrize(
    "text",
    [
        # another company's holding company; a kind of company; no name; a former one
        "Tarrant Corp. is the holding company for Norvale Bank, N.A., one of our competitors.",
        "We are a bank holding company registered under the Bank Holding Company Act.",
        "The Company has one subsidiary in Canada.",
        "The Company had two subsidiaries: both were sold in 2020.",
        "Harbor Bank, N.A. is the Company's former subsidiary.",
        # "subsidiary" inside a possessive phrase about someone else
        "Harbor Bank, N.A. is the Company's subsidiary bank's largest customer.",
        "Harbor Bank, N.A. is our subsidiary bank's largest customer.",
    ],
)
def test_no_subsidiary_from_a_holding_company_of_another_or_no_name(rules, text):
    assert found(rules, text, "SUBSIDIARY_OF") == set()


# -- "its" after a filer named with a legal form ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Gamma Holdings, Inc. is a holding company that, through its subsidiaries, Northwind "
        "Insurance Company, writes auto insurance.",
        "Gamma Holdings, Inc. is a holding company that, through its wholly-owned subsidiary "
        "Northwind Insurance Company, writes auto insurance.",
    ],
)
def test_its_after_a_filer_named_with_a_legal_form_is_the_filer(rules, text):
    filer = "Gamma Holdings, Inc."
    assert accepted(rules, text, "SUBSIDIARY_OF", company=filer) == {
        ("Northwind Insurance Company", "SUBSIDIARY_OF", filer, None)
    }


def test_its_is_still_the_nearest_other_company_with_a_legal_form(rules):
    text = "We compete with Delta Partners, Inc. and its subsidiary Epsilon Capital LLC."
    assert accepted(rules, text, "SUBSIDIARY_OF", company="Gamma Holdings, Inc.") == {
        ("Epsilon Capital LLC", "SUBSIDIARY_OF", "Delta Partners, Inc.", None)
    }


# -- guidance in the shapes outlooks use ------------------------------------------------------


def _guides(rules: RulesBackend, text: str) -> list[tuple[str, str | None, dict[str, object]]]:
    return [
        (e[2], e[3], figure)
        for e, ok, figure in _judged(rules, text, section="10-K/Item 7")
        if ok and e[1] == "GUIDES"
    ]


def _money(value: float | None = None, low: float | None = None, high: float | None = None):
    return {"value": value, "low": low, "high": high, "unit": "USD"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We expect capital expenditures of approximately $2.5 billion in 2025.",
            [("capital expenditures", "FY2025", _money(2.5e9))],
        ),
        (
            "We expect full-year adjusted EPS of $5.10 to $5.30 for fiscal 2025.",
            [("adjusted EPS", "FY2025", _money(None, 5.1, 5.3))],
        ),
        (
            "In 2025, we expect operating margin of 20% to 22%.",
            [
                (
                    "operating margin",
                    "FY2025",
                    {"value": None, "low": 20.0, "high": 22.0, "unit": "%"},
                )
            ],
        ),
        (
            "We expect revenue growth of 5% to 7% in fiscal 2026.",
            [("revenue growth", "FY2026", {"value": None, "low": 5.0, "high": 7.0, "unit": "%"})],
        ),
        (
            "We anticipate that capital expenditures will be in the range of $800 million to "
            "$900 million in fiscal 2026.",
            [("capital expenditures", "FY2026", _money(None, 8e8, 9e8))],
        ),
        (
            "For 2025, we are targeting free cash flow of at least $3 billion.",
            [("free cash flow", "FY2025", _money(3e9))],
        ),
        # the period from the heading above
        (
            "Outlook for 2025\n\nWe expect capital expenditures of approximately $1.2 billion.",
            [("capital expenditures", "FY2025", _money(1.2e9))],
        ),
    ],
)
def test_guidance_in_the_shapes_outlooks_use(rules, text, expected):
    assert _guides(rules, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # a sensitivity
        "We expect interest expense of approximately $20 million for each 1% increase in rates.",
        "A 10% increase in interest rates would reduce our net income by approximately $20 "
        "million in 2025.",
        # a past figure, a present estimate, a change with no measure, a target without a figure
        "Capital expenditures were $2.1 billion in 2024.",
        "We estimate the fair value of the reporting unit at $4.2 billion as of December 31, 2024.",
        "We expect a decline of 5% in demand next year.",
        "We expect the impact of approximately $30 million on operating income.",
        "Our target is to reach net zero emissions by 2050.",
        "We aim to reduce our operating costs over the next three years.",
    ],
)
def test_no_guidance_from_a_sensitivity_a_past_figure_or_no_figure(rules, text):
    assert _guides(rules, text) == []


# -- hostile input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "bottlers, including",
        "Resellers, including , purchase our products.",
        "We expect capital expenditures of $",
        "We expect capital expenditures of approximately $NaN billion in 2025.",
        f"We expect capital expenditures of approximately ${math.inf} billion in 2025.",
        "Our lessees include '; DROP TABLE edges; --",
        "The acquisition of ../../etc/passwd was completed in 2023.",
        "Our largest wholesalers, " + "A" * 5000 + " Inc., accounted for 80% of our revenues.",
        "We sell to distributors, including " + ", ".join(["Acme Inc."] * 400) + ".",
    ],
)
def test_odd_and_hostile_text_neither_fails_nor_invents_a_relation(rules, text):
    for edge, _ok, figure in _judged(rules, text):
        assert edge[0] and edge[2]
        value = figure["value"]
        assert value is None or (isinstance(value, float) and math.isfinite(value))
        if edge[1] == "CUSTOMER_OF":
            assert "DROP" not in edge[0] and "passwd" not in edge[0]


# -- a curated short name that is another registrant's ticker ----------------------------------

BOYD = {"cik": "0000906553", "ticker": "BYD", "title": "BOYD GAMING CORP"}


def test_a_short_name_that_is_another_registrants_ticker_is_not_cut_from_a_longer_name():
    with_ticker = RulesBackend.from_rows([BOYD])
    text = "Our competitors include BYD Auto, Rivian and Lucid."
    assert accepted(with_ticker, text, "COMPETES_WITH") == {
        (FILER, "COMPETES_WITH", "BYD Auto", None),
        (FILER, "COMPETES_WITH", "Rivian", None),
        (FILER, "COMPETES_WITH", "Lucid", None),
    }
    [byd] = [m for m in with_ticker.gazetteer.find(text) if m.name.startswith("BYD")]
    assert (byd.name, byd.entity_key) == ("BYD Auto", None)
    # written alone, or followed by a list word, it stays the curated name as written
    alone = "We compete with BYD and Tesla."
    assert (FILER, "COMPETES_WITH", "BYD", None) in accepted(with_ticker, alone, "COMPETES_WITH")
    # with no registrant of that ticker, the curated company is as before
    [plain] = [m for m in RulesBackend.from_rows([]).gazetteer.find(text) if "BYD" in m.name]
    assert plain.name == "BYD" and plain.entity_key is not None
