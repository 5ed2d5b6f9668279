"""Custom form of xDSL's ``printf.print_format``, which parses by hand.

    printf.print_format "x = {}, y = {}\\n", %x : f32, %y : i32 {attrs}?

Each value is followed by its own type (xDSL's syntax).
"""

from __future__ import annotations

from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from ..directive_rules import DirectiveRule, shared_rule


@irdl_custom_directive
class PrintfValues(CustomDirective):
    """``(, %v : T)*``: the values to format, each with its type."""

    vals: VariadicOperandVariable
    types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        parser.raise_error(
            "custom<PrintfValues> only exists for the lark frontend; xDSL parses "
            "the op with its own code"
        )

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: the op prints with xDSL's print()."""


class PrintfValuesRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        item = shared_rule(gen, "printf_value", 'SSA_USE ":" type', lambda c: (c[0], c[1]))
        return shared_rule(gen, "printf_values", f'("," {item})*', lambda c: list(c))

    def apply(self, b, st, d: PrintfValues, plan, child) -> None:
        from ..formats import make_target

        pairs = list(child or ())
        st.operands[d.vals.index] = tuple(tok for tok, _ in pairs)
        make_target(plan, d.types).set(b, st, [t for _, t in pairs], st.tok)


FORMATS: dict[str, str] = {
    "printf.print_format": "$format_str custom<PrintfValues>($format_vals, type($format_vals)) attr-dict",
}
DIRECTIVES: dict[str, type[CustomDirective]] = {"PrintfValues": PrintfValues}
RULES: dict[str, DirectiveRule] = {"PrintfValues": PrintfValuesRule()}
