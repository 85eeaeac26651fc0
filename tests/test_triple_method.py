"""Where each triple came from (issue 22): the rule family, the learned classifier or a model
backend, and the classifier's confidence, from the extractor's reply through validated_triples
and the graph's evidence; merged duplicates keep the set of methods and the highest confidence;
partitions written before the columns still read; a reply cannot claim a method its backend did
not run."""

from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.extraction.backends import LearnedBackend, RulesBackend
from graphrag_core.extraction.evaluation import Report, score_case
from graphrag_core.extraction.evaluation_methods import format_methods, method_counts
from graphrag_core.extraction.relation_classifier import RelationClassifier
from graphrag_core.extraction.triples import CandidateTriple, provenance
from graphrag_core.extraction.validated_triples import validate_extractions
from graphrag_core.graph.graph_store import FrameInputs, GraphStore, Reference
from graphrag_core.settings import ExtractionSettings
from graphrag_core.tables.schemas import (
    EXTRACTIONS,
    FILINGS,
    METRIC_OBSERVATIONS,
    VALIDATED_TRIPLES,
    empty,
    frame,
)
from graphrag_core.tables.table_store import TableStore
from tests.extraction_inputs import FILER, filer_chunk, section_chunks

CIK = "0000990001"
FILING = "0000990001-25-000001"
REFERENCE = Reference([{"cik": CIK, "ticker": "HVD", "title": "HALVERN DYNAMICS INC"}], {})
SUPPLIED = "Our suppliers include Harwick Labs Inc. and Corvane Systems Inc."
CONTINUED = (
    "We face intense competition in each of our markets. "
    "Examples include Brisk Analytics Corp. and Tollan Networks Inc."
)
LEARNED = "Maribel Optics Inc. has manufactured our flagship sensors."


def chunk_frame(texts: list[str]) -> pl.DataFrame:
    return section_chunks([("prose", t) for t in texts], filing_id=FILING, ids="c{i}")


def extraction_frame(replies: list[str], backend: str) -> pl.DataFrame:
    return frame(
        [
            {
                "extraction_id": f"e{i}",
                "filing_id": FILING,
                "chunk_id": f"c{i}",
                "chunk_sha256": f"{i:064d}",
                "section": "10-K/Item 1",
                "backend": backend,
                "model": "m",
                "prompt_version": "v",
                "status": "ok",
                "raw_output": raw,
                "attempts": 0,
                "latency_ms": 0.0,
                "cached": False,
            }
            for i, raw in enumerate(replies)
        ],
        EXTRACTIONS,
    )


def filing_frame() -> pl.DataFrame:
    return frame(
        [
            {
                "filing_id": FILING,
                "accession": FILING,
                "cik": CIK,
                "ticker": "HVD",
                "company": FILER.name,
                "form": "10-K",
                "fiscal_year": 2025,
                "fiscal_period": "FY",
                "filed_date": dt.date(2025, 3, 1),
                "source": "test",
                "sha256": "0" * 64,
                "bytes": 1,
                "documents": 1,
                "is_inline_xbrl": False,
                "meta_sources": "{}",
                "warnings": [],
            }
        ],
        FILINGS,
    )


def triple(subject: str, relation: str, obj: str, evidence: str, **extra: object) -> dict:
    return {
        "subject": subject,
        "relation": relation,
        "object": obj,
        "value": None,
        "value_low": None,
        "value_high": None,
        "unit": None,
        "period": None,
        "evidence": evidence,
        **extra,
    }


def validated(texts: list[str], replies: list[dict | str], backend: str) -> pl.DataFrame:
    raw = [r if isinstance(r, str) else json.dumps(r) for r in replies]
    return validate_extractions(
        extraction_frame(raw, backend), chunk_frame(texts), FILER, fiscal_year=2025
    )


def graph_of(triples: pl.DataFrame) -> GraphStore:
    store = GraphStore(None)
    store.update_entities(
        FrameInputs(filing_frame(), triples, empty(METRIC_OBSERVATIONS)), REFERENCE
    )
    store.update_graph()
    return store


