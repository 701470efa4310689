"""Prefill-only requests (KV warm-ups) in the scheduler: chunked, below every real request,
preempted by one, resumed from the prefix cache, finished without sampling."""

from inference.engine.block_pool import BlockPool
from inference.engine.config import EngineConfig
from inference.engine.kv_cache_manager import KVCacheManager
from inference.engine.scheduler import Scheduler
from inference.engine.sequence import GenerationParams, Sequence, SequenceStatus


def make(num_blocks=32, block_size=4, **overrides):
    settings = dict(block_size=block_size, num_blocks=num_blocks, max_batch=4, max_batched_tokens=16,
                    max_wait_ms=0.0, max_backlog=8, warmup_chunk_tokens=8)
    settings.update(overrides)
    return Scheduler(EngineConfig(**settings), KVCacheManager(BlockPool(num_blocks), block_size), max_model_len=1024)


def warmup(rid, n, start=0):
    return Sequence(rid, list(range(start, start + n)), GenerationParams(max_tokens=0))


def real(rid, n, start=0, max_tokens=4):
    return Sequence(rid, list(range(start, start + n)), GenerationParams(max_tokens=max_tokens))


def plan(out):
    return [(c.seq.request_id, c.start, c.num_tokens) for c in out.chunks]


def test_a_warmup_prefills_its_full_blocks_in_chunks_and_samples_nothing():
    sched = make()
    w = warmup("w", 22)  # 5 full blocks of 4: target 20, the last 2 tokens are never computed
    sched.add(w, now_s=0.0)
    steps = []
    done = []
    while sched.has_work:
        out = sched.schedule(0.0)
        assert not any(c.samples for c in out.chunks)
        steps.append(plan(out))
        done += sched.complete_step(out)
        for seq in done + out.prefilled:
            sched.finish(seq, "prefill")
    assert steps == [[("w", 0, 8)], [("w", 8, 8)], [("w", 16, 4)]]
    assert done == [w] and w.finish_reason == "prefill"
    assert sched.kv.pool.num_free_blocks == 32  # everything freed, five blocks kept as cached
    assert len(sched.kv.find_cached_prefix(warmup("probe", 22))) == 5


def test_a_real_request_preempts_the_running_warmup_which_then_resumes_from_the_cache():
    sched = make()
    w = warmup("w", 40)
    sched.add(w, now_s=0.0)
    sched.complete_step(sched.schedule(0.0))  # 8 tokens (two blocks) computed and cached
    sched.add(real("r", 6, start=500), now_s=0.1)
    out = sched.schedule(0.1)
    assert plan(out) == [("r", 0, 6)]  # the real request is not held behind the warm-up
    assert out.preempted == [w] and w.status is SequenceStatus.WAITING and not w.block_table
    sched.complete_step(out)
    out.chunks[0].seq.token_ids.append(9)
    assert plan(sched.schedule(0.2)) == [("r", 6, 1)]  # decoding: still no warm-up
    sched.finish(sched.requests["r"], "stop")
    out = sched.schedule(0.3)
    assert plan(out) == [("w", 8, 8)]  # resumed after its two cached blocks
    assert w.num_prefix_hit_tokens == 0  # the hit of its first admission


def test_warmups_wait_while_real_requests_wait_or_run_and_go_oldest_first():
    sched = make(max_wait_ms=5.0)
    sched.add(warmup("w1", 8), now_s=0.0)
    sched.add(warmup("w2", 8, start=100), now_s=0.0)
    sched.add(real("r", 4, start=300), now_s=0.0)
    out = sched.schedule(0.001)  # the real request is held for batching: the warm-ups still wait
    assert out.chunks == [] and out.wake_at_s is not None
    out = sched.schedule(0.01)
    assert plan(out) == [("r", 0, 4)]
    sched.finish(sched.requests["r"], "stop")
    assert plan(sched.schedule(0.02)) == [("w1", 0, 8)]


def test_a_warmup_whose_blocks_are_cached_finishes_without_computing():
    sched = make()
    first = warmup("a", 12)
    sched.add(first, now_s=0.0)
    out = sched.schedule(0.0)
    for seq in sched.complete_step(out):
        sched.finish(seq, "prefill")
    out = sched.schedule(0.0)
    for seq in sched.complete_step(out):
        sched.finish(seq, "prefill")
    assert first.is_finished
    again = warmup("b", 13)  # the same 3 full blocks plus one token
    sched.add(again, now_s=1.0)
    out = sched.schedule(1.0)
    assert out.chunks == [] and out.prefilled == [again]
    assert again.num_prefix_hit_tokens == 12 and again.num_computed_tokens == 12


def test_a_warmup_shorter_than_a_block_finishes_at_once_and_abort_drops_queued_ones():
    sched = make()
    tiny = warmup("tiny", 3)
    sched.add(tiny, now_s=0.0)
    sched.add(warmup("queued", 20, start=50), now_s=0.0)
    out = sched.schedule(0.0)
    assert out.prefilled == [tiny] and out.chunks == []
    sched.finish(tiny, "prefill")
    sched.abort("queued")
    assert not sched.has_work and not sched.warmups


def test_real_requests_hit_the_blocks_a_warmup_cached():
    sched = make(warmup_chunk_tokens=16)
    sched.add(warmup("w", 16), now_s=0.0)  # exactly four blocks: all of them are cached
    out = sched.schedule(0.0)
    for seq in sched.complete_step(out):
        sched.finish(seq, "prefill")
    r = real("r", 19)  # same 16 tokens, then three more
    sched.add(r, now_s=1.0)
    assert plan(sched.schedule(1.0)) == [("r", 16, 3)]
    assert r.num_prefix_hit_tokens == 16
    assert sched.kv.num_prefix_queries == 19 and sched.kv.num_prefix_hits == 16  # warm-ups not counted
