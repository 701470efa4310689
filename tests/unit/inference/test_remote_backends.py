"""Ollama, TGI and llama.cpp backends against loopback servers speaking each wire format."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from inference.api import BackendError, SamplingParams
from inference.backend_spec import BackendSpec
from inference.backends import create_backend


class WireServer:
    """Answers every POST with fixed lines of a given content type; records (path, body)."""

    def __init__(self, lines: list[str], content_type: str, status: int = 200):
        self.received: list[tuple[str, dict]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                server.received.append((self.path, body))
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.end_headers()
                for line in lines:
                    self.wfile.write((line + "\n").encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def sse(*events):
    return [f"data: {json.dumps(e)}\n" for e in events]


CASES = {
    "ollama": (["{\"response\": \"ret\", \"done\": false}", "{\"response\": \"urn 1\", \"done\": false}",
                "{\"response\": \"\", \"done\": true}"], "application/x-ndjson", "/api/generate"),
    "tgi": (sse({"token": {"text": "ret", "special": False}}, {"token": {"text": "urn 1", "special": False}},
                {"token": {"text": "<|endoftext|>", "special": True}}), "text/event-stream", "/generate_stream"),
    "llamacpp": (sse({"content": "ret", "stop": False}, {"content": "urn 1", "stop": False},
                     {"content": "", "stop": True}), "text/event-stream", "/completion"),
}


@pytest.mark.parametrize("kind", sorted(CASES))
async def test_backend_streams_text_and_sends_its_wire_body(kind):
    lines, content_type, path = CASES[kind]
    server = WireServer(lines, content_type)
    try:
        backend = create_backend(BackendSpec(kind=kind, url=server.url, model="m"))
        params = SamplingParams(max_tokens=9, stop=("\n\n",))
        text = "".join([c async for c in backend.stream("PROMPT", params)])
        await backend.aclose()
    finally:
        server.stop()
    assert text == "return 1"
    got_path, body = server.received[0]
    assert got_path == path
    assert "PROMPT" in json.dumps(body)
    assert "9" in json.dumps(body) and "\\n\\n" in json.dumps(body)


@pytest.mark.parametrize("kind", sorted(CASES))
async def test_http_errors_are_backend_errors(kind):
    server = WireServer(["{\"error\": \"model not found\"}"], "application/json", status=404)
    try:
        backend = create_backend(BackendSpec(kind=kind, url=server.url, model="m"))
        with pytest.raises(BackendError, match="404"):
            _ = [c async for c in backend.stream("p", SamplingParams())]
        await backend.aclose()
    finally:
        server.stop()


async def test_llamacpp_reports_prompt_tokens_evaluated_from_per_token_timings():
    events = sse({"content": "ret", "stop": False, "timings": {"prompt_n": 17, "predicted_n": 1}},
                 {"content": "urn 1\n", "stop": False, "timings": {"prompt_n": 17, "predicted_n": 2}})
    server = WireServer(events, "text/event-stream")
    try:
        backend = create_backend(BackendSpec(kind="llamacpp", url=server.url, model="m"))
        text = "".join([c async for c in backend.stream("PROMPT", SamplingParams())])
        await backend.aclose()
    finally:
        server.stop()
    assert text == "return 1\n" and backend.last_usage == {"prefilled_tokens": 17}
    assert server.received[0][1]["timings_per_token"] is True


async def test_llamacpp_warm_up_evaluates_the_prompt_without_predicting():
    server = WireServer([json.dumps({"content": "", "timings": {"prompt_n": 250}})], "application/json")
    try:
        backend = create_backend(BackendSpec(kind="llamacpp", url=server.url, model="m"))
        assert await backend.warm("PROMPT") == 250
        await backend.aclose()
    finally:
        server.stop()
    path, body = server.received[0]
    assert (path, body["prompt"], body["n_predict"], body["cache_prompt"]) == ("/completion", "PROMPT", 0, True)
