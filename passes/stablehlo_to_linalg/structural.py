"""StableHLO's element-wise, shape, contraction, reduction and control-flow ops.

Each ``convert_*`` function takes one op and returns ``(new_ops, results)``
through an :class:`Emitter`; :mod:`.` (the pass) replaces the op with them.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith as xarith
from xdsl.dialects import scf
from xdsl.dialects import complex as xcomplex
from xdsl.dialects.builtin import (
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.ops import TransposeOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from tfrt.dialects import arith
from tfrt.dialects.fastir import replace_all_uses

from .common import (
    Emitter,
    attr,
    cmp_i,
    d,
    element,
    extract_slice,
    insert_slice,
    tensor_reshape,
    identity_map,
    int_attr,
    int_list,
    is_float,
    select,
    shape,
    signless,
    static_type,
)
from .index_math import reverse, to_index
from .scalar import convert, scalar_op, scalarize_region


def _out_type(op: Operation, i: int = 0) -> TensorType:
    t = static_type(op, op.results[i].type)
    return TensorType(signless(t.element_type), t.get_shape())


# --------------------------------------------------------------------------
# Element-wise


def convert_elementwise(op: Operation, e: Emitter) -> list[SSAValue]:
    out_t = _out_type(op)
    rank = len(out_t.get_shape())
    maps = []
    for o in op.operands:
        t = static_type(op, o.type)
        if len(t.get_shape()) == 0 and rank > 0:
            maps.append(AffineMap(rank, 0, ()))  # select's scalar predicate, clamp's bounds
        else:
            maps.append(identity_map(rank))
    return [e.map(list(op.operands), out_t, lambda inner, args: scalar_op(inner, op, args), maps)]


# --------------------------------------------------------------------------
# Constants and iota


def convert_constant(op: Operation, e: Emitter) -> list[SSAValue]:
    value = attr(op, "value")
    out_t = op.results[0].type
    if isinstance(value, DenseIntOrFPElementsAttr) and signless(out_t) != out_t:
        value = _signless_dense(value)
    c = xarith.ConstantOp(value, signless(out_t))
    return [e.add(c)]


def _signless_dense(value: DenseIntOrFPElementsAttr) -> DenseIntOrFPElementsAttr:
    t = value.type
    st = signless(t)
    w = element(st).width.data
    vals = []
    for v in value.get_values():
        v = int(v) & ((1 << w) - 1)
        if w > 1 and v >= 1 << (w - 1):
            v -= 1 << w
        vals.append(v)
    return DenseIntOrFPElementsAttr.from_list(st, vals)


def convert_iota(op: Operation, e: Emitter) -> list[SSAValue]:
    out_t = _out_type(op)
    dim = int_attr(op, "iota_dimension")
    orig = op.results[0].type

    def body(inner: Emitter, _args):
        i = inner.linalg_index(dim)
        return convert(inner, inner.add(arith.IndexCastOp(i, i64)), i64, orig)

    return [e.map([], out_t, body)]


# --------------------------------------------------------------------------
# Shapes


def convert_broadcast_in_dim(op: Operation, e: Emitter) -> list[SSAValue]:
    x = op.operands[0]
    in_shape = shape(static_type(op, x.type))
    out_t = _out_type(op)
    out_shape = out_t.get_shape()
    dims = int_list(op, "broadcast_dimensions", ())
    if len(dims) != len(in_shape):
        raise e.error("broadcast_dimensions must name one result dimension per operand dimension")
    # Dimensions of size 1 that expand are reshaped away first, so that the
    # indexing map is a projected permutation (MLIR's broadcast form).
    kept = [i for i in range(len(in_shape)) if not (in_shape[i] == 1 and out_shape[dims[i]] != 1)]
    if len(kept) != len(in_shape):
        x = reshape(e, x, TensorType(signless(element(x.type)), [in_shape[i] for i in kept]))
    m = AffineMap(len(out_shape), 0, tuple(d(dims[i]) for i in kept))
    if tuple(shape(x.type)) == tuple(out_shape) and all(dims[i] == i for i in kept):
        return [x]  # nothing to broadcast
    # (A broadcasting linalg.generic, which fuse-elementwise folds into the
    # element-wise op that reads it; a reshape would stay a kernel of its own.)
    return [e.map([x], out_t, lambda inner, args: args[0], [m])]


def convert_broadcast(op: Operation, e: Emitter) -> list[SSAValue]:
    x = op.operands[0]
    in_rank = len(shape(static_type(op, x.type)))
    out_t = _out_type(op)
    n = len(out_t.get_shape()) - in_rank
    m = AffineMap(len(out_t.get_shape()), 0, tuple(d(n + i) for i in range(in_rank)))
    return [e.map([x], out_t, lambda inner, args: args[0], [m])]


reshape = tensor_reshape  # ``x`` with the static shape of a type


def convert_reshape(op: Operation, e: Emitter) -> list[SSAValue]:
    static_type(op, op.operands[0].type)
    return [reshape(e, op.operands[0], _out_type(op))]


def transpose(e: Emitter, x: SSAValue, perm: Sequence[int]) -> SSAValue:
    if list(perm) == list(range(len(perm))):
        return x
    s = shape(x.type)
    if isinstance(element(x.type), ComplexType):  # (xDSL's named op takes no complex type)
        inv = [0] * len(perm)
        for k, p in enumerate(perm):
            inv[p] = k
        m = AffineMap(len(perm), 0, tuple(AffineDimExpr(inv[p]) for p in range(len(perm))))
        return e.map([x], TensorType(element(x.type), [s[p] for p in perm]), lambda b, a: a[0], [m])
    init = e.empty([s[p] for p in perm], element(x.type))
    return e.add(TransposeOp(x, init, DenseArrayBase.from_list(i64, list(perm))))


def convert_transpose(op: Operation, e: Emitter) -> list[SSAValue]:
    static_type(op, op.operands[0].type)
    perm = int_list(op, "permutation")
    return [transpose(e, op.operands[0], perm)]


def convert_concatenate(op: Operation, e: Emitter) -> list[SSAValue]:
    dim = int_attr(op, "dimension")
    for o in op.operands:
        static_type(op, o.type)
    out_t = _out_type(op)
    if len(op.operands) == 1:
        return [op.operands[0]]
    # tensor.insert_slice of each operand into an empty tensor of the result's shape
    acc = e.empty(out_t.get_shape(), out_t.element_type)
    offset = 0
    rank = len(out_t.get_shape())
    for o in op.operands:
        s = shape(o.type)
        offsets = [0] * rank
        offsets[dim] = offset
        acc = insert_slice(e, o, acc, offsets, list(s), [1] * rank)
        offset += s[dim]
    return [acc]


def convert_slice(op: Operation, e: Emitter) -> list[SSAValue]:
    x = op.operands[0]
    static_type(op, x.type)
    start = int_list(op, "start_indices")
    limit = int_list(op, "limit_indices")
    strides = int_list(op, "strides", [1] * len(start))
    sizes = [max(0, -(-(hi - lo) // st)) for lo, hi, st in zip(start, limit, strides)]
    out_t = _out_type(op)
    return [extract_slice(e, x, list(start), sizes, list(strides), out_t)]


def _clamped_starts(e: Emitter, op: Operation, starts: Sequence[SSAValue], operand_shape, sizes) -> list[SSAValue]:
    """StableHLO's dynamic start indices: each clamped to [0, dim - size], as index."""
    out = []
    for s, dim, size in zip(starts, operand_shape, sizes):
        v = e.extract(s)
        idx = to_index(e, v, s.type)
        zero = e.index(0)
        hi = e.index(dim - size)
        idx = e.add(xarith.MaxSIOp(idx, zero))
        idx = e.add(xarith.MinSIOp(idx, hi))
        out.append(idx)
    return out


