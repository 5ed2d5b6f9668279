"""Differential tests: the compiled program against xDSL's interpreter.

Each test builds a high-level program (func/arith/scf/tensor/linalg) from
hypothesis-drawn shapes, operations and values, runs it twice and compares:

* the reference: xDSL's interpreter on the high-level IR (tests/compiler/reference.py),
  which shares no code with our lowering or kernels;
* ours: ``tfrt.api.load`` of the same text, which compiles it with the
  default pipeline (lowering, folding, fusion, buffer reuse) to BEF and runs
  it on the executor.

Agreement, as stated here and checked below:
* integers: exactly equal;
* elementwise floats (no cancellation: positive inputs, ops add/mul/max/min):
  within ``k + 1`` ULPs for a body of ``k`` ops (each op rounds once in f32;
  the reference keeps body intermediates in double);
* contractions and reductions of length ``K``: ``|ours - ref| <= 2 K eps sum|terms|``,
  the classical forward error bound of a dot product.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tfrt.api
from reference import run_reference

EPS32 = float(np.finfo(np.float32).eps)
SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

dims = st.integers(min_value=1, max_value=5)


def _ours(text: str, name: str, args):
    prog = tfrt.api.load(text)
    try:
        out = prog.call(name, *args)
    finally:
        prog.close()
    return list(out) if isinstance(out, tuple) else [out]


def _ulps(a: np.ndarray, b: np.ndarray) -> int:
    ai = np.asarray(a, np.float32).view(np.int32).astype(np.int64)
    bi = np.asarray(b, np.float32).view(np.int32).astype(np.int64)
    return int(np.max(np.abs(ai - bi))) if ai.size else 0


def _values(draw, shape, lo=0.5, hi=4.0, dtype=np.float32):
    n = int(np.prod(shape))
    xs = draw(st.lists(st.floats(lo, hi, width=32), min_size=n, max_size=n))
    return np.array(xs, dtype=dtype).reshape(shape)


def _ints(draw, shape, lo=-100, hi=100):
    n = int(np.prod(shape))
    xs = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    return np.array(xs, dtype=np.int32).reshape(shape)


# ---------------------------------------------------------------------------
# Elementwise linalg.generic bodies, with a broadcast bias.

FLOAT_BINOPS = ["arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf"]


@st.composite
def elementwise_programs(draw):
    m, n = draw(dims), draw(dims)
    ops = draw(st.lists(st.sampled_from(FLOAT_BINOPS), min_size=1, max_size=5))
    # Each op combines the running value with one of: x, y, the bias, a constant.
    picks = draw(st.lists(st.sampled_from(["%x", "%y", "%b", "%c"]), min_size=len(ops), max_size=len(ops)))
    const = draw(st.floats(0.5, 2.0, width=32))
    body = []
    cur = "%x"
    for i, (op, rhs) in enumerate(zip(ops, picks)):
        body.append(f"      %v{i} = {op} {cur}, {rhs} : f32")
        cur = f"%v{i}"
    text = f"""
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @f(%a: tensor<{m}x{n}xf32>, %bb: tensor<{m}x{n}xf32>, %bias: tensor<{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %c = arith.constant {const!r} : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %r = linalg.generic {{indexing_maps = [#id, #id, #row, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%a, %bb, %bias : tensor<{m}x{n}xf32>, tensor<{m}x{n}xf32>, tensor<{n}xf32>)
      outs(%e : tensor<{m}x{n}xf32>) {{
    ^bb0(%x: f32, %y: f32, %b: f32, %o: f32):
{chr(10).join(body)}
      linalg.yield {cur} : f32
  }} -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""
    args = [_values(draw, (m, n)), _values(draw, (m, n)), _values(draw, (n,))]
    return text, args, len(ops)


@SETTINGS
@given(elementwise_programs())
def test_elementwise_generic_matches_reference(case):
    text, args, nops = case
    (ref,) = run_reference(text, "f", args)
    (got,) = _ours(text, "f", args)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    assert _ulps(got, ref) <= nops + 1, (text, got, ref)


# ---------------------------------------------------------------------------
# matmul (+ bias + relu), as an MLP layer is written.


@st.composite
def dense_layers(draw):
    m, k, n = draw(dims), draw(st.integers(1, 16)), draw(dims)
    relu = draw(st.booleans())
    act = "%r = arith.maximumf %s, %zero : f32\n      linalg.yield %r : f32" if relu else "linalg.yield %s : f32"
    text = f"""
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @layer(%x: tensor<{m}x{k}xf32>, %w: tensor<{k}x{n}xf32>, %b: tensor<{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %p = linalg.matmul ins(%x, %w : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %y = linalg.generic {{indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%p, %b : tensor<{m}x{n}xf32>, tensor<{n}xf32>) outs(%e : tensor<{m}x{n}xf32>) {{
    ^bb0(%pv: f32, %bv: f32, %o: f32):
      %s = arith.addf %pv, %bv : f32
      {act}
  }} -> tensor<{m}x{n}xf32>
  return %y : tensor<{m}x{n}xf32>
}}
"""
    x = _values(draw, (m, k), -2.0, 2.0)
    w = _values(draw, (k, n), -2.0, 2.0)
    b = _values(draw, (n,), -1.0, 1.0)
    return text, [x, w, b], k


@SETTINGS
@given(dense_layers())
def test_dense_layer_matches_reference(case):
    text, (x, w, b), k = case
    (ref,) = run_reference(text, "layer", [x, w, b])
    (got,) = _ours(text, "layer", [x, w, b])
    bound = 2 * (k + 1) * EPS32 * (np.abs(x) @ np.abs(w) + np.abs(b)) + 1e-30
    assert got.shape == ref.shape
    assert np.all(np.abs(got.astype(np.float64) - ref) <= bound), (got, ref)


# ---------------------------------------------------------------------------
# A reduction generic: row sums.


@st.composite
def row_sums(draw):
    m, n = draw(dims), draw(st.integers(1, 12))
    text = f"""
func.func @rows(%x: tensor<{m}x{n}xf32>) -> tensor<{m}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}xf32>) -> tensor<{m}xf32>
  %s = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                        iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<{m}x{n}xf32>) outs(%f : tensor<{m}xf32>) {{
    ^bb0(%in: f32, %acc: f32):
      %t = arith.mulf %in, %in : f32
      %r = arith.addf %t, %acc : f32
      linalg.yield %r : f32
  }} -> tensor<{m}xf32>
  return %s : tensor<{m}xf32>
}}
"""
    return text, [_values(draw, (m, n), -3.0, 3.0)], n


@SETTINGS
@given(row_sums())
def test_reduction_generic_matches_reference(case):
    text, (x,), n = case
    (ref,) = run_reference(text, "rows", [x])
    (got,) = _ours(text, "rows", [x])
    bound = 2 * (n + 1) * EPS32 * (x.astype(np.float64) ** 2).sum(axis=1) + 1e-30
    assert np.all(np.abs(got.astype(np.float64) - ref) <= bound), (got, ref)


# ---------------------------------------------------------------------------
# Integers are exact; scf.for threads a tensor through the loop.


@st.composite
def int_loops(draw):
    m, n = draw(dims), draw(dims)
    trips = draw(st.integers(0, 4))
    op = draw(st.sampled_from(["arith.addi", "arith.muli", "arith.subi", "arith.maxsi", "arith.minsi"]))
    text = f"""
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @loop(%x: tensor<{m}x{n}xi32>, %y: tensor<{m}x{n}xi32>) -> tensor<{m}x{n}xi32> {{
  %lb = arith.constant 0 : index
  %ub = arith.constant {trips} : index
  %st = arith.constant 1 : index
  %e = tensor.empty() : tensor<{m}x{n}xi32>
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<{m}x{n}xi32>) {{
    %nx = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}}
        ins(%acc, %y : tensor<{m}x{n}xi32>, tensor<{m}x{n}xi32>) outs(%e : tensor<{m}x{n}xi32>) {{
      ^bb0(%a: i32, %b: i32, %o: i32):
        %v = {op} %a, %b : i32
        linalg.yield %v : i32
    }} -> tensor<{m}x{n}xi32>
    scf.yield %nx : tensor<{m}x{n}xi32>
  }}
  return %r : tensor<{m}x{n}xi32>
}}
"""
    small = op == "arith.muli"
    x = _ints(draw, (m, n), -3 if small else -100, 3 if small else 100)
    y = _ints(draw, (m, n), -3 if small else -100, 3 if small else 100)
    return text, [x, y]


@SETTINGS
@given(int_loops())
def test_integer_loop_matches_reference_exactly(case):
    text, args = case
    (ref,) = run_reference(text, "loop", args)
    (got,) = _ours(text, "loop", args)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, ref)


# ---------------------------------------------------------------------------
# scf.if on a scalar comparison, transpose on either branch.


@SETTINGS
@given(dims, dims, st.integers(-5, 5), st.data())
def test_if_transpose_matches_reference(m, n, k, data):
    text = f"""
func.func @pick(%x: tensor<{m}x{n}xf32>, %k: i32) -> tensor<{n}x{m}xf32> {{
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<{n}x{m}xf32>
  %t = linalg.transpose ins(%x : tensor<{m}x{n}xf32>) outs(%e : tensor<{n}x{m}xf32>) permutation = [1, 0]
  %c = arith.cmpi sgt, %k, %zero : i32
  %r = scf.if %c -> (tensor<{n}x{m}xf32>) {{
    %d = linalg.add ins(%t, %t : tensor<{n}x{m}xf32>, tensor<{n}x{m}xf32>) outs(%e : tensor<{n}x{m}xf32>) -> tensor<{n}x{m}xf32>
    scf.yield %d : tensor<{n}x{m}xf32>
  }} else {{
    scf.yield %t : tensor<{n}x{m}xf32>
  }}
  return %r : tensor<{n}x{m}xf32>
}}
"""
    x = _values(data.draw, (m, n), -4.0, 4.0)
    (ref,) = run_reference(text, "pick", [x, k])
    (got,) = _ours(text, "pick", [x, np.int32(k)])
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_scalar_loop_matches_reference(n):
    text = """
func.func @sum(%n: index) -> f32 {
  %lb = arith.constant 0 : index
  %st = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %h = arith.constant 0.5 : f32
  %r:2 = scf.for %i = %lb to %n step %st iter_args(%acc = %z, %f = %z) -> (f32, f32) {
    %t = arith.mulf %f, %h : f32
    %a = arith.addf %acc, %t : f32
    %f2 = arith.addf %f, %one : f32
    scf.yield %a, %f2 : f32, f32
  }
  return %r#0 : f32
}
"""
    (ref,) = run_reference(text, "sum", [n])
    (got,) = _ours(text, "sum", [n])
    assert float(got) == pytest.approx(float(ref), abs=0)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_prints_match_reference_in_order(n, capsys):
    """printf.print_format inside loops and branches prints the same lines,
    in the same order, as xDSL's interpreter (the chain orders them)."""
    import io

    text = """
func.func @trace(%n: index, %x: f64) -> i32 {
  %lb = arith.constant 0 : index
  %st = arith.constant 1 : index
  %two = arith.constant 2 : index
  %k0 = arith.constant 3 : i32
  printf.print_format "start {} {}\\n", %n : index, %x : f64
  %r:2 = scf.for %i = %lb to %n step %st iter_args(%acc = %x, %k = %k0) -> (f64, i32) {
    %even = arith.cmpi slt, %i, %two : index
    %a = scf.if %even -> (f64) {
      printf.print_format "even {} {}\\n", %i : index, %acc : f64
      %d = arith.mulf %acc, %x : f64
      scf.yield %d : f64
    } else {
      printf.print_format "odd {}\\n", %i : index
      scf.yield %acc : f64
    }
    %k2 = arith.muli %k, %k0 : i32
    printf.print_format "k {}\\n", %k2 : i32
    scf.yield %a, %k2 : f64, i32
  }
  printf.print_format "end {}\\n", %r#0 : f64
  return %r#1 : i32
}
"""
    ref_out = io.StringIO()
    (ref,) = run_reference(text, "trace", [n, 1.25], out=ref_out)
    capsys.readouterr()
    (got,) = _ours(text, "trace", [n, 1.25])
    printed = capsys.readouterr().out
    assert int(got) == int(ref)
    assert printed == ref_out.getvalue()
    assert printed.count("\n") == 2 + 2 * n
