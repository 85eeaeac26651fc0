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

The connection (waiting for another process's lock, as the graph store's does), schema digest,
meta and transactions are the working-store base's (`tables/duckdb_store.py`); every statement is
a constant in `communities/queries.py`; the tables, reports and hierarchy frames are in
`store_model.py`, and their public names importable from here.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl

from graphrag_core.common.ids import content_hash, sha256_text
from graphrag_core.graph.communities import queries as q
from graphrag_core.graph.communities.clustering import hierarchical_leiden, project
from graphrag_core.graph.communities.reports import (
    ExtractiveSummarizer,
    LevelInputs,
    Summarizer,
    build_level,
)
from graphrag_core.graph.communities.store_model import (
    COMMUNITIES_DB,
    CURRENT,
    MISSING,
    NO_EVIDENCE,
    SOURCE,
    STALE,
    STATE,
    TABLES_DDL,
    WITHHELD,
    ApplyReport,
    ClusterReport,
    GraphSlice,
    SummaryReport,
    amendments,
    communities_path,
    empty_tables,
    hierarchy_frames,
    homes,
    homes_from_paths,
    is_attribute,
    parameters,
)
from graphrag_core.graph.communities.view import RELATION_EDGE, GraphView
from graphrag_core.settings import CommunitySettings
from graphrag_core.store.snapshot_tables import CommunityTables
from graphrag_core.tables.duckdb_store import DuckDBStore, id_frame
from graphrag_core.tables.schemas import (
    COMMUNITIES,
    COMMUNITY_FINDINGS,
    COMMUNITY_LEVELS,
    COMMUNITY_MEMBERS,
    COMMUNITY_REPORTS,
    empty,
)

# Names that have always been imported from here (callers need not know the split).
__all__ = [
    "COMMUNITIES_DB",
    "CURRENT",
    "MISSING",
    "NO_EVIDENCE",
    "STALE",
    "WITHHELD",
    "ApplyReport",
    "ClusterReport",
    "CommunityStore",
    "SummaryReport",
    "amendments",
    "build_communities",
    "communities_path",
    "empty_tables",
    "parameters",
]


