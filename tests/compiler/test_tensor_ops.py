"""The ``tensor`` dialect (``dialects/tensor.py``) and its lowering (``passes/lower_tensor.py``).

Every op of MLIR's ``TensorOps.td`` parses in its custom and generic forms,
prints back, verifies as ``TensorOps.cpp`` does (messages at the op's
location), and runs with MLIR's semantics.  The references below index
element by element, the way the op descriptions read (``gather``: "the
leading dimensions of the index tensor give the result its leading
dimensions ... the source slice at the coordinates"); the kernels index with
numpy's advanced indexing.  They share no code.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gpu_fixture import gpu  # noqa: F401 - the fixture
from tfrt.bef.writer import write_bef
from tfrt.dialects import make_context
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import parse_module
from tfrt.passes.canonicalize import CanonicalizerPass
from tfrt.passes.compiler import compile_module, run_passes
from xdsl.parser import Parser

import tfrt.api
from tfrt.diagnostics import DiagnosticError

BIN = Path(sys.executable).parent

_NP = {
    "f32": np.float32, "f64": np.float64, "f16": np.float16, "i1": np.bool_, "i8": np.int8,
    "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64, "ui32": np.uint32,
}  # fmt: skip


def _t(shape, elt: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{elt}>"


def _values(rng, shape, elt: str) -> np.ndarray:
    if elt.startswith("f"):
        return rng.standard_normal(shape).astype(_NP[elt])
    if elt == "i1":
        return rng.random(shape) < 0.5
    return rng.integers(-50, 50, shape).astype(_NP[elt])


def _load(text: str, opt_level: int = 2) -> tfrt.api.Program:
    module = parse_module(text, "t.mlir")
    compile_module(module, opt_level=opt_level)
    return tfrt.api.load(write_bef(module))


def _compile_error(text: str, verify: bool = True) -> str:
    module = parse_module(text, "t.mlir", verify=verify)
    with pytest.raises(DiagnosticError) as info:
        compile_module(module)
    return info.value.render()


def _verify_error(text: str) -> str:
    with pytest.raises(DiagnosticError) as info:
        parse_module(text, "t.mlir")
    return info.value.render()


# ---------------------------------------------------------------- references


def ref_gather(source, indices, dims, rank_reduced):
    """``tensor.gather``: result[l..., s...] where l runs over the leading
    dimensions of ``indices``; the slice of ``source`` that has, along each
    gathered dimension ``dims[j]``, only the position ``indices[l..., j]``."""
    lead = indices.shape[:-1]
    slice_shape = [1 if d in dims else n for d, n in enumerate(source.shape)]
    out = np.zeros(tuple(lead) + tuple(slice_shape), source.dtype)
    for pos in itertools.product(*(range(n) for n in lead)):
        window = []
        for d in range(source.ndim):
            if d in dims:
                c = int(indices[pos + (dims.index(d),)])
                assert 0 <= c < source.shape[d]
                window.append(slice(c, c + 1))
            else:
                window.append(slice(None))
        out[pos] = source[tuple(window)]
    if rank_reduced:
        out = out.reshape(
            tuple(lead) + tuple(n for d, n in enumerate(source.shape) if d not in dims)
        )
    return out


def ref_scatter(source, dest, indices, dims):
    """``tensor.scatter``: dest with, for each leading position l, the slice at
    ``indices[l...]`` along ``dims`` replaced by ``source[l...]``."""
    lead = indices.shape[:-1]
    full = tuple(lead) + tuple(1 if d in dims else n for d, n in enumerate(dest.shape))
    source = source.reshape(full)
    out = dest.copy()
    for pos in itertools.product(*(range(n) for n in lead)):
        window = []
        for d in range(dest.ndim):
            if d in dims:
                c = int(indices[pos + (dims.index(d),)])
                window.append(slice(c, c + 1))
            else:
                window.append(slice(None))
        out[tuple(window)] = source[pos]
    return out


def ref_slice(x, offsets, sizes, strides):
    """``extract_slice``: element i of the result is x[offsets + i * strides]."""
    out = np.zeros(sizes, x.dtype)
    for pos in itertools.product(*(range(n) for n in sizes)):
        out[pos] = x[tuple(o + p * s for o, p, s in zip(offsets, pos, strides))]
    return out


def test_references_agree_with_the_op_descriptions():
    # TensorOps.td: gathering 1-D slices along dimension 1 of a 3x4x5 source
    # with 6x7x1 indices gives 6x7x3x1x5 (6x7x3x5 rank-reduced).
    src = np.arange(60).reshape(3, 4, 5)
    idx = np.random.default_rng(0).integers(0, 4, (6, 7, 1))
    g = ref_gather(src, idx, [1], False)
    assert g.shape == (6, 7, 3, 1, 5)
    assert (g[2, 3, :, 0, :] == src[:, idx[2, 3, 0], :]).all()
    assert ref_gather(src, idx, [1], True).shape == (6, 7, 3, 5)
    # The COO form: every coordinate gathered, 0-d slices.
    coo = ref_gather(src, np.array([[[0, 1, 2], [2, 3, 4]]]), [0, 1, 2], True)
    assert coo.tolist() == [[src[0, 1, 2], src[2, 3, 4]]]
    dest = np.zeros((4, 5), np.int64)
    s = ref_scatter(np.array([[1] * 5, [2] * 5]), dest, np.array([[3], [0]]), [0])
    assert s[3].tolist() == [1] * 5 and s[0].tolist() == [2] * 5 and s[1:3].sum() == 0
    assert ref_slice(np.arange(10), [1], [3], [3]).tolist() == [1, 4, 7]


# ---------------------------------------------------------------- gather / scatter


class GatherCase:
    """A random gather and scatter: source rank 1-3, gathered dimensions, leading
    index dimensions (0-2 of them, sizes 0-3), index and element types."""

    def __init__(self, rng, i: int):
        self.i = i
        rank = int(rng.integers(1, 4))
        self.shape = [int(n) for n in rng.integers(1, 5, rank)]
        k = int(rng.integers(1, rank + 1))
        self.dims = sorted(int(d) for d in rng.choice(rank, k, replace=False))
        self.lead = [
            int(n) for n in rng.integers(0 if i % 7 == 3 else 1, 4, int(rng.integers(0, 3)))
        ]
        self.elt = ["f32", "i32", "f16", "i1", "i64"][i % 5]
        self.idx = ["index", "i32", "i64", "i8", "i16"][(i // 2) % 5]
        self.reduced = bool(i % 2)
        space = int(np.prod([self.shape[d] for d in self.dims]))
        self.unique = i % 3 == 0 and int(np.prod(self.lead)) <= space
        # Scatter needs unique coordinates, so at most one per slice.
        self.scatter = int(np.prod(self.lead)) <= space

    def coordinates(self, rng) -> np.ndarray:
        n = int(np.prod(self.lead))
        sizes = [self.shape[d] for d in self.dims]
        if self.unique or self.scatter:
            flat = rng.choice(int(np.prod(sizes)), n, replace=False)
            coords = (
                np.stack(np.unravel_index(flat, sizes), axis=-1) if n else np.zeros((0, len(sizes)))
            )
        else:
            coords = np.stack([rng.integers(0, s, n) for s in sizes], axis=-1)
        return coords.reshape(self.lead + [len(self.dims)]).astype(_NP[self.idx])

    def result_shape(self) -> list[int]:
        kept = [(d, n) for d, n in enumerate(self.shape) if d not in self.dims or not self.reduced]
        return self.lead + [1 if d in self.dims else n for d, n in kept]

    def functions(self) -> str:
        src_t = _t(self.shape, self.elt)
        idx_t = _t(self.lead + [len(self.dims)], self.idx)
        res_t = _t(self.result_shape(), self.elt)
        dims = ", ".join(map(str, self.dims))
        unique = " unique" if self.unique else ""
        text = (
            f"func.func @gather{self.i}(%s: {src_t}, %i: {idx_t}) -> {res_t} {{\n"
            f"  %g = tensor.gather %s[%i] gather_dims([{dims}]){unique} : ({src_t}, {idx_t}) -> {res_t}\n"
            f"  return %g : {res_t}\n}}\n"
        )
        if self.scatter:
            text += (
                f"func.func @scatter{self.i}(%u: {res_t}, %d: {src_t}, %i: {idx_t}) -> {src_t} {{\n"
                f"  %s = tensor.scatter %u into %d[%i] scatter_dims([{dims}]) unique"
                f" : ({res_t}, {src_t}, {idx_t}) -> {src_t}\n"
                f"  return %s : {src_t}\n}}\n"
            )
        return text


GATHER_CASES = [GatherCase(np.random.default_rng(100 + i), i) for i in range(30)]


@pytest.fixture(scope="module")
def gather_program():
    return _load("".join(c.functions() for c in GATHER_CASES))


def _case_id(c: GatherCase) -> str:
    return f"{c.i}-{c.elt}-{c.shape}-dims{c.dims}-lead{c.lead}-{c.idx}" + (
        "-red" if c.reduced else ""
    )


@pytest.mark.parametrize("case", GATHER_CASES, ids=_case_id)
def test_gather_and_scatter_match_the_reference(gather_program, case):
    rng = np.random.default_rng(case.i)
    src = _values(rng, case.shape, case.elt)
    idx = case.coordinates(rng)
    want = ref_gather(src, idx, case.dims, case.reduced)
    got = gather_program.call(f"gather{case.i}", src, idx)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    if case.scatter:
        upd = _values(rng, case.result_shape(), case.elt)
        dest = _values(rng, case.shape, case.elt)
        got = gather_program.call(f"scatter{case.i}", upd, dest, idx)
        np.testing.assert_array_equal(got, ref_scatter(upd, dest, idx, case.dims))


def test_the_random_gathers_cover_what_matters():
    assert any(c.reduced and len(c.dims) > 1 for c in GATHER_CASES)
    assert any(not c.lead for c in GATHER_CASES) and any(len(c.lead) == 2 for c in GATHER_CASES)
    assert any(0 in c.lead for c in GATHER_CASES)
    assert any(c.unique for c in GATHER_CASES) and sum(c.scatter for c in GATHER_CASES) >= 15
    assert any(len(c.dims) == len(c.shape) for c in GATHER_CASES)  # COO: 0-d slices
    assert {c.idx for c in GATHER_CASES} == {"index", "i32", "i64", "i8", "i16"}


INDEXING = """
func.func @gather(%s: tensor<4x5xf32>, %i: tensor<3x1xi32>) -> tensor<3x5xf32> {
  %g = tensor.gather %s[%i] gather_dims([0]) : (tensor<4x5xf32>, tensor<3x1xi32>) -> tensor<3x5xf32>
  return %g : tensor<3x5xf32>
}
func.func @gather_unique(%s: tensor<4x5xf32>, %i: tensor<2x2xindex>) -> tensor<2xf32> {
  %g = tensor.gather %s[%i] gather_dims([0, 1]) unique : (tensor<4x5xf32>, tensor<2x2xindex>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}
func.func @scatter(%u: tensor<2x1x5xf32>, %d: tensor<4x5xf32>, %i: tensor<2x1xi64>) -> tensor<4x5xf32> {
  %s = tensor.scatter %u into %d[%i] scatter_dims([0]) unique
      : (tensor<2x1x5xf32>, tensor<4x5xf32>, tensor<2x1xi64>) -> tensor<4x5xf32>
  return %s : tensor<4x5xf32>
}
func.func @gather_bool(%s: tensor<4xf32>, %i: tensor<1x1xi1>) -> tensor<1xf32> {
  %g = tensor.gather %s[%i] gather_dims([0]) : (tensor<4xf32>, tensor<1x1xi1>) -> tensor<1xf32>
  return %g : tensor<1xf32>
}
"""


@pytest.fixture(scope="module")
def indexing_program():
    return _load(INDEXING)


@pytest.mark.parametrize(
    ("fn", "bad", "message"),
    [
        (
            "gather",
            [[0], [4], [1]],
            "tensor.gather: coordinate 4 at indices[1, 0] is out of bounds for dimension 0 of size 4 (at t.mlir:3:3)",
        ),
        # numpy would read the last row: a negative coordinate is out of bounds too.
        (
            "gather",
            [[0], [1], [-1]],
            "tensor.gather: coordinate -1 at indices[2, 0] is out of bounds",
        ),
        (
            "gather_unique",
            [[1, 2], [1, 2]],
            "tensor.gather: coordinates (1, 2) appear more than once",
        ),
        (
            "gather_unique",
            [[1, 5], [0, 0]],
            "coordinate 5 at indices[0, 1] is out of bounds for dimension 1 of size 5",
        ),
        (
            "scatter",
            [[2], [2]],
            "tensor.scatter: coordinates (2) appear more than once in the indices",
        ),
        (
            "scatter",
            [[0], [7]],
            "tensor.scatter: coordinate 7 at indices[1, 0] is out of bounds for dimension 0",
        ),
        # arith.index_cast sign-extends an i1: true is -1.
        ("gather_bool", [[True]], "tensor.gather: coordinate -1 at indices[0, 0] is out of bounds"),
    ],
)
def test_bad_coordinates_are_errors_naming_the_op(indexing_program, fn, bad, message):
    src = np.arange(20, dtype=np.float32).reshape(4, 5)
    dtype = {
        "gather": np.int32,
        "gather_unique": np.int64,
        "scatter": np.int64,
        "gather_bool": np.bool_,
    }[fn]
    idx = np.array(bad, dtype)
    args = {
        "gather": (src, idx), "gather_unique": (src, idx), "gather_bool": (src[0, :4], idx),
        "scatter": (np.ones((2, 1, 5), np.float32), src, idx),
    }[fn]  # fmt: skip
    with pytest.raises(tfrt.api.ExecutionError) as info:
        indexing_program.call(fn, *args)
    assert message in str(info.value)


def test_good_coordinates_next_to_the_bad_ones_run(indexing_program):
    src = np.arange(20, dtype=np.float32).reshape(4, 5)
    got = indexing_program.call("gather", src, np.array([[0], [3], [3]], np.int32))
    np.testing.assert_array_equal(got, src[[0, 3, 3]])
    got = indexing_program.call("gather_unique", src, np.array([[3, 4], [0, 0]]))
    np.testing.assert_array_equal(got, [19.0, 0.0])
    assert indexing_program.call("gather_bool", src[0, :4], np.array([[False]])).tolist() == [0.0]


# ---------------------------------------------------------------- generate and pad


def test_generate_computes_each_element_from_its_indices():
    text = """
func.func @gen(%x: tensor<3xf32>, %k: f32) -> tensor<4x3xf32> {
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %ij = arith.muli %i, %j : index
    %v = arith.index_cast %ij : index to i32
    %w = arith.sitofp %v : i32 to f32
    %f = arith.addf %w, %k : f32
    %e = tensor.extract %x[%j] : tensor<3xf32>
    %r = arith.addf %f, %e : f32
    tensor.yield %r : f32
  } : tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}
