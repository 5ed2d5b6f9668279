"""Op-by-op verification with source locations, plus SSA dominance.

xDSL's ``module.verify()`` raises a ``VerifyException`` with no op reference
(and prints the whole module into its notes); MLIR reports the failing op's
location.  :func:`verify_module` verifies op by op in walk order and raises
:class:`~tfrt.diagnostics.DiagnosticError` at the first failure with
MLIR's ``'<op>' op <message>`` text.

xDSL also does not check dominance: a value used before its definition in
the same block passes.  Here every use is checked against the ops that came
before it in the enclosing blocks, and, across the blocks of a CFG region,
against the region's dominator tree (``operand #N does not dominate this
use``).  Module bodies are graph regions, as in MLIR, and are not checked;
uses in blocks unreachable from the entry block are not checked either, as in
MLIR.

IsolatedFromAbove is checked in the same pass over the uses (each use's
defining block must lie in the user's nearest isolated ancestor), instead of by
xDSL's trait, which walks each isolated op's body once more.  Where a use
fails it, the trait runs and reports the violation in its own words.
"""

from __future__ import annotations

import threading


from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    ModuleOp,
    NameLoc,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region
from xdsl.ir.core import ErasedSSAValue
from xdsl.traits import IsolatedFromAbove

from tfrt.diagnostics import Diagnostic, DiagnosticError, SourceLoc
from tfrt.dialects.fastir import canon as _canon
from tfrt.dialects.fastir import walk


def source_loc(loc: Attribute | None) -> SourceLoc | None:
    """The file:line:col an xDSL location points at (the first one in fused/callsite)."""
    if isinstance(loc, FileLineColLoc):
        return SourceLoc(loc.filename.data, loc.line.data, loc.column.data)
    if isinstance(loc, NameLoc):
        return source_loc(loc.location)
    if isinstance(loc, CallSiteLoc):
        return source_loc(loc.callee)
    if isinstance(loc, FusedLoc):
        for sub in loc.locations.data:
            found = source_loc(sub)
            if found is not None:
                return found
    return None


def op_name(op: Operation) -> str:
    """The op's name as written (an unregistered op's own name, not builtin.unregistered)."""
    if isinstance(op, UnregisteredOp):
        return op.op_name.data
    return op.name


def op_error(op: Operation, message: str, notes=(), plain: bool = False) -> DiagnosticError:
    """An error at ``op``'s location: ``'<op>' op <message>`` (MLIR's emitOpError),
    or the bare message for ``plain`` ones (MLIR's emitError)."""
    text = message if plain else f"'{op_name(op)}' op {message}"
    d = Diagnostic("error", text, source_loc(op.location))
    for note_msg, note_loc in notes:
        d.note(note_msg, note_loc)
    return DiagnosticError(d)


def _message(e: Exception) -> str:
    msg = str(e).strip()
    return " ".join(line.strip() for line in msg.splitlines() if line.strip()) or type(e).__name__


def _is_plain(e: Exception) -> bool:
    """Verifier messages the dialects mark as MLIR emitError ones (no op prefix)."""
    return any(cls.__name__ == "PlainVerifyException" for cls in type(e).__mro__)


def verify_module(module: Operation) -> None:
    """Verify ``module`` op by op; raise DiagnosticError at the first failure."""
    positions: dict[Block, dict[Operation, int]] = {}
    dominators: dict[Region, dict[Block, set[Block]]] = {}
    # Walk order of the ops seen so far: in one block, an op seen earlier
    # comes earlier (the common case of dominance, checked first).
    order: dict[int, int] = {}  # by id(op): ops hash in Python
    verified = _VERIFIED
    roots: dict[Block, Operation | None] = {}  # block -> its nearest IsolatedFromAbove ancestor
    claimed = _claimed()
    mine: list[int] = []
    try:
        _verify_walk(module, positions, dominators, order, verified, roots, claimed, mine)
    finally:
        for key in mine:
            claimed.discard(key)


