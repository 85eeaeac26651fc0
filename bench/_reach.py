#!/usr/bin/env python
"""Why the extractor misses the company relations a reader finds (issue 22), and an honest figure
for the learned classifier: company-grouped cross-validation on the annotated training draw.

Measured only on what is not blind: the `draw` chunks of `train_cases.jsonl` (annotated chunks of
the dev companies' filings) and the `holdout` split of `cases.jsonl`. No blind file is read
beyond the loader's overlap check.

1. Diagnosis: each required company relation the default extractor (rules + learned, the
   packaged weights and threshold) does not publish through the gates gets one cause, the
   first that applies:
   (e) table row; (d) the counterpart is not the filer; (f) the evidence spans sentences;
   (g) an extractor proposed it and the gates rejected it; (c) asked (a candidate of that name in
   the evidence's sentence) but scored below the threshold or as another class;
   (a) not asked: the sentence names no filer (the filer is implied);
   (b) not asked: the sentence names the filer, but the name is not read as a candidate.
2. Cross-validation: for each draw company, the classifier is trained on the other companies'
   draw chunks, the dev split and the synthetic sentences, and the extractor (rules + that
   classifier) scores the held company's draw chunks; precision and recall of the four company
   relations over all folds, at several thresholds.

    PYTHONPATH=. FILINGS_CORPUS=../shared/corpus .venv/bin/python bench/_reach.py \
        [--no-cv | --cv-only] [--list] [--before ../main]

`--before TREE` runs the cross-validation again on another checkout (its code and weights), so
that before and after print side by side. It prints aggregates (and with --list, each missed
relation and each cross-validation error of the draw and holdout, never a blind one), exits 0.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

# --before runs this script again on another tree (REACH_TREE): its code, its weights.
ROOT = Path(os.environ.get("REACH_TREE") or Path(__file__).resolve().parent.parent)
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np

from graphrag_core.extraction.backends import LearnedBackend, RulesBackend
from graphrag_core.extraction.evaluation import (
    COMPANY_RELATIONS,
    GoldCase,
    load_gold_sets,
    matches,
    same_entity,
    score_case,
)
from graphrag_core.extraction.gates import Candidate as GateCandidate
from graphrag_core.extraction.relation_candidates import FILER_WORDS, TRIGGER, candidates
from graphrag_core.extraction.relation_classifier import RelationClassifier
from graphrag_core.extraction.relation_training import (
    fit,
    label_of,
    load_train_cases,
    training_examples,
)
from graphrag_core.extraction.triples import CandidateTriple, parse_output
from graphrag_core.settings import Settings
from graphrag_core.text.sentences import sentence_spans
from pipelines.commands.evaluation import _gold_tickers, learned_encoder

CAUSES = {
    "e": "table row",
    "d": "counterpart not the filer",
    "f": "evidence spans sentences",
    "g": "proposed, gates rejected",
    "c": "asked, scored below threshold",
    "a": "not asked: no filer in sentence",
    "b": "not asked: name not a candidate",
}


def _kind(text: str) -> str:
    """The training file keeps no chunk kind; the chunker gives a table a chunk of its own, so a
    chunk whose lines are mostly table rows was one."""
    lines = [line for line in text.splitlines() if line.strip()]
    rows = sum(line.lstrip().startswith("|") for line in lines)
    return "table" if lines and rows * 2 > len(lines) else "prose"


def as_gold(t) -> GoldCase:
    """A training chunk in the gold case's shape, so that the scorer and gates read it alike."""
    return GoldCase(
        kind=_kind(t.text),
        case_id=t.case_id,
        split="dev",
        company=t.company,
        cik=t.cik,
        ticker=t.ticker,
        filing_id=t.chunk_id.split(":")[0] if ":" in t.chunk_id else t.chunk_id,
        form="10-K",
        section=t.section,
        chunk_id=t.chunk_id,
        text=t.text,
        relations=t.relations,
    )


def _fold(s: str) -> str:
    return " ".join(s.split())


def evidence_sentences(case: GoldCase, evidence: str) -> list[tuple[int, int]]:
    """The sentence spans the evidence quote overlaps (by its first and last 30 characters)."""
    text = case.text
    at = text.find(evidence)
    if at < 0:
        head = evidence.strip()[:30]
        at = text.find(head)
        if at < 0:
            return []
        end = at + len(evidence)
    else:
        end = at + len(evidence)
    return [(s, e) for s, e in sentence_spans(text, split_lines=True) if s < end and at < e]


def is_table(case: GoldCase, evidence: str) -> bool:
    return case.kind == "table" or "Exhibit 21" in case.section or evidence.lstrip().startswith("|")


