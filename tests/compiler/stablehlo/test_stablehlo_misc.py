"""StableHLO's sort, random-number, linear-algebra, batch-norm, bitcast,
reduce_precision, map, tuple and composite ops through
``stablehlo-legalize-to-linalg``: small programs against numpy, and JAX
programs against ``jax.jit`` (skipped without JAX)."""

from __future__ import annotations

import numpy as np
import pytest
from shlo_jax_check import check_jax, run

from tfrt.diagnostics import DiagnosticError

SORT_PAIRS = """
func.func @main(%k: tensor<3x9xf32>, %v: tensor<3x9xi32>) -> (tensor<3x9xf32>, tensor<3x9xi32>) {
  %0:2 = "stablehlo.sort"(%k, %v) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<3x9xf32>, tensor<3x9xi32>) -> (tensor<3x9xf32>, tensor<3x9xi32>)
  return %0#0, %0#1 : tensor<3x9xf32>, tensor<3x9xi32>
}"""


def test_sort_is_stable_with_values_carried_along():
    """Keys with ties, -0.0/+0.0 and NaN under a total order; the values are the
    original positions, so a stable sort gives numpy's stable argsort."""
    k = np.array(
        [
            [3, 1, 2, 1, 3, 0, 2, 1, 5],
            [np.nan, -0.0, 0.0, -1, 7, -np.inf, 0.0, -0.0, 2],
            [5, 4, 3, 2, 1, 0, -1, -2, -3],
        ],
        np.float32,
    )
    v = np.tile(np.arange(9, dtype=np.int32), (3, 1))
    keys, vals = run(SORT_PAIRS, k, v)
    # numpy orders -0.0 and 0.0 as equal: the sign breaks the tie for the reference
    order = np.array([np.lexsort(((~np.signbit(row)).astype(int), row)) for row in k])
    np.testing.assert_array_equal(vals, order)
    np.testing.assert_array_equal(
        keys.view(np.int32), np.take_along_axis(k, order, 1).view(np.int32)
    )


def test_sort_descending_along_the_first_dimension():
    text = """
    func.func @main(%x: tensor<7x2xi32>) -> tensor<7x2xi32> {
      %0 = "stablehlo.sort"(%x) <{dimension = 0 : i64}> ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %gt : tensor<i1>
      }) : (tensor<7x2xi32>) -> tensor<7x2xi32>
      return %0 : tensor<7x2xi32>
    }"""
    x = np.random.default_rng(0).integers(-50, 50, (7, 2)).astype(np.int32)
    np.testing.assert_array_equal(run(text, x), -np.sort(-x, axis=0))


RBG = """
func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<{shape}x{t}>) {{
  %0:2 = "stablehlo.rng_bit_generator"(%s) <{{rng_algorithm = #stablehlo<rng_algorithm {alg}>}}>
      : (tensor<2xui64>) -> (tensor<2xui64>, tensor<{shape}x{t}>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<{shape}x{t}>
}}"""


def test_rng_bit_generator_known_answers():
    """Threefry-2x32 and Philox-4x32 as XLA computes them (values from jax.jit on
    the CPU, lax.rng_bit_generator with key [1, 2])."""
    state = np.array([1, 2], np.uint64)
    st, bits = run(RBG.format(shape="2x3", t="ui32", alg="THREE_FRY"), state)
    assert list(st.view(np.uint64)) == [1, 5]
    assert list(bits.view(np.uint32).ravel()) == THREE_FRY_1_2
    st, bits = run(RBG.format(shape="5", t="ui64", alg="PHILOX"), state)
    assert list(st.view(np.uint64)) == [1, 5]
    assert list(bits.view(np.uint64)) == PHILOX_1_2_U64


