"""An in-memory MCP client session against the real server object, and small call helpers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import Client

from graphrag_core.store.reader import SnapshotReader
from mcp_server import build_server


@asynccontextmanager
async def session(data_root: Path) -> AsyncIterator[Client]:
    """A client session with a fresh server over the data root's published snapshot. (A context
    manager, not an async fixture: the SDK's task groups must open and close in the same task.)"""
    reader = SnapshotReader(data_root)
    try:
        async with Client(build_server(reader)) as client:
            yield client
    finally:
        reader.close()


async def call(client: Client, tool: str, **args) -> dict:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def error(client: Client, tool: str, **args) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, result.structured_content
    assert result.structured_content is None
    return result.content[0].text
