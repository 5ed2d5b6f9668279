"""StableHLO's window ops: ``convolution``, ``reduce_window``, ``select_and_scatter``.

Each follows the StableHLO specification's definition:

* ``convolution``: the operands are transposed to a canonical layout (lhs
  ``[batch, spatial..., feature]``, rhs ``[spatial..., in, out]``), the
  kernel reversed where ``window_reversal`` says, the lhs padded with zeros
  (``padding``; ``lhs_dilation`` is interior padding).  Without groups, or
  with feature groups in 2-D, a named linalg convolution computes it
  (``linalg.conv_{1d_nwc_wcf,2d_nhwc_hwcf,3d_ndhwc_dhwcf}``,
  ``linalg.conv_2d_nhwgc_gfhwc``: the compiler's fast paths), strides and
  ``rhs_dilation`` as the op's ``strides``/``dilations``.  Otherwise
  (batch groups, feature groups in 1-D or 3-D, unsigned or boolean
  element types) the windows are gathered by a ``linalg.generic`` with
  strided maps and contracted by a second one, each group a loop.
  The products are computed in the result's element type.
* ``reduce_window``: each input padded with its init value (``padding``;
  ``base_dilations`` as interior padding), then one ``linalg.generic``
  whose window dimensions are reduction loops (``o * stride + k *
  dilation``) and whose body is the op's body on scalars.
* ``select_and_scatter``: one ``linalg.generic`` reduces each window to the
  position ``select`` picks (the first element of the window, then each
  later one that ``select(current, candidate)`` rejects the current one
  for; padding is never selected), a second one scatters: each element of
  the result starts at ``init_value`` and combines, with ``scatter``, the
  source value of every window that selected it.

Example::

    %r = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 2>,
           window_strides = array<i64: 2>}> ({ stablehlo.maximum ... })
           : (tensor<6xf32>, tensor<f32>) -> tensor<3xf32>
    // becomes
    %init = tensor.extract %c[] : tensor<f32>
    %out = linalg.fill ins(%init : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 * 2 + d1)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
           ins(%x : tensor<6xf32>) outs(%out : tensor<3xf32>) { maximumf }
"""

from __future__ import annotations

from collections.abc import Sequence

from tfrt.dialects import arith
from xdsl.dialects import arith as xarith
from xdsl.dialects.builtin import (
    ComplexType,
    DenseIntOrFPElementsAttr,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from .common import (
    Emitter,
    attr,
    cmp_i,
    d,
    element,
    int_attr,
    int_list,
    int_matrix,
    is_float,
    is_unsigned,
    select,
    shape,
    signless,
    static_type,
    width,
)
from .index_math import add, and_, in_range, numel, pad, reshape, reverse, run_body, slice_to
from .scalar import convert
from .structural import transpose


def _elem(t) -> object:
    return signless(element(t))


def _zero(e: Emitter, t) -> SSAValue:
    el = _elem(t)
    if isinstance(el, ComplexType):
        raise e.error("complex convolutions are not supported")
    return e.scalar(0.0 if is_float(el) else 0, el)


def _window_out(size: int, window: int, stride: int, dilation: int) -> int:
    span = (window - 1) * dilation + 1
    return 0 if size < span else (size - span) // stride + 1


def _check_type(e: Emitter, got: Sequence[int], result_t: TensorType, what: str) -> None:
    want = list(result_t.get_shape())
    if list(got) != want:
        raise e.error(f"{what}: the result shape must be {list(got)}, not {want}")


# --------------------------------------------------------------------------
# convolution


def _i64_dense(values: Sequence[int]) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), list(values))


def _named_conv(
    e: Emitter,
    name: str,
    x: SSAValue,
    k: SSAValue,
    out_shape: Sequence[int],
    out_elem,
    strides: Sequence[int],
    dilations: Sequence[int],
) -> SSAValue:
    from tfrt.dialects.linalg_named import OPS

    init = e.filled(out_shape, _zero(e, out_elem))
    cls = OPS[name]
    props = {"strides": _i64_dense(strides), "dilations": _i64_dense(dilations)}
    region = cls.get_hidden_region([x, k], [init], props)
    op = cls([x, k], [init], [init.type], properties=props, hidden_region=region)
    return e.add(op)


