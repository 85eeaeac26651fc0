"""Passage retrieval over the snapshot's chunks (rank 7): the chunk index (LanceDB, vectors and
full text), hybrid search with filters and graph expansion, and literal citation checks.

Importing this package loads nothing heavy: the embedding model and LanceDB are imported by the
modules that use them, so the MCP server pays for them on its first search only."""
