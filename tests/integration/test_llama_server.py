"""The llamacpp and openai backends against a real llama-server running the default model's Q4_K_M
GGUF (it has FIM tokens, which `/infill` requires), started on a loopback port for this module.

The binary is the one scripts/build-llama-server.sh builds (scripts/setup-test.sh runs it, as it
assembles the GGUF); these tests skip only when that binary is absent. The server runs one slot,
a 2,048-token context and 2 threads; each test bounds its own time.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import httpx
import pytest

from inference.api import CompletionRequest, ContextSnippet, SamplingParams
from inference.backend_spec import BackendSpec
from inference.backends import create_backend
from inference.router import Router, collect
from inference.routing import RouteSettings
from inference.templates import template_for

from .conftest import N_CTX

pytestmark = pytest.mark.slow


def llamacpp(server, **spec):
    return create_backend(BackendSpec(kind="llamacpp", url=server.url, timeout_ms=60_000, **spec))


def slots(server) -> list[dict]:
    return httpx.get(f"{server.url}/slots", timeout=5).json()


async def wait_idle(server, within_s: float) -> float:
    """Seconds until the server's slots are all idle; fails after `within_s`. It awaits between
    looks: the event loop must run for a closed stream's socket to be closed."""
    started = time.monotonic()
    while time.monotonic() - started < within_s:
        if not any(s["is_processing"] for s in await asyncio.to_thread(slots, server)):
            return time.monotonic() - started
        await asyncio.sleep(0.05)
    pytest.fail(f"the server was still generating {within_s} s after the stream was closed")


CART = ContextSnippet("shop/cart.py", "class Cart:\n    def compute_grand_total_cents(self) -> int:\n"
                                      "        return sum(item.price_cents for item in self.items)\n")
CHECKOUT = CompletionRequest(prefix="from shop.cart import Cart\n\n\ndef checkout(cart: Cart) -> int:\n"
                                    "    return cart.", suffix="\n", path="shop/checkout.py", language="python",
                             snippets=(CART,), max_tokens=12)


async def complete(backend, request) -> str:
    """The first line of a completion, with the prompt the router would render."""
    template = template_for("qwen2.5-coder")
    sampling = SamplingParams(max_tokens=request.max_tokens, stop=("\n", *template.stop), request=request)
    return await asyncio.wait_for(collect(backend, template.render(request), sampling, multiline=False), 60)


async def test_props_detection_names_the_family_slots_and_context(server):
    backend = llamacpp(server)
    await asyncio.wait_for(backend.detect(), 30)
    await backend.aclose()
    assert backend.model_family == "qwen2.5-coder"
    assert (backend.total_slots, backend.n_ctx) == (1, N_CTX)
    assert {"<|fim_prefix|>", "<|fim_middle|>", "<|repo_name|>", "<|file_sep|>"} <= backend.special_tokens


async def test_infill_uses_the_cross_file_chunks_in_input_extra(server):
    backend = llamacpp(server)
    with_extra = await complete(backend, CHECKOUT)
    usage_with = dict(backend.last_usage)
    without = await complete(backend, CompletionRequest(prefix=CHECKOUT.prefix, suffix="\n", path=CHECKOUT.path,
                                                        max_tokens=12))
    await backend.aclose()
    assert backend.infill, "the server refused /infill"
    assert with_extra.startswith("compute_grand_total_cents"), with_extra
    assert not without.startswith("compute_grand_total_cents"), without
    assert usage_with["prompt_tokens"] > 40  # the chunk's tokens were in the prompt


async def test_streaming_delivers_text_in_several_chunks_as_it_is_generated(server):
    backend = llamacpp(server)
    arrivals: list[float] = []
    started = time.monotonic()
    request = CompletionRequest(prefix="def fib(n):\n    ", suffix="", path="fib.py", max_tokens=10)
    params = SamplingParams(max_tokens=10, request=request)
    async with contextlib.aclosing(backend.stream("", params)) as chunks:
        async for _ in chunks:
            arrivals.append(time.monotonic() - started)
    await backend.aclose()
    assert len(arrivals) >= 4
    assert arrivals[0] < arrivals[-1] - 0.05  # the first text came before the last was generated