def _mac(inner: Emitter, a: SSAValue, b: SSAValue, acc: SSAValue, lt, rt, ot) -> SSAValue:
    """``acc + a * b`` in the result type (``a``, ``b`` converted from their types)."""
    a = convert(inner, a, lt, ot)
    b = convert(inner, b, rt, ot)
    el = _elem(ot)
    if is_float(el):
        return inner.add(xarith.AddfOp(acc, inner.add(xarith.MulfOp(a, b))))
    if width(el) == 1:
        return inner.add(xarith.OrIOp(acc, inner.add(xarith.AndIOp(a, b))))
    return inner.add(xarith.AddiOp(acc, inner.add(xarith.MuliOp(a, b))))


def convert_convolution(op: Operation, e: Emitter) -> list[SSAValue]:
    lhs, rhs = op.operands[0], op.operands[1]
    lt = static_type(op, lhs.type)
    rt = static_type(op, rhs.type)
    ot = static_type(op, op.results[0].type)
    for t in (lt, rt, ot):
        el = element(t)
        if not isinstance(el, IntegerType) and not is_float(el) or isinstance(el, ComplexType):
            raise e.error(f"convolution of '{el}' elements is not supported")
    dn = attr(op, "dimension_numbers")
    if dn is None:
        raise e.error("convolution needs dimension_numbers")
    ib, ifd = dn.input_batch_dimension, dn.input_feature_dimension
    isp = list(dn.input_spatial_dimensions)
    kif, kof = dn.kernel_input_feature_dimension, dn.kernel_output_feature_dimension
    ksp = list(dn.kernel_spatial_dimensions)
    ob, ofd = dn.output_batch_dimension, dn.output_feature_dimension
    osp = list(dn.output_spatial_dimensions)
    nsp = len(isp)
    strides = list(int_list(op, "window_strides", [1] * nsp))
    padding = int_matrix(op, "padding") or [[0, 0]] * nsp
    lhs_dil = list(int_list(op, "lhs_dilation", [1] * nsp))
    rhs_dil = list(int_list(op, "rhs_dilation", [1] * nsp))
    reversal = list(int_list(op, "window_reversal", [0] * nsp))
    groups = int_attr(op, "feature_group_count", 1)
    bgroups = int_attr(op, "batch_group_count", 1)
    for name, v in (
        ("window_strides", strides),
        ("padding", padding),
        ("lhs_dilation", lhs_dil),
        ("rhs_dilation", rhs_dil),
        ("window_reversal", reversal),
    ):
        if len(v) != nsp:
            raise e.error(f"{name} must have {nsp} entries, one per spatial dimension")
    if min([*strides, *lhs_dil, *rhs_dil, 1]) < 1:
        raise e.error("window strides and dilations must be positive")
    if groups < 1 or bgroups < 1 or (groups > 1 and bgroups > 1):
        raise e.error(
            "feature_group_count and batch_group_count must be positive, and one of them 1"
        )

    # Canonical layouts: x [N, S..., C], k [K..., I, O].
    x = transpose(e, lhs, [ib, *isp, ifd])
    k = transpose(e, rhs, [*ksp, kif, kof])
    k = reverse(e, k, [i for i in range(nsp) if reversal[i]])
    zero_in = _zero(e, lt)
    x = pad(
        e,
        x,
        zero_in,
        [0, *(p[0] for p in padding), 0],
        [0, *(p[1] for p in padding), 0],
        [0, *(v - 1 for v in lhs_dil), 0],
    )
    xs, ks = shape(x.type), shape(k.type)
    n, c = xs[0], xs[-1]
    kwin, kin, kout = ks[:nsp], ks[nsp], ks[nsp + 1]
    if n % bgroups or c % groups or kout % (groups * bgroups) or kin * groups != c:
        raise e.error(
            f"the operands' feature and batch sizes ({c} features, {n} batch, kernel {kin} in, {kout} out) "
            f"do not fit feature_group_count {groups} and batch_group_count {bgroups}"
        )
    out_sp = [_window_out(s, w, st, dl) for s, w, st, dl in zip(xs[1:-1], kwin, strides, rhs_dil)]
    canon = [n // bgroups, *out_sp, kout]
    perm = [0] * (nsp + 2)
    perm[ob] = 0
    perm[ofd] = nsp + 1
    for i, dim in enumerate(osp):
        perm[dim] = 1 + i
    _check_type(e, [canon[p] for p in perm], ot, "convolution")
    out_elem = _elem(ot)
    if numel(canon) == 0:
        return [e.empty(list(ot.get_shape()), out_elem)]
    if numel(kwin) * kin == 0:
        return [e.filled(list(ot.get_shape()), _zero(e, ot))]
    needed = [
        (o - 1) * st + (w - 1) * dl + 1 for o, w, st, dl in zip(out_sp, kwin, strides, rhs_dil)
    ]
    x = slice_to(e, x, [n, *needed, c])

    named_types = not any(is_unsigned(t) for t in (lt, rt, ot)) and (
        all(is_float(t) for t in (lt, rt, ot)) or all(not is_float(t) for t in (lt, rt, ot))
    )
    result = None
    if named_types and bgroups == 1 and groups == 1 and nsp in (1, 2, 3):
        name = {
            1: "linalg.conv_1d_nwc_wcf",
            2: "linalg.conv_2d_nhwc_hwcf",
            3: "linalg.conv_3d_ndhwc_dhwcf",
        }[nsp]
        result = _named_conv(e, name, x, k, canon, out_elem, strides, rhs_dil)
    elif named_types and bgroups == 1 and nsp == 2:
        fg = kout // groups
        xg = reshape(e, x, [n, *needed, groups, kin])
        kg = reshape(e, k, [*kwin, kin, groups, fg])
        kg = transpose(e, kg, [3, 4, 0, 1, 2])
        og = _named_conv(
            e,
            "linalg.conv_2d_nhwgc_gfhwc",
            xg,
            kg,
            [n, *out_sp, groups, fg],
            out_elem,
            strides,
            rhs_dil,
        )
        result = reshape(e, og, canon)
    else:
        result = _conv_generic(e, x, k, lt, rt, ot, groups, bgroups, out_sp, strides, rhs_dil)
    return [transpose(e, result, perm)]


def _conv_generic(e, x, k, lt, rt, ot, groups, bgroups, out_sp, strides, rhs_dil) -> SSAValue:
    """Gather every window (``[B, Nb, O..., K..., G, Cg]``), then contract it
    with the kernel (``[K..., Cg, B, G, F]``) into ``[Nb, O..., B*G*F]``."""
    xs, ks = shape(x.type), shape(k.type)
    nsp = len(out_sp)
    n, c = xs[0], xs[-1]
    kwin, kin, kout = ks[:nsp], ks[nsp], ks[nsp + 1]
    nb, cg = n // bgroups, c // groups
    f = kout // (groups * bgroups)
    xr = reshape(e, x, [bgroups, nb, *xs[1:-1], groups, cg])
    # windows: loops (b, n, o..., k..., g, c)
    loops = 2 + 2 * nsp + 2
    exprs: list[AffineExpr] = [d(0), d(1)]
    for i in range(nsp):
        exprs.append(d(2 + i) * strides[i] + d(2 + nsp + i) * rhs_dil[i])  # type: ignore[operator]
    exprs += [d(2 + 2 * nsp), d(3 + 2 * nsp)]
    win_shape = [bgroups, nb, *out_sp, *kwin, groups, cg]
    win_t = TensorType(_elem(lt), win_shape)
    windows = e.map([xr], win_t, lambda inner, args: args[0], [AffineMap(loops, 0, tuple(exprs))])
    kr = reshape(e, k, [*kwin, kin, bgroups, groups, f])
    # contraction: loops (n, o..., b, g, f, k..., c)
    loops = 1 + nsp + 3 + nsp + 1
    o0, b_, g_, f_, k0, c_ = 1, 1 + nsp, 2 + nsp, 3 + nsp, 4 + nsp, 4 + 2 * nsp
    wmap = AffineMap(
        loops,
        0,
        (
            d(b_),
            d(0),
            *(d(o0 + i) for i in range(nsp)),
            *(d(k0 + i) for i in range(nsp)),
            d(g_),
            d(c_),
        ),
    )
    kmap = AffineMap(loops, 0, (*(d(k0 + i) for i in range(nsp)), d(c_), d(b_), d(g_), d(f_)))
    omap = AffineMap(loops, 0, (d(0), *(d(o0 + i) for i in range(nsp)), d(b_), d(g_), d(f_)))
    init = e.filled([nb, *out_sp, bgroups, groups, f], _zero(e, ot))
    iters = ["parallel"] * (1 + nsp + 3) + ["reduction"] * (nsp + 1)
    out = e.generic(
        [windows, kr],
        [init],
        [wmap, kmap, omap],
        iters,
        lambda inner, args: _mac(inner, args[0], args[1], args[2], lt, rt, ot),
    )[0]
    return reshape(e, out, [nb, *out_sp, kout])


# --------------------------------------------------------------------------
# reduce_window


def _window_shape(e: Emitter, dims: Sequence[int]) -> SSAValue:
    """An operand that gives the window loops their extent (never read), as
    linalg infers every loop's bound from an operand's shape."""
    return e.empty(list(dims), IntegerType(8))


def _window_attrs(op: Operation, rank: int, e: Emitter):
    dims = int_list(op, "window_dimensions", [1] * rank)
    strides = int_list(op, "window_strides", [1] * rank)
    base = int_list(op, "base_dilations", [1] * rank)
    wdil = int_list(op, "window_dilations", [1] * rank)
    padding = int_matrix(op, "padding") or [[0, 0]] * rank
    for name, v in (
        ("window_dimensions", dims),
        ("window_strides", strides),
        ("base_dilations", base),
        ("window_dilations", wdil),
        ("padding", padding),
    ):
        if len(v) != rank:
            raise e.error(f"{name} must have {rank} entries, one per dimension")
    if min([*dims, *strides, *base, *wdil, 1]) < 1:
        raise e.error("window dimensions, strides and dilations must be positive")
    return list(dims), list(strides), list(base), list(wdil), [list(p) for p in padding]


def convert_reduce_window(op: Operation, e: Emitter) -> list[SSAValue]:
    n = len(op.operands) // 2
    inputs, inits = list(op.operands[:n]), list(op.operands[n:])
    in_shape = shape(static_type(op, inputs[0].type))
    rank = len(in_shape)
    dims, strides, base, wdil, padding = _window_attrs(op, rank, e)
    init_vals = [e.extract(v) for v in inits]
    padded = [
        pad(e, x, v, [p[0] for p in padding], [p[1] for p in padding], [b - 1 for b in base])
        for x, v in zip(inputs, init_vals)
    ]
    ps = shape(padded[0].type)
    out_shape = [_window_out(s, w, st, dl) for s, w, st, dl in zip(ps, dims, strides, wdil)]
    for r in op.results:
        _check_type(e, out_shape, static_type(op, r.type), "reduce_window")
    if numel(out_shape) == 0:
        return [e.empty(out_shape, _elem(r.type)) for r in op.results]
    outs = [e.filled(out_shape, v) for v in init_vals]
    if numel(dims) == 0:
        return outs
    pooled = _named_pooling(e, op, padded, outs, dims, strides, wdil)
    if pooled is not None:
        return [pooled]
    loops = 2 * rank
    in_map = AffineMap(
        loops, 0, tuple(d(i) * strides[i] + d(rank + i) * wdil[i] for i in range(rank))
    )  # type: ignore[operator]
    out_map = AffineMap(loops, 0, tuple(d(i) for i in range(rank)))
    region = op.regions[0]

    def body(inner: Emitter, args):
        elems, accs = args[:n], args[n + 1 :]
        return run_body(inner, region, [*accs, *elems], op)

    iters = ["parallel"] * rank + ["reduction"] * rank
    shape_map = AffineMap(loops, 0, tuple(d(rank + i) for i in range(rank)))
    return e.generic(
        [*padded, _window_shape(e, dims)],
        outs,
        [in_map] * n + [shape_map] + [out_map] * n,
        iters,
        body,
    )


_POOL_KINDS = {"stablehlo.maximum": "max", "stablehlo.minimum": "min", "stablehlo.add": "sum"}


def _pool_kind(op: Operation) -> str | None:
    """max/min/sum when the body is that one op of its two arguments."""
    block = op.regions[0].blocks.first
    ops = list(block.ops) if block is not None else []
    if len(ops) != 2 or ops[1].name != "stablehlo.return" or ops[0].name not in _POOL_KINDS:
        return None
    if set(ops[0].operands) != set(block.args) or list(ops[1].operands) != [ops[0].results[0]]:
        return None
    return _POOL_KINDS[ops[0].name]


def _named_pooling(e: Emitter, op: Operation, padded, outs, dims, strides, wdil) -> SSAValue | None:
    """A 2-D pooling over NHWC or NCHW (window 1 over batch and channels):
    ``linalg.pooling_{nhwc,nchw}_{max,min,sum}``, the compiler's fast path."""
    from tfrt.dialects.linalg_named import OPS

    if len(padded) != 1 or len(dims) != 4:
        return None
    kind = _pool_kind(op)
    elem = _elem(padded[0].type)
    if kind is None or is_unsigned(op.operands[0].type) or (kind != "sum" and width(elem) == 1):
        return None
    unit = lambda axes: all(dims[a] == 1 and strides[a] == 1 and wdil[a] == 1 for a in axes)  # noqa: E731
    if unit((0, 3)):
        layout, spatial = "nhwc", (1, 2)
    elif unit((0, 1)):
        layout, spatial = "nchw", (2, 3)
    else:
        return None
    name = f"linalg.pooling_{layout}_{kind}"
    cls = OPS.get(name)
    if cls is None:
        return None
    window = _window_shape(e, [dims[a] for a in spatial])
    props = {
        "strides": _i64_dense([strides[a] for a in spatial]),
        "dilations": _i64_dense([wdil[a] for a in spatial]),
    }
    region = cls.get_hidden_region([padded[0], window], [outs[0]], props)
    pool = cls([padded[0], window], [outs[0]], [outs[0].type], properties=props, hidden_region=region)
    return e.add(pool)


# --------------------------------------------------------------------------
# select_and_scatter


def convert_select_and_scatter(op: Operation, e: Emitter) -> list[SSAValue]:
    operand, source, init = op.operands
    in_t = static_type(op, operand.type)
    in_shape = shape(in_t)
    src_shape = shape(static_type(op, source.type))
    rank = len(in_shape)
    dims = list(int_list(op, "window_dimensions", [1] * rank))
    strides = list(int_list(op, "window_strides", [1] * rank))
    padding = int_matrix(op, "padding") or [[0, 0]] * rank
    if len(dims) != rank or len(strides) != rank or len(padding) != rank:
        raise e.error(f"window_dimensions, window_strides and padding must have {rank} entries")
    if min([*dims, *strides, 1]) < 1:
        raise e.error("window dimensions and strides must be positive")
    lows = [p[0] for p in padding]
    highs = [p[1] for p in padding]
    padded_shape = [s + lo + hi for s, lo, hi in zip(in_shape, lows, highs)]
    win_shape = [_window_out(s, w, st, 1) for s, w, st in zip(padded_shape, dims, strides)]
    if list(win_shape) != list(src_shape):
        raise e.error(
            f"the source shape must be the window counts {win_shape}, not {list(src_shape)}"
        )
    result_t = static_type(op, op.results[0].type)
    init_val = e.extract(init)
    if numel(in_shape) == 0:
        return [e.empty(list(in_shape), _elem(result_t))]
    if numel(src_shape) == 0 or numel(dims) == 0:
        return [e.filled(list(in_shape), init_val)]
    elem = _elem(in_t)
    i1 = IntegerType(1)

    # 1. Per window: the selected element's offset in the window (row-major),
    # and whether any element of the window lies inside the operand.
    any_pad = any(lows) or any(highs)
    x = pad(e, operand, init_val, lows, highs) if any_pad else operand
    valid = None
    if any_pad:
        inside = e.filled(list(in_shape), e.scalar(1, i1))
        valid = pad(e, inside, e.scalar(0, i1), lows, highs)
    loops = 2 * rank
    in_map = AffineMap(loops, 0, tuple(d(i) * strides[i] + d(rank + i) for i in range(rank)))  # type: ignore[operator]
    out_map = AffineMap(loops, 0, tuple(d(i) for i in range(rank)))
    sel_val = e.empty(win_shape, elem)
    sel_pos = e.filled(win_shape, e.scalar(0, i64))
    has = e.filled(win_shape, e.scalar(0, i1))
    select_region, scatter_region = op.regions[0], op.regions[1]

    def pick(inner: Emitter, args):
        if valid is not None:
            cand, ok, cur, pos, seen = args
        else:
            cand, cur, pos, seen = args
            ok = None
        keep = run_body(inner, select_region, [cur, cand], op)[0]
        reject = inner.add(xarith.XOrIOp(keep, inner.scalar(1, i1)))
        take = inner.add(xarith.OrIOp(inner.add(xarith.XOrIOp(seen, inner.scalar(1, i1))), reject))
        if ok is not None:
            take = inner.add(xarith.AndIOp(take, ok))
        offset = None
        for i in range(rank):
            ki = inner.linalg_index(rank + i)
            offset = (
                ki
                if offset is None
                else add(inner, inner.add(xarith.MuliOp(offset, inner.index(dims[i]))), ki)
            )
        offset = inner.add(arith.IndexCastOp(offset, i64))
        new_seen = inner.scalar(1, i1) if ok is None else inner.add(xarith.OrIOp(seen, ok))
        return [select(inner, take, cand, cur), select(inner, take, offset, pos), new_seen]

    ins = [x, valid] if valid is not None else [x]
    shape_map = AffineMap(loops, 0, tuple(d(rank + i) for i in range(rank)))
    _, pos, seen = e.generic(
        [*ins, _window_shape(e, dims)],
        [sel_val, sel_pos, has],
        [in_map] * len(ins) + [shape_map] + [out_map] * 3,
        ["parallel"] * rank + ["reduction"] * rank,
        lambda inner, args: pick(inner, [*args[: len(ins)], *args[len(ins) + 1 :]]),
    )

    # 2. Each operand element p combines the source of every window w whose
    # selection it is: w * stride + k - low = p for a window offset k.
    out = e.filled(list(in_shape), init_val)
    window_dummy = _window_shape(e, dims)

    def gather_back(inner: Emitter, args):
        acc = args[-1]
        cond = None
        widx = []
        offset = None
        for i in range(rank):
            p = inner.linalg_index(i)
            ki = inner.linalg_index(rank + i)
            t = inner.add(xarith.SubiOp(add(inner, p, lows[i]), ki))
            if strides[i] != 1:
                rem = inner.add(xarith.RemSIOp(t, inner.index(strides[i])))
                cond = and_(inner, cond, cmp_i(inner, "eq", rem, inner.index(0)))
                w = inner.add(xarith.DivSIOp(t, inner.index(strides[i])))
            else:
                w = t
            cond = and_(inner, cond, in_range(inner, w, 0, win_shape[i]))
            widx.append(
                inner.add(
                    xarith.MinSIOp(
                        inner.add(xarith.MaxSIOp(w, inner.index(0))), inner.index(win_shape[i] - 1)
                    )
                )
            )
            offset = (
                ki
                if offset is None
                else add(inner, inner.add(xarith.MuliOp(offset, inner.index(dims[i]))), ki)
            )
        chosen = inner.extract(pos, widx)
        picked = cmp_i(inner, "eq", chosen, inner.add(arith.IndexCastOp(offset, i64)))
        cond = and_(inner, cond, picked)
        cond = and_(inner, cond, inner.extract(seen, widx))
        value = inner.extract(source, widx)
        new = run_body(inner, scatter_region, [acc, value], op)[0]
        return select(inner, cond, new, acc)

    loops = 2 * rank
    dummy_map = AffineMap(loops, 0, tuple(d(rank + i) for i in range(rank)))
    return e.generic(
        [window_dummy],
        [out],
        [dummy_map, out_map],
        ["parallel"] * rank + ["reduction"] * rank,
        gather_back,
    )


CONVERSIONS = {
    "stablehlo.convolution": convert_convolution,
    "stablehlo.reduce_window": convert_reduce_window,
    "stablehlo.select_and_scatter": convert_select_and_scatter,
}
