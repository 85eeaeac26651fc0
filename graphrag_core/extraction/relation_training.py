"""The relation classifier's training examples, and the refusal to train on what is measured.

The examples are the candidates `relation_candidates` finds (without the rules' `bound` filter,
so that what the rules get right teaches the classifier too) in two sources:

- the `dev` split of the gold set (never `holdout`, `blind` or `blind2`);
- `train_cases.jsonl` (split `train`): invented-name filing sentences and annotated chunks of the
  dev companies' filings, each chunk in no gold file: the loader refuses a chunk id or a text
  that any gold file holds, so that no measured chunk can leak into the weights.

A candidate's label is the company relation its chunk's labels state between it and the filer
(`same_entity`, as the scorer matches names); a candidate the labels relate to the filer only
optionally is left out (neither a positive nor a `none`); every other candidate is `none`.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.extraction.evaluation import (
    COMPANY_RELATIONS,
    GoldCase,
    GoldRelation,
    _read_jsonl,
    same_entity,
)
from graphrag_core.extraction.gazetteer import Gazetteer
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.relation_candidates import Candidate, candidates, marked
from graphrag_core.extraction.relation_classifier import (
    NONE,
    PARENT,
    RelationClassifier,
    SentenceEncoder,
    featurize,
    train,
)


class TrainCase(BaseModel):
    """One chunk of `train_cases.jsonl`: a text, its filer, and its labelled relations."""

    model_config = ConfigDict(extra="ignore")

    case_id: str
    split: Literal["train"]
    source: str  # synth (invented sentences) | draw (annotated dev-company chunks)
    company: str
    cik: str | None = None
    ticker: str | None = None
    chunk_id: str
    section: str = ""
    text: str
    relations: list[GoldRelation] = Field(default_factory=list)

    @property
    def filer(self) -> Filer:
        return Filer(self.company, self.cik, self.ticker)


def _fold(text: str) -> str:
    return " ".join(text.split())


def load_train_cases(path: Path, measured: Iterable[GoldCase]) -> list[TrainCase]:
    """The training file, refused when it shares a chunk (by id or by text) with `measured`,
    which must be every gold case of every split, or holds another split."""
    try:
        cases: list[TrainCase] = _read_jsonl(path, TrainCase)
    except (UnicodeDecodeError, IsADirectoryError) as exc:
        raise ConfigurationError(f"{path}: not a UTF-8 JSONL file ({exc})") from exc
    measured = list(measured)
    ids = {c.chunk_id for c in measured}
    texts = {_fold(c.text) for c in measured}
    if clash := [c.case_id for c in cases if c.chunk_id in ids or _fold(c.text) in texts]:
        raise ConfigurationError(
            f"{path}: {len(clash)} training case(s) share a chunk with the gold or blind sets "
            f"({clash[0]}…): a measured chunk must never be trained on"
        )
    if len({c.chunk_id for c in cases}) != len(cases):
        raise ConfigurationError(f"{path}: a chunk id appears twice")
    return cases


@dataclass(frozen=True)
class Example:
    candidate: Candidate
    label: str
    source: str


def _in_sentence(evidence: str, sentence: str) -> bool:
    a, b = _fold(evidence), _fold(sentence)
    return bool(a and b) and (a[:40] in b or b[:40] in a)


def label_of(c: Candidate, relations: Sequence[GoldRelation], filer: Filer) -> str | None:
    """The class the labels give the candidate against the filer; None when the labels relate
    it only optionally, or in another sentence (neither a positive nor a `none`)."""
    optional = False
    for r in relations:
        if r.relation not in COMPANY_RELATIONS:
            continue
        subject_is_filer, object_is_filer = filer.is_self(r.subject), filer.is_self(r.object)
        if r.relation == "COMPETES_WITH" and subject_is_filer:
            other, names, label = r.object, r.aliases.get("object", ()), "COMPETES_WITH"
        elif r.relation == "COMPETES_WITH" and object_is_filer:
            other, names, label = r.subject, r.aliases.get("subject", ()), "COMPETES_WITH"
        elif r.relation == "SUBSIDIARY_OF" and subject_is_filer:
            other, names, label = r.object, r.aliases.get("object", ()), PARENT
        elif object_is_filer:
            other, names, label = r.subject, r.aliases.get("subject", ()), r.relation
        else:
            continue
        if not same_entity(c.name, other, filer, names):
            continue
        if not _in_sentence(r.evidence, c.sentence):
            # Labelled in another sentence of the chunk: this one may not state it.
            optional = True
            continue
        if not r.optional:
            return label
        optional = True
    return None if optional else NONE


def examples_of(
    chunks: Iterable[tuple[str, str, Filer, Sequence[GoldRelation]]], gazetteer: Gazetteer
) -> list[Example]:
    """(source, text, filer, relations) → one example per candidate with a label."""
    out: list[Example] = []
    for source, text, filer, relations in chunks:
        for c in candidates(text, filer, gazetteer):
            label = label_of(c, relations, filer)
            if label is not None:
                out.append(Example(c, label, source))
    return out


def training_examples(
    gold: Sequence[GoldCase], train_cases: Sequence[TrainCase], gazetteer: Gazetteer
) -> list[Example]:
    """The dev split's narrative chunks and the training file's chunks, as examples."""
    dev = [
        ("dev", c.text, c.filer, c.relations)
        for c in gold
        if c.split == "dev" and c.kind != "table" and "Exhibit 21" not in c.section
    ]
    extra = [(c.source, c.text, c.filer, c.relations) for c in train_cases]
    return examples_of([*dev, *extra], gazetteer)


def fit(examples: Sequence[Example], encoder: SentenceEncoder, *, seed: int) -> RelationClassifier:
    """Embed the examples and train the softmax layer on them (deterministic for a seed)."""
    if not examples:
        raise ConfigurationError("no training examples: the training files hold no candidate")
    digest = hashlib.sha256()
    for e in examples:
        digest.update(f"{e.label}\0{marked(e.candidate)}\n".encode())
    vectors = featurize([e.candidate for e in examples], encoder)
    return train(
        vectors,
        [e.label for e in examples],
        encoder.model_id,
        seed=seed,
        trained_on=digest.hexdigest()[:16],
    )


def summary(examples: Sequence[Example]) -> str:
    """Examples per source and class, for the command's output and the design notes."""
    table = Counter((e.source, e.label) for e in examples)
    sources = sorted({s for s, _ in table})
    labels = sorted({label for _, label in table})
    lines = ["source   " + " ".join(f"{x[:13]:>13}" for x in labels)]
    for s in sources:
        lines.append(f"{s:<8} " + " ".join(f"{table[(s, x)]:>13}" for x in labels))
    return "\n".join(lines)


