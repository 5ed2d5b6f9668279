"""The general lowering of linalg.generic (tfrt_array.generic) against a loop reference.

The reference walks the iteration space point by point in linalg's order (d0
outermost), reading and writing operands through the indexing maps given as
Python functions: linalg's definition, with none of the lowering's code.
"""

import itertools

import numpy as np
import pytest

import tfrt.api
from tfrt.api import ExecutionError


def reference(ranges, maps, ins, outs, body):
    """linalg.generic by definition: ``maps`` are functions of the loop indices
    (one per operand, ins then outs), ``body(point, *in_values, *out_values)``
    returns the new output values."""
    outs = [np.array(o, copy=True) for o in outs]
    n_in = len(ins)
    for point in itertools.product(*(range(r) for r in ranges)):
        vals = [x[maps[i](*point)] for i, x in enumerate(ins)]
        accs = [o[maps[n_in + j](*point)] for j, o in enumerate(outs)]
        new = body(point, *vals, *accs)
        for j, o in enumerate(outs):
            o[maps[n_in + j](*point)] = new[j]
    return outs


def run(text, name="f"):
    res = tfrt.api.load(text).call(name)
    return res if isinstance(res, tuple) else (res,)


def dense(a):
    return np.array2string(np.asarray(a), separator=", ", threshold=10**9, floatmode="unique").replace("\n", "")


def test_argmax_and_argmin_keep_the_first_of_equal_values():
    x = np.array([[3, 9, 9, 1], [7, 7, 2, 7], [0, -5, 4, -5]], dtype=np.float32)
    text = f"""
func.func @f() -> (tensor<3xf32>, tensor<3xi32>, tensor<4xi32>) {{
  %x = arith.constant dense<{dense(x)}> : tensor<3x4xf32>
  %m0 = arith.constant dense<-1.0e30> : tensor<3xf32>
  %i0 = arith.constant dense<0> : tensor<3xi32>
  %r:2 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<3x4xf32>) outs(%m0, %i0 : tensor<3xf32>, tensor<3xi32>) {{
  ^bb0(%in: f32, %m: f32, %i: i32):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %in, %m : f32
    %nm = arith.select %gt, %in, %m : f32
    %ni = arith.select %gt, %jj, %i : i32
    linalg.yield %nm, %ni : f32, i32
  }} -> (tensor<3xf32>, tensor<3xi32>)
  %b0 = arith.constant dense<1.0e30> : tensor<4xf32>
  %k0 = arith.constant dense<-1> : tensor<4xi32>
  %a:2 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<3x4xf32>) outs(%b0, %k0 : tensor<4xf32>, tensor<4xi32>) {{
  ^bb0(%in: f32, %m: f32, %i: i32):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i32
    %lt = arith.cmpf olt, %in, %m : f32
    %nm = arith.select %lt, %in, %m : f32
    %ni = arith.select %lt, %jj, %i : i32
    linalg.yield %nm, %ni : f32, i32
  }} -> (tensor<4xf32>, tensor<4xi32>)
  return %r#0, %r#1, %a#1 : tensor<3xf32>, tensor<3xi32>, tensor<4xi32>
}}"""
    m, i, k = run(text)
    np.testing.assert_array_equal(m, x.max(axis=1))
    np.testing.assert_array_equal(i, np.argmax(x, axis=1))
    np.testing.assert_array_equal(k, np.argmin(x, axis=0))


def test_a_non_associative_reduction_runs_in_loop_order():
    # out = out * 0.5 + in over two reduction loops: the order decides the answer.
    rng = np.random.default_rng(0)
    x = rng.integers(-8, 8, size=(2, 3, 4)).astype(np.float64)
    text = f"""
func.func @f() -> tensor<3xf64> {{
  %x = arith.constant dense<{dense(x)}> : tensor<2x3x4xf64>
  %o = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>],
                        iterator_types = ["reduction", "parallel", "reduction"]}}
      ins(%x : tensor<2x3x4xf64>) outs(%o : tensor<3xf64>) {{
  ^bb0(%in: f64, %acc: f64):
    %h = arith.constant 0.5 : f64
    %s = arith.mulf %acc, %h : f64
    %t = arith.addf %s, %in : f64
    linalg.yield %t : f64
  }} -> tensor<3xf64>
  return %r : tensor<3xf64>
}}"""
    (got,) = run(text)
    (want,) = reference((2, 3, 4), [lambda a, b, c: (a, b, c), lambda a, b, c: (b,)],
                        [x], [np.array([1.0, 2.0, 3.0])], lambda p, v, acc: (acc * 0.5 + v,))  # fmt: skip
    np.testing.assert_array_equal(got, want)


