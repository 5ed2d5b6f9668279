"""Helpers shared by the device tests."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tfrt.devices.base import DeviceTensor
from tfrt.tensor.host_tensor import DenseHostTensor


def requires(device, *caps: str) -> None:
    missing = [c for c in caps if c not in device.capabilities]
    if missing:
        pytest.skip(f"{device.name} lacks capabilities {missing}")


def fetch(device, tensor, timeout: float = 10.0) -> np.ndarray:
    """The tensor's values on the host, waiting (in the test only) for the copy."""
    av = device.copy_to_host(tensor)
    done = threading.Event()
    av.and_then(done.set)
    assert done.wait(timeout), "copy_to_host never completed"
    host = av.get()
    assert isinstance(host, DenseHostTensor)
    return host.array


def put(device, array):
    arr = np.asarray(array)
    t = device.copy_to_device(arr)
    assert isinstance(t, (DenseHostTensor, DeviceTensor))
    return t
