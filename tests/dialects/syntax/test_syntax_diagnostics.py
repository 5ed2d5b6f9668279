"""Bad input gives MLIR-style diagnostics: exact message, position and caret."""

from __future__ import annotations

import pytest
from syntax_helpers import fmt_context, render

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects.syntax import parse_module


def diag(src: str, *, ctx=None, allow_unregistered=False) -> str:
    ctx = ctx or fmt_context(allow_unregistered)
    with pytest.raises(DiagnosticError) as info:
        parse_module(src, "t.mlir", ctx=ctx, allow_unregistered=allow_unregistered)
    return render(info.value, src)


def test_syntax_error_names_the_token_and_what_was_expected():
    src = "func.func @f(%x: i32) {\n  %y = fmt.add %x %x\n  fmt.ret\n}\n"
    assert diag(src) == (
        "t.mlir:2:19: error: unexpected SSA value '%x'; expected one of: ','\n"
        "  %y = fmt.add %x %x\n"
        "                  ^\n"
    )


def test_op_name_where_a_value_was_expected_is_named():
    src = "func.func @f(%x: i32) {\n  %y = fmt.add %x, fmt.const 1\n  fmt.ret\n}\n"
    assert diag(src) == (
        "t.mlir:2:20: error: unexpected operation 'fmt.const'; expected one of: SSA value\n"
        "  %y = fmt.add %x, fmt.const 1\n"
        "                   ^\n"
    )


def test_missing_closing_paren():
    src = "func.func @f(%x: i32] {\n}\n"
    assert diag(src).startswith(
        "t.mlir:1:21: error: unexpected ']'; expected one of: ')', ',', 'loc', '{'"
    )


def test_unexpected_end_of_input():
    src = "func.func @f() {\n  fmt.ret\n"
    assert diag(src) == (
        "t.mlir:3:1: error: unexpected end of input; expected one of: '}', block label, "
        "an operation\n"
        "\n"
        "^\n"
    )


def test_undeclared_value():
    src = "func.func @f() {\n  %y = fmt.add %nope, %nope\n  fmt.ret\n}\n"
    assert diag(src) == (
        "t.mlir:2:16: error: use of undeclared SSA value name '%nope'\n"
        "  %y = fmt.add %nope, %nope\n"
        "               ^\n"
    )


def test_redefinition():
    src = "func.func @f(%x: i32) {\n  %x = fmt.const 1\n  fmt.ret\n}\n"
    assert diag(src) == (
        "t.mlir:2:3: error: redefinition of SSA value '%x'\n"
        "  %x = fmt.const 1\n"
        "  ^\n"
        "t.mlir:1:14: note: previously defined here\n"
        "func.func @f(%x: i32) {\n"
        "             ^\n"
    )


def test_type_mismatch_with_prior_forward_use():
    src = (
        "func.func @f() {\n"
        '  "t.use"(%v) : (i32) -> ()\n'
        '  "t.use2"(%v) : (!tfrt.chain) -> ()\n'
        "  %v = fmt.const 1\n"
        "  fmt.ret\n"
        "}\n"
    )
    assert diag(src, allow_unregistered=True) == (
        "t.mlir:3:12: error: use of value '%v' expects different type than prior uses: "
        "'!tfrt.chain' vs 'i32'\n"
        '  "t.use2"(%v) : (!tfrt.chain) -> ()\n'
        "           ^\n"
        "t.mlir:2:11: note: prior use here\n"
        '  "t.use"(%v) : (i32) -> ()\n'
        "          ^\n"
    )


def test_type_mismatch_with_definition():
    src = "func.func @f(%a: f32) {\n  %y = fmt.add %a, %a\n  fmt.ret\n}\n"
    assert diag(src) == (
        "t.mlir:2:16: error: use of value '%a' expects different type than prior uses: "
        "'i32' vs 'f32'\n"
        "  %y = fmt.add %a, %a\n"
        "               ^\n"
        "t.mlir:1:14: note: prior use here\n"
        "func.func @f(%a: f32) {\n"
        "             ^\n"
    )


def test_forward_use_then_definition_of_another_type():
    src = (
        "func.func @f() {\n"
        "  %s = fmt.add %u, %u\n"
        '  %u = "t.chain"() : () -> !tfrt.chain\n'
        "  fmt.ret\n"
        "}\n"
    )
    assert diag(src, allow_unregistered=True).startswith(
        "t.mlir:3:3: error: definition of SSA value '%u' has type '!tfrt.chain'\n"
    )


