"""The dynamic partition set of per-filing assets: one key per filing (accession or sha-…)."""

import dagster as dg

FILINGS_PARTITION_SET = "filings"

filings_partitions = dg.DynamicPartitionsDefinition(name=FILINGS_PARTITION_SET)
