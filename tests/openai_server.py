"""A real OpenAI-compatible HTTP server on loopback, scripted per request: the model-server test
double for the `openai` extraction backend (and for bench/extract.py).

It speaks the Chat Completions wire format over a real socket (uvicorn + starlette, port 0), so
the backend under test runs its real HTTP client, timeouts and retries. Each request is recorded
(body, time) so tests can assert what was sent, and so is the most requests it held at once
(`max_in_flight`); a script decides each reply:

    Reply(content)            200 with `content` as the assistant message
    Status(429, retry_after)  an error status, optionally with Retry-After
    Delay(seconds, then)      sleep, then answer `then` (a client timeout fires first if shorter)
    ToolCalls(calls)          200 with an assistant message calling tools ((name, arguments) pairs),
                              finish_reason "tool_calls" — what vLLM sends with a tool-call parser

It also serves `/v1/embeddings` (deterministic hashed bag-of-words vectors, `EMBEDDING_DIM`
wide, unit length): the stand-in for an embeddings server (TEI, vLLM --task embed); an
`embeddings_script` may answer a request with a Status or a Delay instead.

Run standalone (the benchmark does, to keep the server off the client's core):

    python -m tests.openai_server --latency-ms 100 --script bench.extract:planted_reply
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


@dataclass(frozen=True)
class Reply:
    content: str


@dataclass(frozen=True)
class Status:
    code: int
    retry_after: float | None = None
    message: str = "scripted error"


@dataclass(frozen=True)
class Delay:
    seconds: float
    then: Reply | Status


@dataclass(frozen=True)
class ToolCalls:
    calls: tuple[tuple[str, dict], ...]
    content: str = ""


EMBEDDING_DIM = 64


def hashed_embedding(text: str, dim: int = EMBEDDING_DIM) -> list[float]:
    """A bag of lower-case words hashed into `dim` buckets, unit length: texts sharing words
    are close, which is all a stand-in embeddings server needs to be."""
    import hashlib
    import math

    vec = [0.0] * dim
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big") % dim
        vec[bucket] += 1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


Action = Reply | Status | Delay | ToolCalls
Script = Callable[[dict], Action]


def passage_of(body: dict) -> str:
    """The passage text of an extraction request (after the 'Passage:' line of the user message)."""
    user = next((m["content"] for m in body.get("messages", []) if m.get("role") == "user"), "")
    return user.split("Passage:\n", 1)[-1]


@dataclass
class ByPassage:
    """Replies chosen by a marker substring of the passage; each marker has a queue of actions,
    consumed one per request, the last repeating. Unmatched passages get `default`."""

    rules: list[tuple[str, list[Action]]]
    default: Action = field(default_factory=lambda: Reply('{"triples": []}'))
    calls: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict) -> Action:
        passage = passage_of(body)
        for marker, actions in self.rules:
            if marker in passage:
                with self._lock:
                    n = self.calls.get(marker, 0)
                    self.calls[marker] = n + 1
                return actions[min(n, len(actions) - 1)]
        return self.default


def _error(action: Status) -> JSONResponse:
    headers = {"retry-after": f"{action.retry_after:g}"} if action.retry_after is not None else {}
    return JSONResponse(
        {"error": {"message": action.message, "type": "scripted", "code": action.code}},
        status_code=action.code,
        headers=headers,
    )


def _tokens(text: str) -> int:
    return len(re.findall(r"\w+|[^\w\s]", text))


class OpenAICompatibleServer:
    """Start with `with OpenAICompatibleServer(script) as server:`; `server.base_url` ends in
    /v1."""

    def __init__(
        self,
        script: Script | None = None,
        latency_s: float = 0.0,
        embeddings_script: Script | None = None,
    ):
        self.script: Script = script or ByPassage([])
        self.embeddings_script = embeddings_script
        self.latency_s = latency_s
        self.requests: list[dict] = []
        self.request_times: list[float] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port: int | None = None

    # -- HTTP ------------------------------------------------------------------------------
    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self._completions, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/v1/embeddings", self._embeddings, methods=["POST"]),
            ]
        )

    async def _models(self, request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    async def _embeddings(self, request: Request) -> JSONResponse:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            self.request_times.append(time.perf_counter())
        action = self.embeddings_script(body) if self.embeddings_script else None
        while isinstance(action, Delay):
            await asyncio.sleep(action.seconds)
            action = action.then
        if isinstance(action, Status):
            return _error(action)
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
        return JSONResponse(
            {
                "object": "list",
                "model": body.get("model"),
                "data": [
                    {"object": "embedding", "index": i, "embedding": hashed_embedding(t)}
                    for i, t in enumerate(texts)
                ],
                "usage": {
                    "prompt_tokens": sum(_tokens(t) for t in texts),
                    "total_tokens": sum(_tokens(t) for t in texts),
                },
            }
        )

    async def _completions(self, request: Request) -> JSONResponse:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            self.request_times.append(time.perf_counter())
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._reply(body)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _reply(self, body: dict) -> JSONResponse:
        action = self.script(body)
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        while isinstance(action, Delay):
            await asyncio.sleep(action.seconds)
            action = action.then
        if isinstance(action, Status):
            return _error(action)
        prompt = " ".join(m.get("content") or "" for m in body.get("messages", []))
        if isinstance(action, ToolCalls):
            n = len(self.requests)
            calls = [
                {
                    "id": f"call_{n}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                for i, (name, arguments) in enumerate(action.calls)
            ]
            return JSONResponse(
                {
                    "id": f"chatcmpl-{n}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "tool_calls",
                            "message": {
                                "role": "assistant",
                                "content": action.content or None,
                                "tool_calls": calls,
                            },
                        }
                    ],
                    "usage": {
                        "prompt_tokens": _tokens(prompt),
                        "completion_tokens": 10 * len(calls),
                        "total_tokens": _tokens(prompt) + 10 * len(calls),
                    },
                }
            )
        return JSONResponse(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": action.content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": _tokens(prompt),
                    "completion_tokens": _tokens(action.content),
                    "total_tokens": _tokens(prompt) + _tokens(action.content),
                },
            }
        )

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAICompatibleServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app(),
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
            backlog=2048,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [sock]},
            name="openai-test-server",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the loopback OpenAI-compatible server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> OpenAICompatibleServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _load(spec: str) -> Callable[[str], str]:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument(
        "--script",
        default=None,
        help="module:function mapping a passage's text to the reply content (default: no triples)",
    )
    args = parser.parse_args(argv)
    reply_for = _load(args.script) if args.script else (lambda passage: '{"triples": []}')
    server = OpenAICompatibleServer(
        lambda body: Reply(reply_for(passage_of(body))), latency_s=args.latency_ms / 1000
    )
    server.start()
    print(json.dumps({"port": server.port}), flush=True)
    try:
        sys.stdin.read()  # runs until the parent closes our stdin
    finally:
        server.stop()


if __name__ == "__main__":
    main()
