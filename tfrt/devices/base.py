"""The device runtime interface: devices, streams, events, device tensors.

A *device* has a name (``cpu:0``, ``gpu:0``), a caching allocator, streams and
a table of tensor ops.  Work is *launched* on a stream and runs in the order
it was launched; completion is signalled by an :class:`Event`, and
``event.to_async_value(...)`` turns an event into an ``AsyncValue`` that
resolves when the work is done, so the host thread never waits for a device::

    dev = get_device("gpu")
    x = dev.copy_to_device(host_tensor)          # queued on the device's stream
    y = dev.ops.relu(dev.ops.matmul(x, x))       # queued; returns at once
    av = dev.copy_to_host(y)                     # AsyncValue[DenseHostTensor]
    av.and_then(lambda: print(av.get()))

Streams come in two flavours here: :class:`InlineStream` runs work on the
launching thread at once (the ``cpu`` device: numpy already releases the GIL,
and the executor decides which thread a kernel runs on), and
:class:`ThreadStream` runs work in launch order on a worker thread (what a
CUDA stream does; ``CpuDevice(async_streams=True)`` uses it so the asynchronous
paths are tested on machines without a GPU).

Every device declares ``capabilities`` (strings such as ``"compute"``,
``"f64"``, ``"bf16"``, ``"async"``); the shared device test-suite skips what a
device does not declare, as tinygrad's and IREE's suites do.
"""

from __future__ import annotations

import abc
import queue
import threading
from typing import Any, Callable, Sequence

from tfrt.async_value import AsyncValue, ErrorInfo
from tfrt.devices.errors import DeviceError  # noqa: F401 - device modules import it from here
from tfrt.devices.ops import OpTable, run_op

# Capability names a device may declare.
CAP_COMPUTE = "compute"  # ops produce real values (the null device does not)
CAP_ASYNC = "async"  # launches return before the work is done
CAP_F64 = "f64"
CAP_F16 = "f16"
CAP_BF16 = "bf16"
CAP_COMPLEX = "complex"
CAP_INT = "int"  # integer element types in compute ops


class Event:
    """Completion of the work launched on a stream before the event was recorded.

    ``add_callback(cb)`` runs ``cb(error)`` (error: an ErrorInfo or None) once
    the event completes: at once, on the caller's thread, if it already has;
    otherwise on the thread that completes it.
    """

    __slots__ = ("_done", "_error", "_callbacks", "_cond", "source")

    def __init__(self, source: "Stream | None" = None) -> None:
        self.source = source  # the stream that completes it (None: born done)
        self._done = False
        self._error: ErrorInfo | None = None
        self._callbacks: list[Callable[[ErrorInfo | None], Any]] = []
        self._cond = threading.Condition(threading.Lock())

    @classmethod
    def completed(cls, error: ErrorInfo | None = None) -> "Event":
        ev = cls()
        ev._done = True
        ev._error = error
        return ev

    @property
    def done(self) -> bool:
        return self._done

    @property
    def error(self) -> ErrorInfo | None:
        return self._error

    def complete(self, error: ErrorInfo | None = None) -> None:
        """Mark the event done (the stream calls this) and run the callbacks in order."""
        with self._cond:
            if self._done:
                raise RuntimeError("an Event completes only once")
            self._done = True
            self._error = error
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for cb in callbacks:
            cb(error)

    def add_callback(self, callback: Callable[[ErrorInfo | None], Any]) -> None:
        with self._cond:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self._error)

    def wait(self, timeout: float | None = None) -> bool:
        """Block the caller until done (tests and ``synchronize`` only)."""
        with self._cond:
            if not self._done:
                self._cond.wait_for(lambda: self._done, timeout)
            return self._done

    def to_async_value(self, value: Any = None) -> AsyncValue:
        """An AsyncValue that becomes ``value`` (or ``value()`` if callable) when done.

        An event that failed resolves the AsyncValue to its error instead.
        """
        if self._done and self._error is None and not callable(value):
            return AsyncValue.make_available(value)
        av = AsyncValue()

        def resolve(error: ErrorInfo | None) -> None:
            if error is not None:
                av.set_error(error)
                return
            if not callable(value):
                av.set_value(value)
                return
            try:
                result = value()
            except Exception as exc:  # the payload could not be produced
                av.set_error(f"{type(exc).__name__}: {exc}")
                return
            av.set_value(result)

        self.add_callback(resolve)
        return av


def _error_of(exc: BaseException) -> ErrorInfo:
    msg = str(exc) if isinstance(exc, DeviceError) else f"{type(exc).__name__}: {exc}"
    return ErrorInfo(msg)


class Stream(abc.ABC):
    """An ordered queue of device work."""

    def __init__(self, device: "Device", name: str):
        self.device = device
        self.name = name

    @abc.abstractmethod
    def launch(self, fn: Callable[..., Any], *args: Any) -> Event:
        """Queue ``fn(*args)``; the event completes when it has run (with its error if it raised)."""

    def record_event(self) -> Event:
        """An event that completes when everything launched so far has run."""
        return self.launch(_noop)

    def wait_event(self, event: Event) -> None:
        """Make later work on this stream wait for ``event`` (cross-stream ordering)."""
        if event.done:
            return
        self.launch(event.wait)

    def synchronize(self) -> None:
        """Block until the stream is idle (tests, benchmarks and shutdown only)."""
        self.record_event().wait()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.device.name}/{self.name}>"


