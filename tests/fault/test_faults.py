"""Fault injection: a remote backend that refuses, errors, stalls, hangs, garbles or cuts its stream.

For each fault, against a loopback fake (tests/fault/fault_server.py) behind the real OpenAI
backend and the real router, with the breaker's default settings on a clock the test advances:
- every completion returns within its deadline + 50 ms (answered by the fallback where the route
  has one, else an error that the server answers empty);
- the breaker opens after 20 requests with the real cause, skips the backend while open, lets
  one probe through after 30 s, re-opens for 60 s when the probe fails and closes when one
  succeeds;
- no asyncio task, no client connection and no server-side response in progress is left once the
  requests are done;
- requests the fault does not concern (multi-line ones, routed to a healthy backend first) keep
  being answered throughout.
"""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from inference.api import BackendError, CompletionRequest
from inference.backend_spec import BackendSpec
from inference.breaker import BreakerSettings
from inference.router import Router
from inference.routing import RouteSettings

from .fault_server import FaultServer

FAULTS = ("refused", "http500", "http503", "slow", "hang", "malformed", "truncated")
SINGLE_DEADLINE_MS = 400
FAULTY_TIMEOUT_MS = 200
SLACK_S = 0.050
CAUSES = {"refused": "ConnectError", "http500": "HTTP 500: injected 500", "http503": "HTTP 503: injected 503",
          "slow": "timed out after", "hang": "timed out after", "malformed": "malformed response",
          "truncated": "RemoteProtocolError"}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def open_sockets() -> int | None:
    """Sockets this process holds (Linux), or None where /proc cannot tell."""
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return None
    count = 0
    for fd in fds:
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return count


async def settle(predicate, within_s: float = 1.0) -> bool:
    deadline = time.monotonic() + within_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


@pytest.fixture
def servers():
    faulty, healthy = FaultServer(reply="return 1"), FaultServer(reply="return 2")
    yield faulty, healthy
    faulty.stop()
    healthy.stop()


def make_router(faulty: FaultServer, healthy: FaultServer, clock: Clock) -> Router:
    specs = [BackendSpec(name="faulty", kind="openai", url=faulty.url, model="m", timeout_ms=FAULTY_TIMEOUT_MS),
             BackendSpec(name="healthy", kind="openai", url=healthy.url, model="m", timeout_ms=2000)]
    route = RouteSettings(single=["faulty", "healthy"], multi=["healthy", "faulty"],
                          single_deadline_ms=SINGLE_DEADLINE_MS)
    return Router(specs, breaker=BreakerSettings(), route=route, clock=clock)


async def timed(router: Router, request: CompletionRequest, finished: list[str] | None = None, name: str = ""):
    started = time.perf_counter()
    try:
        result = await router.complete(request)
    except BackendError as exc:
        result = exc
    if finished is not None:
        finished.append(name)
    return result, time.perf_counter() - started


SINGLE = CompletionRequest(prefix="x = ", multiline=False)
MULTI = CompletionRequest(prefix="def f():\n    ", multiline=True)


@pytest.mark.parametrize("fault", FAULTS)
async def test_a_faulty_backend_is_survived_and_its_breaker_opens_and_closes_as_specified(servers, fault):
    faulty, healthy = servers
    sockets_before = open_sockets()
    tasks_before = asyncio.all_tasks()
    clock = Clock()
    router = make_router(faulty, healthy, clock)
    events = []
    router.listeners.append(events.append)
    breaker = router.slots[0].breaker
    faulty.mode = fault
    try:
        # closed: 20 failures, each answered by the fallback within the deadline
        for i in range(20):
            # other requests keep being answered meanwhile, without waiting for the faulty one
            finished: list[str] = []
            (result, took), (other, other_took) = await asyncio.gather(
                timed(router, SINGLE, finished, "single"), timed(router, MULTI, finished, "multi"))
            assert took <= SINGLE_DEADLINE_MS / 1000 + SLACK_S, (i, took)
            assert (result.text, result.backend) == ("return 2", "healthy"), result
            assert (other.text, other.backend) == ("return 2", "healthy") and other_took < 1.0, other_took
            if fault in ("slow", "hang"):  # the stalled request holds nothing up
                assert finished == ["multi", "single"]
            assert await settle(lambda: faulty.busy == 0), "a response to an abandoned request is still going"
        assert breaker.state == "open"
        opened = [e for e in events if e.transition.new == "open"]
        assert len(opened) == 1 and opened[0].transition.open_for_s == 30
        cause = opened[0].transition.cause
        assert CAUSES[fault] in cause and "circuit" not in cause and not cause.startswith("faulty:"), cause
        assert router.slots[0].last_error == cause

        # open: skipped, not asked
        posts = len(faulty.posts)
        result, took = await timed(router, SINGLE)
        assert result.backend == "healthy" and took < 0.2 and len(faulty.posts) == posts

        # after 30 s one probe; it fails and the breaker opens for 60 s
        clock.now += 30
        result, took = await timed(router, SINGLE)
        assert result.backend == "healthy" and took <= SINGLE_DEADLINE_MS / 1000 + SLACK_S
        assert breaker.state == "open" and events[-1].transition.open_for_s == 60
        clock.now += 59
        assert breaker.state == "open"

        # the backend recovers: the next probe closes the breaker and the backend answers again
        faulty.mode = "ok"
        clock.now += 1
        result, _ = await timed(router, SINGLE)
        assert (result.text, result.backend) == ("return 1", "faulty")
        assert breaker.state == "closed" and events[-1].transition.new == "closed"
        assert [e.transition.new for e in events] == ["open", "half-open", "open", "half-open", "closed"]
    finally:
        await router.aclose()
    assert await settle(lambda: faulty.open_connections == 0 and healthy.open_connections == 0)
    assert faulty.busy == 0
    assert await settle(lambda: asyncio.all_tasks() - tasks_before == set()), \
        f"a task outlived its request: {asyncio.all_tasks() - tasks_before}"
    if sockets_before is not None:
        assert await settle(lambda: open_sockets() <= sockets_before), (open_sockets(), sockets_before)


@pytest.mark.parametrize("fault", FAULTS)
async def test_without_a_fallback_the_answer_is_an_error_within_the_deadline(servers, fault):
    """A route with the faulty backend alone: each request ends within its deadline + 50 ms with
    the backend's real cause (the server answers it empty), and the deadline, not the backend's
    longer timeoutMs, bounds it."""
    faulty, _ = servers
    faulty.mode = fault
    deadline_ms = 150
    spec = BackendSpec(name="faulty", kind="openai", url=faulty.url, model="m", timeout_ms=5000)
    router = Router([spec], route=RouteSettings(single_deadline_ms=deadline_ms), clock=Clock())
    tasks_before = asyncio.all_tasks()
    try:
        for _ in range(3):
            error, took = await timed(router, SINGLE)
            assert isinstance(error, BackendError) and took <= deadline_ms / 1000 + SLACK_S, (error, took)
            message = str(error)
            assert message.startswith("faulty: ") and "faulty: faulty" not in message
            assert CAUSES[fault].replace("timed out after", "timed out after 150 ms") in message, message
            assert await settle(lambda: faulty.busy == 0)
    finally:
        await router.aclose()
    assert await settle(lambda: faulty.open_connections == 0)
    assert await settle(lambda: asyncio.all_tasks() - tasks_before == set()), asyncio.all_tasks() - tasks_before
