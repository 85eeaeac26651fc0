"""The snapshot's traversal table and the neighbors queries over it, on a graph large enough to
span many row groups, with ids that share their first bytes (as every CIK-000… does):
`entity_ord` numbers entities in id order and agrees with `nodes.adjacency_ord` and with each
row's `neighbor_ord`; `graph_queries.NEIGHBORS` and `graph_queries.NEIGHBORS_2` (pruned scans,
ranking on
rowids, integer sort keys entity_rank and edge_ord) answer exactly what the plain formulation
below answers, for every filter."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import random
from pathlib import Path

import duckdb
import polars as pl
import pytest

from graphrag_core.store import snapshot_schema as schema
from graphrag_core.store.database import build_database
from mcp_server import graph_queries
from mcp_server.context import HIDDEN_RELATIONS
from mcp_server.graph import NEIGHBOR_FANOUT
from mcp_server.graph_time import NO_TIME
from tests import snapshot_sample as sample

RELATIONS = ("SUPPLIES", "COMPETES_WITH", "CUSTOMER_OF", "REPORTS_METRIC", "EXPOSED_TO_RISK")
PERIODS = (None, "FY2023", "FY2024", "FY2025")


def _id(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:24]


def _graph(
    seed: int = 7, companies: int = 300, edges: int = 5_000
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Edges among `companies` CIK-000200…-ids and a few organizations, metrics and risks:
    evidence counts with ties, superseded edges, periods, and one citation per edge."""
    rng = random.Random(seed)
    base = sample.sample_tables()
    ids = [f"CIK-{2_000_000 + i:010d}" for i in range(companies)]
    ids += [f"ORG:org-{i}" for i in range(20)] + [f"METRIC:m{i}" for i in range(5)]
    risks = [f"RISK:r{i}" for i in range(6)]
    rows, evidence, seen = [], [], set()
    while len(rows) < edges:
        s, o = rng.sample(ids[: companies + 20], 2)
        relation = rng.choice(RELATIONS)
        if relation == "REPORTS_METRIC":
            o = rng.choice(ids[-5:])
        elif relation == "EXPOSED_TO_RISK":
            o = rng.choice(risks)
        period = rng.choice(PERIODS)
        if (s, relation, o, period) in seen:
            continue
        seen.add((s, relation, o, period))
        edge_id = _id(s, relation, o, period)
        count = rng.choice((1, 1, 2, 3, 5))
        # A dated period has its calendar year; first filed over two years (time on the graph).
        year = int(period[2:]) if period else None
        first = dt.date(2023, 6, 1) + dt.timedelta(days=rng.randrange(730))
        rows.append(
            {
                "edge_id": edge_id,
                "subject_id": s,
                "relation": relation,
                "object_id": o,
                "period": period,
                "calendar_start": dt.date(year, 1, 1) if year else None,
                "calendar_end": dt.date(year, 12, 31) if year else None,
                "value": None,
                "unit": None,
                "source": "text",
                "statement_key": edge_id,
                "evidence_count": count,
                "filing_count": 1,
                "first_filing_id": "f",
                "first_filed": first,
                "last_filing_id": "f",
                "last_filed": first + dt.timedelta(days=rng.randrange(300)),
                "seen_periods": sorted({p for p in rng.sample(PERIODS[1:], rng.randrange(3))}),
                "stated_by": [s],
                "phrases": [o],
                "adjustment": None,
                "superseded_by": None,
            }
        )
        evidence.append(
            {
                "evidence_id": _id("ev", edge_id),
                "edge_id": edge_id,
                "filing_id": "f",
                "filer_id": s,
                "chunk_id": None,
                "quote": f"{s} {relation} {o}",
                "char_start": 0,
                "char_end": 10,
                "subject_text": s,
                "object_text": o,
                "observation_id": None,
                "fact_id": None,
                "concept": None,
            }
        )
    for row in rng.sample(rows, len(rows) // 10):  # a restated tenth
        row["superseded_by"] = rng.choice(rows)["edge_id"]
    kinds = {"CIK": "company", "ORG": "organization", "METRIC": "metric", "RISK": "risk"}
    nodes = [
        {
            "entity_id": i,
            "entity_type": kinds[i.split("-" if i.startswith("CIK") else ":")[0]],
            "name": f"name of {i}",
            "cik": i[4:] if i.startswith("CIK") else None,
            "description": None,
            "is_filer": i.startswith("CIK"),
        }
        for i in [*ids, *risks]
    ]
    return (
        pl.DataFrame(rows, schema=base.edges.schema),
        pl.DataFrame(evidence, schema=base.edge_evidence.schema),
        pl.DataFrame(nodes, schema=base.nodes.schema),
    )


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    edges, evidence, nodes = _graph()
    tables = dataclasses.replace(
        sample.sample_tables(), edges=edges, edge_evidence=evidence, nodes=nodes
    )
    path = tmp_path_factory.mktemp("traversal") / "graph.duckdb"
    build_database(
        tables,
        path,
        info={
            "version": "v",
            "as_of": None,
            "built_at": None,
            "code_version": "t",
            "inputs_digest": "d",
        },
    )
    return path


# The plain formulation: what the neighbors queries must answer, without pruning or rowids.
_FILTER = graph_queries._ADJACENCY_FILTER
_COLUMNS = graph_queries._ADJ_COLUMNS
PLAIN_1 = f"""
SELECT {_COLUMNS.format(a="a")}
FROM graph_adjacency a
WHERE a.entity_id = $entity_id AND {_FILTER.format(a="a")}
ORDER BY a.superseded, a.evidence_count DESC, a.edge_id
LIMIT $limit
"""
PLAIN_2 = f"""
WITH h1 AS (
    SELECT {_COLUMNS.format(a="a")}
    FROM graph_adjacency a
    WHERE a.entity_id = $entity_id AND {_FILTER.format(a="a")}
    ORDER BY a.superseded, a.evidence_count DESC, a.edge_id
    LIMIT $fanout
),
h2 AS (
    SELECT {_COLUMNS.format(a="b")}, b.superseded
    FROM graph_adjacency b
    WHERE b.entity_id IN (SELECT neighbor_id FROM h1) AND b.neighbor_id <> $entity_id
      AND {_FILTER.format(a="b")}
    QUALIFY row_number() OVER (PARTITION BY b.entity_id ORDER BY b.superseded, b.evidence_count
        DESC, b.edge_id) <= $per_middle
)
SELECT h1.edge_id AS first_edge_id, h1.neighbor_name AS via_name, h1.neighbor_type AS via_type,
       h1.direction AS first_direction, h1.relation AS first_relation, h1.period AS first_period,
       h1.calendar_start AS first_calendar_start, h1.calendar_end AS first_calendar_end,
       h1.value AS first_value, h1.unit AS first_unit, h1.evidence_count AS first_evidence_count,
       h1.filing_count AS first_filing_count, h1.first_filed AS first_first_filed,
       h1.last_filed AS first_last_filed, h1.seen_periods AS first_seen_periods,
       h1.superseded_by AS first_superseded_by, h1.value_low AS first_value_low,
       h1.value_high AS first_value_high, h1.bound AS first_bound, h2.* EXCLUDE (superseded)
FROM h1 JOIN h2 ON h2.entity_id = h1.neighbor_id AND h2.edge_id <> h1.edge_id
ORDER BY least(h1.evidence_count, h2.evidence_count) DESC, h1.evidence_count DESC, h1.edge_id,
    h2.edge_id
LIMIT $limit
"""


def test_entity_ord_numbers_entities_in_id_order(snapshot: Path):
    with duckdb.connect(str(snapshot), read_only=True) as con:
        rows = con.execute(
            "SELECT entity_id, entity_ord, neighbor_id, neighbor_ord FROM graph_adjacency "
            "ORDER BY rowid"
        ).fetchall()
        assert len(rows) > 4 * schema.ROW_GROUP_SIZE  # many row groups
        # Stored in entity_id order, and entity_ord counts the entities 1, 2, … in that order.
        assert [r[0] for r in rows] == sorted(r[0] for r in rows)
        ord_of = {e: o for e, o, _, _ in rows}
        assert ord_of == {e: i for i, e in enumerate(dict.fromkeys(r[0] for r in rows), 1)}
        assert all(neighbor_ord == ord_of[neighbor] for _, _, neighbor, neighbor_ord in rows)
        nodes = dict(con.execute("SELECT entity_id, adjacency_ord FROM nodes").fetchall())
        assert {e: nodes[e] for e in ord_of} == ord_of
        # A node without edges has none.
        assert all(o is None for e, o in nodes.items() if e not in ord_of)


def test_entity_rank_and_edge_ord_order_rows_as_the_string_keys_do(snapshot: Path):
    with duckdb.connect(str(snapshot), read_only=True) as con:
        rows = con.execute(
            "SELECT entity_id, superseded, evidence_count, edge_id, entity_rank, edge_ord "
            "FROM graph_adjacency ORDER BY rowid"
        ).fetchall()
    # entity_rank: 1, 2, … within each entity, in stored order, which is (superseded, evidence DESC,
    # edge id).
    expected: dict[str, int] = {}
    for entity, _s, _c, _e, rank, _ in rows:
        expected[entity] = expected.get(entity, 0) + 1
        assert rank == expected[entity]
    for (e1, s1, c1, id1, r1, _), (e2, s2, c2, id2, r2, _) in zip(rows, rows[1:], strict=False):
        if e1 == e2:
            assert (s1, -c1, id1) < (s2, -c2, id2) and r1 < r2
    # edge_ord: one number per edge id, in edge id order.
    by_edge = {edge: o for _, _, _, edge, _, o in rows}
    assert len(set(by_edge.values())) == len(by_edge)
    assert sorted(by_edge, key=by_edge.__getitem__) == sorted(by_edge)


@pytest.mark.parametrize(
    "filters",
    [
        {},
        {"relation": "SUPPLIES"},
        {"direction": "in"},
        {"direction": "out", "relation": "COMPETES_WITH"},
        {"include_superseded": True},
        {"period": "FY2024"},
        # Time on the graph (issue 25): a calendar range, an as-of date, both with restatements.
        {"range_start": dt.date(2024, 1, 1), "range_end": dt.date(2024, 12, 31)},
        {"known_by": dt.date(2024, 6, 30)},
        {"known_by": dt.date(2024, 6, 30), "include_superseded": True},
        {"relation": "REPORTS_METRIC"},
        {"limit": 100, "per_middle": 3, "fanout": 5},
    ],
)
def test_neighbors_queries_answer_what_the_plain_formulation_does(snapshot: Path, filters: dict):
    with duckdb.connect(str(snapshot), read_only=True) as con:
        nodes = con.execute(
            "SELECT entity_id, adjacency_ord FROM nodes ORDER BY entity_id"
        ).fetchall()
        checked = 0
        for entity_id, ord_ in random.Random(3).sample(nodes, 40):
            params = {
                "entity_id": entity_id,
                "relation": None,
                "direction": "both",
                **NO_TIME,
                "include_superseded": False,
                "hidden": HIDDEN_RELATIONS,
                "limit": 26,
                "fanout": NEIGHBOR_FANOUT,
                "per_middle": 25,
                **filters,
            }
            one = {k: v for k, v in params.items() if k not in ("fanout", "per_middle")}
            assert (
                con.execute(graph_queries.NEIGHBORS, {**one, "ord": ord_}).fetchall()
                == con.execute(PLAIN_1, one).fetchall()
            )
            expected = con.execute(PLAIN_2, params).fetchall()
            assert (
                con.execute(graph_queries.NEIGHBORS_2, {**params, "ord": ord_}).fetchall()
                == expected
            )
            checked += bool(expected)
        assert checked >= 10  # most sampled entities have two-hop paths under these filters


# graph_path's and explore_company's statements, as plainly written on entity ids: what the
# ordinal-filtered ones (PATH_STEP, COMPANY_*, PEER_LINKS + COMPANY_PEERS) must answer.
PLAIN_PATH_STEP = """
SELECT a.entity_id, a.neighbor_id, a.edge_id
FROM graph_adjacency a
WHERE a.entity_id IN (SELECT unnest($frontier)) AND NOT a.superseded
  AND NOT list_contains($hidden, a.relation)
  AND ($through_risks OR a.neighbor_type <> 'risk')
QUALIFY row_number() OVER (PARTITION BY a.entity_id ORDER BY a.evidence_count DESC, a.edge_id) <=
    $fanout
"""
PLAIN_RELATIONS = """
SELECT a.edge_id FROM graph_adjacency a
WHERE a.entity_id = $entity_id AND NOT a.superseded AND NOT list_contains($hidden, a.relation)
  AND a.relation <> 'EXPOSED_TO_RISK'
ORDER BY a.evidence_count DESC, a.last_filed DESC NULLS LAST, a.edge_id
LIMIT $limit
"""
PLAIN_RISKS = """
SELECT a.edge_id, a.neighbor_id, a.neighbor_name AS name, a.evidence_count, a.phrases, a.last_filed
FROM graph_adjacency a
WHERE a.entity_id = $entity_id AND a.relation = 'EXPOSED_TO_RISK' AND a.direction = 'out'
  AND a.neighbor_type = 'risk' AND NOT a.superseded
ORDER BY a.evidence_count DESC, a.neighbor_id
LIMIT $limit
"""
PLAIN_PEERS = """
WITH mine AS (
    SELECT CASE WHEN relation = 'SUPPLIES' THEN 'supplier' WHEN relation = 'CUSTOMER_OF' THEN
        'customer'
                ELSE 'risk' END AS kind,
           neighbor_id AS shared_id, relation, direction
    FROM graph_adjacency
    WHERE entity_id = $entity_id AND NOT superseded
      AND ((relation IN ('SUPPLIES', 'CUSTOMER_OF') AND direction = 'in')
           OR (relation = 'EXPOSED_TO_RISK' AND direction = 'out'))
),
shared AS (
    SELECT m.kind, m.shared_id, b.neighbor_id AS peer_id
    FROM mine m JOIN graph_adjacency b
      ON b.entity_id = m.shared_id AND b.relation = m.relation AND b.direction <> m.direction
    WHERE b.neighbor_id <> $entity_id AND NOT b.superseded
)
SELECT s.peer_id, p.name AS peer_name, p.entity_type AS peer_type,
       list(DISTINCT s.shared_id) FILTER (WHERE s.kind = 'supplier') AS suppliers,
       list(DISTINCT s.shared_id) FILTER (WHERE s.kind = 'customer') AS customers,
       list(DISTINCT s.shared_id) FILTER (WHERE s.kind = 'risk') AS risks,
       (3 * count(DISTINCT s.shared_id) FILTER (WHERE s.kind <> 'risk')
        + count(DISTINCT s.shared_id) FILTER (WHERE s.kind = 'risk'))::INTEGER AS score
FROM shared s JOIN nodes p ON p.entity_id = s.peer_id
WHERE p.entity_type IN ('company', 'organization')
GROUP BY ALL
ORDER BY score DESC, s.peer_id
LIMIT $limit
"""


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: dict) -> list[dict]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def _sorted_lists(rows: list[dict]) -> list[dict]:
    # list(DISTINCT …) leaves its order to the engine: compare the members.
    return [{k: sorted(v) if isinstance(v, list) else v for k, v in r.items()} for r in rows]


