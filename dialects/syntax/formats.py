"""Grammar rules generated from declarative assembly formats.

Each op's custom syntax is declared once, as its xDSL ``assembly_format``.
Here the directive tree that xDSL's ``FormatParser`` builds from that string
becomes

* an alternative ``_OPSTART K_<n> ... -> cop_<n>`` of the grammar's
  ``custom_op`` rule, whose keyword terminal ``K_<n>`` is the op name (so
  LALR picks the rule from the op's first token), and
* an :class:`OpPlan`: one :class:`Slot` per child of that rule saying where
  the matched piece goes (operand, type, attribute, region, ...), plus the
  code that resolves operands and infers types with xDSL's own constraint
  inference and builds the op with ``Op.create``.

Ops with regions get their rule split in two: ``coph_<n>`` (everything
before the first region) reduces before the region opens, so the builder
knows whether the op is isolated and which entry-block arguments its regions
take (``implicit_region_operands``, or arguments bound by a custom
directive such as ``scf.for``'s induction variable).

A directive with no LALR rendering raises :class:`FormatError` naming the op.

Standard-dialect ops that xDSL parses by hand get an equivalent format from
:data:`STANDARD_FORMATS` (one table, still formats, not grammar rules).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from lark import Token
from xdsl.dialects.builtin import DenseArrayBase, UnitAttr, i32
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import (
    AttrSizedOperandSegments,
    AttrSizedRegionSegments,
    AttrSizedResultSegments,
    AttrSizedSuccessorSegments,
    IRDLOperation,
    OptionalDef,
    SameVariadicOperandSize,
    SameVariadicResultSize,
    VariadicDef,
    VerificationContext,
)
from xdsl.irdl.declarative_assembly_format import (
    AttrDictDirective,
    AttributeVariable,
    CustomDirective,
    DenseArrayAttributeVariable,
    FormatDirective,
    FormatProgram,
    FunctionalTypeDirective,
    KeywordDirective,
    OperandsDirective,
    OperandVariable,
    OptionalGroupDirective,
    OptionalOperandVariable,
    OptionalRegionVariable,
    OptionalResultVariable,
    OptionalSuccessorVariable,
    OptionalUnitAttrVariable,
    ParsingState,
    PunctuationDirective,
    RegionVariable,
    ResultsDirective,
    ResultVariable,
    SuccessorVariable,
    SymbolNameAttributeVariable,
    TypedAttributeVariable,
    TypeDirective,
    UniqueBaseAttributeVariable,
    VariadicOperandVariable,
    VariadicRegionVariable,
    VariadicResultVariable,
    VariadicSuccessorVariable,
    WhitespaceDirective,
)
from xdsl.irdl.declarative_assembly_format_parser import FormatParser
from xdsl.parser import Parser as XParser
from xdsl.traits import IsolatedFromAbove, IsTerminator, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import ParseError, VerifyException

from ..fastir import create_op
from . import attributes as A
from .directive_rules import DirectiveRule

# Equivalent declarative formats for standard ops whose xDSL class has a
# hand-written parse().  Keys are op names; values are format strings over
# the op's own fields (custom<...> names refer to directive_rules).
STANDARD_FORMATS: dict[str, str] = {
    "arith.constant": "attr-dict $value",
    "func.return": "attr-dict ($arguments^ `:` type($arguments))?",
    "func.call": "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $res)",
    "scf.yield": "attr-dict ($arguments^ `:` type($arguments))?",
    "scf.for": (
        "custom<ForHeader>($lb, type($lb), $ub, $step, $iter_args, type($iter_args), type($res)) "
        "$body attr-dict"
    ),
    "scf.if": (
        "$cond custom<ScfArrowTypes>(type($output)) $true_region (`else` $false_region^)? attr-dict"
    ),
    "tensor.empty": "`(` $dynamic_sizes `)` attr-dict `:` type($tensor)",
}


def _merge_standard_ops() -> None:
    from .standard_ops import merged

    for name, fmt in merged()[0].items():
        if name in STANDARD_FORMATS:
            raise ValueError(f"standard_ops redefines the format of '{name}'")
        STANDARD_FORMATS[name] = fmt


_merge_standard_ops()


class FormatError(Exception):
    """An op's assembly format cannot become an LALR rule."""

    def __init__(self, op_name: str, message: str):
        super().__init__(f"cannot generate a grammar rule for '{op_name}': {message}")
        self.op_name = op_name


# ---------------------------------------------------------------- parse state


class OpState:
    """The pieces of one op matched so far (indexed like the op definition)."""

    __slots__ = (
        "operands",
        "otypes",
        "rtypes",
        "attrs",
        "props",
        "regions",
        "succs",
        "region_args",
        "tok",
        "absent_regions",
    )

    def __init__(self, plan: OpPlan, tok: Token):
        self.operands: list[Sequence[Token] | None] = [None] * plan.n_operands
        self.otypes: list[Sequence[Attribute] | None] = [None] * plan.n_operands
        self.rtypes: list[Sequence[Attribute] | None] = [None] * plan.n_results
        self.attrs: dict[str, Attribute] = {}
        self.props: dict[str, Attribute] = {}
        self.regions: list[Sequence[Region] | None] = [None] * plan.n_regions
        self.succs: list[Sequence[Any] | None] = [None] * plan.n_successors
        # Entry-block arguments bound by a custom directive: region def index -> [(tok, type)].
        self.region_args: dict[int, list[tuple[Token | None, Attribute]]] = {}
        self.tok = tok
        # Regions the text left out (an optional group not taken): no implied terminator.
        self.absent_regions: list[Region] = []


