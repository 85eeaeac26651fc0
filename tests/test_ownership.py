"""Ownership beyond fixed cues (issue 22): completed acquisitions, appositions the gates must not
read as forward-looking, and Exhibit 21 lists in tables and in plain text. Each sentence below is
written in the way filings state these facts; the names are invented where the pattern, not the
company, is what is tested."""

from __future__ import annotations

import pytest

from graphrag_core.extraction.backends.base import ChunkInput
from graphrag_core.extraction.backends.rules_backend import RulesBackend
from graphrag_core.extraction.gates import Candidate, ChunkContext, judge
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.ownership import acquisition_period, apposition, blank, exhibit21_name
from graphrag_core.extraction.triples import CandidateTriple


@pytest.fixture(scope="module")
def rules() -> RulesBackend:
    return RulesBackend.from_rows([])


def _chunk(
    text: str,
    company: str = "Example Holdings, Inc.",
    section: str = "10-K/Item 1",
    kind: str = "prose",
) -> ChunkInput:
    return ChunkInput("c", "f", section, text, "0" * 64, None, company, kind=kind)


def _subsidiaries(
    rules: RulesBackend, text: str, company: str = "Example Holdings, Inc.", **kw
) -> list[tuple[str, str, str | None]]:
    return [
        (t.subject, t.object, t.period)
        for t in rules.triples(_chunk(text, company, **kw))
        if t.relation == "SUBSIDIARY_OF"
    ]


def _verdict(subject: str, obj: str, text: str, filer: str):
    candidate = Candidate.of(
        CandidateTriple(subject=subject, relation="SUBSIDIARY_OF", object=obj, evidence=text)
    )
    return judge(candidate, ChunkContext("c", text, 0, filer=Filer(filer)))


# -- completed acquisitions -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "On February 12, 2024, we completed the acquisition of ImmunoGen, Inc. "
            "(ImmunoGen) for $10.1 billion.",
            [("ImmunoGen, Inc.", "FY2024")],
        ),
        (
            "In fiscal 2023, the Company acquired all of the outstanding shares of "
            "Northwind Widgets GmbH.",
            [("Northwind Widgets GmbH", "FY2023")],
        ),
        (
            "Following the completion of our acquisition of Tailspin Bio Inc. in December "
            "2023, we integrated its sites.",
            [("Tailspin Bio Inc.", "FY2023")],
        ),
        (
            "In May 2022, we closed our previously announced acquisition of Fabrikam Software Ltd.",
            [("Fabrikam Software Ltd.", "FY2022")],
        ),
    ],
)
def test_a_completed_acquisition_makes_the_acquired_company_a_dated_subsidiary(
    rules, text, expected
):
    assert _subsidiaries(rules, text) == [
        (name, "Example Holdings, Inc.", period) for name, period in expected
    ]


@pytest.mark.parametrize(
    "text",
    [
        # announced, pending, expected: no completed fact
        "In December 2023, we entered into a definitive agreement to acquire Contoso "
        "Therapeutics, Inc.",
        "We expect to complete the acquisition of Contoso Therapeutics, Inc. in mid-2024.",
        # a divestiture: what was sold is no subsidiary
        "In 2023, we completed the sale of Litware Aesthetics Ltd. to Proseware Corp.",
        # a part of a company, a minority stake, the filer being acquired
        "In 2022, we completed the acquisition of Adatum's consumer health business.",
        "We acquired a 49% interest in Woodgrove Holdings Ltd. in 2022.",
        "In 2021, the Company completed the acquisition of the Company by Blue Yonder Partners.",
    ],
)
def test_deals_not_completed_parts_stakes_and_sales_are_no_subsidiary(rules, text):
    assert _subsidiaries(rules, text) == []


def test_an_acquisition_stated_in_the_future_is_dropped_by_the_gates():
    text = "We will complete the acquisition of Contoso Therapeutics, Inc. in 2025."
    verdict = _verdict(
        "Contoso Therapeutics, Inc.", "Example Holdings, Inc.", text, "Example Holdings, Inc."
    )
    assert (
        verdict.rejection is not None and verdict.rejection.reason == "forward_looking_not_guides"
    )


def test_the_acquisition_period_is_the_fiscal_year_else_the_dates_year():
    assert acquisition_period("In fiscal 2024, on August 1, 2023, we acquired X.") == "FY2024"
    assert acquisition_period("On November 14, 2023, we acquired X.") == "FY2023"
    assert acquisition_period("We acquired X.") is None


# -- appositions and names the mood gates must not read ---------------------------------------


def test_an_apposition_states_ownership_whatever_the_sentence_plans():
    text = (
        "We will continue to collaborate with Alexion, a subsidiary of AstraZeneca, on the program."
    )
    assert _verdict("Alexion", "AstraZeneca", text, "Ionis Pharmaceuticals, Inc.").accepted
    ours = "Beta Ltd., our wholly-owned subsidiary, will build a plant in 2026."
    assert _verdict("Beta Ltd.", "Acme Corp", ours, "Acme Corp").accepted


