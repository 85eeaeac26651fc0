"""The one client for every OpenAI-compatible model endpoint the project calls (vLLM, TEI,
llama.cpp, OpenAI itself): the extractor, the community summarizer, community_themes' written
answer, the embeddings backend and the analyst agent.

Each use hands it a `ModelEndpoint` (model_endpoint.py, resolved from `Settings`: the use's own
settings, else the shared GRAPHRAG_MODEL_* ones, else the use's defaults) and gets the same
behaviour:

- a timeout per request (`timeout_s`), and the SDK's own retries switched off so attempts are
  counted here, per request;
- at most `concurrency` requests in flight per client: a semaphore held for one attempt and
  released while waiting to retry, so a throttled request does not hold a slot;
- one retry policy. Retried: a connection error or timeout, HTTP 408, 409, 429 and every 5xx
  (the server is busy or restarting; the same request may succeed). Waited: the longer of
  `backoff_base_s * 2**(attempt-1)` and the server's Retry-After, capped at `backoff_max_s`,
  plus up to 25% jitter so requests throttled together do not return together. Not retried:
  any other 4xx (the request itself is wrong and would be sent again unchanged). 401, 403 and
  404 (bad key, model or URL) raise `ConfigurationError`: no request of this use can succeed, so
  the caller stops instead of recording a failure per item. Anything else that fails after
  `max_retries` retries raises `ModelCallError`, saying why and after how many attempts.

`AsyncModelClient` serves the asynchronous callers (extractor, summarizer, agent);
`ModelClient` the synchronous ones (the embedder, and the MCP tool, which runs in a worker
thread). Both share the policy below; only the waiting differs.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import httpx2
import openai
from openai.types.chat import ChatCompletion

from graphrag_core.common.errors import ConfigurationError, GraphragError
from graphrag_core.common.model_endpoint import ModelEndpoint

T = TypeVar("T")

RETRY_STATUS = frozenset({408, 409, 429})
CONFIGURATION_STATUS = frozenset({401, 403, 404})
# vLLM started without --api-key accepts any token; the SDK insists on a non-empty one.
NO_KEY = "EMPTY"


class ModelCallError(GraphragError):
    """A model request failed for good: not retryable, or still failing after the retries."""

    def __init__(self, endpoint: ModelEndpoint, description: str, attempts: int):
        self.use = endpoint.use
        self.description = description
        self.attempts = attempts
        super().__init__(f"{description} (after {attempts} attempt{'s' if attempts > 1 else ''})")


@dataclass(frozen=True)
class Completion:
    """A chat completion with what it took: attempts made, and the successful one's latency."""

    response: ChatCompletion
    attempts: int
    latency_ms: float


def describe(exc: Exception) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "request timed out"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


def classify(exc: Exception) -> Literal["retry", "fail", "configuration"]:
    """What the policy does with a failed attempt (see the module)."""
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return "retry"
    if isinstance(exc, openai.APIStatusError):
        if exc.status_code in CONFIGURATION_STATUS:
            return "configuration"
        if exc.status_code in RETRY_STATUS or exc.status_code >= 500:
            return "retry"
    return "fail"


def retry_after_s(exc: Exception) -> float | None:
    """The server's Retry-After (or retry-after-ms) in seconds, when it sent a number."""
    if not isinstance(exc, openai.APIStatusError):
        return None
    headers = exc.response.headers
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            return None  # an HTTP-date; the exponential backoff applies instead
    return None


def backoff_s(
    endpoint: ModelEndpoint, attempt: int, retry_after: float | None, jitter: float
) -> float:
    """Seconds to wait after failed attempt `attempt` (1-based); `jitter` in [0, 1)."""
    exponential = endpoint.backoff_base_s * (2 ** (attempt - 1))
    wait = max(exponential, retry_after or 0.0)
    return float(min(endpoint.backoff_max_s, wait) * (1 + 0.25 * jitter))


def _give_up(endpoint: ModelEndpoint, exc: Exception, attempts: int) -> Exception | None:
    """The error to raise after this failed attempt, or None to retry it."""
    verdict = classify(exc)
    if verdict == "configuration":
        p = endpoint.settings_prefix
        return ConfigurationError(
            f"{endpoint.use} endpoint {endpoint.base_url} refused model {endpoint.model!r} "
            f"({describe(exc)}); check {p}BASE_URL, {p}MODEL and {p}API_KEY "
            "(or the shared GRAPHRAG_MODEL_*)"
        )
    if verdict == "fail" or attempts > endpoint.max_retries:
        return ModelCallError(endpoint, describe(exc), attempts)
    return None


