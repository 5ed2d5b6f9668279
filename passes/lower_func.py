"""``lower-func``: ``func.call``/``func.return`` -> ``tfrt.call``/``tfrt.return``; ``index`` -> ``i64``.

Functions keep their names; their signatures and block arguments change
``index`` (and tensors of index) to ``i64``, the type index values have at
run time::

    func.func @f(%n: index) -> index {
      %r = func.call @g(%n) : (index) -> index
      func.return %r : index
    }
    // becomes
    func.func @f(%n: i64) -> i64 {
      %r = tfrt.call @g(%n) : (i64) -> i64
      tfrt.return %r : i64
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.passes.lowering import check_value_type, kernel_type, make_op, replace


@dataclass(frozen=True)
class LowerFuncPass(ModulePass):
    """Lower func calls and returns to TFRT's (see the module docstring)."""

    name = "lower-func"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in walk(op):
            if isinstance(o, func.FuncOp):
                ft = o.function_type
                for t in (*ft.inputs.data, *ft.outputs.data):
                    check_value_type(o, t)
                o.function_type = FunctionType.from_lists(
                    [kernel_type(t) for t in ft.inputs.data], [kernel_type(t) for t in ft.outputs.data]
                )
                if o.body.blocks:
                    for arg in o.body.blocks[0].args:
                        arg._type = kernel_type(arg.type)  # noqa: SLF001 - retyping in place
            elif o.name == "func.call":
                new = make_op("tfrt.call", list(o.operands), [kernel_type(r.type) for r in o.results],
                              {"callee": o.properties["callee"]}, at=o)  # fmt: skip
                replace(o, [new], new.results)
            elif o.name == "func.return":
                new = make_op("tfrt.return", list(o.operands), [], {}, at=o)
                replace(o, [new], [])


LowerFuncPass.__doc__ = f"{LowerFuncPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
