"""What the communities stage reads of the knowledge graph, through one DuckDB connection: the
graph stage's working store (`GraphStore.con`, in place) or a snapshot's graph frames registered
in memory. Both expose the same relations: `edges`, `edge_evidence`, `entities`, `filings`
(with each filing's claims digest), `graph_changes` and `graph_updates`.
"""

from __future__ import annotations

import datetime as dt
import itertools
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import duckdb
import polars as pl

from graphrag_core.graph.claims import filing_label
from graphrag_core.graph.graph_store import GraphStore, GraphTables
from graphrag_core.store.snapshot_vocabulary import METRIC_RELATIONS

RELATION_EDGE = "relation"
RISK_EDGE = "risk"

_METRICS = ", ".join(f"'{r}'" for r in METRIC_RELATIONS)
# Edges a community is made of: current relations between two entities that can be members, and
# the risk exposures of members (attributes of their companies). Metric edges are neither.
_CLUSTERABLE = f"""
SELECT edge_id, subject_id, relation, object_id, evidence_count,
       CASE WHEN object_id LIKE 'RISK:%' THEN '{RISK_EDGE}' ELSE '{RELATION_EDGE}' END AS kind
FROM edges
WHERE superseded_by IS NULL AND relation NOT IN ({_METRICS})
  AND subject_id NOT LIKE 'RISK:%' AND subject_id NOT LIKE 'METRIC:%'
  AND object_id NOT LIKE 'METRIC:%'
  AND (object_id NOT LIKE 'RISK:%' OR relation = 'EXPOSED_TO_RISK')
"""
_EVIDENCE_ORDER = "f.filed_date DESC NULLS LAST, v.filing_id, v.char_start, v.evidence_id"
_counter = itertools.count()


