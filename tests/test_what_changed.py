"""what_changed (issue 25, item 1): risk factors added, removed and reworded between two filings
of a company, relations added and dropped, guidance revised — the pure comparison
(graphrag_core.retrieval.changes), the choice of filings, hostile arguments, and the tool through an
MCP session on a snapshot of the corpus's NVIDIA 10-Ks and Tesla's 10-K and later 10-Q."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from graphrag_core.retrieval import changes
from graphrag_core.retrieval.changes import RiskFactor
from mcp_server.what_changed import choose_filings
from tests.mcp_client import call, error, session
from tests.test_mcp_corpus import publish, run_stages

NVDA_10K_FY2025 = "0001045810-25-000023"
NVDA_10K_FY2023 = "0001045810-23-000017"
TSLA_10K = "0001628280-25-003063"
TSLA_10Q = "0001628280-25-035806"
AAPL_10K = "0000320193-24-000123"
AAPL_10Q_Q2 = "0000320193-25-000057"
AAPL_10Q_Q3 = "0000320193-25-000073"
PAIRS = (NVDA_10K_FY2023, NVDA_10K_FY2025, TSLA_10K, TSLA_10Q, AAPL_10K, AAPL_10Q_Q2, AAPL_10Q_Q3)

# -- the comparison, on hand-made factors -----------------------------------------------------

BODY = (
    "Our products are manufactured by third parties in Asia and sold worldwide, and demand for "
    "them depends on many conditions outside our control."
)


def factor(heading: str, body: str = BODY, filing: str = "old") -> RiskFactor:
    return RiskFactor(filing, f"{filing}:c1", "10-K/Item 1A", heading, 0, len(heading), body)


def topic_embed(texts: list[str]) -> np.ndarray:
    """Unit vectors by topic word: texts about export share a direction, others are apart."""
    out = []
    for i, t in enumerate(texts):
        v = np.zeros(len(texts) + 1, dtype=np.float32)
        v[0 if "export" in t.lower() else i + 1] = 1.0
        out.append(v)
    return np.stack(out)


def test_same_heading_and_text_is_unchanged_and_a_rewritten_body_is_reworded():
    old = [
        factor("Competition could harm our business."),
        factor("Adverse economic conditions may harm our business."),
    ]
    new = [
        factor("Competition could harm our business.", filing="new"),
        factor(
            "Adverse economic conditions may harm our business.",
            "Inflation, interest rates and bank failures weigh on what customers spend on "
            "data centers.",
            filing="new",
        ),
    ]
    found, unchanged = changes.compare_risk_factors(old, new, topic_embed)
    assert unchanged == 1
    assert [(c.kind, c.matched_by) for c in found] == [("reworded", "heading")]
    assert (
        found[0].old is old[1]
        and found[0].new is new[1]
        and found[0].body_similarity < changes.BODY_SAME
    )


def test_factors_pair_by_words_then_by_meaning_and_the_rest_are_added_or_removed():
    old = [
        factor("Our operations could be affected by complex laws, rules and regulations."),
        factor("Trade rules limit where we may ship our chips."),
        factor("The COVID-19 pandemic could harm our business."),
    ]
    new = [
        factor(
            "Our operations could be affected by complex laws, rules, and regulations worldwide.",
            filing="new",
        ),
        factor(
            "Restrictions on the export of our products may adversely affect our business.",
            "New export licensing requirements for data center products.",
            filing="new",
        ),
        factor("Long manufacturing lead times may cause inventory charges.", filing="new"),
    ]
    old[1] = factor(
        "Trade rules limit where we may ship our chips.", "Export rules apply to some products."
    )
    found, unchanged = changes.compare_risk_factors(old, new, topic_embed)
    kinds = [
        (c.kind, c.matched_by, c.new.heading[:12] if c.new else c.old.heading[:12]) for c in found
    ]
    assert kinds == [
        ("reworded", "meaning", "Restrictions"),
        ("added", None, "Long manufac"),
        ("removed", None, "The COVID-19"),
    ]
    assert unchanged == 1  # the laws factor: most heading words shared, the same body
    # Without an embedder only words match: the export factor is new, the trade-rules one gone.
    found, _ = changes.compare_risk_factors(old, new, None)
    assert sorted(c.kind for c in found) == ["added", "added", "removed", "removed"]


def test_risk_factors_run_from_heading_to_heading_across_chunks():
    t1 = (
        "Risk Factors\nCompetition could harm our business. We compete hard.\nSupply may be "
        "short. Parts"
    )
    t2 = " are scarce.\nFailure to estimate demand could cause losses. We estimate."

    def spans(text: str, *headings: str) -> list[dict[str, int]]:
        return [{"start": text.index(h), "end": text.index(h) + len(h)} for h in headings]

    spans1 = spans(
        t1, "Risk Factors", "Competition could harm our business.", "Supply may be short."
    )
    spans2 = spans(t2, "Failure to estimate demand could cause losses.")
    chunks = [  # out of order: the cut follows section and ordinal
        {
            "chunk_id": "f:2",
            "filing_id": "f",
            "section": "10-K/Item 1A",
            "ordinal": 1,
            "text": t2,
            "headings": spans2,
        },
        {
            "chunk_id": "f:1",
            "filing_id": "f",
            "section": "10-K/Item 1A",
            "ordinal": 0,
            "text": t1,
            "headings": spans1,
        },
        {
            "chunk_id": "g:1",
            "filing_id": "g",
            "section": "10-K/Item 7",
            "ordinal": 0,
            "text": "Demand may fall sharply next year.",
            "headings": [{"start": 0, "end": 20}],
        },
    ]
    found = changes.risk_factors(chunks, "f")
    assert [f.heading for f in found] == [
        "Competition could harm our business.",
        "Supply may be short.",
        "Failure to estimate demand could cause losses.",
    ]
    assert found[1].body == "Parts are scarce." and found[1].chunk_id == "f:1"
    assert found[2].chunk_id == "f:2" and found[2].body == "We estimate."
    assert changes.risk_factors(chunks, "g") == []  # not a risk section


# -- metrics restated or recast ---------------------------------------------------------------


def observation(filing: str, metric: str, value: float, end: str, oid: str = "") -> dict:
    import datetime as dt

    return {
        "observation_id": oid or f"{filing}:{metric}:{end}",
        "filing_id": filing,
        "metric": metric,
        "unit": "USD",
        "period_type": "duration",
        "calendar_start": dt.date.fromisoformat(end) - dt.timedelta(days=364),
        "calendar_end": dt.date.fromisoformat(end),
        "value": value,
    }


def test_a_value_reported_differently_for_the_same_period_is_restated():
    rows = [
        observation("old", "net_income", 1478e6, "2024-06-30"),
        observation("new", "net_income", 1400e6, "2024-06-30"),
        # The same figure reported again (a float round trip away) is not a change.
        observation("old", "revenue", 25.5e9, "2024-06-30"),
        observation("new", "revenue", 25.5e9 * (1 + 1e-12), "2024-06-30"),
        # Only in one filing: nothing to compare.
        observation("new", "revenue", 22e9, "2025-06-30"),
        observation("old", "gross_profit", 4e9, "2023-06-30"),
        # Another filing's value is not the pair's.
        observation("other", "net_income", 1e9, "2024-06-30"),
        # A second copy in the same filing: the first by observation id speaks for it.
        observation("new", "net_income", 1.5e9, "2024-06-30", oid="zz"),
    ]
    found = changes.metric_restatements(rows, "old", "new")
    assert [(m.old["metric"], m.old["value"], m.new["value"]) for m in found] == [
        ("net_income", 1478e6, 1400e6)
    ]
    assert changes.metric_restatements(rows, "new", "old")[0].new["value"] == 1478e6
    assert changes.metric_restatements([], "old", "new") == []


# -- one topic across companies (changes_across) -----------------------------------------------


def test_a_topic_matches_added_and_reworded_factors_by_words_or_by_meaning():
    old = [factor("Trade rules limit where we may ship our chips.")]
    new = [
        factor("Export controls restrict sales of our products to China.", filing="new"),
        factor("Tariffs raise what our chips cost abroad.", filing="new"),
        factor("Competition could harm our business.", filing="new"),
    ]
    found = [
        changes.FactorChange("added", None, new[0]),
        changes.FactorChange("reworded", old[0], new[1], "meaning", 0.8, 0.2),
        changes.FactorChange("added", None, new[2]),
        changes.FactorChange("removed", old[0], None),  # not the newer filing's: never matched
    ]
    topic = np.array([1.0, 0.0], dtype=np.float32)
    vectors = {
        0: np.array([0.6, 0.8], dtype=np.float32),  # words and meaning
        1: np.array([0.3, 0.95], dtype=np.float32),  # meaning only (0.3 ≥ TOPIC_MEANING)
        2: np.array([0.1, 0.99], dtype=np.float32),  # neither
        3: np.array([1.0, 0.0], dtype=np.float32),
    }
    got = changes.topic_matches(found, "export controls", topic, vectors)
    assert [(m.change.new.heading[:8], m.matched_by, m.similarity) for m in got] == [
        ("Export c", "words+meaning", 0.6),
        ("Tariffs ", "meaning", 0.3),
    ]
    # Without the embedder: words only ("controls" matches "control", plural or not).
    assert [m.matched_by for m in changes.topic_matches(found, "export control", None, {})] == [
        "words"
    ]
    assert changes.topic_words("the of and") == frozenset()
    assert not changes.mentions_topic(frozenset(), "anything")


def test_pairs_are_chosen_by_the_newer_filings_period():
    import datetime as dt

    from graphrag_core.common.periods import parse_period_filter
    from mcp_server.changes_across import choose_pairs

    def pair(cik: str, fid: str, end: str, fy: int) -> dict:
        day = dt.date.fromisoformat(end)
        return {
            "cik": cik,
            "filing_id": fid,
            "form": "10-K",
            "period_end": day,
            "filed_date": day + dt.timedelta(days=30),
            "fiscal_year": fy,
            "fiscal_period": "FY",
        }

    rows = [  # by company, newest first, as FILING_PAIRS returns them
        pair("1", "nvda25", "2025-01-26", 2025),
        pair("1", "nvda24", "2024-01-28", 2024),
        pair("2", "tsla24", "2024-12-31", 2024),
    ]

    def ids(period: str | None) -> list[str]:
        return [r["filing_id"] for r in choose_pairs(rows, parse_period_filter(period))]

    assert ids(None) == ["nvda25", "tsla24"]  # each company's latest pair, newest first
    assert ids("FY2025") == ["nvda25"] and ids("FY2024") == ["tsla24", "nvda24"]
    # NVIDIA's fiscal 2025 (Feb 2024 - Jan 2025) is calendar 2024; its fiscal 2024 is not.
    assert ids("2024") == ["nvda25", "tsla24"] and ids("2023") == ["nvda24"]
    assert ids("2019") == []


def test_pair_comparisons_are_kept_per_snapshot_version_only():
    from mcp_server.what_changed import CACHED_PAIRS, PairCache

    cache = PairCache()
    assert cache.get("v1", ("a", "b")) is None
    cache.put("v1", ("a", "b"), "compared")
    assert cache.get("v1", ("a", "b")) == "compared"
    # A newer snapshot may hold other text for the same filing ids: nothing carries over.
    assert cache.get("v2", ("a", "b")) is None
    cache.put("v1", ("a", "b"), "stale")  # a call still on v1 does not write into v2's
    assert cache.get("v2", ("a", "b")) is None
    for i in range(CACHED_PAIRS + 5):
        cache.put("v2", ("p", i), i)
    assert len(cache.values) == CACHED_PAIRS  # bounded


# -- choosing the filings ---------------------------------------------------------------------

FILINGS = [  # newest first, as the tool reads them
    {"filing_id": "q2", "form": "10-Q", "filed_date": "2025-08-01"},
    {"filing_id": "k25", "form": "10-K", "filed_date": "2025-02-01"},
    {"filing_id": "q1", "form": "10-Q", "filed_date": "2024-11-01"},
    {"filing_id": "k24", "form": "10-K", "filed_date": "2024-02-01"},
]


def test_the_default_is_the_latest_two_filings_of_a_form_and_named_ones_are_checked():
    ids = lambda pair: (pair[0]["filing_id"], pair[1]["filing_id"])  # noqa: E731
    assert ids(choose_filings(FILINGS, None, None)) == ("q1", "q2")
    assert ids(choose_filings(FILINGS, None, "k25")) == ("k24", "k25")
    assert ids(choose_filings(FILINGS, "k24", None)) == ("k24", "k25")
    assert ids(choose_filings(FILINGS, "k25", "q2")) == ("k25", "q2")  # across forms when named
    for args, message in (
        (("q2", "k25"), "filed after"),
        (("k25", "k25"), "same filing"),
        (("nope", None), "not a filing of this company"),
        ((None, "k24"), "no 10-K filed before"),
    ):
        with pytest.raises(ToolError, match=message):
            choose_filings(FILINGS, *args)
    with pytest.raises(ToolError, match="no two filings of the same form"):
        choose_filings(FILINGS[1:2], None, None)


# -- the corpus, through an MCP session --------------------------------------------------------


@pytest.fixture(scope="module")
def pairs_snapshot(corpus_dir: Path, tmp_path_factory) -> Path:
    data_root = tmp_path_factory.mktemp("changes-data")
    run_stages(corpus_dir, data_root, PAIRS)
    publish(corpus_dir, data_root)
    return data_root


@pytest.mark.corpus
@pytest.mark.real_embeddings
async def test_nvidias_fy2025_10k_rewords_its_export_risk_factor_cited_in_both(pairs_snapshot):
    async with session(pairs_snapshot) as client:
        out = await call(client, "what_changed", company_id="NVDA")
        assert (out["from_filing"]["filing_id"], out["to_filing"]["filing_id"]) == (
            NVDA_10K_FY2023,
            NVDA_10K_FY2025,
        )
        assert out["matched_by_meaning"] is True
        export = [
            r for r in out["risk_factors_reworded"] if "export" in r["new"]["heading"].lower()
        ]
        assert len(export) == 1, [r["new"]["heading"] for r in out["risk_factors_reworded"]]
        old, new = export[0]["old"], export[0]["new"]
        # FY2023 covered export rules only inside its factor on complex laws and regulations.
        assert "export" not in old["heading"].lower() and "complex laws" in old["heading"]
        assert (
            old["citation"]["filing_id"] == NVDA_10K_FY2023
            and new["citation"]["filing_id"] == NVDA_10K_FY2025
        )
        assert old["citation"]["section"] == new["citation"]["section"] == "10-K/Item 1A"
        assert old["citation"]["evidence"] and new["citation"]["evidence"]
        chunk = await call(client, "get_chunk", chunk_id=new["citation"]["chunk_id"])
        assert new["heading"] in chunk["text"]
        # The COVID-19 factor of FY2023 is gone by FY2025.
        assert any("COVID-19" in r["heading"] for r in out["risk_factors_removed"])
        assert all(r["citation"]["filing_id"] == NVDA_10K_FY2025 for r in out["risk_factors_added"])
        # Huawei is named as a competitor in FY2025, not in FY2023; cited to the sentence.
        huawei = [r for r in out["relations_added"] if r["object_id"] == "ORG:huawei-technologies"]
        assert huawei and huawei[0]["relation"] == "COMPETES_WITH"
        assert (
            "Huawei" in huawei[0]["quote"] and huawei[0]["citation"]["filing_id"] == NVDA_10K_FY2025
        )
        assert all(r["citation"]["filing_id"] == NVDA_10K_FY2023 for r in out["relations_dropped"])
        assert out["guidance_revised"] == []
        # The FY2025 10-K recasts FY2023's diluted EPS for the 10-for-1 split of June 2024.
        eps = next(
            m
            for m in out["metrics_restated"]
            if (m["metric"], m["fiscal_label"]) == ("eps_diluted", "FY2023")
        )
        assert (eps["old_value"], eps["new_value"], eps["reason"]) == (1.74, 0.17, "recast")
        assert "split" in eps["detail"]
        assert (
            eps["old_citation"]["filing_id"] == NVDA_10K_FY2023 and eps["old_citation"]["fact_id"]
        )
        assert (
            eps["new_citation"]["filing_id"] == NVDA_10K_FY2025 and eps["new_citation"]["fact_id"]
        )
        assert eps["old_citation"]["evidence"] and eps["new_citation"]["evidence"]


@pytest.mark.corpus
@pytest.mark.real_embeddings
async def test_teslas_10q_revises_its_capex_guidance_old_and_new_cited(pairs_snapshot):
    async with session(pairs_snapshot) as client:
        out = await call(
            client, "what_changed", company_id="TSLA", from_filing=TSLA_10K, to_filing=TSLA_10Q
        )
        capex = next(g for g in out["guidance_revised"] if g["metric_id"] == "METRIC:capex")
        assert (capex["old_value"], capex["new_value"], capex["unit"]) == (11e9, 9e9, "USD")
        assert (
            capex["old_citation"]["filing_id"] == TSLA_10K
            and "$11.00 billion" in capex["old_quote"]
        )
        assert (
            capex["new_citation"]["filing_id"] == TSLA_10Q and "$9.00 billion" in capex["new_quote"]
        )
        # The 10-Q recasts Q2 2024 net income for an accounting change (ASU 2023-08).
        income = next(m for m in out["metrics_restated"] if m["metric"] == "net_income")
        assert (income["old_value"], income["new_value"]) == (1478e6, 1400e6)
        assert income["reason"] == "recast" and "accounting change" in income["detail"]
        assert income["old_citation"]["filing_id"] == TSLA_10K
        assert income["new_citation"]["filing_id"] == TSLA_10Q
        # Against a 10-Q, the 10-K's factors it does not repeat are not "removed".
        assert out["risk_factors_removed"] == [] and any("10-Q" in n for n in out["notes"])
        # Tesla has one 10-K and one 10-Q here: no two filings of one form to default to.
        assert "no two filings of the same form" in await error(
            client, "what_changed", company_id="TSLA"
        )


@pytest.mark.corpus
@pytest.mark.real_embeddings
async def test_apples_10qs_against_its_10k_and_each_other(pairs_snapshot):
    async with session(pairs_snapshot) as client:
        out = await call(
            client, "what_changed", company_id="AAPL", from_filing=AAPL_10K, to_filing=AAPL_10Q_Q2
        )
        # The 10-Q rewrites the 10-K's factor on ESG expectations as one on "varied stakeholder
        # expectations": paired by meaning, cited in both.
        [esg] = [
            r for r in out["risk_factors_reworded"] if "stakeholder" in r["new"]["heading"].lower()
        ]
        assert esg["matched_by"] == "meaning" and "environmental" in esg["old"]["heading"].lower()
        assert esg["old"]["citation"]["filing_id"] == AAPL_10K
        assert esg["new"]["citation"]["filing_id"] == AAPL_10Q_Q2
        assert out["risk_factors_removed"] == [] and out["notes"]
        # The default: the latest two 10-Qs.
        latest = await call(client, "what_changed", company_id="AAPL")
        assert (latest["from_filing"]["filing_id"], latest["to_filing"]["filing_id"]) == (
            AAPL_10Q_Q2,
            AAPL_10Q_Q3,
        )
        assert latest["risk_factors_removed"] == []


@pytest.mark.corpus
@pytest.mark.real_embeddings
async def test_which_companies_added_an_export_control_risk_factor_this_year(pairs_snapshot):
    async with session(pairs_snapshot) as client:
        for period in ("FY2025", "2024"):  # NVIDIA's fiscal 2025 is calendar 2024
            out = await call(client, "changes_across", topic="export controls", period=period)
            assert out["matched_by_meaning"] is True and out["pairs_compared"] >= 1
            assert out["time_filter"]["period"] == period
            [nvidia] = out["companies"]
            assert nvidia["company_id"] == "CIK-0001045810"
            assert (nvidia["from_filing"]["filing_id"], nvidia["to_filing"]["filing_id"]) == (
                NVDA_10K_FY2023,
                NVDA_10K_FY2025,
            )
            best = nvidia["factors"][0]
            assert "export" in best["heading"].lower() and best["kind"] == "reworded"
            assert best["matched_by"] == "words+meaning"
            assert best["citation"]["filing_id"] == NVDA_10K_FY2025
            assert best["was"]["citation"]["filing_id"] == NVDA_10K_FY2023
            assert best["citation"]["evidence"] and best["was"]["citation"]["evidence"]
        # Tesla's and Apple's annual pairs are not in the corpus; NVIDIA's FY2024 is not either.
        none = await call(client, "changes_across", topic="export controls", period="FY2024")
        assert none["companies"] == [] and none["pairs_compared"] == 0 and none["note"]
        quarters = await call(client, "changes_across", topic="export controls", form="10-Q")
        assert quarters["pairs_compared"] == 1  # Apple's two 10-Qs
        assert all(c["company_id"] == "CIK-0000320193" for c in quarters["companies"])
        for args, message in (
            ({"topic": ""}, "at least 2"),
            ({"topic": "the of and"}, "no content words"),
            ({"topic": "x" * 201}, "200"),
            ({"topic": "tariffs", "period": "2025-12-31..2025-01-01"}, "after the end"),
            ({"topic": "tariffs", "period": "FY20255"}, "not a period"),
            ({"topic": "tariffs", "form": "8-K"}, "10-K"),
        ):
            assert message in await error(client, "changes_across", **args), args


@pytest.mark.corpus
async def test_hostile_arguments(pairs_snapshot):
    async with session(pairs_snapshot) as client:
        for args, message in (
            ({"company_id": "NVDA", "from_filing": "../../etc/passwd"}, "pattern"),
            ({"company_id": "NVDA", "to_filing": "x' OR '1'='1"}, "pattern"),
            ({"company_id": "NVDA", "from_filing": ""}, "pattern"),
            ({"company_id": "NVDA", "from_filing": "9" * 65}, "64"),
            ({"company_id": "NVDA", "from_filing": TSLA_10K}, "not a filing of this company"),
            (
                {
                    "company_id": "NVDA",
                    "from_filing": NVDA_10K_FY2025,
                    "to_filing": NVDA_10K_FY2023,
                },
                "swap",
            ),
            ({"company_id": ""}, "at least 1"),
            ({"company_id": "NOSUCHCO"}, "NOSUCHCO"),
        ):
            assert message in await error(client, "what_changed", **args), args
