"""The `tfrt` dialect: syntax, verifiers, canonicalization, folding."""

from __future__ import annotations

import pytest
from dialect_testing import first_error, parse, round_trip, to_text
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Block, Region
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.utils.exceptions import ParseError

from tfrt.dialects import make_context
from tfrt.dialects import tfrt as T

SAMPLE = """
func.func @callee(%a: i32, %b: i32) -> i32 {
  %s = tfrt.add.i32 %a, %b
  tfrt.return %s : i32
}
func.func @pfn(%s: i32, %e: i32, %v: f32) -> !tfrt.chain {
  %ch = tfrt.new.chain
  tfrt.return %ch : !tfrt.chain
}
func.func @body(%x: i32) -> (i32, i1) {
  %t = tfrt.constant.i1 true
  tfrt.return %x, %t : i32, i1
}
func.func @all(%c: i1, %x: i32, %y: i64, %f: f32, %d: f64) -> i32 {
  %ch0 = tfrt.new.chain
  %b1 = tfrt.constant.i1 false
  %i32 = tfrt.constant.i32 -41
  %i64 = tfrt.constant.i64 42
  %u32 = tfrt.constant.ui32 4095
  %u64 = tfrt.constant.ui64 18446744073709551615
  %h = tfrt.constant.f16 1.5
  %bf = tfrt.constant.bf16 1.5
  %f32 = tfrt.constant.f32 0.1
  %f64 = tfrt.constant.f64 0.25
  %z64 = tfrt.constant.complex64 1.0, -2.0
  %z128 = tfrt.constant.complex128 1.0, 2.0
  %s64 = tfrt.constant_s.i64 7
  %s16 = tfrt.constant_s.f16 1.0
  %s32 = tfrt.constant_s.f32 1.0
  %sd = tfrt.constant_s.f64 1.0
  %a1 = tfrt.add.i32 %x, %i32
  %a2 = tfrt.add.i64 %y, %y
  %a3 = tfrt.add.f32 %f, %f
  %a4 = tfrt.add.f64 %d, %d
  %n = tfrt.and.i1 %c, %b1
  %e1 = tfrt.equal.i32 %x, %x
  %e2 = tfrt.equal.i64 %y, %y
  %q, %r = tfrt.div.i32 %x, %x
  %q2, %r2 = tfrt.div.i64 %y, %y
  %m1 = tfrt.mul.i32 %x, %x
  %m2 = tfrt.mul.i64 %y, %y
  %m3 = tfrt.mul_s.i32 %x, %x
  %m4 = tfrt.mul_s.i64 %y, %y
  %g1 = "tfrt.minus.i32"(%x, %x) : (i32, i32) -> i32
  %g2 = "tfrt.minus.i64"(%y, %y) : (i64, i64) -> i64
  %g3 = "tfrt.lessequal.i32"(%x, %x) : (i32, i32) -> i1
  %g4 = "tfrt.lessequal.i64"(%y, %y) : (i64, i64) -> i1
  %g5 = "tfrt.div.f32"(%f, %f) : (f32, f32) -> f32
  %g6 = "tfrt.div.f64"(%d, %d) : (f64, f64) -> f64
  %g7 = "tfrt.minimum.f32"(%f, %f) : (f32, f32) -> f32
  %g8 = "tfrt.minimum.f64"(%d, %d) : (f64, f64) -> f64
  %g9 = "tfrt.multiply.f32"(%f, %f) : (f32, f32) -> f32
  %g10 = "tfrt.multiply.f64"(%d, %d) : (f64, f64) -> f64
  %k1 = "tfrt.cast.i64_to_f32"(%y) : (i64) -> f32
  %k2 = "tfrt.cast.f32_to_i64"(%f) : (f32) -> i64
  %k3 = "tfrt.cast.i64_to_f64"(%y) : (i64) -> f64
  %k4 = "tfrt.cast.f64_to_i64"(%d) : (f64) -> i64
  %ch1 = tfrt.print.i1 %c, %ch0
  %ch2 = tfrt.print.i32 %x, %ch1
  %ch3 = tfrt.print.i64 %y, %ch2
  %ch4 = tfrt.print.f32 %f, %ch3
  %ch5 = tfrt.print.f64 %d, %ch4
  %ch6 = "tfrt.print.f16"(%h, %ch5) : (f16, !tfrt.chain) -> !tfrt.chain
  %ch7 = "tfrt.print.complex64"(%z64, %ch6) : (complex<f32>, !tfrt.chain) -> !tfrt.chain
  %ch8 = "tfrt.print.complex128"(%z128, %ch7) : (complex<f64>, !tfrt.chain) -> !tfrt.chain
  %mc = tfrt.merge.chains %ch0, %ch8, %x : !tfrt.chain, !tfrt.chain, i32
  %dev = tfrt.get_device %mc {device_name = "GPU:0"}
  %call = tfrt.call @callee(%x, %x) : (i32, i32) -> i32
  %cond = tfrt.cond %c @callee @callee (%x, %x) : (i32, i32) -> (i32)
  %case = tfrt.case %x [@callee, @callee] (%x, %x) : (i32, i32) -> (i32)
  %w = tfrt.while %c @body(%x) parallel_iterations(4) : (i32) -> (i32)
  %once = tfrt.once @callee(%x, %x) : (i32, i32) -> (i32)
  %pc = tfrt.parallel_call.i32 %x to %x fixed %x @pfn(%f) : f32
  %if = tfrt.if %c, %x : (i32) -> i32 {
  ^bb0(%arg: i32):
    tfrt.return %arg : i32
  } else {
  ^bb0(%arg: i32):
    tfrt.return %arg : i32
  }
  %rep:2 = tfrt.repeat.i32 %x, %x, %f : i32, f32 {
  ^bb0(%a: i32, %b: f32):
    tfrt.return %a, %b : i32, f32
  }
  %pf = tfrt.parallel_for.i32 %x to %x fixed %x, %f : f32 {
  ^bb0(%s: i32, %e: i32, %v: f32):
    tfrt.return
  }
  tfrt.return %call : i32
}
"""


