"""Literal citation checks of a drafted answer, no model involved.

An answer cites evidence as `[3]` (numbers the tools handed out in this session) or by chunk id
(`[0001045810-25-000023:3f9a…]`). Three findings:

- **unresolved**: a citation that points at nothing (an unknown number or chunk id);
- **uncited**: a sentence that states a figure or names a company and cites nothing;
- **unsupported**: a cited sentence with a figure that appears in none of its cited evidence.

Figures are compared as numbers, with their scale words (`$130.5 billion`, `130,497` under a
table's "in millions" header) and to the precision the sentence states, so rounding an exact
figure is fine and changing it is not. Years, item numbers and form names are not figures.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from graphrag_core.common.names import normalize_name
from graphrag_core.common.numbers import NUMBER_SCALE_WORD_RE, header_exponent, scale_exponent
from graphrag_core.text.sentences import sentence_spans

CHUNK_ID_PATTERN = r"(?:\d{10}-\d{2}-\d{6}|sha-[0-9a-f]{16}):[0-9a-f]{6,64}"
_CHUNK_ID_RE = re.compile(CHUNK_ID_PATTERN)
_NUMBERED_RE = re.compile(r"\[(\d{1,5}(?:\s*[,;]\s*\d{1,5})*)\]")
_MARKER_RE = re.compile(rf"\[(?:\d{{1,5}}(?:\s*[,;]\s*\d{{1,5}})*|\s*{CHUNK_ID_PATTERN}\s*)\]|{CHUNK_ID_PATTERN}")
# A number as written: $1,234.5, (1,234), 12.5%, 3 billion, 0.42x.
_FIGURE_RE = re.compile(
    rf"(?P<neg>\()?(?P<cur>[$€£])?\s?(?P<num>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?P<pct>\s?%| percent)?(?:\s?(?P<scale>{NUMBER_SCALE_WORD_RE}|bn|mm|[BMK])\b)?"
    r"(?P<unit_pp> ?(?:pp|percentage points?))?",
    re.I,
)
# Not figures: "10-K", "Item 7A", "Q2", "FY2025", "Part II", dates' years.
_NOT_FIGURE_BEFORE = re.compile(r"(?:item|part|note|q|fy|form|section|exhibit|rule|schedule)\s?$", re.I)
_NOT_FIGURE_AFTER = re.compile(r"^(?:-[a-z]|-k|-q|/a\b|[a-z])", re.I)


@dataclass(frozen=True)
class Figure:
    text: str
    value: float
    decimals: int  # digits stated after the point, in the figure's own scale
    exponent: int  # scale word's power of ten (0 when none)
    percent: bool


@dataclass(frozen=True)
class Evidence:
    """What a citation resolves to: the text to look figures up in (chunk text, quote, the
    figures a tool reported) and the scale of any table it is (`scale_header`)."""

    label: str
    text: str
    scale_header: str | None = None


@dataclass
class CitationReport:
    sentences: int = 0
    cited_sentences: int = 0
    unresolved: list[dict] = field(default_factory=list)
    uncited: list[dict] = field(default_factory=list)
    unsupported: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.unresolved or self.uncited or self.unsupported)

    def summary(self) -> str:
        if self.ok:
            return (f"all {self.sentences} sentences pass: every figure and company named is "
                    "cited, and every cited figure appears in its evidence")
        parts = []
        if self.unresolved:
            parts.append(f"{len(self.unresolved)} citation(s) point at nothing")
        if self.uncited:
            parts.append(f"{len(self.uncited)} sentence(s) state figures or name companies without a citation")
        if self.unsupported:
            parts.append(f"{len(self.unsupported)} cited figure(s) do not appear in the cited evidence")
        return "; ".join(parts) + ". Fix each listed sentence: cite the evidence that states it, " \
            "correct the figure to the one in the evidence, or remove the claim."


def _is_year(num: str, value: float) -> bool:
    return "," not in num and "." not in num and 1900 <= value <= 2100


def figures(text: str) -> list[Figure]:
    """The figures a sentence states (years, item numbers and form names excluded)."""
    out: list[Figure] = []
    for m in _FIGURE_RE.finditer(text):
        num = m.group("num")
        before = text[max(0, m.start() - 8) : m.start()]
        after = text[m.end("num") : m.end("num") + 3]
        if _NOT_FIGURE_BEFORE.search(before) or (not m.group("pct") and not m.group("scale")
                                                 and _NOT_FIGURE_AFTER.match(after)):
            continue
        value = float(num.replace(",", ""))
        pct = bool(m.group("pct") or m.group("unit_pp"))
        scale = m.group("scale")
        if not pct and not scale and not m.group("cur") and _is_year(num, value):
            continue
        # A bare small integer ("three segments", "2 customers") is not a figure worth citing.
        if not (pct or scale or m.group("cur")) and "," not in num and "." not in num and value < 100:
            continue
        exponent = 0
        if scale:
            s = scale.lower()
            exponent = {"b": 9, "m": 6, "k": 3}.get(s) or scale_exponent(s) or 0
        decimals = len(num.split(".", 1)[1]) if "." in num else 0
        out.append(Figure(m.group(0).strip(), value, decimals, exponent, pct))
    return out


def _evidence_values(evidence: Evidence) -> list[float]:
    """Every number in the evidence at every scale it may be read at: as written, with a scale
    word after it, and under the table's scale header."""
    header = header_exponent(evidence.scale_header) or 0
    values: list[float] = []
    for m in _FIGURE_RE.finditer(evidence.text):
        value = float(m.group("num").replace(",", ""))
        values.append(value)
        if m.group("scale"):
            s = m.group("scale").lower()
            exp = {"b": 9, "m": 6, "k": 3}.get(s) or scale_exponent(s) or 0
            values.append(value * 10**exp)
        if header:
            values.append(value * 10**header)
    return values


