"""Ollama's `/api/generate`, streamed as newline-delimited JSON. `url` is the server root, e.g.
http://127.0.0.1:11434.

- Detection (`POST /api/show`): the model's `capabilities` (`insert` = it has a FIM template),
  its `details.family` and `model_info` names; the family comes from the names unless
  `modelFamily` is set.
- Our template, `raw: true` (Ollama applies no template): when `fimMode` is `template`, or
  `auto` with a family that has FIM tokens: the repository snippets keep the family's own
  file-block layout. Ollama's FIM, `prompt` + `suffix` without `raw`: when `fimMode` is `server`,
  or `auto` with an unknown family on a model whose capabilities include `insert`.
- `options` carry `num_predict`, `temperature`, `top_p`, `stop`; `keep_alive` keeps the model
  loaded between keystrokes (`keepAlive`, default 30 minutes).
- The final event (`done: true`) carries `prompt_eval_count`: the prompt tokens Ollama evaluated.
"""

from __future__ import annotations

from typing import Any

from ..api import SamplingParams
from ..templates import PLAIN, template_for
from .http_stream import StreamingHTTPBackend
from .model_names import family_from_name


class OllamaBackend(StreamingHTTPBackend):
    path = "/api/generate"

    def __init__(self, spec):
        super().__init__(spec)
        self.capabilities: frozenset[str] = frozenset()

    async def detect(self) -> None:
        response = await self._client.post("/api/show", json={"model": self.spec.model})
        response.raise_for_status()
        shown = response.json()
        self.capabilities = frozenset(shown.get("capabilities") or ())
        if not self.spec.model_family:
            info = shown.get("model_info") or {}
            names = [self.spec.model, str(info.get("general.basename", "")), str(info.get("general.name", "")),
                     str((shown.get("details") or {}).get("family", ""))]
            self.model_family = next((f for f in map(family_from_name, names) if f), "")

    def uses_server_fim(self) -> bool:
        if self.spec.fim_mode != "auto":
            return self.spec.fim_mode == "server"
        return not template_for(self.model_family).supports_fim and "insert" in self.capabilities

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        options: dict[str, Any] = {"num_predict": params.max_tokens, "temperature": params.temperature,
                                   "top_p": params.top_p}
        stop = list(dict.fromkeys((*params.stop, *self.spec.stop)))
        if stop:
            options["stop"] = stop
        body: dict[str, Any] = {"model": self.spec.model, "prompt": prompt, "raw": True, "stream": True,
                                "options": options}
        if params.request is not None and self.uses_server_fim():
            body.update(prompt=PLAIN.render(params.request), suffix=params.request.suffix, raw=False)
        if self.spec.keep_alive:
            body["keep_alive"] = self.spec.keep_alive
        return body

    def event_text(self, event: dict[str, Any]) -> tuple[str, bool]:
        done = bool(event.get("done"))
        if done and isinstance(event.get("prompt_eval_count"), int):
            self.last_usage = {"prefilled_tokens": event["prompt_eval_count"]}
        return str(event.get("response") or ""), done
