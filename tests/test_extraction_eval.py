"""The reviewed gold set, the evaluation harness, and its two commands: `eval-extraction` scores a
backend (the rules here, and an OpenAI-compatible endpoint over a real loopback server) and
`eval-gates` runs the gates alone on proposed triples."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from graphrag_core.extraction import RulesBackend
from graphrag_core.extraction.evaluation import (
    BLIND_SPLITS,
    SPLITS,
    GoldCase,
    evaluate,
    format_report,
    load_gold,
)
from graphrag_core.extraction.spans import NormalizedText
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.settings import ExtractionSettings
from pipelines.cli import main
from tests.openai_server import OpenAICompatibleServer, Reply, passage_of

GOLD = ExtractionSettings().gold_set


@pytest.fixture(scope="module")
def gold() -> list[GoldCase]:
    return load_gold(GOLD)


@pytest.fixture(scope="module")
def rules(corpus_dir: Path) -> RulesBackend:
    return RulesBackend.from_rows(LocalFolderSource(corpus_dir).company_tickers())


def test_the_gold_set_is_large_varied_split_by_company_and_verbatim(gold: list[GoldCase]):
    assert len(gold) >= 200
    assert len({c.cik for c in gold}) >= 20
    # blind and blind2: each in its own file (blind_cases.jsonl, blind2_cases.jsonl)
    assert {c.split for c in gold} == set(SPLITS) - BLIND_SPLITS
    assert len({c.chunk_id for c in gold}) == len(gold)
    # held-out companies were never read while the rules were written
    dev = {c.cik for c in gold if c.split == "dev"}
    assert dev.isdisjoint({c.cik for c in gold if c.split != "dev"})
    for case in gold:
        text = NormalizedText.of(case.text)
        for triple in [*case.relations, *(g.triple for g in case.gate_cases)]:
            assert text.find(triple.evidence) is not None, (case.case_id, triple.evidence[:60])
    # negatives: chunks with nothing to extract, and proposed triples the gates must reject
    assert sum(1 for c in gold if not c.relations) >= 100
    expected = Counter(g.expect.outcome for c in gold for g in c.gate_cases)
    assert expected["rejected"] >= 40 and expected["relabelled"] >= 3
    relations = Counter(r.relation for c in gold for r in c.relations if not r.optional)
    assert all(
        relations[r] >= 10
        for r in ("SUPPLIES", "CUSTOMER_OF", "COMPETES_WITH", "SUBSIDIARY_OF", "GUIDES")
    )


def test_the_rules_meet_the_targets_on_the_gold_set(gold: list[GoldCase], rules: RulesBackend):
    report = evaluate(gold, rules)
    text = format_report(report)
    # On the whole set and on the held-out companies alone (the dev split was written against).
    for split in (None, "holdout"):
        company = report.company_counts(split)
        assert company.precision is not None and company.precision >= 0.95, text
        assert company.recall is not None and company.recall >= 0.75, text
        guides = report.counts(split)["GUIDES"]  # strict: metric, value or range and period
        assert guides.precision is not None and guides.precision >= 0.9, text
    right, total = report.gates.accuracy(report.gates.negatives)
    assert total >= 40 and right == total, report.gates.misses
    # every gold relation passes the gates as labelled
    assert report.gates.right["accepted"] == report.gates.total["accepted"], report.gates.misses


def _audit_lines(gold: list[GoldCase]) -> list[dict]:
    """The gold set's gate cases as an `eval-gates` file: each proposed triple with its chunk."""
    lines = []
    for case in gold:
        for k, g in enumerate(case.gate_cases):
            lines.append(
                {
                    "id": f"{case.case_id}#{k}",
                    "text": case.text,
                    "scale_header": case.scale_header,
                    "filer": {"name": case.company, "cik": case.cik, "ticker": case.ticker},
                    "section": case.section,
                    "fiscal_year": case.fiscal_year,
                    "preceding_heading": case.preceding_heading,
                    "triple": g.triple.model_dump(),
                    "expect": g.expect.model_dump(exclude_none=True),
                }
            )
    return lines


