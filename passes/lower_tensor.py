"""``lower-tensor``: tensor dialect ops -> ``tfrt_array`` kernels.

``empty`` -> zeros (erased when unused: linalg ``outs`` that are never read),
``extract``/``insert`` -> ``tfrt_array.extract``/``insert`` (indices as i64),
``extract_slice``/``insert_slice`` (static offsets, sizes, strides) ->
``tfrt_array.extract_slice``/``insert_slice``, ``reshape``,
``collapse_shape``, ``expand_shape`` -> ``tfrt_array.reshape``, ``pad`` with a
constant or captured padding value -> ``tfrt_array.pad``, ``concat`` ->
``tfrt_array.concat``, ``from_elements``, ``splat`` -> a broadcast, ``cast``
between static types and ``dim`` -> nothing (the shape is static)::

    %s = tensor.extract_slice %t[0, 1] [2, 2] [1, 1] : tensor<4x4xf32> to tensor<2x2xf32>
    // becomes
    %s = tfrt_array.extract_slice %t {offsets = [0, 1], shape = [2, 2], sizes = [2, 2],
                                      strides = [1, 1]} : (tensor<4x4xf32>) -> tensor<2x2xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.passes.lowering import (
    cannot_lower,
    check_value_type,
    element_name,
    elementwise,
    i64_array,
    i64_attr,
    kernel_type,
    literal,
    make_op,
    replace,
    scalar_constant,
    str_attr,
)

_DYNAMIC = -(2**63)  # MLIR's ShapedType::kDynamic in static_* arrays


def _static(op: Operation, prop: str, what: str) -> list[int]:
    values = [int(v) for v in op.properties[prop].get_values()]  # type: ignore[attr-defined]
    if any(v == _DYNAMIC for v in values):
        raise cannot_lower(op, f"dynamic {what} are not supported; the kernels need static ones")
    return values


def _index(op: Operation, v: SSAValue, new_ops: list[Operation]) -> SSAValue:
    """An index operand as i64 (index values are i64 after lowering)."""
    return v


def _lower(op: Operation) -> None:
    name = op.name
    new: list[Operation] = []
    rtype = op.results[0].type if op.results else None
    if rtype is not None:
        check_value_type(op, rtype)

    def kernel(kname, operands, attrs=None, result_type=None):
        k = make_op(kname, operands, [kernel_type(result_type or rtype)], attrs or {}, at=op)
        new.append(k)
        return k.results[0]

    if name == "tensor.empty":
        if not op.results[0].uses:
            op.detach()
            op.erase()
            return
        zero = "0.0" if element_name(rtype).startswith("f") else ("False" if element_name(rtype) == "i1" else "0")
        k = elementwise(f"cast_{element_name(rtype)}({zero})", [], rtype, op)
        new.append(k)
        result = k.results[0]
    elif name == "tensor.extract":
        result = kernel("tfrt_array.extract", [op.tensor, *op.indices])  # type: ignore[attr-defined]
    elif name == "tensor.insert":
        result = kernel("tfrt_array.insert", [op.scalar, op.dest, *op.indices])  # type: ignore[attr-defined]
    elif name == "tensor.extract_slice":
        offsets = _static(op, "static_offsets", "offsets")
        sizes = _static(op, "static_sizes", "sizes")
        strides = _static(op, "static_strides", "strides")
        result = kernel("tfrt_array.extract_slice", [op.source], {  # type: ignore[attr-defined]
            "offsets": i64_array(offsets), "shape": i64_array(rtype.get_shape()),
            "sizes": i64_array(sizes), "strides": i64_array(strides),
        })  # fmt: skip
    elif name == "tensor.insert_slice":
        offsets = _static(op, "static_offsets", "offsets")
        sizes = _static(op, "static_sizes", "sizes")
        strides = _static(op, "static_strides", "strides")
        result = kernel("tfrt_array.insert_slice", [op.source, op.dest], {  # type: ignore[attr-defined]
            "inplace": i64_attr(-1), "offsets": i64_array(offsets),
            "sizes": i64_array(sizes), "strides": i64_array(strides),
        })  # fmt: skip
    elif name in ("tensor.reshape", "tensor.collapse_shape", "tensor.expand_shape"):
        src = op.operands[0]
        check_value_type(op, src.type)
        result = kernel("tfrt_array.reshape", [src], {"shape": i64_array(rtype.get_shape())})
    elif name == "tensor.pad":
        low = _static(op, "static_low", "padding")
        high = _static(op, "static_high", "padding")
        block = op.regions[0].blocks[0]
        yielded = block.last_op.operands[0]  # type: ignore[union-attr]
        value = yielded
        if scalar_constant(yielded) is not None and yielded.owner.parent_block() is block:  # type: ignore[union-attr]
            const_op = yielded.owner  # type: ignore[union-attr]
            const_op.detach()
            new.append(const_op)
        elif isinstance(yielded.owner, Operation) and yielded.owner.parent_block() is block:  # type: ignore[union-attr]
            raise cannot_lower(op, "the padding value must be a constant or a value defined outside the body")
        elif yielded in block.args:
            raise cannot_lower(op, "padding with a value that depends on the position is not supported")
        result = kernel("tfrt_array.pad", [op.source, value], {  # type: ignore[attr-defined]
            "high": i64_array(high), "low": i64_array(low),
        })  # fmt: skip
    elif name == "tensor.concat":
        result = kernel("tfrt_array.concat", list(op.inputs), {"axis": i64_attr(op.dim.value.data)})  # type: ignore[attr-defined]
    elif name == "tensor.from_elements":
        result = kernel("tfrt_array.from_elements", list(op.elements), {  # type: ignore[attr-defined]
            "dtype": str_attr(element_name(rtype)), "shape": i64_array(rtype.get_shape()),
        })  # fmt: skip
    elif name == "tensor.splat":
        k = elementwise("a0", [op.input], rtype, op)  # type: ignore[attr-defined]
        new.append(k)
        result = k.results[0]
    elif name == "tensor.cast":
        src = op.source  # type: ignore[attr-defined]
        check_value_type(op, src.type)
        result = src
    elif name == "tensor.dim":
        src_t = op.source.type  # type: ignore[attr-defined]
        check_value_type(op, src_t)
        index = scalar_constant(op.index)  # type: ignore[attr-defined]
        if index is None:
            raise cannot_lower(op, "the dimension index must be a constant")
        size = src_t.get_shape()[index.value.data]
        k = make_op("tfrt_scalar.constant.i64", [], [i64], {"value": IntegerAttr(size, i64)}, at=op)
        new.append(k)
        result = k.results[0]
    elif name == "tensor.yield":
        return
    else:
        raise cannot_lower(op, "no kernel implements it")
    replace(op, new, [result])


@dataclass(frozen=True)
class LowerTensorPass(ModulePass):
    """Lower tensor dialect ops to ``tfrt_array`` kernels (see the module docstring)."""

    name = "lower-tensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in walk(op):
            if o.name.startswith("tensor.") and o.name != "tensor.yield":
                parent = o.parent_op()
                if parent is not None and parent.name.startswith("linalg."):
                    continue
                _lower(o)


LowerTensorPass.__doc__ = f"{LowerTensorPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
