"""Forms that MLIR written elsewhere uses (IREE's e2e tests, mlir-opt output), compiled and run."""

import numpy as np

import tfrt.api


def test_conv_strides_as_a_vector_attribute_and_map_aliases():
    text = """
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @f() -> tensor<1x1x2x2xf32> {
  %x = arith.constant dense<[[[[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]]]> : tensor<1x1x3x3xf32>
  %w = arith.constant dense<[[[[1., 0.], [0., 1.]]]]> : tensor<1x1x2x2xf32>
  %z = arith.constant dense<0.> : tensor<1x1x2x2xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) outs(%z : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x1x2x2xf32>) outs(%e : tensor<1x1x2x2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.negf %a : f32
    linalg.yield %m : f32
  } -> tensor<1x1x2x2xf32>
  return %n : tensor<1x1x2x2xf32>
}"""
    got = tfrt.api.load(text).call("f")
    np.testing.assert_array_equal(got, -np.array([[[[6.0, 8.0], [12.0, 14.0]]]], dtype=np.float32))


def test_hex_float_scalar_and_trailing_dot_literals():
    text = """
func.func @f() -> (f32, tensor<2xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %v = arith.constant dense<[1., -2.]> : tensor<2xf32>
  return %ninf, %v : f32, tensor<2xf32>
}"""
    ninf, v = tfrt.api.load(text).call("f")
    assert ninf == -np.inf
    np.testing.assert_array_equal(v, [1.0, -2.0])
