"""Operating the pipeline: the ingestion report of each run with its history, and taking a
filing back out of every table. Reads the stages' tables; imports no Dagster."""
