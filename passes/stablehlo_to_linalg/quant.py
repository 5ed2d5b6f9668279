"""StableHLO's quantization: ``uniform_quantize`` and ``uniform_dequantize``.

A ``!quant.uniform`` value is computed on as its storage integer; as the
specification defines them (per tensor, or per axis with one scale and zero
point per index of that axis)::

    dequantize(q) = convert(q - zero_point, expressed) * scale
    quantize(x)   = convert(round_nearest_even(clamp(min, x / scale + zero_point, max)), storage)

``uniform_quantize`` of a quantized operand requantizes (dequantize, then
quantize).  Other ops on quantized values are refused at the op, except those
that only move stored elements (reshape, transpose, broadcast_in_dim, slice,
concatenate, reverse): computing on stored integers as if they were the
values would be wrong.
"""

from __future__ import annotations

from xdsl.dialects import arith as xarith
from xdsl.dialects import math
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineMap

from tfrt.dialects import arith

from .common import Emitter, d, identity_map, quantized, static_type

# Ops that only move stored elements: exact on the storage integers.
MOVES_ONLY = frozenset({
    "stablehlo.reshape", "stablehlo.transpose", "stablehlo.broadcast_in_dim", "stablehlo.slice",
    "stablehlo.concatenate", "stablehlo.reverse", "stablehlo.optimization_barrier",
})  # fmt: skip
QUANT_OPS = frozenset({"stablehlo.uniform_quantize", "stablehlo.uniform_dequantize"})


def _params(e: Emitter, q, rank: int, expressed: Attribute):
    """(scale, zero point) operands and their maps: constants per tensor,
    1-D tensors indexed by the axis per axis."""
    scales, zps = q.scale_values(), q.zero_point_values()
    if not q.per_axis:
        return None, scales[0], zps[0]
    axis = q.axis.data
    st = TensorType(expressed, [len(scales)])
    zt = TensorType(i64, [len(zps)])
    s_t = e.add(xarith.ConstantOp(DenseIntOrFPElementsAttr.from_list(st, scales), st))
    z_t = e.add(xarith.ConstantOp(DenseIntOrFPElementsAttr.from_list(zt, zps), zt))
    m = AffineMap(rank, 0, (d(axis),))
    return (s_t, z_t, m), None, None


def _dequantize_scalar(b: Emitter, v: SSAValue, q, expressed, scale, zp) -> SSAValue:
    wide = b.add((arith.ExtSIOp if q.is_signed else arith.ExtUIOp)(v, i64)) if q.storage.width.data < 64 else v
    sub = b.add(xarith.SubiOp(wide, zp))
    f = b.add(arith.SIToFPOp(sub, expressed))
    return b.add(xarith.MulfOp(f, scale))


def _quantize_scalar(b: Emitter, x: SSAValue, q, expressed, scale, zp_f) -> SSAValue:
    scaled = b.add(xarith.AddfOp(b.add(xarith.DivfOp(x, scale)), zp_f))
    lo = b.scalar(float(q.storage_min.data), expressed)
    hi = b.scalar(float(q.storage_max.data), expressed)
    clamped = b.add(xarith.MinimumfOp(b.add(xarith.MaximumfOp(scaled, lo)), hi))
    rounded = b.add(math.RoundEvenOp(clamped))
    return b.add((arith.FPToSIOp if q.is_signed else arith.FPToUIOp)(rounded, q.storage))


def dequantize(e: Emitter, x: SSAValue, q, out_t: TensorType) -> SSAValue:
    """The expressed values (``out_t``) of quantized ``x`` (of type ``q``)."""
    expressed = out_t.element_type
    rank = len(out_t.get_shape())
    per_axis, scale, zp = _params(e, q, rank, expressed)
    ins = [x] + (list(per_axis[:2]) if per_axis else [])
    maps = [identity_map(rank)] + ([per_axis[2], per_axis[2]] if per_axis else [])

    def body(b: Emitter, args):
        if per_axis:
            s, z = args[1], args[2]
        else:
            s, z = b.scalar(scale, expressed), b.scalar(zp, i64)
        return _dequantize_scalar(b, args[0], q, expressed, s, z)

    return e.map(ins, out_t, body, maps)


def convert_uniform_dequantize(op: Operation, e: Emitter) -> list[SSAValue]:
    x = op.operands[0]
    q = quantized(static_type(op, x.type).element_type)
    if q is None:
        raise e.error("uniform_dequantize needs a quantized operand")
    return [dequantize(e, x, q, static_type(op, op.results[0].type))]


def convert_uniform_quantize(op: Operation, e: Emitter) -> list[SSAValue]:
    x = op.operands[0]
    in_t = static_type(op, x.type)
    out_t = static_type(op, op.results[0].type)
    q = quantized(out_t.element_type)
    if q is None:
        raise e.error("uniform_quantize needs a quantized result type")
    expressed = q.expressed
    rank = len(out_t.get_shape())
    q_in = quantized(in_t.element_type)
    if q_in is not None:  # requantize: dequantize first
        in_t = TensorType(q_in.expressed, in_t.get_shape())
        x = dequantize(e, x, q_in, in_t)
        if q_in.expressed != expressed:
            raise e.error("requantizing between expressed types is not supported")
    if in_t.element_type != expressed:
        raise e.error(f"uniform_quantize of {in_t.element_type} into a type expressed in {expressed}")
    per_axis, scale, zp = _params(e, q, rank, expressed)
    ins = [x] + (list(per_axis[:2]) if per_axis else [])
    maps = [identity_map(rank)] + ([per_axis[2], per_axis[2]] if per_axis else [])
    storage_t = TensorType(q.storage, out_t.get_shape())

    def body(b: Emitter, args):
        if per_axis:
            s = args[1]
            zp_f = b.add(arith.SIToFPOp(args[2], expressed))
        else:
            s, zp_f = b.scalar(scale, expressed), b.scalar(float(zp), expressed)
        return _quantize_scalar(b, args[0], q, expressed, s, zp_f)

    return [e.map(ins, storage_t, body, maps)]


CONVERSIONS = {
    "stablehlo.uniform_quantize": convert_uniform_quantize,
    "stablehlo.uniform_dequantize": convert_uniform_dequantize,
}
