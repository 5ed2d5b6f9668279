"""``lower-check``: IREE's ``check`` and ``util`` test ops -> ``tfrt_check`` kernels.

Each expectation becomes a ``tfrt_check`` kernel on a fresh chain, which
``insert-chains`` then threads through the function in program order (so
no pass drops, merges or reorders expectations); the ``*_const`` forms
compare with an ``arith.constant`` of their value, and ``atol``/``rtol``
are written out with IREE's defaults (``1e-4`` and ``0``).
``util.unfoldable_constant`` becomes an ``arith.constant`` behind a
``tfrt_check.barrier`` and ``util.optimization_barrier`` a barrier: later
passes see a value they cannot fold or look through.  It runs first, so
that the constants it makes are lowered with the others::

    %x = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
    check.expect_almost_eq_const(%x, dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
    // becomes
    %0 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %x = tfrt_check.barrier %0 : (tensor<2xf32>) -> tensor<2xf32>
    %1 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %c = tfrt.new.chain
    %c1 = tfrt_check.expect_almost_eq %c, %x, %1 {atol = 1.000000e-04 : f32, rtol = 0.000000e+00 : f32}
        : (!tfrt.chain, tensor<2xf32>, tensor<2xf32>) -> !tfrt.chain
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, FloatAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.dialects.tfrt import ChainType
from tfrt.dialects.syntax.verify import op_name
from tfrt.passes.lowering import cannot_lower, check_value_type, make_op, replace

DEFAULT_ATOL = 1.0e-4
DEFAULT_RTOL = 0.0

# check op -> (kernel, whether it compares with a constant)
_EXPECTATIONS = {
    "check.expect_true": ("tfrt_check.expect_true", False),
    "check.expect_false": ("tfrt_check.expect_false", False),
    "check.expect_all_true": ("tfrt_check.expect_all_true", False),
    "check.expect_eq": ("tfrt_check.expect_eq", False),
    "check.expect_eq_const": ("tfrt_check.expect_eq", True),
    "check.expect_almost_eq": ("tfrt_check.expect_almost_eq", False),
    "check.expect_almost_eq_const": ("tfrt_check.expect_almost_eq", True),
}


def _constant(value, at: Operation) -> Operation:
    return make_op("arith.constant", [], [value.get_type()], {"value": value}, at=at)


def _tolerance(op: Operation, name: str, default: float) -> FloatAttr:
    attr = op.properties.get(name) or op.attributes.get(name)
    return attr if isinstance(attr, FloatAttr) else FloatAttr(default, Float32Type())


def _lower_expectation(o: Operation) -> None:
    kernel, const = _EXPECTATIONS[o.name]
    before: list[Operation] = []
    operands: list[SSAValue] = list(o.operands)
    if const:
        c = _constant(o.properties["value"], o)
        before.append(c)
        operands.append(c.results[0])
    for v in operands:
        check_value_type(o, v.type)
    attrs = {}
    if kernel == "tfrt_check.expect_almost_eq":
        attrs = {"atol": _tolerance(o, "atol", DEFAULT_ATOL), "rtol": _tolerance(o, "rtol", DEFAULT_RTOL)}
    chain = make_op("tfrt.new.chain", [], [ChainType()], at=o)
    new = make_op(kernel, [chain.results[0], *operands], [ChainType()], attrs, at=o)
    replace(o, [*before, chain, new], [])


def _lower_barrier(o: Operation, inputs: list[SSAValue], before: list[Operation]) -> None:
    types = [check_value_type(o, v.type) for v in inputs]
    if not inputs:
        replace(o, before, [])
        return
    new = make_op("tfrt_check.barrier", inputs, types, at=o)
    replace(o, [*before, new], list(new.results))


@dataclass(frozen=True)
class LowerCheckPass(ModulePass):
    """Lower ``check`` expectations and ``util`` barriers (see the module docstring)."""

    name = "lower-check"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in walk(op):
            name = op_name(o)
            if name in _EXPECTATIONS:
                _lower_expectation(o)
            elif name == "util.unfoldable_constant":
                value = o.properties["value"]
                if not hasattr(value, "get_type"):
                    raise cannot_lower(o, f"the value {value} is not a typed constant")
                c = _constant(value, o)
                _lower_barrier(o, [c.results[0]], [c])
            elif name == "util.optimization_barrier":
                _lower_barrier(o, list(o.operands), [])
            elif name.startswith(("check.", "util.")):
                raise cannot_lower(o, "tfrt_check has no kernel for it")


LowerCheckPass.__doc__ = f"{LowerCheckPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
