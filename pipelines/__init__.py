"""Dagster wiring: Definitions, jobs, sensors, partitions, resources, and the CLI."""
