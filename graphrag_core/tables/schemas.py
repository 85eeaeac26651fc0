"""One schema per working table: the contract between stages.

Column names live here once; stages build frames through `empty()` / `frame()` so a typo becomes
a schema error at the boundary instead of a silent null column downstream. Table names are the
names of the assets that own them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import polars as pl

# A column's type as the schemas write it: a Polars type class (`pl.String`) or an instance
# (`pl.List(pl.String)`).
ColumnType = pl.DataType | type[pl.DataType]
Schema = dict[str, ColumnType]

FILINGS: Schema = {
    "filing_id": pl.String,
    "accession": pl.String,
    "cik": pl.String,
    "ticker": pl.String,
    "company": pl.String,
    "form": pl.String,
    "period_end": pl.Date,
    "fiscal_year": pl.Int32,
    "fiscal_period": pl.String,
    "fiscal_year_end": pl.String,
    "filed_date": pl.Date,
    "source": pl.String,
    "sha256": pl.String,
    "bytes": pl.Int64,
    "documents": pl.Int32,
    "is_inline_xbrl": pl.Boolean,
    "meta_sources": pl.String,  # JSON object: field -> where its value came from
    "warnings": pl.List(pl.String),
}

DOCUMENTS: Schema = {
    "filing_id": pl.String,
    "document_type": pl.String,
    "filename": pl.String,
    "source": pl.String,
    "raw_path": pl.String,  # relative to the data root
    "sha256": pl.String,
    "bytes": pl.Int64,
    "encoding": pl.String,
    "is_inline_xbrl": pl.Boolean,
}

CHUNKS: Schema = {
    "chunk_id": pl.String,
    "filing_id": pl.String,
    "document_type": pl.String,
    "section": pl.String,
    "kind": pl.String,  # prose | table | turn | qa
    "ordinal": pl.Int32,  # position within its section
    "text": pl.String,
    "char_start": pl.Int64,
    "char_end": pl.Int64,
    "scale_header": pl.String,
    "token_count": pl.Int32,
    "sha256": pl.String,
    "ix_ids": pl.List(pl.String),  # ids of inline-XBRL facts displayed inside the chunk
}

def empty(schema: Mapping[str, ColumnType]) -> pl.DataFrame:
    return pl.DataFrame(schema=dict(schema))


def frame(rows: Iterable[Mapping], schema: Mapping[str, ColumnType]) -> pl.DataFrame:
    """Rows → a frame with exactly the schema's columns, in its order, with its types."""
    rows = list(rows)
    if not rows:
        return empty(schema)
    unknown = set().union(*(r.keys() for r in rows)) - set(schema)
    if unknown:
        raise ValueError(f"columns not in the schema: {sorted(unknown)}")
    return pl.DataFrame(rows, schema=dict(schema), strict=False).select(list(schema))


def conform(df: pl.DataFrame, schema: Mapping[str, ColumnType]) -> pl.DataFrame:
    missing = [c for c in schema if c not in df.columns]
    if missing:
        raise ValueError(f"frame lacks columns {missing}")
    return df.select([pl.col(c).cast(t) for c, t in schema.items()])


XBRL_FACTS: Schema = {
    "fact_id": pl.String,  # deterministic: hash of filing id + concept + context + unit
    "filing_id": pl.String,
    "cik": pl.String,
    "concept": pl.String,  # QName, e.g. us-gaap:Revenues
    "value": pl.Float64,  # scale and sign applied
    "value_text": pl.String,  # the value as displayed
    "normalized": pl.String,  # the XBRL value after the ix transform: 130497000000, --01-26, 2025-01-26
    "is_numeric": pl.Boolean,  # ix:nonFraction (value set) vs ix:nonNumeric (value null)
    "unit": pl.String,  # e.g. USD, shares, USD/shares
    "decimals": pl.Int32,  # null = INF
    "period_type": pl.String,  # duration | instant
    "period_start": pl.Date,  # null for instants
    "period_end": pl.Date,  # inclusive end date; the date itself for instants
    "dimensions": pl.String,  # JSON object axis -> member, "{}" for the consolidated entity
    "dimension_count": pl.Int32,
    "inline_id": pl.String,  # id of the first ix element that displays it
    "inline_ids": pl.List(pl.String),
    "source_document": pl.String,  # the document of the filing the fact was read from
    "html_tables": pl.List(pl.Int32),  # ordinals of the HTML tables showing it (statement lines)
    "chunk_id": pl.String,  # table chunk that displays it (else the prose chunk), null if hidden
    "duplicate_count": pl.Int32,
    "conflict": pl.Boolean,  # duplicates disagree on the value
    "conflict_values": pl.List(pl.String),  # the distinct displayed values when they disagree
}

METRIC_OBSERVATIONS: Schema = {
    "observation_id": pl.String,
    "cik": pl.String,
    "metric": pl.String,  # canonical id: revenue, net_income, total_debt, ...
    "value": pl.Float64,
    "unit": pl.String,
    "fiscal_label": pl.String,  # FY2025, Q2-FY2025, 9M-FY2025, or the instant's label
    "fiscal_year": pl.Int32,
    "fiscal_period": pl.String,  # FY, Q1..Q4, H1, 9M, or FY/Qn for an instant at that period end
    "period_type": pl.String,  # duration | instant
    "calendar_start": pl.Date,  # inclusive; equals calendar_end for instants
    "calendar_end": pl.Date,  # inclusive
    "filing_id": pl.String,
    "form": pl.String,
    "filed_date": pl.Date,
    "fact_id": pl.String,  # the fact reported (total_debt: its first component)
    "fact_ids": pl.List(pl.String),  # every fact it rests on (total_debt: all its components)
    "concept": pl.String,  # total_debt: its components joined with " + "
    "chunk_id": pl.String,
    "superseded_by": pl.String,  # observation_id of the next newer filing's observation of the
    # same company, metric, period and unit; null when newest (metrics.apply_supersession)
    "restated": pl.Boolean,  # the value differs from the older observation this one replaced
}


