"""The MLIR-exact printer: exact texts, SSA numbering, shadowed region
arguments, floats, the generic form, locations, and the print/parse fixed
point over many generated inputs."""

from __future__ import annotations

import math
import textwrap
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BFloat16Type,
    CallSiteLoc,
    FileLineColLoc,
    Float32Type,
    Float64Type,
    FunctionType,
    IntAttr,
    ModuleOp,
    NameLoc,
    StringAttr,
    f32,
    i1,
    i32,
)
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.traits import IsTerminator

from tfrt.dialects import make_context
from tfrt.dialects.printer import format_float, print_module
from tfrt.dialects.syntax import parse_module


def parse(text: str):
    """xDSL's own MLIR parser: an independent reader of what we print."""
    ctx = make_context(allow_unregistered=True)
    return Parser(ctx, textwrap.dedent(text), "test.mlir").parse_module()


def roundtrip(text: str, **flags) -> str:
    return print_module(parse(text), **flags)


def frontend_roundtrip(text: str, **flags) -> str:
    """The same through the project's frontend."""
    module = parse_module(textwrap.dedent(text), "test.mlir", allow_unregistered=True)
    return print_module(module, **flags)


# ---------------------------------------------------------------------------
# Exact texts


def test_module_and_functions_print_like_mlir():
    out = roundtrip(
        """
        func.func private @decl(i32) -> i32
        func.func @f(%a: i32, %b: f32) -> (i32, f32) {
          %c = arith.constant 1 : i32
          %x = arith.addi %a, %c : i32
          %r = func.call @decl(%x) : (i32) -> i32
          func.return %r, %b : i32, f32
        }
        """
    )
    assert out == textwrap.dedent(
        """\
        module {
          func.func private @decl(i32) -> i32
          func.func @f(%arg0: i32, %arg1: f32) -> (i32, f32) {
            %c1_i32 = arith.constant 1 : i32
            %0 = arith.addi %arg0, %c1_i32 : i32
            %1 = call @decl(%0) : (i32) -> i32
            return %1, %arg1 : i32, f32
          }
        }
        """
    )


def test_named_module_with_attributes_and_empty_module():
    assert roundtrip("module @m attributes {z = 1 : i32, a} {\n}") == (
        "module @m attributes {a, z = 1 : i32} {\n}\n"
    )
    assert print_module(ModuleOp([])) == "module {\n}\n"


def test_each_function_restarts_numbering_and_names_ignore_hints():
    out = roundtrip(
        """
        func.func @a(%x: i32) -> i32 {
          %named = "t.op"(%x) : (i32) -> i32
          func.return %named : i32
        }
        func.func @b(%y: i32) -> i32 {
          %other = "t.op"(%y) : (i32) -> i32
          %more = "t.op"(%other) : (i32) -> i32
          func.return %more : i32
        }
        """
    )
    assert '%0 = "t.op"(%arg0)' in out
    assert '%1 = "t.op"(%0)' in out
    assert "named" not in out and "other" not in out
    assert out.count("%arg0") == 4 and "%arg1" not in out


def test_nested_regions_continue_numbering_and_siblings_reuse_it():
    out = roundtrip(
        """
        func.func @f(%x: i32) {
          %0 = "t.a"() : () -> i32
          "t.two"() ({
            %1 = "t.in"(%0) : (i32) -> i32
            "t.inner"() ({
            ^bb0(%y: i32):
              %2 = "t.in"(%y) : (i32) -> i32
            }) : () -> ()
          }, {
            %3 = "t.in"(%x) : (i32) -> i32
          }) : () -> ()
          %4 = "t.b"() : () -> i32
          func.return
        }
        """
    )
    # The outer region numbers %0 and %1 first; both nested regions start
    # at %2, and the innermost entry argument continues the %argN count.
    assert '%2 = "t.in"(%0)' in out
    assert '%2 = "t.in"(%arg0)' in out
    assert "^bb0(%arg1: i32):" in out
    assert '%3 = "t.in"(%arg1)' in out
    assert '%1 = "t.b"()' in out


