"""Fixtures for the device suite: one parameter per device kind.

Every test that takes ``device`` runs on ``cpu``, ``cpu_async``, ``null`` and
``gpu``; a device that cannot be created here (``gpu`` without cupy/CUDA) is
skipped with the reason, and ``requires(...)`` skips devices that do not
declare a capability (the ``null`` device computes nothing).  ``gpu_fake`` is
the real ``gpu`` device class driven by ``fake_cupy`` (host memory, synchronous
"kernels"), so the GPU code paths run everywhere.
"""

from __future__ import annotations

import pytest

from tfrt.devices import DeviceRegistry

DEVICE_KINDS = ("cpu", "cpu_async", "null", "gpu", "gpu_fake")

_registry = DeviceRegistry(entry_points=False)
_fake_gpu = []


def _gpu_fake():
    if not _fake_gpu:
        from tfrt.devices.gpu import GpuDevice

        from . import fake_cupy

        _fake_gpu.append(GpuDevice(0, cupy_module=fake_cupy.make_module()))
    return _fake_gpu[0]


@pytest.fixture(params=DEVICE_KINDS)
def device(request):
    kind = request.param
    if kind == "gpu_fake":
        return _gpu_fake()
    if not _registry.is_available(kind):
        pytest.skip(f"device kind '{kind}' is not available here (no cupy/CUDA for gpu)")
    return _registry.get(kind)