# -- the rules name their family -----------------------------------------------------------------


def test_each_rules_triple_carries_its_rule_family():
    rules = RulesBackend.from_rows([])
    by_text = {}
    for text in (SUPPLIED, CONTINUED):
        reply = json.loads(rules.extract_one(filer_chunk(text)).raw_output or "")
        by_text[text] = {(t["object"], t["subject"], t["method"]) for t in reply["triples"]}
    assert by_text[SUPPLIED] == {
        (FILER.name, "Harwick Labs Inc.", "rule:supplies"),
        (FILER.name, "Corvane Systems Inc.", "rule:supplies"),
    }
    assert by_text[CONTINUED] == {
        ("Brisk Analytics Corp.", FILER.name, "rule:continuation"),
        ("Tollan Networks Inc.", FILER.name, "rule:continuation"),
    }
    # the method is beside the triple, not part of it: the lenient reader's dump (the triple's
    # identity in validated_triples) is what it was without it
    item = CandidateTriple.model_validate({**triple("a", "SUPPLIES", "b", "e"), "method": "x"})
    assert "method" not in item.model_dump() and "score" not in item.model_dump()


# -- validated_triples: merge, trust, hostile replies --------------------------------------------


def test_merged_duplicates_keep_every_method_and_the_highest_confidence():
    texts = [LEARNED, LEARNED + " They are shipped weekly."]
    t = lambda **kw: triple("Maribel Optics Inc.", "SUPPLIES", FILER.name, LEARNED, **kw)  # noqa: E731
    replies = [
        {"triples": [t(method="rule:supplies"), t(method="learned", score=0.96)]},
        {"triples": [t(method="learned", score=0.981)]},
    ]
    table = validated(texts, replies, "rules+learned")
    [row] = table.filter(pl.col("status") == "accepted").iter_rows(named=True)
    assert row["support"] == 3
    assert (row["method"], row["confidence"]) == ("learned,rule:supplies", 0.981)
    # a rule alone has no confidence
    [alone] = (
        validated([LEARNED], [{"triples": [t(method="rule:supplies")]}], "rules")
        .filter(pl.col("status") == "accepted")
        .iter_rows(named=True)
    )
    assert (alone["method"], alone["confidence"]) == ("rule:supplies", None)


def test_a_rejected_triple_keeps_its_own_method():
    denied = "Maribel Optics Inc. has never manufactured our flagship sensors."
    reply = {"triples": [triple("Maribel Optics Inc.", "SUPPLIES", FILER.name, denied)]}
    reply["triples"][0].update(method="learned", score=0.5)
    [row] = validated([denied], [reply], "rules+learned").iter_rows(named=True)
    assert (row["status"], row["method"], row["confidence"]) == ("rejected", "learned", 0.5)


@pytest.mark.parametrize(
    ("method", "score", "expected"),
    [
        ("learned", 0.97, ("learned", 0.97)),
        (None, None, ("rules+learned", None)),
        ("", 0.9, ("rules+learned", 0.9)),
        ("x'; DROP TABLE claims;--", 0.9, ("rules+learned", 0.9)),
        ("rule:" + "a" * 200, 0.9, ("rules+learned", 0.9)),
        ("RULE:Supplies", 0.9, ("rules+learned", 0.9)),
        ("rule:supplies\n", 0.9, ("rules+learned", 0.9)),
        (7, float("nan"), ("rules+learned", None)),
        (["learned"], float("inf"), ("rules+learned", None)),
        ("learned", "0.97", ("learned", None)),
        ("learned", True, ("learned", None)),
        ("learned", 1.5, ("learned", None)),
        ("learned", -0.1, ("learned", None)),
        ("learned", 1, ("learned", 1.0)),
    ],
)
def test_odd_methods_and_scores_fall_back_without_failing_the_triple(method, score, expected):
    item = CandidateTriple.model_validate(
        triple("Maribel Optics Inc.", "SUPPLIES", FILER.name, LEARNED, method=method, score=score)
    )
    assert provenance(item, "rules+learned") == expected


