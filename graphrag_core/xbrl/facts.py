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

import re
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import polars as pl

from graphrag_core.common.ids import content_hash, normalize_cik
from graphrag_core.common.numbers import SCALE_MAX, SCALE_MIN, finite_float, xbrl_scale
from graphrag_core.tables.schemas import XBRL_FACTS, empty
from graphrag_core.text.documents import decode_document
from graphrag_core.xbrl.arelle_loader import XbrlDocument, arelle, loadable_path
from graphrag_core.xbrl.contexts import Context, read_context, read_unit
from graphrag_core.xbrl.fact_citations import attach_chunks
from graphrag_core.xbrl.fact_duplicates import RAW_FACT_SCHEMA, collapse_duplicates
from graphrag_core.xbrl.namespaces import bind_undeclared_prefixes

# Why a fact was skipped. Every reason is always present in the counters (zeros included) so the
# asset metadata has a stable shape across partitions.
SKIP_REASONS: tuple[str, ...] = (
    "missing_context",  # contextRef names no context in the document
    "malformed_context",  # a context without a usable period (unparsable date, end before start)
    "unsupported_period",  # xbrli:forever: legal XBRL, but no period to label
    # a numeric fact whose unitRef is absent, undeclared or has an undeclared measure
    "unknown_unit",
    "non_numeric_value",  # a numeric fact whose displayed text is not a number under its format
    "non_finite_value",  # NaN, ±Infinity, or a figure beyond a float's range once scaled
    "scale_out_of_range",  # a scale that is not an integer within numbers.SCALE_MIN..SCALE_MAX
    "unsupported_format",  # an ix transform neither arelle nor this module implements
    "undeclared_prefix",  # named with a non-standard prefix the document never declares
)

# What the data engineer can do about each reason (the warning names file, fact and field).
SKIP_FIXES: dict[str, str] = {
    "missing_context": "the filing references a context it never declares; re-fetch it or report "
    "it to the "
    "filer",
    "malformed_context": "the context's period is not a valid date range; re-fetch the filing, "
    "else its facts "
    "stay out",
    "unsupported_period": "forever-period facts carry no period to label; nothing to fix unless "
    "they are needed",
    "unknown_unit": "declare the unit (or the measure's namespace prefix) — usually a lossy copy "
    "of the "
    "filing; re-fetch it from EDGAR",
    "non_numeric_value": "the displayed text is not a number under its format; re-fetch, else the "
    "fact stays out",
    "non_finite_value": "the figure is not a finite number (NaN, Infinity, or too large for a "
    "float); re-fetch "
    "the filing from EDGAR, else the fact stays out",
    "scale_out_of_range": f"filers scale figures by 10^{SCALE_MIN}..10^{SCALE_MAX}; a scale "
    "outside that is a "
    "broken copy: re-fetch the filing from EDGAR, else the fact stays out",
    "unsupported_format": "implement the transform in "
    "graphrag_core.xbrl.sec_transforms.SEC_TRANSFORMS or load "
    "arelle's EDGAR plugin",
    "undeclared_prefix": "a company prefix has no well-known namespace; re-fetch the original "
    "filing from EDGAR, "
    "which declares it",
}

_TEXT_CAP = 2000  # value_text / normalized of non-numeric facts; longer ones are prose, not values
_DEI_FISCAL = (
    "dei:CurrentFiscalYearEndDate",
    "dei:DocumentFiscalYearFocus",
    "dei:DocumentFiscalPeriodFocus",
    "dei:DocumentPeriodEndDate",
    "dei:DocumentType",
    "dei:EntityCentralIndexKey",
)
_WS_RE = re.compile(r"\s+")


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


def fact_id(filing_id: str, concept: str, ctx: Context, unit: str | None) -> str:
    """Stable across runs and re-renderings: the fact's meaning, not its position or its ids."""
    start = ctx.start.isoformat() if ctx.start else ""
    key = content_hash(
        filing_id, concept, ctx.period_type, start, ctx.end.isoformat(), ctx.dimensions, unit or ""
    )
    return f"{filing_id}:{key}"


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


_XHTML = "{http://www.w3.org/1999/xhtml}"
_XHTML_TABLE = _XHTML + "table"
_XHTML_ROW = _XHTML + "tr"
_XHTML_CELLS = (_XHTML + "td", _XHTML + "th")
_IX_FACT_TAGS = ("nonFraction", "nonNumeric", "fraction")
_LABEL_CAP = 200
# A cell that is only a number, a currency sign or punctuation is a value, never a row label.
_NOT_LABEL_RE = re.compile(r"^[\s$€£¥%()\[\]\-–—.,:;*\d]*$")


@dataclass(frozen=True, slots=True)
class TablePlace:
    """Where an inline fact is displayed: the innermost HTML table, its row, the row's label."""

    table: int  # ordinal of the table in document order
    row: int | None  # ordinal of the row inside that table
    label: str | None  # text of the row's first non-numeric cell ("Total revenue")


def _row_label(row: Any) -> str | None:
    for cell in row.iterchildren(*_XHTML_CELLS):
        text = _WS_RE.sub(" ", "".join(cell.itertext())).strip()
        if text and not _NOT_LABEL_RE.match(text):
            return text[:_LABEL_CAP]
    return None


