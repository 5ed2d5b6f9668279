"""Events, streams and the asynchronous device paths (``cpu_async``)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from tfrt.async_value import ErrorInfo
from tfrt.devices import DeviceRegistry
from tfrt.devices.base import DeviceError, DeviceTensor, Event, InlineStream, ThreadStream
from tfrt.devices.cpu import AsyncCpuDevice

from .helpers import fetch


def wait(av, timeout=10.0):
    done = threading.Event()
    av.and_then(done.set)
    assert done.wait(timeout)
    return av


def test_event_callbacks_run_once_in_order():
    ev = Event()
    seen = []
    ev.add_callback(lambda e: seen.append(("a", e)))
    ev.add_callback(lambda e: seen.append(("b", e)))
    assert not ev.done
    ev.complete()
    assert seen == [("a", None), ("b", None)]
    ev.add_callback(lambda e: seen.append(("late", e)))  # already done: runs now
    assert seen[-1] == ("late", None)
    with pytest.raises(RuntimeError, match="only once"):
        ev.complete()


def test_event_to_async_value():
    ev = Event()
    av = ev.to_async_value(lambda: 42)
    assert not av.available
    ev.complete()
    assert av.get() == 42
    failed = Event()
    av2 = failed.to_async_value("x")
    failed.complete(ErrorInfo("device fault"))
    assert av2.is_error and av2.error.message == "device fault"
    assert Event.completed().to_async_value(7).get() == 7


def test_event_to_async_value_payload_failure():
    ev = Event.completed()

    def boom():
        raise ValueError("no payload")

    av = ev.to_async_value(boom)
    assert av.is_error and "ValueError: no payload" in av.error.message


def test_inline_stream_runs_at_once_and_captures_errors():
    dev = DeviceRegistry(entry_points=False).get("cpu")
    s = InlineStream(dev, "t")
    out = []
    ev = s.launch(out.append, 1)
    assert ev.done and out == [1]

    def fail():
        raise DeviceError("bad launch")

    ev = s.launch(fail)
    assert ev.done and ev.error.message == "bad launch"


def test_thread_stream_runs_in_launch_order_off_the_caller():
    dev = AsyncCpuDevice(7)
    s = ThreadStream(dev, "t")
    order = []
    gate = threading.Event()
    s.launch(gate.wait)
    events = [s.launch(order.append, i) for i in range(5)]
    assert not events[-1].done  # the stream is blocked; the caller is not
    gate.set()
    assert events[-1].wait(5)
    assert order == [0, 1, 2, 3, 4]
    assert all(e.done for e in events)
    s.close()


def test_wait_event_orders_two_streams():
    dev = AsyncCpuDevice(8)
    s1, s2 = dev.create_stream("a"), dev.create_stream("b")
    gate = threading.Event()
    seen = []
    first = s1.launch(lambda: (gate.wait(), seen.append("s1")))
    s2.wait_event(first)
    last = s2.launch(seen.append, "s2")
    time.sleep(0.05)
    assert seen == []
    gate.set()
    assert last.wait(5)
    assert seen == ["s1", "s2"]


def test_async_ops_return_before_the_work_is_done():
    dev = AsyncCpuDevice(9)
    gate = threading.Event()
    dev.default_stream.launch(gate.wait)  # hold the stream
    a = dev.copy_to_device(np.ones((4, 4), np.float32))
    b = dev.ops.matmul(a, a)
    assert isinstance(b, DeviceTensor) and not b.ready.done
    av = dev.copy_to_host(b)
    assert not av.available  # the host thread did not wait
    gate.set()
    wait(av)
    np.testing.assert_array_equal(av.get().array, np.full((4, 4), 4.0))


def test_errors_travel_through_ready_events():
    dev = AsyncCpuDevice(10)
    a = dev.copy_to_device(np.ones((2, 2), np.float32))
    bad = DeviceTensor(a.metadata, dev, a.array, Event.completed(ErrorInfo("upstream failure")))
    with pytest.raises(DeviceError, match="upstream failure"):
        dev.ops.relu(bad)  # known at launch: reported at once
    gate = threading.Event()
    pending = Event(dev.default_stream)
    late = DeviceTensor(a.metadata, dev, a.array, pending)
    dev.default_stream.launch(gate.wait)
    out = dev.ops.relu(late)  # not known yet: the stream checks when it runs
    pending.complete(ErrorInfo("late failure"))
    gate.set()
    av = wait(dev.copy_to_host(out))
    assert av.is_error and av.error.message == "late failure"


def test_memory_is_reused_while_work_is_queued():
    dev = AsyncCpuDevice(11)
    gate = threading.Event()
    dev.default_stream.launch(gate.wait)
    x = dev.copy_to_device(np.full((128, 128), 2.0, np.float32))
    for _ in range(10):
        x = dev.ops.mul(x, x)
    # Ten results were queued, but dead ones went back to the cache at once.
    assert dev.memory_stats().bytes_in_use <= 2 * 128 * 128 * 4 + 1024
    gate.set()
    result = fetch(dev, x)
    assert np.isinf(result).all()  # 2**1024 overflows f32: the chain really ran


def test_copy_to_host_of_a_foreign_tensor_is_an_error():
    dev = AsyncCpuDevice(12)
    with pytest.raises(DeviceError, match="not cpu_async:12"):
        dev.copy_to_host(np.zeros(3))
