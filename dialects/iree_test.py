"""IREE's test dialects: `check` (expectations) and `util` (compiler hints).

End-to-end tests written for IREE's ``iree-check-module`` compute a value and
compare it with an expectation; ``tfrt_check`` runs them.  The ops and their
syntax are IREE's (``Modules/Check/IR/CheckOps.td`` and ``Util/IR/UtilOps.td``
in IREE's compiler); ``lower-check`` lowers them to the ``tfrt_check``
kernels (``dialects/tfrt_check.py``).

Expectations (no results; a failing one is recorded and the test goes on,
as gtest's ``EXPECT_*`` does)::

    check.expect_true(%c) : i32                     // %c != 0
    check.expect_false(%c) : i32                    // %c == 0
    check.expect_all_true(%t) : tensor<2x2xi32>     // every element != 0
    check.expect_eq(%a, %b) : tensor<5xi32>         // same type, equal bits
    check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
    check.expect_almost_eq(%a, %b, atol 1.0e-02, rtol 1.0e-03) : tensor<5xf32>
    check.expect_almost_eq_const(%a, dense<1.0> : tensor<2xf32>) : tensor<2xf32>

``atol`` defaults to ``1.0e-04`` and ``rtol`` to ``0.0`` (IREE's defaults);
an element passes when ``a == b``, both are NaN, or ``b`` is finite and
``|a - b| <= atol + rtol * |b|`` (``b`` is the expected value).

Compiler hints::

    %c = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>   // a constant no pass folds
    %x, %y = util.optimization_barrier %a, %b : tensor<4xf32>, i32 // identity no pass sees through

Both have unknown side effects, so canonicalize, CSE and DCE keep them; they
lower to a constant behind a ``tfrt_check.barrier`` kernel, which returns
its operands at run time.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    AnyFloatConstr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.constraints import AnyAttr, ParamAttrConstraint, RangeOf, RangeVarConstraint, VarConstraint
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.base import RuntimeDialect, RuntimeOp, ops_of_module, runtime_op

#: IREE's defaults for ``atol`` and ``rtol`` (``CheckOps.td``).
DEFAULT_ATOL = 1.0e-4
DEFAULT_RTOL = 0.0


def _is_signless_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS


def _is_float(t: Attribute) -> bool:
    # (complex<f32> and complex<f64> compare part by part)
    if isinstance(t, ComplexType):
        return str(t.element_type) in ("f32", "f64")
    return AnyFloatConstr.verifies(t)


def _same_types(names: tuple[str, str], types: tuple[Attribute, Attribute]) -> None:
    if types[0] != types[1]:
        raise VerifyException(
            f"failed to verify that all of {{{names[0]}, {names[1]}}} have same type "
            f"('{types[0]}' vs '{types[1]}')"
        )


def _types_first(cls):
    """``runtime_op``, with the op's ``verify_types`` checked first: a type
    mismatch is then reported in MLIR's words (``failed to verify that all
    of {lhs, rhs} have same type``), not as a failed type variable."""
    cls = runtime_op(cls)
    checked = cls.verify_

    def verify_(self) -> None:
        self.verify_types()
        checked(self)

    cls.verify_ = verify_
    return cls


class _CheckOp(RuntimeOp):
    """Base of the `check` ops: expectations, lowered by ``lower-check``."""

    #: The element types the operand's tensor may have (IREE's ODS constraint).
    ELEMENTS: ClassVar[str] = "any"

    def verify_types(self) -> None:
        pass

    def verify_(self) -> None:
        self.verify_types()
        t = self.operands[0].type
        if self.ELEMENTS == "scalar-int":
            if not _is_signless_int(t):
                raise VerifyException(f"operand #0 must be signless integer, but got '{t}'")
            return
        if not isinstance(t, TensorType):
            raise VerifyException(f"operand #0 must be tensor, but got '{t}'")
        if self.ELEMENTS == "int" and not _is_signless_int(t.element_type):
            raise VerifyException(f"operand #0 must be tensor of signless integer values, but got '{t}'")
        if self.ELEMENTS == "float" and not _is_float(t.element_type):
            raise VerifyException(f"operand #0 must be tensor of floating-point values, but got '{t}'")


# --------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------


@runtime_op
class ExpectTrueOp(_CheckOp):
    """Expects a non-zero integer.

        check.expect_true(%c) : i32
    """

    name = "check.expect_true"
    ELEMENTS: ClassVar[str] = "scalar-int"
    operand = operand_def(AnyAttr())
    assembly_format = "`(` $operand `)` attr-dict `:` type($operand)"


@runtime_op
class ExpectFalseOp(_CheckOp):
    """Expects zero.

        check.expect_false(%c) : i32
    """

    name = "check.expect_false"
    ELEMENTS: ClassVar[str] = "scalar-int"
    operand = operand_def(AnyAttr())
    assembly_format = "`(` $operand `)` attr-dict `:` type($operand)"


@runtime_op
class ExpectAllTrueOp(_CheckOp):
    """Expects every element of an integer tensor to be non-zero.

        check.expect_all_true(%t) : tensor<2x2xi32>
    """

    name = "check.expect_all_true"
    ELEMENTS: ClassVar[str] = "int"
    operand = operand_def(AnyAttr())
    assembly_format = "`(` $operand `)` attr-dict `:` type($operand)"


class _PairExpectation(_CheckOp):
    """lhs and rhs (or lhs and the constant ``value``) have one type."""

    def verify_types(self) -> None:
        if len(self.operands) == 2:
            _same_types(("lhs", "rhs"), (self.operands[0].type, self.operands[1].type))
        elif len(self.operands) == 1 and isinstance(value := self.properties.get("value"), DenseIntOrFPElementsAttr):
            _same_types(("lhs", "value"), (self.operands[0].type, value.get_type()))


_EQ_T: Any = VarConstraint("T", AnyAttr())
_CONST_T: Any = VarConstraint("T", AnyAttr())
_ALMOST_T: Any = VarConstraint("T", AnyAttr())
_ALMOST_CONST_T: Any = VarConstraint("T", AnyAttr())

_TOLERANCES = "(`,` `atol` $atol^)? (`,` `rtol` $rtol^)?"


@_types_first
class ExpectEqOp(_PairExpectation):
    """Expects two tensors (or scalars) of one type to be bitwise equal.

        check.expect_eq(%a, %b) : tensor<5xi32>
    """

    name = "check.expect_eq"
    _T: ClassVar = _EQ_T
    lhs = operand_def(_EQ_T)
    rhs = operand_def(_EQ_T)
    assembly_format = "`(` $lhs `,` $rhs `)` attr-dict `:` type($lhs)"


@_types_first
class ExpectEqConstOp(_PairExpectation):
    """Expects a tensor to equal a constant of its type.

        check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
    """

    name = "check.expect_eq_const"
    _T: ClassVar = _CONST_T
    lhs = operand_def(_CONST_T)
    value = prop_def(DenseIntOrFPElementsAttr)
    assembly_format = "`(` $lhs `,` $value `)` attr-dict `:` type($lhs)"


@_types_first
class ExpectAlmostEqOp(_PairExpectation):
    """Expects two float tensors to agree within ``atol + rtol * |rhs|``.

        check.expect_almost_eq(%a, %b, atol 1.0e-02, rtol 1.0e-03) : tensor<5xf32>
    """

    name = "check.expect_almost_eq"
    ELEMENTS: ClassVar[str] = "float"
    _T: ClassVar = _ALMOST_T
    lhs = operand_def(_ALMOST_T)
    rhs = operand_def(_ALMOST_T)
    atol = opt_prop_def(FloatAttr[Float32Type])
    rtol = opt_prop_def(FloatAttr[Float32Type])
    assembly_format = f"`(` $lhs `,` $rhs {_TOLERANCES} `)` attr-dict `:` type($lhs)"


@_types_first
class ExpectAlmostEqConstOp(_PairExpectation):
    """Expects a float tensor to agree with a constant within ``atol + rtol * |value|``.

        check.expect_almost_eq_const(%a, dense<[1.0, 2.0]> : tensor<2xf32>, atol 1.0e-02) : tensor<2xf32>
    """

    name = "check.expect_almost_eq_const"
    ELEMENTS: ClassVar[str] = "float"
    _T: ClassVar = _ALMOST_CONST_T
    lhs = operand_def(_ALMOST_CONST_T)
    value = prop_def(DenseIntOrFPElementsAttr)
    atol = opt_prop_def(FloatAttr[Float32Type])
    rtol = opt_prop_def(FloatAttr[Float32Type])
    assembly_format = f"`(` $lhs `,` $value {_TOLERANCES} `)` attr-dict `:` type($lhs)"


def tolerances(op: RuntimeOp) -> tuple[float, float]:
    """``(atol, rtol)`` of an almost-eq expectation, with IREE's defaults."""
    atol = op.properties.get("atol")
    rtol = op.properties.get("rtol")
    return (
        DEFAULT_ATOL if atol is None else atol.value.data,
        DEFAULT_RTOL if rtol is None else rtol.value.data,
    )


