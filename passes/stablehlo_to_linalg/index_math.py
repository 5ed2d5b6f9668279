"""Small builders the window, gather/scatter and misc conversions share.

Index arithmetic inside ``linalg.generic`` bodies and ``scf`` loops (``index``
values: ``linalg.index``, casts from the integer tensors StableHLO passes
indices in, clamps), padding with interior padding, reversing dimensions,
and running a StableHLO body region (:func:`.scalar.scalarize_region`) on
scalars.  Everything is built with an :class:`~.common.Emitter`, at the
location of the op being converted.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfrt.dialects import arith
from xdsl.dialects import arith as xarith
from xdsl.dialects.builtin import IndexType, IntegerType, TensorType, i64
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineExpr, AffineMap

from .common import (
    Emitter,
    cmp_i,
    d,
    element,
    extract_slice,
    insert_slice,
    is_unsigned,
    shape,
    signless,
    tensor_reshape,
    width,
)
from .scalar import scalarize_region

INDEX = IndexType()


def numel(s: Sequence[int]) -> int:
    n = 1
    for v in s:
        n *= int(v)
    return n


# --------------------------------------------------------------------------
# index arithmetic


def to_index(e: Emitter, v: SSAValue, orig_type: Attribute) -> SSAValue:
    """An integer scalar of (original) type ``orig_type`` as an ``index``
    (zero-extended when the type is unsigned)."""
    if isinstance(v.type, IndexType):
        return v
    if is_unsigned(orig_type):
        if width(orig_type) == 64:
            # ui64 values of 2^63 and above would read as negative indices:
            # they are past every dimension, as 2^63 - 1 is.
            v = e.add(xarith.MinUIOp(v, e.scalar((1 << 63) - 1, v.type)))
        return e.add(arith.IndexCastUIOp(v, INDEX))
    return e.add(arith.IndexCastOp(v, INDEX))


def index_to(e: Emitter, v: SSAValue, t: Attribute) -> SSAValue:
    return e.add(arith.IndexCastOp(v, signless(element(t))))


def add(e: Emitter, a: SSAValue, b: SSAValue | int) -> SSAValue:
    if isinstance(b, int):
        if b == 0:
            return a
        b = e.index(b) if isinstance(a.type, IndexType) else e.scalar(b, a.type)
    return e.add(xarith.AddiOp(a, b))


def sub(e: Emitter, a: SSAValue, b: SSAValue | int) -> SSAValue:
    if isinstance(b, int):
        return add(e, a, -b)
    return e.add(xarith.SubiOp(a, b))


def mul(e: Emitter, a: SSAValue, b: SSAValue | int) -> SSAValue:
    if isinstance(b, int):
        if b == 1:
            return a
        b = e.index(b) if isinstance(a.type, IndexType) else e.scalar(b, a.type)
    return e.add(xarith.MuliOp(a, b))


def clamp(e: Emitter, v: SSAValue, lo: int, hi: int) -> SSAValue:
    """``min(max(v, lo), hi)`` of a signed ``index`` (``hi`` wins when ``hi < lo``)."""
    v = e.add(xarith.MaxSIOp(v, e.index(lo)))
    return e.add(xarith.MinSIOp(v, e.index(hi)))


def and_(e: Emitter, a: SSAValue | None, b: SSAValue) -> SSAValue:
    return b if a is None else e.add(xarith.AndIOp(a, b))


def in_range(e: Emitter, v: SSAValue, lo: int, hi: int) -> SSAValue:
    """``lo <= v < hi`` of a signed ``index``."""
    return e.add(xarith.AndIOp(cmp_i(e, "sge", v, e.index(lo)), cmp_i(e, "slt", v, e.index(hi))))


def true(e: Emitter) -> SSAValue:
    return e.scalar(1, IntegerType(1))


# --------------------------------------------------------------------------
# tensors


def pad(
    e: Emitter,
    x: SSAValue,
    value: SSAValue,
    low: Sequence[int],
    high: Sequence[int],
    interior: Sequence[int] | None = None,
) -> SSAValue:
    """StableHLO's ``pad`` of ``x`` with scalar ``value``: edge padding (negative
    cuts), interior padding between elements."""
    in_shape = shape(x.type)
    rank = len(in_shape)
    interior = list(interior) if interior is not None else [0] * rank
    if not any(low) and not any(high) and not any(interior):
        return x
    pos_low = [max(0, v) for v in low]
    pos_high = [max(0, v) for v in high]
    dilated = [s + (s - 1) * i if s > 0 else 0 for s, i in zip(in_shape, interior)]
    full = [a + b + c for a, b, c in zip(pos_low, dilated, pos_high)]
    acc = e.filled(full, value)
    if numel(in_shape) > 0:
        acc = insert_slice(e, x, acc, pos_low, list(in_shape), [i + 1 for i in interior])
    if any(v < 0 for v in low) or any(v < 0 for v in high):
        offsets = [max(0, -v) for v in low]
        sizes = [max(0, f - o - max(0, -h)) for f, o, h in zip(full, offsets, high)]
        out_t = TensorType(signless(element(x.type)), sizes)
        acc = extract_slice(e, acc, offsets, sizes, [1] * rank, out_t)
    return acc


def slice_to(e: Emitter, x: SSAValue, sizes: Sequence[int]) -> SSAValue:
    """The leading ``sizes`` of each dimension of ``x``."""
    if list(shape(x.type)) == list(sizes):
        return x
    out_t = TensorType(signless(element(x.type)), list(sizes))
    return extract_slice(e, x, [0] * len(sizes), list(sizes), [1] * len(sizes), out_t)


def reshape(e: Emitter, x: SSAValue, new_shape: Sequence[int]) -> SSAValue:
    return tensor_reshape(e, x, TensorType(signless(element(x.type)), list(new_shape)))


def reverse(e: Emitter, x: SSAValue, dims: Sequence[int]) -> SSAValue:
    """``x`` reversed along ``dims``."""
    s = shape(x.type)
    dims = [k for k in dims if s[k] > 1]
    if not dims:
        return x
    rank = len(s)
    exprs: list[AffineExpr] = [
        (AffineConstantExpr(s[i] - 1) - d(i)) if i in dims else d(i)  # type: ignore[operator]
        for i in range(rank)
    ]
    out_t = TensorType(signless(element(x.type)), list(s))
    return e.map([x], out_t, lambda inner, args: args[0], [AffineMap(rank, 0, tuple(exprs))])


def empty_like(e: Emitter, s: Sequence[int], elem: Attribute) -> SSAValue:
    return e.empty(list(s), elem)


# --------------------------------------------------------------------------
# bodies


def run_body(
    e: Emitter, region: Region, args: Sequence[SSAValue], owner: Operation
) -> list[SSAValue]:
    """The body ``region`` of ``owner`` (ops on 0-d tensors) on scalars ``args``."""
    return scalarize_region(e, region, list(args), owner)


def i64_type() -> Attribute:
    return i64
