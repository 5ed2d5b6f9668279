"""``reuse-buffers``: a kernel writes its result into an operand whose last use it is.

``tfrt_array.elementwise`` gets ``inplace = k`` when operand ``k`` has the
result's shape and element type, this op is its only use, the expression
reads it before its first write (``tfrt.kernels.expr.inplace_safe``), and
its buffer belongs to the program: it was made by a kernel that returns a
fresh array (not a function argument, a constant from the BEF file, or a
view such as ``transpose``/``reshape``/``broadcast``).  ``insert_slice``
gets ``inplace = 1`` on the same terms for its destination.  The executor
then allocates nothing for the op::

    %y = tfrt_array.elementwise %t {expr = "tanh(a0)", inplace = -1 : i64, ...}
    // becomes (when %t is a fresh buffer used only here)
    %y = tfrt_array.elementwise %t {expr = "tanh(a0)", inplace = 0 : i64, ...}

The kernel still checks at run time that the buffer is writable and
contiguous, and allocates when it is not.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.passes.lowering import element_name

# Kernels whose result is a new, writable, contiguous array.
FRESH = frozenset({
    "tfrt_array.elementwise", "tfrt_array.matmul", "tfrt_array.conv2d", "tfrt_array.pool2d",
    "tfrt_array.einsum", "tfrt_array.pad", "tfrt_array.concat", "tfrt_array.insert",
    "tfrt_array.insert_slice", "tfrt_array.from_elements", "tfrt_array.gather",
})  # fmt: skip


def owned(v: SSAValue) -> bool:
    producer = getattr(v, "op", None)
    return producer is not None and producer.name in FRESH and len(list(v.uses)) == 1


@dataclass(frozen=True)
class ReuseBuffersPass(ModulePass):
    """Mark kernels that may write into a dying operand (see the module docstring)."""

    name = "reuse-buffers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inplace_safe = None  # imported for the first candidate (it imports numpy)
        for o in walk(op):
            if o.name == "tfrt_array.elementwise" and o.properties["inplace"].value.data < 0:
                rtype = o.results[0].type
                types = tuple(t for t in o.properties["types"].data.split(",") if t)
                for k, v in enumerate(o.operands):
                    if not isinstance(v.type, TensorType) or v.type != rtype or not owned(v):
                        continue
                    if element_name(v.type) != element_name(rtype):
                        continue
                    if inplace_safe is None:
                        from tfrt.kernels.expr import inplace_safe
                    if inplace_safe(o.properties["expr"].data, types, k):
                        o.properties["inplace"] = IntegerAttr(k, i64)
                        break
            elif o.name == "tfrt_array.insert_slice" and o.properties["inplace"].value.data < 0:
                if owned(o.operands[1]):
                    o.properties["inplace"] = IntegerAttr(1, i64)


ReuseBuffersPass.__doc__ = f"{ReuseBuffersPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