EXTRACTIONS: Schema = {
    "extraction_id": pl.String,  # hash of chunk id + backend + model + prompt version
    "filing_id": pl.String,
    "chunk_id": pl.String,
    "chunk_sha256": pl.String,
    "section": pl.String,
    "backend": pl.String,  # rules | openai
    "model": pl.String,
    "prompt_version": pl.String,  # prompt file name @ hash of prompt + schema (rules: rule set version)
    "status": pl.String,  # ok | parse_error (raw text kept) | failed (no reply after retries)
    "raw_output": pl.String,  # the reply exactly as received
    "error": pl.String,
    "triple_count": pl.Int32,  # candidates in the reply; null unless status is ok
    "attempts": pl.Int32,  # requests made, retries included (0 when served from the cache)
    "latency_ms": pl.Float64,  # of the successful request, as first measured
    "prompt_tokens": pl.Int32,
    "completion_tokens": pl.Int32,
    "cached": pl.Boolean,  # served from the extraction cache: no model call
}

EVIDENCE = pl.Struct(
    {
        "chunk_id": pl.String,
        "quote": pl.String,  # as it stands in the chunk (accepted) or as proposed (rejected)
        "char_start": pl.Int64,  # span in the filing's normalized text; null when not found
        "char_end": pl.Int64,
    }
)

VALIDATED_TRIPLES: Schema = {
    "triple_id": pl.String,  # accepted: hash of filing + subject + relation + object + period
    "filing_id": pl.String,
    "status": pl.String,  # accepted | rejected
    "reason": pl.String,  # rejection reason code (graphrag_core.validation.Reason); null if accepted
    "detail": pl.String,  # what exactly failed, for the person reading the rejection
    "adjustment": pl.String,  # e.g. hypothetical_to_risk when a gate rewrote the relation
    "subject": pl.String,
    "relation": pl.String,
    "object": pl.String,
    "proposed_relation": pl.String,  # the relation as the backend proposed it
    "value": pl.Float64,
    "unit": pl.String,
    "period": pl.String,
    "value_conflict": pl.Boolean,  # merged duplicates stated different values (the first is kept)
    "support": pl.Int32,  # candidate triples this row stands for (merged duplicates; 1 if rejected)
    "evidence": pl.List(EVIDENCE),  # union of the merged duplicates' evidence
    "extraction_ids": pl.List(pl.String),
    "backend": pl.String,
    "model": pl.String,
    "prompt_version": pl.String,
}


# The graph stage's edges and their evidence: what a snapshot publishes from validated triples.
EDGES: Schema = {
    "edge_id": pl.String,  # the accepted triple's id
    "filing_id": pl.String,
    "filer_id": pl.String,  # CIK-########## of the filing's company; null when unknown
    "subject": pl.String,
    "relation": pl.String,
    "object": pl.String,
    "value": pl.Float64,
    "unit": pl.String,
    "period": pl.String,
    "support": pl.Int32,
    "value_conflict": pl.Boolean,
    "adjustment": pl.String,
    "backend": pl.String,
    "model": pl.String,
    "prompt_version": pl.String,
}

EDGE_EVIDENCE: Schema = {
    "edge_id": pl.String,
    "filing_id": pl.String,
    "chunk_id": pl.String,
    "quote": pl.String,
    "char_start": pl.Int64,
    "char_end": pl.Int64,
}

# Quality-check verdicts per filing and stage (`check_results`): what gates a publish.
CHECK_RESULTS: Schema = {
    "filing_id": pl.String,
    "asset": pl.String,
    "check": pl.String,
    "passed": pl.Boolean,
    "blocking": pl.Boolean,
    "figures": pl.String,  # JSON object of what was measured
    "evaluated_at": pl.Datetime("us", "UTC"),
}

# One row per ingestion report (graphrag_core.operations.ingestion_report): the history its
# rejection-rate chart is drawn from.
INGESTION_REPORTS: Schema = {
    "generated_at": pl.Datetime("us", "UTC"),
    "filings": pl.Int32,  # filings processed in the run(s) the report covers
    "failed": pl.Int32,
    "chunks": pl.Int64,
    "facts": pl.Int64,
    "metric_observations": pl.Int64,
    "triples_accepted": pl.Int64,
    "triples_rejected": pl.Int64,
    "rejection_rate": pl.Float64,  # null when no candidate triple was judged
    "baseline": pl.Float64,  # median rejection rate of the filings before; null without one
    "limit": pl.Float64,  # above this a filing's rate is a spike
    "publish_blocked": pl.Int32,  # failed blocking checks holding back the publish
}

# Working tables by name (the names of the assets that own them): the Parquet store conforms
# every write of these to its schema.
SCHEMAS: dict[str, Schema] = {
    "raw_filings": FILINGS,
    "raw_filing_documents": DOCUMENTS,
    "section_chunks": CHUNKS,
    "xbrl_facts": XBRL_FACTS,
    "metric_observations": METRIC_OBSERVATIONS,
    "extractions": EXTRACTIONS,
    "validated_triples": VALIDATED_TRIPLES,
    "asset_checks": CHECK_RESULTS,
    "ingestion_reports": INGESTION_REPORTS,
}