def diagnose(cases: list[GoldCase], backend: LearnedBackend) -> list[tuple[GoldCase, object, str]]:
    """(case, relation, cause) for every required company relation; cause "hit" when found."""
    replies = [r.raw_output for r in backend.extract_batch([c.chunk_input() for c in cases])]
    out = []
    for case, raw in zip(cases, replies, strict=True):
        result = score_case(case, raw)
        missed = {id(g) for g in result.false_negatives}
        proposed = [
            GateCandidate.of(i) for i in parse_output(raw).items if isinstance(i, CandidateTriple)
        ]
        filer = case.filer
        cands = None
        for g in case.relations:
            if g.relation not in COMPANY_RELATIONS or g.optional:
                continue
            if id(g) not in missed:
                out.append((case, g, "hit"))
                continue
            out.append((case, g, _cause(case, g, proposed, backend, filer, cands)))
    return out


def _cause(case, g, proposed, backend, filer, cands) -> str:
    if is_table(case, g.evidence):
        return "e"
    subject_self, object_self = filer.is_self(g.subject), filer.is_self(g.object)
    if not (subject_self or object_self):
        return "d"
    spans = evidence_sentences(case, g.evidence)
    if len(spans) > 1:
        return "f"
    if any(matches(p, g, filer, strict_guides=False) for p in proposed):
        return "g"
    other = g.object if subject_self else g.subject
    names = g.aliases.get("object" if subject_self else "subject", ())
    found = candidates(case.text, filer, backend.gazetteer)
    s = spans[0] if spans else None
    for c in found:
        if s and c.sentence_start == s[0] and same_entity(c.name, other, filer, names):
            return "c"
    if s is None:
        return "b"
    sentence = case.text[s[0] : s[1]]
    first = filer.name.split()[0].casefold() if filer.name.split() else ""
    if not (FILER_WORDS.search(sentence) or (first and first in sentence.casefold())):
        return "a"
    return "b"


def detail(case: GoldCase, g) -> str:
    """For an (a) or (b): has the sentence a trigger word."""
    spans = evidence_sentences(case, g.evidence)
    if not spans:
        return "quote not found"
    sentence = case.text[spans[0][0] : spans[0][1]]
    return "trigger" if TRIGGER.search(sentence) else "no trigger"


def print_table(title: str, rows: list[tuple[GoldCase, object, str]]) -> None:
    table: dict[str, Counter] = defaultdict(Counter)
    for _, g, cause in rows:
        table[cause][g.relation] += 1
    rels = list(COMPANY_RELATIONS)
    print(f"\n{title}: {len(rows)} required company relations")
    print(f"{'cause':<40}" + "".join(f"{r[:13]:>14}" for r in rels) + f"{'all':>6}")
    for key in ["hit", *CAUSES]:
        label = "found (published through the gates)" if key == "hit" else f"({key}) {CAUSES[key]}"
        n = table[key]
        print(f"{label:<40}" + "".join(f"{n[r]:>14}" for r in rels) + f"{sum(n.values()):>6}")


def cross_validate(draw, dev_and_synth, gazetteer, encoder, rules, thresholds, show=False):
    """Company-grouped folds over the draw chunks: tp/fp/fn of company relations per threshold."""
    by_company: dict[str, list] = defaultdict(list)
    for t in draw:
        by_company[t.company].append(t)
    totals = {t: Counter() for t in thresholds}
    held_examples = 0
    for company, held in sorted(by_company.items()):
        train_chunks = [t for t in draw if t.company != company]
        examples = training_examples(
            dev_and_synth[0], [*dev_and_synth[1], *train_chunks], gazetteer
        )
        classifier = fit(examples, encoder, seed=20261207)
        cases = [as_gold(t) for t in held]
        backend = LearnedBackend(rules, classifier, encoder, threshold=min(thresholds))
        replies = [r.raw_output for r in backend.extract_batch([c.chunk_input() for c in cases])]
        held_examples += sum(
            label_of(c, t.relations, t.filer) not in (None, "none")
            for t in held
            for c in candidates(t.text, t.filer, gazetteer)
        )
        for th in thresholds:
            for case, raw in zip(cases, replies, strict=True):
                result = score_case(case, _at(raw, th))
                if show and th == max(thresholds):
                    for c in result.false_positives:
                        if c.relation in COMPANY_RELATIONS:
                            print(f"  fp {case.case_id}: {c.subject} {c.relation} {c.object}")
                    for g in result.false_negatives:
                        if g.relation in COMPANY_RELATIONS:
                            print(f"  fn {case.case_id}: {g.subject} {g.relation} {g.object}")
                for r in COMPANY_RELATIONS:
                    n = result.counts[r]
                    totals[th]["tp"] += n.tp
                    totals[th]["fp"] += n.fp
                    totals[th]["fn"] += n.fn
    return totals, held_examples


