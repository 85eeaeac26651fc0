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
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dagster_webserver",
            "-w",
            str(ROOT / "workspace.yaml"),
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
        ],
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
        assert {
            "xbrl_facts",
            "metric_observations",
            "extractions",
            "validated_triples",
            "graph_snapshot",
        } <= set(by_key)

        def checks(asset: str) -> dict[str, bool]:
            found = by_key[asset]["assetChecksOrError"].get("checks") or []
            return {c["name"]: c["blocking"] for c in found}

        assert checks("validated_triples") == {"rejection_rate": True}
        assert set(checks("section_chunks")) == {
            "spans_match_text",
            "required_items_found",
            "annual_report_items",
        }
        assert checks("xbrl_facts") == {"inline_xbrl_yields_facts": True}
        assert checks("metric_observations") == {"companyfacts_agree": False}
        assert {"edges_have_evidence", "snapshot_fresh"} <= set(checks("graph_snapshot"))
        assert "current_snapshot_opens" in checks("graph_snapshot")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
GROUPS = {
    "intake": ["raw_filings"],
    "text": ["section_chunks"],
    "xbrl": ["xbrl_facts", "metric_observations"],
    "extraction": ["extractions", "validated_triples"],
    "serving": ["graph_snapshot", "ingestion_report"],
}
AUTOMATIONS = [
    "edgar_sensor",
    "local_inbox",
    "publish_after_removal",
    "follow_upstream_partitions",
    "nightly_snapshot",
    "snapshot_freshness",
]


def _dismiss_overlays(page, shots: Path, attempts: int = 6) -> None:
    """Close whatever dialog covers the page (a first-visit notice, a loading dialog) the way a
    user would: Escape, else the dialog's own close or dismiss button. The first one seen is
    saved as overlay.png."""
    backdrop = page.locator(".bp5-overlay-backdrop")
    for attempt in range(attempts):
        if not backdrop.count():
            return
        if attempt == 0:
            page.screenshot(path=str(shots / "overlay.png"))
        page.keyboard.press("Escape")
        buttons = page.locator(
            ".bp5-dialog-close-button, .bp5-dialog button:has-text('Skip'), "
            ".bp5-dialog button:has-text('Close'), .bp5-dialog button:has-text('Dismiss'), "
            ".bp5-dialog button:has-text('Done'), .bp5-dialog button:has-text('Cancel')"
        )
        if buttons.count():
            try:
                buttons.first.click(timeout=5_000)
            except Exception:  # noqa: BLE001 - it closed meanwhile (the Skip handler); look again
                pass
        try:
            backdrop.first.wait_for(state="detached", timeout=10_000)
        except Exception:  # noqa: BLE001 - try the next way out
            continue
    assert not backdrop.count(), "a dialog stays over the page (see overlay.png)"


def _click_past_overlays(page, target, shots: Path, attempts: int = 4) -> None:
    """Click `target`; a dialog that opens over it in the meantime is closed and the click
    tried again (a click the dialog intercepts only times out)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(attempts):
        try:
            target.click(timeout=20_000)
            return
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise
            _dismiss_overlays(page, shots)


@pytest.mark.slow
def test_the_ui_as_a_user_sees_it(tmp_path, corpus_dir, monkeypatch):
    """`dagster dev` on a free loopback port, opened in headless Chromium: the asset graph shows
    every asset, the sensors and schedules are listed, the latest ingestion report renders.
    Screenshots are saved in the test's folder (tmp_path/screenshots)."""
    from playwright.sync_api import sync_playwright

    from pipelines.ingest import ingest
    from pipelines.run_queue import run_environment, stop_process

    if not CHROMIUM.exists():
        message = "Debian's chromium is not installed (`make install` installs it)"
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(message)
        pytest.skip(message)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(corpus_dir / "filings/ORCL/8-K/Oracle.8-K.htm", inbox)
    shutil.copy(corpus_dir / "filings/BLK/8-K/form8K.Blackrock.htm", inbox)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))
    settings = Settings(data_root=tmp_path / "data", corpus=inbox)
    report = ingest(settings)
    assert report.corpus_success, report.corpus_error

    port = _free_port()
    env = {**run_environment(settings), "DAGSTER_HOME": str(settings.data_root / "dagster_home")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dagster",
            "dev",
            "-w",
            str(ROOT / "workspace.yaml"),
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "dev.log").open("wb"),
        start_new_session=True,
    )
    shots = tmp_path / "screenshots"
    shots.mkdir()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{base}/server_info", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"dagster dev did not come up: {(tmp_path / 'dev.log').read_text()[-3000:]}"
                )
            time.sleep(1)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.set_default_timeout(60_000)
            # Dagster's first-visit newsletter dialog opens on a loopback origin a second or more
            # after its query answers, so under load it can cover any later page; skip it
            # whenever it shows, the way a user would, before any action it would block.
            skip = page.get_by_role("button", name="Skip")
            page.add_locator_handler(skip, lambda: skip.first.click())

            # the global asset graph (one node per group), then each group's graph: every
            # asset is a node of it
            page.goto(f"{base}/asset-groups")
            for group in GROUPS:
                page.get_by_text(group, exact=True).first.wait_for()
            page.screenshot(path=str(shots / "asset_graph.png"))
            for group, assets in GROUPS.items():
                page.goto(f"{base}/locations/filings_graphrag/asset-groups/{group}/lineage")
                for asset in assets:
                    page.get_by_text(asset, exact=True).first.wait_for()
                page.screenshot(path=str(shots / f"asset_graph_{group}.png"))

            # sensors and schedules, each with its on/off toggle
            page.goto(f"{base}/automation")
            for name in AUTOMATIONS:
                page.get_by_text(name, exact=True).first.wait_for()
            # a row's select box, plus its on/off switch once its state has loaded
            # (counted through a locator: a string predicate is eval'd in the page, which the
            # webserver's Content-Security-Policy may refuse)
            toggles = page.locator("input[type=checkbox]")
            deadline = time.monotonic() + 60
            while toggles.count() < 2 * len(AUTOMATIONS) + 1:
                assert time.monotonic() < deadline, f"{toggles.count()} toggles on /automation"
                time.sleep(0.25)
            page.screenshot(path=str(shots / "automation.png"))

            # the latest ingestion report: its figures, its Markdown table, its chart
            page.goto(f"{base}/assets/ingestion_report")
            page.get_by_text("filings_processed").first.wait_for()
            page.get_by_text("filings processed", exact=True).first.wait_for()  # the table's cell
            page.screenshot(path=str(shots / "ingestion_report.png"))
            # Under load the UI may still hold another overlay (a loading or notice dialog) over
            # the page; close it the way a user would and click again.
            _click_past_overlays(page, page.get_by_text("[Show Markdown]").first, shots)
            chart = page.locator("img[alt='rejection rate per run']").first
            chart.wait_for()
            assert chart.evaluate("img => img.complete && img.naturalWidth") > 0
            page.screenshot(path=str(shots / "ingestion_report_chart.png"))
            browser.close()
    finally:
        stop_process(proc)
    saved = {p.name for p in shots.iterdir()}
    assert {
        "asset_graph.png",
        "automation.png",
        "ingestion_report.png",
        "ingestion_report_chart.png",
    } <= saved
