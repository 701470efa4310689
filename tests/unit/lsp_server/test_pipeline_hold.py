"""The pipeline and a buffer's held layout: completions show the held snippets; a fresh choice
becomes the buffer's only through `warm`, once the backend has prefilled it; while a warm-up has
not finished, its choice is what a completion that would choose afresh shows."""

from __future__ import annotations

import asyncio

from indexer import WorkspaceIndex
from inference.api import CompletionResult
from lsp_server.config import Settings
from lsp_server.pipeline import CompletionPipeline, HeldBuffer

NAMES = [f"far_{i:02d}" for i in range(20)]
UTIL = "".join(f"def {name}(x):\n    return x\n\n\n" for name in NAMES)
MAIN = (f"from util import {', '.join(NAMES)}\n\n\ndef first():\n"
        + "".join(f"    {name}(1)\n    {name}(2)\n    {name}(3)\n" for name in NAMES))
NEAR_FIRST = MAIN.index(f"{NAMES[0]}(3)")
NEAR_LAST = MAIN.index(f"{NAMES[-1]}(3)")


class Router:
    """What the pipeline asks of its router; records the requests it is sent."""

    def __init__(self, warms: bool = True, warmed_tokens: int = 40) -> None:
        self.warms = warms
        self.warmed_tokens = warmed_tokens
        self.completed: list = []
        self.warmed: list = []
        self.prefilled = asyncio.Event()  # a warm-up returns once it is set
        self.prefilled.set()

    def prompt_budget(self, seconds: float, ceiling: int) -> int:
        return ceiling

    async def complete(self, request, verify=None) -> CompletionResult:
        self.completed.append(request)
        return CompletionResult(text="x", latency_ms={})

    async def warm(self, request) -> int:
        self.warmed.append(request)
        await self.prefilled.wait()
        return self.warmed_tokens


def _pipeline(tmp_path, router: Router) -> tuple[CompletionPipeline, str]:
    (tmp_path / "util.py").write_text(UTIL)
    (tmp_path / "main.py").write_text(MAIN)
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    path = str(tmp_path / "main.py")
    index.did_open(path, MAIN, "python")
    return CompletionPipeline(Settings(), str(tmp_path), index=index, router=router), path


def _shown(request) -> list[str]:
    return [snippet.text for snippet in request.snippets]


def _fresh(pipeline, path, offset):
    return pipeline.request_for(pipeline.build_context(path, MAIN, offset))


async def _warm_up_waiting(pipeline, router, path, offset, doc):
    """A warm-up at `offset` started and waiting for the backend (until `router.prefilled` is set)."""
    router.prefilled.clear()
    warm_up = asyncio.ensure_future(pipeline.warm(path, MAIN, offset, holder=doc))
    await asyncio.sleep(0)
    return warm_up


async def test_completions_show_the_held_snippets_until_a_warm_up_replaces_them(tmp_path):
    router = Router()
    pipeline, path = _pipeline(tmp_path, router)
    doc = HeldBuffer()
    await pipeline.complete(path, MAIN, NEAR_FIRST, holder=doc)
    held = doc.layout
    assert held is not None
    await pipeline.complete(path, MAIN, NEAR_LAST, holder=doc)
    assert _shown(router.completed[1]) == _shown(router.completed[0])
    assert doc.layout is held
    fresh = _fresh(pipeline, path, NEAR_LAST)
    assert _shown(fresh) != _shown(router.completed[0])  # else this test shows nothing

    await pipeline.warm(path, MAIN, NEAR_LAST, holder=doc)
    assert _shown(router.warmed[0]) == _shown(fresh)
    assert doc.layout is not held
    await pipeline.complete(path, MAIN, NEAR_LAST, holder=doc)
    assert _shown(router.completed[2]) == _shown(fresh)


async def test_a_warm_up_that_prefilled_nothing_leaves_the_held_snippets(tmp_path):
    router = Router(warmed_tokens=0)
    pipeline, path = _pipeline(tmp_path, router)
    doc = HeldBuffer()
    await pipeline.complete(path, MAIN, NEAR_FIRST, holder=doc)
    held = doc.layout
    await pipeline.warm(path, MAIN, NEAR_LAST, holder=doc)
    assert doc.layout is held


async def test_without_a_cache_to_warm_every_completion_chooses_afresh(tmp_path):
    router = Router(warms=False)
    pipeline, path = _pipeline(tmp_path, router)
    doc = HeldBuffer()
    await pipeline.complete(path, MAIN, NEAR_FIRST, holder=doc)
    await pipeline.complete(path, MAIN, NEAR_LAST, holder=doc)
    fresh = _fresh(pipeline, path, NEAR_LAST)
    assert _shown(router.completed[1]) == _shown(fresh)