def test_a_model_servers_reply_cannot_claim_a_rule_or_a_score():
    t = triple("Maribel Optics Inc.", "SUPPLIES", FILER.name, LEARNED)
    claimed = {"triples": [{**t, "method": "rule:supplies", "score": 0.99}]}
    [row] = validated([LEARNED], [claimed], "openai").iter_rows(named=True)
    assert (row["status"], row["method"], row["confidence"]) == ("accepted", "openai", None)
    # NaN and infinities written into the reply (Python's json reads them) change nothing
    raw = json.dumps({"triples": [{**t, "method": "learned", "score": math.inf}]})
    [row] = validated([LEARNED], [raw], "rules+learned").iter_rows(named=True)
    assert (row["method"], row["confidence"]) == ("learned", None)


# -- into the graph --------------------------------------------------------------------------------


@pytest.mark.real_embeddings
def test_a_rules_triple_and_a_learned_triple_reach_the_graph_with_their_methods(encoder):
    settings = ExtractionSettings()
    backend = LearnedBackend(
        RulesBackend.from_rows([]),
        RelationClassifier.load(settings.learned_weights),
        encoder,
        settings.learned_threshold,
    )
    texts = [SUPPLIED, LEARNED]
    replies = [r.raw_output or "" for r in backend.extract_batch([filer_chunk(t) for t in texts])]
    table = validated(texts, replies, backend.name)
    accepted = table.filter(pl.col("status") == "accepted")
    assert accepted.height == 3
    evidence = graph_of(table).tables().edge_evidence
    got = {
        (r["subject_text"], r["method"], r["confidence"] is not None)
        for r in evidence.iter_rows(named=True)
    }
    assert got == {
        ("Harwick Labs Inc.", "rule:supplies", False),
        ("Corvane Systems Inc.", "rule:supplies", False),
        ("Maribel Optics Inc.", "learned", True),
    }
    [learned] = evidence.filter(pl.col("method") == "learned").iter_rows(named=True)
    assert settings.learned_threshold <= learned["confidence"] <= 1.0


def test_the_graph_evidence_carries_the_merged_methods():
    t = lambda **kw: triple("Maribel Optics Inc.", "SUPPLIES", FILER.name, LEARNED, **kw)  # noqa: E731
    reply = {"triples": [t(method="rule:supplies"), t(method="learned", score=0.96)]}
    evidence = graph_of(validated([LEARNED], [reply], "rules+learned")).tables().edge_evidence
    assert [(r["method"], r["confidence"]) for r in evidence.iter_rows(named=True)] == [
        ("learned,rule:supplies", 0.96)
    ]


# -- partitions written before the columns ---------------------------------------------------------


def test_a_partition_without_the_columns_still_reads(tmp_path: Path):
    reply = {"triples": [triple("Harwick Labs Inc.", "SUPPLIES", FILER.name, SUPPLIED)]}
    reply["triples"][0]["method"] = "rule:supplies"
    new = validated([SUPPLIED], [reply], "rules")
    old = new.drop("method", "confidence")
    tables = TableStore(tmp_path)
    tables.write("raw_filings", filing_frame(), FILING)
    tables.write("metric_observations", empty(METRIC_OBSERVATIONS), FILING)
    # as a run before the columns wrote it (the store's own writer conforms to the schema)
    path = tables.partition_path("validated_triples", FILING)
    path.parent.mkdir(parents=True, exist_ok=True)
    old.write_parquet(path)
    read = tables.read("validated_triples", FILING)
    assert read.columns == list(VALIDATED_TRIPLES)
    assert read.get_column("method").to_list() == [None]
    # an old and a new partition scanned together, in either order
    other = "0000990001-25-000002"
    tables.write("validated_triples", new.with_columns(filing_id=pl.lit(other)), other)
    for order in ([FILING, other], [other, FILING]):
        both = tables.scan("validated_triples", order).collect()
        assert dict(both.select("filing_id", "method").iter_rows()) == {
            FILING: None,
            other: "rule:supplies",
        }
    # the graph reads the old partition: its evidence has no method, nothing fails
    store = GraphStore(tmp_path / "graph.duckdb")
    store.update_entities(tables, REFERENCE)
    store.update_graph()
    evidence = store.tables().edge_evidence
    assert evidence.height == 1 and evidence.get_column("method").to_list() == [None]
    # re-materialized with the columns, the next update carries the method through
    tables.write("validated_triples", new, FILING)
    store.update_entities(tables, REFERENCE)
    store.update_graph()
    assert store.tables().edge_evidence.get_column("method").to_list() == ["rule:supplies"]
    store.close()