def test_multi_result_ops_and_result_uses():
    out = roundtrip(
        """
        func.func @f() -> i32 {
          %a:2 = "t.pair"() : () -> (i32, i32)
          %b = "t.use"(%a#1, %a#0) : (i32, i32) -> i32
          func.return %b : i32
        }
        """
    )
    assert '%0:2 = "t.pair"()' in out
    assert '%1 = "t.use"(%0#1, %0#0)' in out


def test_blocks_successors_and_predecessor_comments():
    out = roundtrip(
        """
        func.func @f(%c: i1, %v: i32) -> i32 {
          cf.cond_br %c, ^one(%v : i32), ^two
        ^one(%a: i32):
          cf.br ^two
        ^two:
          func.return %v : i32
        ^dead:
          func.return %v : i32
        }
        """
    )
    assert "cf.cond_br %arg0, ^bb1(%arg1 : i32), ^bb2" in out
    assert "^bb1(%0: i32):  // pred: ^bb0\n" in out
    assert "^bb2:  // 2 preds: ^bb0, ^bb1\n" in out
    assert "^bb3:  // no predecessors\n" in out


def test_arith_constant_names_follow_mlir():
    out = roundtrip(
        """
        func.func @f() {
          %a = arith.constant 0 : i32
          %b = arith.constant 0 : i32
          %c = arith.constant 1 : index
          %d = arith.constant true
          %e = arith.constant false
          %f = arith.constant 2.0 : f32
          %g = arith.constant 2.0 : f32
          %h = arith.constant -3 : i64
          %i = arith.constant 255 : i8
          %j = arith.constant dense<1> : tensor<2xi32>
          func.return
        }
        """
    )
    names = [line.split(" = ")[0].strip() for line in out.splitlines() if "arith.constant" in line]
    assert names == [
        "%c0_i32", "%c0_i32_0", "%c1", "%true", "%false", "%cst", "%cst_1",
        "%c-3_i64", "%c-1_i8", "%cst_2",
    ]
    # Signless integers print signed, as MLIR's APInt printing does.
    assert "%c-1_i8 = arith.constant -1 : i8" in out


def test_attribute_dictionaries_are_sorted_and_arrays_elide_i64():
    out = roundtrip(
        """
        "t.op"() {zeta = 1 : i32, alpha = [1, 2, 3 : i32, 2.5, 1.5 : f32],
                  mid = {b = 1, a = "s"}, flag} : () -> ()
        """
    )
    assert (
        '"t.op"() {alpha = [1, 2, 3 : i32, 2.500000e+00, 1.500000e+00 : f32], '
        'flag, mid = {a = "s", b = 1 : i64}, zeta = 1 : i32} : () -> ()'
    ) in out


def test_strings_escape_like_llvm():
    out = roundtrip('"t.op"() {s = "a\\"b\\n\\\\c"} : () -> ()')
    assert '{s = "a\\22b\\0A\\\\c"}' in out


# ---------------------------------------------------------------------------
# Floats


@pytest.mark.parametrize(
    ("value", "type_", "text"),
    [
        (0.1, Float32Type(), "1.000000e-01"),
        (0.1, Float64Type(), "1.000000e-01"),
        (1.0, Float32Type(), "1.000000e+00"),
        (0.0, Float64Type(), "0.000000e+00"),
        (-0.0, Float64Type(), "-0.000000e+00"),
        (-2.5, Float32Type(), "-2.500000e+00"),
        (1e10, Float32Type(), "1.000000e+10"),
        (1e-7, Float64Type(), "1.000000e-07"),
        (1e300, Float64Type(), "1.000000e+300"),
        (0.123456789, Float64Type(), "0.123456789"),
        (0.1234567, Float32Type(), "0.123456702"),
        (3.14159265358979, Float64Type(), "3.14159265358979"),
        (123456789.0, Float64Type(), "0x419D6F3454000000"),
        (math.inf, Float32Type(), "0x7F800000"),
        (-math.inf, Float64Type(), "0xFFF0000000000000"),
        (math.nan, Float32Type(), "0x7FC00000"),
        (1.5, BFloat16Type(), "1.500000e+00"),
    ],
)
def test_floats_print_like_apfloat(value, type_, text):
    assert format_float(value, type_) == text


