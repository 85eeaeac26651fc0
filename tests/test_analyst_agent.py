"""`filings-graph ask` end to end: the CLI, the agent loop, a real MCP session with this
project's server over a published snapshot, and a chat model speaking the OpenAI protocol over
a loopback socket, scripted to call tools the way a vLLM server with a tool-call parser does.

The script drafts an answer with an uncited figure; the agent's own check_citations catches it
and the revision cites it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from graphrag_core.store.publish import SnapshotStore
from pipelines.cli import main
from tests import snapshot_sample as sample
from tests.openai_server import OpenAICompatibleServer, Reply, ToolCalls

QUESTION = (
    "How much revenue did NVIDIA report for its latest fiscal year, and how fast did it grow?"
)


def _tool_results(body: dict) -> list[dict]:
    return [
        json.loads(m["content"])
        for m in body["messages"]
        if m["role"] == "tool" and m["content"].startswith("{")
    ]


class ScriptedAnalyst:
    """Decides each reply from the conversation so far, as a model would."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []

    def __call__(self, body: dict):
        self.bodies.append(body)
        results = _tool_results(body)
        users = [m["content"] for m in body["messages"] if m["role"] == "user"]
        if not results:
            return ToolCalls((("find_company", {"query": "NVIDIA"}),))
        if len(results) == 1:
            company = results[0]["matches"][0]["company_id"]
            return ToolCalls(
                (("get_metrics", {"company_id": company, "metrics": ["revenue"], "periods": 2}),)
            )
        metrics = next(r for r in results if "series" in r)
        fy25 = metrics["series"][0]["values"][0]
        n = fy25["citation"]["evidence"]
        if not any("check_citations found problems" in u for u in users):
            # The draft: the first figure cited, the growth figure not.
            return Reply(
                f"NVIDIA reported revenue of {fy25['display']} for {fy25['fiscal_label']} [{n}]. "
                f"That was {fy25['yoy_change_pct']}% more than the year before."
            )
        return Reply(
            f"NVIDIA reported revenue of {fy25['display']} for {fy25['fiscal_label']} [{n}]. "
            f"That was {fy25['yoy_change_pct']}% more than {fy25['prior_fiscal_label']} [{n}]."
        )


@pytest.fixture
def published(data_root: Path) -> Path:
    SnapshotStore(data_root).publish(sample.sample_tables())
    return data_root


def test_ask_catches_an_uncited_figure_and_revises(published, monkeypatch, capsys):
    script = ScriptedAnalyst()
    with OpenAICompatibleServer(script) as server:
        monkeypatch.setenv("ANALYST_BASE_URL", server.base_url)
        monkeypatch.setenv("ANALYST_MODEL", "scripted-analyst")
        code = main(["--data", str(published), "ask", QUESTION, "--json", "--verbose"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    # The transcript: tools discovered and called through MCP, the check failing, the revision.
    kinds = [(s["kind"], s["name"]) for s in out["steps"]]
    assert ("tool", "find_company") in kinds and ("tool", "get_metrics") in kinds
    checks = [s for s in out["steps"] if s["kind"] == "check"]
    assert len(checks) == 2 and checks[0]["summary"].startswith("ok=False")
    assert checks[1]["summary"].startswith("ok=True")
    assert out["revised"] is True and out["check"]["ok"] is True
    assert "114.2% more than the year before." in out["draft"]
    assert re.search(r"114\.2% more than FY2024 \[\d+\]", out["answer"])
    assert "not investment advice" in out["answer"]
    # What the model was sent: the server's tools (found by tools/list), the workflow prompt,
    # and the check's findings naming the uncited figure.
    first = script.bodies[0]
    offered = {t["function"]["name"] for t in first["tools"]}
    assert {
        "find_company",
        "get_metrics",
        "search_chunks",
        "check_citations",
        "compare_companies",
    } <= offered
    assert "search_chunks" in first["messages"][0]["content"]
    revision = next(
        m["content"]
        for m in script.bodies[-1]["messages"]
        if m["role"] == "user" and "check_citations found problems" in m["content"]
    )
    assert "114.2%" in revision


def test_ask_stops_at_its_step_bound(published, monkeypatch, capsys):
    """A model that never stops calling tools is cut off at max_steps, and says so."""
    with OpenAICompatibleServer(lambda body: ToolCalls((("status", {}),))) as server:
        monkeypatch.setenv("ANALYST_BASE_URL", server.base_url)
        monkeypatch.setenv("ANALYST_MODEL", "looping")
        code = main(["--data", str(published), "ask", "anything", "--json", "--max-steps", "3"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0  # nothing was drafted, so nothing failed a check
    assert "reached 3 model calls" in out["stopped"]
    assert sum(1 for s in out["steps"] if s["kind"] == "model") == 3


def test_ask_without_a_model_says_how_to_configure_one(published, monkeypatch, capsys):
    monkeypatch.delenv("ANALYST_BASE_URL", raising=False)
    monkeypatch.delenv("ANALYST_MODEL", raising=False)
    assert main(["--data", str(published), "ask", "anything"]) == 2
    assert "ANALYST_BASE_URL" in capsys.readouterr().err
