"""The knowledge graph's working store: one edge per statement with the union of its citations,
restatements linked, and incremental updates that are exact (adding a filing twice changes
nothing, removing one removes only its evidence, any sequence of updates equals a rebuild),
reversible merges, the review queue, and inputs that fail without touching the graph."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os

import polars as pl
import pytest

from graphrag_core.graph.claims import filing_label
from graphrag_core.graph.companies import collect_reference
from graphrag_core.graph.graph_store import (
    FrameInputs,
    GraphInputError,
    GraphStore,
    GraphTables,
    Reference,
    filer_names,
    reference_source,
)
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.tables.schemas import FILINGS, METRIC_OBSERVATIONS, VALIDATED_TRIPLES, frame
from graphrag_core.tables.table_store import TableStore

NVDA, TSM = "0001045810", "0001046179"
TICKERS = [
    {"cik": NVDA, "ticker": "NVDA", "title": "NVIDIA CORP"},
    {"cik": TSM, "ticker": "TSM", "title": "TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD"},
    {"cik": "0000723125", "ticker": "MU", "title": "MICRON TECHNOLOGY INC"},
    {"cik": "0000002488", "ticker": "AMD", "title": "ADVANCED MICRO DEVICES INC"},
]
REFERENCE = Reference(TICKERS, {})
K23, K25, Q26 = "0001045810-23-000017", "0001045810-25-000023", "0001045810-25-000209"
FOUNDRY = (
    "We utilize foundries, such as Taiwan Semiconductor Manufacturing Company Limited, or TSMC, "
    "and Samsung Electronics Co., Ltd., or Samsung, to produce our semiconductor wafers."
)


def _h(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:24]


def filing(fid: str, filed: str, fy: int, fp: str = "FY", form: str = "10-K") -> dict:
    return {
        "filing_id": fid,
        "accession": fid,
        "cik": NVDA,
        "ticker": "NVDA",
        "company": "NVIDIA CORP",
        "form": form,
        "period_end": None,
        "fiscal_year": fy,
        "fiscal_period": fp,
        "fiscal_year_end": "--01-26",
        "filed_date": dt.date.fromisoformat(filed),
        "source": "test",
        "sha256": _h(fid),
        "bytes": 1,
        "documents": 1,
        "is_inline_xbrl": True,
        "meta_sources": "{}",
        "warnings": [],
    }


def triple(
    fid: str,
    subject: str,
    relation: str,
    obj: str,
    quotes: list[tuple[str, int]],
    period: str | None = None,
    value: float | None = None,
    unit: str | None = None,
) -> dict:
    return {
        "triple_id": _h(fid, subject, relation, obj, period),
        "filing_id": fid,
        "status": "accepted",
        "reason": None,
        "detail": None,
        "adjustment": None,
        "subject": subject,
        "relation": relation,
        "object": obj,
        "proposed_relation": relation,
        "value": value,
        "unit": unit,
        "period": period,
        "value_conflict": False,
        "support": len(quotes),
        "evidence": [
            {
                "chunk_id": f"{fid}:{chunk}",
                "quote": q,
                "char_start": 100 * chunk,
                "char_end": 100 * chunk + len(q),
            }
            for q, chunk in quotes
        ],
        "extraction_ids": [],
        "backend": "rules",
        "model": "test",
        "prompt_version": "t",
    }


def observation(
    fid: str, filed: str, label: str, start: str, end: str, value: float, metric: str = "revenue"
) -> dict:
    return {
        "observation_id": _h(fid, metric, start, end),
        "cik": NVDA,
        "metric": metric,
        "value": value,
        "unit": "USD",
        "fiscal_label": label,
        "fiscal_year": int(label[-4:]),
        "fiscal_period": "FY",
        "period_type": "duration",
        "calendar_start": dt.date.fromisoformat(start),
        "calendar_end": dt.date.fromisoformat(end),
        "filing_id": fid,
        "form": "10-K",
        "filed_date": dt.date.fromisoformat(filed),
        "fact_id": _h("fact", fid, metric, start),
        "fact_ids": [],
        "concept": "us-gaap:Revenues",
        "chunk_id": f"{fid}:income",
        "superseded_by": None,
        "restated": False,
    }


def world() -> dict[str, tuple[dict, list[dict], list[dict]]]:
    """Three NVIDIA filings: the 2023 10-K, the 2025 10-K (which restates FY2024 revenue), a
    10-Q. Overlapping chunks of the 2025 10-K state the foundry twice, under two spellings."""
    return {
        K23: (
            filing(K23, "2023-02-24", 2023),
            [
                triple(
                    K23,
                    "Taiwan Semiconductor Manufacturing Company Limited",
                    "SUPPLIES",
                    "NVIDIA CORP",
                    [(FOUNDRY, 1)],
                ),
                triple(
                    K23,
                    "NVIDIA CORP",
                    "COMPETES_WITH",
                    "Advanced Micro Devices, Inc.",
                    [("We compete with AMD.", 2)],
                ),
                triple(
                    K23,
                    "NVIDIA CORP",
                    "EXPOSED_TO_RISK",
                    "export controls",
                    [("Export controls could hurt us.", 3)],
                ),
            ],
            [observation(K23, "2023-02-24", "FY2023", "2022-01-31", "2023-01-29", 26_974e6)],
        ),
        K25: (
            filing(K25, "2025-02-26", 2025),
            [
                triple(
                    K25,
                    "Taiwan Semiconductor Manufacturing Company Limited",
                    "SUPPLIES",
                    "NVIDIA CORP",
                    [(FOUNDRY, 1), (FOUNDRY, 2)],
                ),  # two overlapping chunks quote the same sentence
                triple(K25, "TSMC", "SUPPLIES", "we", [("TSMC makes our wafers.", 3)]),
                triple(K25, "Samsung", "SUPPLIES", "NVIDIA CORP", [(FOUNDRY, 1)]),
                triple(
                    K25,
                    "NVIDIA CORP",
                    "EXPOSED_TO_RISK",
                    "Our sales to China may be limited by U.S. export controls",
                    [("Our sales to China may be limited by U.S. export controls.", 4)],
                ),
                triple(
                    K25,
                    "NVIDIA CORP",
                    "COMPETES_WITH",
                    "Frobnitz Labs",
                    [("We compete with Frobnitz Labs.", 5)],
                ),
                triple(
                    K25,
                    "Customer A",
                    "CUSTOMER_OF",
                    "NVIDIA CORP",
                    [("Customer A accounted for 12% of revenue.", 6)],
                    period="FY2025",
                    value=12.0,
                    unit="%",
                ),
            ],
            [
                observation(K25, "2025-02-26", "FY2025", "2024-01-29", "2025-01-26", 130_497e6),
                observation(K25, "2025-02-26", "FY2024", "2023-01-30", "2024-01-28", 60_900e6),
                observation(K25, "2025-02-26", "FY2023", "2022-01-31", "2023-01-29", 26_974e6),
            ],
        ),
        Q26: (
            filing(Q26, "2025-08-27", 2026, "Q2", "10-Q"),
            [triple(Q26, "TSMC", "SUPPLIES", "NVIDIA CORP", [("We rely on TSMC.", 1)])],
            [observation(Q26, "2025-08-27", "FY2024", "2023-01-30", "2024-01-28", 60_922e6)],
        ),
    }


def inputs(filings: dict[str, tuple[dict, list[dict], list[dict]]]) -> FrameInputs:
    return FrameInputs(
        frame([f for f, _, _ in filings.values()], FILINGS),
        frame([t for _, ts, _ in filings.values() for t in ts], VALIDATED_TRIPLES),
        frame([o for _, _, os in filings.values() for o in os], METRIC_OBSERVATIONS),
    )


def build(filings, merges=None, store: GraphStore | None = None) -> GraphStore:
    store = store or GraphStore(None)
    store.update_entities(inputs(filings), REFERENCE, merges=merges)
    store.update_graph()
    return store


def snapshot(store: GraphStore) -> dict[str, pl.DataFrame]:
    tables: GraphTables = store.tables()
    return {
        "nodes": tables.nodes,
        "edges": tables.edges,
        "evidence": tables.edge_evidence,
        "aliases": tables.entity_aliases,
        "review": tables.review_queue,
    }


def same(a: dict[str, pl.DataFrame], b: dict[str, pl.DataFrame]) -> bool:
    return all(a[k].equals(b[k]) for k in a)


def edges(store: GraphStore, relation: str) -> pl.DataFrame:
    return store.tables().edges.filter(pl.col("relation") == relation)


def test_duplicate_triples_become_one_edge_with_several_citations():
    """The 2025 10-K names TSMC twice in overlapping chunks and once more as "TSMC" after "we";
    the 2023 10-K names it too: one SUPPLIES edge, every citation kept."""
    store = build(world())
    supplies = edges(store, "SUPPLIES")
    tsmc = supplies.filter(pl.col("subject_id") == f"CIK-{TSM}").row(0, named=True)
    assert supplies.filter(pl.col("subject_id") == f"CIK-{TSM}").height == 1
    assert tsmc["object_id"] == f"CIK-{NVDA}"
    assert (tsmc["evidence_count"], tsmc["filing_count"]) == (5, 3)
    assert (tsmc["first_filing_id"], tsmc["last_filing_id"]) == (K23, Q26)
    assert tsmc["seen_periods"] == ["FY2023", "FY2025", "Q2-FY2026"]
    evidence = store.tables().edge_evidence.filter(pl.col("edge_id") == tsmc["edge_id"])
    assert sorted(evidence.get_column("chunk_id").to_list()) == sorted(
        [f"{K23}:1", f"{K25}:1", f"{K25}:2", f"{K25}:3", f"{Q26}:1"]
    )
    assert set(evidence.get_column("subject_text")) == {
        "Taiwan Semiconductor Manufacturing Company Limited",
        "TSMC",
    }
    samsung = supplies.filter(pl.col("subject_id") == "ORG:samsung-electronics")
    assert samsung.height == 1


def test_risks_keep_the_filings_own_phrase_and_periods_get_calendar_ranges():
    store = build(world())
    risk = edges(store, "EXPOSED_TO_RISK").row(0, named=True)
    assert edges(store, "EXPOSED_TO_RISK").height == 1  # the topic and the heading: one category
    assert risk["object_id"] == "RISK:export-controls" and risk["evidence_count"] == 2
    assert risk["phrases"] == [
        "Our sales to China may be limited by U.S. export controls",
        "export controls",
    ]
    customer = edges(store, "CUSTOMER_OF").row(0, named=True)
    assert customer["subject_id"] == "ORG:customer-a-of-cik-0001045810"
    assert (customer["period"], customer["value"], customer["unit"]) == ("FY2025", 12.0, "%")
    # FY2025 is NVIDIA's fiscal year ended 2025-01-26: the range comes from its XBRL durations.
    assert (customer["calendar_start"], customer["calendar_end"]) == (
        dt.date(2024, 1, 29),
        dt.date(2025, 1, 26),
    )


def test_a_restatement_keeps_both_edges_linked():
    """FY2024 revenue: 60,900 in the 2025 10-K, 60,922 in the 10-Q filed later. Both edges stay;
    the older one is superseded by the newer. FY2023, reported the same twice, is one edge."""
    store = build(world())
    metrics = edges(store, "REPORTS_METRIC")
    fy24 = metrics.filter(pl.col("period") == "FY2024").sort("last_filed")
    assert fy24.get_column("value").to_list() == [60_900e6, 60_922e6]
    assert fy24.get_column("superseded_by").to_list() == [fy24.item(1, "edge_id"), None]
    assert fy24.get_column("calendar_start").to_list() == [dt.date(2023, 1, 30)] * 2
    fy23 = metrics.filter(pl.col("period") == "FY2023")
    assert (
        fy23.height == 1
        and fy23.item(0, "evidence_count") == 2
        and fy23.item(0, "superseded_by") is None
    )
    # Withdrawing the 10-Q makes the 10-K's value current again; nothing else moves.
    world_without_q = {k: v for k, v in world().items() if k != Q26}
    build(world_without_q, store=store)
    fy24 = edges(store, "REPORTS_METRIC").filter(pl.col("period") == "FY2024")
    assert (
        fy24.get_column("value").to_list() == [60_900e6] and fy24.item(0, "superseded_by") is None
    )


def test_adding_the_same_filing_twice_changes_nothing():
    store = build(world())
    before = snapshot(store)
    changes = store.changes_since(0).height
    report = store.update_entities(inputs(world()), REFERENCE)
    assert (report.added, report.changed, report.removed, report.mentions_resolved) == (
        [],
        [],
        [],
        0,
    )
    assert store.update_graph().update_id is None
    assert same(before, snapshot(store)) and store.changes_since(0).height == changes


def test_removing_a_filing_removes_exactly_its_evidence():
    full = build(world())
    before = full.tables()
    ids_2023 = set(
        before.edge_evidence.filter(pl.col("filing_id") == K23).get_column("evidence_id")
    )
    report = build({k: v for k, v in world().items() if k != K23}, store=full)
    after = full.tables()
    assert (
        set(after.edge_evidence.get_column("evidence_id"))
        == set(before.edge_evidence.get_column("evidence_id")) - ids_2023
    )
    # AMD was named only in 2023: its edge goes; TSMC's edge stays with fewer citations.
    assert edges(full, "COMPETES_WITH").filter(pl.col("object_id") == "CIK-0000002488").height == 0
    tsmc = edges(full, "SUPPLIES").filter(pl.col("subject_id") == f"CIK-{TSM}").row(0, named=True)
    assert (tsmc["evidence_count"], tsmc["first_filing_id"]) == (4, K25)
    assert report is full
    # The same as a graph that never saw the 2023 10-K.
    fresh = build({k: v for k, v in world().items() if k != K23})
    assert same(snapshot(fresh), snapshot(full))


def test_incremental_updates_equal_a_full_rebuild():
    w = world()
    store = build({K25: w[K25]})
    build({K25: w[K25], Q26: w[Q26]}, store=store)
    build(w, store=store)
    assert same(snapshot(store), snapshot(build(w)))
    touched = store.changes_since(0)
    last_id = touched.get_column("update_id").max()
    last = touched.filter(pl.col("update_id") == last_id)
    assert store.updates_since(last_id - 1).get_column("filing_ids").to_list() == [[K23]]
    assert "CIK-0000002488" in last.get_column("entity_id").to_list()  # AMD: only in the 2023 10-K


def _write_tickers(root, title: str, mtime_ns: int):
    """SEC's company_tickers.json in a reference folder, NVIDIA's title as given."""
    rows = [{**r, "title": title} if r["cik"] == NVDA else r for r in TICKERS]
    path = root / "reference" / "company_tickers.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                str(i): {"cik_str": int(r["cik"]), "ticker": r["ticker"], "title": r["title"]}
                for i, r in enumerate(rows)
            }
        )
    )
    os.utime(path, ns=(mtime_ns, mtime_ns))  # explicit: two writes within one clock tick differ too


def _local_reference(root) -> Reference:
    """As the resolved_entities asset reads it: the files' identity first, then their rows."""
    source = LocalFolderSource(root)
    identity = reference_source(source.reference_files([NVDA]))
    ref = collect_reference([NVDA], source.company_tickers, source.submissions)
    return Reference(ref.tickers, ref.submissions, source=identity)


