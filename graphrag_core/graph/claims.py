"""What one filing claims, before resolution: its accepted triples, one row per quote, and its
metric observations (REPORTS_METRIC, from XBRL only). Claims keep the subject and object exactly
as the filing wrote them; resolution maps those texts to entities, and the knowledge graph
joins the two."""

from __future__ import annotations

import polars as pl

from graphrag_core.common.ids import content_hash
from graphrag_core.common.numbers import stated_bound
from graphrag_core.graph import ontology
from graphrag_core.graph.resolution import mention_key
from graphrag_core.tables.schemas import CLAIMS, conform, empty


def filing_label(fiscal_year: int | None, fiscal_period: str | None) -> str | None:
    """The fiscal label of a filing's own period: 2025, 'FY' → 'FY2025'; 2026, 'Q2' →
    'Q2-FY2026'."""
    if not fiscal_year or not fiscal_period:
        return None
    period = fiscal_period.upper()
    return f"FY{fiscal_year}" if period == "FY" else f"{period}-FY{fiscal_year}"


def _with_ids(rows: pl.DataFrame) -> pl.DataFrame:
    """Each claim's subject and object mention keys and its claim id, hashed in one pass over
    the filing's rows (a mention's key once however often it recurs): a Polars `map_elements`
    inspects the mapped function's bytecode on every call, and a distinct-then-join per key
    column cost a few Polars passes more than the hashing itself."""
    keys: dict[tuple[str, str | None, str | None], str] = {}

    def key(role: str, text: str | None, filer: str | None) -> str:
        found = keys.get((role, text, filer))
        if found is None:
            found = keys[(role, text, filer)] = mention_key(role, text or "", filer)
        return found

    subjects, objects, claim_ids = [], [], []
    for s_role, s_text, o_role, o_text, filer, triple, chunk, start, end in rows.select(
        "subject_role",
        "subject_text",
        "object_role",
        "object_text",
        "filer_id",
        "triple_id",
        "chunk_id",
        "char_start",
        "char_end",
    ).iter_rows():
        subjects.append(key(s_role, s_text, filer))
        objects.append(key(o_role, o_text, filer))
        claim_ids.append(content_hash(triple, chunk, start, end, length=24))
    return rows.with_columns(
        pl.Series("subject_key", subjects, dtype=pl.String),
        pl.Series("object_key", objects, dtype=pl.String),
        pl.Series("claim_id", claim_ids, dtype=pl.String),
    )


def text_claims(validated: pl.DataFrame, filer_id: str | None) -> pl.DataFrame:
    """Accepted `validated_triples` rows of one filing → one claim per evidence span (quotes
    whose span was not found cite nothing and are left out, as in the snapshot)."""
    accepted = validated.filter(pl.col("status") == "accepted")
    if accepted.is_empty():
        return empty(CLAIMS)
    rows = (
        accepted.select(
            "triple_id",
            "filing_id",
            "relation",
            "subject",
            "object",
            "value",
            "unit",
            "period",
            "adjustment",
            "evidence",
            "value_low",
            "value_high",
            "method",
            "confidence",
        )
        .explode("evidence")
        .drop_nulls("evidence")
        .unnest("evidence")
        .filter(pl.col("char_start").is_not_null())
        .unique(["triple_id", "chunk_id", "char_start", "char_end"], maintain_order=True)
        .with_columns(
            filer_id=pl.lit(filer_id, pl.String),
            source=pl.lit("text"),
            subject_text=pl.col("subject").str.strip_chars(),
            object_text=pl.col("object").str.strip_chars(),
            subject_role=pl.lit(ontology.PARTY),
            object_role=pl.col("relation").replace_strict(
                ontology.OBJECT_ROLE, default=ontology.PARTY, return_dtype=pl.String
            ),
            period_type=pl.lit(None, pl.String),
            calendar_start=pl.lit(None, pl.Date),
            calendar_end=pl.lit(None, pl.Date),
            observation_id=pl.lit(None, pl.String),
            fact_id=pl.lit(None, pl.String),
            concept=pl.lit(None, pl.String),
        )
    )
    if rows.is_empty():
        return empty(CLAIMS)
    return conform(_with_ids(_with_bounds(rows)), CLAIMS)


def _with_bounds(rows: pl.DataFrame) -> pl.DataFrame:
    """Each quote's single figure as stated: a floor ("exceed $11 billion"), a ceiling ("up to
    1.0%") or neither. A range already carries both ends, so it has no bound."""
    bounds = [
        stated_bound(quote, value) if value is not None and low is None and high is None else None
        for quote, value, low, high in rows.select(
            "quote", "value", "value_low", "value_high"
        ).iter_rows()
    ]
    return rows.with_columns(pl.Series("bound", bounds, dtype=pl.String))


def xbrl_claims(observations: pl.DataFrame, filer_id: str | None) -> pl.DataFrame:
    """`metric_observations` rows of one filing → REPORTS_METRIC claims: the company and the
    metric are known ids (no text to resolve), the period is the observation's fiscal label and
    calendar range, the evidence is the fact and the chunk that displays it."""
    if observations.is_empty():
        return empty(CLAIMS)
    # A derived value (Q4 = FY − 9M, gross profit = revenue − cost) was stated by no filing: it
    # stays in metric_values with its cited operands, while a graph edge cites what was written.
    stated = pl.col("derived").is_null() | ~pl.col("derived")
    rows = observations.filter(pl.col("cik").is_not_null() & stated).with_columns(
        claim_id=pl.col("observation_id"),
        filer_id=pl.lit(filer_id, pl.String),
        source=pl.lit("xbrl"),
        relation=pl.lit("REPORTS_METRIC"),
        subject_key=pl.lit("id:CIK-") + pl.col("cik"),
        subject_text=pl.lit("CIK-") + pl.col("cik"),
        subject_role=pl.lit("id"),
        object_key=pl.lit("id:METRIC:") + pl.col("metric"),
        object_text=pl.col("metric"),
        object_role=pl.lit("id"),
        period=pl.col("fiscal_label"),
        quote=pl.lit(None, pl.String),
        char_start=pl.lit(None, pl.Int64),
        char_end=pl.lit(None, pl.Int64),
        adjustment=pl.lit(None, pl.String),
        triple_id=pl.lit(None, pl.String),
        value_low=pl.lit(None, pl.Float64),
        value_high=pl.lit(None, pl.Float64),
        bound=pl.lit(None, pl.String),
        method=pl.lit(None, pl.String),
        confidence=pl.lit(None, pl.Float64),
    )
    return conform(rows, CLAIMS)


def filing_claims(
    validated: pl.DataFrame, observations: pl.DataFrame, filer_id: str | None
) -> pl.DataFrame:
    frames = [
        f
        for f in (text_claims(validated, filer_id), xbrl_claims(observations, filer_id))
        if f.height
    ]
    if not frames:
        return empty(CLAIMS)
    return pl.concat(frames).sort("claim_id")
