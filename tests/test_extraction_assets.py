"""The extraction assets through the real Dagster instance: rules by default, the `openai`
backend when EXTRACTOR_BASE_URL/EXTRACTOR_MODEL are set (against the loopback server), no model
call on re-materialization, and the rejection-rate check failing on a regressed extractor."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from graphrag_core.settings import ExtractionSettings, Settings
from graphrag_core.tables.table_store import TableStore
from tests.openai_server import OpenAICompatibleServer, Reply, passage_of

pytestmark = pytest.mark.corpus

KO_10K = "KO/10-K/ko-10-k-2025-02-20.htm"
CAPEX = "We currently expect 2025 capital expenditures to be approximately $2.2 billion."


@pytest.fixture
def inbox(tmp_path: Path, corpus_dir: Path, monkeypatch) -> Path:
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused_home"))
    folder = tmp_path / "inbox"
    folder.mkdir()
    shutil.copy(corpus_dir / "filings" / KO_10K, folder)
    return folder


def test_definitions_register_the_extraction_assets_and_check(tmp_path: Path):
    from pipelines.definitions import build_definitions, per_filing_asset_keys

    defs = build_definitions(Settings(data_root=tmp_path / "data"))
    dg.Definitions.validate_loadable(defs)
    keys = {k.to_user_string() for k in per_filing_asset_keys(defs)}
    assert {"extractions", "validated_triples"} <= keys
    graph = defs.resolve_asset_graph()
    check = dg.AssetCheckKey(dg.AssetKey("validated_triples"), "rejection_rate")
    assert check in graph.asset_check_keys
    assert defs.resources["extractor"].resolved_backend() == "rules"


def test_rules_and_learned_backend_by_default(inbox: Path, tmp_path: Path):
    """With no model endpoint the rules run, with the learned relation classifier beside them
    (EXTRACTOR_LEARNED defaults on); the rules' own triples are unchanged by it."""
    from pipelines.ingest import ingest

    settings = Settings(data_root=tmp_path / "data", corpus=inbox)
    report = ingest(settings)
    assert [o.success for o in report.outcomes] == [True], report.outcomes
    store = TableStore(settings.data_root)
    [fid] = store.partitions("validated_triples")
    extractions = store.read("extractions", fid)
    assert set(extractions["backend"]) == {"rules+learned"}
    validated = store.read("validated_triples", fid)
    guides = validated.filter(
        (pl.col("relation") == "GUIDES") & (pl.col("object") == "capital expenditures")
    )
    assert guides["value"].to_list() == [2.2e9]


def _capex_reply(body: dict) -> Reply:
    passage = passage_of(body)
    if CAPEX not in passage:
        return Reply('{"triples": []}')
    company = body["messages"][1]["content"].split("\n", 1)[0].removeprefix("Filer: ")
    return Reply(
        json.dumps(
            {
                "triples": [
                    {
                        "subject": company,
                        "relation": "GUIDES",
                        "object": "capital expenditures",
                        "value": 2200000000,
                        "unit": "USD",
                        "period": "FY2025",
                        "evidence": CAPEX,
                    }
                ]
            }
        )
    )


def test_openai_backend_when_configured_and_no_call_on_rematerialization(
    inbox: Path, tmp_path: Path
):
    from pipelines.ingest import ingest

    with OpenAICompatibleServer(_capex_reply) as server:
        extraction = ExtractionSettings(
            base_url=server.base_url, model="scripted-model", timeout_s=10
        )
        settings = Settings(data_root=tmp_path / "data", corpus=inbox, extraction=extraction)
        report = ingest(settings)
        assert [o.success for o in report.outcomes] == [True], report.outcomes
        calls = len(server.requests)
        store = TableStore(settings.data_root)
        [fid] = store.partitions("extractions")
        first = store.read("extractions", fid)
        assert set(first["backend"]) == {"openai"} and calls == first.height > 50
        again = ingest(settings, force=True)
        assert [o.success for o in again.outcomes] == [True]
        assert len(server.requests) == calls  # every reply came from the cache
    second = store.read("extractions", fid)
    assert second["cached"].all() and (second["attempts"] == 0).all()
    validated = store.read("validated_triples", fid)
    accepted = validated.filter(pl.col("status") == "accepted")
    assert accepted.select("relation", "object", "value", "period").rows() == [
        ("GUIDES", "capital expenditures", 2.2e9, "FY2025")
    ]


def _invent(body: dict) -> Reply:
    """A regressed model: a quote nobody wrote, on every chunk."""
    return Reply(
        json.dumps(
            {
                "triples": [
                    {
                        "subject": "Example",
                        "relation": "SUPPLIES",
                        "object": "Coca-Cola",
                        "value": None,
                        "unit": None,
                        "period": None,
                        "evidence": "We buy all of our syrup from Example Corp.",
                    }
                ]
            }
        )
    )


