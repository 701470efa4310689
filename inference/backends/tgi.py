"""Hugging Face Text Generation Inference: `/generate_stream`, server-sent events of tokens.
`url` is the server root, e.g. http://127.0.0.1:8080.

- The prompt arrives rendered with the family's FIM template; TGI has no FIM field of its own.
- Greedy decoding is `do_sample: false` (TGI rejects `temperature: 0`); at most 4 stop sequences
  go to the server (its default `max_stop_sequences`), the router enforces all of them.
- The final event is the one whose `generated_text` is set; special tokens are not text.
- Detection (`GET /info`): the `model_id` names the family when `modelFamily` is empty.
"""

from __future__ import annotations

from typing import Any

from ..api import SamplingParams
from .http_stream import StreamingHTTPBackend
from .model_names import family_from_name


class TGIBackend(StreamingHTTPBackend):
    path = "/generate_stream"

    async def detect(self) -> None:
        response = await self._client.get("/info")
        response.raise_for_status()
        if not self.spec.model_family:
            self.model_family = family_from_name(str(response.json().get("model_id", "")))

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        parameters: dict[str, Any] = {"max_new_tokens": params.max_tokens, "details": False}
        if params.temperature > 0:
            parameters.update(do_sample=True, temperature=params.temperature)
            if params.top_p < 1:
                parameters["top_p"] = params.top_p
        else:
            parameters["do_sample"] = False
        stop = list(dict.fromkeys((*params.stop, *self.spec.stop)))
        if stop:
            parameters["stop"] = stop[:4]
        return {"inputs": prompt, "parameters": parameters, "stream": True}

    def event_text(self, event: dict[str, Any]) -> tuple[str, bool]:
        token = event.get("token") or {}
        text = "" if token.get("special") else str(token.get("text") or "")
        return text, event.get("generated_text") is not None