# jax.lax.rng_bit_generator(np.array([1, 2], np.uint64), (2, 3), np.uint32, RNG_THREE_FRY)
THREE_FRY_1_2 = [43444564, 3979645651, 1672743891, 2150618427, 3745730563, 4240503393]
# ... (5,), np.uint64, RNG_PHILOX
PHILOX_1_2_U64 = [
    12229731395331991369,
    3437131457114678231,
    13465615291114923006,
    9328616520744100567,
    10786996542579945571,
]


def test_rng_bit_generator_iree_state_layout():
    """A 4xi32 state: key words 0, 1 and counter words 2 (high), 3 (low), as IREE
    reads it; IREE's e2e test expects these numbers."""
    text = """
    func.func @main(%s: tensor<4xi32>) -> tensor<8xi32> {
      %0:2 = "stablehlo.rng_bit_generator"(%s) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}>
          : (tensor<4xi32>) -> (tensor<4xi32>, tensor<8xi32>)
      return %0#1 : tensor<8xi32>
    }"""
    got = run(text, np.array([1, 2, 3, 4], np.int32))
    want = [
        -1997982863,
        -261361928,
        -1008514867,
        1226850200,
        1419974734,
        -277475325,
        1033030661,
        -1926332264,
    ]
    assert list(got) == want


RNG = """
func.func @main(%a: tensor<{t}>, %b: tensor<{t}>) -> tensor<{shape}x{t}> {{
  %s = stablehlo.constant dense<[{dims}]> : tensor<{rank}xi64>
  %0 = stablehlo.rng %a, %b, %s, distribution = {dist} : (tensor<{t}>, tensor<{t}>, tensor<{rank}xi64>) -> tensor<{shape}x{t}>
  return %0 : tensor<{shape}x{t}>
}}"""


def test_rng_uniform_and_normal_as_stablehlo_and_iree_define_them():
    """The numbers are implementation-defined; these are the ones IREE's e2e tests expect."""
    uni = run(
        RNG.format(t="f32", shape="3x3", dims="3, 3", rank=2, dist="UNIFORM"),
        np.float32(-10),
        np.float32(10),
    )
    np.testing.assert_allclose(uni[0], [6.55154, -8.30982, -3.17117], atol=1e-4)
    normal = run(
        RNG.format(t="f32", shape="3x5", dims="3, 5", rank=2, dist="NORMAL"),
        np.float32(0),
        np.float32(1),
    )
    np.testing.assert_allclose(
        normal[0], [0.570861, 0.317593, -0.726538, 1.45925, -1.59632], atol=1e-5
    )
    np.testing.assert_allclose(
        normal[2], [0.645563, 0.543174, 0.2255, 0.0809385, -1.17198], atol=1e-5
    )


def test_rng_it_does_not_define_is_refused_at_the_op():
    text = RNG.format(t="i32", shape="3", dims="3", rank=1, dist="UNIFORM")
    with pytest.raises(DiagnosticError) as info:
        run(text, np.int32(0), np.int32(9))
    assert "distribution UNIFORM of 'i32' is not supported" in str(info.value)
    assert info.value.diagnostics[0].loc.line == 4


