"""KV cache manager: chained block hashes, longest cached prefix, all-or-nothing allocation."""

from inference.engine.block_pool import BlockPool
from inference.engine.kv_cache_manager import KVCacheManager, hash_block
from inference.engine.sequence import Sequence


def make(num_blocks=8, block_size=4):
    return KVCacheManager(BlockPool(num_blocks), block_size)


def test_block_hash_chains_the_parent():
    first = hash_block(None, (1, 2, 3, 4))
    assert hash_block(None, (1, 2, 3, 4)) == first
    assert hash_block(first, (5, 6, 7, 8)) != hash_block(None, (5, 6, 7, 8))
    assert hash_block(first, (5, 6, 7, 8)) != hash_block(first, (5, 6, 7, 9))


def test_admit_allocates_blocks_for_the_chunk_only():
    kv = make()
    seq = Sequence("a", list(range(10)))
    assert kv.admit(seq, 6)
    assert seq.block_table == [0, 1] and seq.num_computed_tokens == 0
    assert kv.pool.free_order() == [2, 3, 4, 5, 6, 7]


def test_second_request_reuses_the_longest_cached_prefix():
    kv = make()
    a = Sequence("a", list(range(10)))
    assert kv.admit(a, 10)
    a.num_computed_tokens = 10
    kv.cache_computed_blocks(a)
    assert a.num_cached_blocks == 2 and len(kv.pool.cached) == 2
    b = Sequence("b", list(range(8)) + [99, 98, 97])
    assert kv.admit(b, 100)
    assert b.block_table[:2] == a.block_table[:2]
    assert b.num_computed_tokens == 8 and b.num_prefix_hit_tokens == 8
    assert [kv.pool.blocks[i].ref_cnt for i in a.block_table] == [2, 2, 1]
    assert b.block_table[2] not in a.block_table


def test_a_fully_cached_prompt_still_computes_its_last_token():
    kv = make()
    a = Sequence("a", list(range(8)))
    kv.admit(a, 8)
    a.num_computed_tokens = 8
    kv.cache_computed_blocks(a)
    kv.free(a)
    b = Sequence("b", list(range(8)))
    assert kv.admit(b, 8)
    assert b.num_computed_tokens == 4  # the second block holds the last token: recomputed
    assert b.block_table[0] == 0 and b.block_table[1] != 1


def test_allocation_failure_changes_nothing():
    kv = make(num_blocks=3)
    a = Sequence("a", list(range(8)))
    assert kv.admit(a, 8)
    b = Sequence("b", list(range(100, 112)))
    assert not kv.admit(b, 12)
    assert b.block_table == [] and kv.pool.num_free_blocks == 1
    assert kv.pool.free_order() == [2]


def test_revived_cached_blocks_count_against_free_space():
    kv = make(num_blocks=3)
    a = Sequence("a", list(range(8)))
    kv.admit(a, 8)
    a.num_computed_tokens = 8
    kv.cache_computed_blocks(a)
    kv.free(a)  # blocks 0 and 1 are free but cached; block 2 free and empty
    b = Sequence("b", list(range(4)) + list(range(50, 58)))
    # hit on block 0 (revived), then needs 2 new blocks: only blocks 2 and 1 remain
    assert kv.admit(b, 8)
    assert b.block_table == [0, 2, 1] and list(kv.pool.cached.values()) == [kv.pool.blocks[0]]
    assert kv.pool.num_free_blocks == 0


def test_free_releases_tail_first_and_resets_progress():
    kv = make()
    a = Sequence("a", list(range(12)))
    kv.admit(a, 12)
    a.num_computed_tokens = 12
    kv.cache_computed_blocks(a)
    kv.free(a)
    assert a.block_table == [] and a.num_computed_tokens == 0
    assert kv.pool.free_order() == [3, 4, 5, 6, 7, 2, 1, 0]
