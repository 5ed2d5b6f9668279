"""The lark side of ``custom<Name>`` directives.

A custom directive (an xDSL ``CustomDirective`` class) has its own textual
grammar.  For the LALR frontend each one needs a :class:`DirectiveRule`: a
grammar fragment spliced into the generated op rule, and ``apply`` that puts
the matched pieces into the op's parse state.  Rules are keyed by the
directive class name (:data:`RULES`).

Two kinds of directive classes are covered:

* the project's own, in ``tfrt.dialects.directives`` (written with the
  dialects; each docstring states its syntax), and
* those of the equivalent formats of standard ops whose xDSL class has a
  hand-written parser: ``scf.for``'s header here (it binds the loop region's
  arguments), the rest in ``standard_ops/`` (merged into :data:`RULES`).
  Those classes only exist for grammar generation: the ops keep printing
  (and, in xDSL's own parser, parsing) with their hand-written code.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    OperandVariable,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer


class DirectiveRule(ABC):
    """How one ``custom<Name>`` directive reads under the LALR grammar."""

    #: True if the fragment contains a region (the op rule is then split
    #: into head and tail around it).
    has_regions = False

    @abstractmethod
    def grammar(self, d: CustomDirective, gen) -> str:
        """The lark fragment: one symbol (a token or a shared helper rule) or ""."""

    @abstractmethod
    def apply(self, b, st, d: CustomDirective, plan, child) -> None:
        """Store the matched ``child`` into ``st`` (an ``OpState``)."""

    def before_create(  # noqa: B027 - an optional hook, empty by default
        self, b, st, d: CustomDirective, plan, operands: list[Sequence]
    ) -> None:
        """Hook run after operands are resolved, before the op is created."""


def shared_rule(gen, name: str, text: str, callback) -> str:
    """Add a helper rule once per grammar (several ops may use it)."""
    gen.shared_rules.setdefault(name, (text, callback))
    return name


# ---------------------------------------------------------------- scf.for


@irdl_custom_directive
class ForHeader(CustomDirective):
    """``%iv = %lb to %ub step %step (iter_args(%a = %init, ...) -> (T, ...))? (: T)?``

    The loop header of ``scf.for``.  It binds the body region's arguments
    (the induction variable, then one per iteration argument), which a plain
    declarative format cannot express.  Only the lark frontend uses this
    class; xDSL parses and prints ``scf.for`` with its own code.
    """

    lb: OperandVariable
    lb_type: TypeDirective
    ub: OperandVariable
    step: OperandVariable
    iter_args: VariadicOperandVariable
    iter_types: TypeDirective
    res_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        parser.raise_error(
            "custom<ForHeader> binds region arguments, which xDSL's format parser "
            "cannot do; scf.for is parsed by its own parse() in xDSL"
        )

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(op.body.block.args[0])
        printer.print_string(" = ")
        printer.print_operand(op.lb)
        printer.print_string(" to ")
        printer.print_operand(op.ub)
        printer.print_string(" step ")
        printer.print_operand(op.step)


class ForHeaderRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        shared_rule(gen, "for_assign", 'SSA_USE "=" SSA_USE', lambda c: (c[0], c[1]))
        shared_rule(gen, "for_assigns", 'for_assign ("," for_assign)*', lambda c: c)
        return shared_rule(
            gen,
            "for_header",
            'SSA_USE "=" SSA_USE "to" SSA_USE "step" SSA_USE '
            '["iter_args" "(" for_assigns ")" "->" "(" type_list ")"] [":" type]',
            lambda c: c,
        )

    def apply(self, b, st, d: ForHeader, plan, child) -> None:
        iv, lb, ub, step, assigns, types, iv_type = child
        if "#" in iv.value:
            raise b.error(f"invalid induction variable name '{iv.value}'", iv)
        iv_type = iv_type if iv_type is not None else _INDEX
        for var, tok in ((d.lb, lb), (d.ub, ub), (d.step, step)):
            st.operands[var.index] = (tok,)
            st.otypes[var.index] = (iv_type,)
        assigns = assigns or []
        types = types or []
        if len(assigns) != len(types):
            raise b.error(
                f"iter_args has {len(assigns)} values but {len(types)} types",
                assigns[0][0] if assigns else iv,
            )
        st.operands[d.iter_args.index] = tuple(init for _, init in assigns)
        st.otypes[d.iter_args.index] = tuple(types)
        res = d.res_types.inner
        st.rtypes[res.index] = tuple(types)
        st.region_args[0] = [
            (iv, iv_type),
            *((name, t) for (name, _), t in zip(assigns, types, strict=True)),
        ]


_INDEX = IndexType()


# ---------------------------------------------------------------- tfrt.dialects.directives
# One rule per class there; the grammar is the one its docstring states.


def _target(plan, d):
    from .formats import make_target

    t = make_target(plan, d)
    if t is None:
        raise ValueError(f"unsupported type directive {d!r}")
    return t


class ParenFunctionTypeRule(DirectiveRule):
    """``(T, ...) -> (T, ...)`` or ``(T, ...) -> T``: the core function_type rule."""

    def grammar(self, d, gen) -> str:
        return "function_type"

    def apply(self, b, st, d, plan, child) -> None:
        _target(plan, d.inputs).set(b, st, child.inputs.data, st.tok)
        _target(plan, d.results).set(b, st, child.outputs.data, st.tok)


class OptionalElseRegionRule(DirectiveRule):
    """``('else' region)?``; a missing else is the directive's default region."""

    has_regions = True

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "else_region", '"else" region', lambda c: c[0])
        return "[else_region]"

    def apply(self, b, st, d, plan, child) -> None:
        index = d.region.index
        if child is not None:
            st.regions[index] = (child,)
            return
        inner = d.arg_types.inner
        types = st.otypes[inner.index] if getattr(inner, "index", None) is not None else None
        if types is None:
            types = ()
        st.regions[index] = (type(d).default_region(types),)