# ---------------------------------------------------------------- slots


class Slot(ABC):
    """Where one child of the generated rule goes."""

    #: False for slots that match no child (a unit attribute set by its group).
    consumes = True

    @abstractmethod
    def apply(self, b, st: OpState, child) -> None:
        """Store ``child`` (what the rule matched for this slot) into ``st``."""


def apply_slots(b, st: OpState, slots: Sequence[Slot], children) -> None:
    i = 0
    for slot in slots:
        if slot.consumes:
            slot.apply(b, st, children[i])
            i += 1
        else:
            slot.apply(b, st, None)


class OperandSlot(Slot):
    def __init__(self, index: int):
        self.index = index

    def apply(self, b, st, child):
        st.operands[self.index] = (child,)


class VarOperandSlot(Slot):
    def __init__(self, index: int):
        self.index = index

    def apply(self, b, st, child):
        st.operands[self.index] = child or ()


class OptOperandSlot(Slot):
    def __init__(self, index: int):
        self.index = index

    def apply(self, b, st, child):
        st.operands[self.index] = (child,) if child is not None else ()


class OperandsSlot(Slot):
    def __init__(self, plan: OpPlan):
        self.plan = plan

    def apply(self, b, st, child):
        items = child or []
        try:
            parts = self.plan.split(items, "operand")
        except VerifyException as e:
            raise b.error(str(e), items[0] if items else st.tok) from None
        for i, part in enumerate(parts):
            st.operands[i] = part


class TypeTarget:
    """The operand/result (or all of them) whose types a type directive sets."""

    def __init__(self, plan: OpPlan, kind: str, index: int, arity: str):
        self.plan = plan
        self.kind = kind  # "operand" | "result" | "operands" | "results"
        self.index = index
        self.arity = arity  # "single" | "var" | "opt" | "all"

    def set(self, b, st: OpState, types: Sequence[Attribute], tok) -> None:
        if self.arity == "all":
            try:
                parts = self.plan.split(
                    list(types), "operand" if self.kind == "operands" else "result"
                )
            except VerifyException as e:
                raise b.error(str(e), tok) from None
            target = st.otypes if self.kind == "operands" else st.rtypes
            for i, part in enumerate(parts):
                target[i] = part
            return
        if self.arity == "single" and len(types) != 1:
            raise b.error(f"expected exactly one type for '{self.name}', got {len(types)}", tok)
        if self.arity == "opt" and len(types) > 1:
            raise b.error(f"expected at most one type for '{self.name}', got {len(types)}", tok)
        (st.otypes if self.kind == "operand" else st.rtypes)[self.index] = tuple(types)

    @property
    def name(self) -> str:
        defs = self.plan.op_def.operands if self.kind == "operand" else self.plan.op_def.results
        return defs[self.index][0]


class TypeSlot(Slot):
    def __init__(self, target: TypeTarget):
        self.target = target
        self.single = target.arity == "single"

    def apply(self, b, st, child):
        if self.single:
            (st.otypes if self.target.kind == "operand" else st.rtypes)[self.target.index] = (
                child,
            )
            return
        if child is None:
            types = ()
        elif isinstance(child, list):
            types = child
        else:
            types = (child,)
        self.target.set(b, st, types, st.tok)


class FunctionalSlot(Slot):
    def __init__(self, ins: TypeTarget, outs: TypeTarget):
        self.ins = ins
        self.outs = outs

    def apply(self, b, st, child):
        self.ins.set(b, st, child.inputs.data, st.tok)
        self.outs.set(b, st, child.outputs.data, st.tok)


class AttrSlot(Slot):
    """An attribute/property variable; ``mode`` says how its text is matched."""

    def __init__(self, directive: AttributeVariable, mode: str):
        self.d = directive
        self.mode = mode
        self.name = directive.name
        self.is_prop = directive.is_property
        self.cache: dict[Any, Attribute] = {}

    def apply(self, b, st, child):
        if child is None:
            return
        mode = self.mode
        if mode == "attr":
            attr = child
        elif mode == "typed":
            key = (child.type, child.value)
            attr = self.cache.get(key)
            if attr is None:
                try:
                    attr = A.literal_with_type(child.value, child.type, self.d.unique_type)
                except A.AttrError as e:
                    raise b.error(str(e), child) from None
                self._remember(key, attr)
        elif mode == "symbol":
            from xdsl.dialects.builtin import StringAttr

            attr = StringAttr(b.symbol_name(child))
        elif mode == "unique":
            attr = self.cache.get(child.value)
            if attr is None:
                attr = self._parse_unique(b, child)
                self._remember(child.value, attr)
        elif mode == "dense_array":
            toks = child or []
            try:
                attr = A.dense_array(self.d.elt_type, [(t.type, t.value) for t in toks])
            except A.AttrError as e:
                raise b.error(str(e), toks[0] if toks else st.tok) from None
        else:  # pragma: no cover
            raise AssertionError(mode)
        (st.props if self.is_prop else st.attrs)[self.name] = attr

    def _remember(self, key, attr: Attribute) -> None:
        # Literals repeat (`tfrt.constant.i32 0`); the bound keeps a long-lived
        # frontend from growing without end.
        if len(self.cache) > 4096:
            self.cache.clear()
        self.cache[key] = attr

    def _parse_unique(self, b, tok):
        ctx = b.ctx
        try:
            p = XParser(ctx, tok.value, b.filename)
            attr = self.d.parse_attr(p)
            if p._current_token.kind.name != "EOF":  # noqa: SLF001
                raise ParseError(p._current_token.span, "unexpected trailing text")  # noqa: SLF001
        except ParseError as e:
            raise b._xdsl_error(e, tok, tok.value) from None
        except (VerifyException, ValueError, TypeError, KeyError) as e:
            raise b.error(f"invalid value for '{self.name}': {e}", tok) from None
        return attr


