"""Stream analysis: which kernels of a block run one after the other.

A *stream* is a sequence of ops that the executor runs inline, one after the
other, on one thread; ops of other streams are handed to the work queue.
``StreamAnalysis(block)`` computes each op's stream id and the stream tree
exactly as TFRT's ``StreamAnalysis`` (``lib/compiler/stream_analysis.cc``)
does, because the ids are written into BEF kernel tables and tests compare
them:

1. *Forward pass* (block order): each op's cost is its ``_tfrt_cost`` (ops
   with the `AttrCostTrait`), 1 for ``tfrt.return`` / ``func.return`` /
   ``tfrt.merge.chains`` and for the root (the function entry), otherwise the
   cost threshold.  Its parent is the defining op of an operand with the
   highest cost from the root (the first on ties); block arguments and ops
   without operands hang off the root.  That makes a tree of the block.
2. *Backward pass* (reverse block order, then the root): an op without
   scheduled users starts a new stream.  Otherwise child streams that have
   data dependencies on each other are merged first (option
   ``tfrt.merge_inter_dependent_streams``), then cheap child streams are
   merged until each is just above the threshold; the op joins the child
   stream that holds the return, or else the most expensive one.
3. Stream ids are the creation indices of the surviving streams, so the
   return's stream, made first, is stream 0, the root stream.

Options come from the enclosing ``func.func``'s attributes, then from the
nearest ``builtin.module``'s: ``tfrt.cost_threshold`` (integer; absent or
<= 0 means "the highest cost from the root", and then ops without a cost
count 1 while the tree is built, as in TFRT) and
``tfrt.merge_inter_dependent_streams`` (bool).

Two places where TFRT's order depends on C++ containers:

* the streams chosen for an inter-dependent merge are visited in the order
  of an ``llvm::SmallDenseSet<int>`` holding them, which
  `_llvm_dense_int_set_order` reproduces;
* an op's non-scheduled data users (TFRT's ``side_uses``, a set of
  pointers) are visited here in block order.  TFRT's order follows pointer
  hashes; it only decides the order of dependency lists that end up in such
  an integer set again, so the ids agree.

``PrintStreamPass`` (``tfrt_opt -tfrt-print-stream``) reports the result as
remarks, the way TFRT's test pass does.
"""

from __future__ import annotations

import functools

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    UnregisteredAttr,
    UnregisteredOp,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult
from xdsl.passes import ModulePass

from tfrt.dialects.base import AttrCostTrait
from tfrt.diagnostics import Diagnostic, SourceLoc

COST_THRESHOLD_ATTR = "tfrt.cost_threshold"
MERGE_INTER_DEPENDENT_STREAMS_ATTR = "tfrt.merge_inter_dependent_streams"

# Ops TFRT knows to be cheap (cost 1), and the ones that end a function.
RETURN_OPS = frozenset({"tfrt.return", "func.return"})
CHEAP_OPS = RETURN_OPS | {"tfrt.merge.chains"}

# The function entry (TFRT's `kRootOperation`, a null Operation*).
ROOT = None

CostModel = Callable[[Operation], "int | None"]


def _name(op: Operation) -> str:
    name = op.name
    if name == "builtin.unregistered" and isinstance(op, UnregisteredOp):
        return op.op_name.data
    return name


def _is_chain(t: Attribute) -> bool:
    # By name, so that IR parsed without the tfrt dialect (unregistered
    # `!tfrt.chain`) is analysed as the registered type is.
    if isinstance(t, UnregisteredAttr):
        return t.attr_name.data == "tfrt.chain"
    return getattr(t, "name", None) == "tfrt.chain"


def default_cost(op: Operation) -> int | None:
    """TFRT's default cost model: the cost an op declares through the
    `AttrCostTrait` (``_tfrt_cost``), or None.  A non-positive cost (only
    possible in unverified IR) counts as none.  The kernels the compiler
    emits (``tfrt_scalar``, ``tfrt_array``) declare none; they are costed by
    :func:`estimated_cost`."""
    if not _has_cost_trait(type(op)):
        name = _name(op)
        if name.startswith(ESTIMATED_DIALECTS):
            return estimated_cost(op)
        return None
    cost = AttrCostTrait.cost(op)
    return cost if cost is not None and cost > 0 else None


@functools.cache
def _has_cost_trait(cls: type) -> bool:
    return cls.has_trait(AttrCostTrait, value_if_unregistered=False)