def test_sample_round_trips_and_covers_every_op():
    printed = round_trip(SAMPLE)
    used = {op.name for op in parse(printed).walk()}
    missing = {op.name for op in T.TFRT_OPS} - used
    assert not missing


@pytest.mark.parametrize(
    "text",
    [
        "%0 = tfrt.constant.i1 false",
        "%0 = tfrt.constant.i32 41",
        "%0 = tfrt.constant.f32 1.000000e-01",
        "%0 = tfrt.constant.ui32 4095",
        "%0 = tfrt.constant.complex64 1.000000e+00, 2.000000e+00",
        "%0 = tfrt.new.chain",
    ],
)
def test_constant_syntax(text):
    printed = round_trip(f"func.func @f() {{\n  {text}\n  tfrt.return\n}}")
    assert text in printed


def test_printed_forms_match_tfrt():
    printed = round_trip(SAMPLE)
    for expected in (
        "%q, %r = tfrt.div.i32 %x, %x",
        "%mc = tfrt.merge.chains %ch0, %ch8, %x : !tfrt.chain, !tfrt.chain, i32",
        "%call = tfrt.call @callee(%x, %x) : (i32, i32) -> i32",
        "%w = tfrt.while %c @body(%x) parallel_iterations(4) : (i32) -> (i32)",
        "%once = tfrt.once @callee(%x, %x) : (i32, i32) -> (i32)",
        "%pc = tfrt.parallel_call.i32 %x to %x fixed %x @pfn(%f) : f32",
        "tfrt.if %c, %x : (i32) -> (i32) {",
        "} else {",
        "tfrt.repeat.i32 %x, %x, %f : i32, f32 {",
        "%pf = tfrt.parallel_for.i32 %x to %x fixed %x, %f : f32 {",
        '%dev = tfrt.get_device %mc {device_name = "GPU:0"}',
        '"tfrt.lessequal.i32"(%x, %x) : (i32, i32) -> i1',
        "tfrt.return %call : i32",
    ):
        assert expected in printed, expected


