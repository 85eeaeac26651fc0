"""Issue 22, item 4: values and periods as the filings state them (a half-year share is an H1
period, a range keeps its bounds to the graph, a subset of a metric is not the metric, a
sentence-heading is not an organisation)."""

from __future__ import annotations

import re

import pytest

from graphrag_core.common.periods import (
    PERIOD_LABEL_PATTERN,
    is_period_label,
    next_period,
    period_label,
)
from graphrag_core.extraction.backends.base import ChunkInput
from graphrag_core.extraction.backends.rules_backend import RulesBackend


@pytest.fixture(scope="module")
def rules() -> RulesBackend:
    return RulesBackend.from_rows([])


def _triples(rules: RulesBackend, text: str, relation: str, company: str = "NVIDIA CORP") -> list:
    chunk = ChunkInput("c", "f", "10-Q/Item 2", text, "0" * 64, None, company)
    return [t for t in rules.triples(chunk) if t.relation == relation]


# -- periods ----------------------------------------------------------------------------------
def test_a_customer_share_for_the_first_half_is_an_h1_period_not_the_year(rules):
    # Verbatim from NVIDIA's 10-Q for the second quarter of fiscal 2026.
    text = (
        "For the first half of fiscal year 2026, sales to one direct customer, Customer A, "
        "represented "
        "20% of total revenue; and sales to a second direct customer, Customer B, "
        "represented 15% of "
        "total revenue, respectively, both of which were attributable to the Compute & "
        "Networking segment."
    )
    shares = {
        (t.subject.split(" (")[0], t.value, t.period) for t in _triples(rules, text, "CUSTOMER_OF")
    }
    assert shares == {("Customer A", 20.0, "H1-FY2026"), ("Customer B", 15.0, "H1-FY2026")}


def test_nine_months_and_second_half_are_their_own_periods(rules):
    nine = (
        "For the first nine months of fiscal 2025, sales to one direct customer, Customer A, "
        "represented 20% of total revenue."
    )
    assert [t.period for t in _triples(rules, nine, "CUSTOMER_OF")] == ["9M-FY2025"]
    six = (
        "For the six months of fiscal years 2024, sales to one direct customer, Customer A, "
        "represented 12% of total revenue."
    )
    assert [t.period for t in _triples(rules, six, "CUSTOMER_OF")] == ["H1-FY2024"]
    # A quarter stays a quarter, a year a year.
    quarter = (
        "For the second quarter of fiscal year 2026, sales to one direct customer, Customer A, "
        "represented 23% of total revenue."
    )
    assert [t.period for t in _triples(rules, quarter, "CUSTOMER_OF")] == ["Q2-FY2026"]


def test_a_half_named_only_as_the_comparison_base_moves_to_the_next_year():
    assert next_period("H1-FY2025") == "H1-FY2026"
    assert next_period("9M-FY2025") == "9M-FY2026"
    assert next_period("Q3-FY2024") == "Q3-FY2025"
    assert next_period("FY2024") == "FY2025"
    assert next_period("the first half") is None


def test_the_period_grammar_is_one_and_every_label_the_extractor_writes_passes_it():
    import re

    for label in ("FY2025", "Q1-FY2026", "H1-FY2026", "H2-FY2026", "9M-FY2025"):
        assert is_period_label(label) and re.match(PERIOD_LABEL_PATTERN, label)
    for bad in ("FY25", "H3-FY2026", "Q5-FY2026", "first half 2026", "", None):
        assert not is_period_label(bad)
    assert period_label("h1", 2026) == "H1-FY2026" and period_label("FY", 2026) == "FY2026"
    with pytest.raises(ValueError):
        period_label("Q7", 2026)


def test_the_mcp_neighbors_tool_accepts_a_half_year_period():
    # The graph tools read `period` with the one period grammar (issue 25: time on the graph).
    from mcp_server.graph_time import graph_time

    for label in ("H1-FY2026", "H2-FY2026", "9M-FY2026"):
        assert graph_time(label, None).label == label
        assert re.match(PERIOD_LABEL_PATTERN, label)


# -- ranges and bounds through publish --------------------------------------------------------
from graphrag_core.common.numbers import LOWER, UPPER, stated_bound  # noqa: E402


def test_a_floor_or_a_ceiling_is_read_from_the_words_right_before_the_figure():
    # Verbatim (the first two) from the corpus' gold cases.
    assert (
        stated_bound(
            "we currently expect our capital expenditures to exceed $11.00 billion in 2025", 11e9
        )
        == LOWER
    )
    assert (
        stated_bound(
            "the Company expects the net impact of Pillar Two in fiscal year 2025 to be up to 1.0% "
            "to the Company's effective tax rate",
            1.0,
        )
        == UPPER
    )
    assert stated_bound("we expect to invest at least $2 billion", 2e9) == LOWER
    assert stated_bound("spending of more than $500 million", 5e8) == LOWER
    assert stated_bound("capital expenditures of no more than $3.1 billion", 3.1e9) == UPPER
    assert stated_bound("repurchases not to exceed $300 million", 3e8) == UPPER
    assert stated_bound("growth of not less than 4%", 4.0) == LOWER
    # Stated as such, or the cue binds another figure or none.
    assert stated_bound("capital expenditures of approximately $2.5 billion in 2025", 2.5e9) is None
    assert stated_bound("revenue more than doubled to $5 billion", 5e9) is None
    assert stated_bound("up to 20 stores, and capital expenditures of $4 billion", 4e9) is None
    assert stated_bound("at least $1 billion", None) is None


