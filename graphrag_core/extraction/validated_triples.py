"""The validated_triples table: every extraction judged by the gates, accepted
candidates merged on (subject, relation, object, period) with the union of their evidence,
rejections kept with their reason code; and the rejection summary a run reports."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import polars as pl

from graphrag_core.common.ids import content_hash
from graphrag_core.extraction.gate_types import Candidate, ChunkContext, Reason
from graphrag_core.extraction.gates import Verdict, judge
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.spans import collapse_whitespace
from graphrag_core.extraction.stated_numbers import as_decimal
from graphrag_core.extraction.triples import MalformedItem, parse_output, provenance
from graphrag_core.tables.schemas import VALIDATED_TRIPLES, frame

# -- tables -----------------------------------------------------------------------------------


@dataclass
class _Judged:
    verdict: Verdict
    chunk: ChunkContext
    extraction: dict
    order: tuple
    raw: str = field(default="")
    method: str | None = None
    confidence: float | None = None


def _evidence_entry(j: _Judged) -> dict:
    c = j.verdict.candidate
    if c.span is None:
        return {
            "chunk_id": j.chunk.chunk_id,
            "quote": c.evidence,
            "char_start": None,
            "char_end": None,
        }
    start, end = c.span
    return {
        "chunk_id": j.chunk.chunk_id,
        "quote": j.chunk.text[start:end],
        "char_start": j.chunk.char_start + start,
        "char_end": j.chunk.char_start + end,
    }


def _float(value: float | str | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    d = as_decimal(value) if isinstance(value, str) else None
    return float(d) if d is not None else None


def merge_key(
    subject: str, relation: str, obj: str, period: str | None
) -> tuple[str, str, str, str]:
    """Duplicates are the same (subject, relation, object, period) up to case and spacing."""

    def fold(text: str) -> str:
        return collapse_whitespace(text).casefold()

    return fold(subject), relation, fold(obj), fold(period or "")


def _hash(*parts: object) -> str:
    return content_hash(*parts, length=24)


def _shared(extraction: dict) -> dict:
    return {k: extraction[k] for k in ("backend", "model", "prompt_version")}


def _rejected_row(filing_id: str, j: _Judged) -> dict:
    c, rejection = j.verdict.candidate, j.verdict.rejection
    assert rejection is not None  # only rejected verdicts reach here
    return {
        "triple_id": _hash(filing_id, j.extraction["extraction_id"], j.raw),
        "filing_id": filing_id,
        "status": "rejected",
        "reason": rejection.reason.value,
        "detail": rejection.detail,
        "adjustment": c.adjustment,
        "subject": c.subject,
        "relation": c.relation,
        "object": c.object,
        "proposed_relation": c.proposed_relation,
        "value": _float(c.value),
        "value_low": _float(c.value_low),
        "value_high": _float(c.value_high),
        "unit": c.unit,
        "period": c.period,
        "value_conflict": False,
        "support": 1,
        "evidence": [_evidence_entry(j)],
        "extraction_ids": [j.extraction["extraction_id"]],
        **_shared(j.extraction),
        "method": j.method,
        "confidence": j.confidence,
    }


def _merged_row(filing_id: str, key: tuple, group: list[_Judged]) -> dict:
    group = sorted(group, key=lambda j: j.order)
    first = group[0].verdict.candidate
    values = [v for v in (_float(j.verdict.candidate.value) for j in group) if v is not None]
    evidence: list[dict] = []
    seen: set[tuple] = set()
    for j in group:
        entry = _evidence_entry(j)
        mark = (entry["chunk_id"], entry["char_start"], entry["char_end"])
        if mark not in seen:
            seen.add(mark)
            evidence.append(entry)
    adjustments = sorted({a for j in group if (a := j.verdict.candidate.adjustment)})
    proposed = sorted({j.verdict.candidate.proposed_relation for j in group})
    return {
        "triple_id": _hash(filing_id, *key),
        "filing_id": filing_id,
        "status": "accepted",
        "reason": None,
        "detail": None,
        "adjustment": ",".join(adjustments) or None,
        "subject": first.subject,
        "relation": first.relation,
        "object": first.object,
        "proposed_relation": ",".join(proposed),
        "value": values[0] if values else None,
        "value_low": next(
            (v for j in group if (v := _float(j.verdict.candidate.value_low)) is not None), None
        ),
        "value_high": next(
            (v for j in group if (v := _float(j.verdict.candidate.value_high)) is not None), None
        ),
        "unit": next((j.verdict.candidate.unit for j in group if j.verdict.candidate.unit), None),
        "period": first.period,
        "value_conflict": len(set(values)) > 1,
        "support": len(group),
        "evidence": evidence,
        "extraction_ids": list(dict.fromkeys(j.extraction["extraction_id"] for j in group)),
        **_shared(group[0].extraction),
        "method": ",".join(sorted({j.method for j in group if j.method})) or None,
        "confidence": max(scores)
        if (scores := [j.confidence for j in group if j.confidence is not None])
        else None,
    }


def _malformed_row(
    filing_id: str, extraction: dict, chunk: ChunkContext, item: MalformedItem
) -> dict:
    return {
        "triple_id": _hash(filing_id, extraction["extraction_id"], item.raw),
        "filing_id": filing_id,
        "status": "rejected",
        "reason": Reason.MALFORMED_TRIPLE.value,
        "detail": item.problem,
        "support": 1,
        "value_conflict": False,
        "evidence": [
            {"chunk_id": chunk.chunk_id, "quote": item.raw, "char_start": None, "char_end": None}
        ],
        "extraction_ids": [extraction["extraction_id"]],
        **_shared(extraction),
    }


def chunk_contexts(
    chunks: pl.DataFrame, filer: Filer | None = None, fiscal_year: int | None = None
) -> dict[str, tuple[ChunkContext, tuple]]:
    """chunk id → (its context for the gates, its sort order in the filing)."""
    from graphrag_core.extraction.headings import preceding_headings
    from graphrag_core.extraction.lead_ins import lead_ins

    before = preceding_headings(chunks)
    open_lists = lead_ins(chunks)
    columns = ["chunk_id", "text", "char_start", "scale_header", "ordinal", "section"]
    return {
        row["chunk_id"]: (
            ChunkContext(
                row["chunk_id"],
                row["text"],
                row["char_start"],
                row["scale_header"],
                filer=filer,
                section=row["section"],
                fiscal_year=fiscal_year,
                preceding_heading=before.get(row["chunk_id"]),
                lead_in=open_lists.get(row["chunk_id"]),
            ),
            (row["char_start"], row["ordinal"]),
        )
        for row in chunks.select(columns).iter_rows(named=True)
    }


def validate_extractions(
    extractions: pl.DataFrame,
    chunks: pl.DataFrame,
    filer: Filer | None,
    fiscal_year: int | None = None,
) -> pl.DataFrame:
    """A filing's `extractions` and `section_chunks` → its `validated_triples` table. `filer`
    is who "we" are (grounding, placeholders): without it (None) no "we" can ground a triple, so
    it is a required argument; `fiscal_year` the filing's, so that a later year reads as a future
    period."""
    contexts = chunk_contexts(chunks, filer, fiscal_year)
    rows: list[dict] = []
    accepted: dict[tuple, list[_Judged]] = {}
    for extraction in extractions.filter(pl.col("status") == "ok").iter_rows(named=True):
        chunk_id = extraction["chunk_id"]
        if chunk_id not in contexts:
            raise ValueError(
                f"extraction {extraction['extraction_id']} cites chunk {chunk_id}, which is not in "
                "this filing's section_chunks; re-materialize extractions after section_chunks"
            )
        chunk, chunk_order = contexts[chunk_id]
        filing_id = extraction["filing_id"]
        for index, item in enumerate(parse_output(extraction["raw_output"]).items):
            if isinstance(item, MalformedItem):
                rows.append(_malformed_row(filing_id, extraction, chunk, item))
                continue
            raw = json.dumps(item.model_dump(), sort_keys=True, ensure_ascii=False)
            verdict = judge(Candidate.of(item), chunk)
            span_start = verdict.candidate.span[0] if verdict.candidate.span else -1
            method, confidence = provenance(item, extraction["backend"])
            judged = _Judged(
                verdict,
                chunk,
                extraction,
                (*chunk_order, span_start, index),
                raw,
                method,
                confidence,
            )
            if verdict.accepted:
                c = verdict.candidate
                key = merge_key(c.subject, c.relation, c.object, c.period)
                accepted.setdefault((filing_id, key), []).append(judged)
            else:
                rows.append(_rejected_row(filing_id, judged))
    for (filing_id, key), group in accepted.items():
        rows.append(_merged_row(filing_id, key, group))
    table = frame(rows, VALIDATED_TRIPLES)
    return table.sort(["status", "relation", "subject", "object", "triple_id"], nulls_last=True)


@dataclass(frozen=True)
class RejectionSummary:
    """Candidates, accepted and rejected counts (by reason code), and the rejection rate."""

    candidates: int
    accepted: int
    rejected: int
    rejected_by_reason: dict[str, int]
    rejection_rate: float
    edges: int  # accepted rows: merged duplicates count once


def rejection_summary(validated: pl.DataFrame) -> RejectionSummary:
    """Candidates, accepted and rejected counts (by reason), and the rejection rate."""
    support = pl.col("support").cast(pl.Int64)
    accepted = int(
        validated.filter(pl.col("status") == "accepted").select(support.sum()).item() or 0
    )
    rejected_rows = validated.filter(pl.col("status") == "rejected")
    rejected = int(rejected_rows.select(support.sum()).item() or 0)
    by_reason = {
        r: int(n)
        for r, n in rejected_rows.group_by("reason")
        .agg(support.sum().alias("n"))
        .sort("reason")
        .iter_rows()
    }
    candidates = accepted + rejected
    return RejectionSummary(
        candidates=candidates,
        accepted=accepted,
        rejected=rejected,
        rejected_by_reason=by_reason,
        rejection_rate=(rejected / candidates) if candidates else 0.0,
        edges=int(validated.filter(pl.col("status") == "accepted").height),
    )
