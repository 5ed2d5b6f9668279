"""Custom forms of the ``scf`` ops whose xDSL class parses by hand.

The syntax is MLIR's (``SCFOps.td`` and ``SCF.cpp``):

* ``scf.while (%a = %x, ...)? : (T, ...) -> (T, ...) {before} do {after}
  (attributes {...})?``: the assignments bind the ``before`` region's
  arguments; the ``after`` region spells its entry block.
* ``scf.parallel (%i, ...) = (%lb, ...) to (%ub, ...) step (%s, ...)
  (init (%v, ...))? (-> T | -> (T, ...))? {body} {attrs}?``: the induction
  variables are the body's (index) arguments; the init values take the
  result types.
* ``scf.execute_region (-> T | -> (T, ...))? {body} {attrs}?``.
* ``scf.index_switch %i {attrs}? (-> T, ...)? (case N {region})* default
  {region}``.
* ``scf.reduce ((%v, ... : T, ...))? {region} (,? {region})*``: MLIR
  separates a variadic region list with commas; xDSL's declarative format
  prints (and parses) it with spaces, so both are accepted.  A ``{`` after a
  region therefore starts another region (the grammar's one kept conflict),
  and an attr-dict cannot follow the regions (xDSL cannot read one there
  either).
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, IndexType, i64
from xdsl.ir import Region
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    VariadicRegionVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from ..attributes import parse_int
from ..directive_rules import DirectiveRule, shared_rule

_INDEX = IndexType()
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def _hand_parsed(name: str, parser: Parser) -> None:
    parser.raise_error(
        f"custom<{name}> only exists for the lark frontend; xDSL parses the op "
        "with its own code"
    )


def _set_types(b, st, plan, d: TypeDirective, types, tok) -> None:
    from ..formats import make_target

    make_target(plan, d).set(b, st, list(types), tok)


def _bind_names(b, toks) -> None:
    """Region-argument names must be plain (``%a``, not ``%a#0``) and distinct."""
    seen: dict[str, object] = {}
    for tok in toks:
        name = tok.value
        if "#" in name:
            raise b.error(f"invalid region argument name '{name}'", tok)
        prior = seen.get(name)
        if prior is not None:
            raise b.error(
                f"redefinition of SSA value '{name}'", tok, [("previously defined here", prior)]
            )
        seen[name] = tok


# ---------------------------------------------------------------- scf.while


@irdl_custom_directive
class ScfWhileHeader(CustomDirective):
    """``((%arg = %init, ...))? : (T, ...) -> (T, ...)``: binds the before region's arguments."""

    arguments: VariadicOperandVariable
    arg_types: TypeDirective
    res_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("ScfWhileHeader", parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: scf.while prints with xDSL's print()."""


class ScfWhileHeaderRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        shared_rule(gen, "scf_assign", 'SSA_USE "=" SSA_USE', lambda c: (c[0], c[1]))
        shared_rule(gen, "scf_assigns", 'scf_assign ("," scf_assign)*', lambda c: c)
        return shared_rule(
            gen,
            "scf_while_header",
            '["(" [scf_assigns] ")"] ":" function_type',
            lambda c: (c[0] or [], c[1]),
        )

    def apply(self, b, st, d: ScfWhileHeader, plan, child) -> None:
        assigns, ftype = child
        inputs, outputs = ftype.inputs.data, ftype.outputs.data
        if len(assigns) != len(inputs):
            raise b.error(
                "expected as many input types as operands "
                f"(expected {len(assigns)} got {len(inputs)})",
                assigns[0][0] if assigns else st.tok,
            )
        _bind_names(b, [name for name, _ in assigns])
        st.operands[d.arguments.index] = tuple(init for _, init in assigns)
        _set_types(b, st, plan, d.arg_types, inputs, st.tok)
        _set_types(b, st, plan, d.res_types, outputs, st.tok)
        if assigns:
            st.region_args[0] = [(name, t) for (name, _), t in zip(assigns, inputs, strict=True)]


# ---------------------------------------------------------------- scf.parallel


@irdl_custom_directive
class ScfParallelHeader(CustomDirective):
    """``(%i, ...) = (%lb, ...) to (%ub, ...) step (%s, ...) (init (%v, ...))? (-> types)?``.

    Binds the body's induction variables (of type ``index``); the init
    values have the result types.
    """

    lower: VariadicOperandVariable
    upper: VariadicOperandVariable
    step: VariadicOperandVariable
    inits: VariadicOperandVariable
    init_types: TypeDirective
    res_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("ScfParallelHeader", parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: scf.parallel prints with xDSL's print()."""


class ScfParallelHeaderRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        shared_rule(gen, "scf_parallel_list", '"(" [ssa_uses] ")"', lambda c: c[0] or [])
        return shared_rule(
            gen,
            "scf_parallel_header",
            'scf_parallel_list "=" scf_parallel_list "to" scf_parallel_list '
            '"step" scf_parallel_list ["init" scf_parallel_list] ["->" fn_results]',
            lambda c: c,
        )

    def apply(self, b, st, d: ScfParallelHeader, plan, child) -> None:
        ivs, lower, upper, steps, inits, res = child
        if not ivs:
            raise b.error(
                "'scf.parallel' op needs at least one tuple element for lowerBound, "
                "upperBound and step",
                st.tok,
            )
        for what, toks in (("lower bounds", lower), ("upper bounds", upper), ("steps", steps)):
            if len(toks) != len(ivs):
                raise b.error(
                    f"expected {len(ivs)} {what} (one per induction variable), got {len(toks)}",
                    toks[0] if toks else ivs[0],
                )
        _bind_names(b, ivs)
        for var, toks in ((d.lower, lower), (d.upper, upper), (d.step, steps)):
            st.operands[var.index] = tuple(toks)
            st.otypes[var.index] = (_INDEX,) * len(toks)
        inits = inits or []
        res = res or []
        if len(inits) != len(res):
            raise b.error(
                f"{len(inits)} init values present, but {len(res)} result types",
                inits[0] if inits else st.tok,
            )
        st.operands[d.inits.index] = tuple(inits)
        _set_types(b, st, plan, d.init_types, res, st.tok)
        _set_types(b, st, plan, d.res_types, res, st.tok)
        st.region_args[0] = [(iv, _INDEX) for iv in ivs]


# ---------------------------------------------------------------- result types


@irdl_custom_directive
class ScfArrowTypes(CustomDirective):
    """``(-> T | -> (T, ...))?``: MLIR's optional arrow type list."""

    types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("ScfArrowTypes", parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: the ops print with xDSL's print()."""


class ScfArrowTypesRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        name = shared_rule(gen, "scf_arrow_types", '"->" fn_results', lambda c: c[0])
        return f"[{name}]"

    def apply(self, b, st, d: ScfArrowTypes, plan, child) -> None:
        _set_types(b, st, plan, d.types, child or (), st.tok)


@irdl_custom_directive
class ScfArrowTypeList(CustomDirective):
    """``(-> T, ...)?``: an arrow, then at least one type, no parentheses."""

    types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("ScfArrowTypeList", parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: the ops print with xDSL's print()."""


class ScfArrowTypeListRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        name = shared_rule(gen, "scf_arrow_type_list", '"->" type_list', lambda c: c[0])
        return f"[{name}]"

    def apply(self, b, st, d: ScfArrowTypeList, plan, child) -> None:
        _set_types(b, st, plan, d.types, child or (), st.tok)


# ---------------------------------------------------------------- scf.index_switch


@irdl_custom_directive
class ScfSwitchCases(CustomDirective):
    """``(case N {region})*``: the case values (an i64 array) and their regions."""

    cases: AttributeVariable
    regions: VariadicRegionVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("ScfSwitchCases", parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: scf.index_switch prints with xDSL's print()."""


class ScfSwitchCasesRule(DirectiveRule):
    has_regions = True

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "scf_switch_case", '"case" INT region', lambda c: (c[0], c[1]))
        name = shared_rule(gen, "scf_switch_cases", "scf_switch_case+", lambda c: c)
        return f"[{name}]"

    def apply(self, b, st, d: ScfSwitchCases, plan, child) -> None:
        values: list[int] = []
        regions: list[Region] = []
        for tok, region in child or ():
            text = tok.value
            if text.startswith("+"):
                raise b.error("expected integer value", tok)
            value = parse_int(text)
            if not _I64_MIN <= value <= _I64_MAX:
                raise b.error(f"integer value {text} is out of the range of i64", tok)
            values.append(value)
            regions.append(region)
        attr = DenseArrayBase.from_list(i64, values)
        (st.props if d.cases.is_property else st.attrs)[d.cases.name] = attr
        st.regions[d.regions.index] = tuple(regions)


# ---------------------------------------------------------------- scf.reduce


@irdl_custom_directive
class ScfReduceRegions(CustomDirective):
    """``({region} (,? {region})*)?``: MLIR separates them with commas, xDSL with spaces."""

    regions: VariadicRegionVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed("ScfReduceRegions", parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: scf.reduce prints with xDSL's format."""


class ScfReduceRegionsRule(DirectiveRule):
    has_regions = True

    def grammar(self, d, gen) -> str:
        name = shared_rule(
            gen,
            "scf_reduce_regions",
            'region ([","] region)*',
            lambda c: [r for r in c if isinstance(r, Region)],
        )
        return f"[{name}]"

    def apply(self, b, st, d: ScfReduceRegions, plan, child) -> None:
        st.regions[d.regions.index] = tuple(child or ())


# ---------------------------------------------------------------- tables

FORMATS: dict[str, str] = {
    "scf.while": (
        "custom<ScfWhileHeader>($arguments, type($arguments), type($res)) "
        "$before_region `do` $after_region attr-dict-with-keyword"
    ),
    "scf.parallel": (
        "custom<ScfParallelHeader>($lowerBound, $upperBound, $step, $initVals, "
        "type($initVals), type($res)) $body attr-dict"
    ),
    "scf.execute_region": "custom<ScfArrowTypes>(type($outs)) $region attr-dict",
    "scf.index_switch": (
        "$arg attr-dict custom<ScfArrowTypeList>(type($output)) "
        "custom<ScfSwitchCases>($cases, $case_regions) `default` $default_region"
    ),
    "scf.reduce": (
        "(`(` $args^ `:` type($args) `)`)? custom<ScfReduceRegions>($reductions) attr-dict"
    ),
}

DIRECTIVES: dict[str, type[CustomDirective]] = {
    "ScfWhileHeader": ScfWhileHeader,
    "ScfParallelHeader": ScfParallelHeader,
    "ScfArrowTypes": ScfArrowTypes,
    "ScfArrowTypeList": ScfArrowTypeList,
    "ScfSwitchCases": ScfSwitchCases,
    "ScfReduceRegions": ScfReduceRegions,
}

RULES: dict[str, DirectiveRule] = {
    "ScfWhileHeader": ScfWhileHeaderRule(),
    "ScfParallelHeader": ScfParallelHeaderRule(),
    "ScfArrowTypes": ScfArrowTypesRule(),
    "ScfArrowTypeList": ScfArrowTypeListRule(),
    "ScfSwitchCases": ScfSwitchCasesRule(),
    "ScfReduceRegions": ScfReduceRegionsRule(),
}
