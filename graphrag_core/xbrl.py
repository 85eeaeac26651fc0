"""Inline XBRL → one row per fact (concept × context × unit), loaded with arelle, offline.

arelle reads the instance's own facts, contexts and units; no taxonomy is downloaded (the
web cache works offline), so concept types are unknown and a fact is numeric exactly when it
is an `ix:nonFraction`. arelle applies the `format` transform, `scale` and `sign`; SEC's own
transformation registry (`ixt-sec:`) is not part of arelle's core, so the handful of its
transforms that numeric facts use are registered here.

Every fact that cannot be trusted is skipped and counted by reason (`SKIP_REASONS`); the other
facts of the filing still land. The same fact shown twice (same concept, period, dimensions
and unit — the income statement and the MD&A table) collapses into one row that keeps every
inline id; duplicates whose values disagree beyond their stated precision are flagged
`conflict`, keep every distinct value in `conflict_values`, and never feed a metric.

Text blocks (escaped `ix:nonNumeric`, whole notes as HTML) are left out on purpose: their
prose is already in the chunks, and they would make this table mostly HTML.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import re
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import polars as pl

from graphrag_core.documents import decode_document
from graphrag_core.models import normalize_cik
from graphrag_core.tables import XBRL_FACTS, empty

# Why a fact was skipped. Every reason is always present in the counters (zeros included) so the
# asset metadata has a stable shape across partitions.
SKIP_REASONS: tuple[str, ...] = (
    "missing_context",  # contextRef names no context in the document
    "malformed_context",  # a context without a usable period (unparsable date, end before start)
    "unsupported_period",  # xbrli:forever: legal XBRL, but no period to label
    "unknown_unit",  # a numeric fact whose unitRef is absent, undeclared or has an undeclared measure
    "non_numeric_value",  # a numeric fact whose displayed text is not a number under its format
    "unsupported_format",  # an ix transform neither arelle nor this module implements
)

# What the data engineer can do about each reason (the warning names file, fact and field).
SKIP_FIXES: dict[str, str] = {
    "missing_context": "the filing references a context it never declares; re-fetch it or report it to the filer",
    "malformed_context": "the context's period is not a valid date range; re-fetch the filing, else its facts stay out",
    "unsupported_period": "forever-period facts carry no period to label; nothing to fix unless they are needed",
    "unknown_unit": "declare the unit (or the measure's namespace prefix) — usually a lossy copy of the filing; re-fetch it from EDGAR",
    "non_numeric_value": "the displayed text is not a number under its format; re-fetch, else the fact stays out",
    "unsupported_format": "implement the transform in graphrag_core.xbrl._SEC_TRANSFORMS or load arelle's EDGAR plugin",
}

SEC_TRANSFORMS_NS = "http://www.sec.gov/inlineXBRL/transformation/2015-08-31"
_TEXT_CAP = 2000  # value_text / normalized of non-numeric facts; longer ones are prose, not values
_DEI_FISCAL = (
    "dei:CurrentFiscalYearEndDate",
    "dei:DocumentFiscalYearFocus",
    "dei:DocumentFiscalPeriodFocus",
    "dei:DocumentPeriodEndDate",
    "dei:DocumentType",
    "dei:EntityCentralIndexKey",
)
_ISO_DATE_RE = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}:\d{2}))?\s*$")
_WS_RE = re.compile(r"\s+")


# ---------------------------------------------------------------------------------------------
# SEC transforms that arelle's core lacks


_SMALL_NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_MAGNITUDES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}


def sec_numwordsen(text: str) -> str:
    """`ixt-sec:numwordsen`: English number words → digits ("no"/"none" → 0, "twenty-five" → 25).

    Raises ValueError on anything else, which arelle turns into an invalid fact (we count it as
    `non_numeric_value`)."""
    words = [w for w in re.split(r"[\s\-]+", text.strip().lower()) if w and w != "and"]
    if words in (["no"], ["none"]):
        return "0"
    if not words:
        raise ValueError(f"not an English number: {text!r}")
    total = current = 0
    for word in words:
        if word in _SMALL_NUMBERS:
            current += _SMALL_NUMBERS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _MAGNITUDES:
            total += max(current, 1) * _MAGNITUDES[word]
            current = 0
        else:
            raise ValueError(f"not an English number: {text!r}")
    return str(total + current)


def _number(text: str) -> Decimal:
    cleaned = text.strip().replace(",", "")
    try:
        return Decimal(cleaned)
    except InvalidOperation:
        return Decimal(sec_numwordsen(cleaned))


def _duration(years: Decimal = Decimal(0), months: Decimal = Decimal(0), days: Decimal = Decimal(0)) -> str:
    """An xs:duration with fractional years/months carried down (1.5 years → P1Y6M), zero parts
    left out, so `two years` and `2` (duryear) and a plain `P2Y` compare equal."""
    total_months = years * 12 + months
    whole_months = int(total_months)
    days += (total_months - whole_months) * Decimal("30.4375")
    y, m = divmod(whole_months, 12)
    d = days.normalize()
    parts = [f"{y}Y" if y else "", f"{m}M" if m else "", f"{d:f}D" if d else ""]
    text = "".join(parts)
    return f"P{text}" if text else "P0D"


_NUMBER_WORD = "|".join(sorted([*_SMALL_NUMBERS, *_TENS, "hundred", *_MAGNITUDES], key=len, reverse=True))
_DURATION_WORD_RE = re.compile(
    rf"(\d[\d.,]*|(?:{_NUMBER_WORD})(?:[\s-]+(?:{_NUMBER_WORD}))*)\s*(?:\(\d+\)\s*)?(year|month|week|day)s?\b"
)


def sec_durwordsen(text: str) -> str:
    """`ixt-sec:durwordsen`: "two years, six months" / "seven years" / "90 days" → xs:duration."""
    lowered = text.lower().replace(" and ", " ")
    amounts = {"year": Decimal(0), "month": Decimal(0), "day": Decimal(0)}
    found = False
    for m in _DURATION_WORD_RE.finditer(lowered):
        words = m.group(1).strip(" ,")
        value = _number(words)
        unit = m.group(2)
        if unit == "week":
            amounts["day"] += value * 7
        else:
            amounts[unit] += value
        found = True
    if not found:
        raise ValueError(f"not an English duration: {text!r}")
    return _duration(amounts["year"], amounts["month"], amounts["day"])


def _ballot(text: str, checked: str, unchecked: str) -> str:
    value = text.strip()
    if value in {"☒", "x", "X"}:
        return checked
    if value in {"☐", "\u25a1"}:
        return unchecked
    raise ValueError(f"not a ballot box: {text!r}")


_SEC_TRANSFORMS = {
    "numwordsen": sec_numwordsen,
    "boolballotbox": lambda text: _ballot(text, "true", "false"),
    "yesnoballotbox": lambda text: _ballot(text, "Yes", "No"),
    "duryear": lambda text: _duration(years=_number(text)),
    "durmonth": lambda text: _duration(months=_number(text)),
    "durweek": lambda text: _duration(days=_number(text) * 7),
    "durday": lambda text: _duration(days=_number(text)),
    "durwordsen": sec_durwordsen,
}


# ---------------------------------------------------------------------------------------------
# arelle, offline


class _LoadLog(logging.Handler):
    """Keeps the codes and first messages of arelle's errors during one load.

    Without a taxonomy every fact raises `missingReferences`; that one is expected noise."""

    _IGNORED = ("missingReferences",)

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.codes: Counter[str] = Counter()
        self.first: list[str] = []

    def reset(self) -> None:
        self.codes = Counter()
        self.first = []

    def emit(self, record: logging.LogRecord) -> None:
        code = str(getattr(record, "messageCode", "") or "")
        if code.endswith(self._IGNORED):
            return
        self.codes[code] += 1
        if len(self.first) < 5:
            try:
                self.first.append(f"[{code}] {record.getMessage()[:300]}")
            except Exception:  # a message whose arguments do not format is still counted
                self.first.append(f"[{code}]")


class _Arelle:
    """One arelle controller per process; loads are serialized because arelle's model manager
    and the `arelle` logger are shared state."""

    def __init__(self) -> None:
        from arelle import Cntlr
        from arelle.ModelValue import qname

        self.log = _LoadLog()
        # No persistent config: arelle would otherwise write its settings under the user's home.
        self.cntlr = Cntlr.Cntlr(logFileName=None, disable_persistent_config=True)
        self.cntlr.startLogging(logHandler=self.log, logPropagate=False)
        self.cntlr.webCache.workOffline = True
        self.cntlr.modelManager.customTransforms = {
            qname(SEC_TRANSFORMS_NS, name): fn for name, fn in _SEC_TRANSFORMS.items()
        }
        self.lock = threading.Lock()

    @contextmanager
    def load(self, path: Path) -> Iterator[Any]:
        with self.lock:
            self.log.reset()
            model = self.cntlr.modelManager.load(str(path))
            try:
                yield model
            finally:
                if model is not None:
                    model.close()


_ARELLE: _Arelle | None = None
_ARELLE_INIT = threading.Lock()


def _arelle() -> _Arelle:
    global _ARELLE
    with _ARELLE_INIT:
        if _ARELLE is None:
            _ARELLE = _Arelle()
        return _ARELLE


def bare_load_seconds(path: Path | str) -> tuple[float, int]:
    """arelle's own cost for a document: load it offline and count its facts, nothing else.

    The baseline `bench/xbrl.py` compares the whole stage against."""
    arelle = _arelle()
    start = time.perf_counter()
    with arelle.load(Path(path)) as model:
        count = len(model.facts) if model is not None else 0
    return time.perf_counter() - start, count


# ---------------------------------------------------------------------------------------------
# contexts and units


@dataclass(frozen=True, slots=True)
class _Context:
    period_type: str
    start: dt.date | None
    end: dt.date
    dimensions: str  # canonical JSON
    dimension_count: int
    entity: str | None


def _parse_xbrl_date(text: str | None, is_end: bool) -> dt.date | None:
    """An XBRL date; an end/instant written as midnight `T00:00:00` means the previous day."""
    if text is None:
        return None
    m = _ISO_DATE_RE.match(text)
    if m is None:
        return None
    try:
        day = dt.date.fromisoformat(m.group(1))
    except ValueError:
        return None
    if is_end and m.group(2) == "00:00:00":
        day -= dt.timedelta(days=1)
    return day


def _child_text(parent: Any, local_name: str) -> str | None:
    for child in parent.iterchildren():
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag.endswith("}" + local_name):
            return child.text or ""
    return None


def _dimensions(ctx: Any) -> dict[str, str]:
    """Axis → member as written in the context's segment and scenario.

    Read from the XML rather than arelle's resolved QNames: a copy that forgot to declare a
    prefix (`srt:` in one corpus file) makes arelle drop the axis, and two different facts
    would then look like duplicates of each other."""
    dims: dict[str, str] = {}
    for container in (ctx.segment, ctx.scenario):
        if container is None:
            continue
        for member in container.iterchildren():
            tag = member.tag if isinstance(member.tag, str) else ""
            local = tag.rsplit("}", 1)[-1]
            if local not in ("explicitMember", "typedMember"):
                continue
            axis = (member.get("dimension") or "").strip()
            text = "".join(member.itertext()) if local == "typedMember" else (member.text or "")
            dims[axis] = _WS_RE.sub(" ", text).strip()
    return dims


def _context(ctx: Any) -> _Context | str:
    """A parsed context, or the skip reason that makes it unusable."""
    period = ctx.period
    if period is None:
        return "malformed_context"
    if _child_text(period, "forever") is not None:
        return "unsupported_period"
    instant = _child_text(period, "instant")
    if instant is not None:
        day = _parse_xbrl_date(instant, is_end=True)
        if day is None:
            return "malformed_context"
        start, end, period_type = None, day, "instant"
    else:
        start = _parse_xbrl_date(_child_text(period, "startDate"), is_end=False)
        end = _parse_xbrl_date(_child_text(period, "endDate"), is_end=True)
        if start is None or end is None or end < start:
            return "malformed_context"
        period_type = "duration"
    dims = _dimensions(ctx)
    scheme, identifier = ctx.entityIdentifier
    entity = normalize_cik(identifier) if scheme and "sec.gov/cik" in scheme.lower() else None
    return _Context(
        period_type=period_type,
        start=start,
        end=end,
        dimensions=json.dumps(dims, sort_keys=True, separators=(",", ":")),
        dimension_count=len(dims),
        entity=entity,
    )


def _measure(q: Any) -> str | None:
    """`iso4217:USD` → `USD`, `xbrli:shares` → `shares`; extension measures keep their prefix."""
    namespace = q.namespaceURI or ""
    if q.localName == "invalidMeasureQName" or not namespace:
        return None  # arelle's marker for a measure whose prefix is not declared
    if namespace in {"http://www.xbrl.org/2003/iso4217", "http://www.xbrl.org/2003/instance"}:
        return q.localName
    return f"{q.prefix}:{q.localName}" if q.prefix else q.localName


def _unit(unit: Any) -> str | None:
    if unit is None:
        return None
    numerators, denominators = unit.measures
    nums = [_measure(q) for q in numerators]
    dens = [_measure(q) for q in denominators]
    if not nums or any(m is None for m in nums + dens):
        return None
    text = "*".join(nums)  # type: ignore[arg-type]
    return f"{text}/{'*'.join(dens)}" if dens else text  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# facts


@dataclass
class FactExtraction:
    """The facts of one filing and what happened on the way."""

    facts: pl.DataFrame
    elements: int = 0  # ix facts arelle found
    text_blocks: int = 0  # escaped nonNumeric facts left out on purpose
    duplicates_collapsed: int = 0
    conflicts: int = 0
    skipped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SKIP_REASONS, 0))
    skip_examples: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    documents: int = 0  # inline XBRL documents loaded
    load_seconds: float = 0.0  # time inside arelle's load

    def metadata(self) -> dict[str, Any]:
        """Flat figures for a Dagster materialization."""
        meta: dict[str, Any] = {
            "facts": self.facts.height,
            "ix_elements": self.elements,
            "text_blocks_omitted": self.text_blocks,
            "duplicates_collapsed": self.duplicates_collapsed,
            "conflicts": self.conflicts,
            "inline_documents": self.documents,
            "arelle_load_s": round(self.load_seconds, 3),
        }
        meta.update({f"skipped_{reason}": n for reason, n in self.skipped.items()})
        return meta

    def _skip(self, reason: str, example: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        examples = self.skip_examples.setdefault(reason, [])
        if len(examples) < 3:
            examples.append(example)


@dataclass(frozen=True, slots=True)
class XbrlDocument:
    """One document of a filing: its bytes, and its path when arelle may read the file as is."""

    source: str
    data: bytes
    path: Path | None = None


def fact_id(filing_id: str, concept: str, ctx: _Context, unit: str | None) -> str:
    """Stable across runs and re-renderings: the fact's meaning, not its position or its ids."""
    key = "\x1f".join(
        [
            filing_id,
            concept,
            ctx.period_type,
            ctx.start.isoformat() if ctx.start else "",
            ctx.end.isoformat(),
            ctx.dimensions,
            unit or "",
        ]
    )
    return f"{filing_id}:{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def _decimals(fact: Any) -> int | None:
    raw = (fact.get("decimals") or "").strip()
    if not raw or raw.upper() == "INF":
        return None
    try:
        return int(raw)
    except ValueError:
        return None