def test_properties_print_in_generic_form():
    module = parse(SAMPLE)
    generic = to_text(module, generic=True)
    assert '"tfrt.constant.i32"() <{value = -41 : i32}> : () -> i32' in generic
    assert '"tfrt.call"(%x, %x) <{callee = @callee}> : (i32, i32) -> i32' in generic
    # Generic input with the attributes in the dictionary is accepted too.
    again = parse('func.func @f() {\n  %0 = "tfrt.constant.i32"() {value = 3 : i32} : () -> i32\n'
                  "  tfrt.return\n}")
    assert first_error(again) is None


def test_unknown_ops_and_types_are_declared_allowed():
    assert T.TFRT.allow_unknown_operations and T.TFRT.allow_unknown_types


# --------------------------------------------------------------------------
# tfrt.if / tfrt.repeat.i32 / tfrt.parallel_for.i32 built in Python
# --------------------------------------------------------------------------


def _function(arg_types, result_types=()):
    block = Block(arg_types=arg_types)
    fn = func.FuncOp.from_region(
        "f", list(arg_types), list(result_types), Region(block)
    )
    return fn, block


def _region(arg_types, returned=None):
    block = Block(arg_types=arg_types)
    operands = [] if returned is None else [block.args[i] for i in returned]
    block.add_op(T.ReturnOp.create(operands=operands))
    return Region(block)


def _module(*ops):
    from xdsl.dialects.builtin import ModuleOp

    return ModuleOp(list(ops))


def test_if_built_in_python_verifies():
    fn, block = _function([i1, i32], [i32])
    cond, x = block.args
    if_op = T.IfOp.create(
        operands=[cond, x],
        result_types=[i32],
        regions=[_region([i32], [0]), _region([i32], [0])],
    )
    block.add_ops([if_op, T.ReturnOp.create(operands=[if_op.results[0]])])
    module = _module(fn)
    assert first_error(module) is None
    module.verify()
    assert T.IfOp.implicit_region_operands(2, 0) == [1]
    assert T.IfOp.implicit_region_operands(2, 1) == [1]


def test_if_verifier_messages():
    fn, block = _function([i1, i32])
    cond, x = block.args
    bad_args = T.IfOp.create(
        operands=[cond, x], result_types=[], regions=[_region([]), _region([i32])]
    )
    block.add_ops([bad_args, T.ReturnOp.create()])
    assert first_error(_module(fn)) == (
        "'tfrt.if' op incorrect number of arguments to 'then' block"
    )

    fn, block = _function([i1, i32])
    cond, x = block.args
    bad_types = T.IfOp.create(
        operands=[cond, x], result_types=[], regions=[_region([i32]), _region([f32])]
    )
    block.add_ops([bad_types, T.ReturnOp.create()])
    assert first_error(_module(fn)) == "'tfrt.if' op operand/argument type mismatch"

    fn, block = _function([i1])
    no_return = T.IfOp.create(
        operands=[block.args[0]], result_types=[], regions=[_region([]), Region(Block())]
    )
    block.add_ops([no_return, T.ReturnOp.create()])
    assert first_error(_module(fn)) == "'tfrt.if' op expected tfrt.return in body"


def test_if_return_mismatch_is_reported_on_the_return():
    module = parse(
        """
func.func @if_mismatch(%cond: i1, %v1: i32) -> i32 {
  tfrt.if %cond, %v1 : (i32) -> () {
  ^bb0(%v: i32):
    tfrt.return %v : i32
  }
  tfrt.return %v1 : i32
}
"""
    )
    assert first_error(module) == "'tfrt.return' op operand types don't match 'tfrt.if' result"


def test_if_without_else_gets_a_returning_else_region():
    module = parse(
        "func.func @f(%c: i1, %x: i32) {\n"
        "  tfrt.if %c, %x : (i32) -> () {\n  ^bb0(%a: i32):\n    tfrt.return\n  }\n"
        "  tfrt.return\n}"
    )
    if_op = next(op for op in module.walk() if isinstance(op, T.IfOp))
    else_block = if_op.else_region.block
    assert else_block.arg_types == (i32,)
    assert [op.name for op in else_block.ops] == ["tfrt.return"]
    assert first_error(module) is None


