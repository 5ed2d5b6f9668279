"""``cse``: common subexpression elimination."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import MemoryEffectKind

from tfrt.dialects.fastir import canon
from tfrt.passes.effects import DYNAMIC, facts, get_effects, is_trivially_dead


@dataclass(frozen=True)
class CSEPass(ModulePass):
    """Replace an op by an identical earlier op that dominates it.

    Two ops are identical when they have the same name, operands, attributes,
    properties and result types (and structurally equal regions); only ops
    without memory side effects (the ``Pure`` trait, or effects declared
    through xDSL's effect traits) are merged, and ops that only read when no
    op that may write sits between them in the block, so two
    ``tfrt.print.i32`` stay apart while two ``tfrt.constant.i32 1`` merge.
    Nested regions see the ops of the regions around them (ops isolated
    from above start afresh), as MLIR's CSE does; ops left unused (and free
    of effects) are erased.

    Example (``tfrt_opt -cse``)::

        %0 = tfrt.constant.i32 1
        %1 = tfrt.constant.i32 1
        %2 = tfrt.add.i32 %0, %1

    becomes::

        %0 = tfrt.constant.i32 1
        %1 = tfrt.add.i32 %0, %0
    """

    name = "cse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cse(op)


def cse(root: Operation) -> None:
    """CSE over the regions of ``root`` (xDSL's ``cse``, with a scoped hash
    table instead of a copy of the known ops per region)."""
    driver = _CSE()
    for region in root.regions:
        driver.region(region)
    for op in driver.to_erase:
        if op.parent is not None:
            Rewriter.erase_op(op)


def _key(op: Operation) -> tuple:
    """What two ops must share to be the same computation (regions aside).
    Raises TypeError for an attribute that cannot be hashed."""
    name = op.name
    if name == "builtin.unregistered" and isinstance(op, UnregisteredOp):
        name = op.op_name.data
    # Attributes and types by their numbers (fastir.canon): equal values,
    # equal numbers, and a key that hashes without walking them.
    return (
        name,
        frozenset([(k, canon(v)) for k, v in op.attributes.items()]) if op.attributes else None,
        frozenset([(k, canon(v)) for k, v in op.properties.items()]) if op.properties else None,
        tuple([canon(r._type) for r in op.results]),  # noqa: SLF001
        op._operands,  # noqa: SLF001 - values hash by identity
    )


class _CSE:
    """The known ops of the regions being walked, by key: one op per class
    of equal ops (several per key only for ops with regions, which must also
    be structurally equal), plus an undo log to leave a scope with."""

    def __init__(self):
        self.known: dict[tuple, tuple[Operation, ...]] = {}
        # (key, what it mapped to before) for each change in the open scopes.
        self.undo: list[tuple[tuple, tuple[Operation, ...] | None]] = []
        self.to_erase: dict[Operation, None] = {}  # an ordered set

    # ---- the table

    def _index(self, op: Operation, found: tuple[Operation, ...]) -> int:
        """Where in ``found`` an op equal to ``op`` is, or -1."""
        if not op.regions:
            return 0
        for i, other in enumerate(found):
            if all(
                a.is_structurally_equivalent(b)
                for a, b in zip(op.regions, other.regions, strict=True)
            ):
                return i
        return -1

    def lookup(self, op: Operation, key: tuple) -> Operation | None:
        found = self.known.get(key)
        if not found:
            return None
        i = self._index(op, found)
        return None if i < 0 else found[i]

    def remember(self, op: Operation, key: tuple, found: tuple[Operation, ...] | None) -> None:
        """Make ``op`` the known op of its class (replacing an equal one);
        ``found``: what ``key`` maps to now."""
        self.undo.append((key, found))
        if not found:
            self.known[key] = (op,)
            return
        i = self._index(op, found)
        self.known[key] = (*found, op) if i < 0 else (*found[:i], op, *found[i + 1 :])

    def is_known(self, op: Operation) -> bool:
        """Is an op equal to ``op`` (``op`` itself, say) known?"""
        try:
            return self.lookup(op, _key(op)) is not None
        except TypeError:  # an attribute that cannot be hashed
            return False

    # ---- the walk

    def region(self, region: Region) -> None:
        first = region.first_block
        if first is None or first.next_block is not None:
            return  # no blocks, or several: left alone (as MLIR and xDSL do)
        mark = len(self.undo)
        self.block(first)
        # Leave the scope: undo its changes, last first.
        known, undo = self.known, self.undo
        for key, before in reversed(undo[mark:]):
            if before is None:
                del known[key]
            else:
                known[key] = before
        del undo[mark:]

    def block(self, block: Block) -> None:
        op = block.first_op
        while op is not None:
            nxt = op.next_op
            if op.regions:
                if facts(op).isolated_or_unknown:
                    # A fresh table inside: nothing from outside is visible.
                    saved = (self.known, self.undo)
                    self.known, self.undo = {}, []
                    for r in op.regions:
                        self.region(r)
                    self.known, self.undo = saved
                else:
                    for r in op.regions:
                        self.region(r)
            self.simplify(op)
            op = nxt

    def simplify(self, op: Operation) -> None:
        f = facts(op)
        if f.terminator_or_unknown:
            return
        if is_trivially_dead(op):
            self.to_erase[op] = None
            return
        for r in op.regions:
            first = r.first_block
            if first is not None and first.next_block is not None:
                return  # a region of several blocks
        reads = False
        effects = f.effects if f.effects is not DYNAMIC else get_effects(op)
        if effects is None:
            return  # unknown effects
        if effects:
            if any(e.kind != MemoryEffectKind.READ for e in effects):
                return
            reads = True
        try:
            key = _key(op)
        except TypeError:  # an attribute that cannot be hashed
            return
        found = self.known.get(key)
        if found:
            i = self._index(op, found)
            if i >= 0:
                existing = found[i]
                if not reads or (
                    op.parent is existing.parent and not _may_write_between(existing, op)
                ):
                    self.replace(op, existing)
                    return
        # A candidate for later ops (one that only reads and could not be
        # replaced here takes the place of the equal op it met).
        self.remember(op, key, found)

    def replace(self, op: Operation, existing: Operation) -> None:
        for old, new in zip(op.results, existing.results, strict=True):
            # Uses by ops already walked (in a graph region, before the
            # definition) would see a value defined after them: keep those.
            if all(not self.is_known(u.operation) for u in old.uses):
                old.replace_all_uses_with(new)
        if all(r.first_use is None for r in op.results):
            self.to_erase[op] = None


def _may_write_between(first: Operation, last: Operation) -> bool:
    """May an op from ``first`` up to (not including) ``last`` write memory?"""
    op: Operation | None = first
    while op is not last:
        assert op is not None, "ops out of order in the side-effect search"
        effects = get_effects(op)
        if effects is None or any(e.kind is MemoryEffectKind.WRITE for e in effects):
            return True
        op = op.next_op
    return False
