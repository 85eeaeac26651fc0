"""Measuring extraction against a reviewed gold set, and auditing the gates on proposed triples.

The gold set (`tests/fixtures/extraction_gold/cases.jsonl`, its README says how it was built) is
one JSON object a line: a verbatim chunk of a corpus filing with its filer, section, scale header
and headings; the relations a careful reader extracts from it (`relations`); and triples a
careless extractor might propose, each with the gates' expected outcome (`gate_cases`).

`evaluate` runs any backend over the chunks, puts its triples through the gates exactly as the
pipeline does, and scores what the gates accept against the gold relations: precision, recall
and F1 per relation, for the company relations together, and for GUIDES counted only when the
metric, the value or range and the period all match. `judge_gate_cases` runs the gates alone on
proposed triples (the gold set's, or a user's own file) and says, per expected outcome (accepted,
rejected with a reason code, relabelled), how often they did what was expected.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.common.names import name_key
from graphrag_core.extraction.backends.base import ChunkInput, ExtractorBackend
from graphrag_core.extraction.batch import run_sync
from graphrag_core.extraction.gates import Candidate, ChunkContext, Verdict, judge
from graphrag_core.extraction.grounding import (
    GENERIC_FIRST_WORDS,
    Filer,
    is_placeholder,
    split_scope,
)
from graphrag_core.extraction.triples import CandidateTriple, MalformedItem, Relation, parse_output

COMPANY_RELATIONS = ("SUPPLIES", "CUSTOMER_OF", "COMPETES_WITH", "SUBSIDIARY_OF")
SCORED_RELATIONS = (*COMPANY_RELATIONS, "GUIDES", "EXPOSED_TO_RISK")


# -- the files --------------------------------------------------------------------------------


class ProposedTriple(BaseModel):
    """A triple as an extractor proposes it (the `triple` of a gate case)."""

    model_config = ConfigDict(extra="ignore")

    subject: str
    relation: str
    object: str
    value: float | str | None = None
    value_low: float | str | None = Field(None, validation_alias="low")
    value_high: float | str | None = Field(None, validation_alias="high")
    unit: str | None = None
    period: str | None = None
    evidence: str

    def candidate(self) -> Candidate:
        return Candidate.of(CandidateTriple(**self.model_dump()))


class GoldRelation(ProposedTriple):
    optional: bool = False  # a defensible reading: neither required nor counted against
    aliases: dict[str, list[str]] = Field(default_factory=dict)  # {"subject"|"object": [...]}


class Expectation(BaseModel):
    outcome: Literal["accepted", "rejected", "relabelled"]
    reason: str | None = None  # rejected: the reason code
    relation: str | None = None  # relabelled: the relation it becomes

    @property
    def code(self) -> str:
        if self.outcome == "rejected":
            return f"rejected:{self.reason}"
        if self.outcome == "relabelled":
            return f"relabelled:{self.relation}"
        return "accepted"


class GateCase(BaseModel):
    triple: ProposedTriple
    expect: Expectation
    why: str = ""


# dev: read while the rules were written; holdout: labelled after, measured once blind, then read
# to fix what it showed (it holds the first 45-case "blind" sample too, read since); blind and
# blind2: frozen sets, each in its own file, labelled by annotators who saw only the labelling
# guide, whose errors nobody reads (reading them spends them: a fresh one must then be labelled).
SPLITS = ("dev", "holdout", "blind", "blind2")
BLIND = "blind"
BLIND2 = "blind2"
BLIND_SPLITS = frozenset({BLIND, BLIND2})


class GoldCase(BaseModel):
    """One chunk of the gold set."""

    model_config = ConfigDict(extra="ignore")

    case_id: str
    split: Literal["dev", "holdout", "blind", "blind2"]
    company: str
    cik: str | None = None
    ticker: str | None = None
    filing_id: str
    form: str
    fiscal_year: int | None = None
    section: str
    chunk_id: str
    kind: str = "prose"
    scale_header: str | None = None
    headings: list[tuple[int, int]] = Field(default_factory=list)
    preceding_heading: str | None = None
    lead_in: str | None = None  # extraction.lead_ins: a list's lead-in in an earlier chunk
    text: str
    relations: list[GoldRelation] = Field(default_factory=list)
    gate_cases: list[GateCase] = Field(default_factory=list)
    note: str = ""
    group: str | None = None  # blind set: how the chunk was drawn (holdout company, corpus…)
    corpus: str | None = None  # blind set: which corpus the filing comes from
    annotators: list[str] = Field(default_factory=list)  # blind set: who labelled it
    # blind set, chunks labelled twice: each annotator's own labels (`relations` is the adjudicated
    # set)
    annotations: dict[str, list[GoldRelation]] = Field(default_factory=dict)

    @property
    def filer(self) -> Filer:
        return Filer(self.company, self.cik, self.ticker)

    def chunk_input(self) -> ChunkInput:
        return ChunkInput(
            chunk_id=self.chunk_id,
            filing_id=self.filing_id,
            section=self.section,
            text=self.text,
            sha256=self.case_id,
            scale_header=self.scale_header,
            company=self.company,
            cik=self.cik,
            ticker=self.ticker,
            fiscal_year=self.fiscal_year,
            kind=self.kind,
            headings=tuple((int(a), int(b)) for a, b in self.headings),
            preceding_heading=self.preceding_heading,
            lead_in=self.lead_in,
        )

    def context(self) -> ChunkContext:
        return ChunkContext(
            self.chunk_id,
            self.text,
            0,
            self.scale_header,
            filer=self.filer,
            section=self.section,
            fiscal_year=self.fiscal_year,
            preceding_heading=self.preceding_heading,
            lead_in=self.lead_in,
        )


class AuditCase(BaseModel):
    """One line of an `eval-gates` file: a proposed triple with the chunk it cites."""

    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    text: str
    scale_header: str | None = None
    filer: str | dict[str, str | None] | None = None
    section: str | None = None
    fiscal_year: int | None = None
    preceding_heading: str | None = None
    triple: ProposedTriple
    expect: Expectation | None = None

    def context(self) -> ChunkContext:
        if isinstance(self.filer, dict):
            filer: Filer | None = Filer(
                str(self.filer.get("name") or ""), self.filer.get("cik"), self.filer.get("ticker")
            )
        else:
            filer = Filer(self.filer) if self.filer else None
        return ChunkContext(
            self.id or "chunk",
            self.text,
            0,
            self.scale_header,
            filer=filer,
            section=self.section,
            fiscal_year=self.fiscal_year,
            preceding_heading=self.preceding_heading,
        )


def _read_jsonl(path: Path, model: type[BaseModel]) -> list[Any]:
    if not path.is_file():
        raise ConfigurationError(f"{path}: no such file (expected one JSON object a line)")
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(model.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ConfigurationError(
                f"{path}:{number}: not JSON ({exc.msg}); write one object a line"
            ) from exc
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
            )
            raise ConfigurationError(f"{path}:{number}: {problems}") from exc
    return out


def load_gold(path: Path) -> list[GoldCase]:
    return _read_jsonl(path, GoldCase)


def load_gold_sets(
    gold: Path, blind: Path | None = None, blind2: Path | None = None
) -> list[GoldCase]:
    """The gold set (dev and holdout) and, when given, each frozen blind set, as one list.

    A blind split lives only in its own file, so that no edit of the tuned set can touch it and
    no file mixes two splits: a blind case in the gold file, another split in a blind file, or a
    chunk in two of the files, is a configuration error."""
    cases = load_gold(gold)
    if misplaced := [c.case_id for c in cases if c.split in BLIND_SPLITS]:
        raise ConfigurationError(
            f"{gold}: {len(misplaced)} case(s) of a blind split ({misplaced[0]}…); "
            "a blind split belongs in its own file (EXTRACTOR_BLIND_SET, EXTRACTOR_BLIND2_SET)"
        )
    for split, path in ((BLIND, blind), (BLIND2, blind2)):
        if path is None:
            continue
        frozen = load_gold(path)
        if misplaced := [c.case_id for c in frozen if c.split != split]:
            raise ConfigurationError(
                f"{path}: {len(misplaced)} case(s) not of split {split} ({misplaced[0]}…)"
            )
        if overlap := {c.chunk_id for c in cases} & {c.chunk_id for c in frozen}:
            raise ConfigurationError(
                f"{path}: {len(overlap)} chunk(s) are in the gold set too (or in the other "
                "blind set): a blind chunk must be unseen"
            )
        cases = [*cases, *frozen]
    return cases


def load_audit_cases(path: Path) -> list[AuditCase]:
    return _read_jsonl(path, AuditCase)


# -- gates alone ------------------------------------------------------------------------------


def verdict_row(verdict: Verdict, case_id: str | None = None) -> dict[str, Any]:
    """A verdict as the JSON object `eval-gates` writes."""
    c = verdict.candidate
    return {
        "id": case_id,
        "outcome": verdict.outcome,
        "relation": None if verdict.rejection else c.relation,
        "proposed_relation": c.proposed_relation,
        "reason": verdict.rejection.reason.value if verdict.rejection else None,
        "detail": verdict.rejection.detail if verdict.rejection else None,
        "adjustment": c.adjustment,
        "subject": c.subject,
        "object": c.object,
        "value": c.value,
        "value_low": c.value_low,
        "value_high": c.value_high,
        "unit": c.unit,
        "period": c.period,
        "span": list(c.span) if c.span else None,
    }


def verdict_code(verdict: Verdict) -> str:
    if verdict.rejection is not None:
        return f"rejected:{verdict.rejection.reason.value}"
    if verdict.outcome == "relabelled":
        return f"relabelled:{verdict.candidate.relation}"
    return "accepted"


@dataclass
class GateTally:
    """Gate outcomes per expected outcome code."""

    total: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    right: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    misses: list[dict[str, Any]] = field(default_factory=list)

    def add(self, expected: str, got: str, where: str, triple: ProposedTriple) -> None:
        self.total[expected] += 1
        if expected == got:
            self.right[expected] += 1
        else:
            self.misses.append(
                {
                    "case": where,
                    "expected": expected,
                    "got": got,
                    "relation": triple.relation,
                    "subject": triple.subject,
                    "object": triple.object,
                }
            )

    def accuracy(self, codes: Iterable[str] | None = None) -> tuple[int, int]:
        keys = list(codes) if codes is not None else list(self.total)
        return sum(self.right[k] for k in keys), sum(self.total[k] for k in keys)

    @property
    def negatives(self) -> list[str]:
        return [k for k in self.total if k != "accepted"]


def judge_gate_cases(cases: Sequence[GoldCase], *, with_relations: bool = True) -> GateTally:
    """The gates alone on each case's gate cases (and, with `with_relations`, on its gold
    relations, which must be accepted as they are)."""
    tally = GateTally()
    for case in cases:
        context = case.context()
        for g in case.gate_cases:
            tally.add(
                g.expect.code,
                verdict_code(judge(g.triple.candidate(), context)),
                case.case_id,
                g.triple,
            )
        if with_relations:
            for r in case.relations:
                if r.optional:
                    continue
                verdict = judge(r.candidate(), context)
                got = verdict_code(verdict)
                # A relation may come back scoped ("Customer A (NVIDIA CORP)"): still accepted.
                tally.add("accepted", "accepted" if got == "accepted" else got, case.case_id, r)
    return tally


# -- matching ---------------------------------------------------------------------------------

_STOP = frozenset("the a an of for to and in on our its their from by with total all".split())


def _content(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower().replace("-", " "))
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words if w not in _STOP}


def _entity_keys(name: str, filer: Filer, aliases: Iterable[str] = ()) -> list[tuple[str, ...]]:
    base, _ = split_scope(name)
    if filer.is_self(base):
        return [("@filer",)]
    if is_placeholder(base):
        return [tuple(base.lower().split())]
    keys = [name_key(base)]
    paren = re.match(r"^(?P<n>[^()]+?)\s*\((?P<a>[^()]+)\)$", base)
    if paren:
        keys += [name_key(paren.group("n")), name_key(paren.group("a"))]
    keys += [name_key(a) for a in aliases]
    return [k for k in keys if k]


def _same_key(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if long[: len(short)] == short and short[0] not in GENERIC_FIRST_WORDS and len(short[0]) >= 3:
        return True
    # Initials: "AHP" for American Home Products.
    if len(short) == 1 and len(long) > 1 and short[0] == "".join(t[0] for t in long):
        return True
    return False


def same_entity(predicted: str, gold: str, filer: Filer, aliases: Iterable[str] = ()) -> bool:
    ps = _entity_keys(predicted, filer)
    gs = _entity_keys(gold, filer, aliases)
    return any(_same_key(p, g) for p in ps for g in gs)


def same_risk(predicted: str, gold: str) -> bool:
    p, g = _content(predicted), _content(gold)
    if not p or not g:
        return False
    return p == g or len(p & g) / len(p | g) >= 0.6


def same_metric(predicted: str, gold: str, aliases: Iterable[str] = ()) -> bool:
    p = _content(predicted)
    for g in (_content(gold), *(_content(a) for a in aliases)):
        if p and g and (p <= g or g <= p or len(p & g) / len(p | g) >= 0.5):
            return True
    return False


def _close(a: float | str | None, b: float | str | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        return False
    return abs(x - y) <= 1e-6 * max(1.0, abs(y))


def same_figure(predicted: Candidate, gold: GoldRelation) -> bool:
    if gold.value_low is not None or gold.value_high is not None:
        return _close(predicted.value_low, gold.value_low) and _close(
            predicted.value_high, gold.value_high
        )
    return _close(predicted.value, gold.value)


def _exact(name: str) -> str:
    base, _ = split_scope(name)
    return " ".join(re.findall(r"[a-z0-9&]+", base.casefold()))


def _same_name(
    predicted: str, gold: str, filer: Filer, aliases: Iterable[str], exact: bool
) -> bool:
    if exact:
        if filer.is_self(predicted) and filer.is_self(gold):
            return True
        return _exact(predicted) in {_exact(gold), *(_exact(a) for a in aliases)}
    return same_entity(predicted, gold, filer, aliases)


def matches(
    predicted: Candidate,
    gold: GoldRelation,
    filer: Filer,
    *,
    strict_guides: bool = True,
    exact: bool = False,
) -> bool:
    """Does a predicted triple state the gold relation? `exact`: names as written (first pass);
    otherwise legal forms, leading words, aliases and initials may differ."""
    if predicted.relation != gold.relation:
        return False
    if not _same_name(
        predicted.subject, gold.subject, filer, gold.aliases.get("subject", ()), exact
    ):
        return False
    if gold.relation == Relation.EXPOSED_TO_RISK:
        return same_risk(predicted.object, gold.object)
    if gold.relation == Relation.GUIDES:
        if not same_metric(predicted.object, gold.object, gold.aliases.get("object", ())):
            return False
        return not strict_guides or (
            same_figure(predicted, gold) and (predicted.period or None) == (gold.period or None)
        )
    return _same_name(predicted.object, gold.object, filer, gold.aliases.get("object", ()), exact)


# -- scoring ----------------------------------------------------------------------------------


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        return (
            2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)
        )

    def __iadd__(self, other: Counts) -> Counts:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        return self


@dataclass
class CaseResult:
    case: GoldCase
    accepted: list[Candidate]
    rejected: list[Verdict]
    counts: dict[str, Counts]
    false_positives: list[Candidate]
    false_negatives: list[GoldRelation]
    unreadable: int = 0
    true_positives: tuple[Candidate, ...] = ()  # accepted and matching a required relation


def _dedupe(candidates: list[Candidate], filer: Filer) -> list[Candidate]:
    """One candidate per fact: the same parties as written (the gates merge the same way)."""
    out: list[Candidate] = []
    for c in candidates:
        if not any(
            c.relation == d.relation
            and _same_name(c.subject, d.subject, filer, (), True)
            and (
                same_risk(c.object, d.object)
                if c.relation == Relation.EXPOSED_TO_RISK
                else same_metric(c.object, d.object)
                and c.period == d.period
                and _close(c.value, d.value)
                and _close(c.value_low, d.value_low)
                if c.relation == Relation.GUIDES
                else _same_name(c.object, d.object, filer, (), True)
            )
            for d in out
        ):
            out.append(c)
    return out


def score_case(case: GoldCase, raw_output: str | None) -> CaseResult:
    """The gates on a backend's reply for `case`, and what they accept scored against the gold."""
    parsed = parse_output(raw_output)
    context = case.context()
    accepted: list[Candidate] = []
    rejected: list[Verdict] = []
    unreadable = 0 if parsed.ok else 1
    for item in parsed.items:
        if isinstance(item, MalformedItem):
            unreadable += 1
            continue
        verdict = judge(Candidate.of(item), context)
        if verdict.accepted:
            accepted.append(verdict.candidate)
        else:
            rejected.append(verdict)
    accepted = [c for c in _dedupe(accepted, case.filer) if c.relation in SCORED_RELATIONS]
    counts = {r: Counts() for r in SCORED_RELATIONS}
    used: set[int] = set()
    false_positives: list[Candidate] = []
    tps: list[Candidate] = []  # the accepted that match a required relation
    unmatched: list[Candidate] = []
    # Two passes: names as written first, so that "Apple Asia LLC" does not take the place of
    # "Apple Asia Limited"; then the lenient comparison for what is left.
    for exact in (True, False):
        pending, unmatched = (accepted if exact else unmatched), []
        for c in pending:
            hit = next(
                (
                    k
                    for k, g in enumerate(case.relations)
                    if k not in used and matches(c, g, case.filer, exact=exact)
                ),
                None,
            )
            if hit is None:
                unmatched.append(c)
                continue
            used.add(hit)
            if not case.relations[hit].optional:
                counts[c.relation].tp += 1
                tps.append(c)
    for c in unmatched:
        if any(
            g.optional and matches(c, g, case.filer, strict_guides=False) for g in case.relations
        ):
            continue
        counts[c.relation].fp += 1
        false_positives.append(c)
    false_negatives = [
        g
        for k, g in enumerate(case.relations)
        if k not in used and not g.optional and g.relation in counts
    ]
    for g in false_negatives:
        counts[g.relation].fn += 1
    return CaseResult(
        case, accepted, rejected, counts, false_positives, false_negatives, unreadable, tuple(tps)
    )


