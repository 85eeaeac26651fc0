"""Dagster pools: steps that use a shared outside service hold a slot of its pool, so runs in
parallel never press it harder than its limit (set from Settings when the instance is opened)."""

EDGAR_POOL = "edgar"  # SEC EDGAR: fetching documents and reference data
EXTRACTOR_POOL = "extractor"  # the extractor endpoint (an OpenAI-compatible model server)
