"""What the graph stage's working store is made of, apart from the store itself
(`graph_store.GraphStore`): where it lives, the tables it keeps beside the published ones and
their DDL, what each step reports, and where each filing's contribution is read from.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from graphrag_core.common.errors import GraphragError
from graphrag_core.common.ids import sha256_stream
from graphrag_core.graph.resolution import reference_digest
from graphrag_core.tables.duckdb_store import add_columns, create_table
from graphrag_core.tables.schemas import (
    CLAIMS,
    EDGE_EVIDENCE,
    EDGES,
    ENTITY_ALIASES,
    FILINGS,
    GRAPH_CHANGES,
    GRAPH_UPDATES,
    MENTIONS,
    METRIC_OBSERVATIONS,
    NODES,
    REVIEW_QUEUE,
    VALIDATED_TRIPLES,
    Schema,
    conform,
    empty,
    with_added_columns,
)
from graphrag_core.tables.table_store import TableStore

GRAPH_DIR = "graph"  # under the data root, beside tables/ and raw/
GRAPH_DB = "graph.duckdb"


def graph_path(data_root: Path) -> Path:
    return data_root / GRAPH_DIR / GRAPH_DB


# The partitions a filing's graph contribution is read from; a filing is in the graph when its
# raw_filings partition exists.
INPUT_TABLES = ("raw_filings", "validated_triples", "metric_observations")
REVIEW_EVIDENCE_SHOWN = 5


class GraphInputError(GraphragError):
    """An upstream partition the graph needs is missing or unreadable."""


WORKING_FILINGS: Schema = {
    "filing_id": pl.String,
    "cik": pl.String,
    "filer_id": pl.String,
    "company": pl.String,
    "form": pl.String,
    "filed_date": pl.Date,
    "fiscal_label": pl.String,
    "signature": pl.String,  # stat of its input partition files: what says "maybe changed"
    "digest": pl.String,  # of its claims: what says "changed"
    "seq": pl.Int64,  # update that last changed its claims
    "unresolved": pl.Int64,  # its claims held back because a subject or object did not resolve
}
MENTION_STATE: Schema = {
    **MENTIONS,
    "text_norm": pl.String,
    "created_seq": pl.Int64,
    "changed_seq": pl.Int64,
}
NAME_INDEX: Schema = {
    "source": pl.String,  # reference (SEC's names) | filer (the filings' registrant names)
    "position": pl.Int64,  # order of insertion: the first ticker or title of a CIK wins
    "entity_id": pl.String,
    "alias": pl.String,
    "kind": pl.String,
    "norm": pl.String,
    "variants": pl.List(pl.String),
}
ORGANISATION_CONTEXTS: Schema = {
    "entity_id": pl.String,
    "entity_type": pl.String,
    "name": pl.String,
    "context": pl.String,  # the first quote (by evidence id) that names it
    "provisional": pl.Boolean,
}
STATIC_ENTITIES: Schema = {
    "entity_id": pl.String,
    "entity_type": pl.String,
    "name": pl.String,
    "description": pl.String,
    "always": pl.Boolean,  # a node even when nothing points at it (the risk taxonomy)
    "alias": pl.String,
    "alias_norm": pl.String,
    "alias_kind": pl.String,
}
# Provenance columns appended to claims and evidence after stores were built (issue 22).
ADDED_EVIDENCE_COLUMNS = ("method", "confidence")
# The working evidence table: the snapshot's columns, then the edge's, with the columns added
# later kept last (an old store gets them appended by ALTER TABLE, positional INSERTs match).
EVIDENCE_STATE: Schema = {
    **{c: t for c, t in EDGE_EVIDENCE.items() if c not in ADDED_EVIDENCE_COLUMNS},
    "subject_id": pl.String,
    "relation": pl.String,
    "object_id": pl.String,
    "period": pl.String,
    "calendar_start": pl.Date,
    "calendar_end": pl.Date,
    "value": pl.Float64,
    "unit": pl.String,
    "source": pl.String,
    "statement_key": pl.String,
    "adjustment": pl.String,
    "value_low": pl.Float64,
    "value_high": pl.Float64,
    "bound": pl.String,
    **{c: EDGE_EVIDENCE[c] for c in ADDED_EVIDENCE_COLUMNS},
}


# Claim columns a store built before them lacks (issue 22: a range's ends and a bound). Every
# filing's claims are read again when they were stored without these columns: a filing's
# signature (its partitions) did not change, but what its claims carry did.
ADDED_CLAIM_COLUMNS = ("value_low", "value_high", "bound")

TABLES_DDL = (
    create_table("filings", WORKING_FILINGS),
    create_table("claims", CLAIMS),
    create_table("mentions", MENTION_STATE),
    create_table("name_index", NAME_INDEX),
    create_table("static_entities", STATIC_ENTITIES),
    create_table("edge_evidence", EVIDENCE_STATE),
    create_table("edges", EDGES),
    create_table("graph_changes", GRAPH_CHANGES),
    create_table("graph_updates", GRAPH_UPDATES),
    # Was a table refreshed per update; now the filer_calendar view (queries.CREATE_VIEWS).
    "DROP TABLE IF EXISTS fiscal_calendar",
    # Columns added after a store was first built (each appended last to its schema, so the
    # positional INSERTs match an old store altered here and a new one alike). The schema digest
    # changes with them: an old store runs these once, and the store marks its filings to be
    # read again, so its next update re-derives the claims, evidence and edges that carry them.
    *add_columns("claims", CLAIMS, ADDED_CLAIM_COLUMNS),
    *add_columns("edge_evidence", EVIDENCE_STATE, ADDED_CLAIM_COLUMNS),
    *add_columns("edges", EDGES, ADDED_CLAIM_COLUMNS),
    *add_columns("claims", CLAIMS, ADDED_EVIDENCE_COLUMNS),
    *add_columns("edge_evidence", EVIDENCE_STATE, ADDED_EVIDENCE_COLUMNS),
)


# -- reports ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class EntitiesReport:
    filings: int
    added: list[str]
    changed: list[str]
    removed: list[str]
    unchanged: int
    mentions_resolved: int  # resolved now (new mentions, or all after the registry changed)
    mentions_changed: int  # existing mentions whose resolution changed
    review_queue: int
    registry_rebuilt: bool
    seconds: float

    def metadata(self) -> dict[str, Any]:
        return {
            "filings": self.filings,
            "added": len(self.added),
            "changed": len(self.changed),
            "removed": len(self.removed),
            "unchanged": self.unchanged,
            "mentions_resolved": self.mentions_resolved,
            "mentions_changed": self.mentions_changed,
            "review_queue": self.review_queue,
            "registry_rebuilt": self.registry_rebuilt,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class GraphReport:
    update_id: int | None  # None when nothing needed re-deriving
    filings_applied: list[str]
    evidence_removed: int
    evidence_added: int
    edges_touched: int
    edges_removed: int
    entities_touched: int
    claims_unresolved: int  # evidence held back because its subject or object did not resolve
    seconds: float

    def metadata(self) -> dict[str, Any]:
        return {
            "update_id": self.update_id,
            "filings_applied": len(self.filings_applied),
            "evidence_removed": self.evidence_removed,
            "evidence_added": self.evidence_added,
            "edges_touched": self.edges_touched,
            "edges_removed": self.edges_removed,
            "entities_touched": self.entities_touched,
            "claims_unresolved": self.claims_unresolved,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class PublicationShare:
    """One relation's claims: accepted by the gates, published, kept out as no organisation,
    withheld by the review queue."""

    relation: str
    accepted: int
    published: int
    not_org: int
    withheld: int

    @property
    def share(self) -> float:
        return self.published / self.accepted if self.accepted else 1.0


@dataclass(frozen=True)
class FilingsContribution:
    new_entities: dict[str, int]  # entity type → entities no other filing names
    queued_for_review: dict[str, int]  # review reason → mentions of these filings in the queue


@dataclass(frozen=True)
class Reference:
    """SEC reference rows for the registry: company_tickers rows and submissions documents."""

    tickers: Sequence[Mapping[str, Any]] = ()
    submissions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # What identifies the files these rows were read from (`reference_source`), when the reader
    # knows them: a store whose digest was last taken from the same source reuses that digest
    # instead of hashing SEC's ten thousand ticker rows again, on every update (a few ms each
    # time). None (rows from anywhere else): the rows are hashed.
    source: str | None = None

    @cached_property
    def digest(self) -> str:
        """`reference_digest` of these rows, computed once: hashing SEC's ten thousand tickers
        costs milliseconds, and an update asks for it more than once."""
        return reference_digest(self.tickers, self.submissions)


@dataclass(frozen=True)
class GraphTables:
    """What a snapshot publishes from the graph stage."""

    nodes: pl.DataFrame
    edges: pl.DataFrame
    edge_evidence: pl.DataFrame
    entity_aliases: pl.DataFrame
    review_queue: pl.DataFrame

    @classmethod
    def empty(cls) -> GraphTables:
        return cls(
            empty(NODES),
            empty(EDGES),
            empty(EDGE_EVIDENCE),
            empty(ENTITY_ALIASES),
            empty(REVIEW_QUEUE),
        )


# -- inputs -----------------------------------------------------------------------------------
class FilingInputs(Protocol):
    """Where the graph reads each filing's contribution from."""

    def filing_ids(self) -> list[str]: ...

    def signature(self, filing_id: str) -> str:
        """Changes whenever the filing's inputs may have changed (cheap: no reading)."""
        ...

    def read(self, filing_id: str) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        """(raw_filings, validated_triples, metric_observations) of one filing, checked."""
        ...


