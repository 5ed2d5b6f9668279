"""@tfrt.function: tracing to MLIR, compiling to BEF, caching, saving, variables."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tfrt

RNG = np.random.default_rng(3)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def mlp(x, w1, b1, w2, b2):
    h = tfrt.ops.relu(x @ w1 + b1)
    return tfrt.ops.softmax(h @ w2 + b2)


def test_traced_function_equals_eager():
    args = [tfrt.constant(a) for a in (rand(4, 8), rand(8, 16), rand(16), rand(16, 3), rand(3))]
    compiled = tfrt.function(mlp)
    np.testing.assert_allclose(compiled(*args).numpy(), mlp(*args).numpy(), rtol=1e-5, atol=1e-6)
    cf = compiled.get_concrete_function(*args)
    assert "linalg.matmul" in cf.mlir and cf.bef[:2] == b"\x0b\xef"


def test_cache_by_shape_and_dtype():
    calls = []

    @tfrt.function
    def f(x):
        calls.append(x.shape)
        return x * 2 + 1

    a = tfrt.constant(np.ones(3, np.float32))
    for _ in range(3):
        np.testing.assert_array_equal(f(a).numpy(), [3, 3, 3])
    assert calls == [(3,)]
    f(tfrt.constant(np.ones(3, np.float32) * 5))
    assert calls == [(3,)]  # same signature, other values
    f(tfrt.constant(np.ones(4, np.float32)))
    f(tfrt.constant(np.ones(3, np.float64)))
    assert calls == [(3,), (4,), (3,)]
    assert len(f.concrete_functions) == 3
    # numpy arrays are tensors of their shape and dtype
    np.testing.assert_array_equal(f(np.zeros(3, np.float32)).numpy(), [1, 1, 1])
    assert len(calls) == 3


def test_static_arguments_and_structures():
    @tfrt.function
    def f(x, scale, mode="sum"):
        y = x * scale
        return {"total": y.sum() if mode == "sum" else y.max(), "parts": (y, x)}

    x = tfrt.constant(np.arange(4, dtype=np.float32))
    out = f(x, 2.0)
    assert out["total"].numpy() == 12.0 and out["parts"][1].shape == (4,)
    assert f(x, 3.0)["total"].numpy() == 18.0
    assert f(x, 2.0, mode="max")["total"].numpy() == 6.0
    assert len(f.concrete_functions) == 3


def test_captured_tensors_are_constants_and_functions_nest():
    w = tfrt.constant(rand(3, 3))

    @tfrt.function
    def inner(x):
        return x @ w

    @tfrt.function
    def outer(x):
        return tfrt.ops.tanh(inner(x)) + inner(x)

    x = tfrt.constant(rand(2, 3))
    expected = np.tanh(x.numpy() @ w.numpy()) + x.numpy() @ w.numpy()
    np.testing.assert_allclose(outer(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    assert "dense" in outer.get_concrete_function(x).mlir


def test_variables_are_read_at_each_call_and_assignments_apply():
    v = tfrt.Variable(np.zeros(3, np.float32), name="acc")

    @tfrt.function
    def accumulate(x):
        v.assign_add(x)
        return v * 2

    x = tfrt.constant(np.ones(3, np.float32))
    np.testing.assert_array_equal(accumulate(x).numpy(), [2, 2, 2])
    np.testing.assert_array_equal(accumulate(x).numpy(), [4, 4, 4])
    np.testing.assert_array_equal(v.numpy(), [2, 2, 2])
    v.assign(np.full(3, 10, np.float32))
    np.testing.assert_array_equal(accumulate(x).numpy(), [22, 22, 22])
    assert len(accumulate.concrete_functions) == 1


def test_errors_while_tracing_point_at_the_users_line():
    @tfrt.function
    def bad(x):
        return x @ x  # line checked below

    line = inspect.getsourcelines(bad.python_function)[1] + 2
    with pytest.raises(tfrt.OpError) as info:
        bad(tfrt.constant(np.ones((2, 3), np.float32)))
    assert info.value.op == "matmul" and info.value.lineno == line
    assert info.value.filename == __file__


def test_reading_a_traced_value_is_an_error():
    @tfrt.function
    def f(x):
        return x if x.numpy()[0] > 0 else -x

    with pytest.raises(tfrt.OpError, match="cannot read the value of a traced tensor"):
        f(tfrt.constant(np.ones(2, np.float32)))


def test_saved_mlir_and_bef_run_with_bef_executor(tmp_path: Path):
    compiled = tfrt.function(mlp, name="mlp")
    arrays = (rand(2, 4), rand(4, 5), rand(5), rand(5, 3), rand(3))
    args = [tfrt.constant(a) for a in arrays]
    mlir_path, bef_path = compiled.get_concrete_function(*args).save(str(tmp_path / "mlp"))
    assert Path(mlir_path).read_text().startswith("func.func @mlp(")
    inputs = []
    for i, a in enumerate(arrays):
        np.save(tmp_path / f"x{i}.npy", a)
        inputs.append(f"--input=@{tmp_path / f'x{i}.npy'}")
    expected = mlp(*args).numpy()
    for path in (bef_path, mlir_path):
        out = tmp_path / "y.npy"
        proc = subprocess.run(
            [sys.executable, "-m", "tfrt.tools.bef_executor", path, "--function=mlp", *inputs, f"--output=@{out}"],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        np.testing.assert_allclose(np.load(out), expected, rtol=1e-5, atol=1e-6)
    # and from Python
    np.testing.assert_allclose(
        tfrt.api.load(bef_path).call("mlp", *arrays), expected, rtol=1e-5, atol=1e-6
    )


def test_function_results_are_tensors_with_metadata():
    @tfrt.function
    def f(x):
        return x.sum(axis=0), x.argmax(axis=1)

    s, i = f(tfrt.constant(rand(3, 4)))
    assert s.shape == (4,) and s.dtype == np.float32
    assert i.shape == (3,) and i.dtype == np.int64
    assert isinstance(s + 1, tfrt.Tensor)


def test_pending_inputs_are_passed_as_async_values():
    import threading

    from tfrt.devices import get_device

    @tfrt.function
    def f(x):
        return x + 1

    a = tfrt.constant(np.ones(2, np.float32))
    f(a)  # traced and compiled
    dev = get_device("cpu_async")
    gate = threading.Event()
    dev.default_stream.launch(gate.wait)
    try:
        with tfrt.device("cpu_async"):
            d = tfrt.constant(np.ones(2, np.float32))
        pending = d.to("cpu")
        y = f(pending)
        assert y.shape == (2,)
    finally:
        gate.set()
    np.testing.assert_array_equal(y.numpy(), [2, 2])


def test_compiled_for_the_gpu_when_present():
    from tfrt.devices import default_registry

    if not default_registry().is_available("gpu"):
        pytest.skip("no usable GPU (cupy/CUDA)")
    a = rand(16, 16)

    @tfrt.function(device="gpu")
    def f(x):
        return tfrt.ops.relu(x @ x)

    np.testing.assert_allclose(
        f(tfrt.constant(a)).numpy(), np.maximum(a @ a, 0), rtol=1e-4, atol=1e-5
    )


def test_a_runtime_error_in_a_compiled_function_surfaces_at_numpy():
    from tfrt.devices import default_registry

    if default_registry().is_available("gpu"):
        pytest.skip("needs a machine where the gpu device cannot run")

    @tfrt.function(device="gpu", name="on_gpu")
    def f(x):
        return x * 2

    line = inspect.currentframe().f_lineno + 1
    y = f(tfrt.constant(np.ones(2, np.float32)))  # no error here: the result holds it
    assert y.shape == (2,)
    with pytest.raises(tfrt.OpError) as info:
        y.numpy()
    assert info.value.op == "@tfrt.function on_gpu" and info.value.lineno == line
