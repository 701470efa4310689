"""InflightCompletions: join, supersede, detach on a client's cancel, cancel on an edit."""

from __future__ import annotations

import asyncio

import pytest

from lsp_server.inflight import CompletionKey, InflightCompletions, Superseded

KEY = CompletionKey("file:///a.py", 1, 3, 4)


class Gate:
    """A computation that finishes when the test opens it."""

    def __init__(self, value="done") -> None:
        self.opened = asyncio.Event()
        self.value = value
        self.runs = 0
        self.cancelled = False

    async def __call__(self):
        self.runs += 1
        try:
            await self.opened.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return self.value


async def test_same_key_joins_and_other_key_supersedes():
    ready = []
    inflight = InflightCompletions(on_ready=lambda key, result: ready.append(key))
    gate = Gate()
    first = inflight.start_or_join(KEY, gate)
    assert inflight.start_or_join(KEY, gate) is first
    waiter = asyncio.ensure_future(inflight.wait(first, lambda: 1))
    await asyncio.sleep(0)
    newer = inflight.start_or_join(KEY._replace(character=5), Gate())
    with pytest.raises(Superseded, match="superseded"):
        await waiter
    assert gate.cancelled and gate.runs == 1 and inflight.get(KEY.uri) is newer
    newer.task.cancel()
    assert ready == []


async def test_a_client_cancel_without_an_edit_detaches_and_announces_the_result():
    ready = []
    inflight = InflightCompletions(on_ready=lambda key, result: ready.append((key, result)))
    gate = Gate("text")
    computation = inflight.start_or_join(KEY, gate)
    waiter = asyncio.ensure_future(inflight.wait(computation, lambda: 1))
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert computation.detached and not computation.task.done()
    gate.opened.set()
    await computation.task
    await asyncio.sleep(0)
    assert ready == [(KEY, "text")] and inflight.detached_finished == 1 and len(inflight) == 0


async def test_a_client_cancel_after_an_edit_cancels():
    inflight = InflightCompletions()
    gate = Gate()
    computation = inflight.start_or_join(KEY, gate)
    waiter = asyncio.ensure_future(inflight.wait(computation, lambda: 2))  # the document moved on
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await asyncio.sleep(0)
    assert gate.cancelled and not computation.detached


async def test_an_edit_cancels_a_detached_computation_but_not_an_awaited_one():
    ready = []
    inflight = InflightCompletions(on_ready=lambda key, result: ready.append(key))
    awaited_gate, detached_gate = Gate(), Gate()
    awaited = inflight.start_or_join(KEY, awaited_gate)
    waiter = asyncio.ensure_future(inflight.wait(awaited, lambda: 1))
    await asyncio.sleep(0)
    assert not inflight.document_changed(KEY.uri)
    assert not awaited.task.done()  # its requester still waits; the client cancels it if it wants
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert awaited.detached
    assert inflight.document_changed(KEY.uri)  # the caller counts it as cancelled
    await asyncio.sleep(0)
    assert awaited_gate.cancelled and ready == []
    other = inflight.start_or_join(KEY._replace(uri="file:///b.py"), detached_gate)
    assert inflight.document_changed("file:///b.py", reason="closed")
    await asyncio.sleep(0)
    assert other.task.cancelled() and other.cancel_reason == "closed"


async def test_joining_a_detached_computation_reattaches_it_and_nothing_is_announced():
    ready = []
    inflight = InflightCompletions(on_ready=lambda key, result: ready.append(key))
    gate = Gate("text")
    computation = inflight.start_or_join(KEY, gate)
    first = asyncio.ensure_future(inflight.wait(computation, lambda: 1))
    await asyncio.sleep(0)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert computation.detached
    again = asyncio.ensure_future(inflight.wait(inflight.start_or_join(KEY, gate), lambda: 1))
    await asyncio.sleep(0)
    gate.opened.set()
    assert await again == "text" and gate.runs == 1
    await asyncio.sleep(0)
    assert ready == []
