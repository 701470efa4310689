"""`/v1/completions` of any OpenAI-compatible server (vLLM, SGLang, llama-server, LM Studio),
streamed as server-sent events. `url` includes `/v1`.

- `fimMode` `template` or `auto` (the default: vLLM and SGLang reject `suffix`): the prompt
  arrives rendered with the family's FIM template and the server sees plain text completion.
  `server`: the server's own FIM, `prompt` = the text before the cursor (snippets rendered in
  front of it as the family's template does without FIM), `suffix` = the text after it.
- `stream_options.include_usage`: the last chunk's `usage` (`prompt_tokens`, and
  `prompt_tokens_details.cached_tokens` where the server's prefix cache reports it) fills
  `last_usage`; llama-server's `timings` there too.
- Detection (`GET /models`): the served model's id names the family when `modelFamily` is empty,
  and is the `model` sent when the setting is empty.
- A server that ignores `stream` and answers one JSON object is read the same way (one event).
"""

from __future__ import annotations

from typing import Any

from ..api import SamplingParams
from ..templates import PLAIN
from .http_stream import StreamingHTTPBackend
from .model_names import family_from_name


class OpenAIBackend(StreamingHTTPBackend):
    path = "/completions"
    read_past_final = True  # the usage chunk follows the one with finish_reason

    def __init__(self, spec):
        super().__init__(spec)
        self.model = spec.model

    async def detect(self) -> None:
        response = await self._client.get("/models")
        response.raise_for_status()
        ids = [m.get("id", "") for m in response.json().get("data", []) if isinstance(m, dict)]
        if not self.model and ids:
            self.model = ids[0]
        if not self.spec.model_family:
            self.model_family = family_from_name(self.model) or family_from_name(" ".join(ids))

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "prompt": prompt,
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self.spec.fim_mode == "server" and params.request is not None:
            request = params.request
            body["prompt"] = PLAIN.render(request)  # snippets as comments, then the prefix
            body["suffix"] = request.suffix
        stop = list(dict.fromkeys((*params.stop, *self.spec.stop)))
        if stop:
            body["stop"] = stop[:4] if self.spec.fim_mode == "server" else stop  # OpenAI's own API takes 4
        return body

    def event_text(self, event: dict[str, Any]) -> tuple[str, bool]:
        usage = event.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("prompt_tokens"), int):
            details = usage.get("prompt_tokens_details") or {}
            cached = int(details.get("cached_tokens") or 0)
            self.last_usage = {"prompt_tokens": usage["prompt_tokens"], "cached_tokens": cached,
                               "prefilled_tokens": usage["prompt_tokens"] - cached}
        timings = event.get("timings")
        if isinstance(timings, dict) and isinstance(timings.get("prompt_n"), int):
            cached = int(timings.get("cache_n") or 0)
            self.last_usage = {"prompt_tokens": timings["prompt_n"] + cached, "cached_tokens": cached,
                               "prefilled_tokens": timings["prompt_n"]}
        choices = event.get("choices") or []
        if not choices:
            return "", False
        choice = choices[0]
        return str(choice.get("text") or ""), choice.get("finish_reason") is not None