def test_float_text_reads_back_to_the_same_value():
    for value in (0.1, 1 / 3, 2.0**-1074, 1.7976931348623157e308, 123.456, 9.999999e-5):
        text = format_float(value, Float64Type())
        if not text.startswith("0x"):
            assert float(text) == value


# ---------------------------------------------------------------------------
# Regions whose arguments are the op's operands


@irdl_op_definition
class _ReturnOp(IRDLOperation):
    name = "ptest.return"
    args = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "($args^ `:` type($args))? attr-dict"


@irdl_op_definition
class _IfOp(IRDLOperation):
    """`ptest.if %c, %a, %b : (...) -> (...) {then} else {else}`; both regions
    take the operands after the condition as their arguments."""

    name = "ptest.if"
    cond = operand_def(i1)
    args = var_operand_def()
    res = var_result_def()
    then_region = region_def()
    else_region = region_def()
    assembly_format = (
        "$cond (`,` $args^)? `:` functional-type($args, $res) $then_region "
        "`else` $else_region attr-dict"
    )

    @classmethod
    def implicit_region_operands(cls, num_operands: int, region_index: int) -> list[int]:
        return list(range(1, num_operands))


@irdl_op_definition
class _ForOp(IRDLOperation):
    """Like tfrt.parallel_for.i32: the region takes operands 0, 1 and 3.."""

    name = "ptest.for"
    args = var_operand_def()
    body = var_region_def()
    assembly_format = "$args `:` type($args) $body attr-dict"

    @classmethod
    def implicit_region_operands(cls, num_operands: int, region_index: int) -> list[int]:
        return [0, 1, *range(3, num_operands)]


def _if_module() -> ModuleOp:
    entry = Block(arg_types=[i1, i32, f32])
    cond, a, b = entry.args

    def branch(pick: int) -> Region:
        block = Block(arg_types=[i32, f32])
        inner_then = Block(arg_types=[i32])
        inner_then.add_op(_ReturnOp.create(operands=[inner_then.args[0]]))
        inner_else = Block(arg_types=[i32])
        inner_else.add_op(_ReturnOp.create(operands=[inner_else.args[0]]))
        inner = _IfOp.create(
            operands=[cond, block.args[0]],
            result_types=[i32],
            regions=[Region(inner_then), Region(inner_else)],
        )
        block.add_op(inner)
        block.add_op(_ReturnOp.create(operands=[inner.results[0], block.args[1]]))
        return Region(block)

    outer = _IfOp.create(
        operands=[cond, a, b], result_types=[i32, f32], regions=[branch(0), branch(1)]
    )
    entry.add_op(outer)
    entry.add_op(func.ReturnOp(outer.results[0]))
    fn = func.FuncOp("f", FunctionType.from_lists([i1, i32, f32], [i32]), Region(entry))
    return ModuleOp([fn])


def test_region_arguments_take_the_operand_names():
    out = print_module(_if_module())
    assert out == textwrap.dedent(
        """\
        module {
          func.func @f(%arg0: i1, %arg1: i32, %arg2: f32) -> i32 {
            %0:2 = ptest.if %arg0, %arg1, %arg2 : (i32, f32) -> (i32, f32) {
              %1 = ptest.if %arg0, %arg1 : (i32) -> i32 {
                ptest.return %arg1 : i32
              } else {
                ptest.return %arg1 : i32
              }
              ptest.return %1, %arg2 : i32, f32
            } else {
              %1 = ptest.if %arg0, %arg1 : (i32) -> i32 {
                ptest.return %arg1 : i32
              } else {
                ptest.return %arg1 : i32
              }
              ptest.return %1, %arg2 : i32, f32
            }
            return %0#0 : i32
          }
        }
        """
    )


