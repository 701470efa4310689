"""A test double for a backend whose model takes a while to load (configured as
`{"kind": "python", "model": "tests.fakes.slow_loading_backend:SlowLoadingBackend"}`).

It "loads" for $ARBOR_TEST_LOAD_S seconds on a thread (default 2), streaming `BackendLoading`
until then, and afterwards answers every prompt with "return a + b"."""

from __future__ import annotations

import asyncio
import os
import threading

from inference.api import BackendLoading, SamplingParams
from inference.backend_spec import BackendSpec


class SlowLoadingBackend:
    def __init__(self, spec: BackendSpec) -> None:
        self.name, self.model_id, self.model_family = spec.name, "slow-loading", "qwen2.5-coder"
        self._loaded = threading.Event()
        self._timer = threading.Timer(float(os.environ.get("ARBOR_TEST_LOAD_S", "2")), self._loaded.set)
        self._timer.start()
        self.streams = 0

    @property
    def loading(self) -> bool:
        return not self._loaded.is_set()

    async def wait_loaded(self) -> None:
        await asyncio.to_thread(self._loaded.wait)

    async def stream(self, prompt: str, params: SamplingParams):
        self.streams += 1
        if self.loading:
            raise BackendLoading(f"{self.name}: loading the model")
        yield "return a + b"

    async def aclose(self) -> None:
        self._timer.cancel()
