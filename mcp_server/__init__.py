"""The read-only MCP server over published snapshots.

`build_server(reader)` gives the `MCPServer` (`mcp_server.server`); `serve(data_root, http=...,
host=..., port=...)` runs it; `main(argv)` is the command line (`filings-graph mcp`, `python -m
mcp_server`). The tools live by family: `companies` and `screens` (companies and metrics),
`financials` and `fact_search` (statements and facts), `graph` and `local_search` (the knowledge
graph), `search` (passages and citations), `themes`, `status`, `what_changed` and
`changes_across` (filings compared); they share `context` (snapshot lease, stamp, resolution),
`formatting` (how rows read as answers) and `graph_time` (the graph tools' period / as_of).
From `graphrag_core` the server imports only the snapshot reader, Settings, the query side of
retrieval and the error classes (tests/test_layers.py).
"""

from mcp_server.main import main, serve
from mcp_server.server import build_server

__all__ = ["build_server", "main", "serve"]