def convert_dynamic_slice(op: Operation, e: Emitter) -> list[SSAValue]:
    x = op.operands[0]
    in_shape = shape(static_type(op, x.type))
    sizes = list(int_list(op, "slice_sizes"))
    starts = _clamped_starts(e, op, op.operands[1:], in_shape, sizes)
    out_t = _out_type(op)
    return [extract_slice(e, x, starts, sizes, [1] * len(in_shape), out_t)]


def convert_dynamic_update_slice(op: Operation, e: Emitter) -> list[SSAValue]:
    x, update = op.operands[0], op.operands[1]
    in_shape = shape(static_type(op, x.type))
    sizes = list(shape(static_type(op, update.type)))
    starts = _clamped_starts(e, op, op.operands[2:], in_shape, sizes)
    return [insert_slice(e, update, x, starts, sizes, [1] * len(in_shape))]


def convert_pad(op: Operation, e: Emitter) -> list[SSAValue]:
    x, pad_value = op.operands
    in_shape = shape(static_type(op, x.type))
    low = int_list(op, "edge_padding_low")
    high = int_list(op, "edge_padding_high")
    interior = int_list(op, "interior_padding", [0] * len(in_shape))
    out_t = _out_type(op)
    rank = len(in_shape)
    v = e.extract(pad_value)
    if any(i < 0 for i in interior):
        raise e.error("interior padding must be non-negative")
    # Pad with the non-negative parts, then cut what negative padding removes.
    pos_low = [max(0, l) for l in low]
    pos_high = [max(0, h) for h in high]
    dilated = [s + (s - 1) * i if s > 0 else 0 for s, i in zip(in_shape, interior)]
    full_shape = [pl + dl + ph for pl, dl, ph in zip(pos_low, dilated, pos_high)]
    acc = e.filled(full_shape, v)
    if all(s > 0 for s in in_shape):
        acc = insert_slice(e, x, acc, pos_low, list(in_shape), [i + 1 for i in interior])
    if any(l < 0 for l in low) or any(h < 0 for h in high):
        offsets = [max(0, -l) for l in low]
        acc = extract_slice(e, acc, offsets, list(out_t.get_shape()), [1] * rank, out_t)
    return [acc]


