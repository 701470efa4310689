"""A request as the engine sees it: token ids, progress through them, and the KV blocks it holds.

Invariants:
- `token_ids[:num_prompt_tokens]` is the prompt; everything after it was generated.
- `0 <= num_computed_tokens <= len(token_ids)`: the KV cache holds keys/values for exactly the
  first `num_computed_tokens` tokens, stored in `block_table` (block i holds tokens
  `[i * block_size, (i + 1) * block_size)`).
- `block_hashes[i]` is the chained hash of full block i (see `kv_cache_manager.hash_block`); it is
  extended as tokens arrive and never changes, so a preempted sequence re-finds its own blocks.
- `num_cached_blocks` counts the leading blocks already registered in the prefix cache.
- `num_prefix_hit_tokens` is the prefix-cache hit of the first admission (a preempted sequence
  re-finding its own blocks does not change it); `num_prefilled_tokens` counts prompt tokens
  computed for it over all steps, so without preemption the two add up to the prompt.
- A prefill-only sequence (`params.max_tokens == 0`, a KV warm-up) computes the full blocks of its
  prompt, registers them in the prefix cache and finishes without sampling.
- Speculation (prompt lookup, see `lookup.py`) never puts a draft token in `token_ids`: drafts
  travel in the step's `ScheduledChunk`, and only the tokens the model confirms are appended, so
  `token_ids`, `num_computed_tokens` and `block_hashes` describe accepted tokens only. The block
  table may hold blocks past `num_computed_tokens` (room taken for drafts); slots there hold stale
  keys/values that are rewritten before `num_computed_tokens` covers them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .lookup import DraftLength, NgramIndex

# (generated token ids so far, logits row [vocab]) -> logits row; called in the engine thread.
LogitsProcessor = Callable[[list[int], Any], Any]


class SequenceStatus(enum.Enum):
    WAITING = "waiting"
    RUNNING = "running"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class GenerationParams:
    """How one request samples and when it stops (engine-level; richer than `api.SamplingParams`).

    `stop` strings end generation and are never emitted; `stop_token_ids` end it too (EOS and the
    model's end-of-turn tokens are added by the engine). `logits_processors` run in order on the
    next-token logits before sampling. `max_tokens == 0` makes a prefill-only request (a warm-up):
    scheduled below every real request, it only fills the prefix cache.
    """

    max_tokens: int = 128
    temperature: float = 0.0
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    stop_token_ids: tuple[int, ...] = ()
    ignore_eos: bool = False
    seed: int | None = None
    priority: int = 0
    deadline_ms: float | None = None
    logits_processors: tuple[LogitsProcessor, ...] = ()

    def __post_init__(self) -> None:
        if self.max_tokens < 0:
            raise ValueError("max_tokens must be at least 0 (0: prefill only)")
        if self.temperature < 0 or not 0 < self.top_p <= 1:
            raise ValueError("temperature must be >= 0 and top_p in (0, 1]")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    @property
    def prefill_only(self) -> bool:
        return self.max_tokens == 0


@dataclass(eq=False, slots=True)
class Sequence:
    request_id: str
    token_ids: list[int]
    params: GenerationParams = field(default_factory=GenerationParams)
    arrival_s: float = 0.0
    sort_key: tuple[float, int] = (0.0, 0)
    num_prompt_tokens: int = 0
    num_computed_tokens: int = 0
    block_table: list[int] = field(default_factory=list)
    block_hashes: list[int] = field(default_factory=list)
    num_cached_blocks: int = 0
    num_prefix_hit_tokens: int = 0  # tokens found in the prefix cache at the first admission
    num_prefilled_tokens: int = 0  # prompt tokens computed (all steps, recomputation included)
    num_preemptions: int = 0
    status: SequenceStatus = SequenceStatus.WAITING
    finish_reason: str = ""
    first_token_s: float | None = None
    lookup: NgramIndex | None = None  # n-grams of token_ids, built at the first speculative step
    draft_length: DraftLength | None = None

    def __post_init__(self) -> None:
        if not self.token_ids:
            raise ValueError("a sequence needs at least one prompt token")
        if self.num_prompt_tokens == 0:
            self.num_prompt_tokens = len(self.token_ids)

    @property
    def num_tokens(self) -> int:
        return len(self.token_ids)

    @property
    def num_output_tokens(self) -> int:
        return len(self.token_ids) - self.num_prompt_tokens

    @property
    def output_token_ids(self) -> list[int]:
        return self.token_ids[self.num_prompt_tokens:]

    @property
    def prefill_only(self) -> bool:
        return self.params.max_tokens == 0

    @property
    def is_finished(self) -> bool:
        return self.status is SequenceStatus.FINISHED

    def __repr__(self) -> str:
        return (
            f"Sequence({self.request_id!r}, {self.status.value}, tokens={self.num_tokens}, "
            f"computed={self.num_computed_tokens}, blocks={self.block_table})"
        )