# Dialects of the compiler's kernels, whose cost is estimated from types.
ESTIMATED_DIALECTS = ("tfrt_scalar.", "tfrt_array.")
# Array ops that only make a view or a constant: cost 1.
_VIEW_OPS = frozenset({"tfrt_array.constant", "tfrt_array.extract", "tfrt_array.reshape",
                       "tfrt_array.expand_shape", "tfrt_array.collapse_shape"})  # fmt: skip


def _elements(t: Attribute) -> int:
    shape = getattr(t, "shape", None)
    if shape is None:
        return 1
    n = 1
    for d in shape.data:
        n *= max(int(getattr(d, "data", d)), 1)
    return n


def estimated_cost(op: Operation) -> int:
    """About the number of element operations a compiled kernel does: 1 for
    scalar kernels and views, the result elements for elementwise work, times
    the contraction size for ``matmul`` and ``conv2d`` (the first operand's
    last dimension, and the filter's spatial size for convolutions)."""
    name = _name(op)
    if name.startswith("tfrt_scalar.") or name in _VIEW_OPS:
        return 1
    out = sum(_elements(r.type) for r in op.results) or 1
    if name in ("tfrt_array.matmul", "tfrt_array.conv2d") and op.operands:
        shape = getattr(op.operands[0].type, "shape", None)
        if shape is not None and shape.data:
            out *= max(int(getattr(shape.data[-1], "data", 1)), 1)
        if name == "tfrt_array.conv2d" and len(op.operands) > 1:
            fshape = getattr(op.operands[1].type, "shape", None)
            if fshape is not None and len(fshape.data) == 4:
                out *= max(int(fshape.data[0].data) * int(fshape.data[1].data), 1)
    else:
        out = max(out, sum(_elements(o.type) for o in op.operands))
    return max(out, 1)


def _option(block: Block, name: str) -> Attribute | None:
    """The function's attribute ``name``, else the enclosing module's."""
    parent = block.parent_op()
    if parent is None:
        return None
    if isinstance(parent, FuncOp):
        attr = parent.attributes.get(name)
        if attr is None:
            attr = parent.properties.get(name)
        if attr is not None:
            return attr
    module = parent.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is None:
        return None
    return module.attributes.get(name)


def cost_threshold_option(block: Block) -> int:
    """``tfrt.cost_threshold`` for ``block``, or -1 when it has none."""
    attr = _option(block, COST_THRESHOLD_ATTR)
    if not isinstance(attr, IntegerAttr):
        return -1
    return attr.value.data


def merge_inter_dependent_streams_option(block: Block) -> bool:
    """``tfrt.merge_inter_dependent_streams`` for ``block`` (a bool attribute)."""
    attr = _option(block, MERGE_INTER_DEPENDENT_STREAMS_ATTR)
    if not isinstance(attr, IntegerAttr):
        return False
    if not (isinstance(attr.type, IntegerType) and attr.type.width.data == 1):
        return False
    return attr.value.data != 0


def _llvm_dense_int_set_order(values: Iterable[int], inline_buckets: int = 2) -> list[int]:
    """The iteration order of an ``llvm::SmallDenseSet<int, inline_buckets>``
    after inserting ``values`` in order (no erasures).

    LLVM hashes an int as ``value * 37``, probes quadratically, grows when
    3/4 full (a small set grows straight to 64 buckets) and iterates in
    bucket order.
    """

    def slot(buckets: list[int | None], value: int) -> int:
        mask = len(buckets) - 1
        index = (value * 37) & 0xFFFFFFFF & mask
        probe = 1
        while buckets[index] is not None and buckets[index] != value:
            index = (index + probe) & mask
            probe += 1
        return index

    def grown(buckets: list[int | None], at_least: int) -> list[int | None]:
        if at_least > inline_buckets:
            at_least = max(64, 1 << (at_least - 1).bit_length())
        new: list[int | None] = [None] * at_least
        for value in buckets:
            if value is not None:
                new[slot(new, value)] = value
        return new

    buckets: list[int | None] = [None] * inline_buckets
    count = 0
    for value in values:
        index = slot(buckets, value)
        if buckets[index] == value:
            continue
        size = len(buckets)
        if (count + 1) * 4 >= size * 3:
            buckets = grown(buckets, size * 2)
            index = slot(buckets, value)
        elif size - (count + 1) <= size // 8:
            buckets = grown(buckets, size)
            index = slot(buckets, value)
        buckets[index] = value
        count += 1
    return [value for value in buckets if value is not None]


