"""How a backend stream becomes a completion: the multi-line time budget (past it, a multi-line
stream ends at the next line break) and the stop strings that end it."""

from __future__ import annotations

from inference.api import SamplingParams
from inference.router import collect


class ClockedBackend:
    """Yields chunks; each chunk advances a fake clock by `step_s` before it is handed out."""

    def __init__(self, chunks: list[str], step_s: float):
        self.chunks, self.step_s, self.now, self.closed = chunks, step_s, 0.0, False

    def clock(self) -> float:
        return self.now

    async def stream(self, prompt: str, params: SamplingParams):
        try:
            for chunk in self.chunks:
                self.now += self.step_s
                yield chunk
        finally:
            self.closed = True


CHUNKS = ["if x:", "\n    y = 1", "\n    z", " = 2", "\nreturn y"]


async def test_multiline_runs_to_the_end_within_its_budget():
    backend = ClockedBackend(CHUNKS, step_s=0.1)
    text = await collect(backend, "p", SamplingParams(), multiline=True, budget_s=5.0, clock=backend.clock)
    assert text == "".join(CHUNKS)


async def test_multiline_past_its_budget_ends_at_the_next_line_break_with_whole_lines():
    backend = ClockedBackend(CHUNKS, step_s=0.1)
    # the budget passes at the third chunk, which leaves "    z" unfinished: the answer stops at
    # the line break before it and the stream is closed
    text = await collect(backend, "p", SamplingParams(), multiline=True, budget_s=0.25, clock=backend.clock)
    assert text == "if x:\n    y = 1"
    assert backend.closed


async def test_multiline_past_its_budget_still_waits_for_a_first_whole_line():
    backend = ClockedBackend(["\n", "    if", " x:", "\n    y"], step_s=1.0)
    text = await collect(backend, "p", SamplingParams(), multiline=True, budget_s=0.5, clock=backend.clock)
    assert text == "\n    if x:"


async def test_no_budget_means_no_limit():
    backend = ClockedBackend(CHUNKS, step_s=10.0)
    text = await collect(backend, "p", SamplingParams(), multiline=True, budget_s=0.0, clock=backend.clock)
    assert text == "".join(CHUNKS)


async def test_the_router_cuts_at_a_backends_own_stop_strings():
    from inference.api import CompletionRequest
    from inference.backend_spec import BackendSpec
    from inference.router import Router

    class Echo:
        name, model_id, model_family = "b", "test:b", "qwen2.5-coder"

        async def stream(self, prompt, params):
            self.stop = params.stop
            for chunk in ("x = 1", "<END>", "junk"):
                yield chunk

        async def aclose(self):
            pass

    backend = Echo()
    router = Router([BackendSpec(name="b", kind="openai", stop=["<END>"])], factory=lambda spec: backend)
    result = await router.complete(CompletionRequest(prefix="a", multiline=True))
    assert result.text == "x = 1" and "<END>" in backend.stop
    await router.aclose()
