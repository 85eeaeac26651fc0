"""The one model client against a real OpenAI-compatible server on loopback: its retry policy
(429 and 5xx retried, Retry-After honoured, 400 not retried, 401/403/404 a configuration
error), its timeout, its concurrency bound (async and across threads), and the five uses —
extractor, community reports, community_themes' answer, embeddings, agent — each reaching the
server through it with the model its settings name, the shared GRAPHRAG_MODEL_* block serving
them all unless a use overrides it."""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time

import pytest
from pydantic import ValidationError

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.common.model_client import (
    AsyncModelClient,
    ModelCallError,
    ModelClient,
    backoff_s,
    classify,
)
from graphrag_core.common.model_endpoint import ModelEndpoint
from graphrag_core.settings import ModelSettings, Settings
from tests.openai_server import EMBEDDING_DIM, Delay, OpenAICompatibleServer, Reply, Status

HELLO = [{"role": "user", "content": "hello"}]


def endpoint(base_url: str, /, **overrides) -> ModelEndpoint:
    values = {
        "use": "test",
        "base_url": base_url,
        "model": "scripted",
        "timeout_s": 5.0,
        "concurrency": 4,
        "max_retries": 3,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
        "settings_prefix": "TEST_",
    } | overrides
    return ModelEndpoint.model_validate(values)


def sequence(*actions):
    """A script answering request n with actions[n], the last repeating."""
    served = []

    def script(body: dict):
        served.append(body)
        return actions[min(len(served) - 1, len(actions) - 1)]

    return script


# -- the retry policy --------------------------------------------------------------------------
def test_throttling_and_server_errors_are_retried_until_an_answer():
    with OpenAICompatibleServer(sequence(Status(429), Status(503), Reply("done"))) as server:
        with ModelClient(endpoint(server.base_url)) as client:
            completion = client.chat(messages=HELLO)
    assert completion.response.choices[0].message.content == "done"
    assert completion.attempts == 3 and len(server.requests) == 3
    assert all(r["model"] == "scripted" for r in server.requests)


def test_the_async_client_retries_alike():
    async def ask(base_url: str):
        async with AsyncModelClient(endpoint(base_url)) as client:
            return await client.chat(messages=HELLO)

    with OpenAICompatibleServer(sequence(Status(500), Reply("done"))) as server:
        completion = asyncio.run(ask(server.base_url))
    assert (completion.attempts, completion.response.choices[0].message.content) == (2, "done")


def test_retry_after_is_honoured():
    with OpenAICompatibleServer(sequence(Status(429, retry_after=0.4), Reply("ok"))) as server:
        with ModelClient(endpoint(server.base_url, backoff_max_s=5.0)) as client:
            client.chat(messages=HELLO)
    first, second = server.request_times
    assert second - first >= 0.4


def test_a_bad_request_is_not_retried():
    with OpenAICompatibleServer(sequence(Status(400, message="bad schema"))) as server:
        with ModelClient(endpoint(server.base_url)) as client:
            with pytest.raises(ModelCallError, match="HTTP 400") as failed:
                client.chat(messages=HELLO)
    assert failed.value.attempts == 1 and len(server.requests) == 1


@pytest.mark.parametrize("code", [401, 403, 404])
def test_a_refused_key_model_or_url_is_a_configuration_error_naming_the_settings(code):
    with OpenAICompatibleServer(sequence(Status(code))) as server:
        with ModelClient(endpoint(server.base_url)) as client:
            with pytest.raises(ConfigurationError, match="TEST_MODEL"):
                client.chat(messages=HELLO)
    assert len(server.requests) == 1


def test_retries_stop_at_max_retries():
    with OpenAICompatibleServer(sequence(Status(503))) as server:
        with ModelClient(endpoint(server.base_url, max_retries=2)) as client:
            with pytest.raises(ModelCallError, match=r"HTTP 503.*after 3 attempts"):
                client.chat(messages=HELLO)
    assert len(server.requests) == 3


def test_a_request_past_its_timeout_fails_as_timed_out_after_its_retries():
    with OpenAICompatibleServer(sequence(Delay(2.0, Reply("late")))) as server:
        with ModelClient(endpoint(server.base_url, timeout_s=0.3, max_retries=1)) as client:
            started = time.perf_counter()
            with pytest.raises(ModelCallError, match="timed out") as failed:
                client.chat(messages=HELLO)
            elapsed = time.perf_counter() - started
    assert failed.value.attempts == 2 and elapsed < 1.9