def test_generic_form_keeps_the_region_arguments():
    out = print_module(_if_module(), generic=True)
    assert "^bb0(%arg3: i32, %arg4: f32):" in out
    assert '%1 = "ptest.if"(%arg0, %arg3) ({' in out
    assert "^bb0(%arg5: i32):" in out


def test_shadowed_names_follow_result_numbers_and_operand_order():
    entry = Block(arg_types=[])
    values = func.CallOp("g", [], [i32, i32, i32, i32])
    body = Block(arg_types=[i32, i32, i32])
    body.add_op(_ReturnOp.create(operands=[body.args[2], body.args[0]]))
    loop = _ForOp.create(operands=list(values.results), regions=[Region(body)])
    entry.add_ops([values, loop, func.ReturnOp()])
    fn = func.FuncOp("f", FunctionType.from_lists([], []), Region(entry))
    out = print_module(ModuleOp([fn]))
    assert "ptest.for %0#0, %0#1, %0#2, %0#3 : i32, i32, i32, i32 {" in out
    assert "ptest.return %0#3, %0#0 : i32, i32" in out


@irdl_op_definition
class _GroupsOp(IRDLOperation):
    """Results split into groups, as MLIR's getAsmResultNames splits them."""

    name = "ptest.groups"
    res = var_result_def()
    assembly_format = "attr-dict `:` type($res)"

    def asm_result_names(self) -> list[str | None]:
        # result 0 alone, results 1-2 a numbered group, result 3 named.
        return [None, "", None, "tail"][: len(self.results)]


def test_result_groups_from_asm_result_names():
    entry = Block()
    op = _GroupsOp.create(result_types=[i32, i32, i32, i32])
    use = _ReturnOp.create(operands=list(op.results))
    entry.add_ops([op, use])
    fn = func.FuncOp("f", FunctionType.from_lists([], []), Region(entry))
    entry.add_op(func.ReturnOp())
    out = print_module(ModuleOp([fn]))
    # MLIR numbers the named groups first, then result 0.
    assert "%1, %0:2, %tail = ptest.groups : i32, i32, i32, i32" in out
    assert "ptest.return %1, %0#0, %0#1, %tail : i32, i32, i32, i32" in out
    generic = print_module(ModuleOp([fn.clone()]), generic=True)
    assert '%0:4 = "ptest.groups"()' in generic


@irdl_op_definition
class _OdsNamesOp(IRDLOperation):
    """Two named result definitions, the second variadic, like
    corert.executeop.seq's (out_op_chain, results)."""

    name = "ptest.ods_names"
    first = result_def(i32)
    rest = var_result_def(i32)
    ASM_RESULT_NAMES: ClassVar[tuple[str, ...]] = ("first", "rest")
    assembly_format = "attr-dict `:` type($rest)"


def test_ods_result_names_name_each_result_definition():
    entry = Block()
    one = _OdsNamesOp.create(result_types=[i32, i32])
    three = _OdsNamesOp.create(result_types=[i32, i32, i32])
    alone = _OdsNamesOp.create(result_types=[i32])
    plain = func.CallOp("g", [], [i32])
    use = _ReturnOp.create(operands=[*one.results, *three.results, *alone.results, *plain.results])
    entry.add_ops([one, three, alone, plain, use, func.ReturnOp()])
    fn = func.FuncOp("f", FunctionType.from_lists([], []), Region(entry))
    out = print_module(ModuleOp([fn]))
    assert "%first, %rest = ptest.ods_names : i32" in out
    assert "%first_0, %rest_1:2 = ptest.ods_names : i32, i32" in out
    assert "%first_2 = ptest.ods_names" in out
    # Named results take no numbers: the next plain result is %0.
    assert "%0 = call @g() : () -> i32" in out
    assert "ptest.return %first, %rest, %first_0, %rest_1#0, %rest_1#1, %first_2, %0 :" in out


# ---------------------------------------------------------------------------
# Generic form and locations


