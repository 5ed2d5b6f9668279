"""Host memory for dense tensors: ``HostBuffer`` over the host caching allocator.

A ``HostBuffer`` owns one block of the host allocator.  numpy views of it
(``buffer.view(dtype, shape)``) keep the HostBuffer alive through their
``base`` chain, because the buffer exports itself with ``__array_interface__``;
so the block returns to the cache exactly when the last tensor *and* the last
numpy view over it are gone, and a caller that keeps ``tensor.array`` can never
see its memory reused under it.
"""

from __future__ import annotations

import threading

import numpy as np

from tfrt.allocator import Block, CachingAllocator

_host_allocator: CachingAllocator | None = None
_host_allocator_lock = threading.Lock()

# Observers of host allocations (the host runtime's leak checker, tests):
# objects with ``on_allocate(nbytes)`` / ``on_free(nbytes)``.
_observers: list = []


def _raw_host_alloc(size: int) -> np.ndarray:
    return np.empty(size, dtype=np.uint8)


def default_host_allocator() -> CachingAllocator:
    """The process-wide host allocator (shared by the ``cpu`` device)."""
    global _host_allocator
    if _host_allocator is None:
        with _host_allocator_lock:
            if _host_allocator is None:
                _host_allocator = CachingAllocator("host", _raw_host_alloc)
    return _host_allocator


def add_allocation_observer(observer) -> None:
    """Tell ``observer`` about every HostBuffer allocation and free."""
    _observers.append(observer)


def remove_allocation_observer(observer) -> None:
    if observer in _observers:
        _observers.remove(observer)


class HostBuffer:
    """``nbytes`` bytes of host memory from ``allocator`` (the host cache by default)."""

    __slots__ = ("_block", "_allocator", "nbytes", "__array_interface__", "__weakref__")

    def __init__(self, nbytes: int, allocator: CachingAllocator | None = None):
        allocator = allocator or default_host_allocator()
        block = allocator.allocate(nbytes)
        self._block: Block | None = block
        self._allocator = allocator
        self.nbytes = nbytes
        storage = block.storage
        self.__array_interface__ = {
            "data": (storage.__array_interface__["data"][0], False),
            "shape": (nbytes,),
            "typestr": "|u1",
            "version": 3,
        }
        for obs in _observers:
            obs.on_allocate(nbytes)

    def view(self, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
        """A writable numpy array over the buffer; it keeps the buffer alive."""
        flat = np.asarray(self)
        if dtype.itemsize == 0:
            return np.empty(shape, dtype)
        count = self.nbytes // dtype.itemsize
        return flat.view(dtype)[:count].reshape(shape)

    @property
    def allocator(self) -> CachingAllocator:
        return self._allocator

    def __del__(self):
        block = self._block
        if block is None:
            return
        self._block = None
        self._allocator.release(block)
        for obs in _observers:
            obs.on_free(self.nbytes)


def owning_buffer(array: np.ndarray) -> HostBuffer | None:
    """The HostBuffer an array is a view of, if any."""
    base = array.base
    while base is not None and not isinstance(base, HostBuffer):
        base = getattr(base, "base", None)
    return base


def detached_view(array: np.ndarray) -> np.ndarray:
    """A view of ``array``'s memory that does not keep its HostBuffer alive.

    Work queued on a stream uses these, as a GPU kernel uses raw pointers: the
    tensor may die (its block returning to the cache) while the work is
    queued, and stream order guarantees that the block's next user, queued
    later on the same stream, runs after it.  The allocator keeps the storage
    itself alive, so the view never dangles.
    """
    owner = owning_buffer(array)
    if owner is None or owner._block is None:
        return array
    storage = owner._block.storage
    offset = array.__array_interface__["data"][0] - storage.__array_interface__["data"][0]
    return np.ndarray(array.shape, array.dtype, buffer=storage, offset=offset, strides=array.strides)


def memory_owner(array: np.ndarray):
    """The object whose death frees ``array``'s memory: its HostBuffer, or else
    the numpy array at the root of its ``base`` chain."""
    owner = owning_buffer(array)
    if owner is not None:
        return owner
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root
