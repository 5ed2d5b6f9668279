"""What the cleanup passes ask of every op, answered once per op class.

``canonicalize``, ``cse`` and ``dce`` ask each op whether it is a terminator,
a symbol, isolated from above, constant-like, foldable, what its memory
effects are and which canonicalization patterns it has.  xDSL answers by
scanning the op's traits on every call (about as costly as the rest of the
pass together); the answers depend on the op's class only, except the
effects of traits that compute them from the op (``RecursiveMemoryEffect``,
say), which are still asked per op.  The functions here return what
``xdsl.traits`` and ``xdsl.transforms.dead_code_elimination`` return.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from xdsl.ir import Operation, SSAValue
from xdsl.traits import (
    ConstantLike,
    EffectInstance,
    HasCanonicalizationPatternsTrait,
    HasFolder,
    IsolatedFromAbove,
    IsTerminator,
    MemoryAllocEffect,
    MemoryEffect,
    MemoryEffectKind,
    MemoryFreeEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoMemoryEffect,
    SymbolOpInterface,
)
from xdsl.traits import get_effects as _xdsl_get_effects

__all__ = [
    "DYNAMIC",
    "OpFacts",
    "class_facts",
    "facts",
    "get_effects",
    "is_side_effect_free",
    "is_trivially_dead",
    "only_reads",
    "would_be_trivially_dead",
]

# MemoryEffect.get_effects implementations whose answer ignores the op.
_STATIC_EFFECTS = {
    NoMemoryEffect.get_effects.__func__,  # type: ignore[attr-defined]
    MemoryReadEffect.get_effects.__func__,  # type: ignore[attr-defined]
    MemoryWriteEffect.get_effects.__func__,  # type: ignore[attr-defined]
    MemoryAllocEffect.get_effects.__func__,  # type: ignore[attr-defined]
    MemoryFreeEffect.get_effects.__func__,  # type: ignore[attr-defined]
}

# OpFacts.effects of a class whose effects depend on the op.
DYNAMIC = object()


class OpFacts:
    """Trait facts of one op class (``has_trait`` with the default each caller uses)."""

    __slots__ = (
        "terminator",
        "terminator_or_unknown",
        "symbol",
        "isolated_or_unknown",
        "constant_or_unknown",
        "has_folder",
        "has_patterns",
        "effects",
        "result_only",
    )

    def __init__(self, cls: type[Operation]):
        self.terminator = cls.has_trait(IsTerminator, value_if_unregistered=False)
        self.terminator_or_unknown = cls.has_trait(IsTerminator, value_if_unregistered=True)
        self.symbol = cls.has_trait(SymbolOpInterface, value_if_unregistered=False)
        self.isolated_or_unknown = cls.has_trait(IsolatedFromAbove, value_if_unregistered=True)
        self.constant_or_unknown = cls.has_trait(ConstantLike, value_if_unregistered=True)
        self.has_folder = cls.has_trait(HasFolder, value_if_unregistered=False)
        self.has_patterns = bool(cls.get_traits_of_type(HasCanonicalizationPatternsTrait))
        # The op's effects when its class alone decides them, else DYNAMIC;
        # None: unknown effects (no MemoryEffect trait).
        interfaces = cls.get_traits_of_type(MemoryEffect)
        effects: object
        if not interfaces:
            effects = None
        elif all(type(t).get_effects.__func__ in _STATIC_EFFECTS for t in interfaces):
            found: set[EffectInstance] = set()
            for t in interfaces:
                found.update(t.get_effects(None))  # type: ignore[arg-type]
            effects = frozenset(found)
        else:
            effects = DYNAMIC
        self.effects = effects
        # would_be_trivially_dead when the class decides it, else None.
        if effects is DYNAMIC:
            self.result_only = None
        else:
            self.result_only = (
                not self.terminator
                and not self.symbol
                and effects is not None
                # Static effects name no value, so only reads are result-only.
                and all(e.kind == MemoryEffectKind.READ for e in effects)  # type: ignore[union-attr]
            )


_FACTS: dict[type, OpFacts] = {}


def facts(op: Operation) -> OpFacts:
    cls = type(op)
    found = _FACTS.get(cls)
    if found is None:
        found = _FACTS[cls] = OpFacts(cls)
    return found


def class_facts(cls: type[Operation]) -> OpFacts:
    found = _FACTS.get(cls)
    if found is None:
        found = _FACTS[cls] = OpFacts(cls)
    return found


def get_effects(op: Operation) -> AbstractSet[EffectInstance] | None:
    """``xdsl.traits.get_effects``."""
    effects = facts(op).effects
    if effects is DYNAMIC:
        return _xdsl_get_effects(op)
    return effects  # type: ignore[return-value]


def would_be_trivially_dead(op: Operation) -> bool:
    """Would ``op`` have no observable effect if its results were unused?"""
    f = facts(op)
    if f.result_only is not None:
        return f.result_only
    if f.terminator or f.symbol:
        return False
    effects = _xdsl_get_effects(op)
    return effects is not None and all(
        e.kind == MemoryEffectKind.READ
        or (
            e.kind == MemoryEffectKind.ALLOC
            and isinstance(v := e.value, SSAValue)
            and op.is_ancestor(v.owner)
        )
        for e in effects
    )


def is_trivially_dead(op: Operation) -> bool:
    """Are ``op``'s results unused, and does it have no observable effect?"""
    for r in op.results:
        if r.first_use is not None:
            return False
    return would_be_trivially_dead(op)


def is_side_effect_free(op: Operation) -> bool:
    effects = get_effects(op)
    return effects is not None and len(effects) == 0


def only_reads(op: Operation) -> bool:
    """``only_has_effect(op, MemoryEffectKind.READ)``."""
    effects = get_effects(op)
    return effects is not None and all(e.kind == MemoryEffectKind.READ for e in effects)
