"""The small pure readers the rules backend's passes share: a sentence with its mentions,
periods, amounts and guided metrics read from it, the cue a lead-in carries, the heading
above a passage, runs of names, and the last word on duplicates."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from graphrag_core.common.names import name_key
from graphrag_core.common.numbers import SCALE_WORDS
from graphrag_core.common.periods import next_period, period_label
from graphrag_core.extraction.backends.rules_cues import (
    ABBREVIATED_TAIL,
    AMOUNT,
    CHANGE_BEFORE_FIGURE,
    CHANGE_ONLY,
    COMPARISON,
    COMPETE,
    COMPETE_LEAD_IN,
    CUE_BEFORE_FIGURE,
    CUSTOMER_LEAD_IN,
    CUSTOMER_LIST,
    DATE_AROUND,
    FIGURE_LINK,
    METRIC_AFTER_AMOUNT,
    METRIC_AFTER_EXPECT,
    METRIC_AFTER_MAKING,
    METRIC_AFTER_THAT,
    METRIC_BEFORE_EXPECTED,
    METRIC_CHANGE,
    METRIC_DROP,
    METRIC_ESTIMATED,
    METRIC_IN_THE_FORM,
    METRIC_OF_FIGURE,
    NOT_A_METRIC,
    PART_OF,
    PART_YEAR_PERIOD,
    QUARTER,
    QUARTER_PERIOD,
    RANGE_JOIN,
    SUBSIDIARY_LEAD_IN,
    SUPPLIER_LEAD_IN,
    SUPPLIER_LIST,
    VERB_METRIC,
    VERB_NOUN,
    VERB_OBJECT,
    YEAR_PERIOD,
)
from graphrag_core.extraction.gazetteer import Mention
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.triples import Relation, Triple


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str
    mentions: tuple[Mention, ...]  # offsets relative to the sentence


def periods_in(sentence: str) -> list[tuple[str, bool]]:
    """(label, is a comparison base) of each period the sentence names, in order."""
    out: list[tuple[int, str, bool]] = []
    quarter_spans: list[tuple[int, int]] = []
    for m in QUARTER_PERIOD.finditer(sentence):
        q = QUARTER[(m.group("q") or m.group("qq")).lower()]
        base = COMPARISON.search(sentence[max(0, m.start() - 40) : m.start()]) is not None
        out.append((m.start(), period_label(f"Q{q}", int(m.group("y"))), base))
        quarter_spans.append((m.start(), m.end()))
    for m in PART_YEAR_PERIOD.finditer(sentence):
        if any(a <= m.start("y") < b for a, b in quarter_spans):
            continue
        part = PART_OF[(m.group("half") or m.group("months")).lower()]
        base = COMPARISON.search(sentence[max(0, m.start() - 40) : m.start()]) is not None
        out.append((m.start(), period_label(part, int(m.group("y"))), base))
        quarter_spans.append((m.start(), m.end()))
    for m in YEAR_PERIOD.finditer(sentence):
        y = m.start("y")
        if any(a <= y < b for a, b in quarter_spans):
            continue
        before = sentence[max(0, y - 40) : y]
        if DATE_AROUND.search(before):  # "December 31, 2024" is a date, not a period
            continue
        out.append(
            (y, period_label("FY", int(m.group("y"))), COMPARISON.search(before) is not None)
        )
    return [(label, base) for _, label, base in sorted(out)]


def period_of(
    sentence: str, heading: str | None = None, window_end: int | None = None
) -> str | None:
    """The period a statement is about: one it states (up to `window_end`, where its figure's
    clause ends), else its heading's, else the period after the one it compares with ("a
    decrease compared to 2024" → FY2025)."""
    stated = periods_in(sentence)
    window = periods_in(sentence[:window_end]) if window_end is not None else stated
    own = [label for label, base in window if not base]
    if own:
        return own[0]
    if heading:
        from_heading = [label for label, base in periods_in(heading) if not base]
        if from_heading:
            return from_heading[0]
    bases = [label for label, base in stated if base]
    if bases:
        return next_period(bases[0])
    return None


def percent_value(text: str) -> float:
    return float(Decimal(text.replace("%", "").strip()))