def test_eval_gates_writes_each_outcome_as_a_json_line(
    gold: list[GoldCase], tmp_path: Path, capsys
):
    lines = _audit_lines(gold)
    # one of the user's own: a percentage under a "(in millions)" header stays a percentage
    nvda = next(c for c in gold if c.ticker == "NVDA" and "Customer A" in c.text and "%" in c.text)
    share = next(r for r in nvda.relations if r.subject.startswith("Customer A"))
    lines.append(
        {
            "id": "percent",
            "text": nvda.text,
            "scale_header": "(in millions)",
            "filer": "NVIDIA Corporation",
            "section": nvda.section,
            "triple": {
                "subject": "Customer A",
                "relation": "CUSTOMER_OF",
                "object": "NVIDIA Corporation",
                "value": share.value,
                "unit": "%",
                "evidence": share.evidence,
            },
        }
    )
    cases = tmp_path / "proposed.jsonl"
    cases.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    out = tmp_path / "outcomes.jsonl"
    assert main(["eval-gates", str(cases), "--out", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [x["id"] for x in lines]
    assert all(r["as_expected"] for r in rows if "expected" in r), [
        r for r in rows if r.get("as_expected") is False
    ]
    assert {r["outcome"] for r in rows} == {"accepted", "rejected", "relabelled"}
    relabelled = next(r for r in rows if r["outcome"] == "relabelled")
    assert relabelled["relation"] != relabelled["proposed_relation"] and relabelled["adjustment"]
    rejected = next(r for r in rows if r["outcome"] == "rejected")
    assert rejected["reason"] and rejected["detail"] and rejected["relation"] is None
    percent = rows[-1]
    assert (percent["outcome"], percent["value"], percent["unit"]) == ("accepted", share.value, "%")
    assert (
        percent["subject"] == "Customer A (NVIDIA Corporation)"
    )  # a placeholder names this filer's customer
    assert f"{len(lines) - 1}/{len(lines) - 1} as expected" in capsys.readouterr().err


def test_eval_gates_names_the_file_line_and_field_of_a_bad_case(tmp_path: Path, capsys):
    cases = tmp_path / "proposed.jsonl"
    good = {
        "text": "We compete with Intel.",
        "filer": "NVIDIA Corporation",
        "triple": {
            "subject": "NVIDIA Corporation",
            "relation": "COMPETES_WITH",
            "object": "Intel",
            "evidence": "We compete with Intel.",
        },
    }
    cases.write_text(
        json.dumps(good) + "\n" + json.dumps({"text": "no triple here"}) + "\n", encoding="utf-8"
    )
    assert main(["eval-gates", str(cases)]) == 2
    assert f"{cases}:2: triple" in capsys.readouterr().err


def test_eval_extraction_scores_an_openai_compatible_endpoint(
    gold: list[GoldCase], corpus_dir: Path, tmp_path: Path, monkeypatch, capsys
):
    """A model endpoint is measured on the same set: a scripted server answers each chunk with its
    gold relations but one, plus a triple the gates reject."""
    picked = [
        c
        for c in gold
        if c.split == "dev"
        and any(not r.optional and r.relation == "COMPETES_WITH" for r in c.relations)
    ][:4]
    picked += [c for c in gold if c.split == "dev" and not c.relations][:2]
    required = [(c, r) for c in picked for r in c.relations if not r.optional]
    dropped = required[0][1]

    def script(body: dict) -> Reply:
        passage = passage_of(body)
        case = next((c for c in picked if c.text[:200] in passage), None)
        triples = (
            []
            if case is None
            else [
                {
                    "subject": r.subject,
                    "relation": r.relation,
                    "object": r.object,
                    "value": r.value,
                    "value_low": r.value_low,
                    "value_high": r.value_high,
                    "unit": r.unit,
                    "period": r.period,
                    "evidence": r.evidence,
                }
                for r in case.relations
                if not r.optional and r is not dropped
            ]
        )
        if case is picked[-1]:  # a competitor the chunk does not name: the gates reject it
            triples.append(
                {
                    "subject": case.company,
                    "relation": "COMPETES_WITH",
                    "object": "Intel Corporation",
                    "value": None,
                    "value_low": None,
                    "value_high": None,
                    "unit": None,
                    "period": None,
                    "evidence": case.text.split(".")[0],
                }
            )
        return Reply(json.dumps({"triples": triples}))

    subset = tmp_path / "gold.jsonl"
    subset.write_text("\n".join(c.model_dump_json() for c in picked) + "\n", encoding="utf-8")
    figures = tmp_path / "figures.json"
    with OpenAICompatibleServer(script) as server:
        monkeypatch.setenv("EXTRACTOR_BASE_URL", server.base_url)
        monkeypatch.setenv("EXTRACTOR_MODEL", "scripted-model")
        code = main(
            [
                "eval-extraction",
                "--backend",
                "openai",
                "--corpus",
                str(corpus_dir),
                "--cases",
                str(subset),
                "--json",
                str(figures),
                "--errors",
                "5",
            ]
        )
    assert code == 0
    out = capsys.readouterr().out
    assert "backend openai (scripted-model" in out and f"FN {required[0][0].case_id}" in out
    company = json.loads(figures.read_text(encoding="utf-8"))["splits"]["all"]["company_relations"]
    assert (company["tp"], company["fp"], company["fn"]) == (len(required) - 1, 0, 1)
    assert company["precision"] == 1.0 and company["recall"] == pytest.approx(
        (len(required) - 1) / len(required)
    )


def test_eval_extraction_without_an_endpoint_says_what_to_set(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.delenv("EXTRACTOR_BASE_URL", raising=False)
    monkeypatch.delenv("EXTRACTOR_MODEL", raising=False)
    assert main(["eval-extraction", "--backend", "openai", "--cases", str(GOLD)]) == 2
    assert "EXTRACTOR_BASE_URL" in capsys.readouterr().err
