"""Precision and recall per extraction method (issue 22): which rule family, the learned
classifier or a model backend found what `eval-extraction` counts.

A gold relation that nothing found has no method, so recall per method is the share of the
split's required company relations that the method's accepted triples match (the methods' shares
add up to the split's recall); precision is the method's own: its matches over its accepted
triples (optional gold relations count neither way, as in the main table). A triple the gates
accepted twice (a rule and the classifier stating the same pair) is counted once, under the
method of the reply's first statement of it: the rules' triples come first.
"""

from __future__ import annotations

from graphrag_core.extraction.evaluation import (
    COMPANY_RELATIONS,
    SPLITS,
    Counts,
    Report,
)
from graphrag_core.extraction.gate_types import Candidate
from graphrag_core.extraction.triples import method_code


def method_counts(report: Report, split: str | None = None) -> dict[str, Counts]:
    """Company relations per method: tp and fp of its accepted triples; fn stays 0 (a missed
    relation has no method)."""
    out: dict[str, Counts] = {}

    def method(c: Candidate) -> str:
        return method_code(c.method, report.backend)

    for result in report.results:
        if split is not None and result.case.split != split:
            continue
        for c in result.true_positives:
            if c.relation in COMPANY_RELATIONS:
                out.setdefault(method(c), Counts()).tp += 1
        for c in result.false_positives:
            if c.relation in COMPANY_RELATIONS:
                out.setdefault(method(c), Counts()).fp += 1
    return dict(sorted(out.items()))


def format_methods(report: Report) -> str:
    """Per split present, per method: tp, fp, precision, and its share of the split's required
    company relations (the recall it contributes)."""
    present = [s for s in SPLITS if any(r.case.split == s for r in report.results)]
    if not present:
        return ""
    by_split = {s: method_counts(report, s) for s in present}
    gold = {s: report.company_counts(s) for s in present}
    methods = sorted({m for counts in by_split.values() for m in counts})
    lines = [
        "  company relations (4) per method: tp, fp, precision, share of the required found",
        f"    {'method':<22}"
        + "".join(f" | {f'{s} ({gold[s].tp + gold[s].fn})':^22}" for s in present),
    ]
    for m in methods:
        cells = []
        for s in present:
            c = by_split[s].get(m, Counts())
            required = gold[s].tp + gold[s].fn
            p = f"{c.precision:6.1%}" if c.precision is not None else "   —  "
            r = f"{c.tp / required:6.1%}" if required else "   —  "
            cells.append(f" | {c.tp:>4}{c.fp:>4} {p} {r}")
        lines.append(f"    {m:<22}" + "".join(cells))
    return "\n".join(lines)
