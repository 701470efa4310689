"""The per-backend in-flight cap and its newest-wins queue."""

from __future__ import annotations

import asyncio

import pytest

from inference.api import PRIORITY_BACKGROUND, PRIORITY_INTERACTIVE, BackendLoading, CompletionRequest
from inference.backend_spec import BackendSpec
from inference.inflight_cap import Displaced, InflightCap
from inference.router import Router


async def test_the_newest_waiter_takes_the_place_and_the_older_one_is_displaced():
    cap = InflightCap(1)
    release = asyncio.Event()
    order: list[str] = []

    async def job(name: str, hold: bool = False):
        async with cap.place():
            order.append(name)
            if hold:
                await release.wait()

    first = asyncio.ensure_future(job("first", hold=True))
    await asyncio.sleep(0)
    second = asyncio.ensure_future(job("second"))
    await asyncio.sleep(0)
    third = asyncio.ensure_future(job("third"))
    await asyncio.sleep(0)
    with pytest.raises(Displaced):
        await second
    assert cap.in_flight == 1 and cap.waiting == 1
    release.set()
    await asyncio.gather(first, third)
    assert order == ["first", "third"] and cap.in_flight == 0 and cap.peak == 1 and cap.displaced == 1


async def test_a_background_request_never_displaces_an_interactive_one():
    cap = InflightCap(1)
    release = asyncio.Event()

    async def job(priority: int, hold: bool = False):
        async with cap.place(priority):
            if hold:
                await release.wait()
            return priority

    holder = asyncio.ensure_future(job(PRIORITY_INTERACTIVE, hold=True))
    await asyncio.sleep(0)
    waiting = asyncio.ensure_future(job(PRIORITY_INTERACTIVE))
    await asyncio.sleep(0)
    with pytest.raises(Displaced):
        await job(PRIORITY_BACKGROUND)
    release.set()
    assert await waiting == PRIORITY_INTERACTIVE
    await holder


async def test_a_cancelled_waiter_leaves_the_queue_and_takes_no_place():
    cap = InflightCap(1)
    release = asyncio.Event()

    async def hold():
        async with cap.place():
            await release.wait()

    holder = asyncio.ensure_future(hold())
    await asyncio.sleep(0)
    waiter = asyncio.ensure_future(hold())
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert cap.waiting == 0
    release.set()
    await holder
    assert cap.in_flight == 0


async def test_no_cap_lets_everything_through():
    cap = InflightCap(0)
    release = asyncio.Event()

    async def hold():
        async with cap.place():
            await release.wait()

    tasks = [asyncio.ensure_future(hold()) for _ in range(10)]
    await asyncio.sleep(0)
    assert cap.in_flight == 10
    release.set()
    await asyncio.gather(*tasks)


class SlowBackend:
    def __init__(self, spec: BackendSpec, max_in_flight=None):
        self.name, self.model_id, self.model_family = spec.name, spec.name, "qwen2.5-coder"
        self.max_in_flight = max_in_flight
        self.now = 0
        self.peak = 0

    async def stream(self, prompt, params):
        self.now += 1
        self.peak = max(self.peak, self.now)
        try:
            await asyncio.sleep(0.02)
            yield "ok"
        finally:
            self.now -= 1

    async def aclose(self):
        pass


@pytest.mark.parametrize("kind,setting,detected,expected", [
    ("ollama", 0, None, 1), ("llamacpp", 0, None, 1), ("llamacpp", 0, 4, 4), ("openai", 0, None, 4),
    ("openai", 2, 8, 2), ("python", 0, None, 0), ("tgi", 3, None, 3),
])
def test_the_cap_comes_from_the_setting_then_the_detection_then_the_kind(kind, setting, detected, expected):
    spec = BackendSpec(name="b", kind=kind, model="m:C" if kind == "python" else "", max_in_flight=setting)
    router = Router([spec], factory=lambda s: SlowBackend(s, detected))
    assert router.slots[0].cap.limit == expected
    assert router.status()[0]["maxInFlight"] == expected


async def test_a_displaced_request_falls_through_to_the_next_backend_without_a_breaker_outcome():
    specs = [BackendSpec(name="slow", kind="ollama"), BackendSpec(name="other", kind="python", model="m:C")]
    backends = {"slow": SlowBackend(specs[0]), "other": SlowBackend(specs[1])}
    router = Router(specs, factory=lambda s: backends[s.name])
    results = await asyncio.gather(*(router.complete(CompletionRequest(prefix=f"{i}")) for i in range(3)))
    assert [r.backend for r in results] == ["slow", "other", "slow"]
    assert backends["slow"].peak == 1
    assert router.slots[0].breaker.failure_rate() == (0, 2)


async def test_a_warm_up_never_waits_for_a_place():
    class Warmable(SlowBackend):
        warmed = 0

        async def warm(self, prompt):
            self.warmed += 1
            return 10

    spec = BackendSpec(name="w", kind="llamacpp")
    backend = Warmable(spec)
    router = Router([spec], factory=lambda s: backend)
    request = asyncio.ensure_future(router.complete(CompletionRequest(prefix="x")))
    await asyncio.sleep(0.005)
    assert await router.warm(CompletionRequest(prefix="x")) == 0 and backend.warmed == 0
    await request
    assert await router.warm(CompletionRequest(prefix="x")) == 10


async def test_a_stepped_warm_up_stops_between_steps_while_an_interactive_request_is_asked():
    class Stepped(SlowBackend):
        async def warm_request(self, request, prompt, gives_way):
            steps = 0
            while steps < 50 and not gives_way():
                steps += 1
                await asyncio.sleep(0.005)  # one step of prefill on the server
            return steps

    spec = BackendSpec(name="w", kind="llamacpp", max_in_flight=1)
    backend = Stepped(spec)
    router = Router([spec], factory=lambda s: backend)
    warm = asyncio.ensure_future(router.warm(CompletionRequest(prefix="x")))
    await asyncio.sleep(0.02)
    result = await router.complete(CompletionRequest(prefix="y"))  # waits for the warm-up's place
    assert result.text == "ok" and 1 <= await warm < 50
    assert router.slots[0].urgent == 0
    assert await router.warm(CompletionRequest(prefix="x")) == 50  # nothing asked: every step


async def test_a_loading_probe_hands_its_turn_on():
    class Loading(SlowBackend):
        async def stream(self, prompt, params):
            raise BackendLoading("l: loading")
            yield ""  # pragma: no cover

    spec = BackendSpec(name="l", kind="python", model="m:C")
    router = Router([spec], factory=lambda s: Loading(s))
    with pytest.raises(BackendLoading, match="^l: loading$"):
        await router.complete(CompletionRequest(prefix="x"))
