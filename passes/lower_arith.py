"""``lower-arith``: arith ops -> ``tfrt_scalar`` (scalars) and ``tfrt_array`` (tensors).

Constants become ``tfrt_scalar.constant.<type>`` or ``tfrt_array.constant``
(``index`` is ``i64``); every other op becomes one ``tfrt_scalar.eval`` or
``tfrt_array.elementwise`` whose expression is the op (docs/compiler.md), so
``fuse-elementwise`` can later merge chains of them::

    %c = arith.constant 2 : i32
    %s = arith.addi %a, %c : i32
    // becomes
    %c = tfrt_scalar.constant.i32 2
    %s = tfrt_scalar.eval %a, %c {expr = "(a0 + a1)", types = "i32,i32"} : (i32, i32) -> i32

Ops inside ``linalg`` bodies are left to ``lower-linalg``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.passes.lowering import (
    EXPR_OPS,
    cannot_lower,
    check_value_type,
    element_name,
    elementwise,
    kernel_type,
    make_op,
    op_expr,
    replace,
    shape_of,
)


def _in_structured_body(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if parent.name.startswith("linalg.") or parent.name == "tensor.pad":
            return True
        parent = parent.parent_op()
    return False


def lower_constant(op: Operation) -> None:
    value = op.properties["value"]
    rtype = op.results[0].type
    check_value_type(op, rtype)
    if isinstance(value, (IntegerAttr, FloatAttr)):
        t = kernel_type(value.type)
        if isinstance(value.type, IndexType):
            # index is 64 bits here: a folded index value wraps as the kernels' would.
            value = IntegerAttr((value.value.data + 2**63) % 2**64 - 2**63, t)
        new = make_op(f"tfrt_scalar.constant.{element_name(t)}", [], [t], {"value": value}, at=op)
    elif isinstance(value, DenseIntOrFPElementsAttr):
        t = kernel_type(rtype)
        if isinstance(rtype, TensorType) and isinstance(rtype.element_type, IndexType):
            wrapped = [(int(v) + 2**63) % 2**64 - 2**63 for v in value.get_values()]
            value = DenseIntOrFPElementsAttr.from_list(t, wrapped)
        new = make_op("tfrt_array.constant", [], [t], {"value": value}, at=op)
    elif isinstance(value, DenseResourceAttr):
        # The frontend resolves every key its file's `{-# dialect_resources #-}`
        # section defines; this one has no data there (`__elided__`, say).
        key = value.resource_handle.data
        raise cannot_lower(op, f"dense_resource<{key}> has no blob in the file's dialect_resources section")
    else:
        raise cannot_lower(op, f"constants of kind {type(value).__name__} are not supported")
    replace(op, [new], new.results)


def lower_expr_op(op: Operation) -> None:
    rtype = op.results[0].type
    for v in (*op.operands, *op.results):
        check_value_type(op, v.type)
    if len(op.results) != 1:
        raise cannot_lower(op, "ops with several results are not supported")
    shapes = {shape_of(v.type) for v in op.operands if isinstance(v.type, TensorType)}
    if isinstance(rtype, TensorType) and shapes - {shape_of(rtype)}:
        raise cannot_lower(op, "operand and result shapes differ")
    expr = op_expr(op, [f"a{i}" for i in range(len(op.operands))])
    new = elementwise(expr, list(op.operands), rtype, op)
    replace(op, [new], new.results)


def lower_dialect(module: ModuleOp, prefix: str) -> None:
    for op in walk(module):
        if not op.name.startswith(prefix) or _in_structured_body(op):
            continue
        if op.name == "arith.constant":
            lower_constant(op)
        elif op.name in EXPR_OPS:
            lower_expr_op(op)
        else:
            raise cannot_lower(op, "no kernel implements it")


@dataclass(frozen=True)
class LowerArithPass(ModulePass):
    """Lower arith ops to ``tfrt_scalar`` / ``tfrt_array`` kernels (see the module docstring)."""

    name = "lower-arith"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_dialect(op, "arith.")


LowerArithPass.__doc__ = f"{LowerArithPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
