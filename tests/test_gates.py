"""The gates, one fix at a time, on verbatim passages of the reviewed gold set (the chunks live in
tests/fixtures/extraction_gold/cases.jsonl, so these tests need no corpus). Each test names the
behaviour it pins; on the gates as they were before the gold set, each fix's test failed (a few
parameters and `test_a_later_year_or_an_outlook_heading_needs_a_figure_in_the_quote` guard
rules added with the fixes, which the old gates did not have to get wrong)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_core.extraction.clauses import clauses, mood
from graphrag_core.extraction.evaluation import GoldCase, judge_gate_cases, load_gold
from graphrag_core.extraction.gates import (
    FORWARD_LOOKING_TO_GUIDES,
    HYPOTHETICAL_TO_RISK,
    PLACEHOLDER_SCOPED,
    Candidate,
    ChunkContext,
    Reason,
    judge,
)
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.triples import CandidateTriple
from graphrag_core.text.sentences import sentence_spans

GOLD = Path(__file__).parent / "fixtures" / "extraction_gold" / "cases.jsonl"


@pytest.fixture(scope="module")
def gold() -> dict[str, GoldCase]:
    return {c.case_id: c for c in load_gold(GOLD)}


def propose(subject: str, relation: str, obj: str, evidence: str, **kw) -> Candidate:
    return Candidate.of(
        CandidateTriple(subject=subject, relation=relation, object=obj, evidence=evidence, **kw)
    )


def quote(case: GoldCase, start: str) -> str:
    """The chunk's text from `start` to the end of its sentence (verbatim)."""
    a = case.text.index(start)
    end = next(e for s, e in sentence_spans(case.text, split_lines=True) if s <= a < e)
    return case.text[a:end]


# -- clause scoping ---------------------------------------------------------------------------


def test_a_modal_in_another_clause_does_not_make_a_fact_hypothetical(gold):
    """'…financial institutions may issue both Mastercard- and Visa-branded payment products, and
    we compete with Visa…': the 'may' belongs to the first clause (it used to turn the edge into
    `Mastercard EXPOSED_TO_RISK Visa`)."""
    case = gold["ma-10-k-5a3496dc"]
    sentence = quote(case, "Globally, financial institutions may issue")
    verdict = judge(propose(case.company, "COMPETES_WITH", "Visa", sentence), case.context())
    assert verdict.outcome == "accepted"
    assert (verdict.candidate.relation, verdict.candidate.object) == ("COMPETES_WITH", "Visa")


def test_a_fact_in_a_parenthetical_survives_the_negation_and_modals_around_it(gold):
    """Boeing: '(including those at our wholly-owned subsidiaries Boeing Distribution, Inc. in 2023
    and Jeppesen, Inc. in 2022) have not materially affected … would not result …'."""
    case = gold["ba-10-k-ff24d0cc"]
    sentence = quote(case, "While prior cyber-related attacks")
    for sub in ("Boeing Distribution, Inc.", "Jeppesen, Inc."):
        verdict = judge(propose(sub, "SUBSIDIARY_OF", case.company, sentence), case.context())
        assert verdict.outcome == "accepted", verdict.rejection
        assert verdict.candidate.relation == "SUBSIDIARY_OF"


def test_no_longer_inside_a_condition_describes_the_risk(gold):
    case = gold["ma-10-k-21106c76"]
    sentence = quote(case, "To the extent geopolitical events")
    verdict = judge(
        propose(
            case.company, "EXPOSED_TO_RISK", "loss of global interoperable standards", sentence
        ),
        case.context(),
    )
    assert verdict.accepted


@pytest.mark.parametrize(
    ("case_id", "start", "risk"),
    [
        (
            "ma-10-k-ae328bda",
            "Iran and Syria have been identified",
            "operations in Iran and Syria",
        ),  # "we have no"
        (
            "abbv-10-k-08e31d5b",
            "While it is not feasible to predict",
            "environmental remediation costs",
        ),  # should not have a material adverse effect
        ("abbv-10-k-380bee1f", "AbbVie has no single customer", "loss of a single customer"),
        ("crm-10-k-33d7dcfa", "None of our customers accounted", "customer concentration"),
    ],
)
def test_a_denied_risk_is_dropped(gold, case_id, start, risk):
    case = gold[case_id]
    verdict = judge(
        propose(case.company, "EXPOSED_TO_RISK", risk, quote(case, start)), case.context()
    )
    assert verdict.rejection is not None and verdict.rejection.reason is Reason.NEGATED


