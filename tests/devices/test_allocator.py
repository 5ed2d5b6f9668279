"""The caching allocator: size classes, reuse, stream tags, limits, statistics."""

from __future__ import annotations

import threading

import pytest

from tfrt.allocator import CachingAllocator, OutOfMemoryError, round_size


class Raw:
    """A raw allocator that counts what reaches it."""

    def __init__(self, capacity: int | None = None):
        self.live = 0
        self.allocs = 0
        self.frees = 0
        self.capacity = capacity

    def alloc(self, size):
        if self.capacity is not None and self.live + size > self.capacity:
            raise MemoryError("device full")
        self.live += size
        self.allocs += 1
        return bytearray(size)

    def free(self, storage):
        self.live -= len(storage)
        self.frees += 1


def test_size_classes():
    assert round_size(0) == 512
    assert round_size(1) == 512
    assert round_size(513) == 1024
    assert round_size((1 << 20) - 1) == 1 << 20
    assert round_size(1 << 20) == 1 << 20
    # Above 1 MiB: eight steps per power of two, so waste stays below 1/8.
    assert round_size((1 << 20) + 1) == (1 << 20) + (1 << 17)
    for n in (3_000_000, 4 << 20, 123_456_789):
        assert n <= round_size(n) < n * 1.125 + 1


def test_reuse_of_a_freed_block():
    raw = Raw()
    alloc = CachingAllocator("t", raw.alloc, raw.free)
    a = alloc.allocate(1000)
    storage = a.storage
    alloc.release(a)
    b = alloc.allocate(900)  # the same size class
    assert b.storage is storage
    assert raw.allocs == 1
    s = alloc.stats()
    assert (s.num_allocations, s.num_cache_hits, s.num_raw_allocations) == (2, 1, 1)
    assert s.bytes_in_use == 1024 and s.bytes_cached == 0


def test_blocks_are_reused_only_on_their_stream():
    raw = Raw()
    alloc = CachingAllocator("t", raw.alloc, raw.free)
    a = alloc.allocate(100, stream="s1")
    alloc.release(a)
    b = alloc.allocate(100, stream="s2")
    assert b.storage is not a.storage or raw.allocs == 2
    c = alloc.allocate(100, stream="s1")
    assert raw.allocs == 2
    assert alloc.stats().num_cache_hits == 1
    del b, c


def test_double_release_is_harmless():
    alloc = CachingAllocator("t", bytearray)
    a = alloc.allocate(10)
    alloc.release(a)
    alloc.release(a)
    assert alloc.stats().bytes_cached == 512
    assert alloc.stats().bytes_in_use == 0


def test_peak_and_reset():
    alloc = CachingAllocator("t", bytearray)
    blocks = [alloc.allocate(512) for _ in range(4)]
    for b in blocks:
        alloc.release(b)
    s = alloc.stats()
    assert s.peak_bytes_in_use == 2048 and s.bytes_in_use == 0 and s.bytes_cached == 2048
    alloc.reset_peak()
    assert alloc.stats().peak_bytes_in_use == 0
    alloc.allocate(512)
    assert alloc.stats().peak_bytes_in_use == 512


def test_empty_cache_returns_memory_to_the_device():
    raw = Raw()
    alloc = CachingAllocator("t", raw.alloc, raw.free)
    for b in [alloc.allocate(600) for _ in range(3)]:
        alloc.release(b)
    assert raw.live == 3 * 1024
    assert alloc.empty_cache() == 3 * 1024
    assert raw.live == 0 and raw.frees == 3


def test_device_out_of_memory_flushes_the_cache_and_retries():
    raw = Raw(capacity=2048)
    alloc = CachingAllocator("t", raw.alloc, raw.free)
    small = alloc.allocate(1024)
    alloc.release(small)  # cached: the device still holds 1024
    big = alloc.allocate(2000)  # needs the cached block's memory back
    assert big.size == 2048 and raw.frees == 1
    with pytest.raises(OutOfMemoryError, match="cannot allocate"):
        alloc.allocate(10)


def test_limit_bytes():
    alloc = CachingAllocator("t", bytearray, limit_bytes=1024)
    a = alloc.allocate(1024)
    with pytest.raises(OutOfMemoryError, match="limit 1024"):
        alloc.allocate(1)
    alloc.release(a)
    alloc.allocate(512)  # the cached 1024 block is flushed to make room


def test_negative_size():
    with pytest.raises(ValueError, match="negative"):
        CachingAllocator("t", bytearray).allocate(-1)


def test_non_caching_mode_frees_at_once():
    raw = Raw()
    alloc = CachingAllocator("t", raw.alloc, raw.free, caching=False)
    alloc.release(alloc.allocate(100))
    assert raw.frees == 1 and alloc.stats().bytes_cached == 0


def test_thread_safety():
    alloc = CachingAllocator("t", bytearray)

    def worker():
        for i in range(500):
            alloc.release(alloc.allocate(100 + (i % 7) * 600))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    s = alloc.stats()
    assert s.bytes_in_use == 0
    assert s.num_allocations == 2000
