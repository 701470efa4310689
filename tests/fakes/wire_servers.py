"""Loopback fakes of llama-server, Ollama, TGI and an OpenAI-compatible server, for tests only.

Each speaks its server's documented wire format: the same routes, the same JSON fields, the same
framing (server-sent events for OpenAI / llama-server / TGI, newline-delimited JSON for Ollama),
the same final event and the same error bodies (OpenAI / llama-server `{"error": {"message",
"type", "code"}}`, Ollama / TGI `{"error": "...", ...}`). Every request is recorded (method, path,
headers, parsed body, request target) so tests can assert exactly what a backend sent; a request
sent to the fake as a proxy (absolute URL target) is answered as if the fake were that server.

Faults, per fake: `status` answers the generation route with that HTTP error and the server's
error body; `stream_error` sends an error event after the first chunk; `truncate` ends the stream
after the first chunk without the final event; `chunk_delay` spaces the chunks; `echo_headers`
puts the request's headers (its API key) in the error body. A client that
closes its connection mid-stream sets `disconnected`.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

KINDS = ("openai", "llamacpp", "ollama", "tgi")
GENERATE = {"openai": "/v1/completions", "llamacpp": ("/completion", "/infill"), "ollama": "/api/generate",
            "tgi": "/generate_stream"}
ERROR_MESSAGE = "the model is overloaded"


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    target: str  # the request line's target: an absolute URL when the client took this for a proxy
    client_port: int = 0  # the client's side of the connection: equal ports = a kept-alive connection


class WireFake:
    def __init__(self, kind: str, reply: str = "return 1", *, chunk_size: int = 3, chunk_delay: float = 0.0,
                 status: int = 200, stream_error: bool = False, truncate: bool = False, prompt_tokens: int = 17,
                 cached_tokens: int = 5, model: str = "qwen2.5-coder:0.5b", fim_tokens: bool = True,
                 echo_headers: bool = False, certfile: str | None = None):
        assert kind in KINDS
        self.kind, self.reply, self.chunk_size, self.chunk_delay = kind, reply, chunk_size, chunk_delay
        self.status, self.stream_error, self.truncate = status, stream_error, truncate
        self.prompt_tokens, self.cached_tokens, self.model, self.fim_tokens = prompt_tokens, cached_tokens, model, fim_tokens
        self.echo_headers = echo_headers
        self.requests: list[Recorded] = []
        self.disconnected = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self.scheme = "http"
        if certfile:  # https with this certificate (and its key, in the same PEM file)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certfile)
            self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
            self.scheme = "https"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def root(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def url(self) -> str:
        """The `url` setting a backend of this kind takes (OpenAI's includes /v1)."""
        return self.root + "/v1" if self.kind == "openai" else self.root

    def generation_requests(self) -> list[Recorded]:
        routes = GENERATE[self.kind]
        return [r for r in self.requests if r.path in (routes if isinstance(routes, tuple) else (routes,))]

    def __enter__(self) -> WireFake:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    # --- the documented shapes ----------------------------------------------------------------
    def chunks(self) -> list[str]:
        return [self.reply[i:i + self.chunk_size] for i in range(0, len(self.reply), self.chunk_size)]

    def timings(self) -> dict[str, Any]:
        return {"cache_n": self.cached_tokens, "prompt_n": self.prompt_tokens, "prompt_ms": 12.5,
                "predicted_n": len(self.chunks()), "predicted_ms": 30.0}

    def event(self, chunk: str, i: int) -> dict[str, Any]:
        if self.kind == "openai":
            return {"id": "cmpl-1", "object": "text_completion", "created": 1, "model": self.model,
                    "choices": [{"index": 0, "text": chunk, "logprobs": None, "finish_reason": None}]}
        if self.kind == "llamacpp":
            return {"index": 0, "content": chunk, "tokens": [i], "stop": False, "id_slot": -1,
                    "tokens_predicted": i + 1, "tokens_evaluated": self.prompt_tokens, "timings": self.timings()}
        if self.kind == "ollama":
            return {"model": self.model, "created_at": "2026-01-01T00:00:00Z", "response": chunk, "done": False}
        return {"index": i + 1, "token": {"id": i, "text": chunk, "logprob": -0.1, "special": False},
                "generated_text": None, "details": None}

    def final_events(self) -> list[dict[str, Any]]:
        if self.kind == "openai":
            return [{"id": "cmpl-1", "object": "text_completion", "created": 1, "model": self.model,
                     "choices": [{"index": 0, "text": "", "logprobs": None, "finish_reason": "stop"}]},
                    {"id": "cmpl-1", "object": "text_completion", "created": 1, "model": self.model, "choices": [],
                     "usage": {"prompt_tokens": self.prompt_tokens, "completion_tokens": len(self.chunks()),
                               "total_tokens": self.prompt_tokens + len(self.chunks()),
                               "prompt_tokens_details": {"cached_tokens": self.cached_tokens}}}]
        if self.kind == "llamacpp":
            return [{"index": 0, "content": "", "tokens": [], "id_slot": 0, "stop": True, "model": self.model,
                     "tokens_predicted": len(self.chunks()), "tokens_evaluated": self.prompt_tokens,
                     "stop_type": "eos", "timings": self.timings()}]
        if self.kind == "ollama":
            return [{"model": self.model, "created_at": "2026-01-01T00:00:00Z", "response": "", "done": True,
                     "done_reason": "stop", "context": [1, 2, 3], "total_duration": 1000, "load_duration": 10,
                     "prompt_eval_count": self.prompt_tokens, "prompt_eval_duration": 100,
                     "eval_count": len(self.chunks()), "eval_duration": 200}]
        return [{"index": len(self.chunks()) + 1, "token": {"id": 0, "text": "<|endoftext|>", "logprob": 0.0,
                                                           "special": True},
                 "generated_text": self.reply, "details": None}]

    def error_body(self, status: int) -> dict[str, Any]:
        if self.kind in ("openai", "llamacpp"):
            kind = "not_supported_error" if status == 501 else "server_error"
            return {"error": {"code": status, "message": ERROR_MESSAGE, "type": kind}}
        if self.kind == "ollama":
            return {"error": ERROR_MESSAGE}
        return {"error": ERROR_MESSAGE, "error_type": "overloaded"}

    def info(self, path: str, body: Any) -> dict[str, Any] | list[Any] | None:
        """The detection routes' answers (None: no such route)."""
        if self.kind == "openai" and path == "/v1/models":
            return {"object": "list", "data": [{"id": self.model, "object": "model", "owned_by": "fake"}]}
        if self.kind == "llamacpp" and path == "/props":
            return {"default_generation_settings": {"n_ctx": 4096, "params": {}}, "total_slots": 1,
                    "model_path": "/models/model.gguf", "endpoint_slots": True}
        if self.kind == "llamacpp" and path == "/tokenize":
            known = ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|repo_name|>", "<|file_sep|>")
            pieces = [p for p in body["content"].split("\n") if self.fim_tokens and p in known]
            return {"tokens": [{"id": 151659 + i, "piece": p} for i, p in enumerate(pieces)]}
        if self.kind == "llamacpp" and path == "/slots":
            return [{"id": 0, "is_processing": False}]
        if self.kind == "ollama" and path == "/api/show":
            return {"template": "{{ .Prompt }}", "details": {"family": "qwen2", "format": "gguf"},
                    "model_info": {"general.architecture": "qwen2", "general.basename": "Qwen2.5-Coder"},
                    "capabilities": ["completion", "insert"] if self.fim_tokens else ["completion"]}
        if self.kind == "tgi" and path == "/info":
            return {"model_id": "bigcode/starcoder2-3b", "max_input_tokens": 4096, "max_total_tokens": 8192}
        return None

    # --- HTTP ----------------------------------------------------------------------------------------
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                self._serve(None)

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                self._serve(json.loads(raw) if raw else None)

            def _serve(self, body: Any) -> None:
                target = self.path
                self.path = urlsplit(target).path if target.startswith("http") else target
                fake.requests.append(Recorded(self.command, self.path, dict(self.headers.items()), body, target,
                                              self.client_address[1]))
                if self.path in (r for routes in [GENERATE[fake.kind]]
                                 for r in (routes if isinstance(routes, tuple) else (routes,))):
                    return self._generate(body or {})
                answer = fake.info(self.path, body)
                if answer is None:
                    return self._json(404, fake.error_body(404))
                self._json(200, answer)

            def _generate(self, body: dict[str, Any]) -> None:
                if fake.kind == "llamacpp" and self.path == "/infill" and not fake.fim_tokens:
                    return self._json(501, {"error": {"code": 501, "type": "not_supported_error", "message":
                                                      "Infill is not supported by this model: prefix token is missing. "}})
                if fake.status != 200:
                    error = fake.error_body(fake.status)
                    if fake.echo_headers:  # some proxies and servers echo the request in their errors
                        echoed = f"{ERROR_MESSAGE}; request headers: {dict(self.headers.items())}"
                        if isinstance(error["error"], dict):
                            error["error"]["message"] = echoed
                        else:
                            error["error"] = echoed
                    return self._json(fake.status, error)
                if body.get("stream") is False:  # llama-server's warm-up, n_predict 0
                    return self._json(200, {"content": "", "stop": True, "tokens_evaluated": fake.prompt_tokens,
                                            "timings": fake.timings()})
                ndjson = fake.kind == "ollama"
                self.send_response(200)
                self.send_header("content-type", "application/x-ndjson" if ndjson else "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                frame = (lambda e: json.dumps(e) + "\n") if ndjson else (lambda e: f"data: {json.dumps(e)}\n\n")
                events = [fake.event(c, i) for i, c in enumerate(fake.chunks())]
                if fake.stream_error:
                    events = events[:1] + [fake.error_body(500)]
                elif fake.truncate:
                    events = events[:1]
                else:
                    events += fake.final_events()
                try:
                    for event in events:
                        self.wfile.write(frame(event).encode())
                        self.wfile.flush()
                        if fake.chunk_delay:
                            time.sleep(fake.chunk_delay)
                    if fake.kind == "openai" and not (fake.stream_error or fake.truncate):
                        self.wfile.write(b"data: [DONE]\n\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    fake.disconnected.set()
                self.close_connection = True

            def _json(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
