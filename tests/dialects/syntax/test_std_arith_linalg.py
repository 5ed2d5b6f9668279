"""Custom forms of ``arith.cmpi``/``arith.cmpf``, ``builtin.unrealized_conversion_cast``
and the ``linalg`` ops whose xDSL class parses by hand.

xDSL's own parser is the oracle where it reads MLIR's syntax.  Where it
does not (attribute dictionaries it ignores, ``-> (T, U)`` results, the
``linalg.reduce`` short form, shaped comparisons, zero-result casts), the
oracle is the generic text of the IR that MLIR's syntax means, written out
by hand and parsed by xDSL, or xDSL's own spelling of the same IR.
"""

from __future__ import annotations

import pytest
from syntax_helpers import generic, render, xdsl_parse
from tfrt.dialects import make_context
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import frontend, parse_module
from tfrt.dialects.syntax.formats import STANDARD_FORMATS
from tfrt.dialects.syntax.standard_ops import arith as std_arith
from tfrt.dialects.syntax.standard_ops import linalg as std_linalg
from xdsl.dialects.arith import CMPF_COMPARISON_OPERATIONS, CMPI_COMPARISON_OPERATIONS
from xdsl.dialects.builtin import TensorType, UnrankedTensorType, VectorType, f32, i1
from xdsl.dialects.linalg import Linalg

from tfrt.diagnostics import DiagnosticError

HEAD = (
    "func.func @f(%a: i32, %b: i32, %i: index, %x: f32, %y: f32, %ti: tensor<4xi32>, "
    "%vf: vector<4xf32>, %t: tensor<4x8xf32>, %u: tensor<4x8xf32>, %r: tensor<8x4xf32>, "
    "%v: tensor<4xf32>, %m: memref<4x8xf32>, %n: memref<4x8xf32>, %mv: memref<4xf32>, "
    "%c: tensor<4x8xi1>, %ti8: tensor<4x8xi8>, %ti8t: tensor<8x4xi8>, %acc: tensor<4x4xi32>) {\n"
)
TAIL = "  func.return\n}\n"


def wrap(*lines: str) -> str:
    return HEAD + "".join(f"  {line}\n" for line in lines) + TAIL


def ours(src: str, verify: bool = True):
    return parse_module(src, "t.mlir", ctx=make_context(), verify=verify)


def first(module, name: str):
    return next(op for op in module.walk() if op.name == name)


def canon(module) -> str:
    """Generic text with each op's attributes and properties in name order."""
    for op in module.walk():
        op.properties = dict(sorted(op.properties.items()))
        op.attributes = dict(sorted(op.attributes.items()))
    return generic(module)


def same_as_xdsl(src: str, oracle: str | None = None, verify: bool = True) -> None:
    """We parse ``src`` into the IR xDSL's parser builds from ``oracle`` (default: ``src``)."""
    assert canon(ours(src, verify)) == canon(xdsl_parse(oracle or src))


def roundtrip(src: str) -> None:
    """Print what we parsed (xDSL's print()) and parse it again: the same IR."""
    m1 = ours(src)
    text = print_module(m1)
    m2 = ours(text)
    assert canon(m2) == canon(m1), text


def error_of(src: str, verify: bool = True) -> str:
    with pytest.raises(DiagnosticError) as info:
        parse_module(src, "t.mlir", ctx=make_context(), verify=verify)
    out = render(info.value, src)
    assert out.startswith("t.mlir:"), out
    assert "^" in out, out
    return out


# ---------------------------------------------------------------- arith.cmpi / cmpf


@pytest.mark.parametrize("pred", CMPI_COMPARISON_OPERATIONS)
def test_cmpi_every_predicate_matches_xdsl(pred):
    src = wrap(f"%0 = arith.cmpi {pred}, %a, %b : i32", f"%1 = arith.cmpi {pred}, %i, %i : index")
    same_as_xdsl(src)
    values = [op.predicate.value.data for op in ours(src).walk() if op.name == "arith.cmpi"]
    assert values == [CMPI_COMPARISON_OPERATIONS.index(pred)] * 2
    roundtrip(src)


@pytest.mark.parametrize("pred", CMPF_COMPARISON_OPERATIONS)
def test_cmpf_every_predicate_matches_xdsl(pred):
    # `true`/`false` are predicates here, not boolean literals.
    src = wrap(
        f"%0 = arith.cmpf {pred}, %x, %y : f32",
        f"%1 = arith.cmpf {pred}, %x, %y fastmath<nnan,ninf> : f32",
    )
    same_as_xdsl(src)
    roundtrip(src)