def test_cholesky_and_triangular_solve():
    text = """
    func.func @chol(%a: tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>) {
      %l = "stablehlo.cholesky"(%a) <{lower = true}> : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
      %u = "stablehlo.cholesky"(%a) <{lower = false}> : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
      return %l, %u : tensor<2x4x4xf32>, tensor<2x4x4xf32>
    }
    func.func @solve(%a: tensor<2x4x4xf32>, %b: tensor<2x4x3xf32>, %c: tensor<2x3x4xf32>)
        -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x3x4xf32>) {
      %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, unit_diagonal = false,
          transpose_a = #stablehlo<transpose NO_TRANSPOSE>}> : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
      %1 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = false, unit_diagonal = true,
          transpose_a = #stablehlo<transpose TRANSPOSE>}> : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
      %2 = "stablehlo.triangular_solve"(%a, %c) <{left_side = false, lower = true, unit_diagonal = false,
          transpose_a = #stablehlo<transpose TRANSPOSE>}> : (tensor<2x4x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
      return %0, %1, %2 : tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x3x4xf32>
    }"""
    import tfrt.api

    program = tfrt.api.load(text)
    rng = np.random.default_rng(1)
    m = rng.standard_normal((2, 4, 4))
    spd = (m @ m.transpose(0, 2, 1) + 4 * np.eye(4)).astype(np.float32)
    spd_lower_only = np.tril(spd) + np.triu(
        np.full((4, 4), np.nan, np.float32), 1
    )  # the other triangle unread
    low, up = program.call("chol", spd)
    np.testing.assert_allclose(low, np.linalg.cholesky(spd), atol=1e-5)
    np.testing.assert_allclose(up, np.linalg.cholesky(spd).transpose(0, 2, 1), atol=1e-5)
    low2, _ = program.call("chol", spd_lower_only)
    np.testing.assert_allclose(low2, np.linalg.cholesky(spd), atol=1e-5)
    a = rng.standard_normal((2, 4, 4)).astype(np.float32) + 3 * np.eye(4, dtype=np.float32)
    b = rng.standard_normal((2, 4, 3)).astype(np.float32)
    c = rng.standard_normal((2, 3, 4)).astype(np.float32)
    x0, x1, x2 = program.call("solve", a, b, c)
    lower, unit_upper = np.tril(a), np.triu(a, 1) + np.eye(4)
    np.testing.assert_allclose(lower @ x0, b, atol=1e-4)
    np.testing.assert_allclose(unit_upper.transpose(0, 2, 1) @ x1, b, atol=1e-4)
    np.testing.assert_allclose(x2 @ lower.transpose(0, 2, 1), c, atol=1e-4)


def test_batch_norm_training_and_grad_follow_the_spec_decomposition():
    text = """
    func.func @main(%x: tensor<4x3x2xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %dy: tensor<4x3x2xf32>)
        -> (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>) {
      %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) <{epsilon = 1.0e-03 : f32, feature_index = 1 : i64}>
          : (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>)
      %gx, %gs, %go = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %dy) <{epsilon = 1.0e-03 : f32, feature_index = 1 : i64}>
          : (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x2xf32>)
          -> (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>)
      return %y, %m, %v, %gx, %gs, %go : tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>
    }"""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 2)).astype(np.float32)
    s, o = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    dy = rng.standard_normal((4, 3, 2)).astype(np.float32)
    y, m, v, gx, gs, go = run(text, x, s, o, dy)
    x64 = x.astype(np.float64)
    mean, var = x64.mean(axis=(0, 2)), x64.var(axis=(0, 2))
    b = lambda t: t[None, :, None]
    norm = (x64 - b(mean)) / np.sqrt(b(var) + 1e-3)
    np.testing.assert_allclose(m, mean, atol=1e-5)
    np.testing.assert_allclose(v, var, atol=1e-5)
    np.testing.assert_allclose(y, b(s) * norm + b(o), atol=1e-5)
    # the gradient of sum(y * dy), by the chain rule
    n = 8
    g_norm = dy * b(s)
    want_gx = (
        n * g_norm
        - g_norm.sum(axis=(0, 2), keepdims=True)
        - norm * (g_norm * norm).sum(axis=(0, 2), keepdims=True)
    ) / (n * np.sqrt(b(var) + 1e-3))
    np.testing.assert_allclose(gx, want_gx, atol=1e-4)
    np.testing.assert_allclose(gs, (dy * norm).sum(axis=(0, 2)), atol=1e-4)
    np.testing.assert_allclose(go, dy.sum(axis=(0, 2)), atol=1e-5)


