"""Custom directives shared by the runtime dialects' assembly formats.

An op's custom syntax is its xDSL ``assembly_format``.  Where TFRT's C++
parsers and printers accept a syntax that the declarative format language
cannot express, the format names one of the directives below as
``custom<Name>(...)``.  Each directive is a class with xDSL's ``parse`` (used by
xDSL's own ``Parser``) and ``print`` (used by every printer).

The lark frontend generates its grammar from the same formats.  For each
directive it implements the rule written in the class docstring, in this
notation::

    'x'          the literal token x            a?   optional
    a*           zero or more                   a+   one or more
    ( ... )      grouping                       |    alternative
    ssa-use      %name or %name#N               type         an MLIR type
    attribute    an MLIR attribute              integer      an integer literal
    bare-id      an identifier                  string-literal   "..."
    region       { ... } (its entry arguments as for any region of the op)

and then stores what it read the way the "Semantics" paragraph says.  Where the
semantics need more than copying a value, the directive class offers a static
helper so both frontends build identical IR.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, UnitAttr, i32
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import IRDLOperation, VarResultDef
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
from xdsl.irdl.constraints import InferenceContext
from xdsl.parser import Parser
from xdsl.printer import Printer

__all__ = [
    "KeywordIntAttrs",
    "OpAttrDicts",
    "OptionalElseRegion",
    "ParenFunctionType",
    "ResultCount",
    "TypedOperandList",
]


def _print_type_list(printer: Printer, types: Sequence[Attribute]) -> None:
    printer.print_string("(")
    printer.print_list(types, printer.print_attribute)
    printer.print_string(")")


def _end_token(state: PrintingState) -> None:
    """Record that the directive ended on a word, so the next one adds a space."""
    state.should_emit_space = True
    state.last_was_punctuation = False


@irdl_custom_directive
class ParenFunctionType(CustomDirective):
    """A function type whose result list is always printed in parentheses.

    Grammar::

        paren-function-type ::= '(' ( type ( ',' type )* )? ')' '->'
                                ( '(' ( type ( ',' type )* )? ')' | type )

    Semantics: the types in the first parentheses are the types of `inputs`
    (a ``type(...)`` of operands), the result types are the types of
    `results` (a ``type(...)`` of results).  A single unparenthesized result
    type is accepted on input, as MLIR's FunctionType parser does.

    Printing: ``(i32, f32) -> (i32)``, ``() -> ()``: TFRT's printers for
    `tfrt.if` and `tfrt_test.do.async` always parenthesize the results.
    """

    inputs: TypeDirective
    results: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        inputs = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_type
        )
        parser.parse_punctuation("->")
        if parser.parse_optional_punctuation("(") is not None:
            if parser.parse_optional_punctuation(")") is not None:
                results: list[Attribute] = []
            else:
                results = parser.parse_comma_separated_list(
                    Parser.Delimiter.NONE, parser.parse_type
                )
                parser.parse_punctuation(")")
        else:
            results = [parser.parse_type()]
        self.inputs.set(state, inputs)
        self.results.set(state, results)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        _print_type_list(printer, self.inputs.get(op))
        printer.print_string(" -> ")
        _print_type_list(printer, self.results.get(op))
        _end_token(state)


@irdl_custom_directive
class OptionalElseRegion(CustomDirective):
    """An `else` region that may be left out when it would only return.

    Grammar::

        optional-else-region ::= ( 'else' region )?

    Semantics: with `else`, the region is `region`; its entry-block
    arguments are made like those of the op's other implicit-argument
    regions (see the op's ``implicit_region_operands``).  Without it, the
    region is ``OptionalElseRegion.default_region(arg_types)``: one block whose
    arguments have the types of `arg_types` (a ``ref(type(...))`` of the
    operands passed to the region) holding a single operand-less
    ``tfrt.return``, as TFRT's `tfrt.if` parser builds it.  (The op's verifier
    rejects a missing `else` when the op has results.)

    Printing: always `` else `` followed by the region.
    """

    region: RegionVariable
    arg_types: TypeDirective

    @staticmethod
    def default_region(arg_types: Sequence[Attribute]) -> Region:
        """The region a missing `else` stands for."""
        from tfrt.dialects.tfrt import ReturnOp

        block = Block(arg_types=arg_types)
        block.add_op(ReturnOp.create())
        return Region(block)

    def parse(self, parser: Parser, state: ParsingState) -> None:
        if parser.parse_optional_keyword("else") is not None:
            self.region.set(state, parser.parse_region())
            return
        types = state.operand_types[self._arg_index()]
        self.region.set(state, self.default_region(types or ()))

    def _arg_index(self) -> int:
        inner = self.arg_types.inner
        index = getattr(inner, "index", None)
        if index is None:
            raise ValueError("OptionalElseRegion needs type($operand) as its 2nd parameter")
        return index

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        region = self.region.get(op)
        if not region.blocks:
            return
        state.print_whitespace(printer)
        printer.print_string("else ")
        printer.print_region(region)
        _end_token(state)


@irdl_custom_directive
class TypedOperandList(CustomDirective):
    """A parenthesized operand list where each operand carries its type.

    Grammar::

        typed-operand-list ::= '(' ( ssa-use ':' type ( ',' ssa-use ':' type )* )? ')'

    Semantics: the uses become the operands of `operands` (a variadic operand
    variable, the first parameter) with the types written next to them (the
    second parameter is ``type(...)`` of the same variable).

    Printing: ``(%0 : i32, %1 : f32)`` directly after the previous token (no
    space), as `tfrt_test.benchmark "name"(%c : i32)`.
    """

    operands: VariadicOperandVariable
    types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        def entry():
            operand = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            return operand, parser.parse_type()

        entries = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, entry)
        self.operands.set(state, [operand for operand, _ in entries])
        self.types.set(state, [type_ for _, type_ in entries])

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        printer.print_string("(")
        printer.print_list(
            self.operands.get(op),
            lambda v: (
                printer.print_ssa_value(v),
                printer.print_string(" : "),
                printer.print_attribute(v.type),
            ),
        )
        printer.print_string(")")
        _end_token(state)


@irdl_custom_directive
class KeywordIntAttrs(CustomDirective):
    """Integer attributes written as a bare `name = value` list.

    Grammar::

        keyword-int-attrs ::= bare-id '=' integer ( ',' bare-id '=' integer )*

    Semantics: each `bare-id` names one of the three attribute variables
    `first`, `second`, `third` (in any order); its value becomes an i32
    `IntegerAttr`.  A name that is none of the three becomes a discardable
    i32 attribute of the op, as TFRT's `tfrt_test.benchmark` parser does.  One
    of the three that the text leaves out takes its declared default value
    (``num_warmup_runs = 1``), so it is stored explicitly.  A name written twice
    is an error.

    Printing: ``duration_secs = 1, max_count = 100, num_warmup_runs = 10``, in
    the order of the parameters (the formats list them alphabetically, as
    TFRT prints its sorted attribute dictionary).
    """

    first: AttributeVariable
    second: AttributeVariable
    third: AttributeVariable

    def _vars(self) -> tuple[AttributeVariable, ...]:
        return (self.first, self.second, self.third)

    def parse(self, parser: Parser, state: ParsingState) -> None:
        by_name = {var.name: var for var in self._vars()}
        seen: set[str] = set()

        def entry() -> None:
            pos = parser.pos
            name = parser.parse_identifier()
            if name in seen:
                parser.raise_error(f"duplicate attribute '{name}'", pos, parser.pos)
            seen.add(name)
            parser.parse_punctuation("=")
            value = IntegerAttr(parser.parse_integer(allow_boolean=False), i32)
            if name in by_name:
                by_name[name].set(state, value)
            else:
                state.attributes[name] = value

        parser.parse_comma_separated_list(Parser.Delimiter.NONE, entry)
        for var in self._vars():
            if var.name not in seen and var.default_value is not None:
                var.set(state, var.default_value)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        entries = [(var.name, var.get(op)) for var in self._vars()]
        present = [(name, attr) for name, attr in entries if attr is not None]
        if not present:
            return
        state.print_whitespace(printer)
        printer.print_list(
            present,
            lambda entry: printer.print_string(
                f"{entry[0]} = {_integer_text(entry[1])}"
            ),
        )
        _end_token(state)


def _integer_text(attr: Attribute) -> str:
    if isinstance(attr, IntegerAttr):
        return str(attr.value.data)
    return str(attr)


@irdl_custom_directive
class ResultCount(CustomDirective):
    """The number of results, written as a trailing `: N`.

    Grammar::

        result-count ::= ( ':' integer )?

    Semantics: the op gets `integer` results (0 when absent) in the variadic
    result group of `results` (a ``type(...)`` of a variadic result); their
    type is the one that group's constraint fixes (``!corert.tensorhandle``
    for `corert.executeop`).  ``ResultCount.result_types(op_type, name, n)``
    gives the types.

    Printing: `` : N`` when N > 0, nothing otherwise.
    """

    results: TypeDirective

    @staticmethod
    def result_types(op_type: type[IRDLOperation], name: str, count: int) -> list[Attribute]:
        """The types of `count` results of the variadic result group `name`."""
        op_def = op_type.get_irdl_definition()
        for result_name, result_def in op_def.results:
            if result_name == name and isinstance(result_def, VarResultDef):
                return list(result_def.constr.infer(InferenceContext(), length=count))
        raise ValueError(f"{op_type.name} has no variadic result group '{name}'")

    def parse(self, parser: Parser, state: ParsingState) -> None:
        count = 0
        if parser.parse_optional_punctuation(":") is not None:
            pos = parser.pos
            count = parser.parse_integer(allow_boolean=False, allow_negative=False)
            if count > 1 << 16:
                parser.raise_error("too many results", pos, parser.pos)
        name = getattr(self.results.inner, "name", "")
        self.results.set(state, self.result_types(state.op_type, name, count))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        count = len(self.results.get(op))
        if not count:
            return
        printer.print_string(f" : {count}")
        _end_token(state)


@irdl_custom_directive
class OpAttrDicts(CustomDirective):
    """Up to two attribute dictionaries stored as arrays of key/value pairs.

    Grammar::

        op-attr-dicts ::= ( attr-dict-body attr-dict-body? )?
        attr-dict-body ::= '{' ( attr-entry ( ',' attr-entry )* )? '}'
        attr-entry ::= ( bare-id | string-literal ) ( '=' attribute )?

    Semantics: the first dictionary becomes `op_attrs`, the second
    `op_func_attrs` (both default to ``[]``), each as
    ``OpAttrDicts.to_array(entries)``: an `ArrayAttr` of two-element
    ``[StringAttr(key), value]`` arrays in source order; an entry without a
    value gets a `UnitAttr`.  This is how `corert.executeop` keeps the
    attributes of the op it dispatches apart from its own.

    Printing: `` {k = v, ...}`` for `op_attrs` when not empty, then
    `` {f = @fn}`` for `op_func_attrs` when not empty (an empty ``{}`` stands
    in for `op_attrs` then, so the text reads back the same way).
    """

    op_attrs: AttributeVariable
    op_func_attrs: AttributeVariable

    @staticmethod
    def to_array(entries: Sequence[tuple[str, Attribute]]) -> ArrayAttr:
        """The stored form of a parsed dictionary."""
        return ArrayAttr([ArrayAttr([StringAttr(key), value]) for key, value in entries])

    @staticmethod
    def _parse_body(parser: Parser) -> list[tuple[str, Attribute]] | None:
        def entry() -> tuple[str, Attribute]:
            name = parser.parse_optional_identifier()
            if name is None:
                name = parser.parse_str_literal()
            if parser.parse_optional_punctuation("=") is None:
                return name, UnitAttr()
            return name, parser.parse_attribute()

        return parser.parse_optional_comma_separated_list(Parser.Delimiter.BRACES, entry)

    def parse(self, parser: Parser, state: ParsingState) -> None:
        op_attrs = self._parse_body(parser)
        func_attrs = self._parse_body(parser) if op_attrs is not None else None
        self.op_attrs.set(state, self.to_array(op_attrs or ()))
        self.op_func_attrs.set(state, self.to_array(func_attrs or ()))

    @staticmethod
    def _print_body(printer: Printer, attr: Attribute | None) -> None:
        printer.print_string(" {")
        entries = attr.data if isinstance(attr, ArrayAttr) else ()
        for i, entry in enumerate(entries):
            if i:
                printer.print_string(", ")
            if isinstance(entry, ArrayAttr) and len(entry.data) == 2:
                key, value = entry.data
                key_text = key.data if isinstance(key, StringAttr) else str(key)
                printer.print_identifier_or_string_literal(key_text)
                if not isinstance(value, UnitAttr):
                    printer.print_string(" = ")
                    printer.print_attribute(value)
            else:
                # Unverified IR (the verifier rejects it); still print something.
                printer.print_attribute(entry)
        printer.print_string("}")

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        op_attrs = self.op_attrs.get(op)
        func_attrs = self.op_func_attrs.get(op)
        has_op_attrs = isinstance(op_attrs, ArrayAttr) and bool(op_attrs.data)
        has_func_attrs = isinstance(func_attrs, ArrayAttr) and bool(func_attrs.data)
        if has_op_attrs or has_func_attrs:
            self._print_body(printer, op_attrs)
        if has_func_attrs:
            self._print_body(printer, func_attrs)
        if has_op_attrs or has_func_attrs:
            _end_token(state)
