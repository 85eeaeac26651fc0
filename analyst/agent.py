"""The analyst agent: an OpenAI-compatible chat model with tool calling, working through this
project's MCP server as any MCP client would (tools/list, tools/call).

    question → [model ⇄ tools]* → draft → check_citations(draft) → (one revision if it fails)
             → answer + the standing disclaimer

The model discovers the tools from tools/list (so tools added later — graph neighbours,
community themes — are used as soon as the server offers them); the system prompt sets the
workflow. Every run is bounded: model calls (`max_steps`), total tokens (`max_tokens`), and the
characters of each tool answer the model reads (`tool_result_chars`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp import Client

from analyst.result_budget import fit_json
from graphrag_core.common.model_client import AsyncModelClient
from graphrag_core.settings import AgentSettings

DISCLAIMER = (
    "Figures are reported figures from SEC filings as screened by this tool; this is not "
    "investment advice."
)

SYSTEM_PROMPT = """\
You are a financial analyst's research assistant. You answer questions about SEC registrants
only from the tools of the filings-graph MCP server, whose data are published snapshots of
EDGAR filings. Never use outside knowledge for facts or figures.

Workflow:
1. Resolve every company the question names with find_company and use its company_id.
2. Route by what is asked:
   - reported figures, trends, growth, margins → get_metrics (one company), screen_companies
     (filter many), compare_companies (peers on the same calendar period);
   - relationships (customers, suppliers, competitors, subsidiaries, exposure) → neighbors or
     graph_path when the server offers them, else search_chunks with expand_hops=1;
   - what a filing says in words (risks, strategy, litigation, explanations) → search_chunks,
     then get_chunk to read a whole passage;
   - broad or thematic questions across many companies → community_themes when offered, else
     search_chunks without a company filter.
3. Cite every sentence that states a figure or names a company with the evidence number of the
   tool result that supports it, written as [n] (every citation in a tool answer carries its
   `evidence` number). Quote figures exactly as the tools give them (`display`,
   `yoy_change_pct`); do not compute new figures yourself. Name in each cited sentence the
   company, the metric and the period of its figure: check_citations holds them against the
   cited evidence.
4. When you have enough, write the answer: short, plain sentences, each claim cited. Say what
   period each figure covers (fiscal labels differ between companies) and how current the
   snapshot is when it matters. If the data do not answer the question, say so.

Only tools listed by the server exist. Do not give investment advice."""

REVISION_PROMPT = """\
check_citations found problems in your draft:
{report}

