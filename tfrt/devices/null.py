"""The ``null`` device: computes nothing, records everything (IREE's null driver).

Its tensors carry metadata only (``array`` is None).  Every call is appended
to ``device.calls`` as a tuple, so tests can check what a program or the
eager dispatcher asked a device to do without any arithmetic::

    ("alloc", nbytes)  ("free", nbytes)  ("op", name, [input shapes], attrs)
    ("copy_to_device", "i32 [2, 2]")  ("copy_to_host", "i32 [2, 2]")

Shapes and dtypes of op results are still exact (every op's metadata function
runs), and memory is accounted in its caching allocator as if it were real.
``copy_to_host`` returns a zero-filled host tensor of the right metadata.
"""

from __future__ import annotations

import threading

import numpy as np

from tfrt.async_value import AsyncValue
from tfrt.allocator import CachingAllocator
from tfrt.devices.base import Device, DeviceError, DeviceTensor, Event, InlineStream, Stream
from tfrt.tensor.dtype import as_dtype, dtype_from_numpy
from tfrt.tensor.host_tensor import DenseHostTensor, TensorMetadata
from tfrt.tensor.shape import as_shape


class _NullMemory:
    """A token for one block; the block returns to the cache when the token dies."""

    __slots__ = ("_device", "_block")

    def __init__(self, device: "NullDevice", nbytes: int):
        self._device = device
        self._block = device.allocator.allocate(nbytes)
        device._record(("alloc", nbytes))

    def __del__(self):
        block, self._block = self._block, None
        if block is not None:
            self._device.allocator.release(block)
            self._device._record(("free", block.nbytes))


class NullDeviceTensor(DeviceTensor):
    """A metadata-only tensor; holds its (imaginary) memory block."""

    __slots__ = ("memory",)


class NullDevice(Device):
    """A device that only records calls (see the module docstring)."""

    kind = "null"
    capabilities = frozenset()

    def __init__(self, index: int = 0):
        super().__init__(index)
        self._allocator = CachingAllocator(self.name, lambda size: object())
        self._stream = InlineStream(self, "null")
        self._lock = threading.Lock()
        self.calls: list[tuple] = []

    def _record(self, call: tuple) -> None:
        with self._lock:
            self.calls.append(call)

    def clear(self) -> None:
        with self._lock:
            self.calls.clear()

    @property
    def allocator(self) -> CachingAllocator:
        return self._allocator

    @property
    def default_stream(self) -> Stream:
        return self._stream

    def create_stream(self, name: str | None = None) -> Stream:
        return InlineStream(self, name or "null")

    def _tensor(self, meta: TensorMetadata) -> NullDeviceTensor:
        t = NullDeviceTensor(meta, self, None, Event.completed())
        t.memory = _NullMemory(self, meta.num_elements * meta.dtype.itemsize)
        return t

    def empty(self, dtype, shape, stream: Stream | None = None) -> NullDeviceTensor:
        return self._tensor(TensorMetadata(as_dtype(dtype), as_shape(shape)))

    def copy_to_device(self, tensor, stream: Stream | None = None) -> NullDeviceTensor:
        if isinstance(tensor, DenseHostTensor):
            meta = tensor.metadata
        else:
            arr = np.asarray(tensor)
            meta = TensorMetadata(dtype_from_numpy(arr.dtype), as_shape(arr.shape))
        self._record(("copy_to_device", str(meta)))
        return self._tensor(meta)

    def copy_to_host(self, tensor, stream: Stream | None = None) -> AsyncValue:
        if not self.owns(tensor):
            raise DeviceError(f"copy_to_host: tensor is not on {self.name}")
        self._record(("copy_to_host", str(tensor.metadata)))
        out = DenseHostTensor.create_uninitialized(tensor.dtype, tensor.shape)
        out.array[...] = 0
        return AsyncValue.make_available(out)

    def execute(self, spec, inputs, out_metas, attrs) -> list[NullDeviceTensor]:
        self._record(("op", spec.name, [str(t.shape) for t in inputs], dict(attrs)))
        if spec.view:
            t = NullDeviceTensor(out_metas[0], self, None, Event.completed())
            t.memory = inputs[0].memory
            return [t]
        return [self._tensor(m) for m in out_metas]
