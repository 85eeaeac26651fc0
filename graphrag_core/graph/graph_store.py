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
"""

from __future__ import annotations

import datetime as dt
import os
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import duckdb
import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.common.errors import GraphragError
from graphrag_core.common.ids import company_key, normalize_cik, sha256_stream, sha256_text
from graphrag_core.common.names import normalize_name
from graphrag_core.graph import ontology
from graphrag_core.graph.claims import filing_claims, filing_label
from graphrag_core.graph.curated import CuratedAliases, load_curated
from graphrag_core.graph.merge_log import redirect
from graphrag_core.graph.resolution import (
    AUTO_MERGE_SIMILARITY,
    NEW_ORG_METHODS,
    RESOLVED,
    REVIEW_SIMILARITY,
    NameRow,
    Registry,
    Resolution,
    filer_name_rows,
    reference_digest,
    reference_name_rows,
    registry_digest,
)
from graphrag_core.graph.risk_taxonomy import TAXONOMY
from graphrag_core.intake.reference import reference_source  # noqa: F401 (its home; callers import it here too)
from graphrag_core.tables.schemas import (
    CLAIMS,
    EDGE_EVIDENCE,
    EDGES,
    ENTITY_ALIASES,
    FILINGS,
    GRAPH_CHANGES,
    GRAPH_UPDATES,
    MENTIONS,
    METRIC_OBSERVATIONS,
    NODES,
    REVIEW_QUEUE,
    VALIDATED_TRIPLES,
    Schema,
    conform,
    empty,
)
from graphrag_core.tables.table_store import TableStore

GRAPH_DIR = "graph"  # under the data root, beside tables/ and raw/
GRAPH_DB = "graph.duckdb"


def graph_path(data_root: Path) -> Path:
    return data_root / GRAPH_DIR / GRAPH_DB


# The partitions a filing's graph contribution is read from; a filing is in the graph when its
# raw_filings partition exists.
INPUT_TABLES = ("raw_filings", "validated_triples", "metric_observations")
REVIEW_EVIDENCE_SHOWN = 5


class GraphInputError(GraphragError):
    """An upstream partition the graph needs is missing or unreadable."""


# -- DuckDB types from the Polars schemas -----------------------------------------------------
def _sql_type(dtype: Any) -> str:
    if dtype == pl.String:
        return "VARCHAR"
    if dtype == pl.Float64:
        return "DOUBLE"
    if dtype == pl.Int64:
        return "BIGINT"
    if dtype == pl.Int32:
        return "INTEGER"
    if dtype == pl.Boolean:
        return "BOOLEAN"
    if dtype == pl.Date:
        return "DATE"
    if isinstance(dtype, pl.List):
        return f"{_sql_type(dtype.inner)}[]"
    if isinstance(dtype, pl.Struct):
        return "STRUCT(" + ", ".join(f'"{f.name}" {_sql_type(f.dtype)}' for f in dtype.fields) + ")"
    raise TypeError(f"no DuckDB type for {dtype}")


def _add_columns(name: str, schema: Schema, columns: tuple[str, ...]) -> list[str]:
    return [
        f'ALTER TABLE {name} ADD COLUMN IF NOT EXISTS "{c}" {_sql_type(schema[c])}' for c in columns
    ]


def _create(name: str, schema: Schema, extra: str = "") -> str:
    cols = ", ".join(f'"{c}" {_sql_type(t)}' for c, t in schema.items())
    return f"CREATE TABLE IF NOT EXISTS {name} ({cols}{', ' + extra if extra else ''})"


WORKING_FILINGS: Schema = {
    "filing_id": pl.String,
    "cik": pl.String,
    "filer_id": pl.String,
    "company": pl.String,
    "form": pl.String,
    "filed_date": pl.Date,
    "fiscal_label": pl.String,
    "signature": pl.String,  # stat of its input partition files: what says "maybe changed"
    "digest": pl.String,  # of its claims: what says "changed"
    "seq": pl.Int64,  # update that last changed its claims
    "unresolved": pl.Int64,  # its claims held back because a subject or object did not resolve
}
MENTION_STATE: Schema = {
    **MENTIONS,
    "text_norm": pl.String,
    "created_seq": pl.Int64,
    "changed_seq": pl.Int64,
}
NAME_INDEX: Schema = {
    "source": pl.String,  # reference (SEC's names) | filer (the filings' registrant names)
    "position": pl.Int64,  # order of insertion: the first ticker or title of a CIK wins
    "entity_id": pl.String,
    "alias": pl.String,
    "kind": pl.String,
    "norm": pl.String,
    "variants": pl.List(pl.String),
}
ORGANISATION_CONTEXTS: Schema = {
    "entity_id": pl.String,
    "entity_type": pl.String,
    "name": pl.String,
    "context": pl.String,  # the first quote (by evidence id) that names it
    "provisional": pl.Boolean,
}
STATIC_ENTITIES: Schema = {
    "entity_id": pl.String,
    "entity_type": pl.String,
    "name": pl.String,
    "description": pl.String,
    "always": pl.Boolean,  # a node even when nothing points at it (the risk taxonomy)
    "alias": pl.String,
    "alias_norm": pl.String,
    "alias_kind": pl.String,
}
EVIDENCE_STATE: Schema = {
    **EDGE_EVIDENCE,
    "subject_id": pl.String,
    "relation": pl.String,
    "object_id": pl.String,
    "period": pl.String,
    "calendar_start": pl.Date,
    "calendar_end": pl.Date,
    "value": pl.Float64,
    "unit": pl.String,
    "source": pl.String,
    "statement_key": pl.String,
    "adjustment": pl.String,
    "value_low": pl.Float64,
    "value_high": pl.Float64,
    "bound": pl.String,
}

# Claim columns a store built before them lacks (issue 22: a range's ends and a bound).
_ADDED_CLAIM_COLUMNS = ("value_low", "value_high", "bound")
# Every filing's claims are read again when they were stored without these columns: a filing's
# signature (its partitions) did not change, but what its claims carry did.
_STALE_CLAIMS_SQL = f"""
SELECT count(*) FROM information_schema.columns
WHERE table_name = 'claims' AND column_name IN ({", ".join(f"'{c}'" for c in _ADDED_CLAIM_COLUMNS)})
"""

_SCHEMA_SQL = [
    "CREATE TABLE IF NOT EXISTS meta (key VARCHAR, value VARCHAR)",
    _create("filings", WORKING_FILINGS),
    _create("claims", CLAIMS),
    _create("mentions", MENTION_STATE),
    _create("name_index", NAME_INDEX),
    _create("static_entities", STATIC_ENTITIES),
    _create("edge_evidence", EVIDENCE_STATE),
    _create("edges", EDGES),
    _create("graph_changes", GRAPH_CHANGES),
    _create("graph_updates", GRAPH_UPDATES),
    # Was a table refreshed per update; now the filer_calendar view (below).
    "DROP TABLE IF EXISTS fiscal_calendar",
    # Columns added after a store was first built (each appended last to its schema, so the
    # positional INSERTs match an old store altered here and a new one alike). The schema digest
    # changes with them: an old store runs these once, and `_ensure_schema` marks its filings to
    # be read again, so its next update re-derives the claims, evidence and edges that carry them.
    *_add_columns("claims", CLAIMS, _ADDED_CLAIM_COLUMNS),
    *_add_columns("edge_evidence", EVIDENCE_STATE, _ADDED_CLAIM_COLUMNS),
    *_add_columns("edges", EDGES, _ADDED_CLAIM_COLUMNS),
]
# Entities and their aliases are views: derived from the filings, the mentions and the names
# whenever they are read (a snapshot, the CLI), so an update never pays for them.


# -- reports ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class EntitiesReport:
    filings: int
    added: list[str]
    changed: list[str]
    removed: list[str]
    unchanged: int
    mentions_resolved: int  # resolved now (new mentions, or all after the registry changed)
    mentions_changed: int  # existing mentions whose resolution changed
    review_queue: int
    registry_rebuilt: bool
    seconds: float

    def metadata(self) -> dict[str, Any]:
        return {
            "filings": self.filings,
            "added": len(self.added),
            "changed": len(self.changed),
            "removed": len(self.removed),
            "unchanged": self.unchanged,
            "mentions_resolved": self.mentions_resolved,
            "mentions_changed": self.mentions_changed,
            "review_queue": self.review_queue,
            "registry_rebuilt": self.registry_rebuilt,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class GraphReport:
    update_id: int | None  # None when nothing needed re-deriving
    filings_applied: list[str]
    evidence_removed: int
    evidence_added: int
    edges_touched: int
    edges_removed: int
    entities_touched: int
    claims_unresolved: int  # evidence held back because its subject or object did not resolve
    seconds: float

    def metadata(self) -> dict[str, Any]:
        return {
            "update_id": self.update_id,
            "filings_applied": len(self.filings_applied),
            "evidence_removed": self.evidence_removed,
            "evidence_added": self.evidence_added,
            "edges_touched": self.edges_touched,
            "edges_removed": self.edges_removed,
            "entities_touched": self.entities_touched,
            "claims_unresolved": self.claims_unresolved,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class PublicationShare:
    """One relation's claims: accepted by the gates, published, kept out as no organisation,
    withheld by the review queue."""

    relation: str
    accepted: int
    published: int
    not_org: int
    withheld: int

    @property
    def share(self) -> float:
        return self.published / self.accepted if self.accepted else 1.0


@dataclass(frozen=True)
class FilingsContribution:
    new_entities: dict[str, int]  # entity type → entities no other filing names
    queued_for_review: dict[str, int]  # review reason → mentions of these filings in the queue


@dataclass(frozen=True)
class Reference:
    """SEC reference rows for the registry: company_tickers rows and submissions documents."""

    tickers: Sequence[Mapping[str, Any]] = ()
    submissions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # What identifies the files these rows were read from (`reference_source`), when the reader
    # knows them: a store whose digest was last taken from the same source reuses that digest
    # instead of hashing SEC's ten thousand ticker rows again, on every update (a few ms each
    # time). None (rows from anywhere else): the rows are hashed.
    source: str | None = None

    @cached_property
    def digest(self) -> str:
        """`reference_digest` of these rows, computed once: hashing SEC's ten thousand tickers
        costs milliseconds, and an update asks for it more than once."""
        return reference_digest(self.tickers, self.submissions)


@dataclass(frozen=True)
class GraphTables:
    """What a snapshot publishes from the graph stage."""

    nodes: pl.DataFrame
    edges: pl.DataFrame
    edge_evidence: pl.DataFrame
    entity_aliases: pl.DataFrame
    review_queue: pl.DataFrame

    @classmethod
    def empty(cls) -> GraphTables:
        return cls(
            empty(NODES),
            empty(EDGES),
            empty(EDGE_EVIDENCE),
            empty(ENTITY_ALIASES),
            empty(REVIEW_QUEUE),
        )


# -- inputs -----------------------------------------------------------------------------------
class FilingInputs(Protocol):
    """Where the graph reads each filing's contribution from."""

    def filing_ids(self) -> list[str]: ...

    def signature(self, filing_id: str) -> str:
        """Changes whenever the filing's inputs may have changed (cheap: no reading)."""
        ...

    def read(self, filing_id: str) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        """(raw_filings, validated_triples, metric_observations) of one filing, checked."""
        ...


