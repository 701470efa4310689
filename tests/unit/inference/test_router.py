from __future__ import annotations

import asyncio

import pytest

from inference.api import BackendError, BackendLoading, CompletionRequest, SamplingParams
from inference.backend_spec import BackendSpec
from inference.breaker import BreakerSettings
from inference.routing import RouteSettings
from inference.router import Router, collect
from inference.stops import StopScanner


class ScriptedBackend:
    """A test double: yields the given chunks, optionally failing or stalling."""

    def __init__(self, spec: BackendSpec, chunks=("hello",), fail=False, stall=False):
        self.name, self.model_id, self.model_family = spec.name, f"test:{spec.name}", "qwen2.5-coder"
        self.chunks, self.fail, self.stall = list(chunks), fail, stall
        self.prompts: list[str] = []
        self.closed_streams = 0
        self.yielded = 0

    async def stream(self, prompt: str, params: SamplingParams):
        self.prompts.append(prompt)
        try:
            if self.fail:
                raise BackendError("boom")
            for chunk in self.chunks:
                if self.stall:
                    await asyncio.sleep(10)
                self.yielded += 1
                yield chunk
        finally:
            self.closed_streams += 1

    async def aclose(self) -> None:
        pass


def make_router(*backends, min_requests=3):
    specs = [BackendSpec(name=f"b{i}", kind="openai", timeout_ms=200) for i in range(len(backends))]
    table = dict(zip((s.name for s in specs), backends))
    return Router(specs, factory=lambda spec: table[spec.name], breaker=BreakerSettings(min_requests=min_requests))


def spec(name="b"):
    return BackendSpec(name=name, kind="openai")


def test_stop_scanner_handles_stops_split_across_chunks():
    scanner = StopScanner(("<|endoftext|>",))
    out = "".join(scanner.feed(c) for c in ["ret", "urn x<|end", "oftext|>junk"])
    assert out == "return x" and scanner.stopped


def test_stop_scanner_flushes_held_tail():
    scanner = StopScanner(("\n\n\n",))
    assert scanner.feed("ab") + scanner.flush() == "ab"


async def test_collect_single_line_closes_stream_early():
    backend = ScriptedBackend(spec(), chunks=["x = 1", "\ny = 2", "\nz = 3"])
    text = await collect(backend, "p", SamplingParams(), multiline=False)
    assert text.split("\n")[0] == "x = 1"
    assert backend.closed_streams == 1


async def test_router_renders_template_and_falls_back_on_failure():
    bad, good = ScriptedBackend(spec("b0"), fail=True), ScriptedBackend(spec("b1"), chunks=["ok"])
    router = make_router(bad, good)
    result = await router.complete(CompletionRequest(prefix="a", suffix="b"))
    assert (result.text, result.backend, result.cache) == ("ok", "b1", "miss")
    assert good.prompts[0].endswith("<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>")
    assert router.slots[0].breaker.state == "closed"  # one failure is below minRequests


async def test_router_timeout_counts_as_failure_and_breaker_opens():
    stalled = ScriptedBackend(spec("b0"), stall=True)
    router = make_router(stalled)
    for _ in range(3):
        with pytest.raises(BackendError, match="timed out"):
            await router.complete(CompletionRequest(prefix="a"))
    assert router.slots[0].breaker.state == "open"
    assert stalled.closed_streams == 3  # every timed-out stream was closed
    with pytest.raises(BackendError) as raised:
        await router.complete(CompletionRequest(prefix="a"))
    # the last real cause, the backend named once
    assert str(raised.value) == "b0: timed out after 200 ms (circuit open for 30 s)"
    assert stalled.closed_streams == 3  # skipped: not asked


async def test_router_cancellation_closes_backend_stream():
    stalled = ScriptedBackend(spec("b0"), stall=True)
    router = make_router(stalled)
    task = asyncio.ensure_future(router.complete(CompletionRequest(prefix="a")))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert stalled.closed_streams == 1


def test_unknown_or_broken_backend_is_a_problem_not_a_crash():
    router = Router([BackendSpec(name="x", kind="python", model="no.such.module:Thing")])
    assert router.slots == [] and "cannot import" in router.problems[0]


def test_status_carries_backend_counters_when_the_backend_keeps_them():
    class Counting(ScriptedBackend):
        def stats(self):
            return {"steps": 3}

    router = make_router(Counting(spec("b0")), ScriptedBackend(spec("b1")))
    first, second = router.status()
    assert first["stats"] == {"steps": 3} and "stats" not in second
    assert first["breaker"] == "closed"