func.func @gen_dynamic() -> tensor<5xindex> {
  %n = arith.constant 5 : index
  %g = tensor.generate %n {
  ^bb0(%i: index):
    %d = arith.muli %i, %i : index
    tensor.yield %d : index
  } : tensor<?xindex>
  %c = tensor.cast %g : tensor<?xindex> to tensor<5xindex>
  return %c : tensor<5xindex>
}
func.func @gen_i32(%k: i32) -> tensor<3xi32> {
  %g = tensor.generate {
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i32
    %w = arith.muli %v, %k : i32
    tensor.yield %w : i32
  } : tensor<3xi32>
  return %g : tensor<3xi32>
}
func.func @gen_const() -> tensor<2x2xi1> {
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %t = arith.constant true
    tensor.yield %t : i1
  } : tensor<2x2xi1>
  return %g : tensor<2x2xi1>
}
"""
    x = np.array([0.5, 1.5, 2.5], np.float32)
    want = np.array([[i * j + 7 + x[j] for j in range(3)] for i in range(4)], np.float32)
    for level in (0, 2):
        prog = _load(text, level)
        np.testing.assert_array_equal(prog.call("gen", x, np.float32(7)), want)
        assert prog.call("gen_dynamic").tolist() == [0, 1, 4, 9, 16]
        assert prog.call("gen_i32", np.int32(-3)).tolist() == [0, -3, -6]
        assert prog.call("gen_const").tolist() == [[True, True], [True, True]]


def test_generate_lowers_to_the_generic_kernel_through_linalg_index():
    text = """
