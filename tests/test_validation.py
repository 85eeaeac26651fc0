"""The gates one by one, as pure functions, on real corpus passages; then the table they build."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.extraction.gates import (
    FORWARD_LOOKING_TO_GUIDES,
    HYPOTHETICAL_TO_RISK,
    Candidate,
    ChunkContext,
    Reason,
    Rejection,
    gate_evidence,
    gate_forward_looking,
    gate_grounding,
    gate_mood,
    gate_relation,
    gate_value,
    is_hypothetical,
    is_negated,
    judge,
)
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.triples import CandidateTriple, parse_output
from graphrag_core.extraction.validated_triples import rejection_summary, validate_extractions
from tests.corpus_passages import Passage, chunk_frame, chunked_filing

pytestmark = pytest.mark.corpus

NVDA_10K = "NVDA/10-K/nvda-10-k-2025-02-26.htm"
NVIDIA = Filer("NVIDIA CORP", "0001045810", "NVDA")


def candidate(
    relation: str, evidence: str, subject="NVIDIA", obj="X", value=None, unit=None, period=None
) -> Candidate:
    return Candidate.of(
        CandidateTriple(
            subject=subject,
            relation=relation,
            object=obj,
            value=value,
            unit=unit,
            period=period,
            evidence=evidence,
        )
    )


@pytest.fixture(scope="module")
def nvda(corpus_dir: Path, tmp_path_factory):
    return chunked_filing(corpus_dir, NVDA_10K, tmp_path_factory.mktemp("nvda"))


def context_with(filing, phrase: str, kind: str | None = None) -> ChunkContext:
    chunks = filing.chunks.filter(pl.col("text").str.contains(phrase, literal=True))
    if kind:
        chunks = chunks.filter(pl.col("kind") == kind)
    row = chunks.row(0, named=True)
    return ChunkContext(
        row["chunk_id"], row["text"], row["char_start"], row["scale_header"], filer=NVIDIA
    )


# -- gate 1 --------------------------------------------------------------------------------------


def test_relation_outside_the_vocabulary_is_rejected_first(nvda):
    chunk = context_with(nvda, "We utilize foundries")
    verdict = judge(candidate("ACQUIRED", "a quote that is not in the chunk either"), chunk)
    assert verdict.rejection.reason is Reason.UNKNOWN_RELATION  # gate 1 wins over gate 2
    assert gate_relation(candidate("SUPPLIES", "x"), chunk).relation == "SUPPLIES"
    assert isinstance(gate_relation(candidate("supplies", "x"), chunk), Rejection)  # case matters


# -- gate 2 --------------------------------------------------------------------------------------


def test_evidence_matches_after_whitespace_normalization_only(nvda):
    chunk = context_with(nvda, "We utilize foundries")
    quote = (
        "We utilize foundries,   such as Taiwan Semiconductor\nManufacturing Company Limited, "
        "or TSMC"
    )
    found = gate_evidence(candidate("SUPPLIES", quote), chunk)
    start, end = found.span
    assert (
        chunk.text[start:end]
        == "We utilize foundries, such as Taiwan Semiconductor Manufacturing Company Limited, "
        "or TSMC"
    )
    assert start == chunk.text.index("We utilize foundries")
    # A paraphrase, or a single word changed, is not a quote.
    for bad in (
        "We use foundries, such as Taiwan Semiconductor Manufacturing Company Limited",
        "We utilize foundries such as Taiwan Semiconductor Manufacturing Company Limited",
        "",
    ):
        rejection = gate_evidence(candidate("SUPPLIES", bad), chunk)
        assert isinstance(rejection, Rejection) and rejection.reason is Reason.EVIDENCE_NOT_IN_CHUNK


def test_evidence_is_not_normalized_beyond_whitespace(nvda):
    chunk = context_with(nvda, "changes in the USG’s export controls")
    assert "’" in chunk.text
    curly = next(s for s in chunk.text.split(". ") if "’" in s)
    assert not isinstance(gate_evidence(candidate("EXPOSED_TO_RISK", curly), chunk), Rejection)
    straight = curly.replace("’", "'")
    assert isinstance(gate_evidence(candidate("EXPOSED_TO_RISK", straight), chunk), Rejection)


# -- gate 3 --------------------------------------------------------------------------------------


def test_values_stated_in_prose_with_their_own_multipliers(nvda):
    chunk = context_with(nvda, "Sales to direct Customers A, B and C")
    evidence = "Sales to direct Customers A, B and C represented 12%, 11% and 11% of total revenue"
    for value in (12, 11, 0.12, "12%", 2025):
        assert not isinstance(
            gate_value(candidate("CUSTOMER_OF", evidence, value=value), chunk), Rejection
        ), value
    for value in (34, 23, 0.34, "about a third", 1.2):
        rejection = gate_value(candidate("CUSTOMER_OF", evidence, value=value), chunk)
        assert isinstance(rejection, Rejection) and rejection.reason is Reason.VALUE_NOT_IN_CHUNK, (
            value
        )


def test_values_in_billions_and_float_noise(nvda):
    chunk = context_with(nvda, "We have invested over $58.2 billion in research and development")
    for value in (58.2e9, 58_200_000_000.000004, 58.2, "$58.2 billion"):
        assert not isinstance(
            gate_value(candidate("GUIDES", "x", value=value), chunk), Rejection
        ), value
    assert isinstance(gate_value(candidate("GUIDES", "x", value=58.3e9), chunk), Rejection)


def test_values_under_the_chunks_scale_header(nvda):
    table = context_with(nvda, "130,497", kind="table")
    assert "millions" in (table.scale_header or "")
    assert not isinstance(
        gate_value(candidate("GUIDES", "x", value=130_497_000_000), table), Rejection
    )
    assert not isinstance(gate_value(candidate("GUIDES", "x", value=130497), table), Rejection)
    # Rounded by the model: 130.5 billion is not what the table says.
    assert isinstance(gate_value(candidate("GUIDES", "x", value=130.5e9), table), Rejection)
    # Without the header the same digits are read at face value only.
    bare = ChunkContext(table.chunk_id, table.text, table.char_start, None)
    assert isinstance(gate_value(candidate("GUIDES", "x", value=130_497_000_000), bare), Rejection)


# -- gate 4 --------------------------------------------------------------------------------------


def test_negated_and_hypothetical_classifier_on_real_sentences():
    assert is_negated(
        "We do not have long-term arrangements with most of our suppliers to guarantee "
        "availability of merchandise."
    )
    assert is_negated(
        "The Company no longer purchases components from that supplier, and it may never do "
        "so again."
    )
    assert not is_negated(
        "Other significant competitors include, but are not limited to, Nestlé S.A., Keurig "
        "Dr Pepper Inc."
    )
    # A negation inside a condition belongs to the hypothesis.
    conditional = (
        "If our foundry partners do not provide sufficient supply, we may not be able to meet "
        "demand."
    )
    assert not is_negated(conditional) and is_hypothetical(conditional)
    assert not is_hypothetical(
        "In May 2024, we published metrics related to our environmental impact for fiscal "
        "year 2024."
    )
    assert is_hypothetical("If we were to lose TSMC, our business would be harmed.")


def test_hypothetical_relationship_becomes_a_risk_of_the_dependent_party(nvda):
    chunk = context_with(nvda, "If we underestimate demand, and our foundry partners")
    fragment = "our foundry partners and contract manufacturers are unable to increase production"

    def through(c):
        c = gate_evidence(c, chunk)
        return gate_mood(gate_grounding(c, chunk), chunk)

    rewritten = through(candidate("SUPPLIES", fragment, subject="foundry partners", obj="NVIDIA"))
    assert (rewritten.subject, rewritten.relation, rewritten.object) == (
        "NVIDIA",
        "EXPOSED_TO_RISK",
        "dependence on foundry partners",
    )
    assert rewritten.adjustment == HYPOTHETICAL_TO_RISK
    assert rewritten.proposed_relation == "SUPPLIES"
    # The competitor is named in the risk, never made a risk itself; the subject stays exposed.
    competitor = through(candidate("COMPETES_WITH", fragment, obj="contract manufacturers"))
    assert (competitor.subject, competitor.object) == (
        "NVIDIA",
        "competition from contract manufacturers",
    )


def test_a_fact_stays_a_fact(nvda):
    chunk = context_with(nvda, "We utilize foundries")
    sentence = "We purchase memory from SK Hynix Inc., Micron Technology, Inc., and Samsung."
    c = gate_evidence(
        candidate("SUPPLIES", "Micron Technology, Inc.", subject="Micron", obj="NVIDIA"), chunk
    )
    assert c.span is not None
    kept = gate_mood(gate_grounding(c, chunk), chunk)
    assert kept.relation == "SUPPLIES" and kept.adjustment is None
    assert sentence in chunk.text


# -- gate 5 --------------------------------------------------------------------------------------


def test_forward_looking_only_as_guides(nvda):
    capex = context_with(nvda, "We expect to increase capital expenditures in fiscal year 2026")
    reported = context_with(nvda, "we spent $3.4 billion and $1.1 billion on capital expenditures")

    def gate5(relation: str, chunk: ChunkContext, phrase: str):
        return gate_forward_looking(gate_evidence(candidate(relation, phrase), chunk), chunk)

    expect = "We expect to increase capital expenditures in fiscal year 2026"
    spent = "we spent $3.4 billion and $1.1 billion on capital expenditures"
    relabelled = gate5("REPORTS_METRIC", capex, expect)
    assert (relabelled.relation, relabelled.adjustment) == ("GUIDES", FORWARD_LOOKING_TO_GUIDES)
    assert gate5("REPORTS_METRIC", reported, spent).reason is Reason.METRIC_FROM_TEXT
    assert gate5("GUIDES", reported, spent).reason is Reason.GUIDES_NOT_FORWARD_LOOKING
    assert gate5("SUPPLIES", capex, expect).reason is Reason.FORWARD_LOOKING_NOT_GUIDES
    assert not isinstance(gate5("GUIDES", capex, expect), Rejection)
    assert not isinstance(gate5("EXPOSED_TO_RISK", capex, expect), Rejection)


# -- the table -----------------------------------------------------------------------------------


def extraction_rows(chunks: pl.DataFrame, replies: dict[str, object]) -> pl.DataFrame:
    from graphrag_core.tables.schemas import EXTRACTIONS, frame

    rows = []
    for k, (chunk_id, reply) in enumerate(replies.items()):
        raw = reply if isinstance(reply, str) else json.dumps(reply)
        rows.append(
            {
                "extraction_id": f"e{k}",
                "filing_id": chunks["filing_id"][0],
                "chunk_id": chunk_id,
                "chunk_sha256": "0" * 64,
                "section": "10-K/Item 1",
                "backend": "openai",
                "model": "m",
                "prompt_version": "v",
                "status": "ok" if parse_output(raw).ok else "parse_error",
                "raw_output": raw,
                "error": None,
                "triple_count": None,
                "attempts": 1,
                "latency_ms": 1.0,
                "prompt_tokens": 1,
                "completion_tokens": 1,
                "cached": False,
            }
        )
    return frame(rows, EXTRACTIONS)


def test_merge_malformed_items_and_summary(corpus_dir: Path):
    chunks = chunk_frame(
        corpus_dir,
        [
            Passage(NVDA_10K, "We utilize foundries, such as Taiwan", "10-K/Item 1"),
            Passage(NVDA_10K, "Our current competitors include", "10-K/Item 1", paragraphs=4),
        ],
        "f-1",
    )
    a, b = chunks["chunk_id"].to_list()
    tsmc = (
        "We utilize foundries, such as Taiwan Semiconductor Manufacturing Company Limited, or TSMC"
    )
    t = lambda s, r, o, e, v=None: {  # noqa: E731
        "subject": s,
        "relation": r,
        "object": o,
        "value": v,
        "unit": None,
        "period": None,
        "evidence": e,
    }  # noqa: E731
    replies = {
        a: {
            "triples": [
                t("TSMC", "SUPPLIES", "NVIDIA", tsmc),
                t(
                    "tsmc ",
                    "SUPPLIES",
                    "nvidia",
                    "Taiwan Semiconductor Manufacturing Company Limited, or TSMC, and Samsung",
                ),  # same edge
                {"subject": "TSMC", "relation": "SUPPLIES"},  # no object, no evidence
            ]
        },
        b: {
            "triples": [
                t("NVIDIA", "COMPETES_WITH", "Amazon", "such as Amazon, Huawei, and Microsoft")
            ]
        },
    }
    table = validate_extractions(extraction_rows(chunks, replies), chunks, filer=NVIDIA)
    accepted = table.filter(pl.col("status") == "accepted")
    assert accepted.height == 2
    tsmc_row = accepted.filter(pl.col("relation") == "SUPPLIES").row(0, named=True)
    assert tsmc_row["subject"] == "TSMC" and tsmc_row["support"] == 2
    assert [e["quote"] for e in tsmc_row["evidence"]] == [
        tsmc,
        "Taiwan Semiconductor Manufacturing Company Limited, or TSMC, and Samsung",
    ]
    assert all(e["chunk_id"] == a for e in tsmc_row["evidence"])
    malformed = table.filter(pl.col("reason") == Reason.MALFORMED_TRIPLE.value).row(0, named=True)
    assert "object" in malformed["detail"] and "evidence" in malformed["detail"]
    summary = rejection_summary(table)
    assert (summary.candidates, summary.accepted, summary.rejected, summary.edges) == (4, 3, 1, 2)
    # Ids come from content: the same input gives the same ids.
    again = validate_extractions(extraction_rows(chunks, replies), chunks, filer=NVIDIA)
    assert again["triple_id"].to_list() == table["triple_id"].to_list()


def test_value_conflicts_are_flagged_when_duplicates_disagree(corpus_dir: Path):
    chunks = chunk_frame(
        corpus_dir,
        [Passage(NVDA_10K, "Sales to direct Customers A, B and C", "10-K/Item 1A")],
        "f-2",
    )
    [a] = chunks["chunk_id"].to_list()
    ev = "Sales to direct Customers A, B and C represented 12%, 11% and 11% of total revenue"
    triples = [
        {
            "subject": "Customer A",
            "relation": "CUSTOMER_OF",
            "object": "NVIDIA",
            "value": v,
            "unit": "%",
            "period": "FY2025",
            "evidence": ev,
        }
        for v in (12, 11)
    ]
    table = validate_extractions(
        extraction_rows(chunks, {a: {"triples": triples}}), chunks, filer=NVIDIA
    )
    row = table.row(0, named=True)
    assert (row["status"], row["value"], row["value_conflict"], row["support"]) == (
        "accepted",
        12.0,
        True,
        2,
    )
    assert row["subject"] == "Customer A (NVIDIA CORP)"  # a placeholder is scoped to its filer


def test_parse_output_reads_fenced_json_and_names_what_is_wrong():
    assert parse_output('```json\n{"triples": []}\n```').ok
    assert parse_output('{"edges": []}').error == "JSON is not an object with a 'triples' list"
    assert parse_output("").error == "empty output"
    assert parse_output("[1, 2").error.startswith("not JSON")
