"""Prompt-lookup speculative decoding: the n-gram proposer, and the engine with lookup on gives
token for token what it gives with lookup off (greedy), over repetitive and random prompts, with
stop ids, stop strings, max_tokens, a short context and several sequences batched; verification
never accepts a wrong draft; no block holding a rejected draft is ever served by the prefix cache."""

from __future__ import annotations

import pytest
import torch
from engine_fixtures import byte_tokenizer, make_engine, tiny_reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inference.engine import lookup
from inference.engine.lookup import DraftLength, NgramIndex
from inference.engine.sequence import GenerationParams

REFERENCES = {}


def reference(family: str, repeating: bool = False):
    """The tiny random model of `family`; `repeating`: its attention and MLP outputs halved and
    (qwen2) its output projection tied to the embedding, so that it tends to repeat recent
    tokens and lookup drafts are often, not always, right (a plain random model rejects most)."""
    key = (family, repeating)
    if key not in REFERENCES:
        model = tiny_reference(family, seed=11)
        if repeating:
            with torch.no_grad():
                for name, param in model.named_parameters():
                    if name.endswith(("o_proj.weight", "down_proj.weight")):
                        param.mul_(0.5)
                if family == "qwen2":
                    model.lm_head.weight.copy_(model.model.embed_tokens.weight)
        REFERENCES[key] = model
    return REFERENCES[key]


def run(engine, requests: dict[str, tuple[list[int], GenerationParams]],
        seqs: dict | None = None) -> dict[str, tuple[list[int], str, str]]:
    """Submit all requests at once, step to the end: per request (tokens, text, finish reason);
    `seqs` (if given) gets each request's `Sequence`."""
    got: dict[str, list] = {rid: [[], "", ""] for rid in requests}

    def sink(rid):
        def callback(output):
            got[rid][0].extend(output.token_ids)
            got[rid][1] += output.text
            if output.finished:
                got[rid][2] = output.finish_reason
        return callback

    for rid, (prompt, params) in requests.items():
        seq = engine.add_request(rid, prompt, params, sink(rid))
        if seqs is not None:
            seqs[rid] = seq
    steps = 0
    while engine.has_work:
        engine.step()
        steps += 1
        assert steps < 2000
    return {rid: tuple(value) for rid, value in got.items()}


def engines(family: str, k: int = 6, repeating: bool = True, **overrides):
    """Two engines on the same model: lookup off, and lookup with `k` draft tokens per step."""
    ref = reference(family, repeating)
    tok = byte_tokenizer()
    return (make_engine(ref, tok, lookup_tokens=0, **overrides), make_engine(ref, tok, lookup_tokens=k, **overrides))


# --- the proposer ---------------------------------------------------------------------------

def test_the_longest_suffix_ngram_wins_and_its_latest_occurrence():
    assert (lookup.MIN_NGRAM, lookup.MAX_NGRAM) == (3, 5)
    tokens = [1, 2, 3, 4, 9, 2, 3, 4, 8, 7, 2, 3, 4]
    # suffix (2, 3, 4): latest earlier occurrence at 5..7, followed by 8, 7, 2
    assert NgramIndex().propose(tokens, 3) == [8, 7, 2]
    tokens = [1, 2, 3, 4, 5, 6, 9, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6]
    # the suffix 5-gram (2, 3, 4, 5, 6) occurred at 1..5 (followed by 9) and at 8..12 (followed
    # by 7): the latest wins; a shorter n-gram is only tried when no longer one occurred
    assert NgramIndex().propose(tokens, 2) == [7, 1]
    tokens = [5, 3, 4, 6, 8, 1, 3, 4, 6, 9, 0, 0, 3, 4, 6]
    assert NgramIndex().propose(tokens, 1) == [9]  # (3, 4, 6) latest at 6..8


