"""Thin Dagster assets and asset checks, one module per stage; the logic is in graphrag_core."""