class UnitMarkSlot(Slot):
    """Sets a UnitAttr: its optional group matched."""

    consumes = False

    def __init__(self, directive: OptionalUnitAttrVariable):
        self.name = directive.name
        self.is_prop = directive.is_property

    def apply(self, b, st, child):
        (st.props if self.is_prop else st.attrs)[self.name] = UnitAttr()


class AttrDictSlot(Slot):
    def __init__(self, d: AttrDictDirective, op_props: frozenset[str] = frozenset()):
        self.reserved = frozenset(d.reserved_attr_names)
        self.expected_props = frozenset(d.expected_properties)
        # Properties the format spells elsewhere: one the text left out may
        # come in the dictionary (MLIR turns inherent attributes of the
        # dictionary into properties), e.g. `linalg.matmul {indexing_maps = ...}`.
        self.op_props = op_props - self.expected_props

    def apply(self, b, st, child):
        if not child:
            return
        clash = self.reserved.intersection(child)
        if clash:
            raise b.error(
                f"attributes {', '.join(sorted(clash))} are defined in other parts of the "
                "assembly format, and thus should not be defined in the attribute dictionary",
                st.tok,
            )
        if (self.expected_props and not self.expected_props.isdisjoint(child)) or (
            self.op_props and not self.op_props.isdisjoint(child)
        ):
            props = st.props
            rest = {}
            for k, v in child.items():
                if k in self.expected_props or (k in self.op_props and k not in props):
                    props[k] = v
                else:
                    rest[k] = v
            child = rest
        st.attrs.update(child)


class RegionSlot(Slot):
    def __init__(self, index: int, arity: str):
        self.index = index
        self.arity = arity

    def apply(self, b, st, child):
        if self.arity == "single":
            st.regions[self.index] = (child,)
        elif self.arity == "opt":
            st.regions[self.index] = (child,) if child is not None else ()
        else:
            st.regions[self.index] = tuple(child or ())


class SuccessorSlot(Slot):
    def __init__(self, index: int, arity: str):
        self.index = index
        self.arity = arity

    def apply(self, b, st, child):
        if self.arity == "single":
            toks = (child,)
        elif self.arity == "opt":
            toks = (child,) if child is not None else ()
        else:
            toks = tuple(child or ())
        st.succs[self.index] = tuple(b.successor_block(t) for t in toks)


class GroupSlot(Slot):
    """An optional group (its own rule): run its slots, or empty its variables."""

    def __init__(
        self, then_slots: list[Slot], else_slots: list[Slot], empty: Callable, has_else: bool
    ):
        self.then_slots = then_slots
        self.else_slots = else_slots
        self.empty = empty
        self.has_else = has_else

    def apply(self, b, st, child):
        if child is None:
            self.empty(st, then=True)
            return
        branch, children = child
        if branch == "then":
            apply_slots(b, st, self.then_slots, children)
            if self.has_else:
                self.empty(st, then=False)
        else:
            apply_slots(b, st, self.else_slots, children)
            self.empty(st, then=True)


class CustomSlot(Slot):
    def __init__(self, rule, directive: CustomDirective, plan: OpPlan):
        self.rule = rule
        self.d = directive
        self.plan = plan

    def apply(self, b, st, child):
        self.rule.apply(b, st, self.d, self.plan, child)


# ---------------------------------------------------------------- plans


