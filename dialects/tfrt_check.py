"""The `tfrt_check` dialect: the kernels ``check`` and ``util`` lower to.

``lower-check`` turns IREE's test ops (``dialects/iree_test.py``) into these
kernels (``tfrt/kernels/tfrt_check.py``).  An expectation takes a
``!tfrt.chain`` and returns the next one, so ``insert-chains`` keeps the
expectations of a function in program order and no pass drops or merges
them; a failed expectation is recorded and the chain goes on (gtest's
``EXPECT_*``: the test continues)::

    %c1 = tfrt_check.expect_eq %c0, %a, %b : (!tfrt.chain, tensor<2xi32>, tensor<2xi32>) -> !tfrt.chain
    %c2 = tfrt_check.expect_almost_eq %c1, %x, %y {atol = 1.000000e-04 : f32, rtol = 0.000000e+00 : f32}
        : (!tfrt.chain, tensor<4xf32>, tensor<4xf32>) -> !tfrt.chain

``tfrt_check.barrier`` returns its operands unchanged.  Passes know nothing
of it (no traits: unknown effects), so a value behind it is not a constant
to them: ``util.unfoldable_constant`` and ``util.optimization_barrier`` become
one::

    %x, %n = tfrt_check.barrier %a, %b : (tensor<4xf32>, i32) -> (tensor<4xf32>, i32)
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import Float32Type, FloatAttr
from xdsl.irdl import operand_def, prop_def, result_def, var_operand_def, var_result_def
from xdsl.irdl.constraints import AnyAttr, RangeOf, RangeVarConstraint
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.base import RuntimeDialect, RuntimeOp, ops_of_module, runtime_op
from tfrt.dialects.tfrt import ChainType

_FORMAT = "operands attr-dict `:` functional-type(operands, results)"


class _Expectation(RuntimeOp):
    """``%out = tfrt_check.<kind> %chain, %values...``: records a failure, never fails."""


@runtime_op
class ExpectTrueOp(_Expectation):
    """Expects a non-zero integer.

        %c1 = tfrt_check.expect_true %c0, %x : (!tfrt.chain, i32) -> !tfrt.chain
    """

    name = "tfrt_check.expect_true"
    chain = operand_def(ChainType)
    operand = operand_def(AnyAttr())
    result = result_def(ChainType)
    assembly_format = _FORMAT


@runtime_op
class ExpectFalseOp(_Expectation):
    """Expects zero.

        %c1 = tfrt_check.expect_false %c0, %x : (!tfrt.chain, i32) -> !tfrt.chain
    """

    name = "tfrt_check.expect_false"
    chain = operand_def(ChainType)
    operand = operand_def(AnyAttr())
    result = result_def(ChainType)
    assembly_format = _FORMAT


@runtime_op
class ExpectAllTrueOp(_Expectation):
    """Expects every element of an integer tensor to be non-zero.

        %c1 = tfrt_check.expect_all_true %c0, %t : (!tfrt.chain, tensor<4xi1>) -> !tfrt.chain
    """

    name = "tfrt_check.expect_all_true"
    chain = operand_def(ChainType)
    operand = operand_def(AnyAttr())
    result = result_def(ChainType)
    assembly_format = _FORMAT


@runtime_op
class ExpectEqOp(_Expectation):
    """Expects ``lhs`` (the value computed) to equal ``rhs`` (the value expected), bit for bit.

        %c1 = tfrt_check.expect_eq %c0, %a, %b : (!tfrt.chain, tensor<2xi32>, tensor<2xi32>) -> !tfrt.chain
    """

    name = "tfrt_check.expect_eq"
    chain = operand_def(ChainType)
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(ChainType)
    assembly_format = _FORMAT


@runtime_op
class ExpectAlmostEqOp(_Expectation):
    """Expects ``lhs`` within ``atol + rtol * |rhs|`` of ``rhs``, element by element.

        %c1 = tfrt_check.expect_almost_eq %c0, %a, %b {atol = 1.000000e-04 : f32, rtol = 0.000000e+00 : f32}
            : (!tfrt.chain, tensor<2xf32>, tensor<2xf32>) -> !tfrt.chain
    """

    name = "tfrt_check.expect_almost_eq"
    chain = operand_def(ChainType)
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    atol = prop_def(FloatAttr[Float32Type])
    rtol = prop_def(FloatAttr[Float32Type])
    result = result_def(ChainType)
    assembly_format = _FORMAT


_BARRIER_T: Any = RangeVarConstraint("T", RangeOf(AnyAttr()))


@runtime_op
class BarrierOp(RuntimeOp):
    """Returns its operands; a wall for the optimizer, free at run time.

        %x = tfrt_check.barrier %a : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "tfrt_check.barrier"
    inputs = var_operand_def(_BARRIER_T)
    outputs = var_result_def(_BARRIER_T)
    assembly_format = _FORMAT

    def verify_(self) -> None:
        if [v.type for v in self.operands] != [r.type for r in self.results]:
            raise VerifyException("the results must have the operands' types")


EXPECTATIONS = frozenset(op.name for op in (ExpectTrueOp, ExpectFalseOp, ExpectAllTrueOp, ExpectEqOp,
                                            ExpectAlmostEqOp))  # fmt: skip

TFRT_CHECK_OPS = ops_of_module(globals(), __name__)
TFRT_CHECK = RuntimeDialect("tfrt_check", TFRT_CHECK_OPS, [])
