"""The eager Python API: tensors, ops, operators, indexing, devices."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tfrt
from tfrt.devices import get_device
from tfrt.devices.ops import OPS

RNG = np.random.default_rng(7)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def test_constant_round_trip_and_numpy_dtypes():
    a = rand(2, 3)
    t = tfrt.constant(a)
    assert t.shape == (2, 3) and t.dtype == np.float32 and t.ndim == 2 and t.size == 6
    np.testing.assert_array_equal(t.numpy(), a)
    assert tfrt.constant([1.0, 2.0]).dtype == np.float64  # numpy's rules
    assert tfrt.constant([1, 2], dtype=np.int32).dtype == np.int32
    assert tfrt.constant(True).dtype == np.bool_
    assert tfrt.Tensor(a).shape == (2, 3)


def test_constant_copies_and_numpy_is_read_only():
    a = np.ones(3, np.float32)
    t = tfrt.constant(a)
    a[0] = 5
    assert t.numpy()[0] == 1
    with pytest.raises(ValueError):
        t.numpy()[0] = 2
    with pytest.raises(TypeError):
        t[0] = 1


def test_every_device_op_is_an_eager_function():
    assert set(tfrt.ops.names()) == set(OPS)
    for name in OPS:
        fn = getattr(tfrt.ops, name)
        assert callable(fn) and name in fn.__doc__


def test_ops_match_numpy():
    a, b = rand(3, 4), rand(3, 4)
    ta, tb = tfrt.constant(a), tfrt.constant(b)
    np.testing.assert_allclose(tfrt.ops.add(ta, tb).numpy(), a + b)
    np.testing.assert_allclose(
        tfrt.ops.matmul(ta, tb, transpose_b=True).numpy(), a @ b.T, rtol=1e-5
    )
    np.testing.assert_allclose(tfrt.ops.reduce_sum(ta, axes=[1]).numpy(), a.sum(1), rtol=1e-5)
    np.testing.assert_allclose(tfrt.ops.relu(ta).numpy(), np.maximum(a, 0))
    sm = tfrt.ops.softmax(ta).numpy()
    np.testing.assert_allclose(sm.sum(-1), np.ones(3), rtol=1e-5)
    np.testing.assert_array_equal(tfrt.ops.argmax(ta, axis=1).numpy(), a.argmax(1))
    np.testing.assert_array_equal(tfrt.ops.transpose(ta, perm=[1, 0]).numpy(), a.T)
    np.testing.assert_array_equal(tfrt.ops.concat([ta, tb], axis=0).numpy(), np.concatenate([a, b]))
    np.testing.assert_array_equal(tfrt.ops.where(ta > 0, ta, tb).numpy(), np.where(a > 0, a, b))
    # a scalar takes the dtype of the non-bool tensor beside it
    assert tfrt.ops.where(ta > 0, ta, 0.0).dtype == np.float32
    np.testing.assert_array_equal(
        tfrt.ops.pad(ta, paddings=[1, 0, 0, 2]).numpy(), np.pad(a, ((1, 0), (0, 2)))
    )


def test_shape_and_dtype_are_known_before_the_value():
    dev = get_device("cpu_async")
    gate = __import__("threading").Event()
    dev.default_stream.launch(gate.wait)  # holds the stream: nothing below runs yet
    try:
        with tfrt.device("cpu_async"):
            x = tfrt.constant(np.ones((2, 3), np.float32))
            y = tfrt.ops.matmul(x, x, transpose_b=True)
            z = tfrt.ops.reduce_sum(y, axes=[0], keepdims=True).astype(np.int32)
        assert z.shape == (1, 2) and z.dtype == np.int32
        assert not y._x.dt.ready.done
    finally:
        gate.set()
    np.testing.assert_array_equal(z.numpy(), [[6, 6]])


def test_python_operators():
    a, b = rand(2, 3), rand(2, 3) + 3
    x, y = tfrt.constant(a), tfrt.constant(b)
    np.testing.assert_allclose((x + y).numpy(), a + b)
    np.testing.assert_allclose((x - y).numpy(), a - b)
    np.testing.assert_allclose((x * y).numpy(), a * b)
    np.testing.assert_allclose((x / y).numpy(), a / b, rtol=1e-6)
    np.testing.assert_allclose((y**2).numpy(), b**2, rtol=1e-6)
    np.testing.assert_allclose((-x).numpy(), -a)
    np.testing.assert_allclose(abs(x).numpy(), abs(a))
    np.testing.assert_allclose((x @ y.T).numpy(), a @ b.T, rtol=1e-5)
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        np.testing.assert_array_equal(getattr(x, op)(y).numpy(), getattr(a, op)(b))
    # scalars take the tensor's dtype; reflected operators
    assert (x + 1).dtype == np.float32 and (2.0 * x).dtype == np.float32
    np.testing.assert_allclose((1 - x).numpy(), 1 - a)
    np.testing.assert_allclose((1 / y).numpy(), 1 / b, rtol=1e-6)
    # numpy arrays on either side, numpy ufuncs on tensors
    r = np.ones(3, np.float32) + x
    assert isinstance(r, tfrt.Tensor)
    np.testing.assert_allclose(r.numpy(), 1 + a)
    assert isinstance(np.exp(x), tfrt.Tensor)
    np.testing.assert_allclose(np.exp(x).numpy(), np.exp(a), rtol=1e-6)
    # integer true division is float64, as numpy's
    i = tfrt.constant(np.array([1, 2, 3], np.int32))
    assert (i / 2).dtype == np.float64


def test_matmul_operator_on_vectors():
    m, v = rand(3, 4), rand(4)
    np.testing.assert_allclose((tfrt.constant(m) @ tfrt.constant(v)).numpy(), m @ v, rtol=1e-5)
    np.testing.assert_allclose((tfrt.constant(v) @ tfrt.constant(m.T)).numpy(), v @ m.T, rtol=1e-5)
    assert (tfrt.constant(v) @ tfrt.constant(v)).shape == ()


@pytest.mark.parametrize(
    "index",
    [1, -1, (0, 2), slice(1, None), (slice(None), slice(None, None, 2)), (Ellipsis, 1),
     (None, 1), (1, None, slice(0, 3)), (Ellipsis,), (slice(5, 1),), (0, Ellipsis, None)],
)  # fmt: skip
def test_indexing_matches_numpy(index):
    a = rand(3, 4, 5)
    np.testing.assert_array_equal(tfrt.constant(a)[index].numpy(), a[index])


def test_indexing_errors():
    x = tfrt.constant(rand(3, 4))
    with pytest.raises(IndexError, match="out of bounds"):
        x[3]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(tfrt.OpError, match="negative slice steps"):
        x[::-1]


def test_numpy_style_methods():
    a = rand(2, 3, 4)
    x = tfrt.constant(a)
    np.testing.assert_allclose(x.sum().numpy(), a.sum(), rtol=1e-5)
    np.testing.assert_allclose(x.mean(axis=(0, 2)).numpy(), a.mean(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_array_equal(x.max(axis=1, keepdims=True).numpy(), a.max(1, keepdims=True))
    np.testing.assert_array_equal(x.min(axis=-1).numpy(), a.min(-1))
    np.testing.assert_array_equal(x.argmax().numpy(), a.argmax())
    np.testing.assert_array_equal(x.reshape(4, 6).numpy(), a.reshape(4, 6))
    np.testing.assert_array_equal(x.T.numpy(), a.T)
    np.testing.assert_array_equal(x.transpose(1, 0, 2).numpy(), a.transpose(1, 0, 2))
    np.testing.assert_array_equal(x.astype(np.int32).numpy(), a.astype(np.int32))
    assert len(x) == 2 and [t.shape for t in x] == [(3, 4), (3, 4)]
    assert float(x[0, 0, 0]) == float(a[0, 0, 0])
    assert bool(tfrt.constant(1.0) > 0)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)
    assert np.asarray(x).shape == (2, 3, 4)
    assert "tfrt.Tensor" in repr(x)


def test_ops_helpers():
    a = rand(4, 5)
    x = tfrt.constant(a)
    ls = tfrt.ops.log_softmax(x).numpy()
    np.testing.assert_allclose(np.exp(ls).sum(-1), np.ones(4), rtol=1e-5)
    labels = np.eye(5, dtype=np.float32)[[0, 1, 2, 3]]
    loss = tfrt.ops.softmax_cross_entropy(x, tfrt.constant(labels)).numpy()
    np.testing.assert_allclose(loss, -(labels * ls).sum(-1).mean(), rtol=1e-5)
    assert tfrt.ops.zeros((2, 2)).dtype == np.float32
    np.testing.assert_allclose(tfrt.ops.sum(x, axis=0).numpy(), a.sum(0), rtol=1e-5)


def test_device_scope_and_transfers():
    a = rand(2, 3)
    x = tfrt.constant(a)
    with tfrt.device("cpu_async"):
        y = x * 2  # x is copied to the device
        c = tfrt.constant(np.ones(3, np.float32))
        assert y.device == "cpu_async:0" and c.device == "cpu_async:0"
        z = tfrt.ops.relu(y + c)
    # Outside a scope an op runs where its inputs live.
    w = z - 1
    assert w.device == "cpu_async:0"
    np.testing.assert_allclose(w.numpy(), np.maximum(2 * a + 1, 0) - 1, rtol=1e-6)
    h = w.to("cpu")
    assert h.device == "cpu:0"
    np.testing.assert_allclose((h + x).numpy(), np.maximum(2 * a + 1, 0) - 1 + a, rtol=1e-6)
    with tfrt.device("cpu"):
        back = z + 0  # a device input, a host scope: copied back
    assert back.device == "cpu:0"
    np.testing.assert_allclose(back.numpy(), np.maximum(2 * a + 1, 0), rtol=1e-6)


def test_inputs_on_two_devices_need_a_scope():
    x = tfrt.constant(np.ones(2, np.float32)).to("cpu_async")
    y = tfrt.constant(np.ones(2, np.float32)).to("null")
    with pytest.raises(tfrt.OpError, match="inputs live on cpu_async:0 and null:0"):
        x + y


def test_gpu_device_when_present():
    from tfrt.devices import default_registry

    if not default_registry().is_available("gpu"):
        pytest.skip("no usable GPU (cupy/CUDA)")
    a = rand(8, 8)
    with tfrt.device("gpu"):
        y = tfrt.ops.relu(tfrt.constant(a) @ tfrt.constant(a))
    assert y.device == "gpu:0"
    np.testing.assert_allclose(y.numpy(), np.maximum(a @ a, 0), rtol=1e-4, atol=1e-5)


def _run(code: str) -> subprocess.CompletedProcess:
    blocker = textwrap.dedent(
        """
        import sys

        class _Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("xdsl", "lark"):
                    raise ImportError(f"blocked import of {name}")
                return None

        sys.meta_path.insert(0, _Block())
        """
    )
    return subprocess.run([sys.executable, "-c", blocker + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip


def test_import_tfrt_stays_light_and_eager_needs_no_compiler():
    proc = _run(
        """
        import tfrt
        assert "tfrt.eager" not in sys.modules and "numpy" not in sys.modules
        import numpy as np
        x = tfrt.constant(np.ones(3, np.float32))
        y = tfrt.ops.exp(x) + x @ x
        with tfrt.GradientTape() as tape:
            tape.watch(x)
            z = (x * x).sum()
        g = tape.gradient(z, x)
        print([round(float(v), 3) for v in y.numpy()], g.numpy().tolist())
        assert not any(m.split(".")[0] in ("xdsl", "lark") for m in sys.modules)
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[5.718, 5.718, 5.718] [2.0, 2.0, 2.0]"
