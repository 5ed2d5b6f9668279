"""The ``chlo`` dialect: the client ops JAX emits beside StableHLO.

Names, fields and custom forms are CHLO's (``ChloOps.td``), as JAX prints
them::

    %e = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
    %n = chlo.next_after %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %v, %i = chlo.top_k(%x, k = 3) : tensor<2x6xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
    %s = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 1>}
           : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>

Unary ops keep the operand's shape; the ``broadcast_*`` ops broadcast their
operands numpy-style (or along ``broadcast_dimensions``).  The lowering
expands them into StableHLO semantics; this module only defines, reads,
prints and verifies them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, IntegerAttr, TensorType, i1, i64
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Attribute, Dialect, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.stablehlo_attrs import (
    DYNAMIC,
    ComparisonDirection,
    ComparisonType,
    Precision,
    _StructAttr,
    _with_properties,
)


@irdl_attr_definition
class ChloComparisonDirectionAttr(EnumAttribute[ComparisonDirection], SpacedOpaqueSyntaxAttribute):
    """``#chlo<comparison_direction LT>``"""

    name = "chlo.comparison_direction"


@irdl_attr_definition
class ChloComparisonTypeAttr(EnumAttribute[ComparisonType], SpacedOpaqueSyntaxAttribute):
    """``#chlo<comparison_type FLOAT>``"""

    name = "chlo.comparison_type"


@irdl_attr_definition
class ChloPrecisionAttr(EnumAttribute[Precision], SpacedOpaqueSyntaxAttribute):
    """``#chlo<precision DEFAULT>``"""

    name = "chlo.precision"


@_with_properties
@irdl_attr_definition
class RaggedDotDimensionNumbersAttr(_StructAttr):
    """``#chlo.ragged_dot<lhs_batching_dimensions = [0], ..., lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>``"""

    name = "chlo.ragged_dot"
    FIELDS: ClassVar = (
        ("lhs_batching_dimensions", "dims"),
        ("rhs_batching_dimensions", "dims"),
        ("lhs_contracting_dimensions", "dims"),
        ("rhs_contracting_dimensions", "dims"),
        ("lhs_ragged_dimensions", "dims"),
        ("rhs_group_dimensions", "dims"),
    )


_DIMS = DenseArrayBase.constr(i64)


def _shape(t: Attribute):
    return tuple(t.get_shape()) if isinstance(t, TensorType) else None


def _type_str(t: Attribute) -> str:
    from tfrt.dialects.printer import _type_text

    return _type_text(t)


class ChloOp(IRDLOperation):
    """Base of the ``chlo`` ops."""

    irdl_options = (ParsePropInAttrDict(),)


def _unary_verify(self) -> None:
    a, r = _shape(self.operand.type), _shape(self.result.type)
    if a is not None and r is not None and (
        len(a) != len(r) or any(x != y and DYNAMIC not in (x, y) for x, y in zip(a, r, strict=True))
    ):
        raise VerifyException("requires the same shape for all operands and results")


def _cls(name: str, base: type, body: dict[str, Any]) -> type[IRDLOperation]:
    cls_name = "".join(p.capitalize() for p in name.strip("_").split("_")) + "Op"
    body = {"__module__": __name__, "__qualname__": cls_name, **body}
    return irdl_op_definition(type(cls_name, (base,), body))


def _unary(name: str, doc: str) -> type[IRDLOperation]:
    return _cls(name, ChloOp, {
        "__doc__": f"{doc}\n\n    %r = chlo.{name} %x : tensor<4xf32> -> tensor<4xf32>",
        "name": f"chlo.{name}",
        "operand": operand_def(AnyAttr()),
        "result": result_def(AnyAttr()),
        "traits": traits_def(Pure()),
        "assembly_format": "$operand attr-dict `:` type($operand) `->` type($result)",
        "verify_": _unary_verify,
    })  # fmt: skip


