"""MLIR's custom forms of the ``memref`` ops that have no format in xDSL.

xDSL 0.74 gives these ops no ``assembly_format``; only ``memref.alloc`` has
a hand-written parser, the others parse (and print) in generic form only.
The formats below follow MLIR's ``MemRefOps.td``:

    %m = memref.alloc(%d)[%s] {alignment = 64 : i64} : memref<?xf32, #map>
    %c = memref.cast %m : memref<?xf32> to memref<4xf32>
    %c = memref.memory_space_cast %m : memref<4xf32> to memref<4xf32, 1>
    memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    %r = memref.rank %m : memref<?xf32>
    %p = memref.extract_aligned_pointer_as_index %m : memref<4xf32> -> index
    %o = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<10xf32>) -> f32
    memref.global "private" constant @x : memref<2xf32> = dense<[1.0, 2.0]> {alignment = 64}
    memref.global @y : memref<3xf16> = uninitialized
    memref.global "private" @z : memref<4xi32>
    %r = memref.alloca_scope -> (f32) { ... memref.alloca_scope.return %v : f32 }
    memref.dma_start %src[%i], %dst[%j], %n, %tag[%k]
        : memref<8xf32>, memref<8xf32, 1>, memref<1xi32>
    memref.dma_wait %tag[%k], %n : memref<1xi32>

What the directives below mean (MLIR semantics):

* ``memref.atomic_rmw``'s kind is MLIR's ``AtomicRMWKind`` enum, written as
  a keyword (or a string), stored as its i64 value (:data:`ATOMIC_RMW_KINDS`).
* ``memref.global``: the visibility string is optional (absent means
  public: no ``sym_visibility`` attribute); the initial value is
  ``uninitialized`` (a unit attribute), a ``dense<...>`` literal without a
  type (it takes the tensor type of the memref's shape and element type),
  or absent (an external declaration: no ``initial_value``).  The type must
  be a statically shaped memref.  xDSL's ``GlobalOp`` requires both
  ``sym_visibility`` and ``initial_value``, so its verifier rejects the two
  forms that leave them out.
* ``alignment`` is an inherent attribute written in the attribute
  dictionary; it is stored as the op's property.
* ``memref.alloca_scope``'s body gets the implied
  ``memref.alloca_scope.return`` when its last block does not end in a
  terminator (MLIR's ``ensureTerminator``).
* ``memref.dma_start``: xDSL's class has no stride operands, so the strided
  form (``..., %tag[%k], %stride, %per_stride : ...``) is not accepted.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Block
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    RegionVariable,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator

from .. import attributes as A
from ..builder import type_str
from ..directive_rules import DirectiveRule, shared_rule

#: MLIR's ``arith::AtomicRMWKind`` (ArithBase.td): keyword -> value.  This is
#: upstream's numbering since the enum gained ``xori`` (alphabetical); older
#: releases numbered addf, addi, assign, maximumf, maxs, maxu, minimumf, mins,
#: minu, mulf, muli, ori, andi, maxnumf, minnumf from 0.
ATOMIC_RMW_KINDS: dict[str, int] = {
    "addf": 0,
    "addi": 1,
    "andi": 2,
    "assign": 3,
    "maximumf": 4,
    "maxnumf": 5,
    "maxs": 6,
    "maxu": 7,
    "minimumf": 8,
    "minnumf": 9,
    "mins": 10,
    "minu": 11,
    "mulf": 12,
    "muli": 13,
    "ori": 14,
    "xori": 15,
}

_VISIBILITIES = ("public", "private", "nested")


def _grammar_only(name: str):
    """parse/print of a directive class that only exists for the lark grammar."""

    def parse(self, parser: Parser, state: ParsingState) -> None:
        parser.raise_error(
            f"custom<{name}> is only used by the lark frontend; xDSL parses this op "
            "in generic form"
        )

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        raise NotImplementedError(f"custom<{name}> does not print; the op prints itself")

    return parse, print


def _set_attr(st, var: AttributeVariable, value) -> None:
    (st.props if var.is_property else st.attrs)[var.name] = value


# ---------------------------------------------------------------- inherent attributes


@irdl_custom_directive
class MemRefPropInAttrDict(CustomDirective):
    """No text: the property ``$prop`` is written in the op's attr-dict.

    MLIR spells inherent attributes such as ``alignment`` in the attribute
    dictionary (``{alignment = 64}``) and stores them as properties.
    """

    prop: AttributeVariable

    parse, print = _grammar_only("MemRefPropInAttrDict")


class MemRefPropInAttrDictRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return ""

    def apply(self, b, st, d, plan, child) -> None:
        return None

    def before_create(self, b, st, d: MemRefPropInAttrDict, plan, operands) -> None:
        var = d.prop
        value = st.attrs.pop(var.name, None)
        if value is not None:
            _set_attr(st, var, value)


# ---------------------------------------------------------------- memref.atomic_rmw


@irdl_custom_directive
class MemRefAtomicKind(CustomDirective):
    """``bare-id | string``: an ``AtomicRMWKind`` keyword, stored as its i64 value."""

    kind: AttributeVariable

    parse, print = _grammar_only("MemRefAtomicKind")


class MemRefAtomicKindRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return shared_rule(gen, "memref_atomic_kind", "BARE_ID | STRING", lambda c: c[0])

    def apply(self, b, st, d: MemRefAtomicKind, plan, child) -> None:
        name = child.value
        if child.type == "STRING":
            try:
                name = A.decode_string(name)
            except A.AttrError as e:
                raise b.error(str(e), child) from None
        value = ATOMIC_RMW_KINDS.get(name)
        if value is None:
            raise b.error(
                f"invalid atomic_rmw kind '{name}': expected one of "
                + ", ".join(ATOMIC_RMW_KINDS),
                child,
            )
        _set_attr(st, d.kind, IntegerAttr(value, i64))


# ---------------------------------------------------------------- memref.global


@irdl_custom_directive
class MemRefGlobalVisibility(CustomDirective):
    """``string?``: the symbol visibility; absent means public (no attribute)."""

    visibility: AttributeVariable

    parse, print = _grammar_only("MemRefGlobalVisibility")


class MemRefGlobalVisibilityRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return "[STRING]"

    def apply(self, b, st, d: MemRefGlobalVisibility, plan, child) -> None:
        if child is None:
            return
        try:
            text = A.decode_string(child.value)
        except A.AttrError as e:
            raise b.error(str(e), child) from None
        if text not in _VISIBILITIES:
            raise b.error(
                "visibility expected to be one of "
                + ", ".join(f'"{v}"' for v in _VISIBILITIES)
                + f', but got "{text}"',
                child,
            )
        _set_attr(st, d.visibility, StringAttr(text))


@irdl_custom_directive
class MemRefGlobalTypeAndInitialValue(CustomDirective):
    """``memref-type ('=' ('uninitialized' | dense-literal-without-type))?``."""

    type: AttributeVariable
    initial_value: AttributeVariable

    parse, print = _grammar_only("MemRefGlobalTypeAndInitialValue")


_UNINITIALIZED = "uninitialized"


class MemRefGlobalTypeAndInitialValueRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        shared_rule(gen, "memref_global_uninit", '"uninitialized"', lambda c: _UNINITIALIZED)
        shared_rule(gen, "memref_global_init", "memref_global_uninit | DENSE", lambda c: c[0])
        return shared_rule(
            gen,
            "memref_global_type_init",
            'type ["=" memref_global_init]',
            lambda c: (c[0], c[1]),
        )

    def apply(self, b, st, d: MemRefGlobalTypeAndInitialValue, plan, child) -> None:
        typ, init = child
        if not isinstance(typ, MemRefType) or any(n < 0 for n in typ.get_shape()):
            raise b.error(
                f"type should be static shaped memref, but got {type_str(typ)}", st.tok
            )
        _set_attr(st, d.type, typ)
        if init is None:
            return
        if init == _UNINITIALIZED:
            _set_attr(st, d.initial_value, UnitAttr())
            return
        tensor = TensorType(typ.get_element_type(), typ.get_shape())
        try:
            value = A.dense_from_text(init.value, tensor)
        except A.AttrError as e:
            raise b.error(str(e), init) from None
        except (ValueError, OverflowError) as e:
            raise b.error(f"invalid dense literal: {e}", init) from None
        _set_attr(st, d.initial_value, value)


# ---------------------------------------------------------------- memref.alloca_scope


@irdl_custom_directive
class MemRefArrowTypes(CustomDirective):
    """``('->' (type | '(' type-list? ')'))?``: MLIR's optional arrow type list."""

    types: TypeDirective

    parse, print = _grammar_only("MemRefArrowTypes")


class MemRefArrowTypesRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return "[" + shared_rule(gen, "memref_arrow_types", '"->" fn_results', lambda c: c[0]) + "]"

    def apply(self, b, st, d: MemRefArrowTypes, plan, child) -> None:
        from ..formats import make_target

        make_target(plan, d.types).set(b, st, list(child or ()), st.tok)


@irdl_custom_directive
class MemRefAllocaScopeBody(CustomDirective):
    """``region``: the body; an implied ``memref.alloca_scope.return`` is added."""

    body: RegionVariable

    parse, print = _grammar_only("MemRefAllocaScopeBody")


class MemRefAllocaScopeBodyRule(DirectiveRule):
    has_regions = True

    def grammar(self, d, gen) -> str:
        return "region"

    def apply(self, b, st, d: MemRefAllocaScopeBody, plan, child) -> None:
        region = child
        if not region.blocks:
            region.add_block(Block())
        block = region.blocks[-1]
        last = block.last_op
        if last is None or not last.has_trait(IsTerminator, value_if_unregistered=False):
            from xdsl.dialects.memref import AllocaScopeReturnOp

            term = AllocaScopeReturnOp.create()
            term.location = b.file_loc(st.tok)
            block.add_op(term)
        st.regions[d.body.index] = (region,)


# ---------------------------------------------------------------- tables


