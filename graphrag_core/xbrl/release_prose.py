"""Figures an earnings release states only in sentences: "ABVC reported total revenues of
$509,589 in 2024, representing a 234% increase compared to $152,430 in 2023."

A sentence is cut where it turns to another period ("compared with", "versus", "from $…",
"to $…"); each piece takes the period it names ("for the 39-week fiscal period ended November
2, 2024", "the third quarter of fiscal 2024", "in 2024"), else the one named before it in the
sentence. An amount belongs to the metric last named before it ("net income", "net sales",
"diluted loss per share"); "$0.88 per share on a diluted basis" is diluted EPS whatever was named
before, "$0.89 per share" (basic) is passed over. "Net loss … $4.90 million" is negative.
Forward-looking sentences ("expects", "outlook", "guidance") are never read, and neither is a
sentence whose period cannot be told. A release's tables win over its sentences
(`releases._resolve`); the sentences are for releases that have no table of a figure.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass

import polars as pl

from graphrag_core.common.dates import parse_date_loose
from graphrag_core.common.numbers import NUMBER_SCALE_WORD_RE, scale_exponent
from graphrag_core.text.sentences import sentence_spans
from graphrag_core.xbrl.periods import FiscalCalendar
from graphrag_core.xbrl.release_periods import (
    DATE_RE,
    ORDINAL_QUARTER_RE,
    Span,
    duration_start,
    length_of,
)
from graphrag_core.xbrl.release_reading import Found, ReleaseReading

FORWARD_LOOKING_RE = re.compile(
    r"\b(?:expects?|expected|expecting|outlook|guidance|anticipates?|forecasts?|projects?|projected|"
    r"targets?|will\s+be|plans?\s+to|intends?\s+to|estimated?)\b",
    re.I,
)
_BOUNDARY_RE = re.compile(
    r",?\s+(?P<word>compared\s+(?:with|to)|versus|vs\.?)\s+|\s+(?P<from>from)\s+(?=[^$.;]{0,60}\$)|\s+(?P<to>to)\s+(?=\$)",
    re.I,
)
_AMOUNT_RE = re.compile(
    rf"\$\s?(?P<open>\()?\s?(?P<num>\d[\d,]*(?:\.\d+)?)(?:\s?(?P<close>\)))?(?:\s+(?P<scale>{NUMBER_SCALE_WORD_RE})\b)?",
    re.I,
)
_PER_SHARE_RE = re.compile(
    r"^\s*(?:(?P<basic_diluted>per\s+basic\s+and\s+diluted\s+share)|per\s+(?P<diluted>diluted\s+)?(?:common\s+)?share"
    r"(?P<basis>\s+on\s+a\s+diluted\s+basis)?)",
    re.I,
)
# Qualifiers that make "sales" or "revenue" a part, not the total.
_PART_QUALIFIERS = (
    "online|comparable|store|segment|product|products|service|services|subscription|international|"
    "domestic|digital|retail|wholesale|advertising|cloud|gaming|automotive|other|interest|licensing|"
    "royalty|recurring|organic|same-store|e-commerce|ecommerce"
)
_MENTIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "eps_diluted",
        re.compile(
            r"\b(?:basic\s+and\s+)?diluted\s+(?:net\s+)?(?:earnings|income|loss|eps)(?:\s+\(loss\))?(?:\s+per\s+(?:common\s+)?share)?\b"
            r"|\b(?:earnings|income|loss)\s+per\s+diluted\s+share\b",
            re.I,
        ),
    ),
    ("net_income", re.compile(r"\bnet\s+(?:income|earnings|loss)(?!\s+per\b)\b", re.I)),
    (
        "revenue",
        re.compile(r"\b(?:(?:total|net)\s+)?(?:revenues?|net\s+sales|total\s+sales)\b", re.I),
    ),
)
_QUALIFIER_BEFORE_RE = re.compile(rf"\b(?:{_PART_QUALIFIERS})\s*$", re.I)
_YEAR_REF_RE = re.compile(
    r"\b(?:in|for|during|of)\s+(?:fiscal\s+(?:year\s+)?)?(?P<year>(?:19|20)\d\d)\b(?!\s+(?:first|second|third|fourth)?\s*quarter)",
    re.I,
)
_LOSS_RE = re.compile(r"\bloss\b", re.I)


@dataclass
class _Segment:
    text: str
    role: str  # lead | prior | current


def _segments(sentence: str) -> list[_Segment]:
    parts: list[_Segment] = []
    start, role = 0, "lead"
    for m in _BOUNDARY_RE.finditer(sentence):
        parts.append(_Segment(sentence[start : m.start()], role))
        role = "current" if m.group("to") else "prior"
        start = m.end()
    parts.append(_Segment(sentence[start:], role))
    return parts


class _Periods:
    """Resolves a sentence's period phrases to spans: the release's table columns first, then the
    company's calendar."""

    def __init__(self, calendar: FiscalCalendar | None, spans: list[Span]):
        self.calendar = calendar
        self.spans = [s for s in spans if not s.is_instant]

    def _labelled(self, label: str, days: range) -> Span | None:
        if self.calendar is None:
            return None
        for s in self.spans:
            if (
                s.start is not None
                and s.days in days
                and self.calendar.duration(s.start, s.end).label == label
            ):
                return s
        return None

    def quarter(self, number: int, year: int) -> Span | None:
        found = self._labelled(f"Q{number}-FY{year}", range(84, 99))
        if found or self.calendar is None:
            return found
        end_year = year - self.calendar.year_offset
        fy_start = self.calendar.year_start(end_year)
        start = fy_start + dt.timedelta(days=91 * (number - 1))
        end = self.calendar.nominal_end(end_year) if number == 4 else start + dt.timedelta(days=90)
        return Span(start, end)

    def year(self, year: int) -> Span | None:
        found = self._labelled(f"FY{year}", range(357, 374))
        if found or self.calendar is None:
            return found
        end_year = year - self.calendar.year_offset
        return Span(self.calendar.year_start(end_year), self.calendar.nominal_end(end_year))

    def prior(self, span: Span) -> Span | None:
        """The like period a year earlier (what "from $(1.80) to $(0.42)" compares)."""
        if span.start is None:
            return None
        try:
            if (span.end + dt.timedelta(days=1)).day == 1:  # calendar months
                return Span(
                    span.start.replace(year=span.start.year - 1),
                    _last_day(span.end.year - 1, span.end.month),
                )
        except ValueError:
            return None
        return Span(span.start - dt.timedelta(days=364), span.end - dt.timedelta(days=364))

    def in_text(self, text: str, release_year_only: bool) -> Span | None:
        if m := DATE_RE.search(text):
            before = text[max(0, m.start() - 80) : m.start()]
            length = length_of(before + " ended")  # "13-week fiscal quarter ended", "year ended"
            if length and re.search(r"ended\s*$", before.strip() + " "):
                end = parse_date_loose(m.group())
                if end is not None:
                    return Span(duration_start(end, *length), end)
        if (m := ORDINAL_QUARTER_RE.search(text)) and m.group("year"):
            number = ("first", "second", "third", "fourth").index(m.group("ord").lower()) + 1
            return self.quarter(number, int(m.group("year")))
        if release_year_only and (m := _YEAR_REF_RE.search(text)):
            return self.year(int(m.group("year")))
        return None


