"""A fake OpenAI-compatible `/v1/completions` server on 127.0.0.1, for tests only.

It records every request body, answers with `reply` (streamed as server-sent events in chunks of
`chunk_size` characters, `chunk_delay` seconds apart, or as one JSON object when the request
does not ask for streaming), and notices when a client closes its connection mid-stream
(`disconnected` is set). `status` other than 200 answers with that HTTP error.

Run standalone for manual or editor tests: `python -m tests.fakes.openai_server --port 8123 --reply "..."`.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


class FakeOpenAIServer:
    def __init__(self, reply: str | Callable[[dict[str, Any]], str] = "completion", *, chunk_size: int = 4,
                 chunk_delay: float = 0.0, status: int = 200, host: str = "127.0.0.1", port: int = 0):
        self.reply = reply
        self.chunk_size = chunk_size
        self.chunk_delay = chunk_delay
        self.status = status
        self.requests: list[dict[str, Any]] = []
        self.disconnected = threading.Event()
        self.request_started = threading.Event()
        self._httpd = ThreadingHTTPServer((host, port), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "FakeOpenAIServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "FakeOpenAIServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def text_for(self, body: dict[str, Any]) -> str:
        return self.reply(body) if callable(self.reply) else self.reply

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                fake.request_started.set()
                if self.path.rstrip("/") != "/v1/completions":
                    return self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                if fake.status != 200:
                    return self._send_json(fake.status, {"error": {"message": "fake failure"}})
                text, delay = fake.text_for(body), fake.chunk_delay  # fixed for this request
                if not body.get("stream"):
                    return self._send_json(200, {"choices": [{"index": 0, "text": text, "finish_reason": "stop"}]})
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                chunks = [text[i:i + fake.chunk_size] for i in range(0, len(text), fake.chunk_size)] or [""]
                try:
                    for chunk in chunks:
                        event = {"choices": [{"index": 0, "text": chunk, "finish_reason": None}]}
                        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                        if delay:
                            time.sleep(delay)
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    fake.disconnected.set()
                self.close_connection = True

            def _send_json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8123)
    parser.add_argument("--reply", default="completion")
    parser.add_argument("--chunk-delay", type=float, default=0.0)
    args = parser.parse_args()
    server = FakeOpenAIServer(args.reply, chunk_delay=args.chunk_delay, port=args.port).start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
