"""A short chunk over cached context (a speculative verification) attends through the grouped
layout (`attention._grouped_chunk`): the same result as the repeated-kv-head path, per position
causal over the context."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from inference.engine.layers import attention  # noqa: E402


@pytest.mark.parametrize("heads,kv_heads", [(4, 2), (14, 2), (4, 4)])
@pytest.mark.parametrize("tokens", [1, 2, 5, 16])
def test_the_grouped_chunk_matches_the_repeated_kv_path(monkeypatch, heads, kv_heads, tokens):
    torch.manual_seed(tokens * heads)
    block, start, d = 4, 23, 8
    table = [5, 2, 7, 0, 3, 6, 1, 4, 8, 9]
    slots = len(table) * block
    k_cache, v_cache = torch.randn(kv_heads, slots, d), torch.randn(kv_heads, slots, d)
    q, k, v = torch.randn(tokens, heads, d), torch.randn(tokens, kv_heads, d), torch.randn(tokens, kv_heads, d)
    meta = attention.build_metadata([], [(table, start, tokens)], block, torch.device("cpu"))
    attention.write_kv(k_cache, v_cache, meta.slot_mapping, k, v)
    grouped = attention.paged_attention(q, k, v, k_cache, v_cache, meta, d**-0.5)
    monkeypatch.setattr(attention, "GROUPED_MAX_TOKENS", 0)
    meta = attention.build_metadata([], [(table, start, tokens)], block, torch.device("cpu"))
    repeated = attention.paged_attention(q, k, v, k_cache, v_cache, meta, d**-0.5)
    torch.testing.assert_close(grouped, repeated, rtol=1e-5, atol=1e-5)
    # the last position sees the whole context; the first does not see the chunk's later keys
    context = attention.context_slots(table, start + tokens, block)
    group = heads // kv_heads
    keys = k_cache[:, context].repeat_interleave(group, 0)
    values = v_cache[:, context].repeat_interleave(group, 0)
    first = torch.softmax((keys[:, : start + 1] @ q[0].unsqueeze(-1)).squeeze(-1) * d**-0.5, -1)
    expected = (first.unsqueeze(-1) * values[:, : start + 1]).sum(1)
    torch.testing.assert_close(grouped[0], expected, rtol=1e-5, atol=1e-5)