async def test_with_warm_ups_off_every_completion_chooses_afresh(tmp_path):
    router = Router()
    pipeline, path = _pipeline(tmp_path, router)
    pipeline.settings.completion.warm_up = False
    doc = HeldBuffer()
    await pipeline.complete(path, MAIN, NEAR_FIRST, holder=doc)
    await pipeline.complete(path, MAIN, NEAR_LAST, holder=doc)
    fresh = _fresh(pipeline, path, NEAR_LAST)
    assert _shown(router.completed[1]) == _shown(fresh)


async def test_a_completion_during_a_warm_up_shows_the_snippets_being_prefilled(tmp_path):
    router = Router()
    pipeline, path = _pipeline(tmp_path, router)
    doc = HeldBuffer()
    warm_up = await _warm_up_waiting(pipeline, router, path, NEAR_FIRST, doc)
    assert router.warmed and doc.layout is None
    await pipeline.complete(path, MAIN, NEAR_LAST, holder=doc)
    fresh = _fresh(pipeline, path, NEAR_LAST)
    assert _shown(router.completed[0]) == _shown(router.warmed[0]) != _shown(fresh)
    assert doc.layout is doc.warming  # the request made it the buffer's
    router.prefilled.set()
    await warm_up
    assert doc.warming is None
    await pipeline.complete(path, MAIN, NEAR_LAST, holder=doc)
    assert _shown(router.completed[1]) == _shown(router.warmed[0])


async def test_a_prefilled_layout_wins_over_one_being_prefilled(tmp_path):
    router = Router()
    pipeline, path = _pipeline(tmp_path, router)
    doc = HeldBuffer()
    await pipeline.complete(path, MAIN, NEAR_FIRST, holder=doc)
    held = doc.layout
    warm_up = await _warm_up_waiting(pipeline, router, path, NEAR_LAST, doc)
    await pipeline.complete(path, MAIN, NEAR_LAST, holder=doc)
    assert _shown(router.completed[1]) == _shown(router.completed[0]) != _shown(router.warmed[0])
    assert doc.layout is held
    router.prefilled.set()
    await warm_up
    assert doc.layout is not held and doc.warming is None


async def test_a_warm_up_cut_short_leaves_its_choice_to_the_next_one(tmp_path):
    router = Router()
    pipeline, path = _pipeline(tmp_path, router)
    doc = HeldBuffer()
    first = await _warm_up_waiting(pipeline, router, path, NEAR_FIRST, doc)
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    router.prefilled.set()
    await pipeline.warm(path, MAIN, NEAR_LAST, holder=doc)
    fresh = _fresh(pipeline, path, NEAR_LAST)
    assert _shown(router.warmed[1]) == _shown(router.warmed[0]) != _shown(fresh)
    assert doc.warming is None and doc.layout is not None
    await pipeline.warm(path, MAIN, NEAR_LAST, holder=doc)  # one that finished: the next chooses afresh
    assert _shown(router.warmed[2]) == _shown(fresh)


async def test_a_warm_up_that_prefilled_nothing_leaves_no_warming_layout(tmp_path):
    router = Router(warmed_tokens=0)
    pipeline, path = _pipeline(tmp_path, router)
    doc = HeldBuffer()
    await pipeline.warm(path, MAIN, NEAR_FIRST, holder=doc)
    assert doc.warming is None and doc.layout is None
    await pipeline.complete(path, MAIN, NEAR_LAST, holder=doc)
    fresh = _fresh(pipeline, path, NEAR_LAST)
    assert _shown(router.completed[0]) == _shown(fresh)


async def test_a_warm_up_ending_after_a_completion_chose_afresh_leaves_that_choice(tmp_path):
    router = Router()
    pipeline, path = _pipeline(tmp_path, router)
    doc = HeldBuffer()
    await pipeline.complete(path, MAIN, NEAR_FIRST, holder=doc)
    warm_up = await _warm_up_waiting(pipeline, router, path, NEAR_FIRST, doc)
    doc.layout = doc.warming = None  # as if neither held where the user went
    await pipeline.complete(path, MAIN, NEAR_LAST, holder=doc)
    chosen = doc.layout
    router.prefilled.set()
    await warm_up
    assert doc.layout is chosen


async def test_no_warm_up_is_built_for_a_backend_without_a_prompt_cache(tmp_path):
    router = Router(warms=False)
    pipeline, path = _pipeline(tmp_path, router)
    doc = HeldBuffer()
    assert await pipeline.warm(path, MAIN, NEAR_FIRST, holder=doc) == 0
    assert router.warmed == [] and doc.warming is None
