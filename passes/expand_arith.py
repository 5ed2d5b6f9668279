"""``expand-arith``: arith's extended-precision ops in terms of the others.

``arith.addui_extended``, ``arith.mului_extended`` and ``arith.mulsi_extended``
return two values (a sum and its carry; the low and high halves of the
double-width product).  No kernel computes them directly; as MLIR's
``arith-expand`` and wide-integer emulation do, this pass rewrites them into
ops ``lower-arith`` lowers, on scalars and tensors alike:

* ``addui_extended a, b`` -> ``s = addi a, b`` and ``carry = cmpi ult, s, a``;
* ``mului_extended a, b`` on iN -> ``lo = muli a, b``; ``hi`` from the four
  products of the N/2-bit halves of ``a`` and ``b`` (each fits in N bits
  unsigned), summed with their carries;
* ``mulsi_extended`` -> the unsigned high half corrected for negative
  operands: ``hi_s = hi_u - (a < 0 ? b : 0) - (b < 0 ? a : 0)`` (mod 2^N).

i1 products (odd width) are computed directly: ``lo = hi = a and b``
unsigned; signed, ``lo = a and b`` and ``hi = 0``.

Example::

    %lo, %hi = arith.mului_extended %a, %b : i32
    // becomes
    %lo = arith.muli %a, %b : i32
    %hi = ... (arith.andi / shrui / muli / addi on the 16-bit halves)
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, IntegerType, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.passes.lowering import make_op, replace

_EXTENDED = ("arith.addui_extended", "arith.mului_extended", "arith.mulsi_extended")


class _Emitter:
    def __init__(self, at: Operation):
        self.at = at
        self.ops: list[Operation] = []

    def op(self, name: str, operands, result_type, attrs=None) -> SSAValue:
        new = make_op(name, operands, [result_type], attrs or {}, at=self.at)
        self.ops.append(new)
        return new.results[0]

    def const(self, value: int, type_) -> SSAValue:
        elem = type_.element_type if isinstance(type_, TensorType) else type_
        width = elem.width.data
        value &= (1 << width) - 1
        if value >= 1 << (width - 1) and width > 1:
            value -= 1 << width  # as a signless constant prints it
        if isinstance(type_, TensorType):
            attr = DenseIntOrFPElementsAttr.from_list(type_, [value] * _size(type_))
        else:
            attr = IntegerAttr(value, elem)
        return self.op("arith.constant", [], type_, {"value": attr})

    def cmpi(self, pred: int, a: SSAValue, b: SSAValue, type_) -> SSAValue:
        i1 = IntegerType(1)
        rtype = TensorType(i1, type_.get_shape()) if isinstance(type_, TensorType) else i1
        return self.op("arith.cmpi", [a, b], rtype, {"predicate": IntegerAttr(pred, IntegerType(64))})


def _size(t: TensorType) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


def _high_unsigned(e: _Emitter, a: SSAValue, b: SSAValue, t, width: int) -> SSAValue:
    h = width // 2
    mask, shift = e.const((1 << h) - 1, t), e.const(h, t)
    a0, a1 = e.op("arith.andi", [a, mask], t), e.op("arith.shrui", [a, shift], t)
    b0, b1 = e.op("arith.andi", [b, mask], t), e.op("arith.shrui", [b, shift], t)
    p00, p01 = e.op("arith.muli", [a0, b0], t), e.op("arith.muli", [a0, b1], t)
    p10, p11 = e.op("arith.muli", [a1, b0], t), e.op("arith.muli", [a1, b1], t)
    mid = e.op("arith.addi", [e.op("arith.shrui", [p00, shift], t), e.op("arith.andi", [p01, mask], t)], t)
    mid = e.op("arith.addi", [mid, e.op("arith.andi", [p10, mask], t)], t)
    hi = e.op("arith.addi", [p11, e.op("arith.shrui", [p01, shift], t)], t)
    hi = e.op("arith.addi", [hi, e.op("arith.shrui", [p10, shift], t)], t)
    return e.op("arith.addi", [hi, e.op("arith.shrui", [mid, shift], t)], t)


def _expand(op: Operation) -> None:
    a, b = op.operands
    t = a.type
    elem = t.element_type if isinstance(t, TensorType) else t
    width = elem.width.data
    e = _Emitter(op)
    if op.name == "arith.addui_extended":
        s = e.op("arith.addi", [a, b], t)
        results = [s, e.cmpi(6, s, a, t)]  # ult: the sum wrapped
    elif width == 1:
        lo = e.op("arith.andi", [a, b], t)
        results = [lo, lo if op.name == "arith.mului_extended" else e.const(0, t)]
    else:
        lo = e.op("arith.muli", [a, b], t)
        hi = _high_unsigned(e, a, b, t, width) if width % 2 == 0 else None
        if hi is None:  # odd widths: through twice the width, which the kernels have up to i32
            wide = IntegerType(2 * width)
            wt = TensorType(wide, t.get_shape()) if isinstance(t, TensorType) else wide
            ext = "arith.extui" if op.name == "arith.mului_extended" else "arith.extsi"
            p = e.op("arith.muli", [e.op(ext, [a], wt), e.op(ext, [b], wt)], wt)
            hi = e.op("arith.trunci", [e.op("arith.shrui", [p, e.const(width, wt)], wt)], t)
        elif op.name == "arith.mulsi_extended":
            zero = e.const(0, t)
            fix_a = e.op("arith.select", [e.cmpi(2, a, zero, t), b, zero], t)  # slt
            fix_b = e.op("arith.select", [e.cmpi(2, b, zero, t), a, zero], t)
            hi = e.op("arith.subi", [e.op("arith.subi", [hi, fix_a], t), fix_b], t)
        results = [lo, hi]
    replace(op, e.ops, results)


@dataclass(frozen=True)
class ExpandArithPass(ModulePass):
    """Rewrite arith's extended-precision ops into the others (see the module docstring)."""

    name = "expand-arith"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in [o for o in walk(op) if o.name in _EXTENDED]:
            _expand(o)


ExpandArithPass.__doc__ = f"{ExpandArithPass.__doc__}\n\n{__doc__}"
