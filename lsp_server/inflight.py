"""Completions being computed, one per document, and what happens to them when a client gives up.

A computation is keyed by (uri, version, line, character). Invariants:
- At most one computation per document. A request with the same key joins the running one (VS
  Code asks again at the same place); a request with another key supersedes it: the old one is
  cancelled at once (HTTP stream closed, engine sequence aborted) and its requesters answer empty.
- A requester cancelled by its client while the document is unchanged *detaches* the computation
  instead of cancelling it: it runs to its end (bounded by the backend's deadline), its text lands
  in the cache through the router, and `on_ready(key)` is called when it produced text, so the
  server can tell the client to ask again (`arbor/completionReady`).
- An edit, a close or a newer request cancels a detached computation at once: its answer would be
  placed at a stale position. A requester that joins a detached computation re-attaches it: it
  is answered directly, and nothing is announced.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple


class CompletionKey(NamedTuple):
    uri: str
    version: int
    line: int
    character: int  # in the client's position encoding


@dataclass(slots=True, eq=False)
class Computation:
    key: CompletionKey
    task: asyncio.Task
    requesters: int = 0
    detached: bool = False
    cancel_reason: str = ""  # why it was cancelled: "superseded", "edited", "closed"

    def cancel(self, reason: str) -> None:
        if not self.task.done():
            self.cancel_reason = reason
            self.task.cancel()


class Superseded(Exception):
    """The computation a requester waited on was cancelled by a newer request or an edit."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InflightCompletions:
    def __init__(self, on_ready: Callable[[CompletionKey, Any], None] = lambda key, result: None) -> None:
        self._by_uri: dict[str, Computation] = {}
        self._on_ready = on_ready
        self.detached_finished = 0  # detached computations that produced a result

    def __len__(self) -> int:
        return len(self._by_uri)

    def get(self, uri: str) -> Computation | None:
        return self._by_uri.get(uri)

    def start_or_join(self, key: CompletionKey, compute: Callable[[], Awaitable[Any]]) -> Computation:
        """The running computation for `key`, or a new one (cancelling the document's other one)."""
        current = self._by_uri.get(key.uri)
        if current is not None and current.key == key and not current.task.done():
            return current
        if current is not None:
            current.cancel("superseded")
        computation = Computation(key, asyncio.ensure_future(compute()))
        self._by_uri[key.uri] = computation
        computation.task.add_done_callback(lambda _task: self._finished(computation))
        return computation

    async def wait(self, computation: Computation, document_version: Callable[[], int | None]) -> Any:
        """Await `computation` as one of its requesters.

        Raises `Superseded` when a newer request, an edit or a close cancelled it. When this
        requester itself is cancelled, the computation is detached if the document still has the
        key's version and no other requester waits, else cancelled; CancelledError propagates."""
        computation.requesters += 1
        computation.detached = False  # someone waits for it again: it answers them directly
        try:
            return await asyncio.shield(computation.task)
        except asyncio.CancelledError:
            if computation.task.cancelled() or computation.cancel_reason:
                raise Superseded(computation.cancel_reason or "cancelled") from None
            if computation.requesters == 1:
                if document_version() == computation.key.version:
                    computation.detached = True
                else:
                    computation.cancel("edited")
            raise
        finally:
            computation.requesters -= 1

    def document_changed(self, uri: str, reason: str = "edited") -> bool:
        """An edit or a close: a detached computation for `uri` can no longer be shown. True when
        this cancelled a running computation."""
        current = self._by_uri.get(uri)
        if current is None or current.task.done() or not (current.detached or reason == "closed"):
            return False
        current.cancel(reason)
        return True

    def cancel_all(self) -> None:
        for computation in list(self._by_uri.values()):
            computation.cancel("shutdown")

    def _finished(self, computation: Computation) -> None:
        if self._by_uri.get(computation.key.uri) is computation:
            del self._by_uri[computation.key.uri]
        task = computation.task
        if not computation.detached or task.cancelled() or task.exception() is not None:
            return
        result = task.result()
        if result is None:
            return
        self.detached_finished += 1
        self._on_ready(computation.key, result)
