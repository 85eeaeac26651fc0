"""`filings-graph eval-extraction` and `eval-gates`: an extractor, or the gates alone, on a
reviewed set."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graphrag_core.common.errors import ConfigurationError, GraphragError
from graphrag_core.settings import Settings, default_corpus
from pipelines.commands.common import settings_from_args


def _gold_tickers(settings: Settings) -> list[dict]:
    """SEC ticker rows for the rules gazetteer: the corpus's reference file when there is one
    (EDGAR is never called for an evaluation)."""
    from graphrag_core.intake.local_folder import LocalFolderSource

    corpus = settings.corpus or default_corpus()
    if corpus is None:
        return []
    try:
        return LocalFolderSource(corpus).company_tickers()
    except (GraphragError, OSError, ValueError):
        return []


def cmd_eval_extraction(args: argparse.Namespace) -> int:
    """Score a backend on the reviewed gold set: P/R/F1 per relation, gate accuracy per reason."""
    import json

    from graphrag_core.extraction.agreement import format_agreements
    from graphrag_core.extraction.backends import OpenAIBackend, RulesBackend, build_backend
    from graphrag_core.extraction.backends.base import ExtractorBackend
    from graphrag_core.extraction.evaluation import (
        BLIND_WARNING,
        evaluate,
        format_report,
        load_gold_sets,
    )
    from graphrag_core.extraction.evaluation_methods import format_methods

    settings = settings_from_args(args)
    path = Path(args.cases) if args.cases else settings.extraction.gold_set
    # A file of one's own (--cases) is the whole set unless a blind file is named with it.
    blind_path = _blind_file(args.blind_cases, args.cases, settings.extraction.blind_set)
    blind2_path = _blind_file(args.blind2_cases, args.cases, settings.extraction.blind2_set)
    if args.reveal_blind_errors:
        print(BLIND_WARNING, file=sys.stderr)
    cases = load_gold_sets(path, blind_path, blind2_path)
    if args.split != "all":
        cases = [c for c in cases if c.split == args.split]
    backend_name = args.backend or settings.extraction.resolved_backend()
    backend: ExtractorBackend
    if backend_name == "openai":
        if settings.extraction.endpoint() is None:
            raise ConfigurationError(
                "--backend openai needs EXTRACTOR_BASE_URL and EXTRACTOR_MODEL, or the shared "
                "GRAPHRAG_MODEL_BASE_URL and GRAPHRAG_MODEL_MODEL (an OpenAI-compatible endpoint)"
            )
        backend = OpenAIBackend.from_settings(settings.extraction)
    else:
        learned = settings.extraction.learned if args.learned is None else args.learned
        backend = (
            build_backend(
                settings.extraction.model_copy(update={"learned": True}),
                tickers=_gold_tickers(settings),
                encoder=learned_encoder(settings),
            )
            if learned
            else RulesBackend.from_rows(_gold_tickers(settings))
        )
    report = evaluate(cases, backend)
    print(
        f"gold set: {path}"
        + (f" + blind set: {blind_path}" if blind_path else "")
        + (f" + blind2 set: {blind2_path}" if blind2_path else "")
        + f" ({len(cases)} cases)"
    )
    print(
        format_report(report, show_errors=args.errors, reveal_blind_errors=args.reveal_blind_errors)
    )
    print("\n" + format_methods(report))
    print("\n" + format_agreements(cases))
    if args.json:
        Path(args.json).write_text(json.dumps(report.as_dict(), indent=2), encoding="utf-8")
        print(f"\nfigures written to {args.json}")
    return 0


def cmd_eval_gates(args: argparse.Namespace) -> int:
    """The gates alone on proposed triples (one JSON object a line) → one outcome a line."""
    import json

    from graphrag_core.extraction.evaluation import load_audit_cases, verdict_code, verdict_row
    from graphrag_core.extraction.gates import judge

    cases = load_audit_cases(Path(args.cases))
    lines = []
    right = expected = 0
    for number, case in enumerate(cases, start=1):
        verdict = judge(case.triple.candidate(), case.context())
        row = verdict_row(verdict, case.id or str(number))
        if case.expect is not None:
            expected += 1
            row["expected"] = case.expect.code
            row["as_expected"] = case.expect.code == verdict_code(verdict)
            right += row["as_expected"]
        lines.append(json.dumps(row, ensure_ascii=False))
    text = "\n".join(lines) + ("\n" if lines else "")
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"{len(lines)} outcomes written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if expected:
        print(f"{right}/{expected} as expected", file=sys.stderr)
    return 0


def _blind_file(named: str | None, own_cases: str | None, configured: Path) -> Path | None:
    """The blind file named on the command line, else none beside one's own `--cases`, else the
    configured one."""
    if named:
        return Path(named)
    return None if own_cases else configured


def learned_encoder(settings: Settings):
    """The packaged model in onnxruntime: the encoder the relation classifier is trained
    against and run with."""
    from graphrag_core.retrieval.onnx_embedder import OnnxEmbedder

    return OnnxEmbedder(settings.retrieval)


def cmd_train_relation_classifier(args: argparse.Namespace) -> int:
    """Train the learned relation classifier on the dev split and the training file, write its
    weights, and print the threshold curve of its gated additions on the holdout split."""
    from graphrag_core.extraction.backends import LearnedBackend, RulesBackend
    from graphrag_core.extraction.evaluation import load_gold_sets
    from graphrag_core.extraction.relation_classifier import RelationClassifier
    from graphrag_core.extraction.relation_training import (
        fit,
        learned_additions,
        load_train_cases,
        summary,
        threshold_curve,
        training_examples,
    )

    settings = settings_from_args(args)
    ex = settings.extraction
    # Every gold file is loaded only to refuse overlap; only `dev` cases are trained on and only
    # `holdout` cases are scored below (no blind case is run or printed).
    gold = load_gold_sets(ex.gold_set, ex.blind_set, ex.blind2_set)
    train_path = Path(args.train_cases) if args.train_cases else ex.train_set
    # A training file that is missing or unreadable is an error, never a quiet dev-only run.
    train_cases = load_train_cases(train_path, gold)
    rules = RulesBackend.from_rows(_gold_tickers(settings))
    examples = training_examples(gold, train_cases, rules.gazetteer)
    print(
        f"training examples ({len(examples)}; dev split of {ex.gold_set.name} + {train_path.name}):"
    )
    print(summary(examples))
    encoder = learned_encoder(settings)
    classifier = fit(examples, encoder, seed=args.seed)
    out = Path(args.out) if args.out else ex.learned_weights
    classifier.save(out)
    print(
        f"weights written to {out} (encoder {encoder.model_id}, examples {classifier.trained_on})"
    )
    if args.no_curve:
        return 0
    holdout = [c for c in gold if c.split == "holdout"]
    backend = LearnedBackend(rules, RelationClassifier.load(out), encoder, threshold=0.0)
    replies = [r.raw_output for r in backend.extract_batch([c.chunk_input() for c in holdout])]
    additions = learned_additions(holdout, replies)
    print(f"\nlearned additions the gates accept on holdout ({len(holdout)} cases):")
    print(threshold_curve(additions, [0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99]))
    if args.show_additions:
        for a in sorted(additions, key=lambda a: -a.score):
            print(f"  {a.score:.3f} {a.verdict:<8} {a.case_id}: {a.triple}")
    return 0