Revise the draft once: cite each listed sentence with the evidence number that supports it,
correct any figure to the one in its evidence, or remove the claim. You may call tools first if
you need evidence. Reply with the full revised answer only."""


@dataclass
class Step:
    """One entry of the transcript: a model call, a tool call, or the citation check."""

    kind: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    tokens: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        args = json.dumps(self.arguments, ensure_ascii=False)[:300] if self.arguments else ""
        head = (
            f"[{self.kind}] {self.name}({args})" if self.kind != "model" else f"[model] {self.name}"
        )
        extra = f" tokens={self.tokens}" if self.tokens else ""
        return f"{head}{extra} {self.seconds:.2f}s → {self.summary[:300]}"


@dataclass
class AgentAnswer:
    question: str
    answer: str
    draft: str
    revised: bool
    check: dict[str, Any] | None
    steps: list[Step]
    tokens: int
    stopped: str | None = None  # why the loop stopped early, if it did

    def render(self) -> str:
        text = self.answer.rstrip()
        if DISCLAIMER not in text:
            text += f"\n\n{DISCLAIMER}"
        if self.stopped:
            text += f"\n\n(stopped early: {self.stopped})"
        return text


def tool_specs(tools: list[Any]) -> list[dict[str, Any]]:
    """MCP tools (tools/list) → OpenAI `tools` for chat completions."""
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": (t.description or t.title or t.name)[:4000],
                "parameters": t.input_schema or {"type": "object", "properties": {}},
            },
        }
        for t in tools
    ]


def _result_text(result: Any, limit: int) -> str:
    """A tool result as the model reads it: the structured answer as JSON, cut to `limit`
    characters on item boundaries (`fit_json`: whole items, `capped` saying what was left out),
    or the error or plain text, cut at a word with a note."""
    if result.structured_content is not None and not result.is_error:
        return fit_json(result.structured_content, limit)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    if result.is_error:
        text = "ERROR: " + text
    if len(text) > limit:
        note = f"…[cut at {limit} characters; narrow the call to see more]"
        text = text[: max(0, limit - len(note))].rsplit(" ", 1)[0] + note
    return text


def _summary(result: Any) -> str:
    if result.is_error:
        return "error: " + " ".join(getattr(c, "text", "") for c in result.content)[:200]
    data = result.structured_content or {}
    for key in ("hits", "matches", "series", "companies", "edges"):
        if isinstance(data.get(key), list):
            return f"{len(data[key])} {key}"
    if "ok" in data:
        return f"ok={data['ok']}: {data.get('summary', '')}"
    return ", ".join(list(data)[:6])


class AnalystAgent:
    """One question at a time over a connected MCP client and an OpenAI-compatible model."""

    def __init__(
        self,
        settings: AgentSettings,
        chat: AsyncModelClient,
        mcp: Client,
        on_step: Callable[[Step], None] | None = None,
    ):
        self.settings = settings
        self.chat = chat
        self.mcp = mcp
        self.on_step = on_step or (lambda step: None)

    def _record(self, steps: list[Step], step: Step) -> None:
        steps.append(step)
        self.on_step(step)

    async def _call_tool(self, name: str, arguments: dict[str, Any], steps: list[Step]) -> Any:
        started = time.perf_counter()
        result = await self.mcp.call_tool(name, arguments)
        self._record(
            steps,
            Step("tool", name, arguments, _summary(result), seconds=time.perf_counter() - started),
        )
        return result

    async def ask(self, question: str) -> AgentAnswer:
        s = self.settings
        steps: list[Step] = []
        listed = await self.mcp.list_tools()
        tools = tool_specs(listed.tools)
        names = {t["function"]["name"] for t in tools}
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": question},
        ]
        used = 0
        model_calls = 0
        draft: str | None = None
        answer: str | None = None
        revised = False
        check: dict[str, Any] | None = None
        stopped: str | None = None

        while True:
            if model_calls >= s.max_steps:
                stopped = f"reached {s.max_steps} model calls (ANALYST_MAX_STEPS)"
                break
            if used >= s.max_tokens:
                stopped = f"used {used} tokens of {s.max_tokens} (ANALYST_MAX_TOKENS)"
                break
            started = time.perf_counter()
            completion = await self.chat.chat(
                messages=messages,
                tools=tools or None,
                max_tokens=min(s.max_completion_tokens, max(s.max_tokens - used, 1)),
                temperature=s.temperature,
            )
            response = completion.response
            model_calls += 1
            tokens = response.usage.total_tokens if response.usage else 0
            used += tokens
            message = response.choices[0].message
            calls: list[Any] = list(message.tool_calls or [])
            self._record(
                steps,
                Step(
                    "model",
                    self.chat.endpoint.model,
                    summary=(
                        f"{len(calls)} tool call(s)" if calls else (message.content or "")[:200]
                    ),
                    tokens=tokens,
                    seconds=time.perf_counter() - started,
                ),
            )
            if calls:
                messages.append(
                    {
                        "role": "assistant",
                        "content": message.content or "",
                        "tool_calls": [
                            {
                                "id": c.id,
                                "type": "function",
                                "function": {
                                    "name": c.function.name,
                                    "arguments": c.function.arguments,
                                },
                            }
                            for c in calls
                        ],
                    }
                )
                for c in calls:
                    try:
                        arguments = json.loads(c.function.arguments or "{}")
                    except json.JSONDecodeError as exc:
                        content = f"ERROR: the arguments are not JSON ({exc}); call again"
                    else:
                        if c.function.name not in names:
                            content = (
                                f"ERROR: no tool {c.function.name!r}; tools: "
                                f"{', '.join(sorted(names))}"
                            )
                        else:
                            result = await self._call_tool(c.function.name, arguments, steps)
                            content = _result_text(result, s.tool_result_chars)
                    messages.append({"role": "tool", "tool_call_id": c.id, "content": content})
                continue
            text = (message.content or "").strip()
            messages.append({"role": "assistant", "content": text})
            if draft is None:
                draft = text
                check = await self._check(text, steps)
                if check is None or check.get("ok"):
                    answer = text
                    break
                # One revision: tell the model what failed, let it call tools, take its next text.
                revised = True
                messages.append(
                    {"role": "user", "content": REVISION_PROMPT.format(report=_report_text(check))}
                )
                continue
            answer = text
            check = await self._check(text, steps)
            break

        final = answer or draft or ""
        if not final:
            final = "No answer could be drafted within the limits."
        return AgentAnswer(
            question=question,
            answer=final,
            draft=draft or "",
            revised=revised,
            check=check,
            steps=steps,
            tokens=used,
            stopped=stopped,
        )

    async def _check(self, text: str, steps: list[Step]) -> dict[str, Any] | None:
        if not text:
            return None
        result = await self._call_tool("check_citations", {"answer": text[:40_000]}, steps)
        steps[-1].kind = "check"
        if result.is_error:
            return None
        return dict(result.structured_content or {})


def _report_text(check: dict[str, Any]) -> str:
    lines = [check.get("summary", "")]
    for u in check.get("unresolved", []):
        lines.append(f"- citation [{u['citation']}] points at nothing: {u['sentence']}")
    for u in check.get("uncited", []):
        what = ", ".join(u.get("figures", []) + u.get("companies", []))
        lines.append(f"- no citation for {what}: {u['sentence']}")
    for u in check.get("unsupported", []):
        says = f" ({u['cited_says']})" if u.get("cited_says") else ""
        lines.append(
            f"- {u['figure']} is not in {', '.join(u['citations'])}{says}: {u['sentence']}"
        )
    for u in check.get("mismatched", []):
        lines.append(f"- {u['problem']}: {u['sentence']}")
    return "\n".join(lines)
