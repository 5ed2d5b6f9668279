"""Every converted StableHLO op against ``jax.jit`` on hypothesis-drawn shapes and values.

Each case is a small JAX function whose exported StableHLO holds the op under
test; the program compiles through ``tfrt.api.load`` and its results must
equal ``jax.jit``'s (bit for bit for integers and exact ops, to a few ulps
for transcendental functions).  Subnormal inputs are not drawn: XLA's CPU
backend flushes them to zero, which the specification does not ask for.
Skipped without JAX.  The default run draws
a few examples per op; ``-m slow`` draws many more.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax

import tfrt.api  # noqa: E402

jax.config.update("jax_enable_x64", False)

FAST = settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def check(fn, *args, rtol=1e-6, atol=1e-6):
    args = [np.asarray(a) for a in args]
    text = jax.jit(fn).lower(*args).as_text()
    program = tfrt.api.load(text)
    got = program.call("main", *args)
    want = jax.jit(fn)(*args)
    got = got if isinstance(got, tuple) else (got,)
    want = jax.tree_util.tree_leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape, text)
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=text)
        else:
            np.testing.assert_array_equal(g.astype(w.dtype), w, err_msg=text)


shapes = st.lists(st.integers(1, 5), min_size=0, max_size=3).map(tuple)


def floats(shape, lo=-4.0, hi=4.0):
    n = int(np.prod(shape)) if shape else 1
    return st.lists(st.floats(lo, hi, width=32, allow_subnormal=False), min_size=n, max_size=n).map(
        lambda v: np.asarray(v, np.float32).reshape(shape)
    )


def ints(shape, lo=-50, hi=50, dtype=np.int32):
    n = int(np.prod(shape)) if shape else 1
    return st.lists(st.integers(lo, hi), min_size=n, max_size=n).map(lambda v: np.asarray(v, dtype).reshape(shape))


@st.composite
def float_pair(draw):
    s = draw(shapes)
    return draw(floats(s)), draw(floats(s))


@st.composite
def int_pair(draw):
    s = draw(shapes)
    return draw(ints(s)), draw(ints(s, 1, 40))


BINARY_F = [lax.add, lax.sub, lax.mul, lax.div, lax.max, lax.min, lax.atan2, lax.rem]
UNARY_F = [
    (lax.exp, 1e-6), (lax.expm1, 1e-6), (lambda x: lax.log(lax.abs(x) + 1), 1e-6),
    (lambda x: lax.log1p(lax.abs(x)), 1e-6), (lax.tanh, 1e-6), (lax.sin, 1e-6), (lax.cos, 1e-6),
    (lax.floor, 0), (lax.ceil, 0), (lax.round, 0), (lax.abs, 0), (lax.neg, 0), (lax.sign, 0),
    (lambda x: lax.sqrt(lax.abs(x)), 1e-6), (lambda x: lax.rsqrt(lax.abs(x) + 0.5), 1e-6),
    (jax.nn.sigmoid, 1e-6), (lax.is_finite, 0), (lax.erf, 1e-5), (lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), 0),
]
BINARY_I = [lax.add, lax.sub, lax.mul, lax.div, lax.rem, lax.max, lax.min, lax.bitwise_and,
            lax.bitwise_or, lax.bitwise_xor, lax.shift_left, lax.shift_right_arithmetic,
            lax.shift_right_logical]  # fmt: skip


def _float_binary(data, settings_):
    for fn in BINARY_F:
        a, b = data.draw(float_pair())
        if fn is lax.div or fn is lax.rem:
            b = np.where(np.abs(b) < 0.25, np.float32(1.0), b)
        check(fn, a, b, rtol=2e-6)


@FAST
@given(st.data())
def test_float_binary(data):
    _float_binary(data, FAST)


@FAST
@given(st.data())
def test_float_unary(data):
    for fn, tol in UNARY_F:
        s = data.draw(shapes)
        x = data.draw(floats(s))
        check(fn, x, rtol=max(tol, 1e-7), atol=max(tol, 1e-7))


@FAST
@given(st.data())
def test_integer_binary(data):
    for fn in BINARY_I:
        a, b = data.draw(int_pair())
        check(fn, a, b)


@FAST
@given(st.data())
def test_compare_select_clamp_convert(data):
    a, b = data.draw(float_pair())
    check(lambda x, y: (x < y, x >= y, x == y, x != y), a, b)
    check(lambda x, y: lax.select(x < y, x, y), a, b)
    check(lambda x: lax.clamp(np.float32(-1.0), x, np.float32(2.0)), a)
    check(lambda x: (x.astype(jnp.int32), x.astype(jnp.float16), x.astype(jnp.bool_), (x > 0).astype(jnp.float32)), a)
    i, _ = data.draw(int_pair())
    check(lambda x: (x.astype(jnp.float32), x.astype(jnp.int8), x.astype(jnp.uint8)), i)


@st.composite
def matmul_case(draw):
    b, m, k, n = (draw(st.integers(1, 4)) for _ in range(4))
    return draw(floats((b, m, k))), draw(floats((b, k, n)))


@FAST
@given(matmul_case())
def test_dot_general(case):
    a, b = case
    check(lambda x, y: jnp.einsum("bmk,bkn->bmn", x, y), a, b, rtol=1e-5, atol=1e-5)
    check(lambda x, y: jnp.einsum("bmk,bkn->mn", x, y), a, b, rtol=1e-5, atol=1e-5)
    check(lambda x: x[0] @ x[0].T, a, rtol=1e-5, atol=1e-5)


@st.composite
def array_and_axes(draw):
    s = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple))
    axes = draw(st.sets(st.integers(0, len(s) - 1), min_size=1))
    return draw(floats(s)), tuple(sorted(axes))


@FAST
@given(array_and_axes())
def test_reductions(case):
    x, axes = case
    check(lambda v: (jnp.sum(v, axis=axes), jnp.max(v, axis=axes), jnp.min(v, axis=axes),
                     jnp.prod(v, axis=axes)), x, rtol=1e-5, atol=1e-5)  # fmt: skip
    check(lambda v: (jnp.argmax(v, axis=axes[0]), jnp.argmin(v, axis=axes[0])), x)
    check(lambda v: jax.nn.softmax(v, axis=axes[-1]), x, rtol=1e-5, atol=1e-6)


@FAST
@given(array_and_axes())
def test_shape_ops(case):
    x, axes = case
    check(lambda v: (jnp.flip(v, axes), jnp.transpose(v), v.reshape(-1), jnp.concatenate([v, v], axis=axes[0])), x)
    check(lambda v: jnp.broadcast_to(v, (2, *v.shape)), x)
    check(lambda v: v[..., ::2], x)
    check(lambda v: jnp.pad(v, [(1, 2)] * v.ndim, constant_values=3.0), x)
    check(lambda v: lax.pad(v, np.float32(0), [(-1 if d > 1 else 0, 1, 1) for d in v.shape]), x)
    check(lambda v: jnp.cumsum(v, axis=axes[0]), x, rtol=1e-5, atol=1e-5)


@FAST
@given(st.data())
def test_dynamic_slicing_and_indexing(data):
    x = data.draw(floats((5, 4)))
    i = np.int32(data.draw(st.integers(-3, 7)))
    check(lambda v, k: lax.dynamic_slice(v, (k, np.int32(0)), (2, 3)), x, i)
    check(lambda v, k: lax.dynamic_update_slice(v, jnp.ones((2, 2), jnp.float32), (k, k)), x, i)
    idx = data.draw(ints((3,), 0, 4))
    check(lambda v, j: v[j], x, idx)
    check(lambda v, j: v.at[j].add(1.0), x, idx)


@FAST
@given(st.data())
def test_control_flow(data):
    n = np.int32(data.draw(st.integers(0, 6)))
    x = data.draw(floats((3,)))
    check(lambda k, v: lax.fori_loop(0, k, lambda i, acc: acc * 0.5 + i, v), n, x, rtol=1e-6)
    check(lambda k, v: lax.cond(k > 2, lambda u: u + 1.0, lambda u: u * 2.0, v), n, x)
    check(lambda k, v: lax.switch(k, [lambda u: u, lambda u: -u, lambda u: u * u], v), n, x)


@FAST
@given(st.data())
def test_convolution_and_pooling(data):
    n, c, f = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    x = data.draw(floats((n, 6, 6, c)))
    w = data.draw(floats((3, 3, c, f)))
    stride = data.draw(st.integers(1, 2))
    pad = data.draw(st.sampled_from(["SAME", "VALID"]))
    dn = ("NHWC", "HWIO", "NHWC")
    check(lambda a, b: lax.conv_general_dilated(a, b, (stride, stride), pad, dimension_numbers=dn), x, w,
          rtol=1e-4, atol=1e-4)  # fmt: skip
    check(lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (1, 2, 2, 1), (1, stride, stride, 1), pad), x)
    check(lambda a: lax.reduce_window(a, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME"), x, rtol=1e-5, atol=1e-5)


@FAST
@given(st.data())
def test_sort_and_top_k(data):
    x = data.draw(floats((3, 5)))
    check(lambda v: jnp.sort(v, axis=-1), x)
    check(lambda v: jnp.argsort(v, axis=0, stable=True), x)
    check(lambda v: lax.top_k(v, 2), x)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_float_binary_many(data):
    _float_binary(data, SLOW)
