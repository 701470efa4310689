"""Per-sequence KV block bookkeeping on top of `BlockPool`: prefix-cache lookups, slot allocation,
registering full blocks in the cache, and freeing.

Prefix caching: full block i of a sequence has hash
`hash_block(hash of block i-1, token ids of block i)` (xxh3-64 over the parent hash and the token
ids, so equal hashes imply equal whole prefixes up to collisions, and a hit also compares the
block's token ids). A lookup walks the sequence's block hashes from the start and stops at the
first miss, so it returns the longest cached prefix. It never covers the last prompt token: that
token must be computed to produce the next-token logits; a prefill-only sequence samples nothing,
so for it the lookup covers every full block, and its target is the last full block's end.
"""

from __future__ import annotations

from array import array

import xxhash

from .block_pool import BlockPool, KVCacheBlock
from .sequence import Sequence

_ROOT_HASH = 0


def hash_block(parent_hash: int | None, token_ids: tuple[int, ...] | list[int]) -> int:
    """Chained hash of one full block; `parent_hash` is None for the first block."""
    hasher = xxhash.xxh3_64()
    hasher.update((_ROOT_HASH if parent_hash is None else parent_hash).to_bytes(8, "little"))
    hasher.update(array("q", token_ids).tobytes())
    return hasher.intdigest()


class KVCacheManager:
    def __init__(self, pool: BlockPool, block_size: int) -> None:
        self.pool = pool
        self.block_size = block_size
        self.num_prefix_queries = 0  # tokens looked up (prompt tokens of admitted requests, warm-ups excluded)
        self.num_prefix_hits = 0  # tokens found in the cache

    def _block_tokens(self, seq: Sequence, index: int) -> tuple[int, ...]:
        return tuple(seq.token_ids[index * self.block_size : (index + 1) * self.block_size])

    def update_hashes(self, seq: Sequence) -> None:
        """Extend `seq.block_hashes` to cover every full block of its current tokens."""
        full_blocks = seq.num_tokens // self.block_size
        while len(seq.block_hashes) < full_blocks:
            index = len(seq.block_hashes)
            parent = seq.block_hashes[-1] if seq.block_hashes else None
            seq.block_hashes.append(hash_block(parent, self._block_tokens(seq, index)))

    def blocks_needed(self, num_tokens: int) -> int:
        return -(-num_tokens // self.block_size)

    def target_tokens(self, seq: Sequence) -> int:
        """How many tokens `seq` computes before it samples (or, prefill-only, before it is done)."""
        if seq.prefill_only:
            return seq.num_tokens // self.block_size * self.block_size
        return seq.num_tokens

    def _lookup_blocks(self, seq: Sequence) -> int:
        """Leading blocks the prefix cache may serve: every full block of a prefill-only sequence,
        else every full block before the one holding the last token."""
        return seq.num_tokens // self.block_size if seq.prefill_only else (seq.num_tokens - 1) // self.block_size

    def find_cached_prefix(self, seq: Sequence) -> list[KVCacheBlock]:
        """The cached blocks of the longest cached prefix of a sequence that holds no blocks yet."""
        if not self.pool.enable_caching:
            return []
        self.update_hashes(seq)
        limit = self._lookup_blocks(seq)
        hits: list[KVCacheBlock] = []
        for index in range(min(limit, len(seq.block_hashes))):
            block = self.pool.lookup(seq.block_hashes[index], self._block_tokens(seq, index))
            if block is None:
                break
            hits.append(block)
        return hits

    def uncomputed_block_hashes(self, seq: Sequence) -> set[int]:
        """Hashes of the full blocks of `seq` whose keys/values are not computed yet."""
        if not self.pool.enable_caching:
            return set()
        self.update_hashes(seq)
        return set(seq.block_hashes[seq.num_computed_tokens // self.block_size :])

    def next_block_in(self, seq: Sequence, hashes: set[int]) -> bool:
        """True when the first block of `seq` past its cached prefix has one of `hashes` (and is
        a block the prefix cache could serve, i.e. not the one holding the last prompt token)."""
        if not hashes:
            return False
        index = len(self.find_cached_prefix(seq))
        return index < self._lookup_blocks(seq) and seq.block_hashes[index] in hashes

    def allocate(self, seq: Sequence, num_new_tokens: int, cached: list[KVCacheBlock] | None = None) -> bool:
        """Make room for `num_new_tokens` more tokens after `seq.num_computed_tokens` (which, for
        an admission, first advances over `cached`). All or nothing: False changes nothing."""
        cached = cached or []
        computed = seq.num_computed_tokens + len(cached) * self.block_size
        have = len(seq.block_table) + len(cached)
        need = max(0, self.blocks_needed(computed + num_new_tokens) - have)
        revived = sum(1 for block in cached if block.ref_cnt == 0)  # leave the free queue when touched
        if need > self.pool.num_free_blocks - revived:
            return False
        if cached:
            self.pool.touch(cached)
            seq.block_table.extend(block.block_id for block in cached)
            seq.num_computed_tokens = computed
            seq.num_cached_blocks = len(seq.block_table)
        seq.block_table.extend(block.block_id for block in self.pool.allocate(need))
        return True

    def admit(self, seq: Sequence, num_new_tokens: int) -> bool:
        """`allocate` for a sequence that holds no blocks: reuses its longest cached prefix, and
        caps the new tokens at what remains of its target after the hit."""
        assert not seq.block_table and seq.num_computed_tokens == 0
        cached = self.find_cached_prefix(seq)
        remaining = self.target_tokens(seq) - len(cached) * self.block_size
        if not self.allocate(seq, min(num_new_tokens, remaining), cached):
            return False
        hit = len(cached) * self.block_size
        if seq.num_preemptions == 0:
            seq.num_prefix_hit_tokens = hit
        if not seq.prefill_only:  # the counters describe real requests
            self.num_prefix_queries += seq.num_tokens
            self.num_prefix_hits += hit
        return True

    def cache_computed_blocks(self, seq: Sequence) -> None:
        """Register every full, computed block of `seq` that is not yet in the prefix cache."""
        full = seq.num_computed_tokens // self.block_size
        if full <= seq.num_cached_blocks:
            return
        self.update_hashes(seq)
        for index in range(seq.num_cached_blocks, full):
            block = self.pool.blocks[seq.block_table[index]]
            self.pool.cache(block, seq.block_hashes[index], self._block_tokens(seq, index))
        seq.num_cached_blocks = full

    def free(self, seq: Sequence) -> None:
        """Release all of a sequence's blocks (tail first) and forget its progress."""
        self.pool.free(self.pool.blocks[block_id] for block_id in reversed(seq.block_table))
        seq.block_table = []
        seq.num_computed_tokens = 0
        seq.num_cached_blocks = 0
