"""The ``custom<...>`` directives of the ``stablehlo`` ops' custom forms (printing side).

Each class prints what StableHLO's C++ printer of the same name prints
(``AssemblyFormat.cpp`` and ``StablehloOps.cpp``); the lark frontend reads
the same text with the rule of the same name in
``tfrt.dialects.syntax.standard_ops.stablehlo``.  xDSL's own parser is not
used for these ops, so ``parse`` only reports that.

Syntax, by directive::

    HloSameOperandsAndResultType   T                    (every operand and the result have type T)
                                   | (T, ...) -> T
    HloComplexOpType               complex-tensor-type | (T, T) -> T
    HloSelectOpType                pred-type, T | (P, T, T) -> T
    HloTupleOpType                 tuple<T, ...>
    HloPairwiseOpType              %a, ... : T, ... | ()
    HloVariadicOperandWithAttribute  (%a ,)*          (each operand followed by a comma)
    HloSliceRanges                 [start:limit(:stride)?, ...]
    HloDotDimensionNumbers         (batching_dims = [..] x [..] ,)? contracting_dims = [..] x [..]
    HloPrecisionConfig             (, precision = [DEFAULT, ...])?
    HloPrecisionConfigAndAlgorithm (, precision = [..])? (, algorithm = <...>)?
    HloConvolutionDimensions       [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
    HloWindowAttributes            (stride = [..] | pad = [[lo, hi], ..] | lhs_dilate = [..]
                                    | rhs_dilate = [..] | reverse = [true, ..]) separated by commas
    HloCustomCallTarget            @target
    HloExponentMantissa            e5m10
    HloEnum                        GT                    (the case of an enum property)
    HloOptionalEnum                (, FLOAT)?
    HloConstantValue               dense<...> : tensor<...>   (the value's type is the result type)
    HloWhileHeader                 ((%iterArg = %init, ...)) (: T, ...)?
    HloReduceOperands              (%x init: %c), ...
    HloReduceApplies               (applies op-name)?    (the body is that one op)
    HloReducerArgs                 (reducer (%a: T, %b: T) ...)?   (one pair per input)
    HloReducerRegion               region?               (absent exactly when `applies` was used)
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, ComplexType, DenseArrayBase, FunctionType, TensorType
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    RegionVariable,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator

from tfrt.dialects.stablehlo_attrs import conv_dims_text, dims_text, enum_value


def _hand_parsed(name: str, parser: Parser) -> None:
    parser.raise_error(f"custom<{name}> is read by the project's frontend (tfrt.dialects.syntax), not xDSL's parser")


def _end(state: PrintingState) -> None:
    state.should_emit_space = True
    state.last_was_punctuation = False


def _types(printer: Printer, types: Sequence[Attribute]) -> None:
    printer.print_list(types, printer.print_attribute)


def print_functional(printer: Printer, ins: Sequence[Attribute], outs: Sequence[Attribute]) -> None:
    """``(A, B) -> C`` or ``(A) -> (B, C)``, as MLIR's printFunctionalType."""
    printer.print_string("(")
    _types(printer, ins)
    printer.print_string(") -> ")
    if len(outs) == 1 and not isinstance(outs[0], FunctionType):  # a function type result takes parentheses
        printer.print_attribute(outs[0])
    else:
        printer.print_string("(")
        _types(printer, outs)
        printer.print_string(")")


def _ints(attr: Attribute | None) -> tuple[int, ...]:
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    return ()


@irdl_custom_directive
class HloSameOperandsAndResultType(CustomDirective):
    """``T`` when every operand and the result have type T, else ``(T, ...) -> T``."""

    operands: TypeDirective
    results: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloSameOperandsAndResultType", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        ins = list(self.operands.get(op))
        outs = list(self.results.get(op))
        if len(outs) == 1 and all(t == outs[0] for t in ins):
            printer.print_attribute(outs[0])
        else:
            print_functional(printer, ins, outs)
        _end(state)


def real_of(t: Attribute) -> Attribute | None:
    if isinstance(t, TensorType) and isinstance(t.element_type, ComplexType):
        return TensorType(t.element_type.element_type, t.get_shape(), t.encoding)
    return None


@irdl_custom_directive
class HloComplexOpType(CustomDirective):
    """``tensor<...xcomplex<T>>`` when both operands are the real tensors of it, else functional."""

    operands: TypeDirective
    results: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloComplexOpType", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        ins = list(self.operands.get(op))
        outs = list(self.results.get(op))
        real = real_of(outs[0]) if len(outs) == 1 else None
        if real is not None and all(t == real for t in ins):
            printer.print_attribute(outs[0])
        else:
            print_functional(printer, ins, outs)
        _end(state)


