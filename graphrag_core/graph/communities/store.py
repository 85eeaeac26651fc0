"""The working store of the communities stage: one DuckDB file (`<data root>/graph/
communities.duckdb`) beside the graph's, holding the hierarchy, where each edge lives in it, the
reports and their findings, and what has changed since each was built.

    cluster        hierarchical Leiden over the whole graph (new communities; a report whose
                   community came back with the same members and children, clean, is kept)
    apply_changes  reads the graph updates since the last one applied (`graph_changes`): every
                   community holding a touched entity is marked dirty; a new entity joins the
                   community of its strongest neighbor (or becomes a singleton root); a report
                   whose source filings were removed, changed (revoked, re-filed) or amended is
                   withheld until it is rebuilt
    summarize      builds the reports of the communities that have none (and, on a refresh, of
                   the dirty and withheld ones), deepest level first, each parent from its own
                   edges and its children's reports

Each step runs in one transaction. Between refreshes a dirty community's report is served with
`stale: true` and its `as_of`; a withheld one is not served at all.
"""

from __future__ import annotations

import datetime as dt
import time
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl

from graphrag_core.common.ids import content_hash, sha256_text
from graphrag_core.graph.communities.clustering import (
    ATTRIBUTE_PREFIXES,
    Hierarchy,
    Parameters,
    hierarchical_leiden,
    member_rows,
    project,
)
from graphrag_core.graph.communities.reports import (
    ExtractiveSummarizer,
    LevelInputs,
    Summarizer,
    build_level,
)
from graphrag_core.graph.communities.view import RELATION_EDGE, RISK_EDGE, GraphView
from graphrag_core.graph.graph_store import GRAPH_DIR
from graphrag_core.settings import CommunitySettings
from graphrag_core.store.snapshot_tables import CommunityTables
from graphrag_core.tables.duckdb_store import sql_type as _sql_type
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

_STATE: Schema = {
    **{k: v for k, v in COMMUNITIES.items() if k not in ("report_status", "status_reason")},
    "report_state": pl.String,  # none | built | no_evidence
    "dirty_since": pl.Int64,  # the graph update that first touched it since its report was built
    "withheld_reason": pl.String,
}
_EDGE_HOME: Schema = {
    "edge_id": pl.String,
    "subject_id": pl.String,
    "object_id": pl.String,
    "community_id": pl.String,
    "kind": pl.String,
}
_SOURCE = pl.Struct({"filing_id": pl.String, "digest": pl.String})
_REPORT_STATE: Schema = {
    **{k: v for k, v in COMMUNITY_REPORTS.items() if k != "stale"},
    "source_digests": pl.List(_SOURCE),
    # Digest of the edges (id and evidence count) in the community and beneath it when the
    # report was built: a community whose edges came back the same is clean again.
    "basis": pl.String,
}


def communities_path(data_root: Path) -> Path:
    return data_root / GRAPH_DIR / COMMUNITIES_DB


def _type(dtype: Any) -> str:
    if isinstance(dtype, pl.Datetime):
        return "TIMESTAMPTZ" if dtype.time_zone else "TIMESTAMP"
    return _sql_type(dtype)


def _create(name: str, schema: Schema) -> str:
    cols = ", ".join(f'"{c}" {_type(t)}' for c, t in schema.items())
    return f"CREATE TABLE IF NOT EXISTS {name} ({cols})"


_SCHEMA_SQL = [
    "CREATE TABLE IF NOT EXISTS meta (key VARCHAR, value VARCHAR)",
    _create("communities", _STATE),
    _create("members", COMMUNITY_MEMBERS),
    _create("levels", COMMUNITY_LEVELS),
    _create("edge_home", _EDGE_HOME),
    _create("reports", _REPORT_STATE),
    _create("findings", COMMUNITY_FINDINGS),
    # The filings (id, claims digest) as of the last withholding check.
    "CREATE TABLE IF NOT EXISTS filings_seen (filing_id VARCHAR, digest VARCHAR)",
]


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
class _GraphSlice:
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


def _is_attribute(entity_id: str) -> bool:
    return entity_id.startswith(ATTRIBUTE_PREFIXES)