def convert_reverse(op: Operation, e: Emitter) -> list[SSAValue]:
    x = op.operands[0]
    static_type(op, x.type)
    return [reverse(e, x, int_list(op, "dimensions"))]


# --------------------------------------------------------------------------
# Contractions


def dot_general(
    e: Emitter, op: Operation, lhs: SSAValue, rhs: SSAValue, lb, rb, lc, rc, out_t: TensorType
) -> SSAValue:
    ls, rs = shape(lhs.type), shape(rhs.type)
    lfree = [i for i in range(len(ls)) if i not in lb and i not in lc]
    rfree = [i for i in range(len(rs)) if i not in rb and i not in rc]
    nb, nl, nr, nc = len(lb), len(lfree), len(rfree), len(lc)
    loops = nb + nl + nr + nc
    lmap = [None] * len(ls)
    rmap = [None] * len(rs)
    for k, (a, b) in enumerate(zip(lb, rb)):
        lmap[a] = d(k)
        rmap[b] = d(k)
    for k, a in enumerate(lfree):
        lmap[a] = d(nb + k)
    for k, b in enumerate(rfree):
        rmap[b] = d(nb + nl + k)
    for k, (a, b) in enumerate(zip(lc, rc)):
        lmap[a] = d(nb + nl + nr + k)
        rmap[b] = d(nb + nl + nr + k)
    out_map = AffineMap(loops, 0, tuple(d(i) for i in range(nb + nl + nr)))
    expected = [ls[a] for a in lb] + [ls[a] for a in lfree] + [rs[b] for b in rfree]
    if list(out_t.get_shape()) != expected:
        raise e.error(f"result shape {list(out_t.get_shape())} must be {expected}")
    acc_t = out_t.element_type
    if isinstance(acc_t, ComplexType):  # (0, 0), made in a body
        def zeros(inner: Emitter, args):
            part_zero = inner.scalar(0.0, acc_t.element_type)
            return inner.add(xcomplex.CreateOp(part_zero, part_zero, acc_t))

        init = e.map([], out_t, zeros)
    else:
        zero = e.scalar(0, acc_t) if not is_float(acc_t) else e.scalar(0.0, acc_t)
        init = e.filled(out_t.get_shape(), zero)
    orig_l, orig_r, orig_o = op.operands[0].type, op.operands[1].type, op.results[0].type

    def body(inner: Emitter, args):
        a = convert(inner, args[0], orig_l, orig_o)
        b = convert(inner, args[1], orig_r, orig_o)
        if isinstance(acc_t, ComplexType):
            return inner.add(xcomplex.AddOp(args[2], inner.add(xcomplex.MulOp(a, b))))
        if is_float(acc_t):
            return inner.add(xarith.AddfOp(args[2], inner.add(xarith.MulfOp(a, b))))
        if element(acc_t).width.data == 1:
            return inner.add(xarith.OrIOp(args[2], inner.add(xarith.AndIOp(a, b))))
        return inner.add(xarith.AddiOp(args[2], inner.add(xarith.MuliOp(a, b))))

    iters = ["parallel"] * (nb + nl + nr) + ["reduction"] * nc
    return e.generic(
        [lhs, rhs], [init],
        [AffineMap(loops, 0, tuple(lmap)), AffineMap(loops, 0, tuple(rmap)), out_map], iters, body,
    )[0]


