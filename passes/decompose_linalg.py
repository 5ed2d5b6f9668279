"""``decompose-linalg``: ``linalg.pack``/``unpack``/``softmax`` -> ops the lowering knows.

As MLIR decomposes them (``linalg::lowerPack``, ``linalg::lowerUnPack``,
``SoftmaxOp::decomposeOperation``), each becomes ops of the ``tensor``,
``linalg``, ``arith`` and ``math`` dialects, which ``lower-linalg`` and
``lower-tensor`` then turn into kernels; no kernel knows these ops.

* ``linalg.pack``: ``tensor.pad`` of the incomplete tiles (with the
  ``padding_value``; left out when every tile is full), ``tensor.expand_shape``
  splitting each tiled dimension into (outer, tile), then ``linalg.transpose``
  into the packed order (outer dimensions by ``outer_dims_perm``, tiles by
  ``inner_dims_pos``), into the op's destination.
* ``linalg.unpack``: the inverse ``linalg.transpose``, ``tensor.collapse_shape``
  of each (outer, tile) pair, and ``tensor.extract_slice`` of the destination's
  shape when the tiles hold more (the padding is dropped).
* ``linalg.softmax``: the numerically stable form.  The maximum along the
  dimension (``arith.maxnumf`` from the lowest finite value), ``exp(x - max)``,
  its sum, and the quotient, each a ``linalg.generic`` whose indexing maps
  broadcast the reduced operands.

Shapes must be static and tiles compile-time constants (an integer, or an
``index`` value defined by ``arith.constant``); anything else is an error
at the op.  Example::

    %p = linalg.pack %src padding_value(%c0 : f32) inner_dims_pos = [1] inner_tiles = [4]
        into %dest : tensor<2x7xf32> -> tensor<2x2x4xf32>
    // becomes
    %padded = tensor.pad %src low[0, 0] high[0, 1] {
    ^bb0(%i: index, %j: index):
      tensor.yield %c0 : f32
    } : tensor<2x7xf32> to tensor<2x8xf32>
    %p = tensor.expand_shape %padded [[0], [1, 2]] output_shape [2, 2, 4]
        : tensor<2x8xf32> into tensor<2x2x4xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp, TransposeOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.dialects.linalg_relayout import constant_index, mixed_tiles
from tfrt.passes.lowering import cannot_lower, replace

_DYNAMIC = -(2**63)  # MLIR's ShapedType::kDynamic

# The lowest finite value of each float type: softmax's running maximum
# starts there, as MLIR's (arith::getIdentityValue of maxnumf, finite only).
_LOWEST = {
    Float16Type: float(np.finfo(np.float16).min),
    Float32Type: float(np.finfo(np.float32).min),
    Float64Type: float(np.finfo(np.float64).min),
}


class _Emitter:
    """The ops replacing one op, in order, all at its location."""

    def __init__(self, at: Operation):
        self.at = at
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        op.location = self.at.location
        self.ops.append(op)
        return op.results[0]

    def empty(self, shape: Sequence[int], element: Attribute) -> SSAValue:
        return self.add(tensor.EmptyOp([], TensorType(element, list(shape))))

    def transpose(self, x: SSAValue, perm: Sequence[int], init: SSAValue | None = None) -> SSAValue:
        if list(perm) == list(range(len(perm))):
            return x
        shape = x.type.get_shape()
        if init is None:
            init = self.empty([shape[p] for p in perm], x.type.element_type)
        return self.add(TransposeOp(x, init, DenseArrayBase.from_list(i64, list(perm))))

    def fill(self, value: SSAValue, init: SSAValue) -> SSAValue:
        return self.add(FillOp([value], [init], [init.type]))

    def constant(self, value: float, element: Attribute) -> SSAValue:
        return self.add(arith.ConstantOp(FloatAttr(value, element)))


def _reassociation(groups: Sequence[Sequence[int]]) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in g]) for g in groups])


def _static_type(op: Operation, value: SSAValue) -> TensorType:
    t = value.type
    if not isinstance(t, TensorType):
        raise cannot_lower(op, f"only tensors are supported, not {t}")
    if any(d == _DYNAMIC for d in t.get_shape()):
        raise cannot_lower(op, f"dynamic shapes are not supported ({t}); the kernels need static shapes")
    return t


def _relayout_types(op: Operation) -> tuple[TensorType, TensorType]:
    """The static source and destination types of a pack or unpack."""
    src_t = _static_type(op, op.source)  # type: ignore[attr-defined]
    dest_t = _static_type(op, op.dest)  # type: ignore[attr-defined]
    if src_t.element_type != dest_t.element_type:
        src_e, dest_e = src_t.element_type, dest_t.element_type
        raise cannot_lower(op, f"the source's element type {src_e} is not the destination's {dest_e}")
    return src_t, dest_t


def _static_tiles(op: Operation) -> list[int]:
    tiles = []
    for i, tile in enumerate(mixed_tiles(op)):  # type: ignore[arg-type]
        value = tile if isinstance(tile, int) else (None if tile is None else constant_index(tile))
        if value is None:
            raise cannot_lower(op, f"inner tile #{i} is not a compile-time constant")
        if value <= 0:
            raise cannot_lower(op, f"inner tile #{i} is {value}; tiles must be positive")
        tiles.append(value)
    return tiles


@dataclass
class _Layout:
    """How a pack cuts the unpacked shape: the shape with each tiled
    dimension split into (outer, tile) ("strip-mined"), where each part sits
    there, and the permutation from that shape to the packed one."""

    strip_shape: list[int]
    groups: list[list[int]]
    padded: list[int]
    to_packed: list[int]


def _layout(op: Operation, unpacked: Sequence[int], tiles: Sequence[int]) -> _Layout:
    inner = [int(v) for v in op.inner_dims_pos.get_values()]  # type: ignore[attr-defined]
    perm = op.outer_dims_perm  # type: ignore[attr-defined]
    outer = list(range(len(unpacked)))
    if perm is not None and len(perm):
        outer = [int(v) for v in perm.get_values()]
    tile_of = dict(zip(inner, tiles))
    strip: list[int] = []
    groups: list[list[int]] = []
    outer_at: dict[int, int] = {}
    tile_at: dict[int, int] = {}
    padded = []
    for d, size in enumerate(unpacked):
        outer_at[d] = len(strip)
        if d in tile_of:
            n_tiles = -(-size // tile_of[d])
            strip.append(n_tiles)
            tile_at[d] = len(strip)
            strip.append(tile_of[d])
            groups.append([outer_at[d], tile_at[d]])
            padded.append(n_tiles * tile_of[d])
        else:
            strip.append(size)
            groups.append([outer_at[d]])
            padded.append(size)
    to_packed = [outer_at[d] for d in outer] + [tile_at[d] for d in inner]
    return _Layout(strip, groups, padded, to_packed)


def _check_packed(op: Operation, layout: _Layout, packed: Sequence[int]) -> None:
    expected = [layout.strip_shape[p] for p in layout.to_packed]
    if list(packed) != expected:
        raise cannot_lower(op, f"the packed shape is {list(packed)}, but the tiles make {expected}")


def _pack(op: Operation) -> None:
    src_t, dest_t = _relayout_types(op)
    tiles = _static_tiles(op)
    shape = list(src_t.get_shape())
    layout = _layout(op, shape, tiles)
    _check_packed(op, layout, dest_t.get_shape())
    e = _Emitter(op)
    x: SSAValue = op.source  # type: ignore[attr-defined]
    if layout.padded != shape:
        pad_value = op.padding_value  # type: ignore[attr-defined]
        if pad_value is None:
            raise cannot_lower(op, "a tile does not divide its dimension and there is no padding_value")
        block = Block(arg_types=[IndexType()] * len(shape))
        block.add_op(tensor.YieldOp(pad_value))
        high = [p - s for p, s in zip(layout.padded, shape)]
        x = e.add(tensor.PadOp(x, [], [], Region(block), [0] * len(shape), high,
                               TensorType(src_t.element_type, layout.padded)))  # fmt: skip
    if layout.strip_shape != layout.padded:
        x = e.add(tensor.ExpandShapeOp(x, [], _reassociation(layout.groups), layout.strip_shape,
                                       TensorType(src_t.element_type, layout.strip_shape)))  # fmt: skip
    x = e.transpose(x, layout.to_packed, op.dest)  # type: ignore[attr-defined]
    replace(op, e.ops, [x])


def _unpack(op: Operation) -> None:
    src_t, dest_t = _relayout_types(op)
    tiles = _static_tiles(op)
    shape = list(dest_t.get_shape())
    layout = _layout(op, shape, tiles)
    _check_packed(op, layout, src_t.get_shape())
    e = _Emitter(op)
    inverse = [0] * len(layout.to_packed)
    for i, p in enumerate(layout.to_packed):
        inverse[p] = i
    x = e.transpose(op.source, inverse)  # type: ignore[attr-defined]
    element = src_t.element_type
    if layout.strip_shape != layout.padded:
        x = e.add(tensor.CollapseShapeOp.create(
            operands=[x], result_types=[TensorType(element, layout.padded)],
            properties={"reassociation": _reassociation(layout.groups)}))  # fmt: skip
    if layout.padded != shape:
        n = len(shape)
        x = e.add(tensor.ExtractSliceOp(x, [0] * n, shape, [1] * n, dest_t))
    replace(op, e.ops, [x])


def _generic(e: _Emitter, ins: Sequence[SSAValue], out: SSAValue, maps: Sequence[AffineMap],
             iterators: Sequence[str], body) -> SSAValue:  # fmt: skip
    """A ``linalg.generic`` whose body ``body(args) -> value`` is built on the element types."""
    block = Block(arg_types=[v.type.element_type for v in (*ins, out)])
    made: list[Operation] = []
    result = body(block.args, made)
    for o in made:
        block.add_op(o)
    block.add_op(YieldOp(result))
    kinds = [IteratorTypeAttr(IteratorType(k)) for k in iterators]
    affine_maps = [AffineMapAttr(m) for m in maps]
    return e.add(GenericOp(list(ins), [out], Region(block), affine_maps, kinds, [out.type]))


def _softmax(op: Operation) -> None:
    x = op.input  # type: ignore[attr-defined]
    out = op.output  # type: ignore[attr-defined]
    x_t = _static_type(op, x)
    _static_type(op, out)
    element = x_t.element_type
    lowest = _LOWEST.get(type(element))
    if lowest is None:
        raise cannot_lower(op, f"softmax needs a 16, 32 or 64-bit float element type, not {element}")
    shape = list(x_t.get_shape())
    rank = len(shape)
    dim = op.dimension.value.data  # type: ignore[attr-defined]
    full = AffineMap(rank, 0, tuple(AffineDimExpr(i) for i in range(rank)))
    reduced = AffineMap(rank, 0, tuple(AffineDimExpr(i) for i in range(rank) if i != dim))
    reduction = ["reduction" if i == dim else "parallel" for i in range(rank)]
    parallel = ["parallel"] * rank
    e = _Emitter(op)
    red_init = e.empty([s for i, s in enumerate(shape) if i != dim], element)

    def combine(cls):
        def body(args, made):
            made.append(cls(args[0], args[1]))
            return made[-1].results[0]

        return body

    def sub_exp(args, made):
        made.append(arith.SubfOp(args[0], args[1]))
        made.append(math.ExpOp(made[-1].results[0]))
        return made[-1].results[0]

    max_init = e.fill(e.constant(lowest, element), red_init)
    maximum = _generic(e, [x], max_init, [full, reduced], reduction, combine(arith.MaxnumfOp))
    numerator = _generic(e, [x, maximum], out, [full, reduced, full], parallel, sub_exp)
    sum_init = e.fill(e.constant(0.0, element), red_init)
    denominator = _generic(
        e, [numerator], sum_init, [full, reduced], reduction, combine(arith.AddfOp)
    )
    result = _generic(
        e, [numerator, denominator], out, [full, reduced, full], parallel, combine(arith.DivfOp)
    )
    replace(op, e.ops, [result])


_DECOMPOSE = {"linalg.pack": _pack, "linalg.unpack": _unpack, "linalg.softmax": _softmax}


@dataclass(frozen=True)
class DecomposeLinalgPass(ModulePass):
    """Rewrite ``linalg.pack``, ``linalg.unpack`` and ``linalg.softmax`` into
    ``tensor``/``linalg``/``arith``/``math`` ops (see the module docstring)."""

    name = "decompose-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        todo = [o for o in walk(op) if o.name in _DECOMPOSE]
        for o in todo:
            if o.name == "linalg.softmax" and not o.results:
                raise cannot_lower(o, "linalg ops on memrefs (no results) are not supported; use tensors")
            _DECOMPOSE[o.name](o)


DecomposeLinalgPass.__doc__ = (
    f"{DecomposeLinalgPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
)