def test_a_slow_answer_once_is_retried():
    with OpenAICompatibleServer(sequence(Delay(2.0, Reply("late")), Reply("ok"))) as server:
        with ModelClient(endpoint(server.base_url, timeout_s=0.3)) as client:
            completion = client.chat(messages=HELLO)
    assert (completion.attempts, completion.response.choices[0].message.content) == (2, "ok")


def test_the_policy_classifies_and_backs_off_within_bounds():
    import httpx2
    import openai

    request = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")

    def status(code: int) -> openai.APIStatusError:
        response = httpx2.Response(code, request=request)
        return openai.APIStatusError("x", response=response, body=None)

    assert [classify(status(c)) for c in (408, 409, 429, 500, 503)] == ["retry"] * 5
    assert [classify(status(c)) for c in (400, 422)] == ["fail"] * 2
    assert [classify(status(c)) for c in (401, 403, 404)] == ["configuration"] * 3
    assert classify(openai.APITimeoutError(request)) == "retry"
    assert classify(ValueError("not an API error")) == "fail"
    e = endpoint("http://127.0.0.1/v1", backoff_base_s=0.5, backoff_max_s=4.0)
    assert backoff_s(e, 1, None, 0.0) == 0.5 and backoff_s(e, 3, None, 0.0) == 2.0
    assert backoff_s(e, 10, None, 0.0) == 4.0  # capped
    assert backoff_s(e, 1, 3.0, 0.0) == 3.0  # the server's Retry-After, when longer
    assert backoff_s(e, 1, 60.0, 0.99) <= 4.0 * 1.25  # capped, jitter at most 25%


# -- the concurrency bound ---------------------------------------------------------------------
def test_the_async_bound_holds():
    async def ask_many(base_url: str) -> None:
        async with AsyncModelClient(endpoint(base_url, concurrency=3)) as client:
            await asyncio.gather(*(client.chat(messages=HELLO) for _ in range(12)))

    with OpenAICompatibleServer(sequence(Delay(0.3, Reply("ok")))) as server:
        asyncio.run(ask_many(server.base_url))
    assert len(server.requests) == 12 and server.max_in_flight == 3


