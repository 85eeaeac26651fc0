"""The Dagster UI serves the project's assets, their filing partitions and their asset checks
(what `make dev` shows), checked over the webserver's real GraphQL endpoint."""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from graphrag_core.settings import Settings
from tests.conftest import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_webserver_lists_assets_and_partitions(tmp_path, corpus_dir, monkeypatch):
    from pipelines.ingest import ingest

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(corpus_dir / "filings/ORCL/8-K/Oracle.8-K.htm", inbox)
    shutil.copy(corpus_dir / "filings/BLK/8-K/form8K.Blackrock.htm", inbox)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))
    settings = Settings(data_root=tmp_path / "data", corpus=inbox)
    report = ingest(settings)
    assert all(o.success for o in report.outcomes)

    port = _free_port()
    env = {
        **os.environ,
        "DAGSTER_HOME": str(settings.data_root / "dagster_home"),
        "GRAPHRAG_DATA": str(settings.data_root),
        "FILINGS_CORPUS": str(inbox),
    }
    exe = shutil.which("dagster-webserver", path=str(Path(sys.executable).parent))
    proc = subprocess.Popen(
        [exe, "-w", str(ROOT / "workspace.yaml"), "-h", "127.0.0.1", "-p", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        url = f"http://127.0.0.1:{port}/graphql"
        query = (
            "{ assetNodes { assetKey { path } groupName partitionKeys "
            "assetChecksOrError { ... on AssetChecks { checks { name blocking } } } } }"
        )
        deadline = time.monotonic() + 120
        nodes = None
        while time.monotonic() < deadline:
            try:
                response = httpx.post(url, json={"query": query}, timeout=10)
                data = response.json().get("data") or {}
                if data.get("assetNodes"):
                    nodes = data["assetNodes"]
                    break
            except (httpx.HTTPError, ValueError):
                pass
            if proc.poll() is not None:
                pytest.fail(f"dagster-webserver exited: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(1)
        assert nodes, "the webserver never listed the assets"
        by_key = {"/".join(n["assetKey"]["path"]): n for n in nodes}
        assert {"raw_filings", "section_chunks"} <= set(by_key)
        expected = {o.filing_id for o in report.outcomes}
        assert set(by_key["section_chunks"]["partitionKeys"]) == expected
        assert set(by_key["raw_filings"]["partitionKeys"]) == expected
        # every stage so far is there, and the checks show next to the assets they guard
        assert {"xbrl_facts", "metric_observations", "extractions", "validated_triples", "graph_snapshot"} <= set(by_key)

        def checks(asset: str) -> dict[str, bool]:
            found = by_key[asset]["assetChecksOrError"].get("checks") or []
            return {c["name"]: c["blocking"] for c in found}

        assert checks("validated_triples") == {"rejection_rate": True}
        assert set(checks("section_chunks")) == {"spans_match_text", "required_items_found"}
        assert "current_snapshot_opens" in checks("graph_snapshot")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
