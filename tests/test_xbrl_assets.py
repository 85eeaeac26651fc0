"""The xbrl_facts and metric_observations assets, materialized through Dagster after the
intake stages on one filing: registered in the Definitions, skip counts in the metadata."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import polars as pl

from assets.intake import raw_filings
from assets.partitions import FILINGS_PARTITION_SET
from assets.resources import build_resources
from assets.text import section_chunks
from assets.xbrl import metric_observations, xbrl_facts
from graphrag_core.intake.catalog import FilingCatalog
from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.settings import Settings
from graphrag_core.tables.schemas import METRIC_OBSERVATIONS, XBRL_FACTS
from graphrag_core.tables.table_store import TableStore
from graphrag_core.xbrl.facts import SKIP_REASONS
from pipelines.definitions import build_definitions, per_filing_asset_keys
from tests.conftest import FIXTURES


def test_assets_are_registered_per_filing():
    defs = build_definitions(Settings(data_root=Path("/tmp/unused")))
    keys = {k.to_user_string() for k in per_filing_asset_keys(defs)}
    assert {"xbrl_facts", "metric_observations"} <= keys


def _materialize(folder: Path, data_root: Path) -> tuple[str, dg.ExecuteInProcessResult]:
    [ref] = LocalFolderSource(folder).discover()
    FilingCatalog(data_root).put(ref)
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(FILINGS_PARTITION_SET, [ref.filing_id])
    result = dg.materialize(
        [raw_filings, section_chunks, xbrl_facts, metric_observations],
        partition_key=ref.filing_id,
        instance=instance,
        resources=build_resources(Settings(data_root=data_root, corpus=folder)),
    )
    return ref.filing_id, result


def test_fixture_filing_through_the_assets(data_root, tmp_path):
    folder = tmp_path / "filings"
    folder.mkdir()
    shutil.copy(FIXTURES / "xbrl" / "acme_10k.htm", folder / "acme_10k.htm")
    filing_id, result = _materialize(folder, data_root)
    assert result.success
    store = TableStore(data_root)
    facts = store.read("xbrl_facts", filing_id)
    assert facts.columns == list(XBRL_FACTS)
    revenue = facts.filter(
        (pl.col("concept") == "us-gaap:Revenues") & (pl.col("dimension_count") == 0)
    )
    assert revenue["chunk_id"].is_not_null().all()  # cited to the lead's chunks
    observations = store.read("metric_observations", filing_id)
    assert observations.columns == list(METRIC_OBSERVATIONS)
    fy2025 = observations.filter(
        (pl.col("metric") == "revenue") & (pl.col("fiscal_label") == "FY2025")
    )
    assert fy2025["value"].to_list() == [130_497_000_000]
    [facts_event] = result.asset_materializations_for_node("xbrl_facts")
    meta = {k: v.value for k, v in facts_event.metadata.items()}
    assert meta["facts"] == facts.height and meta["conflicts"] == 1
    assert {f"skipped_{r}" for r in SKIP_REASONS} <= set(meta)
    [obs_event] = result.asset_materializations_for_node("metric_observations")
    assert obs_event.metadata["metric_revenue"].value == 2


def test_bad_facts_are_counted_in_the_asset_metadata(data_root, tmp_path):
    folder = tmp_path / "filings"
    folder.mkdir()
    # The fixture is the bare facts of a 10-K; a 10-K with no Item heading at all fails the
    # blocking annual_report_items check, so the copy gets the two items that check requires.
    markup = (FIXTURES / "xbrl" / "bad_facts.htm").read_text(encoding="utf-8")
    items = (
        "<body>\n<p>Item 1A. Risk Factors</p><p>None.</p>"
        "<p>Item 7. Management's Discussion and Analysis</p>"
    )
    (folder / "bad_facts.htm").write_text(markup.replace("<body>", items, 1), encoding="utf-8")
    filing_id, result = _materialize(folder, data_root)
    assert result.success  # bad facts never fail the partition
    [event] = result.asset_materializations_for_node("xbrl_facts")
    meta = {k: v.value for k, v in event.metadata.items()}
    assert (
        meta["skipped_malformed_context"],
        meta["skipped_unknown_unit"],
        meta["skipped_non_numeric_value"],
    ) == (2, 3, 1)
    assert (
        TableStore(data_root).read("xbrl_facts", filing_id).filter(pl.col("is_numeric")).height == 2
    )
