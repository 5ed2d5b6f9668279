"""``insert-chains``: thread one ``!tfrt.chain`` through side-effecting kernels in program order.

Kernels with effects (``tfrt_scalar.print``) take and return a chain; TFRT
runs a kernel as soon as its operands are ready, so only the chain keeps two
prints in the order the program wrote them.  In each block, the first such
kernel takes a chain made by ``tfrt.new.chain`` at the start of the block
and each later one the chain the previous one returned::

    %c0 = tfrt.new.chain
    %c1 = tfrt_scalar.print %c0, %a {prefix = "a"} : (!tfrt.chain, f32) -> !tfrt.chain
    %c2 = tfrt.new.chain
    %c3 = tfrt_scalar.print %c2, %b {prefix = "b"} : (!tfrt.chain, f32) -> !tfrt.chain
    // becomes
    %c0 = tfrt.new.chain
    %c1 = tfrt_scalar.print %c0, %a {prefix = "a"} : (!tfrt.chain, f32) -> !tfrt.chain
    %c3 = tfrt_scalar.print %c1, %b {prefix = "b"} : (!tfrt.chain, f32) -> !tfrt.chain
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tfrt.passes.lowering import make_op

EFFECTS = frozenset({"tfrt_scalar.print"})


@dataclass(frozen=True)
class InsertChainsPass(ModulePass):
    """Order side-effecting kernels by a chain (see the module docstring)."""

    name = "insert-chains"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        blocks = {o.parent_block() for o in op.walk() if o.name in EFFECTS}
        for block in blocks:
            if block is None:
                continue
            effects = [o for o in block.ops if o.name in EFFECTS]
            first = effects[0]
            start = make_op("tfrt.new.chain", [], [first.operands[0].type], {}, at=first)
            block.insert_op_before(start, block.first_op)
            chain = start.results[0]
            for o in effects:
                old = o.operands[0]
                o.operands[0] = chain
                owner = getattr(old, "op", None)
                if owner is not None and owner.name == "tfrt.new.chain" and not old.uses:
                    owner.detach()
                    owner.erase()
                chain = o.results[0]


InsertChainsPass.__doc__ = f"{InsertChainsPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
