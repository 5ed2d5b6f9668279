"""scf loops and tensor slices, pads and reshapes against references written from MLIR's documents.

* ``scf.for %i = %lb to %ub step %s``: the induction variable takes the
  values ``lb + k * s`` below ``ub`` (a half-open range, mathematically: the
  bounds' type never wraps the count), the step is positive.  The reference
  steps through the range with Python integers; bounds are drawn near the
  ends of every integer type, as arguments and as constants, and in nests
  whose inner bounds depend on the outer variable.  A loop the runtime cannot
  count (past 2^31 - 1 iterations) or whose step is not positive must be an
  error, never a wrong count.
* ``tensor.extract_slice``/``insert_slice`` (offsets, sizes, strides: static,
  constant SSA values and run-time values), ``tensor.pad`` with a constant,
  ``collapse_shape``/``expand_shape``: numpy's basic slicing, ``np.pad`` and
  row-major reshapes, on random shapes, empty and 0-d tensors included.
* The verifier refuses, at the op, what MLIR's verifier refuses; what MLIR
  leaves undefined at run time (an index out of bounds) is a located
  run-time error.

Bounded examples here; ``pytest -m slow tests/compiler/test_oracle_tensor_scf.py``
runs many more (docs/compiler.md).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tfrt.api
from tfrt.diagnostics import DiagnosticError

FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

WIDTHS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}


def _wrap64(v: int) -> int:
    return (v + 2**63) % 2**64 - 2**63


def _call(text: str, name: str, *args):
    prog = tfrt.api.load(text)
    try:
        return prog.call(name, *args)
    finally:
        prog.close()


# ---------------------------------------------------------------------------
# scf.for


def _to_i64(t: str, v: str) -> str:
    if t == "i64":
        return ""
    if t == "index":
        return f"    {v}64 = arith.index_cast {v} : index to i64\n"
    return f"    {v}64 = arith.extsi {v} : {t} to i64\n"


def _loop_program(t: str, constant_bounds: tuple[int, int, int] | None) -> str:
    """f(lb, ub, step) -> (iterations, sum of the induction values), the
    bounds as arguments or as constants."""
    iv64 = "%i" if t == "i64" else "%i64"
    if constant_bounds is None:
        params, consts = f"%lb: {t}, %ub: {t}, %st: {t}", ""
    else:
        params = ""
        consts = "".join(
            f"  %{n} = arith.constant {v} : {t}\n"
            for n, v in zip(("lb", "ub", "st"), constant_bounds)
        )
    return f"""func.func @f({params}) -> (i64, i64) {{
{consts}  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r:2 = scf.for %i = %lb to %ub step %st iter_args(%n = %z, %s = %z) -> (i64, i64) : {t} {{
{_to_i64(t, "%i")}    %n2 = arith.addi %n, %one : i64
    %s2 = arith.addi %s, {iv64} : i64
    scf.yield %n2, %s2 : i64, i64
  }}
  return %r#0, %r#1 : i64, i64
}}
"""


def _loop_reference(lb: int, ub: int, step: int) -> tuple[int, int]:
    n = max(0, -((lb - ub) // step))
    # sum of lb + k * step for k < n
    return n, _wrap64(n * lb + step * n * (n - 1) // 2)


@st.composite
def loops(draw, max_trips: int = 40):
    """(type, lb, ub, step) whose count is small, with bounds anywhere in the
    type's range: near its minimum and maximum, and far apart with a large step."""
    t = draw(st.sampled_from(list(WIDTHS)))
    w = WIDTHS[t]
    lo, hi = -(2 ** (w - 1)), 2 ** (w - 1) - 1
    n = draw(st.integers(0, max_trips))
    step = draw(st.one_of(st.integers(1, 4), st.integers(1, hi), st.just(hi)))
    span = n * step
    # lb such that the range fits the type: near either end, or anywhere.
    room = hi - lo - span
    if room < 0:
        n = (hi - lo) // step
        span = n * step
        room = hi - lo - span
    where = draw(st.sampled_from(["low", "high", "any"]))
    offset = {"low": draw(st.integers(0, min(room, 3))), "high": room - draw(st.integers(0, min(room, 3))),
              "any": draw(st.integers(0, room))}[where]  # fmt: skip
    lb = lo + offset
    # ub anywhere in the last step (the count stays n), or below lb (no trips).
    if n and draw(st.booleans()):
        ub = lb + span - draw(st.integers(0, step - 1))
    elif n:
        ub = lb + span
    else:
        ub = draw(st.integers(lo, lb))
    return t, lb, ub, step


