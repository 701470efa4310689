"""Work for completions that have not been asked for yet, done at background priority.

- **Warm-up.** When a document's edits settle (`settle_s` after the last edit, with no completion
  asked for at that version), and at once after an edit that ends a line (the moment the
  context's snippets and windows move), the prompt a completion at the last edit's end would send
  is prefilled into the primary backend's KV cache (`CompletionPipeline.warm`: a prefill-only
  request in the embedded engine, `n_predict: 0` on llama-server). The next request there then
  only evaluates what changed since.
- **Resting cursor.** When the client reports where the cursor rests (`arbor/cursor`, sent once
  the cursor has stopped moving) and no edit's warm-up is pending, the prompt a completion there
  would send is warmed at once, so the first keystroke at a new place finds its snippets and
  windows prefilled.
- **Fresh snippets.** A completion shows the snippets its buffer holds (`pruning.held_layout`);
  every warm-up builds a fresh choice (or keeps that of the warm-up it replaced, while it holds)
  and, once its prompt is prefilled, makes it the buffer's, so the set of snippets changes
  between keystrokes, not within one. Until then the choice is the buffer's warming layout, which
  a completion shows where the held one no longer holds (`CompletionPipeline.warm`). After each
  answer a warm-up runs at the answered position unless one is already running.
- **Speculation.** After a suggestion is answered, the completion that follows accepting it is
  computed into the cache (the document with the suggestion inserted, the cursor after it), so a
  user who types the suggestion and goes on is served by typing-through without waiting. Only
  where the primary backend preempts background work (`Router.preempts`): a remote server would
  prefill the speculated prompt in another slot, batched with the next keystroke's request.

Invariants: at most one warm-up and one speculation per document. Any edit or completion request
cancels the document's pending warm-up; one already running goes on (the engine prefills it below
every real request, and the blocks it computed serve the requests that share its start) until a
newer warm-up of the document replaces it. An edit that leaves the speculated text (the
suggestion typed through, then more) cancels its speculation. Neither counts against a backend's breaker, neither
re-indexes anything, and a speculation never starts another. Timers come from `call_later`, so
tests drive them by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inference.api import PRIORITY_BACKGROUND, BackendError

from .timers import call_later as loop_call_later

if TYPE_CHECKING:
    from .features.documents import OpenDocument
    from .server import ArborServer

log = logging.getLogger(__name__)
SETTLE_S = 0.3


@dataclass(slots=True)
class _Speculation:
    text_before: str  # the document up to the cursor once the suggestion is accepted
    task: asyncio.Task


class Anticipation:
    def __init__(self, server: ArborServer, *, settle_s: float = SETTLE_S,
                 call_later: Callable[[float, Callable[[], object]], Any] = loop_call_later) -> None:
        self.server = server
        self.settle_s = settle_s
        self._call_later = call_later
        self._timers: dict[str, Any] = {}  # uri -> timer handle of a pending warm-up
        self._warming: dict[str, asyncio.Task] = {}
        self._speculations: dict[str, _Speculation] = {}
        self._warmed_at: dict[str, tuple[int, int]] = {}  # uri -> (version, offset) of its last warm-up
        self.counters = {"warmups": 0, "warmed_tokens": 0, "speculations": 0}

    # --- events from the server ------------------------------------------------------------
    def edited(self, uri: str, version: int, cursor: int, text: str) -> None:
        """A change of `uri` now at `version`, ending at offset `cursor` of the new `text`."""
        self._cancel_timer(uri)
        speculation = self._speculations.get(uri)
        if speculation is not None and not _agrees(speculation.text_before, text[:cursor]):
            self._cancel_speculation(uri)
        settings = self.server.settings.completion
        if settings.enabled and settings.warm_up:
            delay = 0.0 if cursor and text[cursor - 1] == "\n" else self.settle_s
            self._timers[uri] = self._call_later(delay, lambda: self._settled(uri, version, cursor))

    def visited(self, uri: str, version: int, cursor: int) -> None:
        """The client's cursor rests at offset `cursor` of `uri` at `version`: warm there at once
        (the client waited for the cursor to rest), unless an edit's warm-up is pending or the last
        one was at this very place."""
        doc = self.server.documents.get(uri)
        settings = self.server.settings.completion
        if doc is None or doc.version != version or not (settings.enabled and settings.warm_up):
            return
        if uri in self._timers or self._warmed_at.get(uri) == (version, cursor):
            return
        self._timers[uri] = self._call_later(0.0, lambda: self._settled(uri, version, cursor))

    def requested(self, uri: str) -> None:
        """A completion was asked for in `uri`: a pending warm-up there is no longer needed."""
        self._cancel_timer(uri)

    def answered(self, uri: str, version: int, offset: int, suggestion: str) -> None:
        """A suggestion was answered at `offset` of `uri`: speculate on its acceptance, and warm a
        fresh choice of snippets there (the next completions show it once it is prefilled)."""
        doc = self.server.documents.get(uri)
        if doc is None or doc.version != version:
            return
        settings = self.server.settings.completion
        if settings.warm_up and uri not in self._warming:
            self._settled(uri, version, offset)
        if not suggestion.strip() or not settings.speculate:
            return
        text = doc.text[:offset] + suggestion + doc.text[offset:]
        cursor = offset + len(suggestion)
        current = self._speculations.get(uri)
        if current is not None and current.text_before == text[:cursor]:
            return  # typing through the same suggestion: that speculation still holds
        self._cancel_speculation(uri)
        task = asyncio.ensure_future(self._speculate(doc, text, cursor))
        self._speculations[uri] = _Speculation(text[:cursor], task)
        task.add_done_callback(lambda _t: self._forget_speculation(uri, task))

    def closed(self, uri: str) -> None:
        self._warmed_at.pop(uri, None)
        self._cancel_warm_up(uri)
        self._cancel_speculation(uri)

    def close(self) -> None:
        for uri in list(self._timers) + list(self._warming) + list(self._speculations):
            self.closed(uri)

    # --- the work ----------------------------------------------------------------------------
    def _settled(self, uri: str, version: int, cursor: int) -> None:
        self._timers.pop(uri, None)
        doc = self.server.documents.get(uri)
        if doc is None or doc.version != version or cursor > len(doc.text):
            return
        self._cancel_warm_up(uri)
        self._warmed_at[uri] = (version, cursor)
        self._warming[uri] = asyncio.ensure_future(self._warm(uri, doc, doc.text, cursor))

    async def _warm(self, uri: str, doc: OpenDocument, text: str, cursor: int) -> None:
        try:
            pipeline = await self.server.get_pipeline()
            tokens = await pipeline.warm(doc.path, text, cursor, language=doc.language_id, holder=doc)
        except (BackendError, RuntimeError, ValueError) as exc:
            log.debug("warm-up of %s failed: %s", uri, exc)
            return
        finally:
            if self._warming.get(uri) is asyncio.current_task():
                del self._warming[uri]
        self.counters["warmups"] += 1
        self.counters["warmed_tokens"] += tokens

    async def _speculate(self, doc: OpenDocument, text: str, cursor: int) -> None:
        try:
            pipeline = await self.server.get_pipeline()
            if not pipeline.router.preempts:
                return  # a remote server would evaluate it ahead of the next keystroke's request
            await pipeline.complete(doc.path, text, cursor, language=doc.language_id, priority=PRIORITY_BACKGROUND,
                                    holder=doc)
        except (BackendError, RuntimeError, ValueError) as exc:
            log.debug("speculation in %s failed: %s", doc.path, exc)
            return
        self.counters["speculations"] += 1

    # --- bookkeeping ---------------------------------------------------------------------------
    def _cancel_timer(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()

    def _cancel_warm_up(self, uri: str) -> None:
        self._cancel_timer(uri)
        task = self._warming.pop(uri, None)
        if task is not None:
            task.cancel()

    def _cancel_speculation(self, uri: str) -> None:
        speculation = self._speculations.pop(uri, None)
        if speculation is not None:
            speculation.task.cancel()

    def _forget_speculation(self, uri: str, task: asyncio.Task) -> None:
        current = self._speculations.get(uri)
        if current is not None and current.task is task:
            del self._speculations[uri]
        with contextlib.suppress(asyncio.CancelledError, Exception):
            task.exception()


def _agrees(speculated: str, typed: str) -> bool:
    """True while the document before the cursor is on the speculated path: the suggestion is
    being typed through (`typed` is a start of `speculated`) or was typed and more follows."""
    if len(typed) <= len(speculated):
        return speculated.startswith(typed)
    return typed.startswith(speculated)
