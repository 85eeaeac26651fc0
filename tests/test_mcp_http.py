"""Streamable HTTP: a real server process. Bearer token required when set (and refused start
without one beyond loopback); Host and Origin checked on loopback against DNS rebinding."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from graphrag_core.store.publish import SnapshotStore
from mcp_server.http import HttpExposureError, check_exposure, is_loopback
from tests import snapshot_sample as sample

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "s3cret-token-for-tests-0123456789abcdef"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(
    data_root: Path,
    port: int,
    *,
    host: str = "127.0.0.1",
    token: str | None = None,
) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("GRAPHRAG_MCP_TOKEN", None)
    if token:
        env["GRAPHRAG_MCP_TOKEN"] = token
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcp_server",
            "--data-root",
            str(data_root),
            "--http",
            "--host",
            host,
            "--port",
            str(port),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@contextmanager
def running(data_root: Path, *, token: str | None = None) -> Iterator[str]:
    port = _free_port()
    proc = _start(data_root, port, token=token)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"server exited: {proc.stderr.read()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("server did not start listening")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture
def published(data_root) -> Path:
    SnapshotStore(data_root).publish(sample.sample_tables())
    return data_root


def test_exposure_rules():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.10")
    check_exposure("127.0.0.1", None)
    check_exposure("0.0.0.0", TOKEN)
    with pytest.raises(HttpExposureError, match="GRAPHRAG_MCP_TOKEN"):
        check_exposure("0.0.0.0", None)


def test_refuses_to_start_beyond_loopback_without_a_token(published):
    proc = _start(published, _free_port(), host="0.0.0.0")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "refusing to serve on 0.0.0.0" in err and "GRAPHRAG_MCP_TOKEN" in err


async def test_token_required_when_set(published):
    with running(published, token=TOKEN) as base:
        url = f"{base}/mcp"
        with httpx2.Client() as http:
            missing = http.post(url, json=INIT, headers=ACCEPT)
            wrong = http.post(url, json=INIT, headers={**ACCEPT, "authorization": "Bearer nope"})
            right = http.post(
                url, json=INIT, headers={**ACCEPT, "authorization": f"Bearer {TOKEN}"}
            )
        assert missing.status_code == 401 and wrong.status_code == 401
        assert missing.headers["www-authenticate"].startswith("Bearer")
        assert right.status_code == 200

        # The SDK's transport takes an httpx2 client; headers set on it go with every request.
        async with httpx2.AsyncClient(
            headers={"authorization": f"Bearer {TOKEN}"}, timeout=30
        ) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                status = await client.call_tool("status", {})
                assert not status.is_error and status.structured_content["companies"] == 4


async def test_loopback_checks_host_and_origin(published):
    with running(published) as base:
        url = f"{base}/mcp"
        port = base.rsplit(":", 1)[1]
        with httpx2.Client() as http:
            ok = http.post(url, json=INIT, headers=ACCEPT)
            rebound = http.post(
                url, json=INIT, headers={**ACCEPT, "host": f"attacker.example:{port}"}
            )
            other_port = http.post(url, json=INIT, headers={**ACCEPT, "host": "127.0.0.1:1"})
            foreign = http.post(
                url, json=INIT, headers={**ACCEPT, "origin": "http://attacker.example"}
            )
            local = http.post(
                url, json=INIT, headers={**ACCEPT, "origin": f"http://localhost:{port}"}
            )
        assert ok.status_code == 200 and local.status_code == 200
        assert rebound.status_code == 421 and other_port.status_code == 421
        assert foreign.status_code == 403

        async with Client(url) as client:  # no token configured: loopback serves without one
            found = await client.call_tool("find_company", {"query": "Google"})
            assert found.structured_content["matches"][0]["company_id"] == "CIK-0001652044"