def test_wrong_number_of_results_bound():
    src = "func.func @f() {\n  %a, %b = fmt.const 1\n  fmt.ret\n}\n"
    assert diag(src) == (
        "t.mlir:2:3: error: operation defines 1 results but was provided 2 to bind\n"
        "  %a, %b = fmt.const 1\n"
        "  ^\n"
    )


def test_result_group_count():
    src = 'func.func @f() {\n  %a:3 = "t.two"() : () -> (i1, i1)\n  fmt.ret\n}\n'
    assert "operation defines 2 results but was provided 3 to bind" in diag(
        src, allow_unregistered=True
    )


def test_unregistered_generic_op():
    src = '"foo.bar"() : () -> ()\n'
    assert diag(src) == (
        "t.mlir:1:1: error: unregistered operation 'foo.bar' found in dialect ('foo') "
        "that does not allow unknown operations\n"
        '"foo.bar"() : () -> ()\n'
        "^\n"
    )


def test_unknown_custom_op():
    src = "func.func @f() {\n  foo.bar %x\n}\n"
    assert diag(src, allow_unregistered=True) == (
        "t.mlir:2:3: error: custom op 'foo.bar' is unknown\n  foo.bar %x\n  ^\n"
    )


def test_registered_op_without_custom_form():
    src = "func.func @f() {\n  tfrt_sht.create_tensor\n}\n"
    assert "custom op 'tfrt_sht.create_tensor' has no custom assembly format" in diag(src)


def test_unknown_dialect_type():
    msg = diag(
        '"func.func"() <{sym_name = "f", function_type = () -> !nodialect.t}> ({}) : () -> ()\n'
    )
    assert msg.startswith("t.mlir:1:55: error: dialect 'nodialect' is not registered")


def test_unknown_attribute_alias():
    src = '"t.op"() {a = #undefined} : () -> ()\n'
    assert diag(src, allow_unregistered=True) == (
        "t.mlir:1:15: error: undefined symbol alias id 'undefined'\n"
        '"t.op"() {a = #undefined} : () -> ()\n'
        "              ^\n"
    )


def test_verifier_failure_is_located():
    src = (
        "func.func @f() {\n"
        "  %c = fmt.const 1\n"
        '  %x = "fmt.add"(%c, %c) : (i32, i32) -> f32\n'
        "  fmt.ret\n"
        "}\n"
    )
    msg = diag(src)
    assert msg.startswith("t.mlir:3:3: error: 'fmt.add' op ")
    assert "f32" in msg.splitlines()[0]
    assert msg.splitlines()[-1] == "  ^"


def test_use_before_definition_in_a_block():
    src = "func.func @f() {\n  %a = fmt.add %b, %b\n  %b = fmt.const 2\n  fmt.ret\n}\n"
    assert diag(src) == (
        "t.mlir:2:3: error: 'fmt.add' op operand #0 does not dominate this use\n"
        "  %a = fmt.add %b, %b\n"
        "  ^\n"
        "t.mlir:3:3: note: operand defined here\n"
        "  %b = fmt.const 2\n"
        "  ^\n"
    )


def test_use_of_own_result_in_nested_region_does_not_dominate():
    src = (
        "func.func @f() {\n"
        '  %a = "t.wrap"() ({\n'
        '    "t.use"(%a) : (i32) -> ()\n'
        "  }) : () -> i32\n"
        "  fmt.ret\n"
        "}\n"
    )
    assert "'t.use' op operand #0 does not dominate this use" in diag(src, allow_unregistered=True)


def test_isolated_region_cannot_see_outer_values():
    src = (
        "func.func @f(%c: i1, %a: i32) {\n"
        "  %r = fmt.if %c : () -> (i32) {\n"
        "    fmt.ret %a : i32\n"
        "  }\n"
        "  fmt.ret\n"
        "}\n"
    )
    assert diag(src).startswith("t.mlir:3:13: error: use of undeclared SSA value name '%a'")


