"""The engine's synchronous core: requests in, one step at a time (schedule -> run -> sample ->
stream), outputs out through per-request callbacks.

Thread safety: `add_request`, `abort` and `step` may be called from different threads. One lock
guards the scheduler and request state; the forward pass runs outside it, on inputs copied
under it, so `abort` frees a sequence's blocks at once even while a step is running (nothing else
can claim those blocks before the step ends: only `step` allocates). Callbacks are invoked under
the lock and must be quick (the async wrapper just hands them to the event loop).

Counters (`stats`): `prompt_tokens` of real requests; `prefilled_tokens`, their prompt tokens
actually computed (prefix-cache hits excluded, recomputation after preemption included);
`warmup_tokens`, tokens computed for prefill-only requests; `computed_tokens`, everything run
(draft tokens included); `drafted_tokens`, prompt-lookup draft tokens verified, and
`accepted_tokens`, those the model confirmed (the acceptance rate is their ratio).
A prefill-only request finishes with reason "prefill" once its full blocks are cached.

Background steps give way: a step whose chunks are all background work (warm-ups, requests of a
priority above interactive) is given up between two layers when an interactive request arrives
(`interrupted_steps` counts them). Nothing of it counts as computed, so the scheduler's next step
starts the new request at once instead of after a whole background chunk. A step that computes
the start of the arriving request's own prompt (a warm-up of the prompt it extends) runs on: its
blocks are the first the request would compute, and they reach the prefix cache as it ends.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .block_pool import BlockPool
from ..prefill_speed import PrefillSpeed
from .config import CPU_STEP_TOKENS, GPU_STEP_TOKENS, EngineConfig, ModelConfig
from .detokenizer import OutputText
from .kv_cache_manager import KVCacheManager
from .layers.sampler import sample
from .model_runner import ModelRunner
from .models import StepInterrupted
from .scheduler import ScheduledChunk, Scheduler, SchedulerOutput
from .sequence import GenerationParams, Sequence
from .tokenizer import TextTokenizer

CALIBRATION_WARM_TOKENS = 32  # below PrefillSpeed.min_tokens: warms the kernels, is not measured
CALIBRATION_TOKENS = 256

log = logging.getLogger(__name__)


@dataclass(slots=True)
class RequestOutput:
    request_id: str
    text: str = ""  # new text since the previous output
    token_ids: list[int] = field(default_factory=list)  # new tokens since the previous output
    finished: bool = False
    finish_reason: str = ""  # "stop" | "length" | "abort" | "error"
    error: BaseException | None = None
    # set on the final output: prompt length, prefix-cache hit at admission, prompt tokens computed,
    # and tokens whose KV the sequence held when it finished
    num_prompt_tokens: int = 0
    num_cached_tokens: int = 0
    num_prefilled_tokens: int = 0
    num_computed_tokens: int = 0


OutputCallback = Callable[[RequestOutput], None]


@dataclass(slots=True)
class _Request:
    seq: Sequence
    text: OutputText | None
    callback: OutputCallback
    stop_ids: frozenset[int]
    generator: torch.Generator | None


class LLMEngine:
    def __init__(self, model_config: ModelConfig, engine_config: EngineConfig, state: dict[str, torch.Tensor],
                 tokenizer: Any = None) -> None:
        import threading

        self.model_config = model_config
        self.config = engine_config
        self.tokenizer = TextTokenizer(tokenizer) if tokenizer is not None else None
        self.runner = ModelRunner(model_config, engine_config, state)
        if not engine_config.max_batched_tokens:
            engine_config.max_batched_tokens = CPU_STEP_TOKENS if self.runner.device.type == "cpu" else GPU_STEP_TOKENS
        self.kv = KVCacheManager(BlockPool(self.runner.num_blocks, engine_config.enable_prefix_caching),
                                 engine_config.block_size)
        self.scheduler = Scheduler(engine_config, self.kv, self.runner.max_model_len)
        # tokens per second of steps that computed enough tokens to be prefill-bound
        self.prefill_speed = PrefillSpeed()
        self.lock = threading.RLock()
        self._requests: dict[str, _Request] = {}
        # the chunks of the step in progress while it is background work only (else empty; set
        # under the lock); an interactive request that arrives then sets `_give_way`, which the
        # forward pass checks between layers, unless one of them computes its prompt's start
        self._background_chunks: tuple[ScheduledChunk, ...] = ()
        self._give_way = threading.Event()
        self.stats = {"steps": 0, "prompt_tokens": 0, "computed_tokens": 0, "generated_tokens": 0,
                      "prefilled_tokens": 0, "warmup_tokens": 0, "drafted_tokens": 0, "accepted_tokens": 0,
                      "interrupted_steps": 0}

    @property
    def has_work(self) -> bool:
        with self.lock:
            return self.scheduler.has_work

    def _stop_ids(self, params: GenerationParams) -> frozenset[int]:
        ids = set(params.stop_token_ids)
        if not params.ignore_eos:
            ids.update(self.model_config.eos_token_ids)
        if self.tokenizer is not None:
            ids.update(i for s in params.stop if (i := self.tokenizer.token_id(s)) is not None)
        return frozenset(ids)

    def add_request(self, request_id: str, prompt_ids: list[int], params: GenerationParams,
                    callback: OutputCallback, now_s: float | None = None) -> Sequence:
        """Queue a request; raises BacklogFullError / RequestTooLargeError without queuing it."""
        seq = Sequence(request_id, list(prompt_ids), params)
        text = OutputText(self.tokenizer, seq.token_ids, params.stop) if self.tokenizer is not None else None
        generator = None
        if params.seed is not None and not params.greedy:
            generator = torch.Generator().manual_seed(params.seed)
        with self.lock:
            self.scheduler.add(seq, now_s)
            self._requests[request_id] = _Request(seq, text, callback, self._stop_ids(params), generator)
            if not params.prefill_only:
                self.stats["prompt_tokens"] += seq.num_tokens
            if self._background_chunks and not _is_background(seq) \
                    and not any(_computes_start_of(chunk, seq) for chunk in self._background_chunks):
                self._give_way.set()
        return seq

    def abort(self, request_id: str) -> bool:
        """Stop a request now: its blocks go back to the pool before this returns."""
        with self.lock:
            request = self._requests.pop(request_id, None)
            if request is None:
                return False
            self.scheduler.finish(request.seq, "abort")
        return True

    def calibrate(self, tokens: int = CALIBRATION_TOKENS) -> float | None:
        """Measure prompt throughput before any request, so that the first prompt's budget fits
        the machine: a short prompt warms the kernels, then a `tokens`-token prompt is prefilled
        in full steps and timed into `prefill_speed`. Their token ids start no real prompt, and
        the request counters (`stats`, the prefix cache's hit figures) are left as they were.
        Returns the speed (tokens/s). Call it on the engine's thread before it serves."""
        vocab = self.model_config.vocab_size
        counters = dict(self.stats), self.kv.num_prefix_queries, self.kv.num_prefix_hits
        for offset, count in ((104729, CALIBRATION_WARM_TOKENS), (1299709, tokens)):  # no shared prefix
            ids = [(7919 * i + offset) % vocab for i in range(count)]
            params = GenerationParams(max_tokens=1, ignore_eos=True)
            self.add_request(f"calibrate-{count}", ids, params, lambda _output: None)
            while self.has_work:
                self.step()
        self.stats, self.kv.num_prefix_queries, self.kv.num_prefix_hits = counters
        return self.prefill_speed.tokens_per_s

    def step(self, now_s: float | None = None) -> SchedulerOutput:
        """Run one scheduled step. Returns the schedule (empty chunks: nothing to run yet)."""
        with self.lock:
            out = self.scheduler.schedule(now_s)
            for seq in out.prefilled:
                self._finish(seq.request_id, "prefill")
            if not out.chunks:
                return out
            prepared = self.runner.prepare(out.chunks)
            background = all(_is_background(chunk.seq) for chunk in out.chunks)
            self._background_chunks = tuple(out.chunks) if background else ()
            self._give_way.clear()
        started = time.perf_counter()
        try:
            logits = self.runner.execute(prepared, self._give_way.is_set if background else None)
            self.prefill_speed.observe(out.num_tokens, time.perf_counter() - started)
        except StepInterrupted:
            with self.lock:
                self._background_chunks = ()
                self.stats["interrupted_steps"] += 1
            return out
        except Exception as exc:  # a model failure ends the step's requests, not the engine
            log.exception("embedded engine step failed")
            with self.lock:
                self._background_chunks = ()
                for chunk in out.chunks:
                    self._finish(chunk.seq.request_id, "error", error=exc)
            return out
        with self.lock:
            self._background_chunks = ()
            prefilled = self.scheduler.complete_step(out)
            self._count(out)
            for seq in prefilled:
                self._finish(seq.request_id, "prefill")
            live: list[tuple[int, ScheduledChunk, _Request]] = []
            row = 0
            for chunk in prepared.sampling:
                request = self._requests.get(chunk.seq.request_id)
                if request is not None and request.seq is chunk.seq:
                    live.append((row, chunk, request))
                row += 1 + len(chunk.drafts)
            plain = [(row, request) for row, chunk, request in live if not chunk.drafts]
            if plain:
                tokens = sample(
                    logits[[row for row, _ in plain]],
                    [r.seq.params for _, r in plain],
                    [r.seq.output_token_ids for _, r in plain],
                    [r.generator for _, r in plain],
                )
                for (_, request), token in zip(plain, tokens):
                    self._append_token(request, token)
            for row, chunk, request in live:
                if chunk.drafts:
                    self._accept(request, chunk, logits[row : row + 1 + len(chunk.drafts)].argmax(dim=-1).tolist())
        return out

    def _accept(self, request: _Request, chunk: ScheduledChunk, greedy: list[int]) -> None:
        """Verify a chunk's drafts: `greedy[i]` is the model's argmax after the chunk's token i
        (its last own token, then each draft). The longest prefix of drafts equal to it is
        accepted, then the model's own token after that prefix, so the sequence gets exactly the
        tokens greedy decoding gives, one or more per step. Each accepted draft's keys/values were
        computed in this step, so `num_computed_tokens` advances over it; a token that ends the
        sequence (stop, length) ends the walk, and nothing after it is emitted. Positions of
        rejected drafts are not computed tokens: their slots are rewritten before they count,
        and no block holding them is registered in the prefix cache."""
        seq = request.seq
        drafts = chunk.drafts
        accepted = 0
        while accepted < len(drafts) and drafts[accepted] == greedy[accepted]:
            accepted += 1
        self.stats["drafted_tokens"] += len(drafts)
        self.stats["accepted_tokens"] += accepted
        if seq.draft_length is not None:
            seq.draft_length.after(len(drafts), accepted, self.config.lookup_tokens)
        for index, token in enumerate(greedy[: accepted + 1]):
            self._append_token(request, token)
            if seq.is_finished:
                return
            if index < accepted:
                seq.num_computed_tokens += 1
        self.kv.cache_computed_blocks(seq)

    def _count(self, out: SchedulerOutput) -> None:
        self.stats["steps"] += 1
        self.stats["computed_tokens"] += out.num_tokens
        for chunk in out.chunks:
            seq = chunk.seq
            if seq.prefill_only:
                self.stats["warmup_tokens"] += chunk.num_tokens
                continue
            prompt_part = max(0, min(chunk.start + chunk.num_tokens, seq.num_prompt_tokens) - chunk.start)
            seq.num_prefilled_tokens += prompt_part
            self.stats["prefilled_tokens"] += prompt_part

    def fail_all(self, error: BaseException) -> None:
        """End every request with `error` (the engine thread's last resort)."""
        with self.lock:
            for request_id in list(self._requests):
                self._finish(request_id, "error", error=error)

    def _append_token(self, request: _Request, token: int) -> None:
        seq = request.seq
        seq.token_ids.append(token)
        self.stats["generated_tokens"] += 1
        if seq.first_token_s is None:
            seq.first_token_s = time.monotonic()
        if token in request.stop_ids:
            self._finish(seq.request_id, "stop", tail=request.text.flush() if request.text else "")
            return
        delta = request.text.append(token) if request.text else ""
        if request.text is not None and request.text.stopped:
            self._finish(seq.request_id, "stop", tail=delta, token=token)
        elif seq.num_output_tokens >= seq.params.max_tokens or seq.num_tokens >= self.runner.max_model_len:
            tail = delta + (request.text.flush() if request.text else "")
            self._finish(seq.request_id, "length", tail=tail, token=token)
        elif seq.num_output_tokens == 1:  # the prompt is done: its figures travel with the first token
            request.callback(RequestOutput(
                seq.request_id, delta, [token], num_prompt_tokens=seq.num_prompt_tokens,
                num_cached_tokens=min(seq.num_prefix_hit_tokens, seq.num_prompt_tokens),
                num_prefilled_tokens=seq.num_prefilled_tokens))
        else:
            request.callback(RequestOutput(seq.request_id, delta, [token]))

    def _finish(self, request_id: str, reason: str, tail: str = "", token: int | None = None,
                error: BaseException | None = None) -> None:
        request = self._requests.pop(request_id, None)
        if request is None:
            return
        seq = request.seq
        computed = seq.num_computed_tokens
        self.scheduler.finish(seq, reason)
        request.callback(RequestOutput(
            request_id, tail, [] if token is None else [token], finished=True, finish_reason=reason, error=error,
            num_prompt_tokens=seq.num_prompt_tokens, num_cached_tokens=min(seq.num_prefix_hit_tokens, seq.num_prompt_tokens),
            num_prefilled_tokens=seq.num_prefilled_tokens, num_computed_tokens=computed,
        ))


def _computes_start_of(chunk: ScheduledChunk, seq: Sequence) -> bool:
    """Whether `chunk` computes tokens that begin `seq`'s prompt (all of its sequence's tokens up
    to the chunk's end are `seq`'s first ones), so that `seq` would compute them itself."""
    if chunk.drafts:
        return False
    end = chunk.start + chunk.num_tokens
    return end <= seq.num_tokens and chunk.seq.token_ids[:end] == seq.token_ids[:end]


def _is_background(seq: Sequence) -> bool:
    """Work no user waits for: a warm-up, or a request of a priority above interactive."""
    return seq.prefill_only or seq.params.priority > 0
