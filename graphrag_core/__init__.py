"""filings-graphrag domain core: EDGAR intake, parsing, chunking, XBRL, extraction, snapshots.

Nothing in this package imports Dagster; the `assets/` and `pipelines/` packages wrap it.
"""

__version__ = "0.1.0"
