"""SEC EDGAR intake: a polite HTTP client (rate limit, retries, disk cache)."""

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

__all__ = [
    "CachedResponse",
    "DirectoryItem",
    "EdgarClient",
    "EdgarNotFoundError",
    "EdgarRequestError",
    "FilingIndex",
    "IndexDocument",
    "RequestStats",
    "ResponseCache",
    "TokenBucket",
    "validate_identity",
]
