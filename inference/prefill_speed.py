"""How fast a backend evaluates prompt tokens, measured on real requests, and the prompt budget
that follows from it.

`observe(tokens, seconds)` takes one request's prefilled tokens (prompt tokens not served from a
prefix cache) and its time to first token; requests that prefilled fewer than `min_tokens` say
little about throughput and are ignored. The speed is an exponential moving average (`weight`
for the newest sample), so a machine that gets busier is followed within a few requests.
`budget(seconds, ceiling)` is the number of prompt tokens a cold request can evaluate in
`seconds`: the configured ceiling until a speed is known, never below `floor`, in steps of
`step` tokens, and sticky: it moves only when the speed says it is off by more than `slack`.
A budget that followed every sample would move the prompt's window at every request and turn
every prefix-cache hit into a miss.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class PrefillSpeed:
    min_tokens: int = 64
    weight: float = 0.3
    floor: int = 256
    step: int = 128
    slack: float = 0.25
    tokens_per_s: float | None = None
    samples: int = 0
    _budget: int = 0

    def observe(self, tokens: int, seconds: float) -> None:
        if tokens < self.min_tokens or seconds <= 0:
            return
        sample = tokens / seconds
        self.tokens_per_s = sample if self.tokens_per_s is None else (
            self.weight * sample + (1 - self.weight) * self.tokens_per_s)
        self.samples += 1

    def budget(self, seconds: float, ceiling: int) -> int:
        if self.tokens_per_s is None or seconds <= 0:
            return ceiling
        wanted = self.tokens_per_s * seconds
        current = self._budget
        if not current or abs(wanted - current) > self.slack * current:
            current = self._budget = max(self.step, int(wanted) // self.step * self.step)
        return max(min(self.floor, ceiling), min(ceiling, current))
