"""The graph's own checks: every edge stands on evidence (before a snapshot is published), and
the review queue stays within its share of the mentions."""

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


def review_queue_within_limit(
    queued: int, mentions: int, max_share: float, claims_unresolved: int
) -> CheckVerdict:
    """A warning, not a block: a mention waiting for review is held out of the graph with its
    evidence, so the graph stays correct; a queue over its share means resolution has lost
    ground (SEC reference data missing, a new kind of name) and a person should look."""
    share = queued / mentions if mentions else 0.0
    return CheckVerdict(
        asset="resolved_entities",
        check="review_queue",
        passed=share <= max_share,
        blocking=False,
        figures={
            "review_queue": queued,
            "mentions": mentions,
            "share": round(share, 4),
            "max_share": max_share,
            "claims_unresolved": claims_unresolved,
        },
    )