@dataclass(frozen=True)
class Addition:
    """A learned triple the gates accepted on a labelled case, and how it scores."""

    case_id: str
    score: float
    verdict: Literal["right", "wrong", "optional"]
    triple: str


def learned_additions(cases: Sequence[GoldCase], replies: Sequence[str | None]) -> list[Addition]:
    """The learned triples of each reply (`"method": "learned"`) that the gates accept, judged
    against the case's labels: right (a required relation), optional, or wrong."""
    import json

    from graphrag_core.extraction.evaluation import matches
    from graphrag_core.extraction.gates import Candidate as GateCandidate
    from graphrag_core.extraction.gates import judge
    from graphrag_core.extraction.triples import CandidateTriple

    out: list[Addition] = []
    for case, raw in zip(cases, replies, strict=True):
        if not raw:
            continue
        for item in json.loads(raw).get("triples", []):
            if item.get("method") != "learned":
                continue
            verdict = judge(GateCandidate.of(CandidateTriple.model_validate(item)), case.context())
            if not verdict.accepted:
                continue
            c = verdict.candidate
            hit = [g for g in case.relations if matches(c, g, case.filer, strict_guides=False)]
            kind: Literal["right", "wrong", "optional"] = (
                "right" if any(not g.optional for g in hit) else "optional" if hit else "wrong"
            )
            out.append(
                Addition(
                    case.case_id, float(item["score"]), kind, f"{c.subject} {c.relation} {c.object}"
                )
            )
    return out


def threshold_curve(additions: Sequence[Addition], thresholds: Sequence[float]) -> str:
    """Right / wrong learned additions at or above each threshold, and their precision."""
    lines = ["threshold  right  wrong  optional  precision"]
    for t in thresholds:
        kept = [a for a in additions if a.score >= t]
        right = sum(a.verdict == "right" for a in kept)
        wrong = sum(a.verdict == "wrong" for a in kept)
        optional = sum(a.verdict == "optional" for a in kept)
        precision = f"{right / (right + wrong):.3f}" if right + wrong else "-"
        lines.append(f"{t:9.2f}  {right:5d}  {wrong:5d}  {optional:8d}  {precision:>9}")
    return "\n".join(lines)
