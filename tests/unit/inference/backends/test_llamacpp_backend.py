"""llama-server's native API against a loopback fake of it: the exact requests sent, the events read."""

from __future__ import annotations

import pytest

from inference.api import BackendError, CompletionRequest, ContextSnippet, SamplingParams
from inference.backend_spec import BackendSpec
from inference.backends import create_backend
from inference.backends.llamacpp import PROBE_TOKENS
from tests.fakes.wire_servers import ERROR_MESSAGE, WireFake

REQUEST = CompletionRequest(prefix="from shapes import area\n\ndef total(xs):\n    return ", suffix="\n\nprint(1)\n",
                            path="main.py", snippets=(ContextSnippet("shapes.py", "def area(w, h):\n    return w * h"),
                                                      ContextSnippet("util.py", "def one():\n    return 1")))
PARAMS = SamplingParams(max_tokens=9, stop=("\n\n",), deadline_ms=800, request=REQUEST)


async def read_all(backend, prompt="PROMPT", params=PARAMS):
    return "".join([c async for c in backend.stream(prompt, params)])


def sampling(**extra):
    return {"n_predict": 9, "temperature": 0.0, "top_p": 1.0, "stop": ["\n\n"], "stream": True, "cache_prompt": True,
            "timings_per_token": True, "id_slot": -1, "t_max_predict_ms": 800, **extra}


INFILL = {"input_extra": [{"filename": "shapes.py", "text": "def area(w, h):\n    return w * h"},
                          {"filename": "util.py", "text": "def one():\n    return 1"}],
          "input_prefix": "from shapes import area\n\ndef total(xs):\n", "prompt": "    return ",
          "input_suffix": "\n\nprint(1)\n", "n_indent": 4}


async def test_detection_then_infill_with_cross_file_input_extra():
    with WireFake("llamacpp", "sum(xs)\n") as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url))
        assert await read_all(backend) == "sum(xs)\n"
        await backend.aclose()
    props, tokenize, infill = fake.requests
    assert (props.method, props.path) == ("GET", "/props")
    assert (tokenize.path, tokenize.body) == ("/tokenize", {"content": "\n".join(PROBE_TOKENS), "with_pieces": True,
                                                            "parse_special": True})
    assert (infill.path, infill.body) == ("/infill", {**INFILL, **sampling()})
    assert backend.model_family == "qwen2.5-coder" and backend.total_slots == 1 and backend.n_ctx == 4096
    assert backend.last_usage == {"prefilled_tokens": 17, "cached_tokens": 5, "prompt_tokens": 22, "prefill_ms": 12}


async def test_model_family_setting_wins_over_detection_and_template_mode_uses_completion():
    with WireFake("llamacpp", "sum(xs)") as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url, model_family="starcoder2",
                                             fim_mode="template", stop=["<eot>"], id_slot=0))
        assert await read_all(backend) == "sum(xs)"
        await backend.aclose()
    assert backend.model_family == "starcoder2"
    completion = fake.generation_requests()[0]
    assert (completion.path, completion.body) == ("/completion", {"prompt": "PROMPT", **sampling(
        stop=["\n\n", "<eot>"], id_slot=0)})


async def test_a_501_from_infill_falls_back_to_completion_in_the_same_request_and_later_ones():
    with WireFake("llamacpp", "x", fim_tokens=False) as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url))
        assert await read_all(backend) == "x"
        assert await read_all(backend) == "x"
        await backend.aclose()
    assert [r.path for r in fake.generation_requests()] == ["/infill", "/completion", "/completion"]
    assert backend.infill is False and backend.model_family == ""
    assert fake.generation_requests()[1].body == {"prompt": "PROMPT", **sampling()}


async def test_fim_mode_server_reports_the_501_instead_of_falling_back():
    with WireFake("llamacpp", "x", fim_tokens=False) as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url, fim_mode="server"))
        with pytest.raises(BackendError, match="HTTP 501: Infill is not supported"):
            await read_all(backend)
        await backend.aclose()


async def test_warm_up_sends_the_snippets_and_the_prefix_with_n_predict_zero():
    with WireFake("llamacpp", prompt_tokens=250) as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url))
        assert await backend.warm_request(REQUEST, "PROMPT") == 250
        await backend.aclose()
    (infill,) = fake.generation_requests()
    assert (infill.path, infill.body) == ("/infill", {**INFILL, "prompt": "", "input_suffix": "", "n_indent": 0,
                                                      "n_predict": 0, "cache_prompt": True, "stream": False,
                                                      "id_slot": -1})


LONG = CompletionRequest(prefix="".join(f"x{i} = {i}  # a line of about forty chars\n" for i in range(40)) + "y = ",
                         suffix="\n", path="main.py")


async def test_a_long_warm_up_goes_in_steps_that_stop_when_a_request_wants_the_server():
    with WireFake("llamacpp", prompt_tokens=60, fim_tokens=False) as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url, fim_mode="template"))
        assert await backend.warm_request(LONG, LONG.prefix) == 60 * 6  # ~1,560 characters, steps of >= 256
        prompts = [r.body["prompt"] for r in fake.generation_requests()]
        assert len(prompts) == 6 and all(256 <= len(b) - len(a) < 300 for a, b in zip(prompts, prompts[1:-1], strict=False))
        assert prompts[-1] == LONG.prefix and all(b.startswith(a) for a, b in zip(prompts, prompts[1:], strict=False))
        asked = iter([False, False, True])
        assert await backend.warm_request(LONG, LONG.prefix, lambda: next(asked)) == 60 * 2
        await backend.aclose()
    assert len(fake.generation_requests()) == 6 + 2


@pytest.mark.parametrize("fault, message", [({"status": 503}, f"HTTP 503: {ERROR_MESSAGE}"),
                                            ({"stream_error": True}, ERROR_MESSAGE),
                                            ({"truncate": True}, "truncated")])
async def test_errors_carry_the_servers_message(fault, message):
    with WireFake("llamacpp", "return 1", **fault) as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url))
        with pytest.raises(BackendError, match=message):
            await read_all(backend)
        await backend.aclose()


async def test_a_request_without_its_structured_form_is_sent_to_completion():
    with WireFake("llamacpp", "x") as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url))
        assert await read_all(backend, params=SamplingParams(max_tokens=9)) == "x"
        await backend.aclose()
    assert fake.generation_requests()[0].body["prompt"] == "PROMPT"
    assert "t_max_predict_ms" not in fake.generation_requests()[0].body


async def test_the_routers_warm_up_reaches_infill_with_n_predict_zero():
    from inference.router import Router

    with WireFake("llamacpp", prompt_tokens=99) as fake:
        router = Router([BackendSpec(kind="llamacpp", url=fake.url)])
        assert await router.warm(REQUEST) == 99
        await router.aclose()
    warm = fake.generation_requests()[0]
    assert (warm.path, warm.body["n_predict"], warm.body["input_extra"]) == ("/infill", 0, INFILL["input_extra"])


async def test_a_deadline_closes_the_connection_of_a_slow_stream():
    import asyncio

    from inference.router import collect

    with WireFake("llamacpp", "x" * 200, chunk_size=1, chunk_delay=0.05) as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url))
        started = asyncio.get_running_loop().time()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(collect(backend, "PROMPT", PARAMS, True), 0.5)
        assert asyncio.get_running_loop().time() - started < 0.55
        assert await asyncio.to_thread(fake.disconnected.wait, 3.0), "the fake kept streaming to nobody"
        await backend.aclose()