def test_a_subsidiarys_name_is_no_cue_of_mood():
    text = "Fully Will Limited is our wholly-owned subsidiary."
    assert _verdict("Fully Will Limited", "Acme Corp", text, "Acme Corp").accepted
    # the sentence's own future tense still rejects
    planned = "We will acquire Beta Ltd., which will become our subsidiary."
    assert not _verdict("Beta Ltd.", "Acme Corp", planned, "Acme Corp").accepted


def test_an_apposition_is_only_one_that_starts_at_the_subject():
    text = "Alexion collaborates with Beta, a subsidiary of Gamma Corp."
    assert apposition(text, (0, 7), (48, 53)) is None
    assert apposition("Beta Ltd, a subsidiary of Gamma Corp.", (0, 4), (26, 31)) == (0, 31)
    assert blank("Fully Will Limited is ours", [(0, 18)]) == "XXXXX XXXX XXXXXXX is ours"


# -- Exhibit 21 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "name"),
    [
        ("Acme Europe B.V. (1)         Netherlands   100%", "Acme Europe B.V."),
        ("Gamma LLC (Delaware)", "Gamma LLC"),
        ("Delta Partners, L.P. (a Delaware limited partnership)", "Delta Partners, L.P."),
        ("* Acme Japan K.K. ........ Japan", "Acme Japan K.K."),
        ("Epsilon Corp. 100%", "Epsilon Corp."),
        ("Zeta S.A.*", "Zeta S.A."),
        ("Subsidiaries of the Registrant", None),
        ("(1) Owned 51% by the Company.", None),
        ("Name of Subsidiary", None),
    ],
)
def test_an_exhibit_21_row_is_cleaned_to_the_subsidiarys_name(row, name):
    assert exhibit21_name(row) == name


def test_a_plain_text_exhibit_21_lists_one_subsidiary_a_line(rules):
    text = (
        "Subsidiaries of the Registrant\n\nName                         Jurisdiction\n"
        "Acme Holdings, Inc.          Delaware\nAcme Europe B.V. (1)         Netherlands   100%\n"
        "Fully Will Limited\tHong Kong\n(1) Owned 51% by the Company."
    )
    assert [
        s for s, _, _ in _subsidiaries(rules, text, "Acme Corp", section="10-K/Exhibit 21")
    ] == [
        "Acme Holdings, Inc.",
        "Acme Europe B.V.",
        "Fully Will Limited",
    ]


def test_exhibit_21_table_rows_drop_footnote_marks_and_blank_indent_cells(rules):
    table = (
        "| Name | Jurisdiction |\n|---|---|\n| Alpha Ltd. (2) | United Kingdom |\n|  | Beta "
        "S.A.* | Spain |"
    )
    assert [
        s
        for s, _, _ in _subsidiaries(
            rules, table, "Acme Corp", section="10-K/Exhibit 21", kind="table"
        )
    ] == [
        "Alpha Ltd.",
        "Beta S.A.",
    ]


@pytest.mark.parametrize(
    ("row", "name"),
    [
        # lower-case legal forms and connectors, a name opening in lower case, a legal form in
        # parentheses: all still names
        ("iTunes K.K.", "iTunes K.K."),
        ("J.P. Morgan Securities plc", "J.P. Morgan Securities plc"),
        ("BEB Erdgas und Erdoel GmbH & Co. KG (4) (5)", "BEB Erdgas und Erdoel GmbH & Co. KG"),
        ("ExxonMobil Egypt (S.A.E.)", "ExxonMobil Egypt (S.A.E.)"),
        ("* Bank of Example Ltd.", "Bank of Example Ltd."),
        ("NOTES:", None),
        ("Certain subsidiaries are omitted pursuant to Item 601", None),
    ],
)
def test_exhibit_21_names_keep_their_lower_case_legal_forms_and_notes_are_no_rows(row, name):
    assert exhibit21_name(row) == name


def test_an_acquired_brand_or_a_pending_completion_is_no_subsidiary(rules):
    assert (
        _subsidiaries(rules, "The Company acquired NOVACET® in December 1997 from a partner.") == []
    )
    pending = (
        "Completion of our acquisition of Spirit is subject to a number of conditions set forth "
        "in the Merger Agreement."
    )
    assert _subsidiaries(rules, pending) == []
    assert _subsidiaries(
        rules, "In fiscal 2024, we completed our acquisition of Pismo, and entered into agreements."
    ) == [("Pismo", "Example Holdings, Inc.", "FY2024")]


@pytest.mark.parametrize(
    "text",
    [
        "Northwind Traders, Inc. is our principal operating subsidiary.",
        "Our principal operating subsidiary is Northwind Traders, Inc., a Texas insurer.",
        "We conduct our business through our principal operating subsidiary, Northwind "
        "Traders, Inc.",
        "The Company's principal operating subsidiary, Northwind Traders, Inc. (Northwind), "
        "writes policies.",
    ],
)
def test_a_principal_operating_subsidiary_is_the_filers(rules, text):
    assert [(s, o) for s, o, _ in _subsidiaries(rules, text, "GAINSCO INC")] == [
        ("Northwind Traders, Inc.", "GAINSCO INC")
    ]
