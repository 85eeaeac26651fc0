"""`filings-graph ask`: connect the chat model and the MCP server, ask, print."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp import Client

from analyst.agent import AgentAnswer, AnalystAgent, Step
from graphrag_core.common.errors import ConfigurationError
from graphrag_core.common.model_client import AsyncModelClient
from graphrag_core.settings import Settings

CHAT_HELP = (
    "No chat model configured for `ask`. Point it at any OpenAI-compatible server with tool "
    "calling, e.g. vLLM:\n"
    "  vllm serve Qwen/Qwen2.5-7B-Instruct --enable-auto-tool-choice --tool-call-parser hermes\n"
    "  ANALYST_BASE_URL=http://localhost:8000/v1 ANALYST_MODEL=Qwen/Qwen2.5-7B-Instruct \\\n"
    '    filings-graph ask "How fast did NVIDIA grow revenue, and why?"\n'
    "(GRAPHRAG_MODEL_BASE_URL and GRAPHRAG_MODEL_MODEL serve every use, `ask` included.)"
)


def chat_client(settings: Settings) -> AsyncModelClient:
    """The agent's chat model through the one model client: ANALYST_*, else GRAPHRAG_MODEL_*."""
    endpoint = settings.agent.endpoint()
    if endpoint is None:
        raise ConfigurationError(CHAT_HELP)
    return AsyncModelClient(endpoint)


async def ask(
    settings: Settings, question: str, on_step: Callable[[Step], None] | None = None
) -> AgentAnswer:
    """Ask one question: through the MCP server at ANALYST_MCP_URL, or this data root's server
    started in process (a real MCP session over the in-memory transport)."""
    chat = chat_client(settings)
    server: Any
    reader = None
    if settings.agent.mcp_url:
        server = settings.agent.mcp_url
    else:
        from graphrag_core.store.reader import SnapshotReader
        from mcp_server import build_server

        reader = SnapshotReader(settings.data_root)
        server = build_server(reader, settings.retrieval)
    try:
        async with Client(server) as client:
            agent = AnalystAgent(settings.agent, chat, client, on_step=on_step)
            return await agent.ask(question)
    finally:
        if reader is not None:
            reader.close()
        await chat.close()
