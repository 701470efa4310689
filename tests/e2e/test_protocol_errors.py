"""The real server over stdio, fed raw bytes: every request is answered with the JSON-RPC / LSP
error code its fault deserves, malformed input never pops up a message, and the stream recovers
from wrong Content-Length headers. No test client library in between: the bytes are the test."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import server_env

SERVER = [sys.executable, "-m", "lsp_server.cli", "serve", "--stdio"]
_HEADER = re.compile(rb"Content-Length: (\d+)\r\n(?:[^\r\n]+\r\n)*\r\n")


def frame(message: Any = None, *, body: bytes | None = None, length: int | None = None) -> bytes:
    data = body if body is not None else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % (len(data) if length is None else length) + data


def request(msg_id: int, method: str, params: Any = None, **extra: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method, **extra}
    if params is not None:
        message["params"] = params
    return message


def completion_params(line: Any, character: Any, uri: str = "file:///nowhere/a.py") -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character},
            "context": {"triggerKind": 1}}


class RawServer:
    """The server as a subprocess; a thread collects every message it writes."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=server_env(root), cwd=Path(__file__).resolve().parents[2])
        self.messages: list[dict[str, Any]] = []
        self._lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr = b""
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        buf = b""
        while chunk := self.proc.stdout.read1(65536):
            buf += chunk
            while (m := _HEADER.match(buf)) and len(buf) >= m.end() + int(m.group(1)):
                end = m.end() + int(m.group(1))
                with self._lock:
                    self.messages.append(json.loads(buf[m.end():end]))
                    self._lock.notify_all()
                buf = buf[end:]

    def _read_stderr(self) -> None:
        while chunk := self.proc.stderr.read1(65536):
            self.stderr += chunk

    def write(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self, msg_id: Any, timeout_s: float = 15.0) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while True:
                for m in self.messages:
                    if m.get("id") == msg_id and "method" not in m:
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._lock.wait(left)

    def initialize(self, root: Path) -> None:
        self.write(frame(request(1, "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                                   "initializationOptions": {"index": {"enabled": False}}})))
        answer = self.answer(1, 60)
        assert answer is not None and "result" in answer, (self.proc.poll(), self.stderr[-2000:])
        self.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

    def popups(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("method") == "window/showMessage"
                and "Error in server" in json.dumps(m.get("params"))]

    def close(self) -> int:
        if self.proc.poll() is not None or self.proc.stdin.closed:
            return self.proc.wait(10)
        try:
            self.write(frame(request(9999, "shutdown")))
            self.answer(9999, 10)
            self.write(frame({"jsonrpc": "2.0", "method": "exit"}))
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture
def raw(tmp_path):
    server = RawServer(tmp_path)
    yield server
    server.close()


def error_code(answer: dict[str, Any] | None) -> int | None:
    assert answer is not None, "no answer"
    return (answer.get("error") or {}).get("code")


def test_requests_before_initialize_get_32002_and_notifications_are_dropped(raw, tmp_path):
    raw.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "file:///x.py", "languageId": "python", "version": 1, "text": "x"}}}))
    raw.write(frame(request(2, "arbor/stats")))
    raw.write(frame(request(3, "textDocument/inlineCompletion", completion_params(0, 0))))
    assert error_code(raw.answer(2)) == -32002
    assert error_code(raw.answer(3)) == -32002
    raw.initialize(tmp_path)
    raw.write(frame(request(4, "arbor/documents")))
    assert raw.answer(4)["result"] == {"documents": []}  # the early didOpen was dropped


BAD_PARAMS = [
    (5, -32600), ("text", -32600), (None, -32600),  # not an object; no params at all
    (completion_params(-1, 0), -32602), (completion_params(0, -5), -32602),
    (completion_params(2**31, 0), -32602), (completion_params(0, 2**31 + 7), -32602),
    (completion_params("1", 0), -32602), (completion_params(1.5, 0), -32602), (completion_params(True, 0), -32602),
    ({"textDocument": {"uri": 7}, "position": {"line": 0, "character": 0}, "context": {"triggerKind": 1}}, -32602),
    ({"textDocument": {"uri": "file:///a.py"}}, -32602),
]