async def test_backend_that_needs_no_io_runs_in_the_callers_task():
    """The deadline does not move the backend into a task of its own: other requests queued on
    the loop must not run between building a prompt and answering it."""
    seen: list = []

    class TaskRecordingBackend(ScriptedBackend):
        async def stream(self, prompt, params):
            seen.append(asyncio.current_task())
            yield "ok"

    router = make_router(TaskRecordingBackend(spec("b0")))
    others_ran: list = []
    asyncio.get_running_loop().call_soon(others_ran.append, True)  # something else already queued
    result = await router.complete(CompletionRequest(prefix="a", suffix="b"))
    assert result.text == "ok"
    assert seen == [asyncio.current_task()]
    assert others_ran == []  # answered without handing the loop to it


class LoadingBackend(ScriptedBackend):
    """A test double for a model that is still loading."""

    async def stream(self, prompt: str, params: SamplingParams):
        self.prompts.append(prompt)
        raise BackendLoading(f"{self.name}: loading the model")
        yield ""  # pragma: no cover - makes this an async generator


def test_a_loading_backend_is_answered_as_loading_without_a_breaker_failure():
    router = make_router(LoadingBackend(spec("b0")))
    for _ in range(5):
        with pytest.raises(BackendLoading):
            asyncio.run(router.complete(CompletionRequest(prefix="x = ")))
    assert router.slots[0].breaker.state == "closed"
    assert router.slots[0].breaker.failure_rate() == (0, 0)


def test_a_loading_backend_falls_through_to_the_next_one():
    router = make_router(LoadingBackend(spec("b0")), ScriptedBackend(spec("b1"), chunks=("42",)))
    result = asyncio.run(router.complete(CompletionRequest(prefix="x = ")))
    assert (result.text, result.backend) == ("42", "b1")


def test_a_slow_in_process_backend_times_out_without_opening_the_breaker():
    specs = [BackendSpec(name="local", kind="python", model="m:C", timeout_ms=50)]
    backend = ScriptedBackend(specs[0], stall=True)
    router = Router(specs, factory=lambda spec: backend)
    for _ in range(5):
        with pytest.raises(BackendError, match="timed out"):
            asyncio.run(router.complete(CompletionRequest(prefix="x = ")))
    assert router.slots[0].breaker.state == "closed"


def test_a_slow_remote_backend_still_opens_the_breaker():
    router = make_router(ScriptedBackend(spec("b0"), stall=True))
    for _ in range(3):
        with pytest.raises(BackendError):
            asyncio.run(router.complete(CompletionRequest(prefix="x = ")))
    assert router.slots[0].breaker.state == "open"


def test_the_router_measures_prefill_speed_from_the_backends_usage_and_budgets_prompts_by_it():
    backend = ScriptedBackend(spec("b0"), chunks=("x",))
    backend.last_usage = {"prompt_tokens": 900, "cached_tokens": 100, "prefilled_tokens": 800}
    router = make_router(backend)
    assert router.prompt_budget(1.0, 1024) == 1024
    asyncio.run(router.complete(CompletionRequest(prefix="x = ")))
    speed = router.slots[0].prefill
    assert speed.samples == 1 and speed.tokens_per_s > 800  # 800 tokens in well under a second
    assert router.status()[0]["prefillTokensPerS"] > 0


def test_identical_failures_are_logged_once_a_minute_and_a_breaker_change_once(caplog):
    now = [0.0]
    backend = ScriptedBackend(spec("b0"), fail=True)
    router = Router([BackendSpec(name="b0", kind="openai")], factory=lambda s: backend,
                    breaker=BreakerSettings(min_requests=15, window_seconds=120), clock=lambda: now[0])
    caplog.set_level("WARNING", logger="inference.router")
    for _ in range(10):
        with pytest.raises(BackendError):
            asyncio.run(router.complete(CompletionRequest(prefix="x = ")))
    assert [r.getMessage() for r in caplog.records] == ["backend b0 failed: boom"]
    now[0] = 61
    caplog.clear()
    for _ in range(5):  # the 15th opens the breaker: that is logged instead of the failure
        with pytest.raises(BackendError):
            asyncio.run(router.complete(CompletionRequest(prefix="x = ")))
    assert [r.getMessage() for r in caplog.records] == [
        "backend b0 failed: boom (and 9 more like it in the last minute)",
        "b0 is failing (boom); skipped for 30 s"]
    assert all(r.levelname == "WARNING" for r in caplog.records)


