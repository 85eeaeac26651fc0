"""Community reports written by a model behind any OpenAI-compatible endpoint (vLLM).

The model is shown the community (members, counts, its children's reports) and a numbered list
of evidence — verbatim quotes of edges inside the community, each with its chunk id — and answers
JSON: a title, a summary and findings, each citing evidence by number (`E3`), id or chunk id. A
finding is accepted only when it cites something and every citation resolves to that list
(evidence of an edge inside the community); otherwise it is dropped and counted. A summary
whose citations do not all resolve is replaced by the extractive one; a rating outside 0-10 by
the computed one. A community whose request fails after the retries (the one model client's
policy) keeps its extractive report (`summarizer: extractive:fallback`), so one bad reply never
leaves a community without one.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from typing import Any

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.common.ids import content_hash
from graphrag_core.common.model_client import AsyncModelClient, ModelCallError
from graphrag_core.graph.communities.reports import ReportContext, Written
from graphrag_core.settings import CommunitySettings
from graphrag_core.store.community_text import MODEL_FINDING

PROMPT_VERSION = "community_report_v1"
SYSTEM = """\
You write reports on communities of a knowledge graph built from SEC filings: companies and the
organizations they name, related by supply, customer, competition and ownership, and the risk
categories the companies report. Use only the evidence given. Every finding is one or two
sentences and cites the evidence that backs it by its number (E1, E2, ...); a claim the cited
evidence does not state must not be made. Answer with JSON only:
{"title": str, "summary": str, "summary_citations": [str],
 "findings": [{"statement": str, "citations": [str]}],
 "impact_rating": int (0-10: how much this community matters to an investor),
 "impact_explanation": str (one line)}"""

REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "summary": {"type": "string"},
        "summary_citations": {"type": "array", "items": {"type": "string"}},
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "statement": {"type": "string"},
                    "citations": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["statement", "citations"],
            },
        },
        "impact_rating": {"type": "integer"},
        "impact_explanation": {"type": "string"},
    },
    "required": ["title", "summary", "findings", "impact_rating", "impact_explanation"],
}
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.S)
_REF = re.compile(r"^\[?E(\d+)\]?$", re.I)
TITLE_MAX = 200


def user_message(ctx: ReportContext) -> str:
    lines = [f"Community {ctx.community_id} (level {ctx.level}), {ctx.member_count} members."]
    lines.append(
        "Members (strongest first): "
        + "; ".join(f"{m['name']} [{m['entity_type']}]" for m in ctx.members[:30])
    )
    if ctx.relations:
        lines.append(
            "Relations inside it: "
            + ", ".join(
                f"{r['relation']} {r['edges']} edges ({r['evidence']} citations)"
                for r in ctx.relations
            )
        )
    if ctx.risks:
        lines.append(
            "Risk categories its companies report: "
            + ", ".join(f"{r['label']} ({r['companies']} companies)" for r in ctx.risks[:15])
        )
    if ctx.children:
        lines.append("Reports of its sub-communities:")
        lines.extend(f"- {c['title']}: {c['summary']}" for c in ctx.children)
    lines.append("Evidence:")
    for i, e in enumerate(ctx.evidence, 1):
        lines.append(
            f'E{i} (chunk {e["chunk_id"]}; {e.get("statement", "")}): "{e["quote"] or ""}"'
        )
    return "\n".join(lines)


def _resolver(ctx: ReportContext) -> dict[str, dict[str, Any]]:
    """Citation text → the evidence it names: E<n>, an evidence id, or a chunk id."""
    out: dict[str, dict[str, Any]] = {}
    for i, e in enumerate(ctx.evidence, 1):
        item = {
            k: e.get(k)
            for k in ("evidence_id", "edge_id", "entity_id", "filing_id", "chunk_id", "quote")
        }
        out[f"E{i}"] = item
        out.setdefault(str(e["evidence_id"]), item)
        out.setdefault(str(e["chunk_id"]), item)
    return out


def _resolve(refs: Any, table: dict[str, dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Every citation resolved, or None when one does not (or there are none)."""
    if not isinstance(refs, list) or not refs:
        return None
    out: list[dict[str, Any]] = []
    for ref in refs:
        text = str(ref).strip()
        m = _REF.match(text)
        key = f"E{int(m.group(1))}" if m else text
        item = table.get(key)
        if item is None:
            return None
        if item not in out:
            out.append(item)
    return out