def amount(m: re.Match[str], unit_hint: str | None = None) -> tuple[float, str] | None:
    money = bool(m.group("money")) or unit_hint == "USD"
    pct = bool(m.group("pct")) or unit_hint == "%"
    if not (money or pct):
        return None
    number = Decimal(m.group("num").replace(",", ""))
    if m.group("mult"):
        number *= 10 ** SCALE_WORDS[m.group("mult").lower()]
    return float(number), "%" if pct else "USD"


def clean_metric(raw: str) -> str | None:
    metric = raw.strip(" ,;:")
    for _ in range(3):
        metric = METRIC_DROP.sub("", metric).strip(" ,;:")
    metric = re.sub(r"\s+", " ", metric)
    words = metric.split()
    if not words or len(words) > 9 or NOT_A_METRIC.match(metric) or not re.search(r"[a-z]", metric):
        return None
    return metric[0].lower() + metric[1:] if not metric[:2].isupper() else metric


def filer_subject(filer: Filer) -> re.Pattern[str]:
    """'we', 'the Company' or the filer's own name, followed by at most two adverbs/auxiliaries,
    ending where the verb starts ("We primarily rely", "NVIDIA has utilized")."""
    names = [r"we", r"the\s+company"]
    if filer.key:
        names.append(r"\s+".join(re.escape(t) for t in filer.key))
    return re.compile(rf"\b(?:{'|'.join(names)})\b[\w.,’']*\s+(?:[a-z]+\s+){{0,3}}$", re.I)


def by_filer(we: re.Pattern[str], sentence: str, verb_start: int) -> bool:
    """Is the verb at `verb_start` the filer's own ("we rely on", not "our competitors rely on")?"""
    return we.search(sentence[max(0, verb_start - 80) : verb_start]) is not None


def lead_in_relation(sentence: str) -> Relation | None:
    if not sentence.rstrip().endswith(":"):
        return None
    for pattern, relation in (
        (COMPETE_LEAD_IN, Relation.COMPETES_WITH),
        (SUPPLIER_LEAD_IN, Relation.SUPPLIES),
        (CUSTOMER_LEAD_IN, Relation.CUSTOMER_OF),
        (SUBSIDIARY_LEAD_IN, Relation.SUBSIDIARY_OF),
    ):
        if pattern.search(sentence):
            return relation
    return None


def cue_relation(sentence: str) -> Relation | None:
    """The relation a sentence's own cue speaks of, if it has exactly one kind."""
    found = {
        relation
        for pattern, relation in (
            (COMPETE, Relation.COMPETES_WITH),
            (SUPPLIER_LIST, Relation.SUPPLIES),
            (CUSTOMER_LIST, Relation.CUSTOMER_OF),
        )
        if pattern.search(sentence)
    }
    return found.pop() if len(found) == 1 else None


def heading_above(text: str, start: int) -> str | None:
    """The title-like line closest above `start` in the chunk ("First Quarter 2025 Guidance")."""
    for line in reversed(text[:start].split("\n\n")):
        line = line.strip()
        if (
            line
            and len(line) <= 100
            and not line.endswith((".", ";", ":"))
            and not line.startswith(("•", "|"))
        ):
            return line
    return None


def guided_metrics(text: str) -> list[tuple[str, int]]:
    """(metric, offset where its figure may start) for each guided metric the sentence names."""
    out: list[tuple[str, int]] = []
    for m in VERB_METRIC.finditer(text):
        rest = m.group("rest")
        form = METRIC_IN_THE_FORM.search(rest)
        target = VERB_OBJECT.search(rest)
        noun = VERB_NOUN[m.group("verb").lower()]
        if form:
            metric = clean_metric(form.group("metric"))
        elif target:
            linker = {"contributions": "to", "spending": "on", "investment": "in"}.get(noun, "for")
            metric = clean_metric(f"{noun} {linker} {METRIC_DROP.sub('', target.group('obj'))}")
        else:
            metric = noun
        if metric:
            out.append((metric, m.end("verb")))
    for pattern in (
        METRIC_BEFORE_EXPECTED,
        METRIC_AFTER_EXPECT,
        METRIC_AFTER_MAKING,
        METRIC_CHANGE,
        METRIC_ESTIMATED,
        METRIC_OF_FIGURE,
        METRIC_AFTER_THAT,
    ):
        for m in pattern.finditer(text):
            raw = m.group("metric")
            # The metric is the last phrase before the cue: after any comma or clause opener.
            raw = re.split(r",\s+|\b(?:and|within|of\s+which|while|but)\s+(?=[a-z])", raw)[-1]
            metric = clean_metric(raw)
            if metric and not CHANGE_ONLY.match(metric):
                out.append((metric, m.end()))
    if not out:
        # "we expect approximately $300 million to $325 million in future cash payments…",
        # "we plan to invest approximately $4 billion … in the form of capital expenditures".
        for m in AMOUNT.finditer(text):
            if not (m.group("money") or m.group("pct")):
                continue
            if CUE_BEFORE_FIGURE.search(text, max(0, m.start() - 70), m.start()) is None:
                continue
            # "a decline of 5% in demand": the figure is a change, not the level of "demand"
            if CHANGE_BEFORE_FIGURE.search(text, max(0, m.start() - 40), m.start()):
                continue
            end = range_end(text, m)
            form = METRIC_IN_THE_FORM.search(text, end)
            after = METRIC_AFTER_AMOUNT.match(text, end)
            raw = form.group("metric") if form else after.group("metric") if after else None
            metric = clean_metric(raw) if raw else None
            if metric:
                out.append((metric, m.start()))
                break
    seen: set[str] = set()
    unique = []
    for metric, at in out:
        if metric not in seen:
            seen.add(metric)
            unique.append((metric, at))
    return unique