def test_a_negation_that_is_part_of_a_condition_is_not_a_denial():
    sentence = (
        "If our foundry partners do not provide sufficient supply, we may not be able to meet "
        "demand."
    )
    assert not mood(sentence, [(0, len(sentence))]).negated
    assert mood(sentence, [(0, len(sentence))]).hypothetical
    denial = (
        "We do not expect to receive any revenue from ABP-450 unless and until we obtain "
        "regulatory approval."
    )
    assert mood(denial, [(0, len(denial))]).negated  # the "unless" clause is a clause of its own


def test_a_will_in_another_clause_does_not_reject_a_fact():
    text = "We purchase memory from SK Hynix Inc., and we will continue to expand our supply base."
    context = ChunkContext("c", text, 0, filer=Filer("NVIDIA CORP", "0001045810", "NVDA"))
    verdict = judge(propose("SK Hynix Inc.", "SUPPLIES", "NVIDIA CORP", text), context)
    assert verdict.outcome == "accepted", verdict.rejection
    planned = "We will purchase memory from SK Hynix Inc. next year."
    verdict = judge(
        propose("SK Hynix Inc.", "SUPPLIES", "NVIDIA CORP", planned),
        ChunkContext("c", planned, 0, filer=context.filer),
    )
    assert (
        verdict.rejection is not None
        and verdict.rejection.reason is Reason.FORWARD_LOOKING_NOT_GUIDES
    )


def test_clauses_cut_at_conjunctions_with_a_subject_and_around_parentheses():
    sentence = (
        "Globally, banks may issue both cards, and we compete with Visa (including in the U.S.) "
        "for business."
    )
    texts = [sentence[c.start : c.end].strip() for c in clauses(sentence)]
    assert "Globally, banks may issue both cards" in texts
    assert "including in the U.S." in texts
    assert any(t.startswith("and we compete with Visa") for t in texts)


# -- forward-looking --------------------------------------------------------------------------


def test_a_forward_looking_metric_is_relabelled_guides_keeping_its_range_and_period(gold):
    case = gold["amzn-10-k-6a41d361"]
    sentence = quote(case, "Operating income is expected")
    proposed = propose(
        case.company,
        "REPORTS_METRIC",
        "operating income",
        sentence,
        value_low=14.0e9,
        value_high=18.0e9,
        unit="USD",
        period="Q1-FY2025",
    )
    verdict = judge(proposed, case.context())
    assert verdict.outcome == "relabelled"
    c = verdict.candidate
    assert (c.relation, c.value_low, c.value_high, c.period) == (
        "GUIDES",
        14.0e9,
        18.0e9,
        "Q1-FY2025",
    )
    assert FORWARD_LOOKING_TO_GUIDES in (c.adjustment or "")


def test_estimates_and_later_fiscal_periods_are_forward_looking_but_dates_are_not(gold):
    abbvie = gold["abbv-10-k-08e31d5b"]
    estimate = quote(abbvie, "In 2025, capital expenditures for pollution control")
    assert judge(
        propose(
            abbvie.company,
            "GUIDES",
            "capital expenditures for pollution control",
            estimate,
            value=15e6,
            unit="USD",
            period="FY2025",
        ),
        abbvie.context(),
    ).accepted
    text = "Fiscal 2026 revenue of $10.0 billion to $10.2 billion."
    context = ChunkContext("c", text, 0, filer=Filer("Example Corp."), fiscal_year=2025)
    assert judge(
        propose("Example Corp.", "GUIDES", "revenue", text, value_low=10.0e9, value_high=10.2e9),
        context,
    ).accepted
    home_depot = gold[
        "hd-10-k-cb331a58"
    ]  # fiscal 2024; "In February 2025, we announced…" is a date
    declared = quote(home_depot, "In February 2025, we announced")
    verdict = judge(
        propose(home_depot.company, "GUIDES", "quarterly cash dividend", declared, value=2.30),
        home_depot.context(),
    )
    assert (
        verdict.rejection is not None
        and verdict.rejection.reason is Reason.GUIDES_NOT_FORWARD_LOOKING
    )


