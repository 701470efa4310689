"""Scheduler: which request runs, with how many tokens, after scripted sequences of events."""

import pytest

from inference.engine.block_pool import BlockPool
from inference.engine.config import EngineConfig
from inference.engine.kv_cache_manager import KVCacheManager
from inference.engine.scheduler import BacklogFullError, RequestTooLargeError, Scheduler
from inference.engine.sequence import GenerationParams, Sequence, SequenceStatus


def make(num_blocks=16, block_size=4, **overrides):
    settings = dict(block_size=block_size, num_blocks=num_blocks, max_batch=4, max_batched_tokens=16,
                    max_wait_ms=0.0, max_backlog=8)
    settings.update(overrides)
    config = EngineConfig(**settings)
    return Scheduler(config, KVCacheManager(BlockPool(num_blocks), block_size), max_model_len=1024)


def seq(rid, n, start=0, max_tokens=4, **params):
    return Sequence(rid, list(range(start, start + n)), GenerationParams(max_tokens=max_tokens, **params))


def plan(out):
    return [(c.seq.request_id, c.start, c.num_tokens) for c in out.chunks]


def run_step(sched, out, next_token=7):
    """What the engine does after the model ran: record progress, append sampled tokens."""
    sched.complete_step(out)
    for chunk in out.chunks:
        if chunk.samples and not chunk.seq.is_finished:
            chunk.seq.token_ids.append(next_token)


def test_chunked_prefill_under_the_token_budget_then_decode_first():
    sched = make()
    sched.add(seq("a", 20), now_s=0.0)
    out = sched.schedule(0.0)
    assert plan(out) == [("a", 0, 16)] and not out.chunks[0].samples
    run_step(sched, out)
    sched.add(seq("b", 10, start=100), now_s=0.1)
    out = sched.schedule(0.1)
    assert plan(out) == [("a", 16, 4), ("b", 0, 10)]
    run_step(sched, out)
    out = sched.schedule(0.2)  # both decode now: one token each
    assert plan(out) == [("a", 20, 1), ("b", 10, 1)]


def test_running_decodes_are_scheduled_before_a_long_prefill():
    sched = make(max_batched_tokens=8)
    sched.add(seq("a", 3), now_s=0.0)
    run_step(sched, sched.schedule(0.0))
    sched.add(seq("b", 30, start=50), now_s=0.1)
    run_step(sched, sched.schedule(0.1))  # a decodes, b gets the remaining 7 tokens
    out = sched.schedule(0.2)
    assert plan(out) == [("a", 4, 1), ("b", 7, 7)]


def test_max_batch_limits_running_requests_and_queue_order_is_by_virtual_deadline():
    sched = make(max_batch=2, max_batched_tokens=64)
    sched.add(seq("background", 4, priority=10), now_s=0.0)
    sched.add(seq("plain", 4, start=10), now_s=0.0)
    sched.add(seq("urgent", 4, start=20, deadline_ms=50), now_s=0.01)
    out = sched.schedule(0.02)
    assert [c.seq.request_id for c in out.chunks] == ["urgent", "plain"]
    assert sched.num_waiting == 1 and sched.waiting[0][1].request_id == "background"


def test_aging_lets_an_old_background_request_beat_new_interactive_ones():
    sched = make(max_batch=1, max_batched_tokens=64)
    sched.add(seq("background", 4, priority=10), now_s=0.0)  # virtual deadline 0 + 1.0 + 1.0
    sched.add(seq("early", 4, start=10), now_s=0.5)  # 1.5
    sched.add(seq("late", 4, start=20), now_s=1.5)  # 2.5
    order = []
    for step in range(3):
        out = sched.schedule(2.0 + step)
        order.append(out.chunks[0].seq.request_id)
        sched.finish(out.chunks[0].seq, "stop")
    assert order == ["early", "background", "late"]


def test_max_wait_holds_a_partial_batch_then_runs_it():
    sched = make(max_wait_ms=5.0, max_batch=3)
    sched.add(seq("a", 4), now_s=1.0)
    out = sched.schedule(1.001)
    assert out.chunks == [] and out.wake_at_s == pytest.approx(1.005)
    sched.add(seq("b", 4, start=10), now_s=1.002)
    assert sched.schedule(1.003).chunks == []
    assert plan(sched.schedule(1.006)) == [("a", 0, 4), ("b", 0, 4)]


def test_a_full_batch_does_not_wait():
    sched = make(max_wait_ms=5.0, max_batch=2)
    sched.add(seq("a", 4), now_s=1.0)
    sched.add(seq("b", 4, start=10), now_s=1.0)
    assert len(sched.schedule(1.0).chunks) == 2


