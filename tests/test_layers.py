"""The one-way layers, fenced: graphrag_core ← assets ← pipelines; mcp_server reads the store.

Inside graphrag_core, stage packages import only packages of a lower rank (the asset graph, read
bottom-up) and never a sibling of the same rank; `common` imports no stage. A planted back-arrow
makes `import_violations` report it, so the fence is known to bite.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Top-level layers and what each may not import.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "graphrag_core": ("dagster", "dagster_webserver", "mcp", "assets", "pipelines", "mcp_server"),
    "assets": ("pipelines", "mcp_server"),
    "mcp_server": ("dagster", "polars", "assets", "pipelines"),
}
# mcp_server reaches the core only through the snapshot reader side of the store, Settings, and
# the query side of retrieval (search over a published index, citation checks), which loads no
# Polars (tested in test_mcp_server).
# The project's error classes (graphrag_core.common.errors) are shared by every layer.
MCP_SERVER_MAY_IMPORT = (
    "graphrag_core.store",
    "graphrag_core.settings",
    "graphrag_core.retrieval",
    "graphrag_core.common.errors",
)

# Packages of graphrag_core by rank: a module may import its own package and lower ranks only.
CORE_RANKS: dict[str, int] = {
    "common": 0,
    "settings": 1,
    "tables": 2,
    "store": 2,
    "text": 3,
    "intake": 4,
    "xbrl": 5,
    "extraction": 5,
    "graph": 6,
    "operations": 6,
    "retrieval": 7,
}


def _imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in a file, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((node.lineno, module))
            # `from graphrag_core import xbrl` imports the subpackage, not an attribute.
            out.extend(
                (node.lineno, f"{module}.{a.name}") for a in node.names if module == "graphrag_core"
            )
    return out


def _core_package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "graphrag_core" or len(parts) < 2:
        return None
    return parts[1]


def import_violations(root: Path) -> list[str]:
    """Every import that runs against the layers, as 'file:line imports module (why)'."""
    found = []
    for layer, forbidden in FORBIDDEN.items():
        for path in sorted((root / layer).rglob("*.py")):
            rel = path.relative_to(root)
            for line, module in _imports(path, root):
                where = f"{rel}:{line} imports {module}"
                if any(module == f or module.startswith(f + ".") for f in forbidden):
                    found.append(f"{where} (a {layer} module may not import it)")
                if (
                    layer == "mcp_server"
                    and module.startswith("graphrag_core")
                    and not any(
                        module == m or module.startswith(m + ".") for m in MCP_SERVER_MAY_IMPORT
                    )
                ):
                    found.append(f"{where} (mcp_server reads only the store and Settings)")
                if layer == "graphrag_core":
                    own = rel.parts[1].removesuffix(".py") if len(rel.parts) > 1 else None
                    target = _core_package(module)
                    if own in CORE_RANKS and target in CORE_RANKS and target != own:
                        if CORE_RANKS[target] >= CORE_RANKS[own]:
                            found.append(
                                f"{where} (core package {own} (rank {CORE_RANKS[own]}) may import "
                                f"only lower ranks; {target} is rank {CORE_RANKS[target]})"
                            )
    return found


def test_no_import_runs_against_the_layers():
    assert import_violations(ROOT) == []


def test_every_core_package_has_a_rank():
    """A new stage package must be placed in the order before it can be imported."""
    packages = {
        p.name.removesuffix(".py")
        for p in (ROOT / "graphrag_core").iterdir()
        if (p.is_dir() and (p / "__init__.py").exists())
        or (p.suffix == ".py" and p.name != "__init__.py")
    }
    assert packages <= set(CORE_RANKS), sorted(packages - set(CORE_RANKS))


@pytest.mark.parametrize(
    ("where", "planted", "expected"),
    [
        (
            "graphrag_core/common/planted.py",
            "from graphrag_core.xbrl.facts import fact_id\n",
            "core package common (rank 0) may import only lower ranks",
        ),
        (
            "graphrag_core/xbrl/planted.py",
            "from graphrag_core.extraction.gates import judge\n",
            "core package xbrl (rank 5) may import only lower ranks",
        ),
        (
            "graphrag_core/text/planted.py",
            "import dagster\n",
            "a graphrag_core module may not import it",
        ),
        (
            "assets/planted.py",
            "from pipelines.definitions import defs\n",
            "a assets module may not import it",
        ),
        (
            "mcp_server/planted.py",
            "from graphrag_core.xbrl import metrics\n",
            "mcp_server reads only the store and Settings",
        ),
        ("mcp_server/other.py", "import polars as pl\n", "a mcp_server module may not import it"),
    ],
)
def test_a_planted_back_arrow_is_caught(tmp_path, where, planted, expected):
    for layer in ("graphrag_core", "assets", "pipelines", "mcp_server"):
        (tmp_path / layer).mkdir()
    target = tmp_path / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(planted)
    [violation] = import_violations(tmp_path)
    assert expected in violation and where in violation


def test_core_imports_without_dagster_or_mcp():
    """Every graphrag_core module imports in a fresh interpreter where `dagster` and `mcp`
    cannot be imported at all."""
    probe = textwrap.dedent(
        """
        import importlib, pkgutil, sys

        class Refuse:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("dagster", "mcp", "dagster_webserver"):
                    raise ImportError(f"{name} is not available here")
                return None

        sys.meta_path.insert(0, Refuse())
        import graphrag_core
        count = 0
        for info in pkgutil.walk_packages(graphrag_core.__path__, "graphrag_core."):
            importlib.import_module(info.name)
            count += 1
        print(count)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) > 40


def test_definitions_load():
    """The code location the UI and every run worker load: assets, checks, jobs, sensors."""
    from pipelines.definitions import CORPUS_JOB, PER_FILING_JOB, defs

    keys = {k.to_user_string() for a in defs.assets for k in a.keys}
    assert {
        "raw_filings",
        "section_chunks",
        "xbrl_facts",
        "metric_observations",
        "extractions",
        "validated_triples",
        "graph_snapshot",
    } <= keys
    assert defs.resolve_job_def(PER_FILING_JOB) and defs.resolve_job_def(CORPUS_JOB)
    assert defs.resolve_sensor_def("edgar_sensor")
