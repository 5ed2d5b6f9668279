"""Vision operators of ``tfrt_import_onnx`` (a mixin of its ``Importer``):
GridSample, RoiAlign, DeformConv, MaxUnpool, MaxPool's ``Indices`` output
and 3-D convolutions.

The samplers are ``linalg.generic`` ops over the output whose bodies compute
each sampling position and read the input with ``tensor.extract`` (indices
clamped into the input, out-of-range taps masked), as ``Resize`` does.
Semantics follow the operator definitions of ONNX (``onnx.defs``) and, where
they leave a detail open (the order of roundings, ties, RoiAlign's max
mode), ONNX's reference implementation, which the node tests' expected
outputs come from.  Whatever cannot be done exactly is an ``ImportError_``
naming the reason.
"""

from __future__ import annotations

import math

import numpy as np

from tfrt.tools import import_onnx as core
from tfrt.tools.onnx_ops import Body, _dims, _err, convert, el_of


def _s(a, key, default):
    v = a.get(key, default)
    return v.decode() if isinstance(v, bytes) else v


def _wide(dtype) -> np.dtype:
    """The float type a sampler computes ``dtype`` in (f64 stays f64)."""
    return np.dtype(np.float64) if np.dtype(dtype) == np.float64 else np.dtype(np.float32)


class _B(Body):
    """A body builder with the index and float helpers the samplers share."""

    def idx(self, d: int) -> str:
        return self.line(f"linalg.index {d} : index")

    def i64(self, ix: str) -> str:
        return self.line(f"arith.index_cast {ix} : index to i64")

    def index(self, v: str) -> str:
        return self.line(f"arith.index_cast {v} : i64 to index")

    def ci(self, v: int) -> str:
        return self.const(int(v), np.int64)

    def cf(self, v: float, el: str) -> str:
        return self.line(f"arith.constant {core._float(float(v))} : {el}")

    def clamp_i(self, v: str, lo: int, hi: int) -> str:
        v = self.op("arith.maxsi", v, self.ci(lo), t="i64")
        return self.op("arith.minsi", v, self.ci(hi), t="i64")

    def in_range(self, v: str, n: int) -> str:
        ge = self.cmp("arith.cmpi", "sge", v, self.ci(0), "i64")
        lt = self.cmp("arith.cmpi", "slt", v, self.ci(n), "i64")
        return self.op("arith.andi", ge, lt, t="i1")

    def extract(self, t, coords: list[str]) -> str:
        return self.line(f"tensor.extract {t.name}[{', '.join(coords)}] : {t.type}")