def test_cmpf_fastmath_flags():
    m = ours(
        wrap(
            "%0 = arith.cmpf ogt, %x, %y fastmath<fast> : f32",
            "%1 = arith.cmpf ogt, %x, %y : f32",
        )
    )
    ops = [op for op in m.walk() if op.name == "arith.cmpf"]
    assert str(ops[0].fastmath) == "#arith.fastmath<fast>"
    assert str(ops[1].fastmath) == "#arith.fastmath<none>"


def test_cmp_predicate_may_be_a_string():
    src = wrap('%0 = arith.cmpi "sge", %a, %b : i32', '%1 = arith.cmpf "une", %x, %y : f32')
    oracle = wrap("%0 = arith.cmpi sge, %a, %b : i32", "%1 = arith.cmpf une, %x, %y : f32")
    same_as_xdsl(src, oracle)


def test_cmp_attr_dict_goes_before_the_type():
    # xDSL's hand-written parser reads no attribute dictionary; MLIR's format has one.
    src = wrap(
        "%0 = arith.cmpi ne, %a, %b {tag = 1} : i32",
        "%1 = arith.cmpf oeq, %x, %y fastmath<fast> {tag} : f32",
    )
    oracle = wrap(
        '%0 = "arith.cmpi"(%a, %b) <{predicate = 1 : i64}> {tag = 1 : i64} : (i32, i32) -> i1',
        '%1 = "arith.cmpf"(%x, %y) <{predicate = 1 : i64, fastmath = #arith.fastmath<fast>}> '
        "{tag} : (f32, f32) -> i1",
    )
    same_as_xdsl(src, oracle)


def test_cmp_on_shaped_operands_gives_i1_of_the_same_shape():
    # MLIR's result is i1 of the operand's shape.  xDSL's hand parser makes it a
    # plain i1, and its op definition only verifies i1 results, so this IR is
    # built but does not verify in xDSL.
    src = wrap(
        "%0 = arith.cmpi slt, %ti, %ti : tensor<4xi32>",
        "%1 = arith.cmpf olt, %vf, %vf : vector<4xf32>",
    )
    oracle = wrap(
        '%0 = "arith.cmpi"(%ti, %ti) <{predicate = 2 : i64}> '
        ": (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>",
        '%1 = "arith.cmpf"(%vf, %vf) <{predicate = 4 : i64, fastmath = #arith.fastmath<none>}> '
        ": (vector<4xf32>, vector<4xf32>) -> vector<4xi1>",
    )
    same_as_xdsl(src, oracle, verify=False)
    m = ours(src, verify=False)
    assert first(m, "arith.cmpi").result.type == TensorType(i1, [4])
    assert first(m, "arith.cmpf").result.type == VectorType(i1, [4])


def test_i1_same_shape():
    assert std_arith.i1_same_shape(f32) == i1
    assert std_arith.i1_same_shape(UnrankedTensorType(f32)) == UnrankedTensorType(i1)
    assert std_arith.i1_same_shape(TensorType(f32, [2, -1])) == TensorType(i1, [2, -1])


# ---------------------------------------------------------------- unrealized_conversion_cast


CAST_CASES = {
    "one_to_one": "%0 = builtin.unrealized_conversion_cast %a : i32 to i64",
    "many_to_many": "%0:2 = builtin.unrealized_conversion_cast %a, %x : i32, f32 to i64, f16",
    "none_to_one": "%0 = builtin.unrealized_conversion_cast to tensor<4xf32>",
    "attrs": "%0 = builtin.unrealized_conversion_cast %a : i32 to index {tag = 2, u}",
}


@pytest.mark.parametrize("line", CAST_CASES.values(), ids=list(CAST_CASES))
def test_unrealized_conversion_cast_matches_xdsl(line):
    src = wrap(line)
    same_as_xdsl(src)
    roundtrip(src)


def test_unrealized_conversion_cast_without_results():
    # xDSL prints this `... to ` and cannot read it back; MLIR's format allows it.
    src = wrap("builtin.unrealized_conversion_cast %a, %b : i32, i32 to")
    oracle = wrap('"builtin.unrealized_conversion_cast"(%a, %b) : (i32, i32) -> ()')
    same_as_xdsl(src, oracle)
    roundtrip(src)
    assert not first(ours(src), "builtin.unrealized_conversion_cast").results


