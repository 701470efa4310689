"""A simulated person typing a `TypingTrace` into one open document over an `LspClient`.

Invariants:
- The document's `version` grows by one with every didChange the typist sends.
- A completion is requested only at a keystroke marked `pause` (or at every keystroke with
  `every_keystroke`, the didChange + inlineCompletion pairs of the concurrency sweep); its latency is measured from the
  send time of the first message of that keystroke's batch (the keystroke's didChange, or an
  earlier prelude edit such as a cross-file definition change) to the parsed response: the
  editor-side "keystroke to ghost text" time.
- At most one completion per typist is in flight when `cancel_stale` is set: a new pause cancels
  the previous request with `$/cancelRequest`, as editors do. A cancelled request counts in
  `record.cancelled`, never as a latency sample or an error.
- When the trace is exhausted the typist sends the trace's undo edit and starts over, so it can run
  for any duration against one document.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from .jsonrpc_client import LspClient, Pending, Reply
from .stats import ScenarioRecord
from .traces import TypingTrace

INLINE_COMPLETION = "textDocument/inlineCompletion"
TRIGGER_AUTOMATIC = 2


def validate_inline_result(result: object) -> str | None:
    """None if `result` is a valid inlineCompletion result, else why not."""
    if result is None:
        return None
    items = result.get("items") if isinstance(result, dict) else result
    if not isinstance(items, list):
        return f"result is neither a list nor an InlineCompletionList: {str(result)[:120]}"
    for item in items:
        text = item.get("insertText") if isinstance(item, dict) else None
        if isinstance(text, dict):
            text = text.get("value")
        if not isinstance(text, str):
            return f"item without insertText: {str(item)[:120]}"
    return None


def item_count(result: object) -> int:
    if isinstance(result, dict):
        return len(result.get("items") or [])
    return len(result) if isinstance(result, list) else 0


class OpenDocument:
    """One document the client has open; `version` grows by one per didChange."""

    def __init__(self, client: LspClient, path: Path, language_id: str):
        self.client = client
        self.uri = path.as_uri()
        self.language_id = language_id
        self.version = 0

    def open(self, text: str) -> float:
        self.version = 1
        return self.client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": self.uri, "languageId": self.language_id, "version": 1, "text": text}},
        )

    def change(self, changes: list[dict]) -> float:
        self.version += 1
        return self.client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": changes},
        )

    def close(self) -> float:
        return self.client.notify("textDocument/didClose", {"textDocument": {"uri": self.uri}})


class Typist:
    def __init__(
        self,
        client: LspClient,
        path: Path,
        trace: TypingTrace,
        language_id: str,
        record: ScenarioRecord,
        *,
        cancel_stale: bool = True,
        every_keystroke: bool = False,
        request_timeout_s: float = 10.0,
    ):
        self.client = client
        self.document = OpenDocument(client, path, language_id)
        self.trace = trace
        self.record = record
        self.cancel_stale = cancel_stale
        self.every_keystroke = every_keystroke
        self.request_timeout_s = request_timeout_s
        self.position = 0
        self._last: Pending | None = None
        self._cancelled_ids: set[int] = set()
        self._waiters: set[asyncio.Task] = set()

    def open(self) -> None:
        self.document.open(self.trace.initial_text)

    def close(self) -> None:
        self.document.close()

    def change(self, changes: list[dict]) -> float:
        self.record.messages += 1
        return self.document.change(changes)

    def keystroke(self, prelude: Callable[[], float] | None = None) -> Pending | None:
        """Send the next keystroke (and, at a pause, its completion request); returns the request
        if one was sent. `prelude`, called only at a pause, sends something first and returns its
        send time, from which that request's latency is measured."""
        if self.position >= len(self.trace.keystrokes):
            self.change([self.trace.undo_edit()])
            self.position = 0
        stroke = self.trace.keystrokes[self.position]
        self.position += 1
        pause = stroke.pause or self.every_keystroke
        started = prelude() if (pause and prelude is not None) else None
        sent_at = self.change([stroke.change()])
        if not pause:
            return None
        line, character = stroke.cursor_after()
        return self.request_completion(line, character, started if started is not None else sent_at)

    def request_completion(self, line: int, character: int, origin: float) -> Pending:
        if self.cancel_stale and self._last is not None and not self._last.future.done():
            self._cancelled_ids.add(self._last.id)
            self.client.cancel(self._last)
        pending = self.client.send_request(
            INLINE_COMPLETION,
            {
                "textDocument": {"uri": self.document.uri},
                "position": {"line": line, "character": character},
                "context": {"triggerKind": TRIGGER_AUTOMATIC},
            },
        )
        self.record.requests += 1
        self.record.messages += 1
        self._last = pending
        task = asyncio.get_running_loop().create_task(self._await_reply(pending, origin))
        self._waiters.add(task)
        task.add_done_callback(self._waiters.discard)
        return pending

    async def _await_reply(self, pending: Pending, origin: float) -> None:
        try:
            reply: Reply = await asyncio.wait_for(asyncio.shield(pending.future), self.request_timeout_s)
        except asyncio.TimeoutError:
            self._cancelled_ids.add(pending.id)
            self.client.cancel(pending)
            self.record.error(f"no response within {self.request_timeout_s} s")
            return
        self.account(pending, reply, origin)

    def account(self, pending: Pending, reply: Reply, origin: float) -> None:
        if reply.cancelled or pending.id in self._cancelled_ids:
            self._cancelled_ids.discard(pending.id)
            self.record.cancelled += 1
            return
        if reply.error is not None:
            self.record.error(f"{pending.method}: {reply.error.get('code')} {reply.error.get('message', '')[:160]}")
            return
        problem = validate_inline_result(reply.result)
        if problem:
            self.record.error(problem)
            return
        if item_count(reply.result):
            self.record.nonempty += 1
        self.record.latencies_ms.append((reply.received_at - origin) * 1000.0)

    async def settle(self) -> None:
        """Wait until every request this typist sent has been answered or timed out."""
        while self._waiters:
            await asyncio.gather(*list(self._waiters))