async def test_a_route_per_mode_with_each_backend_the_others_fallback():
    local, remote = ScriptedBackend(spec("local"), chunks=["1"]), ScriptedBackend(spec("remote"), chunks=["2\n3"])
    specs = [BackendSpec(name="local", kind="python", model="m:C"), BackendSpec(name="remote", kind="openai")]
    table = {"local": local, "remote": remote}
    router = Router(specs, factory=lambda s: table[s.name],
                    route=RouteSettings(single=["local", "remote"], multi=["remote", "local"]))
    assert (await router.complete(CompletionRequest(prefix="x = ", multiline=False))).backend == "local"
    assert (await router.complete(CompletionRequest(prefix="x = ", multiline=True))).backend == "remote"
    remote.fail = True
    assert (await router.complete(CompletionRequest(prefix="x = ", multiline=True))).backend == "local"


def test_a_route_naming_an_unknown_backend_is_a_problem_and_the_rest_is_kept():
    router = Router([BackendSpec(name="a", kind="python", model="m:C")],
                    factory=lambda s: ScriptedBackend(s), route=RouteSettings(multi=["nope", "a"]))
    assert [s.spec.name for s in router.route(True)] == ["a"]
    assert router.problems == ["route.multi: no backend is named 'nope' (known: a)"]


async def test_the_deadline_of_each_mode_bounds_the_whole_request():
    stalled = ScriptedBackend(spec("b0"), stall=True)
    router = Router([BackendSpec(name="b0", kind="openai", timeout_ms=5000)], factory=lambda s: stalled,
                    route=RouteSettings(single_deadline_ms=100, multi_deadline_ms=300))
    loop = asyncio.get_running_loop()
    for multiline, expected in ((False, 0.1), (True, 0.3)):
        started = loop.time()
        with pytest.raises(BackendError, match="timed out"):
            await router.complete(CompletionRequest(prefix="a", multiline=multiline))
        assert expected <= loop.time() - started < expected + 0.05


async def test_a_cached_completion_answers_when_every_backend_fails():
    class Cache:
        def __init__(self):
            self.stored = {}

        def lookup(self, request, prompt, model_id, template, verify=None):
            return self.stored.get(model_id)

        def note_partial(self, *a):
            pass

        def store(self, *a, **k):
            pass

    from inference.cache import CacheHit
    cache = Cache()
    bad = ScriptedBackend(spec("b0"), fail=True)
    skipped = ScriptedBackend(spec("b1"))
    specs = [BackendSpec(name="b0", kind="openai", timeout_ms=50), BackendSpec(name="b1", kind="openai")]
    table = {"b0": bad, "b1": skipped}
    router = Router(specs, cache=cache, factory=lambda s: table[s.name],
                    route=RouteSettings(single_deadline_ms=50))

    class Slow(ScriptedBackend):
        async def stream(self, prompt, params):
            await asyncio.sleep(0.2)
            yield "late"

    router.slots[0].backend = Slow(spec("b0"))
    cache.stored["test:b1"] = CacheHit("cached", "semantic")  # b1's entry for an equivalent context
    result = await router.complete(CompletionRequest(prefix="a", multiline=False))
    assert (result.text, result.backend, result.cache) == ("cached", "b1", "semantic")
    assert skipped.prompts == []  # the deadline left no time to ask b1; its cache answered


def test_stop_scanner_holds_back_only_what_could_start_a_stop():
    scanner = StopScanner(("<|endoftext|>", "<|file_sep|>"))
    assert scanner.feed("}\n") == "}\n"  # nothing there can start a stop: emitted at once
    assert scanner.feed("x <|end") == "x "
    assert scanner.feed("ing") == "<|ending"
    blank_lines = StopScanner(("\n\n\n",))
    assert blank_lines.feed("a\n\n") == "a"
    assert blank_lines.feed("b") == "\n\nb"


async def test_collect_single_line_ends_in_the_chunk_that_ends_the_line():
    backend = ScriptedBackend(spec(), chunks=["}", "\n", "never", " read"])
    params = SamplingParams(stop=("<|endoftext|>", "<|fim_pad|>"))
    assert await collect(backend, "p", params, multiline=False) == "}\n"
    assert backend.closed_streams == 1 and backend.yielded == 2
