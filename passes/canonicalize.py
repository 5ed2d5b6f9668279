"""``canonicalize``: folders, canonicalization patterns and region DCE."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.folder import Folder
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.utils.worklist import _MISSING
from xdsl.transforms.canonicalization_patterns.arith import (
    FoldConstConstOp,
    FoldConstsByReassociation,
)

from tfrt.dialects.fastir import walk
from tfrt.passes.dce import region_dce
from tfrt.passes.effects import class_facts, facts, is_trivially_dead


@dataclass(eq=False)
class _Canonicalize(RewritePattern):
    """What xDSL's ``GreedyRewritePatternApplier([CanonicalizationRewritePattern()],
    folding_enabled=True)`` does to an op (erase it if trivially dead, else
    fold it, else apply its canonicalization patterns), with the trait
    questions answered per op class.

    It also remembers the op it works on, so that ops a rewrite creates
    without a location inherit the location of the op they replace (xDSL
    leaves them at ``loc(unknown)``, MLIR keeps the source position, and BEF
    files and diagnostics need it)."""

    ctx: Context
    current: Operation | None = field(default=None, init=False)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.current = op
        try:
            if is_trivially_dead(op):
                rewriter.erase(op)
                return
            f = facts(op)
            # Constants are not folded: they would fold to themselves forever.
            if f.has_folder and not f.constant_or_unknown:
                folded = Folder(self.ctx).try_fold(op)
                if folded is not None:
                    values, ops = folded
                    rewriter.replace(op, new_ops=ops, new_results=values)
                    return
            if f.has_patterns:
                # As xDSL's CanonicalizationRewritePattern: the first pattern
                # that acts wins.
                for pattern in _patterns(type(op)):
                    needs = _NEEDS.get(type(pattern))
                    if needs is not None and not needs(op):
                        continue  # it could not act on this op
                    pattern.match_and_rewrite(op, rewriter)
                    if rewriter.has_done_action:
                        return
        finally:
            self.current = None

    def on_insert(self, new_op: Operation) -> None:
        source = self.current
        if source is None or isinstance(source.location, UnknownLoc):
            return
        for nested in new_op.walk():
            if isinstance(nested.location, UnknownLoc):
                nested.location = source.location


_PATTERNS: dict[type, tuple[RewritePattern, ...]] = {}


def _has_constant_operand(op: Operation) -> bool:
    for v in op._operands:  # noqa: SLF001 - no view object per op
        if isinstance(v.owner, arith.ConstantOp):
            return True
    return False


# Patterns that can only act on ops that satisfy a cheap test: theirs first
# looks for an `arith.constant` operand (through accessors that cost more
# than the test).  Every arith.addf/mulf of a program meets them.
_NEEDS = {
    FoldConstConstOp: _has_constant_operand,
    FoldConstsByReassociation: _has_constant_operand,
}


def _patterns(cls: type[Operation]) -> tuple[RewritePattern, ...]:
    """The canonicalization patterns of an op class (its traits build new
    pattern objects on every call; patterns hold no state)."""
    found = _PATTERNS.get(cls)
    if found is None:
        found = _PATTERNS[cls] = tuple(
            p for t in cls.get_traits_of_type(HasCanonicalizationPatternsTrait)
            for p in t.get_patterns(cls) if type(p) not in _LEFT_OUT
        )  # fmt: skip
    return found


# xDSL's folding of two float constants computes in Python's f64 and stores
# the result unrounded in the type (bf16), or fails on an overflow (f32
# 3e38 * 10, "float too large to pack"); fold-constants folds them later
# with the run-time kernels, bit for bit.
_LEFT_OUT = frozenset({FoldConstConstOp})


def _may_rewrite(op: Operation) -> bool:
    """Could :class:`_Canonicalize` change ``op`` at all?"""
    tests = _REWRITE_TESTS.get(type(op))
    if tests is None:
        tests = _rewrite_tests(type(op))
    if tests is True:
        return True
    for needs in tests:
        if needs(op):
            return True
    return is_trivially_dead(op)


def _rewrite_tests(cls: type[Operation]):
    """True when a folder or a pattern may act on any op of ``cls``, else the
    distinct tests one of its patterns needs to pass to act at all."""
    f = class_facts(cls)
    tests: object
    if f.has_folder and not f.constant_or_unknown:
        tests = True
    else:
        needs = [_NEEDS.get(type(p)) for p in _patterns(cls)] if f.has_patterns else []
        tests = True if None in needs else tuple(dict.fromkeys(needs))
    _REWRITE_TESTS[cls] = tests
    return tests


_REWRITE_TESTS: dict[type, object] = {}


@dataclass(eq=False, repr=False)
class _Walker(PatternRewriteWalker):
    """xDSL's walker, which skips the ops nothing can rewrite before it sets
    up a rewriter for them (most ops of a program)."""

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        worklist = self._worklist
        if not isinstance(op, Region) or worklist:
            super()._populate_worklist(op)
            return
        # xDSL pushes the region's ops in reverse pre-order (a stack: they pop
        # in pre-order); the same list, built without generators.
        ops: list[Operation] = []
        block = op.first_block
        while block is not None:
            top = block.first_op
            while top is not None:
                ops.extend(walk(top))
                top = top.next_op
            block = block.next_block
        ops.reverse()
        worklist._stack = ops  # noqa: SLF001 - an empty worklist, filled at once
        worklist._map = {o: i for i, o in enumerate(ops)}  # noqa: SLF001

    def _process_worklist(self, listener: PatternRewriterListener) -> bool:
        done = False
        # Worklist.pop, inlined: the stack's end, skipping removed entries.
        stack = self._worklist._stack  # noqa: SLF001
        index = self._worklist._map  # noqa: SLF001
        rewriter: PatternRewriter | None = None
        while stack:
            op = stack.pop()
            if op is _MISSING:
                continue
            del index[op]
            if not _may_rewrite(op):
                continue
            if rewriter is None:
                rewriter = PatternRewriter(op)
                rewriter.extend_from_listener(listener)
            rewriter.has_done_action = False
            rewriter.current_operation = op
            rewriter.insertion_point = InsertPoint.before(op)
            rewriter.name_hint = None
            try:
                self.pattern.match_and_rewrite(op, rewriter)
            except Exception as err:  # noqa: BLE001 - as xDSL's walker reports it
                op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
            done |= rewriter.has_done_action
        return done


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
        pattern = _Canonicalize(ctx)
        listener = PatternRewriterListener(operation_insertion_handler=[pattern.on_insert])
        _Walker(pattern, post_walk_func=region_dce, listener=listener).rewrite_module(op)
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
        facts(op).constant_or_unknown
        and not op._operands  # noqa: SLF001 - no view object per op
        and not op.regions
        and not op._successors  # noqa: SLF001
        and bool(op.results)
    )


def _ops_in(region: Region, out: list[Operation], isolated: list[Operation]) -> None:
    """Append to ``out`` the ops of ``region`` and of its nested regions that
    are not isolated from above; the isolated ops go to ``isolated`` too."""
    for block in region.blocks:
        op = block.first_op
        while op is not None:
            out.append(op)
            if op.regions:
                if facts(op).isolated_or_unknown:
                    isolated.append(op)
                else:
                    for nested in op.regions:
                        _ops_in(nested, out, isolated)
            op = op.next_op


def _hoist_in(region: Region, isolated: list[Operation]) -> None:
    entry: Block | None = region.first_block
    if entry is None:
        return
    ops: list[Operation] = []
    _ops_in(region, ops, isolated)
    seen: dict[object, Operation] = {}
    last: Operation | None = None  # the last constant placed at the start
    for op in ops:
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
    # The regions of `root` and of every op isolated from above (found while
    # collecting the ops of the enclosing one); they hold disjoint sets of ops.
    todo = [root]
    while todo:
        op = todo.pop()
        for region in op.regions:
            _hoist_in(region, todo)
