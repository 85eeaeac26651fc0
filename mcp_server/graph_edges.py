"""Knowledge-graph edges as tools show them: entity references, citations, and edges by id with
their newest citations. One home for the shape, so `neighbors`, `graph_path`, `explore_company`
and `search_chunks`' graph expansion answer with the same `GraphEdge`."""

from __future__ import annotations

from typing import Any

from graphrag_core.store.reader import Snapshot
from mcp_server import graph_queries
from mcp_server.graph_models import EntityRef, GraphCitation, GraphEdge

CITATIONS_PER_EDGE = 3


def entity_ref(entity_id: str, entity_type: str | None, name: str | None) -> EntityRef:
    return EntityRef(entity_id=entity_id, entity_type=entity_type, name=name or entity_id)


def graph_citation(row: dict[str, Any]) -> GraphCitation:
    return GraphCitation(
        filing_id=row["filing_id"],
        form=row["form"],
        filed_date=row["filed_date"],
        section=row["section"],
        chunk_id=row["chunk_id"],
        quote=row["quote"],
        subject_text=row["subject_text"],
        object_text=row["object_text"],
        fact_id=row["fact_id"],
        concept=row["concept"],
        method=row.get("method"),
        confidence=row.get("confidence"),
    )


def edge_citations(
    snap: Snapshot, edge_ids: list[str], per_edge: int = CITATIONS_PER_EDGE
) -> dict[str, list[GraphCitation]]:
    """The newest `per_edge` citations of each edge."""
    cites: dict[str, list[GraphCitation]] = {}
    if edge_ids:
        rows = snap.query(
            graph_queries.EDGE_CITATIONS,
            {"edge_ids": list(dict.fromkeys(edge_ids)), "per_edge": per_edge},
        )
        for row in rows:
            cites.setdefault(row["edge_id"], []).append(graph_citation(row))
    return cites


def edges_by_id(
    snap: Snapshot, edge_ids: list[str], per_edge: int = CITATIONS_PER_EDGE
) -> dict[str, GraphEdge]:
    """Edges by id with their newest citations (at most `per_edge` each)."""
    if not edge_ids:
        return {}
    ids = list(dict.fromkeys(edge_ids))
    cites = edge_citations(snap, ids, per_edge)
    out = {}
    for r in snap.query(graph_queries.EDGES_BY_ID, {"edge_ids": ids}):
        shown = cites.get(r["edge_id"], [])
        out[r["edge_id"]] = GraphEdge(
            edge_id=r["edge_id"],
            subject=entity_ref(r["subject_id"], r["subject_type"], r["subject_name"]),
            relation=r["relation"],
            object=entity_ref(r["object_id"], r["object_type"], r["object_name"]),
            period=r["period"],
            calendar_start=r["calendar_start"],
            calendar_end=r["calendar_end"],
            value=r["value"],
            value_low=r["value_low"],
            value_high=r["value_high"],
            bound=r["bound"],
            unit=r["unit"],
            evidence_count=r["evidence_count"],
            filing_count=r["filing_count"],
            first_filed=r["first_filed"],
            last_filed=r["last_filed"],
            seen_periods=r["seen_periods"] or [],
            superseded_by=r["superseded_by"],
            citations=shown,
            more_citations=max(r["evidence_count"] - len(shown), 0),
        )
    return out