# ---------------------------------------------------------------- linalg named ops

E = "tensor<4x8xf32>"
IN2 = f"ins(%t, %u : {E}, {E}) outs(%u : {E})"
CONV_ATTRS = "{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}"

# op -> shapes of (input, filter or window, output) that verify.
CONVS = {
    "linalg.conv_2d_nchw_fchw": ("1x3x8x8", "4x3x3x3", "1x4x6x6"),
    "linalg.conv_2d_nhwc_hwcf": ("1x8x8x3", "3x3x3x4", "1x6x6x4"),
    "linalg.conv_2d_nhwc_fhwc": ("1x8x8x3", "4x3x3x3", "1x6x6x4"),
    "linalg.conv_2d_ngchw_fgchw": ("1x2x3x8x8", "4x2x3x3x3", "1x2x4x6x6"),
    "linalg.conv_2d_ngchw_gfchw": ("1x2x3x8x8", "2x4x3x3x3", "1x2x4x6x6"),
    "linalg.conv_2d_nhwgc_gfhwc": ("1x8x8x2x3", "2x4x3x3x3", "1x6x6x2x4"),
    "linalg.pooling_nchw_max": ("1x3x8x8", "3x3", "1x3x6x6"),
}


def conv_line(name: str, attrs: str = CONV_ATTRS, res: str = "%0 = ") -> str:
    i, k, o = (f"tensor<{s}xf32>" for s in CONVS[name])
    return (
        f"{res}{name} {attrs} ins(%ci, %ck : {i}, {k}) outs(%co : {o}) -> {o}".replace("  ", " ")
    )


def conv_src(name: str, line: str) -> str:
    i, k, o = (f"tensor<{s}xf32>" for s in CONVS[name])
    return f"func.func @g(%ci: {i}, %ck: {k}, %co: {o}) {{\n  {line}\n  func.return\n}}\n"


# Named ops whose xDSL printer puts extra attributes after `outs` as `attrs = {...}`.
TRAILING_ATTRS = {
    "linalg.sub": IN2,
    "linalg.mul": IN2,
    "linalg.max": IN2,
    "linalg.min": IN2,
    "linalg.exp": f"ins(%t : {E}) outs(%u : {E})",
    "linalg.log": f"ins(%t : {E}) outs(%u : {E})",
    "linalg.sqrt": f"ins(%t : {E}) outs(%u : {E})",
    "linalg.select": f"ins(%c, %t, %u : tensor<4x8xi1>, {E}, {E}) outs(%u : {E})",
}
# Named ops whose xDSL printer puts them before `ins` (as MLIR does for all).
LEADING_ATTRS = {
    "linalg.copy": f"ins(%t : {E}) outs(%u : {E})",
    "linalg.quantized_matmul": (
        "ins(%ti8, %ti8t, %a, %b : tensor<4x8xi8>, tensor<8x4xi8>, i32, i32) "
        "outs(%acc : tensor<4x4xi32>)"
    ),
}
RESULT = {"linalg.quantized_matmul": "tensor<4x4xi32>"}


@pytest.mark.parametrize("name", [*TRAILING_ATTRS, *LEADING_ATTRS])
def test_named_op_matches_xdsl(name):
    io = {**TRAILING_ATTRS, **LEADING_ATTRS}[name]
    res = RESULT.get(name, E)
    src = wrap(f"%0 = {name} {io} -> {res}", f"%1 = {name} {io} -> ({res})")
    same_as_xdsl(src)
    roundtrip(src)
    op = first(ours(src), name)
    assert op.body.block.last_op.name == "linalg.yield"
    assert list(op.properties["operandSegmentSizes"].get_values()) == [
        len(op.inputs),
        len(op.outputs),
    ]


@pytest.mark.parametrize("name", list(TRAILING_ATTRS))
def test_named_op_attributes_before_ins_or_as_attrs(name):
    io = TRAILING_ATTRS[name]
    xdsl_form = wrap(f"%0 = {name} {io} attrs = {{tag = 1, u}} -> {E}")
    mlir_form = wrap(f"%0 = {name} {{tag = 1, u}} {io} -> {E}")
    same_as_xdsl(xdsl_form)
    same_as_xdsl(mlir_form, xdsl_form)
    roundtrip(mlir_form)


