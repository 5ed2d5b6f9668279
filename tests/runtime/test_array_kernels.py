"""The host paths of tfrt_array's convolution, pooling and matmul kernels
against direct definitions, and the array pool they allocate from."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfrt.kernels import tfrt_array as ta
from tfrt.kernels.array_pool import ArrayPool, host_pool
from tfrt.kernels.registry import KernelError

RELU = "maximum(a0 + a1, cast_f32(0.0))"


def conv_reference(x, w, strides, dilations, padding, groups=1):
    """Direct NHWC x HWCF convolution: a sum over filter taps."""
    top, bottom, left, right = padding
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    kh, kw, cg, f = w.shape
    n, h, wd, c = xp.shape
    sh, sw = strides
    dh, dw = dilations
    oh = (h - (kh - 1) * dh - 1) // sh + 1
    ow = (wd - (kw - 1) * dw - 1) // sw + 1
    fg = f // groups
    out = np.zeros((n, oh, ow, f), np.result_type(x, w))
    for i, j in itertools.product(range(kh), range(kw)):
        tap = xp[:, i * dh : i * dh + (oh - 1) * sh + 1 : sh, j * dw : j * dw + (ow - 1) * sw + 1 : sw, :]
        for g in range(groups):
            out[..., g * fg : (g + 1) * fg] += tap[..., g * cg : (g + 1) * cg] @ w[i, j, :, g * fg : (g + 1) * fg]
    return out


def pool_reference(x, kind, window, strides, dilations, padding):
    fill = {"max": -np.inf, "min": np.inf}.get(kind, 0) if x.dtype.kind == "f" else (
        {"max": np.iinfo(x.dtype).min, "min": np.iinfo(x.dtype).max}.get(kind, 0))
    top, bottom, left, right = padding
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=fill)
    kh, kw = window
    sh, sw = strides
    dh, dw = dilations
    oh = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    taps = np.stack([
        xp[:, i * dh : i * dh + (oh - 1) * sh + 1 : sh, j * dw : j * dw + (ow - 1) * sw + 1 : sw, :]
        for i in range(kh) for j in range(kw)
    ])  # fmt: skip
    if kind == "max":
        return taps.max(0)
    if kind == "min":
        return taps.min(0)
    total = taps.sum(0, dtype=x.dtype)
    return total if kind == "sum" else (total / (kh * kw)).astype(x.dtype)


@st.composite
def convolutions(draw):
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    padding = tuple(draw(st.integers(0, 3)) for _ in range(4))
    c = draw(st.sampled_from([1, 3, 16, 20]))
    h = draw(st.integers((kh - 1) * dh + 1, 9))
    w = draw(st.integers((kw - 1) * dw + 1, 9))
    f = draw(st.integers(1, 5))
    return (kh, kw, c, f), (h, w), (sh, sw), (dh, dw), padding


@settings(max_examples=80, deadline=None)
@given(convolutions(), st.integers(0, 2**31 - 1))
def test_conv2d_matches_the_direct_sum(case, seed):
    (kh, kw, c, f), (h, w), strides, dilations, padding = case
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, (1, h, w, c)).astype(np.float32)
    wt = rng.integers(-3, 4, (kh, kw, c, f)).astype(np.float32)
    want = conv_reference(x, wt, strides, dilations, padding)
    run = ta.conv2d(np.array(dilations), "", 1, np.array(padding), np.array(want.shape), np.array(strides), "")
    got = run(x, wt)
    assert got.shape == want.shape and np.array_equal(got, want)  # small integers: exact


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_conv2d_other_dtypes_and_grouped(dtype):
    rng = np.random.default_rng(0)
    x = rng.integers(-5, 6, (2, 7, 6, 4)).astype(dtype)
    w = rng.integers(-5, 6, (3, 3, 4, 6)).astype(dtype)
    want = conv_reference(x, w, (1, 2), (1, 1), (1, 1, 0, 2))
    run = ta.conv2d(np.array([1, 1]), "", 1, np.array([1, 1, 0, 2]), np.array(want.shape), np.array([1, 2]), "")
    assert np.array_equal(run(x, w), want)
    wg = rng.integers(-5, 6, (3, 3, 2, 6)).astype(dtype)  # 2 groups of 2 channels
    want = conv_reference(x, wg, (1, 1), (1, 1), (1, 1, 1, 1), groups=2)
    run = ta.conv2d(np.array([1, 1]), "", 2, np.array([1, 1, 1, 1]), np.array(want.shape), np.array([1, 1]), "")
    assert np.array_equal(run(x, wg), want)


def test_conv2d_epilogue_and_results_that_outlive_the_next_call():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 40, 40, 64), dtype=np.float32)  # large enough to pool
    w = rng.standard_normal((3, 3, 64, 64), dtype=np.float32)
    bias = rng.standard_normal(64, dtype=np.float32)
    run = ta.conv2d(np.array([1, 1]), RELU, 1, np.array([1, 1, 1, 1]), np.array([1, 40, 40, 64]),
                    np.array([1, 1]), "f32,f32")  # fmt: skip
    want = np.maximum(conv_reference(x, w, (1, 1), (1, 1), (1, 1, 1, 1)) + bias, 0)
    first = run(x, w, bias)
    kept = first.copy()
    second = run(x * 2, w, bias)  # must not reuse the buffer `first` still holds
    assert not np.shares_memory(first, second)
    assert np.array_equal(first, kept)
    np.testing.assert_allclose(first, want, rtol=1e-4, atol=1e-3)
    view = second[0, :3]
    del second
    third = run(x, w, bias)  # `view` keeps the second result's buffer alive
    assert not np.shares_memory(view, third)


@pytest.mark.parametrize("kind", ["max", "min", "sum", "avg"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize(
    "window,strides,dilations,padding",
    [
        ((3, 3), (2, 2), (1, 1), (1, 1, 1, 1)),
        ((2, 3), (1, 2), (2, 1), (0, 2, 1, 0)),
        ((1, 1), (1, 1), (1, 1), (0, 0, 0, 0)),
        ((5, 4), (1, 1), (1, 1), (2, 2, 1, 2)),  # 20 taps: the reduction path
        ((2, 2), (3, 3), (1, 1), (4, 0, 0, 4)),  # taps that read only padding
    ],
)
def test_pool2d_matches_the_direct_definition(kind, dtype, window, strides, dilations, padding):
    x = np.random.default_rng(2).integers(-50, 50, (2, 8, 9, 3)).astype(dtype)
    want = pool_reference(x, kind, window, strides, dilations, padding)
    run = ta.pool2d(np.array(dilations), kind, np.array(padding), np.array(want.shape), np.array(strides),
                    np.array(window))  # fmt: skip
    got = run(x)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_pool2d_unknown_kind_fails_when_run():
    with pytest.raises(KernelError, match="unknown kind 'median'"):
        ta.pool2d(np.array([1, 1]), "median", np.zeros(4, np.int64), np.array([1, 1, 1, 1]),
                  np.array([1, 1]), np.array([1, 1]))  # fmt: skip


@pytest.mark.parametrize("shape_a,shape_b", [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((3, 4), (4,)),
                                             ((300, 256), (256, 300))])  # fmt: skip
def test_matmul_with_and_without_epilogue(shape_a, shape_b):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shape_a, dtype=np.float32)
    b = rng.standard_normal(shape_b, dtype=np.float32)
    want = a @ b
    plain = ta.matmul("", np.array(want.shape), False, False, "")
    np.testing.assert_allclose(plain(a, b), want, rtol=1e-5, atol=1e-4)
    bias = rng.standard_normal(want.shape[-1:], dtype=np.float32)
    fused = ta.matmul(RELU, np.array(want.shape), False, False, "f32,f32")
    np.testing.assert_allclose(fused(a, b, bias), np.maximum(want + bias, 0), rtol=1e-5, atol=1e-4)
    tb = ta.matmul("", np.array(want.shape), True, False, "")
    np.testing.assert_allclose(tb(np.swapaxes(a, -1, -2).copy(), b), want, rtol=1e-5, atol=1e-4)


def test_elementwise_writes_in_place_only_into_what_it_may():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    run = ta.elementwise("a0 * a0", 0, np.array([2, 3]), "f32")
    out = run(x)
    assert out is x and np.array_equal(x, np.arange(6).reshape(2, 3) ** 2)
    ro = np.arange(6, dtype=np.float32).reshape(2, 3)
    ro.setflags(write=False)
    out = run(ro)
    assert out is not ro and np.array_equal(out, ro * ro)


def test_the_pool_reuses_a_store_only_when_every_view_of_it_is_gone():
    pool = ArrayPool(min_bytes=1024, limit_bytes=1 << 20)
    a = pool.empty((64, 64), np.float32)
    address = a.ctypes.data  # holding `a.base` itself would keep the store busy
    part = a.reshape(-1)[10:20]
    del a
    b = pool.empty((64, 64), np.float32)
    assert not np.shares_memory(b, part)  # `part` still uses the first store
    del part
    c = pool.empty((32, 128), np.float32)  # the same size class, now free
    assert c.ctypes.data == address and pool.hits == 1
    small = pool.empty((4,), np.float32)
    assert small.base is None  # below min_bytes: plain numpy
    del b, c
    assert pool.held_bytes() == 2 * 64 * 64 * 4
    assert pool.clear() == 2 * 64 * 64 * 4 and pool.held_bytes() == 0


def test_the_pool_stops_keeping_stores_at_its_limit():
    pool = ArrayPool(min_bytes=1024, limit_bytes=40_000)
    kept = [pool.empty((16, 16, 16), np.float32) for _ in range(3)]  # 16 KiB each
    assert pool.held_bytes() == 2 * 16384  # the third did not fit
    assert kept[2].base is None and all(k.shape == (16, 16, 16) for k in kept)
    off = ArrayPool(min_bytes=1024, limit_bytes=0)
    off.empty((512, 512), np.float32)
    assert off.held_bytes() == 0


def test_the_host_pool_limit_comes_from_the_environment(monkeypatch):
    from tfrt.kernels.array_pool import _env_bytes

    monkeypatch.setenv("TFRT_ARRAY_POOL_BYTES", "12345")
    assert _env_bytes("TFRT_ARRAY_POOL_BYTES", 1) == 12345
    monkeypatch.setenv("TFRT_ARRAY_POOL_BYTES", "lots")
    assert _env_bytes("TFRT_ARRAY_POOL_BYTES", 7) == 7
    assert host_pool.limit_bytes > 0
