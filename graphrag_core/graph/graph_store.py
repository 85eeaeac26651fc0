"""The working store of the graph stage: one DuckDB file (`<data root>/graph/graph.duckdb`) that
the corpus-wide assets update incrementally, each step in one transaction.

    resolved_entities  `update_entities`: finds the filings whose partitions changed (by file
                       stat, then by content), replaces their claims, resolves the mentions not
                       seen before (all of them when SEC data, the curated aliases, the filers
                       or the merge log changed), and refreshes entities and aliases.
    knowledge_graph    `update_graph`: re-derives the evidence of exactly the filings whose
                       claims changed, were removed, or name a mention whose resolution changed;
                       re-aggregates the edges that evidence touches, drops edges left with none,
                       relinks restatements (superseded_by) within the statements touched, and
                       records the entities touched (graph_changes, for the communities stage).

Either step reads and checks everything it needs before it writes; a failure rolls the
transaction back, so the previous graph stays as it was. Adding a filing twice changes nothing
(same content, same claims, same ids), removing one removes exactly its evidence, and a full
rebuild from scratch gives the same tables as any sequence of incremental updates.

The connection, lock wait, schema digest, meta and transactions are the working-store base's
(`tables/duckdb_store.py`); every statement is a constant in `graph/queries.py`; the tables,
reports and inputs are in `graph_store_model.py`, the pure half of resolution in
`graph_store_entities.py`. Their public names are importable from here, as they always were.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.common.ids import company_key, sha256_text
from graphrag_core.graph import queries as q
from graphrag_core.graph.curated import CuratedAliases, load_curated
from graphrag_core.graph.graph_store_entities import (
    EntityChange,
    RegistryInputs,
    filer_names,
    mention_rows,
    new_mentions,
    read_change,
    resolve_keys,
    static_rows,
)
from graphrag_core.graph.graph_store_model import (
    ADDED_CLAIM_COLUMNS,
    ADDED_EVIDENCE_COLUMNS,
    GRAPH_DB,
    GRAPH_DIR,
    INPUT_TABLES,
    MENTION_STATE,
    NAME_INDEX,
    ORGANISATION_CONTEXTS,
    REVIEW_EVIDENCE_SHOWN,
    STATIC_ENTITIES,
    TABLES_DDL,
    WORKING_FILINGS,
    EntitiesReport,
    FilingInputs,
    FilingsContribution,
    FrameInputs,
    GraphInputError,
    GraphReport,
    GraphTables,
    PublicationShare,
    Reference,
    StoreInputs,
    graph_path,
)
from graphrag_core.graph.resolution import (
    AUTO_MERGE_SIMILARITY,
    NEW_ORG_METHODS,
    REVIEW_SIMILARITY,
    NameRow,
    Registry,
    filer_name_rows,
    reference_name_rows,
)
from graphrag_core.intake.reference import reference_source
from graphrag_core.tables.duckdb_store import DuckDBStore, file_size
from graphrag_core.tables.schemas import (
    EDGE_EVIDENCE,
    EDGES,
    ENTITY_ALIASES,
    GRAPH_CHANGES,
    GRAPH_UPDATES,
    NODES,
    REVIEW_QUEUE,
)
from graphrag_core.tables.table_store import TableStore

# Names that have always been imported from here (callers need not know the split).
__all__ = [
    "GRAPH_DB",
    "GRAPH_DIR",
    "INPUT_TABLES",
    "EntitiesReport",
    "FilingInputs",
    "FilingsContribution",
    "FrameInputs",
    "GraphInputError",
    "GraphReport",
    "GraphStore",
    "GraphTables",
    "PublicationShare",
    "Reference",
    "StoreInputs",
    "filer_names",
    "graph_path",
    "reference_source",
]

Mentions = dict[str, tuple[str, str, str | None]]  # mention key → (role, text, filer)


class GraphStore(DuckDBStore):
    """The graph stage's tables in one DuckDB file (or in memory when `path` is None)."""

    def __init__(
        self,
        path: Path | None,
        *,
        read_only: bool = False,
        memory_limit_mb: int | None = None,
        single_thread_below_mb: int | None = None,
        lock_timeout_s: float = 0.0,
    ):
        if read_only and (path is None or not path.exists()):
            raise GraphInputError(
                f"{path}: no graph has been built yet. Fix: run `filings-graph ingest` (or "
                "materialize resolved_entities and knowledge_graph)"
            )
        config: dict[str, Any] = {}
        if memory_limit_mb and not read_only:
            # Past it, DuckDB spills to a temporary directory beside the file instead of growing;
            # row order of inserts is not needed (every read orders), which lets it spill more.
            config = {
                "memory_limit": f"{int(memory_limit_mb)}MB",
                "preserve_insertion_order": False,
            }
        size = file_size(path) if path is not None and single_thread_below_mb else None
        if not read_only and size is not None and size < (single_thread_below_mb or 0) * 2**20:
            # A small store (a built one: a new file may be about to receive a full build): its
            # statements plan and run in about a millisecond each, and a second thread's
            # scheduling cost more than it gave.
            config["threads"] = 1
        super().__init__(path, read_only=read_only, config=config, lock_timeout_s=lock_timeout_s)

    @classmethod
    def under(
        cls,
        data_root: Path,
        *,
        read_only: bool = False,
        memory_limit_mb: int | None = None,
        single_thread_below_mb: int | None = None,
        lock_timeout_s: float = 0.0,
    ) -> GraphStore:
        return cls(
            graph_path(data_root),
            read_only=read_only,
            memory_limit_mb=memory_limit_mb,
            single_thread_below_mb=single_thread_below_mb,
            lock_timeout_s=lock_timeout_s,
        )

    def __enter__(self) -> GraphStore:
        return self

    # -- schema ------------------------------------------------------------------------------
    def schema_statements(self) -> Sequence[str]:
        return (*TABLES_DDL, *q.CREATE_VIEWS)

    def _before_schema(self) -> bool:
        """Whether the stored claims lack columns added since they were written."""
        if not self.count(q.CLAIMS_TABLE_EXISTS):
            return False
        added = [*ADDED_CLAIM_COLUMNS, *ADDED_EVIDENCE_COLUMNS]
        return self.count(q.CLAIM_COLUMNS_PRESENT, {"columns": added}) < len(added)

    def _after_schema(self, before: Any) -> None:
        if before:
            self.con.execute(q.FORGET_SIGNATURES)

    # -- resolved_entities -------------------------------------------------------------------
    def update_entities(
        self,
        inputs: TableStore | FilingInputs,
        reference: Reference | Callable[[list[str]], Reference] | None = None,
        *,
        merges: Mapping[str, str] | None = None,
        curated: CuratedAliases | None = None,
        review_similarity: float | None = None,
        auto_merge_similarity: float | None = None,
        filing_ids: Sequence[str] | None = None,
    ) -> EntitiesReport:
        """Bring claims, mentions, entities and aliases up to date with the filings of `inputs`
        (the table store's partitions; `filing_ids`: only these filings count as present)."""
        started = dt.datetime.now()
        source = StoreInputs(inputs) if isinstance(inputs, TableStore) else inputs
        present = sorted(filing_ids if filing_ids is not None else source.filing_ids())
        # Read and check every changed partition before anything is written.
        change = read_change(source, present, self.run(q.STORED_FILINGS))
        if callable(reference):
            reference = reference([cik for cik, _ in change.filers])
        registry = RegistryInputs(
            reference=reference or Reference(),
            filers=change.filers,
            merges=merges or {},
            curated=curated or load_curated(),
            review_similarity=(
                review_similarity if review_similarity is not None else REVIEW_SIMILARITY
            ),
            auto_merge_similarity=(
                auto_merge_similarity
                if auto_merge_similarity is not None
                else AUTO_MERGE_SIMILARITY
            ),
        )
        if (
            not change.fresh_filings
            and not change.removed
            and self._registry_digest(registry) == self.get_meta("registry_digest")
        ):
            # Nothing new to resolve: only refresh the signatures of rewritten-but-equal partitions.
            with self.transaction():
                self._refresh_signatures(change)
                self._remember_reference_source(registry.reference)
            return self._entities_report(change, (0, 0, False), started)
        with self.transaction():
            outcome = self._apply_change(change, registry, self.meta_int("seq") + 1)
        return self._entities_report(change, outcome, started)

    def _apply_change(
        self, change: EntityChange, registry: RegistryInputs, seq: int
    ) -> tuple[int, int, bool]:
        """Write a change read by `read_change` (as update `seq`) and resolve what it brings:
        (mentions resolved, mentions whose resolution changed, whether the registry was rebuilt)."""
        self._refresh_signatures(change)
        if change.gone:
            self.con.execute(q.DELETE_CLAIMS_OF, {"filings": change.gone})
            self.con.execute(q.DELETE_FILINGS_OF, {"filings": change.gone})
        if change.fresh_filings:
            rows = pl.DataFrame(
                [{**r, "seq": seq, "unresolved": None} for r in change.fresh_filings],
                schema=WORKING_FILINGS,
            )
            self.insert(q.INSERT_FILINGS, rows)
        claims = change.claims
        self.insert(q.INSERT_CLAIMS, claims)
        resolved, mentions_changed, rebuilt = self._resolve(
            registry, seq, claims, change.filings_changed
        )
        if change.filings_changed or resolved or mentions_changed:
            self.set_meta("seq", seq)
        self._remember_reference_source(registry.reference)
        return resolved, mentions_changed, rebuilt

    def _refresh_signatures(self, change: EntityChange) -> None:
        for row in change.touched_only:
            self.con.execute(
                q.UPDATE_SIGNATURE,
                {"signature": row["signature"], "filing_id": row["filing_id"]},
            )

    def _entities_report(
        self, change: EntityChange, outcome: tuple[int, int, bool], started: dt.datetime
    ) -> EntitiesReport:
        resolved, mentions_changed, rebuilt = outcome
        return EntitiesReport(
            filings=len(change.present),
            added=change.added,
            changed=change.changed,
            removed=change.removed,
            unchanged=len(change.present) - len(change.added) - len(change.changed),
            mentions_resolved=resolved,
            mentions_changed=mentions_changed,
            review_queue=self.count(q.REVIEW_COUNT),
            registry_rebuilt=rebuilt,
            seconds=(dt.datetime.now() - started).total_seconds(),
        )

    def _registry_digest(self, registry: RegistryInputs) -> str:
        return registry.digest(self._reference_digest(registry.reference))

    def reference_source(self) -> str | None:
        """The identity of the reference files the stored registry was last built from (see
        `reference_source()`): a caller whose files still have it need not read them, since a
        `Reference` with only that `source` stands for the same rows."""
        return self.get_meta("reference_source") or None

    def _reference_digest(self, reference: Reference) -> str:
        """The digest of the reference rows: the one stored when they come from the same source
        files as the rows it was taken from (unchanged path, size and mtime), else hashed."""
        stored = self.get_meta("reference_digest")
        if (
            stored
            and reference.source is not None
            and reference.source == self.get_meta("reference_source")
        ):
            return stored
        return reference.digest

    def _remember_reference_source(self, reference: Reference) -> None:
        """Record where the stored reference digest came from, once it is known to match (the
        rows were hashed this time): files rewritten with the same content are hashed once."""
        if (
            reference.source is not None
            and reference.source != self.get_meta("reference_source")
            and reference.digest == self.get_meta("reference_digest")
        ):
            self.set_meta("reference_source", reference.source)

    def _name_rows(self, registry: RegistryInputs) -> list[NameRow]:
        """SEC's names and the filers' registrant names, normalized; SEC's are normalized again
        only when the reference data changed, a filer's only when it is new."""
        reference = registry.reference
        digest = self._reference_digest(reference)
        if digest != self.get_meta("reference_digest"):
            rows = reference_name_rows(reference.tickers, reference.submissions)
            self.con.execute(q.DELETE_REFERENCE_NAMES)
            self._insert_names(rows, "reference")
            self.set_meta("reference_digest", digest)
            # The digest now stands for these rows: its source is theirs (or none is known).
            self.set_meta("reference_source", reference.source or "")
        known = set(self.run(q.FILER_NAMES))
        wanted = {(company_key(cik), name) for cik, name in registry.filers if name}
        if known - wanted:
            self.con.execute(
                q.DELETE_FILER_NAMES_NOT_IN, {"wanted": [f"{e}\x1f{a}" for e, a in wanted]}
            )
        self._insert_names(
            filer_name_rows(
                [
                    (cik, name)
                    for cik, name in registry.filers
                    if name and (company_key(cik), name) not in known
                ]
            ),
            "filer",
        )
        return [NameRow(e, a, k, n, tuple(v or ())) for e, a, k, n, v in self.run(q.NAME_ROWS)]

    def _insert_names(self, rows: list[NameRow], source: str) -> None:
        if not rows:
            return
        start = self.count(q.LAST_NAME_POSITION)
        frame = pl.DataFrame(
            [
                {
                    "source": source,
                    "position": start + i + 1,
                    "entity_id": r.entity_id,
                    "alias": r.alias,
                    "kind": r.kind,
                    "norm": r.norm,
                    "variants": list(r.variants),
                }
                for i, r in enumerate(rows)
            ],
            schema=NAME_INDEX,
        )
        self.insert(q.INSERT_NAMES, frame)

    def _registry(self, registry: RegistryInputs) -> tuple[Registry, dict[str, str]]:
        """The registry of names, and the organizations known before (id → name)."""
        organizations = dict(self.run(q.KNOWN_ORGANIZATIONS))
        assembled = Registry.assemble(
            rows=self._name_rows(registry),
            filers=[(cik, name or "") for cik, name in registry.filers],
            curated=registry.curated,
            merges=registry.merges,
            review_similarity=registry.review_similarity,
            auto_merge_similarity=registry.auto_merge_similarity,
        )
        return assembled, organizations

    def _mention_rows(self, sql: str) -> dict[str, dict[str, Any]]:
        frame = self.frame(sql, schema=MENTION_STATE)
        return {r["mention_key"]: r for r in frame.iter_rows(named=True)}

    def _resolve(
        self, registry: RegistryInputs, seq: int, claims: pl.DataFrame, filings_changed: bool
    ) -> tuple[int, int, bool]:
        digest = self._registry_digest(registry)
        rebuilt = digest != self.get_meta("registry_digest")
        # Which of these claims' mentions were seen before (not every mention of the store: at a
        # million edges that list alone cost more than a one-filing update).
        keys = (
            sorted(set(claims.get_column("subject_key")) | set(claims.get_column("object_key")))
            if claims.height
            else []
        )
        known = {r[0] for r in self.run(q.MENTIONS_AMONG, {"keys": keys})} if keys else set()
        # (Their texts are looked up only when some are new: a filing that names no one new,
        # the common case, skips a few passes over its claims.)
        fresh: Mentions = new_mentions(claims, known) if len(known) < len(keys) else {}
        if not rebuilt and not fresh:
            # Every mention was resolved before, by the same registry: nothing to build.
            if filings_changed:
                self._refresh_entities(registry.curated)
            return 0, 0, False
        names, known_orgs = self._registry(registry)
        old = self._mention_rows(q.ALL_MENTIONS) if rebuilt else {}
        todo: Mentions = {k: (r["role"], r["text"], r["filer_id"]) for k, r in old.items()}
        todo.update(fresh)
        # Organizations: those seen before stay known (unless the registry was rebuilt, which
        # re-derives them from legal-form names in the order `resolve_keys` takes).
        if not rebuilt:
            for org_id, name in sorted(known_orgs.items()):
                names.add_organization(org_id, name)
        results = resolve_keys(names, todo)
        # A new organization can settle mentions that did not resolve before.
        new_orgs = {
            r.entity_id for r in results.values() if r.method.startswith(NEW_ORG_METHODS)
        } - set(known_orgs)
        if new_orgs and not rebuilt:
            unresolved = self._mention_rows(q.UNRESOLVED_MENTIONS)
            old.update(unresolved)
            retry: Mentions = {
                k: (r["role"], r["text"], r["filer_id"])
                for k, r in unresolved.items()
                if k not in results
            }
            todo.update(retry)
            results.update(resolve_keys(names, retry))
        rows, changed = mention_rows(results, todo, old, seq)
        if rows:
            frame = pl.DataFrame(rows, schema=MENTION_STATE)
            with self.relation("fresh", frame):
                self.con.execute(q.DELETE_FRESH_MENTIONS)
                self.con.execute(q.INSERT_MENTIONS)
        self._refresh_entities(registry.curated)
        self.set_meta("registry_digest", digest)
        return len(results), changed, rebuilt

    def _refresh_entities(self, curated: CuratedAliases) -> None:
        """The names this code contributes (risk taxonomy, metric labels, curated aliases) for
        the `entities` and `entity_aliases` views: every company that files, every entity a
        resolved mention of a current claim names, every risk category; their aliases: SEC's and
        the filers' names, the curated ones, and the mentions resolved to them."""
        rows = static_rows(curated)
        # They change with this code and the curated file only: rewritten when they differ.
        digest = sha256_text(repr(rows))
        if digest == self.get_meta("static_digest"):
            return
        self.con.execute(q.DELETE_STATIC)
        self.insert(q.INSERT_STATIC, pl.DataFrame(rows, schema=STATIC_ENTITIES))
        self.set_meta("static_digest", digest)

    # -- knowledge_graph ---------------------------------------------------------------------
    def update_graph(self) -> GraphReport:
        """Re-derive the evidence of the filings that need it and the edges it touches."""
        started = dt.datetime.now()
        graph_seq = self.meta_int("graph_seq")
        seq = self.meta_int("seq")
        with self.transaction():
            filings = sorted(r[0] for r in self.run(q.AFFECTED_FILINGS, {"graph_seq": graph_seq}))
            if not filings:
                self.set_meta("graph_seq", seq)
                return GraphReport(
                    None,
                    [],
                    0,
                    0,
                    0,
                    0,
                    0,
                    self._unresolved_claims(),
                    (dt.datetime.now() - started).total_seconds(),
                )
            affected = {"affected": filings}
            # Scratch tables are created or replaced (no drop first: each statement is a round
            # trip) and dropped together at the end.
            self.run(q.CREATE_OLD_EDGES, affected)
            removed = self.count(q.DELETE_EVIDENCE_OF_AFFECTED, affected)
            # Straight into the table (a scratch copy first cost a statement and a copy more):
            # the evidence of the affected filings is then exactly what this inserted.
            added = self.count(q.INSERT_EVIDENCE, affected)
            self.run(q.COUNT_UNRESOLVED_OF_AFFECTED, affected)
            touched = self.count(q.CREATE_TOUCHED, affected)
            self.run(q.DELETE_TOUCHED_EDGES)
            # Every edge touched was deleted and is re-aggregated from its evidence: those not
            # back (touched, not inserted) have none left.
            edges_removed = touched - self.count(q.INSERT_EDGES)
            self.run(q.RELINK_SUPERSEDED)
            # From the log of updates, not of changes: an update that touched no entity writes no
            # change, and an id drawn from the changes was then handed out twice (the second
            # update, a merge, was never seen by the communities that had applied the first).
            update_id = int(self.one(q.NEXT_UPDATE_ID) or 1)
            entities = self.count(q.INSERT_CHANGES, {"update_id": update_id})
            self.run(
                q.INSERT_UPDATE,
                {
                    "update_id": update_id,
                    "filings": filings,
                    "edges": touched,
                    "entities": entities,
                },
            )
            self.con.execute(q.DROP_SCRATCH)
            self.set_meta("graph_seq", seq)
        return GraphReport(
            update_id=update_id,
            filings_applied=filings,
            evidence_removed=removed,
            evidence_added=added,
            edges_touched=touched,
            edges_removed=edges_removed,
            entities_touched=entities,
            claims_unresolved=self._unresolved_claims(),
            seconds=(dt.datetime.now() - started).total_seconds(),
        )

    def _unresolved_claims(self) -> int:
        return self.count(q.UNRESOLVED_CLAIMS)

    # -- reading -----------------------------------------------------------------------------
    def tables(self) -> GraphTables:
        return GraphTables(
            nodes=self.frame(q.NODES, schema=NODES),
            edges=self.frame(q.EDGES, schema=EDGES),
            edge_evidence=self.frame(q.EVIDENCE, schema=EDGE_EVIDENCE),
            entity_aliases=self.frame(q.ALIASES, schema=ENTITY_ALIASES),
            review_queue=self.review_queue(),
        )

    def review_queue(self, limit: int | None = None) -> pl.DataFrame:
        params = {"shown": REVIEW_EVIDENCE_SHOWN, "limit": None if limit is None else int(limit)}
        return self.frame(q.REVIEW_QUEUE, params, schema=REVIEW_QUEUE)

    def mentions(self) -> pl.DataFrame:
        return self.frame(q.MENTIONS, schema=MENTION_STATE)

    def entity_ids(self) -> set[str]:
        return {r[0] for r in self.run(q.ENTITY_IDS)}

    def review_item(self, ref: str) -> dict[str, Any] | None:
        """A review-queue mention by its id (or a unique prefix of it) or its exact text."""
        if not ref.strip():  # the empty prefix of every id: it must not pick a lone item
            return None
        rows = self.run(q.REVIEW_ITEM, {"ref": ref})
        if len(rows) != 1:
            return None
        key, text, role, reason, status = rows[0]
        return {"review_id": key, "text": text, "role": role, "reason": reason, "status": status}

    def changes_since(self, update_id: int = 0) -> pl.DataFrame:
        """Entities touched by every graph update after `update_id` (the communities stage)."""
        return self.frame(q.CHANGES_SINCE, {"update_id": update_id}, schema=GRAPH_CHANGES)

    def updates_since(self, update_id: int = 0) -> pl.DataFrame:
        """The graph updates after `update_id`: the filings each applied, what each touched."""
        return self.frame(q.UPDATES_SINCE, {"update_id": update_id}, schema=GRAPH_UPDATES)

    def integrity(self) -> CheckVerdict:
        """Every edge cites at least one piece of evidence and counts exactly what it has, and
        every piece of evidence belongs to an edge and to a filing of the graph."""
        figures = {
            "edges_without_evidence": self.count(q.EDGES_WITHOUT_EVIDENCE),
            "evidence_without_edge": self.count(q.EVIDENCE_WITHOUT_EDGE),
            "evidence_without_filing": self.count(q.EVIDENCE_WITHOUT_FILING),
            "miscounted_edges": self.count(q.MISCOUNTED_EDGES),
            "dangling_supersession": self.count(q.DANGLING_SUPERSESSION),
        }
        return CheckVerdict(
            asset="knowledge_graph",
            check="graph_integrity",
            passed=not any(figures.values()),
            blocking=True,
            figures={**figures, "edges": self.count(q.EDGE_COUNT)},
        )

    def counts(self) -> dict[str, Any]:
        return {
            "nodes_by_type": dict(self.run(q.NODES_BY_TYPE)),
            "edges_by_relation": dict(self.run(q.EDGES_BY_RELATION)),
            "edges": self.count(q.EDGE_COUNT),
            "superseded_edges": self.count(q.SUPERSEDED_EDGES),
            "evidence": self.count(q.EVIDENCE_COUNT),
            "review_queue": self.count(q.REVIEW_COUNT),
            "claims_unresolved": self._unresolved_claims(),
        }

    def publication(self) -> list[PublicationShare]:
        """Per relation: the claims the gates accepted, how many the graph publishes (subject
        and object resolved), how many the organisation check kept out (a `not_org:` reason),
        and how many wait in the review queue otherwise (issue 22: that last should be 0)."""
        return [
            PublicationShare(str(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]))
            for r in self.run(q.PUBLICATION)
        ]

    def organisation_contexts(self) -> pl.DataFrame:
        """Every company and organization a text edge names, with the first sentence that names
        it (`context`) and whether it is a provisional node (no registrant or curated name: its
        mentions resolved by `provisional_org` or `legal_form`): what merge proposals by meaning
        compare (graph/merge_proposals.py)."""
        return self.frame(q.ORGANISATION_CONTEXTS, schema=ORGANISATION_CONTEXTS)

    def named_together(self) -> pl.DataFrame:
        """Pairs of entities (`a` < `b`) the filings tell apart: both named in one chunk (a
        list of competitors, the rows of an Exhibit 21: a filer lists each party once), one
        related to the other by an edge (a subsidiary and its parent), or siblings (one filing
        states the same relation to the same party for both). Never a merge proposal."""
        return self.frame(q.NAMED_TOGETHER, schema={"a": pl.String, "b": pl.String})

    def review_share(self) -> tuple[int, int]:
        """(mentions in the review queue, mentions the filings' claims make): the queue's size
        against what resolution was asked to do."""
        return self.count(q.REVIEW_COUNT), self.count(q.CLAIMED_MENTIONS)

    def filings_contribution(self, filing_ids: Sequence[str]) -> FilingsContribution:
        """What `filing_ids` bring to the graph that no other filing does: the entities only
        they name (by type; the always-present risk taxonomy left out), and their mentions
        waiting in the review queue (by reason). The ingestion report's entity figures."""
        params = {"filings": sorted(set(filing_ids))}
        new = dict(self.run(q.NEW_ENTITIES, params))
        queued = dict(self.run(q.QUEUED_MENTIONS, params))
        return FilingsContribution(
            new_entities={str(k): int(v) for k, v in sorted(new.items())},
            queued_for_review={str(k): int(v) for k, v in sorted(queued.items())},
        )