@dataclass(eq=False)
class Stream:
    """One stream of the final tree.

    ``ops`` are in block order (the root pseudo-op is not among them);
    ``parent_op`` is the op of the parent stream whose completion starts this
    stream (`ROOT`, None, for the function entry); ``child_streams`` maps an
    op of this stream (or `ROOT`) to the streams it starts, in the order
    their first ops appear in the block.
    """

    id: int
    cost: int
    parent_id: int
    parent_op: Operation | None
    ops: list[Operation] = field(default_factory=list)
    child_streams: dict[Operation | None, list["Stream"]] = field(default_factory=dict)

    def child_streams_of(self, op: Operation | None) -> list["Stream"]:
        """The streams that ``op`` (an op of this stream, or `ROOT`) starts."""
        return self.child_streams.get(op, [])

    def __repr__(self) -> str:
        return (
            f"Stream(id={self.id}, cost={self.cost}, parent_id={self.parent_id},"
            f" ops={len(self.ops)})"
        )


@dataclass(eq=False)
class _OpInfo:
    cost: int
    stream_id: int = -1
    cost_from_root: int = 0
    scheduled_users: list[Operation] = field(default_factory=list)
    side_uses: dict[Operation, None] = field(default_factory=dict)  # an ordered set


@dataclass(eq=False)
class _StreamInfo:
    cost: int = 0
    parent_op: Operation | None = None
    merge_to: int = -1
    side_deps: dict[int, None] = field(default_factory=dict)  # an ordered set
    contains_return: bool = False


