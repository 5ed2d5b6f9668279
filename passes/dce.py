"""``dce``: dead code elimination."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import region_dce


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