def _titles(store: GraphStore, entity: str) -> set[str]:
    """The entity's names from SEC's ticker file."""
    aliases = store.tables().entity_aliases
    return set(
        aliases.filter(
            (pl.col("entity_id") == entity) & (pl.col("kind") == "sec_title")
        ).get_column("alias")
    )


def test_the_reference_digest_is_reused_only_while_its_files_are_unchanged(tmp_path):
    """The digest of SEC's rows is stored with the identity of the files they were read from
    (path, size, mtime, inode): an update from the same files reuses it without hashing the
    rows; a rewritten file is hashed again, and what changed in it rebuilds the registry;
    a file rewritten with the same content rebuilds nothing."""
    w = world()
    _write_tickers(tmp_path, "NVIDIA CORP", 1_700_000_000_000_000_000)
    store = GraphStore(None)
    first = _local_reference(tmp_path)
    store.update_entities(inputs(w), first)
    store.update_graph()
    assert _titles(store, f"CIK-{NVDA}") == {"NVIDIA CORP"}

    # The same files: the stored digest stands for their rows, which are not hashed again.
    unhashed = Reference(
        [{"cik": NVDA, "ticker": "XXXX", "title": "NOT READ"}], {}, source=first.source
    )
    assert not store.update_entities(inputs(w), unhashed).registry_rebuilt
    assert "digest" not in unhashed.__dict__  # the cached_property was never computed

    # The file changes: its rows are hashed, the registry rebuilt, the new name is an alias.
    _write_tickers(tmp_path, "NVIDIA CORPORATION", 1_700_000_000_000_000_001)
    renamed = _local_reference(tmp_path)
    assert renamed.source != first.source
    assert store.update_entities(inputs(w), renamed).registry_rebuilt
    store.update_graph()
    assert _titles(store, f"CIK-{NVDA}") == {"NVIDIA CORPORATION"}

    # Rewritten with the same content: hashed once (the digest matches), nothing rebuilt, and
    # the new identity is remembered, so the next update reuses the digest again.
    _write_tickers(tmp_path, "NVIDIA CORPORATION", 1_700_000_000_000_000_002)
    touched = _local_reference(tmp_path)
    assert not store.update_entities(inputs(w), touched).registry_rebuilt
    assert "digest" in touched.__dict__
    again = Reference([], {}, source=touched.source)
    assert not store.update_entities(inputs(w), again).registry_rebuilt
    assert "digest" not in again.__dict__
    # What the asset asks before it reads the files at all: the identity the registry stands on.
    assert store.reference_source() == touched.source

    # Rows without a known source are always hashed: here, a different reference rebuilds.
    assert store.update_entities(inputs(w), REFERENCE).registry_rebuilt
    assert store.reference_source() is None  # rows from nowhere known: the files must be read
    store.update_graph()
    assert _titles(store, f"CIK-{NVDA}") == {"NVIDIA CORP"}


