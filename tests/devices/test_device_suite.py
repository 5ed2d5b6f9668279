"""The device conformance suite: every test runs on every device kind.

Values are checked against small, independent numpy references (explicit
loops for convolution and pooling), metadata and error messages are checked on
every device (the ``null`` device included), and tests skip what a device does
not declare in ``capabilities``.
"""

from __future__ import annotations

import gc
import math

import ml_dtypes
import numpy as np
import pytest

from tfrt.devices import CAP_BF16, CAP_COMPLEX, CAP_COMPUTE, CAP_F16, CAP_F64
from tfrt.devices.base import DeviceError
from tfrt.devices import dispatch
from tfrt.devices.ops import OPS, OpError

from .helpers import fetch, put, requires

RNG = np.random.default_rng(1234)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def close(actual, expected, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64),
                               rtol=rtol, atol=atol)


# --------------------------------------------------------------------------
# references


def conv2d_ref(x, f, strides, padding, dilations):
    n, h, w, c = x.shape
    kh, kw, _, co = f.shape
    sh, sw = strides
    dh, dw = dilations
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    if padding == "VALID":
        oh, ow = (h - ekh) // sh + 1, (w - ekw) // sw + 1
        pt = pl = 0
    else:
        oh, ow = math.ceil(h / sh), math.ceil(w / sw)
        pt = max((oh - 1) * sh + ekh - h, 0) // 2
        pl = max((ow - 1) * sw + ekw - w, 0) // 2
    out = np.zeros((n, oh, ow, co), np.float64)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    y, z = i * sh + a * dh - pt, j * sw + b * dw - pl
                    if 0 <= y < h and 0 <= z < w:
                        out[:, i, j, :] += x[:, y, z, :].astype(np.float64) @ f[a, b].astype(np.float64)
    return out


def pool_ref(x, ksize, strides, padding, kind):
    n, h, w, c = x.shape
    kh, kw = ksize
    sh, sw = strides
    if padding == "VALID":
        oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
        pt = pl = 0
    else:
        oh, ow = math.ceil(h / sh), math.ceil(w / sw)
        pt = max((oh - 1) * sh + kh - h, 0) // 2
        pl = max((ow - 1) * sw + kw - w, 0) // 2
    out = np.zeros((n, oh, ow, c), np.float64)
    for i in range(oh):
        for j in range(ow):
            ys = [i * sh + a - pt for a in range(kh) if 0 <= i * sh + a - pt < h]
            zs = [j * sw + b - pl for b in range(kw) if 0 <= j * sw + b - pl < w]
            win = x[:, ys][:, :, zs].astype(np.float64)
            out[:, i, j] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return out


# --------------------------------------------------------------------------
# copies and dtypes


@pytest.mark.parametrize(
    "dtype,cap",
    [
        (np.float32, None),
        (np.int32, None),
        (np.int64, None),
        (np.uint8, None),
        (np.bool_, None),
        (np.float64, CAP_F64),
        (np.float16, CAP_F16),
        (ml_dtypes.bfloat16, CAP_BF16),
        (np.complex64, CAP_COMPLEX),
    ],
)
def test_copy_round_trip(device, dtype, cap):
    requires(device, CAP_COMPUTE, *([cap] if cap else []))
    src = (RNG.standard_normal((3, 5)) * 10).astype(dtype)
    t = put(device, src)
    assert t.shape.dims == (3, 5)
    assert t.dtype.np_dtype == np.dtype(dtype)
    np.testing.assert_array_equal(fetch(device, t), src)


def test_copy_of_empty_and_scalar_tensors(device):
    requires(device, CAP_COMPUTE)
    for src in (np.zeros((0, 4), np.float32), np.array(7, np.int32)):
        np.testing.assert_array_equal(fetch(device, put(device, src)), src)


def test_copy_is_independent_of_the_source(device):
    requires(device, CAP_COMPUTE)
    src = np.arange(4, dtype=np.float32)
    t = put(device, src)
    src[:] = -1
    np.testing.assert_array_equal(fetch(device, t), [0, 1, 2, 3])