def test_no_earlier_occurrence_proposes_nothing_and_a_suffix_never_matches_itself():
    assert NgramIndex().propose([1, 2, 3, 4], 4) == []
    assert NgramIndex().propose([1, 2, 3], 4) == []  # its own suffix is not an earlier occurrence
    assert NgramIndex().propose([1, 2, 1, 2], 4) == []  # bigrams are too short to propose
    assert NgramIndex().propose([1, 2, 3, 1, 2, 3], 0) == []


def test_a_continuation_that_reaches_the_end_repeats_its_period():
    assert NgramIndex().propose([7, 7, 7, 7], 5) == [7, 7, 7, 7, 7]
    assert NgramIndex().propose([4, 1, 2, 1, 2, 1], 5) == [2, 1, 2, 1, 2]


def test_the_index_grows_with_the_tokens_and_sees_new_ngrams():
    index = NgramIndex()
    tokens = [1, 2, 3, 4]
    assert index.propose(tokens, 2) == []
    tokens += [5, 1, 2, 3]
    assert index.propose(tokens, 2) == [4, 5]
    tokens += [4, 6, 2, 3, 4]
    assert index.propose(tokens, 3) == [6, 2, 3]  # (2, 3, 4) latest at 6..8, followed by 6


def test_the_draft_length_grows_on_full_acceptance_and_shrinks_on_rejection():
    length = DraftLength(4)
    length.after(4, 4, limit=6)
    assert length.current == 5
    length.after(5, 1, limit=6)
    assert length.current == 2
    length.after(2, 0, limit=6)
    assert length.current == lookup.MIN_DRAFTS
    length.after(0, 0, limit=6)  # nothing drafted: unchanged
    assert length.current == lookup.MIN_DRAFTS


# --- the engine: same tokens with lookup on and off -------------------------------------------

def repetitive_prompt(draw) -> list[int]:
    phrase = draw(st.lists(st.integers(0, 255), min_size=2, max_size=10))
    prompt: list[int] = []
    for _ in range(draw(st.integers(1, 6))):
        prompt += phrase
        prompt += draw(st.lists(st.integers(0, 255), max_size=3))
    return prompt[:120] or [1]


@st.composite
def request_sets(draw):
    count = draw(st.integers(1, 4))
    out = {}
    for i in range(count):
        kind = draw(st.sampled_from(["repetitive", "repetitive", "random", "text"]))
        if kind == "repetitive":
            prompt = repetitive_prompt(draw)
        elif kind == "random":
            prompt = draw(st.lists(st.integers(0, 255), min_size=1, max_size=60))
        else:
            texts = [b"def f(x):\n    return x\ndef g(", b"a = b\nb = c\nc = d\n", b"aaaa"]
            prompt = list(draw(st.sampled_from(texts)))
        stop = tuple(draw(st.lists(st.sampled_from(["\n", "a", "ab", "))", "\x07"]), max_size=2)))
        stop_ids = tuple(draw(st.lists(st.integers(0, 255), max_size=2)))
        params = GenerationParams(max_tokens=draw(st.integers(1, 40)), stop=stop, stop_token_ids=stop_ids,
                                  ignore_eos=draw(st.booleans()))
        out[f"r{i}"] = (prompt, params)
    return out


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(requests=request_sets(), family=st.sampled_from(["qwen2", "llama"]), k=st.sampled_from([1, 3, 8]),
       repeating=st.booleans())
def test_lookup_on_gives_the_tokens_of_lookup_off(requests, family, k, repeating):
    off, on = engines(family, k, repeating)
    assert run(on, requests) == run(off, requests)
    assert on.stats["generated_tokens"] == off.stats["generated_tokens"]
    assert off.stats["drafted_tokens"] == 0
    assert on.kv.pool.num_free_blocks == on.kv.pool.num_blocks  # every block back in the pool