def test_a_filers_name_is_its_latest_filings_and_ties_break_by_filing_id():
    """Read from the filings' rows in Python (not a query per update); two undated filings of
    one company (the corpus has such a pair) give the same name in any order."""
    undated = [
        ("sha-b", NVDA, "NVIDIA CORP", None),
        ("sha-a", NVDA, "Nvidia Corporation", None),
        ("sha-c", TSM, None, None),
        ("sha-d", None, "No CIK", None),
    ]
    assert (
        filer_names(undated) == filer_names(undated[::-1]) == [(NVDA, "NVIDIA CORP"), (TSM, None)]
    )
    dated = [
        ("z", NVDA, "OLD NAME", dt.date(2024, 1, 1)),
        ("a", NVDA, "NEW NAME", dt.date(2025, 1, 1)),
        ("y", NVDA, None, dt.date(2026, 1, 1)),
    ]
    assert filer_names(dated) == [(NVDA, "NEW NAME")]


def test_merge_then_unmerge_restores_the_graph_exactly():
    store = build(world())
    before = snapshot(store)
    merged = build(world(), merges={"ORG:samsung-electronics": f"CIK-{TSM}"}, store=store)
    supplies = edges(merged, "SUPPLIES")
    assert supplies.filter(pl.col("subject_id") == "ORG:samsung-electronics").height == 0
    assert not same(before, snapshot(store))
    build(world(), merges={}, store=store)
    assert same(before, snapshot(store))


