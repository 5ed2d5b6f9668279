"""A stand-in for the part of cupy that ``tfrt.devices.gpu`` uses, over host memory.

It lets the ``gpu`` device's code (raw allocations wrapped in UnownedMemory,
stream launches, CUDA events watched by the completion thread, staged
device-to-host copies) run on machines without CUDA.  "Device" memory is host
memory; kernels run synchronously at launch; an event is complete once
recorded.  Array functions are numpy's, under the names (and bound to the
signatures) of ``tfrt.kernels.cupy_names``: a function or keyword CuPy lacks
fails here too.  The arrays themselves are numpy arrays (``FakeArray``), with
numpy's methods.

What CUDA and CuPy check, this checks too: there are ``device_count``
devices, each thread has a current one (``cuda.Device`` switches it); a
stream and an event belong to the device current when they are made, a
stream is entered only on its device, and an event is recorded only on a
stream of its device.  ``cuda.Memory`` fails as ``cudaMalloc`` does
(``CUDARuntimeError``, cudaErrorMemoryAllocation) past ``memory_limit``, and
the bytes cupy's default pool caches count against that limit until
``free_all_blocks()``.  Each module records the events the completion thread
waited on (``synchronized``).
"""

from __future__ import annotations

import ctypes
import threading
import types

import numpy as np

from tfrt.kernels.cupy_names import NAMES, bind, signature


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


class UnownedMemory:
    def __init__(self, ptr, size, owner, device_id=-1):
        self.ptr = ptr
        self.size = size
        self.owner = owner
        self.device_id = device_id


class MemoryPointer:
    def __init__(self, mem, offset):
        self.mem = mem
        self._ptr = mem.ptr + offset

    ptr = property(lambda self: self._ptr)

    def copy_from_host_async(self, mem, size, stream=None):
        assert isinstance(mem, (int, ctypes.c_void_p)), "cupy wants an int or ctypes.c_void_p host pointer"
        ctypes.memmove(self.ptr, mem, size)

    def copy_to_host_async(self, mem, size, stream=None):
        assert isinstance(mem, (int, ctypes.c_void_p)), "cupy wants an int or ctypes.c_void_p host pointer"
        ctypes.memmove(mem, self.ptr, size)


def _ndarray(shape, dtype=float, memptr=None, strides=None, order="C"):
    if strides is not None or order != "C":
        raise NotImplementedError("the fake makes C-ordered arrays only")
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = (ctypes.c_uint8 * max(size, 1)).from_address(memptr.ptr)
    arr = np.frombuffer(raw, np.uint8, size).view(dtype).reshape(shape)
    out = arr.view(FakeArray)
    out._keep = memptr  # the owner chain keeps the block alive, as cupy's does
    return out


def alloc_pinned_memory(size):
    return bytearray(size)


class CUDARuntimeError(RuntimeError):
    _NAMES = {2: "cudaErrorMemoryAllocation: out of memory",
              400: "cudaErrorInvalidResourceHandle: invalid resource handle",
              101: "cudaErrorInvalidDevice: invalid device ordinal"}  # fmt: skip

    def __init__(self, status):
        self.status = status
        super().__init__(self._NAMES.get(status, f"cudaError {status}"))


class OutOfMemoryError(MemoryError):
    def __init__(self, size, total, limit=0):
        super().__init__(f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes).")


