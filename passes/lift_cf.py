"""``lift-cf-to-scf``: loops and branches written as blocks (``cf``) -> ``scf``.

Programs imported from TensorFlow's graphs (and some of IREE's tests) write
control flow as a CFG: ``cf.br`` and ``cf.cond_br`` between blocks.  The
lowering takes structured ``scf`` ops, so this pass (MLIR's
``-lift-cf-to-scf``, for the shapes such programs have) rewrites, in a
function body, repeatedly:

* a **loop**: a header block ``H`` reached by ``cf.br ^H(init)`` from the block
  before it, ending in ``cf.cond_br %c, ^B(args), ^X(args)`` (the same
  arguments both ways), whose body block ``B`` ends in ``cf.br ^H(next)``
  and has no other predecessor, with the exit ``X`` reached only from ``H``:
  ``scf.while`` (``H``'s ops in its ``before`` region, ``B``'s in
  ``after``), then ``X``'s ops;
* a **branch**: a block ending in ``cf.cond_br %c, ^T, ^F`` (no arguments)
  whose two successors each end in ``cf.br ^J(values)`` to the same join
  block ``J`` that only they reach: ``scf.if`` yielding ``J``'s arguments,
  then ``J``'s ops;
* a block whose only predecessor ends in ``cf.br`` to it: merged into it.

Values a header defines may be used only inside the loop.  What stays
unstructured is left as it is, and the lowering then names the ``cf`` op
it cannot lower.

Example::

    cf.br ^bb1(%start : tensor<i32>)
  ^bb1(%i: tensor<i32>):
    %c = ... : i1
    cf.cond_br %c, ^bb2(%i : tensor<i32>), ^bb3(%i : tensor<i32>)
  ^bb2(%j: tensor<i32>):
    %n = ...
    cf.br ^bb1(%n : tensor<i32>)
  ^bb3(%r: tensor<i32>):
    return %r : tensor<i32>
    // becomes
    %r = scf.while (%i = %start) : (tensor<i32>) -> tensor<i32> {
      %c = ... : i1
      scf.condition(%c) %i : tensor<i32>
    } do {
    ^bb0(%j: tensor<i32>):
      %n = ...
      scf.yield %n : tensor<i32>
    }
    return %r : tensor<i32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import replace_all_uses


def _preds(region: Region) -> dict[Block, list[Operation]]:
    preds: dict[Block, list[Operation]] = {b: [] for b in region.blocks}
    for b in region.blocks:
        term = b.last_op
        if term is not None:
            for s in term.successors:
                preds.setdefault(s, []).append(term)
    return preds


def _split_cond_br(op: Operation):
    n_then = len(op.then_arguments)  # type: ignore[attr-defined]
    args = list(op.operands[1:])
    return op.operands[0], op.successors[0], args[:n_then], op.successors[1], args[n_then:]


def _move_ops(src: Block, dest: Block, stop: Operation | None = None) -> None:
    for o in list(src.ops):
        if o is stop:
            break
        o.detach()
        dest.add_op(o)


def _drop_blocks(region: Region, blocks) -> None:
    """Erase the (emptied) blocks whose ops moved into structured ops."""
    for blk in blocks:
        for o in list(blk.ops):
            o.detach()
            o.erase(safe_erase=False)
        region.detach_block(blk)


def _used_outside(block: Block, region_blocks: set[Block]) -> bool:
    for o in block.ops:
        for r in o.results:
            for use in r.uses:
                owner = use.operation
                b = owner.parent_block()
                while b is not None and b not in region_blocks:
                    parent = b.parent_op()
                    b = parent.parent_block() if parent is not None else None
                if b is None:
                    return True
    return False


def _try_loop(region: Region, pre: Block) -> bool:
    br = pre.last_op
    if br is None or br.name != "cf.br":
        return False
    header = br.successors[0]
    if header is pre:
        return False
    preds = _preds(region)
    cbr = header.last_op
    if cbr is None or cbr.name != "cf.cond_br":
        return False
    cond, body, body_args, exit_, exit_args = _split_cond_br(cbr)
    if [id(v) for v in body_args] != [id(v) for v in exit_args]:
        return False
    back = body.last_op
    if back is None or back.name != "cf.br" or back.successors[0] is not header:
        return False
    if len(preds[header]) != 2 or len(preds[body]) != 1 or len(preds[exit_]) != 1:
        return False
    if body is exit_ or body is header or exit_ is header:
        return False
    # header values must stay inside the loop; body values too
    if _used_outside(header, {header, body}) or _used_outside(body, {header, body}):
        return False
    init = list(br.operands)
    types = [a.type for a in header.args]
    before = Block(arg_types=types)
    after = Block(arg_types=[a.type for a in body.args])
    mapping = dict(zip(header.args, before.args))
    body_args = [mapping.get(v, v) for v in body_args]
    cond = mapping.get(cond, cond)
    for old, new in zip(header.args, before.args):
        replace_all_uses(old, new)
    for old, new in zip(body.args, after.args):
        replace_all_uses(old, new)
    _move_ops(header, before, stop=cbr)
    cond_op = scf.ConditionOp(cond, *body_args)
    cond_op.location = cbr.location
    before.add_op(cond_op)
    next_vals = list(back.operands)
    _move_ops(body, after, stop=back)
    y = scf.YieldOp(*next_vals)
    y.location = back.location
    after.add_op(y)
    loop = scf.WhileOp(init, [v.type for v in body_args], Region(before), Region(after))
    loop.location = br.location
    br.detach()
    br.erase(safe_erase=False)
    pre.add_op(loop)
    for old, new in zip(exit_.args, loop.results):
        replace_all_uses(old, new)
    _move_ops(exit_, pre)
    _drop_blocks(region, (header, body, exit_))
    return True


def _try_if(region: Region, head: Block) -> bool:
    cbr = head.last_op
    if cbr is None or cbr.name != "cf.cond_br":
        return False
    cond, then_b, then_args, else_b, else_args = _split_cond_br(cbr)
    if then_args or else_args or then_b is else_b:
        return False
    preds = _preds(region)
    ends = [then_b.last_op, else_b.last_op]
    if any(e is None or e.name != "cf.br" for e in ends):
        return False
    join = ends[0].successors[0]
    if ends[1].successors[0] is not join or join in (then_b, else_b, head):
        return False
    if len(preds[then_b]) != 1 or len(preds[else_b]) != 1 or len(preds[join]) != 2:
        return False
    if _used_outside(then_b, {then_b}) or _used_outside(else_b, {else_b}):
        return False
    regions = []
    for blk, end in ((then_b, ends[0]), (else_b, ends[1])):
        nb = Block()
        vals = list(end.operands)
        _move_ops(blk, nb, stop=end)
        y = scf.YieldOp(*vals)
        y.location = end.location
        nb.add_op(y)
        regions.append(Region(nb))
    if_op = scf.IfOp(cond, [a.type for a in join.args], regions[0], regions[1])
    if_op.location = cbr.location
    cbr.detach()
    cbr.erase(safe_erase=False)
    head.add_op(if_op)
    for old, new in zip(join.args, if_op.results):
        replace_all_uses(old, new)
    _move_ops(join, head)
    _drop_blocks(region, (then_b, else_b, join))
    return True


def _try_merge(region: Region, blk: Block) -> bool:
    br = blk.last_op
    if br is None or br.name != "cf.br":
        return False
    succ = br.successors[0]
    if succ is blk or len(_preds(region)[succ]) != 1:
        return False
    for old, new in zip(succ.args, br.operands):
        replace_all_uses(old, new)
    br.detach()
    br.erase(safe_erase=False)
    _move_ops(succ, blk)
    region.detach_block(succ)
    return True


def lift_region(region: Region) -> None:
    changed = True
    while changed and len(region.blocks) > 1:
        changed = False
        for blk in list(region.blocks):
            if blk.parent is not region:
                continue
            if _try_loop(region, blk) or _try_if(region, blk) or _try_merge(region, blk):
                changed = True
                break


@dataclass(frozen=True)
class LiftCfToScfPass(ModulePass):
    """Rewrite CFG loops and if/else diamonds of ``cf.br``/``cf.cond_br`` into
    ``scf.while``/``scf.if`` (the shapes in the module docstring).

    Example::

        cf.cond_br %p, ^bb1, ^bb2
      ^bb1:
        %a = arith.addf %x, %x : f32
        cf.br ^bb3(%a : f32)
      ^bb2:
        cf.br ^bb3(%x : f32)
      ^bb3(%r: f32):
        return %r : f32
        // becomes
        %r = scf.if %p -> (f32) {
          %a = arith.addf %x, %x : f32
          scf.yield %a : f32
        } else {
          scf.yield %x : f32
        }
        return %r : f32
    """

    name = "lift-cf-to-scf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in list(op.walk()):
            if o.name == "func.func" and o.regions and len(o.regions[0].blocks) > 1:
                lift_region(o.regions[0])
