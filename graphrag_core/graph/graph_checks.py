"""The graph's own check before a snapshot is published: every edge stands on evidence."""

from __future__ import annotations

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.store.snapshot_tables import SnapshotTables


def edges_have_evidence(tables: SnapshotTables) -> CheckVerdict:
    """Blocking: every edge has at least one verbatim evidence row (chunk and span) in the
    snapshot; an edge without one could not be cited, so it must not be published."""
    edges = tables.edges.select("edge_id")
    with_evidence = tables.edge_evidence.select("edge_id").unique()
    bare = edges.join(with_evidence, on="edge_id", how="anti")
    return CheckVerdict(
        asset="graph_snapshot",
        check="edges_have_evidence",
        passed=bare.is_empty(),
        blocking=True,
        figures={
            "edges": edges.height,
            "without_evidence": bare.height,
            "first": bare.head(5).get_column("edge_id").to_list() if bare.height else [],
        },
    )