def _check_loop(case, constant: bool) -> None:
    t, lb, ub, step = case
    want = _loop_reference(lb, ub, step)
    text = _loop_program(t, (lb, ub, step) if constant else None)
    got = _call(text, "f") if constant else _call(text, "f", lb, ub, step)
    assert tuple(int(v) for v in got) == want, (t, lb, ub, step)


@FAST
@given(loops(), st.booleans())
def test_scf_for_counts_exactly_near_the_ends_of_every_type(case, constant):
    _check_loop(case, constant)


@pytest.mark.slow
@MANY
@given(loops(), st.booleans())
def test_scf_for_counts_exactly_many(case, constant):
    _check_loop(case, constant)


@pytest.mark.parametrize(
    "t,lb,ub,step,want",
    [
        # The audit's cases: ub - lb wraps in the bounds' own type.
        ("i32", -2 * 10**9, 2 * 10**9, 10**9, 4),
        ("i64", -6 * 10**18, 6 * 10**18, 3 * 10**18, 4),
        ("index", -6 * 10**18, 6 * 10**18, 3 * 10**18, 4),
        ("i8", -100, 100, 50, 4),
        ("i8", -128, 127, 127, 3),
        ("i64", -(2**63), 2**63 - 1, 2**63 - 1, 3),
        ("i16", 5, -5, 1, 0),
    ],
)
def test_scf_for_bounds_whose_difference_overflows(t, lb, ub, step, want):
    for constant in (False, True):
        text = _loop_program(t, (lb, ub, step) if constant else None)
        got = _call(text, "f") if constant else _call(text, "f", lb, ub, step)
        assert tuple(int(v) for v in got) == _loop_reference(lb, ub, step)
        assert int(got[0]) == want


@pytest.mark.parametrize(
    "t,lb,ub,step,message",
    [
        # More iterations than tfrt.repeat.i32 counts: an error, not 3 or 0 trips.
        ("i64", 0, 2**32 + 3, 1, "scf.for runs 4294967299 iterations, more than 2^31 - 1"),
        ("i64", 0, 2**31, 1, "scf.for runs 2147483648 iterations"),
        ("index", -(2**62), 2**62, 2, "scf.for runs 4611686018427387904 iterations"),
        # A run-time step that is not positive (MLIR requires a positive one).
        ("i32", 0, 10, 0, "scf.for step must be positive, got 0"),
        ("i32", 0, 10, -1, "scf.for step must be positive, got -1"),
    ],
)
def test_scf_for_that_cannot_be_counted_is_a_located_error(t, lb, ub, step, message):
    with pytest.raises(tfrt.api.ExecutionError) as err:
        _call(_loop_program(t, None), "f", lb, ub, step)
    assert message in str(err.value) and "(at -:4:3)" in str(err.value)


def test_scf_for_constant_step_not_positive_is_refused_at_compile_time():
    text = _loop_program("index", (0, 10, 0))
    with pytest.raises(DiagnosticError) as err:
        tfrt.api.load(text)
    assert err.value.render().startswith(
        "-:7:3: error: 'scf.for' op constant step operand must be positive"
    )


def _nest_reference(lb1, ub1, s1, ub2, s2):
    count = total = 0
    i = lb1
    while i < ub1:
        j = i
        while j < ub2:
            count += 1
            total += i * j
            j += s2
        i += s1
    return count, _wrap64(total)


@st.composite
def nests(draw):
    lb1 = draw(st.integers(-6, 6))
    ub1 = draw(st.integers(-6, 8))
    s1 = draw(st.integers(1, 3))
    ub2 = draw(st.integers(-6, 10))
    s2 = draw(st.integers(1, 3))
    return lb1, ub1, s1, ub2, s2


