"""EmbeddedBackend.warm and last_usage through the engine thread, with a tiny random model."""

from __future__ import annotations

import pytest

from engine_fixtures import save_hf_dir, tiny_reference

from inference.api import SamplingParams
from inference.backend_spec import BackendSpec
from inference.backends.embedded import EmbeddedBackend

PROMPT = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
NEXT = PROMPT + "\n\ndef mul(a, b):"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny-qwen2-warm")
    save_hf_dir(tiny_reference("qwen2", seed=12), path)
    return path


async def test_warm_fills_the_prefix_cache_and_the_next_stream_prefills_only_the_rest(model_dir):
    backend = EmbeddedBackend(BackendSpec(kind="embedded", model=str(model_dir), device="cpu", threads=1,
                                          kv_cache_mb=1, block_size=16, max_wait_ms=0.0))
    await backend.wait_loaded()
    try:
        assert backend.engine.runner.quantize == "int8"  # auto on the CPU
        n = len(backend.tokenizer.encode(PROMPT))
        assert n % 16
        held = await backend.warm(PROMPT)
        assert held == n // 16 * 16  # every full block of 16
        assert await backend.warm(PROMPT) == held  # already cached: nothing computed
        stats = backend.stats()
        assert stats["warmup_tokens"] == held and stats["prefilled_tokens"] == 0 and stats["warmups"] == 0
        assert backend.last_usage is None  # warm-ups are not streams
        [c async for c in backend.stream(NEXT, SamplingParams(max_tokens=3))]
        usage = backend.last_usage
        assert usage == {"prompt_tokens": len(backend.tokenizer.encode(NEXT)), "cached_tokens": held,
                         "prefilled_tokens": len(backend.tokenizer.encode(NEXT)) - held}
        assert backend.stats()["prefilled_tokens"] == usage["prefilled_tokens"]
    finally:
        await backend.aclose()


async def test_last_usage_is_known_from_the_first_token_when_the_stream_is_closed_early(model_dir):
    backend = EmbeddedBackend(BackendSpec(kind="embedded", model=str(model_dir), device="cpu", threads=1,
                                          kv_cache_mb=1, block_size=16, max_wait_ms=0.0))
    await backend.wait_loaded()
    try:
        stream = backend.stream(PROMPT, SamplingParams(max_tokens=50))
        while not await anext(stream):  # the first chunk of text, then the consumer leaves (one line read)
            pass
        await stream.aclose()
        n = len(backend.tokenizer.encode(PROMPT))
        assert backend.last_usage == {"prompt_tokens": n, "cached_tokens": 0, "prefilled_tokens": n}
    finally:
        await backend.aclose()
