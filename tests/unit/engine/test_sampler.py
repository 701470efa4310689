"""Sampling: greedy, temperature, top-p nucleus, seeds, logits processors."""

import pytest

torch = pytest.importorskip("torch")

from inference.engine.layers.sampler import sample, top_p_filter  # noqa: E402
from inference.engine.sequence import GenerationParams  # noqa: E402


def test_greedy_rows_are_argmaxed_together():
    logits = torch.tensor([[0.1, 3.0, 2.0], [5.0, 1.0, 5.0]])
    assert sample(logits, [GenerationParams()] * 2, [[], []], [None, None]) == [1, 0]


def test_top_p_keeps_the_smallest_nucleus_and_renormalises():
    probs = torch.tensor([0.1, 0.5, 0.3, 0.1])
    kept = top_p_filter(probs, 0.75)
    assert torch.allclose(kept, torch.tensor([0.0, 0.625, 0.375, 0.0]))
    assert torch.equal(top_p_filter(probs, 0.2).nonzero().flatten(), torch.tensor([1]))  # at least one token
    assert torch.equal(top_p_filter(probs, 1.0), probs)


def test_seeded_sampling_is_reproducible_and_respects_top_p():
    logits = torch.tensor([[2.0, 1.9, 1.8, -5.0]])
    params = GenerationParams(temperature=1.0, top_p=0.9, seed=3)
    draws = [sample(logits, [params], [[]], [torch.Generator().manual_seed(3)])[0] for _ in range(2)]
    assert draws[0] == draws[1]
    many = {sample(logits, [params], [[]], [torch.Generator().manual_seed(s)])[0] for s in range(60)}
    assert many == {0, 1, 2}  # the -5.0 token is outside the nucleus, the others all occur


def test_logits_processor_restricts_tokens_to_an_allowed_set():
    allowed = torch.tensor([2, 3])

    def only_allowed(generated, row):
        masked = torch.full_like(row, float("-inf"))
        masked[allowed] = row[allowed]
        return masked

    seen = []

    def record(generated, row):
        seen.append(list(generated))
        return row

    logits = torch.tensor([[9.0, 8.0, 1.0, 2.0]])
    params = GenerationParams(logits_processors=(record, only_allowed))
    assert sample(logits, [params], [[7, 8]], [None]) == [3]
    assert seen == [[7, 8]]


def test_invalid_params_are_rejected():
    with pytest.raises(ValueError):
        GenerationParams(top_p=0.0)
    with pytest.raises(ValueError):
        GenerationParams(max_tokens=-1)
    assert GenerationParams(max_tokens=0).prefill_only and not GenerationParams().prefill_only
