"""``cse``: common subexpression elimination."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import cse


@dataclass(frozen=True)
class CSEPass(ModulePass):
    """Replace an op by an identical earlier op that dominates it.

    Two ops are identical when they have the same name, operands, attributes,
    properties and result types; only ops without memory side effects (the
    ``Pure`` trait, or effects declared through xDSL's effect traits) are
    merged, so two ``tfrt.print.i32`` stay apart while two
    ``tfrt.constant.i32 1`` merge.  Uses xDSL's CSE driver, which also
    handles nested regions with scoped tables like MLIR's.

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