def _displayed(fact: Any) -> str:
    try:
        return _WS_RE.sub(" ", fact.rawValue).strip()
    except Exception:  # arelle raises on broken continuations; the fact is still usable
        return ""


_XHTML_TABLE = "{http://www.w3.org/1999/xhtml}table"
_IX_FACT_TAGS = ("nonFraction", "nonNumeric", "fraction")


def _table_ordinals(model: Any) -> dict[str, int]:
    """Inline id → ordinal (document order) of the innermost HTML table that displays it.

    Lines of one financial statement are disjoint amounts; knowing which facts share a table is
    what lets `metrics` add balance-sheet lines without double counting."""
    root = model.modelDocument.xmlRootElement
    ordinals: dict[str, int] = {}
    for ordinal, table in enumerate(root.iter(_XHTML_TABLE)):
        for element in table.iter():
            tag = element.tag
            if isinstance(tag, str) and tag.rsplit("}", 1)[-1] in _IX_FACT_TAGS:
                inline_id = element.get("id")
                if inline_id:
                    ordinals[inline_id] = ordinal  # nested tables come later: innermost wins
    return ordinals


def _fact_rows(model: Any, filing_id: str, cik: str | None, source: str, out: FactExtraction) -> list[dict]:
    from arelle.ModelValue import INVALIDixVALUE

    tables = _table_ordinals(model)
    contexts: dict[str, _Context | str] = {}
    rows: list[dict] = []
    for order, fact in enumerate(model.facts):
        local = fact.localName
        if local not in _IX_FACT_TAGS:
            continue  # tuples: SEC filings have none
        out.elements += 1
        concept = str(fact.qname)
        where = f"{source}: {concept} (id={fact.get('id')}, line {fact.sourceline})"
        if local == "nonNumeric" and fact.isEscaped:
            out.text_blocks += 1
            continue
        context_id = fact.contextID
        if context_id not in contexts:
            ctx_obj = model.contexts.get(context_id)
            contexts[context_id] = "missing_context" if ctx_obj is None else _context(ctx_obj)
        ctx = contexts[context_id]
        if isinstance(ctx, str):
            out._skip(ctx, f"{where} contextRef={context_id!r}")
            continue
        numeric = local != "nonNumeric"
        unit = None
        value: float | None = None
        normalized: str | None
        if numeric:
            unit = _unit(fact.unit) if fact.unitID else None
            if unit is None:
                out._skip("unknown_unit", f"{where} unitRef={fact.unitID!r}")
                continue
            fmt = fact.format
            if fact.isNil:
                normalized = None
            else:
                if fmt is not None and not _format_available(model, fmt):
                    out._skip("unsupported_format", f"{where} format={fmt}")
                    continue
                if local == "fraction":
                    # arelle states a fraction's value only once its type is validated against
                    # the taxonomy, which offline never happens; numerator / denominator is it.
                    normalized = _fraction_value(fact)
                else:
                    try:
                        normalized = fact.value
                    except Exception:
                        normalized = INVALIDixVALUE
                try:
                    value = float(Decimal(normalized)) if normalized != INVALIDixVALUE else None
                except (InvalidOperation, TypeError, ValueError):
                    value = None
                if value is None:
                    out._skip("non_numeric_value", f"{where} text={_displayed(fact)[:40]!r} format={fmt}")
                    continue
        else:
            try:
                normalized = fact.value
            except Exception:
                normalized = None
            if normalized == INVALIDixVALUE:
                normalized = None  # an unimplemented text transform: the displayed text remains
            normalized = _WS_RE.sub(" ", normalized).strip()[:_TEXT_CAP] if normalized else normalized
        rows.append(
            {
                "fact_id": fact_id(filing_id, concept, ctx, unit),
                "filing_id": filing_id,
                "cik": cik or ctx.entity,
                "concept": concept,
                "value": value,
                "value_text": _displayed(fact)[:_TEXT_CAP],
                "normalized": normalized,
                "is_numeric": numeric,
                "unit": unit,
                "decimals": _decimals(fact) if numeric else None,
                "period_type": ctx.period_type,
                "period_start": ctx.start,
                "period_end": ctx.end,
                "dimensions": ctx.dimensions,
                "dimension_count": ctx.dimension_count,
                "inline_id": fact.get("id"),
                "_table": tables.get(fact.get("id")),
                "source_document": source,
                "_order": order,
            }
        )
    return rows


