"""The shared shape of every remote backend: POST a JSON body, read a stream of JSON events.

Subclasses say where to POST (`path`), what to send (`body`) and how to read one event
(`event_text`, returning the text it carries, or `None` when the event ends the stream). Framing
is server-sent events (`data: {...}` lines) or newline-delimited JSON, detected per response.

Invariant: closing the `stream` generator (cancellation, deadline, enough text) closes the HTTP
response and its connection, so the model server stops generating for a request nobody awaits.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

import httpx

from ..api import BackendConfigError, BackendError, SamplingParams
from ..backend_spec import BackendSpec


class StreamingHTTPBackend:
    path = "/"

    def __init__(self, spec: BackendSpec):
        if not spec.url.startswith(("http://", "https://")):
            raise BackendConfigError(
                f"backend {spec.name!r}: url must start with http:// or https://, got {spec.url!r}")
        self.spec = spec
        self.name = spec.name
        self.model_id = f"{spec.kind}:{spec.url}:{spec.model}"
        self.model_family = spec.model_family
        headers = {"User-Agent": "arbor-ls"}
        if spec.api_key_env:
            key = os.environ.get(spec.api_key_env)
            if not key:
                raise BackendConfigError(
                    f"backend {spec.name!r}: environment variable {spec.api_key_env} (apiKeyEnv) is not set")
            headers["Authorization"] = f"Bearer {key}"
        seconds = spec.timeout_ms / 1000
        self._client = httpx.AsyncClient(base_url=spec.url.rstrip("/"), headers=headers,
                                         timeout=httpx.Timeout(seconds, connect=min(2.0, seconds)))

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        raise NotImplementedError

    def event_text(self, event: dict[str, Any]) -> str | None:
        raise NotImplementedError

    async def stream(self, prompt: str, params: SamplingParams) -> AsyncIterator[str]:
        try:
            async with self._client.stream("POST", self.path, json=self.body(prompt, params)) as response:
                if response.status_code >= 400:
                    detail = (await response.aread())[:200].decode("utf-8", "replace")
                    raise BackendError(f"{self.name}: HTTP {response.status_code}: {detail}")
                async for line in response.aiter_lines():
                    line = line.strip()
                    if line.startswith("data:"):
                        line = line[5:].strip()
                    if not line or line.startswith((":", "event:", "id:")):
                        continue
                    if line == "[DONE]":
                        return
                    text = self.event_text(json.loads(line))
                    if text is None:
                        return
                    if text:
                        yield text
        except httpx.HTTPError as exc:
            raise BackendError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BackendError(f"{self.name}: malformed response: {exc}") from exc

    async def aclose(self) -> None:
        await self._client.aclose()