@irdl_custom_directive
class HloSelectOpType(CustomDirective):
    """``P, T`` when both branches have the result type T, else functional."""

    operands: TypeDirective
    results: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloSelectOpType", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        ins = list(self.operands.get(op))
        outs = list(self.results.get(op))
        if len(ins) == 3 and len(outs) == 1 and ins[1] == outs[0] and ins[2] == outs[0]:
            printer.print_attribute(ins[0])
            printer.print_string(", ")
            printer.print_attribute(outs[0])
        else:
            print_functional(printer, ins, outs)
        _end(state)


@irdl_custom_directive
class HloTupleOpType(CustomDirective):
    """The result's tuple type (the operands have its element types)."""

    operands: TypeDirective
    result: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloTupleOpType", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_attribute(self.result.get(op)[0])
        _end(state)


@irdl_custom_directive
class HloPairwiseOpType(CustomDirective):
    """``%a, ... : T, ...`` (results of the same types) or ``()`` without operands."""

    operands: VariadicOperandVariable
    operand_types: TypeDirective
    result_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloPairwiseOpType", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        values = list(self.operands.get(op))
        if not values:
            printer.print_string("()")
        else:
            printer.print_list(values, printer.print_operand)
            printer.print_string(" : ")
            _types(printer, [v.type for v in values])
        _end(state)


@irdl_custom_directive
class HloVariadicOperandWithAttribute(CustomDirective):
    """``%a, %b,``: each operand followed by a comma (before an attribute keyword)."""

    operands: VariadicOperandVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloVariadicOperandWithAttribute", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        values = list(self.operands.get(op))
        if not values:
            return
        state.print_whitespace(printer)
        printer.print_list(values, printer.print_operand)
        printer.print_string(",")
        _end(state)


@irdl_custom_directive
class HloSliceRanges(CustomDirective):
    """``[start:limit, start:limit:stride, ...]`` (a stride of 1 is left out)."""

    start_indices: AttributeVariable
    limit_indices: AttributeVariable
    strides: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloSliceRanges", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        start = _ints(self.start_indices.get(op))
        limit = _ints(self.limit_indices.get(op))
        strides = _ints(self.strides.get(op))
        parts = []
        if len(start) == len(limit) == len(strides):
            for s, l, st in zip(start, limit, strides, strict=True):
                parts.append(f"{s}:{l}" + ("" if st == 1 else f":{st}"))
            printer.print_string("[" + ", ".join(parts) + "]")
        else:
            printer.print_string(
                f"[start_indices: {', '.join(map(str, start))}, limit_indices: {', '.join(map(str, limit))}, "
                f"strides: {', '.join(map(str, strides))}]"
            )
        _end(state)


@irdl_custom_directive
class HloDotDimensionNumbers(CustomDirective):
    """``batching_dims = [0] x [0], contracting_dims = [2] x [1]`` (batching left out when empty)."""

    dims: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloDotDimensionNumbers", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        d = self.dims.get(op)
        if d.lhs_batching_dimensions or d.rhs_batching_dimensions:
            printer.print_string(
                f"batching_dims = {dims_text(d.lhs_batching_dimensions)} x {dims_text(d.rhs_batching_dimensions)}, "
            )
        printer.print_string(
            f"contracting_dims = {dims_text(d.lhs_contracting_dimensions)} x {dims_text(d.rhs_contracting_dimensions)}"
        )
        _end(state)


def _print_precision(printer: Printer, config: Attribute | None) -> None:
    if not isinstance(config, ArrayAttr):
        return
    printer.print_string(", precision = [" + ", ".join(enum_value(a) or "?" for a in config.data) + "]")


@irdl_custom_directive
class HloPrecisionConfig(CustomDirective):
    """``, precision = [DEFAULT, DEFAULT]`` when the op has a precision config."""

    precision: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloPrecisionConfig", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        _print_precision(printer, self.precision.get(op))
        _end(state)


@irdl_custom_directive
class HloPrecisionConfigAndAlgorithm(CustomDirective):
    """``, precision = [..]`` and ``, algorithm = <...>``, each when present."""

    precision: AttributeVariable
    algorithm: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloPrecisionConfigAndAlgorithm", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        _print_precision(printer, self.precision.get(op))
        algorithm = self.algorithm.get(op)
        if algorithm is not None:
            printer.print_string(", algorithm = ")
            algorithm.print_parameters(printer)
        _end(state)