@pytest.mark.parametrize("name", list(LEADING_ATTRS))
def test_named_op_leading_attributes(name):
    io = LEADING_ATTRS[name]
    src = wrap(f"%0 = {name} {{tag = 1}} {io} -> {RESULT.get(name, E)}")
    same_as_xdsl(src)
    roundtrip(src)
    assert first(ours(src), name).attributes["tag"].value.data == 1


def test_named_ops_on_memrefs_have_no_results():
    src = wrap(
        "linalg.copy ins(%m : memref<4x8xf32>) outs(%n : memref<4x8xf32>)",
        "linalg.sub ins(%m, %n : memref<4x8xf32>, memref<4x8xf32>) outs(%n : memref<4x8xf32>)",
    )
    same_as_xdsl(src)
    roundtrip(src)
    assert not first(ours(src), "linalg.sub").results


def test_named_op_properties_spelled_as_such():
    name = "linalg.conv_2d_nchw_fchw"
    props = "<{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}>"
    src = conv_src(name, conv_line(name, attrs=props + " {tag}"))
    oracle = conv_src(name, conv_line(name, attrs=CONV_ATTRS[:-1] + ", tag}"))
    same_as_xdsl(src, oracle)


@pytest.mark.parametrize("name", list(CONVS))
def test_conv_and_pooling_match_xdsl(name):
    src = conv_src(name, conv_line(name))
    same_as_xdsl(src)
    roundtrip(src)
    op = first(ours(src), name)
    assert "strides" in op.properties and "dilations" in op.properties


@pytest.mark.parametrize("name", list(CONVS))
def test_conv_window_defaults_to_ones(name):
    # MLIR's strides/dilations default to 1; xDSL requires them, so the default is spelled.
    src = conv_src(name, conv_line(name, attrs="{tag}"))
    oracle = conv_src(
        name,
        conv_line(
            name,
            attrs="{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tag}",
        ),
    )
    same_as_xdsl(src, oracle)
    roundtrip(src)


def test_conv_keeps_a_given_window():
    name = "linalg.conv_2d_nhwc_hwcf"
    i, k, o = "tensor<1x9x9x3xf32>", "tensor<3x3x3x4xf32>", "tensor<1x4x4x4xf32>"
    line = (
        f"%0 = {name} {{strides = dense<2> : tensor<2xi64>}} ins(%ci, %ck : {i}, {k}) "
        f"outs(%co : {o}) -> {o}"
    )
    src = f"func.func @g(%ci: {i}, %ck: {k}, %co: {o}) {{\n  {line}\n  func.return\n}}\n"
    op = first(ours(src), name)
    assert list(op.strides.get_values()) == [2, 2]
    assert list(op.dilations.get_values()) == [1, 1]


# ---------------------------------------------------------------- linalg.generic

MAPS = (
    "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
    "#row = affine_map<(d0, d1) -> (d0)>\n"
)
GENERIC_BODY = (
    "{\n  ^bb0(%p: f32, %q: f32):\n    %s = arith.addf %p, %q : f32\n"
    "    linalg.yield %s : f32\n  }"
)


def test_generic_with_map_aliases_matches_xdsl():
    src = MAPS + wrap(
        '%0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", '
        '"reduction"]} ins(%t : tensor<4x8xf32>) outs(%v : tensor<4xf32>) '
        f"{GENERIC_BODY} -> tensor<4xf32>"
    )
    same_as_xdsl(src)
    roundtrip(src)
    op = first(ours(src), "linalg.generic")
    assert [it.data.value for it in op.iterator_types] == ["parallel", "reduction"]


def test_generic_on_memrefs_without_results():
    src = MAPS + wrap(
        "linalg.generic {indexing_maps = [#id, #id], iterator_types = "
        '["parallel", "parallel"], doc = "copy", library_call = "lib_copy"} '
        "ins(%m : memref<4x8xf32>) outs(%n : memref<4x8xf32>) {\n"
        "  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n  }"
    )
    same_as_xdsl(src)
    roundtrip(src)
    op = first(ours(src), "linalg.generic")
    assert not op.results
    assert op.doc.data == "copy" and op.library_call.data == "lib_copy"


