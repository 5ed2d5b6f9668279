"""More ONNX operators of ``tfrt_import_onnx`` (a mixin of its ``Importer``,
beside ``onnx_ops.OnnxOps``): resizing, quantization, pooling variants,
scatters, TopK, recurrent networks.

The conventions are those of ``onnx_ops``: each ``op_<Name>(node, attrs)``
returns the node's outputs; whatever it cannot do exactly is an
``ImportError_`` naming the reason.  Semantics follow the operator
definitions of ONNX (``onnx.defs``) and, where they are silent, ONNX's
reference implementation and onnxruntime.
"""

from __future__ import annotations

import math

import numpy as np

from tfrt.tools import import_onnx as core
from tfrt.tools.onnx_ops import Body, _dims, _err, _norm_axes, convert, el_of


def _s(a, key, default):
    v = a.get(key, default)
    return v.decode() if isinstance(v, bytes) else v


# -- Resize: per-axis sampling positions and weights (computed at import) -------------------
def _source_coords(mode: str, out_n: int, in_n: int, scale: float, roi) -> tuple[np.ndarray, np.ndarray | None]:
    """Where each output position samples the input (ONNX's coordinate
    transformation modes), and for tf_crop_and_resize which fall outside."""
    y = np.arange(out_n, dtype=np.float64)
    width = scale * in_n  # the output length before rounding
    outside = None
    if mode == "align_corners":
        x = np.zeros(out_n) if width == 1 else y * (in_n - 1) / (width - 1)
    elif mode == "asymmetric":
        x = y / scale
    elif mode == "tf_crop_and_resize":
        lo, hi = float(roi[0]), float(roi[1])
        x = np.full(out_n, (hi - lo) * (in_n - 1) / 2) if width == 1 else y * (hi - lo) * (in_n - 1) / (width - 1)
        x = x + lo * (in_n - 1)
        outside = (x < 0) | (x > in_n - 1)
    elif mode == "pytorch_half_pixel":
        x = np.full(out_n, -0.5) if width == 1 else (y + 0.5) / scale - 0.5
    elif mode == "half_pixel":
        x = (y + 0.5) / scale - 0.5
    elif mode == "half_pixel_symmetric":
        offset = in_n / 2 * (1 - out_n / width)
        x = offset + (y + 0.5) / scale - 0.5
    else:
        raise _err(f"coordinate_transformation_mode '{mode}' is not defined")
    return x, outside


def _cubic(t: np.ndarray, A: float) -> np.ndarray:
    t = np.abs(t)
    near = ((A + 2) * t - (A + 3)) * t * t + 1
    far = ((A * t - 5 * A) * t + 8 * A) * t - 4 * A
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


def _taps(kind: str, x: np.ndarray, in_n: int, scale: float, a) -> tuple[np.ndarray, np.ndarray]:
    """Each output position's input indices (clamped) and weights."""
    x0 = np.floor(x)
    ratio = x - x0
    # An exact input position samples from the left (ratio 1), as ONNX's
    # reference does; the weights are the same, the taps' order differs.
    at = ratio == 0
    x0 = np.where(at, x0 - 1, x0).astype(np.int64)
    ratio = np.where(at, 1.0, ratio)
    if kind == "nearest":
        nm = _s(a, "nearest_mode", "round_prefer_floor")
        if nm == "round_prefer_floor":
            up = ratio > 0.5
        elif nm == "round_prefer_ceil":
            up = ratio >= 0.5
        elif nm == "floor":
            up = np.zeros_like(ratio, bool)
        elif nm == "ceil":
            up = np.ones_like(ratio, bool)
        else:
            raise _err(f"nearest_mode '{nm}' is not defined")
        up = up | at
        idx = np.clip(x0 + up.astype(np.int64), 0, in_n - 1)[:, None]
        return idx, np.ones_like(idx, np.float64)
    antialias = bool(a.get("antialias", 0))
    s = min(scale, 1.0) if antialias else 1.0
    if kind == "linear":
        start = int(math.floor(-1 / s) + 1) if antialias else 0
        offs = np.arange(start, 1 - start + 1) if antialias else np.array([0, 1])
        w = np.clip(1 - np.abs((offs[None, :] - ratio[:, None]) * s), 0, 1)
    else:
        A = float(a.get("cubic_coeff_a", -0.75))
        start = int(math.floor(-2 / s) + 1) if antialias else -1
        offs = np.arange(start, 2 - start) if antialias else np.arange(-1, 3)
        w = _cubic((offs[None, :] - ratio[:, None]) * s, A)
    if antialias:
        w = w / w.sum(axis=1, keepdims=True)
    idx = x0[:, None] + offs[None, :]
    if a.get("exclude_outside", 0):
        w = np.where((idx < 0) | (idx >= in_n), 0.0, w)
        tot = w.sum(axis=1, keepdims=True)
        w = w / np.where(tot == 0, 1.0, tot)
    return np.clip(idx, 0, in_n - 1), w