FORMATS: dict[str, str] = {
    "memref.alloc": (
        "`(` $dynamic_sizes `)` (`` `[` $symbol_operands^ `]`)? attr-dict "
        "custom<MemRefPropInAttrDict>($alignment) `:` type($memref)"
    ),
    "memref.cast": "$source attr-dict `:` type($source) `to` type($dest)",
    "memref.memory_space_cast": "$source attr-dict `:` type($source) `to` type($dest)",
    "memref.copy": (
        "$source `,` $destination attr-dict `:` type($source) `to` type($destination)"
    ),
    "memref.rank": "$source attr-dict `:` type($source)",
    "memref.extract_aligned_pointer_as_index": (
        "$source `:` type($source) `->` type($aligned_pointer) attr-dict"
    ),
    "memref.atomic_rmw": (
        "custom<MemRefAtomicKind>($kind) $value `,` $memref `[` $indices `]` attr-dict "
        "`:` `(` type($value) `,` type($memref) `)` `->` type($result)"
    ),
    "memref.global": (
        "custom<MemRefGlobalVisibility>($sym_visibility) (`constant` $constant^)? "
        "$sym_name `:` custom<MemRefGlobalTypeAndInitialValue>($type, $initial_value) "
        "attr-dict custom<MemRefPropInAttrDict>($alignment)"
    ),
    "memref.alloca_scope": (
        "custom<MemRefArrowTypes>(type($res)) custom<MemRefAllocaScopeBody>($scope) attr-dict"
    ),
    "memref.alloca_scope.return": "attr-dict ($ops^ `:` type($ops))?",
    "memref.dma_start": (
        "$src `[` $src_indices `]` `,` $dest `[` $dest_indices `]` `,` $num_elements `,` "
        "$tag `[` $tag_indices `]` attr-dict `:` type($src) `,` type($dest) `,` type($tag)"
    ),
    "memref.dma_wait": "$tag `[` $tag_indices `]` `,` $num_elements attr-dict `:` type($tag)",
}

DIRECTIVES: dict[str, type] = {
    "MemRefPropInAttrDict": MemRefPropInAttrDict,
    "MemRefAtomicKind": MemRefAtomicKind,
    "MemRefGlobalVisibility": MemRefGlobalVisibility,
    "MemRefGlobalTypeAndInitialValue": MemRefGlobalTypeAndInitialValue,
    "MemRefArrowTypes": MemRefArrowTypes,
    "MemRefAllocaScopeBody": MemRefAllocaScopeBody,
}

RULES: dict[str, DirectiveRule] = {
    "MemRefPropInAttrDict": MemRefPropInAttrDictRule(),
    "MemRefAtomicKind": MemRefAtomicKindRule(),
    "MemRefGlobalVisibility": MemRefGlobalVisibilityRule(),
    "MemRefGlobalTypeAndInitialValue": MemRefGlobalTypeAndInitialValueRule(),
    "MemRefArrowTypes": MemRefArrowTypesRule(),
    "MemRefAllocaScopeBody": MemRefAllocaScopeBodyRule(),
}
