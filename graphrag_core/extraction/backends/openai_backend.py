"""Extraction through any OpenAI-compatible chat endpoint (vLLM in production).

Every request carries the extraction JSON schema twice: as OpenAI `response_format`
(json_schema, strict) and in `extra_body` under vLLM's own key, because which of the two a
server honours depends on its version, and a server that ignores both still answers (the gates
and the parser then deal with whatever comes back). Temperature is 0 so a cached reply is the
reply the model would give again.

Retries are done here, not by the SDK (its own are switched off), so that attempts are counted
per chunk and the backoff honours `Retry-After`; a request that never succeeds becomes a
`failed` result, and only a configuration fault (bad key, unknown model or URL) raises.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Sequence
from typing import Any

import httpx2
import openai

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.extraction.backends.base import ChunkInput, RawResult
from graphrag_core.extraction.prompt import Prompt, load_prompt
from graphrag_core.extraction.triples import extraction_json_schema
from graphrag_core.settings import ExtractionSettings

_RETRY_STATUS = frozenset({408, 409, 429})


def _retry_after_s(exc: openai.APIStatusError) -> float | None:
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


def _is_retryable(exc: Exception) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return False


def _describe(exc: Exception) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "request timed out"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


class OpenAIBackend:
    """Structured-output extraction over HTTP with bounded concurrency, retries and accounting."""

    name = "openai"
    cacheable = True

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        prompt: Prompt | None = None,
        concurrency: int = 32,
        timeout_s: float = 60.0,
        max_retries: int = 4,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 20.0,
        max_tokens: int = 2048,
        guided_field: str = "guided_json",
    ):
        if not base_url or not model:
            raise ConfigurationError(
                "the openai extraction backend needs EXTRACTOR_BASE_URL and EXTRACTOR_MODEL "
                "(or set EXTRACTOR_BACKEND=rules to extract without a model server)"
            )
        self.base_url = base_url
        self.model = model
        # vLLM started without --api-key accepts any token; the SDK insists on a non-empty one.
        self.api_key = api_key or "EMPTY"
        self.prompt = prompt or load_prompt()
        self.prompt_version = self.prompt.version
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.max_tokens = max_tokens
        self.guided_field = guided_field
        self._schema = extraction_json_schema()

    @classmethod
    def from_settings(cls, settings: ExtractionSettings) -> OpenAIBackend:
        return cls(
            base_url=settings.base_url or "",
            model=settings.model or "",
            api_key=settings.api_key.get_secret_value() if settings.api_key else None,
            prompt=load_prompt(settings.prompt),
            concurrency=settings.concurrency,
            timeout_s=settings.timeout_s,
            max_retries=settings.max_retries,
            backoff_base_s=settings.backoff_base_s,
            backoff_max_s=settings.backoff_max_s,
            max_tokens=settings.max_tokens,
            guided_field=settings.guided_field,
        )

    def context_key(self, chunk: ChunkInput) -> str:
        return json.dumps({"company": chunk.company, "section": chunk.section}, sort_keys=True)

    def request_body(self, chunk: ChunkInput) -> dict[str, Any]:
        """Keyword arguments of `chat.completions.create` for one chunk."""
        # `response_format` rides in extra_body too: the SDK walks its typed parameters
        # recursively on every request (a quarter of the client's CPU at 64 in flight), while
        # extra_body is merged into the JSON as is. The request on the wire is the same.
        extra_body: dict[str, Any] = {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "extraction", "schema": self._schema, "strict": True},
            }
        }
        if self.guided_field == "guided_json":
            extra_body["guided_json"] = self._schema
        elif self.guided_field == "structured_outputs":
            extra_body["structured_outputs"] = {"json": self._schema}
        return {
            "model": self.model,
            "messages": [
                {"role": "system", "content": self.prompt.system},
                {
                    "role": "user",
                    "content": self.prompt.user_message(
                        company=chunk.company,
                        section=chunk.section,
                        text=chunk.text,
                        heading=chunk.preceding_heading,
                    ),
                },
            ],
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "extra_body": extra_body,
        }

    def _client(self) -> openai.AsyncOpenAI:
        # openai's client is built on httpx2, so its limits are httpx2's.
        limits = httpx2.Limits(
            max_connections=self.concurrency, max_keepalive_connections=self.concurrency
        )
        return openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key=self.api_key,
            timeout=self.timeout_s,
            max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(limits=limits, timeout=self.timeout_s),
        )

    async def extract(self, chunks: Sequence[ChunkInput]) -> list[RawResult]:
        if not chunks:
            return []
        gate = asyncio.Semaphore(self.concurrency)
        async with self._client() as client:
            return list(await asyncio.gather(*(self._extract_one(client, gate, c) for c in chunks)))

    def _backoff_s(self, attempt: int, retry_after: float | None) -> float:
        exponential = self.backoff_base_s * (2 ** (attempt - 1))
        wait = max(exponential, retry_after or 0.0)
        # Jitter spreads the retries of many chunks throttled at the same moment.
        return min(self.backoff_max_s, wait) * (1 + 0.25 * random.random())

    async def _extract_one(
        self, client: openai.AsyncOpenAI, gate: asyncio.Semaphore, chunk: ChunkInput
    ) -> RawResult:
        body = self.request_body(chunk)
        attempts = 0
        while True:
            attempts += 1
            async with gate:
                started = time.perf_counter()
                try:
                    response = await client.chat.completions.create(**body)
                except (
                    openai.AuthenticationError,
                    openai.PermissionDeniedError,
                    openai.NotFoundError,
                ) as exc:
                    raise ConfigurationError(
                        f"extractor endpoint {self.base_url} refused model {self.model!r} "
                        f"({_describe(exc)}); check EXTRACTOR_BASE_URL, EXTRACTOR_MODEL and "
                        "EXTRACTOR_API_KEY"
                    ) from exc
                except openai.APIError as exc:
                    error = exc
                else:
                    latency_ms = (time.perf_counter() - started) * 1000
                    return self._result(response, attempts, latency_ms)
            if not _is_retryable(error) or attempts > self.max_retries:
                return RawResult(
                    raw_output=None,
                    status="failed",
                    error=f"{_describe(error)} (after {attempts} attempt{'s' if attempts > 1 else ''})",
                    attempts=attempts,
                )
            retry_after = (
                _retry_after_s(error) if isinstance(error, openai.APIStatusError) else None
            )
            await asyncio.sleep(self._backoff_s(attempts, retry_after))

    @staticmethod
    def _result(response: Any, attempts: int, latency_ms: float) -> RawResult:
        usage = getattr(response, "usage", None)
        message = response.choices[0].message if response.choices else None
        # A refusal or an empty reply is still a reply: it is recorded and fails to parse later.
        text = (message.content if message else None) or (getattr(message, "refusal", None) or "")
        return RawResult(
            raw_output=text,
            status="ok",
            attempts=attempts,
            latency_ms=latency_ms,
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
        )