def test_repetitive_prompts_get_drafts_accepted_and_fewer_steps(family):
    prompt = list(b"x = 1\ny = 2\nx = 1\ny = 2\nx = 1\ny = 2\nx = 1\n")
    requests = {"a": (prompt, GenerationParams(max_tokens=40, ignore_eos=True)),
                "b": (list(b"abcabcabcabc"), GenerationParams(max_tokens=30, ignore_eos=True))}
    off, on = engines(family, 6)
    assert run(on, requests) == run(off, requests)
    assert on.stats["accepted_tokens"] > 0 and on.stats["drafted_tokens"] > on.stats["accepted_tokens"] > 0
    assert on.stats["steps"] < off.stats["steps"]


def test_a_short_context_cuts_where_lookup_off_cuts(family):
    prompt = list(b"ab ab ab ab ab ab ab ab ab ab")
    off, on = engines(family, 8, max_model_len=40)
    requests = {"r": (prompt, GenerationParams(max_tokens=64, ignore_eos=True))}
    result = run(on, requests)
    assert result == run(off, requests)
    assert len(prompt) + len(result["r"][0]) == 40 and result["r"][2] == "length"


def test_sampling_sequences_and_warmups_batched_with_speculating_ones_are_unchanged(family):
    shared = list(b"for i in range(10):\n    print(i)\nfor j in range(10):\n    print(j)\n")
    requests = {
        "greedy": (shared + list(b"for k in"), GenerationParams(max_tokens=24, ignore_eos=True)),
        "sampled": (shared + list(b"while"), GenerationParams(max_tokens=24, temperature=0.8, seed=3,
                                                                  ignore_eos=True)),
        "warm": (shared + list(b"if x:\n"), GenerationParams(max_tokens=0)),
        "processed": (shared, GenerationParams(max_tokens=12, ignore_eos=True,
                                               logits_processors=(lambda ids, logits: logits,))),
    }
    off, on = engines(family, 4)
    drafted_for: set[str] = set()
    original = on.scheduler._drafts

    def spy(seq, limit):
        drafts = original(seq, limit)
        if drafts:
            drafted_for.add(seq.request_id)
        return drafts

    on.scheduler._drafts = spy
    assert run(on, requests) == run(off, requests)
    assert drafted_for == {"greedy"}


# --- verification ------------------------------------------------------------------------------

def propose_with(monkeypatch, make_drafts):
    """Replace the n-gram proposer: `make_drafts(tokens, k)` -> drafts; records every proposal."""
    proposals: list[tuple[list[int], list[int]]] = []

    def propose(self, tokens, k):
        drafts = make_drafts(tokens, k) if k > 0 else []
        proposals.append((list(tokens), list(drafts)))
        return drafts

    monkeypatch.setattr(NgramIndex, "propose", propose)
    return proposals


def test_wrong_drafts_are_never_accepted(monkeypatch, family):
    off, on = engines(family, 4)
    prompt = list(b"one two three one two three")
    requests = {"r": (prompt, GenerationParams(max_tokens=30, ignore_eos=True))}
    expected = run(off, requests)
    truth = prompt + expected["r"][0]
    # drafts: the true continuation with its second token changed, so only the first can be accepted
    proposals = propose_with(monkeypatch, lambda tokens, k: [
        truth[len(tokens) + i] if i != 1 else (truth[len(tokens) + i] + 1) % 256
        for i in range(min(k, len(truth) - len(tokens)))])
    assert run(on, requests) == expected
    assert proposals and on.stats["drafted_tokens"] > 0
    assert on.stats["accepted_tokens"] == sum(min(1, len(d)) for _, d in proposals)


def test_right_drafts_are_all_accepted(monkeypatch, family):
    off, on = engines(family, 5)
    prompt = list(b"the quick brown fox")
    requests = {"r": (prompt, GenerationParams(max_tokens=25, ignore_eos=True))}
    expected = run(off, requests)
    truth = prompt + expected["r"][0]
    propose_with(monkeypatch, lambda tokens, k: truth[len(tokens) : len(tokens) + k])
    assert run(on, requests) == expected
    assert on.stats["accepted_tokens"] == on.stats["drafted_tokens"] > 0
    assert on.stats["steps"] < off.stats["steps"]