# --------------------------------------------------------------------------
# elementwise


BINARY_REFS = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
}


@pytest.mark.parametrize("op", sorted(BINARY_REFS))
def test_binary_ops_broadcast(device, op):
    requires(device, CAP_COMPUTE)
    a, b = rand(2, 3, 4), rand(3, 1) + 3.0
    out = device.ops[op](put(device, a), put(device, b))
    assert out.shape.dims == (2, 3, 4)
    close(fetch(device, out), BINARY_REFS[op](a, b))


def test_integer_division_truncates_toward_zero(device):
    requires(device, CAP_COMPUTE)
    a = np.array([7, -7, 7, -7, 0], np.int32)
    b = np.array([2, 2, -2, -2, 3], np.int32)
    out = device.ops.div(put(device, a), put(device, b))
    np.testing.assert_array_equal(fetch(device, out), [3, -3, -3, 3, 0])


UNARY_REFS = {
    "relu": lambda x: np.maximum(x, 0),
    "neg": np.negative,
    "abs": np.abs,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh,
    "exp": np.exp,
    "log": lambda x: np.log(np.abs(x) + 1),
    "sqrt": lambda x: np.sqrt(np.abs(x) + 1),
    "rsqrt": lambda x: 1 / np.sqrt(np.abs(x) + 1),
}


@pytest.mark.parametrize("op", sorted(UNARY_REFS))
def test_unary_ops(device, op):
    requires(device, CAP_COMPUTE)
    x = rand(4, 5)
    if op in ("log", "sqrt", "rsqrt"):
        arg = np.abs(x) + 1
        expected = {"log": np.log, "sqrt": np.sqrt, "rsqrt": lambda v: 1 / np.sqrt(v)}[op](arg)
    else:
        arg, expected = x, UNARY_REFS[op](x)
    close(fetch(device, device.ops[op](put(device, arg))), expected)


def test_sigmoid_saturates_without_overflow(device):
    requires(device, CAP_COMPUTE)
    x = np.array([-1000.0, 0.0, 1000.0], np.float32)
    close(fetch(device, device.ops.sigmoid(put(device, x))), [0.0, 0.5, 1.0])


def test_relu_of_integers(device):
    requires(device, CAP_COMPUTE)
    x = np.array([-3, 0, 5], np.int64)
    np.testing.assert_array_equal(fetch(device, device.ops.relu(put(device, x))), [0, 0, 5])


def test_bias_add(device):
    requires(device, CAP_COMPUTE)
    x, b = rand(2, 3, 4), rand(4)
    close(fetch(device, device.ops.bias_add(put(device, x), put(device, b))), x + b)


# --------------------------------------------------------------------------
# matmul, convolution, pooling, normalisation


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_transposes(device, ta, tb):
    requires(device, CAP_COMPUTE)
    a, b = rand(5, 3), rand(3, 4)
    a_in = a.T.copy() if ta else a
    b_in = b.T.copy() if tb else b
    out = device.ops.matmul(put(device, a_in), put(device, b_in), transpose_a=ta, transpose_b=tb)
    assert out.shape.dims == (5, 4)
    close(fetch(device, out), a @ b, rtol=1e-4, atol=1e-4)


