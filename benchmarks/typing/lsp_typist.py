"""A user typing a `FunctionTrace` into VS Code 1.139, as arbor-ls sees it over LSP.

Where the user puts the cursor before typing, the client sends `arbor/cursor`, as arbor's VS
Code extension does for a cursor that rests (editors/vscode/src/cursor.ts).
At each pause the client behaves as VS Code's inline-suggest controller does:
- it sends `textDocument/inlineCompletion` (trigger kind automatic) right after the keystroke;
- it cancels a request still unanswered `cancel_after_s` (0.8 s) after sending it;
- it asks again when the server sends `arbor/completionReady` whose uri, version and position
  are the document's current ones; it never asks again otherwise;
- the pause ends at the first answer with ghost text, or `pause_timeout_s` after the last
  keystroke; requests still in flight then are cancelled (typing resumes).
After each pause the typist reads `arbor/stats` and takes the newest `recentCompletions` entry
for the pause's uri, version and position (the answering request's), and the sum of
`prefilledTokens` over all entries of that pause; a server without that key leaves them None.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.load.jsonrpc_client import LspClient, Pending

from .records import PauseRecord, ghost_from_result
from .trace import Edit, FunctionTrace, Pause, apply_edit

INLINE_COMPLETION = "textDocument/inlineCompletion"
COMPLETION_READY = "arbor/completionReady"
VSCODE_VERSION = "1.139.0"
CURSOR_REST_S = 0.15  # editors/vscode/src/cursor.ts CURSOR_REST_MS


class NotifyingClient(LspClient):
    """An `LspClient` that also hands every server notification to `on_notification`."""

    on_notification: Callable[[str, Any], None] | None = None

    def _dispatch(self, message: dict) -> None:
        if "method" in message and "id" not in message and self.on_notification is not None:
            self.on_notification(message["method"], message.get("params"))
        LspClient._dispatch(self, message)


def vscode_initialize_params(root: Path, settings: Any) -> dict[str, Any]:
    uri = root.resolve().as_uri()
    return {
        "processId": os.getpid(),
        "clientInfo": {"name": "Visual Studio Code", "version": VSCODE_VERSION},
        "locale": "en",
        "rootPath": str(root.resolve()),
        "rootUri": uri,
        "workspaceFolders": [{"uri": uri, "name": root.name}],
        "initializationOptions": settings,
        "capabilities": {
            "general": {"positionEncodings": ["utf-16"]},
            "textDocument": {
                "synchronization": {"dynamicRegistration": True, "willSave": True,
                                    "willSaveWaitUntil": True, "didSave": True},
                "inlineCompletion": {"dynamicRegistration": True},
            },
            "workspace": {"configuration": True, "workspaceFolders": True,
                          "didChangeConfiguration": {"dynamicRegistration": True}},
            "window": {"workDoneProgress": True},
        },
        "trace": "off",
    }


async def initialize(client: LspClient, root: Path, settings: Any, timeout: float = 120.0) -> None:
    reply = await client.request("initialize", vscode_initialize_params(root, settings), timeout)
    if reply.error is not None:
        raise RuntimeError(f"initialize failed: {reply.error}")
    client.notify("initialized", {})
    await client.drain()


class LspTypist:
    def __init__(self, client: NotifyingClient, root: Path, trace: FunctionTrace, system: str, *,
                 pause_timeout_s: float = 10.0, cancel_after_s: float = 0.8,
                 clock: Callable[[], float] = time.perf_counter):
        self.client = client
        self.trace = trace
        self.system = system
        self.uri = (root / trace.path).as_uri()
        self.pause_timeout_s = pause_timeout_s
        self.cancel_after_s = cancel_after_s
        self.clock = clock
        self.lines = trace.initial_text.split("\n")
        self.version = 0
        self._events: asyncio.Queue | None = None
        client.on_notification = self._notified

    def _notified(self, method: str, params: Any) -> None:
        if method == COMPLETION_READY and self._events is not None:
            self._events.put_nowait(("ready", params))

    async def open(self) -> None:
        self.version = 1
        self.client.notify("textDocument/didOpen", {"textDocument": {
            "uri": self.uri, "languageId": self.trace.language, "version": 1, "text": self.trace.initial_text}})
        await self.client.drain()

    async def place_cursor(self, line: int, character: int) -> None:
        """The user puts the cursor at (line, character): VS Code's arbor extension reports it
        (`arbor/cursor`) once it has rested `CURSOR_REST_S`."""
        await asyncio.sleep(CURSOR_REST_S)
        self.client.notify("arbor/cursor", {"textDocument": {"uri": self.uri, "version": self.version},
                                            "position": {"line": line, "character": character}})
        await self.client.drain()

    async def edit(self, edit: Edit) -> float:
        self.version += 1
        apply_edit(self.lines, edit)
        sent_at = self.client.notify("textDocument/didChange", {
            "textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": [edit.change()]})
        await self.client.drain()
        return sent_at

    async def close(self) -> None:
        self.client.notify("textDocument/didClose", {"textDocument": {"uri": self.uri}})
        await self.client.drain()

    def _ready_matches(self, params: Any, pause: Pause) -> bool:
        if not isinstance(params, dict):
            return False
        position = params.get("position") or {}
        return (params.get("uri") == self.uri and params.get("version") == self.version
                and position.get("line") == pause.line and position.get("character") == pause.character)

    async def pause(self, pause: Pause, last_keystroke_at: float) -> PauseRecord:
        record = PauseRecord(self.system, self.trace.name, pause.kind, pause.line, pause.character,
                             self.version, pause.expected)
        loop = asyncio.get_running_loop()
        events: asyncio.Queue = asyncio.Queue()
        self._events = events
        in_flight: list[Pending] = []
        timers: list[asyncio.TimerHandle] = []

        def ask() -> None:
            pending = self.client.send_request(INLINE_COMPLETION, {
                "textDocument": {"uri": self.uri},
                "position": {"line": pause.line, "character": pause.character},
                "context": {"triggerKind": 2},
            })
            record.asks += 1
            in_flight.append(pending)
            pending.future.add_done_callback(lambda f, p=pending: events.put_nowait(("reply", p, f.result())))
            timers.append(loop.call_later(self.cancel_after_s, self.client.cancel, pending))

        deadline = last_keystroke_at + self.pause_timeout_s
        try:
            ask()
            await self.client.drain()
            while (remaining := deadline - self.clock()) > 0:
                try:
                    event = await asyncio.wait_for(events.get(), remaining)
                except asyncio.TimeoutError:
                    break
                if event[0] == "ready":
                    if self._ready_matches(event[1], pause):
                        record.ready_notifications += 1
                        ask()
                        await self.client.drain()
                    continue
                reply = event[2]
                if reply.error is not None:
                    continue
                ghost = ghost_from_result(reply.result, self.lines[pause.line], pause.line, pause.character)
                if ghost:
                    record.ghost = ghost
                    record.latency_ms = round((reply.received_at - last_keystroke_at) * 1000.0, 1)
                    break
        finally:
            self._events = None
            for timer in timers:
                timer.cancel()
            for pending in in_flight:
                self.client.cancel(pending)
            await self.client.drain()
        await self._read_stats(record)
        return record

    async def _read_stats(self, record: PauseRecord) -> None:
        try:
            reply = await self.client.request("arbor/stats", None, timeout=10.0)
        except asyncio.TimeoutError:
            return
        if isinstance(reply.result, dict) and isinstance(reply.result.get("budgetTokens"), int):
            record.budget_tokens = reply.result["budgetTokens"]
        recent = reply.result.get("recentCompletions") if isinstance(reply.result, dict) else None
        if not isinstance(recent, list):
            return
        mine = [e for e in recent if isinstance(e, dict) and e.get("uri") == self.uri
                and e.get("version") == record.version and e.get("line") == record.line
                and e.get("character") == record.character]
        if not mine:
            return
        entry = mine[-1]
        record.prompt_tokens = entry.get("promptTokens")
        record.prefilled_tokens = entry.get("prefilledTokens")
        record.prefilled_pause_total = sum(e.get("prefilledTokens") or 0 for e in mine)
        record.cache = entry.get("cache")
        record.backend = entry.get("backend")