def _last_day(year: int, month: int) -> dt.date:
    first_next = dt.date(year + (month == 12), month % 12 + 1, 1)
    return first_next - dt.timedelta(days=1)


_ENDED_RE = re.compile(r"(?:quarter|year|period|weeks|months)\s+ended\s+", re.I)


def _release_period(text: str, periods: _Periods) -> Span | None:
    """The period the release reports on: its first 'quarter/year ended <date>' phrase."""
    for m in _ENDED_RE.finditer(text):
        date = DATE_RE.match(text, m.end())
        if date is not None:
            return periods.in_text(
                text[max(0, m.start() - 60) : date.end()], release_year_only=False
            )
    return None


def read_sentences(
    prose: pl.DataFrame, reading: ReleaseReading, calendar: FiscalCalendar | None
) -> None:
    """Append the figures of the release's sentences to `reading.found`."""
    periods = _Periods(calendar, reading.spans)
    text = "\n".join(prose["text"].to_list()) if prose.height else ""
    current = _release_period(text, periods)
    annual = current is not None and current.days >= 357
    for chunk_id, chunk_text in prose.select("chunk_id", "text").iter_rows():
        for start, end in sentence_spans(chunk_text, split_lines=True):
            sentence = chunk_text[start:end]
            if (
                "$" not in sentence
                or not sentence.rstrip().endswith(".")
                or FORWARD_LOOKING_RE.search(sentence)
            ):
                continue  # no amount; a headline; a forecast
            for metric, value, unit, span in _sentence_figures(sentence, periods, current, annual):
                reading.add(
                    Found(
                        metric,
                        value,
                        unit,
                        span,
                        chunk_id,
                        f"release sentence: '{sentence[:200]}'",
                        from_table=False,
                    )
                )