def test_an_unresolved_mention_stays_out_and_waits_for_review():
    """Issue 22: a name no register knows that reads as an organisation ("Frobnitz Labs") is
    no longer withheld: it is a provisional organization, published; a person may still merge
    it elsewhere through the merge log."""
    store = build(world())
    assert "Frobnitz Labs" in store.tables().edge_evidence.get_column("object_text").to_list()
    assert (
        edges(store, "COMPETES_WITH").filter(pl.col("object_id") == "ORG:frobnitz-labs").height == 1
    )
    assert store.review_queue().filter(pl.col("text") == "Frobnitz Labs").height == 0
    assert store.counts()["claims_unresolved"] == 0
    # A person merges it into another id... which the graph then holds instead.
    build(world(), merges={"mention:Frobnitz Labs": f"CIK-{TSM}"}, store=store)
    assert (
        edges(store, "COMPETES_WITH").filter(pl.col("object_id") == "ORG:frobnitz-labs").height == 0
    )
    assert store.review_queue().filter(pl.col("text") == "Frobnitz Labs").height == 0


def test_a_corrupt_partition_fails_naming_it_and_the_graph_stays(tmp_path):
    tables = TableStore(tmp_path)
    w = world()
    for fid, (f, ts, os_) in w.items():
        tables.write("raw_filings", frame([f], FILINGS), fid)
        tables.write("validated_triples", frame(ts, VALIDATED_TRIPLES), fid)
        tables.write("metric_observations", frame(os_, METRIC_OBSERVATIONS), fid)
    store = GraphStore(tmp_path / "graph" / "graph.duckdb")
    store.update_entities(tables, REFERENCE)
    store.update_graph()
    before = snapshot(store)
    bad = tables.partition_path("validated_triples", Q26)
    bad.write_bytes(b"not parquet")
    with pytest.raises(GraphInputError, match=rf"validated_triples.*{Q26}.*cannot be read"):
        store.update_entities(tables, REFERENCE)
    bad.unlink()
    with pytest.raises(GraphInputError, match=rf"{Q26}.*validated_triples is missing"):
        store.update_entities(tables, REFERENCE)
    assert same(before, snapshot(store))
    store.close()
    # The file on disk is the previous graph too.
    reopened = GraphStore(tmp_path / "graph" / "graph.duckdb")
    assert same(before, snapshot(reopened)) and reopened.integrity().passed
    reopened.close()


