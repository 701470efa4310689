"""`/v1/completions` against a loopback fake of an OpenAI-compatible server: exact requests, usage, errors."""

from __future__ import annotations

import pytest

from inference.api import BackendConfigError, BackendError, CompletionRequest, ContextSnippet, SamplingParams
from inference.backend_spec import BackendSpec
from inference.backends.openai import OpenAIBackend
from tests.fakes.wire_servers import ERROR_MESSAGE, WireFake

REQUEST = CompletionRequest(prefix="def add(a, b):\n    return ", suffix="\n", path="m.py", language="python",
                            snippets=(ContextSnippet("ops.py", "def mul(a, b):\n    return a * b"),))


async def read_all(backend, prompt="PROMPT", **params):
    return "".join([chunk async for chunk in backend.stream(prompt, SamplingParams(**params))])


async def test_streams_text_and_sends_the_exact_body_with_the_key_as_bearer(monkeypatch):
    monkeypatch.setenv("ARBOR_TEST_KEY", "sekrit")
    with WireFake("openai", "hello world", model="m") as fake:
        backend = OpenAIBackend(BackendSpec(kind="openai", url=fake.url, model="m", api_key_env="ARBOR_TEST_KEY"))
        assert await read_all(backend, "abc", max_tokens=7, stop=("\n\n",), request=REQUEST) == "hello world"
        await backend.aclose()
    models, completion = fake.requests
    assert (models.method, models.path) == ("GET", "/v1/models")
    assert completion.path == "/v1/completions" and completion.headers["Authorization"] == "Bearer sekrit"
    assert completion.body == {"model": "m", "prompt": "abc", "max_tokens": 7, "temperature": 0.0, "top_p": 1.0,
                               "stream": True, "stream_options": {"include_usage": True}, "stop": ["\n\n"]}
    assert backend.last_usage == {"prompt_tokens": 17, "cached_tokens": 5, "prefilled_tokens": 12}


async def test_detection_fills_model_and_family_and_renders_the_prompt_again():
    with WireFake("openai", "a + b", model="Qwen/Qwen2.5-Coder-1.5B") as fake:
        backend = OpenAIBackend(BackendSpec(kind="openai", url=fake.url))
        assert backend.model_family == ""
        assert await read_all(backend, "rendered without FIM", request=REQUEST) == "a + b"
        await backend.aclose()
    body = fake.generation_requests()[0].body
    assert backend.model_family == "qwen2.5-coder" and body["model"] == "Qwen/Qwen2.5-Coder-1.5B"
    assert body["prompt"].startswith("<|repo_name|>") and body["prompt"].endswith("<|fim_middle|>")


async def test_fim_mode_server_sends_the_suffix_field():
    with WireFake("openai", "a + b") as fake:
        backend = OpenAIBackend(BackendSpec(kind="openai", url=fake.url, model="m", fim_mode="server",
                                            model_family="qwen2.5-coder"))
        await read_all(backend, max_tokens=5, stop=tuple("abcdef"), request=REQUEST)
        await backend.aclose()
    body = fake.generation_requests()[0].body
    assert body["prompt"] == "# Path: ops.py\n# def mul(a, b):\n#     return a * b\ndef add(a, b):\n    return "
    assert body["suffix"] == "\n" and body["stop"] == ["a", "b", "c", "d"]


@pytest.mark.parametrize("fault, message", [({"status": 500}, f"HTTP 500: {ERROR_MESSAGE}"),
                                            ({"stream_error": True}, ERROR_MESSAGE),
                                            ({"truncate": True}, "truncated")])
async def test_errors_carry_the_servers_message(fault, message):
    with WireFake("openai", "return 1", **fault) as fake:
        backend = OpenAIBackend(BackendSpec(kind="openai", url=fake.url, model="m"))
        with pytest.raises(BackendError, match=message):
            await read_all(backend)
        await backend.aclose()


async def test_connection_refused_becomes_backend_error():
    backend = OpenAIBackend(BackendSpec(kind="openai", url="http://127.0.0.1:9/v1", timeout_ms=500))
    with pytest.raises(BackendError, match="ConnectError"):
        await read_all(backend)
    await backend.aclose()


def test_bad_settings_are_config_errors(monkeypatch):
    monkeypatch.delenv("NOPE_KEY", raising=False)
    with pytest.raises(BackendConfigError, match="NOPE_KEY"):
        OpenAIBackend(BackendSpec(kind="openai", url="http://127.0.0.1:1/v1", api_key_env="NOPE_KEY"))
    with pytest.raises(BackendConfigError, match="http"):
        OpenAIBackend(BackendSpec(kind="openai", url="localhost:8000"))
