"""100 rapid requests against a single-slot server: at most one in flight, the newest answered.

The fake takes 100 ms per completion and answers with the request's own prompt tail, so the test
knows which request an answer belongs to. The backend's cap is the kind's default for a
single-slot server (`llamacpp`-like default 1 is exercised through `maxInFlight: 1` on the
OpenAI-compatible backend the fake speaks, and through the default of `ollama`/`llamacpp` in
tests/unit/inference/test_router_cap.py).
"""

from __future__ import annotations

import asyncio
import time

from inference.api import BackendError, CompletionRequest
from inference.backend_spec import BackendSpec
from inference.router import Router
from inference.routing import RouteSettings

from .fault_server import FaultServer


def echo(body) -> str:
    return "answer " + body["prompt"].rsplit("#", 1)[-1].split("<", 1)[0]


async def test_a_hundred_rapid_requests_keep_one_in_flight_and_the_newest_is_answered():
    server = FaultServer(reply=echo, delay_s=0.1)
    spec = BackendSpec(name="one-slot", kind="openai", url=server.url, model="m", max_in_flight=1, timeout_ms=3000)
    router = Router([spec], route=RouteSettings(single_deadline_ms=3000))
    peak_seen = 0

    async def one(i: int):
        nonlocal peak_seen
        try:
            return (await router.complete(CompletionRequest(prefix=f"x = #{i}", multiline=False))).text
        except BackendError as exc:
            return exc
        finally:
            peak_seen = max(peak_seen, router.slots[0].cap.in_flight)

    try:
        started = time.perf_counter()
        tasks = []
        for i in range(100):
            tasks.append(asyncio.ensure_future(one(i)))
            await asyncio.sleep(0.001)  # a fast typist's keystrokes, faster than the server
        answers = await asyncio.gather(*tasks)
        took = time.perf_counter() - started
    finally:
        await router.aclose()
        server.stop()
    answered = {i: a for i, a in enumerate(answers) if isinstance(a, str)}
    assert answered[99] == "answer 99"  # the newest
    assert server.peak_busy == 1 and peak_seen <= 1 and router.slots[0].cap.peak == 1
    # the server was asked only for the request in flight when the burst began and the newest
    # (plus at most a few that got the place while the burst was still arriving), never a backlog
    assert len(server.posts) == len(answered) <= 5, (len(server.posts), sorted(answered))
    displaced = [a for a in answers if isinstance(a, BackendError)]
    assert len(displaced) == 100 - len(answered)
    assert all("busy" in str(e) and "one-slot: one-slot" not in str(e) for e in displaced)
    assert router.slots[0].breaker.failure_rate()[0] == 0  # displaced requests are nobody's failure
    assert took < 0.1 * len(answered) + 0.5 + 0.2  # the burst (~0.2 s) plus one answer per request sent