def test_filing_labels():
    assert filing_label(2025, "FY") == "FY2025" and filing_label(2026, "Q2") == "Q2-FY2026"
    assert filing_label(None, "FY") is None


def test_derived_observations_make_no_metric_edge():
    """A derived value (issue 14: Q4 = FY − 9M) was written in no filing; the graph's
    REPORTS_METRIC edges cite stated values only."""
    from graphrag_core.graph.claims import xbrl_claims
    from graphrag_core.tables.schemas import METRIC_OBSERVATIONS, conform

    rows = [
        {
            "observation_id": f"f1:{kind}",
            "cik": "0000000001",
            "metric": "revenue",
            "value": 10.0,
            "fiscal_label": "Q4-FY2024",
            "filing_id": "f1",
            "source_kind": "xbrl",
            "derived": derived,
        }
        for kind, derived in (("stated", False), ("derived", True), ("older", None))
    ]
    frame = pl.DataFrame(rows).with_columns(
        pl.lit(None).cast(dtype).alias(name)
        for name, dtype in METRIC_OBSERVATIONS.items()
        if name not in rows[0]
    )
    claims = xbrl_claims(conform(frame, METRIC_OBSERVATIONS), "CIK-0000000001")
    assert sorted(claims["claim_id"]) == ["f1:older", "f1:stated"]


