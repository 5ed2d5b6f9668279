"""The ``stablehlo`` dialect: every op of the StableHLO specification.

The input that JAX (``jax.jit(f).lower(*args).as_text()``), TensorFlow and
PyTorch/XLA export.  Op, operand, result, region and attribute names are
StableHLO's own (``StablehloOps.td``); inherent attributes are properties
(MLIR prints them as ``<{...}>`` in the generic form, and the frontend moves
them there from an attribute dictionary, as MLIR does).  Integer lists are
``array<i64: ...>``.  Both the generic form and each op's custom form read
and print as ``stablehlo-opt`` and JAX print them::

    %0 = stablehlo.add %a, %b : tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x4xf32>
    %2 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
           precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %3 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1]
           : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
    %4 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>

The attributes and types (``#stablehlo.dot<...>``, ``#stablehlo.conv<...>``,
``#stablehlo<comparison_direction GT>``, ``!stablehlo.token``, ...) are in
:mod:`tfrt.dialects.stablehlo_attrs` and re-exported here.

What the lowering reads (plain Python values, never the xDSL attributes):

* ``DotDimensionNumbersAttr``: ``lhs_batching_dimensions``,
  ``rhs_batching_dimensions``, ``lhs_contracting_dimensions``,
  ``rhs_contracting_dimensions`` (tuples of ints).
* ``ConvDimensionNumbersAttr``: ``input_batch_dimension``,
  ``input_feature_dimension``, ``input_spatial_dimensions``,
  ``kernel_input_feature_dimension``, ``kernel_output_feature_dimension``,
  ``kernel_spatial_dimensions``, ``output_batch_dimension``,
  ``output_feature_dimension``, ``output_spatial_dimensions`` (ints and tuples).
* ``GatherDimensionNumbersAttr``: ``offset_dims``, ``collapsed_slice_dims``,
  ``operand_batching_dims``, ``start_indices_batching_dims``,
  ``start_index_map`` (tuples), ``index_vector_dim`` (int).
* ``ScatterDimensionNumbersAttr``: ``update_window_dims``,
  ``inserted_window_dims``, ``input_batching_dims``,
  ``scatter_indices_batching_dims``, ``scatter_dims_to_operand_dims``
  (tuples), ``index_vector_dim`` (int).
* ``OutputOperandAliasAttr``, ``ChannelHandleAttr``, ``DotAlgorithmAttr``,
  ``ResultAccuracyAttr``: their fields by the same names.
* Enumerations: ``enum_value(attr)`` gives the case name (``"GT"``,
  ``"FLOAT"``, ``"DEFAULT"``, ``"FFT"``, ``"THREE_FRY"``, ...).
* Ops: :func:`i64s` reads an ``array<i64: ...>`` property as a tuple (None
  if absent) and :func:`padding_pairs` a padding ``dense<...> : tensor<Nx2xi64>``
  as ``((low, high), ...)``; ``op.dims(name)``, ``op.int_prop(name)``,
  ``op.bool_prop(name)`` and ``op.enum_prop(name)`` read a property of any op
  here with its default applied (e.g. ``SortOp.dimension`` is -1 when absent,
  ``is_stable`` false, convolution's window attributes their spec defaults
  via ``ConvolutionOp.window()``).

Verifiers check the spec's shape rules for the common ops (elementwise,
broadcast_in_dim, dot_general, reduce, transpose, reshape, concatenate,
slice, pad, compare, select, convolution, gather/scatter, while/if/case) and
report them in StableHLO's words; the rest check their operand counts and
what the op definitions fix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    AnyFloat,
    ArrayAttr,
    BoolAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FlatSymbolRefAttrConstr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    TupleType,
    UnrankedTensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, Region
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    SameVariadicOperandSize,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.traits import (
    HasParent,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.stablehlo_attrs import *  # noqa: F403 - re-exported
from tfrt.dialects.stablehlo_attrs import (
    ATTRIBUTES,
    DYNAMIC,
    SDY_ATTRIBUTES,
    ChannelHandleAttr,
    ComparisonDirectionAttr,
    ComparisonTypeAttr,
    ConvDimensionNumbersAttr,
    DotAlgorithmAttr,
    DotDimensionNumbersAttr,
    FftTypeAttr,
    GatherDimensionNumbersAttr,
    PrecisionAttr,
    ResultAccuracyAttr,
    RngAlgorithmAttr,
    RngDistributionAttr,
    ScatterDimensionNumbersAttr,
    TokenType,
    TransposeAttr,
    enum_value,
)

_DIMS = DenseArrayBase.constr(i64)
_BOOLS = DenseArrayBase.constr(i1)
_I64 = IntegerAttr[I64]
_I32 = IntegerAttr[I32]


# ---------------------------------------------------------------- reading properties


def i64s(op: Operation, name: str) -> tuple[int, ...] | None:
    """An ``array<i64: ...>`` (or i64 elements) property as a tuple; None if absent."""
    attr = op.properties.get(name)
    if attr is None:
        attr = op.attributes.get(name)
    if attr is None:
        return None
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return tuple(int(v) for v in attr.get_values())
    raise VerifyException(f"expected an integer array for '{name}'")


def padding_pairs(op: Operation, name: str = "padding") -> tuple[tuple[int, int], ...] | None:
    """A ``dense<[[lo, hi], ...]> : tensor<Nx2xi64>`` property as ``((lo, hi), ...)``."""
    attr = op.properties.get(name)
    if attr is None:
        attr = op.attributes.get(name)
    if attr is None:
        return None
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        raise VerifyException(f"expected a dense integer padding for '{name}'")
    values = [int(v) for v in attr.get_values()]
    shape = attr.get_shape()
    if len(values) == 1 and shape and math.prod(shape) != 1:
        values = values * math.prod(shape)
    if len(shape) != 2 or shape[1] != 2:
        if not values:
            return ()
        raise VerifyException(f"expects padding-entries to have same dimension-size as size of window dimensions ({shape}), but got: {shape}")
    return tuple((values[2 * i], values[2 * i + 1]) for i in range(shape[0]))


# ---------------------------------------------------------------- type helpers


def _tensor(t: Attribute) -> TensorType | None:
    return t if isinstance(t, TensorType) else None


def _shape(t: Attribute) -> tuple[int, ...] | None:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else None


def _element(t: Attribute) -> Attribute | None:
    if isinstance(t, TensorType | UnrankedTensorType):
        return t.element_type
    return None


def _dim_ok(a: int, b: int) -> bool:
    return a == b or a == DYNAMIC or b == DYNAMIC or a < 0 or b < 0


def _shapes_compatible(a: Sequence[int] | None, b: Sequence[int] | None) -> bool:
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(_dim_ok(x, y) for x, y in zip(a, b, strict=True))


def _type_str(t: Attribute) -> str:
    from tfrt.dialects.printer import _type_text

    return _type_text(t)


def _is_int(t: Attribute | None) -> bool:
    return isinstance(t, IntegerType)


def _is_float(t: Attribute | None) -> bool:
    return isinstance(t, AnyFloat)


def _check_dims_unique_in_range(dims: Sequence[int], rank: int, what: str) -> None:
    seen = set()
    for d in dims:
        if not 0 <= d < rank:
            raise VerifyException(f"{what} {d} is out of range [0, {rank})")
        if d in seen:
            raise VerifyException(f"{what} {d} is not unique")
        seen.add(d)


# ---------------------------------------------------------------- base class


class StablehloOp(IRDLOperation):
    """Shared helpers of the ``stablehlo`` ops (no fields of its own)."""

    # MLIR prints inherent attributes the custom form does not spell in the
    # attribute dictionary (convolution's feature_group_count, ...).
    irdl_options = (ParsePropInAttrDict(),)

    #: Property defaults (spec defaults of optional attributes).
    DEFAULTS: ClassVar[dict[str, Any]] = {}

    def dims(self, name: str) -> tuple[int, ...] | None:
        value = i64s(self, name)
        if value is None:
            return self.DEFAULTS.get(name)
        return value

    def int_prop(self, name: str) -> int | None:
        attr = self.properties.get(name)
        if isinstance(attr, IntegerAttr):
            return int(attr.value.data)
        return self.DEFAULTS.get(name)

    def bool_prop(self, name: str) -> bool:
        attr = self.properties.get(name)
        if isinstance(attr, IntegerAttr):
            return bool(attr.value.data)
        return bool(self.DEFAULTS.get(name, False))

    def enum_prop(self, name: str) -> str | None:
        return enum_value(self.properties.get(name)) or self.DEFAULTS.get(name)


def _operand_types(op: Operation) -> list[Attribute]:
    return [v.type for v in op.operands]


# ---------------------------------------------------------------- elementwise


def _verify_same_shapes(op: Operation) -> None:
    """SameOperandsAndResultShape (with dynamic dimensions compatible)."""
    types = [*_operand_types(op), *op.result_types]
    shapes = [_shape(t) for t in types]
    ranked = [s for s in shapes if s is not None]
    for s in ranked[1:]:
        if not _shapes_compatible(ranked[0], s):
            raise VerifyException("requires the same shape for all operands and results")


def _verify_same_element_types(op: Operation, values: Sequence[Attribute]) -> None:
    elems = [_element(t) for t in values]
    if any(e is None for e in elems):
        raise VerifyException(f"expects tensors, but got '{_type_str(values[[e is None for e in elems].index(True)])}'")
    if any(e != elems[0] for e in elems[1:]):
        raise VerifyException("requires compatible types for all operands and results")


class _Elementwise(StablehloOp):
    """An elementwise op: same shapes; same element types unless the op says otherwise."""

    #: "same": operands and result share the element type; "any": no rule here.
    ELEMENTS: ClassVar[str] = "same"

    def verify_(self) -> None:
        _verify_same_shapes(self)
        if self.ELEMENTS == "same":
            _verify_same_element_types(self, [*_operand_types(self), *self.result_types])
        elif self.ELEMENTS == "operands":
            _verify_same_element_types(self, _operand_types(self))
        self.verify_elements()

    def verify_elements(self) -> None:
        pass


_SAME_TYPES_FORMAT = "operands attr-dict `:` custom<HloSameOperandsAndResultType>(type(operands), type(results))"


def _unary(name: str, doc: str, *, accuracy: bool = False, elements: str = "same", result_name: str = "result",
           operand_name: str = "operand", fmt: str | None = None) -> type[IRDLOperation]:
    body: dict[str, Any] = {
        "__doc__": doc,
        "__module__": __name__,
        "__qualname__": None,
        "name": f"stablehlo.{name}",
        operand_name: operand_def(AnyAttr()),
        result_name: result_def(AnyAttr()),
        "traits": traits_def(Pure()),
        "ELEMENTS": elements,
        "__annotations__": {"ELEMENTS": ClassVar[str]},
        "assembly_format": fmt or _SAME_TYPES_FORMAT,
        "custom_directives": _directives(),
    }
    if accuracy:
        body["result_accuracy"] = opt_prop_def(ResultAccuracyAttr)
    cls_name = "".join(p.capitalize() for p in name.split("_")) + "Op"
    body["__qualname__"] = cls_name
    return irdl_op_definition(type(cls_name, (_Elementwise,), body))


def _binary(name: str, doc: str, *, elements: str = "same", fmt: str | None = None) -> type[IRDLOperation]:
    cls_name = "".join(p.capitalize() for p in name.split("_")) + "Op"
    body: dict[str, Any] = {
        "__doc__": doc,
        "__module__": __name__,
        "__qualname__": cls_name,
        "name": f"stablehlo.{name}",
        "lhs": operand_def(AnyAttr()),
        "rhs": operand_def(AnyAttr()),
        "result": result_def(AnyAttr()),
        "traits": traits_def(Pure()),
        "ELEMENTS": elements,
        "__annotations__": {"ELEMENTS": ClassVar[str]},
        "assembly_format": fmt or _SAME_TYPES_FORMAT,
        "custom_directives": _directives(),
    }
    return irdl_op_definition(type(cls_name, (_Elementwise,), body))


def _directives() -> tuple:
    from tfrt.dialects import stablehlo_syntax

    return stablehlo_syntax.DIRECTIVE_CLASSES


_U = "\n\n    "
AbsOp = _unary("abs", "|x|; a complex operand gives its real modulus." + _U + "%r = stablehlo.abs %x : tensor<4xf32>", elements="any")
CbrtOp = _unary("cbrt", "Cube root." + _U + "%r = stablehlo.cbrt %x : tensor<4xf32>", accuracy=True)
CeilOp = _unary("ceil", "Ceiling." + _U + "%r = stablehlo.ceil %x : tensor<4xf32>")
ConvertOp = _unary("convert", "Element type conversion." + _U + "%r = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xf32>", elements="any")
CountLeadingZerosOp = _unary("count_leading_zeros", "Leading zero bits." + _U + "%r = stablehlo.count_leading_zeros %x : tensor<4xi32>")
CosineOp = _unary("cosine", "Cosine." + _U + "%r = stablehlo.cosine %x : tensor<4xf32>", accuracy=True)
ExponentialOp = _unary("exponential", "e^x." + _U + "%r = stablehlo.exponential %x : tensor<4xf32>", accuracy=True)
ExponentialMinusOneOp = _unary("exponential_minus_one", "e^x - 1." + _U + "%r = stablehlo.exponential_minus_one %x : tensor<4xf32>", accuracy=True)
FloorOp = _unary("floor", "Floor." + _U + "%r = stablehlo.floor %x : tensor<4xf32>")
ImagOp = _unary("imag", "Imaginary part." + _U + "%r = stablehlo.imag %x : (tensor<4xcomplex<f32>>) -> tensor<4xf32>", elements="any")
IsFiniteOp = _unary(
    "is_finite", "Whether each element is finite." + _U + "%r = stablehlo.is_finite %x : (tensor<4xf32>) -> tensor<4xi1>",
    elements="any", operand_name="x", result_name="y",
    fmt="operands attr-dict `:` functional-type(operands, results)",
)
LogOp = _unary("log", "Natural logarithm." + _U + "%r = stablehlo.log %x : tensor<4xf32>", accuracy=True)
LogPlusOneOp = _unary("log_plus_one", "log(1 + x)." + _U + "%r = stablehlo.log_plus_one %x : tensor<4xf32>", accuracy=True)
LogisticOp = _unary("logistic", "1 / (1 + e^-x)." + _U + "%r = stablehlo.logistic %x : tensor<4xf32>", accuracy=True)
NotOp = _unary("not", "Logical or bitwise not." + _U + "%r = stablehlo.not %x : tensor<4xi1>")
NegateOp = _unary("negate", "-x." + _U + "%r = stablehlo.negate %x : tensor<4xf32>")
PopcntOp = _unary("popcnt", "Set bits." + _U + "%r = stablehlo.popcnt %x : tensor<4xi32>")
RealOp = _unary("real", "Real part." + _U + "%r = stablehlo.real %x : (tensor<4xcomplex<f32>>) -> tensor<4xf32>", elements="any")
RoundNearestAfzOp = _unary("round_nearest_afz", "Round half away from zero." + _U + "%r = stablehlo.round_nearest_afz %x : tensor<4xf32>")
RoundNearestEvenOp = _unary("round_nearest_even", "Round half to even." + _U + "%r = stablehlo.round_nearest_even %x : tensor<4xf32>")
RsqrtOp = _unary("rsqrt", "1 / sqrt(x)." + _U + "%r = stablehlo.rsqrt %x : tensor<4xf32>", accuracy=True)
SignOp = _unary("sign", "Sign (-1, 0, 1; NaN stays)." + _U + "%r = stablehlo.sign %x : tensor<4xf32>")
SineOp = _unary("sine", "Sine." + _U + "%r = stablehlo.sine %x : tensor<4xf32>", accuracy=True)
SqrtOp = _unary("sqrt", "Square root." + _U + "%r = stablehlo.sqrt %x : tensor<4xf32>", accuracy=True)
TanOp = _unary("tan", "Tangent." + _U + "%r = stablehlo.tan %x : tensor<4xf32>", accuracy=True)
TanhOp = _unary("tanh", "Hyperbolic tangent." + _U + "%r = stablehlo.tanh %x : tensor<4xf32>", accuracy=True)
UniformQuantizeOp = _unary(
    "uniform_quantize", "Quantizes (or requantizes) a tensor." + _U
    + "%r = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>",
    elements="any", fmt="operands attr-dict `:` functional-type(operands, results)",
)
UniformDequantizeOp = _unary(
    "uniform_dequantize", "Dequantizes a quantized tensor." + _U
    + "%r = stablehlo.uniform_dequantize %x : (tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4xf32>",
    elements="any", fmt="operands attr-dict `:` functional-type(operands, results)",
)

_B = "\n\n    "
AddOp = _binary("add", "Elementwise sum (or for i1)." + _B + "%r = stablehlo.add %a, %b : tensor<4xf32>")
Atan2Op = _binary("atan2", "atan2(lhs, rhs)." + _B + "%r = stablehlo.atan2 %a, %b : tensor<4xf32>")
ComplexOp = _binary(
    "complex", "Builds complex numbers from real and imaginary parts." + _B
    + "%r = stablehlo.complex %re, %im : tensor<4xcomplex<f32>>",
    elements="operands", fmt="operands attr-dict `:` custom<HloComplexOpType>(type(operands), type(results))",
)
DivideOp = _binary("divide", "Elementwise quotient (integers round toward zero)." + _B + "%r = stablehlo.divide %a, %b : tensor<4xf32>")
MaximumOp = _binary("maximum", "Elementwise maximum (NaN propagates)." + _B + "%r = stablehlo.maximum %a, %b : tensor<4xf32>")
MinimumOp = _binary("minimum", "Elementwise minimum (NaN propagates)." + _B + "%r = stablehlo.minimum %a, %b : tensor<4xf32>")
MultiplyOp = _binary("multiply", "Elementwise product (and for i1)." + _B + "%r = stablehlo.multiply %a, %b : tensor<4xf32>")
PowerOp = _binary("power", "lhs ** rhs." + _B + "%r = stablehlo.power %a, %b : tensor<4xf32>")
RemainderOp = _binary("remainder", "Remainder with the dividend's sign." + _B + "%r = stablehlo.remainder %a, %b : tensor<4xf32>")
ShiftLeftOp = _binary("shift_left", "lhs << rhs." + _B + "%r = stablehlo.shift_left %a, %b : tensor<4xi32>")
ShiftRightArithmeticOp = _binary("shift_right_arithmetic", "Arithmetic right shift." + _B + "%r = stablehlo.shift_right_arithmetic %a, %b : tensor<4xi32>")
ShiftRightLogicalOp = _binary("shift_right_logical", "Logical right shift." + _B + "%r = stablehlo.shift_right_logical %a, %b : tensor<4xi32>")
SubtractOp = _binary("subtract", "Elementwise difference." + _B + "%r = stablehlo.subtract %a, %b : tensor<4xf32>")
AndOp = _binary("and", "Logical or bitwise and." + _B + "%r = stablehlo.and %a, %b : tensor<4xi1>")
OrOp = _binary("or", "Logical or bitwise or." + _B + "%r = stablehlo.or %a, %b : tensor<4xi1>")
XorOp = _binary("xor", "Logical or bitwise xor." + _B + "%r = stablehlo.xor %a, %b : tensor<4xi1>")

UNARY_OPS = [AbsOp, CbrtOp, CeilOp, ConvertOp, CountLeadingZerosOp, CosineOp, ExponentialOp, ExponentialMinusOneOp,
             FloorOp, ImagOp, IsFiniteOp, LogOp, LogPlusOneOp, LogisticOp, NotOp, NegateOp, PopcntOp, RealOp,
             RoundNearestAfzOp, RoundNearestEvenOp, RsqrtOp, SignOp, SineOp, SqrtOp, TanOp, TanhOp,
             UniformQuantizeOp, UniformDequantizeOp]  # fmt: skip
BINARY_OPS = [AddOp, Atan2Op, ComplexOp, DivideOp, MaximumOp, MinimumOp, MultiplyOp, PowerOp, RemainderOp,
              ShiftLeftOp, ShiftRightArithmeticOp, ShiftRightLogicalOp, SubtractOp, AndOp, OrOp, XorOp]  # fmt: skip


# ---------------------------------------------------------------- nullary


@irdl_op_definition
class ConstantOp(StablehloOp):
    """A constant tensor.

        %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    """

    name = "stablehlo.constant"
    value = prop_def(AnyAttr())
    output = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "attr-dict custom<HloConstantValue>($value, type($output))"
    custom_directives = _directives()

    def verify_(self) -> None:
        value = self.value
        get_type = getattr(value, "get_type", None)
        vt = get_type() if callable(get_type) else getattr(value, "type", None)
        if vt is not None and vt != self.output.type:
            raise VerifyException(
                f"inferred type(s) '{_type_str(vt)}' are incompatible with return type(s) of operation "
                f"'{_type_str(self.output.type)}'"
            )


@irdl_op_definition
class IotaOp(StablehloOp):
    """0, 1, 2, ... along ``iota_dimension``.

        %i = stablehlo.iota dim = 0 : tensor<4x2xi32>
    """

    name = "stablehlo.iota"
    iota_dimension = prop_def(_I64)
    output = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "`dim` `=` $iota_dimension attr-dict `:` type($output)"

    def verify_(self) -> None:
        shape = _shape(self.output.type)
        dim = self.int_prop("iota_dimension")
        if shape is None:
            raise VerifyException("expects a ranked tensor result")
        if not shape:
            raise VerifyException("does not support scalars.")
        if not 0 <= dim < len(shape):
            raise VerifyException(f"iota dimension cannot go beyond the output rank or be negative.")


@irdl_op_definition
class DynamicIotaOp(StablehloOp):
    """Iota with the result shape given at run time.

        %i = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xindex>) -> tensor<?xf32>
    """

    name = "stablehlo.dynamic_iota"
    output_shape = operand_def(AnyAttr())
    iota_dimension = prop_def(_I64)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$output_shape `,` `dim` `=` $iota_dimension attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class CreateTokenOp(StablehloOp):
    """A new token (the same as ``after_all`` with no operands).

        %t = stablehlo.create_token : !stablehlo.token
    """

    name = "stablehlo.create_token"
    output = result_def(AnyAttr())
    assembly_format = "attr-dict `:` type(results)"


@irdl_op_definition
class ReplicaIdOp(StablehloOp):
    """The replica id of the current process.

        %id = stablehlo.replica_id : tensor<ui32>
    """

    name = "stablehlo.replica_id"
    result = result_def(AnyAttr())
    assembly_format = "attr-dict `:` type(results)"


@irdl_op_definition
class PartitionIdOp(StablehloOp):
    """The partition id of the current process.

        %id = stablehlo.partition_id : tensor<ui32>
    """

    name = "stablehlo.partition_id"
    result = result_def(AnyAttr())
    assembly_format = "attr-dict `:` type(results)"


# ---------------------------------------------------------------- tokens, I/O, collectives


@irdl_op_definition
class AfterAllOp(StablehloOp):
    """A token that follows all the operand tokens.

        %t = stablehlo.after_all %a, %b : !stablehlo.token
    """

    name = "stablehlo.after_all"
    inputs = var_operand_def(AnyAttr())
    result = result_def(AnyAttr())
    assembly_format = "$inputs attr-dict `:` custom<HloSameOperandsAndResultType>(type($inputs), type($result))"
    custom_directives = _directives()


@irdl_op_definition
class InfeedOp(StablehloOp):
    """Reads values from the infeed (parse and verify only)."""

    name = "stablehlo.infeed"
    token = operand_def(AnyAttr())
    infeed_config = opt_prop_def(StringAttr)
    layout = opt_prop_def(ArrayAttr)
    results_ = var_result_def(AnyAttr())


@irdl_op_definition
class OutfeedOp(StablehloOp):
    """Writes values to the outfeed (parse and verify only)."""

    name = "stablehlo.outfeed"
    inputs = var_operand_def(AnyAttr())
    token = operand_def(AnyAttr())
    outfeed_config = opt_prop_def(StringAttr)
    result = result_def(AnyAttr())


@irdl_op_definition
class SendOp(StablehloOp):
    """Sends values over a channel (parse and verify only)."""

    name = "stablehlo.send"
    inputs = var_operand_def(AnyAttr())
    token = operand_def(AnyAttr())
    channel_handle = prop_def(ChannelHandleAttr)
    is_host_transfer = opt_prop_def(BoolAttr)
    source_target_pairs = opt_prop_def(AnyAttr())
    result = result_def(AnyAttr())


@irdl_op_definition
class RecvOp(StablehloOp):
    """Receives values from a channel (parse and verify only)."""

    name = "stablehlo.recv"
    token = operand_def(AnyAttr())
    channel_handle = prop_def(ChannelHandleAttr)
    is_host_transfer = opt_prop_def(BoolAttr)
    source_target_pairs = opt_prop_def(AnyAttr())
    results_ = var_result_def(AnyAttr())


class _Collective(StablehloOp):
    """Collectives: parsed and verified; the lowering refuses them by name."""


@irdl_op_definition
class AllGatherOp(_Collective):
    """Concatenates the operands of every process in a group along ``all_gather_dim``."""

    name = "stablehlo.all_gather"
    operands_ = var_operand_def(AnyAttr())
    all_gather_dim = prop_def(_I64)
    replica_groups = prop_def(AnyAttr())
    channel_handle = opt_prop_def(ChannelHandleAttr)
    use_global_device_ids = opt_prop_def(AnyAttr())
    results_ = var_result_def(AnyAttr())


@irdl_op_definition
class AllReduceOp(_Collective):
    """Reduces the operands of every process in a group with ``computation``."""

    name = "stablehlo.all_reduce"
    operands_ = var_operand_def(AnyAttr())
    replica_groups = prop_def(AnyAttr())
    channel_handle = opt_prop_def(ChannelHandleAttr)
    use_global_device_ids = opt_prop_def(AnyAttr())
    computation = region_def("single_block")
    results_ = var_result_def(AnyAttr())


@irdl_op_definition
class ReduceScatterOp(_Collective):
    """Reduces across a group, then scatters the result along ``scatter_dimension``."""

    name = "stablehlo.reduce_scatter"
    operand = operand_def(AnyAttr())
    scatter_dimension = prop_def(_I64)
    replica_groups = prop_def(AnyAttr())
    channel_handle = opt_prop_def(ChannelHandleAttr)
    use_global_device_ids = opt_prop_def(AnyAttr())
    computation = region_def("single_block")
    result = result_def(AnyAttr())


@irdl_op_definition
class AllToAllOp(_Collective):
    """Splits, exchanges and concatenates across a group."""

    name = "stablehlo.all_to_all"
    operands_ = var_operand_def(AnyAttr())
    split_dimension = prop_def(_I64)
    concat_dimension = prop_def(_I64)
    split_count = prop_def(_I64)
    replica_groups = prop_def(AnyAttr())
    channel_handle = opt_prop_def(ChannelHandleAttr)
    results_ = var_result_def(AnyAttr())


@irdl_op_definition
class CollectiveBroadcastOp(_Collective):
    """Broadcasts the operand of each group's first process."""

    name = "stablehlo.collective_broadcast"
    operands_ = var_operand_def(AnyAttr())
    replica_groups = prop_def(AnyAttr())
    channel_handle = opt_prop_def(ChannelHandleAttr)
    has_dynamic_root = opt_prop_def(AnyAttr())
    results_ = var_result_def(AnyAttr())


