"""Communities of the knowledge graph: hierarchical Leiden over an undirected weighted projection,
their reports (extractive or written by an OpenAI-compatible model, every finding cited to
evidence inside its community), staleness as the graph changes, and the tables a snapshot
publishes."""
