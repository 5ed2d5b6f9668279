"""Custom op forms: grammar rules generated from declarative assembly formats."""

from __future__ import annotations

import pytest
from syntax_helpers import FMT, fmt_context, generic, xdsl_parse
from xdsl.dialects.builtin import IntegerAttr, UnitAttr, i1, i32
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, var_operand_def

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects import make_context
from tfrt.dialects.syntax import GrammarBuildError, frontend, parse_module
from tfrt.dialects.syntax.formats import STANDARD_FORMATS

SRC = """\
func.func @f(%c: i1, %a: i32, %b: f32) -> i32 {
  %x = fmt.const 42
  %y = fmt.add %x, %a
  %r:2 = fmt.call(%y, %b) : (i32, f32) -> (i32, f32)
  %z = fmt.if %c, %y, %b unit : (i32, f32) -> (i32) {
    %q = fmt.add %y, %y
    fmt.ret %q : i32
  } attributes {hint = "x"}
  %e = fmt.if %c : () -> i32 {
    %k = fmt.const 7
    fmt.ret %k : i32
  }
  fmt.pair [%x, %y] [%z]
  fmt.pair [] []
  fmt.ret %z : i32
}
"""


def test_custom_forms_build_the_same_ir_as_xdsl():
    ours = parse_module(SRC, "f.mlir", ctx=fmt_context())
    # xDSL's parser has no implicit region arguments: give it the explicit ones.
    explicit = SRC.replace(
        "unit : (i32, f32) -> (i32) {\n    %q = fmt.add %y, %y",
        "unit : (i32, f32) -> (i32) {\n  ^bb0(%y2: i32, %b2: f32):\n    %q = fmt.add %y2, %y2",
    )
    theirs = xdsl_parse(explicit, fmt_context())
    assert generic(ours) == generic(theirs)


def test_generated_pieces():
    m = parse_module(SRC, "f.mlir", ctx=fmt_context())
    ops = {}
    for op in m.walk():
        ops.setdefault(op.name, op)
    assert ops["fmt.const"].properties["value"] == IntegerAttr(42, i32)
    call = ops["fmt.call"]
    assert [str(t) for t in call.result_types] == ["i32", "f32"]
    first_if = next(op for op in m.walk() if op.name == "fmt.if")
    assert first_if.properties["flag"] == UnitAttr()  # optional group with a unit anchor
    assert first_if.attributes["hint"].data == "x"  # attr-dict-with-keyword
    pairs = [op for op in m.walk() if op.name == "fmt.pair"]
    assert list(pairs[0].properties["operandSegmentSizes"].get_values()) == [2, 1]
    assert list(pairs[1].properties["operandSegmentSizes"].get_values()) == [0, 0]


def test_implicit_region_arguments_shadow_operand_names():
    m = parse_module(SRC, "f.mlir", ctx=fmt_context())
    if_op = next(op for op in m.walk() if op.name == "fmt.if")
    block = if_op.body.block
    assert [a.type for a in block.args] == [i32, *[if_op.operands[2].type]]
    add = block.first_op
    # Inside the region `%y` is the entry-block argument, not the outer value.
    assert add.operands[0] is block.args[0]
    assert if_op.operands[1] is not block.args[0]


def test_explicit_entry_label_may_restate_implicit_arguments():
    src = (
        "func.func @f(%c: i1, %a: i32) -> i32 {\n"
        "  %r = fmt.if %c, %a : (i32) -> (i32) {\n"
        "  ^bb0(%renamed: i32):\n"
        "    fmt.ret %renamed : i32\n"
        "  }\n"
        "  fmt.ret %r : i32\n"
        "}\n"
    )
    m = parse_module(src, ctx=fmt_context())
    if_op = next(op for op in m.walk() if op.name == "fmt.if")
    assert if_op.body.block.last_op.operands[0] is if_op.body.block.args[0]


def test_standard_ops_with_hand_written_parsers_get_table_formats():
    src = """\
func.func @g(%n: index, %t: tensor<2x2xf32>) -> i32 {
  %c = arith.constant 3 : i32
  %c0 = arith.constant 0.0 : f32
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  %s = scf.for %i = %zero to %n step %one iter_args(%acc = %c) -> (i32) {
    %v = arith.addi %acc, %c : i32
    scf.yield %v : i32
  }
  %b = arith.constant true
  %w = scf.if %b -> (i32) {
    scf.yield %s : i32
  } else {
    scf.yield %c : i32
  }
  scf.if %b {
    "test.side"() : () -> ()
    scf.yield
  }
  %e = tensor.empty() : tensor<2x2xf32>
  %m = linalg.matmul ins(%t, %t : tensor<2x2xf32>, tensor<2x2xf32>)
                     outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %a = linalg.add ins(%m, %f : tensor<2x2xf32>, tensor<2x2xf32>)
                  outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = func.call @g(%n, %m) : (index, tensor<2x2xf32>) -> i32
  func.return %w : i32
}
"""
    ctx = make_context(True)
    ours = parse_module(src, "g.mlir", ctx=ctx)
    theirs = xdsl_parse(src)
    assert generic(ours) == generic(theirs)
    for name in (
        "arith.constant",
        "scf.for",
        "scf.if",
        "scf.yield",
        "tensor.empty",
        "func.call",
        "func.return",
    ):
        assert name in STANDARD_FORMATS
    # linalg.matmul reads the format of the project's class (with MLIR's
    # optional `indexing_maps = [...]` prefix), not the shared table one.
    assert "linalg.matmul" not in STANDARD_FORMATS
    assert ctx.get_op("linalg.matmul").get_irdl_definition().assembly_format.startswith(
        "(`indexing_maps`"
    )