def test_generic_iterator_type_attributes_and_attrs_keyword():
    src = MAPS + wrap(
        "%0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = "
        "[#linalg.iterator_type<parallel>, \"parallel\"]} ins(%t : tensor<4x8xf32>) "
        "outs(%u : tensor<4x8xf32>) attrs = {tag = 7} {\n"
        "  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n  } -> tensor<4x8xf32>"
    )
    same_as_xdsl(src)
    roundtrip(src)


def test_generic_other_attributes_of_the_trait_dictionary_are_kept():
    # MLIR keeps them as attributes; xDSL's parser drops them.
    src = MAPS + wrap(
        '%0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", '
        '"parallel"], tag = 3} ins(%t : tensor<4x8xf32>) outs(%u : tensor<4x8xf32>) {\n'
        "  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n  } -> tensor<4x8xf32>"
    )
    oracle = src.replace(", tag = 3}", "}").replace(
        "outs(%u : tensor<4x8xf32>) {", "outs(%u : tensor<4x8xf32>) attrs = {tag = 3} {"
    )
    same_as_xdsl(src, oracle)
    assert first(ours(src), "linalg.generic").attributes["tag"].value.data == 3
    roundtrip(src)


def test_generic_with_several_results():
    # MLIR (and xDSL's printer) write `-> (T, U)`; xDSL's parser wants `-> T, U`.
    body = "{\n  ^bb0(%p: f32, %q: f32, %s: f32):\n    linalg.yield %p, %p : f32, f32\n  }"
    head = (
        "%0:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = "
        '["parallel", "parallel"]} ins(%t : tensor<4x8xf32>) '
        f"outs(%u, %u : tensor<4x8xf32>, tensor<4x8xf32>) {body}"
    )
    src = MAPS + wrap(head + " -> (tensor<4x8xf32>, tensor<4x8xf32>)")
    oracle = MAPS + wrap(head + " -> tensor<4x8xf32>, tensor<4x8xf32>")
    same_as_xdsl(src, oracle)
    roundtrip(src)


def test_generic_leading_dictionaries():
    src = MAPS + wrap(
        '%0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", '
        '"parallel"]} {tag = 1} ins(%t : tensor<4x8xf32>) outs(%u : tensor<4x8xf32>) {\n'
        "  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n  } -> tensor<4x8xf32>"
    )
    assert first(ours(src), "linalg.generic").attributes["tag"].value.data == 1


# ---------------------------------------------------------------- transpose / broadcast / reduce

DST_CASES = {
    "transpose": "%0 = linalg.transpose ins(%t : tensor<4x8xf32>) outs(%r : tensor<8x4xf32>) "
    "permutation = [1, 0]",
    "transpose_memref": "linalg.transpose ins(%m : memref<4x8xf32>) outs(%n : memref<4x8xf32>) "
    "permutation = [0, 1]",
    "broadcast": "%0 = linalg.broadcast ins(%v : tensor<4xf32>) outs(%t : tensor<4x8xf32>) "
    "dimensions = [1]",
    "broadcast_memref": "linalg.broadcast ins(%mv : memref<4xf32>) outs(%m : memref<4x8xf32>) "
    "dimensions = [1]",
    "reduce": "%0 = linalg.reduce ins(%t : tensor<4x8xf32>) outs(%v : tensor<4xf32>) "
    "dimensions = [1] (%in: f32, %init: f32) {\n"
    "    %s = arith.addf %in, %init : f32\n    linalg.yield %s : f32\n  }",
    "reduce_memref": "linalg.reduce ins(%m : memref<4x8xf32>) outs(%mv : memref<4xf32>) "
    "dimensions = [1]\n  (%in: f32, %init: f32) {\n"
    "    %s = arith.maximumf %in, %init : f32\n    linalg.yield %s : f32\n  }",
}


@pytest.mark.parametrize("line", DST_CASES.values(), ids=list(DST_CASES))
def test_destination_style_ops_match_xdsl(line):
    src = wrap(line)
    same_as_xdsl(src)
    roundtrip(src)


def test_destination_style_results_come_from_tensor_outs():
    m = ours(wrap(DST_CASES["transpose"], DST_CASES["broadcast_memref"]))
    assert [r.type for r in first(m, "linalg.transpose").results] == [TensorType(f32, [8, 4])]
    assert not first(m, "linalg.broadcast").results


