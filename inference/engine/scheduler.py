"""Continuous batching: which sequences run in the next step, and how many tokens each computes.

There are no prefill and decode phases: every sequence has `num_computed_tokens` and wants to
reach `num_tokens`; one step spends a token budget (`max_batched_tokens`) over
1. running sequences that decode (one token each), most urgent first, then
2. running sequences still prefilling (chunked prefill: as many tokens as the budget allows), then
3. waiting sequences in key order (see `EngineConfig`: virtual deadline, then arrival order), while
   fewer than `max_batch` run. Admission reuses the longest cached prefix; a request whose next
   uncached block is being computed right now by a running request waits for it instead of
   computing the same prefix twice (requests sharing a prefix that arrive together).
When a running sequence cannot get blocks, the least urgent running sequence is preempted by
recompute (blocks freed, progress reset, back to the waiting queue under its original key) until
the allocation fits; if the sequence itself is the least urgent, it is the one preempted.
Dynamic batching: while nothing runs and fewer than `max_batch` requests wait, the scheduler holds
them until the oldest has waited `max_wait_ms`, and reports when to wake up.
Warm-ups (prefill-only requests) rank below every real request: they are queued apart, oldest
first, and one at a time computes at most `warmup_chunk_tokens` per step, only in steps where no
real request is running or waiting. A real request that arrives preempts the running warm-up
(its computed full blocks stay in the prefix cache, so it resumes where it was). A background
request (priority above 0: a speculation) also prefills at most `warmup_chunk_tokens` per step.
An interactive request that arrives during such a step waits for none of it unless the step
computes the start of its own prompt (the engine gives the step up between two layers).
Speculation: a decoding greedy sequence (no logits processors) may get prompt-lookup drafts
(`lookup.py`): its chunk is then `[last token] + drafts`, computed like a prefill chunk on top of
its cached keys/values and verified by the engine. Drafts are given in urgency order, at most
`lookup_tokens` per step in all, never past `max_tokens` or the context, only within the token
budget and only when their blocks are free without preempting anyone (else it decodes plainly).
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque
from dataclasses import dataclass, field

from .config import EngineConfig
from .kv_cache_manager import KVCacheManager
from .lookup import DraftLength, NgramIndex
from .sequence import Sequence, SequenceStatus


class BacklogFullError(RuntimeError):
    """More requests are queued or running than `maxBacklog` allows."""


class RequestTooLargeError(ValueError):
    """A request can never fit (prompt plus max tokens exceed the KV cache or the context)."""


@dataclass(slots=True)
class ScheduledChunk:
    """`num_tokens` tokens of `seq` from position `start`: its own tokens, then `drafts` (guessed
    continuations, not in `seq.token_ids`; only when the chunk starts at the last token)."""

    seq: Sequence
    start: int  # seq.num_computed_tokens when scheduled
    num_tokens: int
    drafts: tuple[int, ...] = ()

    @property
    def samples(self) -> bool:
        """True when this chunk reaches the sequence's last known token (its logits are sampled);
        never for a prefill-only sequence."""
        return self.start + self.num_tokens - len(self.drafts) == self.seq.num_tokens and not self.seq.prefill_only

    @property
    def token_ids(self) -> list[int]:
        own = self.seq.token_ids[self.start : self.start + self.num_tokens - len(self.drafts)]
        return own + list(self.drafts)


@dataclass(slots=True)
class SchedulerOutput:
    chunks: list[ScheduledChunk] = field(default_factory=list)
    preempted: list[Sequence] = field(default_factory=list)
    prefilled: list[Sequence] = field(default_factory=list)  # warm-ups found complete: finish them
    wake_at_s: float | None = None  # set when requests are held back by max_wait_ms

    @property
    def num_tokens(self) -> int:
        return sum(chunk.num_tokens for chunk in self.chunks)


class Scheduler:
    def __init__(self, config: EngineConfig, kv: KVCacheManager, max_model_len: int) -> None:
        self.config = config
        self.kv = kv
        self.max_model_len = max_model_len
        self.waiting: list[tuple[tuple[float, int], Sequence]] = []  # heap; aborted entries skipped
        self.running: list[Sequence] = []
        self.requests: dict[str, Sequence] = {}
        self.num_waiting = 0
        self.num_preemptions = 0
        self.warmups: deque[Sequence] = deque()  # waiting prefill-only requests, oldest first
        self.warming: Sequence | None = None  # the prefill-only request holding blocks
        self._counter = itertools.count()

    @property
    def has_work(self) -> bool:
        return self.has_real_work or bool(self.warmups) or self.warming is not None

    @property
    def has_real_work(self) -> bool:
        return bool(self.running) or self.num_waiting > 0

    def add(self, seq: Sequence, now_s: float | None = None) -> None:
        """Queue a request. Raises BacklogFullError or RequestTooLargeError; never queues those."""
        if seq.request_id in self.requests:
            raise ValueError(f"duplicate request id {seq.request_id!r}")
        queued = self.num_waiting + len(self.running) + len(self.warmups) + (self.warming is not None)
        if queued >= self.config.max_backlog:
            raise BacklogFullError(
                f"embedded engine backlog is full ({self.config.max_backlog} requests queued or running); "
                "retry later or raise maxBacklog"
            )
        total = seq.num_tokens + seq.params.max_tokens
        if seq.num_tokens >= self.max_model_len:
            raise RequestTooLargeError(
                f"prompt of {seq.num_tokens} tokens does not fit the model's context of {self.max_model_len}"
            )
        needed = self.kv.blocks_needed(min(total, self.max_model_len))
        if needed > self.kv.pool.num_blocks:
            raise RequestTooLargeError(
                f"request needs {needed} KV blocks ({total} tokens) but the cache has "
                f"{self.kv.pool.num_blocks}; raise kvCacheMB or lower maxTokens"
            )
        now_s = time.monotonic() if now_s is None else now_s
        params = seq.params
        deadline_s = (params.deadline_ms if params.deadline_ms is not None else self.config.default_deadline_ms) / 1000
        seq.arrival_s = now_s
        seq.sort_key = (now_s + deadline_s + params.priority * self.config.priority_age_s, next(self._counter))
        seq.status = SequenceStatus.WAITING
        self.requests[seq.request_id] = seq
        if seq.prefill_only:
            self.warmups.append(seq)
        else:
            self._push_waiting(seq)

    def _push_waiting(self, seq: Sequence) -> None:
        heapq.heappush(self.waiting, (seq.sort_key, seq))
        self.num_waiting += 1

    def finish(self, seq: Sequence, reason: str) -> None:
        """End a sequence: free its blocks at once and drop it from the queues."""
        if seq.is_finished:
            return
        if seq is self.warming:
            self.warming = None
        elif seq.prefill_only:
            self.warmups.remove(seq)
        elif seq.status is SequenceStatus.RUNNING:
            self.running.remove(seq)
        else:
            self.num_waiting -= 1  # its heap entry is skipped lazily
        self.kv.free(seq)
        seq.status = SequenceStatus.FINISHED
        seq.finish_reason = reason
        self.requests.pop(seq.request_id, None)

    def abort(self, request_id: str) -> Sequence | None:
        seq = self.requests.get(request_id)
        if seq is not None:
            self.finish(seq, "abort")
        return seq

    def _preempt(self, seq: Sequence) -> None:
        self.running.remove(seq)
        self.kv.free(seq)
        seq.status = SequenceStatus.WAITING
        seq.num_preemptions += 1
        self.num_preemptions += 1
        self._push_waiting(seq)

    def _preempt_warmup(self) -> Sequence:
        seq = self.warming
        assert seq is not None
        self.warming = None
        self.kv.free(seq)
        seq.status = SequenceStatus.WAITING
        seq.num_preemptions += 1
        self.warmups.appendleft(seq)
        return seq

    def _schedule_warmup(self, out: SchedulerOutput) -> None:
        """Admit the oldest warm-up if none holds blocks, and give it one chunk. A warm-up whose
        target is already cached goes to `out.prefilled` without a chunk."""
        if self.warming is None:
            if not self.warmups:
                return
            seq = self.warmups[0]
            if not self.kv.admit(seq, 0):
                return
            self.warmups.popleft()
            seq.status = SequenceStatus.RUNNING
            self.warming = seq
        seq = self.warming
        count = min(self.config.warmup_chunk_tokens, self.config.max_batched_tokens,
                    self.kv.target_tokens(seq) - seq.num_computed_tokens)
        if count <= 0:
            out.prefilled.append(seq)
        elif self.kv.allocate(seq, count):
            out.chunks.append(ScheduledChunk(seq, seq.num_computed_tokens, count))
        else:
            out.preempted.append(self._preempt_warmup())

    def _hold_for_batch(self, now_s: float) -> float | None:
        """When to run a partial batch if the scheduler should keep waiting for more requests."""
        if self.running or self.num_waiting >= self.config.max_batch or self.config.max_wait_ms <= 0:
            return None
        oldest = min(seq.arrival_s for _, seq in self.waiting if seq.status is SequenceStatus.WAITING)
        wake = oldest + self.config.max_wait_ms / 1000
        return wake if now_s < wake else None

    def schedule(self, now_s: float | None = None) -> SchedulerOutput:
        out = SchedulerOutput()
        if not self.has_real_work:
            self._schedule_warmup(out)
            return out
        if self.warming is not None:
            out.preempted.append(self._preempt_warmup())
        now_s = time.monotonic() if now_s is None else now_s
        wake = self._hold_for_batch(now_s)
        if wake is not None:
            out.wake_at_s = wake
            return out
        budget = self.config.max_batched_tokens
        draft_budget = self.config.lookup_tokens
        scheduled: dict[int, ScheduledChunk] = {}
        order = sorted(self.running, key=lambda s: (s.num_tokens - s.num_computed_tokens > 1, s.sort_key))
        for seq in order:
            if budget == 0:
                break
            if seq.status is not SequenceStatus.RUNNING:
                continue  # preempted earlier in this loop
            count = self._chunk(seq, budget)
            decoding = count == seq.num_tokens - seq.num_computed_tokens == 1
            drafts = self._drafts(seq, min(draft_budget, budget - 1)) if decoding else []
            if drafts and self.kv.allocate(seq, 1 + len(drafts)):
                scheduled[id(seq)] = ScheduledChunk(seq, seq.num_computed_tokens, 1 + len(drafts), tuple(drafts))
                budget -= 1 + len(drafts)
                draft_budget -= len(drafts)
                continue
            while not self.kv.allocate(seq, count):
                victim = max((s for s in self.running if s is not seq), key=lambda s: s.sort_key, default=None)
                if victim is None or victim.sort_key < seq.sort_key:
                    victim = seq
                dropped = scheduled.pop(id(victim), None)
                if dropped is not None:
                    budget += dropped.num_tokens
                self._preempt(victim)
                out.preempted.append(victim)
                if victim is seq:
                    break
            else:
                scheduled[id(seq)] = ScheduledChunk(seq, seq.num_computed_tokens, count)
                budget -= count
        in_flight: set[int] = set()
        for seq in self.running:
            in_flight |= self.kv.uncomputed_block_hashes(seq)
        deferred: list[Sequence] = []
        while self.waiting and budget > 0 and len(self.running) < self.config.max_batch:
            seq = self.waiting[0][1]
            if seq.status is not SequenceStatus.WAITING:
                heapq.heappop(self.waiting)
                continue
            if self.kv.next_block_in(seq, in_flight):
                deferred.append(heapq.heappop(self.waiting)[1])  # its prefix is being computed: wait for it
                continue
            if not self.kv.admit(seq, budget):
                break
            heapq.heappop(self.waiting)
            self.num_waiting -= 1
            seq.status = SequenceStatus.RUNNING
            self.running.append(seq)
            count = self._chunk(seq, budget)
            scheduled[id(seq)] = ScheduledChunk(seq, seq.num_computed_tokens, count)
            budget -= count
            in_flight |= self.kv.uncomputed_block_hashes(seq)
        for seq in deferred:
            heapq.heappush(self.waiting, (seq.sort_key, seq))
        out.chunks = list(scheduled.values())
        return out

    def _chunk(self, seq: Sequence, budget: int) -> int:
        """Tokens `seq` computes in this step: what it lacks, within `budget`; a background request
        (priority above interactive: a speculation) prefills at most `warmup_chunk_tokens`."""
        count = min(seq.num_tokens - seq.num_computed_tokens, budget)
        return min(count, self.config.warmup_chunk_tokens) if seq.params.priority > 0 else count

    def _drafts(self, seq: Sequence, limit: int) -> list[int]:
        """Prompt-lookup drafts for a greedy sequence whose only uncomputed token is its last:
        at most `limit`, its adaptive draft length, and what `max_tokens` and the context leave
        after the token the step is sure to produce."""
        k = self.config.lookup_tokens
        params = seq.params
        if k == 0 or limit <= 0 or not params.greedy or params.logits_processors or seq.prefill_only:
            return []
        if seq.lookup is None or seq.draft_length is None:
            seq.lookup, seq.draft_length = NgramIndex(), DraftLength(k)
        room = min(params.max_tokens - seq.num_output_tokens, self.max_model_len - seq.num_tokens) - 1
        return seq.lookup.propose(seq.token_ids, min(limit, k, seq.draft_length.current, room))

    def complete_step(self, output: SchedulerOutput) -> list[Sequence]:
        """Record that the scheduled chunks were computed; caches their newly full blocks.
        A chunk's drafts do not count as computed here: the engine advances over the ones the
        model accepts (`LLMEngine._accept`). Sequences aborted or finished meanwhile are skipped.
        Returns the warm-ups that reached their target (the caller finishes them)."""
        done: list[Sequence] = []
        for chunk in output.chunks:
            seq = chunk.seq
            if seq.status is not SequenceStatus.RUNNING:
                continue
            seq.num_computed_tokens = chunk.start + chunk.num_tokens - len(chunk.drafts)
            self.kv.cache_computed_blocks(seq)
            if seq.prefill_only and seq.num_computed_tokens >= self.kv.target_tokens(seq):
                done.append(seq)
        return done