@dataclass(frozen=True)
class StoreInputs:
    """The table store's partitions: a filing is present when its raw_filings partition is."""

    store: TableStore

    def filing_ids(self) -> list[str]:
        return self.store.partitions("raw_filings")

    @cached_property
    def _dirs(self) -> tuple[tuple[str, str], ...]:
        # Plain strings: an update stats every partition of every filing, and building Path
        # objects for them cost more than the stat calls.
        return tuple((table, str(self.store.table_dir(table))) for table in INPUT_TABLES)

    def signature(self, filing_id: str) -> str:
        parts = []
        for table, folder in self._dirs:
            try:
                st = os.stat(f"{folder}/{filing_id}.parquet")
                parts.append(f"{table}:{st.st_size}:{st.st_mtime_ns}")
            except FileNotFoundError:
                parts.append(f"{table}:-")
        return " ".join(parts)

    def read(self, filing_id: str) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        return (
            _read_partition(self.store, "raw_filings", filing_id, FILINGS),
            _read_partition(self.store, "validated_triples", filing_id, VALIDATED_TRIPLES),
            _read_partition(self.store, "metric_observations", filing_id, METRIC_OBSERVATIONS),
        )


@dataclass(frozen=True)
class FrameInputs:
    """Frames of many filings held in memory (tests, samples, benchmarks)."""

    filings: pl.DataFrame
    triples: pl.DataFrame
    metrics: pl.DataFrame

    def filing_ids(self) -> list[str]:
        return sorted(self.filings.get_column("filing_id").unique().to_list())

    def read(self, filing_id: str) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        pick = pl.col("filing_id") == filing_id
        return (
            conform(self.filings.filter(pick), FILINGS),
            conform(self.triples.filter(pick), VALIDATED_TRIPLES),
            conform(self.metrics.filter(pick), METRIC_OBSERVATIONS),
        )

    def signature(self, filing_id: str) -> str:
        return sha256_stream(
            frame.hash_rows(seed=0).to_numpy().tobytes() for frame in self.read(filing_id)
        )


def _read_partition(store: TableStore, table: str, filing_id: str, schema: Schema) -> pl.DataFrame:
    path = store.partition_path(table, filing_id)
    if not path.exists():
        raise GraphInputError(
            f"{path}: partition {filing_id!r} of {table} is missing, but raw_filings has the "
            f"filing (its run failed or has not finished). Fix: fix or replace its document and "
            f"ingest it again (filings-graph ingest --filing {filing_id}), or take it out "
            f"(filings-graph remove {filing_id}); the graph was left as it was"
        )
    try:
        frame = pl.read_parquet(path)
        return conform(frame, schema)
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        raise GraphInputError(
            f"{path}: partition {filing_id!r} of {table} cannot be read ({exc}). Fix: "
            f"re-materialize {table} for partition {filing_id}; the graph was left as it was"
        ) from exc


def _file_size(path: Path) -> int | None:
    """Bytes of a store file, None when there is none yet (a build from scratch)."""
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return None


class _ArrowStream:
    """A Polars frame offered to DuckDB as an Arrow C stream (the PyCapsule interface), which
    DuckDB scans as it is; registering the frame itself converts it through pyarrow, whose
    import alone cost more than the inserts of a one-filing update. Scanned as often as needed
    (each scan asks for a new stream)."""

    def __init__(self, frame: pl.DataFrame):
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.frame.__arrow_c_stream__(requested_schema)


def _frame(
    con: duckdb.DuckDBPyConnection, sql: str, schema: Schema, params: Any = None
) -> pl.DataFrame:
    with warnings.catch_warnings():
        # DuckDB warns that Arrow output of an execute() copies the rows once; these tables are
        # read once per build, and execute() is what takes parameters.
        warnings.simplefilter("ignore", UserWarning)
        table = con.execute(sql, params or []).to_arrow_table()
    if table is None or table.num_rows == 0:
        return empty(schema)
    return conform(pl.from_arrow(table), schema)  # type: ignore[arg-type]


def _count(con: duckdb.DuckDBPyConnection, sql: str, params: Any = None) -> int:
    """Rows a DELETE / INSERT / UPDATE changed (DuckDB returns the count as its result)."""
    return int(_one(con, sql, params) or 0)


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: Any = None) -> Any:
    rows = con.execute(sql, params or []).fetchall()  # fetched to the end: the result is done
    return rows[0][0] if rows else None


def _connect_waiting(
    database: str, config: dict[str, Any], timeout_s: float, *, read_only: bool = False
) -> duckdb.DuckDBPyConnection:
    """`duckdb.connect`, waiting up to `timeout_s` while another process holds the file's lock
    (DuckDB lets one process write a file): two steps of one run on a distributed executor, or
    a CLI merge meeting a run, take turns instead of failing."""
    deadline = time.monotonic() + timeout_s
    pause = 0.05
    while True:
        try:
            return duckdb.connect(database, read_only=read_only, config=config)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 1.0)