class OpPlan:
    """Everything needed to build one op from its generated rule's children."""

    def __init__(self, cls: type[IRDLOperation], fmt: str, index: int):
        self.cls = cls
        self.name = cls.name
        self.op_def = cls.get_irdl_definition()
        self.fmt = fmt
        self.index = index
        od = self.op_def
        self.n_operands = len(od.operands)
        self.n_results = len(od.results)
        self.n_regions = len(od.regions)
        self.n_successors = len(od.successors)
        self.operand_variadic = [isinstance(d, VariadicDef) for _, d in od.operands]
        self.operand_optional = [isinstance(d, OptionalDef) for _, d in od.operands]
        self.result_variadic = [isinstance(d, VariadicDef) for _, d in od.results]
        self.result_optional = [isinstance(d, OptionalDef) for _, d in od.results]
        self.head_slots: list[Slot] = []
        self.tail_slots: list[Slot] = []
        self.rules: list[str] = []
        self.has_regions = False
        # Types fixed by the definition (`operand_def(i32)`): no inference needed.
        empty: set[str] = set()
        self.const_otypes: list[Any] = []
        for _, d in od.operands:
            if not isinstance(d, VariadicDef) and d.constr.can_infer(empty, length_known=True):
                self.const_otypes.append(tuple(d.constr.infer(VerificationContext(), length=1)))
            elif d.constr.can_infer(empty, length_known=True):
                self.const_otypes.append(d.constr)
            else:
                self.const_otypes.append(None)
        self.const_rtypes: list[Any] = []
        for _, d in od.results:
            if not isinstance(d, VariadicDef) and d.constr.can_infer(empty, length_known=False):
                self.const_rtypes.append(tuple(d.constr.infer(VerificationContext(), length=None)))
            else:
                self.const_rtypes.append(None)
        self.segments = []
        for opt in od.options:
            if isinstance(
                opt,
                AttrSizedOperandSegments
                | AttrSizedResultSegments
                | AttrSizedRegionSegments
                | AttrSizedSuccessorSegments,
            ):
                self.segments.append(opt)
        self.same_operand_size = SameVariadicOperandSize() in od.options
        self.same_result_size = SameVariadicResultSize() in od.options
        implicit = getattr(cls, "implicit_region_operands", None)
        self.implicit = implicit if callable(implicit) else None
        self.program = FormatProgram(())
        self.hooks: list[tuple[Any, CustomDirective]] = []
        self.terminators = list(cls.get_traits_of_type(SingleBlockImplicitTerminator))
        self.isolated = cls.has_trait(IsolatedFromAbove)
        self._inferred: dict[tuple, tuple] = {}
        self._resolved: dict[tuple, tuple] = {}
        self._plain: bool | None = None  # see _create

    # ---- helpers used by slots

    def split(self, items: list, kind: str) -> list[tuple]:
        """Distribute a flat list over the operand (or result) definitions."""
        variadic = self.operand_variadic if kind == "operand" else self.result_variadic
        optional = self.operand_optional if kind == "operand" else self.result_optional
        same = self.same_operand_size if kind == "operand" else self.same_result_size
        n_var = sum(variadic)
        n_fixed = len(variadic) - n_var
        extra = len(items) - n_fixed
        if extra < 0 or (n_var == 0 and extra != 0):
            raise VerifyException(
                f"expected {n_fixed}{' or more' if n_var else ''} {kind}s, got {len(items)}"
            )
        if n_var > 1:
            if not same or extra % n_var:
                raise VerifyException(
                    f"cannot split {len(items)} {kind}s over several variadic {kind}s"
                )
            per = extra // n_var
        else:
            per = extra
        out, i = [], 0
        for var, opt in zip(variadic, optional, strict=True):
            k = per if var else 1
            if var and opt and k > 1:
                raise VerifyException(f"expected at most one value for an optional {kind}")
            out.append(tuple(items[i : i + k]))
            i += k
        return out

    # ---- building

    def head(self, b, children) -> OpState:
        st = OpState(self, children[0])
        apply_slots(b, st, self.head_slots, children[1:])
        return st

    def region_args(self, b, st: OpState):
        """Entry-block arguments of each region, known once the head is parsed."""
        if st.region_args:
            args = [st.region_args.get(i) for i in range(max(st.region_args) + 1)]
            return args
        if self.implicit is None:
            return None
        toks: list[Token] = []
        for ops in st.operands:
            toks.extend(ops or ())
        types = self.operand_types_for_head(b, st)
        out = []
        for r in range(self.n_regions):
            try:
                idx = list(self.implicit(len(toks), r))
            except Exception as e:  # noqa: BLE001 - dialect code; report, don't crash
                raise b.error(
                    f"'{self.name}' implicit_region_operands failed: {e}", st.tok
                ) from None
            bad = [i for i in idx if not 0 <= i < len(toks)]
            if bad:
                raise b.error(
                    f"'{self.name}' op implicit region operand index {bad[0]} is out of range "
                    f"({len(toks)} operands)",
                    st.tok,
                )
            out.append([(toks[i], types[i]) for i in idx])
        return out

    def operand_types_for_head(self, b, st: OpState) -> list[Attribute]:
        """One type per operand token parsed so far (for implicit region arguments)."""
        per_def: list[Sequence[Attribute]] = []
        missing = False
        for i, ops in enumerate(st.operands):
            types = st.otypes[i]
            if types is None:
                const = self.const_otypes[i]
                if isinstance(const, tuple):
                    types = const
                elif const is not None:
                    types = tuple(const.infer(VerificationContext(), length=len(ops or ())))
            if types is None:
                missing = True
                break
            per_def.append(types)
        if missing:
            per_def, _ = self.infer(b, st, need_results=False)
        flat: list[Attribute] = []
        for ops, types in zip(st.operands, per_def, strict=True):
            toks = ops or ()
            if len(types) != len(toks):
                raise b.error(
                    f"{len(toks)} operands present, but expected {len(types)}",
                    toks[0] if toks else st.tok,
                )
            flat.extend(types)
        return flat

    def infer(self, b, st: OpState, need_results: bool = True):
        """Fill in the types the text does not spell, with xDSL's constraint inference.

        The answer depends only on what the text spelled (types, attributes,
        properties, operand counts), which repeats from op to op
        (``arith.addf %a, %b : f32``), so it is remembered per plan."""
        found, key = _lookup(self._inferred, (need_results, _spelling(st)))
        if found is not None:
            otypes, rtypes = found
            return list(otypes), (list(rtypes) if rtypes is not None else None)
        otypes, rtypes = self._infer(b, st, need_results)
        _remember(self._inferred, key, (tuple(otypes), tuple(rtypes) if rtypes is not None else None))
        return otypes, rtypes

    def _infer(self, b, st: OpState, need_results: bool):
        state = ParsingState(self.cls)
        state.operands = [ops if ops is not None else () for ops in st.operands]
        state.operand_types = list(st.otypes)
        state.result_types = list(st.rtypes)
        state.attributes = dict(st.attrs)
        state.properties = dict(st.props)
        try:
            self.program.resolve_constraint_variables(state, self.op_def)
            otypes = self.program.resolve_operand_types(state, self.op_def)
            rtypes = self.program.resolve_result_types(state, self.op_def) if need_results else None
        except VerifyException as e:
            raise b.error(f"'{self.name}' op {e}", st.tok) from None
        except ValueError as e:
            raise b.error(f"'{self.name}' op cannot infer the types: {e}", st.tok) from None
        return otypes, rtypes

    def build(self, b, st: OpState, children, slots: list[Slot]):
        apply_slots(b, st, slots, children)
        if None not in st.otypes and None not in st.rtypes:
            return self._create(b, st, st.otypes, st.rtypes)  # all spelled in the text
        # The missing types follow from what the text spelled (types,
        # attributes, operand counts), which repeats from op to op: resolved
        # once per spelling.
        found, key = _lookup(self._resolved, _spelling(st))
        if found is None:
            otypes, rtypes = self._resolve_types(b, st)
            _remember(self._resolved, key, (tuple(otypes), tuple(rtypes)))
        else:
            otypes, rtypes = found
        return self._create(b, st, otypes, rtypes)

    def _resolve_types(self, b, st: OpState):
        """Each operand's and result's types (a tuple each)."""
        otypes = st.otypes
        rtypes = st.rtypes
        # Fast path: everything spelled in the text or fixed by the definition.
        need_infer = False
        for i in range(self.n_operands):
            if otypes[i] is None:
                const = self.const_otypes[i]
                if isinstance(const, tuple):
                    otypes[i] = const
                elif const is not None:
                    otypes[i] = tuple(
                        const.infer(VerificationContext(), length=len(st.operands[i] or ()))
                    )
                else:
                    need_infer = True
        for i in range(self.n_results):
            if rtypes[i] is None:
                const = self.const_rtypes[i]
                if const is not None:
                    rtypes[i] = const
                else:
                    need_infer = True
        if need_infer:
            otypes, rtypes = self.infer(b, st)
        return otypes, rtypes

    def _create(self, b, st: OpState, otypes, rtypes):
        if self._plain is None:
            # No hooks, segment sizes, regions, successors or implied
            # terminators: most ops (arith's, ...) take the short way.
            self._plain = not (
                self.hooks or self.segments or self.n_regions or self.n_successors
                or self.terminators
            )  # fmt: skip
        if self._plain:
            operands = []
            use = b.use
            for i in range(self.n_operands):
                toks = st.operands[i] or ()
                types = otypes[i]
                if len(types) != len(toks):
                    raise b.error(
                        f"{len(toks)} operands present, but expected {len(types)}",
                        toks[0] if toks else st.tok,
                    )
                for tok, typ in zip(toks, types):
                    operands.append(use(tok, typ))
            result_types = [t for ts in rtypes for t in ts]
            try:
                return create_op(self.cls, operands, result_types, st.props, st.attrs)
            except (VerifyException, ValueError, TypeError) as e:
                raise b.error(f"'{self.name}' op {e}", st.tok) from None
        operands = []
        use = b.use
        hooks = self.hooks
        per_def = [] if hooks else None
        for i in range(self.n_operands):
            toks = st.operands[i] or ()
            types = otypes[i]
            if len(types) != len(toks):
                raise b.error(
                    f"{len(toks)} operands present, but expected {len(types)}",
                    toks[0] if toks else st.tok,
                )
            if per_def is None:
                for tok, typ in zip(toks, types, strict=True):
                    operands.append(use(tok, typ))
            else:
                vals = [use(tok, typ) for tok, typ in zip(toks, types, strict=True)]
                per_def.append(vals)
                operands.extend(vals)
        for rule, d in hooks:
            rule.before_create(b, st, d, self, per_def)
        result_types = []
        for ts in rtypes:
            result_types.extend(ts)
        props = st.props
        attrs = st.attrs
        for opt in self.segments:
            container = props if opt.as_property else attrs
            if isinstance(opt, AttrSizedOperandSegments):
                sizes = [len(o or ()) for o in st.operands]
            elif isinstance(opt, AttrSizedResultSegments):
                sizes = [len(t) for t in rtypes]
            elif isinstance(opt, AttrSizedRegionSegments):
                sizes = [len(r or ()) for r in st.regions]
            else:
                sizes = [len(s or ()) for s in st.succs]
            container[opt.attribute_name] = _segment_sizes(tuple(sizes))
        regions = []
        for r in st.regions:
            if r:
                regions.extend(r)
        succs = []
        for s in st.succs:
            if s:
                succs.extend(s)
        try:
            op = create_op(self.cls, operands, result_types, props, attrs, regions, succs)
            # Custom forms may leave out the terminator MLIR's
            # SingleBlockImplicitTerminator implies (`scf.if %c { ... }`).
            for trait in self.terminators:
                _ensure_terminator(op, trait, st.absent_regions)
        except (VerifyException, ValueError, TypeError) as e:
            raise b.error(f"'{self.name}' op {e}", st.tok) from None
        return op


