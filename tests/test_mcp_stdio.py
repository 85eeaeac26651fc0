"""Black-box: the server as a subprocess (`python -m mcp_server`), spoken to over stdio by the
SDK's client, as Claude Desktop or Cursor would. stdout carries only the protocol; logs go to
stderr."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from graphrag_core.store.publish import SnapshotStore
from tests import snapshot_sample as sample
from tests.test_mcp_server import TOOLS

ROOT = Path(__file__).resolve().parent.parent


def _params(data_root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_server", "--data-root", str(data_root)],
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT)},
    )


async def test_stdio_session(data_root, tmp_path):
    store = SnapshotStore(data_root)
    version = store.publish(sample.sample_tables()).version
    db = store.database_path(version)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    errlog_path = tmp_path / "server.stderr"

    with open(errlog_path, "w") as errlog:
        async with Client(stdio_client(_params(data_root), errlog=errlog)) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert tools == TOOLS  # the same tools as over the in-memory transport

            found = await client.call_tool("find_company", {"query": "Google"})
            assert not found.is_error
            assert found.structured_content["matches"][0]["name"] == "Alphabet Inc."
            assert found.structured_content["snapshot"] == version

            metrics = await client.call_tool(
                "get_metrics",
                {"company_id": "CIK-0001045810", "metrics": ["revenue"], "periods": 1},
            )
            value = metrics.structured_content["series"][0]["values"][0]
            assert (value["fiscal_label"], value["display"]) == ("FY2025", "130,497 million USD")
            chunk = await client.call_tool("get_chunk", {"chunk_id": value["citation"]["chunk_id"]})
            assert "130,497" in chunk.structured_content["text"]

            # Negative cases: there is no tool that takes SQL, and SQL passed as an argument is
            # data (a refused pattern, or a name that matches nothing).
            for name, args in [
                ("execute_sql", {"sql": "DROP TABLE companies"}),
                ("get_chunk", {"chunk_id": "x'; DROP TABLE chunks; --"}),
                ("find_company", {"query": "'; DELETE FROM companies; --"}),
                ("get_metrics", {"company_id": "Unknown Co", "periods": 0}),
                ("find_company", {"query": "Q" * 10_000_000}),
            ]:
                result = await client.call_tool(name, args)
                assert result.is_error, name
                assert result.content[0].text, name
            unknown = await client.call_tool("execute_sql", {"sql": "DROP TABLE companies"})
            assert "Unknown tool" in unknown.content[0].text

            status = await client.call_tool("status", {})
            assert status.structured_content["companies"] == 4

    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    logs = errlog_path.read_text()
    assert f"serving snapshot {version}" in logs  # logging went to stderr, not the protocol


async def test_filings_graph_mcp_command(data_root):
    """`filings-graph --data <root> mcp` (the console script's code path) serves stdio."""
    version = SnapshotStore(data_root).publish(sample.sample_tables()).version
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pipelines.cli", "--data", str(data_root), "mcp"],
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT)},
    )
    async with Client(params) as client:
        status = await client.call_tool("status", {})
        assert status.structured_content["snapshot"] == version


async def test_stdio_session_without_a_snapshot(data_root):
    async with Client(_params(data_root)) as client:
        result = await client.call_tool("status", {})
        assert result.is_error
        assert "no snapshot has been published" in result.content[0].text
