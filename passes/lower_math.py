"""``lower-math``: math ops -> ``tfrt_scalar.eval`` (scalars) and ``tfrt_array.elementwise`` (tensors).

Each op becomes one kernel whose expression is the op::

    %y = math.tanh %x : tensor<4xf32>
    // becomes
    %y = tfrt_array.elementwise %x {expr = "tanh(a0)", inplace = -1 : i64, shape = [4],
                                    types = "f32"} : (tensor<4xf32>) -> tensor<4xf32>

``erf`` on f64 is ``math.erf``; on f16, f32 and the types computed in f32,
piecewise polynomials evaluated in f64 (relative error below 1e-11, so the
result is within an ulp).  ``fma`` rounds once, ``round`` computes the
fraction exactly, ``fpowi`` takes its sign from the integer exponent's
parity (``tfrt/kernels/expr.py``).  Ops inside ``linalg`` bodies are left
to ``lower-linalg``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tfrt.passes.lower_arith import lower_dialect


@dataclass(frozen=True)
class LowerMathPass(ModulePass):
    """Lower math ops to ``tfrt_scalar`` / ``tfrt_array`` kernels (see the module docstring)."""

    name = "lower-math"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_dialect(op, "math.")


LowerMathPass.__doc__ = f"{LowerMathPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