NEST = """func.func @f(%lb1: index, %ub1: index, %s1: index, %ub2: index, %s2: index) -> (i64, i64) {
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r:2 = scf.for %i = %lb1 to %ub1 step %s1 iter_args(%n = %z, %t = %z) -> (i64, i64) {
    %q:2 = scf.for %j = %i to %ub2 step %s2 iter_args(%m = %n, %u = %t) -> (i64, i64) {
      %p = arith.muli %i, %j : index
      %p64 = arith.index_cast %p : index to i64
      %m2 = arith.addi %m, %one : i64
      %u2 = arith.addi %u, %p64 : i64
      scf.yield %m2, %u2 : i64, i64
    }
    scf.yield %q#0, %q#1 : i64, i64
  }
  return %r#0, %r#1 : i64, i64
}
"""


@FAST
@given(nests())
def test_nested_scf_for_with_an_inner_bound_from_the_outer_variable(case):
    got = _call(NEST, "f", *case)
    assert tuple(int(v) for v in got) == _nest_reference(*case), case


# ---------------------------------------------------------------------------
# tensor slices, pads and reshapes


@st.composite
def slices(draw):
    """A shape and, per dimension, (offset, size, stride) in bounds."""
    rank = draw(st.integers(1, 3))
    shape, dims = [], []
    for _ in range(rank):
        d = draw(st.integers(1, 6))
        stride = draw(st.integers(1, 3))
        size = draw(st.integers(0, (d - 1) // stride + 1))
        last = (size - 1) * stride if size else 0
        offset = draw(st.integers(0, d - 1 - last)) if size else draw(st.integers(0, d - 1))
        shape.append(d)
        dims.append((offset, size, stride))
    form = draw(st.sampled_from(["static", "constant", "runtime"]))
    return shape, dims, form


def _tt(shape, t="f32") -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + t + ">"


def _slice_operands(dims, form):
    """The offsets/sizes/strides lists as the op writes them, the extra
    parameters and the body lines defining them."""
    if form == "static":
        return ([str(o) for o, _, _ in dims], [str(s) for s in (d[2] for d in dims)], [], [])
    names_o = [f"%o{k}" for k in range(len(dims))]
    names_s = [f"%s{k}" for k in range(len(dims))]
    if form == "runtime":
        params = [f"{n}: index" for n in names_o + names_s]
        return names_o, names_s, params, []
    consts = [f"  {n} = arith.constant {v} : index" for n, v in zip(names_o, [d[0] for d in dims])]
    consts += [f"  {n} = arith.constant {v} : index" for n, v in zip(names_s, [d[2] for d in dims])]
    return names_o, names_s, [], consts


@FAST
@given(slices(), st.integers(0, 2**31))
def test_extract_and_insert_slice_match_numpy(case, seed):
    shape, dims, form = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    sizes = [s for _, s, _ in dims]
    y = rng.standard_normal(sizes).astype(np.float32)
    offs, strides, params, consts = _slice_operands(dims, form)
    ox = ", ".join(offs)
    sx = ", ".join(str(s) for s in sizes)
    tx = ", ".join(strides)
    text = f"""func.func @f(%x: {_tt(shape)}, %y: {_tt(sizes)}{"".join(", " + p for p in params)}) -> ({_tt(sizes)}, {_tt(shape)}) {{
{chr(10).join(consts)}
  %a = tensor.extract_slice %x[{ox}] [{sx}] [{tx}] : {_tt(shape)} to {_tt(sizes)}
  %b = tensor.insert_slice %y into %x[{ox}] [{sx}] [{tx}] : {_tt(sizes)} into {_tt(shape)}
  return %a, %b : {_tt(sizes)}, {_tt(shape)}
}}
"""
    args = [x, y]
    if form == "runtime":
        args += [o for o, _, _ in dims] + [s for _, _, s in dims]
    a, b = _call(text, "f", *args)
    index = tuple(slice(o, o + (s - 1) * st_ + 1 if s else o, st_) for o, s, st_ in dims)
    np.testing.assert_array_equal(a, x[index])
    want = x.copy()
    want[index] = y
    np.testing.assert_array_equal(b, want)


@FAST
@given(st.lists(st.integers(0, 4), min_size=0, max_size=3), st.data())
def test_pad_with_a_constant_matches_numpy(shape, data):
    rank = len(shape)
    low = data.draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank))
    high = data.draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank))
    value = data.draw(st.sampled_from([0.0, -1.5, float("inf")]))
    out = [d + lo + hi for d, lo, hi in zip(shape, low, high)]
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    lit = "0x7F800000" if value == float("inf") else repr(value)
    text = f"""func.func @f(%x: {_tt(shape)}) -> {_tt(out)} {{
  %c = arith.constant {lit} : f32
  %r = tensor.pad %x low[{", ".join(map(str, low))}] high[{", ".join(map(str, high))}] {{
  ^bb0({", ".join(f"%i{k}: index" for k in range(rank))}):
    tensor.yield %c : f32
  }} : {_tt(shape)} to {_tt(out)}
  return %r : {_tt(out)}
}}
"""
    got = _call(text, "f", x)
    want = np.pad(x, list(zip(low, high)), constant_values=np.float32(value)) if rank else x
    np.testing.assert_array_equal(got, want)