def convert_dot_general(op: Operation, e: Emitter) -> list[SSAValue]:
    lhs, rhs = op.operands[0], op.operands[1]
    static_type(op, lhs.type)
    static_type(op, rhs.type)
    dn = attr(op, "dot_dimension_numbers")
    if dn is None:
        raise e.error("dot_general needs dot_dimension_numbers")
    lb = tuple(dn.lhs_batching_dimensions)
    rb = tuple(dn.rhs_batching_dimensions)
    lc = tuple(dn.lhs_contracting_dimensions)
    rc = tuple(dn.rhs_contracting_dimensions)
    return [dot_general(e, op, lhs, rhs, lb, rb, lc, rc, _out_type(op))]


def convert_dot(op: Operation, e: Emitter) -> list[SSAValue]:
    lhs, rhs = op.operands[0], op.operands[1]
    lr = len(shape(static_type(op, lhs.type)))
    rr = len(shape(static_type(op, rhs.type)))
    if lr not in (1, 2) or rr not in (1, 2):
        raise e.error("dot takes vectors and matrices")
    return [dot_general(e, op, lhs, rhs, (), (), (lr - 1,), (0,), _out_type(op))]


# --------------------------------------------------------------------------
# Reductions


def convert_reduce(op: Operation, e: Emitter) -> list[SSAValue]:
    n = len(op.operands) // 2
    inputs, inits = list(op.operands[:n]), list(op.operands[n:])
    in_shape = shape(static_type(op, inputs[0].type))
    dims = set(int_list(op, "dimensions"))
    rank = len(in_shape)
    out_shape = [s for i, s in enumerate(in_shape) if i not in dims]
    # Loops: the kept dimensions first, then the reduced ones (in order).
    kept = [i for i in range(rank) if i not in dims]
    red = [i for i in range(rank) if i in dims]
    order = kept + red
    pos = {dim: k for k, dim in enumerate(order)}
    in_map = AffineMap(rank, 0, tuple(d(pos[i]) for i in range(rank)))
    out_map = AffineMap(rank, 0, tuple(d(k) for k in range(len(kept))))
    outs = []
    for init in inits:
        v = e.extract(init)
        outs.append(e.filled(out_shape, v))
    region = op.regions[0]

    def body(inner: Emitter, args):
        # The body takes (accumulators..., elements...): the results so far first.
        accs, elems = args[n:], args[:n]
        return scalarize_region(inner, region, [*accs, *elems], op)

    iters = ["parallel"] * len(kept) + ["reduction"] * len(red)
    return e.generic(inputs, outs, [in_map] * n + [out_map] * n, iters, body)


