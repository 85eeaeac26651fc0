"""Inter-annotator agreement on the gold set's chunks labelled twice (the blind split's overlap).

Two figures, both standard and both pure:

- F1 between annotators on relations: `2·agreed / (|A| + |B|)`, the F1 of either annotator
  scored against the other (it is symmetric), where two labels agree when they state the same
  relation as the extractor's scorer reads it (`evaluation.matches`: same relation, same parties
  up to legal forms, aliases and initials; GUIDES with the same value or range and period).
  Labels are paired one to one, so a duplicate never counts twice.
- Cohen's kappa on the chunk-level yes/no "this chunk has a relation": the agreement beyond what
  two annotators with the same base rates would reach by chance. Most chunks have nothing to
  extract, so raw agreement there is high for free; kappa discounts that.

The chunks were labelled by different pairs of annotators; the figures pool every pair, each
chunk's first annotator (in `annotators` order) against its second. Each blind split is a set
labelled apart (other annotators, other text), so `format_agreements` reports each on its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphrag_core.extraction.evaluation import (
    COMPANY_RELATIONS,
    SCORED_RELATIONS,
    SPLITS,
    GoldCase,
    GoldRelation,
    matches,
)
from graphrag_core.extraction.grounding import Filer


@dataclass(frozen=True)
class Overlap:
    """Two annotators' labels on the same chunks: how many each gave, how many they share."""

    first: int = 0
    second: int = 0
    agreed: int = 0

    def __add__(self, other: Overlap) -> Overlap:
        return Overlap(
            self.first + other.first, self.second + other.second, self.agreed + other.agreed
        )

    @property
    def f1(self) -> float | None:
        """F1 of one annotator against the other; None when neither labelled anything."""
        total = self.first + self.second
        return 2 * self.agreed / total if total else None


def _kept(
    labels: Iterable[GoldRelation], relations: Sequence[str], with_optional: bool
) -> list[GoldRelation]:
    return [r for r in labels if r.relation in relations and (with_optional or not r.optional)]


def _same(a: GoldRelation, b: GoldRelation, filer: Filer) -> bool:
    # `matches` reads its second argument's aliases only: try both ways round so neither
    # annotator's aliases are privileged.
    return matches(a.candidate(), b, filer) or matches(b.candidate(), a, filer)


def overlap(
    first: Iterable[GoldRelation],
    second: Iterable[GoldRelation],
    filer: Filer,
    *,
    relations: Sequence[str] = SCORED_RELATIONS,
    with_optional: bool = False,
) -> Overlap:
    """The labels two annotators gave one chunk, restricted to `relations` (and to required ones
    unless `with_optional`), paired one to one."""
    a = _kept(first, relations, with_optional)
    b = _kept(second, relations, with_optional)
    used: set[int] = set()
    agreed = 0
    for label in a:
        hit = next(
            (k for k, other in enumerate(b) if k not in used and _same(label, other, filer)), None
        )
        if hit is not None:
            used.add(hit)
            agreed += 1
    return Overlap(len(a), len(b), agreed)


def cohens_kappa(pairs: Iterable[tuple[bool, bool]]) -> float | None:
    """Cohen's kappa of two raters' yes/no judgements, one (first, second) pair per item:
    (p_o − p_e) / (1 − p_e), with p_e from each rater's own share of yes. None when undefined
    (no items, or both raters gave one answer to everything, so chance agreement is 1)."""
    pairs = list(pairs)
    n = len(pairs)
    if not n:
        return None
    observed = sum(1 for a, b in pairs if a == b) / n
    yes_first = sum(1 for a, _ in pairs if a) / n
    yes_second = sum(1 for _, b in pairs if b) / n
    chance = yes_first * yes_second + (1 - yes_first) * (1 - yes_second)
    if chance == 1:
        return None
    return (observed - chance) / (1 - chance)


