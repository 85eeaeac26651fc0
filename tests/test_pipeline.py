"""The Dagster layer: Definitions load, the core stands alone, one bad filing fails only its
own partition on the real instance, the sensor registers partitions, the CLI's messages."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from graphrag_core.settings import Settings
from graphrag_core.tables.table_store import TableStore
from tests.conftest import FIXTURES, ROOT


def test_definitions_load():
    from pipelines.definitions import PER_FILING_JOB, build_definitions, per_filing_asset_keys

    defs = build_definitions(Settings(data_root=Path("/tmp/unused")))
    dg.Definitions.validate_loadable(defs)
    keys = {k.to_user_string() for k in per_filing_asset_keys(defs)}
    assert {"raw_filings", "section_chunks"} <= keys
    assert defs.resolve_job_def(PER_FILING_JOB) is not None
    for name in (
        "edgar_sensor",
        "local_inbox",
        "publish_after_removal",
        "follow_upstream_partitions",
    ):
        assert defs.resolve_sensor_def(name) is not None
    for name in ("nightly_snapshot", "snapshot_freshness"):
        assert defs.resolve_schedule_def(name) is not None


def test_core_imports_without_dagster():
    script = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "dagster" or name.startswith("dagster."):
                    raise ImportError("dagster is blocked in this test")
        sys.meta_path.insert(0, Block())
        import graphrag_core
        for mod in pkgutil.walk_packages(graphrag_core.__path__, "graphrag_core."):
            importlib.import_module(mod.name)
        assert not any(m == "dagster" or m.startswith("dagster.") for m in sys.modules)
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def _bad_corpus(folder: Path, corpus_dir: Path) -> dict[str, str]:
    """A folder with good and bad documents (no manifest: metadata from the documents)."""
    folder.mkdir()
    good_8k = corpus_dir / "filings/BLK/8-K/form8K.Blackrock.htm"
    files = {
        "good_8k.htm": good_8k.read_bytes(),
        "transcript.txt": (FIXTURES / "transcripts/northwind_q2_fy2026.txt").read_bytes(),
        "empty.htm": b"",
        "picture.htm": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8,
        "latin1.htm": "<html><body><p>FORM 8-K</p><p>Item 8.01 Other "
        "Events</p><p>Soci\u00e9t\u00e9 "
        "G\u00e9n\u00e9rale agreed.</p></body></html>".encode("cp1252"),
        "truncated.htm": good_8k.read_bytes()[: len(good_8k.read_bytes()) // 2],
        "no_items.htm": b"<html><body><p>FORM 10-K</p><p>To our shareholders: it was a good "
        b"year.</p></body></html>",
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return {name: data for name, data in files.items()}


@pytest.fixture
def isolated_instance(monkeypatch, tmp_path):
    """Run against a real instance under tmp; restore DAGSTER_HOME afterwards."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused_home"))
    return tmp_path


def test_one_bad_filing_fails_only_its_own_partition(corpus_dir, isolated_instance):
    from graphrag_core.common.ids import sha256_bytes, sha_filing_id
    from pipelines.ingest import ingest

    tmp = isolated_instance
    files = _bad_corpus(tmp / "inbox", corpus_dir)
    ids = {name: sha_filing_id(sha256_bytes(data)) for name, data in files.items()}
    settings = Settings(data_root=tmp / "data", corpus=tmp / "inbox")
    report = ingest(settings)
    outcome = {o.filing_id: o for o in report.outcomes}
    assert len(outcome) == len(files)
    failed = {name for name, fid in ids.items() if not outcome[fid].success}
    # a 10-K with no Item heading at all fails its blocking annual_report_items check
    assert failed == {"empty.htm", "picture.htm", "no_items.htm"}
    assert "annual_report_items failed" in outcome[ids["no_items.htm"]].error
    assert (
        "empty" in outcome[ids["empty.htm"]].error
        and "empty.htm" in outcome[ids["empty.htm"]].error
    )
    assert "PNG" in outcome[ids["picture.htm"]].error

    store = TableStore(settings.data_root)
    filings = store.scan("raw_filings").collect()
    by_id = {r["filing_id"]: r for r in filings.iter_rows(named=True)}
    assert any("decoded as windows-1252" in w for w in by_id[ids["latin1.htm"]]["warnings"])
    assert any("truncated" in w for w in by_id[ids["truncated.htm"]]["warnings"])
    assert by_id[ids["transcript.txt"]]["form"] == "TRANSCRIPT"
    chunks = store.scan("section_chunks").collect()
    sections = chunks.group_by("filing_id").agg(pl.col("section").unique())
    sec = {r["filing_id"]: set(r["section"]) for r in sections.iter_rows(named=True)}
    assert sec[ids["no_items.htm"]] == {"10-K/Document"}
    assert "8-K/Item 8.01" in sec[ids["latin1.htm"]]
    assert {"transcript/qa", "transcript/prepared_remarks"} <= sec[ids["transcript.txt"]]
    assert "8-K/Item 5.02" in sec[ids["good_8k.htm"]]

    # the failures are recorded on the real instance; a re-run retries only them
    instance = dg.DagsterInstance.get()
    assert Path(os.environ["DAGSTER_HOME"]) == settings.data_root / "dagster_home"
    done = instance.get_materialized_partitions(dg.AssetKey("section_chunks"))
    assert done == {fid for name, fid in ids.items() if name not in {"empty.htm", "picture.htm"}}
    again = ingest(settings)
    assert {o.filing_id for o in again.outcomes} == {ids[n] for n in failed}