def test_implicit_terminator_is_added_to_custom_forms():
    src = "func.func @f(%b: i1) {\n  scf.if %b {\n  }\n  func.return\n}\n"
    m = parse_module(src, ctx=make_context())
    if_op = next(op for op in m.walk() if op.name == "scf.if")
    assert if_op.true_region.block.last_op.name == "scf.yield"
    assert not if_op.false_region.blocks


def test_grammar_has_one_rule_per_op_from_its_format():
    fe = frontend(fmt_context(), "fmt.")
    assert set(fe.rule_ops.values()) >= {op.name for op in FMT.operations}
    assert not fe.skipped  # every fmt op got its rule
    # The op name is a keyword terminal of its own rule.
    for index in fe.rule_ops:
        assert f"K_{index}" in fe.grammar


def test_registered_op_in_custom_form_without_a_format_is_reported():
    with pytest.raises(DiagnosticError) as info:
        parse_module("func.func @f() {\n  tfrt_sht.create_tensor\n}\n", ctx=make_context())
    assert "has no custom assembly format" in str(info.value)


@irdl_op_definition
class AmbiguousOp(IRDLOperation):
    """`amb.op %a %b`: two variadic lists next to each other is not LALR(1)."""

    name = "amb.op"
    flag = opt_prop_def(UnitAttr)
    first = operand_def(i32)
    rest = var_operand_def(i32)
    assembly_format = "$first (`,` $rest^)? attr-dict (`,` `flag` $flag^)?"


def test_non_lalr_format_fails_loudly_with_the_op_name(tmp_path, monkeypatch):
    monkeypatch.setenv("TFRT_PY_CACHE_DIR", str(tmp_path))
    ctx = make_context()
    ctx.load_dialect(Dialect("amb", [AmbiguousOp], []))
    with pytest.raises(DiagnosticError) as info:
        parse_module("func.func @f() {\n  func.return\n}\n amb.op", ctx=ctx)
    assert "'amb.op'" in str(info.value)
    assert "ambiguous under LALR(1)" in str(info.value)
    with pytest.raises(GrammarBuildError):
        frontend(ctx, "amb.")


def test_cold_build_then_warm_load(tmp_path, monkeypatch):
    from tfrt.dialects.syntax import grammar

    monkeypatch.setenv("TFRT_PY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(grammar, "_FRONTENDS", {})
    fe1 = frontend(fmt_context(), "fmt.")
    assert list(tmp_path.glob("grammar-*.json")) and list(tmp_path.glob("lalr-*.cache"))
    monkeypatch.setattr(grammar, "_FRONTENDS", {})
    fe2 = frontend(fmt_context(), "fmt.")
    assert fe2 is not fe1 and fe2.grammar == fe1.grammar
    m = parse_module(SRC, ctx=fmt_context())
    assert m.body.block.first_op.sym_name.data == "f"


def test_grammar_only_holds_the_dialects_the_text_uses():
    ctx = fmt_context()
    small = frontend(ctx, "fmt.const 1")
    names = set(small.rule_ops.values())
    assert names and all(n.startswith("fmt.") for n in names)
    big = frontend(ctx, "fmt. arith.")
    assert any(n.startswith("arith.") for n in big.rule_ops.values())


def test_i1_literal_with_fixed_type():
    from syntax_helpers import FmtConstOp  # noqa: F401 - keeps the import graph obvious

    m = parse_module(
        "func.func @f() {\n  %x = tfrt.constant.i1 true\n  tfrt.return\n}\n", ctx=make_context()
    )
    const = m.body.block.first_op.body.block.first_op
    assert const.properties["value"] == IntegerAttr(1, i1)


def test_every_standard_op_has_a_custom_form():
    # func.func and builtin.module are core grammar rules; every other op of
    # the standard dialects gets a generated rule (none is skipped).
    ctx = make_context()
    dialects = ("func", "arith", "scf", "cf", "tensor", "linalg", "memref", "math")
    fe = frontend(ctx, " ".join(f"{d}." for d in dialects))
    assert not fe.skipped
    have = set(fe.rule_ops.values())
    missing = [
        op.name
        for d in ctx.loaded_dialects
        if d.name in dialects
        for op in d.operations
        if op.name not in have and op.name != "func.func"
    ]
    assert not missing


def test_warm_load_generates_only_the_formats_the_input_uses(tmp_path, monkeypatch):
    """After a warm start, a shared helper rule (here linalg's operand lists)
    is built from the op that defined it, not by regenerating every op."""
    from tfrt.dialects.syntax import formats, grammar

    monkeypatch.setenv("TFRT_PY_CACHE_DIR", str(tmp_path))
    src = (
        "func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
        "  %r = linalg.sub ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) "
        "outs(%a : tensor<2x2xf32>) -> tensor<2x2xf32>\n"
        "  %m = linalg.mul ins(%r, %b : tensor<2x2xf32>, tensor<2x2xf32>) "
        "outs(%a : tensor<2x2xf32>) -> tensor<2x2xf32>\n"
        "  func.return %m : tensor<2x2xf32>\n}\n"
    )
    monkeypatch.setattr(grammar, "_FRONTENDS", {})
    cold = parse_module(src, ctx=make_context())
    monkeypatch.setattr(grammar, "_FRONTENDS", {})
    generated = []
    real = formats.generate
    monkeypatch.setattr(formats, "generate", lambda cls, *a: generated.append(cls.name) or real(cls, *a))
    warm = parse_module(src, ctx=make_context())
    assert str(warm) == str(cold)
    assert len(generated) <= 4, generated  # the two ops, and the owner of each shared rule
