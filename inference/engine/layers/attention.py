"""Paged attention in plain torch: keys and values live in per-layer caches of fixed-size blocks,
and each step's tokens attend to their sequence's cached context through its block table.

Cache layout per layer: `[num_kv_heads, num_blocks * block_size, head_dim]` (kv-head major, so
the keys gathered for one sequence are already `[kv_heads, tokens, head_dim]`). Token `p` of a
sequence lives in slot `block_table[p // block_size] * block_size + p % block_size`.

A step's tokens are laid out decodes first (one row per decoding sequence), then each prefill
chunk's rows in order. `AttentionMetadata` is built once per step and shared by every layer.
A short chunk on top of cached context (at most `GROUPED_MAX_TOKENS` tokens: a speculative
verification, the tail of a prompt) runs as the decodes do, the query heads that share a kv head
stacked as queries of that kv head, so keys and values are never repeated per query head.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

GROUPED_MAX_TOKENS = 16


@dataclass(slots=True)
class PrefillSpan:
    """`num_tokens` rows starting at `row`, at positions `start .. start + num_tokens - 1`."""

    row: int
    num_tokens: int
    start: int
    context_slots: torch.Tensor | None  # [start + num_tokens] slots, None when start == 0
    mask: torch.Tensor | None  # [num_tokens, start + num_tokens] additive (0 / -inf), None when start == 0
    grouped_mask: torch.Tensor | None = None  # `mask` repeated per query head of a group, made once per step


@dataclass(slots=True)
class AttentionMetadata:
    slot_mapping: torch.Tensor  # [tokens]: where each new token's key/value is written
    num_decodes: int = 0
    decode_slots: torch.Tensor | None = None  # [decodes, max_context] slots (padding repeats slot 0)
    decode_mask: torch.Tensor | None = None  # [1, decodes, 1, max_context] additive; None if no padding
    prefills: list[PrefillSpan] = field(default_factory=list)


def context_slots(block_table: list[int], length: int, block_size: int) -> list[int]:
    """Cache slots of a sequence's first `length` tokens."""
    return [block_table[p // block_size] * block_size + p % block_size for p in range(length)]


def build_metadata(
    decode_contexts: list[tuple[list[int], int]],
    prefill_chunks: list[tuple[list[int], int, int]],
    block_size: int,
    device: torch.device,
    dtype: torch.dtype = torch.float32,
) -> AttentionMetadata:
    """decode_contexts: (block_table, context length incl. the new token) per decoding sequence;
    prefill_chunks: (block_table, start, num_tokens) per chunk. Rows follow the same order.
    Masks are additive in `dtype` (the CPU kernels run faster with them than with boolean masks)."""
    slot_mapping: list[int] = []
    for table, length in decode_contexts:
        p = length - 1
        slot_mapping.append(table[p // block_size] * block_size + p % block_size)
    meta = AttentionMetadata(slot_mapping=torch.empty(0), num_decodes=len(decode_contexts))
    if decode_contexts:
        longest = max(length for _, length in decode_contexts)
        rows = [context_slots(table, length, block_size) + [0] * (longest - length) for table, length in decode_contexts]
        meta.decode_slots = torch.tensor(rows, dtype=torch.long, device=device)
        if any(length != longest for _, length in decode_contexts):
            lengths = torch.tensor([length for _, length in decode_contexts], device=device)
            valid = torch.arange(longest, device=device)[None, :] < lengths[:, None]
            meta.decode_mask = _additive(valid, dtype)[None, :, None, :]
    row = len(decode_contexts)
    for table, start, count in prefill_chunks:
        slots = context_slots(table, start + count, block_size)
        slot_mapping.extend(slots[start:])
        span = PrefillSpan(row=row, num_tokens=count, start=start, context_slots=None, mask=None)
        if start > 0:
            span.context_slots = torch.tensor(slots, dtype=torch.long, device=device)
            keys = torch.arange(start + count, device=device)
            span.mask = _additive(keys[None, :] <= (start + torch.arange(count, device=device))[:, None], dtype)
        meta.prefills.append(span)
        row += count
    meta.slot_mapping = torch.tensor(slot_mapping, dtype=torch.long, device=device)
    return meta


def _additive(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return torch.zeros(allowed.shape, dtype=dtype, device=allowed.device).masked_fill_(~allowed, float("-inf"))


def write_kv(k_cache: torch.Tensor, v_cache: torch.Tensor, slots: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    """Store new keys/values ([tokens, kv_heads, head_dim]) at their slots."""
    k_cache.index_copy_(1, slots, k.transpose(0, 1))
    v_cache.index_copy_(1, slots, v.transpose(0, 1))


def paged_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, k_cache: torch.Tensor,
                    v_cache: torch.Tensor, meta: AttentionMetadata, scale: float) -> torch.Tensor:
    """q: [tokens, heads, head_dim]; k, v: this step's [tokens, kv_heads, head_dim] (already written
    to the cache). Returns [tokens, heads, head_dim]."""
    tokens, heads, head_dim = q.shape
    kv_heads = k.shape[1]
    group = heads // kv_heads
    parts: list[torch.Tensor] = []
    if meta.num_decodes:
        parts.append(_decode(q[: meta.num_decodes], k_cache, v_cache, meta, group, scale))
    for span in meta.prefills:
        rows = slice(span.row, span.row + span.num_tokens)
        qs = q[rows].transpose(0, 1).unsqueeze(0)  # [1, heads, n, d]
        if span.context_slots is None:
            ks, vs = k[rows].transpose(0, 1).unsqueeze(0), v[rows].transpose(0, 1).unsqueeze(0)
            out = F.scaled_dot_product_attention(qs, ks, vs, is_causal=True, scale=scale, enable_gqa=group > 1)
        elif span.num_tokens <= GROUPED_MAX_TOKENS:
            parts.append(_grouped_chunk(q[rows], k_cache, v_cache, span, group, scale))
            continue
        else:
            ks = k_cache.index_select(1, span.context_slots).unsqueeze(0)
            vs = v_cache.index_select(1, span.context_slots).unsqueeze(0)
            out = F.scaled_dot_product_attention(qs, ks, vs, attn_mask=span.mask, scale=scale, enable_gqa=group > 1)
        parts.append(out.squeeze(0).transpose(0, 1))
    return parts[0] if len(parts) == 1 else torch.cat(parts, dim=0)


def _decode(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
            group: int, scale: float) -> torch.Tensor:
    """One query per sequence. Treats kv heads as the batch dimension and the sequences as heads,
    and the `group` query heads sharing a kv head as `group` queries: no key/value repetition."""
    assert meta.decode_slots is not None
    batch, heads, head_dim = q.shape
    kv_heads = heads // group
    slots = meta.decode_slots
    context = slots.shape[1]
    flat = slots.view(-1)  # index_select copies whole rows; much faster than advanced indexing
    ks = k_cache.index_select(1, flat).view(kv_heads, batch, context, head_dim)
    vs = v_cache.index_select(1, flat).view(kv_heads, batch, context, head_dim)
    qs = q.view(batch, kv_heads, group, head_dim).transpose(0, 1)  # [kv_heads, batch, group, d]
    out = F.scaled_dot_product_attention(qs, ks, vs, attn_mask=meta.decode_mask, scale=scale)
    return out.transpose(0, 1).reshape(batch, heads, head_dim)


def _grouped_chunk(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, span: PrefillSpan,
                   group: int, scale: float) -> torch.Tensor:
    """A short chunk over cached context: kv heads as the batch, and the `group` query heads of
    each kv head times the chunk's positions as its queries (row g * n + i: head g, position i),
    each position masked to the keys up to itself. q: [n, heads, d] -> [n, heads, d]."""
    assert span.context_slots is not None and span.mask is not None
    n, heads, head_dim = q.shape
    kv_heads = heads // group
    if span.grouped_mask is None:
        span.grouped_mask = span.mask.repeat(group, 1)[None, None]
    qs = q.view(n, kv_heads, group, head_dim).permute(1, 2, 0, 3).reshape(kv_heads, 1, group * n, head_dim)
    ks = k_cache.index_select(1, span.context_slots).unsqueeze(1)  # [kv_heads, 1, context, d]
    vs = v_cache.index_select(1, span.context_slots).unsqueeze(1)
    out = F.scaled_dot_product_attention(qs, ks, vs, attn_mask=span.grouped_mask, scale=scale)
    return out.view(kv_heads, group, n, head_dim).permute(2, 0, 1, 3).reshape(n, heads, head_dim)
