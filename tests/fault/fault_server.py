"""A loopback OpenAI-compatible server that misbehaves on demand, for fault-injection tests only.

It runs its own event loop on a thread, on 127.0.0.1, and answers `GET /v1/models` normally and
`POST /v1/completions` according to `mode` (changeable between requests):

- "ok": the completion streamed as server-sent events (`reply(body)`, after `delay_s`), then `[DONE]`
- "refused": nothing listens on the port (connections are refused); set another mode to listen again
- "http500", "http503": that status with an OpenAI-style error body
- "slow": the headers only after `slow_s` (longer than any deadline in the tests)
- "hang": headers at once, then nothing until the client goes away
- "malformed": an event that is not JSON, then the end of the stream
- "truncated": a chunked stream cut off mid-body (one event, then the socket closes with no last chunk)

It counts what the tests check: connections open now (`open_connections`), responses being
written now (`busy`, and the most at once, `peak_busy`), completion requests received (`posts`,
their bodies), and disconnects it noticed while it was still answering (`client_gone`).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Callable
from typing import Any

MODES = ("ok", "refused", "http500", "http503", "slow", "hang", "malformed", "truncated")


class FaultServer:
    def __init__(self, mode: str = "ok", reply: str | Callable[[dict[str, Any]], str] = "return 42",
                 *, delay_s: float = 0.0, slow_s: float = 10.0):
        self.reply, self.delay_s, self.slow_s = reply, delay_s, slow_s
        self.posts: list[dict[str, Any]] = []
        self.open_connections = 0
        self.busy = 0
        self.peak_busy = 0
        self.client_gone = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.base_events.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        with socket.socket() as probe:  # a free loopback port, kept across "refused" periods
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self._mode = "refused"
        self._thread.start()
        self.mode = mode

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def mode(self) -> str:
        return self._mode

    @mode.setter
    def mode(self, mode: str) -> None:
        assert mode in MODES, mode
        self._call(self._set_mode(mode))

    def stop(self) -> None:
        self._call(self._shutdown())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()

    def _call(self, coro) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(5)

    async def _set_mode(self, mode: str) -> None:
        if mode == "refused" and self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        elif mode != "refused" and self._server is None:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, reuse_address=True)
        self._mode = mode

    async def _shutdown(self) -> None:
        await self._set_mode("refused")
        for writer in list(self._writers):
            writer.close()

    # --- one connection --------------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open_connections += 1
        self._writers.add(writer)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    return
                method, path, body = request
                if not await self._answer(method, path, body, reader, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self._writers.discard(writer)
            self.open_connections -= 1
            writer.close()

    async def _answer(self, method: str, path: str, body: bytes, reader, writer) -> bool:
        """Answer one request; False when the connection must close afterwards."""
        if method == "GET" and path.rstrip("/") == "/v1/models":
            _send_json(writer, 200, {"object": "list", "data": [{"id": "qwen2.5-coder-0.5b", "object": "model"}]})
            await writer.drain()
            return True
        if method != "POST" or path.rstrip("/") != "/v1/completions":
            _send_json(writer, 404, {"error": {"message": f"no route {method} {path}"}})
            await writer.drain()
            return True
        payload = json.loads(body or b"{}")
        self.posts.append(payload)
        self.busy += 1
        self.peak_busy = max(self.peak_busy, self.busy)
        try:
            return await self._complete(self._mode, payload, reader, writer)
        finally:
            self.busy -= 1

    async def _complete(self, mode: str, payload: dict[str, Any], reader, writer) -> bool:
        if mode in ("http500", "http503"):
            status = int(mode[4:])
            _send_json(writer, status, {"error": {"message": f"injected {status}", "type": "server_error"}})
            await writer.drain()
            return True
        if mode == "slow":
            return await self._until_gone(reader, self.slow_s) and await self._stream(payload, writer)
        if mode == "hang":
            _send_head(writer, chunked=False)
            await writer.drain()
            await self._until_gone(reader, 3600)
            return False
        if mode == "malformed":
            _send_head(writer, chunked=False)
            writer.write(b'data: {"choices": [{"text": "x", \n\ndata: [DONE]\n\n')
            await writer.drain()
            return False
        if mode == "truncated":
            _send_head(writer, chunked=True)
            event = json.dumps({"choices": [{"index": 0, "text": "return", "finish_reason": None}]})
            writer.write(_chunk(f"data: {event}\n\n".encode()))
            await writer.drain()
            writer.transport.abort()  # no last chunk: the body is cut off
            return False
        if self.delay_s and not await self._until_gone(reader, self.delay_s):
            return False
        return await self._stream(payload, writer)

    async def _stream(self, payload: dict[str, Any], writer) -> bool:
        text = self.reply(payload) if callable(self.reply) else self.reply
        _send_head(writer, chunked=False)
        for piece in (text[i:i + 4] for i in range(0, len(text), 4)):
            event = {"choices": [{"index": 0, "text": piece, "finish_reason": None}]}
            writer.write(f"data: {json.dumps(event)}\n\n".encode())
        final = {"choices": [{"index": 0, "text": "", "finish_reason": "stop"}],
                 "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}
        writer.write(f"data: {json.dumps(final)}\n\ndata: [DONE]\n\n".encode())
        await writer.drain()
        return False  # `connection: close`: the end of the body is the end of the connection

    async def _until_gone(self, reader: asyncio.StreamReader, seconds: float) -> bool:
        """Wait `seconds` unless the client closes first; True when it is still there."""
        try:
            data = await asyncio.wait_for(reader.read(1), seconds)
        except TimeoutError:
            return True
        if not data:
            self.client_gone += 1
            return False
        return True


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str, bytes] | None:
    line = await reader.readline()
    if not line:
        return None
    method, path, _ = line.decode("latin-1").split(" ", 2)
    length = 0
    while (header := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = header.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    return method, path, await reader.readexactly(length) if length else b""


def _send_json(writer, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload).encode()
    writer.write(f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {len(data)}\r\n\r\n"
                 .encode() + data)


def _send_head(writer, *, chunked: bool) -> None:
    framing = "transfer-encoding: chunked" if chunked else "connection: close"
    writer.write(f"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n{framing}\r\n\r\n".encode())


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"
