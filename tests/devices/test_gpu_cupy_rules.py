"""The ``gpu`` device against the rules of CUDA and CuPy that ``fake_cupy`` checks:
events belong to the device current when they are made, the completion
thread sleeps on blocking events, and an allocation that fails frees cupy's
own pool before giving up."""

from __future__ import annotations

import numpy as np
import pytest

from tfrt.devices.gpu import GpuDevice

from . import fake_cupy
from .helpers import fetch


def test_work_on_a_second_gpu_records_its_events_there():
    """cudaEventRecord fails for an event of another device than the
    stream's: gpu:1's events are made inside gpu:1's context."""
    dev = GpuDevice(1, cupy_module=fake_cupy.make_module(device_count=2))
    t = dev.copy_to_device(np.arange(6, dtype=np.float32))
    out = dev.ops.add(t, t)
    np.testing.assert_array_equal(fetch(dev, out), 2 * np.arange(6, dtype=np.float32))


def test_a_stream_waits_on_another_gpus_work():
    """The marker a stream waits on is an event of the device whose stream
    recorded it."""
    cp = fake_cupy.make_module(device_count=2)
    gpu0, gpu1 = GpuDevice(0, cupy_module=cp), GpuDevice(1, cupy_module=cp)
    ev = gpu1.default_stream.launch(lambda: None)
    ev.wait(5)
    pending = type(ev)(gpu1.default_stream)  # an event not yet done, from gpu:1's stream
    gpu0.default_stream.wait_event(pending)
    (marker,) = gpu0.default_stream.cuda_stream.waited
    assert marker.device_id == 1 and marker.recorded


def test_the_completion_thread_waits_on_blocking_events():
    """An event made without ``block=True`` makes cudaEventSynchronize spin a
    CPU core until the GPU is done."""
    cp = fake_cupy.make_module()
    dev = GpuDevice(0, cupy_module=cp)
    t = dev.copy_to_device(np.ones(4, np.float32))
    fetch(dev, dev.ops.add(t, t))
    assert cp.synchronized and all(e.block for e in cp.synchronized)


def test_out_of_memory_frees_cupys_pool_before_failing():
    """The cupy calls in ops allocate from cupy's default pool, which keeps
    freed blocks: when cudaMalloc fails, those are given back first."""
    cp = fake_cupy.make_module(memory_limit=1 << 20)
    pool = cp.get_default_memory_pool()
    pool.cached = 768 << 10  # what earlier ops' temporaries left there
    dev = GpuDevice(0, cupy_module=cp)
    t = dev.copy_to_device(np.zeros(128 << 10, np.float32))  # 512 KiB
    assert pool.cached == 0
    np.testing.assert_array_equal(fetch(dev, t), np.zeros(128 << 10, np.float32))
    from tfrt.allocator import OutOfMemoryError

    with pytest.raises(OutOfMemoryError):
        dev.copy_to_device(np.zeros(256 << 10, np.float32))  # 1 MiB more: too much still
