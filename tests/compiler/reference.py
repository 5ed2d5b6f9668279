"""The reference side of the differential tests: xDSL's interpreter.

``run_reference(text, name, args)`` parses a high-level module with our
frontend and runs function ``name`` with xDSL's own interpreter (its
implementations of func, arith, math, scf, tensor and linalg), which shares no
code with our lowering or kernels.  Arguments and results are numpy arrays
(tensors) or Python scalars.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, ModuleOp, TensorType
from xdsl.interpreter import Interpreter
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.dialects import arith, linalg
from xdsl.dialects.linalg import ops as linalg_ops
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.interpreters.linalg import LinalgFunctions, run_linalg_structured_op
from xdsl.interpreters.math import MathFunctions
from xdsl.interpreters.printf import PrintfFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.tensor import TensorFunctions
from xdsl.interpreters.utils.ptr import TypedPtr

from tfrt.dialects.syntax import parse_module

_NEW = {
    (Float32Type, 32): TypedPtr.new_float32,
    (Float64Type, 64): TypedPtr.new_float64,
    (IntegerType, 32): TypedPtr.new_int32,
    (IntegerType, 64): TypedPtr.new_int64,
}


def _to_interp(value, t):
    if not isinstance(t, TensorType):
        return value.item() if isinstance(value, np.generic) else value
    el = t.element_type
    width = el.width.data if isinstance(el, IntegerType) else el.bitwidth
    new = _NEW[(type(el), width)]
    arr = np.asarray(value)
    return ShapedArray(new(arr.ravel().tolist()), list(arr.shape))


def _from_interp(value, t):
    if isinstance(value, ShapedArray):
        dtype = {
            (Float32Type, 32): np.float32,
            (Float64Type, 64): np.float64,
            (IntegerType, 32): np.int32,
            (IntegerType, 64): np.int64,
        }
        el = t.element_type
        width = el.width.data if isinstance(el, IntegerType) else el.bitwidth
        return np.array(value.data, dtype=dtype[(type(el), width)]).reshape(value.shape)
    return value


@register_impls
class _FillAsStructuredOp(InterpreterFunctions):
    """xDSL's fill wants a shaped operand and a zero destination; MLIR's fill
    takes a scalar and any destination, which its structured-op form gives."""

    @impl(linalg_ops.FillOp)
    def run_fill(self, interpreter, op, args):
        return run_linalg_structured_op(interpreter, op, args)


@register_impls
class _IntegerMinMax(InterpreterFunctions):
    """arith.maxsi/minsi, which xDSL's interpreter lacks (signed: Python ints)."""

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interpreter, op, args):
        return (max(args[0], args[1]),)

    @impl(arith.MinSIOp)
    def run_minsi(self, interpreter, op, args):
        return (min(args[0], args[1]),)


def _named_ops() -> InterpreterFunctions:
    """The compiler's named linalg ops (tfrt.dialects.linalg_named defines them
    in place of xDSL's classes; the interpreter finds implementations by
    class): each runs as the structured op its maps and body say."""
    from tfrt.dialects.linalg_named import OPS, sync_body

    def run(self, interpreter, op, args):
        sync_body(op)
        return run_linalg_structured_op(interpreter, op, args)

    impls = {f"run_{i}": impl(cls)(run) for i, cls in enumerate(OPS.values())}
    return register_impls(type("_NamedOps", (InterpreterFunctions,), impls))()


def _tensor_ops() -> InterpreterFunctions:
    """xDSL's tensor implementations for the classes of tfrt.dialects.tensor,
    which replace xDSL's (with the same names and fields)."""
    from tfrt.dialects.tensor import Tensor

    def delegate(fn):
        def run(self, interpreter, op, args):
            return fn(self, interpreter, op, args).values

        return run

    ours = {cls.name: cls for cls in Tensor.operations}
    impls = {
        f"run_{i}": impl(ours[cls.name])(delegate(fn))
        for i, (cls, fn) in enumerate(TensorFunctions._impls())
        if cls.name in ours
    }
    return register_impls(type("_TensorOps", (InterpreterFunctions,), impls))()


def _arith_ops() -> InterpreterFunctions:
    """xDSL's arith implementations for the classes of tfrt.dialects.arith
    that replace xDSL's (cmpi, cmpf and the casts, with the same names)."""
    from tfrt.dialects.arith import Arith

    def delegate(fn):
        def run(self, interpreter, op, args):
            return fn(self, interpreter, op, args).values

        return run

    ours = {cls.name: cls for cls in Arith.operations}
    impls = {
        f"run_{i}": impl(ours[cls.name])(delegate(fn))
        for i, (cls, fn) in enumerate(ArithFunctions._impls())
        if cls.name in ours and ours[cls.name] is not cls
    }
    return register_impls(type("_ArithOps", (InterpreterFunctions,), impls))()


def run_reference(text: str, name: str, args, out=None) -> list:
    """Run ``name`` in xDSL's interpreter; ``printf.print_format`` writes to ``out``."""
    module: ModuleOp = parse_module(text, "ref.mlir")
    interp = Interpreter(module, file=out)
    for functions in (
        ArithFunctions(),
        BuiltinFunctions(),
        FuncFunctions(),
        LinalgFunctions(),
        MathFunctions(),
        PrintfFunctions(),
        ScfFunctions(),
        TensorFunctions(),
    ):
        interp.register_implementations(functions)
    interp.register_implementations(_FillAsStructuredOp(), override=True)
    interp.register_implementations(_named_ops(), override=True)
    interp.register_implementations(_tensor_ops(), override=True)
    interp.register_implementations(_arith_ops(), override=True)
    interp.register_implementations(_IntegerMinMax())
    fn = next(op for op in module.ops if getattr(op, "sym_name", None) and op.sym_name.data == name)
    ftype = fn.function_type
    inputs = tuple(_to_interp(a, t) for a, t in zip(args, ftype.inputs.data))
    results = interp.call_op(name, inputs)
    return [_from_interp(r, t) for r, t in zip(results, ftype.outputs.data)]
