"""Literal citation checks of a drafted answer, no model involved.

An answer cites evidence as `[3]` (numbers the tools handed out in this session) or by chunk id
(`[0001045810-25-000023:3f9a…]`). Three findings:

- **unresolved**: a citation that points at nothing (an unknown number or chunk id);
- **uncited**: a sentence that states a figure or names a company and cites nothing;
- **unsupported**: a cited sentence with a figure that appears in none of its cited evidence;
- **mismatched**: a cited figure that its evidence holds, but for another company, metric or
  period than the sentence claims (or one the sentence does not say), a growth rate or ratio
  the server's arithmetic on the cited facts does not give, or a company or period named in a
  cited sentence that its citations contradict; each says what the citation actually holds.
  How a sentence's claim is read is `graphrag_core.retrieval.claims`.

Figures are compared as numbers, with their scale words (`$130.5 billion`, `130,497` under a
table's "in millions" header) and to the precision the sentence states, so rounding an exact
figure is fine and changing it is not. Years, item numbers and form names are not figures.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from graphrag_core.common.names import normalize_name
from graphrag_core.common.numbers import NUMBER_SCALE_WORD_RE, header_exponent, scale_exponent
from graphrag_core.retrieval.claims import (
    DECLINE_CUE_RE,
    GROWTH_CUE_RE,
    RATIO_PARTS,
    ChunkRecord,
    Claim,
    ClaimContext,
    CompanyNames,
    FactRecord,
    chunk_claim_problem,
    chunk_loci,
    claim_for,
    clauses,
    fact_claim_problem,
    fact_period_matches,
    growth_rates,
    ratios,
    sentence_claims,
    value_candidates,
)
from graphrag_core.text.sentences import sentence_spans

CHUNK_ID_PATTERN = r"(?:\d{10}-\d{2}-\d{6}|sha-[0-9a-f]{16}):[0-9a-f]{6,64}"
_CHUNK_ID_RE = re.compile(CHUNK_ID_PATTERN)
_NUMBERED_RE = re.compile(r"\[(\d{1,5}(?:\s*[,;]\s*\d{1,5})*)\]")
_MARKER_RE = re.compile(
    rf"\[(?:\d{{1,5}}(?:\s*[,;]\s*\d{{1,5}})*|\s*{CHUNK_ID_PATTERN}\s*)\]|{CHUNK_ID_PATTERN}"
)
# A number as written: $1,234.5, (1,234), 12.5%, 3 billion, 0.42x.
_FIGURE_RE = re.compile(
    rf"(?P<neg>\()?(?P<cur>[$€£])?\s?(?P<num>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?P<pct>\s?%| percent)?(?:\s?(?P<scale>{NUMBER_SCALE_WORD_RE}|bn|mm|[BMK])\b)?"
    r"(?P<unit_pp> ?(?:pp|percentage points?))?",
    re.I,
)
# Not figures: "10-K", "Item 7A", "Q2", "FY2025", "Part II", dates' years.
_NOT_FIGURE_BEFORE = re.compile(
    r"(?:item|part|note|q|fy|form|section|exhibit|rule|schedule)\s?$", re.I
)
_NOT_FIGURE_AFTER = re.compile(r"^(?:-[a-z]|-k|-q|/a\b|[a-z])", re.I)


@dataclass(frozen=True)
class Figure:
    text: str
    value: float
    decimals: int  # digits stated after the point, in the figure's own scale
    exponent: int  # scale word's power of ten (0 when none)
    percent: bool
    start: int = 0  # where it stands in the text it was read from
    end: int = 0


@dataclass(frozen=True)
class Evidence:
    """What a citation resolves to: the text to look figures up in (chunk text, quote, the
    figures a tool reported) and the scale of any table it is (`scale_header`)."""

    label: str
    text: str
    scale_header: str | None = None
    fact: FactRecord | None = None  # a cited metric value: its figures are checked against it alone
    chunk: ChunkRecord | None = None  # cited filing text, with whose filing it is and its period


@dataclass
class CitationReport:
    sentences: int = 0
    cited_sentences: int = 0
    unresolved: list[dict] = field(default_factory=list)
    uncited: list[dict] = field(default_factory=list)
    unsupported: list[dict] = field(default_factory=list)
    mismatched: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.unresolved or self.uncited or self.unsupported or self.mismatched)

    def summary(self) -> str:
        if self.ok:
            return (
                f"all {self.sentences} sentences pass: every figure and company named is "
                "cited, and every cited figure is its evidence's, for the company, figure and "
                "period the sentence names"
            )
        parts = []
        if self.unresolved:
            parts.append(f"{len(self.unresolved)} citation(s) point at nothing")
        if self.uncited:
            parts.append(
                f"{len(self.uncited)} sentence(s) state figures or name companies without a "
                "citation"
            )
        if self.unsupported:
            parts.append(
                f"{len(self.unsupported)} cited figure(s) do not appear in the cited evidence"
            )
        if self.mismatched:
            parts.append(
                f"{len(self.mismatched)} claim(s) say something else than their citation "
                "(another company, figure or period, or a rate it does not give)"
            )
        return (
            "; ".join(parts) + ". Fix each listed sentence: cite the evidence that states it, "
            "correct the figure to the one in the evidence, or remove the claim."
        )


def _is_year(num: str, value: float) -> bool:
    return "," not in num and "." not in num and 1900 <= value <= 2100


def figures(text: str) -> list[Figure]:
    """The figures a sentence states (years, item numbers and form names excluded)."""
    out: list[Figure] = []
    for m in _FIGURE_RE.finditer(text):
        num = m.group("num")
        before = text[max(0, m.start() - 8) : m.start()]
        after = text[m.end("num") : m.end("num") + 3]
        if _NOT_FIGURE_BEFORE.search(before) or (
            not m.group("pct") and not m.group("scale") and _NOT_FIGURE_AFTER.match(after)
        ):
            continue
        value = float(num.replace(",", ""))
        pct = bool(m.group("pct") or m.group("unit_pp"))
        scale = m.group("scale")
        if not pct and not scale and not m.group("cur") and _is_year(num, value):
            continue
        # A bare small integer ("three segments", "2 customers") is not a figure worth citing.
        if (
            not (pct or scale or m.group("cur"))
            and "," not in num
            and "." not in num
            and value < 100
        ):
            continue
        exponent = 0
        if scale:
            s = scale.lower()
            exponent = {"b": 9, "m": 6, "k": 3}.get(s) or scale_exponent(s) or 0
        decimals = len(num.split(".", 1)[1]) if "." in num else 0
        out.append(Figure(m.group(0).strip(), value, decimals, exponent, pct, m.start(), m.end()))
    return out


def _evidence_values(evidence: Evidence) -> list[float]:
    """Every number in the evidence at every scale it may be read at: as written, with a scale
    word after it, and under the table's scale header."""
    return number_values(evidence.text, header_exponent(evidence.scale_header) or 0)


