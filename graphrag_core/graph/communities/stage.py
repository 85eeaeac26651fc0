"""The communities stage's runs: what the `communities` and `community_reports` assets do in
each mode, and the check every served report must pass.

    apply      (every corpus run, after the graph is updated) cluster when nothing is clustered
               yet; otherwise mark what the graph updates made dirty or withheld, and build the
               reports of communities that have none. Dirty reports stay served as stale.
    refresh    (scheduled, daily) as apply, then re-summarize every dirty and withheld
               community; when the dirty share has reached `dirty_threshold`, re-cluster the
               whole graph instead.
    recluster  (scheduled, monthly) re-cluster the whole graph and build every report that did
               not come back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.graph.communities import queries
from graphrag_core.graph.communities.openai_summarizer import build_summarizer
from graphrag_core.graph.communities.reports import Summarizer
from graphrag_core.graph.communities.store import (
    ApplyReport,
    ClusterReport,
    CommunityStore,
    SummaryReport,
)
from graphrag_core.graph.communities.view import RISK_EDGE, GraphView
from graphrag_core.settings import CommunitySettings

Mode = Literal["apply", "refresh", "recluster"]
MODES: tuple[str, ...] = ("apply", "refresh", "recluster")


@dataclass(frozen=True)
class CommunitiesOutcome:
    mode: str
    action: str  # clustered | applied | reclustered
    why: str
    applied: ApplyReport | None
    clustered: ClusterReport | None

    def metadata(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode, "action": self.action, "why": self.why}
        if self.applied:
            out.update(self.applied.metadata())
        if self.clustered:
            out.update(self.clustered.metadata())
        return out


def update_communities(
    store: CommunityStore, view: GraphView, settings: CommunitySettings, mode: str = "apply"
) -> CommunitiesOutcome:
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    if not store.clustered():
        return CommunitiesOutcome(
            mode, "clustered", "no communities yet", None, store.cluster(view, settings)
        )
    if mode == "recluster":
        return CommunitiesOutcome(
            mode,
            "reclustered",
            "the scheduled full re-clustering",
            None,
            store.cluster(view, settings),
        )
    applied = store.apply_changes(view)
    if (
        mode == "refresh"
        and applied.dirty_fraction >= settings.dirty_threshold
        and applied.dirty_fraction > 0
    ):
        why = (
            f"{applied.dirty_fraction:.1%} of communities dirty, at or over the threshold "
            f"{settings.dirty_threshold:.0%}"
        )
        return CommunitiesOutcome(mode, "reclustered", why, applied, store.cluster(view, settings))
    return CommunitiesOutcome(mode, "applied", "graph updates applied", applied, None)


def update_reports(
    store: CommunityStore,
    view: GraphView,
    settings: CommunitySettings,
    mode: str = "apply",
    summarizer: Summarizer | None = None,
) -> SummaryReport:
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    summarizer = summarizer or build_summarizer(settings)
    return store.summarize(view, settings, summarizer=summarizer, refresh=mode != "apply")


def citations_inside(store: CommunityStore, view: GraphView) -> CheckVerdict:
    """Every citation of every current report (its findings and its summary) is a piece of
    evidence of an edge inside its community: a relation between two of its members, or a risk
    exposure of one of them. Stale reports are left out (the graph moved under them; they are
    re-checked when rebuilt)."""
    cited = store.frame(queries.CURRENT_CITATIONS)
    figures: dict[str, Any] = {
        "citations": cited.height,
        "outside_community": 0,
        "not_in_graph": 0,
        "wrong_edge": 0,
    }
    if cited.height:
        edges = view.edges(cited.get_column("edge_id").unique().to_list())
        evidence = view.frame(
            "SELECT evidence_id, edge_id AS evidence_edge FROM edge_evidence WHERE "
            "list_contains(?, evidence_id)",
            [cited.get_column("evidence_id").unique().to_list()],
        )
        members = store.frame(queries.MEMBER_PAIRS)
        joined = cited.join(
            edges.select("edge_id", "subject_id", "object_id", "kind"), on="edge_id", how="left"
        ).join(evidence, on="evidence_id", how="left")
        figures["not_in_graph"] = joined.filter(
            pl.col("subject_id").is_null() | pl.col("evidence_edge").is_null()
        ).height
        figures["wrong_edge"] = joined.filter(
            pl.col("evidence_edge").is_not_null() & (pl.col("evidence_edge") != pl.col("edge_id"))
        ).height
        known = joined.filter(pl.col("subject_id").is_not_null())
        subj_in = known.join(
            members.rename({"entity_id": "subject_id"}),
            on=["community_id", "subject_id"],
            how="semi",
        )
        both_in = subj_in.filter(pl.col("kind") == RISK_EDGE).vstack(
            subj_in.filter(pl.col("kind") != RISK_EDGE).join(
                members.rename({"entity_id": "object_id"}),
                on=["community_id", "object_id"],
                how="semi",
            )
        )
        figures["outside_community"] = known.height - both_in.height
    passed = not (figures["outside_community"] or figures["not_in_graph"] or figures["wrong_edge"])
    return CheckVerdict(
        asset="community_reports",
        check="findings_cite_inside_their_community",
        passed=passed,
        blocking=True,
        figures=figures,
    )
