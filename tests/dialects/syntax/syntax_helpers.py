"""Shared helpers for the frontend tests: a small test dialect and comparisons."""

from __future__ import annotations

import io
from xdsl.dialects.builtin import I32, IntegerAttr, UnitAttr, i1, i32
from xdsl.ir import Dialect, Operation
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator

from tfrt.diagnostics import DiagnosticError, SourceManager
from tfrt.dialects import make_context


@irdl_op_definition
class FmtConstOp(IRDLOperation):
    """`%x = fmt.const 42`: the attribute's type is fixed, so it is not spelled."""

    name = "fmt.const"
    value = prop_def(IntegerAttr[I32])
    res = result_def(i32)
    assembly_format = "$value attr-dict"


@irdl_op_definition
class FmtAddOp(IRDLOperation):
    """`%z = fmt.add %x, %y`: operand and result types fixed by the definition."""

    name = "fmt.add"
    lhs = operand_def(i32)
    rhs = operand_def(i32)
    res = result_def(i32)
    assembly_format = "$lhs `,` $rhs attr-dict"


@irdl_op_definition
class FmtCallOp(IRDLOperation):
    """`%r = fmt.call(%a, %b) : (i32, f32) -> i32`: functional-type over variadics."""

    name = "fmt.call"
    args = var_operand_def()
    outs = var_result_def()
    assembly_format = "`(` $args `)` attr-dict `:` functional-type($args, $outs)"


@irdl_op_definition
class FmtRetOp(IRDLOperation):
    """`fmt.ret %a, %b : i32, f32`, or bare `fmt.ret`: an optional group."""

    name = "fmt.ret"
    args = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict ($args^ `:` type($args))?"


@irdl_op_definition
class FmtIfOp(IRDLOperation):
    """`%r = fmt.if %c, %a : (i32) -> (i32) { ... } attributes {...}`.

    Its region takes the non-condition operands as implicit entry-block
    arguments (named like the operands), as TFRT's `tfrt.if` does.
    """

    name = "fmt.if"
    cond = operand_def(i1)
    args = var_operand_def()
    outs = var_result_def()
    flag = opt_prop_def(UnitAttr)
    body = region_def()
    traits = traits_def(IsolatedFromAbove())
    assembly_format = (
        "$cond (`,` $args^)? (`unit` $flag^)? `:` functional-type($args, $outs) $body "
        "attr-dict-with-keyword"
    )

    @classmethod
    def implicit_region_operands(cls, num_operands: int, region_index: int) -> list[int]:
        return list(range(1, num_operands))


@irdl_op_definition
class FmtPairOp(IRDLOperation):
    """`fmt.pair [%a] [%b, %c]`: two variadic groups (AttrSizedOperandSegments)."""

    name = "fmt.pair"
    first = var_operand_def(i32)
    second = var_operand_def(i32)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = "`[` $first `]` `[` $second `]` attr-dict"


FMT = Dialect("fmt", [FmtConstOp, FmtAddOp, FmtCallOp, FmtRetOp, FmtIfOp, FmtPairOp], [])


def fmt_context(allow_unregistered: bool = False):
    ctx = make_context(allow_unregistered)
    ctx.load_dialect(FMT)
    return ctx


def strip_names(op: Operation) -> Operation:
    """Drop xDSL's name hints so printed IR compares by structure only."""
    for o in op.walk():
        for r in o.results:
            r.name_hint = None
        for region in o.regions:
            for block in region.blocks:
                for a in block.args:
                    a.name_hint = None
    return op


def generic(op: Operation, debuginfo: bool = False) -> str:
    buf = io.StringIO()
    Printer(stream=buf, print_generic_format=True, print_debuginfo=debuginfo).print_op(
        strip_names(op)
    )
    return buf.getvalue()


def xdsl_parse(text: str, ctx=None):
    return Parser(ctx or make_context(True), text, "x.mlir").parse_module()


def render(err: DiagnosticError, text: str, filename: str = "t.mlir") -> str:
    sm = SourceManager()
    sm.add(filename, text)
    return err.render(sm)