@irdl_custom_directive
class HloConvolutionDimensions(CustomDirective):
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]``"""

    dims: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloConvolutionDimensions", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(conv_dims_text(self.dims.get(op)))
        _end(state)


@irdl_custom_directive
class HloWindowAttributes(CustomDirective):
    """``stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]``"""

    window_strides: AttributeVariable
    padding: AttributeVariable
    lhs_dilation: AttributeVariable
    rhs_dilation: AttributeVariable
    window_reversal: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloWindowAttributes", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        from tfrt.dialects.stablehlo import padding_pairs

        parts = []
        strides = self.window_strides.get(op)
        if strides is not None:
            parts.append("stride = [" + ", ".join(map(str, _ints(strides))) + "]")
        if op.properties.get("padding") is not None:
            pairs = padding_pairs(op) or ()
            parts.append("pad = [" + ", ".join(f"[{lo}, {hi}]" for lo, hi in pairs) + "]")
        for key, attr in (("lhs_dilate", self.lhs_dilation.get(op)), ("rhs_dilate", self.rhs_dilation.get(op))):
            if attr is not None:
                parts.append(f"{key} = [" + ", ".join(map(str, _ints(attr))) + "]")
        rev = self.window_reversal.get(op)
        if rev is not None:
            parts.append("reverse = [" + ", ".join("true" if v else "false" for v in rev.get_values()) + "]")
        printer.print_string(", ".join(parts))
        _end(state)


@irdl_custom_directive
class HloCustomCallTarget(CustomDirective):
    """``@target``: the call_target_name as a symbol."""

    target: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloCustomCallTarget", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_symbol_name(self.target.get(op).data)
        _end(state)


@irdl_custom_directive
class HloString(CustomDirective):
    """A string property as a string literal (``"my.op"``)."""

    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloString", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string_literal(self.value.get(op).data)
        _end(state)


@irdl_custom_directive
class HloExponentMantissa(CustomDirective):
    """``e5m10``"""

    exponent: AttributeVariable
    mantissa: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloExponentMantissa", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(f"e{self.exponent.get(op).value.data}m{self.mantissa.get(op).value.data}")
        _end(state)


@irdl_custom_directive
class HloEnum(CustomDirective):
    """The case name of an enum property (``GT``)."""

    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloEnum", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(enum_value(self.value.get(op)) or "?")
        _end(state)


@irdl_custom_directive
class HloOptionalEnum(CustomDirective):
    """``, FLOAT`` when the optional enum property is present."""

    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloOptionalEnum", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        value = enum_value(self.value.get(op))
        if value is not None:
            printer.print_string(f", {value}")
            _end(state)


@irdl_custom_directive
class HloConstantValue(CustomDirective):
    """The constant's value with its type (``dense<1.0> : tensor<f32>``)."""

    value: AttributeVariable
    result: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloConstantValue", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value.get(op))
        _end(state)


@irdl_custom_directive
class HloWhileHeader(CustomDirective):
    """``(%iterArg = %init, ...) : T, ...``: binds both regions' arguments."""

    operands: VariadicOperandVariable
    operand_types: TypeDirective
    result_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloWhileHeader", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        self.print_header(printer, op)
        _end(state)

    @staticmethod
    def print_header(printer: Printer, op: IRDLOperation) -> None:
        values = list(op.operands)
        args = list(op.body.blocks[0].args) if op.body.blocks else []
        printer.print_string("(")
        for i, v in enumerate(values):
            if i:
                printer.print_string(", ")
            if i < len(args):
                printer.print_ssa_value(args[i])
            printer.print_string(" = ")
            printer.print_operand(v)
        printer.print_string(")")
        if values:
            printer.print_string(" : ")
            _types(printer, [v.type for v in values])


# ---------------------------------------------------------------- reduce


