"""Syntax forms that MLIR's own round-trip tests of arith, linalg, tensor,
scf and func use, read by the frontend.

Each form parses, verifies and prints; the printed text parses and prints to
the same text (a fixed point), and it keeps what the form means (checked on
the IR).  A malformed variant of each is an error at its line and column.
The cases are written here; the conformance count against MLIR's files is
``../shared/conformance/mlir_roundtrip.py``.
"""

from __future__ import annotations

import pytest
from tfrt.dialects import make_context
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import parse_module
from xdsl.dialects.builtin import IntegerAttr, VectorType

from tfrt.diagnostics import DiagnosticError


def parse(src: str):
    return parse_module(src, "t.mlir", ctx=make_context())


def fixed_point(src: str) -> str:
    """The printed text of ``src``, checked to print again unchanged."""
    out = print_module(parse(src))
    again = print_module(parse(out))
    assert again == out
    return out


def ops(src: str, name: str) -> list:
    return [op for op in parse(src).walk() if op.name == name]


def error_at(src: str, line: int, col: int, part: str) -> None:
    with pytest.raises(DiagnosticError) as e:
        parse(src)
    d = e.value.diagnostics[0]
    assert part in d.message
    assert d.loc is not None
    assert (d.loc.line, d.loc.col) == (line, col), d.message


def func(body: str, args: str = "") -> str:
    return f"func.func @f({args}) {{\n{body}\n  return\n}}\n"


# ---------------------------------------------------------------- vector shapes


def test_scalable_vector_dimensions_round_trip():
    src = func(
        "  %0 = arith.addi %a, %a : vector<[8]xi64>\n"
        "  %1 = arith.mulf %b, %b : vector<4x[8]xf32>",
        "%a: vector<[8]xi64>, %b: vector<4x[8]xf32>",
    )
    out = fixed_point(src)
    assert "vector<[8]xi64>" in out and "vector<4x[8]xf32>" in out
    t = ops(src, "arith.mulf")[0].result.type
    assert isinstance(t, VectorType)
    assert list(t.get_shape()) == [4, 8]
    assert [bool(b.value.data) for b in t.scalable_dims] == [False, True]


def test_scalable_dimension_outside_a_vector_is_an_error():
    error_at(func("", "%a: tensor<[8]xi64>"), 1, 25, "scalable dimensions are only allowed in vector")


def test_blanks_around_x_in_shapes():
    src = func(
        "  %0 = arith.constant dense<0> : vector<4 x i32>\n"
        "  %1 = arith.constant dense<0> : tensor<42 x i32>"
    )
    out = fixed_point(src)
    assert "vector<4xi32>" in out and "tensor<42xi32>" in out


def test_blank_shape_without_x_is_an_error():
    error_at(func("  %0 = arith.constant dense<0> : tensor<4 4 x i32>"), 2, 41, "unexpected")


# ---------------------------------------------------------------- arith


def test_remf_with_fastmath():
    src = func("  %0 = arith.remf %a, %b fastmath<fast> : f32", "%a: f32, %b: f32")
    assert "arith.remf %arg0, %arg1 fastmath<fast> : f32" in fixed_point(src)


def test_remf_of_integers_is_an_error():
    error_at(func("  %0 = arith.remf %a, %a : i32", "%a: i32"), 2, 8, "arith.remf")


@pytest.mark.parametrize("op", ["index_cast", "index_castui"])
@pytest.mark.parametrize(
    "src_t,dst_t",
    [
        ("i32", "index"),
        ("index", "i64"),
        ("tensor<8x8xi32>", "tensor<8x8xindex>"),
        ("vector<[8]xindex>", "vector<[8]xi64>"),
        ("tensor<index>", "tensor<i64>"),
    ],
)
def test_index_casts_on_scalars_and_shapes(op, src_t, dst_t):
    src = func(f"  %0 = arith.{op} %a : {src_t} to {dst_t}", f"%a: {src_t}")
    assert f"arith.{op} %arg0 : {src_t} to {dst_t}" in fixed_point(src)


@pytest.mark.parametrize("op", ["index_cast", "index_castui"])
def test_index_cast_needs_exactly_one_index(op):
    error_at(func(f"  %0 = arith.{op} %a : i32 to i64", "%a: i32"), 2, 3, "cast incompatible")


