"""The real arbor-ls server driven in-process through its own framing: bytes go into the
`FrameReader` + `CheckedDispatch` path that stdio uses (no pygls test client in between), and
what the server writes is parsed back into messages.

`InProcessServer` tracks every request it sends: `answers[id]` is the reply, `latency_s[id]` how
long it took; the server's own requests to the client (progress tokens, ...) are answered with a
null result, as editors do. `problems` collects what the fuzz properties forbid: replies with an
internal error (-32603), "Error in server" popups, exceptions that escaped into the event loop,
and the message loop ending before `exit`.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

from lsp_server.jsonrpc_dispatch import serve_frames
from lsp_server.jsonrpc_framing import FrameReader, StreamChunks
from lsp_server.server import create_server


def frame(message: Any = None, *, body: bytes | None = None, length: int | None = None) -> bytes:
    """One LSP frame; `body` overrides the JSON, `length` the declared Content-Length."""
    data = body if body is not None else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % (len(data) if length is None else length) + data


class _Collector:
    def __init__(self, on_message) -> None:
        self._on_message = on_message
        self._buf = bytearray()

    def write(self, data: bytes) -> None:
        self._buf += data
        while True:
            head = self._buf.find(b"\r\n\r\n")
            if head < 0:
                return
            length = int(self._buf[:head].split(b"Content-Length: ", 1)[1].split(b"\r\n", 1)[0])
            if len(self._buf) < head + 4 + length:
                return
            body = bytes(self._buf[head + 4:head + 4 + length])
            del self._buf[:head + 4 + length]
            self._on_message(json.loads(body))

    def close(self) -> None:
        pass


class InProcessServer:
    def __init__(self) -> None:
        self.server = create_server()
        self.protocol = self.server.protocol
        self.protocol.set_writer(_Collector(self._received))
        self._reader = asyncio.StreamReader()
        self._stop = threading.Event()
        self.answers: dict[Any, dict[str, Any]] = {}
        self.latency_s: dict[Any, float] = {}
        self._sent_at: dict[Any, float] = {}
        self.methods: dict[Any, str] = {}  # request id -> method, for the requests `request` sent
        self._waiters: dict[Any, asyncio.Future] = {}
        self.notifications: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self._next_id = 1
        self._loop = asyncio.get_running_loop()
        self._old_handler = self._loop.get_exception_handler()
        self._loop.set_exception_handler(self._loop_exception)
        self._task = asyncio.ensure_future(serve_frames(FrameReader(StreamChunks(self._reader)), self.protocol, self._stop))
        self.exited = False

    # --- what the server writes -----------------------------------------------------------------
    def _received(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:  # the server asks the client something
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            return
        if "method" in message:
            self.notifications.append(message)
            if message["method"] == "window/showMessage" and "Error in server" in str(message.get("params")):
                self.problems.append(f"popup: {str(message['params'])[:200]}")
            return
        msg_id = message.get("id")
        error = message.get("error")
        if error is not None and error.get("code") == -32603:
            self.problems.append(f"internal error answering {msg_id!r}: {error.get('message', '')[:300]}")
        if msg_id in self._sent_at and msg_id not in self.answers:
            self.answers[msg_id] = message
            self.latency_s[msg_id] = time.monotonic() - self._sent_at[msg_id]
            waiter = self._waiters.pop(msg_id, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(message)
        elif msg_id is not None and msg_id in self.answers:
            self.problems.append(f"second answer to {msg_id!r}")

    def _loop_exception(self, loop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        self.problems.append(f"event loop: {context.get('message')} {type(exc).__name__ if exc else ''}: {exc}"[:300])

    # --- what the client writes -----------------------------------------------------------------
    def write(self, data: bytes) -> None:
        self._reader.feed_data(data)

    def send(self, message: Any) -> None:
        self.write(frame(message))

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def expect(self, msg_id: Any) -> None:
        """`msg_id` is a request this client wrote (or will write) and must be answered."""
        self._sent_at[msg_id] = time.monotonic()
        self._waiters[msg_id] = self._loop.create_future()

    def request(self, method: str, params: Any = None, *, omit_params: bool = False) -> int:
        msg_id = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if not omit_params:
            message["params"] = params
        self.methods[msg_id] = method
        self.expect(msg_id)
        self.send(message)
        return msg_id

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def answer(self, msg_id: Any, timeout_s: float) -> dict[str, Any] | None:
        if msg_id in self.answers:
            return self.answers[msg_id]
        try:
            return await asyncio.wait_for(asyncio.shield(self._waiters[msg_id]), timeout_s)
        except asyncio.TimeoutError:
            return None

    def unanswered(self) -> list[Any]:
        return [msg_id for msg_id in self._sent_at if msg_id not in self.answers]

    async def settle(self, timeout_s: float) -> list[Any]:
        """Wait until every request sent has its answer (at most `timeout_s`); the ones left."""
        deadline = time.monotonic() + timeout_s
        for msg_id in list(self._sent_at):
            left = deadline - time.monotonic()
            if msg_id not in self.answers and left > 0:
                await self.answer(msg_id, left)
        return self.unanswered()

    def alive(self) -> bool:
        return not self._task.done()

    async def close(self, timeout_s: float = 10.0) -> None:
        """shutdown + exit (as an editor ends a session), then the loop must have ended cleanly."""
        if self.alive():
            msg_id = self.new_id()
            self.expect(msg_id)
            self.send({"jsonrpc": "2.0", "id": msg_id, "method": "shutdown"})
            await self.answer(msg_id, timeout_s)
        self._stop.set()
        self._reader.feed_eof()
        try:
            await asyncio.wait_for(self._task, timeout_s)
        except asyncio.TimeoutError:
            self.problems.append("the message loop did not end after exit")
        except Exception as exc:  # the loop itself must never raise
            self.problems.append(f"message loop raised {type(exc).__name__}: {exc}"[:300])
        self._loop.set_exception_handler(self._old_handler)
