"""The ``gpu`` device.  With CUDA: a smoke test on the real GPU (skipped without
cupy/CUDA).  Everywhere: the GPU code paths driven by ``fake_cupy``."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from tfrt.allocator import OutOfMemoryError
from tfrt.devices.gpu import GpuDevice, GpuStream

from . import fake_cupy
from .helpers import fetch


@pytest.fixture
def fake_gpu():
    return GpuDevice(0, cupy_module=fake_cupy.make_module())


@pytest.mark.skipif(not GpuDevice.is_available(), reason="needs cupy and a CUDA device")
def test_real_gpu_matmul_relu_round_trip():
    dev = GpuDevice(0)
    a = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    t = dev.copy_to_device(a)
    out = dev.ops.relu(dev.ops.matmul(t, t, transpose_b=True))
    np.testing.assert_allclose(fetch(dev, out), np.maximum(a @ a.T, 0), rtol=1e-3, atol=1e-3)


def test_results_come_from_the_caching_allocator(fake_gpu):
    t = fake_gpu.copy_to_device(np.ones((64, 64), np.float32))
    out = fake_gpu.ops.add(t, t)
    stats = fake_gpu.memory_stats()
    assert stats.bytes_in_use == 2 * 64 * 64 * 4
    del t, out
    gc.collect()
    assert fake_gpu.memory_stats().bytes_in_use == 0
    again = fake_gpu.copy_to_device(np.ones((64, 64), np.float32))
    assert fake_gpu.memory_stats().num_cache_hits >= 1
    del again


def test_device_out_of_memory_is_reported():
    dev = GpuDevice(0, cupy_module=fake_cupy.make_module(memory_limit=1 << 20))
    keep = dev.copy_to_device(np.zeros((512, 512), np.float32))  # exactly 1 MiB
    with pytest.raises(OutOfMemoryError, match="cannot allocate"):
        dev.copy_to_device(np.zeros(10, np.float32))
    del keep


def test_device_index_is_checked():
    with pytest.raises(Exception, match="gpu:3 does not exist"):
        GpuDevice(3, cupy_module=fake_cupy.make_module(device_count=1))


def test_cross_stream_wait_records_a_marker(fake_gpu):
    s1, s2 = fake_gpu.create_stream("a"), fake_gpu.create_stream("b")
    assert isinstance(s1, GpuStream)
    ev = s1.launch(lambda: None)
    ev.wait(5)  # the fake completes quickly; force the "not done" path below
    pending = type(ev)(s1)
    s2.wait_event(pending)
    assert len(s2.cuda_stream.waited) == 1


def test_launch_errors_become_event_errors(fake_gpu):
    def boom():
        raise RuntimeError("launch failed")

    ev = fake_gpu.default_stream.launch(boom)
    assert ev.done and "RuntimeError: launch failed" in ev.error.message


def test_download_uses_staging_and_resolves_on_the_completion_thread(fake_gpu):
    src = np.arange(10, dtype=np.int64)
    t = fake_gpu.copy_to_device(src)
    np.testing.assert_array_equal(fetch(fake_gpu, t), src)
    empty = fake_gpu.copy_to_device(np.zeros((0, 3), np.float32))
    assert fetch(fake_gpu, empty).shape == (0, 3)


def test_bf16_is_refused_clearly(fake_gpu):
    import ml_dtypes

    from tfrt.devices.base import DeviceError

    assert "bf16" not in fake_gpu.capabilities
    with pytest.raises(DeviceError, match="does not support dtype bfloat16"):
        fake_gpu.copy_to_device(np.zeros(2, ml_dtypes.bfloat16))