def test_bitcast_convert_widths_map_tuple_and_composite():
    text = """
    func.func private @twice(%a: tensor<3xf32>) -> tensor<3xf32> {
      %0 = stablehlo.add %a, %a : tensor<3xf32>
      return %0 : tensor<3xf32>
    }
    func.func @main(%x: tensor<3xf32>, %y: tensor<4xi32>) -> (tensor<3x4xui8>, tensor<2xi64>, tensor<3xf32>, tensor<3xf32>) {
      %0 = stablehlo.bitcast_convert %x : (tensor<3xf32>) -> tensor<3x4xui8>
      %r = stablehlo.reshape %y : (tensor<4xi32>) -> tensor<2x2xi32>
      %1 = stablehlo.bitcast_convert %r : (tensor<2x2xi32>) -> tensor<2xi64>
      %t = stablehlo.tuple %x, %y : tuple<tensor<3xf32>, tensor<4xi32>>
      %g = stablehlo.get_tuple_element %t[0] : (tuple<tensor<3xf32>, tensor<4xi32>>) -> tensor<3xf32>
      %m = "stablehlo.map"(%x, %g) <{dimensions = array<i64: 0>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %p = stablehlo.multiply %a, %b : tensor<f32>
        stablehlo.return %p : tensor<f32>
      }) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %c = stablehlo.composite "my.twice" %m {decomposition = @twice} : (tensor<3xf32>) -> tensor<3xf32>
      return %0, %1, %m, %c : tensor<3x4xui8>, tensor<2xi64>, tensor<3xf32>, tensor<3xf32>
    }"""
    x = np.array([1.5, -2.0, 3e-7], np.float32)
    y = np.array([1, -2, 3, -4], np.int32)
    b8, b64, m, c = run(text, x, y)
    np.testing.assert_array_equal(
        b8.view(np.uint8), x.view(np.uint8).reshape(3, 4)
    )  # little-endian
    np.testing.assert_array_equal(b64, y.view(np.int64))
    np.testing.assert_array_equal(m, x * x)
    np.testing.assert_array_equal(c, 2 * x * x)


def test_reduce_precision_rounds_to_nearest_even_and_saturates():
    text = """
    func.func @main(%x: tensor<6xf32>) -> tensor<6xf32> {
      %0 = stablehlo.reduce_precision %x, format = e5m2 : tensor<6xf32>
      return %0 : tensor<6xf32>
    }"""
    x = np.array([1.125, 1.375, 70000.0, 1e-30, -0.0, np.nan], np.float32)
    got = run(text, x)
    # 1.125 ties to 1.0, 1.375 to 1.5; beyond e5m2's range: inf; below it: 0
    np.testing.assert_array_equal(got[:5], np.array([1.0, 1.5, np.inf, 0.0, -0.0], np.float32))
    assert np.signbit(got[4]) and np.isnan(got[5])


# --------------------------------------------------------------------------
# against jax.jit


def test_jax_sorts():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    rng = np.random.default_rng(3)
    x = rng.integers(0, 5, (3, 13)).astype(np.float32)
    x[0, 3] = np.nan
    check_jax(lambda x: jnp.sort(x, axis=1), x)
    check_jax(lambda x: jnp.argsort(x, axis=1, stable=True), x)


