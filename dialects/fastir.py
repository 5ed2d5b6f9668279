"""Creating, rewiring and erasing xDSL ops fast: what ``Op.create``,
``replace_all_uses_with`` and ``erase`` do, without their overhead.

``Operation.create`` goes through property setters, a generator per result
list and ``IRDLOperation.__post_init__``, which walks the op definition's
properties and attributes for defaults: about 7 µs per op.  The frontend
creates every op of a file and the lowering passes every kernel op, so
:func:`create_op` does the same work directly (defaults looked up once per
class) in about a third of the time.  The result is the object ``create``
returns, field for field (``tests/dialects/test_fastir.py`` compares them);
an op class with a ``create`` or ``__post_init__`` of its own goes through
``create``.

:func:`replace_all_uses` and :func:`erase_op` are xDSL's
``SSAValue.replace_all_uses_with`` and ``detach`` + ``erase``, minus a new
operand tuple per use and an ``ErasedSSAValue`` per unused result;
:func:`walk` is ``list(op.walk())`` without a generator per region and block;
:func:`append_op` and :func:`insert_op_before` are ``Block.add_op`` and
``Block.insert_op_before`` for an op just built;
:func:`new_block` and :func:`new_region` are ``Block(arg_types=...)`` and
``Region(block)``; :func:`canon` numbers attributes by value, for keys that
hash fast.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import UNKNOWN_LOC
from xdsl.ir import Attribute, Block, BlockArgument, OpResult, Operation, Region, SSAValue, Use
from xdsl.ir.core import SSAValues
from xdsl.irdl import IRDLOperation, OptionalDef

__all__ = [
    "append_op",
    "canon",
    "insert_op_before",
    "create_op",
    "erase_op",
    "new_block",
    "new_region",
    "replace_all_uses",
    "walk",
]

_UNKNOWN = UNKNOWN_LOC  # the object xDSL's constructors use
_new = object.__new__
_CREATE = Operation.create.__func__

# op class -> (property defaults, attribute defaults), or None when the class
# has a create() or __post_init__ of its own (then create() is called).
_DEFAULTS: dict[type, tuple[tuple, tuple] | None] = {}


def _defaults(cls: type) -> tuple[tuple, tuple] | None:
    found = _DEFAULTS.get(cls, False)
    if found is not False:
        return found  # type: ignore[return-value]
    post = cls.__post_init__
    if getattr(cls.create, "__func__", None) is not _CREATE:
        found = None
    elif post is IRDLOperation.__post_init__:
        op_def = cls.get_irdl_definition()
        props = tuple(
            (name, d.default_value)
            for name, d in op_def.properties.items()
            if not isinstance(d, OptionalDef) and d.default_value is not None
        )
        attrs = tuple(
            (name, d.default_value)
            for name, d in op_def.attributes.items()
            if not isinstance(d, OptionalDef) and d.default_value is not None
        )
        found = (props, attrs)
    elif post is Operation.__post_init__:
        found = ((), ())
    else:
        found = None
    _DEFAULTS[cls] = found
    return found


def create_op(
    cls: type[Operation],
    operands: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] = (),
    properties: Mapping[str, Attribute] | None = None,
    attributes: Mapping[str, Attribute] | None = None,
    regions: Sequence[Region] = (),
    successors: Sequence[Block] = (),
    location: Attribute | None = None,
) -> Operation:
    """``cls.create(operands=..., result_types=..., ...)``, faster.

    ``properties`` and ``attributes`` are copied (as ``create`` does)."""
    defaults = _defaults(cls)
    if defaults is None:
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=properties or {},
            attributes=attributes or {},
            regions=regions,
            successors=successors,
            location=location,
        )
    op = cls.__new__(cls)
    values = SSAValues(operands)
    uses = []
    for i, v in enumerate(values):
        use = _new(Use)
        use._operation = op
        use._index = i
        use._prev_use = None
        first = v.first_use
        use._next_use = first
        if first is not None:
            first._prev_use = use
        v.first_use = use
        uses.append(use)
    op._operands = values
    op._operand_uses = tuple(uses)
    results = []
    for i, t in enumerate(result_types):
        r = _new(OpResult)  # first_use and _name: class defaults, as in create
        r._type = t
        r.op = op
        r.index = i
        results.append(r)
    op.results = SSAValues(results)
    op.properties = dict(properties) if properties else {}
    op.attributes = dict(attributes) if attributes else {}
    op.location = _UNKNOWN if location is None else location
    if successors:
        op.successors = list(successors)
    else:
        op._successors = ()
        op._successor_uses = ()
    op.regions = ()
    for region in regions:
        op.add_region(region)
    props, attrs = defaults
    for name, value in props:
        if name not in op.properties:
            op.properties[name] = value
    for name, value in attrs:
        if name not in op.attributes:
            op.attributes[name] = value
    return op


def replace_all_uses(old: SSAValue, new: SSAValue) -> None:
    """``old.replace_all_uses_with(new)``: every use of ``old`` now uses
    ``new`` (they join ``new``'s use list in the order xDSL puts them)."""
    if new is old:
        return
    use = old.first_use
    if use is not None:
        changed: dict[Operation, list] = {}
        while use is not None:
            nxt = use._next_use
            # Unlink from old's list (we walk it front to back: use is first).
            old.first_use = nxt
            if nxt is not None:
                nxt._prev_use = None
            # Link at the front of new's list, as add_use does.
            first = new.first_use
            use._next_use = first
            use._prev_use = None
            if first is not None:
                first._prev_use = use
            new.first_use = use
            op = use._operation
            operands = changed.get(op)
            if operands is None:
                operands = changed[op] = list(op._operands)
            operands[use._index] = new
            use = nxt
        for op, operands in changed.items():
            op._operands = SSAValues(operands)
    # Carry the name over, as xDSL does (through the setter, which normalizes it).
    if new._name is None and old._name is not None:
        new.name_hint = old._name


def erase_op(op: Operation, safe_erase: bool = True) -> None:
    """``op.detach()`` (when in a block) and ``op.erase(safe_erase)``."""
    block = op.parent
    if block is not None:
        block.detach_op(op)
    _drop_all_references(op)
    for result in op.results:
        if result.first_use is not None:
            result.erase(safe_erase=safe_erase)  # raises, or leaves erased values


def walk(root: Operation) -> list[Operation]:
    """``list(root.walk())``: ``root`` and every op nested in it, in pre-order."""
    out: list[Operation] = []
    stack = [root]
    while stack:
        op = stack.pop()
        out.append(op)
        if op.regions:
            children: list[Operation] = []
            for region in op.regions:
                block = region._first_block
                while block is not None:
                    child = block._first_op
                    while child is not None:
                        children.append(child)
                        child = child._next_op
                    block = block._next_block
            children.reverse()
            stack.extend(children)
    return out


def append_op(block: Block, op: Operation) -> None:
    """``block.add_op(op)`` for an op that cannot hold ``block`` (one just
    built around regions parsed before it): without the ancestor walk."""
    if op.parent is not None:
        raise ValueError("Can't add to a block an operation already attached to a block.")
    op.parent = block
    last = block._last_op
    if last is None:
        block._first_op = op
    else:
        last._next_op = op
        op._prev_op = last
    block._last_op = op


def _drop_all_references(op: Operation) -> None:
    """``op.drop_all_references()``: unlink its operand and successor uses,
    and those of every op nested in it (their blocks and regions let go of
    their parents and neighbours, as xDSL's do)."""
    stack = [op]
    while stack:
        op = stack.pop()
        op.parent = None
        for value, use in zip(op._operands, op._operand_uses):
            prev = use._prev_use
            nxt = use._next_use
            if prev is not None:
                prev._next_use = nxt
            if nxt is not None:
                nxt._prev_use = prev
            if prev is None:
                value.first_use = nxt
        op._operand_uses = ()
        if op._successors:
            for successor, use in zip(op._successors, op._successor_uses):
                successor.remove_use(use)
            op._successor_uses = ()
            op._successors = ()
        for region in op.regions:
            region.parent = None
            block = region._first_block
            while block is not None:
                nxt_block = block._next_block
                block.parent = None
                block._next_block = None
                block._prev_block = None
                child = block._first_op
                while child is not None:
                    stack.append(child)
                    child = child._next_op
                block = nxt_block


def new_block(arg_types: Sequence[Attribute] = ()) -> Block:
    """``Block(arg_types=arg_types)``: an empty block with those arguments."""
    block = _new(Block)
    args = []
    for i, t in enumerate(arg_types):
        arg = _new(BlockArgument)  # first_use and _name: class defaults
        arg._type = t
        arg.block = block
        arg.index = i
        arg.location = _UNKNOWN
        args.append(arg)
    block._args = tuple(args)
    block._first_op = None
    block._last_op = None
    return block


def new_region(block: Block) -> Region:
    """``Region(block)`` for a block in no region."""
    if block.parent is not None:
        raise ValueError("Can't add to a region a block already attached to a region.")
    region = _new(Region)
    region._first_block = block
    region._last_block = block
    block.parent = region
    return region


def insert_op_before(new_op: Operation, existing: Operation) -> None:
    """``existing.parent.insert_op_before(new_op, existing)`` for an op that
    cannot hold that block (one just built): without the ancestor walk."""
    block = existing.parent
    if block is None:
        raise ValueError("Can't insert operation before operation not in current block")
    if new_op.parent is not None:
        raise ValueError("Can't add to a block an operation already attached to a block.")
    new_op.parent = block
    prev = existing._prev_op
    new_op._prev_op = prev
    new_op._next_op = existing
    existing._prev_op = new_op
    if prev is None:
        block._first_op = new_op
    else:
        prev._next_op = new_op


# Attributes are numbered by value (equal attributes, one number), so that a
# key made of attributes hashes as a few small ints: hashing a tensor type or
# an array of affine maps walks all of it, every time.  An attribute object
# is looked up by identity first (the parser and the passes share them), then
# by value.  Numbers are never reused, so a number in a remembered key always
# stands for the same value.
_CANON_BY_ID: dict[int, tuple[Attribute, int]] = {}
_CANON_BY_VALUE: dict[Attribute, int] = {}
_CANON_NEXT = itertools.count()
_CANON_LOCK = threading.Lock()
_MAX_CANON = 16384


def canon(attr: Attribute) -> int:
    """The number of ``attr``'s value (TypeError when it cannot be hashed)."""
    found = _CANON_BY_ID.get(id(attr))
    if found is not None and found[0] is attr:
        return found[1]
    with _CANON_LOCK:
        number = _CANON_BY_VALUE.get(attr)
        if number is None:
            if len(_CANON_BY_VALUE) >= _MAX_CANON:
                _CANON_BY_VALUE.clear()
                _CANON_BY_ID.clear()
            number = _CANON_BY_VALUE[attr] = next(_CANON_NEXT)
        if len(_CANON_BY_ID) >= _MAX_CANON:
            _CANON_BY_ID.clear()
        _CANON_BY_ID[id(attr)] = (attr, number)
    return number
