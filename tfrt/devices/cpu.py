"""The ``cpu`` device (numpy) and ``cpu_async``, a CPU that behaves like an accelerator.

``cpu`` is the host: its tensors are ``DenseHostTensor``s, its memory is the
host caching allocator, and ops run at once on the calling thread (an
``InlineStream``).  numpy releases the GIL inside large operations, so the
executor gets parallelism by running independent kernels on its worker
threads; a second hand-off to a device thread would only add latency.

``cpu_async`` computes with numpy too, but like a GPU: tensors are
``DeviceTensor``s in its own memory pool, and every op and copy is queued on a
``ThreadStream`` and completes through events.  It exists so the asynchronous
device paths (ready events, AsyncValues resolved by device completion,
stream-tagged cache reuse, error propagation) run in every test run, on
machines without a GPU.
"""

from __future__ import annotations

import numpy as np

from tfrt.async_value import AsyncValue
from tfrt.devices import base
from tfrt.allocator import CachingAllocator
from tfrt.devices.array_device import ArrayDevice
from tfrt.devices.array_ops import IMPLS, VIEWS
from tfrt.devices.base import Device, DeviceError, InlineStream, Stream, ThreadStream
from tfrt.tensor.host_buffer import HostBuffer, default_host_allocator, detached_view
from tfrt.tensor.host_tensor import DenseHostTensor

_CPU_CAPS = frozenset(
    {base.CAP_COMPUTE, base.CAP_F64, base.CAP_F16, base.CAP_BF16, base.CAP_COMPLEX, base.CAP_INT}
)


class CpuDevice(Device):
    """The host as a device: DenseHostTensors, inline execution, the host allocator."""

    kind = "cpu"
    capabilities = _CPU_CAPS

    def __init__(self, index: int = 0):
        super().__init__(index)
        self._stream = InlineStream(self, "inline")

    @property
    def allocator(self) -> CachingAllocator:
        return default_host_allocator()

    @property
    def default_stream(self) -> Stream:
        return self._stream

    def create_stream(self, name: str | None = None) -> Stream:
        return InlineStream(self, name or "inline")

    def allocate(self, nbytes: int, stream: Stream | None = None):
        # Inline execution makes stream tags moot; share one pool with host tensors.
        return self.allocator.allocate(nbytes, None)

    def owns(self, tensor) -> bool:
        return isinstance(tensor, DenseHostTensor)

    def empty(self, dtype, shape, stream: Stream | None = None) -> DenseHostTensor:
        return DenseHostTensor.create_uninitialized(dtype, shape)

    def copy_to_device(self, tensor, stream: Stream | None = None) -> DenseHostTensor:
        if isinstance(tensor, DenseHostTensor):
            return tensor.copy()
        return DenseHostTensor.from_array(np.asarray(tensor), copy=True)

    def copy_to_host(self, tensor, stream: Stream | None = None) -> AsyncValue:
        if not isinstance(tensor, DenseHostTensor):
            raise DeviceError(f"copy_to_host: {type(tensor).__name__} is not a cpu tensor")
        return AsyncValue.make_available(tensor.copy())

    def execute(self, spec, inputs, out_metas, attrs) -> list[DenseHostTensor]:
        view = VIEWS.get(spec.name)
        if view is not None and inputs[0].array.flags.c_contiguous:
            arr = view(np, inputs[0].array, attrs)
            return [DenseHostTensor(out_metas[0], arr)]
        outs = [DenseHostTensor.from_metadata(m) for m in out_metas]
        # IEEE results (inf, nan) are the ops' semantics, not warnings.
        with np.errstate(all="ignore"):
            IMPLS[spec.name](np, [t.array for t in inputs], [o.array for o in outs], attrs)
        return outs


class AsyncCpuDevice(ArrayDevice):
    """numpy behind a worker-thread stream: an accelerator model for tests."""

    kind = "cpu_async"
    capabilities = _CPU_CAPS | {base.CAP_ASYNC}
    xp = np

    def __init__(self, index: int = 0, *, limit_bytes: int | None = None):
        super().__init__(index)
        self._allocator = CachingAllocator(self.name, _raw_alloc, limit_bytes=limit_bytes)
        self._stream = ThreadStream(self, "default")

    @property
    def allocator(self) -> CachingAllocator:
        return self._allocator

    @property
    def default_stream(self) -> Stream:
        return self._stream

    def create_stream(self, name: str | None = None) -> Stream:
        return ThreadStream(self, name or "stream")

    def new_array(self, npdtype, shape, stream) -> np.ndarray:
        nbytes = int(np.prod(shape, dtype=np.int64)) * npdtype.itemsize
        return HostBuffer(nbytes, self._allocator).view(npdtype, tuple(shape))

    def stream_array(self, array: np.ndarray) -> np.ndarray:
        # Queued numpy work uses raw views, as CUDA kernels use raw pointers, so
        # a block is reusable as soon as its tensor dies (stream order makes it safe).
        return detached_view(array)

    def upload(self, host: np.ndarray, dst: np.ndarray) -> None:
        np.copyto(dst, host)

    def download(self, src: np.ndarray, host: np.ndarray) -> None:
        np.copyto(host, src)


def _raw_alloc(size: int) -> np.ndarray:
    return np.empty(size, dtype=np.uint8)


def host_tensor(array, dtype=None) -> DenseHostTensor:
    """A DenseHostTensor copy of ``array`` (convenience for eager code and tests)."""
    return DenseHostTensor.from_array(array, dtype, copy=True)


__all__ = ["AsyncCpuDevice", "CpuDevice", "host_tensor"]
