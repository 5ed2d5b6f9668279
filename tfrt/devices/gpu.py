"""The ``gpu`` device: cupy arrays on a CUDA stream, completion through CUDA events.

cupy is imported only when a GpuDevice is created (or ``is_available()`` is
asked), so the host runtime never imports it.  Work is launched on one
non-blocking CUDA stream per device; cupy kernel launches return at once, so
an op costs the host only its launch.  After each launch a CUDA event is
recorded and handed to a *completion thread*, which waits for the events in
order (cupy releases the GIL while waiting; the events are created with
``block=True``, so the thread sleeps in ``cudaEventSynchronize`` instead of
spinning a core) and completes our ``Event``s; an AsyncValue made from such an
event resolves on that thread, never blocking the executor's threads.  CUDA
events belong to the device current when they are created: each is created
inside its stream's ``cupy.cuda.Device`` context.

Device memory comes from ``cudaMalloc`` through the device's caching
allocator (cupy's own pool is bypassed for results, so the allocator's
statistics are the device's): a cupy array is built over a cached block with
``UnownedMemory`` whose owner returns the block when the last array view dies.
Blocks are tagged with the stream, so reuse is stream-ordered and safe even
while earlier kernels that used the block are still queued.  The cupy calls
inside ops still allocate their temporaries from cupy's default pool: when
``cudaMalloc`` fails, that pool's unused blocks are freed before retrying.

Device-to-host copies go through pinned staging memory with an asynchronous
copy; the completion thread moves the bytes into the result DenseHostTensor.
"""

from __future__ import annotations

import ctypes
import queue
import threading
from typing import Any

import numpy as np

from tfrt.async_value import AsyncValue
from tfrt.devices import base
from tfrt.allocator import Block, CachingAllocator
from tfrt.devices.array_device import ArrayDevice, _check_events
from tfrt.devices.base import DeviceError, Event, Stream
from tfrt.tensor.host_tensor import DenseHostTensor

_cupy: Any = None


def load_cupy():
    """Import cupy (once); DeviceError if it or a CUDA device is missing."""
    global _cupy
    if _cupy is not None:
        return _cupy
    try:
        import cupy  # noqa: PLC0415 - the only place cupy is imported
    except Exception as exc:  # ImportError, or a CUDA library failing to load
        raise DeviceError(f"the gpu device needs cupy: {exc}") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise DeviceError(f"no CUDA device is usable: {exc}") from None
    if count < 1:
        raise DeviceError("no CUDA device is present")
    _cupy = cupy
    return cupy


class _Completer:
    """One thread per device: waits on CUDA events in order and completes our Events."""

    def __init__(self, name: str):
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=f"tfrt-{name}-completer", daemon=True)
        self._thread.start()

    def watch(self, cuda_event: Any, event: Event, then=None) -> None:
        self._queue.put((cuda_event, event, then))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            cuda_event, event, then = item
            error = None
            try:
                cuda_event.synchronize()
                if then is not None:
                    then()
            except Exception as exc:  # a device fault surfaces here
                error = base.ErrorInfo(f"{type(exc).__name__}: {exc}")
            event.complete(error)


class GpuStream(Stream):
    """A CUDA stream: launches run their cupy calls inside the stream context."""

    def __init__(self, device: "GpuDevice", name: str):
        super().__init__(device, name)
        cp = device.xp
        with cp.cuda.Device(device.index):
            self.cuda_stream = cp.cuda.Stream(non_blocking=True)

    def launch(self, fn, *args) -> Event:
        return self.launch_then(fn, args, None)

    def launch_then(self, fn, args, then) -> Event:
        """Launch ``fn(*args)``; run ``then()`` on the completion thread once the GPU is done."""
        device: GpuDevice = self.device
        cp = device.xp
        try:
            with cp.cuda.Device(device.index), self.cuda_stream:
                fn(*args)
        except Exception as exc:
            return Event.completed(base._error_of(exc))
        ev = Event(self)
        try:
            with cp.cuda.Device(device.index):
                # block=True: the completion thread sleeps until the GPU is done.
                cuda_event = cp.cuda.Event(block=True, disable_timing=True)
                cuda_event.record(self.cuda_stream)
        except Exception as exc:
            return Event.completed(base._error_of(exc))
        device._completer.watch(cuda_event, ev, then)
        return ev

    def wait_event(self, event: Event) -> None:
        if event.done:
            return
        source = event.source
        if isinstance(source, GpuStream):
            cp = self.device.xp
            # The marker belongs to the source stream's device (a stream may
            # wait on another device's event).
            with cp.cuda.Device(source.device.index):
                marker = cp.cuda.Event(disable_timing=True)
                marker.record(source.cuda_stream)
            with cp.cuda.Device(self.device.index):
                self.cuda_stream.wait_event(marker)
            return
        event.wait()  # a foreign event: nothing to order on the GPU by


class _BlockOwner:
    """Keeps a cached block alive while cupy arrays use it; returns it afterwards."""

    __slots__ = ("_allocator", "_block")

    def __init__(self, allocator: CachingAllocator, block: Block):
        self._allocator = allocator
        self._block = block

    def __del__(self):
        block, self._block = self._block, None
        if block is not None:
            self._allocator.release(block)