class StreamAnalysis:
    """The streams of one block (a function body or an op's region).

        analysis = StreamAnalysis(func_op.body.block)
        analysis.stream_of(op).id          # the op's stream id
        analysis.root_stream               # the entry's stream, holds the return

    ``cost_model(op)`` returns an op's cost or None (then the threshold is
    used); it defaults to `default_cost`.
    """

    def __init__(self, block: Block, cost_model: CostModel | None = None):
        self.block = block
        self._cost_model = cost_model or default_cost
        self._threshold = cost_threshold_option(block)
        self.merge_inter_dependent_streams = merge_inter_dependent_streams_option(block)
        self.merge_using_cost_from_root = False
        self._ops: dict[Operation | None, _OpInfo] = {}
        self._infos: list[_StreamInfo] = []
        self.streams: list[Stream] = []  # the root stream first, then by first op
        self._stream_of: dict[Operation | None, Stream] = {}
        ops = list(block.ops)
        self._schedule_forward(ops)
        for op in reversed(ops):
            self._build_stream(op)
        self._build_stream(ROOT)
        self._finalize(ops)

    # -- queries -------------------------------------------------------------

    @property
    def cost_threshold(self) -> int:
        """The threshold in effect (the highest cost from the root when the
        block has no positive ``tfrt.cost_threshold``)."""
        return self._threshold if self._threshold > 0 else 1

    @property
    def root_stream(self) -> Stream:
        return self._stream_of[ROOT]

    def stream_of(self, op: Operation | None) -> Stream:
        """The stream holding ``op`` (`ROOT` for the function entry)."""
        return self._stream_of[op]

    def stream_ids(self) -> dict[Operation, int]:
        """Every op of the block to its stream id."""
        return {op: stream.id for op, stream in self._stream_of.items() if op is not ROOT}

    # -- step 1: the tree ---------------------------------------------------

    def _op_cost(self, op: Operation | None) -> int:
        if op is ROOT or _name(op) in CHEAP_OPS:
            return 1
        cost = self._cost_model(op)
        return cost if cost is not None else self.cost_threshold

    def _schedule_forward(self, ops: list[Operation]) -> None:
        root = self._ops[ROOT] = _OpInfo(cost=self._op_cost(ROOT))
        root.cost_from_root = root.cost
        max_cost = 1
        for op in ops:
            info = self._ops[op] = _OpInfo(cost=self._op_cost(op))
            cost_from_root = info.cost
            if not op.operands:
                root.scheduled_users.append(op)
            else:
                parent: Operation | None = ROOT
                parent_cost = 0
                for operand in op.operands:
                    if isinstance(operand, BlockArgument):
                        definer: Operation | None = ROOT
                    elif isinstance(operand, OpResult) and operand.op in self._ops:
                        definer = operand.op
                    else:
                        # Defined outside this block: TFRT sees a cost of 0,
                        # so such a value never triggers the op.
                        continue
                    def_info = self._ops[definer]
                    # Data (not chain) users off the triggering path make
                    # streams inter-dependent; see _merge_inter_dependent.
                    if not _is_chain(operand.type):
                        def_info.side_uses[op] = None
                    if def_info.cost_from_root > parent_cost:
                        parent, parent_cost = definer, def_info.cost_from_root
                parent_info = self._ops[parent]
                parent_info.side_uses.pop(op, None)
                parent_info.scheduled_users.append(op)
                cost_from_root += parent_cost
            info.cost_from_root = cost_from_root
            max_cost = max(max_cost, cost_from_root)
        if self._threshold <= 0:
            self.merge_using_cost_from_root = True
            self._threshold = max_cost

    # -- step 2: merging streams -------------------------------------------

    def _latest(self, stream_id: int) -> int:
        while self._infos[stream_id].merge_to >= 0:
            stream_id = self._infos[stream_id].merge_to
        return stream_id

    def _resolve(self, op: Operation | None) -> None:
        info = self._ops[op]
        final = self._latest(info.stream_id)
        stream_id = info.stream_id
        while self._infos[stream_id].merge_to >= 0:
            next_id = self._infos[stream_id].merge_to
            self._infos[stream_id].merge_to = final
            stream_id = next_id
        info.stream_id = final

    def _merge(self, from_id: int, to_id: int) -> None:
        source, target = self._infos[from_id], self._infos[to_id]
        for dep in source.side_deps:
            dep = self._latest(dep)
            if dep != to_id:
                target.side_deps[dep] = None
        target.side_deps.pop(from_id, None)
        target.contains_return |= source.contains_return
        target.cost += source.cost
        source.merge_to = to_id

    def _assign(self, op: Operation | None, info: _OpInfo, stream_id: int) -> None:
        stream = self._infos[stream_id]
        info.stream_id = stream_id
        stream.cost += info.cost
        if op is not ROOT and _name(op) in RETURN_OPS:
            stream.contains_return = True
        for user in info.side_uses:
            self._resolve(user)
            user_stream = self._ops[user].stream_id
            if user_stream != stream_id:
                stream.side_deps[user_stream] = None
                self._infos[user_stream].side_deps[stream_id] = None

    def _merge_inter_dependent(self, cost_from_root: int, child_ids: list[int]) -> list[int]:
        """Merge into each child stream the cheap sibling streams it
        exchanges data with; returns the child streams left."""
        candidates = set(child_ids)
        stale: set[int] = set()
        for child_id in child_ids:
            if child_id in stale:
                continue
            child = self._infos[child_id]
            to_merge: list[int] = []
            for dep in child.side_deps:
                if dep not in candidates:
                    continue
                dep = self._latest(dep)
                if self._infos[dep].cost >= self.cost_threshold:
                    continue
                to_merge.append(dep)
            for stream_id in _llvm_dense_int_set_order(to_merge):
                if stream_id == child_id:  # TFRT asserts this never happens
                    continue
                self._merge(stream_id, child_id)
                stale.add(stream_id)
                if cost_from_root + child.cost >= self.cost_threshold:
                    break
        return [i for i in child_ids if i not in stale]

    def _build_stream(self, op: Operation | None) -> None:
        info = self._ops[op]
        if not info.scheduled_users:
            self._infos.append(_StreamInfo())
            self._assign(op, info, len(self._infos) - 1)
            return

        child_ids: list[int] = []
        for user in info.scheduled_users:
            user_stream = self._ops[user].stream_id
            # Provisionally; reset when an op joins the stream.
            self._infos[user_stream].parent_op = op
            child_ids.append(user_stream)

        if self.merge_inter_dependent_streams and len(child_ids) > 1:
            base = info.cost_from_root if self.merge_using_cost_from_root else 0
            child_ids = self._merge_inter_dependent(base, child_ids)

        threshold = self.cost_threshold

        def above_threshold(a: int, b: int = -1) -> bool:
            if self.merge_using_cost_from_root:
                a_cost = self._infos[a].cost if a >= 0 else 0
                b_cost = self._infos[b].cost if b >= 0 else 0
                return info.cost_from_root + a_cost + b_cost >= threshold
            return self._infos[a].cost >= threshold

        max_id, max_cost, return_id = -1, 0, -1
        merged: list[int] = []  # groups of cheap child streams
        for child_id in child_ids:
            child = self._infos[child_id]
            if above_threshold(child_id):
                if max_cost < child.cost:
                    max_id, max_cost = child_id, child.cost
                if child.contains_return:
                    return_id = child_id
                continue
            # Fill the last group until it is just above the threshold.
            if not merged or above_threshold(merged[-1], child_id):
                merged.append(child_id)
            else:
                self._merge(child_id, merged[-1])
            group = self._infos[merged[-1]]
            if max_cost < group.cost:
                max_id, max_cost = merged[-1], group.cost
            if group.contains_return:
                return_id = merged[-1]

        # The root must end up in the stream that holds the return.
        stream_id = return_id if return_id >= 0 else max_id
        self._infos[stream_id].parent_op = None
        self._assign(op, info, stream_id)

        # At most one cheap group is left, the last: it joins this op's stream.
        if (
            not self.merge_using_cost_from_root
            and merged
            and not above_threshold(merged[-1])
            and stream_id != merged[-1]
        ):
            self._merge(merged[-1], info.stream_id)

    # -- step 3: the final tree ---------------------------------------------

    def _finalize(self, ops: list[Operation]) -> None:
        root_info = self._ops[ROOT]
        root = Stream(root_info.stream_id, self._infos[root_info.stream_id].cost, -1, None)
        self.streams.append(root)
        self._stream_of[ROOT] = root
        by_id = {root.id: root}
        for op in ops:
            self._resolve(op)
            stream_id = self._ops[op].stream_id
            stream = by_id.get(stream_id)
            if stream is None:
                info = self._infos[stream_id]
                # The parent op precedes the stream's first op, so its id is final.
                parent_id = self._ops[info.parent_op].stream_id
                stream = Stream(stream_id, info.cost, parent_id, info.parent_op)
                by_id[stream_id] = stream
                self.streams.append(stream)
            stream.ops.append(op)
            self._stream_of[op] = stream
            parent = by_id.get(stream.parent_id)
            if parent is not None:
                children = parent.child_streams.setdefault(stream.parent_op, [])
                if stream not in children:
                    children.append(stream)