def test_index_cast_needs_equal_shapes():
    error_at(
        func("  %0 = arith.index_cast %a : tensor<4xi32> to tensor<8xindex>", "%a: tensor<4xi32>"),
        2, 3, "cast incompatible",
    )


@pytest.mark.parametrize(
    "mode,value",
    [("tonearesteven", 0), ("downward", 1), ("upward", 2), ("towardzero", 3), ("tonearestaway", 4)],
)
def test_truncf_rounding_modes(mode, value):
    src = func(f"  %0 = arith.truncf %a {mode} : f64 to f32", "%a: f64")
    assert f"arith.truncf %arg0 {mode} : f64 to f32" in fixed_point(src)
    op = ops(src, "arith.truncf")[0]
    assert op.roundingmode == IntegerAttr(value, 32)


def test_truncf_rounding_mode_with_fastmath_and_the_generic_form():
    src = func("  %0 = arith.truncf %a downward fastmath<fast> : f64 to f32", "%a: f64")
    out = fixed_point(src)
    assert "arith.truncf %arg0 downward fastmath<fast> : f64 to f32" in out
    generic = print_module(parse(src), generic=True)
    assert "roundingmode = 1 : i32" in generic
    assert print_module(parse(generic)) == out


def test_unknown_rounding_mode_is_an_error():
    error_at(func("  %0 = arith.truncf %a sideways : f64 to f32", "%a: f64"), 2, 24, "rounding modes")


def test_extf_with_fastmath():
    src = func("  %0 = arith.extf %a fastmath<nnan,ninf> : f32 to f64", "%a: f32")
    assert "arith.extf %arg0 fastmath<nnan,ninf> : f32 to f64" in fixed_point(src)


def test_select_with_a_shaped_condition():
    src = func(
        "  %0 = arith.select %c, %a, %a : tensor<8xi1>, tensor<8xi32>\n"
        '  %1 = arith.select %d, %e, %e : tensor<8xi1, "foo">, tensor<8xi32, "foo">\n'
        "  %2 = arith.select %s, %a, %a : tensor<8xi32>",
        '%c: tensor<8xi1>, %a: tensor<8xi32>, %s: i1, %d: tensor<8xi1, "foo">, %e: tensor<8xi32, "foo">',
    )
    out = fixed_point(src)
    assert "arith.select %arg0, %arg1, %arg1 : tensor<8xi1>, tensor<8xi32>" in out
    assert 'tensor<8xi1, "foo">, tensor<8xi32, "foo">' in out
    assert "arith.select %arg2, %arg1, %arg1 : tensor<8xi32>" in out


def test_select_condition_of_another_shape_is_an_error():
    error_at(
        func("  %0 = arith.select %c, %a, %a : tensor<4xi1>, tensor<8xi32>",
             "%c: tensor<4xi1>, %a: tensor<8xi32>"),
        2, 3, "same shape as the result",
    )


def test_select_with_three_types_is_an_error():
    error_at(
        func("  %0 = arith.select %c, %a, %a : i1, i32, i32", "%c: i1, %a: i32"),
        2, 8, "not 3 types",
    )


# ---------------------------------------------------------------- linalg

_TRAIT = """#map = affine_map<(i, j) -> (i, j)>
#trait = {
  indexing_maps = [#map, #map],
  iterator_types = ["parallel", "parallel"],
  library_call = "some_fn"
}
func.func @f(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.generic #trait ins(%a : tensor<3x4xf32>) outs(%b : tensor<3x4xf32>) attrs = {foo = 1} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
"""


def test_generic_traits_as_an_alias_of_the_dictionary():
    out = fixed_point(_TRAIT)
    spelled = _TRAIT.replace("linalg.generic #trait", (
        'linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"], '
        'library_call = "some_fn"}'))
    assert out == fixed_point(spelled)
    op = ops(_TRAIT, "linalg.generic")[0]
    assert op.library_call.data == "some_fn"
    assert "foo" in op.attributes