@functools.lru_cache(maxsize=1024)
def _segment_sizes(sizes: tuple[int, ...]) -> DenseArrayBase:
    """The ``operandSegmentSizes``-style attribute (attributes are immutable)."""
    return DenseArrayBase.from_list(i32, sizes)


# ---------------------------------------------------------------- generation


def make_target(plan: OpPlan, d) -> TypeTarget | None:
    """The TypeTarget of a typeable directive (the inside of ``type(...)``)."""
    if isinstance(d, TypeDirective):
        d = d.inner
    if isinstance(d, OperandsDirective):
        return TypeTarget(plan, "operands", -1, "all")
    if isinstance(d, ResultsDirective):
        return TypeTarget(plan, "results", -1, "all")
    if isinstance(d, OptionalOperandVariable):
        return TypeTarget(plan, "operand", d.index, "opt")
    if isinstance(d, VariadicOperandVariable):
        return TypeTarget(plan, "operand", d.index, "var")
    if isinstance(d, OperandVariable):
        return TypeTarget(plan, "operand", d.index, "single")
    if isinstance(d, OptionalResultVariable):
        return TypeTarget(plan, "result", d.index, "opt")
    if isinstance(d, VariadicResultVariable):
        return TypeTarget(plan, "result", d.index, "var")
    if isinstance(d, ResultVariable):
        return TypeTarget(plan, "result", d.index, "single")
    return None


