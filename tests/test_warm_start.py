"""The run launcher's fork server imports the project once; a worker re-imports it when the
sources changed since (pipelines/warm_start.py)."""

from __future__ import annotations

import os
import sys
import types

from pipelines import warm_start


def test_the_stamp_changes_with_any_edit_addition_or_removal(tmp_path):
    pkg = tmp_path / "graphrag_core" / "common"
    pkg.mkdir(parents=True)
    (pkg / "ids.py").write_text("A = 1\n")
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "ids.cpython-311.pyc").write_bytes(b"x")
    first = warm_start.source_stamp(tmp_path)
    assert first[0] == 1  # compiled files and caches do not count
    assert warm_start.source_stamp(tmp_path) == first
    (pkg / "ids.py").write_text("A = 22\n")  # same mtime second is possible: size tells
    edited = warm_start.source_stamp(tmp_path)
    assert edited != first
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "new.py").write_text("")
    added = warm_start.source_stamp(tmp_path)
    assert added[0] == 2 and added != edited
    os.remove(tmp_path / "assets" / "new.py")
    assert warm_start.source_stamp(tmp_path)[0] == 1


def test_a_worker_reimports_the_project_only_when_its_sources_changed(monkeypatch):
    fake = types.ModuleType("graphrag_core._warm_probe")
    monkeypatch.setitem(sys.modules, "graphrag_core._warm_probe", fake)
    monkeypatch.setitem(
        sys.modules, "polars_probe_not_ours", types.ModuleType("polars_probe_not_ours")
    )

    now = warm_start.source_stamp()
    settings = warm_start.settings_fingerprint()
    monkeypatch.setattr(warm_start, "WARM_STAMP", (now, settings))
    assert warm_start.refresh_if_changed() is False
    assert "graphrag_core._warm_probe" in sys.modules

    older_tree = (now[0], now[1], now[2] - 1)
    monkeypatch.setattr(warm_start, "WARM_STAMP", (older_tree, settings))
    saved = {n: m for n, m in sys.modules.items() if n.split(".")[0] in warm_start.PROJECT_PACKAGES}
    try:
        assert warm_start.refresh_if_changed() is True
        assert "graphrag_core._warm_probe" not in sys.modules
        assert "polars_probe_not_ours" in sys.modules  # third-party modules stay imported
        assert "pipelines.warm_start" in sys.modules  # the module doing it stays
    finally:
        sys.modules.update(saved)  # the rest of this test process keeps its modules
    # a fork server whose project import failed leaves the worker to import it (and fail) itself
    monkeypatch.setattr(warm_start, "WARM_STAMP", None)
    try:
        assert warm_start.refresh_if_changed() is True
    finally:
        sys.modules.update(saved)


def test_a_worker_given_other_settings_than_the_fork_server_reimports(monkeypatch, tmp_path):
    """The Definitions are built from Settings at import: a worker launched for an ingest with
    another data root than the fork server's environment must not run with the server's."""
    monkeypatch.setenv("GRAPHRAG_DATA", str(tmp_path / "a"))
    stamp = (warm_start.source_stamp(), warm_start.settings_fingerprint())
    monkeypatch.setattr(warm_start, "WARM_STAMP", stamp)
    assert warm_start.refresh_if_changed() is False
    monkeypatch.setenv("GRAPHRAG_DATA", str(tmp_path / "b"))
    saved = {n: m for n, m in sys.modules.items() if n.split(".")[0] in warm_start.PROJECT_PACKAGES}
    try:
        assert warm_start.refresh_if_changed() is True
    finally:
        sys.modules.update(saved)
    # an environment that makes no Settings at all leaves the import to the worker's run
    monkeypatch.setenv("GRAPHRAG_DAGSTER_MAX_CONCURRENT_RUNS", "not a number")
    assert warm_start.settings_fingerprint() is None