def test_an_expectation_in_the_next_clause_does_not_make_last_years_figure_guidance(gold):
    case = gold["meta-10-k-474bd482"]
    sentence = quote(case, "For example, our investments in Reality Labs")
    verdict = judge(
        propose(case.company, "GUIDES", "Reality Labs operating loss", sentence, value=17.73e9),
        case.context(),
    )
    assert (
        verdict.rejection is not None
        and verdict.rejection.reason is Reason.GUIDES_NOT_FORWARD_LOOKING
    )


@pytest.mark.parametrize(
    "sentence",
    [
        # verbatim from corpus filings (Apple, GAINSCO, Tesla 10-Ks)
        "Like most major corporations, the Company’s information systems are a target of attacks.",
        "The Company early adopted the guidance of ASC 820-10-65, Fair Value Measurements "
        "and Disclosures – "
        "Overall – Transition and Open Effective Date Information (“ASC820-10-65”) in the "
        "first quarter of 2009.",
        "The Company’s estimates of fair value for financial assets and financial "
        "liabilities are based on the "
        "framework established in Financial Accounting Standards Board (“FASB”) Accounting "
        "Standards Codification.",
        "Warranty reserves include our management’s best estimates of the projected costs "
        "to repair or to replace "
        "items under warranty.",
    ],
)
def test_outlook_words_in_a_backward_use_do_not_make_a_metric_guidance(sentence):
    """'a target of attacks', 'the guidance of ASC 820', 'estimates of fair value' are no outlook:
    a metric quoted there is a metric from prose, not guidance."""
    context = ChunkContext("c", sentence, 0, filer=Filer("Example Corp."), fiscal_year=2024)
    verdict = judge(propose("Example Corp.", "REPORTS_METRIC", "revenue", sentence), context)
    assert verdict.rejection is not None and verdict.rejection.reason is Reason.METRIC_FROM_TEXT


def test_a_later_year_or_an_outlook_heading_needs_a_figure_in_the_quote():
    """A year is when, not how much; an 'Outlook' heading above a sentence that states no figure
    guides nothing (verbatim from the AbbVie and Union Pacific 10-Ks)."""
    ira = "Part B drugs (prices effective beginning in 2028) that are more than nine years"
    context = ChunkContext("c", ira, 0, filer=Filer("AbbVie Inc."), fiscal_year=2024)
    verdict = judge(
        propose("AbbVie Inc.", "REPORTS_METRIC", "drug prices", ira, value=2028, unit="USD"),
        context,
    )
    assert verdict.rejection is not None and verdict.rejection.reason is Reason.METRIC_FROM_TEXT
    text = (
        "2025 Outlook\n\nWe generate freight revenues by transporting products from our three "
        "commodity groups."
    )
    context = ChunkContext("c", text, 0, filer=Filer("Union Pacific Corporation"), fiscal_year=2024)
    sentence = text.split("\n\n")[1]
    verdict = judge(
        propose("Union Pacific Corporation", "GUIDES", "freight revenues", sentence), context
    )
    assert (
        verdict.rejection is not None
        and verdict.rejection.reason is Reason.GUIDES_NOT_FORWARD_LOOKING
    )


# -- hypotheticals become the exposed party's risk ----------------------------------------------


def test_a_hypothetical_relationship_is_the_filers_risk_with_a_risk_as_object(gold):
    case = gold["nvda-10-k-f20735ae"]
    sentence = quote(case, "If we underestimate our customers' future demand")
    verdict = judge(propose("foundry partners", "SUPPLIES", case.company, sentence), case.context())
    c = verdict.candidate
    assert verdict.outcome == "relabelled"
    assert (c.subject, c.relation, c.object) == (
        case.company,
        "EXPOSED_TO_RISK",
        "dependence on foundry partners",
    )
    assert HYPOTHETICAL_TO_RISK in (c.adjustment or "")


