"""Dagster's private modules are reached through one fence, pipelines/dagster_private.py,
read against one Dagster release: a different release fails here until someone has read the
fence against it, and no other module may import `dagster._*` or name such a module."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import dagster as dg
import pytest

from pipelines import dagster_private

ROOT = Path(__file__).resolve().parent.parent
FENCE = Path("pipelines/dagster_private.py")
# This file names private modules in its planted examples; the fence is the one allowed door.
ALLOWED = {FENCE, Path("tests/test_dagster_private.py")}
PACKAGES = ("graphrag_core", "assets", "pipelines", "mcp_server", "analyst", "tests", "bench")
PRIVATE = "dagster" + "._"


def private_references(root: Path) -> list[str]:
    """Every import of a `dagster._*` module, and every string naming one (a preload list, an
    importlib call), outside the fence: 'file:line what'."""
    found = []
    paths = (p for package in PACKAGES for p in (root / package).rglob("*.py"))
    for path in sorted(paths):
        rel = path.relative_to(root)
        if rel in ALLOWED:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names = [node.value]
            else:
                continue
            found.extend(f"{rel}:{node.lineno} {n}" for n in names if n.startswith(PRIVATE))
    return found


def test_written_against_the_installed_dagster():
    assert dg.__version__ == dagster_private.WRITTEN_AGAINST, (
        f"Dagster {dg.__version__} is installed; pipelines/dagster_private.py was read against "
        f"{dagster_private.WRITTEN_AGAINST}. Check each private name there against the new "
        "release (the run queue, run launcher and dask executor tests exercise them), then "
        "move WRITTEN_AGAINST."
    )


def test_no_other_module_reaches_a_private_dagster_module():
    assert private_references(ROOT) == []


@pytest.mark.parametrize(
    "planted",
    [
        f"from {PRIVATE}core.launcher import RunLauncher\n",
        f"import {PRIVATE}cli.api\n",
        f'PRELOAD = ("{PRIVATE}core.instance.factory",)\n',
    ],
)
def test_a_planted_private_import_is_caught(tmp_path, planted):
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "planted.py").write_text(planted)
    (tmp_path / "assets" / "clean.py").write_text(
        "import dagster as dg\nfrom dagster import asset\n"
    )
    [found] = private_references(tmp_path)
    assert found.startswith("assets/planted.py:1 dagster._")


@pytest.mark.parametrize("name", sorted(dagster_private.PRIVATE_NAMES))
def test_every_fenced_name_resolves(name):
    module, attribute = dagster_private.PRIVATE_NAMES[name]
    assert getattr(dagster_private, name) is getattr(importlib.import_module(module), attribute)


def test_every_fenced_module_name_imports():
    for module in (*dagster_private.RUN_API_MODULES, *dagster_private.INSTANCE_OPEN_MODULES):
        assert importlib.import_module(module).__name__ == module


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'RunCoordinator'"):
        dagster_private.RunCoordinator  # noqa: B018


def test_the_type_checkers_names_are_the_fenced_names():
    """The TYPE_CHECKING block (what mypy sees) imports exactly PRIVATE_NAMES, and __all__
    (what ruff reads to know they are exported) names them."""
    tree = ast.parse((ROOT / FENCE).read_text(encoding="utf-8"))
    [block] = [
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    ]
    seen = {
        (alias.asname or alias.name): (node.module, alias.name)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert seen == dagster_private.PRIVATE_NAMES
    constants = {"WRITTEN_AGAINST", "PRIVATE_NAMES", "RUN_API_MODULES", "INSTANCE_OPEN_MODULES"}
    assert set(dagster_private.__all__) == set(seen) | constants


def test_finished_statuses_are_dagsters():
    """The report's runs query spells the finished statuses with the public enum; they must be
    exactly those for which Dagster's own DagsterRun.is_finished holds."""
    from assets.report import FINISHED_STATUSES

    # A QUEUED run cannot be built without a code location origin; it is not finished either.
    assert dg.DagsterRunStatus.QUEUED not in FINISHED_STATUSES
    for status in set(dg.DagsterRunStatus) - {dg.DagsterRunStatus.QUEUED}:
        run = dg.DagsterRun(job_name="job", run_id="run", status=status)
        assert (status in FINISHED_STATUSES) == run.is_finished, status


def test_opening_the_launcher_leaves_the_run_queue_modules_unimported():
    """What the fence resolves lazily: a process that loads the run launcher (every process
    that opens the instance) does not import the daemon and workspace modules."""
    probe = textwrap.dedent(
        """
        import sys
        import pipelines.run_launcher
        print(sorted(m for m in sys.modules if m.startswith("dagster._daemon.run_coordinator")))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
