"""Custom forms of ``arith.cmpi``/``cmpf``/``truncf``/``select`` and ``builtin.unrealized_conversion_cast``.

The syntax is MLIR's (``ArithOps.td``, ``BuiltinOps.td``):

* ``arith.cmpi PRED, %lhs, %rhs {attrs}? : T`` and
  ``arith.cmpf PRED, %lhs, %rhs (fastmath<flags>)? {attrs}? : T``: the
  predicate is a keyword (or a string holding one) and becomes the i64
  ``predicate`` property; both operands have type ``T`` and the result is
  ``i1`` of the same shape (``tensor<4xi32>`` gives ``tensor<4xi1>``).
* ``builtin.unrealized_conversion_cast (%a, ... : T, ...)? to U, ... {attrs}?``:
  zero or more operands, zero or more results.
* ``arith.truncf %x MODE? (fastmath<flags>)? {attrs}? : T to U``: ``MODE``
  is a rounding-mode keyword (``tonearesteven``, ...), stored as its i32
  value in ``roundingmode``.
* ``arith.select %c, %a, %b {attrs}? : T`` (an ``i1`` condition) or
  ``: C, T`` (a condition of ``i1`` elements shaped as ``T``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    TensorType,
    UnrankedMemRefType,
    UnrankedTensorType,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from .. import attributes as A
from ..directive_rules import DirectiveRule, shared_rule


def predicates(op_name: str) -> tuple[str, ...] | None:
    """The predicate keywords of a comparison op, in attribute-value order."""
    # xDSL's arith module is imported only when a comparison is parsed.
    from xdsl.dialects.arith import (
        CMPF_COMPARISON_OPERATIONS,
        CMPI_COMPARISON_OPERATIONS,
    )

    table = {"arith.cmpi": CMPI_COMPARISON_OPERATIONS, "arith.cmpf": CMPF_COMPARISON_OPERATIONS}
    names = table.get(op_name)
    return tuple(names) if names is not None else None


def _hand_parsed(name: str, parser: Parser) -> None:
    parser.raise_error(
        f"custom<{name}> only exists for the lark frontend; xDSL parses the op "
        "with its own parse()"
    )


def i1_same_shape(t: Attribute) -> Attribute:
    """``i1`` with the shape of ``t`` (MLIR's getI1SameShape)."""
    if isinstance(t, VectorType):
        return VectorType(i1, t.get_shape(), t.scalable_dims)
    if isinstance(t, TensorType):
        return TensorType(i1, t.get_shape(), t.encoding)
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(i1)
    if isinstance(t, MemRefType):
        return MemRefType(i1, t.get_shape(), t.layout, t.memory_space)
    if isinstance(t, UnrankedMemRefType):
        return UnrankedMemRefType.from_type(i1, t.memory_space)
    return i1


# ---------------------------------------------------------------- predicate


@irdl_custom_directive
class ArithCmpPredicate(CustomDirective):
    """``keyword`` or ``"keyword"``: the comparison predicate, as its i64 value."""

    predicate: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("ArithCmpPredicate", parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: the ops print with xDSL's own print()."""


class ArithCmpPredicateRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return shared_rule(gen, "arith_predicate", "BARE_ID | STRING", lambda c: c[0])

    def apply(self, b, st, d: ArithCmpPredicate, plan, child) -> None:
        names = predicates(plan.name)
        if names is None:  # pragma: no cover - only used by the ops above
            raise b.error(f"'{plan.name}' has no comparison predicates", child)
        if child.type == "STRING":
            try:
                text = A.decode_string(child.value)
            except A.AttrError as e:
                raise b.error(str(e), child) from None
        else:
            text = child.value
        try:
            value = names.index(text)
        except ValueError:
            raise b.error(
                "expected string or keyword containing one of the following enum values "
                f"for attribute 'predicate' [{', '.join(names)}]",
                child,
            ) from None
        var = d.predicate
        (st.props if var.is_property else st.attrs)[var.name] = IntegerAttr(value, i64)


# ---------------------------------------------------------------- operand type


@irdl_custom_directive
class ArithCmpType(CustomDirective):
    """``T``: the type of both operands; the result is ``i1`` of the same shape."""

    lhs: TypeDirective
    rhs: TypeDirective
    result: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("ArithCmpType", parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: the ops print with xDSL's own print()."""


class ArithCmpTypeRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return "type"

    def apply(self, b, st, d: ArithCmpType, plan, child) -> None:
        from ..formats import make_target

        make_target(plan, d.lhs).set(b, st, [child], st.tok)
        make_target(plan, d.rhs).set(b, st, [child], st.tok)
        make_target(plan, d.result).set(b, st, [i1_same_shape(child)], st.tok)


# ---------------------------------------------------------------- truncf


@irdl_custom_directive
class ArithRoundingMode(CustomDirective):
    """``keyword?``: truncf's optional rounding mode, as its i32 value."""

    roundingmode: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("ArithRoundingMode", parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: the op prints with its own print()."""


class ArithRoundingModeRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return "[" + shared_rule(gen, "arith_rounding_mode", "BARE_ID", lambda c: c[0]) + "]"

    def apply(self, b, st, d: ArithRoundingMode, plan, child) -> None:
        if child is None:
            return
        from tfrt.dialects.arith_forms import ROUNDING_MODES

        if child.value not in ROUNDING_MODES:
            raise b.error(
                "expected one of the rounding modes " + ", ".join(ROUNDING_MODES)
                + f", not '{child.value}'",
                child,
            )
        var = d.roundingmode
        value = IntegerAttr(ROUNDING_MODES.index(child.value), i32)
        (st.props if var.is_property else st.attrs)[var.name] = value


# ---------------------------------------------------------------- select


@irdl_custom_directive
class ArithSelectTypes(CustomDirective):
    """``T`` (an ``i1`` condition) or ``C, T``: the condition's and the values' types."""

    cond: TypeDirective
    lhs: TypeDirective
    rhs: TypeDirective
    result: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("ArithSelectTypes", parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: the op prints with its own print()."""


class ArithSelectTypesRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return "type_list"

    def apply(self, b, st, d: ArithSelectTypes, plan, child) -> None:
        from ..formats import make_target

        if len(child) == 1:
            cond, value = i1, child[0]
        elif len(child) == 2:
            cond, value = child
        else:
            raise b.error(
                f"expected the value type, or the condition and value types, not {len(child)} types",
                st.tok,
            )
        make_target(plan, d.cond).set(b, st, [cond], st.tok)
        for target in (d.lhs, d.rhs, d.result):
            make_target(plan, target).set(b, st, [value], st.tok)


_CMP = "custom<ArithCmpPredicate>($predicate) `,` $lhs `,` $rhs"
_CMP_TYPE = "`:` custom<ArithCmpType>(type($lhs), type($rhs), type($result))"

FORMATS: dict[str, str] = {
    "arith.cmpi": f"{_CMP} attr-dict {_CMP_TYPE}",
    "arith.cmpf": f"{_CMP} (`fastmath` `` $fastmath^)? attr-dict {_CMP_TYPE}",
    "builtin.unrealized_conversion_cast": (
        "($inputs^ `:` type($inputs))? `to` type($outputs) attr-dict"
    ),
    "arith.truncf": (
        "$input custom<ArithRoundingMode>($roundingmode) (`fastmath` `` $fastmath^)? "
        "attr-dict `:` type($input) `to` type($result)"
    ),
    "arith.select": (
        "$cond `,` $lhs `,` $rhs attr-dict `:` "
        "custom<ArithSelectTypes>(type($cond), type($lhs), type($rhs), type($result))"
    ),
}

DIRECTIVES: dict[str, type[CustomDirective]] = {
    "ArithCmpPredicate": ArithCmpPredicate,
    "ArithCmpType": ArithCmpType,
    "ArithRoundingMode": ArithRoundingMode,
    "ArithSelectTypes": ArithSelectTypes,
}

RULES: dict[str, DirectiveRule] = {
    "ArithCmpPredicate": ArithCmpPredicateRule(),
    "ArithCmpType": ArithCmpTypeRule(),
    "ArithRoundingMode": ArithRoundingModeRule(),
    "ArithSelectTypes": ArithSelectTypesRule(),
}
