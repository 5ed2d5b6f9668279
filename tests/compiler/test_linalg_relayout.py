"""``linalg.pack``, ``linalg.unpack`` and ``linalg.softmax``: syntax, verifier,
and ``decompose-linalg`` run end to end against numpy references written from
MLIR's definitions (``LinalgRelayoutOps.td``, ``LinalgOps.td``).

The references index element by element, the way the op descriptions read;
the decomposition pads, reshapes and transposes.  They share no code.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.parser import Parser

import tfrt.api
from tfrt.bef.writer import write_bef
from tfrt.diagnostics import DiagnosticError
from tfrt.dialects import make_context
from tfrt.dialects.linalg_relayout import fold_static_tiles, packed_shape
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import parse_module, verify_module
from tfrt.passes.compiler import compile_module

RNG = np.random.default_rng(7)

# ---------------------------------------------------------------- references


def ref_pack(x, inner_dims_pos, tiles, outer_dims_perm=(), pad=None):
    """``linalg.pack``: result[o_0..o_{n-1}, t_0..t_{k-1}] is the source element
    whose index, along a dimension ``d``, is its outer index (``o_i`` where
    ``outer_dims_perm[i] == d``), times ``tiles[j]`` plus ``t_j`` when
    ``inner_dims_pos[j] == d``; positions past the source are ``pad``."""
    n = x.ndim
    perm = list(outer_dims_perm) or list(range(n))
    tile_of = dict(zip(inner_dims_pos, tiles))
    outer = [-(-x.shape[d] // tile_of[d]) if d in tile_of else x.shape[d] for d in range(n)]
    shape = [outer[p] for p in perm] + list(tiles)
    index = np.indices(shape, dtype=np.int64)
    src = [None] * n
    for i, d in enumerate(perm):
        src[d] = index[i]
    for j, d in enumerate(inner_dims_pos):
        src[d] = src[d] * tiles[j] + index[n + j]
    inside = np.ones(shape, bool)
    for d in range(n):
        inside &= src[d] < x.shape[d]
    if pad is None:
        assert inside.all(), "incomplete tiles need a padding value"
    clipped = tuple(np.minimum(src[d], x.shape[d] - 1) for d in range(n))
    return np.where(inside, x[clipped], pad if pad is not None else 0).astype(x.dtype)


def ref_unpack(p, inner_dims_pos, tiles, outer_dims_perm, dest_shape):
    """``linalg.unpack``: dest[x] = packed[outer indices permuted, x_d % tile]."""
    n = len(dest_shape)
    perm = list(outer_dims_perm) or list(range(n))
    tile_of = dict(zip(inner_dims_pos, tiles))
    index = np.indices(dest_shape, dtype=np.int64)
    outer = [index[d] // tile_of[d] if d in tile_of else index[d] for d in range(n)]
    packed = [outer[d] for d in perm] + [index[d] % t for d, t in zip(inner_dims_pos, tiles)]
    return p[tuple(packed)]


def ref_softmax(x, dim):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def test_references_agree_with_the_examples_of_the_op_description():
    # NC to NCnc and CK to KCck (LinalgRelayoutOps.td), on a 4x6 source.
    x = np.arange(24).reshape(4, 6)
    p = ref_pack(x, [0, 1], [2, 3])
    assert p.shape == (2, 2, 2, 3)
    assert p[1, 0].tolist() == [[12, 13, 14], [18, 19, 20]]
    q = ref_pack(x, [0, 1], [2, 3], [1, 0])
    assert q.shape == (2, 2, 2, 3) and (q.transpose(1, 0, 2, 3) == p).all()
    padded = ref_pack(x, [1], [4], pad=-1)
    assert padded.shape == (4, 2, 4) and padded[0, 1].tolist() == [4, 5, -1, -1]
    assert (ref_unpack(padded, [1], [4], [], (4, 6)) == x).all()
    assert np.allclose(ref_softmax(np.array([[1.0, 1.0], [0.0, np.log(3.0)]]), 1), [[0.5, 0.5], [0.25, 0.75]])


# ---------------------------------------------------------------- programs

_DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32, "i8": np.int8, "i64": np.int64}


def _tensor(shape, elt: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if len(shape) else ''}{elt}>"


def _literal(value, elt: str) -> str:
    return repr(float(value)) if elt.startswith("f") else str(int(value))


def _attrs(inner, tiles, perm) -> str:
    text = f"outer_dims_perm = {list(perm)} " if len(perm) else ""
    return text + f"inner_dims_pos = {list(inner)} inner_tiles = {list(tiles)}"


class Case:
    """A random pack: shape, tiled dimensions in a random order, tiles that
    often leave incomplete tiles, an optional outer permutation."""

    def __init__(self, rng, index: int):
        self.index = index
        self.elt = list(_DTYPES)[index % len(_DTYPES)]
        n = int(rng.integers(1, 5))
        self.shape = [int(s) for s in rng.integers(1, 8, n)]
        k = int(rng.integers(0 if index % 9 == 8 else 1, n + 1))
        self.inner = [int(d) for d in rng.permutation(n)[:k]]
        self.tiles = [int(t) for t in rng.integers(1, 6, k)]
        self.perm = [int(d) for d in rng.permutation(n)] if rng.random() < 0.6 else []
        full = all(self.shape[d] % t == 0 for d, t in zip(self.inner, self.tiles))
        # Padding is needed for incomplete tiles and allowed (unused) otherwise.
        self.pad = None if full and rng.random() < 0.5 else (-7.5 if self.elt.startswith("f") else 42)
        self.packed = packed_shape(self.shape, self.tiles, self.inner, self.perm)

    def source(self, rng):
        dtype = _DTYPES[self.elt]
        if self.elt.startswith("f"):
            return rng.standard_normal(self.shape).astype(dtype)
        return rng.integers(-100, 100, self.shape).astype(dtype)

    def functions(self) -> str:
        i, elt = self.index, self.elt
        src_t, packed_t = _tensor(self.shape, elt), _tensor(self.packed, elt)
        attrs = _attrs(self.inner, self.tiles, self.perm)
        pad_def = pad_use = ""
        if self.pad is not None:
            pad_def = f"  %pad = arith.constant {_literal(self.pad, elt)} : {elt}\n"
            pad_use = f"padding_value(%pad : {elt}) "
        pack = (
            f"{pad_def}  %d = tensor.empty() : {packed_t}\n"
            f"  %p = linalg.pack %x {pad_use}{attrs} into %d : {src_t} -> {packed_t}\n"
        )
        unpack = (
            f"  %e = tensor.empty() : {src_t}\n"
            f"  %u = linalg.unpack %p {attrs} into %e : {packed_t} -> {src_t}\n"
        )
        return (
            f"func.func @pack{i}(%x: {src_t}) -> {packed_t} {{\n{pack}  return %p : {packed_t}\n}}\n"
            f"func.func @unpack{i}(%p: {packed_t}) -> {src_t} {{\n{unpack}  return %u : {src_t}\n}}\n"
            f"func.func @roundtrip{i}(%x: {src_t}) -> {src_t} {{\n{pack}{unpack}  return %u : {src_t}\n}}\n"
        )


CASES = [Case(RNG, i) for i in range(36)]


@pytest.fixture(scope="module")
def relayout_program():
    return tfrt.api.load("\n".join(c.functions() for c in CASES))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.index}-{c.elt}-{c.shape}-{c.inner}-{c.tiles}-{c.perm}")
def test_pack_unpack_match_the_reference(relayout_program, case):
    rng = np.random.default_rng(case.index)
    x = case.source(rng)
    want = ref_pack(x, case.inner, case.tiles, case.perm, case.pad)
    got = relayout_program.call(f"pack{case.index}", x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    # unpack drops the padding, whatever it holds.
    real = ref_pack(np.ones_like(x), case.inner, case.tiles, case.perm, 0) == 1
    packed = np.where(real, want, np.asarray(99, want.dtype))
    np.testing.assert_array_equal(relayout_program.call(f"unpack{case.index}", packed), x)
    np.testing.assert_array_equal(relayout_program.call(f"roundtrip{case.index}", x), x)


def test_the_random_cases_cover_what_matters():
    incomplete = [c for c in CASES if any(c.shape[d] % t for d, t in zip(c.inner, c.tiles))]
    assert len(incomplete) >= 5
    assert any(c.perm and c.perm != sorted(c.perm) for c in CASES)
    assert any(c.inner != sorted(c.inner) for c in CASES)
    assert any(not c.inner for c in CASES) and any(len(c.shape) == 4 for c in CASES)


STATIC_PACKS = """
func.func @pad_transpose(%x: tensor<100x250xi32>) -> tensor<16x4x16x32xi32> {
  %pad = arith.constant 42 : i32
  %d = tensor.empty() : tensor<16x4x16x32xi32>
  %p = linalg.pack %x padding_value(%pad : i32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0]
      inner_tiles = [16, 32] into %d : tensor<100x250xi32> -> tensor<16x4x16x32xi32>
  return %p : tensor<16x4x16x32xi32>
}
func.func @runtime_pad(%x: tensor<5x3xf32>, %pad: f32) -> tensor<2x3x4xf32> {
  %d = tensor.empty() : tensor<2x3x4xf32>
  %p = linalg.pack %x padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [4] into %d
      : tensor<5x3xf32> -> tensor<2x3x4xf32>
  return %p : tensor<2x3x4xf32>
}
func.func @smaller_dest(%p: tensor<2x2x3x3xi32>) -> tensor<4x5xi32> {
  %d = tensor.empty() : tensor<4x5xi32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %d : tensor<2x2x3x3xi32> -> tensor<4x5xi32>
  return %u : tensor<4x5xi32>
}
"""


def test_static_packs_with_padding_and_smaller_destinations():
    prog = tfrt.api.load(STATIC_PACKS)
    x = np.arange(100 * 250, dtype=np.int32).reshape(100, 250)
    np.testing.assert_array_equal(prog.call("pad_transpose", x), ref_pack(x, [1, 0], [16, 32], [1, 0], 42))
    y = RNG.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_array_equal(prog.call("runtime_pad", y, np.float32(-3.0)), ref_pack(y, [0], [4], (), -3.0))
    p = np.arange(36, dtype=np.int32).reshape(2, 2, 3, 3)
    np.testing.assert_array_equal(prog.call("smaller_dest", p), ref_unpack(p, [0, 1], [3, 3], (), (4, 5)))


def _compile_unverified(text: str):
    """Parse without the verifier and compile: IR a shape-specialization step
    may hand over (a static packed type with a tile still given as a value)."""
    module = parse_module(text, "t.mlir", verify=False)
    compile_module(module)
    return tfrt.api.load(write_bef(module))


CONSTANT_TILE = """
func.func @f(%x: tensor<6x4xf32>) -> tensor<3x1x2x4xf32> {
  %c2 = arith.constant 2 : index
  %d = tensor.empty() : tensor<3x1x2x4xf32>
  %p = linalg.pack %x inner_dims_pos = [0, 1] inner_tiles = [%c2, 4] into %d : tensor<6x4xf32> -> tensor<3x1x2x4xf32>
  return %p : tensor<3x1x2x4xf32>
}
"""


def test_a_tile_given_as_a_constant_value_is_used_as_that_constant():
    x = RNG.standard_normal((6, 4)).astype(np.float32)
    prog = _compile_unverified(CONSTANT_TILE)
    np.testing.assert_array_equal(prog.call("f", x), ref_pack(x, [0, 1], [2, 4]))


MADE_STATIC = """
func.func @f(%x: tensor<6x4xf32>, %y: tensor<3x1x2x4xf32>, %n: index) -> (tensor<3x1x2x4xf32>, tensor<6x4xf32>) {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %d = tensor.empty() : tensor<3x1x2x4xf32>
  %p = linalg.pack %x padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [%c2, %c4] into %d
      : tensor<6x4xf32> -> tensor<3x1x2x4xf32>
  %e = tensor.empty() : tensor<6x4xf32>
  %u = linalg.unpack %y inner_dims_pos = [0, 1] inner_tiles = [%c2, TILE] into %e : tensor<3x1x2x4xf32> -> tensor<6x4xf32>
  return %p, %u : tensor<3x1x2x4xf32>, tensor<6x4xf32>
}
"""


@pytest.mark.parametrize("tile, folds", [("%c4", True), ("%n", False)])
def test_fold_static_tiles_makes_a_static_packed_type_valid(tile, folds):
    # What a shape-specialization step leaves: static packed types, tiles
    # still given as values.  MLIR's verifier refuses them until the
    # constant tiles become static; a tile that is no constant stays.
    module = parse_module(MADE_STATIC.replace("TILE", tile), "t.mlir", verify=False)
    with pytest.raises(DiagnosticError, match="mismatch in inner tile sizes"):
        verify_module(module)
    pack, unpack = [op for op in module.walk() if op.name in ("linalg.pack", "linalg.unpack")]
    assert fold_static_tiles(pack) and fold_static_tiles(unpack)
    assert not fold_static_tiles(pack)
    text = print_module(module)
    assert "padding_value(%cst : f32) inner_dims_pos = [0, 1] inner_tiles = [2, 4] into" in text
    if folds:
        verify_module(module)
        assert "linalg.unpack %arg1 inner_dims_pos = [0, 1] inner_tiles = [2, 4] into" in text
    else:
        assert "linalg.unpack %arg1 inner_dims_pos = [0, 1] inner_tiles = [2, %arg2] into" in text
        with pytest.raises(DiagnosticError, match="mismatch in inner tile sizes"):
            verify_module(module)


def _compile_error(text: str, verify: bool = True) -> str:
    module = parse_module(text, "t.mlir", verify=verify)
    with pytest.raises(DiagnosticError) as info:
        compile_module(module)
    return info.value.render()


def test_a_tile_that_is_no_constant_is_an_error_at_the_op():
    text = CONSTANT_TILE.replace("%x: tensor<6x4xf32>", "%x: tensor<6x4xf32>, %c2: index").replace(
        "  %c2 = arith.constant 2 : index\n", ""
    )
    message = _compile_error(text, verify=False)
    assert "t.mlir:4:3: error: 'linalg.pack' op cannot be lowered: inner tile #0 is not a compile-time constant" in message


def test_dynamic_shapes_are_an_error_at_the_op():
    text = """
