"""What one snapshot is built from: every published table, as frames.

The stages produce these frames (`graphrag_core.graph.snapshot_inputs` gathers them); the store
only checks that they agree with each other and writes them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

import polars as pl

from graphrag_core.store.chunk_index_ref import ChunkIndexRef


@dataclass(frozen=True)
class SnapshotTables:
    """Everything one snapshot holds. Rows of chunks, metrics, edges and evidence whose filing
    is not in `filings` are dropped by `consistent()`: a citation must always resolve (an edge
    whose evidence all goes is dropped with it; superseded_by links to a dropped edge are
    cleared)."""

    filings: pl.DataFrame
    chunks: pl.DataFrame
    metric_observations: pl.DataFrame
    companies: pl.DataFrame
    company_aliases: pl.DataFrame
    registrants: pl.DataFrame
    edges: pl.DataFrame
    edge_evidence: pl.DataFrame
    # The resolved entities every edge points at, and every name they are found under.
    nodes: pl.DataFrame
    entity_aliases: pl.DataFrame
    # Mentions waiting in the graph stage's review queue (recorded in the manifest).
    review_queue_size: int = 0
    # The chunk index version holding these chunks (None: published without passage search).
    chunk_index: ChunkIndexRef | None = None

    def consistent(self) -> SnapshotTables:
        ids = self.filings.select("filing_id")
        evidence = self.edge_evidence.join(ids, on="filing_id", how="semi")
        # An edge with no evidence left cites nothing: it is not published.
        edges = self.edges.join(evidence.select("edge_id").unique(), on="edge_id", how="semi")
        if "superseded_by" in edges.columns and edges.height < self.edges.height:
            kept = edges.get_column("edge_id")
            edges = edges.with_columns(
                superseded_by=pl.when(pl.col("superseded_by").is_in(kept.implode()))
                .then(pl.col("superseded_by"))
            )
        return replace(
            self,
            chunks=self.chunks.join(ids, on="filing_id", how="semi"),
            metric_observations=self.metric_observations.join(ids, on="filing_id", how="semi"),
            edge_evidence=evidence,
            edges=edges,
        )

    def frames(self) -> dict[str, pl.DataFrame]:
        """Name → frame, in a fixed order (what the content digest is computed over)."""
        return {
            "filings": self.filings,
            "chunks": self.chunks,
            "metric_observations": self.metric_observations,
            "companies": self.companies,
            "company_aliases": self.company_aliases,
            "registrants": self.registrants,
            "edges": self.edges,
            "edge_evidence": self.edge_evidence,
            "nodes": self.nodes,
            "entity_aliases": self.entity_aliases,
        }

    def as_of(self) -> dt.date | None:
        """The newest filing date in the snapshot (None when no filing has one)."""
        if self.filings.is_empty():
            return None
        value = self.filings.get_column("filed_date").max()
        return value if isinstance(value, dt.date) else None
