"""Earnings releases (8-K, EX-99.x) → metric observations, read from the release's own tables
and, for a figure no table gives, the sentence that states it. No model is in the loop.

An earnings release carries a quarter's figures weeks before the 10-Q, with no XBRL beyond the
8-K's cover page. Its statements are tables the chunker already renders as Markdown, each one
chunk with its caption and scale header ("Amounts in Thousands Except Per Share Amounts"):

- **columns → periods**: the headings ("Thirteen Weeks Ended" over "November 2, 2024") give
  each column's end and length (`release_periods.column_spans`); a column with a date and no
  length is a balance-sheet instant;
- **rows → metrics**: a row's label names the line ("SALES, Net of returns and allowances" is
  revenue, "Diluted" under "EARNINGS PER SHARE:" is diluted EPS), matched by the rules in
  `LINE_RULES`; a table whose caption is a non-GAAP reconciliation, a segment table or an
  outlook is never read;
- **values**: the table's scale header (`common.numbers.header_exponent`, the one scale-word
  table) multiplies amounts, never per-share figures; a table without a scale statement yields
  no amounts (a wrong scale is worse than no number); parentheses are negatives.

Each observation is `source_kind = "press_release"` (unaudited), cites its table or sentence
chunk, records the row label or the sentence as its `mapping_rule`, and carries the fiscal label
of the company's calendar: the filing's fiscal year end when known, else the one the release
implies (its year-to-date column starts the fiscal year; "third quarter of fiscal 2024" names
it). When the 10-Q or 10-K for the period arrives, its XBRL value supersedes the release's
(`supersession`, reason `press_release_final`, any difference spelled out).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl

from graphrag_core.common.numbers import header_exponent
from graphrag_core.tables.schemas import METRIC_OBSERVATIONS, empty, frame
from graphrag_core.text.markdown_tables import MarkdownTable, parse_markdown_table
from graphrag_core.xbrl.derived import derive_gross_profit, drop_non_finite
from graphrag_core.xbrl.metrics import (
    FilingInfo,
    MetricExtraction,
    observation_id,
    observations_from_facts,
    sort_observations,
)
from graphrag_core.xbrl.periods import FiscalCalendar, FiscalCalendarError, FiscalPeriod
from graphrag_core.xbrl.release_periods import (
    FISCAL_YEAR_RE,
    Span,
    column_spans,
    find_date,
    length_of,
    quarter_number,
)
from graphrag_core.xbrl.release_prose import read_sentences
from graphrag_core.xbrl.release_reading import Found, ReleaseReading

RELEASE_SECTION_RE = re.compile(r"Exhibit 99(?:\.\d+)?$")
# Tables that restate, adjust or forecast figures: never a source of reported values.
SKIP_TABLE_RE = re.compile(
    r"non-?gaap|reconciliation|outlook|guidance|forecast|segment|adjusted|pro\s+forma", re.I
)

FLOW = "duration"
BALANCE = "instant"


@dataclass(frozen=True, slots=True)
class LineRule:
    metric: str
    period_type: str
    per_share: bool
    label: re.Pattern[str]
    context: re.Pattern[str] | None = None  # the section header the row must sit under
    absolute: bool = False  # capex: an outflow shown in parentheses is still a positive capex


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


# Row label (normalized: lower case, footnote marks and trailing colons removed) → metric.
LINE_RULES: tuple[LineRule, ...] = (
    LineRule(
        "revenue",
        FLOW,
        False,
        _re(r"^(?:total\s+)?(?:net\s+)?(?:revenues?|sales)(?:,?\s+net\b.*)?$"),
    ),
    LineRule(
        "cost_of_revenue",
        FLOW,
        False,
        _re(
            r"^(?:total\s+)?cost\s+of\s+(?:revenues?|sales|goods\s+sold|products\s+sold)\b(?!.*\bexcluding\b)"
        ),
    ),
    LineRule("gross_profit", FLOW, False, _re(r"^gross\s+(?:profit|margin)$")),
    LineRule(
        "operating_income",
        FLOW,
        False,
        _re(
            r"^(?:total\s+)?(?:operating\s+income|income\s+from\s+operations|operating\s+(?:income\s+)?\(loss\)|operating\s+income\s+\(loss\)|income\s+\(loss\)\s+from\s+operations)$"
        ),
    ),
    LineRule(
        "net_income",
        FLOW,
        False,
        _re(
            r"^net\s+(?:income|earnings|loss|income\s+\(loss\)|\(loss\)\s+income)(?:\s+attributable\s+to\s+(?!non-?controlling).*)?$"
        ),
    ),
    LineRule(
        "eps_diluted", FLOW, True, _re(r"^diluted$"), _re(r"per\s+(?:common\s+)?share|\beps\b")
    ),
    LineRule(
        "eps_diluted",
        FLOW,
        True,
        _re(
            r"^(?:basic\s+and\s+)?diluted\s+(?:net\s+)?(?:income|earnings|loss|income\s+\(loss\))\s+per\s+(?:common\s+)?share$|^(?:net\s+)?(?:income|earnings)\s+per\s+(?:common\s+)?share\W+diluted$|^diluted\s+eps$"
        ),
    ),
    LineRule("total_assets", BALANCE, False, _re(r"^total\s+assets$")),
    LineRule("total_liabilities", BALANCE, False, _re(r"^total\s+liabilities$")),
    LineRule(
        "stockholders_equity",
        BALANCE,
        False,
        _re(
            r"^total\s+(?:[\w.&'’-]+\s+){0,3}?(?:stockholders|shareholders)['’]?\s+equity(?:\s+\(deficit\))?$"
        ),
    ),
    LineRule("cash_and_equivalents", BALANCE, False, _re(r"^cash\s+and\s+cash\s+equivalents$")),
    LineRule(
        "operating_cash_flow",
        FLOW,
        False,
        _re(
            r"^net\s+cash\s+(?:provided\s+by|from|provided\s+by\s+\(used\s+in\)|\(used\s+in\)\s+provided\s+by|used\s+in)\s+operating\s+activities$"
        ),
    ),
    LineRule(
        "capex",
        FLOW,
        False,
        _re(
            r"^(?:purchases?\s+(?:of|related\s+to)|payments?\s+for|acquisitions?\s+of|additions?\s+to|investments?\s+in)\s+property,?\s+(?:plant,?\s+)?(?:and\s+)?equipment\b.*$|^capital\s+expenditures$"
        ),
        absolute=True,
    ),
)

_FOOTNOTE_RE = re.compile(r"\s*\((?:\d|[a-z]|\*)\)|\*+|\s*\[\d\]")
_VALUE_RE = re.compile(r"^\$?\s*(\()?\s*\$?\s*(-|–|—)?\s*(\d[\d,]*(?:\.\d+)?)\s*(\))?$")
_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}


def normalize_label(label: str) -> str:
    text = _FOOTNOTE_RE.sub("", label).strip().rstrip(":").strip()
    return re.sub(r"\s+", " ", text.replace("’", "'")).lower()


def parse_value(cell: str) -> float | None:
    """'$293,618' → 293618; '(365,241)' → -365241; '$(0.42)' → -0.42; '—', '72.4%' → None."""
    text = cell.strip().replace("\u00a0", " ")
    m = _VALUE_RE.match(text)
    if not m:
        return None
    value = float(m.group(3).replace(",", ""))
    negative = (m.group(1) and m.group(4)) or m.group(2)
    return -value if negative else value


def _currency(table: MarkdownTable) -> str:
    cells = " ".join(c for row in (*table.header, *table.body) for c in row[1:])
    for sign, code in _CURRENCY.items():
        if sign in cells:
            return code
    return "USD"


def _row_match(label: str, context: str) -> LineRule | None:
    for rule in LINE_RULES:
        if rule.label.search(label) and (rule.context is None or rule.context.search(context)):
            return rule
    return None


def read_table(chunk_id: str, text: str, scale_header: str | None, reading: ReleaseReading) -> None:
    """The metrics one release table states, per column period."""
    table = parse_markdown_table(text)
    if table is None or not table.body:
        return
    heading = " ".join([table.caption, *(" ".join(r) for r in table.header)])
    if SKIP_TABLE_RE.search(heading):
        return
    spans = column_spans(table.header)
    if not spans:
        return
    reading.spans.extend(spans.values())
    exponent = header_exponent(scale_header) if scale_header else header_exponent(table.caption)
    unit = _currency(table)
    context = ""
    chosen: dict[
        str, tuple[int, int, list[str], LineRule]
    ] = {}  # metric → (rank, row, cells, rule)
    for index, row in enumerate(table.body):
        label = normalize_label(row[0] if row else "")
        values = [parse_value(c) for c in row[1:]]
        if not any(v is not None for v in values):
            if label:
                context = label  # "EARNINGS PER SHARE:", "OPERATING EXPENSES:"
            continue
        if any("%" in c for c in row[1:]):
            continue  # a margin or a growth rate, not an amount
        rule = _row_match(label, context)
        if rule is None:
            continue
        rank = 0 if label.startswith("total") else 1
        if rule.metric not in chosen or rank < chosen[rule.metric][0]:
            chosen[rule.metric] = (rank, index, row, rule)
    unscaled = False
    for metric, (_, _, row, rule) in chosen.items():
        if not rule.per_share and exponent is None:
            unscaled = True
            continue
        for col, span in spans.items():
            if col >= len(row) or (span.is_instant != (rule.period_type == BALANCE)):
                continue
            value = parse_value(row[col])
            if value is None:
                continue
            if rule.absolute:
                value = abs(value)
            scaled = value if rule.per_share else value * 10 ** (exponent or 0)
            reading.add(
                Found(
                    metric=metric,
                    value=round(scaled, 6),
                    unit=f"{unit}/shares" if rule.per_share else unit,
                    span=span,
                    chunk_id=chunk_id,
                    rule=f"release table row '{row[0]}' ({_column_heading(table, col)})",
                    from_table=True,
                )
            )
    if unscaled:
        reading.unscaled_tables += 1
        reading.warnings.append(
            f"chunk {chunk_id}: a release table states no scale (no 'in thousands/millions' "
            "header), so its amounts are not read. Fix: none; its per-share figures still are"
        )


def _column_heading(table: MarkdownTable, col: int) -> str:
    parts = []
    for row in table.header:
        cell = row[col].strip() if col < len(row) else ""
        if not cell:
            # a spanning heading is rendered once, then empty cells: take the nearest to the left
            cell = next(
                (row[k].strip() for k in range(min(col, len(row) - 1), 0, -1) if row[k].strip()), ""
            )
        if cell and cell not in parts:
            parts.append(cell)
    return " ".join(parts)


# ---------------------------------------------------------------------------------------------
# the release's fiscal calendar


def _calendar_from_spans(spans: Iterable[Span]) -> str | None:
    """A year-to-date column (6, 9 or 12 months) ending with a quarter column starts the fiscal
    year: the day before is the fiscal year end ('--02-03')."""
    durations = [s for s in spans if not s.is_instant]
    quarter_ends = {s.end for s in durations if 84 <= s.days <= 98}
    for s in sorted(durations, key=lambda s: -s.days):
        if s.days >= 175 and s.end in quarter_ends and s.start is not None:
            fye = s.start - dt.timedelta(days=1)
            return f"--{fye.month:02d}-{fye.day:02d}"
    return None


def release_calendar(filing: FilingInfo, spans: list[Span], text: str) -> FiscalCalendar | None:
    """The company's calendar as the release (or the filing's metadata) states it."""
    durations = sorted((s for s in spans if not s.is_instant), key=lambda s: (s.end, -s.days))
    quarters = [s for s in durations if 84 <= s.days <= 98]
    years = [s for s in durations if s.days >= 357]
    current = quarters[-1] if quarters else (years[-1] if years else None)
    fye = filing.fiscal_year_end or _calendar_from_spans(spans)
    focus_year: int | None = None
    focus_period: str | None = None
    if (q := quarter_number(text)) is not None:
        focus_period, focus_year = f"Q{q[0]}", q[1]
    elif (m := FISCAL_YEAR_RE.search(text)) is not None:
        focus_period, focus_year = "FY", int(m.group("year"))
    end = current.end if current else None
    if end is None:
        phrase = re.search(
            r"(?:quarter|year|period)\s+ended\s+([A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4})", text
        )
        end = find_date(phrase.group(1)) if phrase else None
        if phrase and fye is None and length_of(phrase.group()) == (12, "months"):
            fye = f"--{end.month:02d}-{end.day:02d}" if end else None
    if fye is None and end is not None and focus_period == "FY":
        fye = f"--{end.month:02d}-{end.day:02d}"
    try:
        form = "10-K" if focus_period == "FY" else "10-Q"
        return FiscalCalendar.from_filing(fye, focus_year, end, form, focus_period)
    except FiscalCalendarError:
        return None


def _label(calendar: FiscalCalendar | None, span: Span) -> FiscalPeriod:
    dates = span.end.isoformat() if span.start is None else f"{span.start}..{span.end}"
    if calendar is None:
        return FiscalPeriod(dates, None, None)
    return (
        calendar.instant(span.end)
        if span.start is None
        else calendar.duration(span.start, span.end)
    )


# ---------------------------------------------------------------------------------------------
# release → observations


def release_chunks(chunks: pl.DataFrame) -> pl.DataFrame:
    """The chunks of a filing's EX-99 exhibits, in document order."""
    if chunks.is_empty():
        return chunks
    return chunks.filter(pl.col("section").str.contains(RELEASE_SECTION_RE.pattern)).sort(
        "char_start"
    )