def test_a_company_is_never_a_risk(gold):
    case = gold["nvda-10-k-16ea930a"]
    sentence = quote(case, "We utilize foundries")
    verdict = judge(
        propose(
            case.company,
            "EXPOSED_TO_RISK",
            "Taiwan Semiconductor Manufacturing Company Limited",
            sentence,
        ),
        case.context(),
    )
    assert verdict.rejection is not None and verdict.rejection.reason is Reason.RISK_IS_AN_ENTITY


# -- values -----------------------------------------------------------------------------------


def test_years_and_percentages_are_never_scaled_by_the_scale_header(gold):
    table = gold["pg-10-k-01bcde0c"]  # "amounts in millions", columns 2025 and 2024, a % column
    row = "| Operating income | 20,451 | 18,545 | 10% |"
    context = table.context()
    assert "millions" in (context.scale_header or "")
    for value in (2025e6, 10e6):  # 2025 is a year, 10% a percentage
        verdict = judge(
            propose(table.company, "REPORTS_METRIC", "operating income", row, value=value), context
        )
        assert (
            verdict.rejection is not None and verdict.rejection.reason is Reason.VALUE_NOT_IN_CHUNK
        ), value
    verdict = judge(
        propose(table.company, "REPORTS_METRIC", "operating income", row, value=20451e6), context
    )
    assert verdict.rejection is not None and verdict.rejection.reason is Reason.METRIC_FROM_TEXT
    dated = ChunkContext("c", "As of December 31, 2024, the backlog was 512.", 0, "in millions")
    assert (
        judge(propose("X", "GUIDES", "backlog", dated.text, value=31e6), dated).rejection.reason
        is Reason.VALUE_NOT_IN_CHUNK
    )  # type: ignore[union-attr]


# -- boilerplate ------------------------------------------------------------------------------


def test_safe_harbor_legends_do_not_fan_out_into_risks(gold):
    case = gold["abvc-8-k-d863d2ae"]
    legend = quote(case, "Such risks and uncertainties include")
    verdict = judge(
        propose(
            case.company,
            "EXPOSED_TO_RISK",
            "changes in the size and nature of our competition",
            legend,
        ),
        case.context(),
    )
    assert (
        verdict.rejection is not None and verdict.rejection.reason is Reason.SAFE_HARBOR_BOILERPLATE
    )


# -- entity grounding -------------------------------------------------------------------------


def test_a_real_quote_with_a_counterparty_it_does_not_name_is_rejected(gold):
    ibm = gold["ibm-10-k-037e6070"]
    software = quote(ibm, "The principal competitors in this segment include")
    verdict = judge(propose(ibm.company, "COMPETES_WITH", "Accenture", software), ibm.context())
    assert (
        verdict.rejection is not None and verdict.rejection.reason is Reason.ENTITY_NOT_IN_EVIDENCE
    )
    # Named by an alias the chunk defines ("…, or TSMC"), and the filer by "we".
    nvidia = gold["nvda-10-k-16ea930a"]
    tsmc = (
        "We utilize foundries, such as Taiwan Semiconductor Manufacturing Company Limited, or TSMC"
    )
    assert judge(propose("TSMC", "SUPPLIES", nvidia.company, tsmc), nvidia.context()).accepted
    assert judge(
        propose("Taiwan Semiconductor Manufacturing Company Limited", "SUPPLIES", "NVIDIA", tsmc),
        nvidia.context(),
    ).accepted


# -- placeholders -----------------------------------------------------------------------------


def test_placeholders_are_scoped_to_their_filer(gold):
    case = gold["nvda-10-k-b160ff7e"]
    sentence = quote(case, "Sales to direct Customers A, B and C")
    verdict = judge(
        propose("Customer B", "CUSTOMER_OF", case.company, sentence, value=11, unit="%"),
        case.context(),
    )
    assert verdict.accepted
    assert verdict.candidate.subject == f"Customer B ({case.company})"
    assert PLACEHOLDER_SCOPED in (verdict.candidate.adjustment or "")


# -- the gold set as a whole ------------------------------------------------------------------


def test_every_negative_of_the_gold_set_meets_its_expected_outcome(gold):
    tally = judge_gate_cases(list(gold.values()), with_relations=False)
    negatives = tally.negatives
    right, total = tally.accuracy(negatives)
    assert total >= 30
    assert right == total, tally.misses
