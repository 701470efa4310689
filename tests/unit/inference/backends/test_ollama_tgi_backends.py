"""Ollama's `/api/generate` and TGI's `/generate_stream` against loopback fakes of each: exact requests,
detection, final events, error bodies."""

from __future__ import annotations

import pytest

from inference.api import BackendError, CompletionRequest, SamplingParams
from inference.backend_spec import BackendSpec
from inference.backends import create_backend
from tests.fakes.wire_servers import ERROR_MESSAGE, WireFake

REQUEST = CompletionRequest(prefix="def add(a, b):\n    return ", suffix="\n", path="m.py")
PARAMS = SamplingParams(max_tokens=9, stop=("\n\n",), request=REQUEST)


async def read_all(backend, prompt="PROMPT", params=PARAMS):
    return "".join([c async for c in backend.stream(prompt, params)])


async def test_ollama_detects_the_family_and_sends_our_template_raw_with_keep_alive():
    with WireFake("ollama", "a + b") as fake:
        backend = create_backend(BackendSpec(kind="ollama", url=fake.url, model="qwen2.5-coder:0.5b"))
        assert await read_all(backend) == "a + b"
        await backend.aclose()
    show, generate = fake.requests
    assert (show.path, show.body) == ("/api/show", {"model": "qwen2.5-coder:0.5b"})
    assert backend.model_family == "qwen2.5-coder" and "insert" in backend.capabilities
    assert generate.path == "/api/generate"
    # the family was detected after the router rendered "PROMPT": the backend rendered it again
    assert generate.body == {"model": "qwen2.5-coder:0.5b", "prompt": "<|repo_name|>workspace\n<|file_sep|>m.py\n"
                             "<|fim_prefix|>def add(a, b):\n    return <|fim_suffix|>\n<|fim_middle|>",
                             "raw": True, "stream": True,
                             "options": {"num_predict": 9, "temperature": 0.0, "top_p": 1.0, "stop": ["\n\n"]},
                             "keep_alive": "30m"}
    assert backend.last_usage == {"prefilled_tokens": 17}


async def test_ollama_uses_its_own_fim_for_an_unknown_family_with_insert():
    with WireFake("ollama", "a + b", model="mystery:1b") as fake:
        backend = create_backend(BackendSpec(kind="ollama", url=fake.url, model="mystery:1b", keep_alive="",
                                             fim_mode="server"))
        await read_all(backend)
        await backend.aclose()
    body = fake.generation_requests()[0].body
    assert body["raw"] is False and body["prompt"] == REQUEST.prefix and body["suffix"] == "\n"
    assert "keep_alive" not in body


async def test_ollama_reports_its_error_body():
    with WireFake("ollama", status=404) as fake:
        backend = create_backend(BackendSpec(kind="ollama", url=fake.url, model="m"))
        with pytest.raises(BackendError, match=f"HTTP 404: {ERROR_MESSAGE}"):
            await read_all(backend)
        await backend.aclose()


async def test_tgi_sends_greedy_parameters_and_reads_to_the_final_event():
    with WireFake("tgi", "a + b") as fake:
        backend = create_backend(BackendSpec(kind="tgi", url=fake.url, model_family="starcoder2"))
        assert await read_all(backend, params=SamplingParams(max_tokens=9, stop=tuple("abcdef"))) == "a + b"
        await backend.aclose()
    info, generate = fake.requests
    assert (info.method, info.path) == ("GET", "/info") and backend.model_family == "starcoder2"
    assert generate.body == {"inputs": "PROMPT", "stream": True, "parameters": {
        "max_new_tokens": 9, "details": False, "do_sample": False, "stop": ["a", "b", "c", "d"]}}


async def test_tgi_detects_the_family_from_its_model_id():
    with WireFake("tgi", "x") as fake:
        backend = create_backend(BackendSpec(kind="tgi", url=fake.url))
        await read_all(backend)
        await backend.aclose()
    assert backend.model_family == "starcoder2"


@pytest.mark.parametrize("fault, message", [({"status": 422}, f"HTTP 422: {ERROR_MESSAGE}"),
                                            ({"stream_error": True}, ERROR_MESSAGE),
                                            ({"truncate": True}, "truncated")])
@pytest.mark.parametrize("kind", ["ollama", "tgi"])
async def test_errors_carry_the_servers_message(kind, fault, message):
    with WireFake(kind, "return 1", **fault) as fake:
        backend = create_backend(BackendSpec(kind=kind, url=fake.url, model="m"))
        with pytest.raises(BackendError, match=message):
            await read_all(backend)
        await backend.aclose()
