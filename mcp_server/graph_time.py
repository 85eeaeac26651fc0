"""Time on the graph (issue 25, item 3): the graph tools answer for a period or as of a date.

A period (a fiscal label, or a calendar year, quarter or range) keeps the edges stated for it:
the edge's own period, or the period of a filing that states it. An `as_of` date keeps what was
known by then: edges first filed on or before it, their citations from filings filed by then
(counts and last_filed recounted over those), and a restatement filed later does not yet
supersede them. The parsing is `graphrag_core.common.periods.parse_period_filter` (one grammar
for every tool that takes a period); the SQL side is `graph_queries`' time filter, whose
parameters `time_params` sets.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphrag_core.store.reader import PeriodFilter, Snapshot, parse_period_filter
from mcp_server import graph_queries, queries
from mcp_server.graph_edges import graph_citation
from mcp_server.graph_models import GraphEdge, PathEdge, TwoHopPath
from mcp_server.models import TimeFilter

PeriodArg = Annotated[
    str | None,
    Field(
        max_length=40,
        description="only edges stated for this period: a fiscal label (FY2025, Q2-FY2026 or "
        "'Q2 FY2026', each company's own fiscal calendar), a calendar year (2024), a calendar "
        "quarter (2024-Q3) or a calendar range (2024-07-01..2024-12-31); omit for all periods",
    ),
]
AsOfArg = Annotated[
    str | None,
    Field(
        max_length=10,
        description="ISO date (2024-12-31): answer from what was known on that date — edges "
        "first filed on or before it, cited only from filings filed by then; omit for the "
        "snapshot's whole knowledge",
    ),
]

# Every time parameter of graph_queries' time filter, null: no filter.
NO_TIME: dict[str, Any] = {"period": None, "range_start": None, "range_end": None, "known_by": None}


def graph_time(period: str | None, as_of: str | None) -> PeriodFilter:
    """The tool's period and as_of → a PeriodFilter; a ToolError the model can act on for a
    malformed or impossible one (bad dates, a range whose start is after its end)."""
    try:
        return parse_period_filter(period, as_of)
    except ValueError as exc:
        raise ToolError(str(exc)) from None


def time_params(when: PeriodFilter) -> dict[str, Any]:
    """The parameters of graph_queries' time filter for this filter."""
    return {
        "period": when.label,
        "range_start": when.start,
        "range_end": when.end,
        "known_by": when.as_of,
    }


def time_filter(when: PeriodFilter) -> TimeFilter | None:
    """What the answer says about the filter it applied; None when none was asked for."""
    if not when.active:
        return None
    rules = []
    if when.label:
        rules.append(
            f"edges stated for fiscal period {when.label}: their own period, or the fiscal "
            "period of a filing that states them"
        )
    elif when.start and when.end:
        rules.append(
            f"edges stated for calendar {when.start}..{when.end}: their own calendar range, or "
            "the span of a filing that states them (a 10-K's fiscal year, a 10-Q's quarter), "
            "shares at least half of the shorter of the two"
        )
    if when.as_of:
        rules.append(
            f"as known on {when.as_of}: first filed on or before it, citations and counts from "
            "filings filed by then, restatements filed later not applied; edges with no filing "
            "date are left out"
        )
    return TimeFilter(
        period=when.period,
        period_kind=when.kind,
        calendar_start=when.start,
        calendar_end=when.end,
        as_of=when.as_of,
        rule="; ".join(rules),
    )


