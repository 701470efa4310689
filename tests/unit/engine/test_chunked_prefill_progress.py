"""A long prompt is prefilled in steps of `max_batched_tokens`; a request aborted after some steps
(its deadline passed, its client left) leaves those chunks' blocks in the prefix cache, so the
next request with the same prompt computes only the rest."""

from __future__ import annotations

from engine_fixtures import make_engine, tiny_reference

from inference.engine.config import CPU_STEP_TOKENS, EngineConfig
from inference.engine.sequence import GenerationParams


def test_an_aborted_prompt_keeps_the_chunks_it_computed():
    engine = make_engine(tiny_reference("qwen2", seed=5), max_batched_tokens=16)
    prompt = list(range(3, 3 + 70))
    outputs = []
    engine.add_request("cold", prompt, GenerationParams(max_tokens=2), outputs.append)
    engine.step()
    engine.step()  # 32 of 70 prompt tokens computed
    assert engine.abort("cold")
    engine.add_request("again", prompt, GenerationParams(max_tokens=2), outputs.append)
    steps = 0
    while engine.has_work:
        engine.step()
        steps += 1
    final = outputs[-1]
    assert final.finished and final.num_cached_tokens == 32
    assert final.num_prefilled_tokens == 70 - 32


def test_the_step_budget_defaults_to_the_cpu_chunk_on_the_cpu():
    config = EngineConfig(device="cpu", dtype="float32", quantize="none", block_size=4, num_blocks=32)
    assert config.max_batched_tokens == 0
    from engine_fixtures import model_config_of
    from inference.engine.engine import LLMEngine

    reference = tiny_reference("qwen2", seed=6)
    engine = LLMEngine(model_config_of(reference), config, reference.state_dict())
    assert engine.config.max_batched_tokens == CPU_STEP_TOKENS


def test_the_engine_measures_its_prompt_throughput_from_prefill_steps():
    engine = make_engine(tiny_reference("qwen2", seed=7), max_batched_tokens=64)
    outputs = []
    engine.add_request("r", list(range(3, 3 + 130)), GenerationParams(max_tokens=3), outputs.append)
    while engine.has_work:
        engine.step()
    speed = engine.prefill_speed
    assert speed.samples == 2 and speed.tokens_per_s > 0  # two full 64-token steps; decodes say nothing


def test_calibration_measures_the_prompt_speed_before_any_request_and_leaves_no_request():
    engine = make_engine(tiny_reference("qwen2", seed=8), max_batched_tokens=64)
    assert engine.prefill_speed.tokens_per_s is None
    speed = engine.calibrate(tokens=128)
    assert speed == engine.prefill_speed.tokens_per_s and speed > 0
    assert engine.prefill_speed.samples == 2  # two 64-token steps; the 32-token warm step is not measured
    assert not engine.has_work and engine.stats["prefilled_tokens"] == 0 and engine.stats["prompt_tokens"] == 0
    outputs = []
    engine.add_request("r", list(range(3, 40)), GenerationParams(max_tokens=2), outputs.append)
    while engine.has_work:
        engine.step()
    assert outputs[-1].finished and outputs[-1].num_cached_tokens == 0  # nothing of it in the prefix cache
