"""SEC EDGAR intake: a polite HTTP client (rate limit, retries, disk cache) and a FilingSource."""

from graphrag_core.edgar.cache import CachedResponse, ResponseCache
from graphrag_core.edgar.client import (
    EdgarClient,
    EdgarNotFoundError,
    EdgarRequestError,
    RequestStats,
    validate_identity,
)
from graphrag_core.edgar.index import DirectoryItem, FilingIndex, IndexDocument
from graphrag_core.edgar.ratelimit import TokenBucket
from graphrag_core.edgar.source import EdgarSource, WatchedCompany

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