def _matches(figure: Figure, values: Iterable[float]) -> bool:
    """Equal at the precision the figure states: '$130.5 billion' matches 130,497 (millions)."""
    target = figure.value * 10**figure.exponent
    tolerance = 0.5 * 10 ** (figure.exponent - figure.decimals) + 1e-9 * abs(target)
    if not (math.isfinite(target) and math.isfinite(tolerance)):
        return False  # a 400-digit "figure" is +inf, and inf is close to everything at inf tolerance
    for value in values:
        if not math.isfinite(value):
            continue
        if math.isclose(abs(value), abs(target), rel_tol=0, abs_tol=tolerance):
            return True
        # A percentage may be quoted from a fraction (0.139 → 13.9%).
        if figure.percent and math.isclose(abs(value) * 100, abs(target), abs_tol=tolerance):
            return True
    return False


def citations_in(sentence: str) -> list[str]:
    """'[3]', '[3, 5]' and chunk ids → ['3', '5', '0001045810-25-000023:…']."""
    found: list[str] = []
    for m in _NUMBERED_RE.finditer(sentence):
        found.extend(p.strip() for p in re.split(r"[,;]", m.group(1)))
    found.extend(_CHUNK_ID_RE.findall(sentence))
    return list(dict.fromkeys(found))


def _sentences(answer: str) -> list[str]:
    """Sentences of the answer; a run of bare citations after a period joins its sentence."""
    out: list[str] = []
    for start, end in sentence_spans(answer, split_lines=True):
        text = answer[start:end].strip()
        if not text:
            continue
        if out and not _MARKER_RE.sub("", text).strip(" .;,"):
            out[-1] = f"{out[-1]} {text}"
            continue
        out.append(text)
    return out


def company_mentions(sentence: str, names: dict[str, str]) -> list[str]:
    """Company names (normalized alias → display name) the sentence names as whole words."""
    norm = f" {normalize_name(_MARKER_RE.sub(' ', sentence))} "
    return list(dict.fromkeys(display for alias, display in names.items() if f" {alias} " in norm))


def check_answer(
    answer: str,
    resolve: Callable[[str], Evidence | None],
    company_names: dict[str, str] | None = None,
) -> CitationReport:
    """Check every sentence of `answer`. `resolve` maps a citation ('3' or a chunk id) to its
    evidence, None when it points at nothing; `company_names` maps normalized names to display
    names for the uncited-company check."""
    report = CitationReport()
    cache: dict[str, Evidence | None] = {}
    names = company_names or {}
    for sentence in _sentences(answer):
        report.sentences += 1
        cited = citations_in(sentence)
        bare = _MARKER_RE.sub(" ", sentence)
        figs = figures(bare)
        if not cited:
            companies = company_mentions(sentence, names)
            if figs or companies:
                report.uncited.append({
                    "sentence": sentence, "figures": [f.text for f in figs], "companies": companies,
                })
            continue
        report.cited_sentences += 1
        resolved: list[Evidence] = []
        for citation in cited:
            if citation not in cache:
                cache[citation] = resolve(citation)
            evidence = cache[citation]
            if evidence is None:
                report.unresolved.append({"citation": citation, "sentence": sentence})
            else:
                resolved.append(evidence)
        if not resolved:
            continue
        values = [v for e in resolved for v in _evidence_values(e)]
        for fig in figs:
            if not _matches(fig, values):
                report.unsupported.append({
                    "sentence": sentence, "figure": fig.text,
                    "citations": [e.label for e in resolved],
                })
    return report