class GraphStore:
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
        self.path = path
        self._meta: dict[str, str] = {}
        if read_only:
            if path is None or not path.exists():
                raise GraphInputError(
                    f"{path}: no graph has been built yet. Fix: run `filings-graph ingest` (or "
                    "materialize resolved_entities and knowledge_graph)"
                )
            self.con = _connect_waiting(str(path), {}, lock_timeout_s, read_only=True)
            self._load_meta()
            return
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        config: dict[str, Any] = {}
        if memory_limit_mb:
            # Past it, DuckDB spills to a temporary directory beside the file instead of growing;
            # row order of inserts is not needed (every read orders), which lets it spill more.
            config = {
                "memory_limit": f"{int(memory_limit_mb)}MB",
                "preserve_insertion_order": False,
            }
        size = _file_size(path) if path is not None and single_thread_below_mb else None
        if size is not None and size < (single_thread_below_mb or 0) * 2**20:
            # A small store (a built one: a new file may be about to receive a full build): its
            # statements plan and run in about a millisecond each, and a second thread's
            # scheduling cost more than it gave.
            config["threads"] = 1
        self.con = _connect_waiting(str(path) if path else ":memory:", config, lock_timeout_s)
        self._ensure_schema()

    def _ensure_schema(self) -> None:
        """Create the tables and (re)define the views, unless this file already has them as this
        code defines them: every update opens the store, and re-running a dozen DDL statements
        (each a catalog write, the views re-bound) was most of what a one-filing update cost."""
        digest = _schema_digest()
        self._load_meta()
        if self._get("schema_digest") == digest:
            return
        with self._transaction():
            claims_tables = self.con.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_name = 'claims'"
            ).fetchone()
            had_claims = bool(claims_tables and claims_tables[0])
            claim_columns = self.con.execute(_STALE_CLAIMS_SQL).fetchone() if had_claims else None
            stale = claim_columns is not None and claim_columns[0] < len(_ADDED_CLAIM_COLUMNS)
            for sql in _SCHEMA_SQL:
                self.con.execute(sql)
            if stale:
                self.con.execute("UPDATE filings SET signature = '', digest = ''")
            self.con.execute(f"CREATE OR REPLACE VIEW entities AS {_ENTITIES_SQL}")
            self.con.execute(f"CREATE OR REPLACE VIEW entity_aliases AS {_ENTITY_ALIASES_SQL}")
            self.con.execute(f"CREATE OR REPLACE VIEW filer_calendar AS {_FILER_CALENDAR_SQL}")
            self._set("schema_digest", digest)

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

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- meta --------------------------------------------------------------------------------
    # Read once when the store opens and kept beside the table (this connection is the store's
    # only writer): an update asks for a dozen keys, each a round trip otherwise.
    def _load_meta(self) -> None:
        try:
            self._meta = {
                str(k): str(v)
                for k, v in self.con.execute("SELECT key, value FROM meta").fetchall()
            }
        except duckdb.CatalogException:
            self._meta = {}  # a new file: no meta table yet

    def _get(self, key: str) -> str | None:
        return self._meta.get(key)

    def _set(self, key: str, value: object) -> None:
        text = str(value)
        if key in self._meta:
            self.con.execute("UPDATE meta SET value = ? WHERE key = ?", [text, key])
        else:
            self.con.execute("INSERT INTO meta VALUES (?, ?)", [key, text])
        self._meta[key] = text

    def _seq(self, key: str) -> int:
        return int(self._get(key) or 0)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self.con.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self.con.execute("ROLLBACK")
            self._load_meta()  # what the rolled-back transaction set is gone from the table too
            raise
        self.con.execute("COMMIT")

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
        # Every filing's row, read once: what changed, and the filers' names (`_filer_names`).
        stored = self.con.execute(
            "SELECT filing_id, signature, digest, cik, company, filed_date FROM filings"
        ).fetchall()
        previous = {r[0]: (r[1], r[2]) for r in stored}
        signatures = {fid: source.signature(fid) for fid in present}
        removed = sorted(set(previous) - set(present))
        suspects = [fid for fid in present if previous.get(fid, ("", ""))[0] != signatures[fid]]

        # Read and check every changed partition before anything is written.
        fresh_filings: list[dict[str, Any]] = []
        fresh_claims: list[pl.DataFrame] = []
        added: list[str] = []
        changed: list[str] = []
        touched_only: list[dict[str, Any]] = []
        for fid in suspects:
            raw, triples, metrics = source.read(fid)
            if raw.is_empty():
                raise GraphInputError(
                    f"raw_filings partition {fid!r} is empty. Fix: re-materialize raw_filings "
                    "for it; the graph was left as it was"
                )
            meta = raw.row(0, named=True)
            cik = normalize_cik(meta.get("cik"))
            filer = company_key(cik) if cik else None
            claims = filing_claims(triples, metrics, filer)
            digest = sha256_stream(
                [
                    f"{filer}|{meta.get('company')}|{meta.get('filed_date')}|{meta.get('fiscal_year')}|"
                    f"{meta.get('fiscal_period')}|{meta.get('form')}\n",
                    claims.hash_rows(seed=0).to_numpy().tobytes() if claims.height else b"",
                ]
            )
            row = {
                "filing_id": fid,
                "cik": cik,
                "filer_id": filer,
                "company": meta.get("company"),
                "form": meta.get("form"),
                "filed_date": meta.get("filed_date"),
                "fiscal_label": filing_label(meta.get("fiscal_year"), meta.get("fiscal_period")),
                "signature": signatures[fid],
                "digest": digest,
            }
            if fid in previous and previous[fid][1] == digest:
                touched_only.append(row)
                continue
            (changed if fid in previous else added).append(fid)
            fresh_filings.append(row)
            fresh_claims.append(claims)

        # The filings as they will be once this update is written: those kept, and the fresh.
        replaced = set(removed) | set(changed)
        filers = _filer_names(
            [(r[0], r[3], r[4], r[5]) for r in stored if r[0] not in replaced]
            + [(r["filing_id"], r["cik"], r["company"], r["filed_date"]) for r in fresh_filings]
        )
        if callable(reference):
            reference = reference([cik for cik, _ in filers])
        reference = reference or Reference()
        curated = curated or load_curated()
        review = review_similarity if review_similarity is not None else REVIEW_SIMILARITY
        auto = auto_merge_similarity if auto_merge_similarity is not None else AUTO_MERGE_SIMILARITY
        if (
            not fresh_filings
            and not removed
            and self._registry_digest(reference, filers, merges or {}, curated, review, auto)
            == self._get("registry_digest")
        ):
            # Nothing new to resolve: only refresh the signatures of rewritten-but-equal partitions.
            with self._transaction():
                for row in touched_only:
                    self.con.execute(
                        "UPDATE filings SET signature = ? WHERE filing_id = ?",
                        [row["signature"], row["filing_id"]],
                    )
                self._remember_reference_source(reference)
            return EntitiesReport(
                filings=len(present),
                added=[],
                changed=[],
                removed=[],
                unchanged=len(present),
                mentions_resolved=0,
                mentions_changed=0,
                review_queue=int(_one(self.con, _REVIEW_COUNT_SQL) or 0),
                registry_rebuilt=False,
                seconds=(dt.datetime.now() - started).total_seconds(),
            )
        seq = self._seq("seq") + 1
        with self._transaction():
            for row in touched_only:
                self.con.execute(
                    "UPDATE filings SET signature = ? WHERE filing_id = ?",
                    [row["signature"], row["filing_id"]],
                )
            gone = [*removed, *changed]
            if gone:
                self.con.execute("DELETE FROM claims WHERE filing_id IN (SELECT unnest(?))", [gone])
                self.con.execute(
                    "DELETE FROM filings WHERE filing_id IN (SELECT unnest(?))", [gone]
                )
            if fresh_filings:
                rows = pl.DataFrame(
                    [{**r, "seq": seq, "unresolved": None} for r in fresh_filings],
                    schema=WORKING_FILINGS,
                )
                self.con.register("fresh_filings", _ArrowStream(rows))
                self.con.execute("INSERT INTO filings SELECT * FROM fresh_filings")
                self.con.unregister("fresh_filings")
            claims_frame = pl.concat(fresh_claims) if fresh_claims else empty(CLAIMS)
            if claims_frame.height:
                self.con.register("fresh_claims", _ArrowStream(claims_frame))
                self.con.execute("INSERT INTO claims SELECT * FROM fresh_claims")
                self.con.unregister("fresh_claims")
            resolved, mentions_changed, rebuilt = self._resolve(
                reference,
                filers,
                merges or {},
                curated,
                seq,
                claims_frame,
                review,
                auto,
                bool(gone or fresh_filings),
            )
            if fresh_filings or gone or resolved or mentions_changed:
                self._set("seq", seq)
            self._remember_reference_source(reference)
        review = int(_one(self.con, _REVIEW_COUNT_SQL) or 0)
        return EntitiesReport(
            filings=len(present),
            added=added,
            changed=changed,
            removed=removed,
            unchanged=len(present) - len(added) - len(changed),
            mentions_resolved=resolved,
            mentions_changed=mentions_changed,
            review_queue=review,
            registry_rebuilt=rebuilt,
            seconds=(dt.datetime.now() - started).total_seconds(),
        )

    def _registry_digest(
        self,
        reference: Reference,
        filers: list[tuple[str, str | None]],
        merges: Mapping[str, str],
        curated: CuratedAliases,
        review: float,
        auto: float,
    ) -> str:
        return registry_digest(
            reference=self._reference_digest(reference),
            filers=filers,
            curated=curated,
            merges=merges,
            review_similarity=review,
            auto_merge_similarity=auto,
        )

    def reference_source(self) -> str | None:
        """The identity of the reference files the stored registry was last built from (see
        `reference_source()`): a caller whose files still have it need not read them, since a
        `Reference` with only that `source` stands for the same rows."""
        return self._get("reference_source") or None

    def _reference_digest(self, reference: Reference) -> str:
        """The digest of the reference rows: the one stored when they come from the same source
        files as the rows it was taken from (unchanged path, size and mtime), else hashed."""
        stored = self._get("reference_digest")
        if (
            stored
            and reference.source is not None
            and reference.source == self._get("reference_source")
        ):
            return stored
        return reference.digest

    def _remember_reference_source(self, reference: Reference) -> None:
        """Record where the stored reference digest came from, once it is known to match (the
        rows were hashed this time): files rewritten with the same content are hashed once."""
        if (
            reference.source is not None
            and reference.source != self._get("reference_source")
            and reference.digest == self._get("reference_digest")
        ):
            self._set("reference_source", reference.source)

    def _name_rows(
        self, reference: Reference, filers: list[tuple[str, str | None]]
    ) -> list[NameRow]:
        """SEC's names and the filers' registrant names, normalized; SEC's are normalized again
        only when the reference data changed, a filer's only when it is new."""
        digest = self._reference_digest(reference)
        if digest != self._get("reference_digest"):
            rows = reference_name_rows(reference.tickers, reference.submissions)
            self.con.execute("DELETE FROM name_index WHERE source = 'reference'")
            self._insert_names(rows, "reference")
            self._set("reference_digest", digest)
            # The digest now stands for these rows: its source is theirs (or none is known).
            self._set("reference_source", reference.source or "")
        known = set(
            self.con.execute(
                "SELECT entity_id, alias FROM name_index WHERE source = 'filer'"
            ).fetchall()
        )
        wanted = {(company_key(cik), name) for cik, name in filers if name}
        if known - wanted:
            self.con.execute(
                "DELETE FROM name_index WHERE source = 'filer' AND entity_id || chr(31) || alias "
                "NOT IN (SELECT unnest(?))",
                [[f"{e}\x1f{a}" for e, a in wanted]],
            )
        self._insert_names(
            filer_name_rows(
                [
                    (cik, name)
                    for cik, name in filers
                    if name and (company_key(cik), name) not in known
                ]
            ),
            "filer",
        )
        return [
            NameRow(e, a, k, n, tuple(v or ()))
            for e, a, k, n, v in self.con.execute(
                "SELECT entity_id, alias, kind, norm, variants FROM name_index "
                "ORDER BY source = 'filer', position"
            ).fetchall()
        ]

    def _insert_names(self, rows: list[NameRow], source: str) -> None:
        if not rows:
            return
        start = int(_one(self.con, "SELECT coalesce(max(position), 0) FROM name_index") or 0)
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
        self.con.register("fresh_names", _ArrowStream(frame))
        self.con.execute("INSERT INTO name_index SELECT * FROM fresh_names")
        self.con.unregister("fresh_names")

    def _registry(
        self,
        reference: Reference,
        filers: list[tuple[str, str | None]],
        merges: Mapping[str, str],
        curated: CuratedAliases,
        review_similarity: float,
        auto_merge_similarity: float,
    ) -> tuple[Registry, dict[str, str]]:
        organizations = dict(
            self.con.execute(
                "SELECT entity_id, min(text) FROM mentions "
                "WHERE (method LIKE 'legal_form%' OR method LIKE 'provisional_org%') "
                "AND entity_id LIKE 'ORG:%' GROUP BY entity_id"
            ).fetchall()
        )
        registry = Registry.assemble(
            rows=self._name_rows(reference, filers),
            filers=[(cik, name or "") for cik, name in filers],
            curated=curated,
            merges=merges,
            review_similarity=review_similarity,
            auto_merge_similarity=auto_merge_similarity,
        )
        return registry, organizations

    def _resolve(
        self,
        reference: Reference,
        filers: list[tuple[str, str | None]],
        merges: Mapping[str, str],
        curated: CuratedAliases,
        seq: int,
        claims: pl.DataFrame,
        review_similarity: float,
        auto_merge_similarity: float,
        filings_changed: bool,
    ) -> tuple[int, int, bool]:
        digest = self._registry_digest(
            reference, filers, merges, curated, review_similarity, auto_merge_similarity
        )
        rebuilt = digest != self._get("registry_digest")
        # Which of these claims' mentions were seen before (not every mention of the store: at a
        # million edges that list alone cost more than a one-filing update).
        keys = (
            sorted(set(claims.get_column("subject_key")) | set(claims.get_column("object_key")))
            if claims.height
            else []
        )
        known = (
            {
                r[0]
                for r in self.con.execute(
                    "SELECT mention_key FROM mentions WHERE list_contains(?, mention_key)", [keys]
                ).fetchall()
            }
            if keys
            else set()
        )
        # New mentions (their first appearance), in a stable order.
        new_keys: dict[str, tuple[str, str, str | None]] = {}
        # (Their texts are looked up only when some are new: a filing that names no one new,
        # the common case, skips a few passes over its claims.)
        for side in ("subject", "object") if len(known) < len(keys) else ():
            for key, text, role, filer in (
                claims.select(f"{side}_key", f"{side}_text", f"{side}_role", "filer_id")
                .unique()
                .sort(f"{side}_key")
                .iter_rows()
            ):
                if key not in known and key not in new_keys:
                    new_keys[key] = (role, text, filer)
        if not rebuilt and not new_keys:
            # Every mention was resolved before, by the same registry: nothing to build.
            if filings_changed:
                self._refresh_entities(curated)
            return 0, 0, False
        registry, known_orgs = self._registry(
            reference, filers, merges, curated, review_similarity, auto_merge_similarity
        )

        def rows_of(where: str, params: Any = None) -> dict[str, dict[str, Any]]:
            frame = _frame(self.con, f"SELECT * FROM mentions WHERE {where}", MENTION_STATE, params)
            return {r["mention_key"]: r for r in frame.iter_rows(named=True)}

        old = rows_of("true") if rebuilt else {}
        todo = {k: (r["role"], r["text"], r["filer_id"]) for k, r in old.items()}
        todo.update(new_keys)
        # Organizations: those seen before stay known (unless the registry was rebuilt, which
        # re-derives them from legal-form names in the order below).
        if not rebuilt:
            for org_id, name in sorted(known_orgs.items()):
                registry.add_organization(org_id, name)
        results = self._resolve_keys(registry, todo)
        # A new organization can settle mentions that did not resolve before.
        new_orgs = {
            r.entity_id for r in results.values() if r.method.startswith(NEW_ORG_METHODS)
        } - set(known_orgs)
        if new_orgs and not rebuilt:
            unresolved = rows_of("status <> 'resolved'")
            old.update(unresolved)
            retry = {
                k: (r["role"], r["text"], r["filer_id"])
                for k, r in unresolved.items()
                if k not in results
            }
            todo.update(retry)
            results.update(self._resolve_keys(registry, retry))

        rows, changed = [], 0
        for key, res in results.items():
            role, text, filer = todo[key]
            row = _mention_row(key, role, text, filer, res)
            prior = old.get(key)
            if prior is None:
                rows.append({**row, "created_seq": seq, "changed_seq": None})
                continue
            if any(
                prior[c] != row[c] for c in ("status", "entity_id", "review_reason", "entity_name")
            ) or ((prior["candidates"] or []) != (row["candidates"] or [])):
                changed += 1
                rows.append({**row, "created_seq": prior["created_seq"], "changed_seq": seq})
            elif prior["method"] != row["method"]:
                rows.append(
                    {
                        **row,
                        "created_seq": prior["created_seq"],
                        "changed_seq": prior["changed_seq"],
                    }
                )
        if rows:
            frame = pl.DataFrame(rows, schema=MENTION_STATE)
            self.con.register("fresh_mentions", _ArrowStream(frame))
            self.con.execute(
                "DELETE FROM mentions WHERE mention_key IN (SELECT mention_key FROM fresh_mentions)"
            )
            self.con.execute("INSERT INTO mentions SELECT * FROM fresh_mentions")
            self.con.unregister("fresh_mentions")
        self._refresh_entities(curated)
        self._set("registry_digest", digest)
        return len(results), changed, rebuilt

    @staticmethod
    def _resolve_keys(
        registry: Registry, todo: Mapping[str, tuple[str, str, str | None]]
    ) -> dict[str, Resolution]:
        out: dict[str, Resolution] = {}
        # Legal-form names first, so that an organization is known before its short name is met.
        order = sorted(
            todo, key=lambda k: (todo[k][0] == "id", 0 if _legal(todo[k][1]) else 1, todo[k][1], k)
        )
        for key in order:
            role, text, filer = todo[key]
            if role == "id":  # an XBRL claim names its company and metric by id: "id:CIK-…"
                target = redirect(key[len("id:") :], registry.merges)
                out[key] = Resolution(
                    RESOLVED, "xbrl", target, ontology.entity_type(target), registry.name(target)
                )
            else:
                out[key] = registry.resolve(text, role, filer)
        return out

    def _refresh_entities(self, curated: CuratedAliases) -> None:
        """The names this code contributes (risk taxonomy, metric labels, curated aliases) for
        the `entities` and `entity_aliases` views: every company that files, every entity a
        resolved mention of a current claim names, every risk category; their aliases: SEC's and
        the filers' names, the curated ones, and the mentions resolved to them."""
        rows = _static_rows(curated)
        # They change with this code and the curated file only: rewritten when they differ.
        digest = sha256_text(repr(rows))
        if digest == self._get("static_digest"):
            return
        self.con.execute("DELETE FROM static_entities")
        frame = pl.DataFrame(rows, schema=STATIC_ENTITIES)
        self.con.register("fresh_static", _ArrowStream(frame))
        self.con.execute("INSERT INTO static_entities SELECT * FROM fresh_static")
        self.con.unregister("fresh_static")
        self._set("static_digest", digest)

    # -- knowledge_graph ---------------------------------------------------------------------
    def update_graph(self) -> GraphReport:
        """Re-derive the evidence of the filings that need it and the edges it touches."""
        started = dt.datetime.now()
        graph_seq = self._seq("graph_seq")
        seq = self._seq("seq")
        con = self.con
        with self._transaction():
            filings = sorted(r[0] for r in con.execute(_AFFECTED_SQL, {"g": graph_seq}).fetchall())
            if not filings:
                self._set("graph_seq", seq)
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
            ids, params = _filings_in(filings)

            def run(sql: str) -> int:
                """A statement over the affected filings (`IN {AFFECTED}`); the rows it changed."""
                return _count(con, sql.replace("{AFFECTED}", ids), params)

            # Scratch tables are created or replaced (no drop first: each statement is a round
            # trip) and dropped together at the end.
            run(
                "CREATE OR REPLACE TEMP TABLE old_edges AS SELECT DISTINCT edge_id, statement_key, subject_id, "
                "object_id, filer_id FROM edge_evidence WHERE filing_id IN {AFFECTED}"
            )
            removed = run("DELETE FROM edge_evidence WHERE filing_id IN {AFFECTED}")
            # Straight into the table (a scratch copy first cost a statement and a copy more):
            # the evidence of the affected filings is then exactly what this inserted.
            added = run(f"INSERT INTO edge_evidence {_EVIDENCE_SQL}")
            run(_UNRESOLVED_BY_FILING_SQL)
            touched = run(_TOUCHED_SQL)
            con.execute("DELETE FROM edges WHERE edge_id IN (SELECT edge_id FROM touched)")
            # Every edge touched was deleted and is re-aggregated from its evidence: those not
            # back (touched, not inserted) have none left.
            edges_removed = touched - _count(con, f"INSERT INTO edges {_EDGES_SQL}")
            con.execute(_SUPERSEDE_SQL)
            # From the log of updates, not of changes: an update that touched no entity writes no
            # change, and an id drawn from the changes was then handed out twice (the second
            # update, a merge, was never seen by the communities that had applied the first).
            update_id = int(
                _one(con, "SELECT coalesce(max(update_id), 0) + 1 FROM graph_updates") or 1
            )
            entities = _count(
                con,
                "INSERT INTO graph_changes SELECT $u, entity_id FROM ("
                "SELECT subject_id AS entity_id FROM touched UNION SELECT object_id FROM touched) "
                "WHERE entity_id IS NOT NULL ORDER BY entity_id",
                {"u": update_id},
            )
            con.execute(
                "INSERT INTO graph_updates VALUES ($u, $f, $t, $e)",
                {"u": update_id, "f": filings, "t": touched, "e": entities},
            )
            con.execute(_DROP_TEMP)
            self._set("graph_seq", seq)
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
        return int(_one(self.con, "SELECT coalesce(sum(unresolved), 0) FROM filings") or 0)

    # -- reading -----------------------------------------------------------------------------
    def tables(self) -> GraphTables:
        con = self.con
        return GraphTables(
            nodes=_frame(con, "SELECT * FROM entities ORDER BY entity_id", NODES),
            edges=_frame(con, "SELECT * FROM edges ORDER BY edge_id", EDGES),
            edge_evidence=_frame(
                con,
                f"SELECT {', '.join(EDGE_EVIDENCE)} FROM edge_evidence ORDER BY edge_id, evidence_id",
                EDGE_EVIDENCE,
            ),
            entity_aliases=_frame(
                con,
                "SELECT * FROM entity_aliases ORDER BY entity_id, kind, alias_norm",
                ENTITY_ALIASES,
            ),
            review_queue=self.review_queue(),
        )

    def review_queue(self, limit: int | None = None) -> pl.DataFrame:
        sql = f"SELECT * FROM ({_REVIEW_SQL}) ORDER BY in_graph, claims DESC, text"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return _frame(self.con, sql, REVIEW_QUEUE, {"shown": REVIEW_EVIDENCE_SHOWN})

    def mentions(self) -> pl.DataFrame:
        return _frame(self.con, "SELECT * FROM mentions ORDER BY mention_key", MENTION_STATE)

    def entity_ids(self) -> set[str]:
        return {r[0] for r in self.con.execute("SELECT entity_id FROM entities").fetchall()}

    def review_item(self, ref: str) -> dict[str, Any] | None:
        """A review-queue mention by its id (or a unique prefix of it) or its exact text."""
        if not ref.strip():  # the empty prefix of every id: it must not pick a lone item
            return None
        rows = self.con.execute(
            "SELECT mention_key, text, role, review_reason, status FROM mentions "
            "WHERE review_reason IS NOT NULL AND (starts_with(mention_key, ?) OR text = ?)",
            [ref, ref],
        ).fetchall()
        if len(rows) != 1:
            return None
        key, text, role, reason, status = rows[0]
        return {"review_id": key, "text": text, "role": role, "reason": reason, "status": status}

    def changes_since(self, update_id: int = 0) -> pl.DataFrame:
        """Entities touched by every graph update after `update_id` (the communities stage)."""
        return _frame(
            self.con,
            "SELECT * FROM graph_changes WHERE update_id > ? ORDER BY update_id, entity_id",
            GRAPH_CHANGES,
            [update_id],
        )

    def updates_since(self, update_id: int = 0) -> pl.DataFrame:
        """The graph updates after `update_id`: the filings each applied, what each touched."""
        return _frame(
            self.con,
            "SELECT * FROM graph_updates WHERE update_id > ? ORDER BY update_id",
            GRAPH_UPDATES,
            [update_id],
        )

    def integrity(self) -> CheckVerdict:
        """Every edge cites at least one piece of evidence and counts exactly what it has, and
        every piece of evidence belongs to an edge and to a filing of the graph."""
        con = self.con
        figures = {
            "edges_without_evidence": int(
                _one(
                    con,
                    "SELECT count(*) FROM edges WHERE edge_id NOT IN (SELECT edge_id FROM edge_evidence)",
                )
                or 0
            ),
            "evidence_without_edge": int(
                _one(
                    con,
                    "SELECT count(*) FROM edge_evidence WHERE edge_id NOT IN (SELECT edge_id FROM edges)",
                )
                or 0
            ),
            "evidence_without_filing": int(
                _one(
                    con,
                    "SELECT count(*) FROM edge_evidence WHERE filing_id NOT IN (SELECT filing_id FROM filings)",
                )
                or 0
            ),
            "miscounted_edges": int(
                _one(
                    con,
                    "SELECT count(*) FROM edges e JOIN (SELECT edge_id, count(*) AS n FROM edge_evidence GROUP BY edge_id) c USING (edge_id) WHERE c.n <> e.evidence_count",
                )
                or 0
            ),
            "dangling_supersession": int(
                _one(
                    con,
                    "SELECT count(*) FROM edges WHERE superseded_by IS NOT NULL AND superseded_by NOT IN (SELECT edge_id FROM edges)",
                )
                or 0
            ),
        }
        return CheckVerdict(
            asset="knowledge_graph",
            check="graph_integrity",
            passed=not any(figures.values()),
            blocking=True,
            figures={**figures, "edges": int(_one(con, "SELECT count(*) FROM edges") or 0)},
        )

    def counts(self) -> dict[str, Any]:
        con = self.con
        return {
            "nodes_by_type": dict(
                con.execute(
                    "SELECT entity_type, count(*) FROM entities GROUP BY 1 ORDER BY 1"
                ).fetchall()
            ),
            "edges_by_relation": dict(
                con.execute("SELECT relation, count(*) FROM edges GROUP BY 1 ORDER BY 1").fetchall()
            ),
            "edges": int(_one(con, "SELECT count(*) FROM edges") or 0),
            "superseded_edges": int(
                _one(con, "SELECT count(*) FROM edges WHERE superseded_by IS NOT NULL") or 0
            ),
            "evidence": int(_one(con, "SELECT count(*) FROM edge_evidence") or 0),
            "review_queue": int(_one(con, _REVIEW_COUNT_SQL) or 0),
            "claims_unresolved": self._unresolved_claims(),
        }

    def publication(self) -> list[PublicationShare]:
        """Per relation: the claims the gates accepted, how many the graph publishes (subject
        and object resolved), how many the organisation check kept out (a `not_org:` reason),
        and how many wait in the review queue otherwise (issue 22: that last should be 0)."""
        rows = self.con.execute(_PUBLICATION_SQL).fetchall()
        return [
            PublicationShare(str(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4])) for r in rows
        ]

    def organisation_contexts(self) -> pl.DataFrame:
        """Every company and organization a text edge names, with the first sentence that names
        it (`context`) and whether it is a provisional node (no registrant or curated name: its
        mentions resolved by `provisional_org` or `legal_form`): what merge proposals by meaning
        compare (graph/merge_proposals.py)."""
        return _frame(self.con, _ORGANISATION_CONTEXTS_SQL, ORGANISATION_CONTEXTS)

    def named_together(self) -> pl.DataFrame:
        """Pairs of entities (`a` < `b`) the filings tell apart: both named in one chunk (a
        list of competitors, the rows of an Exhibit 21: a filer lists each party once), one
        related to the other by an edge (a subsidiary and its parent), or siblings (one filing
        states the same relation to the same party for both). Never a merge proposal."""
        return _frame(self.con, _NAMED_TOGETHER_SQL, {"a": pl.String, "b": pl.String})

    def review_share(self) -> tuple[int, int]:
        """(mentions in the review queue, mentions the filings' claims make): the queue's size
        against what resolution was asked to do."""
        queued = int(_one(self.con, _REVIEW_COUNT_SQL) or 0)
        total = int(
            _one(
                self.con,
                "SELECT count(*) FROM (SELECT subject_key FROM claims "
                "UNION SELECT object_key FROM claims)",
            )
            or 0
        )
        return queued, total

    def filings_contribution(self, filing_ids: Sequence[str]) -> FilingsContribution:
        """What `filing_ids` bring to the graph that no other filing does: the entities only
        they name (by type; the always-present risk taxonomy left out), and their mentions
        waiting in the review queue (by reason). The ingestion report's entity figures."""
        params = {"f": sorted(set(filing_ids))}
        new = dict(self.con.execute(_NEW_ENTITIES_SQL, params).fetchall())
        queued = dict(self.con.execute(_QUEUED_MENTIONS_SQL, params).fetchall())
        return FilingsContribution(
            new_entities={str(k): int(v) for k, v in sorted(new.items())},
            queued_for_review={str(k): int(v) for k, v in sorted(queued.items())},
        )


