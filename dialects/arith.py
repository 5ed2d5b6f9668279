"""The ``arith`` dialect: xDSL's ops, with MLIR's casts on tensors and the scaling casts.

xDSL's ``arith.extsi``, ``extui``, ``trunci``, ``sitofp``, ``uitofp``,
``fptosi``, ``fptoui``, ``cmpi`` and ``cmpf`` take scalars only; MLIR's take
any shape (an elementwise cast or comparison of a tensor or vector, whose
comparison result is i1 elements of that shape).  The ops here have the same names
and syntax with MLIR's constraints, and verify what MLIR's verifiers do:
equal shapes, signless integers, and a strictly wider (``ext*``) or
narrower (``trunci``) element type::

    %w = arith.extui %x : tensor<8xi4> to tensor<8xi32>
    %f = arith.sitofp %i : tensor<4xi4> to tensor<4xf8E5M2>

``arith.scaling_extf`` and ``arith.scaling_truncf`` are MLIR's OCP MX
conversions (``ArithOps.td``): the scale is first made an ``f8E8M0FNU``
power of two (``arith.truncf``, which rounds to nearest), then

* ``scaling_extf %in, %scale``: ``extf(in) * extf(scale)`` in the result type;
* ``scaling_truncf %in, %scale``: ``truncf(in / extf(scale))``, the division
  in the input type::

    %r = arith.scaling_extf %x, %s : f4E2M1FN, f8E8M0FNU to f32
    %q = arith.scaling_truncf %y, %s : f32, f8E8M0FNU to f4E2M1FN

Neither takes MLIR's optional ``fastmath`` or rounding-mode attributes (as
xDSL's ``extf``/``truncf`` do not).
"""

from __future__ import annotations

from xdsl.dialects import arith as _xdsl
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    ShapedType,
    Signedness,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

__all__ = ["Arith"]

_INT_LIKE = _xdsl.signlessIntegerLike
_FLOAT_LIKE = _xdsl.floatingPointLike


def _element(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, ShapedType) else t


def _shape(t: Attribute) -> tuple[int, ...] | None:
    return tuple(t.get_shape()) if isinstance(t, ShapedType) else None


def _container(t: Attribute) -> type | None:
    return type(t) if isinstance(t, ShapedType) else None