CHECK_OPS = [ExpectTrueOp, ExpectFalseOp, ExpectAllTrueOp, ExpectEqOp, ExpectEqConstOp,
             ExpectAlmostEqOp, ExpectAlmostEqConstOp]  # fmt: skip
CHECK = RuntimeDialect("check", CHECK_OPS, [])


# --------------------------------------------------------------------------
# util
# --------------------------------------------------------------------------

_UC_T: Any = VarConstraint("T", AnyAttr())
_BARRIER_T: Any = RangeVarConstraint("T", RangeOf(AnyAttr()))


@_types_first
class UnfoldableConstantOp(RuntimeOp):
    """A constant that no pass folds: it has unknown side effects and no folder.

        %c = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
        %n = util.unfoldable_constant 3 : i32
    """

    name = "util.unfoldable_constant"
    _T: ClassVar = _UC_T
    value = prop_def(
        IntegerAttr.constr(type=_UC_T)  # type: ignore[attr-defined]
        | ParamAttrConstraint(FloatAttr, (AnyAttr(), _UC_T))
        | ParamAttrConstraint(DenseIntOrFPElementsAttr, (_UC_T, AnyAttr()))
    )
    result = result_def(_UC_T)

    def verify_types(self) -> None:
        value = self.properties.get("value")
        if not hasattr(value, "get_type") or len(self.results) != 1:
            return
        if value.get_type() != self.results[0].type:
            raise VerifyException(
                f"value of type '{value.get_type()}' does not match the result type '{self.results[0].type}'"
            )

    # IREE prints `attr-dict $value`; an attribute dictionary after the value
    # keeps the grammar LALR(1) (a value may itself start with `{`).
    assembly_format = "$value attr-dict"


@runtime_op
class OptimizationBarrierOp(RuntimeOp):
    """Returns its operands; no pass sees through it (unknown side effects).

        %x, %n = util.optimization_barrier %a, %b : tensor<4xf32>, i32
    """

    name = "util.optimization_barrier"
    operands_ = var_operand_def(_BARRIER_T)
    results_ = var_result_def(_BARRIER_T)
    assembly_format = "attr-dict ($operands_^ `:` type($operands_))?"

    def verify_(self) -> None:
        ins = [v.type for v in self.operands]
        outs = [r.type for r in self.results]
        if ins != outs:
            raise VerifyException("failed to verify that all of {operands, results} have same type")


UTIL_OPS = [UnfoldableConstantOp, OptimizationBarrierOp]
UTIL = RuntimeDialect("util", UTIL_OPS, [])

assert set(ops_of_module(globals(), __name__)) == {*CHECK_OPS, *UTIL_OPS}
