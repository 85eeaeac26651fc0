"""The README a newcomer reads first must stay true: its two commands are the ones CI and the
Makefile run, its picture of the asset graph is the Definitions' graph, the tools it lists are
the server's, and no link in it or in docs/ leads nowhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
EDGE = re.compile(r"\s*-->\s*")
WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _text() -> str:
    return README.read_text(encoding="utf-8")


def _code_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.M | re.S)


def picture(text: str) -> tuple[set[str], set[tuple[str, str]], dict[str, set[str]]]:
    """(nodes, edges, subgraph id -> its nodes) of the README's one Mermaid flowchart."""
    [block] = _code_blocks(text, "mermaid")
    nodes: set[str] = set()
    edges: set[tuple[str, str]] = set()
    groups: dict[str, set[str]] = {}
    group: str | None = None
    for raw in block.splitlines()[1:]:  # after "flowchart LR"
        line = raw.strip()
        if not line:
            continue
        if line.startswith("subgraph "):
            group = line.split()[1]
            groups[group] = set()
            continue
        if line == "end":
            group = None
            continue
        chain = EDGE.split(line)
        assert all(WORD.match(n) for n in chain), f"not an asset or an edge: {raw!r}"
        nodes.update(chain)
        edges.update(zip(chain, chain[1:], strict=False))
        if group is not None:
            # a node belongs to the subgraph where it is first written inside one
            for n in chain:
                if not any(n in members for members in groups.values()):
                    groups[group].add(n)
    return nodes, edges, groups


def direct_inputs(deps: dict[str, set[str]]) -> set[tuple[str, str]]:
    """The edges a reader needs: each dependency not already reached along a longer path."""

    def upstream(node: str) -> set[str]:
        out: set[str] = set()
        for parent in deps[node]:
            out |= {parent} | upstream(parent)
        return out

    return {
        (parent, child)
        for child, parents in deps.items()
        for parent in parents
        if not any(parent in upstream(other) for other in parents - {parent})
    }


@pytest.fixture(scope="module")
def definitions_graph():
    from assets.partitions import filings_partitions
    from pipelines.definitions import defs

    graph = defs.resolve_asset_graph()
    deps = {
        key.to_user_string(): {p.to_user_string() for p in graph.get(key).parent_keys}
        for key in graph.get_all_asset_keys()
    }
    per_filing = {
        key.to_user_string()
        for key in graph.get_all_asset_keys()
        if graph.get(key).partitions_def == filings_partitions
    }
    return deps, per_filing


def test_the_picture_is_the_definitions_asset_graph(definitions_graph):
    deps, per_filing = definitions_graph
    nodes, edges, groups = picture(_text())
    assert nodes == set(deps)
    assert edges == direct_inputs(deps)
    assert groups["per_filing"] == per_filing
    assert groups["corpus"] == set(deps) - per_filing


@pytest.mark.parametrize(
    ("line", "caught"),
    [
        ("resolved_entities --> ingestion_report", "an input missing"),
        ("chunk_index --> graph_snapshot", "an input missing"),
        ("raw_filings --> section_chunks", "an asset missing"),
    ],
)
def test_a_picture_that_drifted_is_caught(definitions_graph, line, caught):
    deps, _ = definitions_graph
    drifted = re.sub(rf"^ *{re.escape(line)}\n", "", _text(), count=1, flags=re.M)
    assert drifted != _text()
    nodes, edges, _ = picture(drifted)
    assert (nodes, edges) != (set(deps), direct_inputs(deps)), caught


def test_an_input_reached_along_a_longer_path_is_not_drawn_twice():
    deps = {"a": set(), "b": {"a"}, "c": {"a", "b"}}
    assert direct_inputs(deps) == {("a", "b"), ("b", "c")}


def test_the_two_commands_come_first_and_ci_runs_the_test_command():
    text = _text()
    first = _code_blocks(text, "bash")[0]
    commands = [line.split("#")[0].split() for line in first.splitlines()]
    assert [c[-2:] for c in commands] == [["make", "demo"], ["make", "test"]]
    assert text.index(first) < text.index("\n## ")  # before the first section
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").split("\n")
    run = [line for line in ci if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert run == ["make test"]


def test_the_readme_stays_short():
    assert len(_text().splitlines()) <= 200


def test_the_tools_listed_are_the_servers():
    from tests.test_mcp_server import TOOLS

    [paragraph] = [p for p in _text().split("\n\n") if p.startswith("The tools cover")]
    assert set(re.findall(r"`([a-z_]+)`", paragraph)) == TOOLS


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_lead_somewhere_and_fences_close(page):
    text = page.read_text(encoding="utf-8")
    assert len(re.findall(r"^```", text, flags=re.M)) % 2 == 0, "a code fence is not closed"
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.exists(), f"{page.name} links to {target}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", resolved.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
            assert anchor in slugs, f"{page.name} links to {target}: no such heading"
