"""EmbeddedBackend through the engine thread: streaming, stop strings, cancellation freeing blocks,
the backlog limit, start-up errors, concurrent requests."""

from __future__ import annotations

import asyncio

import pytest
import torch

from engine_fixtures import byte_tokenizer, save_hf_dir, tiny_reference

from inference.api import Backend, BackendConfigError, BackendError, SamplingParams
from inference.backend_spec import BackendSpec
from inference.backends.embedded import EmbeddedBackend


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny-qwen2")
    save_hf_dir(tiny_reference("qwen2", seed=11), path)
    return path


async def make_backend(model_dir, **overrides) -> EmbeddedBackend:
    """A backend whose model has finished loading in the engine thread."""
    settings = dict(kind="embedded", model=str(model_dir), device="cpu", dtype="float32", quantize="none", threads=1,
                    kv_cache_mb=1, max_wait_ms=1.0)  # float32: these tests compare with transformers exactly
    settings.update(overrides)
    backend = EmbeddedBackend(BackendSpec(**settings))
    await backend.wait_loaded()
    return backend


def forcing(text: str):
    """A logits processor that makes the model write `text` (then EOS), whatever its weights say."""
    ids = byte_tokenizer().encode(text).ids + [256]

    def force(generated, row):
        out = torch.full_like(row, float("-inf"))
        out[ids[min(len(generated), len(ids) - 1)]] = 0.0
        return out

    return force


async def collect(backend, prompt, params, **kwargs) -> list[str]:
    return [chunk async for chunk in backend.stream(prompt, params, **kwargs)]


async def test_streams_chunks_until_eos_and_honours_stop_strings(model_dir):
    backend = await make_backend(model_dir)
    try:
        assert isinstance(backend, Backend)
        assert backend.model_family == "qwen2.5-coder"
        chunks = await collect(backend, "def f():", SamplingParams(max_tokens=50), logits_processors=(forcing("ab cd"),))
        assert "".join(chunks) == "ab cd" and len(chunks) >= 2
        stopped = await collect(backend, "def f():", SamplingParams(max_tokens=50, stop=("\n\n",)),
                                logits_processors=(forcing("x = 1\n\ny = 2"),))
        assert "".join(stopped) == "x = 1"
        limited = await collect(backend, "def f():", SamplingParams(max_tokens=3), logits_processors=(forcing("abcdef"),))
        assert "".join(limited) == "abc"
    finally:
        await backend.aclose()


async def test_greedy_text_equals_transformers_greedy(model_dir):
    reference = tiny_reference("qwen2", seed=11)
    tokenizer = byte_tokenizer()
    prompt = "def add(a, b):\n    return"
    ids = tokenizer.encode(prompt).ids
    with torch.no_grad():
        out = reference.generate(torch.tensor([ids]), max_new_tokens=12, do_sample=False, eos_token_id=256,
                                 pad_token_id=256)
    expected = tokenizer.decode(out[0, len(ids):].tolist(), skip_special_tokens=True)
    backend = await make_backend(model_dir)
    try:
        text = "".join(await collect(backend, prompt, SamplingParams(max_tokens=12)))
    finally:
        await backend.aclose()
    assert text == expected.rstrip("\ufffd")  # a trailing incomplete character is never emitted


async def test_closing_the_stream_aborts_and_frees_blocks_at_once(model_dir):
    backend = await make_backend(model_dir)
    pool = backend.engine.kv.pool
    try:
        stream = backend.stream("x" * 40, SamplingParams(max_tokens=400), logits_processors=(forcing("y" * 500),))
        first = await stream.__anext__()
        assert first and pool.num_free_blocks < pool.num_blocks
        await stream.aclose()
        assert pool.num_free_blocks == pool.num_blocks
        assert not backend.engine.has_work
    finally:
        await backend.aclose()


async def test_cancelling_the_consumer_task_frees_blocks(model_dir):
    backend = await make_backend(model_dir)
    pool = backend.engine.kv.pool
    started = asyncio.Event()

    async def consume():
        async for _ in backend.stream("x" * 40, SamplingParams(max_tokens=400), logits_processors=(forcing("y" * 500),)):
            started.set()

    try:
        task = asyncio.create_task(consume())
        await asyncio.wait_for(started.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert pool.num_free_blocks == pool.num_blocks
        assert backend.stats()["running"] == 0
    finally:
        await backend.aclose()


async def test_backlog_limit_is_a_clear_backend_error(model_dir):
    backend = await make_backend(model_dir, max_backlog=1)
    try:
        long_stream = backend.stream("a", SamplingParams(max_tokens=300), logits_processors=(forcing("z" * 400),))
        await long_stream.__anext__()
        with pytest.raises(BackendError, match="maxBacklog"):
            await collect(backend, "b", SamplingParams(max_tokens=4))
        await long_stream.aclose()
    finally:
        await backend.aclose()


async def test_concurrent_requests_match_one_at_a_time(model_dir):
    backend = await make_backend(model_dir, max_batch=4)
    prompts = [f"def f{i}(x):\n    return x *" for i in range(5)]
    try:
        alone = [await collect(backend, p, SamplingParams(max_tokens=10)) for p in prompts]
        together = await asyncio.gather(*(collect(backend, p, SamplingParams(max_tokens=10)) for p in prompts))
        stats = backend.stats()
    finally:
        await backend.aclose()
    assert ["".join(c) for c in together] == ["".join(c) for c in alone]
    assert stats["prefix_hit_tokens"] > 0  # the second round reused the first round's blocks
    assert stats["accepted_tokens"] <= stats["drafted_tokens"]  # lookup counters reach arbor/stats


def test_missing_model_fails_at_start_up_naming_the_path(tmp_path):
    with pytest.raises(BackendConfigError, match="does-not-exist"):
        EmbeddedBackend(BackendSpec(kind="embedded", model=str(tmp_path / "does-not-exist"), device="cpu"))


def test_directory_without_tokenizer_fails_at_start_up(tmp_path):
    tiny_reference("llama").save_pretrained(str(tmp_path))
    with pytest.raises(BackendConfigError, match="tokenizer.json"):
        EmbeddedBackend(BackendSpec(kind="embedded", model=str(tmp_path), device="cpu"))
