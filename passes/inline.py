"""``inline``: inline calls to single-block functions of the same module."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    DictionaryAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tfrt.dialects.fastir import walk

# Call ops the inliner understands, and the terminators that return from a
# callee.  Both keep the callee in a `callee` symbol reference.
CALL_OPS = frozenset({"tfrt.call", "func.call"})
RETURN_OPS = frozenset({"tfrt.return", "func.return"})


def callee_name(call: Operation) -> str | None:
    """The flat symbol a call op names, or None."""
    ref = call.properties.get("callee")
    if ref is None:
        ref = call.attributes.get("callee")
    if not isinstance(ref, SymbolRefAttr) or ref.nested_references.data:
        return None
    return ref.root_reference.data


def _symbol_name(op: Operation) -> str | None:
    name = op.properties.get("sym_name")
    if name is None:
        name = op.attributes.get("sym_name")
    return name.data if isinstance(name, StringAttr) else None


def _is_private(op: Operation) -> bool:
    vis = op.properties.get("sym_visibility")
    if vis is None:
        vis = op.attributes.get("sym_visibility")
    return isinstance(vis, StringAttr) and vis.data == "private"


def _referenced_symbols(attr: Attribute) -> Iterator[str]:
    if isinstance(attr, SymbolRefAttr):
        yield attr.root_reference.data
    elif isinstance(attr, ArrayAttr):
        for item in attr.data:
            yield from _referenced_symbols(item)
    elif isinstance(attr, DictionaryAttr):
        for item in attr.data.values():
            yield from _referenced_symbols(item)


def _stack_location(callee_loc: Attribute, caller_loc: Attribute) -> Attribute:
    # MLIR's stackLocations: the caller goes at the bottom of an existing
    # call-site chain, so nested inlining reads innermost-first.
    chain: list[CallSiteLoc] = []
    last = callee_loc
    while isinstance(last, CallSiteLoc):
        chain.append(last)
        last = last.caller
    result = CallSiteLoc(last, caller_loc)
    for site in reversed(chain):
        result = CallSiteLoc(site.callee, result)
    return result


def _calls_in(op: Operation) -> list[Operation]:
    return [nested for nested in walk(op) if nested.name in CALL_OPS]


@dataclass(frozen=True)
class InlinerPass(ModulePass):
    """Inline ``tfrt.call`` and ``func.call`` ops whose callee is a
    single-block function of the same module ending in ``tfrt.return`` or
    ``func.return``: the callee's body is cloned before the call with its
    arguments mapped to the call's operands, the call's results are replaced
    by the returned values, and inlined ops get ``callsite(callee at call)``
    locations.  Like MLIR's inliner it first runs ``default-pipeline``
    (``canonicalize`` unless set to ``""``) on the module, inlines, and
    repeats up to ``max-iterations`` times while calls get inlined; it never
    inlines a self-recursive callee or a call inside its own callee.  At the
    end, private functions that nothing references are erased.

    Example (``tfrt_opt -inline``)::

        func.func private @double(%x: i32) -> i32 {
          %0 = tfrt.add.i32 %x, %x
          tfrt.return %0 : i32
        }
        func.func @caller(%x: i32) -> i32 {
          %0 = tfrt.call @double(%x) : (i32) -> i32
          tfrt.return %0 : i32
        }

    becomes::

        func.func @caller(%arg0: i32) -> i32 {
          %0 = tfrt.add.i32 %arg0, %arg0
          tfrt.return %0 : i32
        }
    """

    name = "inline"

    default_pipeline: str = "canonicalize"
    max_iterations: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        simplify = self._simplification_passes()
        for _ in range(max(self.max_iterations, 1)):
            for simplification in simplify:
                simplification.apply(ctx, op)
            if not self._inline_all(op):
                break
        self._erase_dead_private_functions(op)

    def _simplification_passes(self) -> list[ModulePass]:
        if not self.default_pipeline.strip():
            return []
        from tfrt.passes.pipeline import parse_pass_pipeline

        return parse_pass_pipeline(self.default_pipeline)

    def _inline_all(self, module: ModuleOp) -> bool:
        symbols = {
            name: top for top in module.body.ops if (name := _symbol_name(top)) is not None
        }
        changed = False
        for call in _calls_in(module):
            name = callee_name(call)
            callee = symbols.get(name) if name is not None else None
            if callee is None or not self._can_inline(call, callee, name):
                continue
            self._inline(call, callee)
            changed = True
        return changed

    @staticmethod
    def _can_inline(call: Operation, callee: Operation, name: str) -> bool:
        if not callee.regions or len(callee.regions[0].blocks) != 1:
            return False
        if callee.is_ancestor(call):
            return False
        if any(callee_name(inner) == name for inner in _calls_in(callee)):
            return False
        block = callee.regions[0].blocks.first
        assert block is not None
        terminator = block.last_op
        if terminator is None or terminator.name not in RETURN_OPS:
            return False
        if [a.type for a in block.args] != [o.type for o in call.operands]:
            return False
        return [o.type for o in terminator.operands] == [r.type for r in call.results]

    @staticmethod
    def _inline(call: Operation, callee: Operation) -> None:
        body = callee.regions[0].clone()
        block = body.blocks.first
        assert block is not None
        # As MLIR's inliner: no call-site locations for a call without one.
        if not isinstance(call.location, UnknownLoc):
            for inner in block.walk():
                inner.location = _stack_location(inner.location, call.location)
        terminator = block.last_op
        assert terminator is not None
        Rewriter.inline_block(block, InsertPoint.before(call), call.operands)
        # Read after inlining: the block arguments are the call operands now.
        returned = list(terminator.operands)
        Rewriter.erase_op(terminator)
        for result, value in zip(call.results, returned):
            result.replace_all_uses_with(value)
        Rewriter.erase_op(call)

    @staticmethod
    def _erase_dead_private_functions(module: ModuleOp) -> None:
        if not any(_is_private(top) for top in module.body.ops):
            return  # nothing could be erased: no need to look for uses
        used: set[str] = set()
        for top in module.body.ops:
            own = _symbol_name(top)
            for nested in walk(top):
                for attr in (*nested.properties.values(), *nested.attributes.values()):
                    for symbol in _referenced_symbols(attr):
                        # A function calling itself does not keep itself alive.
                        if symbol != own:
                            used.add(symbol)
        for top in list(module.body.ops):
            name = _symbol_name(top)
            if name is None or name in used or not _is_private(top) or not top.regions:
                continue
            if top.regions[0].blocks.first is None:
                continue  # a declaration is not a dead body
            Rewriter.erase_op(top)