# ---------------------------------------------------------------------------
# The test pass


def _source_loc(loc: Attribute | None) -> SourceLoc | None:
    while True:
        if isinstance(loc, FileLineColLoc):
            return SourceLoc(loc.filename.data, loc.line.data, loc.column.data)
        if isinstance(loc, NameLoc):
            loc = loc.location
        elif isinstance(loc, CallSiteLoc):
            loc = loc.callee
        elif isinstance(loc, FusedLoc) and loc.locations.data:
            loc = loc.locations.data[0]
        else:
            return None


def stream_remark(stream: Stream, op: Operation | None) -> str:
    """TFRT's description of the stream holding ``op``."""
    text = f"stream id: {stream.id}, stream cost: {stream.cost}, parent stream: {stream.parent_id}"
    children = stream.child_streams_of(op)
    if children:
        text += f", child streams: [{', '.join(str(c.id) for c in children)}]"
    return text


@dataclass(frozen=True)
class PrintStreamPass(ModulePass):
    """Report the stream analysis of every function as remarks: one at the
    function for its entry (the root stream), then one at each op of its
    body.  A test pass, as TFRT's ``-tfrt-print-stream``; the IR is unchanged.

    Example (``tfrt_opt -tfrt-print-stream -verify-diagnostics``)::

        // expected-remark@+1 {{stream id: 0, stream cost: 3, parent stream: -1}}
        func.func @f() -> i32 {
          // expected-remark@+1 {{stream id: 0, stream cost: 3, parent stream: -1}}
          %x = tfrt.constant.i32 1
          // expected-remark@+1 {{stream id: 0, stream cost: 3, parent stream: -1}}
          tfrt.return %x : i32
        }

    As MLIR nests a function pass under the module, only the functions
    directly in the module are analysed, and only their first block.
    """

    name = "tfrt-print-stream"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tfrt.passes import emit_diagnostic

        for func_op in op.body.block.ops:
            if not isinstance(func_op, FuncOp) or not func_op.body.blocks:
                continue
            analysis = StreamAnalysis(func_op.body.blocks.first)
            emit_diagnostic(
                Diagnostic(
                    "remark",
                    stream_remark(analysis.root_stream, ROOT),
                    _source_loc(func_op.location),
                )
            )
            for body_op in func_op.body.blocks.first.ops:
                emit_diagnostic(
                    Diagnostic(
                        "remark",
                        stream_remark(analysis.stream_of(body_op), body_op),
                        _source_loc(body_op.location),
                    )
                )