def _fraction_value(fact: Any) -> str | None:
    try:
        numerator, denominator = (Decimal(_WS_RE.sub("", part)) for part in fact.fractionValue)
        return str(numerator / denominator)
    except (InvalidOperation, ZeroDivisionError, TypeError, ValueError):
        return None


def _format_available(model: Any, fmt: Any) -> bool:
    from arelle import FunctionIxt

    functions = FunctionIxt.ixtNamespaceFunctions.get(fmt.namespaceURI)
    if functions is not None:
        return fmt.localName in functions
    return fmt in (model.modelManager.customTransforms or {})


_COLLAPSED_ONLY = {"inline_ids", "html_tables", "chunk_id", "duplicate_count", "conflict", "conflict_values"}
_RAW_SCHEMA: dict[str, pl.DataType] = {
    **{k: v for k, v in XBRL_FACTS.items() if k not in _COLLAPSED_ONLY},
    "_table": pl.Int32,
    "_order": pl.Int64,
}


def collapse_duplicates(raw: pl.DataFrame) -> pl.DataFrame:
    """One row per fact_id. The most precise duplicate gives the value; duplicates conflict when
    their values differ once rounded to the coarsest stated precision (XBRL's consistency rule:
    `$130.5 billion` at decimals -8 agrees with `130,497` million at decimals -6)."""
    if raw.is_empty():
        return empty(XBRL_FACTS)
    # Compare at the coarsest precision of the group; INF (null) compares exactly, which in
    # floats means 10 decimal places — more than any reported figure carries.
    coarsest = pl.col("decimals").fill_null(10).min().over("fact_id").clip(upper_bound=10)
    scaled = (
        pl.when(coarsest < 0)
        .then(pl.col("value") / pl.lit(10.0).pow(-coarsest))
        .otherwise(pl.col("value") * pl.lit(10.0).pow(coarsest))
        .round(0)
    )
    # Text facts compare by their transformed value ("two years" and "P2Y" agree); a group in
    # which no transform succeeded compares what is displayed.
    has_normalized = pl.col("normalized").is_not_null().any().over("fact_id")
    comparable = (
        pl.when(pl.col("is_numeric"))
        .then(scaled.cast(pl.String))
        .when(has_normalized)
        .then(pl.col("normalized"))
        .otherwise(pl.col("value_text"))
    )
    ranked = raw.with_columns(
        _cmp=comparable,
        _precision=pl.col("decimals").fill_null(10_000),
    ).sort("_order")
    collapsed = (
        ranked.group_by("fact_id", maintain_order=True)
        .agg(
            pl.all()
            .exclude("_cmp", "_precision", "_table")
            .sort_by("_precision", descending=True, maintain_order=True)
            .first(),
            inline_ids=pl.col("inline_id").drop_nulls(),
            html_tables=pl.col("_table").drop_nulls().unique().sort(),
            first_inline_id=pl.col("inline_id").drop_nulls().first(),
            duplicate_count=pl.len().cast(pl.Int32),
            conflict_values=pl.col("value_text").filter(
                pl.col("_cmp").is_not_null() & pl.col("_cmp").is_first_distinct()
            ),
            _distinct=pl.col("_cmp").drop_nulls().n_unique(),
        )
        .with_columns(
            inline_id=pl.col("first_inline_id"),
            conflict=pl.col("_distinct") > 1,
        )
        .with_columns(
            conflict_values=pl.when(pl.col("conflict")).then(pl.col("conflict_values")).otherwise(pl.lit([], dtype=pl.List(pl.String))),
            chunk_id=pl.lit(None, dtype=pl.String),
        )
        .sort("_order")
    )
    return collapsed.select([pl.col(c).cast(t) for c, t in XBRL_FACTS.items()])


