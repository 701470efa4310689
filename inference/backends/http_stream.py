"""The shared shape of every remote backend: POST a JSON body, read a stream of JSON events.

Subclasses say where to POST and what to send (`request_for`), how to read one event
(`event_text`: the text it carries and whether it is the final event) and, optionally, what
to ask the server before the first request (`detect`: model family, FIM support, slots). Framing
is server-sent events (`data: {...}` lines) or newline-delimited JSON, detected per line; a
server that answers one JSON object instead of a stream is read as one final event.

Invariants:
- Closing the `stream` generator (cancellation, deadline, enough text) closes the HTTP response
  and its connection (an HTTP/2 stream is reset), so the server stops generating for a request
  nobody awaits.
- A stream that ends before its final event (a truncated response), an event that is not JSON,
  an `error` event and an HTTP status >= 400 raise `BackendError` with the server's own message,
  scrubbed of the API key. Nothing else is raised.
- `detect` runs before the first request that needs it, bounded by a third of that request's
  time; a detection that fails (server down, 5xx) is tried again at the next request, one the
  server refuses (4xx: it lacks the route) is not. When it
  reveals the model family after the router rendered the prompt with another, the prompt is
  rendered again from the request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from ..api import BackendError, SamplingParams
from ..backend_spec import BackendSpec
from ..templates import template_for
from ..transport import Transport, cancel_unfinished

DETECT_MAX_S = 2.0


class StreamingHTTPBackend:
    path = "/"
    read_past_final = False  # True: events after the final one (OpenAI's usage chunk) are read too

    def __init__(self, spec: BackendSpec):
        self.spec = spec
        self.name = spec.name
        self.model_id = f"{spec.kind}:{spec.url}:{spec.model}"
        self.model_family = spec.model_family
        self.last_usage: dict[str, int] = {}
        self.transport = Transport(spec, spec.url)
        self._client = self.transport.client
        self._detected = False

    # --- what subclasses define ----------------------------------------------------------------
    def request_for(self, prompt: str, params: SamplingParams) -> tuple[str, dict[str, Any]]:
        """(path, JSON body) of the request that streams a completion of `prompt`."""
        return self.path, self.body(prompt, params)

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        raise NotImplementedError

    def event_text(self, event: dict[str, Any]) -> tuple[str, bool]:
        """(the text `event` carries, whether it ends the stream)."""
        raise NotImplementedError

    async def detect(self) -> None:
        """Ask the server what it serves; raises httpx.HTTPError when it cannot be reached."""

    # --- the stream ------------------------------------------------------------------------------
    async def stream(self, prompt: str, params: SamplingParams) -> AsyncIterator[str]:
        family_before = self.model_family
        await self._ensure_detected(params)
        if self.model_family != family_before and params.request is not None:
            prompt = template_for(self.model_family).render(params.request)
        path, body = self.request_for(prompt, params)
        self.last_usage = {}
        try:
            async with self._client.stream("POST", path, json=body) as response:
                if response.status_code >= 400:
                    raise BackendError(self._http_error(response.status_code, await response.aread()))
                finished = False
                try:
                    async with contextlib.aclosing(_events(response)) as events:
                        async for event in events:
                            if event is None:  # [DONE]
                                finished = True
                                break
                            if event.get("error"):
                                raise BackendError(f"{self.name}: {self.transport.scrub(error_message(event))}")
                            text, final = self.event_text(event)
                            finished = finished or final
                            if text:
                                yield text
                            if final and not self.read_past_final:
                                break
                finally:
                    if not finished:  # closed early: cancelled, a deadline, enough text
                        await cancel_unfinished(response)
                if not finished:
                    raise BackendError(f"{self.name}: the stream ended before its final event (truncated)")
        except httpx.HTTPError as exc:
            raise BackendError(self.transport.scrub(f"{self.name}: {type(exc).__name__}: {exc}")) from exc
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BackendError(self.transport.scrub(f"{self.name}: malformed response: {exc}")) from exc

    async def _ensure_detected(self, params: SamplingParams) -> None:
        if self._detected:
            return
        budget = DETECT_MAX_S
        if params.deadline_ms:
            budget = min(budget, params.deadline_ms / 3000)
        try:
            await asyncio.wait_for(self.detect(), budget)
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code >= 500:
                return  # asked again at the next request
            # 4xx: the server has no such route (a partial implementation of the API); settings decide
        except (httpx.HTTPError, TimeoutError, ValueError, KeyError, TypeError):
            return  # asked again at the next request; this one goes on with what settings say
        self._detected = True

    def _http_error(self, status: int, payload: bytes) -> str:
        return self.transport.scrub(f"{self.name}: HTTP {status}: {error_message(payload)}")

    async def aclose(self) -> None:
        await self.transport.aclose()


STREAM_TYPES = ("text/event-stream", "application/x-ndjson", "application/jsonl")


async def _events(response: httpx.Response) -> AsyncIterator[dict[str, Any] | None]:
    """The JSON objects of a response, in order; `None` for SSE's `[DONE]`. A response that is
    not a stream (a server that ignored `stream`) is one object, marked final by the caller's
    `event_text` or by the end of the body."""
    if not response.headers.get("content-type", "").startswith(STREAM_TYPES):
        event = json.loads(await response.aread())
        if not isinstance(event, dict):
            raise ValueError(f"expected a JSON object, got {type(event).__name__}")
        yield event
        yield None
        return
    async for line in response.aiter_lines():
        line = line.strip()
        if line.startswith("data:"):
            line = line[5:].strip()
        if not line or line.startswith((":", "event:", "id:", "retry:")):
            continue
        if line == "[DONE]":
            yield None
            return
        event = json.loads(line)
        if not isinstance(event, dict):
            raise ValueError(f"expected a JSON object, got {type(event).__name__}")
        yield event


def error_message(payload: bytes | dict[str, Any]) -> str:
    """The message of an error body in any server's shape: OpenAI / vLLM / llama-server
    `{"error": {"message": ...}}`, Ollama / TGI `{"error": "..."}`, `{"message": ...}`, or text."""
    event = payload
    if isinstance(payload, bytes):
        text = payload[:2000].decode("utf-8", "replace").strip()
        try:
            event = json.loads(text)
        except ValueError:
            return text[:300]
    if not isinstance(event, dict):
        return str(event)[:300]
    error = event.get("error", event)
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or json.dumps(error)
    else:
        message = str(error)
    return str(message)[:300]
