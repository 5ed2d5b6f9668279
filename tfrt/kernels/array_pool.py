"""Reuse of large host arrays between kernel calls.

A tensor program allocates the same few large shapes on every call (a
ResNet-50 layer's padded input, its im2col matrix, its output), and each
fresh ``numpy.empty`` of a few megabytes costs page faults when ``malloc``
has handed the previous one back to the system: thousands of faults, several
milliseconds, per ResNet-50 call.  :class:`ArrayPool` keeps those buffers.

The pool owns one flat ``uint8`` *store* per buffer and hands out views of
it.  Numpy makes every view of a view point at the array that owns the
memory, so a store is referenced by each live array that uses its bytes, and
a store whose reference count is back to what the pool itself holds is free:
no hook on array deletion is needed, and a result a caller keeps, however
they reshape or slice it, keeps its store out of reuse.

Sizes are rounded to classes (``tfrt.allocator.round_size``: at most 1/8 of
waste).  The pool keeps at most ``limit_bytes`` of stores; past that, arrays
are plain ``numpy.empty`` ones.  Below ``min_bytes`` an allocation goes
straight to numpy, whose own small-block cache is faster than any lookup.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

import numpy as np

from tfrt.allocator import round_size

_getrefcount = sys.getrefcount


def _env_bytes(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


class ArrayPool:
    """``empty(shape, dtype)`` from reusable stores (see the module docstring)."""

    def __init__(self, min_bytes: int = 1 << 18, limit_bytes: int = 1 << 30):
        self.min_bytes = min_bytes
        self.limit_bytes = limit_bytes
        self._lock = threading.Lock()
        self._stores: dict[int, list[np.ndarray]] = {}
        self._held = 0  # bytes of all stores
        self.hits = 0
        self.misses = 0

    def empty(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        dtype = np.dtype(dtype)
        count = 1
        for d in shape:
            count *= d
        nbytes = count * dtype.itemsize
        if nbytes < self.min_bytes:
            return np.empty(shape, dtype)
        size = round_size(nbytes)
        with self._lock:
            stores = self._stores.get(size)
            if stores is None:
                stores = self._stores[size] = []
            for store in stores:
                # References: the list, ``store`` and getrefcount's argument.
                if _getrefcount(store) == 3:
                    self.hits += 1
                    return store[:nbytes].view(dtype).reshape(shape)
            self.misses += 1
            if self._held + size > self.limit_bytes:
                return np.empty(shape, dtype)
            store = np.empty(size, np.uint8)
            stores.append(store)
            self._held += size
            return store[:nbytes].view(dtype).reshape(shape)

    def zeros(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        out = self.empty(shape, dtype)
        out.fill(0)
        return out

    def held_bytes(self) -> int:
        """Bytes of every store the pool keeps, in use or free."""
        return self._held

    def clear(self) -> int:
        """Forgets every store (arrays in use stay valid); returns the bytes dropped."""
        with self._lock:
            held, self._held = self._held, 0
            self._stores = {}
        return held


#: The pool the host array kernels allocate from.  ``TFRT_ARRAY_POOL_BYTES``
#: bounds it (0 turns reuse off).
host_pool = ArrayPool(limit_bytes=_env_bytes("TFRT_ARRAY_POOL_BYTES", 1 << 30))