@irdl_op_definition
class CollectiveReduceOp(_Collective):
    """Reduces across a group (a newer spelling of all_reduce)."""

    name = "stablehlo.collective_reduce"
    operands_ = var_operand_def(AnyAttr())
    replica_groups = prop_def(AnyAttr())
    channel_handle = opt_prop_def(ChannelHandleAttr)
    use_global_device_ids = opt_prop_def(AnyAttr())
    has_dynamic_root = opt_prop_def(AnyAttr())
    computation = region_def("single_block")
    results_ = var_result_def(AnyAttr())


@irdl_op_definition
class CollectivePermuteOp(_Collective):
    """Sends the operand from each source to its target process."""

    name = "stablehlo.collective_permute"
    operand = operand_def(AnyAttr())
    source_target_pairs = prop_def(AnyAttr())
    channel_handle = opt_prop_def(ChannelHandleAttr)
    result = result_def(AnyAttr())


@irdl_op_definition
class CrossReplicaSumOp(_Collective):
    """Sums across replicas (an old spelling)."""

    name = "stablehlo.cross-replica-sum"
    operand = operand_def(AnyAttr())
    replica_groups = prop_def(AnyAttr())
    result = result_def(AnyAttr())


@irdl_op_definition
class AsyncStartOp(StablehloOp):
    """Starts ``body`` asynchronously (parse and verify only)."""

    name = "stablehlo.async_start"
    operands_ = var_operand_def(AnyAttr())
    body = region_def("single_block")
    result = result_def(AnyAttr())