def read_release(
    chunks: pl.DataFrame, filing: FilingInfo
) -> tuple[ReleaseReading, FiscalCalendar | None]:
    """Every figure the filing's EX-99 tables and sentences state, and the calendar they imply."""
    reading = ReleaseReading()
    exhibit = release_chunks(chunks)
    if exhibit.is_empty():
        return reading, None
    for row in exhibit.filter(pl.col("kind") == "table").iter_rows(named=True):
        read_table(row["chunk_id"], row["text"], row["scale_header"], reading)
    prose = exhibit.filter(pl.col("kind") != "table")
    text = "\n".join(prose["text"].to_list())
    calendar = release_calendar(filing, reading.spans, text)
    read_sentences(prose, reading, calendar)
    return reading, calendar


def _resolve(found: list[Found], reading: ReleaseReading) -> list[Found]:
    """One figure per metric, period and unit: a table's over a sentence's; two tables (or two
    sentences) that disagree yield nothing for it, and the conflict is counted."""
    groups: dict[tuple, list[Found]] = {}
    for f in found:
        groups.setdefault((f.metric, f.span.start, f.span.end, f.unit), []).append(f)
    out = []
    for key, items in groups.items():
        tables = [f for f in items if f.from_table]
        pool = tables or items
        values = {f.value for f in pool}
        if len(values) > 1:
            reading.conflicts += 1
            reading.warnings.append(
                f"release figures disagree for {key[0]} {key[1]}..{key[2]}: "
                f"{sorted(values)} ({'; '.join(f.rule for f in pool)[:300]}); none is kept"
            )
            continue
        out.append(pool[0])
    return out