def test_generic_form_layout():
    out = roundtrip(
        """
        func.func @f(%c: i1) -> i32 {
          %0 = arith.constant 3 : i32
          cf.cond_br %c, ^a, ^a
        ^a:
          func.return %0 : i32
        }
        """,
        generic=True,
    )
    assert out == textwrap.dedent(
        """\
        "builtin.module"() ({
          "func.func"() <{function_type = (i1) -> i32, sym_name = "f"}> ({
          ^bb0(%arg0: i1):
            %0 = "arith.constant"() <{value = 3 : i32}> : () -> i32
            "cf.cond_br"(%arg0)[^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
          ^bb1:  // 2 preds: ^bb0, ^bb0
            "func.return"(%0) : (i32) -> ()
          }) : () -> ()
        }) : () -> ()
        """
    )


def test_debuginfo_prints_locations_inline():
    entry = Block(arg_types=[i32])
    ret = func.ReturnOp(entry.args[0])
    file_loc = FileLineColLoc(StringAttr("a.mlir"), IntAttr(3), IntAttr(5))
    call_loc = FileLineColLoc(StringAttr("b.mlir"), IntAttr(7), IntAttr(1))
    ret.location = CallSiteLoc(file_loc, call_loc)
    entry.add_op(ret)
    fn = func.FuncOp("f", FunctionType.from_lists([i32], [i32]), Region(entry))
    fn.location = NameLoc(StringAttr("fn"), file_loc)
    entry.args[0].location = file_loc
    out = print_module(ModuleOp([fn]), debuginfo=True)
    assert 'func.func @f(%arg0: i32 loc("a.mlir":3:5)) -> i32 {' in out
    assert 'return %arg0 : i32 loc(callsite("a.mlir":3:5 at "b.mlir":7:1))' in out
    assert '} loc("fn"("a.mlir":3:5))' in out
    assert out.endswith("} loc(unknown)\n")


# ---------------------------------------------------------------------------
# Printing is a fixed point


FIXED_POINT_INPUTS = [
    """
    func.func @f(%a: i32) -> i32 {
      %0 = arith.constant 1 : i32
      %1 = arith.addi %a, %0 : i32
      func.return %1 : i32
    }
    """,
    """
    module @named {
      func.func private @g(i32, f64) -> (i32, f64)
      func.func nested @h() -> ((i32) -> i32)
    }
    """,
    """
    "t.top"() ({
      %0:3 = "t.three"() {k = [1.0, -2.5e-3, 7 : i8]} : () -> (i32, i1, f32)
      "t.nested"() ({
        %1 = "t.fwd"(%0#0) : (i32) -> i32
        %2 = "t.fwd"(%1) : (i32) -> i32
      }) : () -> ()
    }, {
    ^bb0(%x: i32, %y: i32):
      "t.br"(%x)[^bb1] : (i32) -> ()
    ^bb1(%z: i32):
      "t.end"() : () -> ()
    }) : () -> ()
    """,
    """
    func.func @consts() {
      %a = arith.constant 0.1 : f32
      %b = arith.constant 0.1 : f64
      %c = arith.constant 1.0e-300 : f64
      %d = arith.constant 0x7F800000 : f32
      %e = arith.constant dense<[1.5, 2.0]> : tensor<2xf32>
      %f = arith.constant dense<7> : tensor<2x2xi64>
      %g = arith.constant -128 : i8
      func.return
    }
    """,
]


@pytest.mark.parametrize("text", FIXED_POINT_INPUTS)
@pytest.mark.parametrize("generic", [False, True])
def test_printing_is_a_fixed_point(text, generic):
    first = roundtrip(text, generic=generic)
    second = roundtrip(first, generic=generic)
    assert second == first
    if not generic:
        # The generic text of the custom text is the generic text.
        assert roundtrip(first, generic=True) == roundtrip(text, generic=True)