@st.composite
def reassociations(draw):
    """A collapsed shape and, per collapsed dimension, the expanded group."""
    groups = draw(
        st.lists(st.lists(st.integers(1, 4), min_size=1, max_size=3), min_size=1, max_size=3)
    )
    return groups


@FAST
@given(reassociations())
def test_collapse_and_expand_shape_are_row_major_reshapes(groups):
    expanded = [d for g in groups for d in g]
    collapsed = [int(np.prod(g)) for g in groups]
    reassoc, k = [], 0
    for g in groups:
        reassoc.append("[" + ", ".join(str(k + i) for i in range(len(g))) + "]")
        k += len(g)
    ra = "[" + ", ".join(reassoc) + "]"
    text = f"""func.func @f(%x: {_tt(expanded)}, %y: {_tt(collapsed)}) -> ({_tt(collapsed)}, {_tt(expanded)}) {{
  %a = tensor.collapse_shape %x {ra} : {_tt(expanded)} into {_tt(collapsed)}
  %b = tensor.expand_shape %y {ra} output_shape [{", ".join(map(str, expanded))}] : {_tt(collapsed)} into {_tt(expanded)}
  return %a, %b : {_tt(collapsed)}, {_tt(expanded)}
}}
"""
    x = np.arange(int(np.prod(expanded)), dtype=np.float32).reshape(expanded)
    y = -np.arange(int(np.prod(collapsed)), dtype=np.float32).reshape(collapsed)
    a, b = _call(text, "f", x, y)
    np.testing.assert_array_equal(a, x.reshape(collapsed))
    np.testing.assert_array_equal(b, y.reshape(expanded))


def test_zero_d_and_empty_tensors():
    text = """func.func @f(%x: tensor<f32>, %e: tensor<0x3xf32>, %m: tensor<2x3xf32>) -> (tensor<1x1xf32>, tensor<0x2xf32>, tensor<2x3xf32>) {
  %a = tensor.expand_shape %x [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  %b = tensor.extract_slice %m[1, 1] [0, 2] [1, 1] : tensor<2x3xf32> to tensor<0x2xf32>
  %c = arith.constant 7.0 : f32
  %d = tensor.pad %e low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<0x3xf32> to tensor<2x3xf32>
  return %a, %b, %d : tensor<1x1xf32>, tensor<0x2xf32>, tensor<2x3xf32>
}
"""
    a, b, d = _call(
        text,
        "f",
        np.array(3.5, np.float32),
        np.zeros((0, 3), np.float32),
        np.ones((2, 3), np.float32),
    )
    np.testing.assert_array_equal(a, [[3.5]])
    assert b.shape == (0, 2)
    np.testing.assert_array_equal(d, np.full((2, 3), 7.0, np.float32))


# ---------------------------------------------------------------------------
# What MLIR's verifier refuses is refused at the op (the audit's cases: each
# was accepted and computed something).