# --------------------------------------------------------------------------
# Control flow


def _to_i1(e: Emitter, pred: SSAValue) -> SSAValue:
    return e.extract(pred)


def _move_body(src: Region, dest_block: Block, terminator_name: str, make_terminator) -> None:
    """Move the ops of ``src``'s single block into ``dest_block`` (whose arguments
    replace the source block's), replacing its ``stablehlo.return``."""
    block = src.blocks.first
    for old, new in zip(block.args, dest_block.args):
        replace_all_uses(old, new)
    for inner in list(block.ops):
        inner.detach()
        if inner.name == "stablehlo.return":
            term = make_terminator(list(inner.operands))
            term.location = inner.location
            dest_block.add_op(term)
            inner.erase(safe_erase=False)
        else:
            dest_block.add_op(inner)


def convert_while(op: Operation, e: Emitter) -> list[SSAValue]:
    types = [signless(v.type) for v in op.operands]
    cond_region, body_region = op.regions[0], op.regions[1]
    before = Block(arg_types=types)
    after = Block(arg_types=types)

    def cond_term(vals):
        inner = Emitter(op)
        flag = inner.extract(vals[0])
        for o in inner.ops:
            before.add_op(o)
        return scf.ConditionOp(flag, *before.args)

    _move_body(cond_region, before, "stablehlo.return", cond_term)
    _move_body(body_region, after, "stablehlo.return", lambda vals: scf.YieldOp(*vals))
    w = scf.WhileOp(list(op.operands), types, Region(before), Region(after))
    e.add(w)
    return list(w.results)


def convert_if(op: Operation, e: Emitter) -> list[SSAValue]:
    flag = _to_i1(e, op.operands[0])
    types = [signless(r.type) for r in op.results]
    regions = []
    for r in op.regions:
        block = Block()
        _move_body(r, block, "stablehlo.return", lambda vals: scf.YieldOp(*vals))
        regions.append(Region(block))
    if_op = scf.IfOp(flag, types, regions[0], regions[1])
    e.add(if_op)
    return list(if_op.results)


def convert_case(op: Operation, e: Emitter) -> list[SSAValue]:
    """``case``: branch ``index``, and the last branch for any index out of range."""
    idx_t = op.operands[0]
    n = len(op.regions)
    types = [signless(r.type) for r in op.results]
    v = e.extract(idx_t)
    idx = e.add(arith.IndexCastOp(v, IndexType()))
    bad = e.add(
        xarith.OrIOp(cmp_i(e, "slt", idx, e.index(0)), cmp_i(e, "sge", idx, e.index(n)))
    )
    idx = select(e, bad, e.index(n - 1), idx)
    regions = []
    for r in op.regions:
        block = Block()
        _move_body(r, block, "stablehlo.return", lambda vals: scf.YieldOp(*vals))
        regions.append(Region(block))
    return _branch_chain(e, idx, regions, types, 0)


def _branch_chain(e: Emitter, idx: SSAValue, regions: list[Region], types, k: int) -> list[SSAValue]:
    """``scf.if idx == k`` then branch k, else the chain of the rest (the last
    branch alone when it is the only one left): nested ``scf.if``s."""
    if k == len(regions) - 1:
        block = regions[k].blocks.first
        results: list[SSAValue] = []
        for inner in list(block.ops):
            inner.detach()
            if isinstance(inner, scf.YieldOp):
                results = list(inner.operands)
                inner.erase(safe_erase=False)
                break
            e.ops.append(inner)
        return results
    flag = cmp_i(e, "eq", idx, e.index(k))
    else_e = Emitter(e.at)
    rest = _branch_chain(else_e, idx, regions, types, k + 1)
    y = scf.YieldOp(*rest)
    y.location = e.at.location
    else_block = Block()
    for o in [*else_e.ops, y]:
        else_block.add_op(o)
    if_op = scf.IfOp(flag, types, regions[k], Region(else_block))
    e.add(if_op)
    return list(if_op.results)
