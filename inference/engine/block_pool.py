"""The KV cache's blocks: a free queue with O(1) allocate / free / remove, reference counts, and
the prefix-cache map from block hash to block.

Invariants:
- A block is in the free queue exactly when its `ref_cnt` is 0.
- A block with `block_hash is not None` is in `cached` under that hash (and vice versa) and its
  `token_ids` are the tokens it holds; it keeps them while free until it is reused (lazy eviction).
- Free-queue order is eviction order: the head is reused first. Blocks without a hash are freed
  to the head (nothing is lost by reusing them); hashed blocks are freed to the tail, so the head
  holds the least recently used cached block. Callers free a request's blocks tail first, so a
  request's last blocks are evicted before its (more shareable) prefix.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator


class KVCacheBlock:
    __slots__ = ("block_id", "ref_cnt", "block_hash", "token_ids", "prev_free", "next_free")

    def __init__(self, block_id: int) -> None:
        self.block_id = block_id
        self.ref_cnt = 0
        self.block_hash: int | None = None
        self.token_ids: tuple[int, ...] | None = None
        self.prev_free: KVCacheBlock | None = None
        self.next_free: KVCacheBlock | None = None

    def __repr__(self) -> str:
        return f"KVCacheBlock({self.block_id}, ref={self.ref_cnt}, hash={self.block_hash})"


class FreeBlockQueue:
    """A doubly linked list threaded through the blocks themselves, with two sentinels."""

    def __init__(self, blocks: Iterable[KVCacheBlock] = ()) -> None:
        self._head = KVCacheBlock(-1)
        self._tail = KVCacheBlock(-2)
        self._head.next_free = self._tail
        self._tail.prev_free = self._head
        self._len = 0
        for block in blocks:
            self.append(block)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[KVCacheBlock]:
        node = self._head.next_free
        while node is not self._tail:
            assert node is not None
            yield node
            node = node.next_free

    def _link_after(self, anchor: KVCacheBlock, block: KVCacheBlock) -> None:
        after = anchor.next_free
        assert after is not None and block.prev_free is None and block.next_free is None
        block.prev_free, block.next_free = anchor, after
        anchor.next_free = block
        after.prev_free = block
        self._len += 1

    def append(self, block: KVCacheBlock) -> None:
        assert self._tail.prev_free is not None
        self._link_after(self._tail.prev_free, block)

    def appendleft(self, block: KVCacheBlock) -> None:
        self._link_after(self._head, block)

    def remove(self, block: KVCacheBlock) -> None:
        before, after = block.prev_free, block.next_free
        if before is None or after is None:
            raise ValueError(f"block {block.block_id} is not in the free queue")
        before.next_free, after.prev_free = after, before
        block.prev_free = block.next_free = None
        self._len -= 1

    def popleft(self) -> KVCacheBlock:
        first = self._head.next_free
        if first is self._tail or first is None:
            raise IndexError("no free blocks")
        self.remove(first)
        return first


class BlockPool:
    """Owns every block. `num_blocks` is fixed; block ids are 0..num_blocks-1."""

    def __init__(self, num_blocks: int, enable_caching: bool = True) -> None:
        if num_blocks < 1:
            raise ValueError("the KV cache needs at least one block")
        self.blocks = [KVCacheBlock(i) for i in range(num_blocks)]
        self.free_queue = FreeBlockQueue(self.blocks)
        self.cached: dict[int, KVCacheBlock] = {}
        self.enable_caching = enable_caching
        self.num_evictions = 0

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    @property
    def num_free_blocks(self) -> int:
        return len(self.free_queue)

    def free_order(self) -> list[int]:
        """Block ids in the order they will be reused (for tests and diagnostics)."""
        return [block.block_id for block in self.free_queue]

    def allocate(self, count: int) -> list[KVCacheBlock]:
        """Take `count` blocks from the head of the free queue, evicting their cached content."""
        if count > len(self.free_queue):
            raise ValueError(f"asked for {count} blocks, {len(self.free_queue)} free")
        out = []
        for _ in range(count):
            block = self.free_queue.popleft()
            if block.block_hash is not None:
                del self.cached[block.block_hash]
                block.block_hash = block.token_ids = None
                self.num_evictions += 1
            block.ref_cnt = 1
            out.append(block)
        return out

    def lookup(self, block_hash: int, token_ids: tuple[int, ...]) -> KVCacheBlock | None:
        """The cached block with this hash and exactly these tokens (a hash collision is a miss)."""
        block = self.cached.get(block_hash)
        if block is None or block.token_ids != token_ids:
            return None
        return block

    def touch(self, blocks: Iterable[KVCacheBlock]) -> None:
        """Take one more reference on each block, pulling free (cached) ones out of the queue."""
        for block in blocks:
            if block.ref_cnt == 0:
                self.free_queue.remove(block)
            block.ref_cnt += 1

    def free(self, blocks: Iterable[KVCacheBlock]) -> None:
        """Drop one reference from each block, in the given order (callers pass tail first)."""
        for block in blocks:
            if block.ref_cnt <= 0:
                raise ValueError(f"block {block.block_id} freed more often than referenced")
            block.ref_cnt -= 1
            if block.ref_cnt == 0:
                if block.block_hash is None:
                    self.free_queue.appendleft(block)
                else:
                    self.free_queue.append(block)

    def cache(self, block: KVCacheBlock, block_hash: int, token_ids: tuple[int, ...]) -> bool:
        """Register a full block under its hash; False when caching is off, it is already cached,
        or another block already holds that hash (the duplicate stays private and is reused first)."""
        if not self.enable_caching or block.block_hash is not None or block_hash in self.cached:
            return False
        block.block_hash, block.token_ids = block_hash, token_ids
        self.cached[block_hash] = block
        return True

    def reset_prefix_cache(self) -> int:
        """Forget every free cached block; returns how many were dropped."""
        dropped = 0
        for block in list(self.free_queue):
            if block.block_hash is not None:
                del self.cached[block.block_hash]
                block.block_hash = block.token_ids = None
                dropped += 1
        return dropped