def test_if_with_results_needs_else():
    module = parse(
        "func.func @f(%c: i1, %x: i32) -> i32 {\n"
        "  %r = tfrt.if %c, %x : (i32) -> (i32) {\n  ^bb0(%a: i32):\n    tfrt.return %a : i32\n  }\n"
        "  tfrt.return %r : i32\n}"
    )
    assert first_error(module) == "'tfrt.return' op operand types don't match 'tfrt.if' result"


def test_if_accepts_attributes_with_keyword():
    printed = round_trip(
        "func.func @f(%c: i1) {\n  tfrt.if %c attributes {hint = 1 : i32} : () -> () {\n"
        "    tfrt.return\n  } else {\n    tfrt.return\n  }\n  tfrt.return\n}"
    )
    assert "tfrt.if %c attributes {hint = 1 : i32} : () -> () {" in printed


def test_repeat_verifier_messages():
    module = parse(
        'func.func @f(%n: i32) {\n  %r:2 = "tfrt.repeat.i32"(%n, %n) ({\n  ^bb0(%a: i32):\n'
        "    tfrt.return %a : i32\n  }) : (i32, i32) -> (i32, i32)\n  tfrt.return\n}"
    )
    assert first_error(module) == "'tfrt.repeat.i32' op incorrect number of operands"
    module = parse(
        'func.func @f(%n: i32, %x: f32) {\n  %r = "tfrt.repeat.i32"(%n, %x) ({\n  ^bb0(%a: f32):\n'
        "    tfrt.return %a : f32\n  }) : (i32, f32) -> (i32)\n  tfrt.return\n}"
    )
    assert first_error(module) == "'tfrt.repeat.i32' op operand/result type mismatch"
    module = parse(
        "func.func @f(%n: i32, %x: f32) {\n  %r = tfrt.repeat.i32 %n, %x : f32 {\n"
        "  ^bb0(%a: f32):\n    %k = tfrt.constant.i32 1\n    tfrt.return %k : i32\n  }\n"
        "  tfrt.return\n}"
    )
    errors = first_error(module)
    assert errors == "'tfrt.return' op operand types don't match 'tfrt.repeat.i32' result"
    assert T.RepeatI32Op.implicit_region_operands(3, 0) == [1, 2]


def test_parallel_for_regions():
    assert T.ParallelForI32Op.implicit_region_operands(5, 0) == [0, 1, 3, 4]
    module = parse(
        "func.func @f(%x: i32) {\n  %d = tfrt.parallel_for.i32 %x to %x fixed %x {\n"
        "  ^bb0(%s: i32, %e: i32):\n    %c = tfrt.new.chain\n    tfrt.return %c : !tfrt.chain\n"
        "  }\n  tfrt.return\n}"
    )
    assert first_error(module) is None
    module = parse(
        "func.func @f(%x: i32) {\n  %d = tfrt.parallel_for.i32 %x to %x fixed %x {\n"
        "  ^bb0(%s: i32, %e: i32):\n    tfrt.return %s : i32\n  }\n  tfrt.return\n}"
    )
    assert first_error(module) == (
        "'tfrt.return' op operand types don't match 'tfrt.parallel_for.i32' result"
    )
    module = parse(
        "func.func @f(%x: i32) {\n  %d = tfrt.parallel_for.i32 %x to %x fixed %x {\n"
        "  ^bb0(%s: i32):\n    tfrt.return\n  }\n  tfrt.return\n}"
    )
    assert first_error(module) == (
        "'tfrt.parallel_for.i32' op incorrect number of arguments to the body block"
    )


# --------------------------------------------------------------------------
# Return and callee verifiers
# --------------------------------------------------------------------------


def test_return_in_function():
    module = parse("func.func @bad_return(%x: i32) {\n  tfrt.return %x : i32\n}")
    assert first_error(module) == (
        "'tfrt.return' op has 1 operands, but enclosing function returns 0"
    )
    module = parse("func.func @m(%x: i32) -> !tfrt.chain {\n  tfrt.return %x : i32\n}")
    # emitError in MLIR: no op prefix.
    assert first_error(module) == (
        "type of return operand 0 ('i32') doesn't match function result type ('!tfrt.chain')"
    )