def test_generic_traits_alias_of_a_non_dictionary_is_an_error():
    src = _TRAIT.replace("#trait = {", "#trait = [").replace('library_call = "some_fn"\n}', '"x"\n]')
    src = src.replace("indexing_maps = [#map, #map],\n  iterator_types = [\"parallel\", \"parallel\"],\n  ", "")
    error_at(src, 6, 23, "to be a dictionary attribute")


def test_generic_traits_alias_undefined_is_an_error():
    src = _TRAIT.replace("linalg.generic #trait", "linalg.generic #nope")
    error_at(src, 8, 23, "nope")


_PACK_MEMREF = """func.func @f(%s: memref<128x256xf32>, %d: memref<16x8x8x32xf32>, %pad: f32) {
  linalg.pack %s padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 32]
      into %d : memref<128x256xf32> -> memref<16x8x8x32xf32>
  linalg.unpack %d inner_dims_pos = [0, 1] inner_tiles = [8, 32] into %s
      : memref<16x8x8x32xf32> -> memref<128x256xf32>
  return
}
"""


def test_pack_and_unpack_on_memrefs_have_no_result():
    out = fixed_point(_PACK_MEMREF)
    assert "linalg.pack %arg0 padding_value(%arg2 : f32)" in out
    assert "into %arg0 : memref<16x8x8x32xf32> -> memref<128x256xf32>" in out
    for name in ("linalg.pack", "linalg.unpack"):
        assert len(ops(_PACK_MEMREF, name)[0].results) == 0


def test_pack_on_tensors_still_has_its_result():
    src = """func.func @f(%s: tensor<128x256xf32>, %d: tensor<16x8x8x32xf32>) -> tensor<16x8x8x32xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [8, 32] into %d
      : tensor<128x256xf32> -> tensor<16x8x8x32xf32>
  return %0 : tensor<16x8x8x32xf32>
}
"""
    fixed_point(src)
    (op,) = ops(src, "linalg.pack")
    assert [r.type for r in op.results] == [op.dest.type]


def test_pack_of_a_memref_into_a_tensor_is_an_error():
    src = """func.func @f(%s: memref<128x256xf32>, %d: tensor<16x8x8x32xf32>) {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [8, 32] into %d
      : memref<128x256xf32> -> tensor<16x8x8x32xf32>
  return
}
"""
    error_at(src, 2, 3, "both tensors or both memrefs")


# ---------------------------------------------------------------- scf

_EXECUTE = """func.func @f(%x: i64) -> i64 {
  %0 = scf.execute_region -> i64 {
    scf.yield %x : i64
  } {tag = 1 : i64}
  %1:2 = scf.execute_region -> (i64, i64) {
    scf.yield %x, %x : i64, i64
  }
  "scf.execute_region"() ({
  ^bb0:
    cf.br ^bb1
  ^bb1:
    scf.yield
  }) : () -> ()
  return %0 : i64
}
"""


def test_execute_region_prints_as_mlir_does():
    out = fixed_point(_EXECUTE)
    assert "scf.execute_region -> i64 {" in out
    assert "} {tag = 1 : i64}" in out
    assert "scf.execute_region -> (i64, i64) {" in out
    # Every block keeps its terminator, the entry block's branch included.
    assert "scf.execute_region {\n      cf.br ^bb1\n    ^bb1:  // pred: ^bb0\n      scf.yield\n    }" in out
    region = ops(_EXECUTE, "scf.execute_region")[2].regions[0]
    assert [b.last_op.name for b in region.blocks] == ["cf.br", "scf.yield"]


def test_execute_region_without_a_terminator_is_an_error():
    src = "func.func @f() {\n  scf.execute_region {\n    %c = arith.constant 1 : i32\n  }\n  return\n}\n"
    error_at(src, 3, 5, "is not a terminator")


_MATMUL_MAPS = """func.func @f(%a: memref<5x3xf32>, %b: memref<5x7xf32>, %c: memref<3x7xf32>) {
  linalg.matmul indexing_maps = [
                       affine_map<(d0, d1, d2) -> (d2, d0)>,
                       affine_map<(d0, d1, d2) -> (d2, d1)>,
                       affine_map<(d0, d1, d2) -> (d0, d1)>
                      ]
                      ins(%a, %b : memref<5x3xf32>, memref<5x7xf32>)
                      outs(%c: memref<3x7xf32>)
  return
}
"""


