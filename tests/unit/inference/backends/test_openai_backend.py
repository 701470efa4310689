from __future__ import annotations

import pytest

from inference.api import BackendConfigError, BackendError, SamplingParams
from inference.backend_spec import BackendSpec
from inference.backends.openai import OpenAIBackend
from tests.fakes.openai_server import FakeOpenAIServer


async def read_all(backend, prompt="p", **params):
    return "".join([chunk async for chunk in backend.stream(prompt, SamplingParams(**params))])


async def test_streams_text_and_sends_the_expected_body(monkeypatch):
    monkeypatch.setenv("ARBOR_TEST_KEY", "sekrit")
    with FakeOpenAIServer("hello world", chunk_size=2) as fake:
        backend = OpenAIBackend(BackendSpec(kind="openai", url=fake.url, model="m", api_key_env="ARBOR_TEST_KEY"))
        assert await read_all(backend, "abc", max_tokens=7, stop=("\n\n",)) == "hello world"
        await backend.aclose()
    body = fake.requests[0]
    assert body["prompt"] == "abc" and body["model"] == "m" and body["max_tokens"] == 7
    assert body["stop"] == ["\n\n"] and body["stream"] is True


async def test_http_error_becomes_backend_error():
    with FakeOpenAIServer("x", status=500) as fake:
        backend = OpenAIBackend(BackendSpec(kind="openai", url=fake.url))
        with pytest.raises(BackendError, match="HTTP 500"):
            await read_all(backend)
        await backend.aclose()


async def test_connection_refused_becomes_backend_error():
    backend = OpenAIBackend(BackendSpec(kind="openai", url="http://127.0.0.1:9/v1", timeout_ms=500))
    with pytest.raises(BackendError):
        await read_all(backend)
    await backend.aclose()


def test_bad_settings_are_config_errors(monkeypatch):
    monkeypatch.delenv("NOPE_KEY", raising=False)
    with pytest.raises(BackendConfigError, match="NOPE_KEY"):
        OpenAIBackend(BackendSpec(kind="openai", url="http://127.0.0.1:1/v1", api_key_env="NOPE_KEY"))
    with pytest.raises(BackendConfigError, match="http"):
        OpenAIBackend(BackendSpec(kind="openai", url="localhost:8000"))
