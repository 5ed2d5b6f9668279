"""``canonicalize``: folders, canonicalization patterns and region DCE."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.transforms.dead_code_elimination import region_dce


@dataclass(eq=False)
class _LocationKeeper(RewritePattern):
    """Runs ``inner`` and remembers the op it was applied to, so that ops a
    rewrite creates without a location inherit the location of the op they
    replace (xDSL leaves them at ``loc(unknown)``, MLIR keeps the source
    position, and BEF files and diagnostics need it)."""

    inner: RewritePattern
    current: Operation | None = field(default=None, init=False)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.current = op
        try:
            self.inner.match_and_rewrite(op, rewriter)
        finally:
            self.current = None

    def on_insert(self, new_op: Operation) -> None:
        source = self.current
        if source is None or isinstance(source.location, UnknownLoc):
            return
        for nested in new_op.walk():
            if isinstance(nested.location, UnknownLoc):
                nested.location = source.location


@dataclass(frozen=True)
class CanonicalizerPass(ModulePass):
    """Canonicalize the IR: fold ops, apply the patterns each op declares with
    xDSL's ``HasCanonicalizationPatternsTrait`` (for example
    ``tfrt.merge.chains`` of a single chain), erase unused side-effect-free
    ops and unreachable blocks, and repeat until nothing changes.

    Ops created by a fold or a pattern take the location of the op they
    replace.  Unlike MLIR, constants are neither hoisted to the entry block
    nor deduplicated; run ``cse`` afterwards for that.

    Example (``tfrt_opt -canonicalize``)::

        func.func @main(%ch: !tfrt.chain) -> (!tfrt.chain, !tfrt.chain) {
          %out = tfrt.merge.chains %ch : !tfrt.chain
          tfrt.return %out, %ch : !tfrt.chain, !tfrt.chain
        }

    becomes::

        func.func @main(%arg0: !tfrt.chain) -> (!tfrt.chain, !tfrt.chain) {
          tfrt.return %arg0, %arg0 : !tfrt.chain, !tfrt.chain
        }
    """

    name = "canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        keeper = _LocationKeeper(
            GreedyRewritePatternApplier(
                [CanonicalizationRewritePattern()], ctx=ctx, folding_enabled=True
            )
        )
        listener = PatternRewriterListener(operation_insertion_handler=[keeper.on_insert])
        PatternRewriteWalker(keeper, post_walk_func=region_dce, listener=listener).rewrite_module(op)