@dataclass(frozen=True)
class StoreInputs:
    """The table store's partitions: a filing is present when its raw_filings partition is."""

    store: TableStore

    def filing_ids(self) -> list[str]:
        return self.store.partitions("raw_filings")

    @cached_property
    def _dirs(self) -> tuple[tuple[str, str], ...]:
        # Plain strings: an update stats every partition of every filing, and building Path
        # objects for them cost more than the stat calls.
        return tuple((table, str(self.store.table_dir(table))) for table in INPUT_TABLES)

    def signature(self, filing_id: str) -> str:
        parts = []
        for table, folder in self._dirs:
            try:
                st = os.stat(f"{folder}/{filing_id}.parquet")
                parts.append(f"{table}:{st.st_size}:{st.st_mtime_ns}")
            except FileNotFoundError:
                parts.append(f"{table}:-")
        return " ".join(parts)

    def read(self, filing_id: str) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        return (
            read_partition(self.store, "raw_filings", filing_id, FILINGS),
            read_partition(self.store, "validated_triples", filing_id, VALIDATED_TRIPLES),
            read_partition(self.store, "metric_observations", filing_id, METRIC_OBSERVATIONS),
        )


@dataclass(frozen=True)
class FrameInputs:
    """Frames of many filings held in memory (tests, samples, benchmarks)."""

    filings: pl.DataFrame
    triples: pl.DataFrame
    metrics: pl.DataFrame

    def filing_ids(self) -> list[str]:
        return sorted(self.filings.get_column("filing_id").unique().to_list())

    def read(self, filing_id: str) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        pick = pl.col("filing_id") == filing_id
        return (
            conform(self.filings.filter(pick), FILINGS),
            conform(
                with_added_columns(
                    self.triples.filter(pick), "validated_triples", VALIDATED_TRIPLES
                ),
                VALIDATED_TRIPLES,
            ),
            conform(self.metrics.filter(pick), METRIC_OBSERVATIONS),
        )

    def signature(self, filing_id: str) -> str:
        return sha256_stream(
            frame.hash_rows(seed=0).to_numpy().tobytes() for frame in self.read(filing_id)
        )


def read_partition(store: TableStore, table: str, filing_id: str, schema: Schema) -> pl.DataFrame:
    path = store.partition_path(table, filing_id)
    if not path.exists():
        raise GraphInputError(
            f"{path}: partition {filing_id!r} of {table} is missing, but raw_filings has the "
            f"filing (its run failed or has not finished). Fix: fix or replace its document and "
            f"ingest it again (filings-graph ingest --filing {filing_id}), or take it out "
            f"(filings-graph remove {filing_id}); the graph was left as it was"
        )
    try:
        frame = pl.read_parquet(path)
        return conform(with_added_columns(frame, table, schema), schema)
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        raise GraphInputError(
            f"{path}: partition {filing_id!r} of {table} cannot be read ({exc}). Fix: "
            f"re-materialize {table} for partition {filing_id}; the graph was left as it was"
        ) from exc
