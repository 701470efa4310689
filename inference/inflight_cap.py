"""A cap on the requests one backend has in flight, with newest-wins queueing.

`limit` requests may hold a place at once (0: no cap). A request that finds every place taken
waits in a queue of one: a newer request takes the waiting spot and the one it displaces raises
`Displaced` at once, so a slow single-slot server (Ollama, a one-slot llama-server) is never sent
more than it can serve and, when a place frees, it serves the newest request, not a backlog of
stale ones. A background request (higher `priority` number) never displaces a more urgent one:
it is displaced itself. Requests in flight are never interrupted by newer ones; the per-document
layer above (lsp_server.inflight) cancels requests whose answer nobody wants.

Invariants: `in_flight <= limit` whenever `limit > 0`; at most one request waits; a waiter that is
cancelled (deadline, cancellation) leaves the queue and takes no place. Single event loop only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass


class Displaced(Exception):
    """A newer request took this one's place in the queue; it was never sent."""


@dataclass(slots=True, eq=False)
class _Waiter:
    priority: int
    future: asyncio.Future[None]


class InflightCap:
    def __init__(self, limit: int = 0):
        self.limit = max(0, limit)
        self.in_flight = 0
        self.peak = 0  # the most requests ever in flight at once
        self.displaced = 0
        self._waiter: _Waiter | None = None

    @property
    def waiting(self) -> int:
        return 1 if self._waiter is not None else 0

    def has_room(self) -> bool:
        return not self.limit or (self.in_flight < self.limit and self._waiter is None)

    @contextlib.asynccontextmanager
    async def place(self, priority: int = 0) -> AsyncIterator[None]:
        """Hold one place for the body of the `async with`; raises `Displaced` when a newer request
        took the waiting spot first."""
        await self._acquire(priority)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, priority: int) -> None:
        if not self.limit or (self.in_flight < self.limit and self._waiter is None):
            self._take()
            return
        current = self._waiter
        if current is not None:
            if priority > current.priority:
                self.displaced += 1
                raise Displaced("a more urgent request is waiting for this backend")
            self._waiter = None
            self.displaced += 1
            current.future.set_exception(Displaced("a newer request took this one's place"))
        waiter = _Waiter(priority, asyncio.get_running_loop().create_future())
        self._waiter = waiter
        try:
            await waiter.future  # resolved by _release, which has already counted this request in
        except asyncio.CancelledError:
            if self._waiter is waiter:
                self._waiter = None
            future = waiter.future
            if future.done() and not future.cancelled() and future.exception() is None:
                self._release()  # given a place in the same step it was cancelled: hand it on
            raise

    def _take(self) -> None:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    def _release(self) -> None:
        self.in_flight -= 1
        waiter = self._waiter
        if waiter is not None and self.in_flight < self.limit:
            self._waiter = None
            self._take()
            waiter.future.set_result(None)