def test_rejection_rate_check_fails_when_the_extractor_regresses(inbox: Path, tmp_path: Path):
    from assets.partitions import FILINGS_PARTITION_SET
    from graphrag_core.intake.catalog import FilingCatalog
    from graphrag_core.intake.local_folder import LocalFolderSource
    from pipelines.definitions import PER_FILING_JOB, build_definitions
    from pipelines.instance import get_instance

    with OpenAICompatibleServer(_invent) as server:
        extraction = ExtractionSettings(
            base_url=server.base_url, model="regressed", rejection_rate_threshold=0.2
        )
        settings = Settings(data_root=tmp_path / "data", corpus=inbox, extraction=extraction)
        [ref] = LocalFolderSource(inbox).discover()
        FilingCatalog(settings.data_root).put(ref)
        instance = get_instance(settings.data_root)
        instance.add_dynamic_partitions(FILINGS_PARTITION_SET, [ref.filing_id])
        job = build_definitions(settings).resolve_job_def(PER_FILING_JOB)
        result = job.execute_in_process(
            partition_key=ref.filing_id, instance=instance, raise_on_error=False
        )
    # The check is blocking: the filing's run fails, so the regression cannot go unnoticed.
    assert not result.success
    [evaluation] = [
        e for e in result.get_asset_check_evaluations() if e.check_name == "rejection_rate"
    ]
    assert not evaluation.passed
    metadata = evaluation.metadata
    assert metadata["rejection_rate"].value == 1.0
    assert metadata["rejected_by_reason"].value == {
        "evidence_not_in_chunk": metadata["candidates"].value
    }
    # ingest's report names the failed check and its figures, not a generic failure
    from assets.run_failures import failure_message

    message = failure_message(result.all_events)
    assert "validated_triples/rejection_rate failed" in message and "rejection_rate=1.0" in message


def test_a_failed_blocking_check_stops_the_publish_and_status_says_why(
    inbox: Path, tmp_path: Path, capsys
):
    """A filing whose blocking check fails is left out; when it is the only filing nothing is
    left to publish, LATEST stays on the last good snapshot, and `filings-graph status` names
    the check with its figures and the fix."""
    from graphrag_core.store.publish import SnapshotStore
    from pipelines.cli import main
    from pipelines.ingest import ingest

    data = tmp_path / "data"
    good = ingest(Settings(data_root=data, corpus=inbox))
    assert good.corpus_success, good.corpus_error
    # The daemon that ingest started is gone, and the next ingest must not take its recent
    # heartbeat for a live daemon (its runs would wait in the queue for 75 s).
    from pipelines.instance import get_instance
    from pipelines.run_queue import daemon_alive

    assert not daemon_alive(get_instance(data))
    snapshots = SnapshotStore(data)
    published = snapshots.current_version()
    assert published is not None

    with OpenAICompatibleServer(_invent) as server:
        extraction = ExtractionSettings(
            base_url=server.base_url, model="regressed", rejection_rate_threshold=0.2
        )
        report = ingest(Settings(data_root=data, corpus=inbox, extraction=extraction), force=True)
    assert [o.success for o in report.outcomes] == [False]
    assert report.corpus_success is False
    assert "publish blocked" in report.corpus_error and "rejection_rate=1.0" in report.corpus_error
    assert snapshots.current_version() == published and snapshots.versions() == [published]

    assert main(["--data", str(data), "status"]) == 0
    out = capsys.readouterr().out
    assert f"snapshot: {published}" in out
    # Its only filing left out, nothing is left to publish: the snapshot above stays current.
    assert "LEFT OUT of the snapshot: 1 filing(s) failed their own checks" in out
    assert "snapshot above stays current" in out
    [line] = [
        line for line in out.splitlines() if "validated_triples/rejection_rate failed" in line
    ]
    assert "rejection_rate=1.0" in line and "threshold=0.2" in line
    # The fix names the backend and the re-run that gets past the check once it is fixed.
    [fix] = [line for line in out.splitlines() if line.strip().startswith("fix:")]
    assert "GRAPHRAG_EXTRACTION_" in fix and "--force" in fix and "filings-graph remove" in fix

    # The extractor fixed (back to the rules), the filing passes again and the publish goes on;
    # its tables are again those of the published snapshot, so no new version is made.
    fixed = ingest(Settings(data_root=data, corpus=inbox), force=True)
    assert fixed.corpus_success, fixed.corpus_error
    assert snapshots.versions() == [published]
    assert main(["--data", str(data), "status"]) == 0
    out = capsys.readouterr().out
    assert "BLOCKED" not in out and "LEFT OUT" not in out
    # the triple summary shows the relation mix: Coca-Cola's competitors, guidance, risk factors
    [mix] = [line for line in out.splitlines() if "relation mix (mentions):" in line]
    assert all(r in mix for r in ("COMPETES_WITH", "GUIDES", "EXPOSED_TO_RISK")), mix
    assert any(
        line.strip().startswith("rewritten by the gates:") and "guidance:" in line
        for line in out.splitlines()
    )
