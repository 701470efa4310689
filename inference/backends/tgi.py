"""Hugging Face Text Generation Inference: `/generate_stream`, server-sent events of tokens.
`url` is the server root, e.g. http://127.0.0.1:8080."""

from __future__ import annotations

from typing import Any

from ..api import SamplingParams
from .http_stream import StreamingHTTPBackend


class TGIBackend(StreamingHTTPBackend):
    path = "/generate_stream"

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        parameters: dict[str, Any] = {"max_new_tokens": params.max_tokens, "details": False}
        if params.temperature > 0:  # TGI rejects temperature 0; greedy is do_sample false
            parameters.update(do_sample=True, temperature=params.temperature)
            if params.top_p < 1:
                parameters["top_p"] = params.top_p
        if params.stop:
            parameters["stop"] = list(params.stop)[:4]  # TGI caps stop sequences; the router enforces all
        return {"inputs": prompt, "parameters": parameters, "stream": True}

    def event_text(self, event: dict[str, Any]) -> str | None:
        if event.get("error"):
            raise ValueError(event["error"])
        token = event.get("token") or {}
        if token.get("special"):
            return ""
        return token.get("text") or ""