class KnownAsOf:
    """Edges restated as they were known on a date: their citations from filings filed by then,
    counts and last_filed recounted, superseded_by only for restatements filed by then."""

    def __init__(self, snap: Snapshot, known_by: dt.date, edge_ids: list[str], per_edge: int):
        ids = list(dict.fromkeys(edge_ids))
        self.known_by = known_by
        self.citations: dict[str, list[Any]] = {}
        self.tally: dict[str, dict[str, Any]] = {}
        self.superseded_on: dict[str, dt.date | None] = {}
        if not ids:
            return
        for row in snap.query(
            graph_queries.KNOWN_CITATIONS, {"edge_ids": ids, "known_by": known_by}
        ):
            self.tally[row["edge_id"]] = row
            if row["known_rank"] <= per_edge:
                self.citations.setdefault(row["edge_id"], []).append(graph_citation(row))
        for row in snap.query(graph_queries.SUPERSEDED_ON, {"edge_ids": ids}):
            self.superseded_on[row["edge_id"]] = row["superseded_on"]

    def _superseded_by(self, edge_id: str, superseded_by: str | None) -> str | None:
        on = self.superseded_on.get(edge_id)
        return superseded_by if on is not None and on <= self.known_by else None

    def edge(self, edge: GraphEdge) -> GraphEdge:
        tally = self.tally.get(edge.edge_id, {})
        shown = self.citations.get(edge.edge_id, [])
        count = tally.get("evidence_count", 0)
        return edge.model_copy(
            update={
                "citations": shown,
                "evidence_count": count,
                "filing_count": tally.get("filing_count", 0),
                "last_filed": tally.get("last_filed"),
                "more_citations": max(count - len(shown), 0),
                "superseded_by": self._superseded_by(edge.edge_id, edge.superseded_by),
            }
        )

    def path_edge(self, edge: PathEdge) -> PathEdge:
        tally = self.tally.get(edge.edge_id, {})
        shown = self.citations.get(edge.edge_id, [])
        return edge.model_copy(
            update={
                "citation": shown[0] if shown else None,
                "evidence_count": tally.get("evidence_count", 0),
                "last_filed": tally.get("last_filed"),
                "superseded_by": self._superseded_by(edge.edge_id, edge.superseded_by),
            }
        )


def as_known(
    snap: Snapshot, when: PeriodFilter, edges: list[GraphEdge], per_edge: int
) -> list[GraphEdge]:
    """`edges` as known on `when.as_of` (unchanged without one)."""
    if when.as_of is None or not edges:
        return edges
    known = KnownAsOf(snap, when.as_of, [e.edge_id for e in edges], per_edge)
    return [known.edge(e) for e in edges]


def known_paths(
    snap: Snapshot, when: PeriodFilter, firsts: list[GraphEdge], paths: list[TwoHopPath]
) -> tuple[list[GraphEdge], list[TwoHopPath]]:
    """A two-hop answer's first hops and paths as known on `when.as_of` (one citation each, as
    neighbors shows them at two hops)."""
    if when.as_of is None or not (firsts or paths):
        return firsts, paths
    ids = [e.edge_id for e in firsts] + [p.second.edge_id for p in paths]
    known = KnownAsOf(snap, when.as_of, ids, 1)
    return [known.edge(e) for e in firsts], [
        p.model_copy(update={"second": known.path_edge(p.second)}) for p in paths
    ]


def latest_filings(
    snap: Snapshot, cik: str, when: PeriodFilter, limit: int
) -> list[dict[str, Any]]:
    """A company's newest filings, for the period and filed by `when.as_of` when asked."""
    if not when.active:
        return snap.query(queries.LATEST_FILINGS, {"cik": cik, "limit": limit})
    return snap.query(
        queries.LATEST_FILINGS_IN_TIME, {"cik": cik, "limit": limit, **time_params(when)}
    )


def key_metric_rows(
    snap: Snapshot, cik: str, metrics: list[str], when: PeriodFilter
) -> list[dict[str, Any]]:
    """The latest annual and quarterly value of each metric (rows for `metric_value`): the
    snapshot's current values, those of the period asked for, or as reported by `when.as_of`
    (see queries.LATEST_KEY_METRICS_AS_OF)."""
    params = {"cik": cik, "metrics": metrics}
    if when.as_of is not None:
        return snap.query(queries.LATEST_KEY_METRICS_AS_OF, {**params, **time_params(when)})
    if when.kind is not None:
        period = {k: v for k, v in time_params(when).items() if k != "known_by"}
        return snap.query(queries.LATEST_KEY_METRICS_IN_PERIOD, {**params, **period})
    return snap.query(queries.LATEST_KEY_METRICS, params)
