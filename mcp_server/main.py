"""Entry points: `serve(...)` and `main(argv)` (behind `filings-graph mcp` and
`python -m mcp_server`). stdout belongs to the MCP protocol in stdio mode: logs go to stderr."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from graphrag_core.settings import CommunitySettings, McpSettings, RetrievalSettings, Settings
from graphrag_core.store.reader import SnapshotReader
from mcp_server.http import TOKEN_ENV, HttpExposureError, check_exposure, http_app, timed_h11
from mcp_server.server import build_server
from mcp_server.stdio import run_stdio

log = logging.getLogger("mcp_server")


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
    host: str = McpSettings.model_fields["host"].default,
    port: int = McpSettings.model_fields["port"].default,
    token: str | None = None,
    read_timeout_s: float = McpSettings.model_fields["read_timeout_s"].default,
    retrieval: RetrievalSettings | None = None,
    communities: CommunitySettings | None = None,
) -> None:
    """Serve the snapshots under `data_root` over stdio (default) or streamable HTTP.

    Blocks until the client disconnects (stdio) or the process is stopped (HTTP). With
    `http`, a non-loopback `host` requires `token`, and a token must be long enough (raises
    `HttpExposureError` otherwise); each HTTP request must arrive within `read_timeout_s`.
    `retrieval`: the chunk index's embedding settings (default: from the environment);
    `communities`: the model endpoint community_themes may write its answer with (if set).
    """
    reader = SnapshotReader(data_root)
    server = build_server(reader, retrieval, communities)
    version = reader.current_version() if reader.root.exists() else None
    log.info("data root %s; current snapshot %s", data_root, version or "none yet")
    try:
        if not http:
            run_stdio(server)
            return
        import uvicorn

        app = http_app(server, host=host, port=port, token=token)
        log.info(
            "serving MCP over HTTP at http://%s:%d/mcp%s",
            host,
            port,
            " (bearer token required)" if token else "",
        )
        uvicorn.run(
            app,
            host=host,
            port=port,
            log_config=None,
            access_log=False,
            http=timed_h11(read_timeout_s),
        )
    finally:
        reader.close()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m mcp_server",
        description="Serve the latest published snapshot read-only over MCP (stdio by default). "
        "Settings come from the environment (GRAPHRAG_DATA, GRAPHRAG_MCP_*); flags override them.",
    )
    parser.add_argument(
        "--data-root",
        type=Path,
        default=None,
        help="data root holding snapshots/ (default: $GRAPHRAG_DATA or ./data)",
    )
    parser.add_argument(
        "--http", action="store_true", help="serve streamable HTTP instead of stdio"
    )
    parser.add_argument(
        "--host", help=f"HTTP interface (default loopback; others need ${TOKEN_ENV})"
    )
    parser.add_argument("--port", type=int, help="HTTP port (default $GRAPHRAG_MCP_PORT or 8765)")
    parser.add_argument("--log-level", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser.parse_args(argv)


def run(
    data_root: Path | str,
    settings: McpSettings,
    *,
    http: bool = False,
    retrieval: RetrievalSettings | None = None,
    communities: CommunitySettings | None = None,
) -> int:
    """Logging to stderr, the exposure check, then serve. Returns the process exit status
    (2: refused to expose the server without a token, or with one too short)."""
    configure_logging(settings.log_level)
    token = settings.token.get_secret_value() if settings.token else None
    if http:
        try:
            check_exposure(settings.host, token)
        except HttpExposureError as exc:
            log.error("%s", exc)
            return 2
    serve(
        Path(data_root).expanduser().resolve(),
        http=http,
        host=settings.host,
        port=settings.port,
        token=token,
        read_timeout_s=settings.read_timeout_s,
        retrieval=retrieval,
        communities=communities,
    )
    return 0


def connection_help(data_root: Path | str, *, command: str = "filings-graph") -> str:
    """How to point an MCP client at this data root (printed after a demo run)."""
    root = Path(data_root).expanduser().resolve()
    port = McpSettings.model_fields["port"].default
    return (
        f"MCP server over the snapshots in {root}:\n"
        f"  stdio (Claude Desktop, Cursor, Claude Code):  GRAPHRAG_DATA={root} {command} mcp\n"
        f"  HTTP on loopback:  GRAPHRAG_DATA={root} {command} mcp --http --port {port}"
        f"  -> http://127.0.0.1:{port}/mcp\n"
        f"  Claude Code:  claude mcp add filings-graph --env GRAPHRAG_DATA={root} -- "
        f"{command} mcp\n"
        "  (client JSON configuration: docs/mcp.md)"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    settings = Settings()
    overrides = {
        k: v
        for k, v in (("host", args.host), ("port", args.port), ("log_level", args.log_level))
        if v is not None
    }
    return run(
        args.data_root or settings.data_root,
        settings.mcp.model_copy(update=overrides),
        http=args.http,
        retrieval=settings.retrieval,
        communities=settings.communities,
    )