@dataclass
class Report:
    backend: str
    model: str
    prompt_version: str
    results: list[CaseResult]
    gates: GateTally
    seconds: float = 0.0

    def counts(self, split: str | None = None) -> dict[str, Counts]:
        out = {r: Counts() for r in SCORED_RELATIONS}
        for res in self.results:
            if split is None or res.case.split == split:
                for r, c in res.counts.items():
                    out[r] += c
        return out

    def company_counts(self, split: str | None = None) -> Counts:
        total = Counts()
        for r, c in self.counts(split).items():
            if r in COMPANY_RELATIONS:
                total += c
        return total

    def as_dict(self) -> dict[str, Any]:
        def figures(c: Counts) -> dict[str, Any]:
            return {
                "tp": c.tp,
                "fp": c.fp,
                "fn": c.fn,
                "precision": c.precision,
                "recall": c.recall,
                "f1": c.f1,
            }

        splits: dict[str, Any] = {}
        for split in (*SPLITS, None):
            name = split or "all"
            splits[name] = {
                "cases": sum(1 for r in self.results if split is None or r.case.split == split),
                "relations": {r: figures(c) for r, c in self.counts(split).items()},
                "company_relations": figures(self.company_counts(split)),
            }
        right, total = self.gates.accuracy(self.gates.negatives)
        return {
            "backend": self.backend,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "seconds": round(self.seconds, 3),
            "splits": splits,
            "gates": {
                "by_expected_outcome": {
                    k: {"right": self.gates.right[k], "total": v}
                    for k, v in sorted(self.gates.total.items())
                },
                "negatives": {"right": right, "total": total},
                "misses": self.gates.misses,
            },
        }