@st.composite
def _random_module(draw) -> str:
    """Random modules of unregistered ops: nested regions, blocks and
    branches, multi-result ops, forward uses in graph regions."""
    lines: list[str] = []
    counter = [0]

    def fresh() -> str:
        counter[0] += 1
        return f"%v{counter[0]}"

    def region(depth: int, scope: list[str], indent: str, entry_args: bool = True) -> None:
        nblocks = draw(st.integers(1, 3))
        labels = [f"^b{counter[0]}_{i}" for i in range(nblocks)]
        counter[0] += 1
        for bi, label in enumerate(labels):
            local = list(scope)
            nargs = draw(st.integers(0, 2)) if (bi or entry_args) else 0
            args = [fresh() for _ in range(nargs)]
            if args or bi:
                arg_text = ", ".join(f"{a}: i32" for a in args)
                lines.append(f"{indent}{label}({arg_text}):" if args else f"{indent}{label}:")
            local += args
            for _ in range(draw(st.integers(0, 3))):
                nres = draw(st.integers(0, 3))
                ops = draw(st.lists(st.sampled_from(local), max_size=3)) if local else []
                results = [fresh() for _ in range(nres)] if nres else []
                res_text = ""
                if nres == 1:
                    res_text = f"{results[0]} = "
                elif nres > 1:
                    base = fresh()
                    res_text = f"{base}:{nres} = "
                    results = [f"{base}#{i}" for i in range(nres)]
                op_text = ", ".join(ops)
                types = ", ".join("i32" for _ in ops)
                out_types = ", ".join("i32" for _ in range(nres))
                attr = draw(st.sampled_from(["", " {b = 2 : i32, a = 1.5 : f32}", " {s = \"x\"}"]))
                if depth < 2 and draw(st.booleans()):
                    lines.append(f'{indent}{res_text}"t.nest"({op_text}) ({{')
                    # An op's results do not dominate its own regions.
                    region(depth + 1, local, indent + "  ")
                    lines.append(f"{indent}}}){attr} : ({types}) -> ({out_types})")
                else:
                    lines.append(f'{indent}{res_text}"t.op"({op_text}){attr} : ({types}) -> ({out_types})')
                local += results
            if bi + 1 < nblocks:
                target = labels[bi + 1]
                lines.append(f'{indent}"t.br"()[{target}] : () -> ()'
                             if not draw(st.booleans()) else
                             f'{indent}"t.br2"()[{target}, {labels[-1]}] : () -> ()')
                # The next block's arguments are not passed by these branches,
                # which the generic form allows for unregistered ops.
            else:
                lines.append(f'{indent}"t.end"() : () -> ()')

    nfuncs = draw(st.integers(1, 3))
    for fi in range(nfuncs):
        nargs = draw(st.integers(0, 3))
        params = [fresh() for _ in range(nargs)]
        sig = ", ".join(f"{p}: i32" for p in params)
        lines.append(f"func.func @f{fi}({sig}) {{")
        region(0, params, "  ", entry_args=False)
        # A func body must end in a func terminator.
        end_line = lines.pop()
        assert end_line.strip() == '"t.end"() : () -> ()'
        lines.append("  func.return")
        lines.append("}")
    return "\n".join(lines) + "\n"


@pytest.mark.slow  # a fuzz run: pytest -m slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_random_module())
def test_random_modules_print_to_a_fixed_point(text):
    for generic in (False, True):
        first = roundtrip(text, generic=generic)
        assert roundtrip(first, generic=generic) == first


@pytest.mark.parametrize("text", FIXED_POINT_INPUTS)
@pytest.mark.parametrize("generic", [False, True])
def test_frontend_and_printer_reach_the_same_fixed_point(text, generic):
    first = frontend_roundtrip(text, generic=generic)
    assert first == roundtrip(text, generic=generic)
    assert frontend_roundtrip(first, generic=generic) == first


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_random_module())
def test_random_modules_through_the_frontend(text):
    for generic in (False, True):
        first = frontend_roundtrip(text, generic=generic)
        assert frontend_roundtrip(first, generic=generic) == first