INVALID = [
    ("%r = tensor.extract_slice %x[0] [4] [1] : tensor<8xf32> to tensor<2xf32>", "tensor<2xf32>",
     "-:2:3: error: expected type to be 'tensor<4xf32>' or a rank-reduced version. (size mismatch)"),
    ("%r = tensor.insert_slice %y into %x[0] [4] [1] : tensor<2xf32> into tensor<8xf32>", "tensor<8xf32>",
     "-:2:3: error: expected type to be 'tensor<4xf32>' or a rank-reduced version. (size mismatch)"),
    ("%r = tensor.extract_slice %x[-2] [2] [1] : tensor<8xf32> to tensor<2xf32>", "tensor<2xf32>",
     "-:2:3: error: expected offsets to be non-negative, but got -2"),
    ("%r = tensor.extract_slice %x[7] [2] [1] : tensor<8xf32> to tensor<2xf32>", "tensor<2xf32>",
     "-:2:3: error: slice along dimension 0 runs out-of-bounds: 8 >= 8"),
    ("%r = tensor.pad %x low[1] high[1] {\n  ^bb0(%i: index):\n    tensor.yield %c : f32\n  } : tensor<8xf32> to tensor<12xf32>",
     "tensor<12xf32>", "error: specified type 'tensor<12xf32>' does not match the inferred type 'tensor<10xf32>'"),
    ("%r = tensor.collapse_shape %m [[0, 1]] : tensor<3x4xf32> into tensor<10xf32>", "tensor<10xf32>",
     "-:2:3: error: 'tensor.collapse_shape' op expected dimension 0 of collapsed type to be static value of 12"),
    ("%r = tensor.extract %m[%k] : tensor<3x4xf32>", "f32",
     "-:2:3: error: 'tensor.extract' op incorrect number of indices for extract_element"),
    ("%s = arith.constant dense<[2, 6]> : tensor<2xindex>\n  %r = tensor.reshape %m(%s) : (tensor<3x4xf32>, tensor<2xindex>) -> tensor<4x3xf32>",
     "tensor<4x3xf32>", "error: 'tensor.reshape' op cannot be lowered: the shape operand holds [2, 6], but the result type is tensor<4x3xf32>"),
]  # fmt: skip


@pytest.mark.parametrize("body,rtype,message", INVALID)
def test_the_verifier_refuses_what_mlir_refuses(body, rtype, message):
    params = "%x: tensor<8xf32>, %y: tensor<2xf32>, %m: tensor<3x4xf32>, %k: index, %c: f32"
    text = f"func.func @f({params}) -> {rtype} {{\n  {body}\n  return %r : {rtype}\n}}\n"
    with pytest.raises(DiagnosticError) as err:
        tfrt.api.load(text)
    assert message in err.value.render()


@pytest.mark.parametrize(
    "body,rtype,args,message",
    [
        # Undefined in MLIR: refused where it happens, with the op's location.
        ("%r = tensor.extract %x[%k] : tensor<8xf32>", "f32", [-1],
         "tfrt_array.extract: index -1 is out of bounds for axis 0 with size 8 (at -:2:3)"),
        ("%r = tensor.insert %c into %x[%k] : tensor<8xf32>", "tensor<8xf32>", [8],
         "tfrt_array.insert: index 8 is out of bounds for axis 0 with size 8 (at -:2:3)"),
        ("%r = tensor.dim %m, %k : tensor<3x4xf32>", "index", [2],
         "index 2 is out of bounds for axis 0 with size 2 (at -:2:3)"),
        ("%n = arith.constant -1 : index\n  %r = tensor.dim %m, %n : tensor<3x4xf32>", "index", [0],
         "index -1 is out of bounds for axis 0 with size 2 (at -:3:3)"),
    ],
)  # fmt: skip
def test_undefined_indices_are_located_run_time_errors(body, rtype, args, message):
    params = "%x: tensor<8xf32>, %m: tensor<3x4xf32>, %k: index, %c: f32"
    text = f"func.func @f({params}) -> {rtype} {{\n  {body}\n  return %r : {rtype}\n}}\n"
    x = np.arange(8, dtype=np.float32)
    m = np.zeros((3, 4), np.float32)
    with pytest.raises(tfrt.api.ExecutionError) as err:
        _call(text, "f", x, m, *args, np.float32(1))
    assert message in str(err.value)