class OnnxOpsNN:
    """Operator handlers (mixed into ``Importer``)."""

    # -- Resize / Upsample ---------------------------------------------------------------
    def op_Resize(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        r = len(x.shape)
        if self.opset < 11:
            scales = self.static(node, 1, "scales")
            return self._resize(node, x, {"mode": a.get("mode", b"nearest"), "coordinate_transformation_mode": "asymmetric",
                                          "nearest_mode": "floor"}, None, scales, None)  # fmt: skip
        roi = self.static(node, 1, "roi")
        scales = self.static(node, 2, "scales")
        sizes = self.static(node, 3, "sizes")
        del r
        return self._resize(node, x, a, roi, scales, sizes)

    def op_Upsample(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        scales = a.get("scales") if self.opset < 9 else self.static(node, 1, "scales")
        mode = _s(a, "mode", "nearest")
        if mode != "nearest":
            raise _err(f"mode '{mode}' is not supported (nearest is)")
        return self._resize(node, x, {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"},
                            None, scales, None)  # fmt: skip

    def _resize(self, node, x, a, roi, scales, sizes):
        r = len(x.shape)
        mode = _s(a, "mode", "nearest")
        if mode not in ("nearest", "linear", "cubic"):
            raise _err(f"mode '{mode}' is not defined")
        if mode == "nearest" and a.get("antialias", 0):
            raise _err("antialias with mode 'nearest' is not defined")
        ctm = _s(a, "coordinate_transformation_mode", "half_pixel")
        axes = _norm_axes(a.get("axes", range(r)), r)
        if scales is not None and np.asarray(scales).size == 0:
            scales = None
        if sizes is not None and np.asarray(sizes).size == 0:
            sizes = None
        if roi is not None and np.asarray(roi).size == 0:
            roi = None
        if (scales is None) == (sizes is None):
            raise _err("exactly one of scales and sizes must be given")
        full_scale = [1.0] * r
        out_shape = list(x.shape)
        if scales is not None:
            scales = np.asarray(scales, np.float64).ravel()
            if scales.size != len(axes):
                raise _err(f"{scales.size} scales for {len(axes)} axes")
            for i, d in enumerate(axes):
                full_scale[d] = float(scales[i])
                out_shape[d] = int(full_scale[d] * x.shape[d])
        else:
            sizes = np.asarray(sizes, np.int64).ravel()
            if sizes.size != len(axes):
                raise _err(f"{sizes.size} sizes for {len(axes)} axes")
            for i, d in enumerate(axes):
                full_scale[d] = float(sizes[i]) / x.shape[d]
                out_shape[d] = int(sizes[i])
            policy = _s(a, "keep_aspect_ratio_policy", "stretch")
            if policy != "stretch":
                if policy not in ("not_larger", "not_smaller"):
                    raise _err(f"keep_aspect_ratio_policy '{policy}' is not defined")
                pick = min if policy == "not_larger" else max
                s = pick(full_scale[d] for d in axes)
                for d in axes:
                    full_scale[d] = s
                    out_shape[d] = int(s * x.shape[d] + 0.5)
        if any(s <= 0 for s in full_scale):
            raise _err(f"scales must be positive, got {full_scale}")
        full_roi = None
        if ctm == "tf_crop_and_resize":
            if roi is None:
                raise _err("tf_crop_and_resize needs roi")
            roi = np.asarray(roi, np.float64).ravel()
            if roi.size != 2 * len(axes):
                raise _err(f"roi of {roi.size} values for {len(axes)} axes")
            full_roi = [(0.0, 1.0)] * r
            for i, d in enumerate(axes):
                full_roi[d] = (float(roi[i]), float(roi[len(axes) + i]))
        if mode != "nearest" and core.kind(x.dtype) != "f":
            raise _err(f"mode '{mode}' on element type {x.dtype} is not supported")
        extrap = float(a.get("extrapolation_value", 0.0))
        y = x
        for d in axes:
            n_in, n_out, s = x.shape[d], out_shape[d], full_scale[d]
            box = full_roi[d] if full_roi else None
            if math.isclose(s, 1.0) and n_out == n_in and (box is None or (math.isclose(box[0], 0.0) and math.isclose(box[1], 1.0))):
                continue
            if n_out == 0 or n_in == 0:
                raise _err("an empty input or output axis is not supported")
            xs, outside = _source_coords(ctm, n_out, n_in, s, box)
            idx, w = _taps(mode, xs, n_in, s, a)
            y = self._resize_axis(y, d, idx, w, mode == "nearest")
            if outside is not None and outside.any():
                mshape = [1] * r
                mshape[d] = n_out
                mask = self.em.constant(outside.reshape(mshape))
                dt = y.dtype
                y = self.ew([mask, y], y.shape, dt, lambda b, a_, el: b.select(a_[0], b.const(extrap, dt), a_[1], el))
        return y

    def _resize_axis(self, x, axis, idx, w, nearest):
        """out[.., o, ..] = sum_k w[o, k] * x[.., idx[o, k], ..]."""
        if nearest:
            return self.take(x, idx[:, 0], axis)
        wide = np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)
        xw = x if x.dtype == wide else self.ew([x], x.shape, wide, lambda b, a_, el: convert(b, a_[0], x.dtype, wide))
        r = len(x.shape)
        out_shape = list(x.shape)
        out_shape[axis] = idx.shape[0]
        iv = self.em.constant(idx.astype(np.int64))
        wv = self.em.constant(w.astype(wide))
        dims = _dims(r + 1)
        el = el_of(wide)

        def body(ai, o):
            b = Body()
            i = b.line(f"arith.index_cast {ai[0]} : i64 to index")
            coords = [i if k == axis else b.line(f"linalg.index {k} : index") for k in range(r)]
            v = b.line(f"tensor.extract {xw.name}[{', '.join(coords)}] : {xw.type}")
            m = b.op("arith.mulf", ai[1], v, t=el)
            return b.lines, [b.op("arith.addf", o[0], m, t=el)]

        acc = self.em.filled(tuple(out_shape), wide, 0.0)
        y = self.em.generic([(iv, [dims[axis], dims[r]]), (wv, [dims[axis], dims[r]])],
                            [(tuple(out_shape), wide, acc, dims[:r])], "p" * r + "r", body)[0]  # fmt: skip
        if wide != x.dtype:
            y = self.ew([y], y.shape, x.dtype, lambda b, a_, el_: convert(b, a_[0], wide, x.dtype))
        return y

    # -- pooling of any rank (ceil_mode, dilations, integer types, Indices), LpPool ----------
    def _pool_window(self, a, spatial, k, ceil=False):
        """Strides, dilations, pads (begin, end) and output sizes per axis."""
        r = len(spatial)
        strides = list(a.get("strides", [1] * r))
        dil = list(a.get("dilations", [1] * r))
        pads = list(a.get("pads", [0] * (2 * r)))
        auto = _s(a, "auto_pad", "NOTSET")
        begin, end, out = [], [], []
        for i in range(r):
            span = dil[i] * (k[i] - 1) + 1
            if auto in ("SAME_UPPER", "SAME_LOWER"):
                o = -(-spatial[i] // strides[i])
                total = max(0, (o - 1) * strides[i] + span - spatial[i])
                small, big = total // 2, total - total // 2
                pb, pe = (small, big) if auto == "SAME_UPPER" else (big, small)
            elif auto == "VALID":
                pb = pe = 0
            elif auto == "NOTSET":
                pb, pe = int(pads[i]), int(pads[i + r])
            else:
                raise _err(f"auto_pad '{auto}' is not defined")
            n = spatial[i] + pb + pe - span
            if n < 0:
                raise _err(f"the window ({span}) is larger than the padded input ({spatial[i] + pb + pe})")
            if ceil and auto == "NOTSET":
                o = -(-n // strides[i]) + 1
                if (o - 1) * strides[i] >= spatial[i] + pb:
                    o -= 1  # the last window would start in the end padding
            else:
                o = n // strides[i] + 1
            begin.append(pb)
            end.append(pe)
            out.append(o)
        return strides, dil, begin, end, out

    def _pool_nd(self, node, a, kind):
        """MaxPool / AveragePool / LpPool as one generic over the output and
        the window, on the input padded with the reduction's identity."""
        x = self.value(node.input[0], node)
        r = len(x.shape) - 2
        if r < 1:
            raise _err(f"input of rank {len(x.shape)}")
        k = list(a["kernel_shape"])
        if len(k) != r:
            raise _err(f"kernel_shape {k} for {r} spatial axes")
        strides, dil, pb, pe, out = self._pool_window(a, x.shape[2:], k, bool(a.get("ceil_mode", 0)))
        kd = core.kind(x.dtype)
        if kind != "max" and kd != "f":
            raise _err(f"element type {x.dtype} is not supported (floating point only)")
        if kind == "max":
            init = -math.inf if kd == "f" else (0 if kd == "u" else -(1 << (core.bits(x.dtype) - 1)))
        else:
            init = 0.0
        # The input padded at the end so the last (ceil_mode) window fits.
        extra = [max(0, (out[i] - 1) * strides[i] + dil[i] * (k[i] - 1) + 1 - (x.shape[2 + i] + pb[i] + pe[i])) for i in range(r)]
        xs = self.em.signless(x)
        lo = [0, 0] + pb
        hi = [0, 0] + [pe[i] + extra[i] for i in range(r)]
        if any(lo) or any(hi):
            shape = tuple(d + l + h for d, l, h in zip(x.shape, lo, hi))
            name = self.em.fresh()
            el = el_of(x.dtype)
            self.em.emit(f"{name} = tensor.pad {xs.name} low[{', '.join(map(str, lo))}] high[{', '.join(map(str, hi))}] {{")
            self.em.emit("^bb0(" + ", ".join(f"%p{i}: index" for i in range(len(shape))) + "):")
            pv = core._float_literal(init, x.dtype) if kd == "f" else str(int(init))
            self.em.emit(f"  %pv = arith.constant {pv} : {el}")
            self.em.emit(f"  tensor.yield %pv : {el}")
            self.em.emit(f"}} : {xs.type} to {core._ttype(shape, xs.dtype)}")
            xs = core.Value(name, shape, xs.dtype)
        n_loops = 2 + 2 * r
        dims = _dims(n_loops)
        x_map = [dims[0], dims[1]] + [f"{dims[2 + i]} * {strides[i]} + {dims[2 + r + i]} * {dil[i]}" for i in range(r)]
        win = core.Value(self.em.empty(tuple(k), np.float32), tuple(k), np.dtype(np.float32))
        out_shape = tuple(x.shape[:2]) + tuple(out)
        el = el_of(x.dtype)
        p = float(a.get("p", 2)) if kind == "lp" else None

        def body(ai, o):
            b = Body()
            v = ai[0]
            if kind == "max":
                opn = "arith.maximumf" if kd == "f" else ("arith.maxui" if kd == "u" else "arith.maxsi")
                return b.lines, [b.op(opn, o[0], v, t=el)]
            if kind == "lp":
                if p == 2:
                    v = b.op("arith.mulf", v, v, t=el)
                elif p == 1:
                    v = b.op("math.absf", v, t=el)
                else:
                    v = b.op("math.powf", b.op("math.absf", v, t=el), b.const(p, x.dtype), t=el)
            return b.lines, [b.op("arith.addf", o[0], v, t=el)]

        acc = self.em.filled(out_shape, xs.dtype, init)
        y = self.em.generic([(xs, x_map), (win, dims[2 + r:])], [(out_shape, xs.dtype, acc, dims[:2 + r])],
                            "p" * (2 + r) + "r" * r, body)[0]  # fmt: skip
        y = self.em.bitcast(y, x.dtype)
        if kind == "lp":
            if p == 2:
                return self.ew([y], y.shape, y.dtype, lambda b, a_, el_: b.op("math.sqrt", a_[0], t=el_))
            if p == 1:
                return y
            return self.ew([y], y.shape, y.dtype, lambda b, a_, el_: b.op("math.powf", a_[0], b.const(1.0 / p, x.dtype), t=el_))
        if kind == "avg":
            # Each window's count: the input, and the explicit pads with
            # count_include_pad (never the end padding ceil_mode adds).
            mask = np.ones(x.shape[2:], np.float64)
            mask = np.pad(mask, list(zip(pb, pe)), constant_values=1.0 if a.get("count_include_pad", 0) else 0.0)
            mask = np.pad(mask, [(0, e) for e in extra])
            span = [dil[i] * (k[i] - 1) + 1 for i in range(r)]
            win_v = np.lib.stride_tricks.sliding_window_view(mask, span)
            win_v = win_v[tuple(slice(None, None, s) for s in strides) + tuple(slice(None, None, d) for d in dil)]
            win_v = win_v[tuple(slice(0, o) for o in out)]
            count = win_v.sum(axis=tuple(range(r, 2 * r)))
            inv = self.em.constant((1.0 / count).astype(x.dtype))
            return self.ew([y, inv], y.shape, y.dtype, lambda b, a_, el_: b.op("arith.mulf", a_[0], a_[1], t=el_))
        return y

    def op_LpPool(self, node, a):  # noqa: N802
        return self._pool_nd(node, a, "lp")

    def op_GlobalLpPool(self, node, a):  # noqa: N802
        """LpPool with one window over all the spatial axes."""
        x = self.value(node.input[0], node)
        if len(x.shape) < 3:
            raise _err(f"an input of rank {len(x.shape)} (it needs a batch, a channel and a spatial axis)")
        return self._pool_nd(node, {"kernel_shape": list(x.shape[2:]), "p": a.get("p", 2)}, "lp")

    # -- QuantizeLinear / DequantizeLinear --------------------------------------------------
    def _quant_param(self, node, i, x, a, what):
        """Input ``i`` (a scale or zero point) broadcast against ``x``:
        per tensor, per axis, or blocked along ``axis``."""
        v = self.inp(node, i)
        if v is None:
            return None
        r = len(x.shape)
        if v.shape in ((), (1,)):
            return self.em.reshape(v, ())
        axis = _norm_axes([a.get("axis", 1)], r)[0]
        block = int(a.get("block_size", 0))
        if len(v.shape) == 1 and not block:
            if v.shape[0] != x.shape[axis]:
                raise _err(f"{what} of {v.shape[0]} values for axis {axis} of length {x.shape[axis]}")
            return self.em.reshape(v, tuple(x.shape[axis] if k == axis else 1 for k in range(r)))
        if block and len(v.shape) == r:
            want = tuple(-(-x.shape[k] // block) if k == axis else x.shape[k] for k in range(r))
            if v.shape != want:
                raise _err(f"{what} of shape {v.shape} for blocks of {block} (expected {want})")
            return self.take(v, np.arange(x.shape[axis]) // block, axis)
        raise _err(f"{what} of shape {v.shape} for an input of shape {x.shape}")

    def op_DequantizeLinear(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        scale = self._quant_param(node, 1, x, a, "scale")
        zp = self._quant_param(node, 2, x, a, "zero point")
        out = np.dtype(self.np_type(a["output_dtype"], "output_dtype")) if a.get("output_dtype") else scale.dtype
        if zp is not None and zp.dtype != x.dtype:
            raise _err(f"zero point of type {zp.dtype} for an input of type {x.dtype}")
        kx = core.kind(x.dtype)
        f32 = np.dtype(np.float32)
        ins = [x, scale] + ([zp] if zp is not None else [])

        def fn(b, a_, el):
            if kx == "f":
                v = convert(b, a_[0], x.dtype, f32)
                if zp is not None:
                    v = b.op("arith.subf", v, convert(b, a_[2], x.dtype, f32), t="f32")
            else:
                i32 = np.dtype(np.int64)
                v = convert(b, a_[0], x.dtype, i32)
                if zp is not None:
                    v = b.op("arith.subi", v, convert(b, a_[2], x.dtype, i32), t="i64")
                v = convert(b, v, i32, f32)
            s = convert(b, a_[1], scale.dtype, f32)
            return convert(b, b.op("arith.mulf", v, s, t="f32"), f32, out)

        return self.ew(ins, x.shape, out, fn)

    def op_QuantizeLinear(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        self.float_only(x)
        scale = self._quant_param(node, 1, x, a, "scale")
        zp = self._quant_param(node, 2, x, a, "zero point")
        if zp is not None:
            out = zp.dtype
        elif a.get("output_dtype"):
            out = np.dtype(self.np_type(a["output_dtype"], "output_dtype"))
        else:
            out = np.dtype(np.uint8)
        ko = core.kind(out)
        saturate = bool(a.get("saturate", 1))
        # The quotient is taken in the wider of the input's and the scale's types (as numpy does).
        wide = x.dtype if core.bits(x.dtype) >= core.bits(scale.dtype) else scale.dtype
        if core._elem(wide) not in ("f16", "f32", "f64"):
            wide = np.dtype(np.float32)
        ins = [x, scale] + ([zp] if zp is not None else [])
        el_w = el_of(wide)

        def fn(b, a_, el):
            q = b.op("arith.divf", convert(b, a_[0], x.dtype, wide), convert(b, a_[1], scale.dtype, wide), t=el_w)
            if ko == "f":
                if zp is not None:
                    q = b.op("arith.addf", q, convert(b, a_[2], out, wide), t=el_w)
                return convert(b, q, wide, out, saturate=saturate)
            if ko not in "iu":
                raise _err(f"quantizing to {out} is not supported")
            q = b.op("math.roundeven", q, t=el_w)
            if zp is not None:
                q = b.op("arith.addf", q, convert(b, a_[2], out, wide), t=el_w)
            n = core.bits(out)
            lo, hi = (0, (1 << n) - 1) if ko == "u" else (-(1 << (n - 1)), (1 << (n - 1)) - 1)
            q = b.op("arith.maximumf", q, b.const(float(lo), wide), t=el_w)
            q = b.op("arith.minimumf", q, b.const(float(hi), wide), t=el_w)
            return convert(b, q, wide, out)

        return self.ew(ins, x.shape, out, fn)
