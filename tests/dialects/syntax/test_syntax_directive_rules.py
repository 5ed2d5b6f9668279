"""The lark side of every ``custom<...>`` directive in tfrt.dialects.directives."""

from __future__ import annotations

import pytest
from syntax_helpers import generic, xdsl_parse
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, UnitAttr, i32
from xdsl.irdl.declarative_assembly_format import CustomDirective

from tfrt.dialects import directives, make_context
from tfrt.dialects.syntax import parse_module
from tfrt.dialects.syntax.directive_rules import RULES, project_directives


def ops_of(module, name):
    return [op for op in module.walk() if op.name == name]


def test_every_project_directive_has_a_rule():
    classes = {
        n
        for n, c in vars(directives).items()
        if isinstance(c, type) and issubclass(c, CustomDirective) and c is not CustomDirective
    }
    assert classes
    assert classes == set(project_directives())
    assert classes <= set(RULES), classes - set(RULES)


def test_paren_function_type_and_optional_else_region():
    src = (
        "func.func @f(%c: i1, %a: i32, %b: i32) -> i32 {\n"
        "  %r = tfrt.if %c, %a, %b : (i32, i32) -> (i32) {\n"
        "    tfrt.return %a : i32\n"
        "  } else {\n"
        "    tfrt.return %b : i32\n"
        "  }\n"
        "  tfrt.if %c : () -> () {\n"
        "    tfrt.return\n"
        "  }\n"
        "  %s = tfrt.if %c, %a : (i32) -> i32 {\n"
        "    tfrt.return %a : i32\n"
        "  } else {\n"
        "    tfrt.return %a : i32\n"
        "  }\n"
        "  tfrt.return %r : i32\n"
        "}\n"
    )
    m = parse_module(src, ctx=make_context())
    first, second, third = ops_of(m, "tfrt.if")
    assert [str(t) for t in first.result_types] == ["i32"]
    then_block = first.regions[0].block
    else_block = first.regions[1].block
    assert then_block.last_op.operands[0] is then_block.args[0]  # %a inside is the arg
    assert else_block.last_op.operands[0] is else_block.args[1]  # %b inside is the arg
    # A missing else is the directive's default region: one block, a bare tfrt.return.
    assert second.regions[1].block.last_op.name == "tfrt.return"
    assert not second.regions[1].block.last_op.operands
    assert len(third.result_types) == 1  # `-> i32` without parentheses is accepted


def test_typed_operand_list_and_keyword_int_attrs():
    src = (
        "func.func @f(%n: i32) {\n"
        '  tfrt_test.benchmark "bm"(%n : i32) duration_secs = 1, max_count = 100, '
        "num_warmup_runs = 10 {\n"
        "    %x = tfrt.add.i32 %n, %n\n"
        "    tfrt.return %x : i32\n"
        "  }\n"
        '  tfrt_test.benchmark "bm2"() max_count = 5, duration_secs = 2, extra = 3 {\n'
        "    %c = tfrt.new.chain\n"
        "    tfrt.return %c : !tfrt.chain\n"
        "  }\n"
        "  tfrt.return\n"
        "}\n"
    )
    m = parse_module(src, ctx=make_context())
    bm, bm2 = ops_of(m, "tfrt_test.benchmark")
    assert bm.properties["name"] == StringAttr("bm")
    assert bm.properties["num_warmup_runs"] == IntegerAttr(10, i32)
    assert bm.regions[0].block.first_op.operands[0] is bm.regions[0].block.args[0]
    assert bm2.properties["max_count"] == IntegerAttr(5, i32)
    assert bm2.attributes["extra"] == IntegerAttr(3, i32)
    assert "num_warmup_runs" in bm2.properties  # the declared default is stored


def test_keyword_int_attrs_rejects_duplicates():
    src = (
        "func.func @f() {\n"
        '  tfrt_test.benchmark "bm"() duration_secs = 1, duration_secs = 2, max_count = 1 {\n'
        "    %c = tfrt.new.chain\n"
        "    tfrt.return %c : !tfrt.chain\n"
        "  }\n"
        "  tfrt.return\n"
        "}\n"
    )
    from tfrt.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError, match="duplicate attribute 'duration_secs'"):
        parse_module(src, ctx=make_context())


def test_op_attr_dicts_and_result_count():
    src = (
        "func.func @f(%h: !corert.ophandler, %x: !corert.tensorhandle) {\n"
        '  %r = corert.executeop(%h) "tf.Add"(%x, %x) {T = f32, flag} : 1\n'
        '  %a, %b = corert.executeop(%h) "tf.Two"(%x) {} {fn = @f} : 2\n'
        '  corert.executeop(%h) "tf.None"()\n'
        "  tfrt.return\n"
        "}\n"
    )
    m = parse_module(src, ctx=make_context(), verify=False)
    one, two, none = ops_of(m, "corert.executeop")
    assert len(one.results) == 1 and len(two.results) == 2 and not none.results
    attrs = one.properties["op_attrs"]
    assert isinstance(attrs, ArrayAttr)
    assert [e.data[0].data for e in attrs.data] == ["T", "flag"]
    assert attrs.data[1].data[1] == UnitAttr()
    assert two.properties["op_attrs"] == ArrayAttr([])
    assert two.properties["op_func_attrs"].data[0].data[0] == StringAttr("fn")


def test_directive_ops_match_xdsls_own_parser():
    # xDSL's parser runs the directives' parse(); ours their lark rules.
    src = (
        "func.func @f(%h: !corert.ophandler, %x: !corert.tensorhandle, %n: i32) {\n"
        '  %r = corert.executeop(%h) "tf.Add"(%x, %x) {T = f32} : 1\n'
        '  tfrt_test.benchmark "bm"(%n : i32) duration_secs = 1, max_count = 100 {\n'
        "  ^bb0(%m: i32):\n"
        "    tfrt.return %m : i32\n"
        "  }\n"
        "  tfrt.return\n"
        "}\n"
    )
    ours = parse_module(src, ctx=make_context(), verify=False)
    theirs = xdsl_parse(src, make_context())
    assert generic(ours) == generic(theirs)