def _sdk_options(endpoint: ModelEndpoint) -> dict[str, Any]:
    key = endpoint.api_key.get_secret_value() if endpoint.api_key else ""
    return {
        "base_url": endpoint.base_url,
        "api_key": key or NO_KEY,
        "timeout": endpoint.timeout_s,
        "max_retries": 0,
    }


def _limits(endpoint: ModelEndpoint) -> httpx2.Limits:
    # openai's client is built on httpx2: one connection per request in flight, kept alive.
    return httpx2.Limits(
        max_connections=endpoint.concurrency, max_keepalive_connections=endpoint.concurrency
    )


def _vectors(response: Any) -> list[list[float]]:
    return [list(d.embedding) for d in sorted(response.data, key=lambda d: d.index)]


class AsyncModelClient:
    """The client for asynchronous callers; use as `async with AsyncModelClient(endpoint)`."""

    def __init__(self, endpoint: ModelEndpoint):
        self.endpoint = endpoint
        self._gate = asyncio.Semaphore(endpoint.concurrency)
        self._sdk = openai.AsyncOpenAI(
            **_sdk_options(endpoint),
            http_client=openai.DefaultAsyncHttpxClient(
                limits=_limits(endpoint), timeout=endpoint.timeout_s
            ),
        )

    async def __aenter__(self) -> AsyncModelClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._sdk.close()

    async def _call(self, send: Callable[[], Awaitable[T]]) -> tuple[T, int, float]:
        attempts = 0
        while True:
            attempts += 1
            async with self._gate:
                started = time.perf_counter()
                try:
                    value = await send()
                except openai.APIError as exc:
                    error: Exception = exc
                else:
                    return value, attempts, (time.perf_counter() - started) * 1000
            if (final := _give_up(self.endpoint, error, attempts)) is not None:
                raise final from error
            await asyncio.sleep(
                backoff_s(self.endpoint, attempts, retry_after_s(error), random.random())
            )

    async def chat(self, **body: Any) -> Completion:
        """One chat completion: `body` is `chat.completions.create`'s keyword arguments without
        `model` (the endpoint's model is sent)."""
        response, attempts, latency_ms = await self._call(
            lambda: self._sdk.chat.completions.create(model=self.endpoint.model, **body)
        )
        return Completion(response, attempts, latency_ms)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One embedding per text, in order."""
        response, _, _ = await self._call(
            lambda: self._sdk.embeddings.create(
                model=self.endpoint.model, input=list(texts), encoding_format="float"
            )
        )
        return _vectors(response)


class ModelClient:
    """The client for synchronous callers, safe to share between threads (the bound holds
    across them); `close()` it, or use it as a context manager."""

    def __init__(self, endpoint: ModelEndpoint):
        self.endpoint = endpoint
        self._gate = threading.BoundedSemaphore(endpoint.concurrency)
        self._sdk = openai.OpenAI(
            **_sdk_options(endpoint),
            http_client=openai.DefaultHttpxClient(
                limits=_limits(endpoint), timeout=endpoint.timeout_s
            ),
        )

    def __enter__(self) -> ModelClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._sdk.close()

    def _call(self, send: Callable[[], T]) -> tuple[T, int, float]:
        attempts = 0
        while True:
            attempts += 1
            with self._gate:
                started = time.perf_counter()
                try:
                    value = send()
                except openai.APIError as exc:
                    error: Exception = exc
                else:
                    return value, attempts, (time.perf_counter() - started) * 1000
            if (final := _give_up(self.endpoint, error, attempts)) is not None:
                raise final from error
            time.sleep(backoff_s(self.endpoint, attempts, retry_after_s(error), random.random()))

    def chat(self, **body: Any) -> Completion:
        """As `AsyncModelClient.chat`."""
        response, attempts, latency_ms = self._call(
            lambda: self._sdk.chat.completions.create(model=self.endpoint.model, **body)
        )
        return Completion(response, attempts, latency_ms)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """As `AsyncModelClient.embed`."""
        response, _, _ = self._call(
            lambda: self._sdk.embeddings.create(
                model=self.endpoint.model, input=list(texts), encoding_format="float"
            )
        )
        return _vectors(response)