def make_module(device_count: int = 1, memory_limit: int | None = None) -> types.ModuleType:
    """A fresh fake ``cupy`` module."""
    mod = types.ModuleType("fake_cupy")
    current = threading.local()  # the thread's current device, as CUDA keeps it
    synchronized: list = []

    def get_device():
        return getattr(current, "device", 0)

    class Device:
        def __init__(self, device=None):
            self._id = get_device() if device is None else int(device)
            if not 0 <= self._id < device_count:
                raise CUDARuntimeError(101)

        id = property(lambda self: self._id)

        def __enter__(self):
            stack = current.__dict__.setdefault("stack", [])
            stack.append(get_device())
            current.device = self._id
            return self

        def __exit__(self, *args):
            current.device = current.stack.pop()
            return False

    class Stream:
        def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
            self.ptr = id(self)
            self.device_id = -1 if null or ptds else get_device()
            self.waited = []

        def __enter__(self):
            if self.device_id not in (-1, get_device()):
                raise RuntimeError(f"The device that the stream is created on ({self.device_id}) does not match "
                                   f"with the current device ({get_device()})")  # fmt: skip
            return self

        def __exit__(self, *args):
            return False

        def wait_event(self, event):
            self.waited.append(event)

    class Event:
        def __init__(self, block=False, disable_timing=False, interprocess=False):
            self.device_id = get_device()  # cudaEventCreate: the current device's
            self.block = block
            self.recorded = False

        def record(self, stream=None):
            device = get_device() if stream is None or stream.device_id == -1 else stream.device_id
            if device != self.device_id:
                raise CUDARuntimeError(400)  # cudaEventRecord: event and stream on different devices
            self.recorded = True

        def synchronize(self):
            assert self.recorded, "synchronize() on an event that was never recorded"
            synchronized.append(self)

    class Memory:
        """cudaMalloc: host bytes here; past ``memory_limit``, cudaErrorMemoryAllocation."""

        live = 0
        used = 0

        def __init__(self, size):
            if memory_limit is not None and Memory.used + pool.cached + size > memory_limit:
                raise CUDARuntimeError(2)
            Memory.used += size
            self._buf = np.empty(max(size, 1), np.uint8)
            self.ptr = self._buf.__array_interface__["data"][0]
            self.size = size
            self.device_id = get_device()
            Memory.live += 1

        def __del__(self):
            if hasattr(self, "size"):  # not when __init__ raised
                Memory.live -= 1
                Memory.used -= self.size

    class MemoryPool:
        """cupy's default pool: ``cached`` bytes it holds for reuse (a test sets them)."""

        def __init__(self, allocator=None):
            self.cached = 0

        def free_all_blocks(self, stream=None):
            self.cached = 0

    pool = MemoryPool()

    runtime = types.SimpleNamespace(getDeviceCount=lambda: device_count, CUDARuntimeError=CUDARuntimeError)
    memory = types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError)
    mod.cuda = types.SimpleNamespace(
        runtime=runtime,
        memory=memory,
        Device=Device,
        Stream=Stream,
        Event=Event,
        Memory=Memory,
        MemoryPool=MemoryPool,
        UnownedMemory=UnownedMemory,
        MemoryPointer=MemoryPointer,
        alloc_pinned_memory=alloc_pinned_memory,
    )
    mod.ndarray = _ndarray
    mod.get_default_memory_pool = lambda: pool
    mod.synchronized = synchronized

    def __getattr__(name):
        # Array functions: numpy's, for the names CuPy has, bound to CuPy's signatures.
        if name.startswith("__") or name not in NAMES or NAMES[name][0] == "attribute" or "." in name:
            raise AttributeError(f"module 'cupy' has no attribute '{name}' (not in tfrt.kernels.cupy_names)")
        fn = getattr(np, name)

        def as_device_array(*args, **kwargs):
            bind(name, args, kwargs)  # TypeError where CuPy would raise one
            # cupy functions return cupy arrays; keep results "on the device".
            out = fn(*args, **kwargs)
            if isinstance(out, np.ndarray) and not isinstance(out, FakeArray):
                return out.view(FakeArray)
            return out

        as_device_array.__name__ = name
        as_device_array.__signature__ = signature(NAMES[name][0])
        return as_device_array

    def as_strided(x, shape=None, strides=None):
        return np.lib.stride_tricks.as_strided(x, shape, strides).view(FakeArray)

    mod.lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=as_strided))
    mod.__getattr__ = __getattr__
    return mod