UNARY_DOCS = {
    "acos": "Arc cosine.", "acosh": "Inverse hyperbolic cosine.", "asin": "Arc sine.",
    "asinh": "Inverse hyperbolic sine.", "atan": "Arc tangent.", "atanh": "Inverse hyperbolic tangent.",
    "bessel_i1e": "Exponentially scaled modified Bessel function of order 1.", "conj": "Complex conjugate.",
    "cosh": "Hyperbolic cosine.", "sinh": "Hyperbolic sine.", "tan": "Tangent.", "digamma": "Digamma (psi).",
    "erf": "Error function.", "erf_inv": "Inverse error function.", "erfc": "Complementary error function.",
    "is_inf": "Whether each element is +-inf (i1 result).", "is_neg_inf": "Whether each element is -inf.",
    "is_pos_inf": "Whether each element is +inf.", "lgamma": "log |Gamma(x)|.", "square": "x * x.",
    "_asin_acos_kernel": "The kernel shared by asin and acos on complex numbers.",
}  # fmt: skip
UNARY_OPS = {name: _unary(name, doc) for name, doc in UNARY_DOCS.items()}


def _broadcast_verify(self) -> None:
    dims = self.properties.get("broadcast_dimensions")
    if dims is None:
        return
    values = [int(v) for v in dims.get_values()]
    r = _shape(self.results[0].type)
    if r is not None and any(not 0 <= d < len(r) for d in values):
        raise VerifyException(f"broadcast_dimensions {values} out of range for result rank {len(r)}")


def _broadcast(name: str, doc: str, extra: dict[str, Any] | None = None) -> type[IRDLOperation]:
    body: dict[str, Any] = {
        "__doc__": f"{doc} with numpy-style (or ``broadcast_dimensions``) broadcasting.\n\n"
        f"    %r = chlo.{name} %a, %b : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>",
        "name": f"chlo.{name}",
        "lhs": operand_def(AnyAttr()),
        "rhs": operand_def(AnyAttr()),
        "broadcast_dimensions": opt_prop_def(_DIMS),
        "result": result_def(AnyAttr()),
        "traits": traits_def(Pure()),
        "assembly_format": "$lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type(results)",
        "verify_": _broadcast_verify,
    }
    body.update(extra or {})
    return _cls(name, ChloOp, body)


BROADCAST_DOCS = {
    "broadcast_add": "lhs + rhs", "broadcast_atan2": "atan2(lhs, rhs)", "broadcast_divide": "lhs / rhs",
    "broadcast_maximum": "max(lhs, rhs)", "broadcast_minimum": "min(lhs, rhs)", "broadcast_multiply": "lhs * rhs",
    "broadcast_next_after": "nextafter(lhs, rhs)", "broadcast_polygamma": "polygamma(lhs, rhs)",
    "broadcast_power": "lhs ** rhs", "broadcast_remainder": "remainder(lhs, rhs)",
    "broadcast_shift_left": "lhs << rhs", "broadcast_shift_right_arithmetic": "lhs >> rhs (arithmetic)",
    "broadcast_shift_right_logical": "lhs >> rhs (logical)", "broadcast_subtract": "lhs - rhs",
    "broadcast_zeta": "zeta(lhs, rhs)", "broadcast_and": "lhs and rhs", "broadcast_or": "lhs or rhs",
    "broadcast_xor": "lhs xor rhs", "broadcast_complex": "complex(lhs, rhs)",
}  # fmt: skip
BROADCAST_OPS = {name: _broadcast(name, doc) for name, doc in BROADCAST_DOCS.items()}
BROADCAST_OPS["broadcast_compare"] = _broadcast(
    "broadcast_compare",
    "Comparison",
    {"comparison_direction": prop_def(ChloComparisonDirectionAttr), "compare_type": opt_prop_def(ChloComparisonTypeAttr)},
)


def _binary(name: str, a: str, b: str, doc: str) -> type[IRDLOperation]:
    return _cls(name, ChloOp, {
        "__doc__": f"{doc}\n\n    %r = chlo.{name} %{a}, %{b} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>",
        "name": f"chlo.{name}",
        a: operand_def(AnyAttr()),
        b: operand_def(AnyAttr()),
        "result": result_def(AnyAttr()),
        "traits": traits_def(Pure()),
        "assembly_format": f"${a} `,` ${b} attr-dict `:` type(${a}) `,` type(${b}) `->` type(results)",
    })  # fmt: skip