class RuleGen:
    """Translates one op's directive tree to lark text and slots."""

    def __init__(self, plan: OpPlan, directive_rules: dict[str, Any], shared_rules: dict):
        self.plan = plan
        self.directive_rules = directive_rules
        self.shared_rules = shared_rules
        self.n_groups = 0
        self.extra_rules: list[str] = []

    def fail(self, msg: str):
        raise FormatError(self.plan.name, msg)

    def target(self, d) -> TypeTarget:
        t = make_target(self.plan, d)
        if t is None:
            self.fail(f"unsupported typeable directive {type(d).__name__}")
        return t

    def element(self, d: FormatDirective) -> tuple[str, list[Slot]]:
        """(lark text, slots for the children that text produces)."""
        p = self.plan
        if isinstance(d, WhitespaceDirective):
            return "", []
        if isinstance(d, PunctuationDirective | KeywordDirective):
            text = d.punctuation if isinstance(d, PunctuationDirective) else d.keyword
            return json.dumps(text), []
        if isinstance(d, OptionalOperandVariable):
            return "[SSA_USE]", [OptOperandSlot(d.index)]
        if isinstance(d, VariadicOperandVariable):
            return "[ssa_uses]", [VarOperandSlot(d.index)]
        if isinstance(d, OperandVariable):
            return "SSA_USE", [OperandSlot(d.index)]
        if isinstance(d, OperandsDirective):
            return "[ssa_uses]", [OperandsSlot(p)]
        if isinstance(d, TypeDirective):
            t = self.target(d.inner)
            if t.arity == "single":
                return "type", [TypeSlot(t)]
            if t.arity == "opt":
                return "[type]", [TypeSlot(t)]
            return "[type_list]", [TypeSlot(t)]
        if isinstance(d, FunctionalTypeDirective):
            return "function_type", [
                FunctionalSlot(
                    self.target(d.operand_typeable_directive),
                    self.target(d.result_typeable_directive),
                )
            ]
        if isinstance(d, AttrDictDirective):
            slot = AttrDictSlot(d, frozenset(self.plan.op_def.properties))
            if d.with_keyword:
                return '["attributes" attr_dict]', [slot]
            return "[attr_dict]", [slot]
        if isinstance(d, OptionalUnitAttrVariable):
            return "", [UnitMarkSlot(d)]
        if isinstance(d, AttributeVariable):
            return self.attribute(d)
        if isinstance(d, VariadicRegionVariable):
            p.has_regions = True
            return "[regions_list]", [RegionSlot(d.index, "var")]
        if isinstance(d, OptionalRegionVariable):
            p.has_regions = True
            return "[region]", [RegionSlot(d.index, "opt")]
        if isinstance(d, RegionVariable):
            p.has_regions = True
            return "region", [RegionSlot(d.index, "single")]
        if isinstance(d, VariadicSuccessorVariable):
            return "[caret_list]", [SuccessorSlot(d.index, "var")]
        if isinstance(d, OptionalSuccessorVariable):
            return "[CARET_ID]", [SuccessorSlot(d.index, "opt")]
        if isinstance(d, SuccessorVariable):
            return "CARET_ID", [SuccessorSlot(d.index, "single")]
        if isinstance(d, OptionalGroupDirective):
            return self.group(d)
        if isinstance(d, CustomDirective):
            rule = self.directive_rules.get(type(d).__name__)
            if rule is None:
                self.fail(
                    f"custom<{type(d).__name__}> has no lark rule in "
                    "tfrt.dialects.syntax.directive_rules"
                )
            text = rule.grammar(d, self)
            if rule.has_regions:
                p.has_regions = True
            if type(rule).before_create is not DirectiveRule.before_create:
                p.hooks.append((rule, d))
            if not text:
                return "", []
            return text, [CustomSlot(rule, d, p)]
        self.fail(f"unsupported directive {type(d).__name__}")

    def attribute(self, d: AttributeVariable) -> tuple[str, list[Slot]]:
        opt = d.is_optional

        def wrap(sym: str) -> str:
            return f"[{sym}]" if opt else sym

        if isinstance(d, TypedAttributeVariable):
            return wrap("bare_literal"), [AttrSlot(d, "typed")]
        if isinstance(d, UniqueBaseAttributeVariable):
            return wrap("ANGLE_BODY"), [AttrSlot(d, "unique")]
        if isinstance(d, SymbolNameAttributeVariable):
            return wrap("SYMBOL"), [AttrSlot(d, "symbol")]
        if isinstance(d, DenseArrayAttributeVariable):
            return wrap("bracket_elements"), [AttrSlot(d, "dense_array")]
        return wrap("attr_value"), [AttrSlot(d, "attr")]

    def sequence(self, elems: Sequence[FormatDirective]) -> tuple[str, list[Slot]]:
        texts, slots = [], []
        for e in elems:
            t, s = self.element(e)
            if t:
                texts.append(t)
            slots.extend(s)
        return " ".join(texts), slots

    def group(self, d: OptionalGroupDirective) -> tuple[str, list[Slot]]:
        self.n_groups += 1
        base = f"cog_{self.plan.index}_{self.n_groups}"
        then_elems = (*d.then_whitespace, d.then_first, *d.then_elements)
        then_text, then_slots = self.sequence(then_elems)
        else_text, else_slots = self.sequence(d.else_elements)
        if not then_text:
            self.fail("an optional group must match some text")
        then_rule = f"{base}_t"
        self.extra_rules.append(f"{then_rule}: {then_text}")
        empty = _make_empty(self.plan, then_elems, d.else_elements)
        if d.else_elements:
            else_rule = f"{base}_e"
            self.extra_rules.append(f"{else_rule}: {else_text}")
            self.extra_rules.append(f"{base}: {then_rule} | {else_rule}")
            return base, [GroupSlot(then_slots, else_slots, empty, True)]
        return f"[{then_rule}]", [GroupSlot(then_slots, [], empty, False)]