def _filer_names(
    filings: Iterable[tuple[str, str | None, str | None, dt.date | None]],
) -> list[tuple[str, str | None]]:
    """(cik, registrant name) of every filer of (filing id, cik, company, filed date) rows, by
    CIK: the name its latest filing gives (by filed date, then filing id, so that two filings of
    one day, or two undated, always give the same name), None when no filing gives one."""
    names: dict[str, str | None] = {}
    latest: dict[str, tuple[dt.date, str]] = {}
    for filing_id, cik, company, filed in filings:
        if cik is None:
            continue
        names.setdefault(cik, None)
        key = (filed or dt.date.min, filing_id)
        if company is not None and (cik not in latest or key > latest[cik]):
            latest[cik], names[cik] = key, company
    return sorted(names.items())


def _legal(text: str) -> bool:
    from graphrag_core.common.names import has_legal_form, is_sentence

    return has_legal_form(text) and not is_sentence(text)


def _static_rows(curated: CuratedAliases) -> list[dict[str, Any]]:
    """Names that come from this code rather than the filings: the risk taxonomy (every category
    is a node), metric descriptions, curated aliases and organization names."""
    rows: list[dict[str, Any]] = []

    def add(
        entity: str,
        kind: str,
        name: str | None,
        description: str | None,
        always: bool,
        alias: str | None,
        alias_kind: str | None,
    ) -> None:
        norm = normalize_name(alias) if alias else None
        rows.append(
            {
                "entity_id": entity,
                "entity_type": kind,
                "name": name,
                "description": description,
                "always": always,
                "alias": alias,
                "alias_norm": norm,
                "alias_kind": alias_kind,
            }
        )

    for category in TAXONOMY:
        for alias in (category.label, category.key.replace("-", " ")):
            add(
                category.entity_id,
                ontology.RISK,
                category.label,
                category.description,
                True,
                alias,
                "risk_label",
            )
    for metric, label in ontology.METRIC_LABELS.items():
        add(
            ontology.metric_id(metric),
            ontology.METRIC,
            metric,
            label,
            False,
            metric.replace("_", " "),
            "name",
        )
    for company in curated.companies:
        for alias in company.aliases:
            add(company.entity_id, ontology.COMPANY, None, None, False, alias, "curated")
    for org in curated.organizations:
        add(org.entity_id, ontology.ORGANIZATION, org.name, None, False, org.name, "name")
        for alias in org.aliases:
            add(org.entity_id, ontology.ORGANIZATION, org.name, None, False, alias, "curated")
    return rows


