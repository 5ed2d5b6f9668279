"""Heap settings for a process that runs one large program and exits.

In a fresh process each 4 KiB page costs a page fault the first time it is
touched.  On a virtual machine a fault costs microseconds (2.6 µs where
``benchmarks/bench_executor.py`` runs), and a program of 100,000 kernels
touches tens of megabytes while it is read, planned and run: the faults
were a quarter of its time.  glibc's malloc also hands a freed block of
128 KiB or more back to the system at once, so the next numpy temporary
of that size faults again.

``prepare_heap(nbytes)`` asks glibc (``mallopt``) to keep freed memory and
large blocks in its heap, and reserves ``nbytes`` of heap advised for
transparent huge pages (``madvise(MADV_HUGEPAGE)``: one fault per 2 MiB
where there were 512).  It only changes where memory comes from, never
what runs.  ``bef_executor`` calls it for a large input (its process ends
with the program); a host that lives on should not.  Elsewhere than
Linux with glibc, or with ``TFRT_HEAP=system`` in the environment, it does
nothing.
"""

from __future__ import annotations

import os
import sys

# mallopt parameters and madvise advice (glibc's <malloc.h>, <sys/mman.h>).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MADV_HUGEPAGE = 14
_HUGE_PAGE = 2 << 20

# Inputs smaller than this gain less than a millisecond: left alone.
MIN_INPUT = 1 << 20
# The heap a program needs, per byte of its BEF file (measured: about ten).
HEAP_PER_INPUT_BYTE = 16
MAX_RESERVE = 4 << 30


def reserve_for_input(size: int) -> int:
    """The heap to prepare for a BEF input of ``size`` bytes (0: none)."""
    if size < MIN_INPUT:
        return 0
    return min(size * HEAP_PER_INPUT_BYTE, MAX_RESERVE)


def prepare_heap(nbytes: int) -> bool:
    """Keep freed memory in the heap and reserve ``nbytes`` of it in huge
    pages (see the module's docstring).  Returns whether it did."""
    if nbytes <= 0 or not sys.platform.startswith("linux") or os.environ.get("TFRT_HEAP") == "system":
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.gnu_get_libc_version  # noqa: B018 - glibc's mallopt, not a stub
        mallopt, madvise, malloc, free = libc.mallopt, libc.madvise, libc.malloc, libc.free
    except (OSError, AttributeError):
        return False
    malloc.restype = ctypes.c_void_p
    malloc.argtypes = [ctypes.c_size_t]
    free.argtypes = [ctypes.c_void_p]
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    # Blocks up to nbytes from the heap (not a mapping of their own, given
    # back when freed), and a free top of the heap kept.
    if not mallopt(_M_MMAP_THRESHOLD, min(nbytes + _HUGE_PAGE, (1 << 31) - 1)):
        return False
    mallopt(_M_TRIM_THRESHOLD, min(2 * nbytes + _HUGE_PAGE, (1 << 31) - 1))
    block = malloc(nbytes)
    if not block:
        return True
    start = (block + _HUGE_PAGE - 1) & ~(_HUGE_PAGE - 1)
    length = (block + nbytes - start) & ~(_HUGE_PAGE - 1)
    if length > 0:
        madvise(start, length, _MADV_HUGEPAGE)  # (no THP: no effect)
    free(block)  # (the heap keeps it: later blocks are carved from it)
    return True