def evaluate(cases: Sequence[GoldCase], backend: ExtractorBackend) -> Report:
    """Run `backend` on every case's chunk, the gates on its replies, and score them."""
    import time

    started = time.perf_counter()
    replies = run_sync(backend.extract([c.chunk_input() for c in cases]))
    seconds = time.perf_counter() - started
    results = [
        score_case(case, reply.raw_output if reply.status == "ok" else None)
        for case, reply in zip(cases, replies, strict=True)
    ]
    return Report(
        backend.name,
        backend.model,
        backend.prompt_version,
        results,
        judge_gate_cases(cases),
        seconds,
    )


def _pct(x: float | None) -> str:
    return "   —  " if x is None else f"{x:6.1%}"


BLIND_WARNING = (
    "WARNING: blind-split errors follow. Once read, the blind set is spent: no rule or threshold "
    "may be changed because of them, and the next honest blind figure needs a freshly labelled "
    "blind set."
)


def _cell(c: Counts) -> str:
    return f"{c.tp:>4}/{c.tp + c.fn:<4}{c.fp:>4} {_pct(c.precision):>6} {_pct(c.recall):>6}"


def _error_lines(results: Iterable[CaseResult], gates: GateTally, limit: int) -> list[str]:
    results = list(results)
    lines = []
    fps = [(r.case.case_id, c) for r in results for c in r.false_positives][:limit]
    fns = [(r.case.case_id, g) for r in results for g in r.false_negatives][:limit]
    for cid, c in fps:
        lines.append(
            f"    FP {cid}: {c.subject} {c.relation} {c.object!r} "
            f"{c.value or ''}{c.value_low or ''} {c.period or ''}"
        )
    for cid, g in fns:
        lines.append(
            f"    FN {cid}: {g.subject} {g.relation} {g.object!r} "
            f"{g.value or ''}{g.value_low or ''} {g.period or ''}"
        )
    ids = {r.case.case_id for r in results}
    for miss in [m for m in gates.misses if m["case"] in ids][:limit]:
        lines.append(
            f"    gate {miss['case']}: expected {miss['expected']}, got {miss['got']} "
            f"({miss['relation']} {miss['subject']!r} → {miss['object']!r})"
        )
    return lines