NVDA_CIK = "0001045810"
RANGE = "We expect capital expenditures to be between $3.0 billion and $3.5 billion in fiscal 2026."
FLOOR = "We expect our capital expenditures to exceed $11.00 billion in fiscal 2026."


def _world():
    from tests.test_knowledge_graph import K25, filing, triple

    rng = triple(
        K25,
        "NVIDIA CORP",
        "GUIDES",
        "capital expenditures",
        [(RANGE, 7)],
        period="FY2026",
        unit="USD",
    )
    rng.update(value_low=3.0e9, value_high=3.5e9, triple_id="range")
    floor = triple(
        K25,
        "NVIDIA CORP",
        "GUIDES",
        "capital expenditures",
        [(FLOOR, 8)],
        period="FY2026",
        value=11e9,
        unit="USD",
    )
    floor["triple_id"] = "floor"
    return {K25: (filing(K25, "2025-02-26", 2025), [rng, floor], [])}


def _guides(edges):
    import polars as pl

    return {
        (r["value"], r["value_low"], r["value_high"], r["bound"])
        for r in edges.filter(pl.col("relation") == "GUIDES").iter_rows(named=True)
    }


def test_a_range_and_a_floor_reach_the_graphs_edges_as_stated():
    from tests.test_knowledge_graph import build

    store = build(_world())
    # Two edges: a range is not a floor, and neither collapses into a bare value.
    assert _guides(store.tables().edges) == {(None, 3.0e9, 3.5e9, None), (11e9, None, None, LOWER)}


def test_a_store_built_before_the_bounds_gains_them_on_its_next_update(tmp_path):
    """A working store whose tables lack the new columns is altered in place when it opens, and
    its next update reads every filing's claims again (their partitions did not change) and fills
    them."""
    import duckdb

    from graphrag_core.graph.graph_store import GraphStore
    from tests.test_knowledge_graph import REFERENCE, inputs

    path = tmp_path / "graph.duckdb"
    store = GraphStore(path)
    store.update_entities(inputs(_world()), REFERENCE)
    store.update_graph()
    store.close()
    con = duckdb.connect(str(path))
    for table in ("claims", "edge_evidence", "edges"):
        for column in ("value_low", "value_high", "bound"):
            con.execute(f'ALTER TABLE {table} DROP COLUMN "{column}"')
    # a store that old had no method either (appended after the bounds)
    for table in ("claims", "edge_evidence"):
        for column in ("method", "confidence"):
            con.execute(f'ALTER TABLE {table} DROP COLUMN "{column}"')
    con.execute("UPDATE meta SET value = 'old' WHERE key = 'schema_digest'")
    con.close()
    store = GraphStore(path)
    store.update_entities(inputs(_world()), REFERENCE)
    store.update_graph()
    assert _guides(store.tables().edges) == {(None, 3.0e9, 3.5e9, None), (11e9, None, None, LOWER)}
    store.close()


def test_the_snapshot_and_the_mcp_edge_rows_carry_the_range_and_the_bound(tmp_path):
    import dataclasses

    import duckdb

    from graphrag_core.store.database import build_database
    from mcp_server import graph_queries
    from mcp_server.formatting import adjacent_edge
    from mcp_server.graph_edges import edges_by_id
    from mcp_server.graph_time import NO_TIME
    from tests import snapshot_sample as sample
    from tests.test_knowledge_graph import build

    graph = build(_world()).tables()
    tables = dataclasses.replace(
        sample.sample_tables(),
        edges=graph.edges,
        edge_evidence=graph.edge_evidence,
        nodes=graph.nodes,
    )
    path = tmp_path / "graph.duckdb"
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
    con = duckdb.connect(str(path), read_only=True)

    class _Snap:  # the one method edges_by_id uses of a Snapshot
        def query(self, sql, params):
            cur = con.execute(sql, params)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    ids = graph.edges.get_column("edge_id").to_list()
    shown = {
        (e.value, e.value_low, e.value_high, e.bound) for e in edges_by_id(_Snap(), ids).values()
    }
    assert shown == {(None, 3.0e9, 3.5e9, None), (11e9, None, None, "lower")}
    [[ord_]] = con.execute(
        "SELECT adjacency_ord FROM nodes WHERE entity_id = $e", {"e": f"CIK-{NVDA_CIK}"}
    ).fetchall()
    rows = _Snap().query(
        graph_queries.NEIGHBORS,
        {
            "ord": ord_,
            "entity_id": f"CIK-{NVDA_CIK}",
            "limit": 10,
            "relation": "GUIDES",
            "hidden": [],
            **NO_TIME,
            "include_superseded": True,
            "direction": "out",
        },
    )
    from mcp_server.graph_edges import entity_ref

    me = entity_ref(f"CIK-{NVDA_CIK}", "company", "NVIDIA CORP")
    neighbors = {
        (e.value_low, e.value_high, e.bound) for e in (adjacent_edge(me, r, {}) for r in rows)
    }
    assert neighbors == {(3.0e9, 3.5e9, None), (None, None, "lower")}
    con.close()


