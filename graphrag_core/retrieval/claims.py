"""What a cited sentence claims, read against the record it cites; no model involved.

A figure in an answer is a claim about *whose* figure it is (a company), *which* figure (a
metric or a table's line) and *when* (a fiscal year or quarter, or calendar dates). The number
alone occurring in the cited evidence proves none of that: Alphabet's FY2024 revenue fact holds
350,018 million, and so does nothing about Apple, about fiscal 2023, or about operating income.

This module reads those three things out of a sentence and checks them against

- a **fact** (`FactRecord`: one metric value of one company and fiscal period, with the year-ago
  value the server compares it with), or
- a **chunk** (`ChunkRecord`: filing text; the figure must sit in one of its sentences or table
  rows, and that sentence or row, or the filing it belongs to, must name the company and period
  claimed; a table row's period is its column heading).

Which mention a figure goes with: the one in the figure's own clause (a sentence is cut at
commas, "and", "from", "to", "compared with"…), else the last one before that clause, else the
first one after it, else what the answer named last in an earlier sentence (so "Its revenue grew
14% [1]" after a sentence naming Alphabet and fiscal 2024 is about Alphabet's fiscal 2024).

Growth rates and ratios are checked against the server's own arithmetic on the cited records:
a percentage after a word of change ("grew", "up", "fell") must be a cited fact's year-over-year
change (or the change between two cited facts of one metric); any other percentage of a fact
claim must be the ratio of two cited facts of one company and period ("a margin of 32%").
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from graphrag_core.common.dates import parse_date_loose
from graphrag_core.common.metric_terms import METRIC_TERMS
from graphrag_core.common.numbers import header_exponent
from graphrag_core.text.markdown_tables import parse_markdown_table
from graphrag_core.text.sentences import sentence_spans
from graphrag_core.xbrl.release_periods import DATE_RE

# Balance-sheet and share metrics the ontology's phrases leave out: that vocabulary also decides
# what extraction publishes as guidance, so they are read here only, for claims.
_EXTRA_METRIC_PHRASES: tuple[tuple[str, str], ...] = (
    ("total_assets", r"\btotal\s+assets\b"),
    ("total_liabilities", r"\btotal\s+liabilities\b"),
    ("stockholders_equity", r"\b(?:stockholders|shareholders)['’]?\s+equity\b|\bbook\s+value\b"),
    ("cash_and_equivalents", r"\bcash\s+and\s+(?:cash\s+)?equivalents\b"),
    ("shares_outstanding", r"\bshares\s+outstanding\b|\boutstanding\s+shares\b"),
    ("total_debt", r"\b(?:total\s+)?(?:debt|borrowings)\b"),
    ("eps_diluted", r"\bdiluted\s+(?:net\s+)?(?:income|earnings)\s+per\s+share\b"),
)
_METRIC_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    *((m, re.compile(p, re.I)) for m, p in _EXTRA_METRIC_PHRASES),
    *((t.metric, t.pattern) for t in METRIC_TERMS),
)
# Ratios and their parts: "gross margin" is gross profit over revenue.
RATIO_PARTS: dict[str, tuple[str, str]] = {
    "gross_margin": ("gross_profit", "revenue"),
    "operating_margin": ("operating_income", "revenue"),
    "net_margin": ("net_income", "revenue"),
}
DECLINE_CUE_RE = re.compile(
    r"\b(?:declin\w*|decreas\w*|f[ae]ll(?:s|en|ing)?|down|lower|dropp?\w*|shr[ai]nk\w*|less\s+than)\b",
    re.I,
)
_NET_MARGIN_RE = re.compile(r"\bnet\s+(?:profit\s+)?margins?\b", re.I)

_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_FISCAL_YEAR_RE = re.compile(
    r"\b(?:fiscal\s+(?:year\s+)?|FY\s?'?)(?P<year>(?:19|20)\d\d|\d\d)\b(?![%]|[,.]\d)", re.I
)
_QUARTER_RE = re.compile(
    r"\b(?:Q(?P<q>[1-4])|(?P<word>first|second|third|fourth)[\s-]+(?:fiscal\s+)?quarter)"
    r"(?:[\s,-]*(?:of\s+)?(?:fiscal\s+(?:year\s+)?|FY\s?'?)?(?P<year>(?:19|20)\d\d|'?\d\d(?!\d)))?",
    re.I,
)
_YEAR_RE = re.compile(r"(?<![\d,.$])\b(?P<year>(?:19|20)\d\d)\b(?![%]|[,.]\d)")
# Where a sentence turns to another clause: figures and their mentions pair within a clause.
_CLAUSE_RE = re.compile(
    r",\s+(?!(?:19|20)\d\d\b)|;\s+|\s+(?:and|while|whereas|but|compared\s+(?:with|to)|versus|vs\.?|from|to|against)\s+",
    re.I,
)
GROWTH_CUE_RE = re.compile(
    r"\b(?:gr[eo]w(?:s|n|th|ing)?|increas\w*|ris(?:e|es|ing)|rose|up|higher|jump\w*|climb\w*|"
    r"declin\w*|decreas\w*|f[ae]ll(?:s|en|ing)?|down|lower|dropp?\w*|shr[ai]nk\w*|chang\w*|"
    r"year[\s-]+over[\s-]+year|more\s+than|less\s+than)\b",
    re.I,
)
_COMPARISON_CUE_RE = re.compile(
    r"\b(?:from|compared|versus|vs\.?|than|over|since|prior|previous|preceding|year\s+(?:earlier|ago|before)|"
    r"last\s+year|"
    r"up|down|increase\w*|decrease\w*|grew|rose|fell|declin\w*)\b",
    re.I,
)
_TICKER_RE = re.compile(r"(?<![\w$])[A-Z][A-Z.]{1,5}(?![\w])")
_WORD_RE = re.compile(r"[A-Za-z0-9]+|&")


@dataclass(frozen=True)
class Period:
    """A period as a sentence or a heading names it."""

    kind: str  # fiscal_year | quarter | date | year
    year: int | None
    quarter: int | None = None
    date: dt.date | None = None
    text: str = ""


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    value: str | Period  # a company's display name, a metric id, or a Period


@dataclass(frozen=True)
class FactRecord:
    """A cited metric value: whose, which metric, which period, and the year-ago value."""

    label: str
    company: str  # display name, as `CompanyNames` maps names to
    metric: str
    value: float
    unit: str
    fiscal_label: str | None
    fiscal_year: int | None
    fiscal_period: str | None  # FY, Q1..Q4, H1, 9M
    calendar_start: dt.date | None
    calendar_end: dt.date | None
    prior_value: float | None = None
    prior_fiscal_label: str | None = None
    prior_calendar_start: dt.date | None = None
    prior_calendar_end: dt.date | None = None
    scale_header: str | None = None  # the scale of the table the fact is shown in

    def says(self) -> str:
        return (
            f"{self.label} is {self.company}'s {metric_name(self.metric)} for "
            f"{self.fiscal_label or self.calendar_end} ({display_amount(self.value, self.unit)})"
        )

    def yoy_change_pct(self) -> float | None:
        if self.prior_value is None or not self.prior_value or not math.isfinite(self.prior_value):
            return None
        return (self.value / self.prior_value - 1) * 100

    def prior(self) -> FactRecord | None:
        """The year-ago value as a record of its own (same company and metric)."""
        if self.prior_value is None:
            return None
        m = re.match(r"^(?:(Q[1-4]|H[12]|9M)-)?FY(\d{4})$", self.prior_fiscal_label or "")
        return FactRecord(
            label=self.label,
            company=self.company,
            metric=self.metric,
            value=self.prior_value,
            unit=self.unit,
            fiscal_label=self.prior_fiscal_label,
            fiscal_year=int(m.group(2))
            if m
            else (self.fiscal_year - 1 if self.fiscal_year else None),
            fiscal_period=(m.group(1) or "FY") if m else self.fiscal_period,
            calendar_start=self.prior_calendar_start,
            calendar_end=self.prior_calendar_end,
            scale_header=self.scale_header,
        )


@dataclass(frozen=True)
class ChunkRecord:
    """Cited filing text with whose filing it is and the period the filing reports."""

    label: str
    text: str
    scale_header: str | None
    company: str | None
    fiscal_year: int | None
    fiscal_period: str | None
    period_end: dt.date | None


@dataclass
class CompanyNames:
    """Normalized alias words → a company's display name, and tickers → display name.

    `weak` aliases (a segment's name: "Google Cloud", "Data Center") may confirm whose figure a
    claim is, never contradict it: "data center" in a sentence about Microsoft is not NVIDIA."""

    aliases: dict[tuple[str, ...], str] = field(default_factory=dict)
    tickers: dict[str, str] = field(default_factory=dict)
    weak: dict[tuple[str, ...], str] = field(default_factory=dict)
    _first: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)
    _weak_first: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)

    def add(self, alias: str, display: str, weak: bool = False) -> None:
        words = tuple(w.lower() for w in _WORD_RE.findall(alias.replace("&", " and ")))
        table, first = (self.weak, self._weak_first) if weak else (self.aliases, self._first)
        if words and words not in table and (not weak or words not in self.aliases):
            table[words] = display
            first.setdefault(words[0], []).append(words)

    def add_ticker(self, ticker: str, display: str) -> None:
        if len(ticker) >= 2:
            self.tickers.setdefault(ticker.upper(), display)

    @classmethod
    def from_display_map(cls, names: Mapping[str, str]) -> CompanyNames:
        out = cls()
        for alias, display in names.items():
            out.add(alias, display)
        return out

    def mentions(self, text: str, weak: bool = False) -> list[Mention]:
        """Companies named in `text`, longest alias first at each word (`weak`: by the weak
        aliases only)."""
        table, first = (self.weak, self._weak_first) if weak else (self.aliases, self._first)
        words = [
            (m.group().lower(), m.start(), m.end())
            for m in _WORD_RE.finditer(text.replace("&", "and"))
        ]
        found: list[Mention] = []
        k = 0
        while k < len(words):
            best: tuple[str, ...] | None = None
            for alias in first.get(words[k][0], ()):
                if tuple(w for w, _, _ in words[k : k + len(alias)]) == alias and (
                    best is None or len(alias) > len(best)
                ):
                    best = alias
            if best is not None:
                found.append(Mention(words[k][1], words[k + len(best) - 1][2], table[best]))
                k += len(best)
                continue
            k += 1
        if weak:
            return found
        for m in _TICKER_RE.finditer(text):
            display = self.tickers.get(m.group().rstrip("."))
            if display is not None:
                found.append(Mention(m.start(), m.end(), display))
        return sorted(found, key=lambda x: x.start)


_METRIC_NAMES = {t.metric: t.label for t in METRIC_TERMS} | {
    "eps_diluted": "diluted EPS",
    "stockholders_equity": "stockholders' equity",
}


def metric_name(metric: str) -> str:
    return _METRIC_NAMES.get(metric, metric.replace("_", " "))


def display_amount(value: float, unit: str) -> str:
    if abs(value) >= 1_000_000 and "/" not in unit:
        return f"{value / 1_000_000:,.0f} million {unit}"
    return f"{value:,.4f}".rstrip("0").rstrip(".") + f" {unit}"


def metric_mentions(text: str) -> list[Mention]:
    """Metrics named in `text`, the most specific phrase first ("cost of revenue" is not also
    revenue, "operating income" not also income)."""
    taken: list[tuple[int, int]] = []
    found: list[Mention] = []
    for m in _NET_MARGIN_RE.finditer(text):
        taken.append((m.start(), m.end()))
        found.append(Mention(m.start(), m.end(), "net_margin"))
    for metric, pattern in _METRIC_PATTERNS:
        for m in pattern.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            taken.append((m.start(), m.end()))
            found.append(Mention(m.start(), m.end(), metric))
    return sorted(found, key=lambda x: x.start)


def _year(text: str) -> int:
    digits = text.strip("'")
    return int(digits) if len(digits) == 4 else 2000 + int(digits)


def period_mentions(text: str) -> list[Mention]:
    """Periods named in `text`: fiscal years, quarters, dates, and bare years."""
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []

    def free(s: int, e: int) -> bool:
        return not any(a < e and s < b for a, b in taken)

    for m in _QUARTER_RE.finditer(text):
        q = int(m.group("q")) if m.group("q") else _QUARTER_WORDS[m.group("word").lower()]
        year = _year(m.group("year")) if m.group("year") else None
        taken.append((m.start(), m.end()))
        found.append(Mention(m.start(), m.end(), Period("quarter", year, q, text=m.group())))
    for m in DATE_RE.finditer(text):
        if not free(m.start(), m.end()):
            continue
        day = parse_date_loose(m.group())
        if day is not None:
            taken.append((m.start(), m.end()))
            found.append(
                Mention(m.start(), m.end(), Period("date", day.year, date=day, text=m.group()))
            )
    for m in _FISCAL_YEAR_RE.finditer(text):
        if free(m.start(), m.end()):
            taken.append((m.start(), m.end()))
            found.append(
                Mention(
                    m.start(),
                    m.end(),
                    Period("fiscal_year", _year(m.group("year")), text=m.group()),
                )
            )
    for m in _YEAR_RE.finditer(text):
        if free(m.start(), m.end()):
            taken.append((m.start(), m.end()))
            found.append(
                Mention(m.start(), m.end(), Period("year", int(m.group("year")), text=m.group()))
            )
    return sorted(found, key=lambda x: x.start)


def clauses(text: str) -> list[tuple[int, int]]:
    """(start, end) of the clauses of a sentence."""
    out, start = [], 0
    for m in _CLAUSE_RE.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def mention_for(
    mentions: list[Mention], start: int, end: int, spans: list[tuple[int, int]]
) -> Mention | None:
    """The mention that goes with the figure at [start, end): in its clause (the nearest), else
    the last before the clause, else the first after it."""
    if not mentions:
        return None
    clause = next(((s, e) for s, e in spans if s <= start < e + 1), (start, end))
    inside = [m for m in mentions if m.start < clause[1] and clause[0] < m.end]
    if inside:
        return min(inside, key=lambda m: min(abs(m.start - end), abs(start - m.end)))
    before = [m for m in mentions if m.end <= clause[0]]
    if before:
        return before[-1]
    after = [m for m in mentions if m.start >= clause[1]]
    return after[0] if after else None


def fact_period_matches(period: Period, fact: FactRecord) -> bool:
    """Does the named period denote the fact's period?"""
    if period.kind == "quarter":
        return fact.fiscal_period == f"Q{period.quarter}" and (
            period.year is None
            or period.year == fact.fiscal_year
            or _calendar_year(fact) == period.year
        )
    if period.kind == "fiscal_year":
        return fact.fiscal_year == period.year and (fact.fiscal_period or "FY") == "FY"
    if period.kind == "date":
        if fact.calendar_start is None or fact.calendar_end is None or period.date is None:
            return False
        return fact.calendar_start <= period.date <= fact.calendar_end
    # A bare year: the fiscal year of that number, or the calendar year most of the period lies in.
    return period.year in (fact.fiscal_year, _calendar_year(fact))


def _calendar_year(fact: FactRecord) -> int | None:
    if fact.calendar_start is None or fact.calendar_end is None:
        return None
    middle = fact.calendar_start + (fact.calendar_end - fact.calendar_start) / 2
    return middle.year


def describe_period(period: Period) -> str:
    return period.text or str(period.year)


@dataclass(frozen=True)
class ClaimContext:
    """What the answer named last before this sentence: a sentence that names no company,
    metric or period is about those ("Its revenue grew 14%")."""

    company: str | None = None
    metric: str | None = None
    period: Period | None = None

    def after(self, sentence: str, names: CompanyNames) -> ClaimContext:
        companies, metrics, periods = (
            names.mentions(sentence),
            metric_mentions(sentence),
            period_mentions(sentence),
        )
        company = str(companies[-1].value) if companies else self.company
        # Another company's sentence does not carry the earlier company's period along.
        period = (
            periods[-1].value if periods else (self.period if company == self.company else None)
        )
        return ClaimContext(
            company,
            str(metrics[-1].value) if metrics else self.metric,
            period if isinstance(period, Period) else None,
        )


@dataclass(frozen=True)
class Claim:
    """What a sentence says about one of its figures."""

    company: str | None
    metric: str | None
    period: Period | None
    company_stated: bool  # named in the sentence itself, not carried from an earlier one
    period_stated: bool
    comparison: bool  # the sentence compares with another period ("up from", "compared with")
    weak_companies: tuple[str, ...] = ()  # companies whose segments the sentence names

    def names_company(self, company: str | None) -> bool:
        """Is the claim about `company`: named (or carried), or, when the sentence names no
        company, one of whose segments it names."""
        return self.company == company or (
            not self.company_stated and company in self.weak_companies
        )


def claim_for(
    sentence: str, start: int, end: int, names: CompanyNames, context: ClaimContext
) -> Claim:
    """The company, metric and period the figure at [start, end) of `sentence` is claimed for."""
    spans = clauses(sentence)
    company = mention_for(names.mentions(sentence), start, end, spans)
    metric = mention_for(metric_mentions(sentence), start, end, spans)
    period = mention_for(period_mentions(sentence), start, end, spans)
    return Claim(
        company=str(company.value) if company else context.company,
        metric=str(metric.value) if metric else context.metric,
        period=period.value if period and isinstance(period.value, Period) else context.period,
        company_stated=company is not None,
        period_stated=period is not None,
        comparison=bool(_COMPARISON_CUE_RE.search(sentence)),
        weak_companies=tuple(str(m.value) for m in names.mentions(sentence, weak=True)),
    )


def sentence_claims(sentence: str, names: CompanyNames, context: ClaimContext) -> Claim:
    """The claim of a sentence as a whole (for a sentence without figures): the companies and
    periods it names, else its context's."""
    companies, periods = names.mentions(sentence), period_mentions(sentence)
    metrics = metric_mentions(sentence)
    return Claim(
        company=str(companies[0].value) if companies else context.company,
        metric=str(metrics[0].value) if metrics else context.metric,
        period=periods[0].value
        if periods and isinstance(periods[0].value, Period)
        else context.period,
        company_stated=bool(companies),
        period_stated=bool(periods),
        comparison=bool(_COMPARISON_CUE_RE.search(sentence)),
    )


def fact_claim_problem(claim: Claim, fact: FactRecord, *, prior: bool = False) -> str | None:
    """Why the claim is not what the fact says (None when it is): another company, metric or
    period, or one the sentence does not name. `prior`: the figure is the fact's year-ago value."""
    record = fact.prior() if prior else fact
    assert record is not None
    says = fact.says() + (f"; its year-ago value is {record.fiscal_label}'s" if prior else "")
    if not claim.names_company(fact.company):
        if claim.company is None:
            return f"the sentence does not say whose figure it is; {says}"
        return f"the sentence gives it as {claim.company}'s; {says}"
    if claim.metric is None:
        return f"the sentence does not say which figure it is; {says}"
    if claim.metric != fact.metric:
        return f"the sentence gives it as {metric_name(claim.metric)}; {says}"
    if prior:
        if claim.period is not None and fact_period_matches(claim.period, record):
            return None
        return (
            None
            if claim.comparison
            else f"the sentence does not say it is the year-ago value; {says}"
        )
    if claim.period is None:
        return f"the sentence does not say which period it is; {says}"
    if not fact_period_matches(claim.period, record):
        return f"the sentence gives it as {describe_period(claim.period)}'s; {says}"
    return None


def value_candidates(fact: FactRecord, figure_exponent: int) -> list[float]:
    """The fact's value as a sentence may state it: in full units, or (a figure with no scale
    word) at the scale of the table the fact is shown in."""
    values = [fact.value]
    header = header_exponent(fact.scale_header) or 0
    if figure_exponent == 0 and header:
        values.append(fact.value / 10**header)
    return values


def growth_rates(facts: Iterable[FactRecord]) -> list[tuple[str, float]]:
    """(what, percent) the server computes as growth from cited facts: each fact's change on its
    year-ago value, and the change between two cited facts of one company and metric."""
    facts = list(facts)
    out: list[tuple[str, float]] = []
    for f in facts:
        pct = f.yoy_change_pct()
        if pct is not None:
            out.append((f"{f.label} {f.fiscal_label} on {f.prior_fiscal_label}", pct))
    for a in facts:
        for b in facts:
            if a is b or a.company != b.company or a.metric != b.metric or not b.value:
                continue
            if (a.calendar_end or dt.date.min) > (b.calendar_end or dt.date.min):
                out.append((f"{a.label} on {b.label}", (a.value / b.value - 1) * 100))
    return out


def ratios(facts: Iterable[FactRecord], ratio: str | None = None) -> list[tuple[str, float]]:
    """(what, percent) of the ratios of two cited facts of one company and period; for a named
    ratio ("gross margin") only its own parts (gross profit over revenue)."""
    facts = list(facts)
    parts = RATIO_PARTS.get(ratio or "")
    out: list[tuple[str, float]] = []
    for a in facts:
        for b in facts:
            if a is b or a.company != b.company or not b.value or a.unit != b.unit:
                continue
            if (a.fiscal_label, a.calendar_end) != (b.fiscal_label, b.calendar_end):
                continue
            if parts is not None and (a.metric, b.metric) != parts:
                continue
            out.append((f"{a.label}/{b.label}", a.value / b.value * 100))
    return out


# -- chunks ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Locus:
    """Where a figure sits in a chunk: the sentence or table row, and the periods that apply to
    the figure there (its column's heading for a table cell)."""

    text: str
    periods: tuple[Period, ...]
    companies: tuple[str, ...]


def chunk_loci(
    chunk: ChunkRecord,
    names: CompanyNames,
    fits: Callable[[float], bool],
    number_values: Callable[[str, int], list[float]],
) -> list[Locus]:
    """Every sentence or table row of `chunk` that states a number `fits` accepts (read by
    `number_values` at the chunk's scale), with the periods and companies it names."""
    header = header_exponent(chunk.scale_header) or 0
    loci: list[Locus] = []
    table = parse_markdown_table(chunk.text) if "|" in chunk.text else None
    if table is not None:
        headings = _column_headings(table.header)
        for row in table.body:
            for col, cell in enumerate(row):
                if col == 0 or not any(fits(v) for v in number_values(cell, header)):
                    continue
                heading = headings.get(col, "")
                row_text = " | ".join(row)
                periods = tuple(
                    p.value for p in period_mentions(heading) if isinstance(p.value, Period)
                )
                periods = periods or tuple(
                    p.value for p in period_mentions(table.caption) if isinstance(p.value, Period)
                )
                loci.append(
                    Locus(row_text, periods, tuple(str(m.value) for m in names.mentions(row_text)))
                )
    prose = chunk.text if table is None else table.caption
    for start, end in sentence_spans(prose, split_lines=True):
        sentence = prose[start:end]
        if any(fits(v) for v in number_values(sentence, header)):
            loci.append(
                Locus(
                    sentence,
                    tuple(
                        p.value for p in period_mentions(sentence) if isinstance(p.value, Period)
                    ),
                    tuple(str(m.value) for m in names.mentions(sentence)),
                )
            )
    return loci


def _column_headings(header_rows: list[list[str]]) -> dict[int, str]:
    """Column → its heading read top to bottom; a spanning heading fills the empty cells to its
    right ("Year Ended December 31," over three years)."""
    width = max((len(r) for r in header_rows), default=0)
    columns: dict[int, list[str]] = {}
    for row in header_rows:
        carry = ""
        for col in range(1, width):
            text = (row[col] if col < len(row) else "").strip()
            carry = text or carry
            if carry:
                columns.setdefault(col, []).append(carry)
    return {col: " ".join(parts) for col, parts in columns.items()}


def chunk_period_matches(claimed: Period, stated: Period) -> bool:
    """A period the sentence claims against one the chunk states beside the figure. Fiscal and
    calendar years meet on their number; a fiscal year ending early in a year (NVIDIA's, in
    January) is mostly the year before, so its date also answers for that one."""
    if claimed.kind == "quarter" and stated.kind == "quarter":
        # "Q3" without a year meets any third quarter
        return claimed.quarter == stated.quarter and (
            None in (claimed.year, stated.year) or claimed.year == stated.year
        )
    if claimed.kind == "date" and stated.kind == "date":
        return claimed.date == stated.date
    years = {stated.year}
    if stated.kind == "date" and stated.date is not None and stated.date.month <= 3:
        years.add(stated.year - 1 if stated.year else None)
    return claimed.year in years


def chunk_claim_problem(claim: Claim, chunk: ChunkRecord, loci: list[Locus]) -> str | None:
    """Why no place of the chunk that holds the figure supports the company and period claimed
    (None when one does). The filing's own company and period stand for a passage that names
    none (a 10-K says "we" and "this year")."""
    if not loci:
        return None
    problems: list[str] = []
    for locus in loci:
        companies = set(locus.companies) | ({chunk.company} if chunk.company else set())
        if claim.company is not None and not any(claim.names_company(c) for c in companies):
            problems.append(
                f"{chunk.label} is {chunk.company or 'another company'}'s filing, and the passage "
                f"that states it ({_short(locus.text)}) names no {claim.company}"
            )
            continue
        periods = locus.periods or _filing_periods(chunk)
        if (
            claim.period is not None
            and periods
            and not any(chunk_period_matches(claim.period, p) for p in periods)
        ):
            shown = ", ".join(describe_period(p) for p in periods)
            problems.append(
                f"the sentence gives it as {describe_period(claim.period)}'s; in {chunk.label} "
                f"it stands for {shown} ({_short(locus.text)})"
            )
            continue
        return None
    return problems[0]


def _filing_periods(chunk: ChunkRecord) -> tuple[Period, ...]:
    if chunk.fiscal_year is None:
        return ()
    if chunk.fiscal_period and chunk.fiscal_period.startswith("Q"):
        return (
            Period(
                "quarter",
                chunk.fiscal_year,
                int(chunk.fiscal_period[1]),
                text=f"{chunk.fiscal_period}-FY{chunk.fiscal_year}",
            ),
        )
    return (Period("fiscal_year", chunk.fiscal_year, text=f"fiscal {chunk.fiscal_year}"),)


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
