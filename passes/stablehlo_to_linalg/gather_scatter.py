"""StableHLO's ``gather``, ``scatter`` and ``torch_index_select``.

* ``gather``: one ``linalg.generic`` over the result; its body computes,
  for each result index, the operand index the specification defines (the
  batch index picks the start index from ``start_indices``, each component
  clamped to ``[0, dim - slice_size]``; batching dimensions; offsets) and
  reads the operand with ``tensor.extract``.
* ``scatter``: ``scf.for`` loops over the scatter points (the update
  dimensions that are not window dimensions); each iteration reads the
  start index, takes the update window and the results' window
  (``tensor.extract_slice``), applies the update computation to every
  element of the window (a ``linalg.generic`` whose body is the op's
  body on scalars) and writes the window back (``tensor.insert_slice``).
  The results are worked on padded by the window size in every scattered
  dimension, the start index clamped into the padding, so that the part
  of a window outside the operand falls into the padding and is dropped
  at the end: an update element whose result index is out of bounds is
  skipped, as the specification says, element by element.  Updates are
  applied in the order of the scatter points (row-major).
* ``torch_index_select``: a ``linalg.generic`` reading the operand at the
  index the index tensor holds (an index out of range is a run-time
  error, as in PyTorch).

Example::

    %r = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1],
           collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
           slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    // becomes
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], ...} outs(%e) {
      %b = linalg.index 0 : index
      %j = linalg.index 1 : index
      %s = tensor.extract %i[%b, %c0] : tensor<2x1xi32>
      %k = arith.index_cast %s : i32 to index   // then clamped to [0, 4]
      %v = tensor.extract %x[%k, %j] : tensor<5x3xf32>
      linalg.yield %v : f32
    }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

from .common import (
    Emitter,
    attr,
    element,
    extract_slice,
    identity_map,
    insert_slice,
    int_attr,
    int_list,
    shape,
    signless,
    static_type,
)
from .index_math import INDEX, add, clamp, numel, pad, reshape, run_body, to_index
from .scalar import convert


def _out_type(op: Operation, i: int = 0) -> TensorType:
    t = static_type(op, op.results[i].type)
    return TensorType(signless(t.element_type), t.get_shape())


def _start_component(
    e: Emitter, indices: SSAValue, orig_t, batch: Sequence[SSAValue], ivd: int, k: int
) -> SSAValue:
    """Component ``k`` of the start index at ``batch`` (``index_vector_dim`` ``ivd``)."""
    rank = len(shape(indices.type))
    ids = list(batch[:ivd]) + [e.index(k)] + list(batch[ivd:]) if ivd < rank else list(batch)
    return to_index(e, e.extract(indices, ids), orig_t)


# --------------------------------------------------------------------------
# gather


def convert_gather(op: Operation, e: Emitter) -> list[SSAValue]:
    operand, indices = op.operands[0], op.operands[1]
    op_shape = shape(static_type(op, operand.type))
    idx_t = static_type(op, indices.type)
    idx_shape = shape(idx_t)
    out_t = _out_type(op)
    out_shape = list(out_t.get_shape())
    dn = attr(op, "dimension_numbers")
    if dn is None:
        raise e.error("gather needs dimension_numbers")
    offset_dims = list(dn.offset_dims)
    collapsed = set(dn.collapsed_slice_dims)
    obatch = list(dn.operand_batching_dims)
    sbatch = list(dn.start_indices_batching_dims)
    sim = list(dn.start_index_map)
    ivd = dn.index_vector_dim
    sizes = list(int_list(op, "slice_sizes", ()))
    rank_op = len(op_shape)
    if len(sizes) != rank_op:
        raise e.error(f"slice_sizes must have {rank_op} entries")
    for dim, size in enumerate(sizes):
        if not 0 <= size <= op_shape[dim]:
            raise e.error(
                f"slice size {size} of dimension {dim} is out of range [0, {op_shape[dim]}]"
            )
    batch_dims = [dd for dd in range(len(out_shape)) if dd not in offset_dims]
    offset_operand = [dd for dd in range(rank_op) if dd not in collapsed and dd not in obatch]
    if len(offset_operand) != len(offset_dims):
        raise e.error(
            "offset_dims must name one result dimension per operand dimension neither collapsed nor batching"
        )
    n_vec = idx_shape[ivd] if ivd < len(idx_shape) else 1
    if n_vec != len(sim):
        raise e.error(f"start_index_map must have {n_vec} entries (the index vector's size)")
    if numel(out_shape) == 0:
        return [e.empty(out_shape, out_t.element_type)]

    def body(inner: Emitter, _args):
        batch = [inner.linalg_index(dd) for dd in batch_dims]
        full: list[SSAValue | None] = [None] * rank_op
        for k, dop in enumerate(sim):
            v = _start_component(inner, indices, idx_t, batch, ivd, k)
            full[dop] = clamp(inner, v, 0, op_shape[dop] - sizes[dop])
        for i, dop in enumerate(obatch):
            ds = sbatch[i]
            b = batch[ds - (0 if ds < ivd else 1)]
            full[dop] = b if full[dop] is None else add(inner, full[dop], b)
        for j, dop in enumerate(offset_operand):
            o = inner.linalg_index(offset_dims[j])
            full[dop] = o if full[dop] is None else add(inner, full[dop], o)
        ids = [v if v is not None else inner.index(0) for v in full]
        return inner.extract(operand, ids)

    return [e.map([], out_t, body)]


# --------------------------------------------------------------------------
# torch_index_select


def convert_torch_index_select(op: Operation, e: Emitter) -> list[SSAValue]:
    operand, index = op.operands
    op_shape = shape(static_type(op, operand.type))
    idx_t = static_type(op, index.type)
    idx_rank = len(shape(idx_t))
    dim = int_attr(op, "dim", 0)
    nb = int_attr(op, "batch_dims", 0)
    if dim < 0:
        dim += len(op_shape)
    if nb < 0:
        nb += idx_rank
    out_t = _out_type(op)
    if not 0 <= nb <= min(dim, idx_rank) or not 0 <= dim < len(op_shape):
        raise e.error(f"dim {dim} and batch_dims {nb} are out of range")
    want = [*op_shape[:dim], *shape(idx_t)[nb:], *op_shape[dim + 1 :]]
    if list(out_t.get_shape()) != want:
        raise e.error(f"the result shape must be {want}")
    if numel(want) == 0:
        return [e.empty(want, out_t.element_type)]

    def body(inner: Emitter, _args):
        lead = [inner.linalg_index(i) for i in range(dim)]
        sel = [inner.linalg_index(dim + j) for j in range(idx_rank - nb)]
        i = to_index(inner, inner.extract(index, [*lead[:nb], *sel]), idx_t)
        rest = [inner.linalg_index(dim + idx_rank - nb + j) for j in range(len(op_shape) - dim - 1)]
        return inner.extract(operand, [*lead, i, *rest])

    return [e.map([], out_t, body)]


# --------------------------------------------------------------------------
# scatter


def loop_nest(
    e: Emitter,
    extents: Sequence[int],
    carried: Sequence[SSAValue],
    body: Callable[[Emitter, list[SSAValue], list[SSAValue]], list[SSAValue]],
) -> list[SSAValue]:
    """``scf.for`` loops over ``extents`` (row-major) carrying ``carried``;
    ``body(emitter, induction_variables, carried)`` returns the new values."""

    def level(
        outer: Emitter, depth: int, ivs: list[SSAValue], values: list[SSAValue]
    ) -> list[SSAValue]:
        if depth == len(extents):
            return body(outer, ivs, values)
        block = Block(arg_types=[INDEX, *(v.type for v in values)])
        inner = Emitter(outer.at)
        new = level(inner, depth + 1, [*ivs, block.args[0]], list(block.args[1:]))
        for o in inner.ops:
            block.add_op(o)
        y = scf.YieldOp(*new)
        y.location = outer.at.location
        block.add_op(y)
        lb, ub, step = outer.index(0), outer.index(extents[depth]), outer.index(1)
        loop = scf.ForOp(lb, ub, step, values, Region(block))
        outer.add(loop)
        return list(loop.results)

    return level(e, 0, [], list(carried))


def convert_scatter(op: Operation, e: Emitter) -> list[SSAValue]:
    n = (len(op.operands) - 1) // 2
    inputs = list(op.operands[:n])
    indices = op.operands[n]
    updates = list(op.operands[n + 1 :])
    in_shape = shape(static_type(op, inputs[0].type))
    idx_t = static_type(op, indices.type)
    idx_shape = shape(idx_t)
    upd_shape = shape(static_type(op, updates[0].type))
    dn = attr(op, "scatter_dimension_numbers")
    if dn is None:
        raise e.error("scatter needs scatter_dimension_numbers")
    uwd = list(dn.update_window_dims)
    inserted = set(dn.inserted_window_dims)
    ibatch = list(dn.input_batching_dims)
    sbatch = list(dn.scatter_indices_batching_dims)
    sdims = list(dn.scatter_dims_to_operand_dims)
    ivd = dn.index_vector_dim
    rank = len(in_shape)
    window_operand = [dd for dd in range(rank) if dd not in inserted and dd not in ibatch]
    if len(window_operand) != len(uwd):
        raise e.error(
            "update_window_dims must name one update dimension per operand dimension neither inserted nor batching"
        )
    n_vec = idx_shape[ivd] if ivd < len(idx_shape) else 1
    if n_vec != len(sdims):
        raise e.error(
            f"scatter_dims_to_operand_dims must have {n_vec} entries (the index vector's size)"
        )
    window = [1] * rank
    for j, dop in enumerate(window_operand):
        window[dop] = upd_shape[uwd[j]]
        if window[dop] > in_shape[dop]:
            raise e.error(
                f"update window dimension {uwd[j]} is larger than operand dimension {dop}"
            )
    scatter_dims = [dd for dd in range(len(upd_shape)) if dd not in uwd]
    extents = [upd_shape[dd] for dd in scatter_dims]
    if numel(upd_shape) == 0 or numel(in_shape) == 0:
        return inputs
    region = op.regions[0]
    body_types = [a.type for a in region.blocks.first.args] if region.blocks.first else []
    upd_types = [u.type for u in updates]

    # Pad every scattered dimension by its window size on both sides.
    lows = [window[dd] if dd in sdims else 0 for dd in range(rank)]
    padded = []
    for x in inputs:
        some = e.extract(x, [e.index(0)] * rank)
        padded.append(pad(e, x, some, lows, lows))
    sizes_upd = [1 if dd in scatter_dims else upd_shape[dd] for dd in range(len(upd_shape))]

    def step(inner: Emitter, ivs: list[SSAValue], results: list[SSAValue]) -> list[SSAValue]:
        starts: list[SSAValue | int] = [lows[dd] for dd in range(rank)]
        for k, dop in enumerate(sdims):
            v = _start_component(inner, indices, idx_t, ivs, ivd, k)
            v = clamp(inner, v, -window[dop], in_shape[dop])
            starts[dop] = add(inner, v, lows[dop])
        for i, dop in enumerate(ibatch):
            ds = sbatch[i]
            # (a batching dimension is never a scattered one: not padded)
            starts[dop] = ivs[ds - (0 if ds < ivd else 1)]
        upd_offsets: list[SSAValue | int] = [0] * len(upd_shape)
        for j, dd in enumerate(scatter_dims):
            upd_offsets[dd] = ivs[j]
        curs, upds = [], []
        for r in results:
            t = TensorType(signless(element(r.type)), window)
            curs.append(extract_slice(inner, r, starts, window, [1] * rank, t))
        for u in updates:
            t = TensorType(signless(element(u.type)), sizes_upd)
            sl = extract_slice(inner, u, upd_offsets, sizes_upd, [1] * len(upd_shape), t)
            upds.append(reshape(inner, sl, window))

        def apply(b: Emitter, args):
            cur, upd = list(args[:n]), list(args[n : 2 * n])
            if len(body_types) == 2 * n:
                upd = [
                    convert(b, v, src, dst) for v, src, dst in zip(upd, upd_types, body_types[n:])
                ]
            return run_body(b, region, [*cur, *upd], op)

        rank_w = len(window)
        ident = identity_map(rank_w)
        outs = [inner.empty(window, element(r.type)) for r in results]
        new = inner.generic([*curs, *upds], outs, [ident] * (3 * n), ["parallel"] * rank_w, apply)
        return [insert_slice(inner, v, r, starts, window, [1] * rank) for v, r in zip(new, results)]

    final = loop_nest(e, extents, padded, step)
    out = []
    for v, x in zip(final, inputs):
        if not any(lows):
            out.append(v)
            continue
        t = TensorType(signless(element(x.type)), list(in_shape))
        out.append(extract_slice(e, v, lows, list(in_shape), [1] * rank, t))
    return out


CONVERSIONS = {
    "stablehlo.gather": convert_gather,
    "stablehlo.scatter": convert_scatter,
    "stablehlo.torch_index_select": convert_torch_index_select,
}
