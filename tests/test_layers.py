"""The one-way layers, fenced: graphrag_core ← assets ← pipelines; mcp_server reads the store.

Inside graphrag_core, stage packages import only packages of a lower rank (the asset graph, read
bottom-up: `tables` under the `store` that copies them into a snapshot, `retrieval` with the global
search on top) and never a sibling of the same rank; `common` imports no stage. No module imports
another that imports it back, directly or round a loop (`import_circles`). A planted back-arrow
or circle makes the check report it, so the fence is known to bite.
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
# the query side of retrieval (search over a published index, citation checks, the global search
# over community reports), which loads no Polars (tested in test_mcp_server).
# The project's error classes (graphrag_core.common.errors) are shared by every layer.
MCP_SERVER_MAY_IMPORT = (
    "graphrag_core.store",
    "graphrag_core.settings",
    "graphrag_core.retrieval",
    "graphrag_core.common.errors",
)

# Packages of graphrag_core by rank: a module may import its own package and lower ranks only.
# The order is the asset graph's: the working tables' schemas under the snapshot store that copies
# them; the global search (over the published communities) in retrieval, above the graph stage.
CORE_RANKS: dict[str, int] = {
    "common": 0,
    "settings": 1,
    "tables": 2,
    "store": 3,
    "text": 4,
    "intake": 5,
    "xbrl": 6,
    "extraction": 6,
    "graph": 7,
    "operations": 7,
    "retrieval": 8,
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


def _module_names(root: Path) -> dict[str, Path]:
    """Every module of the four layers by dotted name (a package by its own name)."""
    out = {}
    for layer in ("graphrag_core", "mcp_server", "assets", "pipelines"):
        for path in sorted((root / layer).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    """module → the project modules it imports. Every import counts, a late one inside a function
    or one under TYPE_CHECKING included: either way the two modules need each other.
    `from package import name` is an arrow to the submodule when `name` is one."""
    modules = _module_names(root)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
            graph[module].update(t for t in targets if t in modules and t != module)
    return graph


def import_circles(root: Path) -> list[list[str]]:
    """Every set of modules that import each other, directly or round a loop (the strongly
    connected components of the import graph with more than one module), each sorted."""
    graph = import_graph(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    # Tarjan's algorithm, iterative: the import graph is deep enough for Python's recursion.
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return sorted(circles)


def test_no_import_circle():
    """No two modules of graphrag_core, mcp_server, assets or pipelines import each other, even
    round a loop or late: shared types go to a leaf module both import."""
    assert import_circles(ROOT) == []


@pytest.mark.parametrize(
    "planted",
    [
        {  # two modules, one importing the other late, inside a function
            "graphrag_core/xbrl/a.py": "from graphrag_core.xbrl.b import B\n",
            "graphrag_core/xbrl/b.py": "def f():\n    from .a import A\n",
        },
        {  # round a loop of three, across layers, through `from package import module`
            "graphrag_core/store/a.py": "from graphrag_core.store import b\n",
            "graphrag_core/store/b.py": "import assets.c\n",
            "assets/c.py": "from graphrag_core.store.a import A\n",
        },
    ],
)
def test_a_planted_circle_is_caught(tmp_path, planted):
    for layer in ("graphrag_core", "assets", "pipelines", "mcp_server"):
        (tmp_path / layer).mkdir()
        (tmp_path / layer / "__init__.py").write_text("")
    (tmp_path / "graphrag_core" / "other.py").write_text("import graphrag_core.xbrl\n")
    for where, text in planted.items():
        target = tmp_path / where
        target.parent.mkdir(parents=True, exist_ok=True)
        (target.parent / "__init__.py").touch()
        target.write_text(text)
    modules = {w.removesuffix(".py").replace("/", ".") for w in planted}
    assert import_circles(tmp_path) == [sorted(modules)]


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
            "core package xbrl (rank 6) may import only lower ranks",
        ),
        (
            "graphrag_core/tables/planted.py",
            "from graphrag_core.store.layout import snapshots_root\n",
            "core package tables (rank 2) may import only lower ranks",
        ),
        (
            "graphrag_core/store/planted.py",
            "from graphrag_core.retrieval.global_search import community_themes\n",
            "core package store (rank 3) may import only lower ranks",
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