def _sixty_mb_ten_k(path: Path) -> None:
    para = (
        "<p>"
        + "Our results depend on demand for our products and on our suppliers. " * 12
        + "</p>\n"
    )
    items = [
        "1. Business",
        "1A. Risk Factors",
        "7. Management's Discussion and Analysis",
        "8. Financial Statements",
    ]
    per_item = 60_000_000 // len(para) // len(items) + 1
    with path.open("w") as fh:
        fh.write("<html><body><p>FORM 10-K</p>\n")
        for item in items:
            fh.write(f"<p>Item {item}</p>\n")
            fh.write(para * per_item)
        fh.write("</body></html>\n")


@pytest.mark.slow
def test_sixty_megabyte_document(isolated_instance, monkeypatch):
    from pipelines.ingest import ingest

    tmp = isolated_instance
    inbox = tmp / "inbox"
    inbox.mkdir()
    _sixty_mb_ten_k(inbox / "huge.htm")
    assert (inbox / "huge.htm").stat().st_size > 60_000_000
    settings = Settings(data_root=tmp / "data", corpus=inbox)
    report = ingest(settings)
    assert [o.success for o in report.outcomes] == [True]
    row = TableStore(settings.data_root).scan("raw_filings").collect().row(0, named=True)
    assert any("large document" in w for w in row["warnings"])
    chunks = TableStore(settings.data_root).scan("section_chunks").collect()
    assert set(chunks["section"]) == {
        "10-K/Cover",
        "10-K/Item 1",
        "10-K/Item 1A",
        "10-K/Item 7",
        "10-K/Item 8",
    }
    # with a lower limit the same document is refused with the setting to change
    monkeypatch.setenv("GRAPHRAG_MAX_DOCUMENT_MB", "50")
    refused = ingest(Settings(data_root=tmp / "data2", corpus=inbox))
    assert [o.success for o in refused.outcomes] == [False]
    assert (
        "GRAPHRAG_MAX_DOCUMENT_MB" in refused.outcomes[0].error
        and "60." in refused.outcomes[0].error
    )


def test_sensor_registers_new_filings_then_skips(corpus_dir, tmp_path):
    from graphrag_core.settings import OperationsSettings
    from pipelines.definitions import build_definitions

    # the corpus folder (with its manifest) as the inbox the local_inbox sensor watches
    settings = Settings(
        data_root=tmp_path / "data", corpus=None, operations=OperationsSettings(inbox=corpus_dir)
    )
    defs = build_definitions(settings)
    sensor = defs.resolve_sensor_def("local_inbox")
    with dg.instance_for_test() as instance:
        context = dg.build_sensor_context(instance=instance, resources=defs.resources)
        result = sensor(context)
        assert isinstance(result, dg.SensorResult)
        assert len(result.run_requests) == 60
        assert result.dynamic_partitions_requests[0].partition_keys.__len__() == 60
        assert "0001045810-25-000023" in {r.partition_key for r in result.run_requests}
        again = sensor(
            dg.build_sensor_context(
                instance=instance, resources=defs.resources, cursor=result.cursor
            )
        )
        assert isinstance(again, dg.SensorResult) and not again.run_requests


def test_cli_without_a_source_says_how_to_configure_one(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"FILINGS_CORPUS", "EDGAR_IDENTITY"}}
    env["GRAPHRAG_DATA"] = str(tmp_path / "data")
    cli = shutil.which("filings-graph", path=str(Path(sys.executable).parent))
    out = subprocess.run([cli, "ingest"], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2
    assert "EDGAR_IDENTITY" in out.stderr and "FILINGS_CORPUS" in out.stderr


def test_cli_ingest_and_status_on_a_small_folder(tmp_path, corpus_dir):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(corpus_dir / "filings/ORCL/8-K/Oracle.8-K.htm", inbox)
    env = {**os.environ, "GRAPHRAG_DATA": str(tmp_path / "data"), "FILINGS_CORPUS": str(inbox)}
    cli = shutil.which("filings-graph", path=str(Path(sys.executable).parent))
    out = subprocess.run([cli, "ingest"], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ran 1 partitions, 0 failed" in out.stdout
    status = subprocess.run([cli, "status"], env=env, capture_output=True, text=True)
    assert status.returncode == 0, status.stderr
    assert "filings: 1" in status.stdout and "ORACLE CORP" in status.stdout
    assert "section_chunks" in status.stdout and "1 partitions materialized" in status.stdout


def test_ingest_without_publishing_leaves_the_graph_and_snapshot_for_later(tmp_path, corpus_dir):
    """`ingest --no-publish`: the filing's tables are there, no corpus run happened (no graph
    store, no snapshot); the next ingest publishes with nothing left to run per filing."""
    from graphrag_core.settings import Settings
    from graphrag_core.store.publish import SnapshotStore
    from pipelines.ingest import ingest

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(corpus_dir / "filings/ORCL/8-K/Oracle.8-K.htm", inbox)
    settings = Settings(data_root=tmp_path / "data", corpus=inbox)
    report = ingest(settings, serial=True, publish=False)
    assert len(report.outcomes) == 1 and not report.failed
    assert report.corpus_success is None and report.corpus_seconds == 0.0
    assert SnapshotStore(settings.data_root).current_version() is None
    assert not (settings.data_root / "graph").exists()
    later = ingest(settings, serial=True)
    assert later.outcomes == [] and later.corpus_success, later.corpus_error
    assert SnapshotStore(settings.data_root).current_version() is not None
