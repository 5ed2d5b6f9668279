"""A caching allocator, one per device.

Tensor programs allocate the same few sizes over and over (a chain of
1024x1024 ops allocates one 4 MiB buffer per op).  Returning a freed block to
the system and asking for it again costs page faults on the host and a
``cudaMalloc``/``cudaFree`` pair (which synchronises the device) on a GPU, so
freed blocks go to a free list keyed by their rounded size and the next request
of that size takes one back.  This is the PyTorch/TFRT-GPU design without block
splitting: exact size classes keep the code small, and rounding bounds the
waste at 1/8 of a block.

A block is freed when the last Python reference to its buffer dies.  Tensors
hold their buffer; the executor drops a register's value after its last use, so
a buffer goes back to the cache as soon as the last kernel reading it is done
and the live set, not the whole program, decides the peak (see
``benchmarks/bench_tensor.py``).

Blocks are tagged with a *stream*: a GPU block freed on one stream may still be
read by work queued on that stream, so it is reused only by requests on the
same stream (stream order makes that safe) unless the caller synchronises.

    >>> alloc = CachingAllocator("cpu", lambda n: bytearray(n))
    >>> b = alloc.allocate(1000)
    >>> alloc.stats().bytes_in_use
    1024
    >>> alloc.release(b)
    >>> alloc.stats().bytes_cached
    1024
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Hashable

_SMALL = 1 << 20  # below 1 MiB, round to 512 bytes
_SMALL_GRANULE = 512


def round_size(nbytes: int) -> int:
    """The size class of a request: 512-byte steps below 1 MiB, 8 steps per power of 2 above."""
    if nbytes <= 0:
        return _SMALL_GRANULE
    if nbytes < _SMALL:
        return (nbytes + _SMALL_GRANULE - 1) // _SMALL_GRANULE * _SMALL_GRANULE
    step = 1 << (nbytes.bit_length() - 4)
    return (nbytes + step - 1) // step * step


@dataclass
class AllocatorStats:
    """A snapshot of an allocator's counters (bytes are rounded block sizes)."""

    bytes_in_use: int
    peak_bytes_in_use: int
    bytes_cached: int
    bytes_reserved: int  # in use + cached: what the device really holds
    peak_bytes_reserved: int
    num_allocations: int  # requests served
    num_cache_hits: int
    num_raw_allocations: int  # requests that reached the device
    num_raw_frees: int


class Block:
    """One allocation: ``storage`` is what the device's raw allocator returned."""

    __slots__ = ("storage", "size", "nbytes", "stream", "__weakref__")

    def __init__(self, storage: Any, size: int, nbytes: int, stream: Hashable):
        self.storage = storage
        self.size = size  # rounded size class
        self.nbytes = nbytes  # requested size
        self.stream = stream


class OutOfMemoryError(MemoryError):
    """The device cannot provide a block even after the cache was emptied."""


class CachingAllocator:
    """A thread-safe size-class cache over a device's raw allocate/free.

    ``raw_alloc(size) -> storage`` may raise MemoryError; the allocator then
    frees every cached block and tries once more.  ``limit_bytes`` caps the
    reserved bytes (in use + cached), which tests use to simulate a small device.
    """

    def __init__(
        self,
        name: str,
        raw_alloc: Callable[[int], Any],
        raw_free: Callable[[Any], None] | None = None,
        *,
        limit_bytes: int | None = None,
        caching: bool = True,
    ):
        self.name = name
        self._raw_alloc = raw_alloc
        self._raw_free = raw_free
        self._limit = limit_bytes
        self._caching = caching
        self._lock = threading.Lock()
        self._free: dict[tuple[Hashable, int], list[Any]] = {}
        self._in_use = 0
        self._peak_in_use = 0
        self._cached = 0
        self._peak_reserved = 0
        self._num_allocs = 0
        self._num_hits = 0
        self._num_raw_allocs = 0
        self._num_raw_frees = 0

    # -- allocation ------------------------------------------------------

    def allocate(self, nbytes: int, stream: Hashable = None) -> Block:
        """A block of at least ``nbytes`` bytes, reused from the cache when possible."""
        if nbytes < 0:
            raise ValueError(f"cannot allocate a negative number of bytes ({nbytes})")
        size = round_size(nbytes)
        key = (stream, size)
        with self._lock:
            self._num_allocs += 1
            bucket = self._free.get(key)
            if bucket:
                storage = bucket.pop()
                self._cached -= size
                self._num_hits += 1
                self._note_in_use(size)
                return Block(storage, size, nbytes, stream)
            need_flush = self._limit is not None and (
                self._in_use + self._cached + size > self._limit
            )
        if need_flush:
            self.empty_cache()
        with self._lock:
            if self._limit is not None and self._in_use + self._cached + size > self._limit:
                raise OutOfMemoryError(
                    f"{self.name}: cannot allocate {nbytes} bytes "
                    f"({self._in_use} in use, limit {self._limit})"
                )
        storage = self._raw_alloc_with_retry(size)
        with self._lock:
            self._num_raw_allocs += 1
            self._note_in_use(size)
        return Block(storage, size, nbytes, stream)

    def _raw_alloc_with_retry(self, size: int) -> Any:
        try:
            return self._raw_alloc(size)
        except MemoryError:
            self.empty_cache()
        try:
            return self._raw_alloc(size)
        except MemoryError as e:
            raise OutOfMemoryError(f"{self.name}: cannot allocate {size} bytes: {e}") from e

    def _note_in_use(self, size: int) -> None:
        self._in_use += size
        if self._in_use > self._peak_in_use:
            self._peak_in_use = self._in_use
        reserved = self._in_use + self._cached
        if reserved > self._peak_reserved:
            self._peak_reserved = reserved

    def release(self, block: Block) -> None:
        """Give a block back; it becomes reusable by requests on its stream."""
        storage = block.storage
        if storage is None:
            return  # released twice
        block.storage = None
        with self._lock:
            self._in_use -= block.size
            if self._caching:
                self._free.setdefault((block.stream, block.size), []).append(storage)
                self._cached += block.size
                return
            self._num_raw_frees += 1
        if self._raw_free is not None:
            self._raw_free(storage)

    # -- cache control ---------------------------------------------------

    def empty_cache(self) -> int:
        """Free every cached block; returns the number of bytes given back."""
        with self._lock:
            free, self._free = self._free, {}
            freed = self._cached
            self._cached = 0
            self._num_raw_frees += sum(len(v) for v in free.values())
        if self._raw_free is not None:
            for blocks in free.values():
                for storage in blocks:
                    self._raw_free(storage)
        return freed

    def reset_peak(self) -> None:
        with self._lock:
            self._peak_in_use = self._in_use
            self._peak_reserved = self._in_use + self._cached

    def stats(self) -> AllocatorStats:
        with self._lock:
            return AllocatorStats(
                bytes_in_use=self._in_use,
                peak_bytes_in_use=self._peak_in_use,
                bytes_cached=self._cached,
                bytes_reserved=self._in_use + self._cached,
                peak_bytes_reserved=self._peak_reserved,
                num_allocations=self._num_allocs,
                num_cache_hits=self._num_hits,
                num_raw_allocations=self._num_raw_allocs,
                num_raw_frees=self._num_raw_frees,
            )
