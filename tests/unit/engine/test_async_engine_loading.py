"""AsyncEngine builds its engine in the engine thread: `generate` says "loading" at once until
then, and a build failure is what every later request and `wait_loaded` raise."""

from __future__ import annotations

import asyncio
import threading

import pytest

from inference.engine.async_engine import AsyncEngine, EngineLoading
from inference.engine.sequence import GenerationParams


async def first_output(engine: AsyncEngine):
    async for output in engine.generate([1, 2, 3], GenerationParams(max_tokens=1)):
        return output


async def test_generate_says_loading_until_the_build_is_done_then_reports_its_failure():
    release = threading.Event()

    def build():
        release.wait(10)
        raise RuntimeError("weights do not fit")

    engine = AsyncEngine(build)
    try:
        assert engine.loading
        with pytest.raises(EngineLoading):
            await asyncio.wait_for(first_output(engine), 1)
        release.set()
        with pytest.raises(RuntimeError, match="weights do not fit"):
            await asyncio.wait_for(engine.wait_loaded(), 10)
        assert not engine.loading
        with pytest.raises(RuntimeError, match="weights do not fit"):
            await first_output(engine)
    finally:
        release.set()
        await engine.aclose()
