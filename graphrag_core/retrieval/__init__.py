"""Retrieval over a published snapshot (rank 8, the top of the core): the chunk index (LanceDB,
vectors and full text), hybrid search with filters and graph expansion, literal citation checks,
and the global search over the community reports (`global_search`).

Importing this package loads nothing heavy: the embedding model and LanceDB are imported by the
modules that use them, so the MCP server pays for them on its first search only."""
