"""Anticipation: warm-up once edits settle (timers driven by hand), speculation on acceptance and
its cancellation when the user leaves the speculated text."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from lsp_server.anticipation import Anticipation
from lsp_server.config import Settings


class ManualTimers:
    """`call_later` whose timers fire only when the test says so."""

    def __init__(self) -> None:
        self.pending: list[SimpleNamespace] = []

    def __call__(self, delay, callback):
        timer = SimpleNamespace(delay=delay, callback=callback, cancelled=False)
        timer.cancel = lambda: setattr(timer, "cancelled", True)
        self.pending.append(timer)
        return timer

    def fire_all(self) -> None:
        due, self.pending = self.pending, []
        for timer in due:
            if not timer.cancelled:
                timer.callback()


class RecordingPipeline:
    def __init__(self, preempts: bool = True) -> None:
        self.router = SimpleNamespace(preempts=preempts)  # the primary backend gives way to real requests
        self.warmed: list[tuple[str, int]] = []
        self.completed: list[tuple[str, int, int]] = []
        self.release = asyncio.Event()
        self.warm_gate: asyncio.Event | None = None

    async def warm(self, path, text, offset, *, language="", holder=None):
        self.warmed.append((text, offset))
        if self.warm_gate is not None:
            await self.warm_gate.wait()
        return 123

    async def complete(self, path, text, offset, *, language="", priority=0, holder=None):
        self.completed.append((text, offset, priority))
        await self.release.wait()


def make(doc_text="def f():\n    ", version=1, preempts=True):
    pipeline = RecordingPipeline(preempts)
    doc = SimpleNamespace(uri="file:///a.py", path="/a.py", text=doc_text, version=version, language_id="python")

    async def get_pipeline():
        return pipeline

    server = SimpleNamespace(settings=Settings(), documents={doc.uri: doc}, get_pipeline=get_pipeline)
    timers = ManualTimers()
    return Anticipation(server, call_later=timers), timers, pipeline, doc


async def test_warm_up_runs_once_edits_settle_at_the_last_edit():
    anticipation, timers, pipeline, doc = make()
    anticipation.edited(doc.uri, 1, len(doc.text), doc.text)
    assert timers.pending[0].delay == anticipation.settle_s and pipeline.warmed == []
    timers.fire_all()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert pipeline.warmed == [(doc.text, len(doc.text))]
    assert anticipation.counters["warmups"] == 1 and anticipation.counters["warmed_tokens"] == 123


async def test_a_request_or_a_newer_edit_cancels_a_pending_warm_up():
    anticipation, timers, pipeline, doc = make()
    anticipation.edited(doc.uri, 1, len(doc.text), doc.text)
    anticipation.requested(doc.uri)
    timers.fire_all()
    anticipation.edited(doc.uri, 1, len(doc.text), doc.text)
    doc.version = 2  # the edit that made version 2 is still being typed: its own timer decides
    timers.fire_all()
    await asyncio.sleep(0)
    assert pipeline.warmed == []


async def test_an_edit_that_ends_a_line_warms_at_once_and_a_running_warm_up_outlives_requests():
    anticipation, timers, pipeline, doc = make("def f():\n    x = 1\n")
    pipeline.warm_gate = asyncio.Event()
    anticipation.edited(doc.uri, 1, len(doc.text), doc.text)
    assert timers.pending[0].delay == 0.0
    timers.fire_all()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert len(pipeline.warmed) == 1
    running = anticipation._warming[doc.uri]
    anticipation.requested(doc.uri)
    anticipation.edited(doc.uri, 1, len(doc.text) - 1, doc.text)  # typing on: only a pending timer goes
    assert not running.cancelled() and anticipation._warming[doc.uri] is running
    pipeline.warm_gate.set()
    await running
    assert anticipation.counters["warmups"] == 1 and doc.uri not in anticipation._warming


async def test_speculation_completes_after_the_accepted_suggestion_at_background_priority():
    anticipation, timers, pipeline, doc = make("def f():\n    \n")
    offset = len("def f():\n    ")
    anticipation.answered(doc.uri, 1, offset, "return 1")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    ((text, cursor, priority),) = pipeline.completed
    assert text == "def f():\n    return 1\n" and cursor == offset + len("return 1") and priority > 0
    # typing through the suggestion keeps it (and answering the rest again does not restart it)
    typed = "def f():\n    ret"
    anticipation.edited(doc.uri, 2, len(typed), typed + "\n")
    doc.version, doc.text = 2, typed + "\n"
    anticipation.answered(doc.uri, 2, len(typed), "urn 1")
    await asyncio.sleep(0)
    assert len(pipeline.completed) == 1 and len(anticipation._speculations) == 1
    # leaving it cancels it
    anticipation.edited(doc.uri, 3, len(typed) + 1, typed + "x\n")
    assert anticipation._speculations == {}
    pipeline.release.set()


async def test_no_speculation_where_the_backend_cannot_put_it_below_real_requests():
    anticipation, timers, pipeline, doc = make("def f():\n    \n", preempts=False)
    anticipation.answered(doc.uri, 1, len("def f():\n    "), "return 1")
    for _ in range(3):
        await asyncio.sleep(0)
    assert pipeline.completed == [] and anticipation.counters["speculations"] == 0
    assert pipeline.warmed == [(doc.text, len("def f():\n    "))]  # the warm-up still runs (in steps there)


async def test_an_answer_warms_a_fresh_choice_of_snippets_where_it_was_answered():
    anticipation, timers, pipeline, doc = make("def f():\n    \n")
    offset = len("def f():\n    ")
    anticipation.answered(doc.uri, 1, offset, "return 1")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert pipeline.warmed == [(doc.text, offset)]
    # an answer while that warm-up runs does not start another
    pipeline.warm_gate = asyncio.Event()
    anticipation.answered(doc.uri, 1, offset, "")
    anticipation.answered(doc.uri, 1, offset, "")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert len(pipeline.warmed) == 2
    pipeline.warm_gate.set()
    pipeline.release.set()


async def test_a_resting_cursor_warms_there_at_once_and_once():
    anticipation, timers, pipeline, doc = make("def f():\n    pass\n\ndef g():\n    \n")
    place = len("def f():\n    pass\n\ndef g():\n    ")
    anticipation.visited(doc.uri, 1, place)
    assert [t.delay for t in timers.pending] == [0.0]
    timers.fire_all()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert pipeline.warmed == [(doc.text, place)]
    anticipation.visited(doc.uri, 1, place)  # the same place again: already warmed
    assert timers.pending == []
    anticipation.visited(doc.uri, 1, 3)  # elsewhere: warmed too
    timers.fire_all()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert pipeline.warmed[-1] == (doc.text, 3)


async def test_a_cursor_report_leaves_an_edits_warm_up_alone_and_ignores_stale_versions():
    anticipation, timers, pipeline, doc = make()
    anticipation.visited(doc.uri, 0, 2)  # the client's version is behind the server's
    assert timers.pending == []
    anticipation.edited(doc.uri, 1, len(doc.text), doc.text)
    anticipation.visited(doc.uri, 1, len(doc.text))  # the edit's own timer is pending
    assert len(timers.pending) == 1
    timers.fire_all()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert pipeline.warmed == [(doc.text, len(doc.text))]
    anticipation.visited("file:///not-open.py", 1, 0)
    assert timers.pending == []