def test_a_graph_store_built_before_the_columns_gains_them_and_reads_again(tmp_path: Path):
    reply = {"triples": [triple("Harwick Labs Inc.", "SUPPLIES", FILER.name, SUPPLIED)]}
    reply["triples"][0]["method"] = "rule:supplies"
    inputs = FrameInputs(
        filing_frame(), validated([SUPPLIED], [reply], "rules"), empty(METRIC_OBSERVATIONS)
    )
    path = tmp_path / "graph.duckdb"
    with GraphStore(path) as store:
        store.update_entities(inputs, REFERENCE)
        store.update_graph()
        # as a store written before issue 22's columns: without them, and its schema digest old
        for table in ("claims", "edge_evidence"):
            for column in ("method", "confidence"):
                store.con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        store.con.execute("UPDATE meta SET value = 'old' WHERE key = 'schema_digest'")
    with GraphStore(path) as store:
        store.update_entities(inputs, REFERENCE)
        store.update_graph()
        evidence = store.tables().edge_evidence
        assert evidence.get_column("method").to_list() == ["rule:supplies"]


# -- eval-extraction per method --------------------------------------------------------------------


def test_eval_counts_precision_and_recall_per_method():
    from graphrag_core.extraction.evaluation import GateTally, GoldCase

    case = GoldCase.model_validate(
        {
            "case_id": "m1",
            "split": "dev",
            "company": FILER.name,
            "filing_id": FILING,
            "chunk_id": "c0",
            "form": "10-K",
            "section": "10-K/Item 1",
            "text": SUPPLIED + " " + LEARNED,
            "relations": [
                {**triple("Harwick Labs Inc.", "SUPPLIES", FILER.name, SUPPLIED)},
                {**triple("Maribel Optics Inc.", "SUPPLIES", FILER.name, LEARNED)},
                {**triple("Unfound Parts Inc.", "SUPPLIES", FILER.name, SUPPLIED)},
            ],
        }
    )
    reply = {
        "triples": [
            triple("Harwick Labs Inc.", "SUPPLIES", FILER.name, SUPPLIED, method="rule:supplies"),
            triple(
                "Corvane Systems Inc.", "SUPPLIES", FILER.name, SUPPLIED, method="rule:supplies"
            ),
            triple(
                "Maribel Optics Inc.", "SUPPLIES", FILER.name, LEARNED, method="learned", score=1
            ),
        ]
    }
    report = Report("rules+learned", "m", "v", [score_case(case, json.dumps(reply))], GateTally())
    counts = method_counts(report, "dev")
    assert {m: (c.tp, c.fp) for m, c in counts.items()} == {
        "learned": (1, 0),
        "rule:supplies": (1, 1),
    }
    table = format_methods(report)
    assert "dev (3)" in table
    assert "learned" in table and "100.0%  33.3%" in table
    assert "rule:supplies" in table and "50.0%  33.3%" in table
    # a model server's claims are its own: every triple counts under the backend's name
    served = Report("openai", "m", "v", [score_case(case, json.dumps(reply))], GateTally())
    assert list(method_counts(served, "dev")) == ["openai"]