def test_the_bound_holds_across_threads_sharing_a_client():
    with OpenAICompatibleServer(sequence(Delay(0.3, Reply("ok")))) as server:
        with ModelClient(endpoint(server.base_url, concurrency=2)) as client:
            threads = [
                threading.Thread(target=client.chat, kwargs={"messages": HELLO}) for _ in range(8)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    assert len(server.requests) == 8 and server.max_in_flight == 2


def test_a_throttled_request_waits_outside_the_bound():
    """A request waiting to retry holds no slot: with one slot, a second request is served
    while the first waits out its Retry-After."""

    throttled: list[bool] = []

    def script(body: dict):
        if body["messages"][0]["content"] == "first" and not throttled:
            throttled.append(True)
            return Status(429, retry_after=0.5)
        return Reply("ok")

    async def both(base_url: str) -> None:
        async with AsyncModelClient(endpoint(base_url, concurrency=1, backoff_max_s=5)) as c:
            first = c.chat(messages=[{"role": "user", "content": "first"}])
            second = c.chat(messages=[{"role": "user", "content": "second"}])
            await asyncio.gather(first, second)

    with OpenAICompatibleServer(script) as server:
        asyncio.run(both(server.base_url))
    order = [r["messages"][0]["content"] for r in server.requests]
    assert order == ["first", "second", "first"]


# -- embeddings --------------------------------------------------------------------------------
def test_embeddings_come_back_one_per_text_in_order_and_are_retried():
    script = sequence(Status(503), Reply(""))
    with OpenAICompatibleServer(embeddings_script=script) as server:
        with ModelClient(endpoint(server.base_url)) as client:
            vectors = client.embed(["chips", "banks", "chips"])
    assert len(vectors) == 3 and len(vectors[0]) == EMBEDDING_DIM
    assert vectors[0] == vectors[2] != vectors[1]
    assert len(server.requests) == 2 and server.requests[-1]["encoding_format"] == "float"


# -- settings: one block, shared by the five uses ----------------------------------------------
def clear_use_settings(monkeypatch) -> None:
    """No endpoint setting from the environment (conftest may point embeddings at a server)."""
    import os

    prefixes = ("GRAPHRAG_MODEL_", "EXTRACTOR_", "ANALYST_", "GRAPHRAG_COMMUNITIES_")
    for name in list(os.environ):
        if name.startswith(prefixes) or name.startswith("GRAPHRAG_RETRIEVAL_EMBED_"):
            monkeypatch.delenv(name)


def test_the_shared_block_serves_every_use_unless_it_overrides(monkeypatch):
    clear_use_settings(monkeypatch)
    monkeypatch.setenv("GRAPHRAG_MODEL_BASE_URL", "http://vllm:8000/v1")
    monkeypatch.setenv("GRAPHRAG_MODEL_MODEL", "shared")
    monkeypatch.setenv("GRAPHRAG_MODEL_TIMEOUT_S", "7")
    monkeypatch.setenv("EXTRACTOR_CONCURRENCY", "9")
    monkeypatch.setenv("ANALYST_MODEL", "chat")
    monkeypatch.setenv("GRAPHRAG_RETRIEVAL_EMBED_MODEL", "embedder")
    settings = Settings()
    endpoints = {
        "extraction": settings.extraction.endpoint(),
        "summaries": settings.communities.summaries_endpoint(),
        "themes": settings.communities.themes_endpoint(),
        "embeddings": settings.retrieval.embeddings_endpoint(),
        "agent": settings.agent.endpoint(),
    }
    assert all(e is not None and e.base_url == "http://vllm:8000/v1" for e in endpoints.values())
    models = {use: e.model for use, e in endpoints.items() if e}
    assert models == {
        "extraction": "shared",
        "summaries": "shared",
        "themes": "shared",
        "embeddings": "embedder",
        "agent": "chat",
    }
    assert {e.timeout_s for e in endpoints.values() if e} == {7.0}
    # A tunable the shared block leaves unset keeps each use's own default.
    concurrency = {use: e.concurrency for use, e in endpoints.items() if e}
    assert concurrency == {
        "extraction": 9,
        "summaries": 8,
        "themes": 4,
        "embeddings": 4,
        "agent": 4,
    }
    assert settings.extraction.resolved_backend() == "openai"
    assert settings.communities.resolved_summarizer() == "openai"
    assert settings.communities.model_reduce()


def test_with_nothing_configured_every_use_runs_without_a_model(monkeypatch):
    clear_use_settings(monkeypatch)
    settings = Settings()
    assert settings.extraction.resolved_backend() == "rules"
    assert settings.communities.resolved_summarizer() == "extractive"
    assert not settings.communities.model_reduce()
    assert settings.agent.endpoint() is None and settings.retrieval.embeddings_endpoint() is None


def test_the_themes_answer_takes_the_reports_endpoint_before_the_shared_one(monkeypatch):
    clear_use_settings(monkeypatch)
    settings = Settings(
        models=ModelSettings(base_url="http://shared/v1", model="shared"),
        communities={"base_url": "http://reports/v1", "model": "reports"},
    )
    themes = settings.communities.themes_endpoint()
    assert themes is not None and (themes.base_url, themes.model) == (
        "http://reports/v1",
        "reports",
    )
    overridden = Settings(
        models=ModelSettings(base_url="http://shared/v1", model="shared"),
        communities={"model": "reports", "reduce_model": "short"},
    )
    themes = overridden.communities.themes_endpoint()
    assert themes is not None and (themes.base_url, themes.model) == ("http://shared/v1", "short")


def test_settings_survive_the_trip_through_the_environment(monkeypatch):
    """Run workers rebuild Settings from settings_environment: the resolved endpoints match."""
    from graphrag_core.settings import settings_environment

    clear_use_settings(monkeypatch)
    settings = Settings(models=ModelSettings(base_url="http://vllm/v1", model="m", max_retries=1))
    for name, value in settings_environment(settings).items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    again = Settings()
    assert again.extraction.endpoint() == settings.extraction.endpoint()
    assert again.agent.endpoint() == settings.agent.endpoint()
    assert again.communities.themes_endpoint() == settings.communities.themes_endpoint()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GRAPHRAG_MODEL_TIMEOUT_S", "nan"),
        ("GRAPHRAG_MODEL_TIMEOUT_S", "inf"),
        ("GRAPHRAG_MODEL_TIMEOUT_S", "-1"),
        ("GRAPHRAG_MODEL_CONCURRENCY", "0"),
        ("GRAPHRAG_MODEL_MAX_RETRIES", "-1"),
        ("GRAPHRAG_MODEL_MAX_RETRIES", "1e9"),
        ("EXTRACTOR_TIMEOUT_S", "inf"),
        ("GRAPHRAG_RETRIEVAL_EMBED_TIMEOUT_S", "nan"),
        ("ANALYST_MAX_RETRIES", "21"),
        ("GRAPHRAG_COMMUNITIES_REDUCE_CONCURRENCY", "0"),
    ],
)
def test_hostile_endpoint_settings_are_refused_when_read(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings()


@pytest.mark.parametrize(
    "overrides",
    [
        {"base_url": ""},
        {"model": ""},
        {"timeout_s": math.inf},
        {"timeout_s": math.nan},
        {"timeout_s": 0},
        {"concurrency": 0},
        {"max_retries": -1},
        {"backoff_max_s": math.nan},
    ],
)
def test_hostile_endpoints_are_refused(overrides):
    with pytest.raises(ValidationError):
        endpoint("http://127.0.0.1/v1", **overrides)


def test_an_empty_url_or_model_means_no_endpoint(monkeypatch):
    clear_use_settings(monkeypatch)
    monkeypatch.setenv("GRAPHRAG_MODEL_BASE_URL", "")
    monkeypatch.setenv("GRAPHRAG_MODEL_MODEL", "m")
    monkeypatch.delenv("EXTRACTOR_BASE_URL", raising=False)
    assert Settings().extraction.endpoint() is None


# -- the five uses through the one client ------------------------------------------------------
def _first_fails_then_answers():
    """Each model's first request is a 503; then each use gets an answer it can read."""
    seen: set[str] = set()
    lock = threading.Lock()

    def script(body: dict):
        with lock:
            first = body["model"] not in seen
            seen.add(body["model"])
        if first:
            return Status(503)
        if body["model"] == "extract-model":
            return Reply('{"triples": []}')
        if body["model"] == "themes-model":
            return Reply(json.dumps({"answer": "Export controls weigh on chipmakers [T1]."}))
        return Reply("not a report")  # summaries fall back to extractive; the agent reads text

    return script


def test_each_of_the_five_uses_goes_through_the_one_client(monkeypatch):
    """One server, one shared block with one retry: every use's first request fails with a 503
    and is retried (the embeddings and the themes answer had no retries before the client), and
    each use's requests carry the model its settings name."""
    from analyst.run import chat_client
    from graphrag_core.extraction.backends.base import ChunkInput
    from graphrag_core.extraction.backends.openai_backend import OpenAIBackend
    from graphrag_core.graph.communities.openai_summarizer import OpenAISummarizer
    from graphrag_core.graph.communities.reports import ReportContext
    from graphrag_core.retrieval.embedder import build_embedder
    from graphrag_core.retrieval.themes_answer import ThemesAnswerWriter

    clear_use_settings(monkeypatch)
    with OpenAICompatibleServer(
        _first_fails_then_answers(), embeddings_script=_first_fails_then_answers()
    ) as server:
        settings = Settings(
            models=ModelSettings(base_url=server.base_url, model="shared", max_retries=1),
            extraction={"model": "extract-model", "backoff_base_s": 0.01},
            communities={"model": "report-model", "reduce_model": "themes-model"},
            retrieval={"embed_backend": "openai", "embed_model": "embed-model"},
            agent={"model": "agent-model"},
        )
        chunk = ChunkInput("c:1", "c", "10-K/Item 1", "We compete with Intel.", "ab", None, "X")
        [extracted] = asyncio.run(OpenAIBackend.from_settings(settings.extraction).extract([chunk]))
        context = ReportContext(
            "C-1", 0, [], 0, [], [], [], [], [], "title", "summary", [], 1, "why"
        )
        [written] = OpenAISummarizer(settings.communities).write([context])
        writer = ThemesAnswerWriter.from_settings(settings.communities)
        assert writer is not None
        answer = writer.write("semiconductors", None, [{"label": "x", "statement": "y"}])
        vectors = build_embedder(settings.retrieval).embed(["chips"])

        async def agent_says() -> str:
            async with chat_client(settings) as chat:
                completion = await chat.chat(messages=HELLO)
            return completion.response.choices[0].message.content

        said = asyncio.run(agent_says())

    assert (extracted.status, extracted.attempts) == ("ok", 2)
    assert written.summarizer == "extractive:fallback"  # it answered; the reply was no report
    assert answer == "Export controls weigh on chipmakers [T1]."
    assert vectors.shape == (1, EMBEDDING_DIM)
    assert said == "not a report"
    by_model: dict[str, int] = {}
    for body in server.requests:
        by_model[body["model"]] = by_model.get(body["model"], 0) + 1
    assert by_model == {
        "extract-model": 2,
        "report-model": 2,
        "themes-model": 2,
        "embed-model": 2,
        "agent-model": 2,
    }
