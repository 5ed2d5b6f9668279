"""``dce``: dead code elimination."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region
from xdsl.ir.post_order import PostOrderIterator
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriterListener

from tfrt.passes.effects import would_be_trivially_dead


@dataclass(frozen=True)
class DCEPass(ModulePass):
    """Erase ops whose results are all unused and that have no observable
    effect (no side-effect trait, not a terminator, not a symbol), and
    blocks no branch reaches; repeats until nothing more dies, so whole
    chains of dead computations go.  Ops with unknown effects (an op without
    a ``Pure``/effect trait, unregistered ops) are kept.

    Example (``tfrt_opt -dce``)::

        func.func @f(%x: i32) -> i32 {
          %0 = arith.addi %x, %x : i32
          %1 = arith.muli %0, %0 : i32
          tfrt.return %x : i32
        }

    becomes::

        func.func @f(%arg0: i32) -> i32 {
          tfrt.return %arg0 : i32
        }
    """

    name = "dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        region_dce(op.body)


def region_dce(region: Region, listener: PatternRewriterListener | None = None) -> bool:
    """xDSL's ``region_dce`` (liveness to a fixed point, then erase the dead
    ops and the blocks left without live ops), with the trait questions
    answered per op class (:mod:`tfrt.passes.effects`).  ``listener`` hears
    of every erased op first.  Returns whether anything was erased."""
    live = _LiveSet()
    live.propagate_region(region)
    # One walk, users before producers, settles straight-line code; what it
    # left dead may still be used by a live op elsewhere (a graph region, a
    # branch back): only those ops are looked at again, to the fixed point
    # (the same least one xDSL's repeated walks reach).
    dead = live.dead
    progress = True
    while dead and progress:
        progress = False
        still = []
        for op in dead:
            if _used_by(op, live.live):
                live.live.add(id(op))
                progress = True
            else:
                still.append(op)
        dead = still
    live.delete_dead(region, listener)
    return live.changed


def _used_by(op: Operation, live: set[int]) -> bool:
    """Is a result of ``op`` used by an op of ``live``?"""
    for res in op.results:
        use = res.first_use
        while use is not None:
            if id(use._operation) in live:  # noqa: SLF001 - the use list, walked directly
                return True
            use = use._next_use  # noqa: SLF001
    return False


class _LiveSet:
    __slots__ = ("changed", "dead", "live")

    def __init__(self):
        self.changed = False
        # ids of the live ops (ops hash in Python; all of them stay in the IR
        # while the set is used)
        self.live: set[int] = set()
        self.dead: list[Operation] = []  # trivially dead so far

    def propagate_region(self, region: Region) -> None:
        first = region.first_block
        if first is None:
            return
        live = self.live
        blocks = (first,) if first.next_block is None else PostOrderIterator(first)
        for block in blocks:
            op = block.last_op
            while op is not None:  # last to first: users before producers
                if op.regions:
                    for r in op.regions:
                        self.propagate_region(r)
                if id(op) not in live:
                    if not would_be_trivially_dead(op) or _used_by(op, live):
                        live.add(id(op))
                    else:
                        self.dead.append(op)
                op = op.prev_op

    def delete_dead(self, region: Region, listener: PatternRewriterListener | None) -> None:
        first = region.first_block
        if first is None:
            return
        live = self.live
        for block in reversed(region.blocks):
            if block is not first and not any(id(op) in live for op in block.ops):
                self.changed = True
                region.erase_block(block, safe_erase=False)
                continue
            op = block.last_op
            while op is not None:
                prev = op.prev_op
                if id(op) not in live:
                    self.changed = True
                    if listener is not None:
                        listener.handle_operation_removal(op)
                    block.erase_op(op, safe_erase=False)
                else:
                    for r in op.regions:
                        self.delete_dead(r, listener)
                op = prev
