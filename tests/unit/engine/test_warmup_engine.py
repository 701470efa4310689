"""Warm-ups and prefill accounting through `LLMEngine` with a tiny random model: a warm-up fills
the prefix cache without sampling, a later request hits it and still matches transformers, and
the counters separate prompt tokens computed for real requests from warm-up tokens."""

from __future__ import annotations

from engine_fixtures import make_engine, tiny_reference
from test_model_vs_transformers import Recorder, assert_matches_reference, prompt_of

from inference.engine.sequence import GenerationParams


def test_warmup_then_request_hits_the_cache_and_matches_reference(family):
    reference = tiny_reference(family, seed=5)
    engine = make_engine(reference, warmup_chunk_tokens=8)
    outputs = []
    shared = prompt_of(30)
    engine.add_request("w", shared, GenerationParams(max_tokens=0), outputs.append)
    steps = 0
    while engine.has_work:
        engine.step()
        steps += 1
    assert steps == 4  # 28 tokens (7 blocks of 4) in chunks of 8
    (final,) = outputs
    assert final.finished and final.finish_reason == "prefill" and final.token_ids == []
    assert final.num_computed_tokens == 28 and final.num_cached_tokens == 0
    assert engine.stats["warmup_tokens"] == 28
    assert engine.stats["prefilled_tokens"] == 0 and engine.stats["prompt_tokens"] == 0

    recorder = Recorder(engine)
    prompt = shared + [200, 201]
    seq = recorder.add("r", prompt, max_tokens=4)
    finals = []
    engine._requests["r"].callback = _tee(engine._requests["r"].callback, finals)
    recorder.run()
    assert seq.num_prefix_hit_tokens == 28
    assert_matches_reference(reference, recorder, "r", prompt)
    (last,) = [o for o in finals if o.finished]
    assert (last.num_prompt_tokens, last.num_cached_tokens, last.num_prefilled_tokens) == (32, 28, 4)
    assert engine.stats["prefilled_tokens"] == 4 and engine.stats["warmup_tokens"] == 28


def test_a_request_arriving_during_a_warmup_waits_one_chunk_at_most(family):
    reference = tiny_reference(family, seed=6)
    engine = make_engine(reference, warmup_chunk_tokens=8)
    engine.add_request("w", prompt_of(60), GenerationParams(max_tokens=0), lambda o: None)
    assert [c.num_tokens for c in engine.step().chunks] == [8]
    recorder = Recorder(engine)
    prompt = prompt_of(10, start=90)
    recorder.add("r", prompt, max_tokens=3)
    out = engine.step()
    assert [c.seq.request_id for c in out.chunks] == ["r"] and [s.request_id for s in out.preempted] == ["w"]
    recorder.run()
    assert recorder.finished == {"r": "length"}
    assert_matches_reference(reference, recorder, "r", prompt)
    assert engine.stats["warmup_tokens"] == 60  # 8 before the request, the other 52 after it: none recomputed
    assert engine.stats["prefilled_tokens"] == 10


def _tee(callback, sink):
    def both(output):
        sink.append(output)
        callback(output)

    return both
