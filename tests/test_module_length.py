"""No module a reader cannot hold (issue 26 target): 800 lines at most in every package the
project ships (the ones pyproject.toml packages: graphrag_core, assets, pipelines, mcp_server,
analyst). Tests and benchmarks are not shipped and are not counted. A module that grows past the
limit is split by concept, not trimmed."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 800


def shipped_packages(root: Path) -> list[str]:
    """The top-level packages pyproject.toml ships (its setuptools include patterns)."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["packages"]["find"]["include"]
    return sorted({p.rstrip("*").rstrip(".") for p in patterns})


def long_modules(root: Path, packages: list[str], limit: int = MAX_LINES) -> dict[str, int]:
    """Module path → its line count, for every module of `packages` over `limit` lines."""
    return {
        str(p.relative_to(root)): n
        for package in packages
        for p in sorted((root / package).rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > limit
    }


def test_the_shipped_packages_are_the_code_outside_tests_and_bench():
    """Every top-level folder with Python code is shipped or is tests/bench: no code escapes."""
    with_code = {
        p.parent.relative_to(ROOT).parts[0]
        for p in ROOT.glob("*/*.py")
        if not p.parent.name.startswith(".")
    }
    assert with_code - {"tests", "bench"} == set(shipped_packages(ROOT))


def test_no_shipped_module_over_800_lines():
    assert long_modules(ROOT, shipped_packages(ROOT)) == {}


def test_a_long_module_is_found(tmp_path):
    """801 lines in a nested module is found; 800 lines, and a long file elsewhere, are not."""
    nested = tmp_path / "pkg" / "sub"
    nested.mkdir(parents=True)
    (nested / "long.py").write_text("x = 1\n" * 801)
    (nested / "limit.py").write_text("x = 1\n" * 800)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_long.py").write_text("x = 1\n" * 2000)
    assert long_modules(tmp_path, ["pkg"]) == {"pkg/sub/long.py": 801}