# -- a guided figure maps to a catalog metric only when it is about the whole metric -----------
@pytest.mark.parametrize(
    ("phrase", "metric"),
    [
        ("capital expenditures", "capex"),
        ("full-year 2025 capital expenditures", "capex"),
        ("fourth quarter revenue", "revenue"),
        ("total revenue", "revenue"),
        ("diluted earnings per share", "eps_diluted"),
        ("GAAP gross margin", "gross_margin"),
        ("the Company's effective tax rate", "effective_tax_rate"),
        ("capital expenditure guidance", "capex"),
        # A part of the metric, or another figure built on it: not the catalog metric.
        ("capital expenditures for pollution control", None),
        ("capital expenditures as a share of net sales", None),
        ("net impact of Pillar Two on the effective tax rate", None),
        ("Data Center revenue", None),
        ("net sales growth", None),
        ("operating expenditures for pollution control", None),
    ],
)
def test_a_metric_phrase_names_the_catalog_metric_only_as_a_whole(phrase, metric):
    from graphrag_core.graph.ontology import match_metric

    assert match_metric(phrase) == metric


def test_pollution_control_capex_is_not_published_as_capex_guidance(rules):
    """AbbVie's 10-K, verbatim: the $15 million is capex for pollution control, a subset; it
    must not become the company's capital expenditures guidance."""
    from graphrag_core.graph.resolution import Registry

    text = (
        "In 2025, capital expenditures for pollution control are estimated to be "
        "approximately $15 million "
        "and operating expenditures are estimated to be approximately $37 million."
    )
    guides = _triples(rules, text, "GUIDES", "AbbVie Inc.")
    registry = Registry.build(tickers=[])
    resolved = {t.object: registry.resolve(t.object, "metric").entity_id for t in guides}
    assert "METRIC:capex" not in resolved.values()
    whole = _triples(
        rules,
        "We currently expect our capital expenditures to exceed $11.00 billion in 2025.",
        "GUIDES",
        "AbbVie Inc.",
    )
    assert [registry.resolve(t.object, "metric").entity_id for t in whole] == ["METRIC:capex"]


# -- a heading that is a sentence is not an organisation ---------------------------------------
HEADING = (
    "Certain of our executives and directors own a majority of our outstanding capital stock, and "
    "therefore exercise voting control over the Company."
)


@pytest.mark.parametrize(
    "name",
    [
        "Samsung Electronics Co., Ltd.",
        "Bank of America Corporation",
        "adidas AG",
        "Fully Will Limited",
        "The Procter & Gamble Company",
        "Compañía Cervecera de Canarias, S.A.",
        "eBay Inc.",
        "TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD",
        "Hon Hai Precision Industry Co., Ltd.",
        "bebe stores, inc.",
        "Berkshire Hathaway Inc. Class B Common Stock",
        "Customer A",
    ],
)
def test_an_organisations_name_is_not_a_sentence(name):
    from graphrag_core.common.names import is_sentence

    assert not is_sentence(name)


@pytest.mark.parametrize(
    "heading",
    [
        HEADING,
        "Certain of our executives and directors own a majority of our outstanding capital stock",
        "Competition could harm the Company",
        "Economic conditions affect the Company",
        "WE MAY NOT BE ABLE TO COMPETE WITH THE COMPANY",
        "Our stock price may be volatile, Inc.",
    ],
)
def test_a_heading_that_says_something_is_a_sentence(heading):
    from graphrag_core.common.names import is_sentence

    assert is_sentence(heading)


def test_a_sentence_heading_never_becomes_an_organisation_node():
    from graphrag_core.graph.resolution import Registry

    registry = Registry.build(tickers=[])
    as_risk = registry.resolve(HEADING, "risk", f"CIK-{NVDA_CIK}")
    assert not (as_risk.entity_id or "").startswith("ORG:")
    as_party = registry.resolve(HEADING, "party", f"CIK-{NVDA_CIK}")
    assert as_party.entity_id is None
    assert not any("executives" in k for k in registry.org_keys)
    # A name with a legal form still makes its organisation.
    assert registry.resolve("Sojitz Corporation", "party").entity_id == "ORG:sojitz"


def test_a_sentence_heading_ending_in_the_company_stays_a_risk_through_the_graph():
    import polars as pl

    from tests.test_knowledge_graph import K25, build, filing, triple

    store = build(
        {
            K25: (
                filing(K25, "2025-02-26", 2025),
                [triple(K25, "NVIDIA CORP", "EXPOSED_TO_RISK", HEADING, [(HEADING, 9)])],
                [],
            )
        }
    )
    tables = store.tables()
    assert tables.nodes.filter(pl.col("entity_type") == "organization").is_empty()
    assert not any(e.startswith("ORG:") for e in tables.edges.get_column("object_id").to_list())