def _verify_walk(module, positions, dominators, order, verified, roots, claimed, mine) -> None:
    for n, op in enumerate(walk(module)):
        if op.regions and op.has_trait(IsolatedFromAbove) and id(op) not in claimed:
            claimed.add(id(op))  # its uses are checked below, not by the trait
            mine.append(id(op))
        order[id(op)] = n
        try:
            key = _signature(op)
        except TypeError:  # an unhashable attribute: verify each time
            key = None
        if key is None:
            _verify_op(op)
        elif key not in verified:  # else: an op equal in all its verifier reads passed
            _verify_op(op)
            if len(verified) >= _MAX_VERIFIED:
                verified.clear()
            verified[key] = True
        block = op.parent
        for i, operand in enumerate(op._operands):  # noqa: SLF001 - no view object per op
            if operand.__class__ is ErasedSSAValue:
                _verify_op(op)  # raises: a signature does not tell erased values apart
            if operand.__class__ is OpResult:
                owner = operand.op
                def_block = owner.parent
            else:
                owner = operand.owner
                if owner.__class__ is Block:
                    if owner is not block:
                        _check_isolation(op, owner, block, roots, claimed)
                    continue
                def_block = owner.parent
            if def_block is block:
                if order.get(id(owner), n) < n:
                    continue
            else:
                _check_isolation(op, def_block, block, roots, claimed)
            if isinstance(owner, Operation) and not _dominates(owner, op, positions, dominators):
                raise op_error(
                    op,
                    f"operand #{i} does not dominate this use",
                    [("operand defined here", source_loc(owner.location))],
                )


# Isolated ops whose IsolatedFromAbove check a running verify_module makes
# itself (by id), per thread: the trait passes them over in that thread only
# (see _install_isolation_trait).
_CLAIMS = threading.local()


def _claimed() -> set[int]:
    ids = getattr(_CLAIMS, "ids", None)
    if ids is None:
        ids = _CLAIMS.ids = set()
    return ids


def _isolation_root(block: Block | None, roots: dict) -> Operation | None:
    """The nearest IsolatedFromAbove op holding ``block`` (None: none)."""
    if block is None:
        return None
    try:
        return roots[block]
    except KeyError:
        pass
    region = block.parent
    holder = None if region is None else region.parent
    if holder is None:
        root = None
    elif holder.has_trait(IsolatedFromAbove):
        root = holder
    else:
        root = _isolation_root(holder.parent, roots)
    roots[block] = root
    return root


def _check_isolation(user: Operation, def_block: Block | None, use_block: Block | None, roots, claimed) -> None:
    """A use from another block: its definition must lie inside the user's
    nearest isolated ancestor.  If not, that ancestor's trait reports it."""
    root = _isolation_root(use_block, roots)
    if root is None or _isolation_root(def_block, roots) is root:
        return
    # Defined in a nested isolated op, or outside `root`: inside `root` it is
    # a dominance question (checked by the caller); outside, the trait's error.
    holder = def_block
    while holder is not None:
        region = holder.parent
        op = None if region is None else region.parent
        if op is root:
            return
        holder = None if op is None else op.parent
    claimed.discard(id(root))
    _verify_op(root)


def _install_isolation_trait() -> None:
    """Let IsolatedFromAbove pass over the ops verify_module checks itself."""
    original = IsolatedFromAbove.verify
    if getattr(original, "_tfrt_defers", False):
        return

    def verify(self, op: Operation) -> None:
        if id(op) in getattr(_CLAIMS, "ids", ()):
            return
        original(self, op)

    verify._tfrt_defers = True  # type: ignore[attr-defined]
    IsolatedFromAbove.verify = verify  # type: ignore[method-assign]


_install_isolation_trait()


# Ops of these dialects verify from their own operand and result types,
# properties and attributes alone (no parent, no uses, no regions): one that
# equals an op that verified needs no second look.  Constants are left out
# (their values can be large, and are seldom equal).
_SELF_CONTAINED = frozenset({"arith", "math", "tfrt_array", "tfrt_scalar"})
# Ops whose verifiers (xDSL's generic one, their traits and their own) read,
# besides the above, only the number of blocks and the entry-block argument
# types of their regions, whether they end their block and the class of
# their parent op: all of it goes into their signature.  A linalg op's
# verifier checks its indexing maps against the operand shapes and its body's
# arguments (about 100 us); a model repeats the same few.
_LOCAL_WITH_REGIONS = frozenset(
    {"linalg.generic", "linalg.matmul", "linalg.fill", "linalg.yield", "tensor.empty"}
)
_VERIFIED: dict[tuple, bool] = {}
_MAX_VERIFIED = 4096