# ---------------------------------------------------------------------------------------------
# facts → the chunks that display them

# Where the primary financial statements live; a fact shown there cites that table first.
FINANCIAL_STATEMENT_SECTIONS = (
    re.compile(r"(^|/)Item 8\b"),  # 10-K: Financial Statements and Supplementary Data
    re.compile(r"(^|/)Item 15\b"),  # 10-K: where NVIDIA and others put the statements (Part IV)
    re.compile(r"Part I/Item 1$"),  # 10-Q: Financial Statements
)


def attach_chunks(facts: pl.DataFrame, chunks: pl.DataFrame) -> pl.DataFrame:
    """Set each fact's `chunk_id`: among the chunks that display any of its inline ids, a table
    chunk first, then one in the financial-statements section, then the earliest in the text.
    A fact shown nowhere (ix:hidden) keeps a null chunk id."""
    if facts.is_empty() or chunks.is_empty():
        return facts
    statement = pl.lit(False)
    for pattern in FINANCIAL_STATEMENT_SECTIONS:
        statement = statement | pl.col("section").fill_null("").str.contains(pattern.pattern)
    displayed = (
        chunks.select("chunk_id", "kind", "section", "char_start", "ix_ids")
        .explode("ix_ids")
        .drop_nulls("ix_ids")
        .rename({"ix_ids": "_ix"})
        .with_columns(
            _rank_kind=pl.when(pl.col("kind") == "table").then(0).otherwise(1),
            _rank_section=pl.when(statement).then(0).otherwise(1),
        )
    )
    best = (
        facts.select("fact_id", "inline_ids")
        .explode("inline_ids")
        .drop_nulls("inline_ids")
        .join(displayed, left_on="inline_ids", right_on="_ix", how="inner")
        .sort(["fact_id", "_rank_kind", "_rank_section", "char_start", "chunk_id"])
        .group_by("fact_id", maintain_order=True)
        .agg(pl.col("chunk_id").first().alias("_chunk"))
    )
    return (
        facts.join(best, on="fact_id", how="left")
        .with_columns(chunk_id=pl.coalesce("_chunk", "chunk_id"))
        .select(facts.columns)
    )


