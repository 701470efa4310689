"""Engine logits equal transformers' for prefill and every decode step: single requests, batches of
different lengths, chunked prefill, prefix-cache hits and requests resumed after preemption."""

from __future__ import annotations

import pytest
import torch

from engine_fixtures import make_engine, tiny_reference

from inference.engine.sequence import GenerationParams

ATOL = 2e-4


class Recorder:
    """Captures the logits the engine samples from (through the logits-processor hook)."""

    def __init__(self, engine):
        self.engine = engine
        self.logits: dict[str, list[torch.Tensor]] = {}
        self.tokens: dict[str, list[int]] = {}
        self.finished: dict[str, str] = {}

    def add(self, rid, prompt, max_tokens=6, now_s=None):
        def capture(_generated, logits):
            self.logits.setdefault(rid, []).append(logits.clone())
            return logits

        def collect(output):
            self.tokens.setdefault(rid, []).extend(output.token_ids)
            if output.finished:
                self.finished[rid] = output.finish_reason

        params = GenerationParams(max_tokens=max_tokens, ignore_eos=True, logits_processors=(capture,))
        return self.engine.add_request(rid, prompt, params, collect, now_s=now_s)

    def run(self, max_steps=500):
        for _ in range(max_steps):
            if not self.engine.has_work:
                return
            self.engine.step()
        raise AssertionError("engine did not finish")


def assert_matches_reference(reference, recorder, rid, prompt):
    tokens = recorder.tokens[rid]
    with torch.no_grad():
        expected = reference(torch.tensor([prompt + tokens])).logits[0, len(prompt) - 1 : -1]
    got = torch.stack(recorder.logits[rid])
    assert got.shape == expected.shape
    torch.testing.assert_close(got, expected, atol=ATOL, rtol=1e-4)
    # and greedy decoding followed the reference's argmax at every step
    assert tokens == expected.argmax(-1).tolist()


def prompt_of(length, start=3):
    return [(start + 7 * i) % 250 for i in range(length)]


def test_single_request_prefill_and_decode(family):
    reference = tiny_reference(family)
    recorder = Recorder(make_engine(reference))
    prompt = prompt_of(23)
    recorder.add("a", prompt, max_tokens=8)
    recorder.run()
    assert recorder.finished == {"a": "length"}
    assert_matches_reference(reference, recorder, "a", prompt)


def test_batched_requests_of_different_lengths_with_chunked_prefill(family):
    reference = tiny_reference(family, seed=1)
    engine = make_engine(reference, max_batched_tokens=16)
    recorder = Recorder(engine)
    prompts = {"a": prompt_of(5), "b": prompt_of(37, start=11), "c": prompt_of(1, start=99), "d": prompt_of(18, 5)}
    for rid, prompt in prompts.items():
        recorder.add(rid, prompt, max_tokens=7)
    steps = []
    while engine.has_work:
        steps.append([(c.seq.request_id, c.num_tokens) for c in engine.step().chunks])
    assert any(len(step) > 1 and any(n > 1 for _, n in step) for step in steps), "decodes and prefill mixed"
    assert max(sum(n for _, n in step) for step in steps) <= 16
    for rid, prompt in prompts.items():
        assert_matches_reference(reference, recorder, rid, prompt)


def test_prefix_cache_hit_computes_only_the_new_tokens(family):
    reference = tiny_reference(family, seed=2)
    engine = make_engine(reference)
    recorder = Recorder(engine)
    shared = prompt_of(30)
    recorder.add("first", shared + [7, 8], max_tokens=4)
    recorder.run()
    computed_before = engine.stats["computed_tokens"]
    second = shared + [200, 201, 202]
    seq = recorder.add("second", second, max_tokens=5)
    recorder.run()
    assert seq.num_prefix_hit_tokens == 28  # 7 full blocks of 4 out of the shared 30 tokens
    # prefill computed only the 5 uncached tokens, then 4 decode steps
    assert engine.stats["computed_tokens"] - computed_before == (len(second) - 28) + 4
    assert_matches_reference(reference, recorder, "second", second)
    assert_matches_reference(reference, recorder, "first", shared + [7, 8])


def test_requests_resumed_after_preemption_match(family):
    reference = tiny_reference(family, seed=3)
    # 12 blocks of 4 tokens: two requests growing to 26 tokens each cannot both stay resident
    engine = make_engine(reference, num_blocks=12, max_batched_tokens=64)
    recorder = Recorder(engine)
    prompts = {"a": prompt_of(14), "b": prompt_of(14, start=50)}
    for rid, prompt in prompts.items():
        recorder.add(rid, prompt, max_tokens=12)
    recorder.run()
    assert engine.scheduler.num_preemptions >= 1
    for rid, prompt in prompts.items():
        assert len(recorder.tokens[rid]) == 12
        assert_matches_reference(reference, recorder, rid, prompt)
    assert engine.kv.pool.num_free_blocks == 12


def test_untied_llama_head_and_linear_rope_scaling():
    reference = tiny_reference("llama", seed=4, tie_word_embeddings=False,
                               rope_scaling={"rope_type": "linear", "factor": 2.0})
    recorder = Recorder(make_engine(reference))
    prompt = prompt_of(12)
    recorder.add("a", prompt, max_tokens=5)
    recorder.run()
    assert_matches_reference(reference, recorder, "a", prompt)


@pytest.mark.parametrize("dtype", ["bfloat16"])
def test_reduced_precision_stays_close(dtype):
    reference = tiny_reference("qwen2", seed=5)
    recorder = Recorder(make_engine(reference, dtype=dtype))
    prompt = prompt_of(16)
    recorder.add("a", prompt, max_tokens=1)
    recorder.run()
    with torch.no_grad():
        expected = reference(torch.tensor([prompt])).logits[0, -1]
    got = recorder.logits["a"][0]
    assert got.dtype == torch.float32
    assert torch.nn.functional.cosine_similarity(got, expected, dim=0) > 0.99
