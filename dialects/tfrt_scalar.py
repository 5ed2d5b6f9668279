"""The `tfrt_scalar` dialect: the compiler's scalar kernels.

``arith`` and ``math`` on scalars lower to ``tfrt_scalar.eval``, which
evaluates an expression of the elementwise language (docs/compiler.md) over
its operands; ``types`` lists the operands' types, which the kernel uses to
read Python numbers as numpy scalars of that width.  Constants are
``tfrt_scalar.constant.<type>``, one kernel per type as TFRT names its basic
kernels.  At run time a scalar is a numpy scalar (``numpy.int32``,
``numpy.float32``, ``numpy.bool_``...)::

    %c = tfrt_scalar.constant.i32 1
    %n = tfrt_scalar.eval %i, %c {expr = "a0 + a1", types = "i32,i32"} : (i32, i32) -> i32

``tfrt_scalar.print`` writes ``format`` with each ``{}`` replaced by the next
operand (as ``printf.print_format`` does; no newline is added) and takes and
returns a ``!tfrt.chain`` so that prints stay in program order
(``insert-chains`` threads the chain).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, StringAttr
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.constraints import AnyAttr
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.base import RuntimeDialect, RuntimeOp, define_op, ops_of_module
from tfrt.dialects.tfrt import ChainType
from tfrt.dialects.tfrt_array import SCALAR_TYPES, element_type_name


class _EvalBase(RuntimeOp):
    def verify_(self) -> None:
        from tfrt.kernels import expr as ex

        types = tuple(t for t in self.properties["types"].data.split(",") if t)
        actual = tuple(element_type_name(v.type) for v in self.operands)
        if types != actual:
            raise VerifyException(
                f"attribute 'types' is \"{','.join(types)}\" but the operands are \"{','.join(actual)}\""
            )
        try:
            out = ex.check(self.properties["expr"].data, types)
        except ex.ExprError as exc:
            raise VerifyException(str(exc)) from None
        if out != element_type_name(self.results[0].type):
            raise VerifyException(f"the expression computes {out} but the result type is {self.results[0].type}")


EvalOp = define_op(
    __name__,
    "EvalOp",
    "Evaluates `expr` over scalar operands of `types`.\n\n"
    '    %s = tfrt_scalar.eval %a, %b {expr = "a0 * a1", types = "f32,f32"} : (f32, f32) -> f32\n',
    {
        "name": "tfrt_scalar.eval",
        "inputs": var_operand_def(AnyAttr()),
        "expr": prop_def(StringAttr),
        "types": prop_def(StringAttr),
        "result": result_def(AnyAttr()),
        "traits": traits_def(Pure()),
        "assembly_format": "operands attr-dict `:` functional-type(operands, results)",
    },
    _EvalBase,
)


TripCountOp = define_op(
    __name__,
    "TripCountOp",
    "The iteration count of `scf.for` from its bounds and step: max(0, ceil((ub - lb) / step)),\n"
    "exact (signed, or unsigned with `unsigned = true`); a step that is not positive or a count\n"
    "past 2^31 - 1 is an error at run time.\n\n"
    "    %n = tfrt_scalar.trip_count %lb, %ub, %step {unsigned = false} : (i64, i64, i64) -> i32\n",
    {
        "name": "tfrt_scalar.trip_count",
        "lb": operand_def(AnyAttr()),
        "ub": operand_def(AnyAttr()),
        "step": operand_def(AnyAttr()),
        "unsigned": prop_def(IntegerAttr),
        "result": result_def(IntegerType(32)),
        "traits": traits_def(Pure()),
        "assembly_format": "operands attr-dict `:` functional-type(operands, results)",
    },
)


def _constant(type_name: str) -> type[IRDLOperation]:
    from tfrt.dialects.syntax.attributes import float_type

    is_float = type_name[0] in "bf"
    t = float_type(type_name) if is_float else IntegerType(int(type_name[1:]))
    constr = FloatAttr.constr(t) if is_float else IntegerAttr.constr(t)  # type: ignore[attr-defined]
    cls_name = f"Constant{type_name.upper()}Op"
    return define_op(
        __name__,
        cls_name,
        f"A constant {type_name}.\n\n    %c = tfrt_scalar.constant.{type_name} "
        f"{'1.5' if is_float else '1'}\n",
        {
            "name": f"tfrt_scalar.constant.{type_name}",
            "value": prop_def(constr),
            "result": result_def(t),
            "traits": traits_def(Pure()),
            "assembly_format": "$value attr-dict",
        },
    )


CONSTANT_OPS = {t: _constant(t) for t in SCALAR_TYPES}
globals().update({cls.__name__: cls for cls in CONSTANT_OPS.values()})


def _verify_print(self) -> None:
    holes = self.properties["format"].data.count("{}")
    if holes != len(self.operands) - 1:
        raise VerifyException(
            f"format has {holes} '{{}}' placeholders for {len(self.operands) - 1} values"
        )


PrintOp = define_op(
    __name__,
    "PrintOp",
    "Writes `format` with each `{}` replaced by the next operand (scalar or tensor); ordered by its chain.\n\n"
    '    %ch1 = tfrt_scalar.print %ch0, %loss {format = "loss {}\\n"} : (!tfrt.chain, f32) -> !tfrt.chain\n',
    {
        "name": "tfrt_scalar.print",
        "chain": operand_def(ChainType),
        "inputs": var_operand_def(AnyAttr()),
        "format": prop_def(StringAttr),
        "result": result_def(ChainType),
        "verify_": _verify_print,
        "assembly_format": "operands attr-dict `:` functional-type(operands, results)",
    },
)

TFRT_SCALAR_OPS = ops_of_module(globals(), __name__)
TFRT_SCALAR = RuntimeDialect("tfrt_scalar", TFRT_SCALAR_OPS, [])
