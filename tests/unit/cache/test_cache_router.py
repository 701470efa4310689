"""The cache behind the real Router and CompletionPipeline, with a scripted backend (test double)."""

from __future__ import annotations

import asyncio
import contextlib

from inference.api import CompletionRequest, SamplingParams
from inference.backend_spec import BackendSpec
from inference.cache import CacheSettings, CompletionCache
from inference.router import Router
from lsp_server.config import Settings
from lsp_server.pipeline import CompletionPipeline


class ScriptedBackend:
    def __init__(self, chunks, *, stall_after: int | None = None):
        self.name, self.model_id, self.model_family = "scripted", "scripted-1", "qwen2.5-coder"
        self.chunks = list(chunks)
        self.stall_after = stall_after
        self.calls = 0

    async def stream(self, prompt: str, params: SamplingParams):
        self.calls += 1
        for i, chunk in enumerate(self.chunks):
            if self.stall_after is not None and i >= self.stall_after:
                await asyncio.sleep(30)
            yield chunk

    async def aclose(self) -> None:
        pass


def router_with(backend, cache) -> Router:
    return Router([BackendSpec(name="scripted", kind="openai", timeout_ms=2000)], cache=cache,
                  factory=lambda spec: backend)


def req(prefix: str, suffix: str = "\n") -> CompletionRequest:
    return CompletionRequest(prefix=prefix, suffix=suffix, path="a.py", language="python",
                             depends_on=(("a.py", "1"), ("b.py", "1")))


async def test_router_reports_the_tier_and_skips_the_backend_on_a_hit():
    cache = CompletionCache(CacheSettings(disk=False))
    backend = ScriptedBackend(["return ", "a + b"])
    router = router_with(backend, cache)
    first = await router.complete(req("def add(a, b):\n    "))
    assert (first.text, first.cache, backend.calls) == ("return a + b", "miss", 1)
    cache.note_shown(req("def add(a, b):\n    "), first.text)
    typed = await router.complete(req("def add(a, b):\n    retu"))
    assert (typed.text, typed.cache, backend.calls) == ("rn a + b", "typing", 1)
    again = await router.complete(req("def add(a, b):\n    "))
    assert again.cache in ("typing", "exact") and backend.calls == 1
    cache.invalidate("b.py", "2")
    stale = await router.complete(req("def add(a, b):\n    retu"))  # built from the old b.py
    assert stale.cache == "miss" and backend.calls == 2


async def test_a_stream_cut_short_still_serves_the_lines_that_arrived():
    cache = CompletionCache(CacheSettings(disk=False))
    backend = ScriptedBackend(["    total = 0\n", "    for x in xs:\n", "        total += x\n", "    ret",
                               "urn total\n", "\n\ndef mean(xs):\n    return total(xs) / len(xs)", "\n"], stall_after=6)
    router = router_with(backend, cache)
    task = asyncio.create_task(router.complete(req("def total(xs):\n")))
    await asyncio.sleep(0.05)
    task.cancel()  # the user typed on: the client cancelled the request
    with contextlib.suppress(asyncio.CancelledError):
        await task
    typed = req("def total(xs):\n    total = 0\n")
    hit = cache.lookup(typed, "", "scripted-1", "qwen2.5-coder")
    assert hit is not None and hit.tier == "typing"
    # whole lines only (the stop scanner still holds back the last few characters)
    assert hit.text.startswith("    for x in xs:\n        total += x\n    return total\n")
    assert hit.text.endswith("\n") or hit.text.endswith(":")


async def test_pipeline_serves_typing_through_and_semantic_hits_without_the_backend(tmp_path):
    source = 'def scale(values, factor):\n    """Every value times factor."""\n    values = list(values)\n    '
    (tmp_path / "m.py").write_text(source)
    cache = CompletionCache(CacheSettings(disk=False))
    backend = ScriptedBackend(["return [v * factor for v in values]"])
    settings = Settings(backends=[BackendSpec(name="scripted", kind="openai")])
    pipeline = CompletionPipeline(settings, str(tmp_path), cache=cache, router=router_with(backend, cache))
    path = str(tmp_path / "m.py")
    first = await pipeline.complete(path, source, len(source))
    assert first.cache == "miss" and first.text.startswith("return")
    typed_source = source + "return [v"
    typed = await pipeline.complete(path, typed_source, len(typed_source))
    assert (typed.cache, typed.text) == ("typing", " * factor for v in values]")
    # an import and a comment added above the function: a new prompt, the same local context
    moved = "# helpers\nimport math\n\n" + source
    again = await pipeline.complete(path, moved, len(moved))
    assert again.cache == "semantic" and again.text == first.text
    assert backend.calls == 1
    stats = cache.stats()
    assert stats["hitsByTier"]["typing"] == 1 and stats["hitsByTier"]["semantic"] == 1


async def test_disk_writes_happen_after_the_answer(tmp_path):
    """The memory tiers know the answer at once; the disk tier's SQLite write runs once the
    router's caller has had the answer (the next event-loop step), and it does land."""
    cache = CompletionCache(CacheSettings(disk_dir=str(tmp_path / "cache")))
    try:
        router = router_with(ScriptedBackend(["return ", "a + b"]), cache)
        result = await router.complete(req("def add(a, b):\n    "))
        assert result.text == "return a + b"
        assert cache.disk.stats.stores == 0  # not on the request's path
        await asyncio.sleep(0)
        assert cache.disk.stats.stores == 1
    finally:
        cache.close()