def observations_from_release(chunks: pl.DataFrame, filing: FilingInfo) -> MetricExtraction:
    """The metrics an 8-K's earnings release (its EX-99 exhibits) states, as press-release
    observations with fiscal labels, plus gross profit where the release has revenue and cost
    of revenue but no gross-profit line."""
    out = MetricExtraction(observations=empty(METRIC_OBSERVATIONS))
    reading, calendar = read_release(chunks, filing)
    found = _resolve(reading.found, reading)
    out.skipped["release_unscaled_table"] = reading.unscaled_tables
    out.skipped["release_conflict"] = reading.conflicts
    out.skipped["non_finite_value"] = reading.non_finite
    out.warnings.extend(reading.warnings)
    if not found:
        return out
    if calendar is None:
        out.warnings.append(
            f"filing {filing.filing_id}: the release's fiscal calendar is unknown (no fiscal year "
            "end, no year-to-date column); its figures carry dates, not fiscal labels"
        )
    rows: list[dict] = []
    for f in found:
        period = _label(calendar, f.span)
        period_type = BALANCE if f.span.is_instant else FLOW
        start = f.span.start or f.span.end
        rows.append(
            {
                "observation_id": observation_id(
                    filing.filing_id, filing.cik, f.metric, period_type, start, f.span.end, f.unit
                ),
                "cik": filing.cik,
                "metric": f.metric,
                "value": f.value,
                "unit": f.unit,
                "fiscal_label": period.label,
                "fiscal_year": period.fiscal_year,
                "fiscal_period": period.fiscal_period,
                "period_type": period_type,
                "calendar_start": start,
                "calendar_end": f.span.end,
                "filing_id": filing.filing_id,
                "form": filing.form,
                "filed_date": filing.filed_date,
                "fact_id": None,
                "fact_ids": [],
                "concept": None,
                "chunk_id": f.chunk_id,
                "superseded_by": None,
                "restated": None,
                "source_kind": "press_release",
                "derived": False,
                "derivation": None,
                "derived_from": [],
                "mapping_rule": f.rule,
                "recast_evidence": None,
                "shares_basis": None,
                "supersede_reason": None,
                "supersede_detail": None,
            }
        )
    reported = frame(rows, METRIC_OBSERVATIONS)
    out.observations = sort_observations(pl.concat([reported, derive_gross_profit(reported)]))
    return out


