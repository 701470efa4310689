"""The zero-latency model: deterministic, instant, within the Backend protocol's rules."""

import asyncio

from benchmarks.zero_model import ANSWERS, ZeroLatencyBackend, answer_for
from inference.api import Backend, SamplingParams
from inference.backend_spec import BackendSpec
from inference.backends import create_backend


async def collect(backend, prompt, params=SamplingParams()):
    return "".join([chunk async for chunk in backend.stream(prompt, params)])


async def test_same_prompt_same_answer_and_answers_vary_with_prompts():
    backend = ZeroLatencyBackend()
    assert await collect(backend, "def f(x):\n    return ") == await collect(backend, "def f(x):\n    return ")
    outputs = {await collect(backend, f"prompt {i}") for i in range(64)}
    assert len(outputs) > 3 and outputs <= set(ANSWERS)


async def test_stop_strings_and_max_tokens_are_honoured():
    backend = ZeroLatencyBackend()
    prompt = next(f"p{i}" for i in range(1000) if answer_for(f"p{i}") == "value is not None")
    assert await collect(backend, prompt, SamplingParams(stop=(" is",))) == "value"
    assert await collect(backend, prompt, SamplingParams(max_tokens=1)) == "valu"
    assert await collect(backend, prompt, SamplingParams(max_tokens=0)) == ""


async def test_it_is_a_backend_that_the_python_kind_loads():
    spec = BackendSpec(name="zero", kind="python", model="benchmarks.zero_model:ZeroLatencyBackend")
    backend = create_backend(spec)
    assert isinstance(backend, Backend) and isinstance(backend, ZeroLatencyBackend)
    assert backend.name == "zero" and backend.model_family
    assert await collect(backend, "x = ") in ANSWERS
    await backend.aclose()


async def test_streaming_never_yields_to_the_event_loop():
    backend = ZeroLatencyBackend()
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.ensure_future(ticker())
    await asyncio.sleep(0)
    before = ticks
    for i in range(50):
        await collect(backend, f"p{i}")
    assert ticks == before
    task.cancel()
