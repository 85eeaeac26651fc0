"""The `filings-graph` commands, one module per command group; `pipelines.cli` wires them
into the argument parser."""
