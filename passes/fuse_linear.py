"""``fuse-linear``: a matmul or convolution absorbs the elementwise op that follows it.

When the only use of a ``tfrt_array.matmul``/``conv2d`` result is a
``tfrt_array.elementwise`` of the same shape (bias, residual, activation,
after ``fuse-elementwise`` merged them into one), the elementwise expression
becomes the kernel's ``epilogue``, evaluated in place on the product while it
is still in cache; the elementwise op's other operands become the kernel's
extra operands::

    %p = tfrt_array.matmul %x, %w {epilogue = "", ...}
    %y = tfrt_array.elementwise %p, %b {expr = "maximum((a0 + a1), cast_f32(0.0))", ...}
    // becomes
    %y = tfrt_array.matmul %x, %w, %b {epilogue = "maximum((a0 + a1), cast_f32(0.0))",
                                      types = "f32,f32", ...}

A ``tfrt_array.pad`` of the height and width that feeds a ``conv2d`` (with
zeros) or a ``pool2d`` (with the value the pooling ignores: zero for sums,
-inf for max, +inf for min) becomes the kernel's ``padding``, so the padded
copy is never made::

    %p = tfrt_array.pad %x, %zero {high = [0, 1, 1, 0], low = [0, 1, 1, 0]}
    %y = tfrt_array.conv2d %p, %w {padding = [0, 0, 0, 0], ...}
    // becomes
    %y = tfrt_array.conv2d %x, %w {padding = [1, 1, 1, 1], ...}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import erase_op, insert_op_before, replace_all_uses, walk
from tfrt.passes.fuse_elementwise import substitute
from tfrt.passes.lowering import element_name, i64_array, make_op, scalar_constant, str_attr

_LINEAR = ("tfrt_array.matmul", "tfrt_array.conv2d")


@dataclass(frozen=True)
class FuseLinearPass(ModulePass):
    """Fuse matmul/conv2d with the elementwise op that follows (see the module docstring)."""

    name = "fuse-linear"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in walk(op):
            if o.name in ("tfrt_array.conv2d", "tfrt_array.pool2d"):
                _absorb_pad(o)
        for lin in walk(op):
            if lin.name not in _LINEAR or lin.properties["epilogue"].data:
                continue
            uses = list(lin.results[0].uses)
            if len(uses) != 1:
                continue
            user = uses[0].operation
            if user.name != "tfrt_array.elementwise" or user.parent_block() is not lin.parent_block():
                continue
            rtype, utype = lin.results[0].type, user.results[0].type
            if not isinstance(utype, TensorType) or tuple(utype.get_shape()) != tuple(rtype.get_shape()):
                continue
            if utype.element_type != rtype.element_type:
                continue  # a cast (f16 widened for a sum): the kernels' result has the product's type
            k = uses[0].index
            others = [v for i, v in enumerate(user.operands) if i != k]
            if any(v is lin.results[0] for v in others):
                continue
            # a<k> -> a0 (the product); the others -> a1...
            mapping = {f"a{k}": "a0"}
            j = 1
            for i in range(len(user.operands)):
                if i != k:
                    mapping[f"a{i}"] = f"a{j}"
                    j += 1
            expr = substitute(user.properties["expr"].data, mapping)
            attrs = dict(lin.properties)
            attrs["epilogue"] = str_attr(expr)
            attrs["types"] = str_attr(",".join([element_name(rtype)] + [element_name(v.type) for v in others]))
            new = make_op(lin.name, [*lin.operands, *others], [utype], attrs, at=lin)
            # The fused kernel runs where the elementwise op ran (its operands exist there).
            insert_op_before(new, user)
            replace_all_uses(user.results[0], new.results[0])
            erase_op(user)
            erase_op(lin)




FuseLinearPass.__doc__ = f"{FuseLinearPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"


def _absorb_pad(op) -> None:
    """``op``'s input padded by a ``tfrt_array.pad`` of H and W becomes ``op``'s padding."""
    x = op.operands[0]
    pad = getattr(x, "op", None)
    if pad is None or pad.name != "tfrt_array.pad" or any(op.properties["padding"].data):
        return
    low = [a.value.data for a in pad.properties["low"].data]
    high = [a.value.data for a in pad.properties["high"].data]
    if len(low) != 4 or low[0] or low[3] or high[0] or high[3]:
        return  # only the spatial dimensions of NHWC
    value = scalar_constant(pad.operands[1])
    if value is None:
        return
    v = float(value.value.data)
    if op.name == "tfrt_array.conv2d":
        ignored = {0.0}
    else:
        kinds = {"max": {float("-inf")}, "min": {float("inf")}, "sum": {0.0}, "avg": {0.0}}
        ignored = kinds.get(op.properties["kind"].data, set())
    if v not in ignored:
        return
    op.properties["padding"] = i64_array([low[1], high[1], low[2], high[2]])
    op.operands[0] = pad.operands[0]
    if not pad.results[0].uses:
        pad.detach()
        pad.erase()
