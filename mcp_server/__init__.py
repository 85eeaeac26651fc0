"""The read-only MCP server over published snapshots.

`build_server(reader)` gives the `MCPServer`; `serve(data_root, http=..., host=..., port=...)`
runs it; `main(argv)` is the command line (`filings-graph mcp`, `python -m mcp_server`).
Imports from `graphrag_core` are limited to `graphrag_core.store.reader`.
"""

from mcp_server.main import main, serve
from mcp_server.server import build_server

__all__ = ["build_server", "main", "serve"]
