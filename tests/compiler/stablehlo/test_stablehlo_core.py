"""StableHLO's element-wise, shape, contraction, reduction and control-flow ops,
compiled through ``stablehlo-legalize-to-linalg`` and run, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tfrt.api
from tfrt.diagnostics import DiagnosticError


def run(text: str, *args, fn: str = "main"):
    program = tfrt.api.load(text)
    out = program.call(fn, *args)
    return out


def test_elementwise_chain_and_broadcast():
    text = """
    func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
      %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
      %1 = stablehlo.add %a, %0 : tensor<2x3xf32>
      %2 = stablehlo.exponential %1 : tensor<2x3xf32>
      %3 = stablehlo.negate %2 : tensor<2x3xf32>
      return %3 : tensor<2x3xf32>
    }"""
    a = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    b = np.array([0.5, -1.0, 2.0], np.float32)
    np.testing.assert_allclose(run(text, a, b), -np.exp(a + b), rtol=1e-6)


def test_integer_semantics_signed_and_unsigned():
    text = """
    func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
      %0 = stablehlo.divide %a, %b : tensor<4xi32>
      %1 = stablehlo.remainder %a, %b : tensor<4xi32>
      %2 = stablehlo.shift_left %a, %b : tensor<4xi32>
      return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
    }"""
    a = np.array([-7, 7, -8, 5], np.int32)
    b = np.array([2, -2, 3, 40], np.int32)
    q, r, s = run(text, a, b)
    np.testing.assert_array_equal(q, np.array([-3, -3, -2, 0], np.int32))  # toward zero
    np.testing.assert_array_equal(r, np.array([-1, 1, -2, 5], np.int32))  # sign of the dividend
    np.testing.assert_array_equal(s, np.array([-28, 0, -64, 0], np.int32))  # shift >= 32: 0


def test_compare_select_clamp_and_convert():
    text = """
    func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
      %p = stablehlo.compare GT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %s = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
      %lo = stablehlo.constant dense<-1.0> : tensor<f32>
      %hi = stablehlo.constant dense<1.5> : tensor<f32>
      %c = stablehlo.clamp %lo, %s, %hi : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      %i = stablehlo.convert %c : (tensor<4xf32>) -> tensor<4xi32>
      return %c, %i : tensor<4xf32>, tensor<4xi32>
    }"""
    a = np.array([-3.0, 0.25, 2.0, -0.5], np.float32)
    b = np.array([-4.0, 1.0, 0.0, -0.75], np.float32)
    c, i = run(text, a, b)
    want = np.clip(np.maximum(a, b), -1.0, 1.5)
    np.testing.assert_array_equal(c, want)
    np.testing.assert_array_equal(i, np.trunc(want).astype(np.int32))


def test_dot_general_with_batch_and_contracting_dims():
    text = """
    func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x5x4xf32>) -> tensor<2x3x5xf32> {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
      return %0 : tensor<2x3x5xf32>
    }"""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((2, 5, 4)).astype(np.float32)
    np.testing.assert_allclose(run(text, a, b), np.einsum("bik,bjk->bij", a, b), rtol=1e-5, atol=1e-6)


def test_reduce_with_a_two_operand_body_is_argmax():
    text = """
    func.func @main(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
      %iota = stablehlo.iota dim = 1 : tensor<3x4xi32>
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %r:2 = stablehlo.reduce(%x init: %ninf), (%iota init: %zero) across dimensions = [1] : (tensor<3x4xf32>, tensor<3x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
       reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>) {
        %gt = stablehlo.compare GT, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %eq = stablehlo.compare EQ, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %lt = stablehlo.compare LT, %b, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %tie = stablehlo.and %eq, %lt : tensor<i1>
        %pick = stablehlo.or %gt, %tie : tensor<i1>
        %v = stablehlo.select %pick, %a, %c : tensor<i1>, tensor<f32>
        %i = stablehlo.select %pick, %b, %d : tensor<i1>, tensor<i32>
        stablehlo.return %v, %i : tensor<f32>, tensor<i32>
      }
      return %r#0, %r#1 : tensor<3xf32>, tensor<3xi32>
    }"""
    x = np.array([[1, 5, 5, 2], [-1, -2, -3, -4], [0, 0, 9, 9]], np.float32)
    v, i = run(text, x)
    np.testing.assert_array_equal(v, x.max(axis=1))
    np.testing.assert_array_equal(i, x.argmax(axis=1).astype(np.int32))


def test_shape_ops_slice_pad_concatenate_reverse_transpose_reshape():
    text = """
    func.func @main(%x: tensor<3x4xi32>) -> (tensor<2x2xi32>, tensor<4x8xi32>, tensor<6x4xi32>, tensor<3x4xi32>, tensor<4x3xi32>, tensor<2x6xi32>) {
      %s = stablehlo.slice %x [0:3:2, 1:4:2] : (tensor<3x4xi32>) -> tensor<2x2xi32>
      %c0 = stablehlo.constant dense<-1> : tensor<i32>
      %p = stablehlo.pad %x, %c0, low = [1, -1], high = [0, 2], interior = [0, 1] : (tensor<3x4xi32>, tensor<i32>) -> tensor<4x8xi32>
      %c = stablehlo.concatenate %x, %x, dim = 0 : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<6x4xi32>
      %r = stablehlo.reverse %x, dims = [0, 1] : tensor<3x4xi32>
      %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<3x4xi32>) -> tensor<4x3xi32>
      %h = stablehlo.reshape %x : (tensor<3x4xi32>) -> tensor<2x6xi32>
      return %s, %p, %c, %r, %t, %h : tensor<2x2xi32>, tensor<4x8xi32>, tensor<6x4xi32>, tensor<3x4xi32>, tensor<4x3xi32>, tensor<2x6xi32>
    }"""
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    s, p, c, r, t, h = run(text, x)
    np.testing.assert_array_equal(s, x[0:3:2, 1:4:2])
    dil = np.full((3, 7), -1, np.int32)
    dil[:, ::2] = x
    want_p = np.full((4, 9), -1, np.int32)  # low [1, 0], high [0, 2]: then drop column 0
    want_p[1:, :7] = dil
    np.testing.assert_array_equal(p, want_p[:, 1:])
    np.testing.assert_array_equal(c, np.concatenate([x, x]))
    np.testing.assert_array_equal(r, x[::-1, ::-1])
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_array_equal(h, x.reshape(2, 6))


def test_dynamic_slice_clamps_its_start_indices():
    text = """
    func.func @main(%x: tensor<5xi32>, %i: tensor<i32>, %u: tensor<2xi32>) -> (tensor<2xi32>, tensor<5xi32>) {
      %s = stablehlo.dynamic_slice %x, %i, sizes = [2] : (tensor<5xi32>, tensor<i32>) -> tensor<2xi32>
      %d = stablehlo.dynamic_update_slice %x, %u, %i : (tensor<5xi32>, tensor<2xi32>, tensor<i32>) -> tensor<5xi32>
      return %s, %d : tensor<2xi32>, tensor<5xi32>
    }"""
    x = np.arange(5, dtype=np.int32)
    u = np.array([70, 80], np.int32)
    for start, clamped in ((1, 1), (4, 3), (-3, 0)):
        s, dd = run(text, x, np.int32(start), u)
        np.testing.assert_array_equal(s, x[clamped:clamped + 2])
        want = x.copy()
        want[clamped:clamped + 2] = u
        np.testing.assert_array_equal(dd, want)


def test_while_loop_and_case():
    text = """
    func.func @main(%n: tensor<i32>, %k: tensor<i32>) -> (tensor<i32>, tensor<f32>) {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %r:2 = stablehlo.while(%i = %zero, %acc = %zero) : tensor<i32>, tensor<i32>
       cond {
        %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %i1 = stablehlo.add %i, %one : tensor<i32>
        %a1 = stablehlo.add %acc, %i1 : tensor<i32>
        stablehlo.return %i1, %a1 : tensor<i32>, tensor<i32>
      }
      %f = "stablehlo.case"(%k) ({
        %a = stablehlo.constant dense<10.0> : tensor<f32>
        stablehlo.return %a : tensor<f32>
      }, {
        %b = stablehlo.constant dense<20.0> : tensor<f32>
        stablehlo.return %b : tensor<f32>
      }) : (tensor<i32>) -> tensor<f32>
      return %r#1, %f : tensor<i32>, tensor<f32>
    }"""
    total, f = run(text, np.int32(4), np.int32(0))
    assert int(total) == 10 and float(f) == 10.0
    total, f = run(text, np.int32(0), np.int32(7))  # out of range: the last branch
    assert int(total) == 0 and float(f) == 20.0


def test_custom_call_is_an_error_naming_its_target():
    text = """
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = stablehlo.custom_call @my_kernel(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }"""
    with pytest.raises(DiagnosticError) as info:
        tfrt.api.load(text)
    text_ = info.value.render()
    assert "custom_call target 'my_kernel'" in text_
    assert ":3:" in text_ and "error:" in text_


def test_shape_assertions_are_dropped():
    text = """
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %c = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.custom_call @shape_assertion(%c) {error_message = "Shape assertion failed", has_side_effect = true} : (tensor<i1>) -> ()
      %0 = stablehlo.add %x, %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    }"""
    np.testing.assert_array_equal(run(text, np.ones(4, np.float32)), np.full(4, 2.0, np.float32))


def test_top_k_is_largest_first_with_ties_in_index_order():
    text = """
    func.func @main(%x: tensor<2x6xf32>) -> (tensor<2x4xf32>, tensor<2x4xi32>) {
      %v, %i = chlo.top_k(%x, k = 4) : tensor<2x6xf32> -> (tensor<2x4xf32>, tensor<2x4xi32>)
      return %v, %i : tensor<2x4xf32>, tensor<2x4xi32>
    }"""
    x = np.array([[3, 1, np.nan, 3, -np.inf, 7], [0, -0.0, 5, 5, 5, 1]], np.float32)
    v, i = run(text, x)
    np.testing.assert_array_equal(v, np.array([[np.nan, 7, 3, 3], [5, 5, 5, 1]], np.float32))
    np.testing.assert_array_equal(i, np.array([[2, 5, 0, 3], [2, 3, 4, 5]], np.int32))


def _kernels(text: str) -> str:
    from tfrt.dialects.printer import print_module
    from tfrt.dialects.syntax import parse_module
    from tfrt.passes.compiler import compile_module

    module = parse_module(text)
    compile_module(module)
    return print_module(module)


def test_fast_paths_matmul_and_pooling():
    # JAX's dense layer and max pooling reach the BLAS matmul and the pooling kernel.
    text = """
    func.func @main(%x: tensor<2x6x6x3xf32>, %w: tensor<108x5xf32>) -> tensor<2x5xf32> {
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %p = "stablehlo.reduce_window"(%x, %ninf) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %m = stablehlo.maximum %a, %b : tensor<f32>
        stablehlo.return %m : tensor<f32>
      }) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>,
          padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>} : (tensor<2x6x6x3xf32>, tensor<f32>) -> tensor<2x6x6x3xf32>
      %f = stablehlo.reshape %p : (tensor<2x6x6x3xf32>) -> tensor<2x108xf32>
      %y = stablehlo.dot_general %f, %w, contracting_dims = [1] x [0] : (tensor<2x108xf32>, tensor<108x5xf32>) -> tensor<2x5xf32>
      return %y : tensor<2x5xf32>
    }"""
    ir = _kernels(text)
    assert "tfrt_array.pool2d" in ir and "tfrt_array.matmul" in ir
    assert "tfrt_array.generic" not in ir and "tfrt_array.einsum" not in ir
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    w = rng.standard_normal((108, 5)).astype(np.float32)
    padded = np.pad(x, [(0, 0), (0, 1), (0, 1), (0, 0)], constant_values=-np.inf)
    pooled = np.max(np.stack([padded[:, i:i + 6, j:j + 6] for i in (0, 1) for j in (0, 1)]), axis=0)
    np.testing.assert_allclose(run(text, x, w), pooled.reshape(2, 108) @ w, rtol=1e-5, atol=1e-5)


def test_unsigned_arguments_and_results_keep_their_types():
    text = """
    func.func @main(%x: tensor<4xui8>, %y: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xi1>) {
      %s = stablehlo.add %x, %y : tensor<4xui8>
      %d = stablehlo.divide %x, %y : tensor<4xui8>
      %c = stablehlo.compare LT, %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
      return %s, %d, %c : tensor<4xui8>, tensor<4xui8>, tensor<4xi1>
    }"""
    x = np.array([250, 7, 200, 1], np.uint8)
    y = np.array([10, 2, 100, 255], np.uint8)
    s, dv, c = run(text, x, y)
    assert s.dtype == np.uint8 and dv.dtype == np.uint8
    np.testing.assert_array_equal(s, x + y)  # wraps modulo 256
    np.testing.assert_array_equal(dv, x // y)  # unsigned division
    np.testing.assert_array_equal(c, x < y)  # unsigned comparison


def test_inverse_and_hyperbolic_functions():
    text = """
    func.func @main(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
      %a = chlo.asin %x : tensor<5xf32> -> tensor<5xf32>
      %b = chlo.acos %x : tensor<5xf32> -> tensor<5xf32>
      %c = chlo.sinh %x : tensor<5xf32> -> tensor<5xf32>
      %d = chlo.cosh %x : tensor<5xf32> -> tensor<5xf32>
      %e = chlo.atanh %x : tensor<5xf32> -> tensor<5xf32>
      %f = stablehlo.cbrt %x : tensor<5xf32>
      return %a, %b, %c, %d, %e, %f : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
    }"""
    x = np.array([-0.9, -0.3, 0.0, 0.4, 0.8], np.float32)
    got = run(text, x)
    for g, w in zip(got, (np.arcsin(x), np.arccos(x), np.sinh(x), np.cosh(x), np.arctanh(x), np.cbrt(x))):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


def test_erf_inv_lgamma_digamma():
    import math

    text = """
    func.func @main(%p: tensor<6xf32>, %x: tensor<7xf32>, %y: tensor<3xf32>) -> (tensor<6xf32>, tensor<7xf32>, tensor<3xf32>) {
      %a = chlo.erf_inv %p : tensor<6xf32> -> tensor<6xf32>
      %b = chlo.lgamma %x : tensor<7xf32> -> tensor<7xf32>
      %c = chlo.digamma %y : tensor<3xf32> -> tensor<3xf32>
      return %a, %b, %c : tensor<6xf32>, tensor<7xf32>, tensor<3xf32>
    }"""
    p = np.array([-0.99, -0.5, 0.0, 0.3, 0.9, 1.0], np.float32)
    x = np.array([-2.5, -0.5, 0.5, 1.0, 3.7, 50.0, -3.0], np.float32)
    y = np.array([1.0, 0.5, -2.0], np.float32)
    a, b, c = run(text, p, x, y)
    np.testing.assert_allclose([math.erf(v) for v in a[:-1]], p[:-1], rtol=1e-5, atol=1e-6)
    assert a[-1] == np.inf
    np.testing.assert_allclose(b[:-1], [math.lgamma(v) for v in x[:-1]], rtol=1e-5, atol=1e-5)
    assert b[-1] == np.inf  # a pole
    np.testing.assert_allclose(c[:2], [-0.5772157, -1.9635100], rtol=1e-5)
    assert np.isnan(c[2])


def test_erfc_of_f64_is_refused_rather_than_zero_in_its_tail():
    text = """
    func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
      %0 = chlo.erfc %x : tensor<2xf64> -> tensor<2xf64>
      return %0 : tensor<2xf64>
    }"""
    with pytest.raises(DiagnosticError) as info:
        tfrt.api.load(text)
    assert "erfc" in info.value.render() and "f64" in info.value.render()