def _mention_row(
    key: str, role: str, text: str, filer: str | None, res: Resolution
) -> dict[str, Any]:
    from graphrag_core.graph.resolution import is_context_dependent

    return {
        "mention_key": key,
        "role": role,
        "text": text,
        "filer_id": filer if is_context_dependent(text) else None,
        "status": res.status,
        "method": res.method,
        "entity_id": res.entity_id,
        "entity_type": res.entity_type,
        "entity_name": res.name,
        "review_reason": res.review_reason,
        "candidates": [c.as_row() for c in res.candidates],
        "text_norm": normalize_name(text) if role == ontology.PARTY else None,
    }


# -- SQL ----------------------------------------------------------------------------------------
# Ids are hashes of their parts joined by the unit separator (as common.ids.content_hash does);
# values enter as '%.15g' text so that an id never depends on float formatting of a version.
_EDGE_KEY = (
    "concat_ws(chr(31), s.entity_id, c.relation, o.entity_id, "
    "coalesce(c.period, '') || CASE WHEN c.source = 'xbrl' THEN '|' || coalesce(c.calendar_start::VARCHAR, '') "
    "|| '|' || coalesce(c.calendar_end::VARCHAR, '') ELSE '' END"
)
# A range's ends and a bound are part of what an edge states ("between $151.0 and $155.5
# billion" is not "between $150 and $160 billion"; "exceed $11 billion" is not "$11 billion"):
# empty for a plain figure, so the id of every edge without them is what it always was.
_FIGURE_SHAPE = (
    "CASE WHEN c.value_low IS NULL AND c.value_high IS NULL THEN '' ELSE '|' || "
    "coalesce(printf('%.15g', c.value_low), '') || '|' || coalesce(printf('%.15g', c.value_high), '') END "
    "|| CASE WHEN c.bound IS NULL THEN '' ELSE '|' || c.bound END"
)
_EVIDENCE_SQL = f"""
SELECT substr(sha256(concat_ws(chr(31), edge_id, claim_id)), 1, 24) AS evidence_id, * EXCLUDE (claim_id)
FROM (
    SELECT
        substr(sha256({_EDGE_KEY}, CASE WHEN c.value IS NULL THEN '' ELSE printf('%.15g', c.value) END
               || '|' || coalesce(c.unit, '') || {_FIGURE_SHAPE})), 1, 24) AS edge_id,
        c.claim_id, c.filing_id, c.filer_id, c.chunk_id, c.quote, c.char_start, c.char_end,
        c.subject_text, c.object_text, c.observation_id, c.fact_id, c.concept,
        s.entity_id AS subject_id, c.relation, o.entity_id AS object_id, c.period,
        c.calendar_start, c.calendar_end, c.value, c.unit, c.source,
        substr(sha256({_EDGE_KEY}, coalesce(c.unit, ''))), 1, 24) AS statement_key,
        c.adjustment, c.value_low, c.value_high, c.bound
    FROM claims c
    JOIN mentions s ON s.mention_key = c.subject_key AND s.status = 'resolved'
    JOIN mentions o ON o.mention_key = c.object_key AND o.status = 'resolved'
    WHERE c.filing_id IN {{AFFECTED}}
      -- a relation of an entity with itself says nothing ("NVIDIA competes with NVIDIA")
      AND s.entity_id <> o.entity_id
)
"""