def test_a_filings_contribution_counts_only_what_no_other_filing_names():
    """What the ingestion report says a run brought: the 2025 10-K alone names Samsung and its
    Customer A, AMD only the 2023 one, TSMC all three; Frobnitz Labs (issue 22: a provisional
    organization, published) is new with it too."""
    store = build(world())
    k25 = store.filings_contribution([K25])
    assert k25.new_entities == {"organization": 3}  # TSMC and NVIDIA are named elsewhere too
    assert store.filings_contribution([K23]).new_entities == {"company": 1}  # AMD
    assert k25.queued_for_review.get("unresolved") is None  # nothing withheld
    everything = store.filings_contribution([K23, K25, Q26])
    assert (
        sum(everything.new_entities.values())
        == store.tables().nodes.filter(pl.col("entity_type") != "risk").height
    )  # every node but the taxonomy's always-present risks
    assert store.filings_contribution([]) == type(k25)(new_entities={}, queued_for_review={})
    queued, mentions = store.review_share()
    assert queued == sum(everything.queued_for_review.values()) and mentions > queued


def test_the_review_queue_check_warns_over_its_share():
    from graphrag_core.graph.graph_checks import review_queue_within_limit

    ok = review_queue_within_limit(43, 100, 0.6, 0)
    over = review_queue_within_limit(61, 100, 0.6, 5)
    assert ok.passed and not over.passed and not over.blocking
    assert over.figures["share"] == 0.61 and over.figures["claims_unresolved"] == 5
    assert review_queue_within_limit(0, 0, 0.6, 0).passed  # nothing asked, nothing waiting