CALLEE = "func.func @g(%a: i32) -> i32 {\n  tfrt.return %a : i32\n}\n"


@pytest.mark.parametrize(
    "call, message",
    [
        ("tfrt.call @missing(%x) : (i32) -> i32", "'missing' does not reference a valid function"),
        ("tfrt.call @g(%x, %x) : (i32, i32) -> i32", "incorrect number of operands for callee"),
        ("tfrt.call @g(%f) : (f32) -> i32", "operand type mismatch"),
        ("tfrt.call @g(%x) : (i32) -> ()", "incorrect number of results for callee"),
        ("tfrt.call @g(%x) : (i32) -> f32", "result type mismatch"),
    ],
)
def test_call_verifier(call, message):
    module = parse(CALLEE + f"func.func @f(%x: i32, %f: f32) {{\n  {call}\n  tfrt.return\n}}")
    assert first_error(module) == f"'tfrt.call' op {message}"


@pytest.mark.parametrize(
    "cond, message",
    [
        ("tfrt.cond %c @g @nope (%x) : (i32) -> (i32)", "'nope' does not reference a valid function"),
        ("tfrt.cond %c @g @g (%x, %x) : (i32, i32) -> (i32)", "incorrect number of operands for true function"),
        ("tfrt.cond %c @g @g (%f) : (f32) -> (i32)", "operand type mismatch for true function"),
        ("tfrt.cond %c @g @g (%x) : (i32) -> ()", "incorrect number of results for true function"),
        ("tfrt.cond %c @g @g (%x) : (i32) -> (f32)", "result type mismatch for true function"),
    ],
)
def test_cond_verifier(cond, message):
    module = parse(
        CALLEE + f"func.func @f(%c: i1, %x: i32, %f: f32) {{\n  {cond}\n  tfrt.return\n}}"
    )
    assert first_error(module) == f"'tfrt.cond' op {message}"


@pytest.mark.parametrize(
    "callee, message",
    [
        ("(%s: i32, %e: i32, %v: f32, %w: f32)", "incorrect number of callee operands"),
        ("(%s: i32, %e: i64, %v: f32)", "callee must take stard and end indices first"),
        ("(%s: i32, %e: i32, %v: i32)", "operand type mismatch"),
    ],
)
def test_parallel_call_verifier(callee, message):
    module = parse(
        f"func.func @p{callee} {{\n  tfrt.return\n}}\n"
        "func.func @f(%x: i32, %v: f32) {\n"
        "  %d = tfrt.parallel_call.i32 %x to %x fixed %x @p(%v) : f32\n  tfrt.return\n}"
    )
    assert first_error(module) == f"'tfrt.parallel_call.i32' op {message}"


def test_parallel_call_callee_results():
    text = (
        "func.func @p(%s: i32, %e: i32) -> {results} {{\n  tfrt.return {ret}\n}}\n"
        "func.func @f(%x: i32) {{\n  %d = tfrt.parallel_call.i32 %x to %x fixed %x @p()\n"
        "  tfrt.return\n}}"
    )
    module = parse(text.format(results="(i32, i32)", ret="%s, %s : i32, i32"))
    assert first_error(module) == "'tfrt.parallel_call.i32' op invalid callee result type"
    module = parse(text.format(results="i32", ret="%s : i32"))
    assert first_error(module) == "'tfrt.parallel_call.i32' op async callee must return a chain"


def test_ods_constraint_messages():
    module = parse('func.func @f(%a: i64) {\n  %r = "tfrt.add.i32"(%a, %a) : (i64, i64) -> i32\n'
                   "  tfrt.return\n}")
    assert first_error(module) == (
        "'tfrt.add.i32' op operand #0 must be 32-bit signless integer, but got 'i64'"
    )
    module = parse('func.func @f() {\n  %r = "tfrt.new.chain"() : () -> i32\n  tfrt.return\n}')
    assert first_error(module) == (
        "'tfrt.new.chain' op result #0 must be !tfrt.chain type, but got 'i32'"
    )
    module = parse('func.func @f() {\n  %r = "tfrt.constant.i32"() : () -> i32\n  tfrt.return\n}')
    assert first_error(module) == "'tfrt.constant.i32' op requires attribute 'value'"


