"""The custom directives of `tfrt.dialects.directives`, through the ops using them."""

from __future__ import annotations

import inspect

import pytest
from dialect_testing import parse, round_trip
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, UnitAttr, i32
from xdsl.irdl.declarative_assembly_format import CustomDirective
from xdsl.utils.exceptions import ParseError

from tfrt.dialects import corert, directives, tfrt_test
from tfrt.dialects import tfrt as T


def _directive_classes():
    return [
        value
        for value in vars(directives).values()
        if inspect.isclass(value)
        and issubclass(value, CustomDirective)
        and value.__module__ == directives.__name__
    ]


def test_every_directive_documents_its_grammar():
    classes = _directive_classes()
    assert {c.__name__ for c in classes} == set(directives.__all__)
    for cls in classes:
        doc = cls.__doc__ or ""
        assert "Grammar::" in doc and "::=" in doc, cls.__name__
        assert "Semantics" in doc and "Printing" in doc, cls.__name__


# ParenFunctionType -------------------------------------------------------


@pytest.mark.parametrize(
    "op, printed",
    [
        (
            "%r = tfrt_test.do.async %x : (i32) -> i32 {\n  ^bb0(%a: i32):\n"
            "    tfrt.return %a : i32\n  }",
            "tfrt_test.do.async %x : (i32) -> (i32) {",
        ),
        (
            "%r:2 = tfrt_test.do.async %x, %y : (i32, f32) -> (i32, f32) {\n"
            "  ^bb0(%a: i32, %b: f32):\n    tfrt.return %a, %b : i32, f32\n  }",
            "tfrt_test.do.async %x, %y : (i32, f32) -> (i32, f32) {",
        ),
        (
            "tfrt_test.do.async : () -> () {\n    tfrt.return\n  }",
            "tfrt_test.do.async : () -> () {",
        ),
    ],
)
def test_paren_function_type(op, printed):
    text = f"func.func @f(%x: i32, %y: f32) {{\n  {op}\n  tfrt.return\n}}"
    assert printed in round_trip(text)


# OptionalElseRegion -------------------------------------------------------


def test_default_else_region():
    region = directives.OptionalElseRegion.default_region([i32, i32])
    block = region.block
    assert block.arg_types == (i32, i32)
    assert [op.name for op in block.ops] == ["tfrt.return"]
    assert not block.last_op.operands


def test_else_region_is_always_printed():
    printed = round_trip(
        "func.func @f(%c: i1) {\n  tfrt.if %c : () -> () {\n    tfrt.return\n  }\n  tfrt.return\n}"
    )
    assert "} else {" in printed


# TypedOperandList + KeywordIntAttrs --------------------------------------


BENCH = (
    "func.func @f(%c: i32, %d: f32) {{\n"
    '  tfrt_test.benchmark "add.i32"{operands} {attrs} {{\n'
    "  ^bb0(%x: i32, %y: f32):\n    tfrt.return %x : i32\n  }}\n  tfrt.return\n}}"
)


def test_typed_operand_list_and_keyword_attrs():
    printed = round_trip(
        BENCH.format(operands="(%c : i32, %d : f32)", attrs="max_count = 100, duration_secs = 1")
    )
    assert (
        'tfrt_test.benchmark "add.i32"(%c : i32, %d : f32) duration_secs = 1, '
        "max_count = 100, num_warmup_runs = 1 {"
    ) in printed


def test_keyword_attrs_store_values_as_i32_and_keep_unknown_names():
    module = parse(
        BENCH.format(
            operands="(%c : i32, %d : f32)",
            attrs="duration_secs = 2, max_count = 3, num_warmup_runs = 4, extra = 5",
        )
    )
    bench = next(op for op in module.walk() if isinstance(op, tfrt_test.BenchmarkOp))
    assert bench.num_warmup_runs == IntegerAttr(4, i32)
    assert bench.properties["duration_secs"] == IntegerAttr(2, i32)
    assert bench.attributes["extra"] == IntegerAttr(5, i32)
    assert bench.properties["name"] == StringAttr("add.i32")


def test_keyword_attrs_reject_duplicates():
    with pytest.raises(ParseError, match="duplicate attribute 'max_count'"):
        parse(BENCH.format(operands="(%c : i32, %d : f32)", attrs="max_count = 1, max_count = 2"))


# ResultCount + OpAttrDicts -------------------------------------------------

EXEC = (
    "func.func @f(%t: !corert.tensorhandle) {{\n  %ch = tfrt.new.chain\n"
    '  %h = corert.get_op_handler %ch "cpu"\n  {line}\n  tfrt.return\n}}'
)


def _exec(line: str) -> corert.ExecuteOp:
    module = parse(EXEC.format(line=line))
    return next(op for op in module.walk() if isinstance(op, corert.ExecuteOp))


def test_result_count():
    assert len(_exec('%a, %b = corert.executeop(%h) "x"() : 2').results) == 2
    assert len(_exec('corert.executeop(%h) "x"()').results) == 0
    assert directives.ResultCount.result_types(corert.ExecuteOp, "outputs", 2) == [
        corert.TensorHandleType(),
        corert.TensorHandleType(),
    ]
    with pytest.raises(ValueError):
        directives.ResultCount.result_types(corert.ExecuteOp, "nope", 1)


def test_op_attr_dicts():
    op = _exec('%a = corert.executeop(%h) "x"(%t) {b = 1 : i32, "q r", a = "s"} {f = @g} : 1')
    assert op.op_attrs == ArrayAttr(
        [
            ArrayAttr([StringAttr("b"), IntegerAttr(1, i32)]),
            ArrayAttr([StringAttr("q r"), UnitAttr()]),
            ArrayAttr([StringAttr("a"), StringAttr("s")]),
        ]
    )
    assert len(op.op_func_attrs.data) == 1
    printed = round_trip(
        EXEC.format(line='%a = corert.executeop(%h) "x"(%t) {b = 1 : i32, "q r", a = "s"} : 1')
    )
    assert '"x"(%t) {b = 1 : i32, "q r", a = "s"} : 1' in printed


def test_op_attr_dicts_empty_op_attrs_before_func_attrs():
    printed = round_trip(EXEC.format(line='%a = corert.executeop(%h) "x"() {} {f = @f} : 1'))
    assert '"x"() {} {f = @f} : 1' in printed
    printed = round_trip(EXEC.format(line='%a = corert.executeop(%h) "x"() {} : 1'))
    assert '"x"() : 1' in printed
    assert directives.OpAttrDicts.to_array([]) == ArrayAttr([])


def test_directives_are_used_by_ops():
    used = set()
    for op in [*T.TFRT_OPS, *tfrt_test.TFRT_TEST_OPS, *corert.CORERT_OPS]:
        for directive in getattr(op, "custom_directives", ()):
            used.add(directive.__name__)
    assert used == set(directives.__all__)
