"""``fold-constants``: evaluate kernels whose operands are all constants, with their own kernels.

A ``tfrt_scalar`` or ``tfrt_array`` kernel whose operands are all
``tfrt_scalar.constant.*`` / ``tfrt_array.constant`` runs at compile time
through the same kernel the executor would call (numpy), and its result
becomes a constant, so compile-time and run-time arithmetic agree bit for
bit.  Tensors larger than ``max_elements`` (default 65536) are left to run
time, to keep the BEF file small::

    %a = tfrt_scalar.constant.i32 6
    %b = tfrt_scalar.constant.i32 7
    %c = tfrt_scalar.eval %a, %b {expr = "(a0 * a1)", types = "i32,i32"} : (i32, i32) -> i32
    // becomes
    %c = tfrt_scalar.constant.i32 42
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    FloatData,
    IntegerAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.passes.lowering import element_name, make_op, replace

# Kernels that are not worth folding (views, shape changes of constants are cheap
# at run time) or that have effects.
_SKIP = {"tfrt_array.constant", "tfrt_array.to_device", "tfrt_array.device_constant", "tfrt_array.to_host",
         "tfrt_array.graph_call", "tfrt_scalar.print"}


def _constant_value(op: Operation) -> Any:
    """The constant as the kernels see it at run time: an array of its
    element type (from the attribute's bits, so a NaN keeps its encoding and
    i4 its width), or a numpy scalar."""
    import numpy as np

    from tfrt.kernels.expr import DTYPES
    from tfrt.tensor.small_types import convert, is_small_float

    value = op.properties["value"]
    if op.name == "tfrt_array.constant":
        t = value.get_type() if hasattr(value, "get_type") else value.type
        return _array_of(value, t, DTYPES[element_name(t)])
    dtype = DTYPES[op.name.rsplit(".", 1)[1]]
    if is_small_float(dtype):
        return convert(np.float64(value.value.data), dtype)
    return dtype.type(value.value.data)


def _array_of(attr: DenseIntOrFPElementsAttr, t: TensorType, dtype: Any) -> Any:
    import numpy as np

    from tfrt.dialects.syntax.attributes import _np_dtype

    shape = tuple(t.get_shape())
    element = t.get_element_type()
    stored = _np_dtype(element)
    if stored is None or element_name(t) == "i1":
        return np.array(attr.get_values(), dtype=dtype).reshape(shape)
    raw = np.frombuffer(attr.data.data, stored)
    if raw.size == 1 and math.prod(shape) != 1:  # a splat held once
        raw = np.broadcast_to(raw, (math.prod(shape),))
    if stored != dtype:  # i2/i4: xDSL's sign-extended bytes -> ml_dtypes
        raw = raw.astype(dtype)
    return np.array(raw, dtype=dtype).reshape(shape)


def _is_constant(op: Operation | None) -> bool:
    return op is not None and (op.name == "tfrt_array.constant" or op.name.startswith("tfrt_scalar.constant."))


def _kernel_attrs(op: Operation) -> list[Any]:
    import numpy as np

    out = []
    for name in sorted(op.properties):
        attr = op.properties[name]
        if isinstance(attr, IntegerAttr):
            out.append(attr.value.data)
        elif hasattr(attr, "data") and isinstance(attr.data, tuple):
            out.append(np.array([a.value.data for a in attr.data], dtype=np.int64))
        elif hasattr(attr, "data") and isinstance(attr.data, str):
            out.append(attr.data)
        else:
            return None  # type: ignore[return-value]
    return out


def _to_constant(value: Any, rtype, at: Operation) -> Operation | None:
    import numpy as np

    from tfrt.dialects.syntax.attributes import _np_dtype

    if isinstance(rtype, TensorType):
        arr = np.asarray(value)
        stored = _np_dtype(rtype.get_element_type())
        if arr.dtype == np.bool_ or stored is None:
            flat = arr.reshape(-1).tolist()
            if arr.dtype == np.bool_:
                flat = [int(v) for v in flat]
            elif np.iscomplexobj(arr):  # (re, im) pairs
                flat = [(v.real, v.imag) for v in flat]
            attr = DenseIntOrFPElementsAttr.from_list(rtype, flat)
        else:
            # The result's bits, in the attribute's layout (i4 sign-extended).
            raw = np.ascontiguousarray(arr.astype(stored) if arr.dtype != stored else arr).tobytes()
            attr = DenseIntOrFPElementsAttr(rtype, BytesAttr(raw))
        return make_op("tfrt_array.constant", [], [rtype], {"value": attr}, at=at)
    name = element_name(rtype)
    v = value.item() if hasattr(value, "item") else value
    if name[0] in "bf":
        attr = FloatAttr.new((FloatData(float(v)), rtype))  # exact: a NaN keeps its sign
    else:
        attr = IntegerAttr(int(v), rtype)
    return make_op(f"tfrt_scalar.constant.{name}", [], [rtype], {"value": attr}, at=at)


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Evaluate kernels on constant operands at compile time (see the module docstring)."""

    name = "fold-constants"
    max_elements: int = 65536

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        registry = None  # loaded for the first candidate (importing the kernels takes a while)
        for o in walk(op):
            if not o.name.startswith(("tfrt_array.", "tfrt_scalar.")) or o.name in _SKIP:
                continue
            if _is_constant(o) or len(o.results) != 1 or o.regions:
                continue
            owners = [getattr(v, "op", None) for v in o.operands]
            if not all(_is_constant(x) for x in owners):
                continue
            rtype = o.results[0].type
            if isinstance(rtype, TensorType):
                size = 1
                for d in rtype.get_shape():
                    size *= d
                if size > self.max_elements:
                    continue
            if registry is None:
                from tfrt.kernels.registry import default_registry

                registry = default_registry()
            kdef = registry.get(o.name) if hasattr(registry, "get") else None
            attrs = _kernel_attrs(o)
            if kdef is None or attrs is None:
                continue
            try:
                value = kdef.bind(attrs)(*[_constant_value(x) for x in owners])
            except Exception:  # noqa: BLE001 - leave it to run time, where the error has a location
                continue
            new = _to_constant(value, rtype, o)
            if new is not None:
                replace(o, [new], new.results)


FoldConstantsPass.__doc__ = f"{FoldConstantsPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