class CommunityStore(DuckDBStore):
    """The communities stage's tables in one DuckDB file (or in memory when `path` is None)."""

    def __init__(self, path: Path | None, *, read_only: bool = False, lock_timeout_s: float = 0.0):
        if read_only and (path is None or not path.exists()):
            raise FileNotFoundError(f"{path}: no communities have been built yet")
        super().__init__(path, read_only=read_only, lock_timeout_s=lock_timeout_s)

    @classmethod
    def under(
        cls, data_root: Path, *, read_only: bool = False, lock_timeout_s: float = 0.0
    ) -> CommunityStore:
        return cls(communities_path(data_root), read_only=read_only, lock_timeout_s=lock_timeout_s)

    def __enter__(self) -> CommunityStore:
        return self

    def schema_statements(self) -> Sequence[str]:
        return TABLES_DDL

    @contextmanager
    def _wanted(self, values: Iterable[str], name: str = "wanted") -> Iterator[None]:
        """Ids as the relation `name` (column `id`) for the statements run inside."""
        with self.relation(name, id_frame(values)):
            yield

    def clustered(self) -> bool:
        return self.get_meta("clustering_id") is not None

    def applied_update(self) -> int:
        return self.meta_int("applied_update")

    # -- clustering --------------------------------------------------------------------------
    def cluster(self, view: GraphView, settings: CommunitySettings) -> ClusterReport:
        """Hierarchical Leiden over the whole graph; replaces every community."""
        started = time.perf_counter()
        entities = view.entities()
        edges = view.clusterable()
        nodes = [e for e in entities.get_column("entity_id").to_list() if not is_attribute(e)]
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
        communities, members = hierarchy_frames(h, names, clustering_id)
        edge_homes = homes(edges, proj.node_ids, h)
        levels = (
            pl.DataFrame(
                [{"clustering_id": clustering_id, **lv.__dict__} for lv in h.levels],
                schema=COMMUNITY_LEVELS,
            )
            if h.levels
            else empty(COMMUNITY_LEVELS)
        )
        with self.transaction():
            kept = self._keep_reports(communities)
            for sql in (q.CLEAR_COMMUNITIES, q.CLEAR_MEMBERS, q.CLEAR_LEVELS, q.CLEAR_EDGE_HOME):
                self.run(sql)
            self.insert(
                q.INSERT_COMMUNITIES,
                communities.with_columns(
                    pl.when(
                        pl.col("community_id").is_in(pl.Series(kept, dtype=pl.String).implode())
                    )
                    .then(pl.lit("built"))
                    .otherwise(pl.lit("none"))
                    .alias("report_state")
                ),
            )
            self.insert(q.INSERT_MEMBERS, members)
            self.insert(q.INSERT_LEVELS, levels)
            self.insert(q.INSERT_EDGE_HOME, edge_homes)
            if not kept:
                # Every report will be built from the filings as they are now.
                self._replace_seen(view.filings())
            self.set_meta("clustering_id", clustering_id)
            self.set_meta("applied_update", version)
            self.set_meta("clustered_at", dt.datetime.now(dt.UTC).isoformat())
            self.set_meta("parameters", params.as_dict())
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
        old = self.frame(q.BUILT_REPORTS)
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
        with self._wanted(kept):
            self.run(q.DELETE_REPORTS_NOT_WANTED)
            self.run(q.DELETE_FINDINGS_NOT_WANTED)
        return kept

    # -- staleness -----------------------------------------------------------------------------
    def apply_changes(self, view: GraphView) -> ApplyReport:
        """Mark what the graph updates since the last one applied made dirty (see the module)."""
        started = time.perf_counter()
        last = self.applied_update()
        version = view.version()
        changes = view.changes_since(last)
        touched = sorted(
            {e for e in changes.get_column("entity_id").to_list() if not is_attribute(e)}
        )
        with self.transaction():
            added_members, added_communities = self._adopt(view, touched) if touched else (0, 0)
            dirtied = self._mark_dirty(touched, max(version, 1)) if touched else 0
            if touched:
                self._rehome(view, touched)
            withheld = self._withhold(view)
            restored = self._restore_unchanged(view)
            self.set_meta("applied_update", version)
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
        with self._wanted(ids):
            edge_homes = self.frame(q.EDGE_HOMES_OF_WANTED)
            kids = self.frame(q.CHILD_BASES_OF_WANTED)
            levels = dict(self.frame(q.LEVELS_OF_WANTED).rows())
        own: dict[str, str] = {}
        if edge_homes.height:
            counts = (
                edges.select("edge_id", "evidence_count")
                if edges is not None
                else view.edges(edge_homes.get_column("edge_id").to_list()).select(
                    "edge_id", "evidence_count"
                )
            )
            keyed = (
                edge_homes.join(counts, on="edge_id", how="left")
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
        dirty = self.frame(q.DIRTY_BASES)
        if not dirty.height:
            return 0
        # Every dirty community's digest as of now (a dirty child's too: its parent's rests on it).
        now = self._bases(
            view, self.frame(q.DIRTY_COMMUNITIES).get_column("community_id").to_list()
        )
        same = [cid for cid, basis in dirty.iter_rows() if now.get(cid) == basis]
        if not same:
            return 0
        with self._wanted(same):
            self.run(q.CLEAN_WANTED)
        return len(same)

    def _paths(self, entity_ids: Iterable[str] | None = None) -> pl.DataFrame:
        """entity_id, level, community_id of every membership (of `entity_ids` only)."""
        if entity_ids is None:
            return self.frame(q.MEMBERSHIPS)
        with self._wanted(entity_ids):
            return self.frame(q.MEMBERSHIPS_OF_WANTED)

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
        leaf_of = dict(self.frame(q.LEAF_OF_ENTITY).rows())
        chain = self.frame(q.HIERARCHY)
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
        if new_roots:
            self.insert(
                q.INSERT_COMMUNITIES, _singleton_roots(new_roots, self.get_meta("clustering_id"))
            )
        self.insert(q.INSERT_MEMBERS, pl.DataFrame(rows, schema=COMMUNITY_MEMBERS))
        self.run(q.RECOUNT_SIZES)
        return len(placed), len(new_roots)

    def _mark_dirty(self, touched: list[str], update_id: int) -> int:
        with self._wanted(touched):
            return self.count(q.MARK_DIRTY_HOLDING_WANTED, {"update_id": update_id})

    def _rehome(self, view: GraphView, touched: list[str]) -> None:
        """Where the edges of the touched entities now live."""
        with self._wanted(touched):
            self.run(q.DELETE_EDGE_HOME_OF_WANTED)
        edges = view.clusterable_touching(touched)
        if not edges.height:
            return
        ends = set(edges.get_column("subject_id").to_list()) | set(
            edges.get_column("object_id").to_list()
        )
        paths = self._paths(e for e in ends if not is_attribute(e))
        self.insert(q.INSERT_EDGE_HOME, homes_from_paths(edges, paths))

    def _withhold(self, view: GraphView) -> int:
        """Withhold each report whose source filings were removed, changed (their claims'
        digest) or amended (the first such filing by id names the reason), and lift it from
        those whose sources are back as they were. In SQL: a refresh touching 1% of the
        communities must not walk every report's sources in Python."""
        filings = view.filings()
        now = filings.select("filing_id", "digest")
        seen = self.frame(q.FILINGS_SEEN)
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
        amended_by = pl.DataFrame(
            {"filing_id": list(amended), "by": list(amended.values())},
            schema={"filing_id": pl.String, "by": pl.String},
        )
        with self.relation("filings_now", now), self.relation("amended", amended_by):
            # Never checked: every report is looked at.
            scope = {"everything": not seen.height, "changed": sorted(changed)}
            self.run(q.CREATE_WITHHELD, scope)
            self.run(q.WITHHOLD, {"update_id": max(view.version(), 1)})
            self.run(q.LIFT_WITHHELD)
            withheld = self.count(q.WITHHELD_COUNT)
            self.run(q.DROP_WITHHELD)
        return withheld

    def _replace_seen(self, filings: pl.DataFrame) -> None:
        """The filings (id, digest) as of this check, what the next one compares with."""
        self.run(q.CLEAR_FILINGS_SEEN)
        self.insert(q.INSERT_FILINGS_SEEN, filings.select("filing_id", "digest"))

    def dirty_fraction(self) -> float:
        [row] = self.run(q.DIRTY_FRACTION)
        return (row[0] / row[1]) if row[1] else 0.0

    def mark_dirty(self, community_ids: Iterable[str], update_id: int = 1) -> int:
        """Mark communities dirty by id (an operator's or a benchmark's hand)."""
        with self._wanted(community_ids):
            return self.count(q.MARK_DIRTY_WANTED, {"update_id": update_id})

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
        todo = self.frame(q.TO_SUMMARIZE, {"refresh": refresh})
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
            with self.transaction():
                self._write_level(view, result, targets, graph, digests)
            built += result.reports.height
            no_evidence += len(result.no_evidence)
            findings += result.findings.height
            dropped += result.dropped
        return SummaryReport(
            summarizer.name, built, no_evidence, findings, dropped, time.perf_counter() - started
        )

    def _write_level(
        self,
        view: GraphView,
        result: Any,
        targets: pl.DataFrame,
        graph: GraphSlice,
        digests: dict[str, str],
    ) -> None:
        """Replace the reports of one level's `targets` with those `build_level` made, each with
        its sources' digests (what withholding compares) and its basis (what restoring does)."""
        with self._wanted(targets.get_column("community_id").to_list()):
            self.run(q.DELETE_REPORTS_OF_WANTED)
            self.run(q.DELETE_FINDINGS_OF_WANTED)
            self.run(q.RESET_WANTED)
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
            .cast(pl.List(SOURCE))
            .alias("source_digests")
        )
        bases = self._bases(view, result.reports.get_column("community_id").to_list(), graph.edges)
        reports = reports.with_columns(
            pl.col("community_id")
            .replace_strict(bases, default=None, return_dtype=pl.String)
            .alias("basis")
        )
        self.insert(q.INSERT_REPORTS, reports)
        self.insert(q.INSERT_FINDINGS, result.findings)
        with self._wanted(result.reports.get_column("community_id").to_list()):
            self.run(q.SET_STATE_OF_WANTED, {"state": "built"})
        with self._wanted(result.no_evidence):
            self.run(q.SET_STATE_OF_WANTED, {"state": "no_evidence"})

    def _read_graph(self, view: GraphView, community_ids: list[str], per_edge: int) -> GraphSlice:
        """What the reports of `community_ids` read of the graph, in one query per relation
        (not one per level): their own edges, the newest `per_edge` citations of each, the
        filings behind each, and the names of their members, edge ends and risk categories."""
        with self._wanted(community_ids):
            edge_homes = self.frame(q.EDGES_HOMED_IN_WANTED)
            member_ids = self.frame(q.MEMBER_IDS_OF_WANTED).get_column("entity_id")
        edge_ids = edge_homes.get_column("edge_id").to_list()
        edges = (
            view.edges(edge_ids).join(edge_homes, on="edge_id")
            if edge_ids
            else pl.DataFrame(schema=_OWN_EDGES)
        )
        citations = (
            view.evidence(edge_ids, per_edge) if edge_ids else pl.DataFrame(schema=_CITATIONS)
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
        names = pl.concat([view.names(mentioned), view.frame(q.RISK_NAMES)]).unique("entity_id")
        return GraphSlice(edges=edges, citations=citations, edge_filings=edge_filings, names=names)

    def _build(
        self,
        targets: pl.DataFrame,
        graph: GraphSlice,
        settings: CommunitySettings,
        summarizer: Summarizer,
        version: int,
        as_of: dt.date | None,
    ) -> Any:
        ids = targets.get_column("community_id").to_list()
        with self._wanted(ids):
            members = self.frame(q.MEMBERS_OF_WANTED)
            children = self.frame(q.CHILDREN_OF_WANTED)
        with self._wanted(children.get_column("child_id").to_list(), "kids"):
            child_reports = self.frame(q.REPORTS_OF_KIDS)
            child_findings = self.frame(q.FINDINGS_OF_KIDS, schema=COMMUNITY_FINDINGS)
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
        return CommunityTables(
            communities=self.frame(q.COMMUNITIES_AS_PUBLISHED, schema=COMMUNITIES),
            members=self.frame(q.MEMBERS_AS_PUBLISHED, schema=COMMUNITY_MEMBERS),
            levels=self.frame(q.LEVELS_AS_PUBLISHED, schema=COMMUNITY_LEVELS),
            reports=self.frame(q.REPORTS_AS_PUBLISHED, schema=COMMUNITY_REPORTS),
            findings=self.frame(q.FINDINGS_AS_PUBLISHED, schema=COMMUNITY_FINDINGS),
        )

    def counts(self) -> dict[str, Any]:
        rows = self.run(q.COUNTS_BY_LEVEL)
        levels = self.run(q.MODULARITY_BY_LEVEL)
        return {
            "communities_by_level": {int(r[0]): int(r[1]) for r in rows},
            "dirty": sum(int(r[2]) for r in rows),
            "withheld": sum(int(r[3]) for r in rows),
            "modularity_by_level": {int(lv): float(m) for lv, m in levels},
            "reports": self.count(q.REPORT_COUNT),
        }


# The frames `_read_graph` gives when the communities summarized hold no edge.
_OWN_EDGES = {
    "edge_id": pl.String,
    "subject_id": pl.String,
    "relation": pl.String,
    "object_id": pl.String,
    "evidence_count": pl.Int64,
    "kind": pl.String,
    "community_id": pl.String,
}
_CITATIONS = {
    "edge_id": pl.String,
    "evidence_id": pl.String,
    "filing_id": pl.String,
    "chunk_id": pl.String,
    "quote": pl.String,
    "rank": pl.Int64,
}


def _singleton_roots(root_ids: list[str], clustering_id: str | None) -> pl.DataFrame:
    """Communities of one new entity each, with no report yet."""
    return pl.DataFrame(
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
            for r in root_ids
        ],
        schema=STATE,
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