func.func @f(%x: tensor<?x4xf32>, %d: tensor<?x1x2x4xf32>) -> tensor<?x1x2x4xf32> {
  %p = linalg.pack %x inner_dims_pos = [0, 1] inner_tiles = [2, 4] into %d : tensor<?x4xf32> -> tensor<?x1x2x4xf32>
  return %p : tensor<?x1x2x4xf32>
}
func.func @g(%x: tensor<2x?xf32>, %o: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x?xf32>) outs(%o : tensor<2x?xf32>) -> tensor<2x?xf32>
  return %s : tensor<2x?xf32>
}
"""
    message = _compile_error(text)
    assert "t.mlir:3:3: error: 'linalg.pack' op cannot be lowered: dynamic shapes are not supported" in message
    second = text[text.index("func.func @g") :]
    message = _compile_error(second)
    assert "t.mlir:2:3: error: 'linalg.softmax' op cannot be lowered: dynamic shapes are not supported" in message


# ---------------------------------------------------------------- softmax


class SoftmaxCase:
    def __init__(self, rng, index: int, dim: int, shape: list[int], elt: str):
        self.index, self.dim, self.shape, self.elt = index, dim, shape, elt

    def function(self) -> str:
        t = _tensor(self.shape, self.elt)
        return (
            f"func.func @softmax{self.index}(%x: {t}) -> {t} {{\n  %e = tensor.empty() : {t}\n"
            f"  %s = linalg.softmax dimension({self.dim}) ins(%x : {t}) outs(%e : {t}) -> {t}\n"
            f"  return %s : {t}\n}}\n"
        )


def _softmax_cases():
    rng = np.random.default_rng(11)
    cases = []
    for rank in (1, 2, 3, 4):
        for dim in range(rank):
            for elt in ("f32", "f64", "f16"):
                shape = [int(s) for s in rng.integers(1, 6, rank)]
                cases.append(SoftmaxCase(rng, len(cases), dim, shape, elt))
    return cases


SOFTMAX_CASES = _softmax_cases()


@pytest.fixture(scope="module")
def softmax_program():
    return tfrt.api.load("".join(c.function() for c in SOFTMAX_CASES))


_TOL = {
    "f16": {"rtol": 2e-2, "atol": 2e-3},
    "f32": {"rtol": 2e-6, "atol": 1e-7},
    "f64": {"rtol": 1e-12, "atol": 1e-15},
}


@pytest.mark.parametrize("case", SOFTMAX_CASES, ids=lambda c: f"{c.elt}-{c.shape}-dim{c.dim}")
@pytest.mark.parametrize("scale", [1.0, 1000.0], ids=["unit", "large"])
def test_softmax_matches_numpy_along_every_dimension(softmax_program, case, scale):
    rng = np.random.default_rng(case.index)
    dtype = _DTYPES[case.elt]
    # Large values: exp overflows unless the maximum is subtracted first
    # (exp(1000) is inf in f64; in f16, exp(12) already is).
    offset = 30.0 if case.elt == "f16" else 5000.0
    x = (rng.standard_normal(case.shape) * (scale if case.elt != "f16" else min(scale, 8.0))).astype(dtype)
    if scale > 1:
        x = (x + dtype(offset)).astype(dtype)
    got = softmax_program.call(f"softmax{case.index}", x)
    assert got.dtype == dtype and got.shape == x.shape
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got.astype(np.float64), ref_softmax(x, case.dim), **_TOL[case.elt])


def test_softmax_of_large_equal_values_is_uniform_and_ignores_minus_infinity(softmax_program):
    case = next(c for c in SOFTMAX_CASES if c.elt == "f32" and len(c.shape) == 2 and c.dim == 1 and c.shape[1] > 1)
    x = np.full(case.shape, 3.0e38, np.float32)
    np.testing.assert_allclose(softmax_program.call(f"softmax{case.index}", x), 1.0 / case.shape[1], rtol=1e-6)
    x = np.zeros(case.shape, np.float32)
    x[:, 0] = -np.inf
    want = np.zeros(case.shape)
    want[:, 1:] = 1.0 / (case.shape[1] - 1)
    np.testing.assert_allclose(softmax_program.call(f"softmax{case.index}", x), want, rtol=1e-6)


def test_softmax_decomposes_to_the_stable_form():
    text = SOFTMAX_CASES[0].function()
    module = parse_module(text)
    from tfrt.passes.decompose_linalg import DecomposeLinalgPass

    DecomposeLinalgPass().apply(make_context(), module)
    out = print_module(module)
    assert "linalg.softmax" not in out
    assert "arith.constant -3.40282347E+38 : f32" in out
    # max, then exp(x - max), then the sum, then the quotient.
    order = [out.index(s) for s in ("arith.maxnumf", "arith.subf", "math.exp", "arith.addf", "arith.divf")]
    assert order == sorted(order), out


# ---------------------------------------------------------------- syntax

ROUND_TRIP = [
    ("%pack = linalg.pack %arg0 padding_value(%arg2 : i32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] "
     "inner_tiles = [16, 32] into %arg1 : tensor<100x250xi32> -> tensor<16x4x16x32xi32>",
     "%arg0: tensor<100x250xi32>, %arg1: tensor<16x4x16x32xi32>, %arg2: i32", "tensor<16x4x16x32xi32>"),
    ("%pack = linalg.pack %arg0 inner_dims_pos = [0, 1] inner_tiles = [%arg2, 32] into %arg1 "
     ": tensor<?x?xf32> -> tensor<?x?x?x32xf32>",
     "%arg0: tensor<?x?xf32>, %arg1: tensor<?x?x?x32xf32>, %arg2: index", "tensor<?x?x?x32xf32>"),
    ("%unpack = linalg.unpack %arg0 outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [16, 32] "
     "into %arg1 : tensor<16x4x16x32xi32> -> tensor<100x250xi32>",
     "%arg0: tensor<16x4x16x32xi32>, %arg1: tensor<100x250xi32>", "tensor<100x250xi32>"),
    ("%unpack = linalg.unpack %arg0 inner_dims_pos = [2] inner_tiles = [8] into %arg1 "
     ": tensor<3x4x1x8xf16> -> tensor<3x4x5xf16>",
     "%arg0: tensor<3x4x1x8xf16>, %arg1: tensor<3x4x5xf16>", "tensor<3x4x5xf16>"),
    ("%0 = linalg.softmax dimension(2) ins(%arg0 : tensor<2x16x32xf32>) outs(%arg1 : tensor<2x16x32xf32>) "
     "-> tensor<2x16x32xf32>",
     "%arg0: tensor<2x16x32xf32>, %arg1: tensor<2x16x32xf32>", "tensor<2x16x32xf32>"),
]  # fmt: skip


def _function(op_text: str, args: str, rtype: str) -> str:
    result = op_text.split(" = ")[0]
    return f"module {{\n  func.func @f({args}) -> {rtype} {{\n    {op_text}\n    return {result} : {rtype}\n  }}\n}}\n"


@pytest.mark.parametrize("op_text, args, rtype", ROUND_TRIP, ids=lambda v: v[:20] if isinstance(v, str) else "")
def test_ops_print_as_they_parse(op_text, args, rtype):
    text = _function(op_text, args, rtype)
    assert print_module(parse_module(text)) == text
    # xDSL's own parser reads the same syntax into the same op.
    ours = print_module(parse_module(text), generic=True)
    theirs = print_module(Parser(make_context(), text).parse_module(), generic=True)
    assert ours == theirs


def test_generic_form_follows_mlir_operand_order():
    text = _function(*ROUND_TRIP[0])
    generic = print_module(parse_module(text), generic=True)
    assert "operandSegmentSizes = array<i32: 1, 1, 1, 0>" in generic
    assert print_module(parse_module(generic)) == text


def test_softmax_on_memrefs_has_no_result():
    text = (
        "module {\n  func.func @f(%arg0: memref<2x3xf32>, %arg1: memref<2x3xf32>) {\n"
        "    linalg.softmax dimension(0) ins(%arg0 : memref<2x3xf32>) outs(%arg1 : memref<2x3xf32>)\n"
        "    return\n  }\n}\n"
    )
    assert print_module(parse_module(text)) == text


def test_an_empty_outer_dims_perm_is_no_permutation():
    text = _function(
        "%pack = linalg.pack %arg0 outer_dims_perm = [] inner_dims_pos = [0] inner_tiles = [2] into %arg1 "
        ": tensor<4xf32> -> tensor<2x2xf32>",
        "%arg0: tensor<4xf32>, %arg1: tensor<2x2xf32>",
        "tensor<2x2xf32>",
    )
    assert print_module(parse_module(text)) == text.replace("outer_dims_perm = [] ", "")


# ---------------------------------------------------------------- verifier

_PACK = "func.func @f(%s: {src}, %d: {dst}, %i: index, %h: f16) -> {dst} {{\n  %r = {op}\n  return %r : {dst}\n}}\n"

ERRORS = [
    # (op, source type, dest type, message)
    ("linalg.pack %s inner_dims_pos = [0] inner_tiles = [4] into %d : tensor<10xf32> -> tensor<3x4xf32>",
     "tensor<10xf32>", "tensor<3x4xf32>",
     "'linalg.pack' op invalid tile factor or output size provided. Only full tiles are supported when "
     "padding_value is not set"),
    ("linalg.pack %s padding_value(%h : f16) inner_dims_pos = [0] inner_tiles = [4] into %d "
     ": tensor<10xf32> -> tensor<3x4xf32>", "tensor<10xf32>", "tensor<3x4xf32>",
     "'linalg.pack' op expected padding_value has 'f32' but got: 'f16'"),
    ("linalg.pack %s inner_dims_pos = [1, 1] inner_tiles = [2, 2] into %d : tensor<4x4xf32> -> tensor<2x2x2x2xf32>",
     "tensor<4x4xf32>", "tensor<2x2x2x2xf32>", "error: invalid inner_dims_pos vector"),
    ("linalg.pack %s inner_dims_pos = [2] inner_tiles = [2] into %d : tensor<4x4xf32> -> tensor<4x2x2xf32>",
     "tensor<4x4xf32>", "tensor<4x2x2xf32>", "error: invalid inner_dims_pos vector"),
    ("linalg.pack %s outer_dims_perm = [1, 1] inner_dims_pos = [0] inner_tiles = [2] into %d "
     ": tensor<4x4xf32> -> tensor<2x4x2xf32>", "tensor<4x4xf32>", "tensor<2x4x2xf32>",
     "error: invalid outer_dims_perm vector"),
    ("linalg.pack %s outer_dims_perm = [0] inner_dims_pos = [0] inner_tiles = [2] into %d "
     ": tensor<4x4xf32> -> tensor<2x4x2xf32>", "tensor<4x4xf32>", "tensor<2x4x2xf32>",
     "error: outer_dims_perm must be a permutation or empty"),
    ("linalg.pack %s inner_dims_pos = [0] inner_tiles = [0] into %d : tensor<4xf32> -> tensor<2x2xf32>",
     "tensor<4xf32>", "tensor<2x2xf32>", "error: invalid zero tile factor"),
    ("linalg.pack %s inner_dims_pos = [0] inner_tiles = [2, 2] into %d : tensor<4xf32> -> tensor<2x2x2xf32>",
     "tensor<4xf32>", "tensor<2x2x2xf32>",
     "error: tiling factors must be less than or equal to the input rank for pack or output rank for unpack"),
    ("linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [2] into %d : tensor<4x4xf32> -> tensor<2x4x2xf32>",
     "tensor<4x4xf32>", "tensor<2x4x2xf32>", "error: tiling factors must equal the number of dimensions to tile"),
    ("linalg.pack %s inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<4x4xf32> -> tensor<2x4xf32>",
     "tensor<4x4xf32>", "tensor<2x4xf32>", "error: packed rank != (unpacked rank + num tiling factors), got 2 != 3"),
    ("linalg.pack %s inner_dims_pos = [0] inner_tiles = [%i] into %d : tensor<4x4xf32> -> tensor<2x4x2xf32>",
     "tensor<4x4xf32>", "tensor<2x4x2xf32>",
     "error: mismatch in inner tile sizes specified and shaped of tiled dimension in the packed type"),
    ("linalg.pack %s inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<4x4xf32> -> tensor<2x4x3xf32>",
     "tensor<4x4xf32>", "tensor<2x4x3xf32>",
     "error: mismatch in inner tile sizes specified and shaped of tiled dimension in the packed type"),
    ("linalg.pack %s outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [2] into %d "
     ": tensor<4x6xf32> -> tensor<2x6x2xf32>", "tensor<4x6xf32>", "tensor<2x6x2xf32>",
     "error: expected 'tensor<6x2x2xf32>' for the packed domain value, got 'tensor<2x6x2xf32>'"),
    ("linalg.unpack %s inner_dims_pos = [0] inner_tiles = [4] into %d : tensor<3x4xf32> -> tensor<8xf32>",
     "tensor<3x4xf32>", "tensor<8xf32>",
     "error: expected 'tensor<2x4xf32>' for the packed domain value, got 'tensor<3x4xf32>'"),
    ("linalg.unpack %s outer_dims_perm = [2, 0] inner_dims_pos = [0] inner_tiles = [2] into %d "
     ": tensor<2x4x2xf32> -> tensor<4x4xf32>", "tensor<2x4x2xf32>", "tensor<4x4xf32>",
     "error: invalid outer_dims_perm vector"),
]  # fmt: skip


@pytest.mark.parametrize("op, src, dst, message", ERRORS, ids=[m[-40:] for *_, m in ERRORS])
def test_verifier_errors_are_located_at_the_op(op, src, dst, message):
    text = _PACK.format(src=src, dst=dst, op=op)
    with pytest.raises(DiagnosticError) as info:
        parse_module(text, "t.mlir")
    rendered = info.value.render()
    assert "t.mlir:2:3: " in rendered and message in rendered, rendered


SOFTMAX_ERRORS = [
    ("dimension(2) ins(%x : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>",
     "'linalg.softmax' op incorrect dimension specified"),
    ("dimension(1) ins(%x : tensor<2x3xf32>) outs(%o : tensor<2x4xf32>) -> tensor<2x4xf32>",
     "'linalg.softmax' op incompatible output shape"),
    ("dimension(1) ins(%x : tensor<2x3xf32>) outs(%o : tensor<2x3xf16>) -> tensor<2x3xf16>",
     "'linalg.softmax' op failed to verify that input and output have same element type"),
    ("dimension(1) ins(%x : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>)",
     "'linalg.softmax' op expected the number of tensor results (0) to be equal to the number of output tensors (1)"),
]  # fmt: skip


@pytest.mark.parametrize("tail, message", SOFTMAX_ERRORS, ids=[m[-30:] for _, m in SOFTMAX_ERRORS])
def test_softmax_verifier(tail, message):
    out_t = tail.split("outs(%o : ")[1].split(")")[0]
    has_result = "->" in tail
    lhs = "%r = " if has_result else ""
    ret = f"return %r : {out_t}" if has_result else "return"
    rtype = f" -> {out_t}" if has_result else ""
    text = (
        f"func.func @f(%x: tensor<2x3xf32>, %o: {out_t}){rtype} {{\n  {lhs}linalg.softmax {tail}\n  {ret}\n}}\n"
    )
    with pytest.raises(DiagnosticError) as info:
        parse_module(text, "t.mlir")
    assert "t.mlir:2:3: error: " + message in info.value.render(), info.value.render()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.integers(1, 9), min_size=1, max_size=4).flatmap(
        lambda shape: st.tuples(
            st.just(shape),
            st.permutations(range(len(shape))).flatmap(lambda p: st.integers(0, len(shape)).map(lambda k: p[:k])),
            st.lists(st.integers(1, 5), min_size=len(shape), max_size=len(shape)),
            st.one_of(st.just([]), st.permutations(range(len(shape)))),
        )
    )
)
def test_packed_shape_is_what_the_reference_makes(args):
    shape, inner, tiles, perm = args
    tiles = tiles[: len(inner)]
    x = np.zeros(shape, np.int8)
    assert packed_shape(shape, tiles, inner, perm) == list(ref_pack(x, inner, tiles, perm, 0).shape)