@dataclass(frozen=True)
class AgreementReport:
    chunks: int
    pairs: dict[str, int]  # "A+B" → chunks that pair labelled
    company_required: Overlap
    company_with_optional: Overlap
    all_relations: Overlap  # the six relations, optional labels included
    kappa_any: float | None  # chunk has any relation (of the six, optional included)
    kappa_company: float | None  # chunk has a company relation (optional included)
    chunks_with_relation: tuple[int, int]  # per annotator position: chunks with any relation


def _has(labels: Iterable[GoldRelation], relations: Sequence[str]) -> bool:
    return any(r.relation in relations for r in labels)


def agreement(cases: Iterable[GoldCase]) -> AgreementReport:
    """Agreement over every case labelled by two annotators (`annotations` with two entries)."""
    doubles = [c for c in cases if len(c.annotations) == 2]
    company_required = company_with_optional = all_relations = Overlap()
    any_pairs: list[tuple[bool, bool]] = []
    company_pairs: list[tuple[bool, bool]] = []
    pairs: dict[str, int] = {}
    for case in doubles:
        names = [n for n in case.annotators if n in case.annotations] or sorted(case.annotations)
        first, second = case.annotations[names[0]], case.annotations[names[1]]
        key = "+".join(names)
        pairs[key] = pairs.get(key, 0) + 1
        company_required += overlap(first, second, case.filer, relations=COMPANY_RELATIONS)
        company_with_optional += overlap(
            first, second, case.filer, relations=COMPANY_RELATIONS, with_optional=True
        )
        all_relations += overlap(first, second, case.filer, with_optional=True)
        any_pairs.append((_has(first, SCORED_RELATIONS), _has(second, SCORED_RELATIONS)))
        company_pairs.append((_has(first, COMPANY_RELATIONS), _has(second, COMPANY_RELATIONS)))
    return AgreementReport(
        chunks=len(doubles),
        pairs=dict(sorted(pairs.items())),
        company_required=company_required,
        company_with_optional=company_with_optional,
        all_relations=all_relations,
        kappa_any=cohens_kappa(any_pairs),
        kappa_company=cohens_kappa(company_pairs),
        chunks_with_relation=(sum(a for a, _ in any_pairs), sum(b for _, b in any_pairs)),
    )


def _f(x: float | None, pattern: str = "{:.1%}") -> str:
    return "—" if x is None else pattern.format(x)


def format_agreements(cases: Sequence[GoldCase]) -> str:
    """The agreement of each split that has chunks labelled twice, one block each, as
    `eval-extraction` and bench/extract.py print it."""
    blocks = [
        format_agreement(report, split)
        for split in SPLITS
        if (report := agreement(c for c in cases if c.split == split)).chunks
    ]
    return "\n".join(blocks) or format_agreement(agreement([]))


def format_agreement(report: AgreementReport, split: str | None = None) -> str:
    """One agreement report as text (`split`: the split it is of, named in its first line)."""
    if not report.chunks:
        return "inter-annotator agreement: no chunk is labelled twice"
    of = f" ({split})" if split else ""
    lines = [
        f"inter-annotator agreement{of}: {report.chunks} chunks labelled twice "
        f"(pairs: {', '.join(f'{k} {v}' for k, v in report.pairs.items())})"
    ]
    for label, o in (
        ("company relations, required", report.company_required),
        ("company relations, with optional", report.company_with_optional),
        ("all six relations, with optional", report.all_relations),
    ):
        lines.append(
            f"    {'F1, ' + label:<37} {_f(o.f1):>6}  ({o.agreed} agreed of {o.first} and "
            f"{o.second} labels)"
        )
    a, b = report.chunks_with_relation
    lines.append(
        f"    {'kappa, chunk has a relation':<37} {_f(report.kappa_any, '{:.3f}'):>6}  "
        f"({a} and {b} of {report.chunks} chunks have one)"
    )
    lines.append(
        f"    {'kappa, chunk has a company relation':<37} {_f(report.kappa_company, '{:.3f}'):>6}"
    )
    return "\n".join(lines)
