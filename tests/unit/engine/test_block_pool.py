"""Block pool: exact free-queue order, reference counts and prefix-cache map after scripted operations."""

import pytest

from inference.engine.block_pool import BlockPool, FreeBlockQueue, KVCacheBlock


def test_free_queue_is_a_linked_list_with_o1_removal_from_the_middle():
    blocks = [KVCacheBlock(i) for i in range(5)]
    queue = FreeBlockQueue(blocks)
    queue.remove(blocks[2])
    queue.appendleft(blocks[2])
    queue.remove(blocks[4])
    queue.append(blocks[4])
    assert [b.block_id for b in queue] == [2, 0, 1, 3, 4]
    assert queue.popleft() is blocks[2]
    assert len(queue) == 4
    with pytest.raises(ValueError):
        queue.remove(blocks[2])


def test_allocate_takes_from_the_head_and_sets_ref_counts():
    pool = BlockPool(6)
    got = pool.allocate(3)
    assert [b.block_id for b in got] == [0, 1, 2]
    assert [b.ref_cnt for b in pool.blocks] == [1, 1, 1, 0, 0, 0]
    assert pool.free_order() == [3, 4, 5]
    with pytest.raises(ValueError):
        pool.allocate(4)


def test_uncached_blocks_return_to_the_head_cached_ones_to_the_tail():
    pool = BlockPool(6)
    a, b, c = pool.allocate(3)
    assert pool.cache(a, 111, (1, 2))
    assert pool.cache(b, 222, (3, 4))
    # freed tail first, as the KV cache manager does: c (uncached) goes to the head
    pool.free([c, b, a])
    assert pool.free_order() == [2, 3, 4, 5, 1, 0]
    assert [blk.ref_cnt for blk in pool.blocks] == [0] * 6
    assert pool.cached == {111: a, 222: b}


def test_lookup_compares_token_ids_and_touch_revives_a_free_cached_block():
    pool = BlockPool(4)
    (a,) = pool.allocate(1)
    pool.cache(a, 7, (5, 6))
    pool.free([a])
    assert pool.lookup(7, (5, 6)) is a
    assert pool.lookup(7, (5, 9)) is None  # same hash, other tokens: a collision is a miss
    pool.touch([a])
    assert a.ref_cnt == 1 and pool.free_order() == [1, 2, 3]
    pool.touch([a])
    assert a.ref_cnt == 2
    pool.free([a])
    assert a.ref_cnt == 1 and 0 not in pool.free_order()


def test_reallocating_a_cached_block_evicts_it_least_recently_used_first():
    pool = BlockPool(3)
    blocks = pool.allocate(3)
    for i, block in enumerate(blocks):
        pool.cache(block, 100 + i, (i,))
    pool.free([blocks[1]])
    pool.free([blocks[0]])
    pool.free([blocks[2]])
    assert pool.free_order() == [1, 0, 2]
    (reused,) = pool.allocate(1)
    assert reused.block_id == 1 and reused.block_hash is None
    assert set(pool.cached) == {100, 102} and pool.num_evictions == 1


def test_duplicate_hash_stays_private_and_double_free_is_an_error():
    pool = BlockPool(2)
    a, b = pool.allocate(2)
    assert pool.cache(a, 5, (1,))
    assert not pool.cache(b, 5, (1,))
    assert b.block_hash is None
    pool.free([a, b])
    assert pool.free_order() == [1, 0]
    with pytest.raises(ValueError):
        pool.free([a])


def test_caching_disabled_never_registers_blocks():
    pool = BlockPool(2, enable_caching=False)
    (a,) = pool.allocate(1)
    assert not pool.cache(a, 1, (1,))
    assert pool.cached == {}
