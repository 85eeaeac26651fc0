"""Ownership stated in prose in the shapes filings use, not in fixed cue strings (issue 22): any
descriptive words before "subsidiary", an owner written as "its" or as a possessive, lists whose
items carry aliases, the filer and its subsidiaries "including" one, "owns all of the stock of",
lists before "are subsidiaries of", acquisitions under the filer's own name, dated "our
acquisition of X". The names are invented: the shape is what is tested. Every triple found must
also pass the gates as it is, since the gates see what the rules emit."""

from __future__ import annotations

import pytest

from graphrag_core.extraction.backends.base import ChunkInput
from graphrag_core.extraction.backends.rules_backend import RulesBackend
from graphrag_core.extraction.clauses import FORWARD
from graphrag_core.extraction.gates import Candidate, ChunkContext, judge
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.triples import CandidateTriple

FILER = "Acme Machinery Inc."


@pytest.fixture(scope="module")
def rules() -> RulesBackend:
    return RulesBackend.from_rows([])


def _owned(
    rules: RulesBackend, text: str, company: str = FILER, *, all_accepted: bool = True
) -> list[tuple[str, str, str | None]]:
    """(subsidiary, parent, period) of each SUBSIDIARY_OF the rules find and the gates accept;
    `all_accepted`: each one the rules find must be accepted."""
    chunk = ChunkInput("c", "f", "10-K/Item 1", text, "0" * 64, None, company)
    out = []
    for t in rules.triples(chunk):
        if t.relation != "SUBSIDIARY_OF":
            continue
        candidate = Candidate.of(
            CandidateTriple(
                subject=t.subject,
                relation=t.relation,
                object=t.object,
                evidence=t.evidence,
                period=t.period,
            )
        )
        verdict = judge(candidate, ChunkContext("c", text, 0, filer=Filer(company)))
        assert verdict.accepted or not all_accepted, (t, verdict.rejection)
        if verdict.accepted:
            out.append((t.subject, t.object, t.period))
    return out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an owner "its" that is the filer, a list whose items carry their aliases
        (
            "Acme Machinery Inc. is a holding company that, through its wholly-owned "
            "subsidiaries, Northwind Insurance Company, Inc. (“Northwind”), Gamma Service Corp. "
            "(“GSC”) and Southern Agency, Inc. (“Southern Agency”), writes auto insurance.",
            [
                ("Northwind Insurance Company, Inc.", FILER, None),
                ("Gamma Service Corp.", FILER, None),
                ("Southern Agency, Inc.", FILER, None),
            ],
        ),
        # descriptive words of any kind before "subsidiary"
        (
            "We execute our strategy through our insurance company subsidiary, Northwind "
            "Insurance Company, Inc., and our agency subsidiary.",
            [("Northwind Insurance Company, Inc.", FILER, None)],
        ),
        (
            "Our U.S. bank subsidiary, Acme National Bank (ANB), is subject to regulation.",
            [("Acme National Bank", FILER, None)],
        ),
        (
            "Acme Financial Services Corporation (Acme Financial), a wholly-owned finance "
            "subsidiary of Acme Machinery Inc., provides retail financing.",
            [("Acme Financial Services Corporation", FILER, None)],
        ),
        (
            "Acme Credit Company LLC is an indirect, wholly owned subsidiary of Acme Machinery "
            "Inc.",
            [("Acme Credit Company LLC", FILER, None)],
        ),
        (
            "On June 28, 2017, the Parent entered into a support agreement with Westwind "
            "Holdings, LLC, an intermediate holding company and subsidiary of the Parent (the "
            "“IHC”).",
            [("Westwind Holdings, LLC", FILER, None)],
        ),
        (
            "As a result of the merger, Zenith Labs, Inc. became our wholly-owned subsidiary.",
            [("Zenith Labs, Inc.", FILER, None)],
        ),
        (
            "Zenith Labs merged with a subsidiary of the Company, with Zenith Labs, Inc. "
            "surviving as a wholly owned subsidiary of the Company.",
            [("Zenith Labs, Inc.", FILER, None)],
        ),
        # the filer and its subsidiaries, "including" one; a definition's "shall mean" is no plan
        (
            'All references to "Acme" and "we" shall mean Acme Machinery Inc. and its '
            "subsidiaries, including Acme Railroad Company, which we refer to as “ARR”.",
            [("Acme Railroad Company", FILER, None)],
        ),
        # the owner of all the stock; a list before "are (each) subsidiaries of"
        (
            "Acme Machinery Inc. is a holding company that owns all of the outstanding common "
            "stock of Alpha Power, Beta Power and Gamma Power.",
            [
                ("Alpha Power", FILER, None),
                ("Beta Power", FILER, None),
                ("Gamma Power", FILER, None),
            ],
        ),
        (
            "Alpha Power Company, Beta Power Company and Gamma Power Company are wholly-owned "
            "subsidiaries of Acme Machinery Inc.",
            [
                ("Alpha Power Company", FILER, None),
                ("Beta Power Company", FILER, None),
                ("Gamma Power Company", FILER, None),
            ],
        ),
        (
            "Delta Power, Epsilon Power and Zeta Power, each a wholly-owned subsidiary of "
            "Southwind Company, are vertically integrated utilities.",
            [
                ("Delta Power", "Southwind Company", None),
                ("Epsilon Power", "Southwind Company", None),
                ("Zeta Power", "Southwind Company", None),
            ],
        ),
        (
            "The traditional electric operating companies, Southwind Power, Southwind Gas and "
            "Southwind Nuclear are all wholly-owned subsidiaries of Acme Machinery Inc.",
            [
                ("Southwind Power", FILER, None),
                ("Southwind Gas", FILER, None),
                ("Southwind Nuclear", FILER, None),
            ],
        ),
        # a company that makes up a segment of the filer's
        (
            "Our Financial Products segment consists primarily of Acme Financial Services "
            "Corporation (Acme Financial) and its respective subsidiaries.",
            [("Acme Financial Services Corporation", FILER, None)],
        ),
        # the parent named as the company's kind; a list before "our … subsidiaries"
        (
            "Kestrel Biotech, Inc., an Acme Machinery company, markets the product.",
            [("Kestrel Biotech, Inc.", FILER, None)],
        ),
        (
            "We operate in Europe through Alpha Ltd., Beta GmbH and Gamma S.A., our wholly-owned "
            "subsidiaries, and through distributors.",
            [("Alpha Ltd.", FILER, None), ("Beta GmbH", FILER, None), ("Gamma S.A.", FILER, None)],
        ),
        # a possessive owner, the filer's or another company's
        (
            "Acme Machinery Inc.'s wholly owned subsidiaries, Acme Bank, Inc. and Acme Trust "
            "Company, operate 48 branches.",
            [("Acme Bank, Inc.", FILER, None), ("Acme Trust Company", FILER, None)],
        ),
        (
            "Fabrikam Holdings' subsidiary, Fabrikam Cloud LLC, hosts the service.",
            [("Fabrikam Cloud LLC", "Fabrikam Holdings", None)],
        ),
    ],
)
def test_a_subsidiary_stated_in_any_of_the_shapes_filings_use(rules, text, expected):
    assert _owned(rules, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the acquirer under the filer's own name, or a unit of the filer
        (
            "Acme Machinery Inc. completed its acquisition of Zephyr Energy, Inc. in October 2023.",
            [("Zephyr Energy, Inc.", FILER, "FY2023")],
        ),
        (
            "In December 2024, the Acme U.S. segment completed the acquisition of Vizor Holding "
            "Corp. for net cash consideration of $1.9 billion.",
            [("Vizor Holding Corp.", FILER, "FY2024")],
        ),
        # words between the article and "acquisition", an adverb before the verb
        (
            "On May 31, 2024, we completed our previously announced all-cash acquisition of "
            "Shockwave Devices, Inc. for $13.1 billion.",
            [("Shockwave Devices, Inc.", FILER, "FY2024")],
        ),
        (
            "On May 31, 2024, we completed the $13.1 billion acquisition of Shockwave Devices, "
            "Inc.",
            [("Shockwave Devices, Inc.", FILER, "FY2024")],
        ),
        (
            "Further, we recently acquired Vizor Holding Corp. and its subsidiaries, which "
            "collect data.",
            [("Vizor Holding Corp.", FILER, None)],
        ),
        (
            "In fiscal 2025, we acquired a majority stake in Prosa Pagos S.A. de C.V.",
            [("Prosa Pagos S.A. de C.V.", FILER, "FY2025")],
        ),
        (
            "In 2021, we acquired a controlling interest in Polaris Robotics GmbH.",
            [("Polaris Robotics GmbH", FILER, "FY2021")],
        ),
        (
            "On March 1, 2024, the Company purchased all of the outstanding shares of Orbit "
            "Analytics LLC.",
            [("Orbit Analytics LLC", FILER, "FY2024")],
        ),
        # "our acquisition of X" dated as done: by "since", a year before, a date or "completed"
        # after; the period is the deal's year, not the sentence's first one
        (
            "Our acquisition of Meridian Networks in 2020 expanded our canvas.",
            [("Meridian Networks", FILER, "FY2020")],
        ),
        (
            "Since our acquisition of Tinkerbank AB, an open banking platform, we continue to "
            "grow.",
            [("Tinkerbank AB", FILER, None)],
        ),
        (
            "In fiscal 2024, the Company recorded a charge on an asset acquired as part of the "
            "Company’s 2005 acquisition of The Shaving Company.",
            [("The Shaving Company", FILER, "FY2005")],
        ),
        (
            "We invested $7,845 million in acquisitions primarily for the acquisition of "
            "CloudCorp which was completed in the first quarter.",
            [("CloudCorp", FILER, None)],
        ),
        (
            "In the first six months of 2025, we invested $7.8 billion in acquisitions, including "
            "the acquisition of CloudCorp, and returned $3.1 billion to shareholders.",
            [("CloudCorp", FILER, "FY2025")],
        ),
        (
            "Our results include Brightline Systems, Inc., which we acquired in March 2022.",
            [("Brightline Systems, Inc.", FILER, "FY2022")],
        ),
    ],
)
def test_a_completed_acquisition_in_any_of_the_shapes_filings_use(rules, text, expected):
    assert _owned(rules, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # a former subsidiary, a clause between the article and "subsidiary"
        "Kappa Ltd., a former subsidiary of the Company, was sold in 2020.",
        "Kappa Ltd., a company that has a subsidiary of its own, is a customer.",
        # a date before an appositive "the insurance subsidiary"
        "At December 31, 2009, the insurance subsidiary held short-term investments.",
        # deals not done, weighed, or ended
        "Our pending acquisition of Spirit Aero Holdings, Inc. (Spirit) subjects us to risks.",
        "Whether we realize the benefits of these acquisitions, including our acquisition of "
        "Spirit Aero, depends on integration.",
        "We will assume Spirit Aero’s debt upon the closing of our acquisition of Spirit Aero, "
        "which is expected to occur later this year.",
        "In 2022, we announced the termination of our acquisition of Arm Limited in 2022.",
        # "our acquisition of X" undated and only weighed (an undated one that has already
        # changed the filer is done: tests/test_unseen_shapes.py); another buyer's deal; goods,
        # not a company, purchased
        "Our acquisition of Meridian Networks could expand our canvas.",
        "Globex Corp. completed its acquisition of Initech LLC in 2023.",
        "We purchased memory from Samsung Electronics in 2024.",
        # less than all the stock
        "Acme Machinery Inc. owns 40% of the outstanding common stock of Alpha Power.",
        # a segment of products, not of companies
        "Our Consumer Health segment consists primarily of Tylenol and Band-Aid products.",
        # a kind of company, not its parent
        "Kestrel Biotech, Inc., a biotechnology company, licenses the product to us.",
        # an owner that is a person; a deal dated but another buyer's
        "Kestrel Freight LLC is wholly owned by Mr. John Smith, our director.",
        "Goodwill relates to the acquisition of Initech LLC in 2020 by Globex Corp.",
        # a placeholder "subsidiaries" with no name after it
        "Our foreign subsidiaries in Canada and Mexico hold cash.",
    ],
)
def test_no_subsidiary_where_the_shape_is_not_one_of_ownership(rules, text):
    assert _owned(rules, text) == []


