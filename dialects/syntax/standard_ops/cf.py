"""The lark side of ``cf.switch``'s ``custom<SwitchOpCases>`` directive.

xDSL gives ``cf.switch`` a declarative format around its own
``SwitchOpCases`` directive; only the directive needs a rule here.  Its
syntax is MLIR's ``parseSwitchOpCases`` (``ControlFlowOps.cpp``)::

    default ':' successor ('(' ssa-use-list ':' type-list ')')?
    (',' integer ':' successor ('(' ssa-use-list ':' type-list ')')?)*

The case values become a ``vector<N x flag-type>`` dense attribute (absent
when there are no cases), the per-case operand counts
``case_operand_segments``.  The other ``cf`` ops (``cf.br``, ``cf.cond_br``,
``cf.assert``) have plain declarative formats.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
    i32,
)
from xdsl.utils.exceptions import VerifyException

from ..attributes import parse_int
from ..directive_rules import DirectiveRule, shared_rule


def _set_types(b, st, plan, d, types, tok) -> None:
    from ..formats import make_target

    make_target(plan, d).set(b, st, list(types), tok)


def _operands(b, args):
    """(tokens, types) of an optional ``(%a, ... : T, ...)`` list."""
    if args is None:
        return (), ()
    toks, types = args
    if len(toks) != len(types):
        raise b.error(f"{len(toks)} operands present, but expected {len(types)}", toks[0])
    return tuple(toks), tuple(types)


class SwitchOpCasesRule(DirectiveRule):
    """The rule of xDSL's ``SwitchOpCases`` (keyed by that class name)."""

    def grammar(self, d, gen) -> str:
        shared_rule(
            gen, "cf_switch_args", '"(" ssa_uses ":" type_list ")"', lambda c: (c[0], c[1])
        )
        shared_rule(
            gen, "cf_switch_case", 'INT ":" CARET_ID [cf_switch_args]', lambda c: tuple(c)
        )
        return shared_rule(
            gen,
            "cf_switch_cases",
            '"default" ":" CARET_ID [cf_switch_args] ("," cf_switch_case)*',
            lambda c: (c[0], c[1], c[2:]),
        )

    def apply(self, b, st, d, plan, child) -> None:
        default_tok, default_args, cases = child
        flag_types = st.otypes[d.flag.inner.index]
        flag_type = flag_types[0] if flag_types else None

        toks, types = _operands(b, default_args)
        st.succs[d.default_block.index] = (b.successor_block(default_tok),)
        st.operands[d.default_operands.index] = toks
        _set_types(b, st, plan, d.default_operand_types, types, default_tok)

        values: list[int] = []
        blocks = []
        case_toks: list = []
        case_types: list = []
        sizes: list[int] = []
        for value_tok, block_tok, args in cases:
            if not isinstance(flag_type, IntegerType | IndexType):
                raise b.error(
                    f"case values need an integer or index flag type, not '{flag_type}'",
                    value_tok,
                )
            text = value_tok.value
            if text.startswith("+"):
                raise b.error("expected integer value", value_tok)
            value = parse_int(text)
            try:
                IntegerAttr(value, flag_type)
            except (ValueError, VerifyException) as e:
                raise b.error(str(e), value_tok) from None
            values.append(value)
            blocks.append(b.successor_block(block_tok))
            toks, types = _operands(b, args)
            case_toks.extend(toks)
            case_types.extend(types)
            sizes.append(len(toks))

        props = st.props if d.case_operand_segments.is_property else st.attrs
        props[d.case_operand_segments.name] = DenseArrayBase.from_list(i32, sizes)
        if values:
            attr = DenseIntElementsAttr.from_list(VectorType(flag_type, (len(values),)), values)
            (st.props if d.case_values.is_property else st.attrs)[d.case_values.name] = attr
        st.succs[d.case_blocks.index] = tuple(blocks)
        st.operands[d.case_operands.index] = tuple(case_toks)
        _set_types(b, st, plan, d.case_operand_types, case_types, st.tok)


FORMATS: dict[str, str] = {}
DIRECTIVES: dict[str, type] = {}
RULES: dict[str, DirectiveRule] = {"SwitchOpCases": SwitchOpCasesRule()}
