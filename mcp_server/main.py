"""Entry points: `serve(...)` and `main(argv)` (behind `filings-graph mcp` and
`python -m mcp_server`). stdout belongs to the MCP protocol in stdio mode: logs go to stderr."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

import anyio

from graphrag_core.store.reader import SnapshotReader
from mcp_server.http import TOKEN_ENV, HttpExposureError, check_exposure, http_app
from mcp_server.tools import build_server

log = logging.getLogger("mcp_server")

DATA_ENV = "GRAPHRAG_DATA"
DEFAULT_PORT = 8765


def configure_logging(level: str = "INFO") -> None:
    logging.basicConfig(
        level=level,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )


def serve(
    data_root: Path | str,
    *,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    token: str | None = None,
) -> None:
    """Serve the snapshots under `data_root` over stdio (default) or streamable HTTP.

    Blocks until the client disconnects (stdio) or the process is stopped (HTTP). With
    `http`, a non-loopback `host` requires `token` (raises `HttpExposureError` otherwise).
    """
    reader = SnapshotReader(data_root)
    server = build_server(reader)
    version = reader.current_version() if reader.root.exists() else None
    log.info("data root %s; current snapshot %s", data_root, version or "none yet")
    try:
        if not http:
            anyio.run(server.run_stdio_async)
            return
        import uvicorn

        app = http_app(server, host=host, port=port, token=token)
        log.info("serving MCP over HTTP at http://%s:%d/mcp%s", host, port,
                 " (bearer token required)" if token else "")
        uvicorn.run(app, host=host, port=port, log_config=None, access_log=False)
    finally:
        reader.close()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="filings-graph mcp",
        description="Serve the latest published snapshot read-only over MCP (stdio by default).",
    )
    parser.add_argument("--data-root", type=Path, default=None,
                        help=f"data root holding snapshots/ (default: ${DATA_ENV} or ./data)")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1",
                        help=f"HTTP interface (default loopback; others need ${TOKEN_ENV})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTP port")
    parser.add_argument("--log-level", default="INFO",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser.parse_args(argv)


def run(
    data_root: Path | str,
    *,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    log_level: str = "INFO",
) -> int:
    """Logging to stderr, the token from `GRAPHRAG_MCP_TOKEN`, the exposure check, then serve.
    Returns the process exit status (2: refused to expose the server without a token)."""
    configure_logging(log_level)
    token = os.environ.get(TOKEN_ENV) or None
    if http:
        try:
            check_exposure(host, token)
        except HttpExposureError as exc:
            log.error("%s", exc)
            return 2
    serve(Path(data_root).expanduser().resolve(), http=http, host=host, port=port, token=token)
    return 0


def connection_help(data_root: Path | str, *, command: str = "filings-graph") -> str:
    """How to point an MCP client at this data root (printed after a demo run)."""
    root = Path(data_root).expanduser().resolve()
    return (
        f"MCP server over the snapshots in {root}:\n"
        f"  stdio (Claude Desktop, Cursor, Claude Code):  GRAPHRAG_DATA={root} {command} mcp\n"
        f"  HTTP on loopback:  GRAPHRAG_DATA={root} {command} mcp --http --port {DEFAULT_PORT}"
        f"  -> http://127.0.0.1:{DEFAULT_PORT}/mcp\n"
        f"  Claude Code:  claude mcp add filings-graph --env GRAPHRAG_DATA={root} -- {command} mcp\n"
        "  (client JSON configuration: docs/mcp.md)"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    data_root = args.data_root or Path(os.environ.get(DATA_ENV) or "data")
    return run(data_root, http=args.http, host=args.host, port=args.port, log_level=args.log_level)