def _width(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    return int(t.bitwidth)  # a float type


def _verify_cast(op: Operation, compare: str | None = None) -> None:
    src, dst = op.operands[0].type, op.results[0].type
    if _shape(src) != _shape(dst) or _container(src) is not _container(dst):
        raise VerifyException(f"operand type '{src}' and result type '{dst}' must have the same shape")
    for t in (_element(src), _element(dst)):
        if isinstance(t, IntegerType) and t.signedness.data != Signedness.SIGNLESS:
            raise VerifyException(f"integer types must be signless, not '{t}'")
    if compare == "wider" and not _width(_element(dst)) > _width(_element(src)):
        raise VerifyException("result type must be wider than operand type")
    if compare == "narrower" and not _width(_element(dst)) < _width(_element(src)):
        raise VerifyException("result type must be narrower than operand type")


def _cast_op(base: type[IRDLOperation], operand, result, compare: str | None) -> type[IRDLOperation]:
    """An op named as xDSL's scalar cast ``base``, taking MLIR's operand types."""

    def verify_(self) -> None:
        _verify_cast(self, compare)

    def __init__(self, op: SSAValue | Operation, target_type: Attribute) -> None:
        IRDLOperation.__init__(self, operands=[op], result_types=[target_type])

    cls = type(
        base.__name__,
        (IRDLOperation,),
        {
            "name": base.name,
            "input": operand_def(operand),
            "result": result_def(result),
            "assembly_format": "$input attr-dict `:` type($input) `to` type($result)",
            "traits": traits_def(Pure()),
            "__init__": __init__,
            "verify_": verify_,
            "__module__": __name__,
            "__doc__": f"MLIR's ``{base.name}``, on scalars, tensors and vectors.",
        },
    )
    return irdl_op_definition(cls)


ExtSIOp = _cast_op(_xdsl.ExtSIOp, _INT_LIKE, _INT_LIKE, "wider")
ExtUIOp = _cast_op(_xdsl.ExtUIOp, _INT_LIKE, _INT_LIKE, "wider")
TruncIOp = _cast_op(_xdsl.TruncIOp, _INT_LIKE, _INT_LIKE, "narrower")
SIToFPOp = _cast_op(_xdsl.SIToFPOp, _INT_LIKE, _FLOAT_LIKE, None)
UIToFPOp = _cast_op(_xdsl.UIToFPOp, _INT_LIKE, _FLOAT_LIKE, None)
FPToSIOp = _cast_op(_xdsl.FPToSIOp, _FLOAT_LIKE, _INT_LIKE, None)
FPToUIOp = _cast_op(_xdsl.FPToUIOp, _FLOAT_LIKE, _INT_LIKE, None)


def _verify_comparison(self) -> None:
    operand, result = self.lhs.type, self.result.type
    if self.rhs.type != operand:
        raise VerifyException(f"operands must have the same type, not '{operand}' and '{self.rhs.type}'")
    if _shape(operand) != _shape(result) or _container(operand) is not _container(result):
        raise VerifyException(f"result type '{result}' must have the shape of the operands, '{operand}'")


def _i1_like(t: Attribute) -> Attribute:
    """i1, shaped as ``t`` when ``t`` is a tensor or vector."""
    i1 = IntegerType(1)
    if isinstance(t, ShapedType):
        from xdsl.dialects.builtin import TensorType, VectorType

        if isinstance(t, TensorType):
            return TensorType(i1, t.get_shape())
        if isinstance(t, VectorType):
            return VectorType(i1, t.get_shape())
    return i1


def _comparison_init(table: dict[str, int]):
    def __init__(self, lhs, rhs, arg: int | str, fastmath=None) -> None:
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        if isinstance(arg, str):
            if arg not in table:
                raise VerifyException(f"Unknown comparison mnemonic: {arg}")
            arg = table[arg]
        properties = {"predicate": IntegerAttr(arg, 64)}
        if fastmath is not None:
            properties["fastmath"] = fastmath
        IRDLOperation.__init__(self, operands=[lhs, rhs], result_types=[_i1_like(lhs.type)], properties=properties)

    return __init__


@irdl_op_definition
class CmpiOp(IRDLOperation):
    """MLIR's ``arith.cmpi``: an i1, or i1 elements shaped as the operands
    (xDSL's takes scalars only).

        %b = arith.cmpi ult, %x, %y : tensor<8xi4>
    """

    name = "arith.cmpi"
    predicate = prop_def(IntegerAttr)
    lhs = operand_def(_INT_LIKE)
    rhs = operand_def(_INT_LIKE)
    result = result_def(_xdsl.boolLike)

    traits = traits_def(_xdsl.CmpiHasCanonicalizationPatterns(), Pure())

    __init__ = _comparison_init({n: i for i, n in enumerate(_xdsl.CMPI_COMPARISON_OPERATIONS)})
    verify_ = _verify_comparison
    print = _xdsl.CmpiOp.print
    parse = _xdsl.CmpiOp.__dict__["parse"]


@irdl_op_definition
class CmpfOp(IRDLOperation):
    """MLIR's ``arith.cmpf``: an i1, or i1 elements shaped as the operands
    (xDSL's takes scalars only).

        %b = arith.cmpf olt, %x, %y : tensor<8xf8E4M3FN>
    """

    name = "arith.cmpf"
    predicate = prop_def(IntegerAttr)
    lhs = operand_def(_FLOAT_LIKE)
    rhs = operand_def(_FLOAT_LIKE)
    fastmath = prop_def(_xdsl.FastMathFlagsAttr, default_value=_xdsl.FastMathFlagsAttr("none"))
    result = result_def(_xdsl.boolLike)

    traits = traits_def(Pure())

    __init__ = _comparison_init({n: i for i, n in enumerate(_xdsl.CMPF_COMPARISON_OPERATIONS)})
    verify_ = _verify_comparison
    print = _xdsl.CmpfOp.print
    parse = _xdsl.CmpfOp.__dict__["parse"]


def _verify_scaling(op: Operation, compare: str) -> None:
    src, scale, dst = op.operands[0].type, op.operands[1].type, op.results[0].type
    if not (_shape(src) == _shape(scale) == _shape(dst)):
        raise VerifyException("the input, the scale and the result must have the same shape")
    if _width(_element(scale)) < 8:
        raise VerifyException(f"the scale's element type must be at least 8 bits wide, not '{_element(scale)}'")
    if compare == "wider" and not _width(_element(dst)) > _width(_element(src)):
        raise VerifyException("result type must be wider than the input type")
    if compare == "narrower" and not _width(_element(dst)) < _width(_element(src)):
        raise VerifyException("result type must be narrower than the input type")


@irdl_op_definition
class ScalingExtFOp(IRDLOperation):
    """``extf(in) * extf(truncf(scale to f8E8M0FNU))`` in the result type (MLIR's ``arith.scaling_extf``).

        %r = arith.scaling_extf %x, %s : tensor<32xf4E2M1FN>, tensor<32xf8E8M0FNU> to tensor<32xf32>
    """

    name = "arith.scaling_extf"

    input = operand_def(_FLOAT_LIKE)
    scale = operand_def(_FLOAT_LIKE)
    result = result_def(_FLOAT_LIKE)

    assembly_format = "$input `,` $scale attr-dict `:` type($input) `,` type($scale) `to` type($result)"

    traits = traits_def(Pure())

    def __init__(self, input: SSAValue | Operation, scale: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[input, scale], result_types=[result_type])

    def verify_(self) -> None:
        _verify_scaling(self, "wider")


@irdl_op_definition
class ScalingTruncFOp(IRDLOperation):
    """``truncf(in / extf(truncf(scale to f8E8M0FNU)))`` (MLIR's ``arith.scaling_truncf``).

        %q = arith.scaling_truncf %y, %s : tensor<32xf32>, tensor<32xf8E8M0FNU> to tensor<32xf4E2M1FN>
    """

    name = "arith.scaling_truncf"

    input = operand_def(_FLOAT_LIKE)
    scale = operand_def(_FLOAT_LIKE)
    result = result_def(_FLOAT_LIKE)

    assembly_format = "$input `,` $scale attr-dict `:` type($input) `,` type($scale) `to` type($result)"

    traits = traits_def(Pure())

    def __init__(self, input: SSAValue | Operation, scale: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[input, scale], result_types=[result_type])

    def verify_(self) -> None:
        _verify_scaling(self, "narrower")


# MLIR's forms of remf, index_cast(ui), extf/truncf and select (dialects/arith_forms.py).
from tfrt.dialects.arith_forms import (  # noqa: E402 - after the casts it does not need
    ExtFOp,
    IndexCastOp,
    IndexCastUIOp,
    RemFOp,
    SelectOp,
    TruncFOp,
)

_REPLACED = {
    cls.name: cls
    for cls in (
        ExtSIOp, ExtUIOp, TruncIOp, SIToFPOp, UIToFPOp, FPToSIOp, FPToUIOp, CmpiOp, CmpfOp,
        IndexCastOp, ExtFOp, TruncFOp, SelectOp,
    )
}

Arith = Dialect(
    "arith",
    [
        *(_REPLACED.get(op.name, op) for op in _xdsl.Arith.operations),
        ScalingExtFOp, ScalingTruncFOp, RemFOp, IndexCastUIOp,
    ],
    list(_xdsl.Arith.attributes),
)
