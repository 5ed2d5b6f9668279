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
