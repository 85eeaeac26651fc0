"""Issue 24, items 4 and 5: check_citations reads the claim (whose figure, which figure, which
period, and rates the server computes), and tool answers stay whole JSON when trimmed, with
evidence numbers only for what a client received, per client session.

The claim cases run on real corpus filings (Alphabet's and Apple's FY2024 10-Ks) through an MCP
client session, citing the evidence numbers the tools handed out."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from mcp import Client

from analyst.agent import _result_text
from analyst.result_budget import fit_json
from graphrag_core.retrieval.citations import Evidence, check_answer
from graphrag_core.retrieval.claims import ClaimContext, CompanyNames, FactRecord, claim_for
from mcp_server.evidence import EvidenceLedger, cap_answer, number_citations, reserve_numbers
from mcp_server.models import Citation, GetMetricsResult, MetricSeries, MetricValue
from tests.mcp_client import call, session
from tests.services import mcp_http_server
from tests.test_mcp_corpus import GOOGL_10K, publish, run_stages

AAPL_10K = "0000320193-24-000123"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def claims_corpus(corpus_dir: Path, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("claims-corpus")
    run_stages(corpus_dir, root, (GOOGL_10K, AAPL_10K))
    publish(corpus_dir, root)
    return root


async def _alphabet(client: Client) -> dict:
    """Evidence numbers of Alphabet's FY2024 revenue, gross profit and net income, and the
    income-statement chunk they are shown in."""
    out = await call(
        client,
        "get_metrics",
        company_id="GOOGL",
        metrics=["revenue", "gross_profit", "net_income"],
        periods=2,
    )
    values = {s["metric"]: s["values"][0] for s in out["series"]}
    assert values["revenue"]["fiscal_label"] == "FY2024" and values["revenue"]["value"] == 350_018e6
    return {
        "revenue": values["revenue"]["citation"]["evidence"],
        "gross_profit": values["gross_profit"]["citation"]["evidence"],
        "net_income": values["net_income"]["citation"]["evidence"],
        "chunk": values["revenue"]["citation"]["chunk_id"],
        "yoy": values["revenue"]["yoy_change_pct"],
    }


async def _check(client: Client, answer: str) -> dict:
    return await call(client, "check_citations", answer=answer)


# -- the cases, each on its own --------------------------------------------------------
@pytest.mark.corpus
@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        # another line's figure (Alphabet's FY2023 revenue, shown in the same table)
        (
            "Alphabet's operating income in fiscal 2024 was $307,394 million [{r}].",
            "as operating income",
        ),
        # another year
        ("Alphabet's revenue in fiscal 2023 was $350,018 million [{r}].", "as fiscal 2023's"),
        # another company
        ("Apple's revenue in fiscal 2024 was $350,018 million [{r}].", "as Apple Inc.'s"),
        # a company the citation is not about, no figure at all
        ("Apple reported record revenue in fiscal 2024 [{r}].", "names Apple Inc."),
        # the period carried from the sentence before
        (
            "Alphabet reported fiscal 2023 results. Its revenue was $350,018 million [{r}].",
            "as fiscal 2023's",
        ),
        # a figure that is nobody's period: the sentence must say which one
        ("Alphabet's revenue was $350,018 million [{r}].", "does not say which period"),
    ],
)
async def test_wrong_line_year_company_fail_with_what_the_citation_says(
    claims_corpus, sentence, said
):
    async with session(claims_corpus) as client:
        ev = await _alphabet(client)
        report = await _check(client, sentence.format(r=ev["revenue"]))
        assert report["ok"] is False, report
        [problem] = report["mismatched"]
        assert said in problem["problem"]
        assert (
            f"[{ev['revenue']}] is Alphabet Inc.'s revenue for FY2024 (350,018 million USD)"
            in problem["problem"]
        )


@pytest.mark.corpus
@pytest.mark.parametrize(
    "sentence",
    [
        "Alphabet grew its revenue 15% in fiscal 2024 [{r}].",
        "Alphabet's revenue fell 13.9% in fiscal 2024 [{r}].",  # the right size, the wrong way
        "Alphabet's gross margin in fiscal 2024 was 62% [{r}][{g}].",
        "Alphabet's gross margin in fiscal 2024 was 58.2% [{r}].",  # its other part is not cited
    ],
)
async def test_unstated_growth_rates_and_ratios_fail(claims_corpus, sentence):
    async with session(claims_corpus) as client:
        ev = await _alphabet(client)
        report = await _check(client, sentence.format(r=ev["revenue"], g=ev["gross_profit"]))
        assert report["ok"] is False, report
        assert report["mismatched"] and "the cited facts" in report["mismatched"][0]["problem"]


@pytest.mark.corpus
@pytest.mark.parametrize(
    "sentence",
    [
        "Alphabet's revenue in fiscal 2024 was $350,018 million [{r}].",
        "Alphabet's revenue in fiscal 2024 was $350.0 billion [{r}].",
        "GOOGL reported revenue of $350 billion for the year ended December 31, 2024 [{r}].",
        "Google's revenues were $350,018 million in 2024 [{r}].",
        "Alphabet's revenue grew 13.9% in fiscal 2024 [{r}].",
        "Alphabet's revenue rose from $307,394 million in fiscal 2023 to $350,018 million "
        "in fiscal 2024 [{r}].",
        "In fiscal 2024, Alphabet's revenue was $350.0 billion, up from $307.4 billion [{r}].",
        "Alphabet reported fiscal 2024 results [{r}]. Its revenue was $350,018 million "
        "[{r}], up 14% [{r}].",
        "Alphabet's gross margin in fiscal 2024 was 58.2% [{r}][{g}].",
        "Alphabet's net income in fiscal 2024 was $100,118 million [{c}].",
        "Alphabet's revenues for 2023 were $307,394 million [{c}].",
    ],
)
async def test_true_sentences_pass(claims_corpus, sentence):
    async with session(claims_corpus) as client:
        ev = await _alphabet(client)
        answer = sentence.format(r=ev["revenue"], g=ev["gross_profit"], c=ev["chunk"])
        report = await _check(client, answer)
        assert report["ok"] is True, report


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        # the chunk's table shows 100,118 in the 2024 column
        (
            "Alphabet's net income in fiscal 2023 was $100,118 million [{c}].",
            "in {c} it stands for December 31, 2024",
        ),
        # Alphabet's filing, and the row that states the figure names no Apple
        ("Apple's net income in fiscal 2024 was $100,118 million [{c}].", "names no Apple Inc."),
    ],
)
async def test_a_chunk_figure_for_another_year_or_company_fails(claims_corpus, sentence, said):
    async with session(claims_corpus) as client:
        ev = await _alphabet(client)
        report = await _check(client, sentence.format(c=ev["chunk"]))
        assert report["ok"] is False, report
        assert said.format(c=ev["chunk"]) in report["mismatched"][0]["problem"]


@pytest.mark.corpus
async def test_the_growth_rate_is_the_servers_own(claims_corpus):
    """The rate a draft may state is the one get_metrics computed (yoy_change_pct)."""
    async with session(claims_corpus) as client:
        ev = await _alphabet(client)
        assert ev["yoy"] == pytest.approx(13.87, abs=0.01)
        ok = await _check(
            client, f"Alphabet's revenue grew {ev['yoy']}% in fiscal 2024 [{ev['revenue']}]."
        )
        assert ok["ok"] is True, ok
        off = await _check(
            client,
            f"Alphabet's revenue grew {ev['yoy'] + 0.1:.2f}% in fiscal 2024 [{ev['revenue']}].",
        )
        assert "+13.9%" in off["mismatched"][0]["problem"]


# -- the pure reading, without a snapshot ------------------------------------------------------
def _fact(**over) -> FactRecord:
    base = dict(
        label="[1]",
        company="Alphabet Inc.",
        metric="revenue",
        value=350_018e6,
        unit="USD",
        fiscal_label="FY2024",
        fiscal_year=2024,
        fiscal_period="FY",
        calendar_start=dt.date(2024, 1, 1),
        calendar_end=dt.date(2024, 12, 31),
        prior_value=307_394e6,
        prior_fiscal_label="FY2023",
        scale_header="(in millions, except per share amounts)",
    )
    return FactRecord(**{**base, **over})


def test_a_bare_table_figure_is_read_at_the_table_scale_and_a_ticker_names_the_company():
    names = CompanyNames()
    names.add("alphabet", "Alphabet Inc.")
    names.add_ticker("GOOGL", "Alphabet Inc.")
    evidence = {"1": Evidence("[1]", "", fact=_fact())}
    assert check_answer("GOOGL's FY2024 revenue was 350,018 [1].", evidence.get, companies=names).ok
    wrong = check_answer("GOOGL's FY2024 revenue was 350,019 [1].", evidence.get, companies=names)
    assert [u["figure"] for u in wrong.unsupported] == ["350,019"]
    assert "350,018 million USD" in wrong.unsupported[0]["cited_says"]


def test_a_figure_goes_with_the_mentions_of_its_own_clause():
    names = CompanyNames()
    names.add("alphabet", "Alphabet Inc.")
    names.add("apple", "Apple Inc.")
    sentence = (
        "Apple's revenue was $391.0 billion in fiscal 2024, and Alphabet's was $350.0 billion "
        "in fiscal 2024"
    )
    at = sentence.index("$350.0")
    claim = claim_for(sentence, at, at + 6, names, ClaimContext())
    assert (claim.company, claim.metric, claim.period.year) == ("Alphabet Inc.", "revenue", 2024)


# -- item 5: whole JSON under the agent's budget ---------------------------------------------
def _hits(n: int) -> dict:
    return {
        "snapshot": "v1",
        "capped": None,
        "query": "q",
        "hits": [
            {
                "chunk_id": f"c{k}",
                "passage": f"passage {k} " + "word " * 60,
                "citation": {"filing_id": "f", "chunk_id": f"c{k}", "evidence": k + 1},
            }
            for k in range(n)
        ],
    }


def test_the_agent_trims_tool_results_on_item_boundaries():
    data = _hits(200)
    text = _result_text(
        SimpleNamespace(is_error=False, structured_content=data, content=[]), 12_000
    )
    assert len(text) <= 12_000
    out = json.loads(text)  # whole JSON, not cut mid-value
    kept = out["hits"]
    assert 0 < len(kept) < 200
    assert (
        kept == data["hits"][: len(kept)]
    )  # every item shown is complete, evidence number included
    assert f"dropped {200 - len(kept)} from hits" in out["capped"]
    assert len(data["hits"]) == 200  # the caller's answer is not changed


def test_trimming_keeps_the_servers_capped_note_and_small_answers_unchanged():
    data = _hits(200)
    data["capped"] = "answer cut to 40,000 characters (dropped 12 from SearchChunksResult.hits)"
    out = json.loads(fit_json(data, 5_000))
    assert (
        out["capped"].startswith("answer cut to 40,000 characters")
        and "cut to 5,000" in out["capped"]
    )
    small = _hits(2)
    assert fit_json(small, 12_000) == json.dumps(small, ensure_ascii=False, separators=(",", ":"))


def test_a_single_long_text_is_shortened_at_a_word_and_stays_json():
    data = {"snapshot": "v1", "text": "alpha beta gamma " * 2_000, "chunk_id": "c1"}
    text = fit_json(data, 3_000)
    out = json.loads(text)
    assert len(text) <= 3_000 and out["chunk_id"] == "c1"
    assert out["text"].endswith("…") and out["text"][:-1].split()[-1] in {"alpha", "beta", "gamma"}
    assert "shortened" in out["capped"]


def test_errors_and_plain_text_are_cut_at_a_word_with_a_note():
    result = SimpleNamespace(
        is_error=True,
        structured_content=None,
        content=[SimpleNamespace(text="no such company " * 100)],
    )
    text = _result_text(result, 500)
    assert len(text) <= 500 and text.startswith("ERROR: ") and "[cut at 500 characters" in text


# -- item 5: numbers after the server's cap, per session --------------------------------------
def _metrics(n: int) -> GetMetricsResult:
    day = dt.date(2024, 12, 31)
    values = [
        MetricValue(
            fiscal_label=f"FY{2000 + k}",
            fiscal_year=2000 + k,
            fiscal_period="FY",
            period_type="duration",
            calendar_start=day,
            calendar_end=day,
            value=1e9 + k,
            unit="USD",
            display="x" * 200,
            yoy_change_pct=None,
            prior_fiscal_label=None,
            prior_value=None,
            citation=Citation(filing_id="f", chunk_id=f"c{k}", fact_id=f"fact{k}"),
            restated=False,
            superseded=[],
        )
        for k in range(n)
    ]
    return GetMetricsResult(
        snapshot="v1",
        as_of=None,
        company_id="CIK-1",
        name="X",
        period_type="annual",
        series=[MetricSeries(metric="revenue", values=values, more_periods_available=False)],
        missing=[],
    )


def test_evidence_numbers_go_only_to_citations_the_client_receives():
    ledger = EvidenceLedger()
    result = _metrics(400)
    reserve_numbers(result, ledger)
    result = cap_answer(result, 20_000)
    number_citations(result, ledger, "v1")
    kept = result.series[0].values
    assert 0 < len(kept) < 400 and result.capped
    assert [v.citation.evidence for v in kept] == list(range(1, len(kept) + 1))
    assert len(ledger.items) == len(kept)  # nothing numbered that was cut
    assert len(result.model_dump_json()) <= 20_000  # the real numbers fit where the stand-ins did


@pytest.mark.corpus
async def test_two_http_sessions_number_evidence_on_their_own(claims_corpus):
    """Two real MCP client sessions over HTTP: each numbers from 1, and each session's
    check_citations resolves its own numbers only."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for key in ("GRAPHRAG_MCP_TOKEN", "FILINGS_CORPUS"):
        env.pop(key, None)
    with mcp_http_server(claims_corpus, env) as (base, _proc):
        url = f"{base}/mcp"
        async with Client(url, mode="legacy") as one, Client(url, mode="legacy") as two:
            apple = await one.call_tool(
                "get_metrics", {"company_id": "AAPL", "metrics": ["revenue"], "periods": 1}
            )
            alphabet = await two.call_tool(
                "get_metrics", {"company_id": "GOOGL", "metrics": ["revenue"], "periods": 1}
            )
            n_one = apple.structured_content["series"][0]["values"][0]["citation"]["evidence"]
            n_two = alphabet.structured_content["series"][0]["values"][0]["citation"]["evidence"]
            assert n_one == n_two == 1
            mine = await one.call_tool(
                "check_citations",
                {"answer": "Apple's revenue in fiscal 2024 was $391,035 million [1]."},
            )
            assert mine.structured_content["ok"] is True, mine.structured_content
            theirs = await two.call_tool(
                "check_citations",
                {"answer": "Apple's revenue in fiscal 2024 was $391,035 million [1]."},
            )
            assert theirs.structured_content["ok"] is False
            assert (
                "Alphabet Inc.'s revenue for FY2024"
                in theirs.structured_content["mismatched"][0]["problem"]
            )