# ---------------------------------------------------------------------------------------------
# documents → facts


def loadable_path(doc: XbrlDocument, markup: str, tmp: Path) -> Path:
    """arelle parses XHTML from a file. The original file is used when it is exactly the decoded
    markup; otherwise (SGML envelope, leading blank line before `<?xml`, another encoding)
    the clean markup goes to a temporary UTF-8 file."""
    clean = markup.lstrip()
    if doc.path is not None and clean is markup:
        try:
            if doc.data.decode("utf-8") == markup:
                return doc.path
        except UnicodeDecodeError:
            pass
    clean = re.sub(
        r"^<\?xml([^>]*?)encoding\s*=\s*[\"'][^\"']*[\"']",
        r'<?xml\1encoding="utf-8"',
        clean,
        count=1,
    )
    name = Path(doc.path.name if doc.path else Path(doc.source).name or "document").stem + ".htm"
    target = tmp / name
    target.write_text(clean, encoding="utf-8")
    return target


def extract_facts(
    documents: Iterable[XbrlDocument],
    filing_id: str,
    cik: str | None = None,
    chunks: pl.DataFrame | None = None,
) -> FactExtraction:
    """The facts of a filing's inline-XBRL documents (others are passed over), duplicates
    collapsed, each cited to the chunk that displays it when `chunks` is given.

    A filing with no inline XBRL yields zero facts and a warning; a document arelle cannot
    parse yields a warning naming the document and arelle's first error."""
    out = FactExtraction(facts=empty(XBRL_FACTS))
    cik = normalize_cik(cik)
    arelle = _arelle()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="graphrag-xbrl-") as tmp_dir:
        for doc in documents:
            decoded = decode_document(doc.data, doc.source)
            if not decoded.is_inline_xbrl:
                continue
            path = loadable_path(doc, decoded.markup, Path(tmp_dir))
            start = time.perf_counter()
            with arelle.load(path) as model:
                out.load_seconds += time.perf_counter() - start
                if model is None or model.modelDocument is None:
                    first = arelle.log.first[0] if arelle.log.first else "no message"
                    out.warnings.append(
                        f"{doc.source}: arelle could not load the inline XBRL ({first}); its facts "
                        "are missing. Fix: check that the document is well-formed XHTML"
                    )
                    continue
                out.documents += 1
                offset = len(rows)
                doc_rows = _fact_rows(model, filing_id, cik, doc.source, out)
                for r in doc_rows:
                    r["_order"] += offset
                rows.extend(doc_rows)
    if out.documents == 0 and not out.warnings:
        out.warnings.append(
            f"filing {filing_id}: no inline XBRL document (plain HTML or text), so it yields no "
            "XBRL facts and no metrics; its numbers can only come from the text"
        )
    for reason, examples in out.skip_examples.items():
        out.warnings.append(
            f"skipped {out.skipped[reason]} fact(s) for {reason}, e.g. {'; '.join(examples)}. "
            f"Fix: {SKIP_FIXES[reason]}"
        )
    raw = pl.DataFrame(rows, schema=_RAW_SCHEMA, strict=False) if rows else empty(_RAW_SCHEMA)
    facts = collapse_duplicates(raw)
    out.duplicates_collapsed = raw.height - facts.height
    out.conflicts = int(facts["conflict"].sum()) if facts.height else 0
    if chunks is not None:
        facts = attach_chunks(facts, chunks)
    out.facts = facts
    return out


