"""What the StableHLO conversions share: reading attributes, types, and building ops.

Every conversion replaces one ``stablehlo.*`` op by ops of the ``linalg``,
``tensor``, ``arith``, ``math``, ``complex`` and ``scf`` dialects, built with
an :class:`Emitter` at the op's location.  Integer element types become
signless (MLIR's ``arith`` takes no other); the signedness of the original
type decides which ``arith`` op an operation becomes (``divui`` for ``ui32``,
``divsi`` for ``si32`` and ``i32``), so each conversion reads the *original*
types of its op before anything is rewritten (:func:`is_unsigned`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith as xarith
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IndexOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

from tfrt.dialects import arith
from tfrt.diagnostics import DiagnosticError
from tfrt.passes.lowering import cannot_lower

__all__ = [
    "Emitter",
    "attr",
    "cannot_lower",
    "element",
    "identity_map",
    "int_list",
    "is_float",
    "is_unsigned",
    "shape",
    "signless",
]

_DYNAMIC = -(2**63)


# --------------------------------------------------------------------------
# Types


def element(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType) else t


def shape(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def is_float(t: Attribute) -> bool:
    t = element(t)
    return not isinstance(t, (IntegerType, IndexType, ComplexType))


def is_complex(t: Attribute) -> bool:
    return isinstance(element(t), ComplexType)


def quantized(t: Attribute):
    """The ``!quant.uniform`` element type of ``t``, else None."""
    from tfrt.dialects.quant import UniformQuantizedType

    e = element(t)
    return e if isinstance(e, UniformQuantizedType) else None


def is_unsigned(t: Attribute) -> bool:
    """True for ``ui*`` and for ``i1`` (StableHLO's booleans compare unsigned),
    and for quantized types with unsigned storage."""
    e = element(t)
    q = quantized(e)
    if q is not None:
        return not q.is_signed
    return isinstance(e, IntegerType) and (e.signedness.data == Signedness.UNSIGNED or e.width.data == 1)


def width(t: Attribute) -> int:
    e = element(t)
    if quantized(e) is not None:
        return e.storage.width.data
    if isinstance(e, IntegerType):
        return e.width.data
    if isinstance(e, IndexType):
        return 64
    return int(e.bitwidth)


def signless(t: Attribute) -> Attribute:
    """``t`` with every integer element type signless (``ui32`` -> ``i32``)."""
    if isinstance(t, IntegerType):
        return t if t.signedness.data == Signedness.SIGNLESS else IntegerType(t.width.data)
    if not isinstance(t, TensorType) and quantized(t) is not None:
        return t.storage  # computed on its storage integers
    if isinstance(t, TensorType):
        e = signless(t.element_type)
        return t if e is t.element_type else TensorType(e, t.get_shape(), t.encoding)
    return t


def static_type(op: Operation, t: Attribute) -> TensorType:
    if not isinstance(t, TensorType):
        raise cannot_lower(op, f"expected a ranked tensor, not '{t}'")
    if any(d == _DYNAMIC or d < 0 for d in t.get_shape()):
        raise cannot_lower(op, f"dynamic shapes are not supported ('{t}')")
    return t


# --------------------------------------------------------------------------
# Attributes


def attr(op: Operation, name: str) -> Attribute | None:
    """Attribute ``name`` of ``op``, a property or a discardable attribute."""
    value = op.properties.get(name)
    return value if value is not None else op.attributes.get(name)


def int_list(op: Operation, name: str, default: Sequence[int] | None = None) -> tuple[int, ...] | None:
    """An integer list attribute as a tuple (``array<i64: ...>``, ``dense<...>`` or ``[...]``)."""
    value = attr(op, name)
    if value is None:
        return None if default is None else tuple(default)
    return ints_of(value)


def ints_of(value: Attribute) -> tuple[int, ...]:
    if isinstance(value, DenseArrayBase):
        return tuple(int(v) for v in value.get_values())
    if isinstance(value, DenseIntOrFPElementsAttr):
        return tuple(int(v) for v in value.get_values())
    if isinstance(value, ArrayAttr):
        return tuple(int(v.value.data) if isinstance(v, IntegerAttr) else int(v.data) for v in value.data)
    if isinstance(value, IntegerAttr):
        return (int(value.value.data),)
    raise TypeError(f"not an integer list: {value}")


def int_matrix(op: Operation, name: str) -> list[list[int]] | None:
    """An ``N x 2`` integer ``dense<...>`` attribute (``padding``) as rows."""
    value = attr(op, name)
    if value is None:
        return None
    flat = ints_of(value)
    return [list(flat[i : i + 2]) for i in range(0, len(flat), 2)]


def int_attr(op: Operation, name: str, default: int | None = None) -> int | None:
    value = attr(op, name)
    if value is None:
        return default
    if isinstance(value, IntegerAttr):
        return int(value.value.data)
    return int(ints_of(value)[0])


def bool_attr(op: Operation, name: str, default: bool = False) -> bool:
    value = attr(op, name)
    if value is None:
        return default
    if isinstance(value, IntegerAttr):  # BoolAttr is IntegerAttr[i1] (a subscripted generic)
        return bool(value.value.data)
    return bool(getattr(value, "data", default))


def enum_attr(op: Operation, name: str) -> str | None:
    """An enum attribute (``#stablehlo<comparison_direction GT>``) as its keyword."""
    value = attr(op, name)
    if value is None:
        return None
    for field in ("value", "data"):
        v = getattr(value, field, None)
        if v is None:
            continue
        v = getattr(v, "data", v)
        v = getattr(v, "value", v)
        if isinstance(v, str):
            return v
    text = str(value)
    return text.rstrip(">").split()[-1]


# --------------------------------------------------------------------------
# Affine maps


def identity_map(rank: int) -> AffineMap:
    return AffineMap(rank, 0, tuple(AffineDimExpr(i) for i in range(rank)))


def d(i: int) -> AffineExpr:
    return AffineDimExpr(i)


# --------------------------------------------------------------------------
# Building


class Emitter:
    """The ops replacing one op, in order, each at that op's location."""

    def __init__(self, at: Operation):
        self.at = at
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        op.location = self.at.location
        self.ops.append(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def error(self, reason: str) -> DiagnosticError:
        return cannot_lower(self.at, reason)

    # -- scalars

    def index(self, value: int) -> SSAValue:
        return self.add(xarith.ConstantOp(IntegerAttr(value, IndexType())))

    def scalar(self, value, t: Attribute) -> SSAValue:
        """An ``arith.constant`` of ``value`` in element type ``t`` (signless)."""
        t = signless(element(t))
        if isinstance(t, IntegerType):
            w = t.width.data
            v = int(value) & ((1 << w) - 1)
            if w > 1 and v >= 1 << (w - 1):
                v -= 1 << w
            if w == 1:
                v = -1 if v else 0
            return self.add(xarith.ConstantOp(IntegerAttr(v, t)))
        if isinstance(t, IndexType):
            return self.index(int(value))
        return self.add(xarith.ConstantOp(FloatAttr(float(value), t)))

    # -- tensors

    def empty(self, shape_: Sequence[int], elem: Attribute) -> SSAValue:
        from tfrt.dialects.tensor import EmptyOp

        t = TensorType(signless(element(elem)), list(shape_))
        return self.add(EmptyOp.build(operands=[[]], result_types=[t]))

    def fill(self, value: SSAValue, init: SSAValue) -> SSAValue:
        if isinstance(value.type, ComplexType):  # (xDSL's named op takes no complex type)
            rank = len(shape(init.type))
            return self.generic([], [init], [identity_map(rank)], ["parallel"] * rank, lambda b, a: value)[0]
        return self.add(FillOp([value], [init], [init.type]))

    def filled(self, shape_: Sequence[int], value: SSAValue) -> SSAValue:
        return self.fill(value, self.empty(shape_, value.type))

    def extract(self, t: SSAValue, indices: Sequence[SSAValue] = ()) -> SSAValue:
        from tfrt.dialects.tensor import ExtractOp

        elem = signless(element(t.type))
        return self.add(ExtractOp.build(operands=[t, list(indices)], result_types=[elem]))

    def generic(
        self,
        ins: Sequence[SSAValue],
        outs: Sequence[SSAValue],
        maps: Sequence[AffineMap],
        iterators: Sequence[str],
        body: Callable[[Emitter, Sequence[SSAValue]], Sequence[SSAValue] | SSAValue],
    ) -> list[SSAValue]:
        """A ``linalg.generic``; ``body(emitter, block_args)`` returns the yielded values."""
        block = Block(arg_types=[signless(element(v.type)) for v in (*ins, *outs)])
        inner = Emitter(self.at)
        yielded = body(inner, block.args)
        if isinstance(yielded, SSAValue):
            yielded = [yielded]
        for o in inner.ops:
            block.add_op(o)
        y = YieldOp(*yielded)
        y.location = self.at.location
        block.add_op(y)
        kinds = [IteratorTypeAttr(IteratorType(k)) for k in iterators]
        op = GenericOp(
            list(ins), list(outs), Region(block), [AffineMapAttr(m) for m in maps], kinds,
            [o.type for o in outs],
        )
        self.add(op)
        return list(op.results)

    def map(
        self,
        ins: Sequence[SSAValue],
        out_type: TensorType,
        body: Callable[[Emitter, Sequence[SSAValue]], SSAValue],
        in_maps: Sequence[AffineMap] | None = None,
    ) -> SSAValue:
        """An elementwise ``linalg.generic`` into a new tensor of ``out_type``."""
        rank = len(out_type.get_shape())
        ident = identity_map(rank)
        maps = list(in_maps) if in_maps is not None else [ident] * len(ins)
        init = self.empty(out_type.get_shape(), out_type.element_type)

        def wrapped(e: Emitter, args):
            return body(e, args[: len(ins)])

        return self.generic(ins, [init], [*maps, ident], ["parallel"] * rank, wrapped)[0]

    def linalg_index(self, dim: int) -> SSAValue:
        return self.add(IndexOp(dim))


def cmp_i(e: Emitter, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.add(arith.CmpiOp(a, b, pred))


def cmp_f(e: Emitter, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.add(arith.CmpfOp(a, b, pred))


def select(e: Emitter, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.add(xarith.SelectOp(c, a, b))


def dense_values(value: Attribute) -> np.ndarray | None:
    if isinstance(value, DenseIntOrFPElementsAttr):
        return np.asarray(value.get_values())
    return None


# --------------------------------------------------------------------------
# tensor ops (the project's tensor dialect)

_DYN = -(2**63)


def _mixed(values: Sequence[int | SSAValue]) -> tuple[list[SSAValue], DenseArrayBase]:
    dynamic = [v for v in values if isinstance(v, SSAValue)]
    static = [_DYN if isinstance(v, SSAValue) else int(v) for v in values]
    return dynamic, DenseArrayBase.from_list(i64, static)


def extract_slice(
    e: Emitter, src: SSAValue, offsets: Sequence[int | SSAValue], sizes: Sequence[int],
    strides: Sequence[int], out_t: TensorType,
) -> SSAValue:  # fmt: skip
    from tfrt.dialects.tensor import ExtractSliceOp

    dyn_off, st_off = _mixed(offsets)
    op = ExtractSliceOp.build(
        operands=[src, dyn_off, [], []],
        properties={
            "static_offsets": st_off,
            "static_sizes": DenseArrayBase.from_list(i64, list(sizes)),
            "static_strides": DenseArrayBase.from_list(i64, list(strides)),
        },
        result_types=[out_t],
    )
    return e.add(op)


def insert_slice(
    e: Emitter, src: SSAValue, dest: SSAValue, offsets: Sequence[int | SSAValue], sizes: Sequence[int],
    strides: Sequence[int],
) -> SSAValue:  # fmt: skip
    from tfrt.dialects.tensor import InsertSliceOp

    dyn_off, st_off = _mixed(offsets)
    op = InsertSliceOp.build(
        operands=[src, dest, dyn_off, [], []],
        properties={
            "static_offsets": st_off,
            "static_sizes": DenseArrayBase.from_list(i64, list(sizes)),
            "static_strides": DenseArrayBase.from_list(i64, list(strides)),
        },
        result_types=[dest.type],
    )
    return e.add(op)


def tensor_reshape(e: Emitter, x: SSAValue, out_t: TensorType) -> SSAValue:
    """``x`` with the static shape of ``out_t`` (row-major order); a reshape of
    a ``tensor.reshape`` reads that one's source."""
    from tfrt.dialects.tensor import ReshapeOp

    owner = getattr(x, "op", None)
    if owner is not None and owner.name == "tensor.reshape":
        x = owner.operands[0]
    if shape(x.type) == tuple(out_t.get_shape()):
        return x
    n = len(out_t.get_shape())
    st = TensorType(i64, [n])
    shape_const = e.add(
        xarith.ConstantOp(DenseIntOrFPElementsAttr.from_list(st, list(out_t.get_shape())), st)
    )
    return e.add(ReshapeOp.build(operands=[x, shape_const], result_types=[out_t]))