func.func @gen() -> tensor<2x3xi64> {
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    %v = arith.index_cast %s : index to i64
    tensor.yield %v : i64
  } : tensor<2x3xi64>
  return %g : tensor<2x3xi64>
}
"""
    module = parse_module(text, "t.mlir")
    compile_module(module, opt_level=0)
    out = print_module(module)
    assert "tfrt_array.generic" in out and "idx0" in out and "idx1" in out
    assert "tensor." not in out and "linalg." not in out
    assert tfrt.api.load(write_bef(module)).call("gen").tolist() == [[0, 1, 2], [1, 2, 3]]


def ref_pad(x, low, high, value_at):
    shape = [n + lo + hi for n, lo, hi in zip(x.shape, low, high)]
    out = np.zeros(shape, x.dtype)
    for pos in itertools.product(*(range(n) for n in shape)):
        inner = [p - lo for p, lo in zip(pos, low)]
        if all(0 <= q < n for q, n in zip(inner, x.shape)):
            out[pos] = x[tuple(inner)]
        else:
            out[pos] = value_at(pos)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_pad_with_a_constant_a_captured_value_and_a_computed_one(seed):
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 4))
    shape = [int(n) for n in rng.integers(1, 4, rank)]
    low = [int(n) for n in rng.integers(0, 3, rank)]
    high = [int(n) for n in rng.integers(0, 3, rank)]
    out = [n + a + b for n, a, b in zip(shape, low, high)]
    src_t, out_t = _t(shape, "f32"), _t(out, "f32")
    args = ", ".join(f"%a{d}: index" for d in range(rank))
    lo, hi = ", ".join(map(str, low)), ", ".join(map(str, high))
    # The computed value: sum of index * (dimension + 1).
    terms = [f"    %m{d} = arith.constant {d + 1} : index\n    %p{d} = arith.muli %a{d}, %m{d} : index\n"
             for d in range(rank)]  # fmt: skip
    acc = "%p0"
    for d in range(1, rank):
        terms.append(f"    %s{d} = arith.addi {acc}, %p{d} : index\n")
        acc = f"%s{d}"
    computed = "".join(terms) + (
        f"    %ci = arith.index_cast {acc} : index to i32\n    %cf = arith.sitofp %ci : i32 to f32\n"
        "    tensor.yield %cf : f32\n"
    )
    text = f"""
func.func @constant(%x: {src_t}) -> {out_t} {{
  %p = tensor.pad %x low[{lo}] high[{hi}] {{
  ^bb0({args}):
    %c = arith.constant -2.5 : f32
    tensor.yield %c : f32
  }} : {src_t} to {out_t}
  return %p : {out_t}
}}
func.func @captured(%x: {src_t}, %v: f32) -> {out_t} {{
  %p = tensor.pad %x low[{lo}] high[{hi}] {{
  ^bb0({args}):
    tensor.yield %v : f32
  }} : {src_t} to {out_t}
  return %p : {out_t}
}}
func.func @computed(%x: {src_t}) -> {out_t} {{
  %p = tensor.pad %x low[{lo}] high[{hi}] {{
  ^bb0({args}):
{computed}  }} : {src_t} to {out_t}
  return %p : {out_t}
}}
"""
    prog = _load(text)
    x = _values(rng, shape, "f32")
    np.testing.assert_array_equal(prog.call("constant", x), ref_pad(x, low, high, lambda p: -2.5))
    np.testing.assert_array_equal(
        prog.call("captured", x, np.float32(9.0)), ref_pad(x, low, high, lambda p: 9.0)
    )
    # The body's arguments index the result (MLIR lowers the region to a
    # tensor.generate over the result type).
    np.testing.assert_array_equal(
        prog.call("computed", x),
        ref_pad(x, low, high, lambda p: sum(i * (d + 1) for d, i in enumerate(p))),
    )


def test_pad_amounts_given_as_constants_make_a_static_result():
    text = """
