"""One schema per table, and the Parquet store every stage reads and writes.

Column names live here once; stages build frames through `empty()` / `frame()` so a typo becomes
a schema error at the boundary instead of a silent null column downstream.

Layout under the data root:

    tables/<table>/<partition>.parquet   per-filing tables (partition = filing id)
    tables/<table>/_all.parquet          whole-corpus tables
    raw/<filing id>/<filename>           documents as fetched
    text/<filing id>.txt                 the filing's normalized text (chunk spans index into it)
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import polars as pl

from graphrag_core.atomic import write_atomic

UNPARTITIONED = "_all"

FILINGS: dict[str, pl.DataType] = {
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

DOCUMENTS: dict[str, pl.DataType] = {
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

CHUNKS: dict[str, pl.DataType] = {
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

# Table names are the names of the assets that own them.
SCHEMAS: dict[str, dict[str, pl.DataType]] = {
    "raw_filings": FILINGS,
    "raw_filing_documents": DOCUMENTS,
    "section_chunks": CHUNKS,
}


def register(name: str, schema: dict[str, pl.DataType]) -> None:
    """Stages that own a table declare its schema here, once, at import time of their module."""
    existing = SCHEMAS.get(name)
    if existing is not None and existing != schema:
        raise ValueError(f"table {name!r} registered twice with different schemas")
    SCHEMAS[name] = schema


def empty(schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=dict(schema))


def frame(rows: Iterable[Mapping], schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """Rows → a frame with exactly the schema's columns, in its order, with its types."""
    rows = list(rows)
    if not rows:
        return empty(schema)
    unknown = set().union(*(r.keys() for r in rows)) - set(schema)
    if unknown:
        raise ValueError(f"columns not in the schema: {sorted(unknown)}")
    return pl.DataFrame(rows, schema=dict(schema), strict=False).select(list(schema))


def conform(df: pl.DataFrame, schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    missing = [c for c in schema if c not in df.columns]
    if missing:
        raise ValueError(f"frame lacks columns {missing}")
    return df.select([pl.col(c).cast(t) for c, t in schema.items()])


class TableStore:
    """Parquet tables under one root; writes are atomic (temp file + rename)."""

    def __init__(self, root: Path | str):
        self.root = Path(root)

    # -- paths -------------------------------------------------------------------------------
    def table_dir(self, table: str) -> Path:
        return self.root / "tables" / table

    def partition_path(self, table: str, partition: str | None) -> Path:
        return self.table_dir(table) / f"{partition or UNPARTITIONED}.parquet"

    def raw_dir(self, filing_id: str) -> Path:
        return self.root / "raw" / filing_id

    def text_path(self, filing_id: str) -> Path:
        return self.root / "text" / f"{filing_id}.txt"

    # -- writes ------------------------------------------------------------------------------
    def write(self, table: str, df: pl.DataFrame, partition: str | None = None) -> Path:
        schema = SCHEMAS.get(table)
        if schema is not None:
            df = conform(df, schema)
        path = self.partition_path(table, partition)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".parquet")
        os.close(fd)
        try:
            df.write_parquet(tmp, compression="zstd", statistics=True)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def write_bytes(self, path: Path, data: bytes) -> Path:
        return write_atomic(path, data)

    def write_text(self, filing_id: str, text: str) -> Path:
        return self.write_bytes(self.text_path(filing_id), text.encode("utf-8"))

    def delete_partition(self, table: str, partition: str) -> None:
        self.partition_path(table, partition).unlink(missing_ok=True)

    # -- reads -------------------------------------------------------------------------------
    def exists(self, table: str, partition: str | None = None) -> bool:
        return self.partition_path(table, partition).exists()

    def read(self, table: str, partition: str | None = None) -> pl.DataFrame:
        path = self.partition_path(table, partition)
        if not path.exists():
            raise FileNotFoundError(
                f"{path}: table {table!r} has no partition {partition or UNPARTITIONED!r}; "
                "materialize the upstream asset first"
            )
        return pl.read_parquet(path)

    def partitions(self, table: str) -> list[str]:
        directory = self.table_dir(table)
        if not directory.is_dir():
            return []
        return sorted(p.stem for p in directory.glob("*.parquet") if not p.name.startswith("."))

    def scan(self, table: str, partitions: Iterable[str] | None = None) -> pl.LazyFrame:
        """All partitions of a table as one lazy frame (empty frame with the schema if none)."""
        keys = self.partitions(table) if partitions is None else list(partitions)
        paths = [self.partition_path(table, k) for k in keys]
        paths = [p for p in paths if p.exists()]
        if not paths:
            return empty(SCHEMAS.get(table, {})).lazy()
        return pl.scan_parquet(paths)

    def read_text(self, filing_id: str) -> str:
        return self.text_path(filing_id).read_text(encoding="utf-8")


# Tables of later stages are declared here too, so that stages written in parallel agree on them.

XBRL_FACTS: dict[str, pl.DataType] = {
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

METRIC_OBSERVATIONS: dict[str, pl.DataType] = {
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

SCHEMAS.update(
    {
        "xbrl_facts": XBRL_FACTS,
        "metric_observations": METRIC_OBSERVATIONS,
    }
)

EXTRACTIONS: dict[str, pl.DataType] = {
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

VALIDATED_TRIPLES: dict[str, pl.DataType] = {
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

SCHEMAS.update(
    {
        "extractions": EXTRACTIONS,
        "validated_triples": VALIDATED_TRIPLES,
    }
)
