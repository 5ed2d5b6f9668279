"""Devices whose memory is arrays of a numpy-compatible module and whose work runs on streams.

``ArrayDevice`` is the shared body of the asynchronous devices (``cpu_async``
here, ``gpu`` with cupy).  A subclass says how to allocate an array from its
caching allocator and how to move bytes between host and device; everything
else (ops, error propagation, ready events, host copies that resolve an
AsyncValue) is here, so every asynchronous device behaves the same way:

* an op allocates its outputs, launches the computation on the stream and
  returns ``DeviceTensor``s at once; their ``ready`` event completes when the
  stream has run the work;
* an input whose work failed makes the op fail the same way (the error travels
  through the ``ready`` events, as errors travel through AsyncValues);
* ``copy_to_host`` returns an ``AsyncValue[DenseHostTensor]`` resolved by the
  copy's event.
"""

from __future__ import annotations

import abc
from typing import Any

import numpy as np

from tfrt.async_value import AsyncValue
from tfrt.devices.array_ops import IMPLS, VIEWS
from tfrt.devices.base import Device, DeviceError, DeviceTensor, Event, Stream
from tfrt.tensor.dtype import as_dtype, dtype_from_numpy
from tfrt.tensor.host_tensor import DenseHostTensor, TensorMetadata
from tfrt.tensor.shape import as_shape


class ArrayDevice(Device):
    """A stream device over array module ``xp`` (see the module docstring)."""

    xp: Any = np
    # Whether a queued upload must copy the host data first: True when the
    # stream runs the copy later (a worker thread); a GPU stream reads pageable
    # host memory during the launch itself, so it needs no snapshot.
    snapshot_uploads = True

    # -- what a subclass provides ---------------------------------------

    @abc.abstractmethod
    def new_array(self, npdtype: np.dtype, shape: tuple[int, ...], stream: Stream) -> Any:
        """An uninitialised array from the caching allocator, tagged with ``stream``."""

    @abc.abstractmethod
    def upload(self, host: np.ndarray, dst: Any) -> None:
        """Copy ``host`` into device array ``dst`` (called on the stream)."""

    @abc.abstractmethod
    def download(self, src: Any, host: np.ndarray) -> None:
        """Copy device array ``src`` into ``host`` (called on the stream; must finish
        before the stream's next event completes)."""

    def stream_array(self, array: Any) -> Any:
        """What queued work holds of an array (see cpu.AsyncCpuDevice)."""
        return array

    # -- tensors -----------------------------------------------------------

    def empty(self, dtype, shape, stream: Stream | None = None) -> DeviceTensor:
        meta = TensorMetadata(as_dtype(dtype), as_shape(shape))
        stream = stream or self.default_stream
        arr = self.new_array(meta.dtype.np_dtype, meta.shape.dims, stream)
        return DeviceTensor(meta, self, arr, Event.completed())

    def copy_to_device(self, tensor, stream: Stream | None = None) -> DeviceTensor:
        if isinstance(tensor, DenseHostTensor):
            host = tensor.array
            meta = tensor.metadata
        else:
            host = np.asarray(tensor)
            meta = TensorMetadata(dtype_from_numpy(host.dtype), as_shape(host.shape))
        stream = stream or self.default_stream
        dst = self.new_array(meta.dtype.np_dtype, meta.shape.dims, stream)
        # The caller may change its host data right after this returns; a
        # queued copy must not see that (TFRT holds a reference to an
        # immutable host buffer instead).
        src = np.array(host, order="C", copy=True) if self.snapshot_uploads else np.ascontiguousarray(host)
        ev = stream.launch(self.upload, src, self.stream_array(dst))
        return DeviceTensor(meta, self, dst, ev)

    def copy_to_host(self, tensor, stream: Stream | None = None) -> AsyncValue:
        if not self.owns(tensor):
            raise DeviceError(
                f"copy_to_host: tensor is on {getattr(tensor, 'device_name', '?')}, not {self.name}"
            )
        stream = stream or self.default_stream
        out = DenseHostTensor.create_uninitialized(tensor.dtype, tensor.shape)
        events = [tensor.ready]
        src = self.stream_array(tensor.array)

        def run() -> None:
            _check_events(events)
            self.download(src, out.array)

        ev = stream.launch(run)
        return ev.to_async_value(out)

    # -- ops ---------------------------------------------------------------

    def execute(self, spec, inputs, out_metas, attrs) -> list[DeviceTensor]:
        _check_events([t.ready for t in inputs])
        stream = self.default_stream
        for t in inputs:
            ev = t.ready
            if ev is not None and not ev.done and ev.source is not stream:
                stream.wait_event(ev)
        view = VIEWS.get(spec.name)
        if view is not None:
            arr = view(self.xp, inputs[0].array, attrs)
            return [DeviceTensor(out_metas[0], self, arr, inputs[0].ready)]
        outs = [self.new_array(m.dtype.np_dtype, m.shape.dims, stream) for m in out_metas]
        impl = IMPLS[spec.name]
        # Queued work holds no tensors: results may die before it runs.
        in_arrays = [self.stream_array(t.array) for t in inputs]
        out_arrays = [self.stream_array(a) for a in outs]
        events = [t.ready for t in inputs]
        xp = self.xp

        def run() -> None:
            _check_events(events)
            # IEEE results (inf, nan) are the ops' semantics, not warnings.
            with np.errstate(all="ignore"):
                impl(xp, in_arrays, out_arrays, attrs)

        ev = stream.launch(run)
        return [DeviceTensor(m, self, a, ev) for m, a in zip(out_metas, outs)]


def _check_events(events) -> None:
    """Fail if work this work depends on has failed (its error becomes this work's).

    Events not yet done are skipped: a stream checks again when the work runs."""
    for ev in events:
        if ev is not None and ev.done and ev.error is not None:
            raise DeviceError(ev.error.message)