def test_welford_mean_and_variance():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 7)).astype(np.float64)
    text = f"""
func.func @f() -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {{
  %x = arith.constant dense<{dense(x)}> : tensor<3x7xf64>
  %z = arith.constant dense<0.0> : tensor<3xf64>
  %r:3 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                          affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<3x7xf64>) outs(%z, %z, %z : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {{
  ^bb0(%in: f64, %n: f64, %mean: f64, %m2: f64):
    %one = arith.constant 1.0 : f64
    %n1 = arith.addf %n, %one : f64
    %d = arith.subf %in, %mean : f64
    %q = arith.divf %d, %n1 : f64
    %mean1 = arith.addf %mean, %q : f64
    %d2 = arith.subf %in, %mean1 : f64
    %p = arith.mulf %d, %d2 : f64
    %m21 = arith.addf %m2, %p : f64
    linalg.yield %n1, %mean1, %m21 : f64, f64, f64
  }} -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %r#0, %r#1, %r#2 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}}"""
    n, mean, m2 = run(text)
    np.testing.assert_array_equal(n, [7, 7, 7])
    np.testing.assert_allclose(mean, x.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(m2 / 7, x.var(axis=1), rtol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_strided_dilated_windows_match_the_loop_reference(seed):
    rng = np.random.default_rng(seed)
    stride, dilation = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    k, ow, n, c = int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
    w_in = (ow - 1) * stride + (k - 1) * dilation + 1 + int(rng.integers(0, 2))
    dtype, mlir = (np.int32, "i32") if seed % 2 else (np.float32, "f32")
    x = rng.integers(-5, 6, size=(n, w_in, c)).astype(dtype)
    w = rng.integers(-3, 4, size=(k, c)).astype(dtype)
    o = rng.integers(-2, 3, size=(n, ow)).astype(dtype)
    add, mul = ("arith.addi", "arith.muli") if mlir == "i32" else ("arith.addf", "arith.mulf")
    text = f"""
func.func @f() -> tensor<{n}x{ow}x{mlir}> {{
  %x = arith.constant dense<{dense(x)}> : tensor<{n}x{w_in}x{c}x{mlir}>
  %w = arith.constant dense<{dense(w)}> : tensor<{k}x{c}x{mlir}>
  %o = arith.constant dense<{dense(o)}> : tensor<{n}x{ow}x{mlir}>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 * {stride} + d2 * {dilation}, d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d2, d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel", "reduction", "reduction"]}}
      ins(%x, %w : tensor<{n}x{w_in}x{c}x{mlir}>, tensor<{k}x{c}x{mlir}>) outs(%o : tensor<{n}x{ow}x{mlir}>) {{
  ^bb0(%a: {mlir}, %b: {mlir}, %acc: {mlir}):
    %p = {mul} %a, %b : {mlir}
    %s = {add} %acc, %p : {mlir}
    linalg.yield %s : {mlir}
  }} -> tensor<{n}x{ow}x{mlir}>
  return %r : tensor<{n}x{ow}x{mlir}>
}}"""
    (got,) = run(text)
    maps = [lambda a, b, e, f: (a, b * stride + e * dilation, f), lambda a, b, e, f: (e, f), lambda a, b, e, f: (a, b)]
    (want,) = reference((n, ow, k, c), maps, [x, w], [o], lambda p, u, v, acc: (acc + u * v,))
    np.testing.assert_array_equal(got, want)


def test_floordiv_mod_and_constant_maps():
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    text = f"""
func.func @f() -> (tensor<12xi64>, tensor<3xi64>) {{
  %x = arith.constant dense<{dense(x)}> : tensor<3x4xi64>
  %e = tensor.empty() : tensor<12xi64>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0 floordiv 4, d0 mod 4)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}}
      ins(%x : tensor<3x4xi64>) outs(%e : tensor<12xi64>) {{
  ^bb0(%a: i64, %o: i64):
    linalg.yield %a : i64
  }} -> tensor<12xi64>
  %e3 = tensor.empty() : tensor<3xi64>
  %c = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0, 2)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}}
      ins(%x : tensor<3x4xi64>) outs(%e3 : tensor<3xi64>) {{
  ^bb0(%a: i64, %o: i64):
    linalg.yield %a : i64
  }} -> tensor<3xi64>
  return %r, %c : tensor<12xi64>, tensor<3xi64>
}}"""
    flat, col = run(text)
    np.testing.assert_array_equal(flat, np.arange(12))
    np.testing.assert_array_equal(col, x[:, 2])


def test_tensor_extract_in_the_body_reads_a_captured_table():
    table = np.array([[1, 0, 3, 0], [0, 2, 0, 4]], dtype=np.int64)
    text = f"""
func.func @f(%ids: tensor<4xi64>) -> tensor<4x4xi64> {{
  %t = arith.constant dense<{dense(table)}> : tensor<2x4xi64>
  %e = tensor.empty() : tensor<4x4xi64>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel"]}}
      ins(%ids : tensor<4xi64>) outs(%e : tensor<4x4xi64>) {{
  ^bb0(%in: i64, %o: i64):
    %j = linalg.index 1 : index
    %i = arith.index_cast %in : i64 to index
    %v = tensor.extract %t[%i, %j] : tensor<2x4xi64>
    linalg.yield %v : i64
  }} -> tensor<4x4xi64>
  return %r : tensor<4x4xi64>
}}"""
    prog = tfrt.api.load(text)
    got = prog.call("f", np.array([0, 1, 0, 1], dtype=np.int64))
    np.testing.assert_array_equal(got, np.tile([1, 2, 3, 4], (4, 1)))
    # An index past the table's end is an error at the op, not a wrapped read.
    with pytest.raises(ExecutionError, match="out of bounds"):
        prog.call("f", np.array([0, 2, 0, 1], dtype=np.int64))


def test_a_captured_scalar_and_an_output_read_in_a_parallel_body():
    text = """
func.func @f(%s: f32) -> tensor<2x3xf32> {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %o = arith.constant dense<[[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]]> : tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x3xf32>) outs(%o : tensor<3x2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %s : f32
    %c = arith.cmpf ogt, %b, %m : f32
    %v = arith.select %c, %b, %m : f32
    linalg.yield %v : f32
  } -> tensor<3x2xf32>
  %t = linalg.transpose ins(%r : tensor<3x2xf32>) outs(%x : tensor<2x3xf32>) permutation = [1, 0]
  return %t : tensor<2x3xf32>
}"""
    got = tfrt.api.load(text).call("f", np.float32(9.0))
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    o = np.array([[10, 20], [30, 40], [50, 60]], dtype=np.float32).T
    np.testing.assert_array_equal(got, np.maximum(o, x * 9))


def test_an_empty_iteration_space_leaves_the_outputs_as_they_are():
    text = """
func.func @f() -> (tensor<3xf32>, tensor<3xi64>) {
  %x = tensor.empty() : tensor<3x0xf32>
  %m0 = arith.constant dense<7.0> : tensor<3xf32>
  %i0 = arith.constant dense<5> : tensor<3xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                         affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x0xf32>) outs(%m0, %i0 : tensor<3xf32>, tensor<3xi64>) {
  ^bb0(%in: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %m : f32
    %nm = arith.select %gt, %in, %m : f32
    %ni = arith.select %gt, %jj, %i : i64
    linalg.yield %nm, %ni : f32, i64
  } -> (tensor<3xf32>, tensor<3xi64>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xi64>
}"""
    m, i = run(text)
    np.testing.assert_array_equal(m, [7, 7, 7])
    np.testing.assert_array_equal(i, [5, 5, 5])


def test_an_op_without_an_elementwise_equivalent_is_refused_at_the_op(tmp_path):
    text = """func.func @f() -> tensor<2xf32> {
  %x = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<2xf32>) outs(%x : tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %v = "mylib.f"(%a) : (f32) -> f32
    linalg.yield %v : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}"""
    with pytest.raises(Exception, match=r"'linalg.generic' op cannot be lowered: its body holds 'mylib.f'"):
        tfrt.api.load(text)


def test_a_sequential_reduction_to_one_element_over_two_loops():
    # One parallel point: the scalar loop; linalg.index of both reduction loops.
    rng = np.random.default_rng(3)
    x = rng.integers(-50, 50, size=(5, 7)).astype(np.int32)
    text = f"""
func.func @f() -> (tensor<i32>, tensor<i64>) {{
  %x = arith.constant dense<{dense(x)}> : tensor<5x7xi32>
  %m0 = arith.constant dense<-2147483648> : tensor<i32>
  %i0 = arith.constant dense<-1> : tensor<i64>
  %r:2 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>,
                                          affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}}
      ins(%x : tensor<5x7xi32>) outs(%m0, %i0 : tensor<i32>, tensor<i64>) {{
  ^bb0(%in: i32, %m: i32, %i: i64):
    %a = linalg.index 0 : index
    %b = linalg.index 1 : index
    %c7 = arith.constant 7 : index
    %row = arith.muli %a, %c7 : index
    %flat = arith.addi %row, %b : index
    %k = arith.index_cast %flat : index to i64
    %ge = arith.cmpi sge, %in, %m : i32
    %nm = arith.select %ge, %in, %m : i32
    %ni = arith.select %ge, %k, %i : i64
    linalg.yield %nm, %ni : i32, i64
  }} -> (tensor<i32>, tensor<i64>)
  return %r#0, %r#1 : tensor<i32>, tensor<i64>
}}"""
    m, i = run(text)
    flat = x.reshape(-1)
    assert m == flat.max()
    assert i == len(flat) - 1 - int(np.argmax(flat[::-1]))  # sge: the last of equal maxima


def test_a_malformed_generic_body_in_bef_is_an_error_not_code():
    from tfrt.kernels.array_generic import generic
    from tfrt.kernels.registry import KernelError

    with pytest.raises(KernelError, match="malformed body statement"):
        generic("t0 = a0 : in0; import os", "r", "", "d0;", 1, np.array([3]), "f32", "t0")
    with pytest.raises(KernelError, match="malformed yields"):
        generic("t0 = a0 : in0", "r", "", "d0;", 1, np.array([3]), "f32", "t0;x")


def _reduction(body, ty, x, init, n, input_map):
    return f"""
func.func @f() -> tensor<2x{ty}> {{
  %x = arith.constant dense<{x}> : tensor<2x{n}x{ty}>
  %o = arith.constant dense<{init}> : tensor<2x{ty}>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> {input_map}>, affine_map<(d0, d1) -> (d0)>],
                        iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<2x{n}x{ty}>) outs(%o : tensor<2x{ty}>) {{
  ^bb0(%a: {ty}, %b: {ty}):
    %m = {body} %a, %b : {ty}
    linalg.yield %m : {ty}
  }} -> tensor<2x{ty}>
  return %r : tensor<2x{ty}>
}}"""


# (d0, d1): the reduce pattern; (d0, d1 * 1): the general kernel.
@pytest.mark.parametrize("input_map", ["(d0, d1)", "(d0, d1 * 1)"])
def test_i1_signed_and_unsigned_extremum_reductions(input_map):
    x = "[[true, false, true, true], [true, true, true, true]]"
    # signed i1: true is -1, so maxsi is an and and minsi an or
    (r,) = run(_reduction("arith.maxsi", "i1", x, "true", 4, input_map))
    np.testing.assert_array_equal(r, [False, True])
    (r,) = run(_reduction("arith.minsi", "i1", x, "false", 4, input_map))
    np.testing.assert_array_equal(r, [True, True])
    (r,) = run(_reduction("arith.maxui", "i1", "[[false, false, true, false], [false, false, false, false]]",
                          "false", 4, input_map))  # fmt: skip
    np.testing.assert_array_equal(r, [True, False])


@pytest.mark.parametrize("input_map", ["(d0, d1)", "(d0, d1 * 1)"])
def test_minimumf_and_maximumf_reductions_order_signed_zeros(input_map):
    (r,) = run(_reduction("arith.minimumf", "f32", "[[0.0, -0.0, 0.0], [-0.0, 0.0, 0.0]]", "0.0", 3, input_map))
    assert list(np.signbit(r)) == [True, True] and list(r) == [0, 0]
    (r,) = run(_reduction("arith.maximumf", "f32", "[[-0.0, -0.0, 0.0], [-0.0, -0.0, -0.0]]", "-0.0", 3, input_map))
    assert list(np.signbit(r)) == [False, True] and list(r) == [0, 0]


def test_a_ceildiv_in_an_indexing_map():
    x = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], dtype=np.int32)
    y = np.array([10, 20, 30, 40], dtype=np.int32)
    text = f"""
func.func @f() -> tensor<6x3xi32> {{
  %x = arith.constant dense<{dense(x)}> : tensor<4x2xi32>
  %y = arith.constant dense<{dense(y)}> : tensor<4xi32>
  %e = tensor.empty() : tensor<6x3xi32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0 ceildiv 2, 0)>,
                                        affine_map<(d0, d1) -> ((d0 * 3 + d1) mod 4)>,
                                        affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %y : tensor<4x2xi32>, tensor<4xi32>) outs(%e : tensor<6x3xi32>) {{
  ^bb0(%a: i32, %b: i32, %c: i32):
    %s = arith.addi %a, %b : i32
    linalg.yield %s : i32
  }} -> tensor<6x3xi32>
  return %r : tensor<6x3xi32>
}}"""
    (got,) = run(text)
    want = [[x[-(-i // 2), 0] + y[(3 * i + j) % 4] for j in range(3)] for i in range(6)]
    np.testing.assert_array_equal(got, want)


def test_a_product_reduced_over_a_loop_only_another_input_indexes():
    """out[i, j] += x[i] * y[j] for every k of z[k] (z unused in the body):
    the product is summed 5 times (the einsum shortcut dropped the k loop,
    which is in neither factor, and gave x[i] * y[j])."""
    rng = np.random.default_rng(3)
    x, y, z = rng.standard_normal(2), rng.standard_normal(3), np.zeros(5)
    text = f"""
#x = affine_map<(i, j, k) -> (i)>
#y = affine_map<(i, j, k) -> (j)>
#z = affine_map<(i, j, k) -> (k)>
#o = affine_map<(i, j, k) -> (i, j)>
func.func @f() -> tensor<2x3xf64> {{
  %a = arith.constant dense<{dense(x)}> : tensor<2xf64>
  %b = arith.constant dense<{dense(y)}> : tensor<3xf64>
  %c = arith.constant dense<0.0> : tensor<5xf64>
  %o = arith.constant dense<0.0> : tensor<2x3xf64>
  %r = linalg.generic {{indexing_maps = [#x, #y, #z, #o], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %b, %c : tensor<2xf64>, tensor<3xf64>, tensor<5xf64>) outs(%o : tensor<2x3xf64>) {{
  ^bb0(%p: f64, %q: f64, %u: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }} -> tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}}
"""
    (got,) = run(text)
    (want,) = reference((2, 3, 5), [lambda i, j, k: i, lambda i, j, k: j, lambda i, j, k: k, lambda i, j, k: (i, j)],
                        [x, y, z], [np.zeros((2, 3))], lambda p, a, b, c, acc: (acc + a * b,))  # fmt: skip
    np.testing.assert_allclose(got, want, rtol=1e-15)
