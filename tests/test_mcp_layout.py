"""The MCP server's layout (issue 26 item 2): tool families that import one another in one
direction only, modules a reader can hold (800 lines at most), and no reaching into another
module's private names. Every import counts, a late one inside a function or one under
TYPE_CHECKING too: those are how a circle used to be hidden."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 800


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module → the modules of `package` it imports (`from pkg import mod` names the module)."""
    paths = {module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        targets: set[str] = set()
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = name.split(".") if is_package else name.split(".")[:-1]
                    here = here[: len(here) - node.level + 1]
                    base = ".".join([*here, *([node.module] if node.module else [])])
                # `from pkg import mod` imports the module pkg.mod; `from pkg import name`, pkg.
                for a in node.names:
                    targets.add(f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def private_reaches(root: Path, package: str) -> list[str]:
    """`other._name` where `other` is not self or cls: a module using another's private part."""
    found = []
    for path in sorted((root / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                found.append(f"{path.relative_to(root)}:{node.lineno} .{node.attr}")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package):
                found.extend(
                    f"{path.relative_to(root)}:{node.lineno} imports {a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                )
    return found


def test_no_import_circle_in_the_server():
    assert circles(import_graph(ROOT, "mcp_server")) == []


def test_no_server_module_over_800_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "mcp_server").rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


@pytest.mark.parametrize("package", ["mcp_server", "assets"])
def test_no_module_uses_another_ones_private_names(package):
    """The server's modules and the asset wrappers share only public names (an asset once
    imported another asset module's private run-mode check)."""
    assert private_reaches(ROOT, package) == []


def test_the_checks_bite(tmp_path):
    """A planted circle (through a late import), a long module and a private call are found."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg.c import *\n")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from pkg.a import x\n")
    (pkg / "c.py").write_text("from . import a\nimport pkg.b\n")
    (pkg / "d.py").write_text("from pkg.a import _hidden\n\ndef g(t):\n    return t._snapshot()\n")
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.c"] == {"pkg.a", "pkg.b"}
    assert circles(graph) == [["pkg.a", "pkg.b"]]
    assert private_reaches(tmp_path, "pkg") == [
        "pkg/d.py:4 ._snapshot",
        "pkg/d.py:1 imports _hidden",
    ]