@irdl_op_definition
class AsyncDoneOp(StablehloOp):
    """Waits for an ``async_start`` (parse and verify only)."""

    name = "stablehlo.async_done"
    operand = operand_def(AnyAttr())
    result = result_def(AnyAttr())


# ---------------------------------------------------------------- control flow


def _region_types(region: Region) -> tuple[list[Attribute], list[Attribute]]:
    """(argument types, returned types) of a single-block region."""
    if not region.blocks:
        return [], []
    block = region.blocks[0]
    term = block.last_op
    returned = [v.type for v in term.operands] if term is not None and term.has_trait(IsTerminator) else []
    return [a.type for a in block.args], returned


def _types_list(types: Sequence[Attribute]) -> str:
    return ", ".join(f"'{_type_str(t)}'" for t in types)


@irdl_op_definition
class ReturnOp(StablehloOp):
    """Returns values from a region of a stablehlo op.

        stablehlo.return %a, %b : tensor<f32>, tensor<i32>
    """

    name = "stablehlo.return"
    results_ = var_operand_def(AnyAttr())
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "$results_ attr-dict (`:` type($results_)^)?"


@irdl_op_definition
class IfOp(StablehloOp):
    """Runs ``true_branch`` or ``false_branch``.

        %r = "stablehlo.if"(%p) ({
          stablehlo.return %a : tensor<f32>
        }, {
          stablehlo.return %b : tensor<f32>
        }) : (tensor<i1>) -> tensor<f32>
    """

    name = "stablehlo.if"
    pred = operand_def(AnyAttr())
    true_branch = region_def("single_block")
    false_branch = region_def("single_block")
    results_ = var_result_def(AnyAttr())
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(ReturnOp))

    def verify_(self) -> None:
        shape = _shape(self.pred.type)
        if shape is None or shape != () or _element(self.pred.type) != i1:
            raise VerifyException(f"operand #0 must be ranked tensor of bool values of rank 0, but got '{_type_str(self.pred.type)}'")
        outs = list(self.result_types)
        for i, region in enumerate((self.true_branch, self.false_branch)):
            args, ret = _region_types(region)
            if args:
                raise VerifyException(f"branch {i} must have 0 arguments, but found {len(args)}")
            if ret != outs:
                raise VerifyException(
                    f"branch {i} returns ({_types_list(ret)}) but the op's results are ({_types_list(outs)})"
                )


@irdl_op_definition
class CaseOp(StablehloOp):
    """Runs the branch ``index`` selects (the last one when out of range).

        %r = "stablehlo.case"(%i) ({
          stablehlo.return %a : tensor<f32>
        }, {
          stablehlo.return %b : tensor<f32>
        }) : (tensor<i32>) -> tensor<f32>
    """

    name = "stablehlo.case"
    index = operand_def(AnyAttr())
    branches = var_region_def("single_block")
    results_ = var_result_def(AnyAttr())
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(ReturnOp))

    def verify_(self) -> None:
        t = self.index.type
        if _shape(t) != () or _element(t) != IntegerType(32):
            raise VerifyException(f"operand #0 must be ranked tensor of 32-bit signless integer values of rank 0, but got '{_type_str(t)}'")
        if not self.branches:
            raise VerifyException("expect at least one branch")
        outs = list(self.result_types)
        for i, region in enumerate(self.branches):
            args, ret = _region_types(region)
            if args:
                raise VerifyException(f"branch {i} must have 0 arguments, but found {len(args)}")
            if ret != outs:
                raise VerifyException(
                    f"branch {i} returns ({_types_list(ret)}) but the op's results are ({_types_list(outs)})"
                )


@irdl_op_definition
class WhileOp(StablehloOp):
    """Runs ``body`` while ``cond`` returns true.

        %r:2 = stablehlo.while(%iterArg = %i, %iterArg_0 = %x) : tensor<i32>, tensor<f32>
        cond {
          %c = stablehlo.compare LT, %iterArg, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %c : tensor<i1>
        } do {
          ...
          stablehlo.return %i1, %x1 : tensor<i32>, tensor<f32>
        }
    """

    name = "stablehlo.while"
    operand = var_operand_def(AnyAttr())
    cond = region_def("single_block")
    body = region_def("single_block")
    results_ = var_result_def(AnyAttr())
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(ReturnOp))
    assembly_format = "custom<HloWhileHeader>($operand, type($operand), type(results)) attr-dict-with-keyword `cond` $cond `do` $body"
    custom_directives = _directives()

    def verify_(self) -> None:
        ins = list(_operand_types(self))
        outs = list(self.result_types)
        if ins != outs:
            raise VerifyException(f"expects the operand types ({_types_list(ins)}) to match the result types ({_types_list(outs)})")
        cargs, cret = _region_types(self.cond)
        if cargs != ins:
            raise VerifyException(f"expect operands to be compatible with condition block arguments but got ({_types_list(ins)}) vs ({_types_list(cargs)})")
        if len(cret) != 1 or _shape(cret[0]) != () or _element(cret[0]) != i1:
            raise VerifyException(f"expect condition body returns a single value but got {len(cret)}" if len(cret) != 1
                                  else f"expect condition block return a zero-ranked tensor of i1 but got '{_type_str(cret[0])}'")
        bargs, bret = _region_types(self.body)
        if bargs != ins:
            raise VerifyException(f"expect operands to be compatible with body block arguments but got ({_types_list(ins)}) vs ({_types_list(bargs)})")
        if bret != ins:
            raise VerifyException(f"expect operands to be compatible with body block return types but got ({_types_list(ins)}) vs ({_types_list(bret)})")

    #: MLIR's getAsmBlockArgumentNames: both regions' arguments print as %iterArg...
    ASM_BLOCK_ARG_NAME: ClassVar[str] = "iterArg"


def _print_while(self: WhileOp, printer) -> None:
    """MLIR's printWhileOp: the header, then ``cond {...} do {...}`` on a new
    line, both regions without their entry block (the header names it)."""
    from tfrt.dialects.stablehlo_syntax import HloWhileHeader

    HloWhileHeader.print_header(printer, self)
    if self.attributes:
        printer.print_op_attributes(self.attributes, print_keyword=True)
    printer._print_new_line()  # noqa: SLF001 - the MLIR printer's newline with indentation
    printer.print_string("cond ")
    printer.print_region(self.cond, print_entry_block_args=False)
    printer.print_string(" do ")
    printer.print_region(self.body, print_entry_block_args=False)


WhileOp.print = _print_while


# ---------------------------------------------------------------- reductions


def _verify_reducer(op: Operation, body: Region, inputs: Sequence[Attribute], inits: Sequence[Attribute]) -> None:
    """The body takes (acc..., x...) as 0-d tensors of the inits' types and returns as many."""
    args, ret = _region_types(body)
    n = len(inputs)
    if len(args) != 2 * n:
        raise VerifyException(f"Reduction-region must take {2 * n} parameters, but takes {len(args)} parameter(s)")
    if len(ret) != n:
        raise VerifyException(f"Reduction-region here must produce {n} tensors, but produces {len(ret)} instead")
    for i, (init, r) in enumerate(zip(inits, ret, strict=True)):
        if _element(init) != _element(r) or _shape(r) not in ((), None):
            raise VerifyException(
                f"The type of reduction-region's result type at index {i} differs from the op's corresponding "
                f"init-value type: '{_type_str(r)}' vs '{_type_str(init)}'"
            )
    for i, (a, b) in enumerate(zip(args[:n], args[n:], strict=True)):
        if _element(a) != _element(inits[i]) or _element(b) != _element(inits[i]):
            raise VerifyException(
                f"The type of reduction-region's parameter at index {i} is different than the corresponding "
                f"result type: '{_type_str(a)}' vs '{_type_str(inits[i])}'"
            )


