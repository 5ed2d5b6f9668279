"""Errors point at the user's line: at the call, or at numpy() for asynchronous work."""

from __future__ import annotations

import gc
import inspect
import threading
import warnings

import numpy as np
import pytest

import tfrt
from tfrt.devices import get_device
from tfrt.devices.ops import OpError as DeviceOpError


def _line() -> int:
    """The line after the caller's: where the call under test is."""
    return inspect.currentframe().f_back.f_lineno + 1


def test_shape_error_raises_at_the_call_with_the_users_line():
    a = tfrt.constant(np.ones((2, 3), np.float32))
    b = tfrt.constant(np.ones((4, 5), np.float32))
    with pytest.raises(tfrt.OpError) as info:
        line = _line()
        tfrt.ops.matmul(a, b)
    e = info.value
    assert e.op == "matmul" and e.lineno == line and e.filename == __file__
    assert str(e).startswith("matmul: contraction dimensions differ (3 vs 4)")
    assert str(e).endswith(f"test_errors.py:{line})")
    assert isinstance(e, DeviceOpError)


def test_operator_errors_name_the_op_and_line():
    a = tfrt.constant(np.ones(3, np.float32))
    b = tfrt.constant(np.ones(3, np.float64))
    with pytest.raises(tfrt.OpError) as info:
        line = _line()
        a + b
    assert info.value.op == "add" and info.value.lineno == line
    assert "input 1 has dtype f64, expected f32" in str(info.value)
    with pytest.raises(tfrt.OpError) as info:
        line = _line()
        a @ tfrt.constant(np.ones((4, 2), np.float32))
    assert info.value.op == "matmul" and info.value.lineno == line


def test_bad_attributes_and_shapes():
    x = tfrt.constant(np.ones((2, 3), np.float32))
    with pytest.raises(
        tfrt.OpError, match="transpose: perm \\[0\\] is not a permutation of rank 2"
    ):
        tfrt.ops.transpose(x, perm=[0])
    with pytest.raises(tfrt.OpError, match="reshape: cannot reshape"):
        x.reshape(4, 2)
    with pytest.raises(tfrt.OpError, match="unknown attribute"):
        tfrt.ops.softmax(x, alpha=0.1)
    with pytest.raises(tfrt.OpError, match="expects 5 inputs, got 1"):
        tfrt.ops.batch_norm(x)
    with pytest.raises(tfrt.OpError, match="sqrt: dtype i32 is not a floating-point type"):
        tfrt.ops.sqrt(tfrt.constant(np.ones(2, np.int32)))


def test_a_host_kernel_error_raises_at_the_call():
    x = tfrt.constant(np.array([1.0, np.nan], np.float32))
    with pytest.raises(tfrt.OpError) as info:
        line = _line()
        tfrt.ops.check_numerics(x, message="x")
    assert info.value.lineno == line
    assert "check_numerics: x: tensor had NaN values" in str(info.value)


def test_error_inside_device_work_surfaces_at_numpy_with_its_origin():
    x = tfrt.constant(np.array([1.0, -1.0], np.float32))
    with tfrt.device("cpu_async"):
        line = _line()
        bad = tfrt.ops.check_numerics(tfrt.ops.log(x), message="logx")
        later = tfrt.ops.relu(bad * 2)  # no error at the call: the work is queued
    host = later.to("cpu") + 1  # crosses to the host, still no error
    for t in (later, host, bad):
        with pytest.raises(tfrt.OpError) as info:
            t.numpy()
        e = info.value
        assert e.op == "check_numerics" and e.lineno == line and e.filename == __file__
        assert "logx: tensor had NaN values" in str(e)
    assert "error" in repr(later)


def test_error_in_queued_host_work_surfaces_at_numpy():
    dev = get_device("cpu_async")
    gate = threading.Event()
    dev.default_stream.launch(gate.wait)
    try:
        with tfrt.device("cpu_async"):
            d = tfrt.constant(np.array([np.inf], np.float32))
        pending = d.to("cpu")  # a host tensor whose value is not there yet
        line = _line()
        checked = tfrt.ops.check_numerics(pending)
        y = checked + 1
        assert y.shape == (1,) and y._v is None
    finally:
        gate.set()
    with pytest.raises(tfrt.OpError) as info:
        y.numpy()
    assert info.value.op == "check_numerics" and info.value.lineno == line
    assert "tensor had Inf values" in str(info.value)


def test_an_error_nobody_reads_is_reported():
    with tfrt.device("cpu_async"):
        t = tfrt.ops.check_numerics(tfrt.constant(np.array([np.nan], np.float32)))
    get_device("cpu_async").synchronize()
    holder = [t]
    del t
    with pytest.warns(RuntimeWarning, match="never read: check_numerics"):
        holder.clear()  # the last reference to the error


def test_an_error_that_was_read_is_not_reported_again():
    with tfrt.device("cpu_async"):
        t = tfrt.ops.check_numerics(tfrt.constant(np.array([np.nan], np.float32)))
    with pytest.raises(tfrt.OpError):
        t.numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        del t
        gc.collect()


def test_index_errors_are_index_errors():
    with pytest.raises(IndexError) as info:
        line = _line()
        tfrt.constant(np.ones(3, np.float32))[5]
    assert isinstance(info.value, tfrt.OpError) and info.value.lineno == line
