"""``lower-scf``: ``scf.if/for/while`` -> ``tfrt.if``, ``tfrt.repeat.i32``, ``tfrt.while``.

TFRT's control-flow regions are isolated from above, so every value a region
uses from outside becomes an operand of the new op and an argument of its
region(s); ``scf.yield`` becomes ``tfrt.return``.

* ``scf.if %c`` -> ``tfrt.if %c, <captured>`` (an absent ``else`` returns nothing).
* ``scf.for %i = %lb to %ub step %s iter_args(...)`` -> ``tfrt.repeat.i32`` over
  ``max(0, ceildiv(ub - lb, s))`` iterations, computed exactly by
  ``tfrt_scalar.trip_count`` (i32 bounds -2e9 to 2e9 are 4e9 apart; a step
  that is not positive, or more than 2^31-1 iterations, is an error at run
  time), carrying the induction variable (i64) as the first loop value, then
  the iteration arguments, then the captured values::

      %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (i32) { ... }
      // becomes
      %n = tfrt_scalar.trip_count %c0, %c4, %c1 {unsigned = false} : (i64, i64, i64) -> i32
      %r:3 = tfrt.repeat.i32 %n, %c0, %x, %c1 : i64, i32, i64 {
        ...
        %next = tfrt_scalar.eval %i, %c1 {expr = "(a0 + a1)", ...}
        tfrt.return %next, %acc2, %c1 : i64, i32, i64
      }

* ``scf.while`` -> the "before" region runs once inline for the first
  condition, and a new function ``@<fn>_while_<k>`` runs "after" then "before"
  and returns the next values and the next condition, for ``tfrt.while``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    FunctionType,
    IntegerAttr,
    ModuleOp,
    i1,
    i32,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.dialects.syntax.verify import op_error
from tfrt.passes.lowering import (
    cannot_lower,
    kernel_type,
    make_op,
    replace,
    scalar_constant,
    str_attr,
)


def _inside(op: Operation, region: Region) -> bool:
    parent = op.parent_region()
    while parent is not None:
        if parent is region:
            return True
        owner = parent.parent_op()
        parent = owner.parent_region() if owner is not None else None
    return False


def _captured(regions: list[Region]) -> list[SSAValue]:
    """Values used inside ``regions`` but defined outside them, in first-use order."""
    seen: dict[SSAValue, None] = {}
    for region in regions:
        for inner in region.walk():
            for v in inner.operands:
                owner = v.owner
                if isinstance(owner, Block):
                    defined = owner.parent_region()
                    inside = defined is not None and any(
                        defined is r or _region_within(defined, r) for r in regions
                    )
                else:
                    inside = any(_inside(owner, r) for r in regions)
                if not inside:
                    seen.setdefault(v, None)
    return list(seen)


def _region_within(inner: Region, outer: Region) -> bool:
    op = inner.parent_op()
    while op is not None:
        region = op.parent_region()
        if region is outer:
            return True
        op = region.parent_op() if region is not None else None
    return False


def _rebind(region: Region, values: list[SSAValue], args: list[SSAValue]) -> None:
    """Inside ``region``, use ``args[i]`` wherever ``values[i]`` was used."""
    for v, a in zip(values, args):
        for use in list(v.uses):
            if _inside(use.operation, region):
                use.operation.operands[use.index] = a


def _return(values, at) -> Operation:
    return make_op("tfrt.return", list(values), [], {}, at=at)


def _eval(expr: str, operands, result_type, at) -> Operation:
    types = ",".join(str(kernel_type(v.type)) for v in operands)
    return make_op("tfrt_scalar.eval", list(operands), [result_type],
                   {"expr": str_attr(expr), "types": str_attr(types)}, at=at)  # fmt: skip


def _lower_if(op: Operation) -> None:
    then_r, else_r = op.regions
    caps = _captured([then_r, else_r])
    new_regions = []
    for region in (then_r, else_r):
        block = Block(arg_types=[kernel_type(v.type) for v in caps])
        if region.blocks:
            old = region.blocks[0]
            _rebind(region, caps, list(block.args))
            for inner in list(old.ops):
                inner.detach()
                if inner.name == "scf.yield":
                    block.add_op(_return(inner.operands, inner))
                    inner.erase()
                else:
                    block.add_op(inner)
        else:
            block.add_op(_return([], op))
        new_regions.append(Region(block))
    new = make_op("tfrt.if", [op.cond, *caps], [kernel_type(r.type) for r in op.results],  # type: ignore[attr-defined]
                  {}, at=op, regions=new_regions)  # fmt: skip
    replace(op, [new], new.results)


def _lower_for(op: Operation) -> None:
    lb, ub, step = op.lb, op.ub, op.step  # type: ignore[attr-defined]
    inits = list(op.iter_args)  # type: ignore[attr-defined]
    body = op.body  # type: ignore[attr-defined]
    it = kernel_type(lb.type)
    if str(it) not in ("i8", "i16", "i32", "i64"):
        raise cannot_lower(op, f"loop bounds of type {lb.type} are not supported")
    known = scalar_constant(step)
    if known is not None and known.value.data <= 0:
        # MLIR's verifier refuses it (the loop would never end).
        raise op_error(op, "constant step operand must be positive")
    pre: list[Operation] = []
    # The trip count, exact (ub - lb may not fit the bounds' type); a step
    # that is not positive, or a count past i32, is an error at run time.
    trip = make_op("tfrt_scalar.trip_count", [lb, ub, step], [i32], {"unsigned": IntegerAttr(0, i1)}, at=op)
    pre.append(trip)
    caps = [v for v in _captured([body]) if v is not step]
    loop_vals = [lb, *inits, step, *caps]
    block = Block(arg_types=[kernel_type(v.type) for v in loop_vals])
    old = body.blocks[0]
    iv, *iter_args = old.args
    n = len(inits)
    new_iv, new_iter = block.args[0], list(block.args[1 : 1 + n])
    new_step, new_caps = block.args[1 + n], list(block.args[2 + n :])
    _rebind(body, [step, *caps], [new_step, *new_caps])
    iv.replace_all_uses_with(new_iv)
    for a, b in zip(iter_args, new_iter):
        a.replace_all_uses_with(b)
    for inner in list(old.ops):
        inner.detach()
        if inner.name == "scf.yield":
            nxt = _eval("(a0 + a1)", [new_iv, new_step], it, inner)
            block.add_op(nxt)
            block.add_op(_return([nxt.results[0], *inner.operands, new_step, *new_caps], inner))
            inner.erase()
        else:
            block.add_op(inner)
    new = make_op("tfrt.repeat.i32", [trip.results[0], *loop_vals],
                  [kernel_type(v.type) for v in loop_vals], {}, at=op, regions=[Region(block)])  # fmt: skip
    pre.append(new)
    replace(op, pre, list(new.results[1 : 1 + n]))


def _clone_before(before: Region, args: list[SSAValue], caps: list[SSAValue], cap_args: list[SSAValue]):
    """Clone the "before" block's ops with its arguments bound to ``args``;
    returns the ops and the scf.condition operands (mapped)."""
    block = before.blocks[0]
    value_map: dict[SSAValue, SSAValue] = dict(zip(block.args, args))
    value_map.update(zip(caps, cap_args))
    ops = []
    cond = None
    for inner in block.ops:
        if inner.name == "scf.condition":
            cond = [value_map.get(v, v) for v in inner.operands]
            continue
        clone = inner.clone(value_mapper=value_map)
        ops.append(clone)
    assert cond is not None
    return ops, cond


def _lower_while(op: Operation, counter: list[int]) -> None:
    before, after = op.regions
    fn = op.parent_op()
    while fn is not None and not isinstance(fn, func.FuncOp):
        fn = fn.parent_op()
    module = fn.parent_op() if fn is not None else None
    if fn is None or module is None:
        raise cannot_lower(op, "scf.while must be inside a func.func")
    caps = _captured([before, after])
    # 1. The first condition, inline.
    first_ops, first = _clone_before(before, list(op.arguments), caps, caps)  # type: ignore[attr-defined]
    result_types = [kernel_type(r.type) for r in op.results]
    cap_types = [kernel_type(v.type) for v in caps]
    # 2. The body function: after, then before.
    body = Block(arg_types=[*result_types, *cap_types])
    vals, cap_args = list(body.args[: len(result_types)]), list(body.args[len(result_types) :])
    value_map: dict[SSAValue, SSAValue] = dict(zip(after.blocks[0].args, vals))
    value_map.update(zip(caps, cap_args))
    next_args = None
    for inner in after.blocks[0].ops:
        if inner.name == "scf.yield":
            next_args = [value_map.get(v, v) for v in inner.operands]
            continue
        body.add_op(inner.clone(value_mapper=value_map))
    assert next_args is not None
    again_ops, again = _clone_before(before, next_args, caps, cap_args)
    for o in again_ops:
        body.add_op(o)
    body.add_op(_return([*again[1:], *cap_args, again[0]], op))
    counter[0] += 1
    name = f"{fn.sym_name.data}_while_{counter[0]}"
    fn_type = FunctionType.from_lists([*result_types, *cap_types], [*result_types, *cap_types, i1])
    body_fn = func.FuncOp.from_region(name, fn_type.inputs.data, fn_type.outputs.data, Region(body))
    body_fn.location = op.location
    module.regions[0].blocks[0].insert_op_after(body_fn, fn)
    from xdsl.dialects.builtin import SymbolRefAttr

    new = make_op("tfrt.while", [first[0], *first[1:], *caps], [*result_types, *cap_types], {
        "body_fn": SymbolRefAttr(name), "parallel_iterations": IntegerAttr(1, i64),
    }, at=op)  # fmt: skip
    replace(op, [*first_ops, new], list(new.results[: len(result_types)]))


@dataclass(frozen=True)
class LowerScfPass(ModulePass):
    """Lower scf control flow to TFRT's (see the module docstring)."""

    name = "lower-scf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        counter = [0]
        # Innermost first: a nested op's captured values become the outer op's.
        for o in reversed(walk(op)):
            if o.name == "scf.if":
                _lower_if(o)
            elif o.name == "scf.for":
                _lower_for(o)
            elif o.name == "scf.while":
                _lower_while(o, counter)
            elif o.name.startswith("scf.") and o.name not in ("scf.yield", "scf.condition"):
                raise cannot_lower(o, "no TFRT control flow implements it")



LowerScfPass.__doc__ = f"{LowerScfPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