def test_reduce_region_arguments_are_bound():
    m = ours(wrap(DST_CASES["reduce"]))
    op = first(m, "linalg.reduce")
    block = op.region.block
    add = block.first_op
    assert list(add.operands) == list(block.args)
    assert [a.type for a in block.args] == [f32, f32]


def test_reduce_short_form():
    # MLIR prints `linalg.reduce { op }` when the body is one op on (%init, %in).
    src = wrap(
        "%0 = linalg.reduce { arith.addf } ins(%t : tensor<4x8xf32>) outs(%v : tensor<4xf32>) "
        "dimensions = [1]",
        "linalg.reduce { arith.maximumf {fastmath = #arith.fastmath<fast>} } "
        "ins(%m : memref<4x8xf32>) outs(%mv : memref<4xf32>) dimensions = [0, 1]",
    )
    oracle = wrap(
        "%0 = linalg.reduce ins(%t : tensor<4x8xf32>) outs(%v : tensor<4xf32>) dimensions = [1] "
        "(%in: f32, %init: f32) {\n    %s = arith.addf %init, %in : f32\n"
        "    linalg.yield %s : f32\n  }",
        "linalg.reduce ins(%m : memref<4x8xf32>) outs(%mv : memref<4xf32>) dimensions = [0, 1] "
        "(%in: f32, %init: f32) {\n    %s = arith.maximumf %init, %in fastmath<fast> : f32\n"
        "    linalg.yield %s : f32\n  }",
    )
    same_as_xdsl(src, oracle, verify=False)


def test_destination_style_attribute_dictionaries():
    # MLIR's positions: before `ins` (after the payload for reduce) and after the
    # array; xDSL neither parses nor prints them.
    src = wrap(
        "%0 = linalg.transpose {a = 1} ins(%t : tensor<4x8xf32>) outs(%r : tensor<8x4xf32>) "
        "permutation = [1, 0] {b}",
        "%1 = linalg.reduce { arith.addf } {c} ins(%t : tensor<4x8xf32>) "
        "outs(%v : tensor<4xf32>) dimensions = [1] {d = 2}",
        "%2 = linalg.reduce ins(%t : tensor<4x8xf32>) outs(%v : tensor<4xf32>) dimensions = [1] "
        "{e} (%in: f32, %init: f32) {\n    linalg.yield %in : f32\n  }",
        "%3 = linalg.broadcast <{dimensions = array<i64: 1>}> {f} ins(%v : tensor<4xf32>) "
        "outs(%t : tensor<4x8xf32>) dimensions = [1]",
    )
    m = ours(src)
    ops = [op for op in m.walk() if op.name.startswith(("linalg.t", "linalg.r", "linalg.b"))]
    assert [sorted(op.attributes) for op in ops] == [["a", "b"], ["c", "d"], ["e"], ["f"]]
    assert [list(op.properties) for op in ops[:1]] == [["permutation"]]


# ---------------------------------------------------------------- coverage and grammar


def test_every_linalg_op_has_a_custom_form():
    from tfrt.dialects.linalg import Linalg as ProjectLinalg

    # A table format, or the format of the class that replaces xDSL's
    # (linalg.matmul's `indexing_maps = [...]` prefix).
    own = {op.name: op.get_irdl_definition().assembly_format for op in ProjectLinalg.operations}
    missing = [
        op.name
        for op in Linalg.operations
        if op.get_irdl_definition().assembly_format is None
        and op.name not in STANDARD_FORMATS
        and own.get(op.name) is None
    ]
    assert missing == []


def test_formats_add_no_lalr_conflicts():
    fe = frontend(make_context(True), "linalg. arith. builtin. func. tensor.")
    ours_ops = set(std_arith.FORMATS) | set(std_linalg.FORMATS)
    assert not ours_ops & set(fe.conflicts), fe.conflicts
    assert not ours_ops & set(fe.skipped), fe.skipped
    assert ours_ops <= set(fe.rule_ops.values())


# ---------------------------------------------------------------- errors

