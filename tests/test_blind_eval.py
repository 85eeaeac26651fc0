"""The frozen blind split in the harness (issue 22): one loader for the gold and blind files,
the splits side by side, blind errors shown only on an explicit, loudly warned request, and the
annotators' agreement on the chunks labelled twice (F1 between annotators, Cohen's kappa).

Nothing here runs an extractor on the real blind set: the commands are tried on synthetic files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.extraction.agreement import (
    Overlap,
    agreement,
    cohens_kappa,
    format_agreement,
    format_agreements,
    overlap,
)
from graphrag_core.extraction.evaluation import (
    BLIND,
    BLIND2,
    BLIND_WARNING,
    CaseResult,
    Counts,
    GateTally,
    GoldCase,
    GoldRelation,
    Report,
    format_report,
    load_gold,
    load_gold_sets,
)
from graphrag_core.extraction.grounding import Filer
from graphrag_core.settings import ExtractionSettings
from pipelines.cli import main

FILER = Filer("Acme Corp", "0000000001", "ACME")


def _rel(subject: str, relation: str, obj: str, *, optional: bool = False, **kw) -> GoldRelation:
    return GoldRelation(
        subject=subject, relation=relation, object=obj, evidence="x", optional=optional, **kw
    )


def _case(
    case_id: str, split: str, text: str, relations: list[dict] | None = None, **extra
) -> dict:
    return {
        "case_id": case_id,
        "split": split,
        "company": "Acme Corp",
        "cik": "0000000001",
        "ticker": "ACME",
        "filing_id": f"f-{case_id}",
        "form": "10-K",
        "fiscal_year": 2024,
        "section": "10-K/Item 1",
        "chunk_id": f"c-{case_id}",
        "text": text,
        "relations": relations or [],
        **extra,
    }


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# -- agreement: the formulas ------------------------------------------------------------------


def test_cohens_kappa_is_agreement_beyond_chance():
    # The textbook table: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no. p_o = 0.7; the first says
    # yes to 25 of 50, the second to 30: p_e = 0.5·0.6 + 0.5·0.4 = 0.5; kappa = 0.2 / 0.5 = 0.4.
    pairs = [(True, True)] * 20 + [(True, False)] * 5 + [(False, True)] * 10 + [(False, False)] * 15
    assert cohens_kappa(pairs) == pytest.approx(0.4)
    # Raw agreement is 0.8 here, but only because both say no to nearly everything: kappa is low.
    skewed = [(False, False)] * 8 + [(True, False), (False, True)]
    assert cohens_kappa(skewed) == pytest.approx((0.8 - 0.82) / (1 - 0.82))
    assert cohens_kappa([(True, True), (False, False)]) == pytest.approx(1.0)
    assert cohens_kappa([(True, False), (False, True)]) == pytest.approx(-1.0)
    # Undefined: nothing to judge, or both gave one answer throughout (chance agreement is 1).
    assert cohens_kappa([]) is None
    assert cohens_kappa([(False, False)] * 5) is None


def test_f1_between_annotators_is_twice_the_agreed_over_both_counts():
    assert Overlap(first=3, second=2, agreed=2).f1 == pytest.approx(0.8)
    assert Overlap(first=4, second=4, agreed=4).f1 == pytest.approx(1.0)
    assert Overlap(first=1, second=2, agreed=0).f1 == 0.0
    assert Overlap().f1 is None
    assert Overlap(1, 2, 1) + Overlap(3, 4, 2) == Overlap(4, 6, 3)


def test_overlap_pairs_labels_one_to_one_as_the_scorer_reads_them():
    first = [
        _rel("Foxconn Technology Co., Ltd.", "SUPPLIES", "Acme Corp"),  # a legal form apart: same
        _rel("Acme Corp", "COMPETES_WITH", "Globex"),
        _rel("Acme Corp", "COMPETES_WITH", "Globex"),  # a duplicate does not agree twice
        _rel("Initech", "CUSTOMER_OF", "Acme Corp", optional=True),
        _rel("Acme Corp", "EXPOSED_TO_RISK", "We depend on a few suppliers"),
    ]
    second = [
        _rel("Foxconn", "SUPPLIES", "Acme Corp"),
        _rel("Acme Corp", "COMPETES_WITH", "Globex Inc."),
        _rel("Initech", "CUSTOMER_OF", "Acme Corp", optional=True),
        _rel("Umbrella", "SUBSIDIARY_OF", "Acme Corp"),
        _rel("Acme Corp", "EXPOSED_TO_RISK", "We depend on a few suppliers"),
    ]
    company = ("SUPPLIES", "CUSTOMER_OF", "COMPETES_WITH", "SUBSIDIARY_OF")
    required = overlap(first, second, FILER, relations=company)
    assert required == Overlap(first=3, second=3, agreed=2)
    assert required.f1 == pytest.approx(2 / 3)
    assert overlap(first, second, FILER, relations=company, with_optional=True) == Overlap(4, 4, 3)
    assert overlap(first, second, FILER, with_optional=True) == Overlap(5, 5, 4)
    # The direction matters: a supplier is not a customer.
    assert (
        overlap(
            [_rel("Foxconn", "SUPPLIES", "Acme Corp")],
            [_rel("Foxconn", "CUSTOMER_OF", "Acme Corp")],
            FILER,
        ).agreed
        == 0
    )


def test_overlap_guides_agree_only_on_the_same_figure_and_period():
    a = _rel("Acme Corp", "GUIDES", "capital expenditures", value=5e8, unit="USD", period="FY2025")
    same = _rel(
        "Acme Corp", "GUIDES", "capital expenditures", value=5e8, unit="USD", period="FY2025"
    )
    other_period = _rel(
        "Acme Corp", "GUIDES", "capital expenditures", value=5e8, unit="USD", period="FY2026"
    )
    assert overlap([a], [same], FILER).agreed == 1
    assert overlap([a], [other_period], FILER).agreed == 0


def test_agreement_pools_every_pair_first_annotator_against_second():
    def double(
        cid: str, first: list[GoldRelation], second: list[GoldRelation], names=("A", "B")
    ) -> GoldCase:
        return GoldCase.model_validate(
            _case(
                cid,
                BLIND,
                "text",
                annotators=list(names),
                annotations={
                    names[0]: [r.model_dump() for r in first],
                    names[1]: [r.model_dump() for r in second],
                },
            )
        )

    sup = _rel("Foxconn", "SUPPLIES", "Acme Corp")
    risk = _rel("Acme Corp", "EXPOSED_TO_RISK", "Competition could hurt us")
    cases = [
        double("1", [sup], [sup]),
        double("2", [sup], []),
        double("3", [], [], names=("C", "D")),
        double("4", [risk], [risk], names=("C", "D")),
        GoldCase.model_validate(
            _case("5", BLIND, "text", [sup.model_dump()], annotators=["A"])
        ),  # single
    ]
    report = agreement(cases)
    assert report.chunks == 4 and report.pairs == {"A+B": 2, "C+D": 2}
    assert report.company_required == Overlap(2, 1, 1)
    assert report.all_relations == Overlap(3, 2, 2)
    # chunk has a relation: (yes,yes) (yes,no) (no,no) (yes,yes): p_o = 3/4, p_e = 3/4·1/2 + 1/4·1/2
    assert report.kappa_any == pytest.approx((0.75 - 0.5) / 0.5)
    # company: (yes,yes) (yes,no) (no,no) (no,no): p_o = 3/4, p_e = 1/2·1/4 + 1/2·3/4 = 1/2
    assert report.kappa_company == pytest.approx(0.5)
    text = format_agreement(report)
    assert "4 chunks labelled twice" in text and "66.7%" in text and "0.500" in text


# -- the files --------------------------------------------------------------------------------


def test_load_gold_sets_keeps_the_blind_split_in_its_own_file(tmp_path: Path):
    gold = _write(tmp_path / "gold.jsonl", [_case("d", "dev", "a"), _case("h", "holdout", "b")])
    blind = _write(tmp_path / "blind.jsonl", [_case("b", BLIND, "c", annotators=["A"])])
    assert [c.split for c in load_gold_sets(gold, blind)] == ["dev", "holdout", "blind"]
    assert [c.split for c in load_gold_sets(gold)] == ["dev", "holdout"]
    with pytest.raises(ConfigurationError, match="own file"):
        load_gold_sets(
            _write(tmp_path / "mixed.jsonl", [_case("d", "dev", "a"), _case("x", BLIND, "b")]),
            blind,
        )
    with pytest.raises(ConfigurationError, match="not of split blind"):
        load_gold_sets(gold, _write(tmp_path / "b2.jsonl", [_case("y", "dev", "c")]))
    with pytest.raises(ConfigurationError, match="in the gold set too"):
        load_gold_sets(gold, _write(tmp_path / "b3.jsonl", [_case("d", BLIND, "a")]))


def test_load_gold_sets_keeps_the_second_blind_split_in_its_own_file_too(tmp_path: Path):
    gold = _write(tmp_path / "gold.jsonl", [_case("d", "dev", "a")])
    blind = _write(tmp_path / "blind.jsonl", [_case("b", BLIND, "c", annotators=["A"])])
    blind2 = _write(tmp_path / "blind2.jsonl", [_case("n", BLIND2, "e", annotators=["J"])])
    assert [c.split for c in load_gold_sets(gold, blind, blind2)] == ["dev", "blind", "blind2"]
    assert [c.split for c in load_gold_sets(gold, None, blind2)] == ["dev", "blind2"]
    with pytest.raises(ConfigurationError, match="own file"):
        load_gold_sets(_write(tmp_path / "mixed.jsonl", [_case("x", BLIND2, "b")]), blind, blind2)
    # The two blind files swapped, or one named twice: each holds its own split only.
    with pytest.raises(ConfigurationError, match="not of split blind2"):
        load_gold_sets(gold, blind, blind)
    with pytest.raises(ConfigurationError, match="not of split blind "):
        load_gold_sets(gold, blind2, blind2)
    # A chunk of the gold set, or of the first blind set, is never fresh.
    with pytest.raises(ConfigurationError, match="must be unseen"):
        load_gold_sets(gold, blind, _write(tmp_path / "b4.jsonl", [_case("b", BLIND2, "c")]))
    with pytest.raises(ConfigurationError, match="must be unseen"):
        load_gold_sets(gold, None, _write(tmp_path / "b5.jsonl", [_case("d", BLIND2, "a")]))


@pytest.mark.parametrize(
    "content",
    [
        None,  # no such file
        "",  # a directory
        "not json\n",
        '{"case_id": "x", "split": "blind2"}\n',  # fields missing
        json.dumps(_case("n", "blind3", "e")) + "\n",  # no such split
        json.dumps(_case("n", BLIND2, "e", [{"subject": "a", "relation": "SUPPLIES"}])) + "\n",
        json.dumps(_case("n", BLIND2, "e", fiscal_year="NaN")) + "\n",
        json.dumps(_case("n", BLIND2, "e", annotations={"J": "'; DROP TABLE x; --"})) + "\n",
    ],
)
def test_a_broken_second_blind_file_is_a_configuration_error_never_a_crash(
    tmp_path: Path, content: str | None, capsys
):
    gold = _write(tmp_path / "gold.jsonl", [_case("d", "dev", "a")])
    path = tmp_path / ("odd name ..'\"; x.jsonl" if content else "missing.jsonl")
    if content == "":
        path.mkdir()
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigurationError):
        load_gold_sets(gold, None, path)
    args = ["eval-extraction", "--backend", "rules", "--cases", str(gold)]
    assert main([*args, "--blind2-cases", str(path)]) == 2
    assert "error:" in capsys.readouterr().err


def test_an_empty_second_blind_file_is_no_case_and_no_column(tmp_path: Path, capsys):
    gold = _write(tmp_path / "gold.jsonl", [_case("d", "dev", "a")])
    empty = _write(tmp_path / "empty.jsonl", [])
    assert [c.split for c in load_gold_sets(gold, None, empty)] == ["dev"]
    assert main(["eval-extraction", "--backend", "rules", "--cases", str(gold),
                 "--blind2-cases", str(empty)]) == 0  # fmt: skip
    assert "blind2 (" not in capsys.readouterr().out


def test_the_blind_setting_reads_its_environment(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("EXTRACTOR_BLIND_SET", str(tmp_path / "fresh_blind.jsonl"))
    assert ExtractionSettings().blind_set == tmp_path / "fresh_blind.jsonl"
    monkeypatch.setenv("EXTRACTOR_BLIND2_SET", str(tmp_path / "fresher_blind.jsonl"))
    assert ExtractionSettings().blind2_set == tmp_path / "fresher_blind.jsonl"


def test_the_repository_splits_blind_means_only_the_frozen_set():
    settings = ExtractionSettings()
    gold = load_gold(settings.gold_set)
    assert {c.split for c in gold} == {"dev", "holdout"}  # the old 45-case sample is holdout now
    cases = load_gold_sets(settings.gold_set, settings.blind_set)
    blind = [c for c in cases if c.split == BLIND]
    # Schema and size only (issue 22: >= 300 relations, >= 20 companies not in dev, >= 50 labelled
    # twice).
    assert len(blind) == 583
    companies = {c.cik for c in blind}
    assert len(companies) >= 20 and companies.isdisjoint({c.cik for c in gold if c.split == "dev"})
    assert sum(len(c.relations) for c in blind) >= 300
    doubles = [c for c in blind if len(c.annotations) == 2]
    assert len(doubles) == 141 and all(
        sorted(c.annotators) == sorted(c.annotations) for c in doubles
    )
    assert sum(len(v) for c in doubles for v in c.annotations.values()) >= 100
    assert all(c.annotators for c in blind)


def test_the_repository_blind2_split_is_fresh_text_of_companies_not_in_dev():
    settings = ExtractionSettings()
    cases = load_gold_sets(settings.gold_set, settings.blind_set, settings.blind2_set)
    fresh = [c for c in cases if c.split == BLIND2]
    # Schema and size only (the figures are in the gold set's README).
    assert len(fresh) == 180 and len({c.case_id for c in fresh}) == 180
    companies = {c.cik for c in fresh}
    assert len(companies) >= 20
    assert companies.isdisjoint({c.cik for c in cases if c.split == "dev"})
    doubles = [c for c in fresh if len(c.annotations) == 2]
    assert len(doubles) == 60 and all(
        sorted(c.annotators) == sorted(c.annotations) for c in doubles
    )
    # Its own annotators, apart from the first blind split's A to I.
    assert {a for c in fresh for a in c.annotators} == {"J", "K", "L"}
    for case in fresh:
        for rel in [*case.relations, *(r for rs in case.annotations.values() for r in rs)]:
            assert rel.evidence in case.text, (case.case_id, rel.evidence[:60])


# -- the report -------------------------------------------------------------------------------


def _result(case: GoldCase, fn: GoldRelation) -> CaseResult:
    counts = {
        r: Counts()
        for r in (
            "SUPPLIES",
            "CUSTOMER_OF",
            "COMPETES_WITH",
            "SUBSIDIARY_OF",
            "GUIDES",
            "EXPOSED_TO_RISK",
        )
    }
    counts[fn.relation].fn = 1
    return CaseResult(case, [], [], counts, [], [fn])


def test_the_report_puts_the_splits_side_by_side_and_hides_blind_errors():
    dev = GoldCase.model_validate(_case("dev-1", "dev", "t"))
    blind = GoldCase.model_validate(_case("blind-1", BLIND, "t"))
    report = Report(
        "rules",
        "m",
        "v",
        [
            _result(dev, _rel("Devco", "SUPPLIES", "Acme Corp")),
            _result(blind, _rel("Blindco", "CUSTOMER_OF", "Acme Corp")),
        ],
        GateTally(),
    )
    text = format_report(report, show_errors=5)
    header = next(line for line in text.splitlines() if "dev (1)" in line)
    assert "blind (1)" in header and "all (2)" in header and "holdout" not in header
    supplies = next(line for line in text.splitlines() if line.strip().startswith("SUPPLIES"))
    assert supplies.count("|") == 3 and "0/1" in supplies
    assert "FN dev-1" in text and "Blindco" not in text and "blind-1" not in text
    revealed = format_report(report, reveal_blind_errors=True)
    assert BLIND_WARNING in revealed and "FN blind-1" in revealed and "FN dev-1" not in revealed


def test_the_report_adds_a_blind2_column_and_hides_its_errors_like_blind():
    dev = GoldCase.model_validate(_case("dev-1", "dev", "t"))
    fresh = GoldCase.model_validate(_case("fresh-1", BLIND2, "t"))
    report = Report(
        "rules",
        "m",
        "v",
        [
            _result(dev, _rel("Devco", "SUPPLIES", "Acme Corp")),
            _result(fresh, _rel("Freshco", "COMPETES_WITH", "Acme Corp")),
        ],
        GateTally(),
    )
    text = format_report(report, show_errors=5)
    header = next(line for line in text.splitlines() if "dev (1)" in line)
    assert "blind2 (1)" in header and "all (2)" in header and "blind (" not in header
    competes = next(line for line in text.splitlines() if line.strip().startswith("COMPETES"))
    assert competes.count("|") == 3 and "0/1" in competes
    assert "FN dev-1" in text and "Freshco" not in text and "fresh-1" not in text
    revealed = format_report(report, reveal_blind_errors=True)
    assert BLIND_WARNING in revealed and "FN fresh-1" in revealed and "FN dev-1" not in revealed
    assert report.as_dict()["splits"]["blind2"]["relations"]["COMPETES_WITH"]["fn"] == 1


# -- the commands ------------------------------------------------------------------------------


def _synthetic_sets(tmp_path: Path) -> tuple[Path, Path]:
    sup = {
        "subject": "Zorblax Holdings",
        "relation": "SUPPLIES",
        "object": "Acme Corp",
        "evidence": "Zorblax Holdings is mentioned here.",
    }
    gold = _write(
        tmp_path / "gold.jsonl",
        [_case("dev-zz", "dev", "Zorblax Holdings is mentioned here.", [sup])],
    )
    blind_sup = {
        **sup,
        "subject": "Quuxite Limited",
        "evidence": "Quuxite Limited is mentioned here.",
    }
    blind = _write(
        tmp_path / "blind.jsonl",
        [
            _case(
                "blind-zz",
                BLIND,
                "Quuxite Limited is mentioned here.",
                [blind_sup],
                annotators=["A", "B"],
                annotations={"A": [blind_sup], "B": [blind_sup]},
            ),
        ],
    )
    return gold, blind


def _synthetic_blind2(tmp_path: Path) -> Path:
    sup = {
        "subject": "Frobnitz GmbH",
        "relation": "SUPPLIES",
        "object": "Acme Corp",
        "evidence": "Frobnitz GmbH is mentioned here.",
    }
    return _write(
        tmp_path / "blind2.jsonl",
        [
            _case(
                "fresh-zz",
                BLIND2,
                "Frobnitz GmbH is mentioned here.",
                [sup],
                annotators=["J", "K"],
                annotations={"J": [sup], "K": []},
            ),
        ],
    )


def test_format_agreements_reports_each_blind_split_apart():
    sup = _rel("Foxconn", "SUPPLIES", "Acme Corp")

    def double(cid: str, split: str, second: list[GoldRelation]) -> GoldCase:
        return GoldCase.model_validate(
            _case(
                cid,
                split,
                "t",
                annotators=["A", "B"],
                annotations={"A": [sup.model_dump()], "B": [r.model_dump() for r in second]},
            )
        )

    text = format_agreements([double("1", BLIND, [sup]), double("2", BLIND2, [])])
    first, second = text.split("\n\ninter")[0], text.split("inter-annotator agreement (blind2)")[1]
    assert "inter-annotator agreement (blind): 1 chunks labelled twice" in first
    assert "100.0%" in first and "0.0%" in second and "100.0%" not in second
    assert format_agreements([double("3", "dev", [])]).startswith("inter-annotator agreement (dev)")
    assert format_agreements([]) == "inter-annotator agreement: no chunk is labelled twice"


def test_eval_extraction_prints_blind2_figures_and_agreement_but_not_its_errors(
    tmp_path: Path, capsys
):
    gold, blind = _synthetic_sets(tmp_path)
    blind2 = _synthetic_blind2(tmp_path)
    args = ["eval-extraction", "--backend", "rules", "--cases", str(gold)]
    both = ["--blind-cases", str(blind), "--blind2-cases", str(blind2)]
    assert main([*args, *both, "--show-errors", "5"]) == 0
    out = capsys.readouterr().out
    assert "blind (1)" in out and "blind2 (1)" in out and "dev (1)" in out
    assert "FN dev-zz" in out and "fresh-zz" not in out and "Frobnitz" not in out
    assert "agreement (blind): 1 chunks" in out and "agreement (blind2): 1 chunks" in out
    assert main([*args, *both, "--split", "blind2"]) == 0
    out = capsys.readouterr().out
    assert "blind2 (1)" in out and "dev (" not in out and "blind (" not in out
    assert main([*args, *both, "--reveal-blind-errors"]) == 0
    captured = capsys.readouterr()
    assert BLIND_WARNING in captured.err and "FN fresh-zz" in captured.out


def test_eval_extraction_prints_blind_figures_and_agreement_but_not_blind_errors(
    tmp_path: Path, capsys
):
    gold, blind = _synthetic_sets(tmp_path)
    assert (
        main(
            [
                "eval-extraction",
                "--backend",
                "rules",
                "--cases",
                str(gold),
                "--blind-cases",
                str(blind),
                "--show-errors",
                "5",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "blind (1)" in captured.out and "dev (1)" in captured.out
    assert (
        "FN dev-zz" in captured.out
        and "blind-zz" not in captured.out
        and "Quuxite" not in captured.out
    )
    assert (
        "1 chunks labelled twice" in captured.out
        and BLIND_WARNING not in captured.out + captured.err
    )
    assert (
        main(
            [
                "eval-extraction",
                "--backend",
                "rules",
                "--cases",
                str(gold),
                "--blind-cases",
                str(blind),
                "--reveal-blind-errors",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert BLIND_WARNING in captured.err and "FN blind-zz" in captured.out


def test_eval_extraction_with_a_file_of_ones_own_loads_no_blind_set(tmp_path: Path, capsys):
    gold, _ = _synthetic_sets(tmp_path)
    assert main(["eval-extraction", "--backend", "rules", "--cases", str(gold)]) == 0
    out = capsys.readouterr().out
    assert "dev (1)" in out and "blind (" not in out and "no chunk is labelled twice" in out


def test_bench_gold_only_prints_the_splits_and_agreement_without_errors(
    tmp_path: Path, monkeypatch, capsys, corpus_dir: Path
):
    gold, blind = _synthetic_sets(tmp_path)
    monkeypatch.setenv("EXTRACTOR_GOLD_SET", str(gold))
    monkeypatch.setenv("EXTRACTOR_BLIND_SET", str(blind))
    monkeypatch.setenv("EXTRACTOR_BLIND2_SET", str(_synthetic_blind2(tmp_path)))
    monkeypatch.setenv("FILINGS_CORPUS", str(corpus_dir))
    from bench import extract

    assert extract.main(["--gold-only"]) == 0
    out = capsys.readouterr().out
    assert "dev (1)" in out and "blind (1)" in out and "blind2 (1)" in out
    assert "agreement (blind): 1 chunks" in out and "agreement (blind2): 1 chunks" in out
    assert "FN " not in out and "chunks/s" not in out  # no errors, no throughput part
    assert "Frobnitz" not in out and "fresh-zz" not in out
    assert (
        Counter(line.count("|") for line in out.splitlines())[4] >= 7
    )  # every relation row, 4 splits


def test_the_report_counts_gold_relations_the_gates_reject_per_split_without_naming_blind_ones():
    sup = {
        "subject": "Quuxite Limited",
        "relation": "SUPPLIES",
        "object": "Acme Corp",
        "evidence": "Quuxite",
    }
    dev = GoldCase.model_validate(_case("dev-2", "dev", "t", [sup]))
    blind = GoldCase.model_validate(_case("blind-2", BLIND, "t", [sup, {**sup, "optional": True}]))
    gates = GateTally()
    gates.add("accepted", "accepted", "dev-2", dev.relations[0])
    gates.add("accepted", "rejected:negated", "blind-2", blind.relations[0])
    report = Report(
        "rules",
        "m",
        "v",
        [_result(dev, dev.relations[0]), _result(blind, blind.relations[0])],
        gates,
    )
    text = format_report(report, show_errors=5)
    assert "gold relations accepted as labelled, per split: dev 1/1, blind 0/1" in text
    assert "gate blind-2" not in text and "gate blind-2" in format_report(
        report, reveal_blind_errors=True
    )
