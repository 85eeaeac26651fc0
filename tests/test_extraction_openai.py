"""The `openai` backend against a real OpenAI-compatible server on loopback, scripted to return
good triples, planted bad ones, malformed JSON, a 429, a 503 and timeouts; the gates must keep
exactly the good ones, with the right reason codes for the rest."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.common.model_endpoint import ModelEndpoint
from graphrag_core.extraction import ExtractionCache, Filer, OpenAIBackend, run_extraction
from graphrag_core.extraction.spans import collapse_whitespace
from graphrag_core.extraction.triples import extraction_json_schema
from graphrag_core.extraction.validated_triples import rejection_summary, validate_extractions
from graphrag_core.tables.schemas import CHUNKS, EXTRACTIONS, VALIDATED_TRIPLES, frame
from tests.corpus_passages import Passage, chunk_frame, filing_text
from tests.openai_server import ByPassage, Delay, OpenAICompatibleServer, Reply, Status

pytestmark = pytest.mark.corpus

NVDA_10K = "NVDA/10-K/nvda-10-k-2025-02-26.htm"
KO_10K = "KO/10-K/ko-10-k-2025-02-20.htm"
AMZN_10K = "AMZN/10-K/amzn-10-k-2025-02-07.htm"
NVIDIA = "NVIDIA Corporation"

TSMC = Passage(NVDA_10K, "We utilize foundries, such as Taiwan", "10-K/Item 1")
CUSTOMERS = Passage(NVDA_10K, "Sales to direct Customers A, B and C", "10-K/Item 1A")
COMPETITORS = Passage(NVDA_10K, "Our current competitors include:", "10-K/Item 1", paragraphs=6)
HYPOTHETICAL = Passage(NVDA_10K, "If we inaccurately estimate demand", "10-K/Item 1A")
MALFORMED = Passage(
    NVDA_10K, "Compliance with laws, rules, and regulations has not otherwise", "10-K/Item 1"
)
SLOW_ONCE = Passage(NVDA_10K, "The market for our products is intensely competitive", "10-K/Item 1")
ALWAYS_SLOW = Passage(NVDA_10K, "A significant source of competition comes from", "10-K/Item 1")
NOT_NARRATIVE = Passage(
    NVDA_10K, "We refer to customers who purchase products directly", "10-K/Item 8"
)
TABLE = Passage(NVDA_10K, "Revenue by geographic region is designated", "10-K/Item 7", kind="table")
KO_CAPEX = Passage(KO_10K, "Our current capital allocation priorities", "10-K/Item 7")
AMZN_SUPPLIERS = Passage(
    AMZN_10K, "We have significant suppliers, including content", "10-K/Item 1A"
)

TIMEOUT_S = 0.4


def triple(subject, relation, obj, evidence, value=None, unit=None, period=None) -> dict:
    return {
        "subject": subject,
        "relation": relation,
        "object": obj,
        "value": value,
        "unit": unit,
        "period": period,
        "evidence": evidence,
    }


def reply(*triples: dict) -> Reply:
    return Reply(json.dumps({"triples": list(triples)}))


TSMC_SENTENCE = (
    "We utilize foundries, such as Taiwan Semiconductor Manufacturing Company Limited, or "
    "TSMC, and "
    "Samsung Electronics Co., Ltd., or Samsung, to produce our semiconductor wafers."
)
# The model re-flowed this quote over two lines: whitespace normalization must still find it.
MICRON_QUOTE = "We purchase memory from SK Hynix Inc.,\n  Micron Technology, Inc., and Samsung."
CUSTOMER_SENTENCE = (
    "Sales to direct Customers A, B and C represented 12%, 11% and 11% of total revenue, "
    "respectively, for fiscal year 2025"
)
AMD_BULLET_1 = (
    "such as Advanced Micro Devices, Inc., or AMD, Huawei Technologies Co. Ltd., or Huawei, and "
    "Intel Corporation, or Intel;"
)
AMD_BULLET_2 = "such as Ambarella, Inc., AMD, Broadcom, Inc., or Broadcom, Intel"
HYPOTHETICAL_FRAGMENT = (
    "our foundry partners and contract manufacturers are unable to increase production or "
    "provide sufficient supply"
)
KO_CAPEX_SENTENCE = (
    "We currently expect 2025 capital expenditures to be approximately $2.2 billion."
)
KO_PRIORITIES = (
    "Our current capital allocation priorities are as follows: investing wisely to support our "
    "business operations, continuing to grow our dividend payment"
)
AMZN_NEGATED = (
    "We do not have long-term arrangements with most of our suppliers to guarantee availability "
    "of merchandise"
)

SCRIPT_RULES = [
    (
        TSMC.marker,
        [
            reply(
                triple(
                    "Taiwan Semiconductor Manufacturing Company Limited",
                    "SUPPLIES",
                    NVIDIA,
                    TSMC_SENTENCE,
                ),
                triple("Micron Technology, Inc.", "SUPPLIES", NVIDIA, MICRON_QUOTE),
                # invented quote: the passage never says this
                triple(
                    "Intel Corporation",
                    "SUPPLIES",
                    NVIDIA,
                    "We rely exclusively on Intel Corporation to manufacture our wafers.",
                ),
                # relation outside the vocabulary
                triple("Samsung Electronics Co., Ltd.", "PARTNERS_WITH", NVIDIA, TSMC_SENTENCE),
            )
        ],
    ),
    (
        CUSTOMERS.marker,
        [
            Status(503),
            reply(
                triple("Customer A", "CUSTOMER_OF", NVIDIA, CUSTOMER_SENTENCE, 12, "%", "FY2025"),
                # a value the model computed (12 + 11 + 11): its digits are nowhere in the chunk
                triple(
                    "Customers A, B and C",
                    "CUSTOMER_OF",
                    NVIDIA,
                    CUSTOMER_SENTENCE,
                    34,
                    "%",
                    "FY2025",
                ),
            ),
        ],
    ),
    (
        COMPETITORS.marker,
        [
            Status(429, retry_after=0),
            reply(
                triple(NVIDIA, "COMPETES_WITH", "Advanced Micro Devices, Inc.", AMD_BULLET_1),
                triple(NVIDIA, "COMPETES_WITH", "Advanced Micro Devices, Inc.", AMD_BULLET_2),
            ),
        ],
    ),
    # a hypothetical ("If we underestimate demand, and our foundry partners … are unable …, we
    # may not …") phrased as a plain supply relation
    (
        HYPOTHETICAL.marker,
        [
            reply(
                triple(
                    "foundry partners and contract manufacturers",
                    "SUPPLIES",
                    NVIDIA,
                    HYPOTHETICAL_FRAGMENT,
                ),
            )
        ],
    ),
    (MALFORMED.marker, [Reply('Sure! Here are the relations: {"triples": [{"subject": "NVIDIA"')]),
    (SLOW_ONCE.marker, [Delay(2.0, reply()), reply()]),
    (ALWAYS_SLOW.marker, [Delay(2.0, reply())]),
    (
        KO_CAPEX.marker,
        [
            reply(
                triple(
                    "The Coca-Cola Company",
                    "GUIDES",
                    "capital expenditures",
                    KO_CAPEX_SENTENCE,
                    2200000000,
                    "USD",
                    "FY2025",
                ),
                # guidance labelled as a reported figure
                triple(
                    "The Coca-Cola Company",
                    "REPORTS_METRIC",
                    "capital expenditures",
                    KO_CAPEX_SENTENCE,
                    2.2e9,
                    "USD",
                    "FY2025",
                ),
                # a statement of fact labelled as guidance
                triple("The Coca-Cola Company", "GUIDES", "dividend payment", KO_PRIORITIES),
            )
        ],
    ),
    (
        AMZN_SUPPLIERS.marker,
        [
            reply(
                triple("suppliers", "SUPPLIES", "Amazon.com, Inc.", AMZN_NEGATED),
            )
        ],
    ),
]


def backend(base_url: str) -> OpenAIBackend:
    return OpenAIBackend(
        ModelEndpoint(
            use="extraction",
            base_url=base_url,
            model="scripted-model",
            concurrency=4,
            timeout_s=TIMEOUT_S,
            max_retries=2,
            backoff_base_s=0.01,
            backoff_max_s=0.05,
            settings_prefix="EXTRACTOR_",
        )
    )


@dataclass
class Run:
    server: OpenAICompatibleServer
    script: ByPassage
    chunks: pl.DataFrame
    extractions: pl.DataFrame
    validated: pl.DataFrame
    ko: pl.DataFrame
    amzn: pl.DataFrame
    requests_first_run: int
    rerun: pl.DataFrame
    requests_rerun: list[dict]
    cache_root: Path


@pytest.fixture(scope="module")
def run(corpus_dir: Path, tmp_path_factory) -> Run:
    cache = ExtractionCache.under(tmp_path_factory.mktemp("data"))
    script = ByPassage(SCRIPT_RULES)
    nvda_chunks = chunk_frame(
        corpus_dir,
        [
            TSMC,
            CUSTOMERS,
            COMPETITORS,
            HYPOTHETICAL,
            MALFORMED,
            SLOW_ONCE,
            ALWAYS_SLOW,
            NOT_NARRATIVE,
            TABLE,
        ],
        "0001045810-25-000023",
    )
    ko_chunks = chunk_frame(corpus_dir, [KO_CAPEX], "0000021344-25-000010")
    amzn_chunks = chunk_frame(corpus_dir, [AMZN_SUPPLIERS], "0001018724-25-000004")
    with OpenAICompatibleServer(script) as server:
        client = backend(server.base_url)
        extractions = run_extraction(
            nvda_chunks, client, filer=Filer(NVIDIA, "0001045810"), cache=cache
        )
        ko = run_extraction(
            ko_chunks, client, filer=Filer("The Coca-Cola Company", "0000021344"), cache=cache
        )
        amzn = run_extraction(
            amzn_chunks, client, filer=Filer("Amazon.com, Inc.", "0001018724"), cache=cache
        )
        first = len(server.requests)
        rerun = run_extraction(nvda_chunks, client, filer=Filer(NVIDIA, "0001045810"), cache=cache)
        requests_rerun = server.requests[first:]
    return Run(
        server=server,
        script=script,
        chunks=nvda_chunks,
        extractions=extractions,
        # the filer is who "we" are: the grounding gate needs it
        validated=validate_extractions(extractions, nvda_chunks, filer=Filer(NVIDIA, "0001045810")),
        ko=validate_extractions(ko, ko_chunks, filer=Filer("The Coca-Cola Company", "0000021344")),
        amzn=validate_extractions(amzn, amzn_chunks, filer=Filer("Amazon.com, Inc.", "0001018724")),
        requests_first_run=first,
        rerun=rerun,
        requests_rerun=requests_rerun,
        cache_root=cache.root,
    )


def by_marker(extractions: pl.DataFrame, chunks: pl.DataFrame, passage: Passage) -> dict:
    chunk_id = chunks.filter(pl.col("text").str.contains(passage.marker, literal=True))["chunk_id"][
        0
    ]
    return extractions.filter(pl.col("chunk_id") == chunk_id).row(0, named=True)


def test_gates_keep_exactly_the_good_triples(run: Run):
    accepted = run.validated.filter(pl.col("status") == "accepted")
    got = {
        (r["subject"], r["relation"], r["object"], r["value"], r["period"])
        for r in accepted.iter_rows(named=True)
    }
    assert got == {
        ("Taiwan Semiconductor Manufacturing Company Limited", "SUPPLIES", NVIDIA, None, None),
        ("Micron Technology, Inc.", "SUPPLIES", NVIDIA, None, None),
        # a placeholder names a customer of this filer only
        ("Customer A (NVIDIA Corporation)", "CUSTOMER_OF", NVIDIA, 12.0, "FY2025"),
        (NVIDIA, "COMPETES_WITH", "Advanced Micro Devices, Inc.", None, None),
        # the hypothetical became a risk of the dependent party, not a supply fact
        (
            NVIDIA,
            "EXPOSED_TO_RISK",
            "dependence on foundry partners and contract manufacturers",
            None,
            None,
        ),
    }
    risk = accepted.filter(pl.col("relation") == "EXPOSED_TO_RISK").row(0, named=True)
    assert risk["adjustment"] == "hypothetical_to_risk"
    assert risk["proposed_relation"] == "SUPPLIES"
    ko_accepted = run.ko.filter(pl.col("status") == "accepted")
    assert ko_accepted.select("relation", "object", "value", "unit", "period").rows() == [
        ("GUIDES", "capital expenditures", 2.2e9, "USD", "FY2025")
    ]
    # the forward-looking REPORTS_METRIC was relabelled GUIDES and merged with the GUIDES triple
    capex = ko_accepted.row(0, named=True)
    assert (capex["support"], capex["adjustment"]) == (2, "forward_looking_to_guides")
    assert run.amzn.filter(pl.col("status") == "accepted").is_empty()


def test_each_planted_bad_triple_is_rejected_with_its_reason(run: Run):
    rejected = {
        (r["subject"], r["proposed_relation"]): r["reason"]
        for df in (run.validated, run.ko, run.amzn)
        for r in df.filter(pl.col("status") == "rejected").iter_rows(named=True)
    }
    assert rejected == {
        ("Intel Corporation", "SUPPLIES"): "evidence_not_in_chunk",
        ("Samsung Electronics Co., Ltd.", "PARTNERS_WITH"): "unknown_relation",
        ("Customers A, B and C", "CUSTOMER_OF"): "value_not_in_chunk",
        # (the forward-looking REPORTS_METRIC is relabelled GUIDES, see above, not rejected)
        ("The Coca-Cola Company", "GUIDES"): "guides_not_forward_looking",
        ("suppliers", "SUPPLIES"): "negated",
    }


def test_accepted_evidence_cites_the_chunk_and_its_span_in_the_filing(run: Run, corpus_dir: Path):
    text = filing_text(corpus_dir, NVDA_10K)
    chunk_ids = set(run.chunks["chunk_id"])
    for row in run.validated.filter(pl.col("status") == "accepted").iter_rows(named=True):
        for ev in row["evidence"]:
            assert ev["chunk_id"] in chunk_ids
            assert text[ev["char_start"] : ev["char_end"]] == ev["quote"]
    micron = run.validated.filter(pl.col("subject") == "Micron Technology, Inc.").row(0, named=True)
    [ev] = micron["evidence"]
    assert ev["quote"] == collapse_whitespace(
        MICRON_QUOTE
    )  # the filing's own text, not the re-flowed quote


def test_duplicates_merge_with_the_union_of_their_evidence(run: Run):
    amd = run.validated.filter(pl.col("object") == "Advanced Micro Devices, Inc.").row(
        0, named=True
    )
    assert amd["support"] == 2
    assert [e["quote"] for e in amd["evidence"]] == [AMD_BULLET_1, AMD_BULLET_2]
    assert amd["evidence"][0]["char_start"] < amd["evidence"][1]["char_start"]


def test_unparseable_output_is_a_failed_extraction_with_its_raw_text(run: Run):
    row = by_marker(run.extractions, run.chunks, MALFORMED)
    assert row["status"] == "parse_error"
    assert row["raw_output"].startswith("Sure! Here are the relations")
    assert row["error"].startswith("not JSON")
    assert row["triple_count"] is None


def test_throttling_and_server_errors_are_retried(run: Run):
    assert run.script.calls[COMPETITORS.marker] == 2  # 429, then success
    assert run.script.calls[CUSTOMERS.marker] == 2  # 503, then success
    competitors = by_marker(run.extractions, run.chunks, COMPETITORS)
    customers = by_marker(run.extractions, run.chunks, CUSTOMERS)
    assert (competitors["status"], competitors["attempts"]) == ("ok", 2)
    assert (customers["status"], customers["attempts"]) == ("ok", 2)


def test_a_timeout_is_retried_and_a_persistent_one_fails_only_its_chunk(run: Run):
    once = by_marker(run.extractions, run.chunks, SLOW_ONCE)
    assert (once["status"], once["attempts"], once["triple_count"]) == ("ok", 2, 0)
    always = by_marker(run.extractions, run.chunks, ALWAYS_SLOW)
    assert (always["status"], always["attempts"]) == ("failed", 3)
    assert always["raw_output"] is None
    assert "timed out" in always["error"]


def test_only_narrative_prose_is_sent(run: Run):
    sent = {
        body["messages"][1]["content"].split("Passage:\n", 1)[1] for body in run.server.requests
    }
    texts = dict(zip(run.chunks["chunk_id"], run.chunks["text"], strict=True))
    not_sent = run.chunks.filter(
        pl.col("section").is_in(["10-K/Item 8"]) | (pl.col("kind") == "table")
    )
    assert not_sent.height == 2
    for chunk_id in not_sent["chunk_id"]:
        assert texts[chunk_id] not in sent
    assert run.extractions.height == run.chunks.height - 2


def test_every_request_carries_the_schema_at_temperature_zero(run: Run):
    schema = extraction_json_schema()
    assert run.server.requests
    for body in run.server.requests:
        assert body["model"] == "scripted-model"
        assert body["temperature"] == 0
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema"
        assert fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["schema"] == schema
        assert body["guided_json"] == schema  # vLLM's field, sent through extra_body
        assert body["messages"][0]["role"] == "system"
    assert "Filer: NVIDIA Corporation" in run.server.requests[0]["messages"][1]["content"]


def test_tokens_and_latency_are_accounted(run: Run):
    ok = run.extractions.filter(pl.col("status") == "ok")
    assert ok.height == 5  # 7 narrative chunks: one parse error, one failed
    assert (ok["prompt_tokens"] > 100).all()
    assert (ok["completion_tokens"] > 0).all()
    assert (ok["latency_ms"] > 0).all()
    assert run.extractions.schema == pl.Schema(EXTRACTIONS)
    assert run.validated.schema == pl.Schema(VALIDATED_TRIPLES)
    assert set(run.extractions["prompt_version"]) == {backend("http://x/v1").prompt_version}


def test_the_cache_prevents_a_second_model_call(run: Run):
    always_slow_passage = next(t for t in run.chunks["text"] if ALWAYS_SLOW.marker in t)
    # The only requests of the re-run are the retries of the one chunk that never got a reply.
    assert len(run.requests_rerun) == 3
    assert all(always_slow_passage in b["messages"][1]["content"] for b in run.requests_rerun)
    cached = run.rerun.filter(pl.col("cached"))
    assert cached.height == run.rerun.height - 1
    assert (cached["attempts"] == 0).all()
    first = run.extractions.sort("chunk_id").filter(
        pl.col("cached").not_() & (pl.col("status") != "failed")
    )
    again = run.rerun.sort("chunk_id").filter(pl.col("chunk_id").is_in(first["chunk_id"].implode()))
    assert again["raw_output"].to_list() == first["raw_output"].to_list()
    # One entry on disk per reply received (a parse error is a reply too; a failure is not):
    # NVIDIA's six and the one each of the Coca-Cola and Amazon chunks got.
    entries = [json.loads(p.read_text()) for p in run.cache_root.rglob("*.json")]
    assert len(entries) == first.height + 2
    assert set(first["raw_output"]) <= {e["raw_output"] for e in entries}


def test_rejection_summary_counts_candidates_by_reason(run: Run):
    summary = rejection_summary(run.validated)
    assert summary.rejected_by_reason == {
        "evidence_not_in_chunk": 1,
        "unknown_relation": 1,
        "value_not_in_chunk": 1,
    }
    assert summary.accepted == 6  # five edges, one of them merged from two candidates
    assert summary.edges == 5
    assert summary.rejection_rate == pytest.approx(3 / 9)


def test_a_wrong_model_name_is_a_configuration_error_not_a_failed_row(tmp_path: Path):
    def refuse(body: dict):
        return Status(404, message=f"The model `{body['model']}` does not exist.")

    chunks = frame(
        [
            {
                "chunk_id": "f:1",
                "filing_id": "f",
                "document_type": "10-K",
                "section": "10-K/Item 1",
                "kind": "prose",
                "ordinal": 0,
                "text": "We compete with Intel Corporation.",
                "char_start": 0,
                "char_end": 34,
                "scale_header": None,
                "token_count": 6,
                "sha256": "ab" * 32,
                "ix_ids": [],
            }
        ],
        CHUNKS,
    )
    with OpenAICompatibleServer(refuse) as server:
        with pytest.raises(ConfigurationError, match="EXTRACTOR_MODEL"):
            run_extraction(chunks, backend(server.base_url), filer=Filer("X Corp"))
    assert len(server.requests) == 1  # not retried