ERRORS = {
    "unknown_cmpi_predicate": (
        "%0 = arith.cmpi foo, %a, %b : i32",
        "2:19: error: expected string or keyword containing one of the following enum "
        "values for attribute 'predicate' [eq, ne, slt",
    ),
    "cmpf_predicate_on_cmpi": ('%0 = arith.cmpi "olt", %a, %b : i32', "2:19: error: expected"),
    "cmpi_predicate_on_cmpf": ("%0 = arith.cmpf slt, %x, %y : f32", "[false, oeq, ogt"),
    "cmp_missing_operand": ("%0 = arith.cmpi slt, %a : i32", "2:27: error: unexpected ':'"),
    "cmp_wrong_type": (
        "%0 = arith.cmpi slt, %a, %b : i64",
        "2:24: error: use of value '%a' expects different type than prior uses: 'i64' vs 'i32'",
    ),
    "cmpf_bad_fastmath": (
        "%0 = arith.cmpf olt, %x, %y fastmath<bogus> : f32",
        "2:40: error: Expected `reassoc`",
    ),
    "cast_type_count": (
        "%0 = builtin.unrealized_conversion_cast %a, %b : i32 to i64",
        "2:43: error: 2 operands present, but expected 1",
    ),
    "cast_result_count": (
        "%0 = builtin.unrealized_conversion_cast %a : i32 to i64, i64",
        "error: operation defines 2 results but was provided 1 to bind",
    ),
    "named_type_count": (
        f"%0 = linalg.sub ins(%t, %u : {E}) outs(%u : {E}) -> {E}",
        "2:23: error: 2 operands present, but expected 1",
    ),
    "named_body_cannot_be_built": (
        "%0 = linalg.sub -> tensor<4xf32>",
        "2:8: error: 'linalg.sub' op cannot build its body for operands of types ()",
    ),
    "named_attrs_needs_a_dictionary": (
        f"%0 = linalg.mul {IN2} attrs = -> {E}",
        "error: unexpected '->'",
    ),
    "transpose_without_permutation": (
        f"%0 = linalg.transpose ins(%t : {E}) outs(%r : tensor<8x4xf32>)",
        "error: unexpected operation 'func.return'; expected one of: 'permutation'",
    ),
    "transpose_bad_permutation": (
        f"%0 = linalg.transpose ins(%t : {E}) outs(%r : tensor<8x4xf32>) permutation = [1, x]",
        "error: unexpected",
    ),
    "broadcast_two_inputs": (
        "%0 = linalg.broadcast ins(%v, %v : tensor<4xf32>, tensor<4xf32>) outs(%t : "
        f"{E}) dimensions = [1]",
        "2:29: error: 'linalg.broadcast' expects exactly one operand in 'ins', got 2",
    ),
    "reduce_without_body": (
        f"%0 = linalg.reduce ins(%t : {E}) outs(%v : tensor<4xf32>) dimensions = [1]",
        "2:8: error: 'linalg.reduce' expects a payload op '{ op }' before 'ins'",
    ),
    "reduce_body_without_arguments": (
        f"%0 = linalg.reduce ins(%t : {E}) outs(%v : tensor<4xf32>) dimensions = [1] {{\n"
        "  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n  }",
        "3:3: error: unexpected block label '^bb0'",
    ),
    "reduce_duplicate_argument": (
        f"%0 = linalg.reduce ins(%t : {E}) outs(%v : tensor<4xf32>) dimensions = [1] "
        "(%p: f32, %p: f32) {\n    linalg.yield %p : f32\n  }",
        "error: redefinition of SSA value '%p'",
    ),
    "reduce_payload_and_body": (
        f"%0 = linalg.reduce {{ arith.addf }} ins(%t : {E}) outs(%v : tensor<4xf32>) "
        "dimensions = [1] (%p: f32, %q: f32) {\n    linalg.yield %p : f32\n  }",
        "error: 'linalg.reduce' has a payload op, so it takes no region arguments or body",
    ),
    "reduce_unknown_payload": (
        f"%0 = linalg.reduce {{ nope.op }} ins(%t : {E}) outs(%v : tensor<4xf32>) "
        "dimensions = [1]",
        "2:24: error: unregistered operation 'nope.op'",
    ),
    "generic_without_maps": (
        '%0 = linalg.generic {iterator_types = ["parallel"]} ins(%v : tensor<4xf32>) '
        "outs(%v : tensor<4xf32>) {\n  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n"
        "  } -> tensor<4xf32>",
        "2:8: error: 'linalg.generic' op requires attribute 'indexing_maps'",
    ),
    "generic_unknown_iterator": (
        "%0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> "
        '(d0)>], iterator_types = ["sideways"]} ins(%v : tensor<4xf32>) outs(%v : '
        "tensor<4xf32>) {\n  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n"
        "  } -> tensor<4xf32>",
        "2:94: error: unexpected iterator_type (sideways)",
    ),
    "generic_iterators_not_an_array": (
        "%0 = linalg.generic {indexing_maps = [], iterator_types = 3} ins(%v : tensor<4xf32>) "
        "outs(%v : tensor<4xf32>) {\n  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n"
        "  } -> tensor<4xf32>",
        "2:44: error: expected iterator_types array attribute",
    ),
    "generic_without_trait_dictionary": (
        "%0 = linalg.generic ins(%v : tensor<4xf32>) outs(%v : tensor<4xf32>) {\n"
        "  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n  } -> tensor<4xf32>",
        "2:23: error: unexpected operation name 'ins'; expected one of: '{'",
    ),
    "generic_duplicate_key": (
        "%0 = linalg.generic {indexing_maps = [], indexing_maps = []} ins(%v : tensor<4xf32>) "
        "outs(%v : tensor<4xf32>) {\n  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n"
        "  } -> tensor<4xf32>",
        "2:44: error: duplicate key 'indexing_maps' in dictionary attribute",
    ),
    "generic_body_right_after_the_dictionary": (
        '%0 = linalg.generic {indexing_maps = [], iterator_types = []} {\n'
        "  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n  } -> tensor<4xf32>",
        "3:3: error: unexpected block label '^bb0'",
    ),
    "generic_unclosed_results": (
        "%0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> "
        '(d0)>], iterator_types = ["parallel"]} ins(%v : tensor<4xf32>) outs(%v : '
        "tensor<4xf32>) {\n  ^bb0(%p: f32, %q: f32):\n    linalg.yield %p : f32\n"
        "  } -> (tensor<4xf32>",
        "error: unexpected operation 'func.return'; expected one of: ')', ','",
    ),
}


