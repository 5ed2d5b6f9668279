"""specialize-shapes: dynamic dimensions fixed by the program become static."""

import numpy as np
import pytest

import tfrt.api
from tfrt.diagnostics import DiagnosticError


def test_a_cast_to_a_dynamic_type_and_back():
    text = """
func.func @f() -> tensor<2x3xf32> {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %c = tensor.cast %x : tensor<2x3xf32> to tensor<2x?xf32>
  %n = math.exp %c : tensor<2x?xf32>
  %r = tensor.cast %n : tensor<2x?xf32> to tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}"""
    got = tfrt.api.load(text).call("f")
    np.testing.assert_allclose(got, np.exp(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)), rtol=1e-6)


def test_sizes_from_constants_dim_and_index_arithmetic_through_a_call():
    text = """
func.func private @iota2d(%h: index, %w: index) -> tensor<?x?xi32> {
  %e = tensor.empty(%h, %w) : tensor<?x?xi32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xi32>) {
    ^bb0(%b0 : i32):
      %o = linalg.index 0 : index
      %i = linalg.index 1 : index
      %st = arith.muli %o, %w : index
      %l = arith.addi %i, %st : index
      %li = arith.index_cast %l : index to i32
      linalg.yield %li : i32
  } -> tensor<?x?xi32>
  return %s : tensor<?x?xi32>
}
func.func @f() -> (tensor<?x?xi32>, tensor<?xi32>) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s = call @iota2d(%c3, %c4) : (index, index) -> tensor<?x?xi32>
  %c1 = arith.constant 1 : index
  %d = tensor.dim %s, %c1 : tensor<?x?xi32>
  %n = arith.ceildivui %d, %c3 : index
  %m = arith.muli %n, %c3 : index
  %e = tensor.empty(%m) : tensor<?xi32>
  %z = arith.constant 7 : i32
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  return %s, %f : tensor<?x?xi32>, tensor<?xi32>
}"""
    s, f = tfrt.api.load(text).call("f")
    np.testing.assert_array_equal(s, np.arange(12, dtype=np.int32).reshape(3, 4))
    np.testing.assert_array_equal(f, np.full(6, 7, dtype=np.int32))


def test_a_refined_value_entering_a_loop_keeps_the_loop_valid():
    text = """
func.func @f() -> tensor<3xf32> {
  %x = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %c = tensor.cast %x : tensor<3xf32> to tensor<?xf32>
  %lb = arith.constant 0 : index
  %ub = arith.constant 2 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%a = %c) -> (tensor<?xf32>) {
    %y = arith.addf %a, %a : tensor<?xf32>
    scf.yield %y : tensor<?xf32>
  }
  %s = tensor.cast %r : tensor<?xf32> to tensor<3xf32>
  return %s : tensor<3xf32>
}"""
    try:
        got = tfrt.api.load(text).call("f")
    except DiagnosticError as e:
        # The loop's own values stay dynamic: refused at an op, never an invalid program.
        assert "dynamic" in str(e), str(e)
        return
    np.testing.assert_array_equal(got, [4, 8, 12])


def test_a_size_from_an_argument_is_refused_at_the_op():
    text = """
func.func @f(%n: index) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  return %e : tensor<?xf32>
}"""
    with pytest.raises(DiagnosticError, match="dynamic shapes are not supported"):
        tfrt.api.load(text)


def test_an_unfoldable_index_constant_fixes_a_size():
    text = """
func.func @f() -> tensor<?x2xi32> {
  %n = util.unfoldable_constant 3 : index
  %e = tensor.empty(%n) : tensor<?x2xi32>
  %v = util.unfoldable_constant 5 : i32
  %f = linalg.fill ins(%v : i32) outs(%e : tensor<?x2xi32>) -> tensor<?x2xi32>
  return %f : tensor<?x2xi32>
}"""
    got = tfrt.api.load(text).call("f")
    np.testing.assert_array_equal(got, np.full((3, 2), 5, dtype=np.int32))


def test_a_pack_whose_packed_type_becomes_static_verifies(tmp_path):
    import subprocess, sys

    text = """
func.func @f() -> tensor<2x2x2x2xi32> {
  %x = arith.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]> : tensor<4x4xi32>
  %c2 = arith.constant 2 : index
  %e = tensor.empty(%c2, %c2, %c2, %c2) : tensor<?x?x?x?xi32>
  %p = linalg.pack %x inner_dims_pos = [0, 1] inner_tiles = [%c2, %c2] into %e : tensor<4x4xi32> -> tensor<?x?x?x?xi32>
  %r = tensor.cast %p : tensor<?x?x?x?xi32> to tensor<2x2x2x2xi32>
  return %r : tensor<2x2x2x2xi32>
}"""
    src = tmp_path / "p.mlir"
    src.write_text(text)
    out = subprocess.run([sys.executable, "-m", "tfrt.tools.tfrt_opt", str(src), "-p", "specialize-shapes"],
                         capture_output=True, text=True)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "inner_tiles = [2, 2]" in out.stdout, out.stdout
    got = tfrt.api.load(text).call("f")
    np.testing.assert_array_equal(got, np.arange(16, dtype=np.int32).reshape(2, 2, 2, 2).transpose(0, 2, 1, 3))
