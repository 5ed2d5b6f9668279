"""Kernels of the `tfrt_scalar` dialect (``dialects/tfrt_scalar.py``).

Scalars are numpy scalars of their MLIR type (``numpy.int32`` for ``i32``,
``numpy.bool_`` for ``i1``...), so integer arithmetic wraps at its width and
f32 arithmetic rounds to single precision.  ``tfrt_scalar.eval`` evaluates an
expression of the elementwise language (``tfrt.kernels.expr``), compiled once
per expression and operand types.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfrt.kernels.expr import DTYPES, compile_scalar
from tfrt.kernels.registry import CHAIN, KernelError, kernel, write_text

_COMPILED: dict[tuple[str, str], Any] = {}


@kernel("tfrt_scalar.eval", attrs=("str", "str"))
def eval_(expr, types, *inputs):
    """``expr`` over the operands, read as numpy scalars of ``types``."""
    fn = _COMPILED.get((expr, types))
    if fn is None:
        fn = _COMPILED[(expr, types)] = compile_scalar(expr, tuple(t for t in types.split(",") if t))
    return fn(*inputs)


@kernel("tfrt_scalar.trip_count", attrs=("i1",))
def trip_count(unsigned, lb, ub, step):
    """The iterations of ``scf.for %i = lb to ub step step``: max(0,
    ceil((ub - lb) / step)) computed exactly (the bounds' type would wrap
    ub - lb: i32 -2e9 to 2e9 is 4e9 apart), read unsigned for ``scf.for
    unsigned``.  A step that is not positive, or more iterations than
    ``tfrt.repeat.i32`` counts (2^31 - 1), is an error, never a wrong count."""
    width = 8 * np.asarray(lb).dtype.itemsize
    lo, hi, s = (int(v) for v in (lb, ub, step))
    if unsigned:
        lo, hi, s = (v % (1 << width) for v in (lo, hi, s))
    if s <= 0:
        raise KernelError(f"scf.for step must be positive, got {s}")
    n = max(0, -((lo - hi) // s))
    if n > 2**31 - 1:
        raise KernelError(f"scf.for runs {n} iterations, more than 2^31 - 1 (tfrt.repeat.i32 counts in i32)")
    return np.int32(n)


def _constant_kernel(type_name: str) -> None:
    from tfrt.tensor.small_types import convert, is_small_float

    dtype = DTYPES[type_name]
    scalar_type = dtype.type
    if is_small_float(dtype):

        def constant(value):
            return convert(np.float64(value), dtype)  # BEF holds the exact value
    else:

        def constant(value):
            return scalar_type(value)

    constant.__name__ = f"constant_{type_name}"
    constant.__doc__ = f"A constant {type_name} (a numpy scalar)."
    kernel(f"tfrt_scalar.constant.{type_name}", attrs=(type_name,))(constant)


# The scalar types (dialects/tfrt_array.py SCALAR_TYPES): signless integers and floats.
for _t in DTYPES:
    if not _t.startswith(("si", "ui", "complex")):
        _constant_kernel(_t)


def format_value(v: Any) -> str:
    """A scalar as Python prints it (``0.25``, ``3``; an i1 as ``1``/``0``, as
    MLIR prints it); an array as numpy does."""
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if not isinstance(v, np.ndarray) and hasattr(v, "__cuda_array_interface__"):
        v = v.get()
    if isinstance(v, np.ndarray):
        return np.array2string(v, separator=", ", threshold=64)
    if isinstance(v, np.floating):
        return repr(float(v)) if v.dtype == np.float64 else str(v)
    return str(v)


@kernel("tfrt_scalar.print", attrs=("str",))
def print_(fmt, chain, *inputs):
    """Writes ``fmt`` with each ``{}`` replaced by the next operand; returns a chain."""
    pieces = fmt.split("{}")
    if len(pieces) != len(inputs) + 1:
        raise KernelError(f"format has {len(pieces) - 1} '{{}}' placeholders for {len(inputs)} values")
    out = [pieces[0]]
    for value, piece in zip(inputs, pieces[1:]):
        out.append(format_value(value))
        out.append(piece)
    write_text("".join(out))
    return CHAIN