def test_a_definition_is_no_forward_looking_statement():
    assert (
        FORWARD.search("all references herein to “we” shall mean Acme and its subsidiaries") is None
    )
    assert FORWARD.search("the Company shall refer to Acme") is None
    assert FORWARD.search("we shall complete the plant in 2026") is not None
    assert FORWARD.search("it will close in 2026") is not None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "our subsidiary, ",
        "its wholly-owned subsidiaries, (“”), and",
        "X, a subsidiary of " * 200,
        "we completed the acquisition of '; DROP TABLE triples; -- Inc.",
        "owns all of the outstanding common stock of \x00\u202e Nul Corp.",
        "Acme Machinery Inc. and its subsidiaries, including " + "Beta Corp., " * 300,
    ],
)
def test_odd_and_hostile_text_neither_fails_nor_invents_a_subsidiary(rules, text):
    found = _owned(rules, text, all_accepted=False)
    for subsidiary, parent, _ in found:
        assert subsidiary.strip() and parent.strip()
        assert subsidiary in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Alpha Savings Bank is wholly owned by Acme Machinery Inc.",
            [("Alpha Savings Bank", FILER, None)],
        ),
        (
            "Kestrel Freight LLC, which is 100%-owned by Acme Machinery Inc., moves our goods.",
            [("Kestrel Freight LLC", FILER, None)],
        ),
        (
            "Brightline Systems, Inc. was acquired by the Company in March 2022.",
            [("Brightline Systems, Inc.", FILER, "FY2022")],
        ),
    ],
)
def test_ownership_stated_in_the_passive(rules, text, expected):
    assert _owned(rules, text) == expected


def test_its_is_the_nearest_companys_not_the_filers(rules):
    text = "We compete with Globex Corp. and its subsidiaries, including Initech LLC."
    assert _owned(rules, text) == [("Initech LLC", "Globex Corp.", None)]
    text = "We compete with Globex and its subsidiary, Initech LLC, in Europe."
    assert _owned(rules, text) == [("Initech LLC", "Globex", None)]


def test_a_passive_acquisition_by_another_buyer_or_one_pending_is_no_subsidiary(rules):
    assert _owned(rules, "Initech LLC was acquired by Globex Corp. in 2023.") == []
    assert _owned(rules, "Initech LLC is expected to be acquired by the Company in 2026.") == []
