"""llama.cpp's llama-server, through its native API. `url` is the server root, e.g. http://127.0.0.1:8080.

- **`/infill`** (when the model has FIM tokens and `fimMode` is not `template`): the server lays
  out its own repository-level FIM prompt: the request's snippets as `input_extra` chunks
  (`{filename, text}`, in the request's stable-first order), the file before the cursor line as
  `input_prefix`, the cursor line up to the cursor as `prompt`, the rest as `input_suffix`.
  `n_indent` is the cursor line's indentation (a later line indented less ends the completion),
  `t_max_predict_ms` the request's time left, `id_slot` the `idSlot` setting, `cache_prompt` on.
  A server that answers 501 (the model has no FIM tokens) is asked through `/completion` from then
  on, unless `fimMode` is `server`.
- **`/completion`**: the prompt rendered with the family's FIM template.
- **Detection** (`detect`, before the first request): `GET /props` gives the slots and context
  size; `POST /tokenize` of every family's special tokens shows which ones the vocabulary has, so
  the family (unless `modelFamily` is set) comes from the model itself. FIM support is the
  server's to judge (it reads the GGUF's FIM token ids, which a family we do not know may have):
  `/infill` is tried, and its 501 sends this and every later request to `/completion`.
- **Warm-up**: the request's snippets and the file before the cursor line with `n_predict: 0`, in
  steps (`warm_steps`): the server evaluates each into the slot's KV cache and answers, and the
  next request that shares its start evaluates only what changed (`timings.prompt_n`). Between
  two steps the warm-up stops when `gives_way()` says a more urgent request wants the server,
  since the server cannot preempt the prompt it is evaluating.

Every streamed event carries the server's timings (`timings_per_token`), so `last_usage` holds
the newest request's figures (`prefilled_tokens` = `prompt_n`, `cached_tokens` = `cache_n`, their
sum, and `prefill_ms` = `prompt_ms`) even when the stream is closed after its first line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from ..api import BackendError, CompletionRequest, SamplingParams
from ..backend_spec import BackendSpec
from ..templates import TEMPLATES, detect_family
from .http_stream import StreamingHTTPBackend
from .warm_steps import infill_steps, text_steps

# Every special token a known family uses: the ones the vocabulary has name the family.
PROBE_TOKENS = tuple(dict.fromkeys(
    token for t in TEMPLATES.values() for token in (t.fim_prefix, t.fim_suffix, t.fim_middle, t.repo_name, t.file_sep)
    if token))


class LlamaCppBackend(StreamingHTTPBackend):
    path = "/completion"

    def __init__(self, spec: BackendSpec):
        super().__init__(spec)
        self.infill = spec.fim_mode != "template"  # until the server says it cannot
        self.total_slots = 0
        self.n_ctx = 0
        self.special_tokens: frozenset[str] = frozenset()

    async def detect(self) -> None:
        props = await self._get_json("GET", "/props")
        self.total_slots = int(props.get("total_slots") or 0)
        self.n_ctx = int((props.get("default_generation_settings") or {}).get("n_ctx") or 0)
        tokenized = await self._get_json("POST", "/tokenize", {
            "content": "\n".join(PROBE_TOKENS), "with_pieces": True, "parse_special": True})
        pieces = [t.get("piece") for t in tokenized.get("tokens", []) if isinstance(t, dict)]
        self.special_tokens = frozenset(p for p in pieces if isinstance(p, str) and p in PROBE_TOKENS)
        family = detect_family(self.special_tokens)
        if not self.spec.model_family and family:
            self.model_family = family

    async def _get_json(self, method: str, path: str, body: dict | None = None) -> dict[str, Any]:
        response = await self._client.request(method, path, json=body)
        response.raise_for_status()
        data = response.json()
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a JSON object")
        return data

    # --- requests ----------------------------------------------------------------------------------
    def request_for(self, prompt: str, params: SamplingParams) -> tuple[str, dict[str, Any]]:
        if self.infill and params.request is not None:
            return "/infill", self.infill_body(params.request, params)
        return "/completion", self.body(prompt, params)

    def _sampling(self, params: SamplingParams) -> dict[str, Any]:
        body: dict[str, Any] = {"n_predict": params.max_tokens, "temperature": params.temperature,
                                "top_p": params.top_p, "stop": list(dict.fromkeys((*params.stop, *self.spec.stop))),
                                "stream": True, "cache_prompt": True, "timings_per_token": True,
                                "id_slot": self.spec.id_slot}
        if params.deadline_ms:
            body["t_max_predict_ms"] = max(1, int(params.deadline_ms))
        return body

    def body(self, prompt: str, params: SamplingParams) -> dict[str, Any]:
        return {"prompt": prompt, **self._sampling(params)}

    def infill_body(self, request: CompletionRequest, params: SamplingParams) -> dict[str, Any]:
        return {**infill_fields(request), **self._sampling(params)}

    def event_text(self, event: dict[str, Any]) -> tuple[str, bool]:
        timings = event.get("timings")
        if isinstance(timings, dict) and isinstance(timings.get("prompt_n"), int):
            cached = int(timings.get("cache_n") or 0)
            self.last_usage = {"prefilled_tokens": timings["prompt_n"], "cached_tokens": cached,
                               "prompt_tokens": timings["prompt_n"] + cached,
                               "prefill_ms": round(float(timings.get("prompt_ms") or 0))}
        return str(event.get("content") or ""), bool(event.get("stop"))

    async def stream(self, prompt: str, params: SamplingParams):
        infill = self.infill and params.request is not None
        try:
            async for chunk in super().stream(prompt, params):
                yield chunk
        except BackendError as exc:
            if not (infill and self.spec.fim_mode == "auto" and "HTTP 501" in str(exc)):
                raise
            self.infill = False  # the model has no FIM tokens: our template through /completion
            async for chunk in super().stream(prompt, params):
                yield chunk

    # --- warm-up -------------------------------------------------------------------------------
    async def warm_request(self, request: CompletionRequest, prompt: str,
                           gives_way: Callable[[], bool] = lambda: False) -> int:
        """Evaluate the start of what a completion of `request` would send (its `/infill` layout,
        or `prompt`) in steps, until done or `gives_way()`; returns the tokens evaluated."""
        if not self._detected:
            try:
                await self.detect()
                self._detected = True
            except (httpx.HTTPError, ValueError, KeyError, TypeError):
                pass
        if self.infill:
            try:
                return await self._warm_in_steps("/infill", infill_steps(infill_fields(request)), gives_way)
            except BackendError as exc:
                if not (self.spec.fim_mode == "auto" and "HTTP 501" in str(exc)):
                    raise
                self.infill = False
        return await self._warm_in_steps("/completion", [{"prompt": p} for p in text_steps(prompt)], gives_way)

    async def _warm_in_steps(self, path: str, steps: list[dict[str, Any]], gives_way: Callable[[], bool]) -> int:
        evaluated = 0
        for fields in steps:
            if gives_way():
                break
            evaluated += await self._warm(path, fields)
        return evaluated

    async def _warm(self, path: str, fields: dict[str, Any]) -> int:
        body = {**fields, "n_predict": 0, "cache_prompt": True, "stream": False, "id_slot": self.spec.id_slot}
        try:
            response = await self._client.post(path, json=body)
            if response.status_code >= 400:
                raise BackendError(self._http_error(response.status_code, response.content))
            timings = response.json().get("timings") or {}
        except (httpx.HTTPError, ValueError, AttributeError) as exc:
            raise BackendError(self.transport.scrub(
                f"{self.name}: warm-up failed: {type(exc).__name__}: {exc}")) from exc
        return int(timings.get("prompt_n") or 0)


def infill_fields(request: CompletionRequest) -> dict[str, Any]:
    """The `/infill` layout of a request: snippets as `input_extra`, the cursor line apart."""
    head, _, line = request.prefix.rpartition("\n")
    before = head + "\n" if request.prefix.count("\n") else ""
    indent = len(line) - len(line.lstrip(" \t"))
    return {"input_extra": [{"filename": s.path, "text": s.text} for s in request.snippets],
            "input_prefix": before, "prompt": line, "input_suffix": request.suffix, "n_indent": indent}