@pytest.mark.parametrize("through_risks", [False, True])
def test_path_steps_answer_what_the_plain_formulation_does(snapshot: Path, through_risks: bool):
    with duckdb.connect(str(snapshot), read_only=True) as con:
        ords = dict(
            con.execute(
                "SELECT entity_id, adjacency_ord FROM nodes WHERE adjacency_ord IS NOT NULL"
            ).fetchall()
        )
        rng = random.Random(11)
        for size in (1, 1, 2, 5, 30, 120):
            frontier = sorted(rng.sample(sorted(ords), size))
            params = {"hidden": HIDDEN_RELATIONS, "through_risks": through_risks, "fanout": 7}
            got = con.execute(
                graph_queries.PATH_STEP,
                {**params, **NO_TIME, "frontier": [ords[e] for e in frontier]},
            ).fetchall()
            expected = con.execute(PLAIN_PATH_STEP, {**params, "frontier": frontier}).fetchall()
            assert sorted((e, n, x) for e, n, _, x in got) == sorted(expected) and expected
            assert all(ords[n] == o for _, n, o, _ in got)


def test_explore_queries_answer_what_the_plain_formulation_does(snapshot: Path):
    with duckdb.connect(str(snapshot), read_only=True) as con:
        companies = con.execute(
            "SELECT entity_id, adjacency_ord FROM nodes WHERE entity_type = 'company' ORDER "
            "BY entity_id"
        ).fetchall()
        with_peers = 0
        for entity_id, ord_ in random.Random(5).sample(companies, 40):
            entity = {"entity_id": entity_id, "ord": ord_, **NO_TIME}
            one = {"entity_id": entity_id, "limit": 12}
            assert (
                con.execute(
                    graph_queries.COMPANY_RELATIONS,
                    {**entity, "hidden": HIDDEN_RELATIONS, "limit": 12},
                ).fetchall()
                == con.execute(PLAIN_RELATIONS, {**one, "hidden": HIDDEN_RELATIONS}).fetchall()
            )
            assert _rows(con, graph_queries.COMPANY_RISKS, {**entity, "limit": 12}) == _rows(
                con, PLAIN_RISKS, one
            )
            links = _rows(con, graph_queries.PEER_LINKS, entity)
            peers = (
                _rows(
                    con,
                    graph_queries.COMPANY_PEERS,
                    {
                        "entity_id": entity_id,
                        **NO_TIME,
                        "links": links,
                        "limit": 12,
                        "shared": sorted({r["shared_ord"] for r in links}),
                    },
                )
                if links
                else []
            )
            expected = _rows(con, PLAIN_PEERS, one)
            assert _sorted_lists(peers) == _sorted_lists(expected)
            with_peers += bool(expected)
        assert with_peers >= 10