def _at(raw: str | None, threshold: float) -> str | None:
    """The reply with the learned triples below `threshold` dropped."""
    import json

    if not raw:
        return raw
    payload = json.loads(raw)
    payload["triples"] = [
        t for t in payload["triples"] if t.get("method") != "learned" or t["score"] >= threshold
    ]
    return json.dumps(payload)


class SharedEncoder:
    """One vector cache for every fold (the folds embed the same sentences again and again)."""

    def __init__(self, encoder):
        self.encoder = encoder
        self.model_id = encoder.model_id
        self._cache: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for start in range(0, len(missing), 64):
            part = missing[start : start + 64]
            for text, v in zip(part, self.encoder.embed(part), strict=True):
                self._cache[text] = v
        return np.array([self._cache[t] for t in texts]).reshape(len(texts), -1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-cv", action="store_true", help="the diagnosis only")
    parser.add_argument("--cv-only", action="store_true", help="the cross-validation only")
    parser.add_argument(
        "--before",
        metavar="TREE",
        help="also the cross-validation of another checkout (e.g. main), its code and weights",
    )
    parser.add_argument("--list", action="store_true", help="print each missed relation")
    parser.add_argument("--thresholds", default="0.5,0.7,0.8,0.9,0.95,0.97")
    args = parser.parse_args()
    settings = Settings()
    ex = settings.extraction
    gold = load_gold_sets(ex.gold_set, ex.blind_set, ex.blind2_set)
    train = load_train_cases(ex.train_set, gold)
    draw = [t for t in train if t.source == "draw"]
    synth = [t for t in train if t.source != "draw"]
    holdout = [c for c in gold if c.split == "holdout"]
    started = time.perf_counter()
    rules = RulesBackend.from_rows(_gold_tickers(settings))
    encoder = SharedEncoder(learned_encoder(settings))
    backend = LearnedBackend(
        rules, RelationClassifier.load(ex.learned_weights), encoder, ex.learned_threshold
    )
    print(f"extractor: {backend.name} {backend.prompt_version} (threshold {ex.learned_threshold})")
    for title, cases in (
        ()
        if args.cv_only
        else (
            (
                f"draw ({len(draw)} annotated chunks of train_cases.jsonl)",
                [as_gold(t) for t in draw],
            ),
            (f"holdout ({len(holdout)} cases)", holdout),
        )
    ):
        rows = diagnose(cases, backend)
        print_table(title, rows)
        sub = Counter((cause, detail(case, g)) for case, g, cause in rows if cause in ("a", "b"))
        print(
            "  (a)/(b) by trigger in the sentence: "
            + ", ".join(f"{k[0]} {k[1]}: {v}" for k, v in sorted(sub.items()))
        )
        if args.list:
            for case, g, cause in rows:
                if cause != "hit":
                    quote = _fold(g.evidence)[:140]
                    print(
                        f"  ({cause}) {case.case_id}: {g.subject} {g.relation} {g.object} | {quote}"
                    )
    if args.no_cv:
        return 0
    thresholds = [float(x) for x in args.thresholds.split(",")]
    totals, held = cross_validate(
        draw, (gold, synth), rules.gazetteer, encoder, rules, thresholds, args.list
    )
    print(
        f"\ncross-validation by company over {len(draw)} draw chunks ({held} positive examples "
        f"in the held folds), {ROOT}:"
    )
    print("threshold    tp    fp    fn  precision  recall")
    for th in thresholds:
        t = totals[th]
        p = t["tp"] / (t["tp"] + t["fp"]) if t["tp"] + t["fp"] else float("nan")
        r = t["tp"] / (t["tp"] + t["fn"]) if t["tp"] + t["fn"] else float("nan")
        print(f"{th:9.2f} {t['tp']:5d} {t['fp']:5d} {t['fn']:5d}  {p:9.3f}  {r:6.3f}")
    print(f"\n({time.perf_counter() - started:.0f} s)")
    if args.before:
        tree = str(Path(args.before).resolve())
        env = {**os.environ, "REACH_TREE": tree, "PYTHONPATH": tree}
        command = [sys.executable, __file__, "--cv-only", "--thresholds", args.thresholds]
        print(f"\nbefore: the same on {tree}", flush=True)
        subprocess.run(command, env=env, check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