class OnnxOpsVision:
    """Operator handlers (mixed into ``Importer``)."""

    def _vname(self, v, tag: str) -> str:
        """Registers ``v`` under a fresh value name (for ``_sub``)."""
        self._vcount = getattr(self, "_vcount", 0) + 1
        name = f"__vision{self._vcount}_{tag}"
        self.values[name] = v
        return name

    def _to(self, v, dtype):
        dtype = np.dtype(dtype)
        if v.dtype == dtype:
            return v
        return self.ew([v], v.shape, dtype, lambda b, a_, el: convert(b, a_[0], v.dtype, dtype))

    # -- 3-D convolution ---------------------------------------------------------------------
    def _conv3d(self, node, a, x, w, wrt):
        """``linalg.conv_3d_ndhwc_dhwcf`` on the input transposed to NDHWC
        (one per group, concatenated), the bias added, back to NCDHW."""
        if len(w.shape) != 5:
            raise _err(f"input of rank 5 and a weight of rank {len(w.shape)}")
        group = int(a.get("group", 1))
        f, cg = w.shape[:2]
        k = list(w.shape[2:])
        if a.get("kernel_shape") is not None and list(a["kernel_shape"]) != k:
            raise _err(f"kernel_shape {list(a['kernel_shape'])} and a weight of shape {tuple(w.shape)}")
        n, c = x.shape[:2]
        if c % group or f % group or cg != c // group:
            raise _err(f"grouped convolution with group={group}, {c} input channels and weights of shape {tuple(w.shape)}")
        if core.kind(x.dtype) != "f":
            raise _err(f"element type {x.dtype} is not supported (floating point only)")
        strides, dil, pb, pe, out = self._pool_window(a, x.shape[2:], k)
        xv = self.value(node.input[0], node)
        xh = self.em.transpose(xv, [0, 2, 3, 4, 1])
        if any(pb) or any(pe):
            lo, hi = [0] + pb + [0], [0] + pe + [0]
            shape = tuple(d + l_ + h for d, l_, h in zip(xh.shape, lo, hi))
            name = self.em.fresh()
            el = core._elem(x.dtype)
            self.em.emit(f"{name} = tensor.pad {xh.name} low[{', '.join(map(str, lo))}] high[{', '.join(map(str, hi))}] {{")
            self.em.emit("^bb0(" + ", ".join(f"%p{i}: index" for i in range(5)) + "):")
            self.em.emit(f"  %pv = arith.constant {core._float_literal(0.0, x.dtype)} : {el}")
            self.em.emit(f"  tensor.yield %pv : {el}")
            self.em.emit(f"}} : {xh.type} to {core._ttype(shape, x.dtype)}")
            xh = core.Value(name, shape, x.dtype)
        attrs = (f"{{dilations = dense<[{', '.join(map(str, dil))}]> : tensor<3xi64>, "
                 f"strides = dense<[{', '.join(map(str, strides))}]> : tensor<3xi64>}}")  # fmt: skip
        fg = f // group
        parts = []
        for g in range(group):
            xs = xh if group == 1 else self.slice_(xh, [0, 0, 0, 0, g * cg], list(xh.shape[:4]) + [cg])
            if wrt is not None:
                wg = wrt if group == 1 else self.slice_(wrt, [g * fg, 0, 0, 0, 0], [fg, cg] + k)
                wv = self.em.transpose(wg, [2, 3, 4, 1, 0])
            else:
                wv = self.em.constant(np.ascontiguousarray(w[g * fg:(g + 1) * fg].transpose(2, 3, 4, 1, 0)), node.input[1])
            shape = (n, *out, fg)
            acc = self.em.filled(shape, x.dtype, 0.0)
            name = self.em.fresh()
            y = core.Value(name, shape, x.dtype)
            self.em.emit(f"{name} = linalg.conv_3d_ndhwc_dhwcf {attrs} ins({xs.name}, {wv.name} : {xs.type}, {wv.type}) "
                         f"outs({acc} : {y.type}) -> {y.type}")  # fmt: skip
            parts.append(y)
        y = self.concat(parts, 4)
        if len(node.input) > 2 and node.input[2]:
            b = self.const(node.input[2])
            bv = self.em.constant(b, node.input[2]) if b is not None else self.value(node.input[2], node)
            if bv.shape != (f,):
                raise _err(f"a bias of shape {bv.shape} for {f} output channels")
            y = self.ew([y, bv], y.shape, y.dtype, lambda b_, a_, el: b_.op("arith.addf", a_[0], a_[1], t=el))
        return self.em.transpose(y, [0, 4, 1, 2, 3])

    # -- MaxPool with Indices ----------------------------------------------------------------
    def _maxpool_indices(self, node, a):
        """MaxPool's values and the flat indices of the maxima (ONNX's
        reference: the first element of the window in scan order, replaced
        only by a strictly greater one; ``storage_order`` 1 counts the
        spatial axes column-major)."""
        x = self.value(node.input[0], node)
        r = len(x.shape) - 2
        if r < 1:
            raise _err(f"input of rank {len(x.shape)}")
        k = list(a["kernel_shape"])
        if len(k) != r:
            raise _err(f"kernel_shape {k} for {r} spatial axes")
        order = int(a.get("storage_order", 0))
        if order not in (0, 1):
            raise _err(f"storage_order {order} is not defined")
        strides, dil, pb, _, out = self._pool_window(a, x.shape[2:], k, bool(a.get("ceil_mode", 0)))
        sp = list(x.shape[2:])
        xs = self.em.signless(x)
        kd = core.kind(x.dtype)
        if kd == "b":
            raise _err("element type bool is not supported")
        el = el_of(x.dtype)
        win = core.Value(self.em.empty(tuple(k), np.float32), tuple(k), np.dtype(np.float32))
        out_shape = tuple(x.shape[:2]) + tuple(out)
        nl = 2 + 2 * r
        dims = _dims(nl)
        gt = {"f": ("arith.cmpf", "ogt"), "i": ("arith.cmpi", "sgt"), "u": ("arith.cmpi", "ugt"), "b": ("arith.cmpi", "ugt")}[kd]
        # Flat index strides of the spatial axes (row- or column-major).
        if order == 0:
            st = [int(np.prod(sp[i + 1:], dtype=np.int64)) for i in range(r)]
        else:
            st = [int(np.prod(sp[:i], dtype=np.int64)) for i in range(r)]
        plane = int(np.prod(sp, dtype=np.int64))

        def body(ai, o):
            b = _B()
            valid, flat = None, None
            coords = [b.idx(0), b.idx(1)]
            for i in range(r):
                pos = b.op("arith.addi", b.op("arith.muli", b.i64(b.idx(2 + i)), b.ci(strides[i]), t="i64"),
                           b.op("arith.muli", b.i64(b.idx(2 + r + i)), b.ci(dil[i]), t="i64"), t="i64")  # fmt: skip
                pos = b.op("arith.subi", pos, b.ci(pb[i]), t="i64")
                ok = b.in_range(pos, sp[i])
                valid = ok if valid is None else b.op("arith.andi", valid, ok, t="i1")
                term = b.op("arith.muli", pos, b.ci(st[i]), t="i64")
                flat = term if flat is None else b.op("arith.addi", flat, term, t="i64")
                coords.append(b.index(b.clamp_i(pos, 0, sp[i] - 1)))
            nc = b.op("arith.addi", b.op("arith.muli", b.i64(coords[0]), b.ci(x.shape[1]), t="i64"), b.i64(coords[1]), t="i64")
            flat = b.op("arith.addi", b.op("arith.muli", nc, b.ci(plane), t="i64"), flat, t="i64")
            v = b.extract(xs, coords)
            first = b.cmp("arith.cmpi", "slt", o[1], b.ci(0), "i64")
            better = b.cmp(gt[0], gt[1], v, o[0], el)
            take = b.op("arith.andi", valid, b.op("arith.ori", first, better, t="i1"), t="i1")
            return b.lines, [b.select(take, v, o[0], el), b.select(take, flat, o[1], "i64")]

        zero = self.em.filled(out_shape, xs.dtype, 0.0 if kd == "f" else 0)
        neg = self.em.filled(out_shape, np.int64, -1)
        y, ind = self.em.generic([(win, dims[2 + r:])],
                                 [(out_shape, xs.dtype, zero, dims[:2 + r]), (out_shape, np.int64, neg, dims[:2 + r])],
                                 "p" * (2 + r) + "r" * r, body)  # fmt: skip
        return [self.em.bitcast(y, x.dtype), ind]

    # -- MaxUnpool -----------------------------------------------------------------------------
    def op_MaxUnpool(self, node, a):  # noqa: N802
        """Each input value written at its flat index into the output of the
        shape the pooling gives (the last of equal indices wins, as ONNX's
        reference writes them in order), then padded with zeros at the end
        to ``output_shape``.  As a gather: for each output position the
        largest input position whose index is it (a max reduction), then
        that value."""
        x = self.value(node.input[0], node)
        ind = self.value(node.input[1], node)
        r = len(x.shape) - 2
        k = list(a["kernel_shape"])
        if r < 1 or len(k) != r:
            raise _err(f"input of rank {len(x.shape)} and kernel_shape {k}")
        if ind.shape != x.shape:
            raise _err(f"indices of shape {ind.shape} for an input of shape {x.shape}")
        if ind.dtype != np.int64:
            raise _err(f"indices of element type {ind.dtype}")
        s = list(a.get("strides", [1] * r))
        p = list(a.get("pads", [0] * (2 * r)))
        inferred = list(x.shape[:2]) + [(x.shape[2 + i] - 1) * s[i] - (p[i] + p[r + i]) + k[i] for i in range(r)]
        if min(inferred) < 1:
            raise _err(f"an output of shape {inferred}")
        final = inferred
        osh = self.static(node, 2, "output_shape")
        if osh is not None:
            final = [int(v) for v in np.asarray(osh).reshape(-1)]
            if len(final) != len(inferred) or any(f < i for f, i in zip(final, inferred)):
                raise _err(f"output_shape {final} is smaller than the unpooled shape {inferred}")
        m = int(np.prod(x.shape))
        total = int(np.prod(inferred))
        if m * total > 1 << 24:
            raise _err(f"{m} inputs x {total} output elements is more than 2^24")
        xf = self.em.reshape(x, (m,))
        if_ = self.em.reshape(ind, (m,))
        ro = len(inferred)
        dims = _dims(ro + 1)
        strides_o = [int(np.prod(inferred[i + 1:], dtype=np.int64)) for i in range(ro)]

        def find(ai, o):
            b = _B()
            flat = None
            for i in range(ro):
                t = b.op("arith.muli", b.i64(b.idx(i)), b.ci(strides_o[i]), t="i64")
                flat = t if flat is None else b.op("arith.addi", flat, t, t="i64")
            q = b.i64(b.idx(ro))
            hit = b.cmp("arith.cmpi", "eq", ai[0], flat, "i64")
            cand = b.select(hit, q, b.ci(-1), "i64")
            # A read of the (zero) guard at the index itself: an index
            # outside the output is an error at run time (as in
            # onnxruntime), not a value dropped.
            cand = b.op("arith.addi", cand, b.extract(guard, [b.index(ai[0])]), t="i64")
            return b.lines, [b.op("arith.maxsi", o[0], cand, t="i64")]

        guard = core.Value(self.em.filled((total,), np.int64, 0), (total,), np.dtype(np.int64))
        init = self.em.filled(tuple(inferred), np.int64, -1)
        last = self.em.generic([(if_, [dims[ro]])], [(tuple(inferred), np.int64, init, dims[:ro])], "p" * ro + "r", find)[0]
        xs = self.em.signless(xf)
        el = el_of(x.dtype)

        def pick(ai, o):
            b = _B()
            hit = b.cmp("arith.cmpi", "sge", ai[0], b.ci(0), "i64")
            i = b.index(b.op("arith.maxsi", ai[0], b.ci(0), t="i64"))
            v = b.extract(xs, [i])
            return b.lines, [b.select(hit, v, b.const(0.0, x.dtype), el)]

        y = self.em.generic([(last, dims[:ro])], [(tuple(inferred), xs.dtype, None, dims[:ro])], "p" * ro, pick)[0]
        y = self.em.bitcast(y, x.dtype)
        if final != inferred:
            hi = [f - i for f, i in zip(final, inferred)]
            name = self.em.fresh()
            self.em.emit(f"{name} = tensor.pad {y.name} low[{', '.join(['0'] * ro)}] high[{', '.join(map(str, hi))}] {{")
            self.em.emit("^bb0(" + ", ".join(f"%p{i}: index" for i in range(ro)) + "):")
            self.em.emit(f"  %pv = arith.constant {core._float_literal(0.0, x.dtype)} : {core._elem(x.dtype)}")
            self.em.emit(f"  tensor.yield %pv : {core._elem(x.dtype)}")
            self.em.emit(f"}} : {y.type} to {core._ttype(final, x.dtype)}")
            y = core.Value(name, tuple(final), x.dtype)
        return y

    # -- GridSample ----------------------------------------------------------------------------
    def op_GridSample(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        grid = self.value(node.input[1], node)
        mode = _s(a, "mode", "bilinear" if self.opset < 20 else "linear")
        mode = {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
        if mode not in ("linear", "nearest", "cubic"):
            raise _err(f"mode '{_s(a, 'mode', '')}' is not defined")
        pad = _s(a, "padding_mode", "zeros")
        if pad not in ("zeros", "border", "reflection"):
            raise _err(f"padding_mode '{pad}' is not defined")
        align = bool(a.get("align_corners", 0))
        r = len(x.shape) - 2
        if r < 1 or len(grid.shape) != r + 2 or grid.shape[-1] != r or grid.shape[0] != x.shape[0]:
            raise _err(f"input of shape {x.shape} and grid of shape {grid.shape}")
        if self.opset < 20 and r != 2:
            raise _err(f"a {r}-D input (opset {self.opset} defines 2-D GridSample only)")
        if mode == "cubic" and r != 2:
            raise _err("cubic interpolation of a volumetric input is not supported")
        if core.kind(grid.dtype) != "f":
            raise _err(f"grid of element type {grid.dtype}")
        kx = core.kind(x.dtype)
        if mode != "nearest" and kx != "f":
            raise _err(f"mode '{mode}' on element type {x.dtype} is not supported")
        if kx == "b":
            raise _err("element type bool is not supported")
        sp = list(x.shape[2:])
        if pad == "reflection" and align and min(sp) < 2:
            raise _err("reflection padding with align_corners=1 of an axis of size 1 is not defined")
        if min(sp) < 1 or x.shape[1] < 1:
            raise _err(f"an empty input of shape {x.shape}")
        out_sp = list(grid.shape[1:-1])
        out_shape = tuple(x.shape[:2]) + tuple(out_sp)
        ft = _wide(grid.dtype)  # coordinates
        gw = self._to(grid, ft)
        et = _wide(x.dtype) if kx == "f" else x.dtype  # interpolation
        xv = self._to(x, et) if kx == "f" else self.em.signless(x)
        fe, ee = el_of(ft), el_of(et)
        ro = 2 + r
        dims = _dims(ro)

        def body(ai, o):
            b = _B()
            n = b.idx(0)
            cidx = b.idx(1)
            pos = []  # per spatial axis: the coordinate (float, ft)
            for i in range(r):
                comp = b.index(b.ci(r - 1 - i))
                g = b.extract(gw, [n] + [b.idx(2 + j) for j in range(r)] + [comp])
                one, two = b.cf(1.0, fe), b.cf(2.0, fe)
                L = sp[i]
                gp = b.op("arith.addf", g, one, t=fe)
                if align:
                    v = b.op("arith.mulf", b.op("arith.divf", gp, two, t=fe), b.cf(L - 1, fe), t=fe)
                else:
                    v = b.op("arith.divf", b.op("arith.subf", b.op("arith.mulf", gp, b.cf(L, fe), t=fe), one, t=fe), two, t=fe)
                if mode == "nearest":
                    v = b.op("math.roundeven", v, t=fe)
                lo, hi = (0.0, L - 1.0) if align else (-0.5, L - 0.5)
                if pad == "border" and mode != "cubic":
                    # (Cubic clamps each tap, not the position, as PyTorch's
                    # grid_sample and onnxruntime do; ONNX's reference clamps
                    # the position first.)
                    out = b.op("arith.ori", b.cmp("arith.cmpf", "olt", v, b.cf(lo, fe), fe),
                               b.cmp("arith.cmpf", "ogt", v, b.cf(hi, fe), fe), t="i1")  # fmt: skip
                    cl = b.op("arith.minimumf", b.op("arith.maximumf", v, b.cf(0.0, fe), t=fe), b.cf(L - 1, fe), t=fe)
                    v = b.select(out, cl, v, fe)
                elif pad == "reflection":
                    v = self._reflect(b, v, fe, lo, hi)
                if pad == "zeros" or (pad == "border" and mode == "cubic"):
                    # Beyond +-big (2^24 in f32, 2^53 in f64) a position is an
                    # integer far outside the input: clamped there, its taps
                    # stay out of range (zeros) or at the edge (border) with
                    # finite weights, where +-inf (a grid value whose position
                    # overflows) would make the weights NaN and the index read
                    # overflow.  NaN stays NaN.
                    big = float(2**53 if fe == "f64" else 2**24)
                    v = b.select(b.cmp("arith.cmpf", "olt", v, b.cf(-big, fe), fe), b.cf(-big, fe), v, fe)
                    v = b.select(b.cmp("arith.cmpf", "ogt", v, b.cf(big, fe), fe), b.cf(big, fe), v, fe)
                pos.append(v)

            def tap(i, t):
                """Tap ``t`` (i64) of axis ``i``: the index it reads and whether it counts."""
                L = sp[i]
                if pad == "zeros":
                    return b.clamp_i(t, 0, L - 1), b.in_range(t, L)
                if pad == "border":
                    return b.clamp_i(t, 0, L - 1), None
                lo, hi = (0.0, L - 1.0) if align else (-0.5, L - 0.5)
                tf = b.line(f"arith.sitofp {t} : i64 to f64")
                rf = self._reflect(b, tf, "f64", lo, hi)
                return b.clamp_i(b.line(f"arith.fptosi {rf} : f64 to i64"), 0, L - 1), None

            def read(idxs):
                v = b.extract(xv, [n, cidx] + [b.index(ix) for ix, _ in idxs])
                ok = None
                for _, m in idxs:
                    if m is not None:
                        ok = m if ok is None else b.op("arith.andi", ok, m, t="i1")
                if ok is None:
                    return v
                return b.select(ok, v, b.const(0, et), ee)

            if mode == "nearest":
                idxs = [tap(i, b.line(f"arith.fptosi {pos[i]} : {fe} to i64")) for i in range(r)]
                v = read(idxs)
                if kx == "f":
                    # A NaN position reads no element: NaN, as linear and
                    # cubic give.
                    nan = None
                    for p_ in pos:
                        c_ = b.cmp("arith.cmpf", "uno", p_, p_, fe)
                        nan = c_ if nan is None else b.op("arith.ori", nan, c_, t="i1")
                    v = b.select(nan, b.const(math.nan, et), v, ee)
                return b.lines, [v]
            ntap = 2 if mode == "linear" else 4
            taps, coefs = [], []
            for i in range(r):
                fl = b.op("math.floor", pos[i], t=fe)
                t0 = b.line(f"arith.fptosi {fl} : {fe} to i64")
                tt = b.op("arith.subf", pos[i], fl, t=fe)
                cs = self._coefs(b, tt, fe, mode)
                coefs.append([convert(b, c, ft, et) for c in cs])
                first = -1 if mode == "cubic" else 0
                taps.append([tap(i, b.op("arith.addi", t0, b.ci(first + j), t="i64")) for j in range(ntap)])

            def level(i, chosen):
                # Innermost axis first, as ONNX's reference nests them.
                if i == r:
                    return read(chosen)
                acc = None
                for j in range(ntap):
                    v = level(i + 1, chosen + [taps[i][j]])
                    m = b.op("arith.mulf", coefs[i][j], v, t=ee)
                    acc = m if acc is None else b.op("arith.addf", acc, m, t=ee)
                return acc

            return b.lines, [level(0, [])]

        y = self.em.generic([], [(out_shape, xv.dtype, None, dims)], "p" * ro, body)[0]
        if kx == "f":
            return self._to(y, x.dtype)
        return self.em.bitcast(y, x.dtype)

    @staticmethod
    def _reflect(b, v, fe, lo, hi):
        """ONNX's reference reflection of ``v`` into [lo, hi] (in f64, as it
        computes it, then back to ``fe``)."""
        if fe != "f64":
            v64 = b.line(f"arith.extf {v} : {fe} to f64")
        else:
            v64 = v
        rng = b.cf(hi - lo, "f64")
        clo, chi = b.cf(lo, "f64"), b.cf(hi, "f64")
        below = b.cmp("arith.cmpf", "olt", v64, clo, "f64")
        above = b.cmp("arith.cmpf", "ogt", v64, chi, "f64")
        dx = b.select(below, b.op("arith.subf", clo, v64, t="f64"), b.op("arith.subf", v64, chi, t="f64"), "f64")
        q = b.op("math.trunc", b.op("arith.divf", dx, rng, t="f64"), t="f64")
        rem = b.op("arith.subf", dx, b.op("arith.mulf", q, rng, t="f64"), t="f64")
        half = b.op("math.floor", b.op("arith.mulf", q, b.cf(0.5, "f64"), t="f64"), t="f64")
        even = b.cmp("arith.cmpf", "oeq", b.op("arith.mulf", half, b.cf(2.0, "f64"), t="f64"), q, "f64")
        from_lo = b.op("arith.addf", clo, rem, t="f64")
        from_hi = b.op("arith.subf", chi, rem, t="f64")
        r_below = b.select(even, from_lo, from_hi, "f64")
        r_above = b.select(even, from_hi, from_lo, "f64")
        res = b.select(below, r_below, b.select(above, r_above, v64, "f64"), "f64")
        if fe != "f64":
            res = b.line(f"arith.truncf {res} : f64 to {fe}")
        return res

    @staticmethod
    def _coefs(b, t, fe, mode):
        """The interpolation weights of the taps for the fraction ``t``."""
        one = b.cf(1.0, fe)
        if mode == "linear":
            return [b.op("arith.subf", one, t, t=fe), t]
        A = -0.75

        def far(u):  # ((A*u - 5A)*u + 8A)*u - 4A
            w = b.op("arith.subf", b.op("arith.mulf", b.cf(A, fe), u, t=fe), b.cf(5 * A, fe), t=fe)
            w = b.op("arith.addf", b.op("arith.mulf", w, u, t=fe), b.cf(8 * A, fe), t=fe)
            return b.op("arith.subf", b.op("arith.mulf", w, u, t=fe), b.cf(4 * A, fe), t=fe)

        def near(u):  # ((A+2)*u - (A+3))*u*u + 1
            w = b.op("arith.subf", b.op("arith.mulf", b.cf(A + 2, fe), u, t=fe), b.cf(A + 3, fe), t=fe)
            w = b.op("arith.mulf", b.op("arith.mulf", w, u, t=fe), u, t=fe)
            return b.op("arith.addf", w, one, t=fe)

        u1 = b.op("arith.subf", one, t, t=fe)
        return [far(b.op("arith.addf", t, one, t=fe)), near(t), near(u1), far(b.op("arith.subf", b.cf(2.0, fe), t, t=fe))]

    # -- RoiAlign ------------------------------------------------------------------------------
    def op_RoiAlign(self, node, a):  # noqa: N802
        """One generic over (roi, channel, bin row, bin column, sample row,
        sample column) reducing the samples, as ONNX's reference computes
        each sample (bilinear from the four neighbours, zero outside
        [-1, size]); mode ``max`` takes, per sample, the largest of the four
        weighted neighbours and then the largest over the samples (ONNX's
        reference and onnxruntime)."""
        x = self.value(node.input[0], node)
        rois_c = self.const(node.input[1])
        rois = self.value(node.input[1], node)
        bi = self.value(node.input[2], node)
        if len(x.shape) != 4 or len(rois.shape) != 2 or rois.shape[1] != 4 or bi.shape != (rois.shape[0],):
            raise _err(f"input of shape {x.shape}, rois of shape {rois.shape}, batch_indices of shape {bi.shape}")
        if core.kind(x.dtype) != "f" or rois.dtype != x.dtype:
            raise _err(f"input and rois of element types {x.dtype} and {rois.dtype}")
        if core.kind(bi.dtype) not in "iu":
            raise _err(f"batch_indices of element type {bi.dtype}")
        mode = _s(a, "mode", "avg")
        if mode not in ("avg", "max"):
            raise _err(f"mode '{mode}' is not defined")
        ctm = _s(a, "coordinate_transformation_mode", "half_pixel" if self.opset >= 16 else "output_half_pixel")
        if ctm not in ("half_pixel", "output_half_pixel"):
            raise _err(f"coordinate_transformation_mode '{ctm}' is not defined")
        half = ctm == "half_pixel"
        ph_n, pw_n = int(a.get("output_height", 1)), int(a.get("output_width", 1))
        sr = int(a.get("sampling_ratio", 0))
        scale = float(a.get("spatial_scale", 1.0))
        if ph_n < 1 or pw_n < 1 or sr < 0:
            raise _err(f"output_height {ph_n}, output_width {pw_n}, sampling_ratio {sr}")
        R, C, H, W = rois.shape[0], x.shape[1], x.shape[2], x.shape[3]
        ft = _wide(x.dtype)
        fe = el_of(ft)
        if sr == 0:
            # The samples per bin depend on each roi's size: the rois fix the
            # reduction's extent.
            rois_c = self.static(node, 1, "rois (with sampling_ratio=0)")
            rc = np.asarray(rois_c).astype(ft)
            off = ft.type(0.5 if half else 0.0)
            sc = ft.type(scale)
            rh = (rc[:, 3] * sc - off) - (rc[:, 1] * sc - off)
            rw = (rc[:, 2] * sc - off) - (rc[:, 0] * sc - off)
            if not half:
                rh, rw = np.maximum(rh, ft.type(1.0)), np.maximum(rw, ft.type(1.0))
            with np.errstate(invalid="ignore"):
                gh = np.ceil(rh / ft.type(ph_n))
                gw = np.ceil(rw / ft.type(pw_n))
            if not (np.all(np.isfinite(gh)) and np.all(np.isfinite(gw))):
                raise _err("rois that are not finite")
            gh = np.maximum(gh, 0).astype(np.int64)
            gw = np.maximum(gw, 0).astype(np.int64)
        else:
            gh = np.full(R, sr, np.int64)
            gw = np.full(R, sr, np.int64)
        sh, sw = max(int(gh.max(initial=0)), 1), max(int(gw.max(initial=0)), 1)
        if R * C * ph_n * pw_n * sh * sw > 1 << 26:
            raise _err(f"{R * C * ph_n * pw_n} outputs of {sh}x{sw} samples each is more than 2^26 samples")
        xv = self._to(x, ft)
        rv = self._to(rois, ft)
        biv = self.em.signless(bi)
        ghv = self.em.constant(gh)
        gwv = self.em.constant(gw)
        win = core.Value(self.em.empty((sh, sw), np.float32), (sh, sw), np.dtype(np.float32))
        out_shape = (R, C, ph_n, pw_n)
        dims = _dims(6)

        def body(ai, o):
            b = _B()
            r = b.idx(0)
            coord = [b.extract(rv, [r, b.index(b.ci(j))]) for j in range(4)]
            sc, off = b.cf(scale, fe), b.cf(0.5 if half else 0.0, fe)
            x1, y1, x2, y2 = (b.op("arith.subf", b.op("arith.mulf", v, sc, t=fe), off, t=fe) for v in coord)
            rw = b.op("arith.subf", x2, x1, t=fe)
            rh = b.op("arith.subf", y2, y1, t=fe)
            if not half:
                rw = b.op("arith.maximumf", rw, b.cf(1.0, fe), t=fe)
                rh = b.op("arith.maximumf", rh, b.cf(1.0, fe), t=fe)
            bin_h = b.op("arith.divf", rh, b.cf(ph_n, fe), t=fe)
            bin_w = b.op("arith.divf", rw, b.cf(pw_n, fe), t=fe)
            n_h = b.extract(ghv, [r])
            n_w = b.extract(gwv, [r])
            iy, ix = b.i64(b.idx(4)), b.i64(b.idx(5))
            inside = b.op("arith.andi", b.cmp("arith.cmpi", "slt", iy, n_h, "i64"),
                          b.cmp("arith.cmpi", "slt", ix, n_w, "i64"), t="i1")  # fmt: skip

            def sample(start, pbin, bin_, i, n_):
                p_ = b.line(f"arith.sitofp {b.i64(b.idx(pbin))} : i64 to {fe}")
                base = b.op("arith.addf", start, b.op("arith.mulf", p_, bin_, t=fe), t=fe)
                i_f = b.line(f"arith.sitofp {i} : i64 to {fe}")
                n_f = b.line(f"arith.sitofp {b.op('arith.maxsi', n_, b.ci(1), t='i64')} : i64 to {fe}")
                frac = b.op("arith.divf", b.op("arith.mulf", b.op("arith.addf", i_f, b.cf(0.5, fe), t=fe), bin_, t=fe), n_f, t=fe)
                return b.op("arith.addf", base, frac, t=fe)

            yy = sample(y1, 2, bin_h, iy, n_h)
            xx = sample(x1, 3, bin_w, ix, n_w)
            away = None
            for v, lim in ((yy, H), (xx, W)):
                for c_ in (b.cmp("arith.cmpf", "olt", v, b.cf(-1.0, fe), fe), b.cmp("arith.cmpf", "ogt", v, b.cf(lim, fe), fe)):
                    away = c_ if away is None else b.op("arith.ori", away, c_, t="i1")

            def axis(v, lim):
                v = b.op("arith.maximumf", v, b.cf(0.0, fe), t=fe)
                # Past the input the sample counts zero ('away'); kept in
                # range so that the index read stays one (NaN stays NaN).
                v = b.select(b.cmp("arith.cmpf", "ogt", v, b.cf(lim, fe), fe), b.cf(lim, fe), v, fe)
                low = b.line(f"arith.fptosi {v} : {fe} to i64")
                edge = b.cmp("arith.cmpi", "sge", low, b.ci(lim - 1), "i64")
                low = b.select(edge, b.ci(lim - 1), low, "i64")
                high = b.select(edge, b.ci(lim - 1), b.op("arith.addi", low, b.ci(1), t="i64"), "i64")
                v = b.select(edge, b.line(f"arith.sitofp {low} : i64 to {fe}"), v, fe)
                lfrac = b.op("arith.subf", v, b.line(f"arith.sitofp {low} : i64 to {fe}"), t=fe)
                hfrac = b.op("arith.subf", b.cf(1.0, fe), lfrac, t=fe)
                return b.index(low), b.index(high), lfrac, hfrac

            yl, yh, ly, hy = axis(yy, H)
            xl, xh, lx, hx = axis(xx, W)
            nb = b.index(b.line(f"arith.extsi {b.extract(biv, [r])} : {el_of(bi.dtype)} to i64")
                                if el_of(bi.dtype) != "i64" else b.extract(biv, [r]))  # fmt: skip
            c = b.idx(1)
            terms = []
            for (yi, wy), (xi, wx) in ((( yl, hy), (xl, hx)), ((yl, hy), (xh, lx)), ((yh, ly), (xl, hx)), ((yh, ly), (xh, lx))):
                w_ = b.op("arith.mulf", wy, wx, t=fe)
                terms.append(b.op("arith.mulf", w_, b.extract(xv, [nb, c, yi, xi]), t=fe))
            zero = b.cf(0.0, fe)
            if mode == "avg":
                val = b.op("arith.addf", b.op("arith.addf", b.op("arith.addf", terms[0], terms[1], t=fe), terms[2], t=fe), terms[3], t=fe)
                val = b.select(away, zero, val, fe)
                return b.lines, [b.op("arith.addf", o[0], b.select(inside, val, zero, fe), t=fe)]
            val = b.op("arith.maximumf", b.op("arith.maximumf", b.op("arith.maximumf", terms[0], terms[1], t=fe), terms[2], t=fe), terms[3], t=fe)
            val = b.select(away, zero, val, fe)
            return b.lines, [b.select(inside, b.op("arith.maximumf", o[0], val, t=fe), o[0], fe)]

        init = self.em.filled(out_shape, ft, 0.0 if mode == "avg" else -math.inf)
        y = self.em.generic([(win, dims[4:])], [(out_shape, ft, init, dims[:4])], "pppprr", body)[0]
        count = np.maximum(gh * gw, 1).astype(ft).reshape(R, 1, 1, 1)
        cv = self.em.constant(count)
        if mode == "avg":
            y = self.ew([y, cv], out_shape, ft, lambda b, a_, el: b.op("arith.divf", a_[0], a_[1], t=el))
        else:
            empty = self.em.constant((gh * gw == 0).reshape(R, 1, 1, 1))
            y = self.ew([empty, y], out_shape, ft, lambda b, a_, el: b.select(a_[0], b.const(0.0, ft), a_[1], el))
        return self._to(y, x.dtype)

    # -- DeformConv ----------------------------------------------------------------------------
    def op_DeformConv(self, node, a):  # noqa: N802
        """Each kernel tap's input sampled at its offset position (bilinear,
        zero outside the input, as ONNX's reference samples it through
        GridSample) and scaled by the mask, then a matrix product with the
        weights per group, plus the bias."""
        x = self.value(node.input[0], node)
        wname = node.input[1]
        ws = self._shape_of(wname, node)
        off = self.value(node.input[2], node)
        bname = node.input[3] if len(node.input) > 3 else ""
        mv = self.value(node.input[4], node) if len(node.input) > 4 and node.input[4] else None
        if len(x.shape) != 4:
            raise _err(f"a {len(x.shape) - 2}-D input (2-D DeformConv is supported)")
        if core.kind(x.dtype) != "f":
            raise _err(f"element type {x.dtype} is not supported")
        N, C, H, W = x.shape
        if len(ws) != 4:
            raise _err(f"a weight of shape {ws}")
        oc, cg, kh, kw = ws
        k = list(a.get("kernel_shape", [kh, kw]))
        if k != [kh, kw]:
            raise _err(f"kernel_shape {k} and a weight of shape {ws}")
        g = int(a.get("group", 1))
        og = int(a.get("offset_group", 1))
        if g < 1 or og < 1 or C != cg * g or oc % g or C % og:
            raise _err(f"{C} input channels, a weight of shape {ws}, group {g}, offset_group {og}")
        s = list(a.get("strides", [1, 1]))
        d = list(a.get("dilations", [1, 1]))
        p = list(a.get("pads", [0, 0, 0, 0]))
        oh = (H + p[0] + p[2] - ((kh - 1) * d[0] + 1)) // s[0] + 1
        ow = (W + p[1] + p[3] - ((kw - 1) * d[1] + 1)) // s[1] + 1
        kk = kh * kw
        if off.shape != (N, og * 2 * kk, oh, ow):
            raise _err(f"offset of shape {off.shape}, expected {(N, og * 2 * kk, oh, ow)}")
        if mv is not None and mv.shape != (N, og * kk, oh, ow):
            raise _err(f"mask of shape {mv.shape}, expected {(N, og * kk, oh, ow)}")
        for v in (off, mv):
            if v is not None and v.dtype != x.dtype:
                raise _err(f"input of element type {x.dtype} with an offset or mask of {v.dtype}")
        ft = _wide(x.dtype)
        fe = el_of(ft)
        xv, ov = self._to(x, ft), self._to(off, ft)
        mw = self._to(mv, ft) if mv is not None else None
        cpo = C // og
        shape = (N, C, kh, kw, oh, ow)

        def body(ai, o):
            b = _B()
            n, c, i, j, y_, x_ = (b.idx(t) for t in range(6))
            ci, ii, ji = b.i64(c), b.i64(i), b.i64(j)
            grp = b.op("arith.divsi", ci, b.ci(cpo), t="i64")
            tapi = b.op("arith.addi", b.op("arith.muli", ii, b.ci(kw), t="i64"), ji, t="i64")
            ch = b.op("arith.addi", b.op("arith.muli", grp, b.ci(2 * kk), t="i64"), b.op("arith.muli", tapi, b.ci(2), t="i64"), t="i64")
            dy = b.extract(ov, [n, b.index(ch), y_, x_])
            dx = b.extract(ov, [n, b.index(b.op("arith.addi", ch, b.ci(1), t="i64")), y_, x_])
            pos = []
            for t_out, t_k, st, dl, pd, dv in ((y_, ii, s[0], d[0], p[0], dy), (x_, ji, s[1], d[1], p[1], dx)):
                base = b.op("arith.addi", b.op("arith.muli", b.i64(t_out), b.ci(st), t="i64"), b.op("arith.muli", t_k, b.ci(dl), t="i64"), t="i64")
                base = b.op("arith.subi", base, b.ci(pd), t="i64")
                pos.append(b.op("arith.addf", b.line(f"arith.sitofp {base} : i64 to {fe}"), dv, t=fe))
            taps = []
            for v, lim in zip(pos, (H, W)):
                # Outside [-1, lim] every tap is outside the input (zero):
                # clamped to -2 or lim + 1 its weights stay finite (an
                # infinite offset made them NaN).  NaN stays NaN.
                v = b.select(b.cmp("arith.cmpf", "olt", v, b.cf(-2.0, fe), fe), b.cf(-2.0, fe), v, fe)
                v = b.select(b.cmp("arith.cmpf", "ogt", v, b.cf(lim + 1, fe), fe), b.cf(lim + 1, fe), v, fe)
                fl = b.op("math.floor", v, t=fe)
                t0 = b.line(f"arith.fptosi {fl} : {fe} to i64")
                fr = b.op("arith.subf", v, fl, t=fe)
                t1 = b.op("arith.addi", t0, b.ci(1), t="i64")
                taps.append([(b.index(b.clamp_i(t0, 0, lim - 1)), b.in_range(t0, lim), b.op("arith.subf", b.cf(1.0, fe), fr, t=fe)),
                             (b.index(b.clamp_i(t1, 0, lim - 1)), b.in_range(t1, lim), fr)])  # fmt: skip
            zero = b.cf(0.0, fe)
            acc = None
            for yi, yok, wy in taps[0]:
                row = None
                for xi, xok, wx in taps[1]:
                    v = b.extract(xv, [n, c, yi, xi])
                    v = b.select(b.op("arith.andi", yok, xok, t="i1"), v, zero, fe)
                    m = b.op("arith.mulf", wx, v, t=fe)
                    row = m if row is None else b.op("arith.addf", row, m, t=fe)
                m = b.op("arith.mulf", wy, row, t=fe)
                acc = m if acc is None else b.op("arith.addf", acc, m, t=fe)
            if mw is not None:
                mch = b.op("arith.addi", b.op("arith.muli", grp, b.ci(kk), t="i64"), tapi, t="i64")
                acc = b.op("arith.mulf", acc, b.extract(mw, [n, b.index(mch), y_, x_]), t=fe)
            return b.lines, [acc]

        smp = self.em.generic([], [(shape, ft, None, _dims(6))], "p" * 6, body)[0]
        smp = self._to(smp, x.dtype)
        cols = self._vname(self.em.reshape(smp, (N, C * kk, oh * ow)), "cols")
        wc = self.const(wname)
        ocg = oc // g
        parts = []
        for gi in range(g):
            if wc is not None:
                wg = np.ascontiguousarray(wc[gi * ocg:(gi + 1) * ocg].reshape(ocg, cg * kk))
            else:
                wg = self._sub(node, "Reshape", [self._sub(node, "Slice", [wname, np.array([gi * ocg], np.int64), np.array([(gi + 1) * ocg], np.int64),
                                                                             np.array([0], np.int64)]),
                                                 np.array([ocg, cg * kk], np.int64)])  # fmt: skip
            cg_ = cols if g == 1 else self._sub(node, "Slice", [cols, np.array([gi * cg * kk], np.int64), np.array([(gi + 1) * cg * kk], np.int64),
                                                                np.array([1], np.int64)])  # fmt: skip
            parts.append(self._sub(node, "MatMul", [wg, cg_]))
        y = parts[0] if g == 1 else self._sub(node, "Concat", parts, axis=1)
        y = self._sub(node, "Reshape", [y, np.array([N, oc, oh, ow], np.int64)])
        if bname:
            bs = self._shape_of(bname, node)
            if tuple(bs) != (oc,):
                raise _err(f"a bias of shape {tuple(bs)} for {oc} output channels")
            y = self._sub(node, "Add", [y, self._sub(node, "Reshape", [bname, np.array([oc, 1, 1], np.int64)])])
        return self._finish(node, [y])
