"""Next-token choice from logits: greedy, temperature, top-p (nucleus), after logits processors.

Invariants: temperature 0 is greedy argmax (ties go to the lowest token id, as torch.argmax);
top-p keeps the smallest set of most likely tokens whose probability reaches `top_p` (always at
least one); a seeded request draws from its own generator, so its samples are reproducible
regardless of what else is batched with it.
"""

from __future__ import annotations

import torch

from ..sequence import GenerationParams


def apply_processors(params: GenerationParams, output_ids: list[int], logits: torch.Tensor) -> torch.Tensor:
    for processor in params.logits_processors:
        logits = processor(output_ids, logits)
    return logits


def top_p_filter(probs: torch.Tensor, top_p: float) -> torch.Tensor:
    """Zero every probability outside the nucleus and renormalise. probs: [vocab]."""
    if top_p >= 1.0:
        return probs
    sorted_probs, order = probs.sort(descending=True)
    cumulative = sorted_probs.cumsum(0)
    outside = cumulative - sorted_probs >= top_p  # mass before this token already reached top_p
    sorted_probs = sorted_probs.masked_fill(outside, 0.0)
    filtered = torch.zeros_like(probs).scatter_(0, order, sorted_probs)
    return filtered / filtered.sum()


def sample_row(logits: torch.Tensor, params: GenerationParams, generator: torch.Generator | None) -> int:
    """One token from a float32 logits row [vocab]."""
    if params.greedy:
        return int(logits.argmax())
    probs = torch.softmax(logits / params.temperature, dim=-1)
    probs = top_p_filter(probs, params.top_p)
    return int(torch.multinomial(probs, 1, generator=generator))


def sample(logits: torch.Tensor, params: list[GenerationParams], outputs: list[list[int]],
           generators: list[torch.Generator | None]) -> list[int]:
    """One token per row of logits [rows, vocab]; rows without processors or sampling are argmaxed
    together."""
    logits = logits.float()
    simple = all(p.greedy and not p.logits_processors for p in params)
    if simple:
        return logits.argmax(dim=-1).tolist()
    tokens = []
    for row, (p, out, gen) in enumerate(zip(params, outputs, generators)):
        tokens.append(sample_row(apply_processors(p, out, logits[row]), p, gen))
    return tokens