class GraphView:
    def __init__(self, con: duckdb.DuckDBPyConnection, *, owned: bool = False):
        self.con = con
        self._owned = owned

    @classmethod
    def of_store(cls, graph: GraphStore) -> GraphView:
        return cls(graph.con)

    @classmethod
    def of_tables(cls, tables: GraphTables, filings: pl.DataFrame) -> GraphView:
        """A snapshot's graph frames and its filings (raw_filings rows), in memory; a filing's
        digest is its sha256 there."""
        con = duckdb.connect()
        listed = (
            filings.select(
                "filing_id",
                "cik",
                "form",
                "filed_date",
                pl.struct("fiscal_year", "fiscal_period")
                .map_elements(
                    lambda r: filing_label(r["fiscal_year"], r["fiscal_period"]),
                    return_dtype=pl.String,
                )
                .alias("fiscal_label"),
                pl.col("sha256").alias("digest"),
            )
            if filings.height
            else pl.DataFrame(
                schema={
                    "filing_id": pl.String,
                    "cik": pl.String,
                    "form": pl.String,
                    "filed_date": pl.Date,
                    "fiscal_label": pl.String,
                    "digest": pl.String,
                }
            )
        )
        for name, frame in (
            ("edges", tables.edges),
            ("edge_evidence", tables.edge_evidence),
            ("entities", tables.nodes),
            ("filings", listed),
        ):
            con.register(f"_{name}", frame.to_arrow())
            con.execute(f"CREATE TABLE {name} AS SELECT * FROM _{name}").fetchall()
            con.unregister(f"_{name}")
        con.execute("CREATE TABLE graph_changes (update_id BIGINT, entity_id VARCHAR)").fetchall()
        con.execute(
            "CREATE TABLE graph_updates (update_id BIGINT, filing_ids VARCHAR[], "
            "edges_touched BIGINT, entities_touched BIGINT)"
        ).fetchall()
        return cls(con, owned=True)

    def close(self) -> None:
        if self._owned:
            self.con.close()

    # -- plumbing --------------------------------------------------------------------------
    def frame(self, sql: str, params: Any = None) -> pl.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # Arrow output of execute() copies once
            table = self.con.execute(sql, params or []).to_arrow_table()
        return pl.from_arrow(table)  # type: ignore[return-value]

    @contextmanager
    def _ids(self, values: Iterable[str], column: str = "id") -> Iterator[str]:
        """`values` as a relation the SQL can join (a registered Arrow table), by its name."""
        name = f"_wanted_{next(_counter)}"
        frame = pl.DataFrame({column: pl.Series(list(values), dtype=pl.String)}).unique()
        self.con.register(name, frame.to_arrow())
        try:
            yield name
        finally:
            self.con.unregister(name)

    # -- reading ---------------------------------------------------------------------------
    def version(self) -> int:
        rows = self.con.execute("SELECT coalesce(max(update_id), 0) FROM graph_updates").fetchall()
        row = rows[0] if rows else None
        return int(row[0]) if row else 0

    def as_of(self) -> dt.date | None:
        rows = self.con.execute("SELECT max(filed_date) FROM filings").fetchall()
        row = rows[0] if rows else None
        return row[0] if row else None

    def entities(self) -> pl.DataFrame:
        return self.frame("SELECT entity_id, entity_type, name FROM entities ORDER BY entity_id")

    def names(self, entity_ids: Iterable[str]) -> pl.DataFrame:
        """entity_id, name, entity_type of the given entities (those in the graph)."""
        with self._ids(entity_ids) as wanted:
            return self.frame(
                f"SELECT entity_id, name, entity_type FROM entities SEMI JOIN {wanted} ON "
                "entity_id = id "
                "ORDER BY entity_id"
            )

    def clusterable(self) -> pl.DataFrame:
        return self.frame(f"{_CLUSTERABLE} ORDER BY edge_id")

    def clusterable_touching(self, entity_ids: Iterable[str]) -> pl.DataFrame:
        with self._ids(entity_ids) as wanted:
            return self.frame(
                f"SELECT * FROM ({_CLUSTERABLE}) WHERE subject_id IN (SELECT id FROM {wanted}) "
                f"OR object_id IN (SELECT id FROM {wanted}) ORDER BY edge_id"
            )

    def edges(self, edge_ids: Iterable[str]) -> pl.DataFrame:
        with self._ids(edge_ids) as wanted:
            return self.frame(
                f"SELECT * FROM ({_CLUSTERABLE}) SEMI JOIN {wanted} ON edge_id = id ORDER "
                "BY edge_id"
            )

    def evidence(self, edge_ids: Iterable[str], per_edge: int = 1) -> pl.DataFrame:
        """The newest `per_edge` citations of each edge (the order the snapshot ranks them in)."""
        with self._ids(edge_ids) as wanted:
            return self.frame(
                f"""
                SELECT v.edge_id, v.evidence_id, v.filing_id, v.chunk_id, v.quote,
                       row_number() OVER (PARTITION BY v.edge_id ORDER BY {_EVIDENCE_ORDER}) AS rank
                FROM edge_evidence v SEMI JOIN {wanted} ON v.edge_id = id
                LEFT JOIN filings f USING (filing_id)
                QUALIFY rank <= $per_edge
                ORDER BY v.edge_id, rank
                """,
                {"per_edge": per_edge},
            )

    def edge_filings(self, edge_ids: Iterable[str]) -> pl.DataFrame:
        with self._ids(edge_ids) as wanted:
            return self.frame(
                f"SELECT DISTINCT edge_id, filing_id FROM edge_evidence SEMI JOIN {wanted} "
                "ON edge_id = id"
            )

    def filings(self) -> pl.DataFrame:
        return self.frame(
            "SELECT filing_id, cik, form, fiscal_label, filed_date, digest FROM filings "
            "ORDER BY filing_id"
        )

    def changes_since(self, update_id: int) -> pl.DataFrame:
        return self.frame(
            "SELECT update_id, entity_id FROM graph_changes WHERE update_id > $update_id ORDER BY "
            "update_id, entity_id",
            {"update_id": update_id},
        )