def range_end(text: str, m: re.Match[str]) -> int:
    join = RANGE_JOIN.match(text, m.end())
    if join:
        second = AMOUNT.match(text, join.end())
        if second:
            return second.end()
    return m.end()


def figure_after(
    text: str, at: int
) -> tuple[float | None, float | None, float | None, str, int] | None:
    """(value, low, high, unit, end) of the first money or percent figure soon after `at`; a range
    ("$151.0 billion and $155.5 billion", "12-15%", "between 5% and 9%") gives low and high."""
    for m in AMOUNT.finditer(text, at, min(len(text), at + 120)):
        join = RANGE_JOIN.match(text, m.end())
        second = AMOUNT.match(text, join.end()) if join else None
        high = amount(second) if second is not None else None
        first = amount(m, high[1] if high else None)
        if first is None:
            continue  # a bare number: a year, a count
        if not FIGURE_LINK.match(text[at : m.start()]):
            return None
        if high is not None and second is not None:
            low = first[0]
            if not m.group("mult") and second.group("mult"):  # "14.0 and $18.0 billion"
                low = float(
                    Decimal(m.group("num").replace(",", ""))
                    * 10 ** SCALE_WORDS[second.group("mult").lower()]
                )
            return None, low, high[0], high[1], second.end()
        return first[0], None, None, first[1], m.end()
    return None


def name_runs(sent: Sentence) -> list[list[Mention]]:
    """Mentions joined by ',' / 'and' into runs ("McKesson and Cardinal")."""
    runs: list[list[Mention]] = []
    for m in sent.mentions:
        if runs and re.fullmatch(
            r"\s*(?:,|,?\s*and|,?\s*&)\s*", sent.text[runs[-1][-1].end : m.start]
        ):
            runs[-1].append(m)
        else:
            runs.append([m])
    return runs


def sentence_end_stop(name: str) -> str:
    return name if not name.endswith(".") or ABBREVIATED_TAIL.search(name) else name[:-1]


def unique_triples(triples: list[Triple]) -> list[Triple]:
    return [t for t, _ in unique_traced([(t, "") for t in triples])]


def unique_traced(traced: list[tuple[Triple, str]]) -> list[tuple[Triple, str]]:
    """(triple, method) pairs less repeats of a triple: the first rule that stated it names it."""
    seen: set[tuple] = set()
    out = []
    for t, method in traced:
        key = (
            t.subject,
            t.relation,
            t.object,
            t.period,
            t.value,
            t.value_low,
            t.value_high,
            t.evidence,
        )
        if key not in seen and not same_party(t):
            seen.add(key)
            out.append((t, method))
    return out


def same_party(t: Triple) -> bool:
    """A company is not its own supplier or competitor (a subsidiary shares its parent's core
    name: 'Apple Pty Limited' of 'Apple Inc.' is another company)."""
    if (
        re.sub(r"\W+", " ", t.subject).casefold().strip()
        == re.sub(r"\W+", " ", t.object).casefold().strip()
    ):
        return True
    return t.relation != Relation.SUBSIDIARY_OF and name_key(t.subject) == name_key(t.object)