NextAfterOp = _binary("next_after", "x", "y", "The next float after x toward y.")
PolygammaOp = _binary("polygamma", "n", "x", "Polygamma function of order n.")
ZetaOp = _binary("zeta", "x", "q", "Hurwitz zeta function.")
MulhiOp = _binary("mulhi", "lhs", "rhs", "The high half of the full integer product.")


@irdl_op_definition
class BroadcastSelectOp(ChloOp):
    """``pred ? on_true : on_false`` with broadcasting.

        %r = chlo.broadcast_select %p, %a, %b : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    """

    name = "chlo.broadcast_select"
    pred = operand_def(AnyAttr())
    on_true = operand_def(AnyAttr())
    on_false = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "$pred `,` $on_true `,` $on_false attr-dict `:` `(` type($pred) `,` type($on_true) `,` type($on_false) `)` `->` type(results)"
    )


@irdl_op_definition
class ConstantOp(ChloOp):
    """A constant (CHLO's; the same as stablehlo.constant).

        %c = chlo.constant dense<1.0> : tensor<f32>
    """

    name = "chlo.constant"
    value = prop_def(AnyAttr())
    output = result_def(AnyAttr())
    traits = traits_def(Pure())


@irdl_op_definition
class ConstantLikeOp(ChloOp):
    """A splat of ``value`` with the shape of ``operand``.

        %c = "chlo.constant_like"(%x) <{value = 1.0 : f32}> : (tensor<?xf32>) -> tensor<?xf32>
    """

    name = "chlo.constant_like"
    value = prop_def(AnyAttr())
    operand = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())


@irdl_op_definition
class TopKOp(ChloOp):
    """The ``k`` largest elements along the last dimension, and their indices.

        %v, %i = chlo.top_k(%x, k = 3) : tensor<2x6xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
    """

    name = "chlo.top_k"
    operand = operand_def(AnyAttr())
    k = prop_def(IntegerAttr.constr(type=i64))
    is_stable = opt_prop_def(BoolAttr)
    values = result_def(AnyAttr())
    indices = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = (
        "`(` $operand `,` `k` `=` $k (`,` `is_stable` `=` $is_stable^)? `)` attr-dict `:` type($operand) `->` "
        "`(` type($values) `,` type($indices) `)`"
    )
    ASM_RESULT_NAMES: ClassVar = ("values", "indices")

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        k = int(self.k.value.data)
        if shape is None:
            return
        if not shape:
            raise VerifyException("operand's rank must be at least 1")
        if shape[-1] != DYNAMIC and shape[-1] < k:
            raise VerifyException(f"operand's last dimension must be at least {k}")


@irdl_op_definition
class RaggedDotOp(ChloOp):
    """A dot product whose ``lhs_ragged_dimensions`` are split into groups of ``group_sizes``."""

    name = "chlo.ragged_dot"
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    group_sizes = operand_def(AnyAttr())
    ragged_dot_dimension_numbers = prop_def(RaggedDotDimensionNumbersAttr)
    precision_config = opt_prop_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())


@irdl_op_definition
class ScanOp(ChloOp):
    """A scan over ``dimension`` (parse and verify only)."""

    name = "chlo.scan"
    inputs = var_operand_def(AnyAttr())
    inits = var_operand_def(AnyAttr())
    dimension = prop_def(IntegerAttr.constr(type=i64))
    outputs = var_result_def(AnyAttr())
    carries = var_result_def(AnyAttr())
    irdl_options = (
        AttrSizedOperandSegments(as_property=True),
        AttrSizedResultSegments(as_property=True),
        ParsePropInAttrDict(),
    )


CHLO_OPS: list[type[IRDLOperation]] = [
    *UNARY_OPS.values(), *BROADCAST_OPS.values(), NextAfterOp, PolygammaOp, ZetaOp, MulhiOp, BroadcastSelectOp,
    ConstantOp, ConstantLikeOp, TopKOp, RaggedDotOp,
]  # fmt: skip

Chlo = Dialect(
    "chlo",
    CHLO_OPS,
    [ChloComparisonDirectionAttr, ChloComparisonTypeAttr, ChloPrecisionAttr, RaggedDotDimensionNumbersAttr],
)

_unused = (i1,)