@irdl_op_definition
class ReduceOp(StablehloOp):
    """Reduces ``inputs`` over ``dimensions`` with ``body``, starting from ``init_values``.

        %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1]
               : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
        %r:2 = stablehlo.reduce(%x init: %c), (%i init: %z) across dimensions = [1]
               : (tensor<4x10xf32>, tensor<4x10xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
         reducer(%a: tensor<f32>, %b: tensor<f32>) (%ia: tensor<i32>, %ib: tensor<i32>) {
          ...
          stablehlo.return %m, %j : tensor<f32>, tensor<i32>
        }
    """

    name = "stablehlo.reduce"
    inputs = var_operand_def(AnyAttr())
    init_values = var_operand_def(AnyAttr())
    dimensions = prop_def(_DIMS)
    body = region_def("single_block")
    results_ = var_result_def(AnyAttr())
    irdl_options = (SameVariadicOperandSize(), ParsePropInAttrDict())
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = (
        "custom<HloReduceOperands>($inputs, $init_values) "
        "custom<HloReduceApplies>($body) `across` `dimensions` `=` $dimensions attr-dict `:` "
        "custom<HloReduceTypes>(type($inputs), type($init_values), type(results)) custom<HloReducerArgs>(ref($body)) custom<HloReducerRegion>(ref($body))"
    )
    custom_directives = _directives()

    def verify_(self) -> None:
        inputs = [v.type for v in self.inputs]
        inits = [v.type for v in self.init_values]
        if len(inputs) != len(inits) or not inputs:
            raise VerifyException(f"expects the same number of inputs and init values ({len(inputs)} vs {len(inits)})")
        if len(self.results) != len(inputs):
            raise VerifyException(f"expects {len(inputs)} results, but got {len(self.results)}")
        shape = _shape(inputs[0])
        for t in inputs[1:]:
            if not _shapes_compatible(shape, _shape(t)):
                raise VerifyException("expects all inputs to have compatible shapes")
        for t in inits:
            if _shape(t) != ():
                raise VerifyException(f"expects init values to be 0-d tensors, but got '{_type_str(t)}'")
        dims = self.dims("dimensions") or ()
        if shape is not None:
            _check_dims_unique_in_range(dims, len(shape), "dimensions")
            expected = [d for i, d in enumerate(shape) if i not in dims]
            for r, init in zip(self.result_types, inits, strict=True):
                rs = _shape(r)
                if rs is not None and not _shapes_compatible(rs, expected):
                    raise VerifyException(
                        f"inferred type(s) are incompatible with return type(s) of operation: result shape "
                        f"{list(rs)} vs the inputs' shape without the reduced dimensions {expected}"
                    )
                if _element(r) != _element(init):
                    raise VerifyException(f"result element type '{_type_str(_element(r))}' differs from the init value's '{_type_str(_element(init))}'")
        _verify_reducer(self, self.body, inputs, inits)


@irdl_op_definition
class ReduceWindowOp(StablehloOp):
    """Reduces each window of ``inputs`` with ``body``.

        %r = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 1, 2, 2, 1>,
               window_strides = array<i64: 1, 2, 2, 1>}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %m = stablehlo.maximum %a, %b : tensor<f32>
          stablehlo.return %m : tensor<f32>
        }) : (tensor<1x4x4x1xf32>, tensor<f32>) -> tensor<1x2x2x1xf32>
    """

    name = "stablehlo.reduce_window"
    inputs = var_operand_def(AnyAttr())
    init_values = var_operand_def(AnyAttr())
    window_dimensions = prop_def(_DIMS)
    window_strides = opt_prop_def(_DIMS)
    base_dilations = opt_prop_def(_DIMS)
    window_dilations = opt_prop_def(_DIMS)
    padding = opt_prop_def(AnyAttr())
    body = region_def("single_block")
    results_ = var_result_def(AnyAttr())
    irdl_options = (SameVariadicOperandSize(), ParsePropInAttrDict())
    traits = traits_def(RecursiveMemoryEffect())

    def window(self) -> dict[str, tuple]:
        """Every window attribute with the spec's defaults applied."""
        rank = len(_shape(self.inputs[0].type) or ())
        return {
            "window_dimensions": self.dims("window_dimensions") or (),
            "window_strides": self.dims("window_strides") or (1,) * rank,
            "base_dilations": self.dims("base_dilations") or (1,) * rank,
            "window_dilations": self.dims("window_dilations") or (1,) * rank,
            "padding": padding_pairs(self) or ((0, 0),) * rank,
        }

    def verify_(self) -> None:
        inputs = [v.type for v in self.inputs]
        inits = [v.type for v in self.init_values]
        if len(inputs) != len(inits) or not inputs:
            raise VerifyException(f"expects the same number of inputs and init values ({len(inputs)} vs {len(inits)})")
        shape = _shape(inputs[0])
        if shape is None:
            return
        w = self.window()
        for key in ("window_dimensions", "window_strides", "base_dilations", "window_dilations", "padding"):
            if len(w[key]) != len(shape):
                raise VerifyException(
                    f"expects {key} to have same dimension-size as size of window dimensions ({len(shape)}), but got: {len(w[key])}"
                )
        for key in ("window_dimensions", "window_strides", "base_dilations", "window_dilations"):
            if any(v <= 0 for v in w[key]):
                raise VerifyException(f"expects {key} to have positive value for {key.rstrip('s')}, but got {list(w[key])}")
        _verify_reducer(self, self.body, inputs, inits)


@irdl_op_definition
class SelectAndScatterOp(StablehloOp):
    """Scatters ``source`` to the position ``select`` picks in each window of ``operand``."""

    name = "stablehlo.select_and_scatter"
    operand = operand_def(AnyAttr())
    source = operand_def(AnyAttr())
    init_value = operand_def(AnyAttr())
    window_dimensions = opt_prop_def(_DIMS)
    window_strides = opt_prop_def(_DIMS)
    padding = opt_prop_def(AnyAttr())
    select = region_def("single_block")
    scatter = region_def("single_block")
    result = result_def(AnyAttr())
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        sargs, sret = _region_types(self.select)
        if len(sargs) != 2 or len(sret) != 1 or _element(sret[0]) != i1:
            raise VerifyException("expects the select-region to take 2 parameters and return a boolean tensor")
        cargs, cret = _region_types(self.scatter)
        if len(cargs) != 2 or len(cret) != 1:
            raise VerifyException("expects the scatter-region to take 2 parameters and return one value")


@irdl_op_definition
class MapOp(StablehloOp):
    """Applies ``computation`` elementwise to ``inputs``."""

    name = "stablehlo.map"
    inputs = var_operand_def(AnyAttr())
    dimensions = prop_def(_DIMS)
    computation = region_def("single_block")
    result = result_def(AnyAttr())
    traits = traits_def(RecursiveMemoryEffect())


@irdl_op_definition
class SortOp(StablehloOp):
    """Sorts ``inputs`` together along ``dimension`` by ``comparator``.

        %s:2 = "stablehlo.sort"(%k, %v) <{dimension = 0 : i64, is_stable = true}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
          %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
          stablehlo.return %lt : tensor<i1>
        }) : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
    """

    name = "stablehlo.sort"
    inputs = var_operand_def(AnyAttr())
    dimension = opt_prop_def(_I64)
    is_stable = opt_prop_def(BoolAttr)
    comparator = region_def("single_block")
    results_ = var_result_def(AnyAttr())
    traits = traits_def(RecursiveMemoryEffect())
    DEFAULTS: ClassVar[dict[str, Any]] = {"dimension": -1, "is_stable": False}

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("expects at least one input")
        shape = _shape(self.inputs[0].type)
        for v in self.inputs[1:]:
            if not _shapes_compatible(shape, _shape(v.type)):
                raise VerifyException("requires the same shape for all operands")
        if list(self.result_types) != list(_operand_types(self)):
            raise VerifyException("requires the same type for all operands and results")
        if shape is not None:
            dim = self.int_prop("dimension")
            if not -len(shape) <= dim < max(len(shape), 1):
                raise VerifyException(f"dimension attribute value must be in range [-{len(shape)}, {len(shape)}), but found {dim}")
        args, ret = _region_types(self.comparator)
        n = len(self.inputs)
        if len(args) != 2 * n:
            raise VerifyException(f"comparator block should have {2 * n} arguments")
        if len(ret) != 1 or _shape(ret[0]) != () or _element(ret[0]) != i1:
            raise VerifyException(f"comparator must return single output but got {len(ret)}" if len(ret) != 1
                                  else f"comparator must return tensor<i1> but got '{_type_str(ret[0])}'")


# ---------------------------------------------------------------- tuples


@irdl_op_definition
class TupleOp(StablehloOp):
    """Builds a tuple.

        %t = stablehlo.tuple %a, %b : tuple<tensor<f32>, tensor<i32>>
    """

    name = "stablehlo.tuple"
    val = var_operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$val attr-dict `:` custom<HloTupleOpType>(type($val), type($result))"
    custom_directives = _directives()

    def verify_(self) -> None:
        t = self.result.type
        if not isinstance(t, TupleType) or list(t.types.data) != list(_operand_types(self)):
            raise VerifyException("the result must be a tuple of the operand types")


@irdl_op_definition
class GetTupleElementOp(StablehloOp):
    """Element ``index`` of a tuple.

        %a = stablehlo.get_tuple_element %t[0] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>
    """

    name = "stablehlo.get_tuple_element"
    operand = operand_def(AnyAttr())
    index = prop_def(_I32)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$operand `[` $index `]` attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        t = self.operand.type
        index = self.int_prop("index")
        if not isinstance(t, TupleType):
            raise VerifyException(f"operand #0 must be nested tuple, but got '{_type_str(t)}'")
        if not 0 <= index < len(t.types.data):
            raise VerifyException(f"index {index} is out of bounds of operand with size {len(t.types.data)}")
        if t.types.data[index] != self.result.type:
            raise VerifyException("has return type {} but expected {}".format(_type_str(self.result.type), _type_str(t.types.data[index])))


# ---------------------------------------------------------------- compare, select, clamp


@irdl_op_definition
class CompareOp(StablehloOp):
    """Elementwise comparison.

        %p = stablehlo.compare GT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    """

    name = "stablehlo.compare"
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    comparison_direction = prop_def(ComparisonDirectionAttr)
    compare_type = opt_prop_def(ComparisonTypeAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "custom<HloEnum>($comparison_direction) `,` $lhs `,` $rhs "
        "custom<HloOptionalEnum>($compare_type) attr-dict `:` functional-type(operands, results)"
    )
    custom_directives = _directives()

    def verify_(self) -> None:
        _verify_same_shapes(self)
        _verify_same_element_types(self, _operand_types(self))
        if _element(self.result.type) != i1:
            raise VerifyException(f"result #0 must be tensor of bool values, but got '{_type_str(self.result.type)}'")


@irdl_op_definition
class SelectOp(StablehloOp):
    """``pred ? on_true : on_false``, elementwise (or with a scalar ``pred``).

        %r = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
    """

    name = "stablehlo.select"
    pred = operand_def(AnyAttr())
    on_true = operand_def(AnyAttr())
    on_false = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "operands attr-dict `:` custom<HloSelectOpType>(type(operands), type(results))"
    custom_directives = _directives()

    def verify_(self) -> None:
        pt, tt, ft = self.pred.type, self.on_true.type, self.on_false.type
        if _element(pt) != i1:
            raise VerifyException(f"operand #0 must be ranked tensor of bool values, but got '{_type_str(pt)}'")
        if not _shapes_compatible(_shape(tt), _shape(ft)) or _element(tt) != _element(ft):
            raise VerifyException("requires compatible types for non-predicate operands")
        ps = _shape(pt)
        if ps not in ((), None) and not _shapes_compatible(ps, _shape(tt)):
            raise VerifyException("requires the same type for all operands")
        if not _shapes_compatible(_shape(self.result.type), _shape(tt)) or _element(self.result.type) != _element(tt):
            raise VerifyException("inferred type(s) are incompatible with return type(s) of operation")


@irdl_op_definition
class ClampOp(StablehloOp):
    """min(max(operand, min), max); ``min`` and ``max`` may be 0-d.

        %r = stablehlo.clamp %lo, %x, %hi : tensor<4xf32>
    """

    name = "stablehlo.clamp"
    min = operand_def(AnyAttr())
    operand = operand_def(AnyAttr())
    max = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$min `,` $operand `,` $max attr-dict `:` custom<HloSameOperandsAndResultType>(type(operands), type(results))"
    custom_directives = _directives()

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        for name, v in (("min", self.min), ("max", self.max)):
            s = _shape(v.type)
            if s not in ((), None) and not _shapes_compatible(s, shape):
                raise VerifyException(f"{name} shape [{', '.join(map(str, s))}] is not scalar and is not compatible to operand shape [{', '.join(map(str, shape or ()))}]")
        _verify_same_element_types(self, [*_operand_types(self), self.result.type])


