"""A background step (warm-up, speculation) is given up between two layers when an interactive
request arrives during it; nothing of it counts, the request runs in the next step, and every
output still matches transformers. A step that computes the start of the arriving request's
prompt runs on. Interactive steps are never given up."""

from __future__ import annotations

from engine_fixtures import make_engine, tiny_reference
from test_model_vs_transformers import Recorder, assert_matches_reference, prompt_of

from inference.api import PRIORITY_BACKGROUND
from inference.engine.sequence import GenerationParams


def _arrive_during_next_step(engine, arrive) -> None:
    """Call `arrive()` from inside the next forward pass, after its first layer (as a request
    reaching the engine thread's lock while a step computes)."""
    layer = engine.runner.model.layers[0]
    original = layer.forward

    def forward(*args, **kwargs):
        layer.forward = original
        out = original(*args, **kwargs)
        arrive()
        return out

    layer.forward = forward


def test_a_warmup_step_gives_way_to_an_interactive_request(family):
    reference = tiny_reference(family, seed=11)
    engine = make_engine(reference, warmup_chunk_tokens=8)
    warmed = []
    engine.add_request("w", prompt_of(40), GenerationParams(max_tokens=0), warmed.append)
    assert [c.num_tokens for c in engine.step().chunks] == [8]
    recorder = Recorder(engine)
    prompt = prompt_of(10, start=90)
    _arrive_during_next_step(engine, lambda: recorder.add("r", prompt, max_tokens=3))
    given_up = engine.step()
    assert [c.seq.request_id for c in given_up.chunks] == ["w"]
    assert engine.stats["interrupted_steps"] == 1
    assert engine.stats["warmup_tokens"] == 8  # the given-up chunk is not counted
    assert engine.scheduler.warming.num_computed_tokens == 8
    out = engine.step()
    assert [c.seq.request_id for c in out.chunks] == ["r"]
    recorder.run()
    assert recorder.finished == {"r": "length"}
    assert_matches_reference(reference, recorder, "r", prompt)
    assert warmed[-1].finish_reason == "prefill"
    assert engine.stats["warmup_tokens"] == 40  # 8, then the other 32 after the request: none twice

    later = Recorder(engine)
    hit = later.add("h", prompt_of(40) + [7, 8], max_tokens=2)
    later.run()
    assert hit.num_prefix_hit_tokens == 40
    assert_matches_reference(reference, later, "h", prompt_of(40) + [7, 8])


def test_a_background_request_step_gives_way_too(family):
    reference = tiny_reference(family, seed=12)
    engine = make_engine(reference, warmup_chunk_tokens=8)
    background = Recorder(engine)
    spec_prompt = prompt_of(24)
    seq = engine.add_request("s", spec_prompt, GenerationParams(max_tokens=2, priority=PRIORITY_BACKGROUND),
                             lambda o: background.tokens.setdefault("s", []).extend(o.token_ids))
    engine.step()
    assert seq.num_computed_tokens == 8
    recorder = Recorder(engine)
    _arrive_during_next_step(engine, lambda: recorder.add("r", prompt_of(6, start=120), max_tokens=2))
    engine.step()
    assert engine.stats["interrupted_steps"] == 1 and seq.num_computed_tokens == 8
    recorder.run()
    assert recorder.finished == {"r": "length"}
    assert_matches_reference(reference, recorder, "r", prompt_of(6, start=120))
    assert len(background.tokens["s"]) == 2


def test_an_interactive_step_is_never_given_up(family):
    reference = tiny_reference(family, seed=13)
    engine = make_engine(reference)
    first = Recorder(engine)
    first.add("a", prompt_of(12), max_tokens=2)
    second = Recorder(engine)
    _arrive_during_next_step(engine, lambda: second.add("b", prompt_of(9, start=60), max_tokens=2))
    out = engine.step()
    assert [c.seq.request_id for c in out.chunks] == ["a"]
    assert engine.stats["interrupted_steps"] == 0 and out.chunks[0].seq.num_computed_tokens == 12
    first.run()
    assert_matches_reference(reference, first, "a", prompt_of(12))
    assert_matches_reference(reference, second, "b", prompt_of(9, start=60))


def _warming_engine(family, seed: int):
    """An engine 8 tokens into a 40-token warm-up of `prompt_of(40)`, prefilling 8 per step."""
    reference = tiny_reference(family, seed=seed)
    engine = make_engine(reference, warmup_chunk_tokens=8)
    engine.add_request("w", prompt_of(40), GenerationParams(max_tokens=0), lambda _o: None)
    engine.step()
    return reference, engine


def test_a_warmup_step_of_the_arriving_prompts_start_runs_on(family):
    reference, engine = _warming_engine(family, seed=14)
    recorder = Recorder(engine)
    prompt = prompt_of(40) + [5, 6, 7]  # what the warm-up prefills is its beginning
    _arrive_during_next_step(engine, lambda: recorder.add("r", prompt, max_tokens=3))
    ran_on = engine.step()
    assert [c.seq.request_id for c in ran_on.chunks] == ["w"]
    assert engine.stats["interrupted_steps"] == 0 and engine.stats["warmup_tokens"] == 16
    recorder.run()
    assert recorder.finished == {"r": "length"}
    assert_matches_reference(reference, recorder, "r", prompt)
    assert engine.stats["prefilled_tokens"] <= len(prompt) - 16  # the 16 warmed tokens were not computed again


def test_a_warmup_step_that_leaves_the_arriving_prompt_within_its_chunk_gives_way(family):
    reference, engine = _warming_engine(family, seed=15)
    recorder = Recorder(engine)
    prompt = prompt_of(12) + [3, 4, 5]  # the same start, then another text inside the next chunk
    _arrive_during_next_step(engine, lambda: recorder.add("r", prompt, max_tokens=2))
    engine.step()
    assert engine.stats["interrupted_steps"] == 1
    recorder.run()
    assert_matches_reference(reference, recorder, "r", prompt)
