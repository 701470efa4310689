"""Ollama's `/api/generate` in raw mode (our FIM template, not Ollama's), streamed as NDJSON.
`url` is the server root, e.g. http://127.0.0.1:11434."""

from __future__ import annotations

from typing import Any

from ..api import SamplingParams
from .http_stream import StreamingHTTPBackend


class OllamaBackend(StreamingHTTPBackend):
    path = "/api/generate"

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        options: dict[str, Any] = {"num_predict": params.max_tokens, "temperature": params.temperature,
                                   "top_p": params.top_p}
        if params.stop:
            options["stop"] = list(params.stop)
        return {"model": self.spec.model, "prompt": prompt, "raw": True, "stream": True, "options": options}

    def event_text(self, event: dict[str, Any]) -> str | None:
        if event.get("error"):
            raise ValueError(event["error"])
        text = event.get("response") or ""
        return None if event.get("done") and not text else text
