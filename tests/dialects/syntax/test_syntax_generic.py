"""MLIR's generic syntax: modules, functions, regions, blocks, results, aliases."""

from __future__ import annotations

import pytest
from syntax_helpers import generic, xdsl_parse
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr, i32

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects import make_context
from tfrt.dialects.syntax import parse_module


def ours(src: str, **kw):
    return parse_module(src, "g.mlir", ctx=make_context(True), allow_unregistered=True, **kw)


GENERIC = """\
module @m attributes {tfrt.cost_threshold = 1 : i64, unit_attr} {
  func.func private @decl(i32, f32 {a.b = 1}) -> (i32 {res}, f32)
  func.func nested @sig() -> ((i32) -> i32)
  func.func @f(%a: i32 {tfrt.x}, %b: f32) -> (i32, f32) attributes {tfrt.sync} {
    %x:2 = "t.two"(%a) : (i32) -> (i32, f32)
    %p, %q:2 = "t.three"() : () -> (i1, i8, i16)
    "t.br"(%x#0)[^bb1, ^bb2] : (i32) -> ()
  ^bb1:
    "t.use"(%x#1, %q#1, %p) : (f32, i16, i1) -> ()
    "t.succ"()[^bb2(%a : i32)] : () -> ()
  ^bb2(%c: i32, %d: f32):
    %r = "t.props"(%c) <{k = 5 : i32}> ({
      "t.inner"(%d) : (f32) -> ()
    }, {
    ^bb0(%e: i32):
      "t.inner2"(%e) : (i32) -> ()
    }) {attr = "s"} : (i32) -> i32
    func.return %r, %d : i32, f32
  }
}
"""


def test_generic_syntax_builds_what_xdsl_builds():
    # xDSL has no successor operands in generic form and drops the attributes
    # of unnamed arguments (MLIR keeps them, as we do): compare the rest.
    src = GENERIC.replace('"t.succ"()[^bb2(%a : i32)] : () -> ()', '"t.succ"()[^bb2] : () -> ()')
    src = src.replace("f32 {a.b = 1}", "f32")
    assert generic(ours(src, verify=False)) == generic(xdsl_parse(src))


def test_module_function_and_result_pieces():
    m = ours(GENERIC, verify=False)
    assert isinstance(m, ModuleOp) and m.sym_name == StringAttr("m")
    assert m.attributes["unit_attr"] == UnitAttr()
    decl, sig, f = list(m.body.block.ops)
    assert decl.sym_visibility == StringAttr("private")
    assert decl.res_attrs is not None and "res" in decl.res_attrs.data[0].data
    assert "a.b" in decl.arg_attrs.data[1].data
    assert str(sig.function_type) == "() -> ((i32) -> i32)"
    assert f.attributes["tfrt.sync"] == UnitAttr()
    blocks = list(f.body.blocks)
    assert len(blocks) == 3
    succ = blocks[1].last_op
    assert succ.successors[0] is blocks[2]
    assert succ.operands[0] is blocks[0].args[0]  # successor operands follow the operands
    props = blocks[2].first_op
    assert props.properties["k"].value.data == 5
    assert len(props.regions) == 2 and props.regions[1].block.args[0].type == i32


def test_top_level_ops_are_wrapped_in_a_module():
    m = ours('"t.a"() : () -> ()\n"t.b"() : () -> ()\n')
    assert [op.op_name.data for op in m.body.block.ops] == ["t.a", "t.b"]
    two = ours("module {}\nmodule {}\n")
    assert len(list(two.body.block.ops)) == 2
    assert not list(ours("").body.block.ops)
    assert not list(ours("// just a comment\n").body.block.ops)


def test_default_dialect_inside_functions():
    src = (
        "func.func @g(%a: i32) -> i32 {\n  %r = call @g(%a) : (i32) -> i32\n  return %r : i32\n}\n"
    )
    m = ours(src)
    names = [op.name for op in m.body.block.first_op.body.block.ops]
    assert names == ["func.call", "func.return"]
    with pytest.raises(DiagnosticError, match="custom op 'return' is unknown"):
        ours("return\n")


def test_forward_references_across_blocks_and_regions():
    src = (
        "func.func @f() {\n"
        '  "t.br"()[^bb1] : () -> ()\n'
        "^bb1:\n"
        '  "t.use"(%late) : (i32) -> ()\n'
        '  "t.region"() ({\n'
        '    "t.use2"(%later) : (i32) -> ()\n'
        "  }) : () -> ()\n"
        '  %late = "t.def"() : () -> i32\n'
        '  %later = "t.def"() : () -> i32\n'
        "  func.return\n"
        "}\n"
    )
    m = ours(src, verify=False)
    ops = {op.op_name.data if hasattr(op, "op_name") else op.name: op for op in m.walk()}
    assert ops["t.use"].operands[0] is list(m.walk())[-3].results[0]
    assert ops["t.use2"].operands[0].owner.op_name.data == "t.def"


def test_alias_redefinition_and_cycles():
    with pytest.raises(DiagnosticError, match="redefinition of attribute alias id 'x'"):
        ours("#x = 1\n#x = 2\n")
    with pytest.raises(DiagnosticError, match="defined in terms of itself"):
        ours('!a = !b\n!b = !a\n"t.a"() : () -> !a\n')
    with pytest.raises(DiagnosticError, match="type alias '!t' must be defined as a type"):
        ours("!t = 1\n")


def test_tfrt_dialects_accept_unknown_ops_and_types():
    # TFRT's allowUnknownOperations / allowUnknownTypes (RuntimeDialect flags).
    src = (
        "func.func @f(%ch: !tfrt.chain) {\n"
        '  %x = "tfrt_test.not_an_op"(%ch) : (!tfrt.chain) -> !corert.opattrs\n'
        "  tfrt.return\n"
        "}\n"
    )
    m = parse_module(src, ctx=make_context())
    assert m is not None
    with pytest.raises(DiagnosticError, match="unregistered operation 'arith.nope'"):
        parse_module('"arith.nope"() : () -> ()\n', ctx=make_context())


TENSOR_TYPES = (
    "tensor<4xf32>, tensor<index>, tensor<2x3xi1>, tensor<f64>, tensor<0x10xbf16>, tensor<7xui8>, "
    "tensor<2x?xf32>, tensor<*xf32>, tensor<3xi7>, tensor<4x4xf32, 1 : i64>"
)


def test_tensor_types_read_the_same_with_or_without_the_one_token_shortcut():
    # Static tensors of common element types are one token (TENSOR_TYPE); the
    # others go the long way.  Both give the types xDSL's parser gives.
    src = f'%0:10 = "t.op"() : () -> ({TENSOR_TYPES})\n'
    got = [r.type for r in ours(src).body.block.first_op.results]
    assert got == [r.type for r in xdsl_parse(src).body.block.first_op.results]
    spaced = src.replace("<", "< ")  # never a shortcut
    assert [r.type for r in ours(spaced).body.block.first_op.results] == got


def test_errors_at_a_tensor_type_speak_of_the_keyword():
    with pytest.raises(DiagnosticError) as e:
        ours('"t.op"(%0) : tensor<4xf32> -> ()\n')
    assert "TENSOR_TYPE" not in str(e.value) and "tensor_type" not in str(e.value)
    with pytest.raises(DiagnosticError) as e:
        ours('%0 = "t.op"() : () -> tensor<4xf32> tensor<4xf32>\n')
    assert "'tensor'" in str(e.value) and "tensor<" not in str(e.value).splitlines()[0]