def test_a_text_edges_calendar_range_follows_the_xbrl_of_its_filer_both_ways():
    """A 10-Q names a customer share for FY2025; the calendar range of "FY2025" comes from the
    filer's XBRL in the 10-K. Adding the 10-K after the 10-Q dates the edge; removing the 10-K
    again undates it: either way the graph equals one built from scratch."""
    w = world()
    q26 = (
        w[Q26][0],
        [
            *w[Q26][1],
            triple(
                Q26,
                "Customer B",
                "CUSTOMER_OF",
                "NVIDIA CORP",
                [("Customer B accounted for 11% of FY2025 revenue.", 2)],
                period="FY2025",
                value=11.0,
                unit="%",
            ),
        ],
        w[Q26][2],
    )
    only_q, both = {Q26: q26}, {K25: w[K25], Q26: q26}

    def customer_b(store: GraphStore) -> tuple:
        edge = edges(store, "CUSTOMER_OF").filter(pl.col("value") == 11.0).row(0, named=True)
        return edge["calendar_start"], edge["calendar_end"]

    store = build(only_q)
    assert customer_b(store) == (None, None)
    build(both, store=store)
    assert customer_b(store) == (dt.date(2024, 1, 29), dt.date(2025, 1, 26))
    assert same(snapshot(store), snapshot(build(both)))
    build(only_q, store=store)
    assert customer_b(store) == (None, None)
    assert same(snapshot(store), snapshot(build(only_q)))


def test_the_graph_report_counts_what_a_removal_took():
    """Removing the 2023 10-K: its four citations go, and with them the one edge only it
    stated (NVIDIA competes with AMD); the edges they touched are re-aggregated."""
    w = world()
    store = build(w)
    before = store.counts()
    store.update_entities(inputs({k: v for k, v in w.items() if k != K23}), REFERENCE)
    report = store.update_graph()
    after = store.counts()
    assert (report.evidence_removed, report.evidence_added, report.edges_removed) == (4, 0, 1)
    assert before["edges"] - after["edges"] == report.edges_removed
    assert before["evidence"] - after["evidence"] == report.evidence_removed
    assert report.edges_touched >= report.edges_removed and report.filings_applied == [K23]


def test_opening_a_store_another_process_holds_waits_for_it(tmp_path):
    """DuckDB lets one process write a file: a second opener (another step of the same run on a
    distributed executor) waits for the lock instead of failing, and fails with DuckDB's lock
    error only past its timeout."""
    import subprocess
    import sys
    import time

    import duckdb

    path = tmp_path / "graph.duckdb"
    GraphStore(path).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); "
            "print('held', flush=True); time.sleep(float(sys.argv[2]))",
            str(path),
            "1.5",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(duckdb.IOException, match="lock"):
            GraphStore(path, lock_timeout_s=0)
        started = time.monotonic()
        with GraphStore(path, lock_timeout_s=60) as store:
            assert store.counts() is not None
        assert time.monotonic() - started > 0.3  # it did wait for the holder to go
    finally:
        holder.wait(timeout=30)


def test_an_update_that_touches_nothing_does_not_hand_its_id_to_the_next():
    """A filing that states no relation is an update that touches no entity: it writes no
    `graph_changes` row. The next update (here a merge) must still get a new id, or a consumer
    that applied the empty one (the communities stage) never sees the merge's changes."""
    store = build(world())
    first = store.updates_since(0).get_column("update_id").to_list()
    quiet = "0000000000-25-000099"
    build({**world(), quiet: (filing(quiet, "2025-09-01", 2026, "Q3", "8-K"), [], [])}, store=store)
    applied = max(store.updates_since(0).get_column("update_id").to_list())
    assert applied > max(first)
    assert store.changes_since(max(first)).height == 0  # it touched nothing
    build(
        {**world(), quiet: (filing(quiet, "2025-09-01", 2026, "Q3", "8-K"), [], [])},
        merges={"ORG:samsung-electronics": f"CIK-{TSM}"},
        store=store,
    )
    ids = store.updates_since(0).get_column("update_id").to_list()
    assert len(ids) == len(set(ids)), f"update ids handed out twice: {ids}"
    seen = set(store.changes_since(applied).get_column("entity_id").to_list())
    assert {"ORG:samsung-electronics", f"CIK-{TSM}"} <= seen
