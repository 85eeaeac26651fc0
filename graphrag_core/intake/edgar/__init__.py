"""SEC EDGAR intake: a polite HTTP client (rate limit, retries, disk cache) and a FilingSource."""

from graphrag_core.intake.edgar.client import (
    EdgarClient,
    EdgarNotFoundError,
    EdgarRequestError,
    RequestStats,
    validate_identity,
)
from graphrag_core.intake.edgar.edgar_source import EdgarSource, WatchedCompany
from graphrag_core.intake.edgar.filing_index import DirectoryItem, FilingIndex, IndexDocument
from graphrag_core.intake.edgar.rate_limit import TokenBucket
from graphrag_core.intake.edgar.response_cache import CachedResponse, ResponseCache

__all__ = [
    "CachedResponse",
    "DirectoryItem",
    "EdgarClient",
    "EdgarNotFoundError",
    "EdgarRequestError",
    "EdgarSource",
    "FilingIndex",
    "IndexDocument",
    "RequestStats",
    "ResponseCache",
    "TokenBucket",
    "WatchedCompany",
    "validate_identity",
]
