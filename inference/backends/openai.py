"""`/v1/completions` of any OpenAI-compatible server (vLLM, SGLang, llama.cpp server, LM Studio).

The prompt arrives already rendered with the family's FIM template, so the server sees plain text
completion. Responses are streamed (server-sent events); closing the generator closes the HTTP
response, and with it the connection, so the model server stops work for a cancelled request.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

import httpx

from ..api import BackendConfigError, BackendError, SamplingParams
from ..backend_spec import BackendSpec


class OpenAIBackend:
    path = "/completions"

    def __init__(self, spec: BackendSpec):
        if not spec.url.startswith(("http://", "https://")):
            raise BackendConfigError(f"backend {spec.name!r}: url must start with http:// or https://, got {spec.url!r}")
        self.spec = spec
        self.name = spec.name
        self.model_id = f"{spec.kind}:{spec.url}:{spec.model}"
        self.model_family = spec.model_family
        headers = {"User-Agent": "arbor-ls"}
        if spec.api_key_env:
            key = os.environ.get(spec.api_key_env)
            if not key:
                raise BackendConfigError(
                    f"backend {spec.name!r}: environment variable {spec.api_key_env} (apiKeyEnv) is not set"
                )
            headers["Authorization"] = f"Bearer {key}"
        timeout = httpx.Timeout(spec.timeout_ms / 1000, connect=min(2.0, spec.timeout_ms / 1000))
        self._client = httpx.AsyncClient(base_url=spec.url.rstrip("/"), headers=headers, timeout=timeout)

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.spec.model,
            "prompt": prompt,
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "stream": True,
        }
        if params.stop:
            body["stop"] = list(params.stop)
        return body

    async def stream(self, prompt: str, params: SamplingParams) -> AsyncIterator[str]:
        try:
            async with self._client.stream("POST", self.path, json=self.body(prompt, params)) as response:
                if response.status_code >= 400:
                    detail = (await response.aread())[:200].decode("utf-8", "replace")
                    raise BackendError(f"{self.name}: HTTP {response.status_code}: {detail}")
                if "text/event-stream" not in response.headers.get("content-type", ""):
                    data = json.loads(await response.aread())
                    text = _choice_text(data)
                    if text:
                        yield text
                    return
                async for line in response.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        return
                    text = _choice_text(json.loads(payload))
                    if text:
                        yield text
        except httpx.HTTPError as exc:
            raise BackendError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
        except (ValueError, KeyError) as exc:
            raise BackendError(f"{self.name}: malformed response: {exc}") from exc

    async def aclose(self) -> None:
        await self._client.aclose()


def _choice_text(data: dict[str, Any]) -> str:
    choices = data.get("choices") or []
    if not choices:
        return ""
    return choices[0].get("text") or ""
