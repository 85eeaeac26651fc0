"""Graph: the corpus-wide stage after the per-filing ones: companies and their aliases, and
the tables a snapshot publishes."""