def test_hostile_figures_and_records_never_crash_the_check():
    names = CompanyNames()
    names.add("alphabet", "Alphabet Inc.")
    evidence = {
        "1": Evidence("[1]", "", fact=_fact()),
        "2": Evidence("[2]", "", fact=_fact(prior_value=0.0)),
        "3": Evidence(
            "[3]", "", fact=_fact(calendar_start=None, calendar_end=None, fiscal_year=None)
        ),
    }
    huge = "9" * 400
    report = check_answer(
        f"Alphabet's revenue in fiscal 2024 was ${huge} million [1]. Alphabet's revenue "
        f"grew {huge}% in "
        "fiscal 2024 [1]. Alphabet's revenue grew 5% in fiscal 2024 [2]. Alphabet's revenue in "
        "December 31, 2024 was $350,018 million [3]. Q9 FY99999 [1]. [1] [2]",
        evidence.get,
        companies=names,
    )
    assert [u["figure"] for u in report.unsupported] == [f"${huge} million"]
    problems = [m["problem"] for m in report.mismatched]
    assert "is not the growth rate the server computes" in problems[0]
    assert "no growth rate can be computed from the cited facts" in problems[1]
    assert (
        "gives it as December 31, 2024's" in problems[2]
    )  # a record without dates never matches a date
    assert not report.ok