def _table_places(model: Any) -> dict[str, TablePlace]:
    """Inline id → the innermost HTML table that displays it (document order), its row and the
    row's label.

    Lines of one financial statement are disjoint amounts; knowing which facts share a table is
    what lets `metrics` add balance-sheet lines without double counting, and a line's label and
    position (after the operating total, before the investing total) is what lets it map a
    company's own concept to a canonical metric."""
    root = model.modelDocument.xmlRootElement
    places: dict[str, TablePlace] = {}
    for ordinal, table in enumerate(root.iter(_XHTML_TABLE)):
        row_index = -1
        for row in table.iter(_XHTML_ROW):
            row_index += 1
            labelled, label = False, None  # the label is read once per row, when a fact is in it
            for element in row.iter():
                tag = element.tag
                if isinstance(tag, str) and tag.rsplit("}", 1)[-1] in _IX_FACT_TAGS:
                    inline_id = element.get("id")
                    if inline_id:
                        if not labelled:
                            labelled, label = True, _row_label(row)
                        # nested tables come later: innermost wins
                        places[inline_id] = TablePlace(ordinal, row_index, label)
    return places


def _fact_rows(
    model: Any, filing_id: str, cik: str | None, source: str, out: FactExtraction
) -> list[dict]:
    from arelle.ModelValue import INVALIDixVALUE

    tables = _table_places(model)
    contexts: dict[str, Context | str] = {}
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
            contexts[context_id] = "missing_context" if ctx_obj is None else read_context(ctx_obj)
        ctx = contexts[context_id]
        if isinstance(ctx, str):
            out._skip(ctx, f"{where} contextRef={context_id!r}")
            continue
        numeric = local != "nonNumeric"
        unit = None
        value: float | None = None
        normalized: str | None
        if numeric:
            unit = read_unit(fact.unit) if fact.unitID else None
            if unit is None:
                out._skip("unknown_unit", f"{where} unitRef={fact.unitID!r}")
                continue
            fmt = fact.format
            # arelle multiplies by any scale it is given (400 → +inf, -400 → 0.0, '1e3' → +inf):
            # the scale is checked before the value is read.
            if not fact.isNil and xbrl_scale(fact.get("scale")) is None:
                out._skip(
                    "scale_out_of_range",
                    f"{where} contextRef={context_id!r} scale={fact.get('scale')!r}",
                )
                continue
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
                    exact = (
                        Decimal(normalized)
                        if normalized is not None and normalized != INVALIDixVALUE
                        else None
                    )
                except (InvalidOperation, TypeError, ValueError):
                    exact = None
                if exact is None:
                    out._skip(
                        "non_numeric_value", f"{where} text={_displayed(fact)[:40]!r} format={fmt}"
                    )
                    continue
                value = finite_float(exact)
                if value is None:
                    out._skip(
                        "non_finite_value",
                        f"{where} contextRef={context_id!r} text={_displayed(fact)[:40]!r} "
                        f"scale={fact.get('scale')!r}",
                    )
                    continue
        else:
            try:
                normalized = fact.value
            except Exception:
                normalized = None
            if normalized == INVALIDixVALUE:
                normalized = None  # an unimplemented text transform: the displayed text remains
            normalized = (
                _WS_RE.sub(" ", normalized).strip()[:_TEXT_CAP] if normalized else normalized
            )
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
                **_place_columns(tables.get(fact.get("id"))),
                "source_document": source,
                "_order": order,
            }
        )
    return rows


def _place_columns(place: TablePlace | None) -> dict[str, Any]:
    if place is None:
        return {"_table": None, "table_row": None, "row_label": None}
    return {"_table": place.table, "table_row": place.row, "row_label": place.label}


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


def _repair_prefixes(source: str, markup: str, out: FactExtraction) -> str:
    """The markup with undeclared standard prefixes declared (a lossy copy of a filing), and
    the facts named with undeclared non-standard prefixes counted as skipped."""
    repair = bind_undeclared_prefixes(markup)
    if repair.changed:
        bound = ", ".join(f"{p}: → {ns}" for p, ns in repair.bound.items())
        out.warnings.append(
            f"{source}: inline XBRL uses namespace prefixes it never declares "
            f"({', '.join(repair.bound)}); bound to their well-known namespaces ({bound}) so its "
            "facts can be read. Fix: none needed; re-fetch the filing from EDGAR for an exact copy"
        )
    for prefix, count in repair.unbound.items():
        if count:
            out._skip(
                "undeclared_prefix",
                f"{source}: {count} fact(s) named {prefix}:…, a prefix never declared",
            )
            out.skipped["undeclared_prefix"] += count - 1
    return repair.markup


def extract_facts(
    documents: Iterable[XbrlDocument],
    filing_id: str,
    cik: str | None = None,
    chunks: pl.DataFrame | None = None,
    *,
    bind_prefixes: bool = True,
) -> FactExtraction:
    """The facts of a filing's inline-XBRL documents (others are passed over), duplicates
    collapsed, each cited to the chunk that displays it when `chunks` is given.

    Undeclared standard prefixes are bound before parsing (`namespaces`); `bind_prefixes=False`
    reads a document exactly as it is (what `bench/xbrl.py` compares against). A filing with no
    inline XBRL yields zero facts and a warning; a document arelle cannot parse yields a
    warning naming the document and arelle's first error."""
    out = FactExtraction(facts=empty(XBRL_FACTS))
    cik = normalize_cik(cik)
    loader = arelle()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="graphrag-xbrl-") as tmp_dir:
        for doc in documents:
            decoded = decode_document(doc.data, doc.source)
            if not decoded.is_inline_xbrl:
                continue
            markup = (
                _repair_prefixes(doc.source, decoded.markup, out)
                if bind_prefixes
                else decoded.markup
            )
            path = loadable_path(doc, markup, Path(tmp_dir))
            start = time.perf_counter()
            with loader.load(path) as model:
                out.load_seconds += time.perf_counter() - start
                if model is None or model.modelDocument is None:
                    first = loader.log.first[0] if loader.log.first else "no message"
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
    raw = (
        pl.DataFrame(rows, schema=RAW_FACT_SCHEMA, strict=False) if rows else empty(RAW_FACT_SCHEMA)
    )
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