def test_bad_params_are_answered_with_their_code(raw, tmp_path):
    raw.initialize(tmp_path)
    for msg_id, (params, _) in enumerate(BAD_PARAMS, start=10):
        message = request(msg_id, "textDocument/inlineCompletion")
        if params is not None:
            message["params"] = params
        raw.write(frame(message))
    codes = [error_code(raw.answer(msg_id)) for msg_id in range(10, 10 + len(BAD_PARAMS))]
    assert codes == [code for _, code in BAD_PARAMS]
    raw.write(frame(request(3, "arbor/stats")))
    assert "result" in raw.answer(3)  # and the server goes on


def test_malformed_json_gets_32700_without_a_popup_or_traceback(raw, tmp_path):
    raw.initialize(tmp_path)
    raw.write(frame(body=b'{"jsonrpc": "2.0", "id": 2, "method": "arbor/stats", "params": {'))
    raw.write(frame(body=b"\xff\xfe not utf-8 {"))
    raw.write(frame(body=b"[" * 200_000))
    raw.write(frame(request(3, "arbor/stats")))
    assert error_code(raw.answer(2)) == -32700  # the id recovered from the text
    stats = raw.answer(3)["result"]["counters"]
    assert stats["protocol_parse_error"] == 3
    null_answers = [m for m in raw.messages if m.get("id") is None and "error" in m]
    assert [error_code(m) for m in null_answers] == [-32700, -32700]
    assert raw.popups() == []
    assert raw.close() == 0
    assert b"Traceback" not in raw.stderr
    assert raw.stderr.count(b"parse error") == 1  # one line for the three, then counted


def test_envelope_faults_are_32600(raw, tmp_path):
    raw.initialize(tmp_path)
    raw.write(frame([request(2, "arbor/stats")]))  # a batch
    raw.write(frame({"id": 3, "method": "arbor/stats"}))  # no "jsonrpc"
    raw.write(frame({"jsonrpc": "2.0", "id": 4, "method": 12}))
    raw.write(frame({"jsonrpc": "2.0", "id": 5, "method": "textDocument/didClose",
                     "params": {"textDocument": {"uri": "file:///a.py"}}}))  # a notification sent as a request
    raw.write(frame(request(6, "no/such/method")))
    for msg_id in (3, 4, 5):
        assert error_code(raw.answer(msg_id)) == -32600
    assert error_code(raw.answer(6)) == -32601
    # the batch's answer has a null id (the server's window/logMessage notifications have none)
    assert error_code(next(m for m in raw.messages if "method" not in m and m.get("id") is None)) == -32600


def test_a_wrong_content_length_does_not_desync_the_stream(raw, tmp_path):
    raw.initialize(tmp_path)
    for n, delta in enumerate([-12, -1, 1, 9, 40]):
        first, then = 100 + 10 * n, 101 + 10 * n
        bad = json.dumps(request(first, "arbor/stats")).encode()
        raw.write(frame(body=bad, length=len(bad) + delta) + frame(request(then, "arbor/stats")))
        raw.write(frame(request(then + 1, "arbor/documents")))
        assert "result" in raw.answer(then) and "result" in raw.answer(then + 1), delta
        assert raw.answer(first, 1) is not None, delta  # recovered whole, or -32700: never left waiting
    raw.write(b"garbage that is no header\r\n\r\n" + frame(request(5, "arbor/stats")))
    assert "result" in raw.answer(5)


def test_after_shutdown_requests_get_32600_and_exit_ends_the_process(raw, tmp_path):
    raw.initialize(tmp_path)
    raw.write(frame(request(2, "shutdown")) + frame(request(3, "arbor/stats")))
    assert raw.answer(2)["result"] is None
    assert error_code(raw.answer(3)) == -32600
    raw.write(frame(request(4, "initialize", {"capabilities": {}})))
    assert error_code(raw.answer(4)) == -32600
    raw.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    raw.proc.stdin.close()
    assert raw.proc.wait(10) == 0


def test_a_second_initialize_is_refused(raw, tmp_path):
    raw.initialize(tmp_path)
    raw.write(frame(request(2, "initialize", {"capabilities": {}})))
    assert error_code(raw.answer(2)) == -32600
