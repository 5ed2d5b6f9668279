"""``canonicalize``: folders, canonicalization patterns and region DCE."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.traits import ConstantLike, IsolatedFromAbove
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
    replace.  As in MLIR, constants (ops with the ``ConstantLike`` trait) are
    then moved to the start of the entry block of their function (the
    nearest region isolated from above), in the order they first appear,
    and equal ones (same op, attributes and types) are merged into the
    first.

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
        hoist_constants(op)


def _constant_key(op: Operation):
    """Ops with equal keys compute the same value."""
    return (
        op.name,
        tuple(sorted(op.properties.items())),
        tuple(sorted(op.attributes.items())),
        tuple(op.result_types),
    )


def _is_hoistable(op: Operation) -> bool:
    return (
        op.has_trait(ConstantLike)
        and not op.operands
        and not op.regions
        and not op.successors
        and bool(op.results)
    )


def _ops_in(region: Region):
    """The ops of ``region`` and of nested regions that are not isolated."""
    for block in region.blocks:
        for op in list(block.ops):
            yield op
            if op.regions and not op.has_trait(IsolatedFromAbove):
                for nested in op.regions:
                    yield from _ops_in(nested)


def _hoist_in(region: Region) -> None:
    entry: Block | None = region.first_block
    if entry is None:
        return
    seen: dict[object, Operation] = {}
    last: Operation | None = None  # the last constant placed at the start
    for op in list(_ops_in(region)):
        if not _is_hoistable(op):
            continue
        try:
            key = _constant_key(op)
            first = seen.get(key)
        except TypeError:  # an attribute that cannot be hashed: leave it be
            continue
        if first is not None:
            for old, new in zip(op.results, first.results, strict=True):
                old.replace_all_uses_with(new)
            op.detach()
            op.erase()
            continue
        seen[key] = op
        if op.parent is not entry or (op is not entry.first_op and op.prev_op is not last):
            op.detach()
            if last is None:
                if entry.first_op is None:
                    entry.add_op(op)
                else:
                    entry.insert_op_before(op, entry.first_op)
            else:
                entry.insert_op_after(op, last)
        last = op


def hoist_constants(root: Operation) -> None:
    """Move constants to the start of their isolated region and merge equal ones."""
    for op in list(root.walk()):
        if op is root or op.has_trait(IsolatedFromAbove):
            for region in op.regions:
                _hoist_in(region)
