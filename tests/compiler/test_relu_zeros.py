"""maximum(x, +0.0), the ReLU the importers emit, computed as arith.maximumf
defines it (every zero result +0, NaN kept), whether the result goes to a
fresh array or into the kernel's output buffer."""

from __future__ import annotations

import numpy as np

import tfrt.api
from tfrt.kernels.expr import _relu

VALUES = np.array([-0.0, 0.0, -1.5, 2.0, np.nan, -np.inf, np.inf, -1e-45], np.float32)


def check(r):
    r = np.asarray(r)
    assert r.dtype == np.float32
    want = np.where(np.isnan(VALUES), np.nan, np.where(VALUES > 0, VALUES, np.float32(0))).astype(np.float32)
    np.testing.assert_array_equal(r, want)
    assert not np.signbit(r[~np.isnan(r)]).any()


def test_the_helper_into_a_fresh_array_and_into_out():
    check(_relu(np, VALUES, np.float32(0)))
    out = np.full_like(VALUES, 5.0)
    assert _relu(np, VALUES, np.float32(0), out=out) is out
    check(out)
    r = _relu(np, np.float32(-0.0), np.float32(0))  # a scalar: no array to write into
    assert r == 0 and not np.signbit(r)


def test_a_compiled_relu_and_a_fused_add_relu():
    text = """
    func.func @f(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
      %z = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<8xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                           iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
      ^bb0(%a: f32, %o: f32):
        %m = arith.maximumf %a, %z : f32
        linalg.yield %m : f32
      } -> tensor<8xf32>
      %e2 = tensor.empty() : tensor<8xf32>
      %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                           iterator_types = ["parallel"]} ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %t = arith.addf %a, %b : f32
        %m = arith.maximumf %t, %z : f32
        linalg.yield %m : f32
      } -> tensor<8xf32>
      return %r, %s : tensor<8xf32>, tensor<8xf32>
    }
    """
    prog = tfrt.api.load(text)
    r, s = prog.call("f", VALUES, np.zeros(8, np.float32))
    check(np.asarray(r))
    check(np.asarray(s))