def test_matmul_with_indexing_maps_on_memrefs():
    out = fixed_point(_MATMUL_MAPS)
    assert "linalg.matmul indexing_maps = [#map, #map1, #map2] ins(%arg0, %arg1 : " in out
    (op,) = ops(_MATMUL_MAPS, "linalg.matmul")
    assert len(op.results) == 0
    assert str(op.indexing_maps.data[0].data) == "(d0, d1, d2) -> (d2, d0)"


def test_matmul_indexing_maps_without_equals_is_an_error():
    error_at(_MATMUL_MAPS.replace("indexing_maps = [", "indexing_maps ["), 2, 31, "unexpected")


_MAP = """func.func @f(%a: tensor<64xf32>, %b: tensor<64xf32>, %init: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0 = linalg.map ins(%a, %b : tensor<64xf32>, tensor<64xf32>) outs(%init : tensor<64xf32>)
      (%x: f32, %y: f32, %out: f32) {
        %s = arith.addf %x, %y : f32
        linalg.yield %s : f32
      }
  %1 = linalg.map outs(%init : tensor<64xf32>)
      (%out: f32) {
        %c = arith.constant 0.0 : f32
        linalg.yield %c : f32
      }
  return %0, %1 : tensor<64xf32>, tensor<64xf32>
}
"""


def test_map_body_with_the_init_argument_and_map_without_inputs():
    out = fixed_point(_MAP)
    assert "(%arg3: f32, %arg4: f32, %arg5: f32) {" in out
    assert "linalg.map outs(%arg2 : tensor<64xf32>) (%arg3: f32) {" in out
    first, second = ops(_MAP, "linalg.map")
    assert len(first.regions[0].blocks.first.args) == 3
    assert len(second.inputs) == 0


def test_map_short_form_applies_the_op_to_the_inputs():
    src = """func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.map { arith.maximumf } ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%o : tensor<4xf32>)
  return %r : tensor<4xf32>
}
"""
    out = fixed_point(src)
    assert "%1 = arith.maximumf %arg3, %arg4 : f32" in out
    (op,) = ops(src, "linalg.map")
    body = op.regions[0].blocks.first
    assert [o.name for o in body.ops] == ["arith.maximumf", "linalg.yield"]
    assert list(body.first_op.operands) == list(body.args)


def test_map_body_of_other_types_is_an_error():
    error_at(_MAP.replace("(%x: f32, %y: f32, %out: f32)", "(%x: f32, %y: f32, %out: f64)"),
             2, 3, "expects the body's arguments to be the inputs' element types (f32, f32)")


def test_map_body_reading_its_init_is_refused_until_the_lowering_reads_it():
    src = _MAP.replace("%s = arith.addf %x, %y : f32", "%s = arith.addf %x, %out : f32")
    error_at(src, 2, 3, "reads the init's element")


def test_reduce_without_its_input_is_an_error():
    src = """func.func @f(%i: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.reduce outs(%i : tensor<4xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      linalg.yield %a : f32
    }
  return %r : tensor<4xf32>
}
"""
    error_at(src, 2, 8, "expects exactly one operand in 'ins', got 0")


def test_matmul_indexing_maps_in_the_attribute_dictionary_are_its_property():
    src = """func.func @f(%a: tensor<8x4xf32>, %b: tensor<8x5xf32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = linalg.matmul {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]} ins(%a, %b : tensor<8x4xf32>, tensor<8x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
"""
    out = fixed_point(src)
    assert "linalg.matmul indexing_maps = [#map, #map1, #map2] ins(" in out
    (op,) = ops(src, "linalg.matmul")
    assert "indexing_maps" not in op.attributes
    assert str(op.properties["indexing_maps"].data[0].data) == "(d0, d1, d2) -> (d2, d0)"


# ---------------------------------------------------------------- attributes


def test_untyped_integer_attribute_is_an_i64():
    src = "module attributes {j = -9223372036854775808, k = 18446744073709551615} {\n}\n"
    out = fixed_point(src)
    assert "j = -9223372036854775808 : i64" in out and "k = -1 : i64" in out


def test_untyped_integer_attribute_beyond_64_bits_is_an_error():
    error_at("module attributes {k = [99999999999999999999991]} {\n}\n", 1, 25, "out of range")