# The filings whose evidence an update re-derives: those whose claims changed since the last
# graph update ($g), those gone (evidence left, filing not), and those whose claims name a
# mention whose resolution changed. One statement: a check first and an insert after cost more.
# The statements after it name these filings as `IN {AFFECTED}` (see `_filings_in`).
_AFFECTED_SQL = """
SELECT filing_id FROM filings WHERE seq > $g
UNION SELECT filing_id FROM edge_evidence WHERE filing_id NOT IN (SELECT filing_id FROM filings)
-- as semi joins against the changed mentions: when there are none (most updates), DuckDB
-- skips the scan of the claims (an OR of two IN subqueries scanned them: 30 ms at 1.6M claims)
UNION SELECT c.filing_id FROM claims c
SEMI JOIN (SELECT mention_key FROM mentions WHERE changed_seq > $g) m ON m.mention_key = c.subject_key
UNION SELECT c.filing_id FROM claims c
SEMI JOIN (SELECT mention_key FROM mentions WHERE changed_seq > $g) m ON m.mention_key = c.object_key
"""

# The scratch tables of one graph update, dropped in one statement (each is a round trip).
_DROP_TEMP = "; ".join(f"DROP TABLE IF EXISTS temp.{name}" for name in ("old_edges", "touched"))

_EDGES_SQL = """
WITH ev AS (
    SELECT e.*, f.filed_date, f.fiscal_label,
           coalesce(f.filed_date::VARCHAR, '0000-00-00') || e.filing_id AS ord
    FROM edge_evidence e LEFT JOIN filings f USING (filing_id)
    WHERE e.edge_id IN (SELECT edge_id FROM touched)
),
agg AS (
    SELECT edge_id, any_value(subject_id) AS subject_id, any_value(relation) AS relation,
           any_value(object_id) AS object_id, any_value(period) AS period,
           min(calendar_start) AS x_start, max(calendar_end) AS x_end,
           any_value(value) AS value, any_value(unit) AS unit, any_value(source) AS source,
           any_value(statement_key) AS statement_key,
           -- len(list_distinct(list(x))), not count(DISTINCT x): a distinct aggregate splits the
           -- grouping in two over a materialized copy of its input, a third of the cost here.
           count(*) AS evidence_count, len(list_distinct(list(filing_id))) AS filing_count,
           arg_min(filing_id, ord) AS first_filing_id, min(filed_date) AS first_filed,
           arg_max(filing_id, ord) AS last_filing_id, max(filed_date) AS last_filed,
           -- list_sort(list_distinct(list(x))): the distinct non-null values in order, as
           -- list(DISTINCT x ORDER BY x) FILTER (x IS NOT NULL) gives them, at half the cost
           -- (an ordered aggregate's setup was most of what re-aggregating a few edges cost).
           list_sort(list_distinct(list(fiscal_label))) AS seen_periods,
           list_sort(list_distinct(list(filer_id))) AS stated_by,
           list_sort(list_distinct(list(object_text))) AS phrases,
           max(adjustment) AS adjustment,
           arg_min(filer_id, ord) AS first_filer,
           -- part of the edge id: one value per edge
           any_value(value_low) AS value_low, any_value(value_high) AS value_high,
           any_value(bound) AS bound
    FROM ev GROUP BY edge_id
)
SELECT a.edge_id, a.subject_id, a.relation, a.object_id, a.period,
       CASE WHEN a.source = 'xbrl' THEN a.x_start ELSE k.calendar_start END,
       CASE WHEN a.source = 'xbrl' THEN a.x_end ELSE k.calendar_end END,
       a.value, a.unit, a.source, a.statement_key, a.evidence_count, a.filing_count,
       a.first_filing_id, a.first_filed, a.last_filing_id, a.last_filed,
       coalesce(a.seen_periods, []), coalesce(a.stated_by, []), a.phrases[1:5], a.adjustment,
       NULL AS superseded_by, a.value_low, a.value_high, a.bound
FROM agg a
LEFT JOIN filer_calendar k ON k.filer_id = a.first_filer AND k.period = a.period AND a.source = 'text'
"""