def _mentions(text: str) -> list[tuple[int, str, bool]]:
    """(position, metric, says loss) of each metric named in the text."""
    found = []
    for metric, pattern in _MENTIONS:
        for m in pattern.finditer(text):
            if metric == "revenue" and _QUALIFIER_BEFORE_RE.search(text[: m.start()]):
                continue  # "online sales", "comparable store net sales": a part, not the total
            found.append((m.start(), metric, bool(_LOSS_RE.search(m.group()))))
    return sorted(found)


def _sentence_figures(
    sentence: str, periods: _Periods, current: Span | None, annual: bool
) -> Iterator[tuple[str, float, str, Span]]:
    """(metric, value, unit, period) of every figure a sentence states."""
    segments = _segments(sentence)
    own = [periods.in_text(s.text, release_year_only=annual) for s in segments]
    any_period = any(p is not None for p in own)
    compares = any(s.role != "lead" for s in segments)
    last_metric: tuple[str, bool] | None = None
    inherited: Span | None = None
    for segment, span in zip(segments, own, strict=True):
        if span is None:
            if any_period:
                span = inherited if segment.role != "prior" else None
            elif current is not None and compares:
                # "improved from $(1.80) to $(0.42)": the release's period and the one before
                span = current if segment.role != "prior" else periods.prior(current)
        else:
            inherited = span
        mentions = _mentions(segment.text)
        amounts = list(_AMOUNT_RE.finditer(segment.text))
        yield from _segment_figures(segment.text, amounts, mentions, last_metric, span)
        # A metric named after a segment's last amount ("Net loss … narrowed") carries over to
        # the next segment ("from $7.79 million in 2023").
        trailing = [x for x in mentions if not amounts or x[0] > amounts[-1].start()]
        if trailing:
            last_metric = (trailing[-1][1], trailing[-1][2])
        elif amounts and mentions:
            before = [x for x in mentions if x[0] < amounts[-1].start()]
            last_metric = (before[-1][1], before[-1][2]) if before else last_metric


def _segment_figures(
    text: str,
    amounts: list[re.Match[str]],
    mentions: list[tuple[int, str, bool]],
    last_metric: tuple[str, bool] | None,
    span: Span | None,
) -> Iterator[tuple[str, float, str, Span]]:
    """The figures of one segment: each amount with the metric named last before it."""
    for m in amounts:
        before = [x for x in mentions if x[0] < m.start()]
        if before:
            last_metric = (before[-1][1], before[-1][2])
        per_share = _PER_SHARE_RE.match(text[m.end() :])
        number = float(m.group("num").replace(",", ""))
        negative = bool(m.group("open") and m.group("close"))
        if per_share:
            if not (
                per_share.group("diluted")
                or per_share.group("basis")
                or per_share.group("basic_diluted")
            ):
                continue  # basic EPS: not a canonical metric
            metric, says_loss = "eps_diluted", bool(last_metric and last_metric[1])
        elif last_metric is not None:
            metric, says_loss = last_metric
        else:
            continue
        if span is None or span.start is None:
            continue
        if metric == "eps_diluted":
            if m.group("scale"):
                continue  # "$2 billion" is never a per-share figure
            value, unit = number, "USD/shares"
        else:
            exponent = scale_exponent(m.group("scale")) if m.group("scale") else 0
            value, unit = number * 10 ** (exponent or 0), "USD"
        if (negative or says_loss) and value > 0:
            value = -value
        yield metric, round(value, 6), unit, span