def accept(ctx: ReportContext, reply: dict[str, Any], model: str) -> Written:
    """The model's report, checked against the community's evidence (see the module)."""
    table = _resolver(ctx)
    findings: list[dict[str, Any]] = []
    dropped = 0
    for item in reply.get("findings") or []:
        statement = str(item.get("statement") or "").strip() if isinstance(item, dict) else ""
        cites = _resolve(item.get("citations"), table) if isinstance(item, dict) else None
        if not statement or cites is None:
            dropped += 1
            continue
        entities = list(dict.fromkeys(c["entity_id"] for c in cites if c["entity_id"]))
        theme = "model:" + content_hash(" ".join(statement.lower().split()), length=12)
        findings.append(
            {
                "finding_id": content_hash(ctx.community_id, theme, length=24),
                "community_id": ctx.community_id,
                "kind": MODEL_FINDING,
                "theme": theme,
                "label": statement[:80],
                "relation": None,
                "anchor_id": None,
                "anchor_name": None,
                "statement": statement,
                "partners": [],
                "partner_count": len(entities),
                "support": len(cites),
                "citations": cites,
            }
        )
    summary_cites = _resolve(reply.get("summary_citations"), table)
    summary = str(reply.get("summary") or "").strip()
    if not summary or summary_cites is None:
        summary, summary_cites = ctx.summary, ctx.summary_citations
    title = str(reply.get("title") or "").strip()[:TITLE_MAX] or ctx.title
    rating = reply.get("impact_rating")
    explanation = str(reply.get("impact_explanation") or "").strip()
    if (
        not isinstance(rating, int)
        or isinstance(rating, bool)
        or not 0 <= rating <= 10
        or not explanation
    ):
        rating, explanation = ctx.impact_rating, ctx.impact_explanation
    return Written(
        title=title,
        summary=summary,
        summary_citations=summary_cites,
        findings=findings,
        impact_rating=rating,
        impact_explanation=explanation[:300],
        dropped=dropped,
        summarizer=f"openai:{model}",
    )


def parse(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(_FENCE.sub("", text or ""))
    except (json.JSONDecodeError, TypeError):
        return None
    return value if isinstance(value, dict) else None


class OpenAISummarizer:
    """Reports written by an OpenAI-compatible model, concurrently, through the one model client
    (its timeouts, concurrency bound and retries)."""

    name = "openai"

    def __init__(self, settings: CommunitySettings):
        endpoint = settings.summaries_endpoint()
        if endpoint is None:
            raise ConfigurationError(
                "the openai community summarizer needs GRAPHRAG_COMMUNITIES_BASE_URL and "
                "GRAPHRAG_COMMUNITIES_MODEL (or the shared GRAPHRAG_MODEL_BASE_URL and "
                "GRAPHRAG_MODEL_MODEL; or set GRAPHRAG_COMMUNITIES_SUMMARIZER=extractive)"
            )
        self.settings = settings
        self.endpoint = endpoint
        self.model = endpoint.model
        self.failed = 0

    def request_body(self, ctx: ReportContext) -> dict[str, Any]:
        """Keyword arguments of `chat.completions.create` (the client adds the model)."""
        return {
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": user_message(ctx)},
            ],
            "temperature": 0,
            "max_tokens": self.settings.max_tokens,
            "extra_body": {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "community_report", "schema": REPORT_SCHEMA},
                }
            },
        }

    def write(self, contexts: Sequence[ReportContext]) -> list[Written]:
        if not contexts:
            return []
        return asyncio.run(self._write_all(contexts))

    async def _write_all(self, contexts: Sequence[ReportContext]) -> list[Written]:
        async with AsyncModelClient(self.endpoint) as client:
            return list(await asyncio.gather(*(self._one(client, c) for c in contexts)))

    async def _one(self, client: AsyncModelClient, ctx: ReportContext) -> Written:
        try:
            completion = await client.chat(**self.request_body(ctx))
        except ModelCallError:
            reply = None
        else:
            response = completion.response
            message = response.choices[0].message if response.choices else None
            reply = parse((message.content if message else None) or "")
        if reply is not None:
            return accept(ctx, reply, self.model)
        self.failed += 1
        return Written(
            title=ctx.title,
            summary=ctx.summary,
            summary_citations=ctx.summary_citations,
            findings=ctx.findings,
            impact_rating=ctx.impact_rating,
            impact_explanation=ctx.impact_explanation,
            summarizer="extractive:fallback",
        )


def build_summarizer(settings: CommunitySettings) -> OpenAISummarizer | None:
    """The configured model summarizer, or None for the embedded extractive one."""
    return OpenAISummarizer(settings) if settings.resolved_summarizer() == "openai" else None
