"""Extraction through any OpenAI-compatible chat endpoint (vLLM in production).

Every request carries the extraction JSON schema twice: as OpenAI `response_format`
(json_schema, strict) and in `extra_body` under vLLM's own key, because which of the two a
server honours depends on its version, and a server that ignores both still answers (the gates
and the parser then deal with whatever comes back). Temperature is 0 so a cached reply is the
reply the model would give again.

Requests go through the project's one model client (graphrag_core/common/model_client.py:
timeouts, bounded concurrency, one retry policy); a request that never succeeds becomes a
`failed` result, and only a configuration fault (bad key, unknown model or URL) raises.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.common.model_client import AsyncModelClient, Completion, ModelCallError
from graphrag_core.common.model_endpoint import ModelEndpoint
from graphrag_core.extraction.backends.base import ChunkInput, RawResult
from graphrag_core.extraction.prompt import Prompt, load_prompt
from graphrag_core.extraction.triples import extraction_json_schema
from graphrag_core.settings import ExtractionSettings


class OpenAIBackend:
    """Structured-output extraction over HTTP with bounded concurrency, retries and accounting."""

    name = "openai"
    cacheable = True

    def __init__(
        self,
        endpoint: ModelEndpoint,
        *,
        prompt: Prompt | None = None,
        max_tokens: int = 2048,
        guided_field: str = "guided_json",
    ):
        self.endpoint = endpoint
        self.base_url = endpoint.base_url
        self.model = endpoint.model
        self.prompt = prompt or load_prompt()
        self.prompt_version = self.prompt.version
        self.concurrency = endpoint.concurrency
        self.max_tokens = max_tokens
        self.guided_field = guided_field
        self._schema = extraction_json_schema()

    @classmethod
    def from_settings(cls, settings: ExtractionSettings) -> OpenAIBackend:
        endpoint = settings.endpoint()
        if endpoint is None:
            raise ConfigurationError(
                "the openai extraction backend needs EXTRACTOR_BASE_URL and EXTRACTOR_MODEL "
                "(or the shared GRAPHRAG_MODEL_BASE_URL and GRAPHRAG_MODEL_MODEL; or set "
                "EXTRACTOR_BACKEND=rules to extract without a model server)"
            )
        return cls(
            endpoint,
            prompt=load_prompt(settings.prompt),
            max_tokens=settings.max_tokens,
            guided_field=settings.guided_field,
        )

    def context_key(self, chunk: ChunkInput) -> str:
        return json.dumps({"company": chunk.company, "section": chunk.section}, sort_keys=True)

    def request_body(self, chunk: ChunkInput) -> dict[str, Any]:
        """Keyword arguments of `chat.completions.create` for one chunk (the client adds the
        model)."""
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

    async def extract(self, chunks: Sequence[ChunkInput]) -> list[RawResult]:
        if not chunks:
            return []
        async with AsyncModelClient(self.endpoint) as client:
            return list(await asyncio.gather(*(self._extract_one(client, c) for c in chunks)))

    async def _extract_one(self, client: AsyncModelClient, chunk: ChunkInput) -> RawResult:
        try:
            completion = await client.chat(**self.request_body(chunk))
        except ModelCallError as exc:
            return RawResult(
                raw_output=None, status="failed", error=str(exc), attempts=exc.attempts
            )
        return self._result(completion)

    @staticmethod
    def _result(completion: Completion) -> RawResult:
        response = completion.response
        usage = getattr(response, "usage", None)
        message = response.choices[0].message if response.choices else None
        # A refusal or an empty reply is still a reply: it is recorded and fails to parse later.
        text = (message.content if message else None) or (getattr(message, "refusal", None) or "")
        return RawResult(
            raw_output=text,
            status="ok",
            attempts=completion.attempts,
            latency_ms=completion.latency_ms,
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
        )
