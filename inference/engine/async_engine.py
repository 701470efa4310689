"""Running `LLMEngine` off the event loop: a dedicated thread builds the engine (loads the weights),
then steps it while it has work, and `AsyncEngine.generate` streams each request's outputs as an
async iterator.

Invariants:
- The event loop never runs model code; outputs cross threads via `loop.call_soon_threadsafe`.
- Until the engine is built, `generate` raises `EngineLoading` at once (nothing is queued), and a
  build failure is raised by every later `generate`; `wait_loaded` waits for either.
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
from collections.abc import AsyncIterator, Callable

from .engine import LLMEngine, RequestOutput
from .sequence import GenerationParams


class EngineLoading(RuntimeError):
    """The engine is still loading its model: try again later (this is not a failure)."""


class EngineThread(threading.Thread):
    def __init__(self, build: Callable[[], LLMEngine]) -> None:
        super().__init__(name="arbor-engine", daemon=True)
        self._build = build
        self.engine: LLMEngine | None = None
        self.loaded = threading.Event()  # set once `engine` or `load_error` is
        self.load_error: BaseException | None = None
        self._wake = threading.Event()
        self._stopping = False

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()

    def run(self) -> None:
        try:
            self.engine = self._build()
        except BaseException as exc:  # reported by every later request, and by wait_loaded
            self.load_error = exc
            return
        finally:
            self._build = None  # type: ignore[assignment]  # frees the loader's references to the weights
            self.loaded.set()
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
    def __init__(self, build: Callable[[], LLMEngine]) -> None:
        self._thread = EngineThread(build)
        self._thread.start()
        self._ids = itertools.count()
        self._closed = False

    @property
    def engine(self) -> LLMEngine:
        """The built engine; raises EngineLoading while loading and the build error after a failure."""
        thread = self._thread
        if thread.engine is not None:
            return thread.engine
        if thread.load_error is not None:
            raise thread.load_error
        raise EngineLoading("the embedded model is still loading")

    @property
    def loading(self) -> bool:
        return not self._thread.loaded.is_set()

    async def wait_loaded(self) -> None:
        """Return once the engine is built; raise its build error if it failed."""
        if self.loading:
            await asyncio.to_thread(self._thread.loaded.wait)
        _ = self.engine

    async def generate(self, prompt_ids: list[int], params: GenerationParams,
                       request_id: str | None = None) -> AsyncIterator[RequestOutput]:
        if self._closed:
            raise RuntimeError("the embedded engine is shut down")
        engine = self.engine
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[RequestOutput] = asyncio.Queue()
        rid = request_id or f"req-{next(self._ids)}"

        def deliver(output: RequestOutput) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, output)
            except RuntimeError:  # the consumer's loop is gone; the request is aborted below
                pass

        engine.add_request(rid, prompt_ids, params, deliver)
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
                engine.abort(rid)

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._thread.stop()
        if self._thread.is_alive():
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 10.0)