class CommunityStore:
    """The communities stage's tables in one DuckDB file (or in memory when `path` is None)."""

    def __init__(self, path: Path | None, *, read_only: bool = False):
        self.path = path
        if read_only:
            if path is None or not path.exists():
                raise FileNotFoundError(f"{path}: no communities have been built yet")
            self.con = duckdb.connect(str(path), read_only=True)
            return
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.con = duckdb.connect(str(path) if path else ":memory:")
        for sql in _SCHEMA_SQL:
            self._run(sql)

    @classmethod
    def under(cls, data_root: Path, *, read_only: bool = False) -> CommunityStore:
        return cls(communities_path(data_root), read_only=read_only)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> CommunityStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing --------------------------------------------------------------------------
    def _run(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        """Execute and fetch to the end (DuckDB refuses new work while a result is unfinished)."""
        return self.con.execute(sql, params or []).fetchall()

    def _get(self, key: str) -> str | None:
        rows = self._run("SELECT value FROM meta WHERE key = ?", [key])
        row = rows[0] if rows else None
        return None if row is None else str(row[0])

    def _set(self, key: str, value: object) -> None:
        self._run("DELETE FROM meta WHERE key = ?", [key])
        self._run("INSERT INTO meta VALUES (?, ?)", [key, str(value)])

    def _frame(self, sql: str, schema: Schema | None = None, params: Any = None) -> pl.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            table = self.con.execute(sql, params or []).to_arrow_table()
        frame = pl.from_arrow(table)
        assert isinstance(frame, pl.DataFrame)
        if schema is not None:
            return conform(frame, schema) if frame.height else empty(schema)
        return frame

    def _insert(self, table: str, frame: pl.DataFrame) -> None:
        if not frame.height:
            return
        self.con.register("_fresh", frame.to_arrow())
        try:
            self._run(f"INSERT INTO {table} BY NAME SELECT * FROM _fresh")
        finally:
            self.con.unregister("_fresh")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._run("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self._run("ROLLBACK")
            raise
        self._run("COMMIT")

    def clustered(self) -> bool:
        return self._get("clustering_id") is not None

    def applied_update(self) -> int:
        return int(self._get("applied_update") or 0)

    # -- clustering --------------------------------------------------------------------------
    def cluster(self, view: GraphView, settings: CommunitySettings) -> ClusterReport:
        """Hierarchical Leiden over the whole graph; replaces every community."""
        started = time.perf_counter()
        entities = view.entities()
        edges = view.clusterable()
        nodes = [e for e in entities.get_column("entity_id").to_list() if not _is_attribute(e)]
        relation_edges = edges.filter(pl.col("kind") == RELATION_EDGE)
        proj = project(
            nodes,
            relation_edges.select(
                "subject_id", "object_id", pl.col("evidence_count").alias("weight")
            ),
        )
        params = parameters(settings)
        t0 = time.perf_counter()
        h = hierarchical_leiden(proj, params)
        leiden_s = time.perf_counter() - t0
        version = view.version()
        clustering_id = content_hash(
            version,
            proj.nodes,
            proj.edges,
            float(proj.weight.sum()),
            sorted(params.as_dict().items()),
            length=16,
        )
        names = entities.select("entity_id", "entity_type", "name")
        communities, members = _hierarchy_frames(h, names, clustering_id)
        homes = _homes(edges, proj.node_ids, h)
        levels = (
            pl.DataFrame(
                [{"clustering_id": clustering_id, **lv.__dict__} for lv in h.levels],
                schema=COMMUNITY_LEVELS,
            )
            if h.levels
            else empty(COMMUNITY_LEVELS)
        )
        with self._transaction():
            kept = self._keep_reports(communities)
            self._run("DELETE FROM communities")
            self._run("DELETE FROM members")
            self._run("DELETE FROM levels")
            self._run("DELETE FROM edge_home")
            self._insert(
                "communities",
                communities.with_columns(
                    pl.when(
                        pl.col("community_id").is_in(pl.Series(kept, dtype=pl.String).implode())
                    )
                    .then(pl.lit("built"))
                    .otherwise(pl.lit("none"))
                    .alias("report_state")
                ),
            )
            self._insert("members", members)
            self._insert("levels", levels)
            self._insert("edge_home", homes)
            if not kept:
                # Every report will be built from the filings as they are now.
                self._replace_seen(view.filings())
            self._set("clustering_id", clustering_id)
            self._set("applied_update", version)
            self._set("clustered_at", dt.datetime.now(dt.UTC).isoformat())
            self._set("parameters", params.as_dict())
        return ClusterReport(
            clustering_id=clustering_id,
            nodes=proj.nodes,
            pairs=proj.edges,
            communities=communities.height,
            levels=[lv.__dict__ for lv in h.levels],
            reports_kept=len(kept),
            leiden_s=leiden_s,
            seconds=time.perf_counter() - started,
        )

    def _keep_reports(self, fresh: pl.DataFrame) -> list[str]:
        """Reports of communities that came back identical (same id, so the same members; the
        same children) and clean; every other report and finding is deleted."""
        old = self._frame(
            "SELECT c.community_id, c.dirty_since, c.withheld_reason, "
            "list(k.community_id ORDER BY k.community_id) FILTER (WHERE k.community_id IS NOT NULL) AS kids "
            "FROM communities c LEFT JOIN communities k ON k.parent_id = c.community_id "
            "WHERE c.report_state = 'built' GROUP BY ALL"
        )
        kept: list[str] = []
        if old.height and fresh.height:
            kids = (
                fresh.filter(pl.col("parent_id").is_not_null())
                .group_by("parent_id")
                .agg(pl.col("community_id").sort().alias("kids"))
            )
            new_kids = dict(
                zip(
                    kids.get_column("parent_id").to_list(),
                    kids.get_column("kids").to_list(),
                    strict=True,
                )
            )
            ids = set(fresh.get_column("community_id").to_list())
            for row in old.iter_rows(named=True):
                cid = row["community_id"]
                if (
                    cid in ids
                    and row["dirty_since"] is None
                    and row["withheld_reason"] is None
                    and list(row["kids"] or []) == list(new_kids.get(cid, []))
                ):
                    kept.append(cid)
        with self._ids(kept) as wanted:
            self._run(f"DELETE FROM reports WHERE community_id NOT IN (SELECT id FROM {wanted})")
            self._run(f"DELETE FROM findings WHERE community_id NOT IN (SELECT id FROM {wanted})")
        return kept

    @contextmanager
    def _ids(self, values: Iterable[str]) -> Iterator[str]:
        name = f"_ids_{abs(hash(id(values))) % 10**9}"
        self.con.register(
            name, pl.DataFrame({"id": pl.Series(list(values), dtype=pl.String)}).to_arrow()
        )
        try:
            yield name
        finally:
            self.con.unregister(name)

    # -- staleness -----------------------------------------------------------------------------
    def apply_changes(self, view: GraphView) -> ApplyReport:
        """Mark what the graph updates since the last one applied made dirty (see the module)."""
        started = time.perf_counter()
        last = self.applied_update()
        version = view.version()
        changes = view.changes_since(last)
        touched = sorted(
            {e for e in changes.get_column("entity_id").to_list() if not _is_attribute(e)}
        )
        with self._transaction():
            added_members, added_communities = self._adopt(view, touched) if touched else (0, 0)
            dirtied = self._mark_dirty(touched, max(version, 1)) if touched else 0
            if touched:
                self._rehome(view, touched)
            withheld = self._withhold(view)
            restored = self._restore_unchanged(view)
            self._set("applied_update", version)
        return ApplyReport(
            updates=int(changes.get_column("update_id").n_unique()) if changes.height else 0,
            entities_touched=len(touched),
            members_added=added_members,
            communities_added=added_communities,
            dirtied=dirtied,
            restored=restored,
            withheld=withheld,
            dirty_fraction=self.dirty_fraction(),
            seconds=time.perf_counter() - started,
        )

    def _bases(
        self, view: GraphView, community_ids: Iterable[str], edges: pl.DataFrame | None = None
    ) -> dict[str, str]:
        """Per community: the digest of what its report is built from, a Merkle digest: its own
        edges (id, evidence count) and its children's digests, so that no edge is read twice.
        A child's digest is the one computed in this call when it is among `community_ids`,
        else its report's, else empty (a child with no report has no evidence). Deepest first.
        `edges` (community_id, edge_id, evidence_count), when the caller has read them already."""
        ids = list(dict.fromkeys(community_ids))
        if not ids:
            return {}
        with self._ids(ids) as wanted:
            homes = self._frame(
                f"SELECT community_id, edge_id FROM edge_home SEMI JOIN {wanted} ON community_id = id"
            )
            kids = self._frame(
                f"SELECT c.parent_id, c.community_id, r.basis FROM communities c "
                f"LEFT JOIN reports r USING (community_id) SEMI JOIN {wanted} ON c.parent_id = id"
            )
            levels = dict(
                self._frame(
                    f"SELECT community_id, level FROM communities SEMI JOIN {wanted} ON community_id = id"
                ).rows()
            )
        own: dict[str, str] = {}
        if homes.height:
            counts = (
                edges.select("edge_id", "evidence_count")
                if edges is not None
                else view.edges(homes.get_column("edge_id").to_list()).select(
                    "edge_id", "evidence_count"
                )
            )
            keyed = (
                homes.join(counts, on="edge_id", how="left")
                .sort("community_id", "edge_id")
                .group_by("community_id", maintain_order=True)
                .agg(
                    pl.format("{}:{}", "edge_id", pl.col("evidence_count").fill_null(-1)).str.join(
                        ","
                    )
                )
            )
            own = dict(keyed.rows())
        children: dict[str, list[tuple[str, str | None]]] = {}
        for parent, child, basis in kids.rows():
            children.setdefault(parent, []).append((child, basis))
        out: dict[str, str] = {}
        for cid in sorted(ids, key=lambda c: -levels.get(c, 0)):
            parts = sorted(
                f"{k}={out.get(k) or basis or '-'}" for k, basis in children.get(cid, [])
            )
            out[cid] = sha256_text(own.get(cid, "") + "|" + ",".join(parts))
        return {cid: out[cid] for cid in ids}

    def _restore_unchanged(self, view: GraphView) -> int:
        """Clear the dirty mark of every report (not withheld) whose community's edges are again
        exactly those it was built from: an update that took edges away and a later one that
        gave them back (a regressed extractor, then the fixed one) leave nothing stale."""
        dirty = self._frame(
            "SELECT r.community_id, r.basis FROM reports r JOIN communities c USING (community_id) "
            "WHERE c.dirty_since IS NOT NULL AND c.withheld_reason IS NULL AND r.basis IS NOT NULL"
        )
        if not dirty.height:
            return 0
        # Every dirty community's digest as of now (a dirty child's too: its parent's rests on it).
        now = self._bases(
            view,
            self._frame("SELECT community_id FROM communities WHERE dirty_since IS NOT NULL")
            .get_column("community_id")
            .to_list(),
        )
        same = [cid for cid, basis in dirty.iter_rows() if now.get(cid) == basis]
        if not same:
            return 0
        with self._ids(same) as wanted:
            self._run(
                f"UPDATE communities SET dirty_since = NULL WHERE community_id IN (SELECT id FROM {wanted})"
            )
        return len(same)

    def _paths(self, entity_ids: Iterable[str] | None = None) -> pl.DataFrame:
        """entity_id, level, community_id of every membership (of `entity_ids` only)."""
        if entity_ids is None:
            return self._frame("SELECT entity_id, level, community_id FROM members")
        with self._ids(entity_ids) as wanted:
            return self._frame(
                f"SELECT entity_id, level, community_id FROM members SEMI JOIN {wanted} ON entity_id = id"
            )

    def _adopt(self, view: GraphView, touched: list[str]) -> tuple[int, int]:
        """New entities join the leaf of their strongest member neighbor (and its ancestors); an
        entity with none becomes a singleton root. Rounds, so that a chain of new entities
        follows the first that found a home."""
        known = set(self._paths(touched).get_column("entity_id").to_list())
        new = [e for e in touched if e not in known]
        if not new:
            return 0, 0
        names = view.entities().select("entity_id", "entity_type", "name")
        edges = view.clusterable_touching(new).filter(pl.col("kind") == RELATION_EDGE)
        pairs = pl.concat(
            [
                edges.select(
                    pl.col("subject_id").alias("entity_id"),
                    pl.col("object_id").alias("neighbor_id"),
                    "evidence_count",
                ),
                edges.select(
                    pl.col("object_id").alias("entity_id"),
                    pl.col("subject_id").alias("neighbor_id"),
                    "evidence_count",
                ),
            ]
        ).filter(pl.col("entity_id").is_in(pl.Series(new, dtype=pl.String).implode()))
        leaf = self._frame(
            "SELECT entity_id, arg_max(community_id, level) AS leaf FROM members GROUP BY entity_id"
        )
        leaf_of = dict(
            zip(
                leaf.get_column("entity_id").to_list(),
                leaf.get_column("leaf").to_list(),
                strict=True,
            )
        )
        chain = self._frame("SELECT community_id, level, parent_id FROM communities")
        parent_of = dict(
            zip(
                chain.get_column("community_id").to_list(),
                chain.get_column("parent_id").to_list(),
                strict=True,
            )
        )
        level_of = dict(
            zip(
                chain.get_column("community_id").to_list(),
                chain.get_column("level").to_list(),
                strict=True,
            )
        )
        by_entity: dict[str, list[tuple[str, int]]] = {}
        for ent, nb, w in pairs.iter_rows():
            by_entity.setdefault(ent, []).append((nb, int(w or 0)))
        homeless = sorted(new, key=lambda e: (-sum(w for _, w in by_entity.get(e, [])), e))
        placed: dict[str, str] = {}
        new_roots: list[str] = []
        while homeless:
            progress = False
            for ent in list(homeless):
                votes: dict[str, int] = {}
                for nb, w in by_entity.get(ent, []):
                    home = placed.get(nb) or leaf_of.get(nb)
                    if home is not None:
                        votes[home] = votes.get(home, 0) + w
                if votes:
                    placed[ent] = min(votes, key=lambda c: (-votes[c], c))
                    homeless.remove(ent)
                    progress = True
            if not progress:
                ent = homeless.pop(0)
                root = "L0-" + content_hash(ent, length=12)
                placed[ent] = root
                new_roots.append(root)
                parent_of[root] = None
                level_of[root] = 0
        name_of = {r[0]: (r[1], r[2]) for r in names.iter_rows()}
        rows = []
        for ent, home in placed.items():
            c: str | None = home
            while c is not None:
                etype, name = name_of.get(ent, (None, ent))
                rows.append(
                    {
                        "community_id": c,
                        "level": level_of[c],
                        "entity_id": ent,
                        "entity_type": etype,
                        "name": name,
                        "weight": 0.0,
                    }
                )
                c = parent_of.get(c)
        clustering_id = self._get("clustering_id")
        if new_roots:
            self._insert(
                "communities",
                pl.DataFrame(
                    [
                        {
                            "community_id": r,
                            "level": 0,
                            "parent_id": None,
                            "size": 0,
                            "companies": 0,
                            "children": 0,
                            "is_leaf": True,
                            "weight": 0.0,
                            "clustering_id": clustering_id,
                            "report_state": "none",
                            "dirty_since": None,
                            "withheld_reason": None,
                        }
                        for r in new_roots
                    ],
                    schema=_STATE,
                ),
            )
        self._insert("members", pl.DataFrame(rows, schema=COMMUNITY_MEMBERS))
        self._run(
            "UPDATE communities SET size = s.n, companies = s.k FROM (SELECT community_id, count(*) AS n, "
            "count(*) FILTER (WHERE entity_type = 'company') AS k FROM members GROUP BY community_id) s "
            "WHERE communities.community_id = s.community_id"
        )
        return len(placed), len(new_roots)

    def _mark_dirty(self, touched: list[str], update_id: int) -> int:
        with self._ids(touched) as wanted:
            count = self._run(
                f"UPDATE communities SET dirty_since = coalesce(dirty_since, ?) WHERE community_id IN "
                f"(SELECT community_id FROM members SEMI JOIN {wanted} ON entity_id = id)",
                [update_id],
            )
        return int(count[0][0]) if count else 0

    def _rehome(self, view: GraphView, touched: list[str]) -> None:
        """Where the edges of the touched entities now live."""
        with self._ids(touched) as wanted:
            self._run(
                f"DELETE FROM edge_home WHERE subject_id IN (SELECT id FROM {wanted}) "
                f"OR object_id IN (SELECT id FROM {wanted})"
            )
        edges = view.clusterable_touching(touched)
        if not edges.height:
            return
        ends = set(edges.get_column("subject_id").to_list()) | set(
            edges.get_column("object_id").to_list()
        )
        paths = self._paths(e for e in ends if not _is_attribute(e))
        self._insert("edge_home", _homes_from_paths(edges, paths))

    def _withhold(self, view: GraphView) -> int:
        """Withhold each report whose source filings were removed, changed (their claims'
        digest) or amended (the first such filing by id names the reason), and lift it from
        those whose sources are back as they were. In SQL: a refresh touching 1% of the
        communities must not walk every report's sources in Python."""
        filings = view.filings()
        now = filings.select("filing_id", "digest")
        seen = self._frame("SELECT filing_id, digest FROM filings_seen")
        amended = amendments(filings)
        # Only reports resting on a filing that changed since the last check (removed, another
        # digest, or amended by a filing new since then) can newly need withholding, and only
        # withheld ones lifting: the others' sources are as they were when last checked.
        changed = set(
            seen.join(now, on=["filing_id", "digest"], how="anti").get_column("filing_id").to_list()
        )
        new_ids = set(now.join(seen, on="filing_id", how="anti").get_column("filing_id").to_list())
        changed |= {f for f, by in amended.items() if by in new_ids}
        self._replace_seen(now)
        if not seen.height:
            scope = "SELECT community_id FROM reports"  # never checked: all of them
        else:
            scope = (
                "SELECT community_id FROM reports WHERE list_has_any(source_filings, $changed) "
                "UNION SELECT community_id FROM communities WHERE withheld_reason IS NOT NULL"
            )
        amended = amendments(filings)
        self.con.register("_filings_now", filings.select("filing_id", "digest").to_arrow())
        self.con.register(
            "_amended",
            pl.DataFrame(
                {"filing_id": list(amended), "by": list(amended.values())},
                schema={"filing_id": pl.String, "by": pl.String},
            ).to_arrow(),
        )
        try:
            self._run(
                f"""
                CREATE OR REPLACE TEMP TABLE _withheld AS
                WITH sources AS (
                    SELECT community_id, unnest(source_digests, recursive := true) FROM reports
                    WHERE community_id IN ({scope})
                ), failing AS (
                    SELECT s.community_id, s.filing_id,
                           CASE WHEN f.filing_id IS NULL THEN 'source filing ' || s.filing_id || ' was removed'
                                WHEN f.digest IS DISTINCT FROM s.digest
                                    THEN 'source filing ' || s.filing_id || ' changed since the report was built'
                                WHEN a.by IS NOT NULL
                                    THEN 'source filing ' || s.filing_id || ' was amended by ' || a.by
                           END AS reason
                    FROM sources s
                    LEFT JOIN _filings_now f ON f.filing_id = s.filing_id
                    LEFT JOIN _amended a ON a.filing_id = s.filing_id
                )
                SELECT community_id, arg_min(reason, filing_id) AS reason
                FROM failing WHERE reason IS NOT NULL GROUP BY community_id
            """,
                {"changed": sorted(changed)} if seen.height else None,
            )
            self._run(
                "UPDATE communities SET withheld_reason = w.reason, "
                "dirty_since = coalesce(dirty_since, ?) FROM _withheld w "
                "WHERE communities.community_id = w.community_id "
                "AND communities.withheld_reason IS DISTINCT FROM w.reason",
                [max(view.version(), 1)],
            )
            # A report whose sources are again exactly those it was built from (a filing put
            # back, its claims as they were) is no longer withheld; whether it is stale is then
            # up to its edges (`_restore_unchanged`).
            self._run(
                "UPDATE communities SET withheld_reason = NULL WHERE withheld_reason IS NOT NULL "
                "AND community_id NOT IN (SELECT community_id FROM _withheld)"
            )
            withheld = int(
                self._run("SELECT count(*) FROM communities WHERE withheld_reason IS NOT NULL")[0][
                    0
                ]
            )
            self._run("DROP TABLE _withheld")
        finally:
            self.con.unregister("_filings_now")
            self.con.unregister("_amended")
        return withheld

    def _replace_seen(self, filings: pl.DataFrame) -> None:
        """The filings (id, digest) as of this check, what the next one compares with."""
        self._run("DELETE FROM filings_seen")
        self._insert("filings_seen", filings.select("filing_id", "digest"))

    def dirty_fraction(self) -> float:
        [row] = self._run(
            "SELECT count(*) FILTER (WHERE dirty_since IS NOT NULL OR withheld_reason IS NOT NULL), count(*) FROM communities"
        )
        return (row[0] / row[1]) if row[1] else 0.0

    def mark_dirty(self, community_ids: Iterable[str], update_id: int = 1) -> int:
        """Mark communities dirty by id (an operator's or a benchmark's hand)."""
        with self._ids(community_ids) as wanted:
            rows = self._run(
                f"UPDATE communities SET dirty_since = coalesce(dirty_since, ?) WHERE community_id IN (SELECT id FROM {wanted})",
                [update_id],
            )
        return int(rows[0][0]) if rows else 0

    # -- reports -----------------------------------------------------------------------------
    def summarize(
        self,
        view: GraphView,
        settings: CommunitySettings,
        *,
        summarizer: Summarizer | None = None,
        refresh: bool = False,
    ) -> SummaryReport:
        """Build the reports of every community without one and, with `refresh`, of every
        dirty or withheld one; deepest level first, so each parent reads fresh children."""
        started = time.perf_counter()
        summarizer = summarizer or ExtractiveSummarizer()
        where = "report_state = 'none'" + (
            " OR dirty_since IS NOT NULL OR withheld_reason IS NOT NULL" if refresh else ""
        )
        todo = self._frame(
            f"SELECT community_id, level FROM communities WHERE {where} ORDER BY level DESC, community_id"
        )
        built = no_evidence = findings = dropped = 0
        if not todo.height:
            return SummaryReport(summarizer.name, 0, 0, 0, 0, time.perf_counter() - started)
        version, as_of = view.version(), view.as_of()
        filings = view.filings()
        digests = dict(
            zip(
                filings.get_column("filing_id").to_list(),
                filings.get_column("digest").to_list(),
                strict=True,
            )
        )
        graph = self._read_graph(
            view,
            todo.get_column("community_id").to_list(),
            1 if summarizer.name == "extractive" else 2,
        )
        for level in sorted(set(todo.get_column("level").to_list()), reverse=True):
            targets = todo.filter(pl.col("level") == level)
            result = self._build(targets, graph, settings, summarizer, version, as_of)
            ids = targets.get_column("community_id").to_list()
            with self._transaction():
                with self._ids(ids) as wanted:
                    self._run(
                        f"DELETE FROM reports WHERE community_id IN (SELECT id FROM {wanted})"
                    )
                    self._run(
                        f"DELETE FROM findings WHERE community_id IN (SELECT id FROM {wanted})"
                    )
                    self._run(
                        f"UPDATE communities SET report_state = 'none', dirty_since = NULL, withheld_reason = NULL "
                        f"WHERE community_id IN (SELECT id FROM {wanted})"
                    )
                reports = result.reports.drop("stale").with_columns(
                    pl.col("source_filings")
                    .list.eval(
                        pl.struct(
                            pl.element().alias("filing_id"),
                            pl.element()
                            .replace_strict(digests, default=None, return_dtype=pl.String)
                            .alias("digest"),
                        )
                    )
                    .cast(pl.List(_SOURCE))
                    .alias("source_digests")
                )
                bases = self._bases(
                    view, result.reports.get_column("community_id").to_list(), graph.edges
                )
                reports = reports.with_columns(
                    pl.col("community_id")
                    .replace_strict(bases, default=None, return_dtype=pl.String)
                    .alias("basis")
                )
                self._insert("reports", reports)
                self._insert("findings", result.findings)
                done = result.reports.get_column("community_id").to_list()
                with self._ids(done) as wanted:
                    self._run(
                        f"UPDATE communities SET report_state = 'built' WHERE community_id IN (SELECT id FROM {wanted})"
                    )
                with self._ids(result.no_evidence) as wanted:
                    self._run(
                        f"UPDATE communities SET report_state = 'no_evidence' WHERE community_id IN (SELECT id FROM {wanted})"
                    )
            built += result.reports.height
            no_evidence += len(result.no_evidence)
            findings += result.findings.height
            dropped += result.dropped
        return SummaryReport(
            summarizer.name, built, no_evidence, findings, dropped, time.perf_counter() - started
        )

    def _read_graph(self, view: GraphView, community_ids: list[str], per_edge: int) -> _GraphSlice:
        """What the reports of `community_ids` read of the graph, in one query per relation
        (not one per level): their own edges, the newest `per_edge` citations of each, the
        filings behind each, and the names of their members, edge ends and risk categories."""
        with self._ids(community_ids) as wanted:
            homes = self._frame(
                f"SELECT edge_id, community_id FROM edge_home SEMI JOIN {wanted} ON community_id = id"
            )
            member_ids = self._frame(
                f"SELECT DISTINCT entity_id FROM members SEMI JOIN {wanted} ON community_id = id"
            ).get_column("entity_id")
        edge_ids = homes.get_column("edge_id").to_list()
        edges = (
            view.edges(edge_ids).join(homes, on="edge_id")
            if edge_ids
            else pl.DataFrame(
                schema={
                    "edge_id": pl.String,
                    "subject_id": pl.String,
                    "relation": pl.String,
                    "object_id": pl.String,
                    "evidence_count": pl.Int64,
                    "kind": pl.String,
                    "community_id": pl.String,
                }
            )
        )
        citations = (
            view.evidence(edge_ids, per_edge)
            if edge_ids
            else pl.DataFrame(
                schema={
                    "edge_id": pl.String,
                    "evidence_id": pl.String,
                    "filing_id": pl.String,
                    "chunk_id": pl.String,
                    "quote": pl.String,
                    "rank": pl.Int64,
                }
            )
        )
        edge_filings = (
            view.edge_filings(edge_ids)
            if edge_ids
            else pl.DataFrame(schema={"edge_id": pl.String, "filing_id": pl.String})
        )
        # Only the names these reports can mention (a refresh of a few communities must not read
        # every entity's): members (a child's partners and anchors are members of its parent),
        # edge ends, and the risk categories (a child's risks).
        mentioned = (
            pl.concat(
                [
                    member_ids.cast(pl.String),
                    edges.get_column("subject_id"),
                    edges.get_column("object_id"),
                ]
            )
            .unique()
            .to_list()
        )
        names = pl.concat(
            [
                view.names(mentioned),
                view.frame(
                    "SELECT entity_id, name, entity_type FROM entities WHERE entity_id LIKE 'RISK:%'"
                ),
            ]
        ).unique("entity_id")
        return _GraphSlice(edges=edges, citations=citations, edge_filings=edge_filings, names=names)

    def _build(
        self,
        targets: pl.DataFrame,
        graph: _GraphSlice,
        settings: CommunitySettings,
        summarizer: Summarizer,
        version: int,
        as_of: dt.date | None,
    ) -> Any:
        ids = targets.get_column("community_id").to_list()
        with self._ids(ids) as wanted:
            members = self._frame(
                f"SELECT community_id, entity_id, entity_type, name, weight FROM members "
                f"SEMI JOIN {wanted} ON community_id = id"
            )
            children = self._frame(
                f"SELECT community_id AS child_id, parent_id AS community_id FROM communities "
                f"SEMI JOIN {wanted} ON parent_id = id"
            )
        with self._ids(children.get_column("child_id").to_list()) as kids:
            child_reports = self._frame(
                f"SELECT * EXCLUDE (source_digests, basis) FROM reports SEMI JOIN {kids} ON community_id = id"
            )
            child_findings = self._frame(
                f"SELECT * FROM findings SEMI JOIN {kids} ON community_id = id", COMMUNITY_FINDINGS
            )
        edges = graph.edges.filter(
            pl.col("community_id").is_in(pl.Series(ids, dtype=pl.String).implode())
        )
        own = edges.select("edge_id")
        inputs = LevelInputs(
            targets=targets,
            members=members,
            own_edges=edges,
            citations=graph.citations.join(own, on="edge_id", how="semi"),
            edge_filings=graph.edge_filings.join(own, on="edge_id", how="semi"),
            children=children,
            child_reports=child_reports if child_reports.height else pl.DataFrame(),
            child_findings=child_findings,
            names=graph.names,
        )
        return build_level(
            inputs,
            findings_per_report=settings.findings_per_report,
            names_per_finding=settings.names_per_finding,
            summarizer=summarizer,
            graph_version=version,
            as_of=as_of,
            evidence_in_prompt=settings.evidence_in_prompt,
        )

    # -- reading -----------------------------------------------------------------------------
    def tables(self) -> CommunityTables:
        status = """
            CASE WHEN report_state = 'no_evidence' THEN 'no_evidence'
                 WHEN report_state = 'none' THEN 'missing'
                 WHEN withheld_reason IS NOT NULL THEN 'withheld'
                 WHEN dirty_since IS NOT NULL THEN 'stale' ELSE 'current' END"""
        communities = self._frame(
            f"SELECT * EXCLUDE (report_state, dirty_since, withheld_reason), {status} AS report_status, "
            "CASE WHEN withheld_reason IS NOT NULL THEN withheld_reason "
            "     WHEN dirty_since IS NOT NULL AND report_state = 'built' THEN "
            "       'members gained or lost edges in graph update ' || dirty_since || ' and later' END AS status_reason "
            "FROM communities ORDER BY level, size DESC, community_id",
            COMMUNITIES,
        )
        served = (
            "SELECT community_id, dirty_since IS NOT NULL AS stale FROM communities "
            "WHERE report_state = 'built' AND withheld_reason IS NULL"
        )
        reports = self._frame(
            f"SELECT r.* EXCLUDE (source_digests, basis), s.stale FROM reports r JOIN ({served}) s USING (community_id) "
            "ORDER BY r.level, r.impact_rating DESC, r.community_id",
            COMMUNITY_REPORTS,
        )
        findings = self._frame(
            f"SELECT f.* FROM findings f SEMI JOIN ({served}) s USING (community_id) ORDER BY community_id, rank",
            COMMUNITY_FINDINGS,
        )
        return CommunityTables(
            communities=communities,
            members=self._frame(
                "SELECT * FROM members ORDER BY community_id, weight DESC, entity_id",
                COMMUNITY_MEMBERS,
            ),
            levels=self._frame("SELECT * FROM levels ORDER BY level", COMMUNITY_LEVELS),
            reports=reports,
            findings=findings,
        )

    def counts(self) -> dict[str, Any]:
        rows = self.con.execute(
            "SELECT level, count(*), count(*) FILTER (WHERE dirty_since IS NOT NULL), "
            "count(*) FILTER (WHERE withheld_reason IS NOT NULL) FROM communities GROUP BY level ORDER BY level"
        ).fetchall()
        levels = self.con.execute("SELECT level, modularity FROM levels ORDER BY level").fetchall()
        return {
            "communities_by_level": {int(r[0]): int(r[1]) for r in rows},
            "dirty": sum(int(r[2]) for r in rows),
            "withheld": sum(int(r[3]) for r in rows),
            "modularity_by_level": {int(lv): float(m) for lv, m in levels},
            "reports": int(self._run("SELECT count(*) FROM reports")[0][0]),
        }


# -- frames of a hierarchy ---------------------------------------------------------------------
def _hierarchy_frames(
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
    return conform(communities, _STATE), members


def _homes(edges: pl.DataFrame, node_ids: list[str], h: Hierarchy) -> pl.DataFrame:
    """Each edge's home: the deepest community holding both ends (a relation), or the leaf of its
    subject (a risk exposure); relations between two roots have none."""
    if not edges.height or not h.depth:
        return empty(_EDGE_HOME)
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


def _homes_from_paths(edges: pl.DataFrame, paths: pl.DataFrame) -> pl.DataFrame:
    """`_homes` for a few edges, from stored memberships (entity_id, level, community_id)."""
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
    return pl.concat([both.select(list(_EDGE_HOME)), risk.select(list(_EDGE_HOME))])


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


def build_communities(
    view: GraphView, settings: CommunitySettings, summarizer: Summarizer | None = None
) -> CommunityTables:
    """Communities and reports of the graph in `view`, from scratch, in memory (what the
    working store holds after a full build, for callers without one)."""
    store = CommunityStore(None)
    try:
        store.cluster(view, settings)
        store.summarize(view, settings, summarizer=summarizer)
        return store.tables()
    finally:
        store.close()