def number_values(text: str, header: int = 0) -> list[float]:
    """Every number in `text` at every scale it may be read at: as written, with its scale word,
    and at the power of ten `header` of a table's scale header."""
    values: list[float] = []
    for m in _FIGURE_RE.finditer(text):
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
        return (
            False  # a 400-digit "figure" is +inf, and inf is close to everything at inf tolerance
        )
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


def company_mentions(sentence: str, names: Mapping[str, str]) -> list[str]:
    """Company names (normalized alias → display name) the sentence names as whole words."""
    norm = f" {normalize_name(_MARKER_RE.sub(' ', sentence))} "
    return list(dict.fromkeys(display for alias, display in names.items() if f" {alias} " in norm))


def check_answer(
    answer: str,
    resolve: Callable[[str], Evidence | None],
    company_names: Mapping[str, str] | None = None,
    companies: CompanyNames | None = None,
) -> CitationReport:
    """Check every sentence of `answer`. `resolve` maps a citation ('3' or a chunk id) to its
    evidence, None when it points at nothing; `company_names` maps normalized names to display
    names for the uncited-company check; `companies` (names, aliases and tickers → display
    names) reads which company a claim is about (by default, `company_names`)."""
    report = CitationReport()
    cache: dict[str, Evidence | None] = {}
    names = company_names or {}
    reader = companies or CompanyNames.from_display_map(names)
    context = ClaimContext()
    for sentence in _sentences(answer):
        report.sentences += 1
        cited = citations_in(sentence)
        bare = _MARKER_RE.sub(" ", sentence)
        figs = figures(bare)
        if not cited:
            companies_named = company_mentions(sentence, names)
            if figs or companies_named:
                report.uncited.append(
                    {
                        "sentence": sentence,
                        "figures": [f.text for f in figs],
                        "companies": companies_named,
                    }
                )
            context = context.after(bare, reader)
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
        if resolved:
            _check_sentence(report, sentence, bare, figs, resolved, reader, context)
        context = context.after(bare, reader)
    return report


def _check_sentence(
    report: CitationReport,
    sentence: str,
    bare: str,
    figs: list[Figure],
    resolved: list[Evidence],
    names: CompanyNames,
    context: ClaimContext,
) -> None:
    facts = [e.fact for e in resolved if e.fact is not None]
    texts = [e for e in resolved if e.fact is None]
    labels = [e.label for e in resolved]
    before = len(report.mismatched)
    for fig in figs:
        claim = claim_for(bare, fig.start, fig.end, names, context)
        if fig.percent:
            problem = _rate_problem(fig, bare, claim, facts, texts)
        else:
            problem = _amount_problem(fig, claim, facts, texts, names)
        if problem is None:
            continue
        kind, text = problem
        if kind == "unsupported":
            report.unsupported.append(
                {"sentence": sentence, "figure": fig.text, "citations": labels, "cited_says": text}
            )
        else:
            report.mismatched.append(
                {"sentence": sentence, "figure": fig.text, "citations": labels, "problem": text}
            )
    named = _named_problem(sentence_claims(bare, names, context), facts, texts, names)
    if named is not None and len(report.mismatched) == before:
        report.mismatched.append(
            {"sentence": sentence, "figure": None, "citations": labels, "problem": named}
        )


