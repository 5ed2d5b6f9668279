"""!quant.uniform types, uniform_quantize and uniform_dequantize, against the
specification's formulas (numpy); other ops on quantized values are refused."""

from __future__ import annotations

import numpy as np
import pytest

import tfrt.api
from tfrt.diagnostics import DiagnosticError


def _quantize(x, scale, zp, lo, hi):
    return np.round(np.clip(x / scale + zp, lo, hi))  # numpy rounds half to even


def test_per_tensor_round_trip_rounds_half_to_even_and_saturates():
    text = """
    func.func @main(%x: tensor<6xf32>) -> (tensor<6x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<6xf32>) {
      %q = stablehlo.uniform_quantize %x : (tensor<6xf32>) -> tensor<6x!quant.uniform<i8:f32, 5.000000e-01:3>>
      %r = stablehlo.reshape %q : (tensor<6x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>
      %f = stablehlo.reshape %r : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<6x!quant.uniform<i8:f32, 5.000000e-01:3>>
      %d = stablehlo.uniform_dequantize %f : (tensor<6x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<6xf32>
      return %q, %d : tensor<6x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<6xf32>
    }"""
    x = np.array([-70.0, 0.24, 0.25, 0.75, 1.0, 100.0], np.float32)
    q, d = tfrt.api.load(text).call("main", x)
    want = _quantize(x, 0.5, 3, -128, 127)
    assert q.dtype == np.int8
    np.testing.assert_array_equal(q, want.astype(np.int8))
    np.testing.assert_array_equal(d, ((want - 3) * 0.5).astype(np.float32))


def test_per_axis_unsigned_storage_with_a_narrow_range():
    t = "!quant.uniform<u8<1:250>:f32:1, {1.000000e-01:2, 2.000000e-01, 5.000000e-01:-3}>"
    text = f"""
    func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3x{t}>, tensor<2x3xf32>) {{
      %q = stablehlo.uniform_quantize %x : (tensor<2x3xf32>) -> tensor<2x3x{t}>
      %d = stablehlo.uniform_dequantize %q : (tensor<2x3x{t}>) -> tensor<2x3xf32>
      return %q, %d : tensor<2x3x{t}>, tensor<2x3xf32>
    }}"""
    x = np.array([[0.05, 0.1, 1.25], [30.0, -1.0, 200.0]], np.float32)
    q, d = tfrt.api.load(text).call("main", x)
    scale = np.array([0.1, 0.2, 0.5], np.float32)
    zp = np.array([2, 0, -3])
    want = _quantize(x, scale, zp, 1, 250)
    assert q.dtype == np.uint8
    np.testing.assert_array_equal(q, want.astype(np.uint8))
    np.testing.assert_allclose(d, (want - zp) * scale, rtol=1e-6)


def test_arithmetic_on_quantized_values_is_refused_at_the_op():
    t = "tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>"
    text = f"""
    func.func @main(%x: tensor<4xf32>) -> {t} {{
      %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> {t}
      %s = stablehlo.add %q, %q : {t}
      return %s : {t}
    }}"""
    with pytest.raises(DiagnosticError) as info:
        tfrt.api.load(text)
    rendered = info.value.render()
    assert "stablehlo.add" in rendered and "quantized" in rendered and ":4:" in rendered


def test_the_type_prints_as_mlir_does():
    from tfrt.dialects.printer import print_module
    from tfrt.dialects.syntax import parse_module

    text = """func.func @f(%x: tensor<2x!quant.uniform<i8<-127:127>:f32:0, {2.0, 0.25:-1}>>) {
  return
}"""
    printed = print_module(parse_module(text))
    assert "!quant.uniform<i8<-127:127>:f32:0, {2.000000e+00, 2.500000e-01:-1}>" in printed
    assert print_module(parse_module(printed)) == printed
    with pytest.raises(DiagnosticError):
        parse_module("func.func @f(%x: tensor<2x!quant.uniform<i8<-200:0>:f32, 1.0>>) {\n  return\n}")