def _make_empty(plan: OpPlan, then_elems, else_elems):
    """The set_empty of xDSL's optional group, on our state.

    The directives are classified once, here: what runs per parse is a list
    of small setters (an optional group is not taken by most ops that have
    one, so this runs for nearly every op)."""

    def actions(elems) -> list[Callable[[OpState], None]]:
        out: list[Callable[[OpState], None]] = []
        for d in elems:
            _empty_actions(d, out)
        return out

    then_actions = actions(then_elems)
    else_actions = actions(else_elems)

    def empty(st: OpState, then: bool):
        for action in then_actions if then else else_actions:
            action(st)

    return empty


def _empty_actions(d, out: list) -> None:
    """Append to ``out`` what emptying directive ``d`` does to an OpState."""
    if isinstance(d, OptionalGroupDirective):
        for e in (d.then_first, *d.then_elements, *d.else_elements):
            _empty_actions(e, out)
    elif isinstance(d, OptionalOperandVariable | VariadicOperandVariable):
        out.append(_set_item("operands", d.index))
    elif isinstance(d, OperandsDirective):
        out.append(_set_all("operands"))
    elif isinstance(d, TypeDirective):
        inner = d.inner
        if isinstance(inner, OperandsDirective):
            out.append(_set_all("otypes"))
        elif isinstance(inner, ResultsDirective):
            out.append(_set_all("rtypes"))
        elif isinstance(inner, OptionalOperandVariable | VariadicOperandVariable):
            out.append(_set_item("otypes", inner.index))
        elif isinstance(inner, OptionalResultVariable | VariadicResultVariable):
            out.append(_set_item("rtypes", inner.index))
    elif isinstance(d, FunctionalTypeDirective):
        pass
    elif isinstance(d, OptionalRegionVariable | VariadicRegionVariable):
        out.append(_set_item("regions", d.index))
    elif isinstance(d, RegionVariable):
        index = d.index

        def absent_region(st: OpState) -> None:
            region = Region()
            st.absent_regions.append(region)
            st.regions[index] = (region,)

        out.append(absent_region)
    elif isinstance(d, OptionalSuccessorVariable | VariadicSuccessorVariable):
        out.append(_set_item("succs", d.index))
    elif isinstance(d, CustomDirective):
        for p in dataclasses.fields(d):
            v = getattr(d, p.name)
            if isinstance(v, FormatDirective):
                _empty_actions(v, out)