async def test_closing_the_stream_stops_the_servers_generation(server):
    backend = llamacpp(server)
    params = SamplingParams(max_tokens=1500, stop=())  # would run for tens of seconds if not stopped
    async with contextlib.aclosing(backend.stream("# the numbers from 1 to 1000\n1, 2, 3,", params)) as chunks:
        got = 0
        async for _ in chunks:
            got += 1
            if got == 3:
                busy = await asyncio.to_thread(slots, server)
                assert any(s["is_processing"] for s in busy), "the server should still be generating"
                break
    # the server notices a closed connection when it writes its next token or two: at most a few
    # seconds on a loaded machine, where the 1,500 tokens asked for would take minutes
    idle_after = await wait_idle(server, within_s=10.0)
    await backend.aclose()
    print(f"server idle {idle_after * 1000:.0f} ms after the stream was closed")


async def test_a_deadline_closes_the_stream_and_the_server_goes_idle(server):
    backend = llamacpp(server)
    params = SamplingParams(max_tokens=1500, stop=())
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(collect(backend, "# the numbers from 1 to 1000\n1, 2, 3,", params, True), 1.5)
    await wait_idle(server, within_s=10.0)
    await backend.aclose()


async def test_a_warm_up_makes_the_next_requests_prompt_processing_shorter(server):
    backend = llamacpp(server)
    body = "".join(f"    def method_{i}(self, value: int) -> int:\n        return value * {i} + {i * 7}\n\n"
                   for i in range(12))
    snippet = ContextSnippet("pkg/numbers.py", f"class Numbers:\n{body}")

    def request(typed: str, tag: str) -> CompletionRequest:
        return CompletionRequest(prefix=f"from pkg.numbers import Numbers\n# {tag}\n\nn = Numbers()\nx = n.{typed}",
                                 suffix="\n", path="pkg/use.py", snippets=(snippet,), max_tokens=4)

    # cold: a prompt the slot has not seen (its first chunk differs from what the slot holds)
    await complete(backend, CompletionRequest(prefix="import os\n", suffix="", max_tokens=2))
    await complete(backend, request("method_", "cold"))
    cold = dict(backend.last_usage)
    # warmed: the idle-time warm-up of the prompt at the cursor, then the keystroke's request
    await complete(backend, CompletionRequest(prefix="import sys\n", suffix="", max_tokens=2))
    warmed_tokens = await asyncio.wait_for(backend.warm_request(request("method", "warm"), "unused"), 60)
    await complete(backend, request("method_", "warm"))
    warm = dict(backend.last_usage)
    await backend.aclose()
    print(f"cold: {cold}; warm-up evaluated {warmed_tokens}; after the warm-up: {warm}")
    assert cold["prompt_tokens"] > 300 and warmed_tokens > 300
    assert abs(warm["prompt_tokens"] - cold["prompt_tokens"]) <= 2  # the same prompt but for one comment word
    # what the warm-up saves is counted in tokens the server evaluates again, not in its prompt_ms:
    # a time on a machine busy with other work says nothing (benchmarks/ measure the times)
    assert warm["prefilled_tokens"] * 10 < cold["prefilled_tokens"], (cold, warm)


async def test_the_openai_compatible_path_against_the_same_server(server):
    backend = create_backend(BackendSpec(kind="openai", url=f"{server.url}/v1", timeout_ms=60_000))
    text = await complete(backend, CHECKOUT)
    await backend.aclose()
    assert backend.model_family == "qwen2.5-coder"  # from /v1/models: the GGUF's name
    assert text.startswith("compute_grand_total_cents"), text
    assert backend.last_usage["prompt_tokens"] > 40


async def test_the_router_completes_through_infill_and_reports_the_servers_usage(server):
    router = Router([BackendSpec(kind="llamacpp", url=server.url, timeout_ms=60_000)],
                    route=RouteSettings(single_deadline_ms=60_000, multi_deadline_ms=60_000))  # a cold CPU prefill
    result = await asyncio.wait_for(router.complete(CHECKOUT), 60)
    await router.aclose()
    assert result.text.startswith("compute_grand_total_cents"), result.text
    assert result.usage["prompt_tokens"] > 40
    assert template_for(router.slots[0].backend.model_family).name == "qwen2.5-coder"
