"""Complex tensors (complex64, complex128) through stablehlo-legalize-to-linalg,
the lowering and the elementwise kernels: hand-written programs checked
against numpy, and JAX's FFTs checked against ``jax.jit`` (skipped without JAX)."""

from __future__ import annotations

import numpy as np
import pytest
from shlo_jax_check import run

from tfrt.diagnostics import DiagnosticError
from tfrt.kernels.expr import ExprError, check, compile_array
from tfrt.kernels.tfrt_check import compare_almost_eq

RNG = np.random.default_rng(7)


def cplx(shape, dtype=np.complex64):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


# -- the expression language -------------------------------------------------


def test_expr_complex_functions():
    z = np.array([1 + 2j, 0, -1j, 3 - 4j], np.complex64)
    w = np.array([2 - 1j, 1, 3, 0.5j], np.complex64)
    t = ("complex<f32>", "complex<f32>")
    assert check("a0 * a1", t) == "complex<f32>"
    assert check("cabs(a0)", t) == "f32"
    assert check("eq(a0, a1)", t) == "i1"
    out = compile_array("a0 / a1 + exp(a0)", t)(np.empty(4, np.complex64), z, w)
    np.testing.assert_allclose(out, z / w + np.exp(z), rtol=1e-6)
    out = compile_array("cabs(a0)", t)(np.empty(4, np.float32), z, w)
    np.testing.assert_array_equal(out, np.array([np.sqrt(5), 0, 1, 5], np.float32))
    out = compile_array("complex(a0, a1)", ("f64", "f64"))(
        np.empty(2, np.complex128), np.array([1.0, np.inf]), np.array([-2.0, np.nan])
    )
    assert out[0] == 1 - 2j and np.isinf(out[1].real) and np.isnan(out[1].imag)


@pytest.mark.parametrize("expr", ["lt(a0, a0)", "maximum(a0, a0)", "abs(a0)", "floor(a0)", "real(cabs(a0))"])
def test_expr_refuses_what_complex_values_do_not_have(expr):
    with pytest.raises(ExprError):
        check(expr, ("complex<f32>",))


def test_check_compares_complex_part_by_part():
    a = np.array([1 + 2j, 3 - 1j], np.complex64)
    assert compare_almost_eq(a, a + 1e-6, 1e-4, 0.0) is None
    message, _ = compare_almost_eq(a, np.array([1 + 2j, 3 + 1j], np.complex64), 1e-4, 0.0)
    assert "index [1]" in message and "imag parts" in message and "(3.0, 1.0)" in message


# -- element-wise programs ---------------------------------------------------


def test_complex_arithmetic_and_constants():
    text = """
    func.func @main(%a: tensor<3xcomplex<f32>>, %b: tensor<3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3xf32>, tensor<3xi1>) {
      %c = stablehlo.constant dense<[(1.0, 2.0), (0.5, -1.0), (3.0, 0.0)]> : tensor<3xcomplex<f32>>
      %0 = stablehlo.multiply %a, %c : tensor<3xcomplex<f32>>
      %1 = stablehlo.divide %0, %b : tensor<3xcomplex<f32>>
      %2 = stablehlo.subtract %1, %a : tensor<3xcomplex<f32>>
      %3 = stablehlo.abs %2 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
      %4 = stablehlo.compare EQ, %a, %b : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xi1>
      return %2, %3, %4 : tensor<3xcomplex<f32>>, tensor<3xf32>, tensor<3xi1>
    }"""
    a, b = cplx(3), cplx(3)
    b[1] = a[1]
    got, mag, eq = run(text, a, b)
    want = a * np.array([1 + 2j, 0.5 - 1j, 3], np.complex64) / b - a
    assert got.dtype == np.complex64 and mag.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(mag, np.abs(want), rtol=1e-5)
    np.testing.assert_array_equal(eq, [False, True, False])


