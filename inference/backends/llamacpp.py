"""llama.cpp's native `/completion` endpoint (with `cache_prompt`, so its own prefix cache is reused
across keystrokes), streamed as server-sent events. `url` is the server root, e.g. http://127.0.0.1:8080.

Every event carries the server's timings (`timings_per_token`), so `last_usage` holds the prompt
tokens the server evaluated for the newest request even when the stream is closed after its first
line. `warm` sends the prompt with `n_predict: 0`: the server evaluates it into its KV cache and
answers at once, so the next request that shares the prompt's start only evaluates what changed.
"""

from __future__ import annotations

from typing import Any

import httpx

from ..api import BackendError, SamplingParams
from .http_stream import StreamingHTTPBackend


class LlamaCppBackend(StreamingHTTPBackend):
    path = "/completion"

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        self.last_usage: dict[str, int] = {}
        return {"prompt": prompt, "n_predict": params.max_tokens, "temperature": params.temperature,
                "top_p": params.top_p, "stop": list(params.stop), "stream": True, "cache_prompt": True,
                "timings_per_token": True}

    def event_text(self, event: dict[str, Any]) -> str | None:
        timings = event.get("timings")
        if isinstance(timings, dict) and isinstance(timings.get("prompt_n"), int):
            self.last_usage = {"prefilled_tokens": timings["prompt_n"]}
        text = event.get("content") or ""
        return None if event.get("stop") and not text else text

    async def warm(self, prompt: str) -> int:
        """Evaluate `prompt` into the server's KV cache; returns the tokens it evaluated."""
        try:
            response = await self._client.post(self.path, json={
                "prompt": prompt, "n_predict": 0, "cache_prompt": True, "stream": False})
            response.raise_for_status()
            timings = response.json().get("timings") or {}
        except (httpx.HTTPError, ValueError) as exc:
            raise BackendError(f"{self.name}: warm-up failed: {type(exc).__name__}: {exc}") from exc
        return int(timings.get("prompt_n") or 0)
