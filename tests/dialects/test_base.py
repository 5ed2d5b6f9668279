"""Shared dialect machinery: ODS-style messages, verification order, lookups."""

from __future__ import annotations

import pytest
from dialect_testing import first_error, parse
from xdsl.dialects.builtin import (
    I32,
    ArrayAttr,
    BFloat16Type,
    ComplexType,
    Float16Type,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.irdl import IRDLOperation, irdl_to_attr_constraint, operand_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects import base
from tfrt.dialects.tfrt import ChainType, ConstantI32Op


@pytest.mark.parametrize(
    "type_, text",
    [
        (i1, "1-bit signless integer"),
        (i32, "32-bit signless integer"),
        (IntegerType(32, Signedness.UNSIGNED), "32-bit unsigned integer"),
        (IntegerType(8, Signedness.SIGNED), "8-bit signed integer"),
        (f32, "32-bit float"),
        (f64, "64-bit float"),
        (Float16Type(), "16-bit float"),
        (BFloat16Type(), "bfloat16 type"),
        (ComplexType(f32), "complex type with 32-bit float elements"),
        (ChainType(), "!tfrt.chain type"),
    ],
)
def test_describe_type(type_, text):
    assert base.describe_type(type_) == text


@pytest.mark.parametrize(
    "constraint, text",
    [
        (IntegerAttr[I32], "32-bit signless integer attribute"),
        (ArrayAttr[IntegerAttr[IntegerType(64)]], "64-bit integer array attribute"),
        (ArrayAttr[StringAttr], "string array attribute"),
        (ArrayAttr, "array attribute"),
        (StringAttr, "string attribute"),
    ],
)
def test_describe_attr_constraint(constraint, text):
    assert base.describe_attr_constraint(irdl_to_attr_constraint(constraint)) == text


@pytest.mark.parametrize(
    "fixed, variadic, found, message",
    [
        (2, False, 1, "expected 2 operands, but found 1"),
        (0, False, 1, "requires zero operands"),
        (1, False, 0, "requires a single operand"),
        (2, True, 1, "expected 2 or more operands, but found 1"),
        (2, True, 3, None),
    ],
)
def test_operand_count_messages(fixed, variadic, found, message):
    assert base._count_message("operand", fixed, variadic, found) == message


def test_result_count_message():
    assert base._count_message("result", 1, False, 2) == "requires one result"
    module = parse('func.func @f() {\n  %a, %b = "tfrt.new.chain"() : () -> (!tfrt.chain, i32)\n'
                   "  tfrt.return\n}")
    assert first_error(module) == "'tfrt.new.chain' op requires one result"


def test_runtime_op_checks_ods_then_the_op_verifier_then_xdsl():
    calls = []

    @base.runtime_op
    class ProbeOp(base.RuntimeOp):
        """A probe.

            %r = "probe.x"(%a) {v = 1 : i32} : (i32) -> i64
        """

        name = "probe.x"
        a = operand_def(i32)
        v = prop_def(IntegerAttr[I32])
        r = result_def(i64)

        def verify_(self) -> None:
            calls.append("custom")
            raise VerifyException("custom check")

    op = ProbeOp.create(
        operands=[ConstantI32Op.create(properties={"value": IntegerAttr(1, i32)},
                                       result_types=[i32]).result],
        properties={"v": IntegerAttr(1, i32)},
        result_types=[i32],
    )
    with pytest.raises(VerifyException, match="result #0 must be 64-bit signless integer"):
        op.verify_()
    assert calls == []
    op = ProbeOp.create(
        operands=[ConstantI32Op.create(properties={"value": IntegerAttr(1, i32)},
                                       result_types=[i32]).result],
        properties={"v": IntegerAttr(1, i32)},
        result_types=[i64],
    )
    with pytest.raises(VerifyException, match="custom check"):
        op.verify_()
    assert calls == ["custom"]
    assert issubclass(ProbeOp, IRDLOperation)


def test_lookup_function_uses_the_closest_module():
    module = parse(
        "func.func @g() {\n  tfrt.return\n}\n"
        "builtin.module {\n  func.func @h() {\n    tfrt.return\n  }\n"
        "  func.func @f() {\n    tfrt.call @g() : () -> ()\n    tfrt.return\n  }\n}"
    )
    call = next(op for op in module.walk() if op.name == "tfrt.call")
    assert base.lookup_function(call, "h") is not None
    assert base.lookup_function(call, "g") is None
    assert first_error(module) == "'tfrt.call' op 'g' does not reference a valid function"


def test_plain_verify_exception_is_a_verify_exception():
    assert issubclass(base.PlainVerifyException, VerifyException)


def test_attr_cost_trait_reads_the_cost():
    module = parse(
        "func.func @f(%a: i32) {\n"
        "  %r = tfrt_test.test_cost %a {id = 0 : i64, _tfrt_cost = 7 : i64} : i32\n  tfrt.return\n}"
    )
    op = next(op for op in module.walk() if op.name == "tfrt_test.test_cost")
    assert op.has_trait(base.AttrCostTrait)
    assert base.AttrCostTrait.cost(op) == 7