def test_complex128_math_real_imag_complex():
    text = """
    func.func @main(%re: tensor<4xf64>, %im: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xcomplex<f64>>) {
      %z = stablehlo.complex %re, %im : tensor<4xcomplex<f64>>
      %0 = stablehlo.exponential %z : tensor<4xcomplex<f64>>
      %1 = stablehlo.sqrt %z : tensor<4xcomplex<f64>>
      %2 = stablehlo.add %0, %1 : tensor<4xcomplex<f64>>
      %3 = stablehlo.tanh %2 : tensor<4xcomplex<f64>>
      %r = stablehlo.real %3 : (tensor<4xcomplex<f64>>) -> tensor<4xf64>
      %i = stablehlo.imag %3 : (tensor<4xcomplex<f64>>) -> tensor<4xf64>
      %4 = stablehlo.log %z : tensor<4xcomplex<f64>>
      return %r, %i, %4 : tensor<4xf64>, tensor<4xf64>, tensor<4xcomplex<f64>>
    }"""
    re, im = np.array([0.0, 1.0, -1.0, 0.5]), np.array([1.0, -1.0, 0.25, 2.0])
    z = re + 1j * im
    r, i, lg = run(text, re, im)
    want = np.tanh(np.exp(z) + np.sqrt(z))
    np.testing.assert_allclose(r, want.real, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(i, want.imag, rtol=1e-12, atol=1e-14)
    assert lg.dtype == np.complex128
    np.testing.assert_allclose(lg, np.log(z), rtol=1e-12)


def test_complex_structural_ops_and_reduce():
    text = """
    func.func @main(%a: tensor<2x3xcomplex<f32>>) -> (tensor<3x2xcomplex<f32>>, tensor<4x3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<2x5xcomplex<f32>>) {
      %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
      %r = stablehlo.reverse %a, dims = [0] : tensor<2x3xcomplex<f32>>
      %1 = stablehlo.concatenate %a, %r, dim = 0 : (tensor<2x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>) -> tensor<4x3xcomplex<f32>>
      %z = stablehlo.constant dense<(0.5, -1.0)> : tensor<complex<f32>>
      %2 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2x3xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3xcomplex<f32>>
      %3 = stablehlo.pad %a, %z, low = [0, 1], high = [0, 1], interior = [0, 0] : (tensor<2x3xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2x5xcomplex<f32>>
      return %0, %1, %2, %3 : tensor<3x2xcomplex<f32>>, tensor<4x3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<2x5xcomplex<f32>>
    }"""
    a = cplx((2, 3))
    t, c, s, p = run(text, a)
    np.testing.assert_array_equal(t, a.T)
    np.testing.assert_array_equal(c, np.concatenate([a, a[::-1]]))
    np.testing.assert_allclose(s, a.sum(0) + (0.5 - 1j), rtol=1e-6)
    np.testing.assert_array_equal(p, np.pad(a, ((0, 0), (1, 1)), constant_values=0.5 - 1j))


def test_complex_dot_general():
    text = """
    func.func @main(%a: tensor<2x3x4xcomplex<f64>>, %b: tensor<2x4x5xcomplex<f64>>) -> tensor<2x3x5xcomplex<f64>> {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xcomplex<f64>>, tensor<2x4x5xcomplex<f64>>) -> tensor<2x3x5xcomplex<f64>>
      return %0 : tensor<2x3x5xcomplex<f64>>
    }"""
    a, b = cplx((2, 3, 4), np.complex128), cplx((2, 4, 5), np.complex128)
    np.testing.assert_allclose(run(text, a, b), a @ b, rtol=1e-12)


def test_ordering_complex_values_is_refused_at_the_op():
    text = """
    func.func @main(%a: tensor<2xcomplex<f32>>) -> tensor<2xi1> {
      %0 = stablehlo.compare LT, %a, %a : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xi1>
      return %0 : tensor<2xi1>
    }"""
    with pytest.raises(DiagnosticError) as info:
        run(text, cplx(2))
    assert info.value.diagnostics[0].loc.line == 3


# -- fft ---------------------------------------------------------------------


def test_fft_of_a_complex_argument_to_a_complex_result():
    text = """
    func.func @main(%x: tensor<2x8xcomplex<f32>>) -> (tensor<2x8xcomplex<f32>>, tensor<2x8xcomplex<f32>>) {
      %0 = stablehlo.fft %x, type = FFT, length = [8] : (tensor<2x8xcomplex<f32>>) -> tensor<2x8xcomplex<f32>>
      %1 = stablehlo.fft %x, type = IFFT, length = [2, 8] : (tensor<2x8xcomplex<f32>>) -> tensor<2x8xcomplex<f32>>
      return %0, %1 : tensor<2x8xcomplex<f32>>, tensor<2x8xcomplex<f32>>
    }"""
    x = cplx((2, 8))
    f, i2 = run(text, x)
    np.testing.assert_allclose(f, np.fft.fft(x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(i2, np.fft.ifft2(x), rtol=1e-5, atol=1e-6)


def test_rfft_irfft_complex128():
    text = """
    func.func @main(%x: tensor<3x6xf64>) -> (tensor<3x4xcomplex<f64>>, tensor<3x6xf64>) {
      %0 = stablehlo.fft %x, type = RFFT, length = [6] : (tensor<3x6xf64>) -> tensor<3x4xcomplex<f64>>
      %1 = stablehlo.multiply %0, %0 : tensor<3x4xcomplex<f64>>
      %2 = stablehlo.fft %1, type = IRFFT, length = [3, 6] : (tensor<3x4xcomplex<f64>>) -> tensor<3x6xf64>
      return %0, %2 : tensor<3x4xcomplex<f64>>, tensor<3x6xf64>
    }"""
    x = RNG.standard_normal((3, 6))
    r, back = run(text, x)
    np.testing.assert_allclose(r, np.fft.rfft(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(back, np.fft.irfft2(np.fft.rfft(x) ** 2, s=(3, 6)), rtol=1e-10, atol=1e-12)


def test_fft_of_a_real_operand_is_refused():
    text = """
    func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
      %0 = stablehlo.fft %x, type = IFFT, length = [8] : (tensor<8xf32>) -> tensor<8xf32>
      return %0 : tensor<8xf32>
    }"""
    with pytest.raises(DiagnosticError) as info:
        run(text, np.zeros(8, np.float32))
    assert info.value.diagnostics[0].loc.line == 3


# -- JAX ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "fft2", "irfftn"])
def test_jax_fft(name):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    import tfrt.api

    fn = {
        "fft": jnp.fft.fft, "ifft": jnp.fft.ifft, "rfft": jnp.fft.rfft, "irfft": jnp.fft.irfft,
        "fft2": lambda v: jnp.abs(jnp.fft.fft2(v)), "irfftn": jnp.fft.irfftn,
    }[name]  # fmt: skip
    x = RNG.standard_normal((3, 8)).astype(np.float32) if name == "rfft" else cplx((3, 8))
    program = tfrt.api.load(jax.jit(fn).lower(x).as_text())
    got = program.call("main", x)
    want = np.asarray(jax.jit(fn)(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
