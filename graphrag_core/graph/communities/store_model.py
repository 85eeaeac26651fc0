"""What the communities stage's working store is made of, apart from the store itself
(`store.CommunityStore`): where it lives, its tables beside the published ones and their DDL,
what each step reports, and the pure functions that turn a Leiden hierarchy into rows (the
communities, their members, where each edge lives) and find the amendments among filings.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from graphrag_core.graph.communities.clustering import (
    ATTRIBUTE_PREFIXES,
    Hierarchy,
    Parameters,
    member_rows,
)
from graphrag_core.graph.communities.queries import FILINGS_SEEN_DDL
from graphrag_core.graph.communities.view import RELATION_EDGE, RISK_EDGE
from graphrag_core.graph.graph_store_model import GRAPH_DIR
from graphrag_core.settings import CommunitySettings
from graphrag_core.store.snapshot_tables import CommunityTables
from graphrag_core.tables.duckdb_store import create_table
from graphrag_core.tables.schemas import (
    COMMUNITIES,
    COMMUNITY_FINDINGS,
    COMMUNITY_LEVELS,
    COMMUNITY_MEMBERS,
    COMMUNITY_REPORTS,
    Schema,
    conform,
    empty,
)

COMMUNITIES_DB = "communities.duckdb"

# Report states of a community.
CURRENT, STALE, WITHHELD, MISSING, NO_EVIDENCE = (
    "current",
    "stale",
    "withheld",
    "missing",
    "no_evidence",
)

STATE: Schema = {
    **{k: v for k, v in COMMUNITIES.items() if k not in ("report_status", "status_reason")},
    "report_state": pl.String,  # none | built | no_evidence
    "dirty_since": pl.Int64,  # the graph update that first touched it since its report was built
    "withheld_reason": pl.String,
}
EDGE_HOME: Schema = {
    "edge_id": pl.String,
    "subject_id": pl.String,
    "object_id": pl.String,
    "community_id": pl.String,
    "kind": pl.String,
}
SOURCE = pl.Struct({"filing_id": pl.String, "digest": pl.String})
REPORT_STATE: Schema = {
    **{k: v for k, v in COMMUNITY_REPORTS.items() if k != "stale"},
    "source_digests": pl.List(SOURCE),
    # Digest of the edges (id and evidence count) in the community and beneath it when the
    # report was built: a community whose edges came back the same is clean again.
    "basis": pl.String,
}


def communities_path(data_root: Path) -> Path:
    return data_root / GRAPH_DIR / COMMUNITIES_DB


TABLES_DDL = (
    create_table("communities", STATE),
    create_table("members", COMMUNITY_MEMBERS),
    create_table("levels", COMMUNITY_LEVELS),
    create_table("edge_home", EDGE_HOME),
    create_table("reports", REPORT_STATE),
    create_table("findings", COMMUNITY_FINDINGS),
    # The filings (id, claims digest) as of the last withholding check.
    FILINGS_SEEN_DDL,
)


def parameters(settings: CommunitySettings) -> Parameters:
    return Parameters(
        max_size=settings.max_size,
        max_levels=settings.max_levels,
        seed=settings.seed,
        resolution=settings.resolution,
        iterations=settings.iterations,
        beta=settings.beta,
    )


# -- reports of each step ----------------------------------------------------------------------
@dataclass(frozen=True)
class ClusterReport:
    clustering_id: str
    nodes: int
    pairs: int
    communities: int
    levels: list[dict[str, Any]]
    reports_kept: int
    leiden_s: float
    seconds: float

    def metadata(self) -> dict[str, Any]:
        return {
            "clustering_id": self.clustering_id,
            "nodes": self.nodes,
            "projected_pairs": self.pairs,
            "communities": self.communities,
            "levels": len(self.levels),
            "modularity_by_level": {
                str(lv["level"]): round(lv["modularity"], 4) for lv in self.levels
            },
            "reports_kept": self.reports_kept,
            "leiden_s": round(self.leiden_s, 3),
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class ApplyReport:
    updates: int
    entities_touched: int
    members_added: int
    communities_added: int
    dirtied: int
    withheld: int
    dirty_fraction: float
    seconds: float
    restored: int = (
        0  # dirty communities whose edges came back to those their report was built from
    )

    def metadata(self) -> dict[str, Any]:
        return {
            "graph_updates": self.updates,
            "entities_touched": self.entities_touched,
            "members_added": self.members_added,
            "communities_added": self.communities_added,
            "dirtied": self.dirtied,
            "restored": self.restored,
            "withheld": self.withheld,
            "dirty_fraction": round(self.dirty_fraction, 4),
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class SummaryReport:
    summarizer: str
    built: int
    no_evidence: int
    findings: int
    findings_dropped: int
    seconds: float

    def metadata(self) -> dict[str, Any]:
        return {
            "summarizer": self.summarizer,
            "reports_built": self.built,
            "no_evidence": self.no_evidence,
            "findings": self.findings,
            "findings_dropped": self.findings_dropped,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class GraphSlice:
    """What a run of `summarize` reads of the graph (see `CommunityStore._read_graph`)."""

    edges: pl.DataFrame  # own edges of the communities summarized, with their community_id
    citations: pl.DataFrame
    edge_filings: pl.DataFrame
    names: pl.DataFrame


def empty_tables() -> CommunityTables:
    return CommunityTables(
        empty(COMMUNITIES),
        empty(COMMUNITY_MEMBERS),
        empty(COMMUNITY_LEVELS),
        empty(COMMUNITY_REPORTS),
        empty(COMMUNITY_FINDINGS),
    )


def is_attribute(entity_id: str) -> bool:
    return entity_id.startswith(ATTRIBUTE_PREFIXES)


# -- frames of a hierarchy ---------------------------------------------------------------------
def hierarchy_frames(
    h: Hierarchy, names: pl.DataFrame, clustering_id: str
) -> tuple[pl.DataFrame, pl.DataFrame]:
    ids = h.ids
    node_ids = h.projection.node_ids
    m = member_rows(h)
    # Typed, so that an empty graph (nothing clustered yet) joins like any other.
    node_frame = pl.DataFrame(
        {
            "node": pl.Series(np.arange(len(node_ids)), dtype=pl.Int64),
            "entity_id": pl.Series(list(node_ids), dtype=pl.String),
        }
    )
    members = (
        m.join(node_frame, on="node")
        .with_columns(
            pl.Series(
                "community_id", [ids[c] for c in m.get_column("c").to_list()], dtype=pl.String
            )
        )
        .join(names, on="entity_id", how="left")
        .select("community_id", "level", "entity_id", "entity_type", "name", "weight")
    )
    members = conform(members, COMMUNITY_MEMBERS)
    companies = members.filter(pl.col("entity_type") == "company").group_by("community_id").len()
    kid_count = (
        np.bincount(h.parent[h.parent >= 0], minlength=h.count)
        if h.count
        else np.zeros(0, dtype=np.int64)
    )
    communities = pl.DataFrame(
        {
            "community_id": ids,
            "level": h.level.astype(np.int32),
            "parent_id": [ids[p] if p >= 0 else None for p in h.parent.tolist()],
            "size": h.size,
            "children": kid_count.astype(np.int32),
            "is_leaf": h.is_leaf,
            "weight": h.weight,
        },
        schema_overrides={"community_id": pl.String, "parent_id": pl.String},
    )
    communities = communities.join(
        companies.rename({"len": "companies"}), on="community_id", how="left"
    ).with_columns(
        pl.col("companies").fill_null(0).cast(pl.Int64),
        pl.lit(clustering_id).alias("clustering_id"),
        pl.lit("none").alias("report_state"),
        pl.lit(None, dtype=pl.Int64).alias("dirty_since"),
        pl.lit(None, dtype=pl.String).alias("withheld_reason"),
    )
    return conform(communities, STATE), members


def homes(edges: pl.DataFrame, node_ids: list[str], h: Hierarchy) -> pl.DataFrame:
    """Each edge's home: the deepest community holding both ends (a relation), or the leaf of its
    subject (a risk exposure); relations between two roots have none."""
    if not edges.height or not h.depth:
        return empty(EDGE_HOME)
    index = {e: i for i, e in enumerate(node_ids)}
    subj = np.asarray(
        [index.get(s, -1) for s in edges.get_column("subject_id").to_list()], dtype=np.int64
    )
    obj = np.asarray(
        [index.get(o, -1) for o in edges.get_column("object_id").to_list()], dtype=np.int64
    )
    risk = (edges.get_column("kind") == RISK_EDGE).to_numpy()
    home = np.full(edges.height, -1, dtype=np.int64)
    ok = subj >= 0
    for depth in range(h.depth):
        at = h.paths[depth]
        same = ok & (obj >= 0) & ~risk
        same[same] = at[subj[same]] == at[obj[same]]
        home[same] = at[subj[same]]
    leaf = h.paths[-1]
    home[risk & ok] = leaf[subj[risk & ok]]
    keep = home >= 0
    ids = np.asarray(h.ids, dtype=object)
    return pl.DataFrame(
        {
            "edge_id": edges.get_column("edge_id").filter(pl.Series(keep)),
            "subject_id": edges.get_column("subject_id").filter(pl.Series(keep)),
            "object_id": edges.get_column("object_id").filter(pl.Series(keep)),
            "community_id": pl.Series(ids[home[keep]].tolist(), dtype=pl.String),
            "kind": edges.get_column("kind").filter(pl.Series(keep)),
        }
    )


def homes_from_paths(edges: pl.DataFrame, paths: pl.DataFrame) -> pl.DataFrame:
    """`homes` for a few edges, from stored memberships (entity_id, level, community_id)."""
    rel = edges.filter(pl.col("kind") == RELATION_EDGE)
    both = (
        rel.select("edge_id", "subject_id", "object_id", "kind")
        .join(paths.rename({"entity_id": "subject_id", "community_id": "cs"}), on="subject_id")
        .join(
            paths.rename({"entity_id": "object_id", "community_id": "co"}),
            on=["object_id", "level"],
        )
        .filter(pl.col("cs") == pl.col("co"))
        .sort("level", descending=True)
        .group_by("edge_id", maintain_order=True)
        .agg(
            pl.col("subject_id").first(),
            pl.col("object_id").first(),
            pl.col("cs").first().alias("community_id"),
            pl.col("kind").first(),
        )
    )
    leaf = (
        paths.sort("level", descending=True)
        .group_by("entity_id", maintain_order=True)
        .agg(pl.col("community_id").first())
    )
    risk = (
        edges.filter(pl.col("kind") == RISK_EDGE)
        .select("edge_id", "subject_id", "object_id", "kind")
        .join(leaf.rename({"entity_id": "subject_id"}), on="subject_id")
    )
    return pl.concat([both.select(list(EDGE_HOME)), risk.select(list(EDGE_HOME))])


def amendments(filings: pl.DataFrame) -> dict[str, str]:
    """filing id → the id of a later amendment of it: the same filer, form + '/A', and the same
    fiscal period, filed later."""
    if not filings.height:
        return {}
    amended = filings.filter(pl.col("form").str.ends_with("/A")).with_columns(
        pl.col("form").str.strip_suffix("/A").alias("base")
    )
    if not amended.height:
        return {}
    pairs = filings.join(
        amended.select(
            "cik",
            "base",
            "fiscal_label",
            pl.col("filing_id").alias("by"),
            pl.col("filed_date").alias("by_date"),
        ),
        left_on=["cik", "form", "fiscal_label"],
        right_on=["cik", "base", "fiscal_label"],
    )
    pairs = pairs.filter(
        pl.col("by_date").is_null()
        | pl.col("filed_date").is_null()
        | (pl.col("by_date") > pl.col("filed_date"))
    )
    return dict(
        zip(pairs.get_column("filing_id").to_list(), pairs.get_column("by").to_list(), strict=True)
    )
