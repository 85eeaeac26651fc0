"""Every stage's tables, gathered for a snapshot: filings and chunks as they are, metric
observations linked across filings (restatements), companies with their aliases, and the
knowledge graph (resolved nodes, edges with their evidence, entity aliases)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

from graphrag_core.graph.companies import CompanyReference, build_company_tables, segment_members
from graphrag_core.graph.graph_store import FilingInputs, GraphStore, GraphTables, Reference
from graphrag_core.settings import CommunitySettings
from graphrag_core.store.snapshot_tables import CommunityTables, SnapshotTables
from graphrag_core.tables.schemas import (
    CHUNKS,
    FILINGS,
    METRIC_OBSERVATIONS,
    Schema,
    empty,
)
from graphrag_core.tables.table_store import TableStore
from graphrag_core.xbrl.metrics import FilingInfo
from graphrag_core.xbrl.segments import company_facts
from graphrag_core.xbrl.statements import STATEMENT_LINES, statement_lines
from graphrag_core.xbrl.supersession import link_observations

# The working tables a snapshot is built from (every partition of each).
SNAPSHOT_INPUTS = (
    "raw_filings",
    "section_chunks",
    "xbrl_facts",
    "metric_observations",
    "validated_triples",
)


def _keys(store: TableStore, table: str, filing_ids: Sequence[str] | None) -> list[str]:
    """The partitions of `table` (of these filings, when given)."""
    keys = store.partitions(table)
    if filing_ids is None:
        return keys
    wanted = set(filing_ids)
    return [k for k in keys if k in wanted]


def _read_all(
    store: TableStore, table: str, schema: Schema, filing_ids: Sequence[str] | None = None
) -> pl.DataFrame:
    keys = _keys(store, table, filing_ids)
    if not keys:
        return empty(schema)
    return store.scan(table, keys).collect()


def gather_statement_lines(
    store: TableStore, fact_keys: Sequence[str], filings: pl.DataFrame
) -> pl.DataFrame:
    """The primary statements' lines of every filing with facts, labelled with the filing's own
    fiscal calendar (its raw_filings metadata, else its dei facts, as its metrics are)."""
    meta = {row["filing_id"]: row for row in filings.iter_rows(named=True)}
    frames = []
    for key in fact_keys:
        row = meta.get(key)
        if row is None:
            continue
        facts = store.scan("xbrl_facts", [key]).collect()
        if facts.is_empty():
            continue
        info = FilingInfo.from_facts(
            facts,
            key,
            cik=row["cik"],
            form=row["form"],
            filed_date=row["filed_date"],
            fiscal_year_end=row["fiscal_year_end"],
            fiscal_year_focus=row["fiscal_year"],
            fiscal_period_focus=row["fiscal_period"],
            period_end=row["period_end"],
        )
        frames.append(statement_lines(facts, info))
    return pl.concat(frames, how="vertical") if frames else pl.DataFrame(schema=STATEMENT_LINES)


def build_graph(
    inputs: TableStore | FilingInputs,
    reference: CompanyReference,
    filing_ids: Sequence[str] | None = None,
) -> GraphTables:
    """The knowledge graph of every filing in `inputs` (of `filing_ids`, when given), built from
    scratch in memory (what the graph stage's working store holds after its updates, for
    callers without one)."""
    graph = GraphStore(None)
    try:
        graph.update_entities(
            inputs, Reference(reference.tickers, reference.submissions), filing_ids=filing_ids
        )
        graph.update_graph()
        return graph.tables()
    finally:
        graph.close()


def build_communities_of(
    graph: GraphTables, filings: pl.DataFrame, settings: CommunitySettings | None = None
) -> CommunityTables:
    """Communities and extractive reports of a graph's tables, from scratch, in memory (what the
    communities stage's working store holds after a full build, for callers without one)."""
    from graphrag_core.graph.communities.store import build_communities
    from graphrag_core.graph.communities.view import GraphView

    view = GraphView.of_tables(graph, filings)
    try:
        return build_communities(view, settings or CommunitySettings())
    finally:
        view.close()


def gather_snapshot_tables(
    store: TableStore,
    reference: CompanyReference | Callable[[list[str]], CompanyReference],
    graph: GraphTables | None = None,
    communities: CommunityTables | None = None,
    community_settings: CommunitySettings | None = None,
    filing_ids: Sequence[str] | None = None,
) -> SnapshotTables:
    """Every partition of the snapshot's input tables (of `filing_ids` only, when given: the
    corpus job leaves out the filings that failed their own checks). `reference` is SEC
    reference data, or a function from the snapshot's CIKs to it (so only the companies present
    are looked up).
    `graph` is the graph stage's current tables; without it the graph is built here.
    `communities` is the communities stage's current tables; without them the communities and
    their extractive reports are built here, from the graph, with `community_settings`."""
    filings = _read_all(store, "raw_filings", FILINGS, filing_ids)
    chunks = _read_all(store, "section_chunks", CHUNKS, filing_ids)
    # Partitions are written filing by filing; restatements link observations across filings,
    # and quarters derive from year-to-date figures of several filings, so both are (re)computed
    # here over all of them.
    metrics = link_observations(
        _read_all(store, "metric_observations", METRIC_OBSERVATIONS, filing_ids)
    )
    segments = None
    facts = None
    fact_keys = _keys(store, "xbrl_facts", filing_ids)
    if fact_keys:
        lazy = store.scan("xbrl_facts", fact_keys)
        if {"cik", "dimensions", "dimension_count"} <= set(lazy.collect_schema().names()):
            segments = segment_members(lazy)
            facts = company_facts(lazy.collect(), filings)
    lines = gather_statement_lines(store, fact_keys, filings)
    ciks = sorted(
        set(filings.get_column("cik").drop_nulls()) | set(metrics.get_column("cik").drop_nulls())
    )
    ref = reference(ciks) if callable(reference) else reference
    companies = build_company_tables(filings, ref, extra_ciks=ciks, segments=segments)
    if graph is None:
        graph = build_graph(store, ref, filing_ids)
    if communities is None:
        communities = build_communities_of(graph, filings, community_settings)
    return SnapshotTables(
        filings=filings,
        chunks=chunks,
        metric_observations=metrics,
        companies=companies.companies,
        company_aliases=companies.aliases,
        registrants=companies.registrants,
        edges=graph.edges,
        edge_evidence=graph.edge_evidence,
        nodes=graph.nodes,
        entity_aliases=graph.entity_aliases,
        review_queue_size=graph.review_queue.height,
        communities=communities,
        company_facts=facts,
        statement_lines=lines,
    ).consistent()