def test_syntax_errors_are_parse_errors():
    with pytest.raises(ParseError):
        parse("func.func @f(%x: i32) {\n  %r = tfrt.add.i32 %x %x\n  tfrt.return\n}")


# --------------------------------------------------------------------------
# Canonicalization, folding, materialization
# --------------------------------------------------------------------------


def _canonicalize(text: str) -> str:
    module = parse(text)
    CanonicalizePass().apply(make_context(), module)
    module.verify()
    return to_text(module)


def test_merge_of_chains_used_elsewhere_is_removed():
    out = _canonicalize(
        "func.func @main(%ch: !tfrt.chain) -> (!tfrt.chain, !tfrt.chain) {\n"
        "  %out = tfrt.merge.chains %ch : !tfrt.chain\n"
        "  tfrt.return %out, %ch : !tfrt.chain, !tfrt.chain\n}"
    )
    assert "tfrt.merge.chains" not in out
    assert "tfrt.return %ch, %ch" in out


def test_merge_of_single_use_chains_stays():
    out = _canonicalize(
        "func.func @main(%ch: !tfrt.chain) -> !tfrt.chain {\n"
        "  %out = tfrt.merge.chains %ch : !tfrt.chain\n  tfrt.return %out : !tfrt.chain\n}"
    )
    assert "tfrt.merge.chains %ch : !tfrt.chain" in out


def test_merge_keeps_only_single_use_inputs():
    out = _canonicalize(
        "func.func @main(%a: !tfrt.chain, %b: !tfrt.chain) -> (!tfrt.chain, !tfrt.chain) {\n"
        "  %out = tfrt.merge.chains %a, %b : !tfrt.chain, !tfrt.chain\n"
        "  tfrt.return %out, %a : !tfrt.chain, !tfrt.chain\n}"
    )
    assert "tfrt.merge.chains %b : !tfrt.chain" in out


def test_merge_does_not_replace_a_chain_with_a_non_chain():
    out = _canonicalize(
        "func.func @main(%x: i32) -> (!tfrt.chain, i32) {\n"
        "  %out = tfrt.merge.chains %x : i32\n  tfrt.return %out, %x : !tfrt.chain, i32\n}"
    )
    assert "tfrt.merge.chains %x : i32" in out


def test_constants_fold_to_their_value_and_materialize():
    from xdsl.traits import ConstantLike

    module = parse("func.func @f() {\n  %c = tfrt.constant.i32 7\n  tfrt.return\n}")
    const = next(op for op in module.walk() if isinstance(op, T.ConstantI32Op))
    assert ConstantLike.get_constant_value(const.result) == IntegerAttr(7, i32)
    interface = T.TfrtConstantMaterialization()
    made = interface.materialize_constant(IntegerAttr(5, i64), i64)
    assert isinstance(made, T.ConstantI64Op) and made.value == IntegerAttr(5, i64)
    made = interface.materialize_constant(FloatAttr(0.5, f32), f32)
    assert isinstance(made, T.ConstantF32Op)
    assert interface.materialize_constant(StringAttr("x"), i32) is None
    assert interface.materialize_constant(IntegerAttr(5, i64), i32) is None


def test_callee_attribute_is_a_flat_symbol_ref():
    module = parse(SAMPLE)
    call = next(op for op in module.walk() if isinstance(op, T.CallOp))
    assert call.callee == SymbolRefAttr("callee")
    cond = next(op for op in module.walk() if isinstance(op, T.CondOp))
    assert set(cond.properties) == {"a_true_fn", "b_false_fn"}


def test_kernels_without_op_definitions_accept_any_signature():
    # TFRT's control_flow.mlir passes a chain to tfrt.lessequal.i32.
    module = parse(
        "func.func @f(%x: i32, %ch: !tfrt.chain) {\n"
        '  %c = "tfrt.lessequal.i32"(%x, %x, %ch) : (i32, i32, !tfrt.chain) -> (i1)\n'
        "  tfrt.return\n}"
    )
    assert first_error(module) is None
    assert T.LessEqualI32Op.get_irdl_definition().assembly_format is None