def observations_for_filing(
    facts: pl.DataFrame, chunks: pl.DataFrame | None, filing: FilingInfo
) -> MetricExtraction:
    """Everything a filing reports: its XBRL facts' metrics, and its earnings release's (EX-99)
    figures for any metric and period the XBRL does not give (the 8-K cover page's XBRL never
    does; a 10-K's own statements always win)."""
    xbrl = observations_from_facts(facts, filing)
    if chunks is not None and not chunks.is_empty() and not release_chunks(chunks).is_empty():
        release = observations_from_release(chunks, filing)
        for reason in ("release_unscaled_table", "release_conflict", "non_finite_value"):
            xbrl.skipped[reason] += release.skipped.get(reason, 0)
        xbrl.warnings.extend(release.warnings)
        if release.observations.height:
            fresh = release.observations.join(
                xbrl.observations.select("observation_id"), on="observation_id", how="anti"
            )
            xbrl.observations = sort_observations(pl.concat([xbrl.observations, fresh]))
    # Facts and release figures are checked where they are read; what derivations made of
    # them (gross profit = revenue − cost) is checked here, before the partition is written.
    xbrl.observations, dropped = drop_non_finite(xbrl.observations)
    xbrl.skipped["non_finite_value"] += len(dropped)
    xbrl.warnings.extend(f"{line}. Fix: check the operands it derives from" for line in dropped)
    return xbrl