def stored_documents(documents: pl.DataFrame, root: Path) -> list[XbrlDocument]:
    """The documents of a filing as raw_filings kept them (`raw_filing_documents` rows, paths
    relative to the data root), primary first; arelle reads them in place when it can."""
    out = []
    for row in documents.select("source", "raw_path").iter_rows(named=True):
        path = root / row["raw_path"]
        out.append(XbrlDocument(row["source"] or str(path), path.read_bytes(), path))
    return out


def extract_facts_from_path(
    path: Path | str, filing_id: str, cik: str | None = None, chunks: pl.DataFrame | None = None
) -> FactExtraction:
    path = Path(path)
    return extract_facts([XbrlDocument(str(path), path.read_bytes(), path)], filing_id, cik, chunks)


# ---------------------------------------------------------------------------------------------
# dei facts the period and metric stages need


def dei_values(facts: pl.DataFrame) -> dict[str, str]:
    """Document and entity information (`dei:`) facts of the filing's own context, normalized:
    `CurrentFiscalYearEndDate` → `--01-26`, `DocumentPeriodEndDate` → `2025-01-26`, …"""
    if facts.is_empty():
        return {}
    rows = (
        facts.filter(pl.col("concept").is_in(_DEI_FISCAL) & (pl.col("dimension_count") == 0))
        .sort("period_end", descending=True, nulls_last=True)
        .group_by("concept", maintain_order=True)
        .agg(pl.coalesce("normalized", "value_text").first())
    )
    return {c.split(":", 1)[1]: v.strip() for c, v in rows.iter_rows() if v}

