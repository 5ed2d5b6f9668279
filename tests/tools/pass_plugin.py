"""A pass plugin for tfrt_opt's tests: ``--load-pass-plugin pass_plugin.py``.

``count-ops`` stores the number of ops under each function in a
``tfrt.op_count`` attribute on the function::

    func.func @f() {              func.func @f() attributes {tfrt.op_count = 1 : i64} {
      tfrt.return          ->       tfrt.return
    }                             }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class CountOpsPass(ModulePass):
    """Annotate every function with its op count (see the module docstring)."""

    name = "count-ops"

    attribute: str = "tfrt.op_count"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.body.ops:
            if fn.name != "func.func":
                continue
            count = sum(1 for _ in fn.walk()) - 1
            fn.attributes[self.attribute] = IntegerAttr(count, i64)