class GpuDevice(ArrayDevice):
    """An NVIDIA GPU through cupy (see the module docstring)."""

    kind = "gpu"
    snapshot_uploads = False
    capabilities = frozenset(
        {base.CAP_COMPUTE, base.CAP_ASYNC, base.CAP_F64, base.CAP_F16, base.CAP_COMPLEX, base.CAP_INT}
    )

    @classmethod
    def is_available(cls) -> bool:
        try:
            load_cupy()
        except DeviceError:
            return False
        return True

    def __init__(self, index: int = 0, *, limit_bytes: int | None = None, cupy_module: Any = None):
        # ``cupy_module`` lets tests drive this class with a stand-in for cupy.
        cp = cupy_module if cupy_module is not None else load_cupy()
        if index >= cp.cuda.runtime.getDeviceCount():
            raise DeviceError(f"gpu:{index} does not exist")
        self.xp = cp
        super().__init__(index)
        self._allocator = CachingAllocator(
            self.name, self._raw_alloc, self._raw_free, limit_bytes=limit_bytes
        )
        self._completer = _Completer(self.name)
        self._stream = GpuStream(self, "default")

    # -- memory ------------------------------------------------------------
    def _raw_alloc(self, size: int) -> Any:
        try:
            return self._cuda_malloc(size)
        except MemoryError:
            pass
        # The blocks cupy's own pool caches (the temporaries of the cupy calls
        # in ops) are device memory too: free those, then try once more.
        cp = self.xp
        with cp.cuda.Device(self.index):
            cp.get_default_memory_pool().free_all_blocks()
        return self._cuda_malloc(size)

    def _cuda_malloc(self, size: int) -> Any:
        cp = self.xp
        oom = (cp.cuda.memory.OutOfMemoryError,)
        runtime_error = getattr(cp.cuda.runtime, "CUDARuntimeError", None)
        try:
            with cp.cuda.Device(self.index):
                return cp.cuda.Memory(size)
        except oom as exc:
            raise MemoryError(str(exc)) from None
        except Exception as exc:
            # A bare cudaMalloc failure is a CUDARuntimeError, not cupy's pool OOM.
            if runtime_error is not None and isinstance(exc, runtime_error) and "Memory" in str(exc):
                raise MemoryError(str(exc)) from None
            raise

    @staticmethod
    def _raw_free(memory: Any) -> None:
        # cupy's Memory calls cudaFree when its last reference goes; the
        # allocator has just dropped its own.
        del memory

    @property
    def allocator(self) -> CachingAllocator:
        return self._allocator

    @property
    def default_stream(self) -> Stream:
        return self._stream

    def create_stream(self, name: str | None = None) -> Stream:
        return GpuStream(self, name or "stream")

    def new_array(self, npdtype, shape, stream) -> Any:
        cp = self.xp
        if npdtype.kind == "V":  # ml_dtypes (bf16): cupy has no such dtype
            raise DeviceError(f"{self.name} does not support dtype {npdtype.name}")
        nbytes = int(np.prod(shape, dtype=np.int64)) * npdtype.itemsize
        block = self._allocator.allocate(nbytes, stream=stream)
        owner = _BlockOwner(self._allocator, block)
        mem = cp.cuda.UnownedMemory(block.storage.ptr, block.size, owner, self.index)
        return cp.ndarray(tuple(shape), dtype=npdtype, memptr=cp.cuda.MemoryPointer(mem, 0))

    def upload(self, host: np.ndarray, dst: Any) -> None:
        if host.nbytes:
            dst.data.copy_from_host_async(ctypes.c_void_p(host.ctypes.data), host.nbytes)

    def download(self, src: Any, host: np.ndarray) -> None:
        if host.nbytes:
            src.data.copy_to_host_async(ctypes.c_void_p(host.ctypes.data), host.nbytes)

    def copy_to_host(self, tensor, stream: Stream | None = None) -> AsyncValue:
        if not self.owns(tensor):
            raise DeviceError(
                f"copy_to_host: tensor is on {getattr(tensor, 'device_name', '?')}, not {self.name}"
            )
        stream = stream or self.default_stream
        cp = self.xp
        out = DenseHostTensor.create_uninitialized(tensor.dtype, tensor.shape)
        nbytes = out.array.nbytes
        staging = cp.cuda.alloc_pinned_memory(max(nbytes, 1))
        staged = np.frombuffer(staging, np.uint8, nbytes)

        def launch() -> None:
            _check_events([tensor.ready])
            if tensor.ready is not None and not tensor.ready.done:
                stream.wait_event(tensor.ready)
            if nbytes:
                src = cp.ascontiguousarray(tensor.array)
                src.data.copy_to_host_async(ctypes.c_void_p(staged.ctypes.data), nbytes)

        def finish() -> None:
            if nbytes:
                out.array.reshape(-1).view(np.uint8)[...] = staged

        ev = stream.launch_then(launch, (), finish)
        return ev.to_async_value(out)