def test_an_accepted_draft_past_a_stop_is_not_emitted(monkeypatch, family):
    off, on = engines(family, 8)
    prompt = list(b"abcdefgh")
    free = run(off, {"r": (prompt, GenerationParams(max_tokens=20, ignore_eos=True))})["r"][0]
    stop_id = free[3]  # the 4th generated token ends the request
    off, on = engines(family, 8)
    truth = prompt + free
    propose_with(monkeypatch, lambda tokens, k: truth[len(tokens) : len(tokens) + k])
    requests = {"r": (prompt, GenerationParams(max_tokens=20, stop_token_ids=(stop_id,), ignore_eos=True))}
    result = run(on, requests)
    assert result == run(off, requests)
    assert result["r"][0] == free[: free.index(stop_id)] and result["r"][2] == "stop"  # a stop id is not emitted
    assert on.stats["accepted_tokens"] > free.index(stop_id) + 1  # drafts past the stop were accepted


# --- the prefix cache never serves a rejected draft's block -----------------------------------

def test_no_block_holding_a_rejected_draft_is_found_by_a_later_request(monkeypatch, family):
    off, on = engines(family, 8)
    prompt = list(b"0123456789012345")
    requests = {"r": (prompt, GenerationParams(max_tokens=24, ignore_eos=True))}
    expected = run(off, requests)
    truth = prompt + expected["r"][0]
    # every proposal: 8 tokens, all wrong (the true token + 1), spanning two 4-token blocks
    proposals = propose_with(monkeypatch, lambda tokens, k: [
        (truth[len(tokens) + i] + 1) % 256 if len(tokens) + i < len(truth) else 1 for i in range(k)])
    assert run(on, requests) == expected
    assert on.stats["drafted_tokens"] > 0 and on.stats["accepted_tokens"] == 0
    monkeypatch.undo()
    block = on.config.block_size
    for tokens, drafts in proposals:
        if not drafts:
            continue
        probe = tokens + drafts + [0]
        seq = on.add_request(f"probe-{len(tokens)}", probe, GenerationParams(max_tokens=1), lambda o: None)
        while on.has_work:
            on.step()
        assert seq.num_prefix_hit_tokens <= len(tokens) // block * block  # never into the drafts
    for cached in on.kv.pool.cached.values():  # every cached block holds real tokens only
        assert cached.token_ids is not None


def test_blocks_cached_by_a_speculating_sequence_hold_the_right_keys_and_values(family):
    """A later request that extends a speculated sequence's prompt and output reuses its cached
    blocks and continues exactly as an engine that never speculated."""
    prompt = list(b"if a:\n    b()\nif a:\n    b()\nif a:\n")
    off, on = engines(family, 6)
    params = GenerationParams(max_tokens=30, ignore_eos=True)
    first = run(on, {"r": (prompt, params)})["r"][0]
    assert first == run(off, {"r": (prompt, params)})["r"][0]
    assert on.stats["accepted_tokens"] > 0
    extended = prompt + first + list(b"\n#")
    later = {"again": (extended, GenerationParams(max_tokens=12, ignore_eos=True))}
    fresh = make_engine(reference(family, repeating=True), byte_tokenizer(), lookup_tokens=0)
    seqs = {}
    result = run(on, later, seqs)
    assert seqs["again"].num_prefix_hit_tokens > len(prompt)  # blocks computed while speculating
    assert result == run(fresh, later)


@pytest.mark.parametrize("k", [0, 3])
def test_the_counters_start_at_zero_and_draft_only_when_on(k):
    _off, on = engines("qwen2", k)
    assert on.stats["drafted_tokens"] == on.stats["accepted_tokens"] == 0
    run(on, {"r": (list(b"abababababab"), GenerationParams(max_tokens=20, ignore_eos=True))})
    assert (on.stats["drafted_tokens"] > 0) == (k > 0)