def test_a_rewrite_that_breaks_isolation_is_caught_by_the_verifier():
    # The parser's name scoping keeps text from doing this; a pass could.
    from xdsl.traits import IsolatedFromAbove

    from tfrt.dialects.syntax import verify_module
    from tfrt.dialects.syntax import verify as V

    src = (
        '%outer = "t.def"() : () -> i32\n'
        "func.func @f(%c: i1, %a: i32) {\n"
        '  "t.use"(%a) : (i32) -> ()\n'
        "  fmt.if %c, %a : (i32) -> () {\n"
        '    "t.use"(%a) : (i32) -> ()\n'
        "    fmt.ret\n"
        "  }\n"
        "  fmt.ret\n"
        "}\n"
    )
    module = parse_module(src, "t.mlir", ctx=fmt_context(True), allow_unregistered=True)
    outer, func = list(module.body.block.ops)
    top_use, if_op, _ = list(func.body.block.ops)
    inner_use = next(iter(if_op.body.block.ops))

    def error() -> str:
        with pytest.raises(DiagnosticError) as info:
            verify_module(module)
        assert not V._claimed()  # nothing left claimed after the error
        return render(info.value, src)

    top_use.operands = [outer.results[0]]  # a module-level value in a function
    assert error().startswith("t.mlir:2:1: error: 'func.func' op ")
    assert "IsolatedFromAbove" in error()
    with pytest.raises(Exception, match="IsolatedFromAbove"):
        IsolatedFromAbove().verify(func)  # the trait checks outside verify_module too
    top_use.operands = [func.body.block.args[1]]
    verify_module(module)
    inner_use.operands = [func.body.block.args[1]]  # the function's %a, inside fmt.if
    assert error().startswith("t.mlir:4:3: error: 'fmt.if' op ")
    inner_use.operands = [if_op.body.block.args[0]]
    verify_module(module)


def test_undefined_block():
    src = 'func.func @f() {\n  "t.br"()[^nowhere] : () -> ()\n}\n'
    assert "reference to an undefined block '^nowhere'" in diag(src, allow_unregistered=True)


def test_unterminated_string():
    src = '"t.op"() {a = "abc} : () -> ()\n'
    assert diag(src, allow_unregistered=True).startswith("t.mlir:1:15: error: unterminated string")


def test_duplicate_dictionary_key():
    src = '"t.op"() {a = 1, a = 2} : () -> ()\n'
    assert "duplicate key 'a'" in diag(src, allow_unregistered=True)


def test_operand_type_count_in_generic_form():
    src = 'func.func @f(%a: i32) {\n  "t.op"(%a, %a) : (i32) -> ()\n  fmt.ret\n}\n'
    assert "expected 2 operand types but had 1" in diag(src, allow_unregistered=True)


def test_operand_and_type_counts_must_agree_in_custom_form():
    src = (
        "func.func @f(%c: i1, %a: i32) -> i32 {\n"
        "  %z = fmt.if %c, %a, %a : (i32) -> (i32) {\n"
        "    fmt.ret %a : i32\n"
        "  }\n"
        "  fmt.ret %z : i32\n"
        "}\n"
    )
    assert diag(src).startswith("t.mlir:2:19: error: 2 operands present, but expected 1\n")


_DIAMOND = (
    "func.func @f(%c: i1) -> i32 {{\n"
    '  "cf.cond_br"(%c)[^bb1, ^bb2] <{{operandSegmentSizes = array<i32: 1, 0, 0>}}> : (i1) -> ()\n'
    "^bb1:\n"
    '  %x = "arith.constant"() <{{value = 1 : i32}}> : () -> i32\n'
    '  "cf.br"()[^bb3] : () -> ()\n'
    "^bb2:\n"
    '  "cf.br"()[^bb3] : () -> ()\n'
    "^bb3:\n"
    "  {use}\n"
    "}}\n"
)


def test_value_from_one_branch_does_not_dominate_the_join():
    src = _DIAMOND.format(use="func.return %x : i32")
    from tfrt.dialects import make_context

    assert diag(src, ctx=make_context()) == (
        "t.mlir:9:3: error: 'func.return' op operand #0 does not dominate this use\n"
        "  func.return %x : i32\n"
        "  ^\n"
        "t.mlir:4:3: note: operand defined here\n"
        '  %x = "arith.constant"() <{value = 1 : i32}> : () -> i32\n'
        "  ^\n"
    )


def test_value_from_a_dominating_block_is_fine():
    from tfrt.dialects import make_context

    src = (
        "func.func @g() -> i32 {\n"
        '  %x = "arith.constant"() <{value = 1 : i32}> : () -> i32\n'
        '  "cf.br"()[^bb1] : () -> ()\n'
        "^bb1:\n"
        "  func.return %x : i32\n"
        "}\n"
    )
    parse_module(src, "t.mlir", ctx=make_context())


@pytest.mark.parametrize(
    "src, col",
    [
        ('"t\\.two"() : () -> ()\n', 1),  # a generic op's name
        ('"t.a"() {"k\\q" = 1} : () -> ()\n', 10),  # an attribute name
        ('"t.a"() : () -> () loc("a\\z":1:2)\n', 24),  # a location's file
        ('"t.a"() : () -> () loc("n\\z")\n', 24),  # a location's name
    ],
)
def test_bad_escapes_in_string_literals_are_diagnostics(src, col):
    out = diag(src, allow_unregistered=True)
    assert out.startswith(f"t.mlir:1:{col}: error: invalid escape sequence"), out
