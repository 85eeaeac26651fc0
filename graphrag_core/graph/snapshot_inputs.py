"""Every stage's tables, gathered for a snapshot: filings and chunks as they are, metric
observations linked across filings (restatements), companies with their aliases, and the
accepted triples as edges with their evidence."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from graphrag_core.graph.companies import CompanyReference, build_company_tables, segment_members
from graphrag_core.graph.triple_edges import edges_from_triples
from graphrag_core.store.snapshot_tables import SnapshotTables
from graphrag_core.tables.schemas import (
    CHUNKS,
    FILINGS,
    METRIC_OBSERVATIONS,
    VALIDATED_TRIPLES,
    Schema,
    empty,
)
from graphrag_core.tables.table_store import TableStore
from graphrag_core.xbrl.supersession import link_observations

# The working tables a snapshot is built from (every partition of each).
SNAPSHOT_INPUTS = (
    "raw_filings",
    "section_chunks",
    "xbrl_facts",
    "metric_observations",
    "validated_triples",
)


def _read_all(store: TableStore, table: str, schema: Schema) -> pl.DataFrame:
    if not store.partitions(table):
        return empty(schema)
    return store.scan(table).collect()


def gather_snapshot_tables(
    store: TableStore,
    reference: CompanyReference | Callable[[list[str]], CompanyReference],
) -> SnapshotTables:
    """Every partition of the snapshot's input tables. `reference` is SEC reference data, or a
    function from the snapshot's CIKs to it (so only the companies present are looked up)."""
    filings = _read_all(store, "raw_filings", FILINGS)
    chunks = _read_all(store, "section_chunks", CHUNKS)
    # Partitions are written filing by filing; restatements link observations across filings,
    # and quarters derive from year-to-date figures of several filings, so both are (re)computed
    # here over all of them.
    metrics = link_observations(_read_all(store, "metric_observations", METRIC_OBSERVATIONS))
    segments = None
    if store.partitions("xbrl_facts"):
        lazy = store.scan("xbrl_facts")
        if {"cik", "dimensions", "dimension_count"} <= set(lazy.collect_schema().names()):
            segments = segment_members(lazy)
    ciks = sorted(
        set(filings.get_column("cik").drop_nulls()) | set(metrics.get_column("cik").drop_nulls())
    )
    ref = reference(ciks) if callable(reference) else reference
    companies = build_company_tables(filings, ref, extra_ciks=ciks, segments=segments)
    edges, evidence = edges_from_triples(
        _read_all(store, "validated_triples", VALIDATED_TRIPLES), filings
    )
    return SnapshotTables(
        filings=filings,
        chunks=chunks,
        metric_observations=metrics,
        companies=companies.companies,
        company_aliases=companies.aliases,
        registrants=companies.registrants,
        edges=edges,
        edge_evidence=evidence,
    ).consistent()
