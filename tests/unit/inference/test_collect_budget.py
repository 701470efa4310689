"""`collect`'s multi-line time budget: past it, a multi-line stream ends at the next line break."""

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
