"""A lean LSP client over a server subprocess's stdio, built for measuring the server.

The client must cost far less per message than the server it measures, so it frames JSON-RPC by
hand on asyncio streams (no pygls, no cattrs). Invariants:
- Every request gets a fresh integer id; `Pending.sent_at` is `time.perf_counter()` taken just
  before the message is written, `Pending.future` resolves with a `Reply` that carries the
  perf_counter time at which the response was parsed.
- A response with an error resolves the future with `Reply.error` set; it never raises, so a
  scenario can count errors without losing its timing.
- Requests the server sends to the client (`workspace/configuration`, `client/registerCapability`,
  `window/workDoneProgress/create`, ...) are answered at once; `workspace/configuration` with the
  settings this client was given.
- When the server's stdout closes, every pending future resolves with a "server exited" error.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REQUEST_CANCELLED = -32800
SERVER_CANCELLED = -32802
_READ_LIMIT = 64 * 1024 * 1024


@dataclass(slots=True)
class Reply:
    """A response as the client saw it."""

    result: Any = None
    error: dict | None = None
    received_at: float = 0.0

    @property
    def cancelled(self) -> bool:
        return self.error is not None and self.error.get("code") in (REQUEST_CANCELLED, SERVER_CANCELLED)


@dataclass(slots=True)
class Pending:
    """A request in flight."""

    id: int
    method: str
    sent_at: float
    future: asyncio.Future = field(repr=False)


def frame(message: dict) -> bytes:
    """One JSON-RPC message with its Content-Length header (length in bytes of the UTF-8 body)."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


async def read_message(reader: asyncio.StreamReader) -> dict | None:
    """Read one framed message; None at end of stream."""
    try:
        header = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    length = -1
    for line in header.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length < 0:
        raise ValueError(f"message without Content-Length: {header[:200]!r}")
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        return None
    return json.loads(body)


class LspClient:
    """One connection to one server process. Create with `await LspClient.spawn(argv, ...)`."""

    def __init__(self, process: asyncio.subprocess.Process, settings: Any, stderr_path: Path | None):
        self.process = process
        self.settings = settings
        self.stderr_path = stderr_path
        self.notifications: dict[str, int] = {}
        self.server_requests: dict[str, int] = {}
        self.messages_sent = 0
        self.exited = False
        self._next_id = 0
        self._pending: dict[int, Pending] = {}
        self._writer = process.stdin
        self._reader_task = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def spawn(
        cls,
        argv: list[str],
        *,
        settings: Any = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        stderr_path: Path | None = None,
    ) -> LspClient:
        stderr = open(stderr_path, "wb") if stderr_path else asyncio.subprocess.DEVNULL
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                cwd=cwd,
                env={**os.environ, **(env or {})},
                limit=_READ_LIMIT,
            )
        finally:
            if stderr_path:
                stderr.close()
        return cls(process, settings, stderr_path)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def in_flight(self) -> int:
        return len(self._pending)

    def stderr_tail(self, limit: int = 2000) -> str:
        if not self.stderr_path or not self.stderr_path.exists():
            return ""
        data = self.stderr_path.read_bytes()[-limit:]
        return data.decode("utf-8", "replace")

    # --- sending ---------------------------------------------------------------------------

    def _write(self, message: dict) -> None:
        if self.exited:
            raise ConnectionError("server exited")
        self._writer.write(frame(message))
        self.messages_sent += 1

    def notify(self, method: str, params: Any) -> float:
        """Send a notification; returns its send time (perf_counter)."""
        sent_at = time.perf_counter()
        self._write({"jsonrpc": "2.0", "method": method, "params": params})
        return sent_at

    def send_request(self, method: str, params: Any) -> Pending:
        self._next_id += 1
        future = asyncio.get_running_loop().create_future()
        pending = Pending(self._next_id, method, time.perf_counter(), future)
        self._pending[pending.id] = pending
        if self.exited:
            future.set_result(Reply(error={"code": -1, "message": "server exited"}, received_at=pending.sent_at))
            return pending
        self._write({"jsonrpc": "2.0", "id": pending.id, "method": method, "params": params})
        return pending

    def cancel(self, pending: Pending) -> None:
        if not pending.future.done() and not self.exited:
            self.notify("$/cancelRequest", {"id": pending.id})

    async def request(self, method: str, params: Any, timeout: float = 60.0) -> Reply:
        pending = self.send_request(method, params)
        await self.drain()
        return await asyncio.wait_for(pending.future, timeout)

    async def drain(self) -> None:
        if not self.exited:
            try:
                await self._writer.drain()
            except (ConnectionError, BrokenPipeError):
                self.exited = True

    # --- receiving -------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        reader = self.process.stdout
        try:
            while True:
                message = await read_message(reader)
                if message is None:
                    break
                self._dispatch(message)
        finally:
            self.exited = True
            for pending in list(self._pending.values()):
                if not pending.future.done():
                    pending.future.set_result(
                        Reply(error={"code": -1, "message": "server exited"}, received_at=time.perf_counter())
                    )
            self._pending.clear()

    def _dispatch(self, message: dict) -> None:
        now = time.perf_counter()
        if "method" in message:
            method = message["method"]
            if "id" in message:
                self.server_requests[method] = self.server_requests.get(method, 0) + 1
                self._answer_server_request(message)
            else:
                self.notifications[method] = self.notifications.get(method, 0) + 1
            return
        pending = self._pending.pop(message.get("id"), None)
        if pending is not None and not pending.future.done():
            pending.future.set_result(Reply(message.get("result"), message.get("error"), now))

    def _answer_server_request(self, message: dict) -> None:
        result: Any = None
        if message["method"] == "workspace/configuration":
            items = (message.get("params") or {}).get("items") or []
            result = [self.settings for _ in items]
        self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})

    # --- lifecycle -------------------------------------------------------------------------

    async def initialize(self, root: Path, *, position_encoding: str = "utf-16", timeout: float = 60.0) -> Reply:
        params = {
            "processId": os.getpid(),
            "rootUri": root.resolve().as_uri(),
            "workspaceFolders": [{"uri": root.resolve().as_uri(), "name": root.name}],
            "initializationOptions": self.settings,
            "capabilities": {
                "general": {"positionEncodings": [position_encoding]},
                "textDocument": {
                    "synchronization": {"dynamicRegistration": False, "didSave": True},
                    "inlineCompletion": {"dynamicRegistration": False},
                },
                "workspace": {"configuration": True, "workspaceFolders": True},
                "window": {"workDoneProgress": True},
            },
        }
        reply = await self.request("initialize", params, timeout)
        if reply.error is None:
            self.notify("initialized", {})
            await self.drain()
        return reply

    async def shutdown(self, timeout: float = 10.0) -> int | None:
        """Polite shutdown (shutdown request, exit notification); kills the process if it hangs."""
        if not self.exited:
            try:
                await self.request("shutdown", None, timeout)
                self.notify("exit", None)
                await self.drain()
            except (asyncio.TimeoutError, ConnectionError):
                pass
        try:
            return await asyncio.wait_for(self.process.wait(), timeout)
        except asyncio.TimeoutError:
            self.process.kill()
            return await self.process.wait()
        finally:
            self._reader_task.cancel()
