"""Prompt-lookup drafts for greedy speculative decoding: guess a sequence's next tokens by copying
what followed the latest earlier occurrence of its last few tokens (code repeats itself).

`NgramIndex` maps every n-gram (`MIN_NGRAM <= n <= MAX_NGRAM`) of a sequence's tokens to the
position right after its latest occurrence that has a token after it. Invariant: after
`extend(tokens)`, for every n and every `n <= i < len(tokens)`, `tokens[i - n : i]` maps to the
largest such `i`; the n-grams ending at the last token are not in it (nothing follows them yet),
so a lookup of the sequence's own suffix finds an earlier occurrence or nothing. The index only
grows: a sequence's `token_ids` only ever get accepted tokens appended, never rewritten.

`propose` prefers the longest n-gram that occurred before and returns up to `k` tokens that
followed it; a continuation that runs into the end of the tokens repeats itself (a period of
`len(tokens) - i` tokens), so `aaaa` proposes more `a`s. The drafts are only a guess: the engine
verifies them against the model (see `engine.LLMEngine.step`), so a bad guess costs compute,
never correctness.

`DraftLength` adapts how many drafts a sequence gets: a step whose drafts were all accepted
raises it by one (up to the setting), a step that rejected some lowers it to one more than
were accepted (at least `MIN_DRAFTS`): each verified position costs a row of compute on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# n-gram lengths measured on real code prompts (benchmarks/lookup_bench.py): bigrams and single
# tokens propose more drafts that fail than ones that pay for their extra rows on the CPU
MAX_NGRAM = 5
MIN_NGRAM = 3
MIN_DRAFTS = 1


@dataclass(slots=True)
class NgramIndex:
    positions: dict[tuple[int, ...], int] = field(default_factory=dict)
    indexed: int = 0  # tokens seen; n-grams ending before position indexed - 1 are registered

    def extend(self, tokens: list[int]) -> None:
        """Register the n-grams of `tokens` (which starts with the tokens seen before) that now
        have a follower."""
        for i in range(max(1, self.indexed), len(tokens)):
            for n in range(MIN_NGRAM, MAX_NGRAM + 1):
                if i >= n:
                    self.positions[tuple(tokens[i - n : i])] = i
        self.indexed = max(self.indexed, len(tokens))

    def propose(self, tokens: list[int], k: int) -> list[int]:
        """Up to `k` tokens that followed the latest earlier occurrence of the longest suffix
        n-gram of `tokens`; [] when no suffix n-gram occurred before or `k <= 0`."""
        if k <= 0:
            return []
        self.extend(tokens)
        end = len(tokens)
        for n in range(min(MAX_NGRAM, end), MIN_NGRAM - 1, -1):
            start = self.positions.get(tuple(tokens[end - n :]))
            if start is None:
                continue
            period = end - start
            return [tokens[start + j % period] for j in range(k)]
        return []


@dataclass(slots=True)
class DraftLength:
    current: int

    def after(self, drafted: int, accepted: int, limit: int) -> None:
        """Adapt to one verification: `accepted` of `drafted` drafts matched the model."""
        if drafted == 0:
            return
        self.current = min(limit, self.current + 1) if accepted == drafted else max(MIN_DRAFTS, accepted + 1)