class TypedOperandListRule(DirectiveRule):
    """``'(' (ssa-use ':' type (',' ssa-use ':' type)*)? ')'``."""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "typed_operand", 'SSA_USE ":" type', lambda c: (c[0], c[1]))
        return shared_rule(
            gen,
            "typed_operand_list",
            '"(" [typed_operand ("," typed_operand)*] ")"',
            lambda c: [x for x in c if x is not None],
        )

    def apply(self, b, st, d, plan, child) -> None:
        st.operands[d.operands.index] = tuple(tok for tok, _ in child)
        _target(plan, d.types).set(b, st, [t for _, t in child], st.tok)


class KeywordIntAttrsRule(DirectiveRule):
    """``bare-id '=' integer (',' bare-id '=' integer)*`` into three i32 attributes."""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "keyword_int_attr", 'BARE_ID "=" INT', lambda c: (c[0], c[1]))
        return shared_rule(
            gen, "keyword_int_attrs", 'keyword_int_attr ("," keyword_int_attr)*', lambda c: c
        )

    def apply(self, b, st, d, plan, child) -> None:
        from xdsl.dialects.builtin import IntegerAttr, i32
        from xdsl.utils.exceptions import VerifyException

        from .attributes import parse_int

        by_name = {var.name: var for var in (d.first, d.second, d.third)}
        seen: set[str] = set()
        for name_tok, value_tok in child:
            name = name_tok.value
            if name in seen:
                raise b.error(f"duplicate attribute '{name}'", name_tok)
            seen.add(name)
            try:
                value = IntegerAttr(parse_int(value_tok.value), i32)
            except VerifyException as e:
                raise b.error(str(e), value_tok) from None
            var = by_name.get(name)
            if var is None:
                st.attrs[name] = value
            else:
                (st.props if var.is_property else st.attrs)[name] = value
        for var in by_name.values():
            if var.name not in seen and var.default_value is not None:
                (st.props if var.is_property else st.attrs)[var.name] = var.default_value


class ResultCountRule(DirectiveRule):
    """``(':' integer)?``: that many results of the variadic group's fixed type."""

    def grammar(self, d, gen) -> str:
        return "[" + shared_rule(gen, "result_count", '":" INT', lambda c: c[0]) + "]"

    def apply(self, b, st, d, plan, child) -> None:
        count = 0
        if child is not None:
            text = child.value
            if text.startswith(("-", "+")) or text[:2] in ("0x", "0X"):
                raise b.error("expected a non-negative decimal result count", child)
            count = int(text)
            if count > 1 << 16:
                raise b.error("too many results", child)
        name = getattr(d.results.inner, "name", "")
        try:
            types = type(d).result_types(plan.cls, name, count)
        except ValueError as e:
            raise b.error(str(e), child or st.tok) from None
        _target(plan, d.results).set(b, st, types, child or st.tok)


class OpAttrDictsRule(DirectiveRule):
    """``(attr-dict attr-dict?)?`` into two arrays of [key, value] pairs."""

    def grammar(self, d, gen) -> str:
        return "[" + shared_rule(gen, "op_attr_dicts", "attr_dict [attr_dict]", lambda c: c) + "]"

    def apply(self, b, st, d, plan, child) -> None:
        first, second = child if child is not None else (None, None)
        to_array = type(d).to_array
        for var, entries in ((d.op_attrs, first), (d.op_func_attrs, second)):
            attr = to_array(list((entries or {}).items()))
            (st.props if var.is_property else st.attrs)[var.name] = attr


class DestinationTypeRule(DirectiveRule):
    """``type``: the destination's type; one result of it if a tensor, else none."""

    def grammar(self, d, gen) -> str:
        return "type"

    def apply(self, b, st, d, plan, child) -> None:
        _target(plan, d.dest).set(b, st, [child], st.tok)
        _target(plan, d.results).set(b, st, type(d).result_types(child), st.tok)


RULES: dict[str, DirectiveRule] = {
    "DestinationType": DestinationTypeRule(),
    "ForHeader": ForHeaderRule(),
    "ParenFunctionType": ParenFunctionTypeRule(),
    "OptionalElseRegion": OptionalElseRegionRule(),
    "TypedOperandList": TypedOperandListRule(),
    "KeywordIntAttrs": KeywordIntAttrsRule(),
    "ResultCount": ResultCountRule(),
    "OpAttrDicts": OpAttrDictsRule(),
}

# Directive classes referenced by the formats in formats.STANDARD_FORMATS.
STANDARD_DIRECTIVES: dict[str, type[CustomDirective]] = {
    "ForHeader": ForHeader,
}


def _merge_standard_ops() -> None:
    from .standard_ops import merged

    _fmts, directives, rules = merged()
    for table, part in ((RULES, rules), (STANDARD_DIRECTIVES, directives)):
        for key, value in part.items():
            if key in table:
                raise ValueError(f"standard_ops redefines directive '{key}'")
            table[key] = value


_merge_standard_ops()


def project_directives() -> dict[str, type[CustomDirective]]:
    """The custom directive classes of ``tfrt.dialects.directives`` (if present)."""
    try:
        mod = importlib.import_module("tfrt.dialects.directives")
    except ImportError:
        return {}
    out: dict[str, type[CustomDirective]] = {}
    for name, obj in vars(mod).items():
        if (
            isinstance(obj, type)
            and issubclass(obj, CustomDirective)
            and obj is not CustomDirective
        ):
            out[name] = obj
    return out
