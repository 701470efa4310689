"""Running `LLMEngine` off the event loop: a dedicated thread steps the engine while it has work,
and `AsyncEngine.generate` streams each request's outputs as an async iterator.

Invariants:
- The event loop never runs model code; outputs cross threads via `loop.call_soon_threadsafe`.
- Leaving `generate` early (the consumer closes the iterator, or its task is cancelled) aborts the
  request in the engine before the iterator finishes closing, which frees its KV blocks.
- Errors of one request (backlog full, too large, model failure) surface as exceptions from that
  request's `generate`; the engine thread keeps serving others.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import AsyncIterator

from .engine import LLMEngine, RequestOutput
from .sequence import GenerationParams


class EngineThread(threading.Thread):
    def __init__(self, engine: LLMEngine) -> None:
        super().__init__(name="arbor-engine", daemon=True)
        self.engine = engine
        self._wake = threading.Event()
        self._stopping = False
        self.error: BaseException | None = None

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()

    def run(self) -> None:
        while not self._stopping:
            if not self.engine.has_work:
                self._wake.wait()
                self._wake.clear()
                continue
            try:
                out = self.engine.step()
            except Exception as exc:  # a bug in scheduling or sampling: fail what is queued, keep serving
                self.engine.fail_all(exc)
                continue
            if not out.chunks:
                # holding a partial batch (max_wait_ms): sleep until it expires or a request arrives
                wake = out.wake_at_s if out.wake_at_s is not None else time.monotonic() + 0.001
                self._wake.wait(timeout=max(0.0, wake - time.monotonic()))
                self._wake.clear()


class AsyncEngine:
    def __init__(self, engine: LLMEngine) -> None:
        self.engine = engine
        self._thread = EngineThread(engine)
        self._thread.start()
        self._ids = itertools.count()
        self._closed = False

    async def generate(self, prompt_ids: list[int], params: GenerationParams,
                       request_id: str | None = None) -> AsyncIterator[RequestOutput]:
        if self._closed:
            raise RuntimeError("the embedded engine is shut down")
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[RequestOutput] = asyncio.Queue()
        rid = request_id or f"req-{next(self._ids)}"

        def deliver(output: RequestOutput) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, output)
            except RuntimeError:  # the consumer's loop is gone; the request is aborted below
                pass

        self.engine.add_request(rid, prompt_ids, params, deliver)
        self._thread.wake()
        finished = False
        try:
            while True:
                output = await queue.get()
                if output.error is not None:
                    finished = True
                    raise output.error
                if output.finished:
                    finished = True
                yield output
                if finished:
                    return
        finally:
            if not finished:
                self.engine.abort(rid)

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._thread.stop()
        await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 10.0)