def test_the_agents_revision_prompt_says_what_the_citation_holds():
    from analyst.agent import _report_text

    check = {
        "summary": "1 claim(s) say something else than their citation",
        "mismatched": [
            {
                "sentence": "Apple's revenue in fiscal 2024 was $350,018 million [1].",
                "figure": "$350,018 million",
                "citations": ["[1]"],
                "problem": "the sentence gives it as Apple Inc.'s; [1] is Alphabet Inc.'s revenue "
                "for FY2024 (350,018 million USD)",
            }
        ],
    }
    assert (
        "- the sentence gives it as Apple Inc.'s; [1] is Alphabet Inc.'s revenue"
        in _report_text(check)
    )


def test_quarter_labels_as_the_tools_write_them():
    names = CompanyNames()
    names.add("nvidia", "NVIDIA Corp")
    quarter = _fact(
        label="[1]",
        company="NVIDIA Corp",
        value=46_743e6,
        fiscal_label="Q2-FY2026",
        fiscal_year=2026,
        fiscal_period="Q2",
        calendar_start=dt.date(2025, 4, 28),
        calendar_end=dt.date(2025, 7, 27),
        prior_value=30_040e6,
        prior_fiscal_label="Q2-FY2025",
    )
    evidence = {"1": Evidence("[1]", "", fact=quarter)}
    for good in (
        "NVIDIA's revenue in Q2-FY2026 was $46.7 billion [1].",
        "NVIDIA's second quarter of fiscal 2026 revenue was $46,743 million [1].",
        "NVIDIA's revenue for the quarter ended July 27, 2025 was $46.7 billion [1].",
    ):
        assert check_answer(good, evidence.get, companies=names).ok, good
    for bad, said in (
        ("NVIDIA's revenue in Q1-FY2026 was $46.7 billion [1].", "as Q1-FY2026's"),
        ("NVIDIA's revenue in fiscal 2026 was $46.7 billion [1].", "as fiscal 2026's"),
    ):
        report = check_answer(bad, evidence.get, companies=names)
        assert said in report.mismatched[0]["problem"], bad


def test_a_segment_name_confirms_a_company_but_never_contradicts_one():
    names = CompanyNames()
    names.add("alphabet", "Alphabet Inc.")
    names.add("microsoft", "Microsoft Corp")
    names.add("data center", "NVIDIA Corp", weak=True)
    names.add("google", "Alphabet Inc.", weak=True)
    evidence = {"1": Evidence("[1]", "", fact=_fact(company="Microsoft Corp"))}
    assert check_answer(
        "Microsoft's data center revenue in fiscal 2024 was $350,018 million [1].",
        evidence.get,
        companies=names,
    ).ok
    google = {"1": Evidence("[1]", "", fact=_fact())}
    assert check_answer(
        "Google's revenue in fiscal 2024 was $350.0 billion [1].", google.get, companies=names
    ).ok
    wrong = check_answer(
        "Google's revenue in fiscal 2024 was $350.0 billion [1].", evidence.get, companies=names
    )
    assert "does not say whose figure" in wrong.mismatched[0]["problem"]