def _kind(name: str) -> int:
    """0: verified each time; 1: self-contained; 2: local with regions."""
    kind = _KINDS.get(name)
    if kind is None:
        if name in _LOCAL_WITH_REGIONS:
            kind = 2
        elif name.split(".", 1)[0] in _SELF_CONTAINED and "constant" not in name:
            kind = 1
        else:
            kind = 0
        if len(_KINDS) < 4096:
            _KINDS[name] = kind
    return kind


_KINDS: dict[str, int] = {}


def _signature(op: Operation) -> tuple | None:
    """What ``op``'s verifier reads, when that is all it reads; else None."""
    kind = _KINDS.get(op.name)
    if kind is None:
        kind = _kind(op.name)
    if kind == 2:
        if op._successors:  # noqa: SLF001 - no view object
            return None
        block = op.parent
        region = None if block is None else block.parent
        parent = None if region is None else region.parent
        extra = (
            tuple(
                [
                    None
                    if (b := r._first_block) is None  # noqa: SLF001
                    else (b._next_block is None, tuple([_canon(a._type) for a in b._args]))  # noqa: SLF001
                    for r in op.regions
                ]
            ),
            block is not None and block.last_op is op,
            type(parent),
        )
    elif kind == 0:
        return None
    else:
        if op.regions or op._successors:  # noqa: SLF001
            return None
        block = op.parent
        if block is not None and block.last_op is op:
            return None  # terminator checks look at the block
        extra = None
    return (
        type(op),
        tuple([_canon(v._type) for v in op._operands]),  # noqa: SLF001 - no property per value
        tuple([_canon(r._type) for r in op.results]),  # noqa: SLF001
        tuple([(k, _canon(v)) for k, v in op.properties.items()]),
        tuple([(k, _canon(v)) for k, v in op.attributes.items()]),
        extra,
    )


def _verify_op(op: Operation) -> None:
    try:
        op.verify(verify_nested_ops=False)
    except DiagnosticError:
        raise
    except Exception as e:  # noqa: BLE001 - any verifier failure becomes a diagnostic
        raise op_error(op, _message(e), plain=_is_plain(e)) from None


def _dominates(definer: Operation, user: Operation, positions, dominators) -> bool:
    """Does ``definer`` dominate ``user`` (or the op of its block that holds it)?

    In the same block: ``definer`` comes first.  In another block of the same
    region: the definer's block dominates the user's block.  Graph regions
    (module bodies) have no dominance.
    """
    block = definer.parent
    if block is None:
        return True
    region = block.parent
    if region is None or isinstance(region.parent, ModuleOp):
        return True  # graph region: no dominance
    # Climb from `user` to the op that sits in `region`.
    ancestor = user
    while True:
        use_block = ancestor.parent
        if use_block is None or use_block.parent is None:
            return True  # not nested in `region`: other checks catch it
        if use_block.parent is region:
            break
        holder = use_block.parent.parent
        if holder is None:
            return True
        ancestor = holder
    if use_block is not block:
        doms = dominators.get(region)
        if doms is None:
            doms = dominators[region] = _block_dominators(region)
        found = doms.get(use_block)
        return found is None or block in found  # unreachable blocks: not checked
    index = positions.get(block)
    if index is None:
        index = positions[block] = {o: i for i, o in enumerate(block.ops)}
    return index[definer] < index[ancestor]


def _block_dominators(region: Region) -> dict[Block, set[Block]]:
    """Dominator sets of the blocks reachable from the entry block."""
    blocks = list(region.blocks)
    if not blocks:
        return {}
    entry = blocks[0]
    succs: dict[Block, list[Block]] = {}
    order: list[Block] = []
    stack, seen = [entry], {entry}
    while stack:
        b = stack.pop()
        order.append(b)
        term = b.last_op
        succs[b] = list(term.successors) if term is not None else []
        for s in succs[b]:
            if s not in seen:
                seen.add(s)
                stack.append(s)
    preds: dict[Block, list[Block]] = {b: [] for b in order}
    for b in order:
        for s in succs[b]:
            preds[s].append(b)
    everything = set(order)
    doms = {b: set(everything) for b in order}
    doms[entry] = {entry}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            new = set.intersection(*(doms[p] for p in preds[b])) | {b}
            if new != doms[b]:
                doms[b] = new
                changed = True
    return doms