@pytest.mark.slow
def test_jax_sort_rng_and_precision_sweep():
    jax = pytest.importorskip("jax")
    jnp, lax = jax.numpy, jax.lax
    rng = np.random.default_rng(4)
    x = rng.integers(0, 5, (3, 13)).astype(np.float32)
    x[0, 3], x[1, 5], x[1, 6] = np.nan, -0.0, 0.0
    xi = rng.integers(-100, 100, (4, 7, 5)).astype(np.int32)
    check_jax(lambda x: jnp.sort(x, axis=0), x)
    check_jax(lambda x: jnp.argsort(-x, axis=1, stable=True, descending=True), x)
    check_jax(lambda a, b: jnp.lexsort((a, b), axis=-1), x, x[::-1].copy())
    check_jax(lambda x: jnp.sort(x, axis=1), xi)
    check_jax(
        lambda x: jnp.sort(x), rng.integers(0, 2**32 - 1, (17,), dtype=np.uint64).astype(np.uint32)
    )
    check_jax(lambda x: jnp.sort(x, axis=1), rng.standard_normal((2, 1000)).astype(np.float32))
    x64 = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)  # 64-bit keys and bits
    try:
        key = np.array([0x123456789ABCDEF0, 0xFFFFFFFFFFFFFFF0], np.uint64)
        for alg in (
            lax.RandomAlgorithm.RNG_THREE_FRY,
            lax.RandomAlgorithm.RNG_PHILOX,
            lax.RandomAlgorithm.RNG_DEFAULT,
        ):
            for shape, dt in [
                ((8,), np.uint32),
                ((3, 5), np.uint32),
                ((3,), np.uint64),
                ((5, 3), np.uint16),
                ((), np.uint32),
                ((7,), np.uint64),
                ((2, 3, 4), np.uint8),
            ]:
                check_jax(
                    lambda k, shape=shape, dt=dt, alg=alg: lax.rng_bit_generator(
                        k, shape, dtype=dt, algorithm=alg
                    ),
                    key,
                )
    finally:
        jax.config.update("jax_enable_x64", x64)
    xs = (rng.standard_normal(1000) * 10.0 ** rng.integers(-45, 39, 1000)).astype(np.float32)
    xs[:3] = [np.nan, np.inf, -0.0]
    for e, m in [(5, 2), (8, 7), (5, 10), (4, 3), (8, 0), (2, 1), (11, 52), (3, 30)]:
        check_jax(lambda x, e=e, m=m: lax.reduce_precision(x, e, m), xs)


def test_fft_whose_complex_values_only_real_and_imag_read():
    """The kernels hold no complex tensors: an fft converts when stablehlo.complex
    builds its complex operand and stablehlo.real/imag take its results."""
    text = """
    func.func @main(%x: tensor<3x8xf32>, %y: tensor<3x8xf32>)
        -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) {
      %0 = stablehlo.fft %x, type = RFFT, length = [8] : (tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>
      %1 = stablehlo.real %0 : (tensor<3x5xcomplex<f32>>) -> tensor<3x5xf32>
      %2 = stablehlo.imag %0 : (tensor<3x5xcomplex<f32>>) -> tensor<3x5xf32>
      %c = stablehlo.complex %x, %y : tensor<3x8xcomplex<f32>>
      %3 = stablehlo.fft %c, type = IFFT, length = [3, 8] : (tensor<3x8xcomplex<f32>>) -> tensor<3x8xcomplex<f32>>
      %4 = stablehlo.real %3 : (tensor<3x8xcomplex<f32>>) -> tensor<3x8xf32>
      %5 = stablehlo.imag %3 : (tensor<3x8xcomplex<f32>>) -> tensor<3x8xf32>
      %h = stablehlo.complex %1, %2 : tensor<3x5xcomplex<f32>>
      %6 = stablehlo.fft %h, type = IRFFT, length = [8] : (tensor<3x5xcomplex<f32>>) -> tensor<3x8xf32>
      return %1, %2, %4, %5, %6 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>
    }"""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    y = rng.standard_normal((3, 8)).astype(np.float32)
    re, im, ire, iim, back = run(text, x, y)
    np.testing.assert_allclose(re + 1j * im, np.fft.rfft(x), atol=1e-5)
    np.testing.assert_allclose(ire + 1j * iim, np.fft.ifft2(x + 1j * y), atol=1e-6)
    np.testing.assert_allclose(back, x, atol=1e-5)


def test_fft_of_a_complex_value_used_elsewhere():
    text = """
    func.func @main(%x: tensor<8xf32>) -> tensor<5xf32> {
      %0 = stablehlo.fft %x, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
      %1 = stablehlo.abs %0 : (tensor<5xcomplex<f32>>) -> tensor<5xf32>
      return %1 : tensor<5xf32>
    }"""
    x = np.arange(8, dtype=np.float32) - 2.5
    np.testing.assert_allclose(run(text, x), np.abs(np.fft.rfft(x)), rtol=1e-5, atol=1e-5)
