"""A zero-latency, deterministic model: what `arbor-ls bench` completes with by default.

Configure it as `{"kind": "python", "model": "benchmarks.zero_model:ZeroLatencyBackend"}`. It
costs next to nothing per request, so a load test against it measures the server's own overhead:
document sync, indexing, context pruning, prompt rendering, caches, routing and post-processing.

Invariants:
- The answer is a pure function of the prompt: equal prompts stream equal chunks, so cache tiers
  behave as they would with a deterministic (temperature 0) model.
- It never sleeps or yields to the event loop between chunks and never raises; it honours
  `params.stop` (text from the first stop string on is not produced) and `params.max_tokens`
  (counted as roughly four characters per token).
- Answers are short single-line code fragments, so post-processing keeps them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import xxhash

from inference.api import SamplingParams
from inference.backend_spec import BackendSpec

ANSWERS = (
    "result",
    "value is not None",
    "self._state",
    "len(items)",
    "return response",
    "None",
    "key, value",
    "0",
)
CHARS_PER_TOKEN = 4
TAIL_CHARS = 256


def answer_for(prompt: str) -> str:
    """The deterministic completion for `prompt` (a choice keyed by the prompt's tail)."""
    digest = xxhash.xxh3_64_intdigest(prompt[-TAIL_CHARS:].encode("utf-8", "surrogatepass"))
    return ANSWERS[digest % len(ANSWERS)]


def apply_limits(text: str, params: SamplingParams) -> str:
    for stop in params.stop:
        if stop:
            cut = text.find(stop)
            if cut >= 0:
                text = text[:cut]
    return text[: max(0, params.max_tokens) * CHARS_PER_TOKEN]


class ZeroLatencyBackend:
    """Backend protocol implementation for benchmarks (see module docstring)."""

    def __init__(self, spec: BackendSpec | None = None):
        self.spec = spec or BackendSpec(kind="python", model=f"{__name__}:ZeroLatencyBackend")
        self.name = self.spec.name or "zero"
        self.model_id = "zero-latency"
        self.model_family = self.spec.model_family or "qwen2.5-coder"
        self.requests = 0

    async def stream(self, prompt: str, params: SamplingParams) -> AsyncIterator[str]:
        self.requests += 1
        text = apply_limits(answer_for(prompt), params)
        half = len(text) // 2
        for chunk in (text[:half], text[half:]):
            if chunk:
                yield chunk

    async def aclose(self) -> None:
        return None