def _noop() -> None:
    return None


class InlineStream(Stream):
    """Runs each launch immediately on the launching thread; events are born done."""

    def launch(self, fn: Callable[..., Any], *args: Any) -> Event:
        try:
            fn(*args)
        except Exception as exc:
            return Event.completed(_error_of(exc))
        return Event.completed()

    def wait_event(self, event: Event) -> None:
        event.wait()

    def synchronize(self) -> None:
        return None


class ThreadStream(Stream):
    """Runs launches in order on one daemon worker thread (a CUDA stream's model)."""

    def __init__(self, device: "Device", name: str):
        super().__init__(device, name)
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(
            target=self._run, name=f"tfrt-stream-{device.name}-{name}", daemon=True
        )
        self._thread.start()

    def launch(self, fn: Callable[..., Any], *args: Any) -> Event:
        ev = Event(self)
        self._queue.put((fn, args, ev))
        return ev

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, args, ev = item
            try:
                fn(*args)
            except Exception as exc:
                ev.complete(_error_of(exc))
                continue
            ev.complete()

    def close(self) -> None:
        self._queue.put(None)


class DeviceTensor:
    """A dense tensor in a (non-host) device's memory.

    ``array`` is the backend's array (a cupy array on ``gpu``; None on the
    ``null`` device, whose tensors are metadata only).  ``ready`` is the event
    after which the data is valid; work on the same stream may use the tensor
    before that (stream order), other streams must ``wait_event`` on it.
    """

    __slots__ = ("metadata", "device", "array", "ready", "__weakref__")

    def __init__(self, metadata, device: "Device", array: Any = None, ready: Event | None = None):
        self.metadata = metadata
        self.device = device
        self.array = array
        self.ready = ready

    @property
    def dtype(self):
        return self.metadata.dtype

    @property
    def shape(self):
        return self.metadata.shape

    @property
    def device_name(self) -> str:
        return self.device.name

    @property
    def num_elements(self) -> int:
        return self.metadata.shape.num_elements()

    def print_text(self) -> str:
        return (
            f"DeviceTensor device = {self.device.name}, dtype = {self.dtype.short_name}, "
            f"shape = {self.shape}"
        )

    def __str__(self) -> str:
        return self.print_text()

    def __repr__(self) -> str:
        return f"<{self.print_text()}>"


class Device(abc.ABC):
    """Base of every device.  Subclasses set ``kind`` and ``capabilities`` and
    implement the abstract methods (see cpu.py for the reference device)."""

    kind = "abstract"
    capabilities: frozenset[str] = frozenset()

    def __init__(self, index: int = 0):
        self.index = index
        self.name = f"{self.kind}:{index}"
        self.ops = OpTable(self)

    @classmethod
    def is_available(cls) -> bool:
        """Whether this kind of device can be created on this machine."""
        return True

    def has(self, *caps: str) -> bool:
        return all(c in self.capabilities for c in caps)

    # -- memory ------------------------------------------------------------
    @property
    @abc.abstractmethod
    def allocator(self):
        """The device's CachingAllocator."""

    def memory_stats(self):
        return self.allocator.stats()

    def allocate(self, nbytes: int, stream: "Stream | None" = None):
        """A raw block of device memory (tensors get theirs through ``empty``/ops)."""
        return self.allocator.allocate(nbytes, stream or self.default_stream)

    def free(self, block) -> None:
        """Give a block from ``allocate`` back (to the cache, reusable on its stream)."""
        self.allocator.release(block)

    # -- streams -----------------------------------------------------------
    @property
    @abc.abstractmethod
    def default_stream(self) -> Stream:
        """The stream ops run on unless told otherwise."""

    @abc.abstractmethod
    def create_stream(self, name: str | None = None) -> Stream:
        """A new stream, ordered independently of the others."""

    def synchronize(self) -> None:
        """Block until all work launched on this device is done (tests only)."""
        self.default_stream.synchronize()

    # -- tensors -----------------------------------------------------------
    @abc.abstractmethod
    def empty(self, dtype, shape, stream: Stream | None = None):
        """An uninitialised tensor on this device."""

    @abc.abstractmethod
    def copy_to_device(self, tensor, stream: Stream | None = None):
        """A device copy of a host tensor (or numpy array); the copy is queued."""

    @abc.abstractmethod
    def copy_to_host(self, tensor, stream: Stream | None = None) -> AsyncValue:
        """An AsyncValue[DenseHostTensor] that resolves when the copy is done."""

    @abc.abstractmethod
    def execute(self, spec, inputs: list[Any], out_metas: list[Any], attrs: dict[str, Any]) -> list[Any]:
        """Run a validated op (``spec``: tfrt.devices.ops.OpSpec) whose result
        metadata is ``out_metas``; return the result tensors."""

    def owns(self, tensor) -> bool:
        """Whether ``tensor`` lives on this device."""
        return isinstance(tensor, DeviceTensor) and tensor.device is self

    # -- ops ---------------------------------------------------------------
    def run_op(self, name: str, inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Any]:
        """Run op ``name`` (see tfrt.devices.ops) on this device; returns its results."""
        return run_op(self, name, list(inputs), attrs)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