func.func @pad(%x: tensor<2x3xi32>) -> tensor<4x3xi32> {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %p = tensor.pad %x low[%c1, 0] high[%c1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : i32
  } : tensor<2x3xi32> to tensor<?x3xi32>
  %c = tensor.cast %p : tensor<?x3xi32> to tensor<4x3xi32>
  return %c : tensor<4x3xi32>
}
"""
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    for level in (0, 2):
        np.testing.assert_array_equal(
            _load(text, level).call("pad", x), np.pad(x, ((1, 1), (0, 0)))
        )


# ---------------------------------------------------------------- slices


SLICES = """
func.func @static(%x: tensor<6x7xf32>) -> tensor<2x3xf32> {
  %s = tensor.extract_slice %x[1, 0] [2, 3] [3, 2] : tensor<6x7xf32> to tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
func.func @rank_reducing(%x: tensor<6x7x1xf32>) -> tensor<4xf32> {
  %s = tensor.extract_slice %x[2, 1, 0] [1, 4, 1] [1, 1, 1] : tensor<6x7x1xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @constant_ssa(%x: tensor<6x7xf32>) -> tensor<3x2xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %s = tensor.extract_slice %x[%c1, %c3] [%c3, %c2] [%c2, %c1] : tensor<6x7xf32> to tensor<?x?xf32>
  %c = tensor.cast %s : tensor<?x?xf32> to tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}
func.func @runtime_offsets(%x: tensor<6x7xf32>, %i: index, %j: index) -> tensor<2x3xf32> {
  %s = tensor.extract_slice %x[%i, %j] [2, 3] [1, 2] : tensor<6x7xf32> to tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
func.func @runtime_stride(%x: tensor<6x7xf32>, %st: index) -> tensor<3xf32> {
  %s = tensor.extract_slice %x[0, 6] [1, 3] [1, %st] : tensor<6x7xf32> to tensor<3xf32>
  return %s : tensor<3xf32>
}
func.func @insert(%x: tensor<6x7xf32>, %u: tensor<3xf32>) -> tensor<6x7xf32> {
  %c4 = arith.constant 4 : index
  %s = tensor.insert_slice %u into %x[%c4, 1] [1, 3] [1, 2] : tensor<3xf32> into tensor<6x7xf32>
  return %s : tensor<6x7xf32>
}
func.func @insert_runtime(%x: tensor<6x7xf32>, %u: tensor<2x2xf32>, %i: index) -> tensor<6x7xf32> {
  %s = tensor.insert_slice %u into %x[%i, %i] [2, 2] [2, 1] : tensor<2x2xf32> into tensor<6x7xf32>
  return %s : tensor<6x7xf32>
}
"""


@pytest.fixture(scope="module", params=[0, 2], ids=["O0", "O2"])
def slice_program(request):
    return _load(SLICES, request.param)


def test_slices_match_the_reference(slice_program):
    x = np.arange(42, dtype=np.float32).reshape(6, 7)
    np.testing.assert_array_equal(
        slice_program.call("static", x), ref_slice(x, [1, 0], [2, 3], [3, 2])
    )
    x3 = x.reshape(6, 7, 1)
    np.testing.assert_array_equal(slice_program.call("rank_reducing", x3), x[2, 1:5])
    np.testing.assert_array_equal(
        slice_program.call("constant_ssa", x), ref_slice(x, [1, 3], [3, 2], [2, 1])
    )
    for i, j in ((0, 0), (4, 2), (2, 1)):
        np.testing.assert_array_equal(slice_program.call("runtime_offsets", x, i, j),
                                      ref_slice(x, [i, j], [2, 3], [1, 2]))  # fmt: skip
    # A negative stride walks backwards (MLIR's offset + i * stride).
    np.testing.assert_array_equal(
        slice_program.call("runtime_stride", x, -2), [x[0, 6], x[0, 4], x[0, 2]]
    )
    u = np.array([-1, -2, -3], np.float32)
    want = x.copy()
    want[4, 1:6:2] = u
    np.testing.assert_array_equal(slice_program.call("insert", x, u), want)
    u2 = -np.ones((2, 2), np.float32)
    want = x.copy()
    want[3:6:2, 3:5] = u2
    np.testing.assert_array_equal(slice_program.call("insert_runtime", x, u2, 3), want)


@pytest.mark.parametrize(
    ("fn", "args", "message"),
    [
        (
            "runtime_offsets",
            (5, 0),
            (
                "tensor.extract_slice: the slice along dimension 0 (offset 5, size 2, stride 1) "
                "reaches index 6, out of bounds for size 6"
            ),
        ),
        (
            "runtime_offsets",
            (0, 3),
            "the slice along dimension 1 (offset 3, size 3, stride 2) reaches index 7",
        ),
        ("runtime_offsets", (-1, 0), "reaches index -1, out of bounds"),
        (
            "runtime_stride",
            (-4,),
            "the slice along dimension 1 (offset 6, size 3, stride -4) reaches index -2",
        ),
        (
            "insert_runtime",
            (4,),
            "tensor.insert_slice: the slice along dimension 0 (offset 4, size 2, stride 2)",
        ),
    ],
)
def test_slices_out_of_bounds_at_run_time_are_errors(slice_program, fn, args, message):
    x = np.zeros((6, 7), np.float32)
    extra = (np.zeros((2, 2), np.float32),) if fn == "insert_runtime" else ()
    with pytest.raises(tfrt.api.ExecutionError) as info:
        slice_program.call(fn, x, *extra, *args)
    assert message in str(info.value)


def test_element_access_refuses_negative_indices():
    text = """
func.func @get(%x: tensor<4xf32>, %i: index) -> f32 {
  %v = tensor.extract %x[%i] : tensor<4xf32>
  return %v : f32
}
func.func @put(%x: tensor<4xf32>, %i: index, %v: f32) -> tensor<4xf32> {
  %y = tensor.insert %v into %x[%i] : tensor<4xf32>
  return %y : tensor<4xf32>
}
"""
    prog = _load(text)
    x = np.arange(4, dtype=np.float32)
    assert prog.call("get", x, 3) == 3.0
    assert prog.call("put", x, 0, np.float32(9)).tolist() == [9, 1, 2, 3]
    for fn, args in (("get", (x, -1)), ("put", (x, -1, np.float32(0))), ("get", (x, 4))):
        with pytest.raises(tfrt.api.ExecutionError) as info:
            prog.call(fn, *args)
        assert "out of bounds for axis 0 with size 4" in str(info.value)


# ---------------------------------------------------------------- the other ops


OTHERS = """
func.func @reshapes(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<24xf32>) {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %c2 = arith.constant 2 : index
  %x4 = tensor.cast %x : tensor<2x3x4xf32> to tensor<2x3x?xf32>
  %e = tensor.expand_shape %x4 [[0], [1], [2, 3]] output_shape [2, 3, %c2, 2] : tensor<2x3x?xf32> into tensor<2x3x?x2xf32>
  %e2 = tensor.cast %e : tensor<2x3x?x2xf32> to tensor<2x3x2x2xf32>
  %s = arith.constant dense<[24]> : tensor<1xi64>
  %r = tensor.reshape %x(%s) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<24xf32>
  return %c, %e2, %r : tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<24xf32>
}
func.func @expand_scalar(%x: tensor<f32>) -> tensor<1x1xf32> {
  %e = tensor.expand_shape %x [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  return %e : tensor<1x1xf32>
}
func.func @reshape_runtime(%x: tensor<2x3xi32>, %s: tensor<2xindex>) -> tensor<3x2xi32> {
  %r = tensor.reshape %x(%s) : (tensor<2x3xi32>, tensor<2xindex>) -> tensor<3x2xi32>
  return %r : tensor<3x2xi32>
}
func.func @splats(%v: f16, %n: index) -> (tensor<2x3xf16>, tensor<4x2xf16>) {
  %s = tensor.splat %v : tensor<2x3xf16>
  %c4 = arith.constant 4 : index
  %d = tensor.splat %v[%c4] : tensor<?x2xf16>
  %dc = tensor.cast %d : tensor<?x2xf16> to tensor<4x2xf16>
  return %s, %dc : tensor<2x3xf16>, tensor<4x2xf16>
}
func.func @assemble(%a: i8, %b: i8, %t: tensor<1x2xi8>) -> (tensor<2x2xi8>, tensor<3x2xi8>) {
  %f = tensor.from_elements %a, %b, %b, %a : tensor<2x2xi8>
  %c = tensor.concat dim(0) %t, %f : (tensor<1x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi8>
  return %f, %c : tensor<2x2xi8>, tensor<3x2xi8>
}
func.func @bitcasts(%u: tensor<3xui32>, %f: tensor<2xf32>) -> (tensor<3xi32>, tensor<2xi32>) {
  %a = tensor.bitcast %u : tensor<3xui32> to tensor<3xi32>
  %b = tensor.bitcast %f : tensor<2xf32> to tensor<2xi32>
  return %a, %b : tensor<3xi32>, tensor<2xi32>
}
func.func @shape_queries(%x: tensor<5x7xf32>, %i: index) -> (index, index, index) {
  %r = tensor.rank %x : tensor<5x7xf32>
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c1 : tensor<5x7xf32>
  %di = tensor.dim %x, %i : tensor<5x7xf32>
  return %r, %d, %di : index, index, index
}
func.func @empty_and_casts(%n: tensor<3xf32>) -> (tensor<2x2xf32>, tensor<3xf32>) {
  %c2 = arith.constant 2 : index
  %e = tensor.empty(%c2) : tensor<2x?xf32>
  %f = arith.constant 1.5 : f32
  %filled = linalg.fill ins(%f : f32) outs(%e : tensor<2x?xf32>) -> tensor<2x?xf32>
  %s = tensor.cast %filled : tensor<2x?xf32> to tensor<2x2xf32>
  %up = tensor.cast %n : tensor<3xf32> to tensor<?xf32>
  %down = tensor.cast %up : tensor<?xf32> to tensor<3xf32>
  return %s, %down : tensor<2x2xf32>, tensor<3xf32>
}
"""


@pytest.fixture(scope="module", params=[0, 2], ids=["O0", "O2"])
def others_program(request):
    return _load(OTHERS, request.param)


def test_the_other_ops_match_numpy(others_program):
    p = others_program
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    c, e, r = p.call("reshapes", x)
    np.testing.assert_array_equal(c, x.reshape(6, 4))
    np.testing.assert_array_equal(e, x.reshape(2, 3, 2, 2))
    np.testing.assert_array_equal(r, x.reshape(24))
    assert p.call("expand_scalar", np.float32(4.0)).tolist() == [[4.0]]
    y = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(p.call("reshape_runtime", y, np.array([3, 2])), y.reshape(3, 2))
    with pytest.raises(tfrt.api.ExecutionError) as info:
        p.call("reshape_runtime", y, np.array([2, 3]))
    assert (
        "tensor.reshape: the shape operand holds [2, 3], but the result type's shape is [3, 2]"
        in str(info.value)
    )
    s, d = p.call("splats", np.float16(1.25), 0)
    assert s.dtype == np.float16 and s.tolist() == [[1.25] * 3] * 2 and d.shape == (4, 2)
    f, cat = p.call("assemble", np.int8(1), np.int8(-2), np.array([[7, 8]], np.int8))
    assert f.tolist() == [[1, -2], [-2, 1]] and cat.tolist() == [[7, 8], [1, -2], [-2, 1]]
    u = np.array([0, 1, 2**32 - 1], np.uint32)
    fl = np.array([1.0, -0.0], np.float32)
    a, b = p.call("bitcasts", u, fl)
    np.testing.assert_array_equal(a, u.view(np.int32))
    np.testing.assert_array_equal(b, fl.view(np.int32))
    assert [int(v) for v in p.call("shape_queries", np.zeros((5, 7), np.float32), 0)] == [2, 7, 5]
    with pytest.raises(tfrt.api.ExecutionError) as info:
        p.call("shape_queries", np.zeros((5, 7), np.float32), 2)
    assert "index 2 is out of bounds for axis 0 with size 2 (at t.mlir:" in str(info.value)
    filled, down = p.call("empty_and_casts", np.array([1, 2, 3], np.float32))
    assert filled.tolist() == [[1.5, 1.5]] * 2 and down.tolist() == [1, 2, 3]


# ---------------------------------------------------------------- what cannot be lowered


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (("%s = tensor.extract_slice %x[0] [%n] [1] : tensor<8xf32> to tensor<?xf32>\n"
         "  %c = tensor.cast %s : tensor<?xf32> to tensor<2xf32>"),
         "t.mlir:2:3: error: 'tensor.extract_slice' op cannot be lowered: size #0 is not a constant"),
        ("%e = tensor.empty(%n) : tensor<?xf32>\n  %c = tensor.cast %e : tensor<?xf32> to tensor<2xf32>",
         "t.mlir:2:3: error: 'tensor.empty' op cannot be lowered: dynamic shapes are not supported"),
        (("%g = tensor.generate %n {\n  ^bb0(%i: index):\n    %f = arith.constant 0.0 : f32\n"
         "    tensor.yield %f : f32\n  } : tensor<?xf32>\n  %c = tensor.cast %g : tensor<?xf32> to tensor<2xf32>"),
         "t.mlir:2:3: error: 'tensor.generate' op cannot be lowered: dynamic shapes are not supported"),
        (("%g = tensor.generate {\n  ^bb0(%i: index):\n    %f = math.exp %v : f32\n"
         "    %p = \"test.pure\"(%f) : (f32) -> f32\n    tensor.yield %p : f32\n  } : tensor<2xf32>\n"
         "  %c = tensor.cast %g : tensor<2xf32> to tensor<2xf32>"),
         "t.mlir:2:3: error: 'tensor.generate' op cannot be lowered: its body holds 'test.pure'"),
    ],
)  # fmt: skip
def test_what_stays_dynamic_is_a_located_error(body, message):
    text = (
        "func.func @f(%x: tensor<8xf32>, %n: index, %v: f32) -> tensor<2xf32> {\n"
        f"  {body}\n  return %c : tensor<2xf32>\n}}\n"
    )
    module = parse_module(text, "t.mlir", allow_unregistered=True)
    with pytest.raises(DiagnosticError) as info:
        compile_module(module)
    assert message in info.value.render()


def test_parallel_insert_slice_verifies_in_forall_and_is_refused_there():
    text = (
        "func.func @f(%x: tensor<4xf32>, %o: tensor<8xf32>, %i: index) {\n"
        '  "scf.forall.in_parallel"() ({\n'
        "    tensor.parallel_insert_slice %x into %o[%i] [4] [1] : tensor<4xf32> into tensor<8xf32>\n"
        "  }) : () -> ()\n"
        "  return\n}\n"
    )
    module = parse_module(text, "t.mlir", allow_unregistered=True)
    assert "tensor.parallel_insert_slice %arg0 into %arg1[%arg2] [4] [1]" in print_module(module)
    with pytest.raises(DiagnosticError) as info:
        compile_module(module)
    assert ("t.mlir:3:5: error: 'tensor.parallel_insert_slice' op cannot be lowered: scf.forall, whose updates "
            "it makes, is not supported") in info.value.render()  # fmt: skip


# ---------------------------------------------------------------- verifier


INVALID = [
    ("%g = tensor.gather %t[%i1] gather_dims([]) : (tensor<4x5xf32>, tensor<2x1xindex>) -> tensor<2x1x5xf32>",
     "'tensor.gather' op gather_dims must be non-empty"),
    ("%g = tensor.gather %t[%i2] gather_dims([1, 0]) : (tensor<4x5xf32>, tensor<3x2xi32>) -> tensor<3xf32>",
     "'tensor.gather' op gather_dims values must be strictly increasing"),
    ("%g = tensor.gather %t[%i1] gather_dims([2]) : (tensor<4x5xf32>, tensor<2x1xindex>) -> tensor<2x4xf32>",
     "'tensor.gather' op gather_dims value must be smaller than source rank"),
    ("%g = tensor.gather %t[%i2] gather_dims([0]) : (tensor<4x5xf32>, tensor<3x2xi32>) -> tensor<3x5xf32>",
     "'tensor.gather' op gather_dims length must match the size of last dimension of indices"),
    ("%g = tensor.gather %t[%i1] gather_dims([0]) : (tensor<4x5xf32>, tensor<2x1xindex>) -> tensor<2x4xf32>",
     ("'tensor.gather' op result type mismatch: expected 'tensor<2x1x5xf32>' or its rank-reduced variant "
     "'tensor<2x5xf32>' (got: 'tensor<2x4xf32>')")),
    ("%g = tensor.gather %t[%f] gather_dims([0]) : (tensor<4x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>",
     ("'tensor.gather' op operand #1 must be ranked tensor of signless integer or index values, "
     "but got 'tensor<2x1xf32>'")),
    (("%s = tensor.scatter %u into %t[%i1] scatter_dims([0]) : (tensor<2x5xf32>, tensor<4x5xf32>, "
     "tensor<2x1xindex>) -> tensor<4x5xf32>"), "'tensor.scatter' op requires 'unique' attribute to be set"),
    (("%s = tensor.scatter %u into %t[%i1] scatter_dims([0]) unique : (tensor<2x5xf32>, tensor<4x5xf32>, "
     "tensor<2x1xindex>) -> tensor<4x5xf32>"), None),
    (("%s = tensor.scatter %t into %t[%i1] scatter_dims([0]) unique : (tensor<4x5xf32>, tensor<4x5xf32>, "
     "tensor<2x1xindex>) -> tensor<4x5xf32>"),
     ("'tensor.scatter' op source type mismatch: expected 'tensor<2x1x5xf32>' or its rank-reduced variant "
     "'tensor<2x5xf32>' (got: 'tensor<4x5xf32>')")),
    ("%s = tensor.extract_slice %t[0, 2] [4, 4] [1, 1] : tensor<4x5xf32> to tensor<4x3xf32>",
     "expected type to be 'tensor<4x4xf32>' or a rank-reduced version. (size mismatch)"),
    ("%s = tensor.extract_slice %t[0, 2] [4, 3] [1, 1] : tensor<4x5xf32> to tensor<4x3xi32>",
     "expected element type to be 'f32'"),
    ("%s = tensor.extract_slice %t[0, 5] [4, 1] [1, 1] : tensor<4x5xf32> to tensor<4xf32>",
     "offset 1 is out-of-bounds: 5 >= 5"),
    ("%s = tensor.extract_slice %t[1, 0] [2, 3] [3, 2] : tensor<4x5xf32> to tensor<2x3xf32>",
     "slice along dimension 0 runs out-of-bounds: 4 >= 4"),
    ("%s = tensor.extract_slice %t[-1, 0] [2, 3] [1, 1] : tensor<4x5xf32> to tensor<2x3xf32>",
     "expected offsets to be non-negative, but got -1"),
    ("%s = tensor.extract_slice %t[0] [2] [1] : tensor<4x5xf32> to tensor<2xf32>",
     "expected 2 offset values, got 1"),
    ("%s = tensor.insert_slice %u into %t[0, 0] [2, 4] [1, 1] : tensor<2x5xf32> into tensor<4x5xf32>",
     "expected type to be 'tensor<2x4xf32>' or a rank-reduced version. (size mismatch)"),
    ("%s = tensor.insert_slice %u into %t[3, 0] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<4x5xf32>",
     "slice along dimension 0 runs out-of-bounds: 4 >= 4"),
    (("%p = tensor.pad %t low[1, 0] high[0, 2] {\n  ^bb0(%a: index, %b: index):\n    tensor.yield %v : f32\n"
     "  } : tensor<4x5xf32> to tensor<5x5xf32>"),
     "specified type 'tensor<5x5xf32>' does not match the inferred type 'tensor<5x7xf32>'"),
    (("%p = tensor.pad %t low[1, 0] high[0, 2] {\n  ^bb0(%a: index):\n    tensor.yield %v : f32\n"
     "  } : tensor<4x5xf32> to tensor<5x7xf32>"), "expected the block to have 2 arguments"),
    (("%p = tensor.pad %t low[1, 0] high[0, 2] {\n  ^bb0(%a: index, %b: index):\n    tensor.yield %a : index\n"
     "  } : tensor<4x5xf32> to tensor<5x7xf32>"), "'tensor.pad' op expected yield type to match shape element type"),
    ("%c = tensor.collapse_shape %t [[0, 1]] : tensor<4x5xf32> into tensor<21xf32>",
     "'tensor.collapse_shape' op expected dimension 0 of collapsed type to be static value of 20"),
    ("%c = tensor.collapse_shape %t [[1], [0]] : tensor<4x5xf32> into tensor<5x4xf32>",
     "'tensor.collapse_shape' op expected reassociation map #0 to be valid and contiguous."),
    ("%e = tensor.expand_shape %u [[0, 1], [2]] output_shape [2, 1, 5] : tensor<2x5xf32> into tensor<1x2x5xf32>",
     "'tensor.expand_shape' op invalid output shape provided at pos 0"),
    ("%e = tensor.expand_shape %u [[0, 1], [2]] output_shape [1, 3, 5] : tensor<2x5xf32> into tensor<1x3x5xf32>",
     "'tensor.expand_shape' op expected dimension 0 of collapsed type to be static value of 3"),
    ("%x = tensor.extract %t[%n] : tensor<4x5xf32>", "'tensor.extract' op incorrect number of indices for extract_element"),
    ("%x = tensor.insert %v into %t[%n] : tensor<4x5xf32>", "'tensor.insert' op incorrect number of indices"),
    ("%g = tensor.generate %n {\n  ^bb0(%a: index):\n    tensor.yield %v : f32\n  } : tensor<4xf32>",
     "error: must have as many index operands as dynamic extents in the result type"),
    ("%g = tensor.generate {\n  ^bb0(%a: index, %b: index):\n    tensor.yield %v : f32\n  } : tensor<4xf32>",
     "error: must have one body argument per input dimension"),
    ("%g = tensor.generate {\n  ^bb0(%a: index):\n    tensor.yield %a : index\n  } : tensor<4xf32>",
     "'tensor.generate' op body must be terminated with a `yield` operation of the tensor element type"),
    ("%b = tensor.bitcast %t : tensor<4x5xf32> to tensor<4x5xf16>",
     "'tensor.bitcast' op operand type 'tensor<4x5xf32>' and result type 'tensor<4x5xf16>' are cast incompatible"),
    ("%b = tensor.cast %t : tensor<4x5xf32> to tensor<4x5xi32>",
     "'tensor.cast' op operand type 'tensor<4x5xf32>' and result type 'tensor<4x5xi32>' are cast incompatible"),
    ("%b = tensor.cast %t : tensor<4x5xf32> to tensor<?x4xf32>",
     "'tensor.cast' op operand type 'tensor<4x5xf32>' and result type 'tensor<?x4xf32>' are cast incompatible"),
    ("%s = tensor.splat %v[%n] : tensor<?x?xf32>", "'tensor.splat' op incorrect number of dynamic sizes, has 1, expected 2"),
    ("%e = tensor.empty() : tensor<?xf32>", "'tensor.empty' op incorrect number of dynamic sizes, has 0, expected 1"),
    ("%c = tensor.concat dim(1) %t, %u : (tensor<4x5xf32>, tensor<2x5xf32>) -> tensor<4x10xf32>",
     "'tensor.concat' op static concatenation size mismatch along non-concatenated dimension 0"),
    ("%r = tensor.reshape %t(%shp) : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<5x5xf32>",
     "'tensor.reshape' op source and destination tensor should have the same number of elements"),
    ("%d = tensor.dim %s0, %n : tensor<f32>",
     "'tensor.dim' op operand #0 must be non-0-ranked or unranked tensor, but got 'tensor<f32>'"),
    ("%fe = tensor.from_elements %v, %v : tensor<3xf32>",
     "'tensor.from_elements' op failed to verify that operand types match result element type"),
    ("tensor.yield %v : f32", "'tensor.yield' op expects parent op to be one of 'tensor.generate, tensor.pad'"),
    ("tensor.parallel_insert_slice %u into %t[0, 0] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<4x5xf32>",
     "error: expected ParallelCombiningOpInterface parent, got:'func.func'"),
]  # fmt: skip

_HEAD = (
    "func.func @f(%t: tensor<4x5xf32>, %u: tensor<2x5xf32>, %i1: tensor<2x1xindex>, %i2: tensor<3x2xi32>, "
    "%f: tensor<2x1xf32>, %v: f32, %n: index, %shp: tensor<2xi64>, %s0: tensor<f32>) {\n"
)


@pytest.mark.parametrize(("line", "message"), INVALID, ids=[f"{i}" for i in range(len(INVALID))])
def test_the_verifier_says_what_mlir_says_at_the_op(line, message):
    text = _HEAD + "  " + line + "\n  return\n}\n"
    if message is None:
        parse_module(text, "t.mlir")  # the valid twin of the case before
        return
    out = _verify_error(text)
    assert out.startswith("t.mlir:2:"), out
    assert message in out, out


def test_the_verifier_cases_cover_every_verifying_op():
    names = {re.search(r"tensor\.(\w+)", line).group(1) for line, _ in INVALID}
    assert names >= {
        "bitcast", "cast", "collapse_shape", "concat", "dim", "empty", "expand_shape", "extract",
        "extract_slice", "from_elements", "gather", "generate", "insert", "insert_slice", "pad",
        "parallel_insert_slice", "reshape", "scatter", "splat", "yield",
    }  # fmt: skip


# ---------------------------------------------------------------- syntax


ROUND_TRIP = """\
func.func @f(%arg0: tensor<4x5xf32>, %arg1: tensor<2x1xindex>, %arg2: tensor<4xui32>, %arg3: index, %arg4: f32, %arg5: tensor<2x5xf32>) {
  %rank = tensor.rank %arg0 : tensor<4x5xf32>
  %0 = tensor.bitcast %arg2 : tensor<4xui32> to tensor<4xi32>
  %cast = tensor.cast %arg0 : tensor<4x5xf32> to tensor<?x5xf32>
  %dim = tensor.dim %cast, %arg3 : tensor<?x5xf32>
  %gather = tensor.gather %arg0[%arg1] gather_dims([0]) : (tensor<4x5xf32>, tensor<2x1xindex>) -> tensor<2x1x5xf32>
  %gather_0 = tensor.gather %arg0[%arg1] gather_dims([0]) unique : (tensor<4x5xf32>, tensor<2x1xindex>) -> tensor<2x5xf32>
  %scatter = tensor.scatter %arg5 into %arg0[%arg1] scatter_dims([0]) unique : (tensor<2x5xf32>, tensor<4x5xf32>, tensor<2x1xindex>) -> tensor<4x5xf32>
  %generated = tensor.generate %arg3 {
  ^bb0(%arg6: index, %arg7: index):
    %extracted = tensor.extract %arg0[%arg6, %arg7] : tensor<4x5xf32>
    tensor.yield %extracted : f32
  } : tensor<?x5xf32>
  %padded = tensor.pad %arg0 low[1, %arg3] high[0, 2] {
  ^bb0(%arg6: index, %arg7: index):
    tensor.yield %arg4 : f32
  } : tensor<4x5xf32> to tensor<5x?xf32>
  %splat = tensor.splat %arg4[%arg3] : tensor<?x3xf32>
  %1 = tensor.empty(%arg3) : tensor<?x5xf32>
  %extracted_slice = tensor.extract_slice %arg0[%arg3, 0] [1, 5] [1, 1] : tensor<4x5xf32> to tensor<5xf32>
  %inserted_slice = tensor.insert_slice %extracted_slice into %arg0[0, 0] [1, 5] [1, 1] : tensor<5xf32> into tensor<4x5xf32>
  %inserted = tensor.insert %arg4 into %arg0[%arg3, %arg3] : tensor<4x5xf32>
  %from_elements = tensor.from_elements %arg4, %arg4 : tensor<2xf32>
  %concat = tensor.concat dim(0) %arg0, %arg5 : (tensor<4x5xf32>, tensor<2x5xf32>) -> tensor<6x5xf32>
  %collapsed = tensor.collapse_shape %cast [[0, 1]] : tensor<?x5xf32> into tensor<?xf32>
  %expanded = tensor.expand_shape %collapsed [[0, 1]] output_shape [%arg3, 5] : tensor<?xf32> into tensor<?x5xf32>
  %cst = arith.constant dense<[5, 4]> : tensor<2xi64>
  %reshape = tensor.reshape %arg0(%cst) : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<5x4xf32>
  return
}
"""


def test_every_op_prints_as_mlir_opt_prints_it():
    assert print_module(parse_module(ROUND_TRIP)) == "module {\n" + _indent(ROUND_TRIP) + "}\n"


def _indent(text: str) -> str:
    return "".join(f"  {line}\n" for line in text.splitlines())


def test_generic_form_round_trips_and_matches_xdsl_s_parser():
    module = parse_module(ROUND_TRIP)
    generic = print_module(module, generic=True)
    assert '"tensor.gather"(%arg0, %arg1) <{gather_dims = array<i64: 0>, unique}>' in generic
    assert (
        '"tensor.scatter"(%arg5, %arg0, %arg1) <{scatter_dims = array<i64: 0>, unique}>' in generic
    )
    assert '"tensor.generate"(%arg3) ({' in generic
    again = parse_module(generic)
    assert print_module(again) == print_module(module)
    theirs = Parser(make_context(), ROUND_TRIP).parse_module()
    assert print_module(theirs, generic=True) == generic


def test_tfrt_opt_round_trips_the_custom_and_generic_forms(tmp_path):
    src = tmp_path / "ops.mlir"
    src.write_text(ROUND_TRIP)
    once = subprocess.run(
        [str(BIN / "tfrt_opt"), str(src)], capture_output=True, text=True, check=True
    ).stdout
    twice = subprocess.run(
        [str(BIN / "tfrt_opt"), "-"], input=once, capture_output=True, text=True, check=True
    )
    assert twice.stdout == once
    generic = subprocess.run([str(BIN / "tfrt_opt"), str(src), "--mlir-print-op-generic"],
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
    back = subprocess.run(
        [str(BIN / "tfrt_opt"), "-"], input=generic, capture_output=True, text=True, check=True
    )
    assert back.stdout == once


def test_canonicalize_makes_constant_sizes_static_with_a_cast_back():
    text = """
func.func @f(%x: tensor<8x8xf32>, %v: f32) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %s = tensor.extract_slice %x[%c2, 0] [%c3, %c2] [1, 1] : tensor<8x8xf32> to tensor<?x?xf32>
  %g = tensor.generate %c3 {
  ^bb0(%i: index):
    tensor.yield %v : f32
  } : tensor<?xf32>
  %p = tensor.splat %v[%c3] : tensor<?x2xf32>
  return %s, %g, %p : tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>
}
"""
    module = parse_module(text)
    run_passes(module, [CanonicalizerPass()])
    out = print_module(module)
    assert (
        "tensor.extract_slice %arg0[2, 0] [3, 2] [1, 1] : tensor<8x8xf32> to tensor<3x2xf32>" in out
    )
    assert "tensor.cast %extracted_slice : tensor<3x2xf32> to tensor<?x?xf32>" in out
    assert (
        "} : tensor<3xf32>" in out
        and "tensor.cast %generated : tensor<3xf32> to tensor<?xf32>" in out
    )
    assert "tensor.splat %arg1 : tensor<3x2xf32>" in out


# ---------------------------------------------------------------- on a GPU


def test_the_checking_kernels_run_on_a_gpu(gpu):  # noqa: F811 - the fixture
    """place-devices puts every tensor kernel where its operands are: the
    checking kernels take device arrays (the indices are checked on the host)."""
    module = parse_module(INDEXING + SLICES, "t.mlir")
    compile_module(module, device="gpu")
    prog = tfrt.api.load(write_bef(module))
    src = np.arange(20, dtype=np.float32).reshape(4, 5)
    idx = np.array([[0], [3], [3]], np.int32)
    np.testing.assert_array_equal(prog.call("gather", src, idx), src[[0, 3, 3]])
    upd = -np.ones((2, 1, 5), np.float32)
    got = prog.call("scatter", upd, src, np.array([[1], [2]]))
    np.testing.assert_array_equal(got, ref_scatter(upd, src, np.array([[1], [2]]), [0]))
    x = np.arange(42, dtype=np.float32).reshape(6, 7)
    np.testing.assert_array_equal(prog.call("runtime_stride", x, -2), [6.0, 4.0, 2.0])
    np.testing.assert_array_equal(
        prog.call("runtime_offsets", x, 2, 1), ref_slice(x, [2, 1], [2, 3], [1, 2])
    )
    with pytest.raises(tfrt.api.ExecutionError) as info:
        prog.call("gather", src, np.array([[0], [4], [3]], np.int32))
    assert "tensor.gather: coordinate 4 at indices[1, 0] is out of bounds" in str(info.value)
