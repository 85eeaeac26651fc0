"""Graph: the corpus-wide stage after the per-filing ones: companies and their aliases, entity
resolution (with the curated aliases, the risk taxonomy and the merge log), the knowledge graph's
incremental working store, and the tables a snapshot publishes."""
