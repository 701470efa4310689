"""`/v1/completions` of any OpenAI-compatible server (vLLM, SGLang, llama.cpp server, LM Studio).

The prompt arrives already rendered with the family's FIM template, so the server sees plain
text completion, streamed as server-sent events. A server that ignores `stream` and answers one
JSON object is read the same way (one event).
"""

from __future__ import annotations

from typing import Any

from ..api import SamplingParams
from .http_stream import StreamingHTTPBackend


class OpenAIBackend(StreamingHTTPBackend):
    path = "/completions"

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

    def event_text(self, event: dict[str, Any]) -> str | None:
        choices = event.get("choices") or []
        return (choices[0].get("text") or "") if choices else ""
