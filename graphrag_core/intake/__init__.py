"""Intake: where filings come from (a local folder, EDGAR), the discovery catalog, and the
raw_filings stage (documents kept, metadata read)."""
