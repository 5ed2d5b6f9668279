"""The ``gpu`` fixture of the GPU tests: the CuPy stand-in, and CuPy itself where a GPU is.

A test module takes it with ``from gpu_fixture import gpu``.

Each test that takes it runs twice: on ``tests/compiler/cupy_standin.py``
(everywhere g++ is) and on real CuPy (skipped, with the reason, without one
or without a CUDA device).  ``cupy`` is that module for the test, and the
kernels' caches of compiled element-wise functions are emptied (they are
kept per array module).
"""

from __future__ import annotations

import sys

import pytest

import cupy_standin
from tfrt.kernels import expr_cuda, tfrt_array


def real_cupy():
    """CuPy, or a skip saying why it cannot run here."""
    try:
        import cupy
    except Exception as exc:  # noqa: BLE001 - ImportError, or a CUDA library failing to load
        pytest.skip(f"cupy does not import: {exc}")
    if getattr(cupy, "IS_STANDIN", False):
        pytest.skip("cupy is the stand-in here")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - no driver
        pytest.skip(f"no CUDA device: {exc}")
    if count < 1:
        pytest.skip("no CUDA device")
    return cupy


@pytest.fixture(params=["standin", "cupy"])
def gpu(request, monkeypatch):
    if request.param == "standin":
        if not cupy_standin.HAVE_CXX:
            pytest.skip("the stand-in runs CUDA C through g++")
        mod = cupy_standin.make_module()
    else:
        mod = real_cupy()
    monkeypatch.setitem(sys.modules, "cupy", mod)
    monkeypatch.setattr(tfrt_array, "_COMPILED", {})
    monkeypatch.setattr(expr_cuda, "_KERNELS", {})
    return mod
