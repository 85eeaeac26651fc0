"""The analyst agent (`filings-graph ask`): a chat model with tool calling over this project's
MCP server. A client of the server like any other: it imports the server only to start it in
process when no server URL is configured."""