def _accepted_as_labelled(report: Report) -> dict[str, tuple[int, int]]:
    """Per split, how many required gold relations the gates accept as labelled (a count only:
    which ones, for the blind split, is an error listing like any other)."""
    out = {}
    for split in SPLITS:
        results = [r for r in report.results if r.case.split == split]
        if not results:
            continue
        ids = {r.case.case_id for r in results}
        total = sum(1 for r in results for g in r.case.relations if not g.optional)
        wrong = sum(
            1 for m in report.gates.misses if m["expected"] == "accepted" and m["case"] in ids
        )
        out[split] = (total - wrong, total)
    return out


def format_report(
    report: Report, *, show_errors: int = 0, reveal_blind_errors: bool = False
) -> str:
    """The report as the text `eval-extraction` and bench/extract.py print: the splits side by
    side (per relation: found/gold, false positives, precision, recall). `show_errors` lists dev
    and holdout errors only; blind and blind2 errors only with `reveal_blind_errors`, under a
    warning."""
    lines = [
        f"extraction eval: backend {report.backend} ({report.model}, {report.prompt_version}), "
        f"{len(report.results)} gold cases, extraction {report.seconds:.2f} s"
    ]
    present = [
        s for s in (*SPLITS, None) if any(s is None or r.case.split == s for r in report.results)
    ]
    width = len(_cell(Counts()))
    cases = {s: sum(1 for r in report.results if s is None or r.case.split == s) for s in present}
    header = "".join(f" | {(s or 'all') + ' (' + str(cases[s]) + ')':^{width}}" for s in present)
    lines.append(f"\n    {'':<26}{header}")
    lines.append(
        f"    {'relation':<26}"
        + "".join(f" | {'tp/gold':>9}{'fp':>4} {'P':>6} {'R':>6}" for _ in present)
    )
    by_split = {s: report.counts(s) for s in present}
    for label in (*SCORED_RELATIONS, "company relations (4)"):
        shown = f"{label} (strict)" if label == "GUIDES" else label
        cells = [
            report.company_counts(s) if label not in by_split[s] else by_split[s][label]
            for s in present
        ]
        lines.append(f"    {shown:<26}" + "".join(f" | {_cell(c)}" for c in cells))
    lines.append("\n  gates on the gold set's proposed triples, per expected outcome")
    for code in sorted(report.gates.total):
        right, total = report.gates.right[code], report.gates.total[code]
        lines.append(f"    {code:<40} {right:>4}/{total:<4} {right / total:6.1%}")
    right, total = report.gates.accuracy(report.gates.negatives)
    if total:
        lines.append(
            f"    {'negatives (all but accepted)':<40} {right:>4}/{total:<4} {right / total:6.1%}"
        )
    lines.append(
        "    gold relations accepted as labelled, per split: "
        + ", ".join(
            f"{split} {right}/{total}"
            for split, (right, total) in _accepted_as_labelled(report).items()
        )
    )
    if show_errors:
        lines.append(
            "\n  errors, dev and holdout (first of each kind; blind errors are never shown here)"
        )
        lines += _error_lines(
            (r for r in report.results if r.case.split not in BLIND_SPLITS),
            report.gates,
            show_errors,
        )
    if reveal_blind_errors:
        lines.append(f"\n  {BLIND_WARNING}")
        lines.append("  errors, blind and blind2")
        blind = [r for r in report.results if r.case.split in BLIND_SPLITS]
        lines += _error_lines(
            blind,
            report.gates,
            show_errors or sum(len(r.false_positives) + len(r.false_negatives) for r in blind),
        )
    return "\n".join(lines)