def test_batched_matmul_broadcasts_batch_dims(device):
    requires(device, CAP_COMPUTE)
    a, b = rand(2, 1, 3, 4), rand(5, 4, 2)
    out = device.ops.matmul(put(device, a), put(device, b))
    assert out.shape.dims == (2, 5, 3, 2)
    close(fetch(device, out), a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype,cap", [(np.float16, CAP_F16), (ml_dtypes.bfloat16, CAP_BF16)])
def test_half_precision_matmul_accumulates_in_f32(device, dtype, cap):
    requires(device, CAP_COMPUTE, cap)
    a = np.full((1, 256), 1.0, dtype)
    b = np.full((256, 1), 1.0, dtype)
    out = device.ops.matmul(put(device, a), put(device, b))
    assert out.dtype.np_dtype == np.dtype(dtype)
    # 256 additions of 1.0 in bf16 alone would stall at 256 anyway; check exactness.
    assert float(fetch(device, out)[0, 0]) == 256.0


@pytest.mark.parametrize(
    "strides,padding,dilations",
    [
        ((1, 1), "VALID", (1, 1)),
        ((1, 1), "SAME", (1, 1)),
        ((2, 2), "SAME", (1, 1)),
        ((2, 1), "VALID", (1, 1)),
        ((1, 1), "SAME", (2, 2)),
        ((1, 2), "VALID", (2, 1)),
    ],
)
def test_conv2d_against_reference(device, strides, padding, dilations):
    requires(device, CAP_COMPUTE)
    x, f = rand(2, 7, 6, 3), rand(3, 2, 3, 4)
    out = device.ops.conv2d(put(device, x), put(device, f), strides=list(strides),
                            padding=padding, dilations=list(dilations))
    expected = conv2d_ref(x, f, strides, padding, dilations)
    assert out.shape.dims == expected.shape
    close(fetch(device, out), expected, rtol=1e-4, atol=1e-4)


def test_conv2d_accepts_tf_style_attributes(device):
    requires(device, CAP_COMPUTE)
    x, f = rand(1, 5, 5, 2), rand(1, 1, 2, 3)
    out = device.ops.conv2d(put(device, x), put(device, f), strides=[1, 2, 2, 1], padding="same")
    close(fetch(device, out), conv2d_ref(x, f, (2, 2), "SAME", (1, 1)), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("ksize,strides,padding", [((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME"),
                                                     ((3, 2), (1, 1), "SAME")])
def test_pooling_against_reference(device, kind, ksize, strides, padding):
    requires(device, CAP_COMPUTE)
    x = rand(2, 5, 6, 3) - 2.0  # negative values: max pool must not clamp at zero
    op = device.ops.max_pool if kind == "max" else device.ops.avg_pool
    out = op(put(device, x), ksize=list(ksize), strides=list(strides), padding=padding)
    expected = pool_ref(x, ksize, strides, padding, kind)
    assert out.shape.dims == expected.shape
    close(fetch(device, out), expected)


def test_batch_norm_inference(device):
    requires(device, CAP_COMPUTE)
    x = rand(2, 3, 4)
    scale, offset, mean, var = rand(4), rand(4), rand(4), np.abs(rand(4)) + 0.5
    out = device.ops.batch_norm(*(put(device, v) for v in (x, scale, offset, mean, var)), epsilon=1e-3)
    close(fetch(device, out), (x - mean) / np.sqrt(var + 1e-3) * scale + offset, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax(device, axis):
    requires(device, CAP_COMPUTE)
    x = rand(3, 4) * 5
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    close(fetch(device, device.ops.softmax(put(device, x), axis=axis)), e / e.sum(axis=axis, keepdims=True))


# --------------------------------------------------------------------------
# reductions


@pytest.mark.parametrize("op,ref", [("reduce_sum", np.sum), ("reduce_mean", np.mean), ("reduce_max", np.max)])
@pytest.mark.parametrize("axes,keepdims", [([1], False), ([0, 2], True), ([], False), ([-1], True)])
def test_reductions(device, op, ref, axes, keepdims):
    requires(device, CAP_COMPUTE)
    x = rand(2, 3, 4)
    np_axes = tuple(axes) if axes else None
    expected = ref(x, axis=np_axes, keepdims=keepdims)
    out = device.ops[op](put(device, x), axes=axes, keepdims=keepdims)
    assert out.shape.dims == np.shape(expected)
    close(fetch(device, out), expected, rtol=1e-5, atol=1e-5)


def test_integer_mean_truncates(device):
    requires(device, CAP_COMPUTE)
    x = np.array([[1, 2], [-3, -4]], np.int32)
    out = device.ops.reduce_mean(put(device, x), axes=[1])
    np.testing.assert_array_equal(fetch(device, out), [1, -3])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argmax(device, axis):
    requires(device, CAP_COMPUTE)
    x = rand(4, 5)
    out = device.ops.argmax(put(device, x), axis=axis)
    assert out.dtype.short_name == "i64"
    np.testing.assert_array_equal(fetch(device, out), np.argmax(x, axis=axis))


# --------------------------------------------------------------------------
# shape ops


def test_reshape_transpose_broadcast(device):
    requires(device, CAP_COMPUTE)
    x = rand(2, 3, 4)
    t = put(device, x)
    np.testing.assert_array_equal(fetch(device, device.ops.reshape(t, shape=[4, -1])), x.reshape(4, 6))
    np.testing.assert_array_equal(fetch(device, device.ops.transpose(t, perm=[2, 0, 1])),
                                  x.transpose(2, 0, 1))
    b = put(device, x[:, :1, :])
    np.testing.assert_array_equal(fetch(device, device.ops.broadcast_to(b, shape=[2, 3, 4])),
                                  np.broadcast_to(x[:, :1, :], (2, 3, 4)))


def test_concat_and_slice(device):
    requires(device, CAP_COMPUTE)
    a, b, c = rand(2, 3), rand(2, 1), rand(2, 2)
    out = device.ops.concat(put(device, a), put(device, b), put(device, c), axis=1)
    np.testing.assert_array_equal(fetch(device, out), np.concatenate([a, b, c], axis=1))
    s = device.ops.slice(out, begin=[1, 2], size=[-1, 3])
    np.testing.assert_array_equal(fetch(device, s), np.concatenate([a, b, c], axis=1)[1:, 2:5])


def test_cast_truncates_toward_zero(device):
    requires(device, CAP_COMPUTE)
    x = np.array([1.7, -1.7, 2.5, -0.2], np.float32)
    out = device.ops.cast(put(device, x), dtype="i32")
    assert out.dtype.short_name == "i32"
    np.testing.assert_array_equal(fetch(device, out), [1, -1, 2, 0])
    back = device.ops.cast(out, dtype="f32")
    np.testing.assert_array_equal(fetch(device, back), [1.0, -1.0, 2.0, 0.0])


# --------------------------------------------------------------------------
# metadata and errors (every device, null included)


def test_result_metadata_is_exact_everywhere(device):
    x = put(device, np.zeros((2, 8, 8, 3), np.float32))
    f = put(device, np.zeros((3, 3, 3, 5), np.float32))
    conv = device.ops.conv2d(x, f, strides=[2, 2], padding="SAME")
    assert conv.shape.dims == (2, 4, 4, 5)
    pooled = device.ops.max_pool(conv, ksize=[2, 2], strides=[2, 2])
    assert pooled.shape.dims == (2, 2, 2, 5)
    flat = device.ops.reshape(pooled, shape=[2, -1])
    assert flat.shape.dims == (2, 20)
    assert device.ops.argmax(flat, axis=1).shape.dims == (2,)
    assert device.ops.reduce_sum(flat, axes=[0], keepdims=True).shape.dims == (1, 20)
    assert device.ops.cast(flat, dtype="f16").dtype.short_name == "f16"


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda d, t: d.ops.matmul(t, t), "matmul: contraction dimensions differ (3 vs 2)"),
        (lambda d, t: d.ops.add(t, d.ops.cast(t, dtype="i32")), "add: input 1 has dtype i32"),
        (lambda d, t: d.ops.reshape(t, shape=[4, 4]), "reshape: cannot reshape [2, 3]"),
        (lambda d, t: d.ops.transpose(t, perm=[0, 0]), "transpose: perm [0, 0] is not a permutation"),
        (lambda d, t: d.ops.reduce_sum(t, axes=[2]), "reduce_sum: axis 2 is out of range for rank 2"),
        (lambda d, t: d.ops.max_pool(t, ksize=[1, 1], strides=[1, 1]), "must have rank 4"),
        (lambda d, t: d.ops.softmax(d.ops.cast(t, dtype="i32")), "softmax: dtype i32 is not a floating-point"),
        (lambda d, t: d.ops.matmul(t, t, bogus=1), "unknown attribute(s) ['bogus']"),
        (lambda d, t: d.ops.reshape(t), "missing attribute 'shape'"),
        (lambda d, t: d.ops.slice(t, begin=[0, 2], size=[1, 2]), "out of bounds"),
    ],
)
def test_errors_are_the_same_on_every_device(device, call, message):
    t = put(device, np.zeros((2, 3), np.float32))
    with pytest.raises(OpError) as info:
        call(device, t)
    assert message in str(info.value)


def test_bad_padding_is_reported(device):
    x = put(device, np.zeros((1, 4, 4, 1), np.float32))
    with pytest.raises(OpError, match="padding 'invalid' is not recognized"):
        device.ops.max_pool(x, ksize=[2, 2], strides=[2, 2], padding="invalid")


def test_unknown_op(device):
    with pytest.raises(AttributeError, match="no tensor op named 'frobnicate'"):
        device.ops.frobnicate
    with pytest.raises(OpError, match="unknown tensor op 'frobnicate'"):
        device.run_op("frobnicate", [], {})


def test_inputs_must_live_on_the_device(device):
    from tfrt.devices import get_device

    other = get_device("null") if device.kind != "null" else get_device("cpu")
    foreign = other.copy_to_device(np.zeros((2, 2), np.float32))
    with pytest.raises(OpError, match=f"input 0 is on {other.name}, not on {device.name}"):
        device.ops.relu(foreign)


def test_every_op_is_implemented_by_every_computing_device(device):
    from tfrt.devices.array_ops import IMPLS

    assert set(OPS) <= set(IMPLS)


def test_eager_dispatch_uses_the_inputs_device(device):
    a = put(device, np.ones((2, 2), np.float32))
    out = dispatch("add", a, a)
    assert device.owns(out)
    if device.has(CAP_COMPUTE):
        np.testing.assert_array_equal(fetch(device, out), np.full((2, 2), 2.0))


# --------------------------------------------------------------------------
# memory


def test_buffers_return_to_the_cache_when_tensors_die(device):
    gc.collect()
    device.synchronize()
    before = device.memory_stats().bytes_in_use
    a = put(device, np.ones((256, 256), np.float32))
    b = device.ops.relu(device.ops.add(a, a))
    device.synchronize()
    assert device.memory_stats().bytes_in_use > before
    del a, b
    device.synchronize()
    gc.collect()
    assert device.memory_stats().bytes_in_use == before


def test_chain_of_ops_peaks_near_the_live_set(device):
    n = 256
    nbytes = n * n * 4
    x = put(device, np.ones((n, n), np.float32))
    device.synchronize()
    gc.collect()
    device.allocator.reset_peak()
    base = device.memory_stats().bytes_in_use
    for _ in range(20):
        x = device.ops.relu(device.ops.mul(x, x))
    device.synchronize()
    peak = device.memory_stats().peak_bytes_in_use - base
    # Live set: the input, one temporary and one result; never 40 buffers.
    assert peak <= 3 * nbytes, peak
    stats = device.memory_stats()
    assert stats.num_cache_hits > 0


def test_raw_allocate_and_free(device):
    before = device.memory_stats()
    block = device.allocate(3000)
    assert block.size >= 3000
    assert device.memory_stats().bytes_in_use == before.bytes_in_use + block.size
    device.free(block)
    again = device.allocate(2900)  # same size class, same stream: the cached block
    assert device.memory_stats().num_cache_hits == before.num_cache_hits + 1
    device.free(again)
    assert device.memory_stats().bytes_in_use == before.bytes_in_use


def test_views_keep_memory_alive(device):
    requires(device, CAP_COMPUTE)
    t = put(device, np.arange(12, dtype=np.float32))
    v = device.ops.reshape(t, shape=[3, 4])
    del t
    gc.collect()
    junk = [put(device, np.full(12, -1, np.float32)) for _ in range(4)]
    np.testing.assert_array_equal(fetch(device, v), np.arange(12, dtype=np.float32).reshape(3, 4))
    del junk


def test_device_error_type():
    assert issubclass(OpError, DeviceError)
