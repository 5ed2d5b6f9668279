"""A stand-in for the part of cupy that ``tfrt.devices.gpu`` uses, over host memory.

It lets the ``gpu`` device's code (raw allocations wrapped in UnownedMemory,
stream launches, CUDA events watched by the completion thread, staged
device-to-host copies) run on machines without CUDA.  "Device" memory is host
memory; kernels run synchronously at launch; an event is complete once
recorded.  Every array function is numpy's.
"""

from __future__ import annotations

import ctypes
import types

import numpy as np


class FakeArray(np.ndarray):
    """An ndarray whose ``.data`` is a MemoryPointer, as cupy's is."""

    @property
    def data(self):  # noqa: D401 - cupy's attribute
        ptr = self.__array_interface__["data"][0]
        return MemoryPointer(_Raw(ptr, self.nbytes), 0)


class _Raw:
    def __init__(self, ptr, size):
        self.ptr = ptr
        self.size = size


class Memory:
    """cudaMalloc: host bytes here."""

    live = 0

    def __init__(self, size):
        self._buf = np.empty(max(size, 1), np.uint8)
        self.ptr = self._buf.__array_interface__["data"][0]
        self.size = size
        Memory.live += 1

    def __del__(self):
        Memory.live -= 1


class UnownedMemory:
    def __init__(self, ptr, size, owner, device_id=-1):
        self.ptr = ptr
        self.size = size
        self.owner = owner


class MemoryPointer:
    def __init__(self, mem, offset):
        self.mem = mem
        self.ptr = mem.ptr + offset

    def copy_from_host_async(self, src_ptr, size, stream=None):
        assert isinstance(src_ptr, ctypes.c_void_p), "cupy wants a ctypes.c_void_p host pointer"
        ctypes.memmove(self.ptr, src_ptr, size)

    def copy_to_host_async(self, dst_ptr, size, stream=None):
        assert isinstance(dst_ptr, ctypes.c_void_p), "cupy wants a ctypes.c_void_p host pointer"
        ctypes.memmove(dst_ptr, self.ptr, size)


def ndarray(shape, dtype=float, memptr=None):
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = (ctypes.c_uint8 * max(size, 1)).from_address(memptr.ptr)
    arr = np.frombuffer(raw, np.uint8, size).view(dtype).reshape(shape)
    out = arr.view(FakeArray)
    out._keep = memptr  # the owner chain keeps the block alive, as cupy's does
    return out


class _Context:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Device(_Context):
    def __init__(self, index=0):
        self.id = index


class Stream(_Context):
    def __init__(self, non_blocking=False):
        self.ptr = id(self)
        self.waited = []

    def wait_event(self, event):
        self.waited.append(event)


class Event:
    def __init__(self, disable_timing=False):
        self.recorded = False

    def record(self, stream=None):
        self.recorded = True

    def synchronize(self):
        assert self.recorded, "synchronize() on an event that was never recorded"


class OutOfMemoryError(MemoryError):
    pass


def alloc_pinned_memory(size):
    return bytearray(size)


def make_module(device_count: int = 1, memory_limit: int | None = None) -> types.ModuleType:
    """A fresh fake ``cupy`` module."""
    mod = types.ModuleType("fake_cupy")

    class LimitedMemory(Memory):
        used = 0

        def __init__(self, size):
            if memory_limit is not None and LimitedMemory.used + size > memory_limit:
                raise OutOfMemoryError(f"out of memory allocating {size} bytes")
            LimitedMemory.used += size
            super().__init__(size)

    runtime = types.SimpleNamespace(getDeviceCount=lambda: device_count)
    memory = types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError)
    mod.cuda = types.SimpleNamespace(
        runtime=runtime,
        memory=memory,
        Device=Device,
        Stream=Stream,
        Event=Event,
        Memory=LimitedMemory,
        UnownedMemory=UnownedMemory,
        MemoryPointer=MemoryPointer,
        alloc_pinned_memory=alloc_pinned_memory,
    )
    mod.ndarray = ndarray

    def __getattr__(name):
        fn = getattr(np, name)
        if not callable(fn) or isinstance(fn, type):
            return fn

        def as_device_array(*args, **kwargs):
            # cupy functions return cupy arrays; keep results "on the device".
            out = fn(*args, **kwargs)
            if isinstance(out, np.ndarray) and not isinstance(out, FakeArray):
                return out.view(FakeArray)
            return out

        return as_device_array

    mod.__getattr__ = __getattr__
    return mod
