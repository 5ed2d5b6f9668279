"""``lower-mylib``: a sample lowering pass for a made-up dialect, ``mylib``.

``mylib`` has two activation functions on tensors, written in MLIR's generic
op form (no Python code defines the dialect: the ops are unregistered)::

    %y = "mylib.softplus"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %z = "mylib.gelu"(%x) : (tensor<4xf32>) -> tensor<4xf32>

(An op no dialect defines is held by xDSL as ``builtin.unregistered``;
``tfrt.passes.op_name`` gives its written name.)  The pass rewrites each into standard ``math``/``arith`` ops on the same
tensors, which the compiler's default pipeline then lowers and fuses:

    softplus(x) = log1p(exp(x))
    gelu(x)     = 0.5 * x * (1 + erf(x / sqrt(2)))
    gelu(x)     = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))   with {gelu=tanh}

Use it from one file, or installed as a package (its ``tfrt.passes`` entry
point)::

    tfrt_compile model.mlir --load-pass-plugin mylib_passes.py --preprocess=lower-mylib -o model.bef
    pip install ./samples/lowering_pass
    tfrt_compile model.mlir --preprocess=lower-mylib -o model.bef

docs/writing_passes.md walks through this file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from tfrt.diagnostics import Diagnostic, DiagnosticError
from tfrt.passes import op_error, op_name


def _splat(value: float, t: TensorType) -> arith.ConstantOp:
    """``arith.constant dense<value> : t``: a scalar broadcast to the tensor's shape."""
    return arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [value]))


def _unary_tensor(op: Operation) -> tuple[SSAValue, TensorType]:
    """The operand of a one-operand, one-result op on a float tensor; a clear
    error at the op otherwise."""
    if len(op.operands) != 1 or len(op.results) != 1:
        raise op_error(op, "takes one operand and returns one result")
    x = op.operands[0]
    if not isinstance(x.type, TensorType) or x.type != op.results[0].type:
        raise op_error(op, f"maps a tensor to a tensor of the same type, got {x.type}")
    return x, x.type


class SoftplusPattern(RewritePattern):
    """``mylib.softplus(x)`` -> ``math.log1p(math.exp(x))``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op_name(op) != "mylib.softplus":
            return
        x, _ = _unary_tensor(op)
        e = mathd.ExpOp(x)
        y = mathd.Log1pOp(e.result)
        rewriter.replace_matched_op([e, y], [y.result])


class GeluPattern(RewritePattern):
    """``mylib.gelu(x)`` -> ``0.5 * x * (1 + erf(x * (1/sqrt(2))))``, or with
    ``tanh=True`` the tanh approximation."""

    def __init__(self, tanh: bool = False):
        self.tanh = tanh

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op_name(op) != "mylib.gelu":
            return
        x, t = _unary_tensor(op)
        one, half = _splat(1.0, t), _splat(0.5, t)
        ops: list[Operation] = [one, half]
        if self.tanh:  # tanh(sqrt(2/pi) * (x + 0.044715 * x^3))
            c, k = _splat(math.sqrt(2 / math.pi), t), _splat(0.044715, t)
            x2 = arith.MulfOp(x, x)
            x3 = arith.MulfOp(x2.result, x)
            kx3 = arith.MulfOp(x3.result, k.result)
            inner = arith.AddfOp(x, kx3.result)
            scaled = arith.MulfOp(inner.result, c.result)
            act = mathd.TanhOp(scaled.result)
            ops += [c, k, x2, x3, kx3, inner, scaled, act]
        else:  # erf(x / sqrt(2))
            inv_sqrt2 = _splat(1 / math.sqrt(2), t)
            scaled = arith.MulfOp(x, inv_sqrt2.result)
            act = mathd.ErfOp(scaled.result)
            ops += [inv_sqrt2, scaled, act]
        plus1 = arith.AddfOp(act.result, one.result)
        halfx = arith.MulfOp(x, half.result)
        y = arith.MulfOp(halfx.result, plus1.result)
        rewriter.replace_matched_op([*ops, plus1, halfx, y], [y.result])


@dataclass(frozen=True)
class LowerMylibPass(ModulePass):
    """Rewrite mylib.softplus and mylib.gelu into math/arith ops (see the module docstring)."""

    name = "lower-mylib"

    # Pass options are dataclass fields: lower-mylib{gelu=tanh}
    gelu: str = "erf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.gelu not in ("erf", "tanh"):
            raise DiagnosticError(Diagnostic("error", f"lower-mylib: gelu={self.gelu}: expected erf or tanh"))
        patterns = [SoftplusPattern(), GeluPattern(tanh=self.gelu == "tanh")]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
        for o in op.walk():
            if op_name(o).startswith("mylib."):
                raise op_error(o, "is not part of mylib (lower-mylib knows softplus and gelu)")