# The edges an update re-aggregates: those of the evidence it removed and added (an edge id fixes
# its statement, subject and object: one row per edge), and every dated text edge its filers
# state, whose calendar range comes from the filer's XBRL durations (`filer_calendar`), which
# these filings may have brought or taken away.
_TOUCHED_SQL = """
CREATE OR REPLACE TEMP TABLE touched AS
SELECT edge_id, statement_key, subject_id, object_id FROM old_edges
UNION SELECT edge_id, statement_key, subject_id, object_id FROM edge_evidence WHERE filing_id IN {AFFECTED}
UNION SELECT edge_id, statement_key, subject_id, object_id FROM edge_evidence
WHERE source = 'text' AND period IS NOT NULL
  AND filer_id IN (SELECT filer_id FROM old_edges
                   UNION SELECT filer_id FROM edge_evidence WHERE filing_id IN {AFFECTED})
"""

# Within one statement (subject, relation, object, period, unit), an edge is superseded by the
# edge of the next later filing date that states another value; values stated by the same
# latest filing are all current. Only the statements touched are looked at, and only edges whose
# link changes are written.
_SUPERSEDE_SQL = """
UPDATE edges SET superseded_by = n.next_id
FROM (
    WITH grp AS (
        SELECT edge_id, statement_key, coalesce(last_filed, DATE '0001-01-01') AS d
        FROM edges WHERE statement_key IN (SELECT statement_key FROM touched)
    )
    SELECT g.edge_id, x.next_id
    FROM grp g LEFT JOIN (
        SELECT e.edge_id, arg_min(f.edge_id, f.d::VARCHAR || f.edge_id) AS next_id
        FROM grp e JOIN grp f ON f.statement_key = e.statement_key AND f.d > e.d
        GROUP BY e.edge_id
    ) x USING (edge_id)
) n
WHERE edges.edge_id = n.edge_id AND edges.superseded_by IS DISTINCT FROM n.next_id
"""

_ENTITIES_SQL = """
WITH used AS (
    SELECT subject_key AS mention_key FROM claims UNION SELECT object_key FROM claims
),
resolved AS (
    SELECT m.entity_id, any_value(m.entity_type) AS entity_type, min(m.entity_name) AS name
    FROM mentions m SEMI JOIN used USING (mention_key)
    WHERE m.status = 'resolved' AND m.entity_id IS NOT NULL
    GROUP BY m.entity_id
),
filers AS (
    -- the name of the latest filing, the filing id breaking ties (as _filer_names does)
    SELECT filer_id AS entity_id,
           arg_max(company, (coalesce(filed_date, DATE '0001-01-01'), filing_id)) AS name
    FROM filings WHERE filer_id IS NOT NULL GROUP BY filer_id
),
static AS (
    SELECT entity_id, any_value(entity_type) AS entity_type, any_value(name) AS name,
           any_value(description) AS description, bool_or(always) AS always
    FROM static_entities GROUP BY entity_id
),
ids AS (
    SELECT entity_id FROM resolved UNION SELECT entity_id FROM filers
    UNION SELECT entity_id FROM static WHERE always
)
SELECT i.entity_id,
       coalesce(r.entity_type, s.entity_type, CASE WHEN f.entity_id IS NOT NULL THEN 'company' END) AS entity_type,
       coalesce(f.name, s.name, r.name, i.entity_id) AS name,
       CASE WHEN i.entity_id LIKE 'CIK-%' THEN substr(i.entity_id, 5) END AS cik,
       s.description,
       f.entity_id IS NOT NULL AS is_filer
FROM ids i
LEFT JOIN resolved r USING (entity_id)
LEFT JOIN filers f USING (entity_id)
LEFT JOIN static s USING (entity_id)
ORDER BY i.entity_id
"""

_ENTITY_ALIASES_SQL = """
SELECT entity_id, alias, alias_norm, alias_compact, kind
FROM (
    SELECT n.entity_id, x.alias, x.norm AS alias_norm,
           CASE WHEN x.kind = 'ticker' THEN x.norm ELSE replace(x.norm, ' ', '') END AS alias_compact, x.kind
    FROM name_index x JOIN entities n USING (entity_id)
    UNION ALL
    SELECT n.entity_id, s.alias, s.alias_norm, replace(s.alias_norm, ' ', ''), s.alias_kind
    FROM static_entities s JOIN entities n USING (entity_id)
    WHERE s.alias IS NOT NULL
    UNION ALL
    SELECT n.entity_id, m.text, m.text_norm, replace(m.text_norm, ' ', ''), 'mention'
    FROM mentions m JOIN entities n USING (entity_id)
    WHERE m.status = 'resolved' AND m.role = 'party' AND m.text_norm IS NOT NULL
      -- as the entities view: only what a current claim says (a removed filing's mentions
      -- stay resolved in the store, but are no one's alias once no claim makes them)
      AND m.mention_key IN (SELECT subject_key FROM claims UNION SELECT object_key FROM claims)
)
WHERE alias_norm IS NOT NULL AND alias_norm <> ''
QUALIFY row_number() OVER (PARTITION BY entity_id, alias_norm, kind ORDER BY alias) = 1
ORDER BY entity_id, kind, alias_norm
"""

_ORGANISATION_CONTEXTS_SQL = """
WITH named AS (
    SELECT subject_id AS entity_id, quote, evidence_id FROM edge_evidence WHERE quote IS NOT NULL
    UNION ALL
    SELECT object_id, quote, evidence_id FROM edge_evidence WHERE quote IS NOT NULL
),
provisional AS (
    SELECT DISTINCT entity_id FROM mentions
    WHERE status = 'resolved' AND (starts_with(method, 'provisional_org') OR method = 'legal_form')
)
SELECT e.entity_id, e.entity_type, e.name, arg_min(n.quote, n.evidence_id) AS context,
       e.entity_id IN (SELECT entity_id FROM provisional) AS provisional
FROM entities e JOIN named n USING (entity_id)
WHERE e.entity_type IN ('company', 'organization')
GROUP BY ALL ORDER BY e.entity_id
"""