def _set_item(field: str, index: int) -> Callable[[OpState], None]:
    def action(st: OpState) -> None:
        getattr(st, field)[index] = ()

    return action


def _set_all(field: str) -> Callable[[OpState], None]:
    def action(st: OpState) -> None:
        setattr(st, field, [() for _ in getattr(st, field)])

    return action


def program_for(
    cls: type[IRDLOperation], fmt: str, directive_classes: dict[str, type]
) -> FormatProgram:
    """Parse ``fmt`` against ``cls``'s definition (with extra custom directives)."""
    op_def = cls.get_irdl_definition()
    extra = {n: c for n, c in directive_classes.items() if n not in op_def.custom_directives}
    if extra and "custom<" in fmt:
        op_def = dataclasses.replace(
            op_def, custom_directives={**op_def.custom_directives, **extra}
        )
    return FormatParser(fmt, op_def).parse_format()


def generate(
    cls: type[IRDLOperation],
    fmt: str,
    index: int,
    directive_rules: dict[str, Any],
    directive_classes: dict[str, type],
    shared_rules: dict,
) -> tuple[str, OpPlan]:
    """The lark rules for one op (besides its own alternative) and its plan.

    Optional groups become helper rules ``cog_<index>_<n>_t`` (and ``_e`` for
    an else branch); their callbacks tag the children with the branch taken.

    The op's own rule is ``plan.alternative``: an alternative of the single
    ``custom_op`` rule, aliased ``cop_<index>``.  One nonterminal for all ops
    keeps the LALR construction fast: with one nonterminal per op, every
    state that expects an operation would carry hundreds of nonterminal
    transitions (lark's analysis is quadratic in them).

    ``shared_rules`` collects helper rules that custom directives share
    between ops (name -> (text, callback)).
    """
    plan = OpPlan(cls, fmt, index)
    try:
        program = program_for(cls, fmt, directive_classes)
    except ParseError as e:
        raise FormatError(cls.name, f"invalid assembly format: {e.msg}") from None
    gen = RuleGen(plan, directive_rules, shared_rules)
    stmts = list(program.stmts)
    # Split before the first statement that holds a region.
    head_stmts, tail_stmts = stmts, []
    for i, s in enumerate(stmts):
        if _has_region(s, directive_rules):
            head_stmts, tail_stmts = stmts[:i], stmts[i:]
            break
    head_text, head_slots = gen.sequence(head_stmts)
    tail_text, tail_slots = gen.sequence(tail_stmts)
    kw = f"_OPSTART K_{index}"
    rules: list[str] = []
    rule = f"cop_{index}"
    if plan.has_regions:
        # The head reduces before the first region opens (see the module doc).
        rules.append(f"coph_{index}: {kw} {head_text}".rstrip())
        alternative = f"coph_{index} {tail_text}".rstrip() + f" -> {rule}"
        plan.head_slots = head_slots
        plan.tail_slots = tail_slots
    else:
        alternative = f"{kw} {head_text} {tail_text}".rstrip() + f" -> {rule}"
        plan.head_slots = head_slots + tail_slots
        plan.tail_slots = []
    rules.extend(gen.extra_rules)
    plan.rules = rules
    plan.alternative = alternative
    return "\n".join(rules) + "\n", plan


def _has_region(d, directive_rules) -> bool:
    if isinstance(d, RegionVariable | OptionalRegionVariable | VariadicRegionVariable):
        return True
    if isinstance(d, OptionalGroupDirective):
        return any(
            _has_region(e, directive_rules)
            for e in (d.then_first, *d.then_elements, *d.else_elements)
        )
    if isinstance(d, CustomDirective):
        rule = directive_rules.get(type(d).__name__)
        return bool(rule is not None and rule.has_regions)
    return False


def _ensure_terminator(op, trait: SingleBlockImplicitTerminator, absent: list[Region]) -> None:
    """Append the implied terminator to written single-block regions that lack one
    (an empty ``{}`` gets a block), as MLIR's ensureTerminator does."""
    for region in op.regions:
        if any(region is r for r in absent):
            continue
        blocks = region.blocks
        if not blocks:
            region.add_block(Block())
            blocks = region.blocks
        if len(blocks) != 1:
            continue
        block = blocks[0]
        last = block.last_op
        if last is None or not last.has_trait(IsTerminator, value_if_unregistered=False):
            term = trait.op_type.create()
            term.location = op.location
            block.add_op(term)


def _spelling(st: OpState) -> tuple:
    """What the text spelled of an op (operand counts, types, attributes,
    properties): the key of the per-plan type caches."""
    return (
        tuple(None if ops is None else len(ops) for ops in st.operands),
        tuple(st.otypes),
        tuple(st.rtypes),
        tuple(st.attrs.items()),
        tuple(st.props.items()),
    )


def _lookup(cache: dict, key: tuple) -> tuple:
    """(the cached value or None, the key, or None when it cannot be hashed:
    an attribute without a hash)."""
    try:
        return cache.get(key), key
    except TypeError:
        return None, None


def _remember(cache: dict, key: tuple | None, value: tuple) -> None:
    """Store ``value`` under ``key`` (unless None) in a cache of at most ~1024 entries."""
    if key is None:
        return
    if len(cache) > 1024:
        cache.clear()
    cache[key] = value