# ---------------------------------------------------------------- slicing


@irdl_op_definition
class SliceOp(StablehloOp):
    """A static strided slice.

        %s = stablehlo.slice %x [1:3, 0:4:2] : (tensor<4x4xf32>) -> tensor<2x2xf32>
    """

    name = "stablehlo.slice"
    operand = operand_def(AnyAttr())
    start_indices = prop_def(_DIMS)
    limit_indices = prop_def(_DIMS)
    strides = prop_def(_DIMS)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$operand custom<HloSliceRanges>($start_indices, $limit_indices, $strides) attr-dict `:` functional-type(operands, results)"
    custom_directives = _directives()

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        start, limit, strides = self.dims("start_indices"), self.dims("limit_indices"), self.dims("strides")
        if not len(start) == len(limit) == len(strides):
            raise VerifyException(
                f"all of {{start_indices, limit_indices, strides}} have same size: {len(start)}, {len(limit)}, {len(strides)}"
            )
        if shape is None:
            return
        if len(start) != len(shape):
            raise VerifyException(f"the number of elements in start_indices ({len(start)}) does not match the rank of the operand ({len(shape)})")
        out = []
        for i, (s, l, st, d) in enumerate(zip(start, limit, strides, shape, strict=True)):
            if s < 0:
                raise VerifyException(f"negative start index {s} in dimension {i}")
            if d != DYNAMIC and l > d:
                raise VerifyException(f"limit index {l} is larger than dimension size {d} in dimension {i}")
            if s > l:
                raise VerifyException(f"start index {s} is larger than limit index {l} in dimension {i}")
            if st <= 0:
                raise VerifyException(f"stride must be positive but got {st} in dimension {i}")
            out.append(-(-(l - s) // st))
        rs = _shape(self.result.type)
        if rs is not None and not _shapes_compatible(rs, out):
            raise VerifyException(
                f"inferred type(s) 'tensor<{'x'.join(map(str, out))}x...>' are incompatible with return type(s) of operation '{_type_str(self.result.type)}'"
            )
        if _element(self.result.type) != _element(self.operand.type):
            raise VerifyException("requires the same element type for operand and result")


@irdl_op_definition
class DynamicSliceOp(StablehloOp):
    """A slice of static sizes at run-time start indices (clamped into range).

        %s = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    """

    name = "stablehlo.dynamic_slice"
    operand = operand_def(AnyAttr())
    start_indices = var_operand_def(AnyAttr())
    slice_sizes = prop_def(_DIMS)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "$operand `,` custom<HloVariadicOperandWithAttribute>($start_indices) `sizes` `=` $slice_sizes "
        "attr-dict `:` functional-type(operands, results)"
    )
    custom_directives = _directives()

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        sizes = self.dims("slice_sizes")
        if shape is None:
            return
        if len(self.start_indices) != len(shape):
            raise VerifyException(f"has mismatched number of start indices ({len(self.start_indices)}) and the rank of operand ({len(shape)})")
        if len(sizes) != len(shape):
            raise VerifyException(f"has mismatched number of slice sizes ({len(sizes)}) and the rank of operand ({len(shape)})")
        for i, (s, d) in enumerate(zip(sizes, shape, strict=True)):
            if s < 0:
                raise VerifyException(f"has negative size index to dynamic slice: {s}")
            if d != DYNAMIC and s > d:
                raise VerifyException(f"has slice size {s} greater than dimension size {d} in dimension {i} of operand")
        for v in self.start_indices:
            if _shape(v.type) != () or not _is_int(_element(v.type)):
                raise VerifyException(f"start indices must be 0-d integer tensors, but got '{_type_str(v.type)}'")
        rs = _shape(self.result.type)
        if rs is not None and not _shapes_compatible(rs, sizes):
            raise VerifyException(f"inferred type(s) are incompatible with return type(s) of operation: sizes {list(sizes)} vs result '{_type_str(self.result.type)}'")


@irdl_op_definition
class DynamicUpdateSliceOp(StablehloOp):
    """``operand`` with ``update`` written at run-time start indices (clamped into range).

        %r = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
    """

    name = "stablehlo.dynamic_update_slice"
    operand = operand_def(AnyAttr())
    update = operand_def(AnyAttr())
    start_indices = var_operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        shape, ushape = _shape(self.operand.type), _shape(self.update.type)
        if shape is None or ushape is None:
            return
        if len(ushape) != len(shape):
            raise VerifyException(f"update rank ({len(ushape)}) does not match the operand rank ({len(shape)})")
        if len(self.start_indices) != len(shape):
            raise VerifyException(f"expects number of start_indices to match operand rank: {len(self.start_indices)} vs {len(shape)}")
        for u, d in zip(ushape, shape, strict=True):
            if d != DYNAMIC and u != DYNAMIC and u > d:
                raise VerifyException(f"expects size of update to be at most the size of operand ({u} vs {d})")
        if _element(self.update.type) != _element(self.operand.type) or not _shapes_compatible(_shape(self.result.type), shape):
            raise VerifyException("requires the operand, update and result to have compatible types")


@irdl_op_definition
class RealDynamicSliceOp(StablehloOp):
    """A strided slice whose start, limit and strides are 1-d tensors."""

    name = "stablehlo.real_dynamic_slice"
    operand = operand_def(AnyAttr())
    start_indices = operand_def(AnyAttr())
    limit_indices = operand_def(AnyAttr())
    strides = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"


# ---------------------------------------------------------------- batch norm


@irdl_op_definition
class BatchNormGradOp(StablehloOp):
    """Gradients of batch normalization."""

    name = "stablehlo.batch_norm_grad"
    operand = operand_def(AnyAttr())
    scale = operand_def(AnyAttr())
    mean = operand_def(AnyAttr())
    variance = operand_def(AnyAttr())
    grad_output = operand_def(AnyAttr())
    epsilon = prop_def(AnyAttr())
    feature_index = prop_def(_I64)
    grad_operand = result_def(AnyAttr())
    grad_scale = result_def(AnyAttr())
    grad_offset = result_def(AnyAttr())
    traits = traits_def(Pure())


@irdl_op_definition
class BatchNormInferenceOp(StablehloOp):
    """Batch normalization with given mean and variance."""

    name = "stablehlo.batch_norm_inference"
    operand = operand_def(AnyAttr())
    scale = operand_def(AnyAttr())
    offset = operand_def(AnyAttr())
    mean = operand_def(AnyAttr())
    variance = operand_def(AnyAttr())
    epsilon = prop_def(AnyAttr())
    feature_index = prop_def(_I64)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        fi = self.int_prop("feature_index")
        if shape is not None and not 0 <= fi < len(shape):
            raise VerifyException(f"expects feature_index to be smaller than the rank of operand type; got feature_index {fi}, and rank {len(shape)}.")


@irdl_op_definition
class BatchNormTrainingOp(StablehloOp):
    """Batch normalization that computes the batch mean and variance."""

    name = "stablehlo.batch_norm_training"
    operand = operand_def(AnyAttr())
    scale = operand_def(AnyAttr())
    offset = operand_def(AnyAttr())
    epsilon = prop_def(AnyAttr())
    feature_index = prop_def(_I64)
    output = result_def(AnyAttr())
    batch_mean = result_def(AnyAttr())
    batch_var = result_def(AnyAttr())
    traits = traits_def(Pure())


# ---------------------------------------------------------------- shape ops


@irdl_op_definition
class BitcastConvertOp(StablehloOp):
    """Reinterprets the bits (a size change adds or drops a minor dimension).

        %r = stablehlo.bitcast_convert %x : (tensor<4xf32>) -> tensor<4xi32>
    """

    name = "stablehlo.bitcast_convert"
    operand = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class BroadcastOp(StablehloOp):
    """Prepends ``broadcast_sizes`` dimensions.

        %r = stablehlo.broadcast %x, sizes = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
    """

    name = "stablehlo.broadcast"
    operand = operand_def(AnyAttr())
    broadcast_sizes = prop_def(_DIMS)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$operand `,` `sizes` `=` $broadcast_sizes attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        shape, rs = _shape(self.operand.type), _shape(self.result.type)
        if shape is not None and rs is not None:
            expected = [*self.dims("broadcast_sizes"), *shape]
            if not _shapes_compatible(rs, expected):
                raise VerifyException(f"inferred type(s) are incompatible with return type(s) of operation: expected shape {expected}, got {list(rs)}")


@irdl_op_definition
class BroadcastInDimOp(StablehloOp):
    """Broadcasts ``operand`` into the result shape; operand dimension i becomes ``broadcast_dimensions[i]``.

        %r = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    """

    name = "stablehlo.broadcast_in_dim"
    operand = operand_def(AnyAttr())
    broadcast_dimensions = prop_def(_DIMS)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$operand `,` `dims` `=` $broadcast_dimensions attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        _verify_broadcast_dims(self, self.dims("broadcast_dimensions"))


def _verify_broadcast_dims(op: Operation, dims: Sequence[int]) -> None:
    shape, rs = _shape(op.operands[0].type), _shape(op.results[0].type)
    if shape is None or rs is None:
        return
    if len(dims) != len(shape):
        raise VerifyException(
            f"broadcast_dimensions size ({len(dims)}) does not match operand rank ({len(shape)})"
        )
    if len(rs) < len(shape):
        raise VerifyException(f"result rank ({len(rs)}) is less than operand rank ({len(shape)})")
    seen = set()
    for i, d in enumerate(dims):
        if not 0 <= d < len(rs):
            raise VerifyException(f"broadcast_dimensions contains invalid value {d} for result with rank {len(rs)}")
        if d in seen:
            raise VerifyException(f"broadcast_dimensions should not have duplicates")
        seen.add(d)
        if shape[i] != 1 and not _dim_ok(shape[i], rs[d]):
            raise VerifyException(
                f"size of operand dimension {i} ({shape[i]}) is not equal to 1 or size of result dimension {d} ({rs[d]})"
            )
    if _element(op.operands[0].type) != _element(op.results[0].type):
        raise VerifyException("requires the same element type for operand and result")


@irdl_op_definition
class DynamicBroadcastInDimOp(StablehloOp):
    """broadcast_in_dim to a shape given at run time.

        %r = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [1] : (tensor<3xf32>, tensor<2xi64>) -> tensor<?x3xf32>
    """

    name = "stablehlo.dynamic_broadcast_in_dim"
    operand = operand_def(AnyAttr())
    output_dimensions = operand_def(AnyAttr())
    broadcast_dimensions = prop_def(_DIMS)
    known_expanding_dimensions = opt_prop_def(_DIMS)
    known_nonexpanding_dimensions = opt_prop_def(_DIMS)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "$operand `,` $output_dimensions `,` `dims` `=` $broadcast_dimensions attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        _verify_broadcast_dims(self, self.dims("broadcast_dimensions"))


@irdl_op_definition
class CholeskyOp(StablehloOp):
    """Cholesky factor of each matrix of ``a`` (lower or upper triangle).

        %l = stablehlo.cholesky %a, lower = true : tensor<3x3xf32>
    """

    name = "stablehlo.cholesky"
    a = operand_def(AnyAttr())
    lower = opt_prop_def(BoolAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$a (`,` `lower` `=` $lower^)? attr-dict `:` custom<HloSameOperandsAndResultType>(type(operands), type(results))"
    custom_directives = _directives()

    def verify_(self) -> None:
        shape = _shape(self.a.type)
        if shape is not None:
            if len(shape) < 2:
                raise VerifyException(f"expects the rank of a to be >= 2, but got {len(shape)}")
            if _dim_ok(shape[-1], shape[-2]) is False:
                raise VerifyException(f"expects the minor dimensions of a to have equal size, but got {shape[-2]} and {shape[-1]}")


@irdl_op_definition
class ConcatenateOp(StablehloOp):
    """Joins ``inputs`` along ``dimension``.

        %r = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1x2xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    """

    name = "stablehlo.concatenate"
    inputs = var_operand_def(AnyAttr())
    dimension = prop_def(_I64)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "custom<HloVariadicOperandWithAttribute>($inputs) `dim` `=` $dimension attr-dict `:` functional-type(operands, results)"
    )
    custom_directives = _directives()

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("expected 1 or more operands, but found 0")
        dim = self.int_prop("dimension")
        shapes = [_shape(v.type) for v in self.inputs]
        first = next((s for s in shapes if s is not None), None)
        if first is None:
            return
        if not 0 <= dim < len(first):
            raise VerifyException(f"rank-0 values cannot be concatenated" if not first else f"dimension {dim} is out-of-bounds for input rank {len(first)}")
        total = 0
        for i, s in enumerate(shapes):
            if s is None:
                total = DYNAMIC
                continue
            if len(s) != len(first):
                raise VerifyException(f"operands (0) and ({i}) do not match rank")
            for d in range(len(s)):
                if d != dim and not _dim_ok(s[d], first[d]):
                    raise VerifyException(f"shapes of operand (0) and ({i}) are not compatible at non-concat index {d}: ({', '.join(map(str, first))}) != ({', '.join(map(str, s))})")
            total = DYNAMIC if DYNAMIC in (total, s[dim]) else total + s[dim]
        _verify_same_element_types(self, [*_operand_types(self), self.result.type])
        rs = _shape(self.result.type)
        if rs is not None:
            expected = list(first)
            expected[dim] = total
            if not _shapes_compatible(rs, expected):
                raise VerifyException(f"inferred type(s) are incompatible with return type(s) of operation: expected dimension {dim} of size {total}, got shape {list(rs)}")


@irdl_op_definition
class CompositeOp(StablehloOp):
    """A named composite with a decomposition function.

        %r = stablehlo.composite "my.op" %a {decomposition = @my_op} : (tensor<f32>) -> tensor<f32>
    """

    name = "stablehlo.composite"
    inputs = var_operand_def(AnyAttr())
    composite_name = prop_def(StringAttr, prop_name="name")
    composite_attributes = opt_prop_def(DictionaryAttr)
    decomposition = prop_def(AnyAttr())
    version = opt_prop_def(_I32)
    results_ = var_result_def(AnyAttr())
    custom_directives = _directives()
    assembly_format = "custom<HloString>($name) operands attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class ConvolutionOp(StablehloOp):
    """General convolution (strides, padding, lhs/rhs dilation, feature and batch groups).

        %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
               window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}
               {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
               : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
    """

    name = "stablehlo.convolution"
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    window_strides = opt_prop_def(_DIMS)
    padding = opt_prop_def(AnyAttr())
    lhs_dilation = opt_prop_def(_DIMS)
    rhs_dilation = opt_prop_def(_DIMS)
    window_reversal = opt_prop_def(_BOOLS)
    dimension_numbers = prop_def(ConvDimensionNumbersAttr)
    feature_group_count = prop_def(_I64)
    batch_group_count = prop_def(_I64)
    precision_config = opt_prop_def(ArrayAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "`(` operands `)` `dim_numbers` `=` custom<HloConvolutionDimensions>($dimension_numbers) `,` "
        "`window` `=` `{` custom<HloWindowAttributes>($window_strides, $padding, $lhs_dilation, $rhs_dilation, "
        "$window_reversal) `}` attr-dict `:` functional-type(operands, results)"
    )
    custom_directives = _directives()

    def window(self) -> dict[str, tuple]:
        """The window attributes with the spec's defaults (one per spatial dimension)."""
        n = len(self.dimension_numbers.input_spatial_dimensions)
        rev = self.properties.get("window_reversal")
        return {
            "window_strides": self.dims("window_strides") or (1,) * n,
            "padding": padding_pairs(self) or ((0, 0),) * n,
            "lhs_dilation": self.dims("lhs_dilation") or (1,) * n,
            "rhs_dilation": self.dims("rhs_dilation") or (1,) * n,
            "window_reversal": tuple(bool(v) for v in rev.get_values()) if rev is not None else (False,) * n,
        }

    def verify_(self) -> None:
        _verify_convolution(self)


def _verify_convolution(op: ConvolutionOp) -> None:
    dn = op.dimension_numbers
    ls, rs, os_ = _shape(op.lhs.type), _shape(op.rhs.type), _shape(op.result.type)
    n = len(dn.input_spatial_dimensions)
    if len(dn.kernel_spatial_dimensions) != n or len(dn.output_spatial_dimensions) != n:
        raise VerifyException(
            "expects the same size for input, kernel and output spatial-dimensions, but got "
            f"{n}, {len(dn.kernel_spatial_dimensions)}, and {len(dn.output_spatial_dimensions)} resp."
        )
    for what, dims, shape in (
        ("input", (dn.input_batch_dimension, dn.input_feature_dimension, *dn.input_spatial_dimensions), ls),
        ("kernel", (dn.kernel_input_feature_dimension, dn.kernel_output_feature_dimension, *dn.kernel_spatial_dimensions), rs),
        ("output", (dn.output_batch_dimension, dn.output_feature_dimension, *dn.output_spatial_dimensions), os_),
    ):
        if len(set(dims)) != len(dims):
            raise VerifyException(f"expects {what} dimension-numbers to be unique, got {{{', '.join(map(str, dims))}}}.")
        if shape is not None:
            if len(shape) != n + 2:
                raise VerifyException(f"expects {what} to have rank {n + 2} (the spatial dimensions plus 2), but got {len(shape)}")
            bad = [d for d in dims if not 0 <= d < len(shape)]
            if bad:
                raise VerifyException(f"expects {what} dimension-numbers to be in-range [0, {len(shape)}), got: {bad[0]}.")
    w = op.window()
    for key in ("window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal"):
        if len(w[key]) != n:
            raise VerifyException(f"expects {key} to have {n} entries (one per spatial dimension), but got {len(w[key])}")
    for key in ("window_strides", "lhs_dilation", "rhs_dilation"):
        if any(v <= 0 for v in w[key]):
            raise VerifyException(f"expects {key} to have positive values, but got {list(w[key])}")
    fgc, bgc = op.int_prop("feature_group_count"), op.int_prop("batch_group_count")
    if fgc <= 0:
        raise VerifyException(f"expects feature_group_count to be a positive number, got {fgc}.")
    if bgc <= 0:
        raise VerifyException(f"expects batch_group_count to be a positive number, got {bgc}.")
    if fgc > 1 and bgc > 1:
        raise VerifyException(f"expects batch_group_count and feature_group_count not to be both greater than 1. Got {bgc} and {fgc} resp.")
    if ls is None or rs is None:
        return
    in_f = ls[dn.input_feature_dimension]
    k_in = rs[dn.kernel_input_feature_dimension]
    k_out = rs[dn.kernel_output_feature_dimension]
    batch = ls[dn.input_batch_dimension]
    if in_f != DYNAMIC and in_f % fgc:
        raise VerifyException(f"expects input feature dimension ({in_f}) to be a multiple of feature_group_count. Got feature_group_count = {fgc}.")
    if in_f != DYNAMIC and k_in != DYNAMIC and in_f // fgc != k_in:
        raise VerifyException(
            f"expects input feature dimension ({in_f}) / feature_group_count = kernel input feature dimension ({k_in}). Got feature_group_count = {fgc}."
        )
    if k_out != DYNAMIC and k_out % bgc:
        raise VerifyException(f"expects output feature dimension size ({k_out}) to be a multiple of batch_group_count. Got batch_group_count = {bgc}.")
    if k_out != DYNAMIC and k_out % fgc:
        raise VerifyException(f"expects kernel output feature dimension ({k_out}) to be divisible by feature_group_count. For feature_group_count = {fgc}.")
    if batch != DYNAMIC and batch % bgc:
        raise VerifyException(f"expects input batch dimension ({batch}) to be divisible by batch_group_count. Got batch_group_count = {bgc}.")
    if os_ is None:
        return
    expected = [0] * (n + 2)
    expected[dn.output_batch_dimension] = DYNAMIC if batch == DYNAMIC else batch // bgc
    expected[dn.output_feature_dimension] = k_out
    for i in range(n):
        x = ls[dn.input_spatial_dimensions[i]]
        k = rs[dn.kernel_spatial_dimensions[i]]
        if x == DYNAMIC or k == DYNAMIC:
            expected[dn.output_spatial_dimensions[i]] = DYNAMIC
            continue
        lo, hi = w["padding"][i]
        dx = (x - 1) * w["lhs_dilation"][i] + 1 if x > 0 else 0
        padded = dx + lo + hi
        dk = (k - 1) * w["rhs_dilation"][i] + 1 if k > 0 else 0
        size = 0 if padded < dk or padded <= 0 else (padded - dk) // w["window_strides"][i] + 1
        expected[dn.output_spatial_dimensions[i]] = size
    if not _shapes_compatible(os_, expected):
        raise VerifyException(
            f"inferred shape '[{', '.join('?' if d == DYNAMIC else str(d) for d in expected)}]' is incompatible with return type of operation '{_type_str(op.result.type)}'"
        )


@irdl_op_definition
class CustomCallOp(StablehloOp):
    """A call to an implementation-defined target (the lowering refuses it, naming the target).

        %r = stablehlo.custom_call @foo(%x) {backend_config = ""} : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "stablehlo.custom_call"
    inputs = var_operand_def(AnyAttr())
    call_target_name = prop_def(StringAttr)
    has_side_effect = opt_prop_def(BoolAttr)
    backend_config = opt_prop_def(AnyAttr())
    api_version = opt_prop_def(_I32)
    called_computations = opt_prop_def(ArrayAttr)
    operand_layouts = opt_prop_def(ArrayAttr)
    result_layouts = opt_prop_def(ArrayAttr)
    output_operand_aliases = opt_prop_def(ArrayAttr)
    result_tilings = opt_prop_def(ArrayAttr)
    results_ = var_result_def(AnyAttr())
    assembly_format = "custom<HloCustomCallTarget>($call_target_name) `(` $inputs `)` attr-dict `:` functional-type(operands, results)"
    custom_directives = _directives()


def _verify_dot_dims(op: Operation, lb, rb, lc, rc) -> list[int] | None:
    ls, rs = _shape(op.operands[0].type), _shape(op.operands[1].type)
    if len(lb) != len(rb):
        raise VerifyException(
            f"lhs and rhs should have the same number of batching dimensions"
        )
    if len(lc) != len(rc):
        raise VerifyException(
            f"lhs and rhs should have the same number of contracting dimensions"
        )
    for side, b, c in (("lhs", lb, lc), ("rhs", rb, rc)):
        if len(set(b) | set(c)) != len(b) + len(c):
            raise VerifyException(f"has duplicated dimension from {side}_batching_dimensions and {side}_contracting_dimensions: {list(b) + list(c)}")
    if ls is None or rs is None:
        return None
    for side, dims, shape in (("lhs_batching_dimensions", lb, ls), ("rhs_batching_dimensions", rb, rs),
                              ("lhs_contracting_dimensions", lc, ls), ("rhs_contracting_dimensions", rc, rs)):
        for d in dims:
            if not 0 <= d < len(shape):
                raise VerifyException(f"{side} value: {d} is out of range: [0, {len(shape)})")
    for a, b in zip(lb, rb, strict=True):
        if not _dim_ok(ls[a], rs[b]):
            raise VerifyException(f"batching dimension sizes must match for lhs/rhs")
    for a, b in zip(lc, rc, strict=True):
        if not _dim_ok(ls[a], rs[b]):
            raise VerifyException(f"contracting dimension sizes must match for lhs/rhs")
    out = [ls[d] for d in lb]
    out += [s for i, s in enumerate(ls) if i not in lb and i not in lc]
    out += [s for i, s in enumerate(rs) if i not in rb and i not in rc]
    return out


@irdl_op_definition
class DotOp(StablehloOp):
    """Vector/matrix products of rank-1 and rank-2 operands.

        %r = stablehlo.dot %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    """

    name = "stablehlo.dot"
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    precision_config = opt_prop_def(ArrayAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs `` custom<HloPrecisionConfig>($precision_config) attr-dict `:` functional-type(operands, results)"
    custom_directives = _directives()

    def verify_(self) -> None:
        ls, rs = _shape(self.lhs.type), _shape(self.rhs.type)
        if ls is None or rs is None:
            return
        if len(ls) not in (1, 2) or len(rs) not in (1, 2):
            raise VerifyException(f"expected both lhs/rhs ranks to be either 1 or 2")
        out = _verify_dot_dims(self, (), (), (len(ls) - 1,), (0,))
        r = _shape(self.result.type)
        if r is not None and out is not None and not _shapes_compatible(r, out):
            raise VerifyException(f"inferred shape '[{', '.join(map(str, out))}]' is incompatible with return type of operation '{_type_str(self.result.type)}'")


@irdl_op_definition
class DotGeneralOp(StablehloOp):
    """Batched tensor contraction.

        %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
               precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    """

    name = "stablehlo.dot_general"
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    dot_dimension_numbers = prop_def(DotDimensionNumbersAttr)
    precision_config = opt_prop_def(ArrayAttr)
    algorithm = opt_prop_def(DotAlgorithmAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "$lhs `,` $rhs `,` custom<HloDotDimensionNumbers>($dot_dimension_numbers) `` "
        "custom<HloPrecisionConfigAndAlgorithm>($precision_config, $algorithm) attr-dict `:` functional-type(operands, results)"
    )
    custom_directives = _directives()

    def verify_(self) -> None:
        d = self.dot_dimension_numbers
        out = _verify_dot_dims(self, d.lhs_batching_dimensions, d.rhs_batching_dimensions,
                               d.lhs_contracting_dimensions, d.rhs_contracting_dimensions)
        pc = self.precision_config
        if pc is not None and len(pc.data) not in (0, 2):
            raise VerifyException(f"expects precision config to be empty or have <= 2 elements.")
        r = _shape(self.result.type)
        if r is not None and out is not None and not _shapes_compatible(r, out):
            raise VerifyException(f"inferred shape '[{', '.join('?' if x == DYNAMIC else str(x) for x in out)}]' is incompatible with return type of operation '{_type_str(self.result.type)}'")


@irdl_op_definition
class EinsumOp(StablehloOp):
    """Einstein summation of two operands (an old op)."""

    name = "stablehlo.einsum"
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    einsum_config = prop_def(StringAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs `,` `config` `=` custom<HloString>($einsum_config) attr-dict `:` functional-type(operands, results)"
    custom_directives = _directives()


@irdl_op_definition
class UnaryEinsumOp(StablehloOp):
    """Einstein summation of one operand (an old op)."""

    name = "stablehlo.unary_einsum"
    operand = operand_def(AnyAttr())
    einsum_config = prop_def(StringAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$operand `,` `config` `=` custom<HloString>($einsum_config) attr-dict `:` functional-type(operands, results)"
    custom_directives = _directives()


@irdl_op_definition
class FftOp(StablehloOp):
    """Fourier transforms over the trailing ``fft_length`` dimensions.

        %r = stablehlo.fft %x, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
    """

    name = "stablehlo.fft"
    operand = operand_def(AnyAttr())
    fft_type = prop_def(FftTypeAttr)
    fft_length = prop_def(_DIMS)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "$operand `,` `type` `=` custom<HloEnum>($fft_type) `,` `length` `=` $fft_length attr-dict `:` functional-type(operands, results)"
    )
    custom_directives = _directives()

    def verify_(self) -> None:
        length = self.dims("fft_length")
        if not 1 <= len(length) <= 3:
            raise VerifyException(f"rank must be between 1 and 3, but got {len(length)}.")
        shape = _shape(self.operand.type)
        if shape is not None and len(shape) < len(length):
            raise VerifyException(f"operand rank must not be less than fft rank of {len(length)} for operand of type '{_type_str(self.operand.type)}'")


@irdl_op_definition
class GatherOp(StablehloOp):
    """Gathers slices of ``operand`` at ``start_indices``.

        %g = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1],
               collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
               slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    """

    name = "stablehlo.gather"
    operand = operand_def(AnyAttr())
    start_indices = operand_def(AnyAttr())
    dimension_numbers = prop_def(GatherDimensionNumbersAttr)
    slice_sizes = prop_def(_DIMS)
    indices_are_sorted = opt_prop_def(BoolAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _verify_gather(self, self.dims("slice_sizes"))


def _verify_gather(op, slice_sizes) -> None:
    d = op.dimension_numbers
    os_, is_ = _shape(op.operand.type), _shape(op.start_indices.type)
    if not _is_int(_element(op.start_indices.type)) and not isinstance(_element(op.start_indices.type), IndexType):
        raise VerifyException(f"operand #1 must be tensor of integer values, but got '{_type_str(op.start_indices.type)}'")
    for name in ("offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims"):
        v = getattr(d, name)
        if list(v) != sorted(v) or len(set(v)) != len(v):
            raise VerifyException(f"expects {name} to be sorted and unique, got: [{', '.join(map(str, v))}]")
    if os_ is None or is_ is None:
        return
    ivd = d.index_vector_dim
    if not 0 <= ivd <= len(is_):
        raise VerifyException(f"index_vector_dim {ivd} is out of bounds for start indices with rank {len(is_)}")
    index_size = is_[ivd] if ivd < len(is_) else 1
    if index_size != DYNAMIC and len(d.start_index_map) != index_size:
        raise VerifyException(
            f"start_index_map size ({len(d.start_index_map)}) is not equal to size of index dimension ({ivd}) of start_indices ({index_size})"
        )
    if slice_sizes is not None:
        if len(slice_sizes) != len(os_):
            raise VerifyException(f"slice_sizes size ({len(slice_sizes)}) not equal to (implied) operand rank ({len(os_)})")
        for i, (s, dim) in enumerate(zip(slice_sizes, os_, strict=True)):
            if s < 0 or (dim != DYNAMIC and s > dim):
                raise VerifyException(f"slice size ({s}) is out of bounds for operand dimension ({dim}) at index {i}")
        for c in (*d.collapsed_slice_dims, *d.operand_batching_dims):
            if not 0 <= c < len(os_):
                raise VerifyException(f"collapsed dimension {c} is out of bounds for slice_sizes.size ({len(os_)})")
            if slice_sizes[c] > 1:
                raise VerifyException(f"slice_sizes collapsed dimension {c} should <= 1 but got {slice_sizes[c]}")
    for m in d.start_index_map:
        if not 0 <= m < len(os_):
            raise VerifyException(f"start_index_map {m} is out of bounds for operand rank {len(os_)}")
    rs = _shape(op.result.type)
    if rs is None or slice_sizes is None:
        return
    batch = [s for i, s in enumerate(is_) if i != ivd]
    offsets = [s for i, s in enumerate(slice_sizes) if i not in d.collapsed_slice_dims and i not in d.operand_batching_dims]
    if len(rs) != len(batch) + len(offsets):
        raise VerifyException(
            f"inferred type(s) are incompatible with return type(s) of operation: expected rank {len(batch) + len(offsets)}, got '{_type_str(op.result.type)}'"
        )
    expected = []
    bi = oi = 0
    for i in range(len(rs)):
        if i in d.offset_dims:
            expected.append(offsets[oi] if oi < len(offsets) else DYNAMIC)
            oi += 1
        else:
            expected.append(batch[bi] if bi < len(batch) else DYNAMIC)
            bi += 1
    if not _shapes_compatible(rs, expected):
        raise VerifyException(
            f"inferred type(s) 'tensor<{'x'.join('?' if e == DYNAMIC else str(e) for e in expected)}x...>' are incompatible with return type(s) of operation '{_type_str(op.result.type)}'"
        )


@irdl_op_definition
class DynamicGatherOp(StablehloOp):
    """gather with ``slice_sizes`` given at run time."""

    name = "stablehlo.dynamic_gather"
    operand = operand_def(AnyAttr())
    start_indices = operand_def(AnyAttr())
    slice_sizes = operand_def(AnyAttr())
    dimension_numbers = prop_def(GatherDimensionNumbersAttr)
    indices_are_sorted = opt_prop_def(BoolAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _verify_gather(self, None)


@irdl_op_definition
class GetDimensionSizeOp(StablehloOp):
    """The size of one dimension, as a 0-d i32 tensor.

        %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    """

    name = "stablehlo.get_dimension_size"
    operand = operand_def(AnyAttr())
    dimension = prop_def(_I64)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$operand `,` `dim` `=` $dimension attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        dim = self.int_prop("dimension")
        if shape is not None and not 0 <= dim < len(shape):
            raise VerifyException(f"requires dimension attribute in range [0, {len(shape)}); found ({dim})")


@irdl_op_definition
class SetDimensionSizeOp(StablehloOp):
    """Sets the dynamic size of one dimension."""

    name = "stablehlo.set_dimension_size"
    operand = operand_def(AnyAttr())
    size = operand_def(AnyAttr())
    dimension = prop_def(_I64)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$operand `,` $size `,` `dim` `=` $dimension attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class ReshapeOp(StablehloOp):
    """The same elements in another static shape.

        %r = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
    """

    name = "stablehlo.reshape"
    operand = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        s, r = _shape(self.operand.type), _shape(self.result.type)
        if s is None or r is None or DYNAMIC in s or DYNAMIC in r:
            return
        if math.prod(s) != math.prod(r):
            raise VerifyException(
                f"number of output elements ({math.prod(r)}) doesn't match expected number of elements ({math.prod(s)})"
            )
        if _element(self.operand.type) != _element(self.result.type):
            raise VerifyException("requires the same element type for operand and result")


@irdl_op_definition
class DynamicReshapeOp(StablehloOp):
    """reshape to a shape given at run time."""

    name = "stablehlo.dynamic_reshape"
    operand = operand_def(AnyAttr())
    output_shape = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class ScatterOp(StablehloOp):
    """Combines ``updates`` into ``inputs`` at ``scatter_indices`` with ``update_computation``.

        %s = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<
               update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
               index_vector_dim = 1>}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %s = stablehlo.add %a, %b : tensor<f32>
          stablehlo.return %s : tensor<f32>
        }) : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
    """

    name = "stablehlo.scatter"
    inputs = var_operand_def(AnyAttr())
    scatter_indices = operand_def(AnyAttr())
    updates = var_operand_def(AnyAttr())
    scatter_dimension_numbers = prop_def(ScatterDimensionNumbersAttr)
    indices_are_sorted = opt_prop_def(BoolAttr)
    unique_indices = opt_prop_def(BoolAttr)
    update_computation = region_def("single_block")
    results_ = var_result_def(AnyAttr())
    irdl_options = (SameVariadicOperandSize(), ParsePropInAttrDict())
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        n = len(self.inputs)
        if n == 0 or len(self.updates) != n:
            raise VerifyException(f"Not all inputs have the same number of updates: {n} inputs, {len(self.updates)} updates")
        if list(self.result_types) != [v.type for v in self.inputs]:
            raise VerifyException("expects the result types to be the input types")
        d = self.scatter_dimension_numbers
        for name in ("update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims"):
            v = getattr(d, name)
            if list(v) != sorted(v) or len(set(v)) != len(v):
                raise VerifyException(f"Expects {name} to be sorted and unique, got: [{', '.join(map(str, v))}]")
        xs, ist = _shape(self.inputs[0].type), _shape(self.scatter_indices.type)
        if xs is not None and ist is not None:
            ivd = d.index_vector_dim
            if not 0 <= ivd <= len(ist):
                raise VerifyException(f"expects scatter index leaf dimension to be within [0, rank(scatter_indices) + 1. rank(scatter_indices) is {len(ist)} and scatter index leaf dimension is {ivd}.")
            size = ist[ivd] if ivd < len(ist) else 1
            if size != DYNAMIC and len(d.scatter_dims_to_operand_dims) != size:
                raise VerifyException(
                    f"Scatter op has {len(d.scatter_dims_to_operand_dims)} elements in scatter_dims_to_operand_dims and the bound of dimension index_vector_dim={ivd} of scatter_indices is {size}. These two numbers must be equal."
                )
            for m in (*d.scatter_dims_to_operand_dims, *d.inserted_window_dims):
                if not 0 <= m < len(xs):
                    raise VerifyException(f"Invalid scatter_dims_to_operand_dims mapping; domain is [0, {len(xs)}), got: {m}.")
            us = _shape(self.updates[0].type)
            if us is not None:
                want = len(ist) - (1 if ivd < len(ist) else 0) + len(d.update_window_dims)
                if len(us) != want:
                    raise VerifyException(f"expects updates tensor must be of rank {want} ( == rank-of('scatter_indices') - 1 + size-of('update_window_dims'), where 'scatter_indices' is expanded by a trailing 1 dimension if 'index_vector_dim' == rank-of('scatter_indices')), but got {len(us)}.")
        inits = [v.type for v in self.inputs]
        _verify_reducer(self, self.update_computation, inits, [TensorType(_element(t), []) for t in inits])


@irdl_op_definition
class ReverseOp(StablehloOp):
    """Reverses the order of elements along ``dimensions``.

        %r = stablehlo.reverse %x, dims = [0] : tensor<4x2xf32>
    """

    name = "stablehlo.reverse"
    operand = operand_def(AnyAttr())
    dimensions = prop_def(_DIMS)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$operand `,` `dims` `=` $dimensions attr-dict `:` custom<HloSameOperandsAndResultType>(type(operands), type(results))"
    custom_directives = _directives()

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        if shape is not None:
            _check_dims_unique_in_range(self.dims("dimensions"), len(shape), "dimensions")
        if self.operand.type != self.result.type:
            raise VerifyException("requires the same type for all operands and results")


@irdl_op_definition
class PadOp(StablehloOp):
    """Pads with ``padding_value`` at both ends (negative amounts cut) and between elements.

        %r = stablehlo.pad %x, %v, low = [1, 0], high = [0, 2], interior = [1, 0]
               : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x5xf32>
    """

    name = "stablehlo.pad"
    operand = operand_def(AnyAttr())
    padding_value = operand_def(AnyAttr())
    edge_padding_low = prop_def(_DIMS)
    edge_padding_high = prop_def(_DIMS)
    interior_padding = prop_def(_DIMS)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "$operand `,` $padding_value `,` `low` `=` $edge_padding_low `,` `high` `=` $edge_padding_high `,` "
        "`interior` `=` $interior_padding attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        lo, hi, interior = self.dims("edge_padding_low"), self.dims("edge_padding_high"), self.dims("interior_padding")
        if _shape(self.padding_value.type) not in ((), None):
            raise VerifyException(f"padding value type should be a rank-0 tensor, is rank {len(_shape(self.padding_value.type))}")
        if shape is None:
            return
        for name, v in (("edge_padding_low", lo), ("edge_padding_high", hi), ("interior_padding", interior)):
            if len(v) != len(shape):
                raise VerifyException(f"{name} length ({len(v)}) must match operand rank ({len(shape)})")
        expected = []
        for i, (d, l, h, p) in enumerate(zip(shape, lo, hi, interior, strict=True)):
            if p < 0:
                raise VerifyException(f"Interior padding cannot be negative: {p}")
            if d == DYNAMIC:
                expected.append(DYNAMIC)
                continue
            size = d + l + h + max(d - 1, 0) * p
            if size < 0:
                raise VerifyException(f"Padding result in negative size for dimension {i}")
            expected.append(size)
        rs = _shape(self.result.type)
        if rs is not None and not _shapes_compatible(rs, expected):
            raise VerifyException(
                f"inferred type(s) 'tensor<{'x'.join('?' if e == DYNAMIC else str(e) for e in expected)}x{_type_str(_element(self.operand.type))}>' are incompatible with return type(s) of operation '{_type_str(self.result.type)}'"
            )
        _verify_same_element_types(self, [self.operand.type, self.padding_value.type, self.result.type])


@irdl_op_definition
class DynamicPadOp(StablehloOp):
    """pad with the amounts given at run time."""

    name = "stablehlo.dynamic_pad"
    operand = operand_def(AnyAttr())
    padding_value = operand_def(AnyAttr())
    edge_padding_low = operand_def(AnyAttr())
    edge_padding_high = operand_def(AnyAttr())
    interior_padding = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class TransposeOp(StablehloOp):
    """Permutes dimensions: result dimension i is operand dimension ``permutation[i]``.

        %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    """

    name = "stablehlo.transpose"
    operand = operand_def(AnyAttr())
    permutation = prop_def(_DIMS)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$operand `,` `dims` `=` $permutation attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        perm = self.dims("permutation")
        if shape is None:
            return
        if len(perm) != len(shape):
            raise VerifyException(f"TransposeOp operand rank {len(shape)} does not match permutation size {len(perm)}")
        if sorted(perm) != list(range(len(shape))):
            raise VerifyException(f"permutation [{', '.join(map(str, perm))}] is not a permutation of [0, {len(shape)})")
        rs = _shape(self.result.type)
        expected = [shape[p] for p in perm]
        if rs is not None and not _shapes_compatible(rs, expected):
            raise VerifyException(
                f"inferred type(s) 'tensor<{'x'.join('?' if e == DYNAMIC else str(e) for e in expected)}x{_type_str(_element(self.operand.type))}>' are incompatible with return type(s) of operation '{_type_str(self.result.type)}'"
            )


@irdl_op_definition
class TriangularSolveOp(StablehloOp):
    """Solves op(a) x = b (``left_side``) or x op(a) = b with a triangular ``a``."""

    name = "stablehlo.triangular_solve"
    a = operand_def(AnyAttr())
    b = operand_def(AnyAttr())
    left_side = prop_def(BoolAttr)
    lower = prop_def(BoolAttr)
    unit_diagonal = prop_def(BoolAttr)
    transpose_a = prop_def(TransposeAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    def verify_(self) -> None:
        a, b = _shape(self.a.type), _shape(self.b.type)
        if a is None or b is None:
            return
        if len(a) < 2 or a[-1] != a[-2]:
            raise VerifyException(f"expects the minor dimensions of a to be square, got '{_type_str(self.a.type)}'")
        if len(b) != len(a):
            raise VerifyException(f"expects a and b to have the same rank, got {len(a)} and {len(b)}")
        k = b[-2] if self.bool_prop("left_side") else b[-1]
        if not _dim_ok(k, a[-1]):
            raise VerifyException(f"shared dimension of b ({k}) does not match the size of a ({a[-1]})")


@irdl_op_definition
class TorchIndexSelectOp(StablehloOp):
    """Selects slices by index along ``dim`` (an old op)."""

    name = "stablehlo.torch_index_select"
    operand = operand_def(AnyAttr())
    index = operand_def(AnyAttr())
    dim = prop_def(_I64)
    batch_dims = prop_def(_I64)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())


@irdl_op_definition
class OptimizationBarrierOp(StablehloOp):
    """Returns its operands; no optimization moves work across it.

        %x, %y = stablehlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<i32>
    """

    name = "stablehlo.optimization_barrier"
    operand = var_operand_def(AnyAttr())
    result = var_result_def(AnyAttr())
    assembly_format = "attr-dict custom<HloPairwiseOpType>($operand, type($operand), type($result))"
    custom_directives = _directives()

    def verify_(self) -> None:
        if list(_operand_types(self)) != list(self.result_types):
            raise VerifyException("requires the same type for all operands and results")


@irdl_op_definition
class RngOp(StablehloOp):
    """Random numbers of a distribution (implementation-defined; the lowering refuses it)."""

    name = "stablehlo.rng"
    a = operand_def(AnyAttr())
    b = operand_def(AnyAttr())
    shape = operand_def(AnyAttr())
    rng_distribution = prop_def(RngDistributionAttr)
    result = result_def(AnyAttr())
    assembly_format = (
        "$a `,` $b `,` $shape `,` `distribution` `=` custom<HloEnum>($rng_distribution) attr-dict `:` functional-type(operands, results)"
    )
    custom_directives = _directives()


@irdl_op_definition
class RngBitGeneratorOp(StablehloOp):
    """Random bits from a counter-based generator and its new state.

        %s, %bits = stablehlo.rng_bit_generator %state, algorithm = THREE_FRY
               : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
    """

    name = "stablehlo.rng_bit_generator"
    initial_state = operand_def(AnyAttr())
    rng_algorithm = prop_def(RngAlgorithmAttr)
    output_state = result_def(AnyAttr())
    output = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "$initial_state `,` `algorithm` `=` custom<HloEnum>($rng_algorithm) attr-dict `:` functional-type(operands, results)"
    )
    custom_directives = _directives()
    ASM_RESULT_NAMES: ClassVar = ("output_state", "output")

    def verify_(self) -> None:
        if self.initial_state.type != self.output_state.type:
            raise VerifyException(
                f"output state type '{_type_str(self.output_state.type)}' does not match initial state type '{_type_str(self.initial_state.type)}'"
            )


@irdl_op_definition
class ReducePrecisionOp(StablehloOp):
    """Rounds to a float format with fewer exponent and mantissa bits.

        %r = stablehlo.reduce_precision %x, format = e5m10 : tensor<4xf32>
    """

    name = "stablehlo.reduce_precision"
    operand = operand_def(AnyAttr())
    exponent_bits = prop_def(_I32)
    mantissa_bits = prop_def(_I32)
    output = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "$operand `,` `format` `=` custom<HloExponentMantissa>($exponent_bits, $mantissa_bits) attr-dict `:` "
        "custom<HloSameOperandsAndResultType>(type(operands), type(results))"
    )
    custom_directives = _directives()

    def verify_(self) -> None:
        if self.int_prop("exponent_bits") < 1:
            raise VerifyException("exponent_bits must be at least 1.")
        if self.int_prop("mantissa_bits") < 0:
            raise VerifyException("mantissa_bits must be non-negative.")


@irdl_op_definition
class DynamicConvOp(StablehloOp):
    """convolution with the padding given at run time."""

    name = "stablehlo.dynamic_conv"
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    d_padding = operand_def(AnyAttr())
    window_strides = opt_prop_def(_DIMS)
    lhs_dilation = opt_prop_def(_DIMS)
    rhs_dilation = opt_prop_def(_DIMS)
    window_reversal = opt_prop_def(_BOOLS)
    dimension_numbers = prop_def(ConvDimensionNumbersAttr)
    feature_group_count = prop_def(_I64)
    batch_group_count = prop_def(_I64)
    precision_config = opt_prop_def(ArrayAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())


STABLEHLO_OPS: list[type[IRDLOperation]] = [
    *UNARY_OPS, *BINARY_OPS,
    ConstantOp, IotaOp, DynamicIotaOp, CreateTokenOp, ReplicaIdOp, PartitionIdOp, AfterAllOp, InfeedOp, OutfeedOp,
    SendOp, RecvOp, AllGatherOp, AllReduceOp, ReduceScatterOp, AllToAllOp, CollectiveBroadcastOp, CollectiveReduceOp,
    CollectivePermuteOp, CrossReplicaSumOp, AsyncStartOp, AsyncDoneOp, ReturnOp, IfOp, CaseOp, WhileOp, ReduceOp,
    ReduceWindowOp, SelectAndScatterOp, MapOp, SortOp, TupleOp, GetTupleElementOp, CompareOp, SelectOp, ClampOp,
    SliceOp, DynamicSliceOp, DynamicUpdateSliceOp, RealDynamicSliceOp, BatchNormGradOp, BatchNormInferenceOp,
    BatchNormTrainingOp, BitcastConvertOp, BroadcastOp, BroadcastInDimOp, DynamicBroadcastInDimOp, CholeskyOp,
    ConcatenateOp, CompositeOp, ConvolutionOp, CustomCallOp, DotOp, DotGeneralOp, EinsumOp, UnaryEinsumOp, FftOp,
    GatherOp, DynamicGatherOp, GetDimensionSizeOp, SetDimensionSizeOp, ReshapeOp, DynamicReshapeOp, ScatterOp,
    ReverseOp, PadOp, DynamicPadOp, TransposeOp, TriangularSolveOp, TorchIndexSelectOp, OptimizationBarrierOp, RngOp,
    RngBitGeneratorOp, ReducePrecisionOp, DynamicConvOp,
]  # fmt: skip

Stablehlo = Dialect("stablehlo", STABLEHLO_OPS, ATTRIBUTES)

#: Shardy's attributes, which JAX attaches to ops and arguments (kept as text).
Sdy = Dialect("sdy", [], SDY_ATTRIBUTES)

#: The commutative binary ops (``HLO_Commutative``): what ``reduce ... applies`` may name.
COMMUTATIVE_BINARY = frozenset(
    f"stablehlo.{n}" for n in ("add", "multiply", "maximum", "minimum", "and", "or", "xor")
)


def _constant_result_names(self: ConstantOp) -> list[str]:
    """MLIR's names: ``%c`` for integer constants, ``%cst`` for the others."""
    t = self.output.type
    return ["c" if isinstance(_element(t), IntegerType) else "cst"]


ConstantOp.asm_result_names = _constant_result_names