_NAMED_TOGETHER_SQL = """
WITH sides AS (
    SELECT chunk_id, subject_id AS entity_id FROM edge_evidence WHERE quote IS NOT NULL
    UNION SELECT chunk_id, object_id FROM edge_evidence WHERE quote IS NOT NULL
)
SELECT DISTINCT x.entity_id AS a, y.entity_id AS b
FROM sides x JOIN sides y ON x.chunk_id = y.chunk_id AND x.entity_id < y.entity_id
UNION
SELECT least(subject_id, object_id), greatest(subject_id, object_id) FROM edge_evidence
WHERE quote IS NOT NULL AND subject_id <> object_id
UNION
-- siblings: one filing states the same relation to the same party for both (the subsidiaries
-- of its Exhibit 21, its competitors), however far apart in the filing
SELECT DISTINCT x.subject_id, y.subject_id FROM edge_evidence x JOIN edge_evidence y
  ON x.filing_id = y.filing_id AND x.relation = y.relation AND x.object_id = y.object_id
 AND x.subject_id < y.subject_id
WHERE x.quote IS NOT NULL AND y.quote IS NOT NULL
UNION
SELECT DISTINCT x.object_id, y.object_id FROM edge_evidence x JOIN edge_evidence y
  ON x.filing_id = y.filing_id AND x.relation = y.relation AND x.subject_id = y.subject_id
 AND x.object_id < y.object_id
WHERE x.quote IS NOT NULL AND y.quote IS NOT NULL AND x.relation <> 'EXPOSED_TO_RISK'
"""

# Claims per relation: accepted, published (both sides resolved), kept out by the organisation
# check (a side's reason is `not_org:…`), withheld otherwise.
_PUBLICATION_SQL = """
SELECT c.relation, count(*) AS accepted,
       count(*) FILTER (WHERE s.status = 'resolved' AND o.status = 'resolved') AS published,
       count(*) FILTER (WHERE NOT (s.status = 'resolved' AND o.status = 'resolved')
                        AND (starts_with(coalesce(s.review_reason, ''), 'not_org:')
                             OR starts_with(coalesce(o.review_reason, ''), 'not_org:'))) AS not_org,
       count(*) FILTER (WHERE NOT (s.status = 'resolved' AND o.status = 'resolved')
                        AND NOT starts_with(coalesce(s.review_reason, ''), 'not_org:')
                        AND NOT starts_with(coalesce(o.review_reason, ''), 'not_org:')) AS withheld
FROM claims c
LEFT JOIN mentions s ON s.mention_key = c.subject_key
LEFT JOIN mentions o ON o.mention_key = c.object_key
GROUP BY c.relation ORDER BY c.relation
"""

# Per filing re-derived: its claims whose subject or object did not resolve (left out, queued).
_UNRESOLVED_BY_FILING_SQL = """
UPDATE filings SET unresolved = coalesce(u.n, 0)
FROM (
    SELECT a.filing_id, n.n FROM filings a LEFT JOIN (
        -- equality joins (hashed at any size), not IN subqueries under an OR
        SELECT c.filing_id, count(*) FILTER (WHERE s.status <> 'resolved' OR o.status <> 'resolved') AS n
        FROM claims c
        LEFT JOIN mentions s ON s.mention_key = c.subject_key
        LEFT JOIN mentions o ON o.mention_key = c.object_key
        WHERE c.filing_id IN {AFFECTED}
        GROUP BY c.filing_id
    ) n USING (filing_id)
    WHERE a.filing_id IN {AFFECTED}
) u
WHERE filings.filing_id = u.filing_id
"""

# Up to this many filings, the statements of an update name them as constants, which the scans
# filter on directly (a one-filing add: ~4 ms less than a semi join with a scratch table);
# past it (a full build), as a list parameter, which binds in one piece.
_INLINE_FILINGS = 32


def _filings_in(filings: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """The SQL of the set after `IN` over these filing ids, and its parameters."""
    if len(filings) <= _INLINE_FILINGS:
        names = [f"a{i}" for i in range(len(filings))]
        return "(" + ", ".join(f"${n}" for n in names) + ")", dict(zip(names, filings, strict=True))
    return "(SELECT unnest($affected))", {"affected": list(filings)}


# Entities of a set of filings ($f) that no other filing names: resolved mentions of their
# claims and their filers, minus those of every other filing; taxonomy categories always exist.
_NEW_ENTITIES_SQL = """
WITH named AS (
    SELECT c.filing_id, m.entity_id, m.entity_type FROM claims c
    JOIN mentions m ON m.mention_key = c.subject_key
    WHERE m.status = 'resolved' AND m.entity_id IS NOT NULL
    UNION ALL
    SELECT c.filing_id, m.entity_id, m.entity_type FROM claims c
    JOIN mentions m ON m.mention_key = c.object_key
    WHERE m.status = 'resolved' AND m.entity_id IS NOT NULL
    UNION ALL
    SELECT filing_id, filer_id, 'company' FROM filings WHERE filer_id IS NOT NULL
),
theirs AS (SELECT DISTINCT entity_id, entity_type FROM named WHERE list_contains($f, filing_id)),
others AS (SELECT DISTINCT entity_id FROM named WHERE NOT list_contains($f, filing_id))
SELECT entity_type, count(*) FROM theirs
WHERE entity_id NOT IN (SELECT entity_id FROM others)
  AND entity_id NOT IN (SELECT entity_id FROM static_entities WHERE always)
GROUP BY entity_type
"""
# Mentions of a set of filings ($f) waiting in the review queue, by reason.
_QUEUED_MENTIONS_SQL = """
WITH theirs AS (
    SELECT subject_key AS mention_key FROM claims WHERE list_contains($f, filing_id)
    UNION SELECT object_key FROM claims WHERE list_contains($f, filing_id)
)
SELECT m.review_reason, count(*) FROM mentions m SEMI JOIN theirs USING (mention_key)
WHERE m.review_reason IS NOT NULL
GROUP BY m.review_reason
"""
_REVIEW_COUNT_SQL = """
SELECT count(*) FROM mentions m
SEMI JOIN (SELECT subject_key AS k FROM claims UNION ALL SELECT object_key FROM claims) u ON u.k = m.mention_key
WHERE m.review_reason IS NOT NULL
"""

_REVIEW_SQL = """
WITH flagged AS (
    SELECT * FROM mentions WHERE review_reason IS NOT NULL
),
uses AS (
    SELECT *, row_number() OVER (PARTITION BY mention_key ORDER BY filing_id, char_start, claim_id) AS n
    FROM (
        SELECT m.mention_key, c.claim_id, c.filing_id, c.chunk_id, c.relation, c.subject_text,
               c.object_text, c.quote, c.char_start, c.char_end
        FROM flagged m JOIN claims c ON c.subject_key = m.mention_key
        UNION
        SELECT m.mention_key, c.claim_id, c.filing_id, c.chunk_id, c.relation, c.subject_text,
               c.object_text, c.quote, c.char_start, c.char_end
        FROM flagged m JOIN claims c ON c.object_key = m.mention_key
    )
)
SELECT m.mention_key AS review_id, m.text, m.role, m.filer_id, m.review_reason AS reason,
       m.status = 'resolved' AS in_graph, m.entity_id, m.candidates,
       count(*) AS claims,
       list({'filing_id': u.filing_id, 'chunk_id': u.chunk_id, 'relation': u.relation,
             'subject_text': u.subject_text, 'object_text': u.object_text, 'quote': u.quote,
             'char_start': u.char_start, 'char_end': u.char_end} ORDER BY u.n)
         FILTER (WHERE u.n <= $shown) AS evidence
FROM flagged m JOIN uses u USING (mention_key)
GROUP BY ALL
"""


# Fiscal label → calendar range per filer, from its XBRL durations: what dates a text edge's
# "FY2025". A view, read by the two statements that need it: a table refreshed per update cost
# two statements more, and missed a filer whose filing was removed while others remained.
_FILER_CALENDAR_SQL = """
SELECT filer_id, period, min(calendar_start) AS calendar_start, max(calendar_end) AS calendar_end
FROM claims
WHERE source = 'xbrl' AND period_type = 'duration' AND period IS NOT NULL
  AND calendar_start < calendar_end AND filer_id IS NOT NULL
GROUP BY filer_id, period
"""


def _schema_digest() -> str:
    """Of the tables and views this code defines: a store whose meta holds it needs no DDL."""
    return sha256_text(
        "\n".join([*_SCHEMA_SQL, _ENTITIES_SQL, _ENTITY_ALIASES_SQL, _FILER_CALENDAR_SQL])
    )