def _amount_problem(
    fig: Figure, claim: Claim, facts: list[FactRecord], texts: list[Evidence], names: CompanyNames
) -> tuple[str, str | None] | None:
    """A figure that is not a percentage: a cited fact's value (or year-ago value) for the
    company, metric and period claimed, or a number of cited text in a passage that names the
    company and period claimed."""
    problems: list[str] = []
    for fact in facts:
        for prior, record in ((False, fact), (True, fact.prior())):
            if record is None or not _matches(fig, value_candidates(record, fig.exponent)):
                continue
            problem = fact_claim_problem(claim, fact, prior=prior)
            if problem is None:
                return None
            problems.append(problem)
    for evidence in texts:
        if not _matches(fig, _evidence_values(evidence)):
            continue
        if evidence.chunk is None:
            return None  # a quote or a tool's figures: the number is what it states
        loci = chunk_loci(evidence.chunk, names, lambda v: _matches(fig, [v]), number_values)
        problem = chunk_claim_problem(claim, evidence.chunk, loci)
        if problem is None:
            return None
        problems.append(problem)
    if problems:
        return "mismatched", problems[0]
    return "unsupported", "; ".join(f.says() for f in facts) or None


def _rate_problem(
    fig: Figure, bare: str, claim: Claim, facts: list[FactRecord], texts: list[Evidence]
) -> tuple[str, str | None] | None:
    """A percentage: growth (after a word of change) or a ratio, as the server computes it from
    the cited facts; cited text that states it literally also supports it."""
    clause = next(((s, e) for s, e in clauses(bare) if s <= fig.start < e + 1), (0, len(bare)))
    local = bare[max(0, clause[0] - 40) : clause[1]]
    growth = bool(GROWTH_CUE_RE.search(local))
    ratio = claim.metric if claim.metric in RATIO_PARTS else None
    if facts:
        candidates = growth_rates(facts) if growth and ratio is None else ratios(facts, ratio)
        if growth and DECLINE_CUE_RE.search(local):
            candidates = [(what, -pct) for what, pct in candidates]
        for _what, pct in candidates:
            if (growth and ratio is None and pct < 0) or not math.isfinite(pct):
                continue
            if _matches(fig, [pct]):
                return None
    if any(_matches(fig, _evidence_values(e)) for e in texts):
        return None
    if not facts:
        return "unsupported", None
    kind = (
        "growth rate"
        if growth and ratio is None
        else f"{ratio.replace('_', ' ')}"
        if ratio
        else "ratio"
    )
    computed = growth_rates(facts) if growth and ratio is None else ratios(facts, ratio)
    if computed:
        shown = "; ".join(
            f"{what}: {pct:+.1f}%" if growth and ratio is None else f"{what}: {pct:.1f}%"
            for what, pct in computed[:4]
        )
        return (
            "mismatched",
            f"{fig.text} is not the {kind} the server computes from the cited facts ({shown})",
        )
    return "mismatched", (
        f"{fig.text}: no {kind} can be computed from the cited facts "
        f"({'; '.join(f.says() for f in facts)}); cite the facts it is computed from"
    )


def _named_problem(
    claim: Claim, facts: list[FactRecord], texts: list[Evidence], names: CompanyNames
) -> str | None:
    """A company or period the sentence itself names that none of its citations is about."""
    records = [*facts, *(e.chunk for e in texts if e.chunk is not None)]
    if len(records) < len(facts) + len(texts):
        return None  # a quote or tool figures without a record: nothing to hold the names against
    if claim.company_stated and claim.company is not None:
        about = {f.company for f in facts} | {
            c.company for c in (e.chunk for e in texts) if c and c.company
        }
        mentioned = {str(m.value) for e in texts if e.chunk for m in names.mentions(e.chunk.text)}
        if claim.company not in about | mentioned:
            says = "; ".join(f.says() for f in facts) or "; ".join(
                f"{e.label} is {e.chunk.company}'s filing" for e in texts if e.chunk
            )
            return f"the sentence names {claim.company}; {says}"
    if claim.period_stated and claim.period is not None and facts and not texts:
        if not any(
            fact_period_matches(claim.period, f)
            or (
                claim.comparison
                and (p := f.prior()) is not None
                and fact_period_matches(claim.period, p)
            )
            for f in facts
        ):
            return f"the sentence names {claim.period.text}; " + "; ".join(f.says() for f in facts)
    return None
