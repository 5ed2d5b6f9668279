"""``arith`` ops in MLIR's form where xDSL's lacks it.

* ``arith.remf``: the float remainder (``fmod``: the sign of the dividend),
  with ``fastmath`` flags, as MLIR's other float binary ops::

      %r = arith.remf %a, %b fastmath<fast> : f32

* ``arith.index_cast`` and ``arith.index_castui``: between ``index`` and
  an integer type, on scalars, tensors and vectors of equal shapes (xDSL's
  ``index_cast`` takes scalars only, and has no ``index_castui``)::

      %i = arith.index_castui %x : tensor<8x8xi32> to tensor<8x8xindex>

* ``arith.truncf`` with MLIR's optional rounding mode (a keyword:
  ``tonearesteven``, ``downward``, ``upward``, ``towardzero``,
  ``tonearestaway``; the ``roundingmode`` property holds its i32 value, as
  MLIR's ``I32EnumAttr`` does) and ``fastmath`` flags; ``arith.extf`` with
  ``fastmath``::

      %f = arith.truncf %x tonearesteven fastmath<fast> : f64 to f32
      %d = arith.extf %y fastmath<nnan> : f32 to f64

* ``arith.select`` with an ``i1`` condition or one of ``i1`` elements shaped
  as the operands; the shaped form names both types::

      %v = arith.select %c, %a, %b : i32
      %t = arith.select %m, %x, %y : tensor<8xi1>, tensor<8xi32>

The lark frontend reads the forms that have no declarative format through
``syntax/standard_ops/arith.py``; xDSL's parser through ``parse`` here.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith as _xdsl
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    ShapedType,
    TensorType,
    VectorType,
    i1,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "ROUNDING_MODES",
    "ExtFOp",
    "IndexCastOp",
    "IndexCastUIOp",
    "RemFOp",
    "SelectOp",
    "TruncFOp",
]

#: MLIR's ``RoundingMode`` keywords, in the order of their i32 values.
ROUNDING_MODES = ("tonearesteven", "downward", "upward", "towardzero", "tonearestaway")

_FLOAT_LIKE = _xdsl.floatingPointLike
_INT_OR_INDEX_LIKE = _xdsl.signlessIntegerLike
_FastMath = _xdsl.FastMathFlagsAttr


def _element(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, ShapedType) else t


def _same_shape(a: Attribute, b: Attribute) -> bool:
    if isinstance(a, ShapedType) != isinstance(b, ShapedType):
        return False
    if not isinstance(a, ShapedType):
        return True
    return type(a) is type(b) and tuple(a.get_shape()) == tuple(b.get_shape())


def _print_fastmath(printer: Printer, flags: _FastMath | None) -> None:
    if flags is not None and flags != _FastMath("none"):
        printer.print_string(" fastmath")
        flags.print_parameter(printer)


@irdl_op_definition
class RemFOp(_xdsl.FloatingPointLikeBinaryOperation):
    """MLIR's ``arith.remf``: ``fmod(lhs, rhs)``, the sign of ``lhs``.

        %r = arith.remf %a, %b : tensor<4xf32>
    """

    name = "arith.remf"

    traits = traits_def(Pure())


def _verify_index_cast(op: Operation) -> None:
    src, dst = op.operands[0].type, op.results[0].type
    one_index = isinstance(_element(src), IndexType) != isinstance(_element(dst), IndexType)
    if not (_same_shape(src, dst) and one_index):
        raise VerifyException(f"operand type '{src}' and result type '{dst}' are cast incompatible")


@irdl_op_definition
class IndexCastOp(IRDLOperation):
    """MLIR's ``arith.index_cast`` (sign-extends or truncates).

        %i = arith.index_cast %x : tensor<4xi32> to tensor<4xindex>
    """

    name = "arith.index_cast"

    input = operand_def(_INT_OR_INDEX_LIKE)
    result = result_def(_INT_OR_INDEX_LIKE)

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    traits = traits_def(Pure())

    def __init__(self, input_arg: SSAValue | Operation, target_type: Attribute):
        super().__init__(operands=[input_arg], result_types=[target_type])

    def verify_(self) -> None:
        _verify_index_cast(self)


@irdl_op_definition
class IndexCastUIOp(IRDLOperation):
    """MLIR's ``arith.index_castui`` (zero-extends or truncates).

        %i = arith.index_castui %x : i32 to index
    """

    name = "arith.index_castui"

    input = operand_def(_INT_OR_INDEX_LIKE)
    result = result_def(_INT_OR_INDEX_LIKE)

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    traits = traits_def(Pure())

    def __init__(self, input_arg: SSAValue | Operation, target_type: Attribute):
        super().__init__(operands=[input_arg], result_types=[target_type])

    def verify_(self) -> None:
        _verify_index_cast(self)


def _verify_float_cast(op: Operation) -> None:
    src, dst = op.operands[0].type, op.results[0].type
    if not _same_shape(src, dst):
        raise VerifyException(f"operand type '{src}' and result type '{dst}' must have the same shape")


@irdl_op_definition
class ExtFOp(IRDLOperation):
    """MLIR's ``arith.extf``, with ``fastmath`` flags.

        %d = arith.extf %x fastmath<fast> : tensor<4xf16> to tensor<4xf32>
    """

    name = "arith.extf"

    input = operand_def(_FLOAT_LIKE)
    result = result_def(_FLOAT_LIKE)
    fastmath = prop_def(_FastMath, default_value=_FastMath("none"))

    assembly_format = (
        "$input (`fastmath` `` $fastmath^)? attr-dict `:` type($input) `to` type($result)"
    )

    traits = traits_def(Pure())

    def __init__(self, op: SSAValue | Operation, target_type: Attribute, fastmath: _FastMath | None = None):
        super().__init__(operands=[op], result_types=[target_type], properties={"fastmath": fastmath})

    def verify_(self) -> None:
        _verify_float_cast(self)


@irdl_op_definition
class TruncFOp(IRDLOperation):
    """MLIR's ``arith.truncf``: an optional rounding mode (the ``roundingmode``
    i32 property, printed as its keyword) and ``fastmath`` flags.

        %f = arith.truncf %x downward : f64 to f32
    """

    name = "arith.truncf"

    input = operand_def(_FLOAT_LIKE)
    result = result_def(_FLOAT_LIKE)
    roundingmode = opt_prop_def(IntegerAttr)
    fastmath = prop_def(_FastMath, default_value=_FastMath("none"))

    traits = traits_def(Pure())

    def __init__(
        self,
        op: SSAValue | Operation,
        target_type: Attribute,
        roundingmode: IntegerAttr | None = None,
        fastmath: _FastMath | None = None,
    ):
        super().__init__(
            operands=[op],
            result_types=[target_type],
            properties={"roundingmode": roundingmode, "fastmath": fastmath},
        )

    def verify_(self) -> None:
        _verify_float_cast(self)
        mode = self.roundingmode
        if mode is None:
            return
        if mode.type != i32 or not 0 <= mode.value.data < len(ROUNDING_MODES):
            raise VerifyException(
                "attribute 'roundingmode' failed to satisfy constraint: Floating point "
                f"rounding mode (one of {', '.join(ROUNDING_MODES)}, as i32 0..4), not {mode}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        if self.roundingmode is not None:
            printer.print_string(" " + ROUNDING_MODES[self.roundingmode.value.data])
        _print_fastmath(printer, self.fastmath)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" to ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> TruncFOp:
        operand = parser.parse_unresolved_operand()
        mode = None
        pos = parser.pos
        word = parser.parse_optional_identifier()
        if word is not None and word != "fastmath":
            if word not in ROUNDING_MODES:
                parser.raise_error(
                    f"expected a rounding mode ({', '.join(ROUNDING_MODES)})", pos, parser.pos
                )
            mode = IntegerAttr(ROUNDING_MODES.index(word), i32)
            pos = parser.pos
            word = parser.parse_optional_identifier()
            if word is not None and word != "fastmath":
                parser.raise_error("expected 'fastmath', an attribute dictionary or ':'", pos, parser.pos)
        flags = _FastMath(_FastMath.parse_parameter(parser)) if word == "fastmath" else None
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src = parser.parse_type()
        parser.parse_keyword("to")
        dst = parser.parse_type()
        op = cls(parser.resolve_operand(operand, src), dst, mode, flags)
        op.attributes.update(attrs)
        return op


def _select_cond_type(t: Attribute) -> Attribute:
    """The shaped condition type that MLIR prints for a select of ``t``."""
    if isinstance(t, VectorType):
        return VectorType(i1, t.get_shape(), t.scalable_dims)
    if isinstance(t, TensorType):
        return TensorType(i1, t.get_shape(), t.encoding)
    return i1


@irdl_op_definition
class SelectOp(IRDLOperation):
    """MLIR's ``arith.select``: ``cond ? lhs : rhs``, elementwise when
    ``cond`` has i1 elements shaped as the result.

        %r = arith.select %m, %a, %b : vector<4xi1>, vector<4xf32>
    """

    name = "arith.select"

    _T: ClassVar = VarConstraint("_T", AnyAttr())
    cond = operand_def(_xdsl.boolLike)
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(_T)

    traits = traits_def(Pure(), _xdsl.SelectHasCanonicalizationPatterns())

    def __init__(
        self,
        operand1: Operation | SSAValue,
        operand2: Operation | SSAValue,
        operand3: Operation | SSAValue,
    ):
        operand2 = SSAValue.get(operand2)
        super().__init__(operands=[operand1, operand2, operand3], result_types=[operand2.type])

    def verify_(self) -> None:
        cond = self.cond.type
        if cond == i1:
            return
        result = self.result.type
        if not isinstance(result, ShapedType) or not _same_shape(cond, result):
            raise VerifyException(
                f"expected condition type to have the same shape as the result type, "
                f"expected '{_select_cond_type(result)}', but got '{cond}'"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list((self.cond, self.lhs, self.rhs), printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        if self.cond.type != i1:
            printer.print_attribute(self.cond.type)
            printer.print_string(", ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        if len(operands) != 3:
            parser.raise_error(f"expected 3 operands, got {len(operands)}")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) == 1:
            cond_t, t = i1, types[0]
        elif len(types) == 2:
            cond_t, t = types
        else:
            parser.raise_error(f"expected 1 or 2 types, got {len(types)}")
        c, a, b = (parser.resolve_operand(o, ty) for o, ty in zip(operands, (cond_t, t, t), strict=True))
        op = cls(c, a, b)
        op.attributes.update(attrs)
        return op
