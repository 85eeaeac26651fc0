"""The snapshot store: what the DuckDB file holds, the manifest, atomic publishing, retention,
and the reader's read-only access and hot reload."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
import time
from dataclasses import replace

import duckdb
import polars as pl
import pytest

from graphrag_core.common.ids import file_sha256
from graphrag_core.common.names import member_label, normalize_name
from graphrag_core.graph.companies import CompanyReference, build_company_tables, segment_members
from graphrag_core.graph.snapshot_inputs import gather_snapshot_tables
from graphrag_core.store import layout
from graphrag_core.store.publish import SnapshotStore
from graphrag_core.store.reader import SnapshotReader, SnapshotUnavailable
from graphrag_core.tables.schemas import FILINGS, VALIDATED_TRIPLES, frame
from graphrag_core.tables.table_store import TableStore
from tests import snapshot_sample as sample


@pytest.fixture
def store(data_root) -> SnapshotStore:
    return SnapshotStore(data_root, retain=2)


def _db(store: SnapshotStore, version: str) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(store.database_path(version)), read_only=True)


# -- names --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "norm"),
    [
        ("NVIDIA CORP/CA", "nvidia"),
        ("NVIDIA Corporation", "nvidia"),
        ("The Coca-Cola Company", "coca cola"),
        ("JPMORGAN CHASE & CO", "jpmorgan chase"),
        ("APPLE INC /DE/", "apple"),
        ("Berkshire Hathaway Holdings", "berkshire hathaway holdings"),
    ],
)
def test_normalize_name(raw, norm):
    assert normalize_name(raw) == norm


def test_member_label_splits_camel_case_and_drops_suffixes():
    assert member_label("goog:GoogleServicesMember") == "Google Services"
    assert member_label("amzn:AmazonWebServicesSegmentMember") == "Amazon Web Services"


# -- companies ----------------------------------------------------------------------------
def test_companies_merge_filings_tickers_and_submissions():
    tables = build_company_tables(
        frame(sample.FILING_ROWS, FILINGS),
        sample.reference(),
        segments=segment_members(sample.xbrl_segment_facts()),
    )
    companies = {r["cik"]: r for r in tables.companies.iter_rows(named=True)}
    assert sorted(companies) == [sample.AAPL, sample.NVDA, sample.GOOGL, sample.RSTD]
    nvda = companies[sample.NVDA]
    assert nvda["company_id"] == "CIK-0001045810"
    assert nvda["name"] == "NVIDIA CORPORATION"  # the newest filing's registrant name
    assert nvda["tickers"] == ["NVDA"]
    assert nvda["sic"] == "3674" and nvda["sic_description"] == "Semiconductors & Related Devices"
    assert nvda["fiscal_year_end"] == "01-25"  # the newest filing's dei value, not SEC's "0126"
    assert nvda["former_names"] == [
        {"name": "NVIDIA CORP/CA", "date_from": dt.date(1998, 5, 7), "date_to": dt.date(2002, 6, 4)}
    ]
    assert nvda["filings"] == 2 and nvda["last_filed"] == dt.date(2025, 8, 27)
    assert companies[sample.GOOGL]["tickers"] == ["GOOGL", "GOOG"]
    assert companies[sample.RSTD]["tickers"] == [] and companies[sample.RSTD]["sic"] is None

    aliases = tables.aliases.filter(pl.col("cik") == sample.GOOGL)
    segments = set(aliases.filter(pl.col("kind") == "segment").get_column("alias"))
    # Company-specific members only: us-gaap:AllOtherSegmentsMember names no brand.
    assert segments == {"Google Services", "Google Cloud", "You Tube Ads"}
    # The ticker list as a whole, including a company with no filings here.
    assert "MSFT" in set(tables.registrants.get_column("ticker"))


def test_submissions_fill_in_what_filings_lack():
    tables = build_company_tables(
        frame([], FILINGS),
        CompanyReference(tickers=[], submissions={sample.NVDA: sample.NVDA_SUBMISSIONS}),
        extra_ciks=[sample.NVDA],
    )
    row = tables.companies.row(0, named=True)
    assert (row["name"], row["fiscal_year_end"], row["filings"]) == ("NVIDIA CORP", "01-26", 0)


# -- the database -------------------------------------------------------------------------
def test_the_snapshot_copies_columns_the_working_tables_have():
    """The graph's tables are copied whole, their columns taken from the working tables' schemas;
    filings and chunks copy a selection, every column of which the working table has."""
    from graphrag_core.store import snapshot_schema as snap
    from graphrag_core.tables import schemas

    assert snap.EDGE_COLUMNS == tuple(schemas.EDGES) and "superseded_by" in snap.EDGE_COLUMNS
    assert snap.EDGE_EVIDENCE_COLUMNS == tuple(schemas.EDGE_EVIDENCE)
    assert set(snap.FILING_COLUMNS) < set(schemas.FILINGS)
    assert set(snap.CHUNK_COLUMNS) < set(schemas.CHUNKS)


def test_snapshot_tables_and_derived_values(store):
    manifest = store.publish(sample.sample_tables())
    con = _db(store, manifest.version)
    tables = {
        r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()
    }
    assert set(manifest.counts) <= tables and "snapshot_info" in tables
    assert manifest.counts["filings"] == 6 and manifest.counts["chunks"] == 10
    assert manifest.counts["metric_observations"] == 47
    # 47 observations - 2 restated - 1 repeated unchanged in a later filing
    assert manifest.counts["metric_values"] == 44

    rev = con.execute(
        "SELECT value, fiscal_label, prior_value, prior_fiscal_label, filing_id, section, chunk_id "
        "FROM metric_values WHERE cik = ? AND metric = 'revenue' AND fiscal_label = 'FY2025'",
        [sample.NVDA],
    ).fetchall()
    assert rev == [
        (
            130_497e6,
            "FY2025",
            60_922e6,
            "FY2024",
            sample.NVDA_10K,
            "10-K/Item 8",
            sample.NVDA_IS["chunk_id"],
        )
    ]

    restated = con.execute(
        "SELECT value, filing_id, superseded FROM metric_values "
        "WHERE cik = ? AND metric = 'revenue' AND fiscal_label = 'FY2023'",
        [sample.RSTD],
    ).fetchall()
    assert len(restated) == 1
    value, filing_id, superseded = restated[0]
    assert (value, filing_id) == (950e6, sample.RSTD_10K_24)
    assert [(s["value"], s["filing_id"]) for s in superseded] == [(1_000e6, sample.RSTD_10K_23)]

    # The unchanged repeat is one value, cited to the newer filing, and not a restatement.
    debt = con.execute(
        "SELECT filing_id, len(superseded) FROM metric_values "
        "WHERE cik = ? AND metric = 'total_debt' AND fiscal_label = 'FY2023'",
        [sample.RSTD],
    ).fetchall()
    assert debt == [(sample.RSTD_10K_24, 0)]

    basis = con.execute(
        "SELECT period_kind, fiscal_label, revenue.value, revenue.prior_value, "
        "operating_income.value, total_debt.value, stockholders_equity.value "
        "FROM screen_basis WHERE cik = ? ORDER BY period_kind",
        [sample.NVDA],
    ).fetchall()
    assert basis == [
        ("annual", "FY2025", 130_497e6, 60_922e6, 81_453e6, 8_463e6, 79_327e6),
        ("quarter", "Q2-FY2026", 46_743e6, 30_040e6, 28_440e6, None, None),
    ]
    info = con.execute("SELECT version, as_of FROM snapshot_info").fetchone()
    assert info == (manifest.version, dt.date(2025, 8, 27))


def test_manifest_describes_the_snapshot(store):
    manifest = store.publish(sample.sample_tables(), code="test-code")
    on_disk = json.loads(
        (layout.version_dir(store.root, manifest.version) / "manifest.json").read_text()
    )
    assert on_disk["version"] == manifest.version == store.current_version()
    assert on_disk["as_of"] == "2025-08-27"  # the newest filing date: NVIDIA's 10-Q
    assert on_disk["as_of_basis"].startswith("filing date of 10-Q ")
    assert on_disk["code_version"] == "test-code"
    inputs_file = layout.version_dir(store.root, manifest.version) / "inputs.json"
    assert on_disk["inputs"] == {
        "file": "inputs.json",
        "count": 6,
        "digest": manifest.inputs.digest,
        "sha256": file_sha256(inputs_file),
    }
    assert {i.filing_id: i.sha256 for i in store.inputs(manifest.version)} == {
        f["filing_id"]: f["sha256"] for f in sample.FILING_ROWS
    }
    db = store.database_path(manifest.version)
    assert on_disk["database"] == {
        "file": "graph.duckdb",
        "bytes": db.stat().st_size,
        "sha256": file_sha256(db),
    }
    assert on_disk["counts"]["companies"] == 4
    assert layout.VERSION_RE.match(manifest.version)
    assert not list(store.root.glob(".staging-*"))


def test_chunks_and_metrics_of_unknown_filings_are_left_out(store):
    tables = sample.sample_tables()
    dropped = tables.filings.filter(pl.col("filing_id") != sample.AAPL_10K)
    manifest = store.publish(replace(tables, filings=dropped))
    con = _db(store, manifest.version)
    assert con.execute(
        "SELECT count(*) FROM chunks WHERE filing_id = ?", [sample.AAPL_10K]
    ).fetchone() == (0,)
    assert con.execute(
        "SELECT count(*) FROM metric_observations WHERE filing_id = ?", [sample.AAPL_10K]
    ).fetchone() == (0,)


def test_edges_and_their_evidence_are_published(store):
    """Accepted triples become edges between resolved entities (the filer by its CIK, the risk
    phrase as a category of the taxonomy), each with its verbatim quote and span; rejected
    triples and edges whose filing is not in the snapshot are left out. Metric observations
    are edges too (REPORTS_METRIC), cited by their fact."""
    manifest = store.publish(sample.sample_tables())
    con = _db(store, manifest.version)
    edges = con.execute(
        "SELECT subject_id, relation, object_id, stated_by FROM edges WHERE source = 'text'"
    ).fetchall()
    assert edges == [
        (f"CIK-{sample.NVDA}", "EXPOSED_TO_RISK", "RISK:technology-change", [f"CIK-{sample.NVDA}"])
    ]
    [(quote, start, end, section, phrase)] = con.execute(
        "SELECT quote, char_start, char_end, section, object_text FROM edge_evidence WHERE "
        "quote IS NOT NULL"
    ).fetchall()
    assert quote == sample.RISK_QUOTE and section == "10-K/Item 1A"
    assert phrase == "rapid changes in technology"  # the filing's own words stay on the edge
    assert end - start == len(sample.RISK_QUOTE)
    metric_edges = con.execute(
        "SELECT count(*) FROM edges WHERE relation = 'REPORTS_METRIC'"
    ).fetchone()[0]
    assert metric_edges > 0 and manifest.review_queue == 0
    (name, kind, degree) = con.execute(
        "SELECT name, entity_type, degree FROM nodes WHERE entity_id = 'RISK:technology-change'"
    ).fetchone()
    assert (name, kind, degree) == ("Technological change", "risk", 1)
    without = store.publish(sample.sample_tables(without=(sample.NVDA_10K,)))
    con = _db(store, without.version)
    assert con.execute("SELECT count(*) FROM edges WHERE source = 'text'").fetchone() == (0,)
    assert con.execute(
        "SELECT count(*) FROM edge_evidence WHERE filing_id = ?", [sample.NVDA_10K]
    ).fetchone() == (0,)


def test_load_tables_reads_every_partition(data_root):
    tables = TableStore(data_root)
    full = sample.sample_tables()
    for fid in full.filings.get_column("filing_id"):
        tables.write("raw_filings", full.filings.filter(pl.col("filing_id") == fid), fid)
        tables.write("section_chunks", full.chunks.filter(pl.col("filing_id") == fid), fid)
        # As the per-filing stage writes them: no links across filings yet.
        tables.write(
            "metric_observations",
            full.metric_observations.filter(pl.col("filing_id") == fid).with_columns(
                superseded_by=pl.lit(None, pl.String)
            ),
            fid,
        )
        tables.write(
            "validated_triples",
            frame([t for t in sample.TRIPLE_ROWS if t["filing_id"] == fid], VALIDATED_TRIPLES),
            fid,
        )
    tables.write("xbrl_facts", sample.xbrl_segment_facts().collect(), sample.GOOGL_10K)
    asked: list[list[str]] = []

    def reference(ciks: list[str]) -> CompanyReference:
        asked.append(ciks)
        return sample.reference()

    loaded = gather_snapshot_tables(tables, reference)
    assert asked == [sorted({sample.NVDA, sample.GOOGL, sample.AAPL, sample.RSTD})]
    assert loaded.filings.height == 6 and loaded.chunks.height == 10
    assert loaded.metric_observations.height == 47
    # Restatements are linked across partitions when the snapshot is loaded.
    linked = loaded.metric_observations.filter(
        (pl.col("cik") == sample.RSTD)
        & (pl.col("metric") == "revenue")
        & (pl.col("fiscal_label") == "FY2023")
    ).sort("filed_date")
    assert linked.get_column("superseded_by").to_list() == [linked.item(1, "observation_id"), None]
    assert linked.get_column("restated").to_list()[1] is True
    # The graph is built from the same partitions: the sample's risk, and every metric as an edge.
    assert loaded.edges.filter(pl.col("source") == "text").get_column("object_id").to_list() == [
        "RISK:technology-change"
    ]
    statements = loaded.metric_observations.unique(
        ["cik", "metric", "fiscal_label", "calendar_start", "calendar_end", "value", "unit"]
    )
    assert loaded.edges.filter(pl.col("relation") == "REPORTS_METRIC").height == statements.height
    assert "Google Services" in set(loaded.company_aliases.get_column("alias"))


# -- publishing and retention -------------------------------------------------------------
def test_latest_moves_only_on_publish_and_retention_keeps_current(store):
    assert store.current_version() is None
    versions = [store.publish(sample.sample_tables(), code=f"build-{i}").version for i in range(4)]
    assert store.current_version() == versions[-1]
    assert store.versions() == versions[-2:]  # retain=2

    # LATEST pointed back at an older version (an operator's rollback): pruning down to one
    # version keeps the newest and the current one.
    layout.write_latest(store.root, versions[-2])
    strict = SnapshotStore(store.root.parent, retain=1)
    assert strict.prune() == []
    assert strict.versions() == versions[-2:]
    layout.write_latest(store.root, versions[-1])
    assert strict.prune() == [versions[-2]]
    assert strict.versions() == [versions[-1]]


def test_unchanged_inputs_publish_no_new_version(store):
    """Same tables, same code: nothing is built and LATEST stays; any changed row or another
    code version makes a new version."""
    first = store.publish(sample.sample_tables())
    again = store.publish(sample.sample_tables())
    assert again.version == first.version and store.versions() == [first.version]
    assert again.content_digest == first.content_digest
    changed = sample.sample_tables()
    changed = replace(
        changed,
        chunks=changed.chunks.with_columns(
            text=pl.when(pl.col("chunk_id") == sample.NVDA_RISK["chunk_id"])
            .then(pl.col("text") + " ")
            .otherwise(pl.col("text"))
        ),
    )
    second = store.publish(changed)
    assert second.version != first.version and store.current_version() == second.version
    third = store.publish(changed, code="another-code-version")
    assert third.version != second.version


def test_failed_verification_leaves_latest(store, monkeypatch):
    """A staged snapshot that does not open as the reader opens it (here: a row count that does
    not match its manifest) is discarded; LATEST stays on the previous snapshot."""
    from graphrag_core.store import database, publish

    first = store.publish(sample.sample_tables()).version
    real_build = database.build_database

    def miscounting(*args, **kwargs):
        counts = real_build(*args, **kwargs)
        return {**counts, "chunks": counts["chunks"] + 1}

    monkeypatch.setattr(publish, "build_database", miscounting)
    with pytest.raises(
        publish.SnapshotVerificationError, match="chunks: 10 rows, manifest says 11"
    ):
        store.publish(sample.sample_tables(), code="miscounted")
    assert store.current_version() == first and store.versions() == [first]
    assert not list(store.root.glob(".staging-*"))


def test_failed_build_leaves_latest_and_no_staging(store, monkeypatch):
    first = store.publish(sample.sample_tables()).version
    broken = sample.sample_tables()
    broken = replace(broken, chunks=broken.chunks.drop("section"))
    with pytest.raises(ValueError, match="section"):
        store.publish(broken)
    assert store.current_version() == first
    assert store.versions() == [first]
    assert not list(store.root.glob(".staging-*"))


def test_stale_staging_folders_are_removed(data_root):
    store = SnapshotStore(data_root, stale_staging_s=0)
    (store.root / ".staging-123-dead").mkdir(parents=True)
    (store.root / ".staging-123-dead" / "graph.duckdb").write_bytes(b"partial")
    store.publish(sample.sample_tables())
    assert not list(store.root.glob(".staging-*"))


# -- the reader ---------------------------------------------------------------------------
def test_reader_is_read_only_and_leaves_the_file_untouched(store, data_root):
    version = store.publish(sample.sample_tables()).version
    path = store.database_path(version)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    reader = SnapshotReader(data_root)
    with reader.lease() as snap:
        assert snap.query("SELECT count(*) AS n FROM companies") == [{"n": 4}]
        with pytest.raises(duckdb.Error, match="read-only"):
            snap.execute("INSERT INTO companies (company_id) VALUES ('CIK-0000000001')")
        with pytest.raises(duckdb.Error, match="read-only"):
            snap.execute("DROP TABLE companies")
        # No file outside the snapshot can be read (or written) through it either.
        with pytest.raises(duckdb.Error):
            snap.execute("SELECT * FROM read_csv('/etc/hostname')")
        with pytest.raises(duckdb.Error):
            snap.execute("SET enable_external_access = true")
    reader.close()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_reader_without_snapshot_says_what_to_do(data_root):
    with pytest.raises(SnapshotUnavailable, match="graph_snapshot"):
        with SnapshotReader(data_root).lease():
            pass


def test_hot_reload_keeps_in_flight_leases_on_the_old_snapshot(store, data_root):
    old = store.publish(sample.sample_tables(without=(sample.NVDA_10Q,))).version
    reader = SnapshotReader(data_root)
    with reader.lease() as first:
        assert first.version == old
        new = store.publish(sample.sample_tables()).version
        with reader.lease() as second:
            assert second.version == new
            assert second.query("SELECT count(*) AS n FROM filings") == [{"n": 6}]
        # The call that started on the old snapshot still reads it, consistently.
        assert first.query("SELECT count(*) AS n FROM filings") == [{"n": 5}]
        assert first.query("SELECT version FROM snapshot_info") == [{"version": old}]
    # Its last lease ended: the old connection is closed.
    with pytest.raises(duckdb.Error):
        first.execute("SELECT 1")
    assert reader.current_version() == new
    reader.close()


def test_reader_keeps_serving_when_a_new_snapshot_is_damaged(store, data_root):
    good = store.publish(sample.sample_tables()).version
    reader = SnapshotReader(data_root)
    assert reader.current_version() == good
    bad = store.publish(sample.sample_tables(), code="rebuilt").version
    with open(store.database_path(bad), "ab") as fh:
        fh.write(b"garbage")
    assert reader.current_version() == good
    # A fresh reader (a server started now) serves the newest intact version instead.
    fresh = SnapshotReader(data_root)
    assert fresh.current_version() == good
    fresh.close()
    # With no intact version at all, the error says the snapshot is damaged.
    with open(store.database_path(good), "ab") as fh:
        fh.write(b"garbage")
    with pytest.raises(SnapshotUnavailable, match="damaged"):
        with SnapshotReader(data_root).lease():
            pass
    reader.close()


def test_concurrent_leases_across_publishes(store, data_root):
    """Threads query while snapshots are published underneath: no errors, every answer from a
    published version, each answer self-consistent (its rows come from the version it names)."""
    versions = [store.publish(sample.sample_tables()).version]
    reader = SnapshotReader(data_root)
    errors: list[BaseException] = []
    seen: set[str] = set()
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            try:
                with reader.lease() as snap:
                    [row] = snap.query("SELECT version FROM snapshot_info")
                    assert row["version"] == snap.version
                    assert snap.query("SELECT count(*) AS n FROM companies") == [{"n": 4}]
                    seen.add(snap.version)
            except BaseException as exc:  # collected and asserted on below
                errors.append(exc)
                return

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for i in range(3):
        versions.append(store.publish(sample.sample_tables(), code=f"build-{i}").version)
    deadline = time.monotonic() + 30
    while versions[-1] not in seen and not errors and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    reader.close()
    assert errors == []
    assert seen <= set(versions) and versions[-1] in seen