@pytest.mark.parametrize("line,expected", ERRORS.values(), ids=list(ERRORS))
def test_malformed_input_is_a_clean_diagnostic(line, expected):
    out = error_of(wrap(line), verify=False)
    assert expected in out, out


def test_named_op_bodies_are_rebuilt_per_op():
    """Named ops of equal operand types get equal bodies, each its own."""
    line = f"linalg.matmul ins(%t, %r : {E}, tensor<8x4xf32>) outs(%acc4 : tensor<4x4xf32>) -> tensor<4x4xf32>"
    src = wrap("%acc4 = tensor.empty() : tensor<4x4xf32>", f"%0 = {line}", f"%1 = {line}")
    same_as_xdsl(src)
    a, b = [op for op in ours(src).walk() if op.name == "linalg.matmul"]
    assert a.body.block is not b.body.block
    assert [o.name for o in a.body.block.ops] == ["arith.mulf", "arith.addf", "linalg.yield"]
    assert all(x is not y for x, y in zip(a.body.block.ops, b.body.block.ops))
    assert a.body.block.last_op.operands[0].owner is list(a.body.block.ops)[1]


def test_an_op_equal_to_a_verified_one_is_still_checked_for_its_own_errors():
    """Verification results are shared only between ops equal in all their
    verifier reads: a later op that differs still gets its error, at its line."""
    good = wrap("%0 = arith.addf %x, %y : f32", "%1 = arith.addf %x, %y : f32")
    ours(good)
    bad = wrap(
        "%0 = arith.addf %x, %y : f32",
        '%1 = "arith.addf"(%x, %y) : (f32, f32) -> i32',
    )
    out = error_of(bad)
    assert out.startswith("t.mlir:3:3: error: 'arith.addf' op result"), out


def test_a_linalg_op_equal_to_a_verified_one_but_for_its_body_is_still_checked():
    """linalg ops share verification results too; their signature holds their
    body's argument types, so a body that differs still gets its error."""
    generic = (
        "%{r} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        'affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} '
        "ins(%t : {E}) outs(%u : {E}) {{\n"
        "  ^bb0(%p: {T}, %o: f32):\n"
        "    linalg.yield %o : f32\n"
        "  }} -> {E}"
    )
    ok = generic.format(r=0, E=E, T="f32")
    ours(wrap(ok, generic.format(r=1, E=E, T="f32")))
    out = error_of(wrap(ok, generic.format(r=1, E=E, T="f64")))
    assert out.startswith("t.mlir:6:3: error: 'linalg.generic' op expected type of bb argument #0"), out
