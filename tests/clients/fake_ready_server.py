"""A minimal LSP server on stdio that speaks the `arbor/completionReady` contract, for client tests.

Run as `python fake_ready_server.py LOG_PATH [READY_DELAY_S]`. It negotiates utf-16 positions,
keeps full-text documents, and answers `textDocument/inlineCompletion` by the cursor's line:
- a line containing "return" is a slow generation: the request is held until the client cancels
  it; READY_DELAY_S later (the generation finishing), if the document's version is unchanged,
  the answer "a + b" is cached for (uri, version, position) and `arbor/completionReady` is sent;
- a line containing "ok =" is answered "True" at once; any other line is answered with no items.
A request at a cached (uri, version, position) is answered from the cache at once. Every message
received is appended to LOG_PATH as one JSON line, so tests can assert what the client sent.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any, BinaryIO

CACHED_ANSWER = "a + b"
REQUEST_CANCELLED = -32800


class Wire:
    def __init__(self, reader: BinaryIO, writer: BinaryIO):
        self.reader = reader
        self.writer = writer
        self.lock = threading.Lock()

    def read(self) -> dict[str, Any] | None:
        length = None
        while True:
            line = self.reader.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        if length is None:
            return None
        return json.loads(self.reader.read(length))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        with self.lock:
            self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.writer.flush()


class FakeReadyServer:
    def __init__(self, wire: Wire, log_path: str, ready_delay_s: float):
        self.wire = wire
        self.log_path = log_path
        self.ready_delay_s = ready_delay_s
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.held: dict[Any, tuple[str, int, dict[str, int]]] = {}
        self.cache: dict[tuple[str, int, int, int], str] = {}
        self.lock = threading.Lock()

    def log(self, message: dict[str, Any]) -> None:
        with open(self.log_path, "a", encoding="utf-8") as out:
            out.write(json.dumps(message) + "\n")

    def serve(self) -> None:
        while (message := self.wire.read()) is not None:
            self.log(message)
            method = message.get("method")
            params = message.get("params") or {}
            if method == "exit":
                return
            with self.lock:
                self.handle(method, params, message.get("id"))

    def handle(self, method: str | None, params: dict[str, Any], msg_id: Any) -> None:
        if method == "initialize":
            capabilities = {"positionEncoding": "utf-16", "inlineCompletionProvider": True,
                            "textDocumentSync": {"openClose": True, "change": 1}}
            self.wire.send({"id": msg_id, "result": {"capabilities": capabilities,
                                                     "serverInfo": {"name": "fake-ready"}}})
        elif method == "shutdown":
            self.wire.send({"id": msg_id, "result": None})
        elif method == "textDocument/didOpen":
            doc = params["textDocument"]
            self.texts[doc["uri"]], self.versions[doc["uri"]] = doc["text"], doc["version"]
        elif method == "textDocument/didChange":
            doc = params["textDocument"]
            self.texts[doc["uri"]] = params["contentChanges"][-1]["text"]
            self.versions[doc["uri"]] = doc["version"]
        elif method == "textDocument/inlineCompletion":
            self.complete(params, msg_id)
        elif method == "$/cancelRequest":
            self.cancel(params["id"])
        elif msg_id is not None:
            self.wire.send({"id": msg_id, "result": None})

    def complete(self, params: dict[str, Any], msg_id: Any) -> None:
        uri, position = params["textDocument"]["uri"], params["position"]
        version = self.versions.get(uri, 0)
        cached = self.cache.get((uri, version, position["line"], position["character"]))
        lines = self.texts.get(uri, "").split("\n")
        line = lines[position["line"]] if position["line"] < len(lines) else ""
        if cached is not None:
            self.answer(msg_id, cached)
        elif "return" in line:
            self.held[msg_id] = (uri, version, position)
        else:
            self.answer(msg_id, "True" if "ok =" in line else None)

    def answer(self, msg_id: Any, text: str | None) -> None:
        items = [] if text is None else [{"insertText": text}]
        self.wire.send({"id": msg_id, "result": {"items": items}})

    def cancel(self, msg_id: Any) -> None:
        held = self.held.pop(msg_id, None)
        if held is None:
            return
        self.wire.send({"id": msg_id, "error": {"code": REQUEST_CANCELLED, "message": "cancelled"}})
        threading.Timer(self.ready_delay_s, self.finish, held).start()

    def finish(self, uri: str, version: int, position: dict[str, int]) -> None:
        with self.lock:
            if self.versions.get(uri) != version:
                return  # an edit made the generation stale: no answer, no notification
            self.cache[(uri, version, position["line"], position["character"])] = CACHED_ANSWER
            self.wire.send({"method": "arbor/completionReady",
                            "params": {"uri": uri, "version": version, "position": position}})


def main() -> None:
    log_path = sys.argv[1]
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.3
    FakeReadyServer(Wire(sys.stdin.buffer, sys.stdout.buffer), log_path, delay).serve()


if __name__ == "__main__":
    main()
