"""Newest wins inside the engine: when a newer request for a document supersedes an older one
(`lsp_server.inflight`), the older engine sequence is aborted and its KV blocks freed while the
newer one runs."""

from __future__ import annotations

import asyncio

from test_embedded_backend import forcing, make_backend, model_dir  # noqa: F401 (fixture)

from inference.api import SamplingParams
from lsp_server.inflight import CompletionKey, InflightCompletions

OLD = CompletionKey("file:///a.py", 1, 3, 4)
NEW = CompletionKey("file:///a.py", 2, 3, 5)


async def test_a_newer_request_for_the_document_aborts_the_older_sequence(model_dir):  # noqa: F811
    backend = await make_backend(model_dir)
    engine = backend.engine
    started = asyncio.Event()

    async def generate(text: str) -> str:
        out = []
        async for chunk in backend.stream("def f():", SamplingParams(max_tokens=400),
                                          logits_processors=(forcing(text),)):
            out.append(chunk)
            started.set()
        return "".join(out)

    try:
        inflight = InflightCompletions()
        old = inflight.start_or_join(OLD, lambda: generate("a" * 300))
        await asyncio.wait_for(started.wait(), 30)
        with engine.lock:
            (old_id,) = engine._requests
        new = inflight.start_or_join(NEW, lambda: generate("ok"))
        for _ in range(5):
            await asyncio.sleep(0)
        assert old.task.cancelled() and old.cancel_reason == "superseded"
        with engine.lock:
            assert old_id not in engine._requests
            assert old_id not in [seq.request_id for seq in engine.scheduler.running]
        assert await asyncio.wait_for(new.task, 30) == "ok"
        with engine.lock:
            assert engine._requests == {} and engine.kv.pool.num_free_blocks == engine.kv.pool.num_blocks
    finally:
        await backend.aclose()
