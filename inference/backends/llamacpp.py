"""llama.cpp's native `/completion` endpoint (with `cache_prompt`, so its own prefix cache is reused
across keystrokes), streamed as server-sent events. `url` is the server root, e.g. http://127.0.0.1:8080."""

from __future__ import annotations

from typing import Any

from ..api import SamplingParams
from .http_stream import StreamingHTTPBackend


class LlamaCppBackend(StreamingHTTPBackend):
    path = "/completion"

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        return {"prompt": prompt, "n_predict": params.max_tokens, "temperature": params.temperature,
                "top_p": params.top_p, "stop": list(params.stop), "stream": True, "cache_prompt": True}

    def event_text(self, event: dict[str, Any]) -> str | None:
        text = event.get("content") or ""
        return None if event.get("stop") and not text else text