def compact_reduce_op(op: IRDLOperation) -> str | None:
    """The name of the single op the reduce body applies, if the compact form can say it.

    StableHLO's rule: the body is one commutative binary ``stablehlo`` op
    without regions whose operands are the block arguments in order, whose
    operand and result types are all the 0-d tensor of the first input's
    element type, and whose result the return returns."""
    from tfrt.dialects.stablehlo import COMMUTATIVE_BINARY

    body = op.regions[0]
    if len(body.blocks) != 1:
        return None
    block = body.blocks[0]
    ops = list(block.ops)
    if len(ops) != 2:
        return None
    inner, ret = ops
    if inner.name not in COMMUTATIVE_BINARY or inner.regions or len(inner.results) != 1:
        return None
    if ret.name != "stablehlo.return" or not ret.has_trait(IsTerminator):
        return None
    inputs = op.operands[: len(op.operands) // 2]
    if not inputs:
        return None
    first = inputs[0].type
    if not isinstance(first, TensorType):
        return None
    expected = TensorType(first.element_type, [])
    types = [v.type for v in inner.operands] + [r.type for r in inner.results]
    if any(t != expected for t in types):
        return None
    if list(inner.operands) != list(block.args):
        return None
    if list(ret.operands) != list(inner.results):
        return None
    return inner.name


@irdl_custom_directive
class HloReduceOperands(CustomDirective):
    """``(%x init: %c), (%y init: %d)``"""

    inputs: VariadicOperandVariable
    init_values: VariadicOperandVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloReduceOperands", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        inputs = list(self.inputs.get(op))
        inits = list(self.init_values.get(op))
        for i, (x, c) in enumerate(zip(inputs, inits, strict=False)):
            if i:
                printer.print_string(", ")
            printer.print_string("(")
            printer.print_operand(x)
            printer.print_string(" init: ")
            printer.print_operand(c)
            printer.print_string(")")
        _end(state)


@irdl_custom_directive
class HloReduceTypes(CustomDirective):
    """``(inputs..., inits...) -> results``: a functional type split in two halves."""

    input_types: TypeDirective
    init_types: TypeDirective
    result_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloReduceTypes", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        print_functional(
            printer, [*self.input_types.get(op), *self.init_types.get(op)], list(self.result_types.get(op))
        )
        _end(state)


@irdl_custom_directive
class HloReduceApplies(CustomDirective):
    """``applies stablehlo.add`` when the body is that single op."""

    body: RegionVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloReduceApplies", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        name = compact_reduce_op(op)
        if name is not None:
            printer.print_string(f" applies {name}")
            _end(state)


@irdl_custom_directive
class HloReducerArgs(CustomDirective):
    """``reducer(%a: T, %b: T) (%c: U, %d: U)``: one (input element, accumulator) pair per input."""

    body: RegionVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloReducerArgs", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        if compact_reduce_op(op) is not None:
            return
        printer.print_string("\n")
        printer.print_string(" reducer")
        region = op.regions[0]
        args = list(region.blocks[0].args) if region.blocks else []
        n = len(args) // 2
        for i in range(n):
            printer.print_string("(")
            printer.print_block_argument(args[i])
            printer.print_string(", ")
            printer.print_block_argument(args[i + n])
            printer.print_string(") ")
        _end(state)


@irdl_custom_directive
class HloReducerRegion(CustomDirective):
    """The reduce body, written out unless ``applies`` names it."""

    body: RegionVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("HloReducerRegion", parser)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        if compact_reduce_op(op) is not None:
            return
        printer.print_string(" ")
        printer.print_region(op.regions[0], print_entry_block_args=False, print_block_terminators=True)
        _end(state)


def build_compact_body(op_cls: type[IRDLOperation], element: Attribute, n: int) -> Region:
    """The body ``applies`` stands for: one ``op_cls`` over the block arguments."""
    from tfrt.dialects.stablehlo import ReturnOp

    t = TensorType(element, [])
    block = Block(arg_types=[t] * 2 * n)
    inner = op_cls.create(operands=list(block.args), result_types=[t])
    block.add_op(inner)
    block.add_op(ReturnOp.create(operands=list(inner.results)))
    return Region(block)


DIRECTIVE_CLASSES: tuple[type[CustomDirective], ...] = (
    HloSameOperandsAndResultType,
    HloComplexOpType,
    HloSelectOpType,
    HloTupleOpType,
    HloPairwiseOpType,
    HloVariadicOperandWithAttribute,
    HloSliceRanges,
    HloDotDimensionNumbers,
    HloPrecisionConfig,
    HloPrecisionConfigAndAlgorithm,
    HloConvolutionDimensions,
    HloWindowAttributes,
    HloCustomCallTarget,
    HloExponentMantissa,
    HloString,
    HloEnum,
    HloOptionalEnum,
    HloConstantValue,
    HloWhileHeader,
    HloReduceOperands,
    HloReduceTypes,
    HloReduceApplies,
    HloReducerArgs,
    HloReducerRegion,
)