def test_backlog_limit_refuses_with_a_clear_error():
    sched = make(max_backlog=2)
    sched.add(seq("a", 4), now_s=0.0)
    sched.add(seq("b", 4), now_s=0.0)
    with pytest.raises(BacklogFullError, match="maxBacklog"):
        sched.add(seq("c", 4), now_s=0.0)
    assert "c" not in sched.requests


def test_request_larger_than_the_cache_is_refused():
    sched = make(num_blocks=4)
    with pytest.raises(RequestTooLargeError, match="kvCacheMB"):
        sched.add(seq("a", 14, max_tokens=8), now_s=0.0)


def test_preemption_by_recompute_takes_the_least_urgent_and_frees_its_blocks():
    sched = make(num_blocks=4, max_batched_tokens=64)
    sched.add(seq("a", 4, max_tokens=8), now_s=0.0)  # 4 tokens: 1 block, grows to 12 (3 blocks)
    sched.add(seq("b", 4, start=10, max_tokens=8), now_s=0.1)
    run_step(sched, sched.schedule(0.2))
    assert [s.block_table for s in sched.running] == [[0], [1]]
    run_step(sched, sched.schedule(0.3))  # each grows into a second block: 2, 3
    for _ in range(3):
        run_step(sched, sched.schedule(0.4))
    # both sit at 9 tokens with 8 computed: a needs a third block, none is free
    out = sched.schedule(0.5)
    b = sched.requests["b"]
    assert out.preempted == [b] and plan(out) == [("a", 8, 1)]
    assert b.status is SequenceStatus.WAITING and b.block_table == [] and b.num_computed_tokens == 0
    assert b.num_preemptions == 1 and sched.num_preemptions == 1
    assert sched.requests["a"].block_table == [0, 2, 3]


def test_abort_frees_blocks_at_once_for_running_and_waiting_requests():
    sched = make(max_batch=1)
    sched.add(seq("a", 8), now_s=0.0)
    sched.add(seq("b", 8, start=10), now_s=0.0)
    out = sched.schedule(0.0)
    assert plan(out) == [("a", 0, 8)]
    sched.abort("a")
    assert sched.kv.pool.num_free_blocks == 16 and sched.running == []
    sched.complete_step(out)  # the step that was in flight is ignored for the aborted request
    assert sched.requests.keys() == {"b"}
    sched.abort("b")
    assert not sched.has_work and sched.schedule(1.0).chunks == []


def test_a_request_sharing_a_finished_requests_prefix_skips_the_cached_tokens():
    sched = make(max_batched_tokens=64)
    sched.add(seq("a", 13), now_s=0.0)
    out = sched.schedule(0.0)
    run_step(sched, out)
    sched.finish(sched.requests["a"], "stop")
    sched.add(Sequence("b", list(range(12)) + [500, 501], GenerationParams(max_tokens=4)), now_s=1.0)
    out = sched.schedule(1.0)
    assert plan(out) == [("b", 12, 2)]
    assert out.chunks[0].seq.num_prefix_hit_tokens == 12


def test_requests_sharing_a_prefix_that_arrive_together_compute_it_once():
    sched = make(num_blocks=32, max_batched_tokens=12)
    shared = list(range(16))
    sched.add(Sequence("a", shared + [100, 101], GenerationParams(max_tokens=4)), now_s=0.0)
    sched.add(Sequence("b", shared + [200, 201], GenerationParams(max_tokens=4)), now_s=0.0)
    sched.add(seq("c", 6, start=500), now_s=0.0)  # unrelated: admitted at once
    out = sched.schedule(0.0)
    assert plan(out) == [("a", 0, 12)]  # the budget is spent on a; b waits for a's blocks
    run_step(sched, out)
    out = sched.schedule(0.1)
    assert plan(out) == [("a", 12, 6), ("c", 0, 6)]  # b still waits: a's 4th block is in flight
    run_step(sched, out)
    out = sched.schedule(0.2)
    assert ("b", 16, 2) in plan(out)  # all 4 shared blocks came from the cache
    assert sched.requests["b"].num_prefix_hit_tokens == 16


def test_a_background_request_prefills_in_warm_up_chunks_so_an_interactive_one_waits_for_one_chunk():
    sched = make(num_blocks=32, max_batched_tokens=64, warmup_chunk_tokens=4)
    sched.add(seq("speculation", 20, priority=10), now_s=0.0)
    out = sched.schedule(0.0)
    assert plan(out) == [("speculation", 0, 4)]  # not the whole prompt in one 64-token step
    run_step(sched, out)
    sched.add(seq("typed", 12, start=100), now_s=0.1)
    out = sched.schedule(0.1)
    assert plan(out) == [("speculation", 4, 4), ("typed", 0, 12)]  # interactive: all it needs at once
