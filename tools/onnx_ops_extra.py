"""ONNX operators imported as small graphs of other ONNX operators (built
here and imported node by node: each one folds, specializes and refuses as it
does on its own): BitCast, QLinearMatMul, ConvTranspose, DFT, RNN, GRU, LSTM.

Mixed into ``tools.import_onnx.Importer``.
"""

from __future__ import annotations

import numpy as np

from tfrt.tools import import_onnx as core


def _err(msg: str):
    return core.ImportError_(msg)


class OnnxOpsExtra:
    """Operators as compositions of others (mixed into ``Importer``)."""

    def _sub(self, node, op: str, inputs, n_out: int = 1, **attrs):
        """Imports one ``op`` node (named after ``node``) on ``inputs`` (names,
        or arrays that become constants); returns its output names."""
        from onnx import helper

        self._subs = getattr(self, "_subs", 0) + 1
        tag = f"__{node.op_type}{self._subs}__"
        names = []
        for k, x in enumerate(inputs):
            if isinstance(x, np.ndarray):
                nm = f"{tag}c{k}"
                self.consts[nm] = x
                names.append(nm)
            else:
                names.append(x or "")
        outs = [f"{tag}o{k}" for k in range(n_out)]
        n = helper.make_node(op, names, outs, name=f"{node.name or node.op_type}/{op}", **attrs)
        for o in outs:
            self.producer[o] = n
        # What this node depends on at run time is what ``node`` depends on.
        self.node(n)
        return outs if n_out > 1 else outs[0]

    def _shape_of(self, name: str, node):
        c = self.consts.get(name)
        return tuple(c.shape) if c is not None else self._logical(name, node).shape

    def _dtype_of(self, name: str, node):
        c = self.consts.get(name)
        return c.dtype if c is not None else self._logical(name, node).dtype

    def _alias(self, src: str, dst: str) -> None:
        c = self.consts.get(src)
        if c is not None:
            self.consts[dst] = c
        else:
            self.values[dst] = self.values[src]

    def _finish(self, node, names) -> list:
        outs = []
        for nm in names:
            c = self.consts.get(nm)
            outs.append(c if c is not None else self.values[nm])
        return outs

    # -- BitCast --------------------------------------------------------------
    def op_BitCast(self, node, a):  # noqa: N802
        src = self._dtype_of(node.input[0], node)
        dst = self.np_type(int(a["to"]), "the target type")
        if src.itemsize != dst.itemsize:
            raise _err(f"{src} and {dst} differ in width")
        if src == np.bool_ or dst == np.bool_:
            if dst == np.bool_ and src != np.bool_:
                raise _err(f"a bit cast from {src} to bool (bytes other than 0 and 1) is not supported")
            if src == dst:
                return self._finish(node, [node.input[0]])
            return self._finish(node, [self._sub(node, "Cast", [node.input[0]], to=int(a["to"]))])
        c = self.consts.get(node.input[0])
        if c is not None:
            return c.view(dst)
        return self.em.bitcast(self.value(node.input[0], node), dst)

    # -- QLinearMatMul --------------------------------------------------------
    def op_QLinearMatMul(self, node, a):  # noqa: N802
        """As ONNX defines it: (a - a_zp) @ (b - b_zp) in int32, times
        a_scale * b_scale / y_scale (in the scales' type) in f64, rounded half
        to even, plus y_zp, saturated."""
        from onnx import TensorProto

        i = list(node.input) + [""] * (8 - len(node.input))
        qa, sa, za, qb, sb, zb, sy, zy = i[:8]

        def centered(q, z):
            x = self._sub(node, "Cast", [q], to=TensorProto.INT32)
            if z:
                x = self._sub(node, "Sub", [x, self._sub(node, "Cast", [z], to=TensorProto.INT32)])
            return x

        c = self._sub(node, "MatMul", [centered(qa, za), centered(qb, zb)])
        f = self._sub(node, "Div", [self._sub(node, "Mul", [sa, sb]), sy])
        d = self._sub(node, "Mul", [self._sub(node, "Cast", [c], to=TensorProto.DOUBLE),
                                    self._sub(node, "Cast", [f], to=TensorProto.DOUBLE)])  # fmt: skip
        out_dt = self._dtype_of(zy, node) if zy else self._dtype_of(qa, node)
        if zy:
            d = self._sub(node, "Add", [d, self._sub(node, "Cast", [zy], to=TensorProto.DOUBLE)])
        d = self._sub(node, "Round", [d])
        info = np.iinfo(out_dt)
        d = self._sub(node, "Clip", [d, np.array(info.min, np.float64), np.array(info.max, np.float64)])
        from onnx import helper

        return self._finish(node, [self._sub(node, "Cast", [d], to=helper.np_dtype_to_tensor_dtype(out_dt))])

    # -- ConvTranspose --------------------------------------------------------
    def op_ConvTranspose(self, node, a):  # noqa: N802
        """A convolution of the input spread out by the strides (zeros
        between elements) and padded, with the kernel flipped and its channel
        axes swapped per group; output sizes and pads as ONNX's definition
        computes them (``output_shape``, ``auto_pad``, ``output_padding``)."""
        x, w = node.input[0], node.input[1]
        b = node.input[2] if len(node.input) > 2 else ""
        xs, ws = self._shape_of(x, node), self._shape_of(w, node)
        r = len(xs) - 2
        if r < 1 or len(ws) != r + 2:
            raise _err(f"input of rank {len(xs)} and weight of rank {len(ws)}")
        g = int(a.get("group", 1))
        s = list(a.get("strides", [1] * r))
        d = list(a.get("dilations", [1] * r))
        op_ = list(a.get("output_padding", [0] * r))[:r]
        k = list(ws[2:])
        ke = [(k[i] - 1) * d[i] + 1 for i in range(r)]
        auto = a.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else auto
        pads = a.get("pads")
        out_shape = a.get("output_shape")
        if out_shape is not None:
            out_shape = list(out_shape)[-r:]
        if pads is None and auto in ("SAME_UPPER", "SAME_LOWER"):
            if out_shape is None:
                out_shape = [xs[2 + i] * s[i] for i in range(r)]
            # (An output_shape past the natural size adds its extra at the end,
            # as onnxruntime does: the total is taken as 0.)
            tot = [max(0, s[i] * (xs[2 + i] - 1) + op_[i] + ke[i] - out_shape[i]) for i in range(r)]
            if auto == "SAME_UPPER":
                pb = [t // 2 for t in tot]
            else:
                pb = [t - t // 2 for t in tot]
            final = out_shape
        elif auto in ("NOTSET", "VALID") and out_shape is not None:
            # Pads are generated from output_shape (any given are ignored):
            # the larger half of the total at the start, as ONNX defines it
            # for every auto_pad but SAME_UPPER.
            tot = [max(0, s[i] * (xs[2 + i] - 1) + op_[i] + ke[i] - out_shape[i]) for i in range(r)]
            pb = [t - t // 2 for t in tot]
            final = out_shape
        elif auto in ("NOTSET", "VALID"):
            pads = list(pads) if pads is not None else [0] * (2 * r)
            pb = pads[:r]
            natural = [s[i] * (xs[2 + i] - 1) + op_[i] + ke[i] for i in range(r)]
            final = out_shape if out_shape is not None else [natural[i] - pads[i] - pads[r + i] for i in range(r)]
        else:
            raise _err(f"auto_pad {auto} is not supported")
        if any(f <= 0 for f in final):
            raise _err(f"an output of size {final}")
        c, mg = ws[0], ws[1]
        if xs[1] != c or c % g:
            raise _err(f"{xs[1]} input channels, a weight for {c} in {g} groups")
        # The weight as a convolution's: [g*M/g, C/g, k...], flipped.
        wt = self._sub(node, "Reshape", [w, np.array([g, c // g, mg] + k, np.int64)])
        wt = self._sub(node, "Transpose", [wt], perm=[0, 2, 1] + list(range(3, 3 + r)))
        wt = self._sub(node, "Reshape", [wt, np.array([g * mg, c // g] + k, np.int64)])
        axes = np.arange(2, 2 + r, dtype=np.int64)
        wt = self._sub(node, "Slice", [wt, np.full(r, -1, np.int64), np.full(r, -(2**62), np.int64), axes, np.full(r, -1, np.int64)])
        # The input spread out: zeros between elements along each strided axis.
        y = x
        shape = list(xs)
        for i in range(r):
            if s[i] == 1:
                continue
            ax = 2 + i
            y = self._sub(node, "Unsqueeze", [y, np.array([ax + 1], np.int64)])
            pz = np.zeros(2 * (len(shape) + 1), np.int64)
            pz[len(shape) + 1 + ax + 1] = s[i] - 1
            y = self._sub(node, "Pad", [y, pz])
            shape[ax] = shape[ax] * s[i]
            y = self._sub(node, "Reshape", [y, np.array(shape, np.int64)])
            n = (xs[ax] - 1) * s[i] + 1
            y = self._sub(node, "Slice", [y, np.array([0], np.int64), np.array([n], np.int64), np.array([ax], np.int64)])
            shape[ax] = n
        # Pads (or crops) so that the convolution's output has the final size.
        begin = [ke[i] - 1 - pb[i] for i in range(r)]
        end = [final[i] + ke[i] - 1 - (shape[2 + i] + begin[i]) for i in range(r)]
        if any(v < 0 for v in begin + end):
            st = np.array([max(0, -v) for v in begin], np.int64)
            en = np.array([shape[2 + i] - max(0, -end[i]) for i in range(r)], np.int64)
            y = self._sub(node, "Slice", [y, st, en, axes])
        if any(v > 0 for v in begin + end):
            pz = np.array([0, 0] + [max(0, v) for v in begin] + [0, 0] + [max(0, v) for v in end], np.int64)
            y = self._sub(node, "Pad", [y, pz])
        ins = [y, wt] + ([b] if b else [])
        out = self._sub(node, "Conv", ins, group=g, dilations=d, strides=[1] * r, pads=[0] * (2 * r), kernel_shape=k)
        return self._finish(node, [out])

    # -- RNN, GRU, LSTM -------------------------------------------------------
    _ACT = {"sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "Relu", "hardsigmoid": "HardSigmoid", "leakyrelu": "LeakyRelu",
            "thresholdedrelu": "ThresholdedRelu", "elu": "Elu", "softsign": "Softsign", "softplus": "Softplus"}  # fmt: skip

    def op_RNN(self, node, a):  # noqa: N802
        return self._recurrent(node, a, "RNN", 1, ["Tanh"])

    def op_GRU(self, node, a):  # noqa: N802
        return self._recurrent(node, a, "GRU", 3, ["Sigmoid", "Tanh"])

    def op_LSTM(self, node, a):  # noqa: N802
        return self._recurrent(node, a, "LSTM", 4, ["Sigmoid", "Tanh", "Tanh"])

    def _recurrent(self, node, a, kind: str, gates: int, default_acts):
        """Unrolled over the sequence (its length is static), as ONNX's
        equations for the operator define each step."""
        ins = list(node.input) + [""] * 8
        x, w, r, b, seq, h0 = ins[:6]
        c0, p = (ins[6], ins[7]) if kind == "LSTM" else ("", "")
        layout = int(a.get("layout", 0))
        direction = a.get("direction", b"forward")
        direction = direction.decode() if isinstance(direction, bytes) else direction
        dirs = 2 if direction == "bidirectional" else 1
        hid = int(a["hidden_size"]) if "hidden_size" in a else self._shape_of(r, node)[-1]
        if kind == "LSTM" and int(a.get("input_forget", 0)):
            raise _err("input_forget=1 is not supported")
        lbr = int(a.get("linear_before_reset", 0))
        clip = a.get("clip")
        acts = [s.decode() if isinstance(s, bytes) else s for s in a.get("activations", [])] or default_acts * dirs
        alphas = list(a.get("activation_alpha", []))
        betas = list(a.get("activation_beta", []))
        nact = len(default_acts)
        if len(acts) != nact * dirs:
            raise _err(f"{len(acts)} activations for {dirs} direction(s)")
        if alphas or betas:
            raise _err("activation_alpha and activation_beta are not supported")
        ops = []
        for s in acts:
            op = self._ACT.get(s.lower())
            if op is None:
                raise _err(f"activation {s} is not supported")
            ops.append(op)
        if layout:
            x = self._sub(node, "Transpose", [x], perm=[1, 0, 2])
            if h0:
                h0 = self._sub(node, "Transpose", [h0], perm=[1, 0, 2])
            if c0:
                c0 = self._sub(node, "Transpose", [c0], perm=[1, 0, 2])
        xs = self._shape_of(x, node)
        steps, batch = xs[0], xs[1]
        if steps == 0:
            raise _err("an empty sequence is not supported")
        if seq:
            lens = self.static(node, 4, "sequence_lens")
            if np.any(np.asarray(lens) != steps):
                raise _err("sequence_lens shorter than the sequence are not supported")
        dt = self._dtype_of(x, node)
        i64 = lambda *v: np.array(v, np.int64)  # noqa: E731

        def act(v, k):
            if clip is not None:
                v = self._sub(node, "Clip", [v, np.array(-clip, dt), np.array(clip, dt)])
            return self._sub(node, ops[k], [v])

        def part(v, j, axis=-1):  # gate j of a [..., gates*hid] value
            return self._sub(node, "Slice", [v, i64(j * hid), i64((j + 1) * hid), i64(axis)])

        ys, hs, cs = [], [], []
        for dn in range(dirs):
            rev = direction == "reverse" or dn == 1
            wd = self._sub(node, "Gather", [w, np.array(dn, np.int64)], axis=0)  # [G*h, in]
            rd = self._sub(node, "Gather", [r, np.array(dn, np.int64)], axis=0)  # [G*h, h]
            wt = self._sub(node, "Transpose", [wd], perm=[1, 0])
            rts = [self._sub(node, "Transpose", [part(rd, j, 0)], perm=[1, 0]) for j in range(gates)]
            xw = self._sub(node, "MatMul", [x, wt])  # [seq, batch, G*h]
            if b:
                bd = self._sub(node, "Gather", [b, np.array(dn, np.int64)], axis=0)
                wb = self._sub(node, "Slice", [bd, i64(0), i64(gates * hid), i64(0)])
                rb = self._sub(node, "Slice", [bd, i64(gates * hid), i64(2 * gates * hid), i64(0)])
            else:
                wb = rb = None
            h = self._sub(node, "Gather", [h0, np.array(dn, np.int64)], axis=0) if h0 else np.zeros((batch, hid), dt)
            c = None
            if kind == "LSTM":
                c = self._sub(node, "Gather", [c0, np.array(dn, np.int64)], axis=0) if c0 else np.zeros((batch, hid), dt)
                pd = self._sub(node, "Gather", [p, np.array(dn, np.int64)], axis=0) if p else None
            out = [None] * steps
            a0 = nact * dn
            for t in (range(steps - 1, -1, -1) if rev else range(steps)):
                xt = self._sub(node, "Gather", [xw, np.array(t, np.int64)], axis=0)  # [batch, G*h]
                if wb is not None:
                    xt = self._sub(node, "Add", [xt, wb])
                hr = [self._sub(node, "MatMul", [h, rts[j]]) for j in range(gates)]
                if rb is not None:
                    hr = [self._sub(node, "Add", [hr[j], part(rb, j, 0)]) for j in range(gates)]
                xg = [part(xt, j) for j in range(gates)]
                if kind == "RNN":
                    h = act(self._sub(node, "Add", [xg[0], hr[0]]), a0)
                elif kind == "GRU":
                    z = act(self._sub(node, "Add", [xg[0], hr[0]]), a0)
                    rr = act(self._sub(node, "Add", [xg[1], hr[1]]), a0)
                    if lbr:
                        pre = self._sub(node, "Add", [xg[2], self._sub(node, "Mul", [rr, hr[2]])])
                    else:
                        rh = self._sub(node, "MatMul", [self._sub(node, "Mul", [rr, h]), rts[2]])
                        if rb is not None:
                            rh = self._sub(node, "Add", [rh, part(rb, 2, 0)])
                        pre = self._sub(node, "Add", [xg[2], rh])
                    hh = act(pre, a0 + 1)
                    one_z = self._sub(node, "Sub", [np.array(1, dt), z])
                    h = self._sub(node, "Add", [self._sub(node, "Mul", [one_z, hh]), self._sub(node, "Mul", [z, h])])
                else:  # LSTM, gates i o f c
                    pre = [self._sub(node, "Add", [xg[j], hr[j]]) for j in range(4)]
                    if pd is not None:
                        pre[0] = self._sub(node, "Add", [pre[0], self._sub(node, "Mul", [part(pd, 0, 0), c])])
                        pre[2] = self._sub(node, "Add", [pre[2], self._sub(node, "Mul", [part(pd, 2, 0), c])])
                    i_ = act(pre[0], a0)
                    f = act(pre[2], a0)
                    cc = act(pre[3], a0 + 1)
                    c = self._sub(node, "Add", [self._sub(node, "Mul", [f, c]), self._sub(node, "Mul", [i_, cc])])
                    if pd is not None:
                        pre[1] = self._sub(node, "Add", [pre[1], self._sub(node, "Mul", [part(pd, 1, 0), c])])
                    o = act(pre[1], a0)
                    h = self._sub(node, "Mul", [o, self._sub(node, ops[a0 + 2], [c])])
                out[t] = h
            ys.append(self._sub(node, "Concat", [self._sub(node, "Unsqueeze", [v, i64(0)]) for v in out], axis=0))
            hs.append(h)
            cs.append(c)
        # Y [seq, dirs, batch, h]; Y_h, Y_c [dirs, batch, h] (layout 1: batch first).
        y = self._sub(node, "Concat", [self._sub(node, "Unsqueeze", [v, i64(1)]) for v in ys], axis=1)
        yh = self._sub(node, "Concat", [self._sub(node, "Unsqueeze", [v, i64(0)]) for v in hs], axis=0)
        res = [y, yh]
        if kind == "LSTM":
            res.append(self._sub(node, "Concat", [self._sub(node, "Unsqueeze", [v, i64(0)]) for v in cs], axis=0))
        if layout:
            res[0] = self._sub(node, "Transpose", [res[0]], perm=[2, 0, 1, 3])
            res[1:] = [self._sub(node, "Transpose", [v], perm=[1, 0, 2]) for v in res[1:]]
        return self._finish(node, res)

    # -- DFT ------------------------------------------------------------------
    def op_DFT(self, node, a):  # noqa: N802
        """Products with cosine and sine matrices (computed in f64 at import,
        the products in f64), as numpy.fft defines the transforms: input
        truncated or zero-padded to ``dft_length``; onesided forward keeps
        n // 2 + 1 frequencies; inverse onesided is the real inverse of a
        Hermitian spectrum."""
        from onnx import TensorProto, helper

        x = node.input[0]
        xs = self._shape_of(x, node)
        dt = self._dtype_of(x, node)
        if len(xs) < 2 or xs[-1] not in (1, 2):
            raise _err(f"input of shape {xs}: the last axis must hold 1 (real) or 2 (complex) values")
        rank = len(xs)
        if self.opset >= 20:
            ax = self.static(node, 2, "axis")
            axis = int(np.asarray(ax).reshape(())) if ax is not None else -2
        else:
            axis = int(a.get("axis", 1))
        axis %= rank
        if axis == rank - 1:
            raise _err("the transform along the last axis (the real and imaginary parts) is not defined")
        inverse, onesided = bool(a.get("inverse", 0)), bool(a.get("onesided", 0))
        if inverse and not onesided:
            # Computed this way the result is exact to f64 and differs from
            # numpy.fft's in f32 by its rounding (2e-7 where the exact value is
            # 0), beyond ONNX's absolute tolerance for its expected outputs.
            raise _err("the inverse transform of a full complex spectrum is not supported")
        length = xs[axis]
        dl = self.static(node, 1, "dft_length")
        n = int(np.asarray(dl).reshape(())) if dl is not None else (2 * (length - 1) if inverse and onesided else length)
        if n <= 0:
            raise _err(f"dft_length {n}")
        i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
        perm = [d for d in range(rank - 1) if d != axis] + [axis]
        inv = list(np.argsort(perm))
        f64 = TensorProto.DOUBLE

        def part(k):
            v = self._sub(node, "Slice", [x, i64(k), i64(k + 1), i64(rank - 1)])
            v = self._sub(node, "Squeeze", [v, i64(rank - 1)])
            v = self._sub(node, "Transpose", [v], perm=perm)
            return self._sub(node, "Cast", [v], to=f64)

        xr = part(0)
        xi = part(1) if xs[-1] == 2 else None
        use = min(length, n // 2 + 1 if (inverse and onesided) else n)
        if use < length:
            xr = self._sub(node, "Slice", [xr, i64(0), i64(use), i64(-1)])
            if xi is not None:
                xi = self._sub(node, "Slice", [xi, i64(0), i64(use), i64(-1)])
        kk = n // 2 + 1 if (onesided and not inverse) else n
        j = np.arange(use, dtype=np.int64)[:, None]
        k = np.arange(kk, dtype=np.int64)[None, :]
        ang = 2 * np.pi * ((j * k) % n) / n
        cos, sin = np.cos(ang), np.sin(ang)
        if inverse and onesided:
            # Rows are the frequencies (up to n//2), columns the n outputs.
            wgt = np.full(use, 2.0)
            wgt[0] = 1.0
            if n % 2 == 0 and use > n // 2:
                wgt[n // 2] = 1.0
            cos, sin = cos * wgt[:, None] / n, sin * wgt[:, None] / n
            re = self._sub(node, "MatMul", [xr, cos])
            if xi is not None:
                re = self._sub(node, "Sub", [re, self._sub(node, "MatMul", [xi, sin])])
            parts = [re]
        elif inverse:
            cos, sin = cos / n, sin / n
            re = self._sub(node, "MatMul", [xr, cos])
            im = self._sub(node, "MatMul", [xr, sin])
            if xi is not None:
                re = self._sub(node, "Sub", [re, self._sub(node, "MatMul", [xi, sin])])
                im = self._sub(node, "Add", [im, self._sub(node, "MatMul", [xi, cos])])
            parts = [re, im]
        else:
            re = self._sub(node, "MatMul", [xr, cos])
            im = self._sub(node, "Neg", [self._sub(node, "MatMul", [xr, sin])])
            if xi is not None:
                re = self._sub(node, "Add", [re, self._sub(node, "MatMul", [xi, sin])])
                im = self._sub(node, "Add", [im, self._sub(node, "MatMul", [xi, cos])])
            parts = [re, im]
        outs = []
        for v in parts:
            v = self._sub(node, "Cast", [v], to=helper.np_dtype_to_tensor_dtype(dt))
            v = self._sub(node, "Transpose", [v], perm=inv)
            outs.append(self._sub(node, "Unsqueeze", [v, i64(rank - 1)]))
        return self._finish(node, [self._sub(node, "Concat", outs, axis=rank - 1) if len(outs) > 1 else outs[0]])

    # -- BatchNormalization with run-time or batch statistics -----------------
    def _batchnorm_composite(self, node, a):
        """scale * (x - mean) / sqrt(var + epsilon) + bias, as ONNX's
        reference computes it; in training mode (opset 14+) with the batch's
        mean and (population) variance, and the running statistics updated by
        ``momentum``."""
        x, sc, bi, mean, var = list(node.input[:5])
        training = bool(a.get("training_mode", 0))
        if self.opset < 14 and (len([o for o in node.output if o]) > 1 or "momentum" in a or not a.get("is_test", 1)):
            raise _err(f"training statistics at opset {self.opset} are not supported")
        xs = self._shape_of(x, node)
        dt = self._dtype_of(x, node)
        if len(xs) < 2:
            raise _err(f"input of rank {len(xs)}")
        eps = np.array(a.get("epsilon", 1e-5), dt)
        mom = float(a.get("momentum", 0.9))
        shape = np.array([-1] + [1] * (len(xs) - 2), np.int64)
        axes = np.array([0] + list(range(2, len(xs))), np.int64)

        def mean_of(v):
            if self.opset >= 18:
                return self._sub(node, "ReduceMean", [v, axes], keepdims=0)
            return self._sub(node, "ReduceMean", [v], keepdims=0, axes=[int(k) for k in axes])

        def per_channel(v):
            return self._sub(node, "Reshape", [v, shape])

        outs = []
        if training:
            m = mean_of(x)
            d = self._sub(node, "Sub", [x, per_channel(m)])
            v = mean_of(self._sub(node, "Mul", [d, d]))
            run_m = self._sub(node, "Add", [self._sub(node, "Mul", [mean, np.array(mom, dt)]),
                                            self._sub(node, "Mul", [m, np.array(1 - mom, dt)])])  # fmt: skip
            run_v = self._sub(node, "Add", [self._sub(node, "Mul", [var, np.array(mom, dt)]),
                                            self._sub(node, "Mul", [v, np.array(1 - mom, dt)])])  # fmt: skip
            mean, var = m, v
            outs = [run_m, run_v]
        y = self._sub(node, "Mul", [per_channel(sc), self._sub(node, "Sub", [x, per_channel(mean)])])
        y = self._sub(node, "Div", [y, self._sub(node, "Sqrt", [self._sub(node, "Add", [per_channel(var), eps])])])
        y = self._sub(node, "Add", [y, per_channel(bi)])
        return self._finish(node, [y] + outs)

    def _reduce_sub(self, node, op: str, v, axes, keepdims: int = 0):
        """A Reduce* node with ``axes`` as this opset takes them."""
        axes = [int(k) for k in axes]
        as_input = self.opset >= (13 if op == "ReduceSum" else 18)
        if as_input:
            return self._sub(node, op, [v, np.array(axes, np.int64)], keepdims=keepdims)
        return self._sub(node, op, [v], keepdims=keepdims, axes=axes)

    # -- TopK -----------------------------------------------------------------
    def op_TopK(self, node, a):  # noqa: N802
        """By rank: an element's rank is the number of elements before it in
        the order (larger, or equal at a lower index, for ``largest``); the
        j-th result is the element of rank j.  Ties keep the lower index
        first, as ONNX's reference does."""
        x = node.input[0]
        xs = self._shape_of(x, node)
        dt = self._dtype_of(x, node)
        if self.opset >= 10:
            kk = self.static(node, 1, "k")
            k = int(np.asarray(kk).reshape(-1)[0])
        else:
            k = int(a["k"])
        rank = len(xs)
        if rank == 0:
            raise _err("a scalar input")
        axis = int(a.get("axis", -1)) % rank
        n = xs[axis]
        if not 0 <= k <= n:
            raise _err(f"k={k} for an axis of size {n}")
        if k == 0:
            raise _err("k=0 (empty results) is not supported")
        if n * n * int(np.prod(xs, dtype=np.int64)) // max(n, 1) > 1 << 24:
            raise _err(f"an axis of size {n} (ranks are computed by comparing every pair)")
        largest = bool(a.get("largest", 1))
        perm = [d for d in range(rank) if d != axis] + [axis]
        inv = list(np.argsort(perm))
        v = self._sub(node, "Transpose", [x], perm=perm) if axis != rank - 1 else x
        vi = self._sub(node, "Unsqueeze", [v, np.array([-1], np.int64)])  # [..., n, 1]: element i
        vm = self._sub(node, "Unsqueeze", [v, np.array([-2], np.int64)])  # [..., 1, n]: element m
        before = self._sub(node, "Greater" if largest else "Less", [vm, vi])
        eq = self._sub(node, "Equal", [vm, vi])
        if core.kind(dt) == "f":
            # NaN orders above every number (as numpy sorts it), so that the
            # ranks stay a permutation.
            nm, ni = self._sub(node, "IsNaN", [vm]), self._sub(node, "IsNaN", [vi])
            if largest:
                nan_first = self._sub(node, "And", [nm, self._sub(node, "Not", [ni])])
            else:
                nan_first = self._sub(node, "And", [ni, self._sub(node, "Not", [nm])])
            before = self._sub(node, "Or", [before, nan_first])
            eq = self._sub(node, "Or", [eq, self._sub(node, "And", [nm, ni])])
        lower = np.arange(n)[None, :] < np.arange(n)[:, None]  # [i, m]: m < i
        before = self._sub(node, "Or", [before, self._sub(node, "And", [eq, lower])])
        from onnx import TensorProto

        rk = self._reduce_sub(node, "ReduceSum", self._sub(node, "Cast", [before], to=TensorProto.INT64), [-1])  # [..., n]
        sel = self._sub(node, "Equal", [self._sub(node, "Unsqueeze", [rk, np.array([-2], np.int64)]),
                                        np.arange(k, dtype=np.int64).reshape(k, 1)])  # [..., k, n]  # fmt: skip
        zero = np.zeros((), dt)
        vals = self._reduce_sub(node, "ReduceSum", self._sub(node, "Where", [sel, vm, zero]), [-1])
        idx = self._reduce_sub(node, "ReduceSum", self._sub(node, "Where", [sel, np.arange(n, dtype=np.int64), np.zeros((), np.int64)]), [-1])
        if axis != rank - 1:
            vals = self._sub(node, "Transpose", [vals], perm=inv)
            idx = self._sub(node, "Transpose", [idx], perm=inv)
        return self._finish(node, [vals, idx])

    # -- ScatterElements, Scatter, ScatterND ------------------------------------
    _MAX_SCATTER = 1 << 22  # updates x output elements unrolled at most

    def _combine(self, node, red: str, old, upd):
        if red == "none":
            return upd
        op = {"add": "Add", "mul": "Mul", "max": "Max", "min": "Min"}.get(red)
        if op is None:
            raise _err(f"reduction '{red}' is not supported")
        return self._sub(node, op, [old, upd])

    def op_Scatter(self, node, a):  # noqa: N802
        return self.op_ScatterElements(node, a)

    def op_ScatterElements(self, node, a):  # noqa: N802
        """One update at a time, in order (so a repeated index takes the last
        update, or combines them in order with ``reduction``): the output is
        the update (or the combination) where the position matches."""
        data, ind, upd = node.input[:3]
        ds, us = self._shape_of(data, node), self._shape_of(ind, node)
        if tuple(self._shape_of(upd, node)) != tuple(us) or len(us) != len(ds):
            raise _err("indices and updates must have the data's rank and one shape")
        r = len(ds)
        axis = int(a.get("axis", 0)) % r
        red = a.get("reduction", b"none")
        red = red.decode() if isinstance(red, bytes) else red
        count = int(np.prod(us, dtype=np.int64))
        if count * max(1, int(np.prod(ds, dtype=np.int64))) > self._MAX_SCATTER:
            raise _err(f"{count} updates into {int(np.prod(ds))} elements (unrolled) is too many")
        flat_i = self._sub(node, "Reshape", [ind, np.array([-1], np.int64)])
        flat_u = self._sub(node, "Reshape", [upd, np.array([-1], np.int64)])
        n = ds[axis]
        shape_ax = [1] * r
        shape_ax[axis] = n
        iota = np.arange(n, dtype=np.int64).reshape(shape_ax)
        out = data
        for q, pos in enumerate(np.ndindex(*us)):
            i = self._sub(node, "Gather", [flat_i, np.array(q, np.int64)], axis=0)
            i = self._sub(node, "Cast", [i], to=7)
            i = self._sub(node, "Where", [self._sub(node, "Less", [i, np.zeros((), np.int64)]),
                                          self._sub(node, "Add", [i, np.array(n, np.int64)]), i])  # fmt: skip
            line = np.zeros(ds, np.bool_)
            sl = tuple(slice(None) if d == axis else pos[d] for d in range(r))
            line[sl] = True
            mask = self._sub(node, "And", [self._sub(node, "Equal", [iota, i]), line])
            u = self._sub(node, "Gather", [flat_u, np.array(q, np.int64)], axis=0)
            out = self._sub(node, "Where", [mask, self._combine(node, red, out, u), out])
        return self._finish(node, [out])

    def op_ScatterND(self, node, a):  # noqa: N802
        """One index tuple at a time, in order: the slice it names is the
        update (or combined with it by ``reduction``)."""
        data, ind, upd = node.input[:3]
        ds, is_ = self._shape_of(data, node), self._shape_of(ind, node)
        k = is_[-1]
        if k > len(ds):
            raise _err(f"index tuples of {k} into data of rank {len(ds)}")
        red = a.get("reduction", b"none")
        red = red.decode() if isinstance(red, bytes) else red
        count = int(np.prod(is_[:-1], dtype=np.int64))
        if count * max(1, int(np.prod(ds, dtype=np.int64))) > self._MAX_SCATTER:
            raise _err(f"{count} updates into {int(np.prod(ds))} elements (unrolled) is too many")
        rest = list(ds[k:])
        flat_i = self._sub(node, "Reshape", [ind, np.array([-1, k], np.int64)])
        flat_u = self._sub(node, "Reshape", [upd, np.array([-1] + rest, np.int64)])
        out = data
        for q in range(count):
            row = self._sub(node, "Gather", [flat_i, np.array(q, np.int64)], axis=0)
            row = self._sub(node, "Cast", [row], to=7)
            mask = None
            for d in range(k):
                i = self._sub(node, "Gather", [row, np.array(d, np.int64)], axis=0)
                i = self._sub(node, "Where", [self._sub(node, "Less", [i, np.zeros((), np.int64)]),
                                              self._sub(node, "Add", [i, np.array(ds[d], np.int64)]), i])  # fmt: skip
                shp = [1] * len(ds)
                shp[d] = ds[d]
                m = self._sub(node, "Equal", [np.arange(ds[d], dtype=np.int64).reshape(shp), i])
                mask = m if mask is None else self._sub(node, "And", [mask, m])
            u = self._sub(node, "Gather", [flat_u, np.array(q, np.int64)], axis=0)  # [rest...]
            out = self._sub(node, "Where", [mask, self._combine(node, red, out, u), out])
        return self._finish(node, [out])

    # -- ReverseSequence -------------------------------------------------------
    def op_ReverseSequence(self, node, a):  # noqa: N802
        """A GatherElements along the time axis with index len-1-t for t <
        len (the batch's length), t elsewhere."""
        x, lens = node.input[:2]
        xs = self._shape_of(x, node)
        ta, ba = int(a.get("time_axis", 0)), int(a.get("batch_axis", 1))
        if len(xs) < 2 or {ta, ba} != {0, 1}:
            raise _err(f"time_axis {ta} and batch_axis {ba} on rank {len(xs)}")
        tshape = [1] * len(xs)
        tshape[ta] = xs[ta]
        bshape = [1] * len(xs)
        bshape[ba] = xs[ba]
        t = np.arange(xs[ta], dtype=np.int64).reshape(tshape)
        ln = self._sub(node, "Reshape", [self._sub(node, "Cast", [lens], to=7), np.array(bshape, np.int64)])
        rev = self._sub(node, "Sub", [self._sub(node, "Sub", [ln, np.array(1, np.int64)]), t])
        idx = self._sub(node, "Where", [self._sub(node, "Less", [t, ln]), rev, t])
        idx = self._sub(node, "Expand", [idx, np.array(xs, np.int64)])
        return self._finish(node, [self._sub(node, "GatherElements", [x, idx], axis=ta)])

    # -- Col2Im ------------------------------------------------------------------
    def _spread(self, node, y, shape, ax, s):
        """``y`` with s-1 zeros between elements along ``ax`` (shape updated)."""
        if s == 1:
            return y
        r = len(shape)
        y = self._sub(node, "Unsqueeze", [y, np.array([ax + 1], np.int64)])
        pz = np.zeros(2 * (r + 1), np.int64)
        pz[r + 1 + ax + 1] = s - 1
        y = self._sub(node, "Pad", [y, pz])
        n = (shape[ax] - 1) * s + 1
        shape[ax] *= s
        y = self._sub(node, "Reshape", [y, np.array(shape, np.int64)])
        y = self._sub(node, "Slice", [y, np.array([0], np.int64), np.array([n], np.int64), np.array([ax], np.int64)])
        shape[ax] = n
        return y

    def op_Col2Im(self, node, a):  # noqa: N802
        """Each kernel position's column block spread out by the strides,
        placed at its offset in the padded image and summed; then the pads
        cropped."""
        x = node.input[0]
        img = [int(v) for v in np.asarray(self.static(node, 1, "image_shape")).reshape(-1)]
        blk = [int(v) for v in np.asarray(self.static(node, 2, "block_shape")).reshape(-1)]
        xs = self._shape_of(x, node)
        r = len(img)
        if len(blk) != r or len(xs) != 3:
            raise _err(f"input of shape {xs}, image_shape {img}, block_shape {blk}")
        d = list(a.get("dilations", [1] * r))
        s = list(a.get("strides", [1] * r))
        p = list(a.get("pads", [0] * (2 * r)))
        kk = int(np.prod(blk))
        if xs[1] % kk:
            raise _err(f"{xs[1]} channels for a block of {kk}")
        c = xs[1] // kk
        nb = [(img[i] + p[i] + p[r + i] - d[i] * (blk[i] - 1) - 1) // s[i] + 1 for i in range(r)]
        if int(np.prod(nb)) != xs[2] or min(nb) < 1:
            raise _err(f"{xs[2]} blocks, the image and block shapes give {nb}")
        full = [img[i] + p[i] + p[r + i] for i in range(r)]
        xr = self._sub(node, "Reshape", [x, np.array([xs[0], c, kk] + nb, np.int64)])
        total = None
        for q, kp in enumerate(np.ndindex(*blk)):
            y = self._sub(node, "Gather", [xr, np.array(q, np.int64)], axis=2)
            shape = [xs[0], c] + list(nb)
            for i in range(r):
                y = self._spread(node, y, shape, 2 + i, s[i])
            begin = [kp[i] * d[i] for i in range(r)]
            end = [full[i] - begin[i] - shape[2 + i] for i in range(r)]
            if min(end) < 0:
                raise _err("blocks reach beyond the padded image")
            y = self._sub(node, "Pad", [y, np.array([0, 0] + begin + [0, 0] + end, np.int64)])
            total = y if total is None else self._sub(node, "Add", [total, y])
        if any(p):
            total = self._sub(node, "Slice", [total, np.array(p[:r], np.int64), np.array([p[i] + img[i] for i in range(r)], np.int64),
                                              np.arange(2, 2 + r, dtype=np.int64)])  # fmt: skip
        return self._finish(node, [total])

    # -- TensorScatter -----------------------------------------------------------
    def op_TensorScatter(self, node, a):  # noqa: N802
        """Update step t written at write_indices[b] + t along ``axis``
        (modulo its size for ``circular``), one step at a time in order."""
        past, upd = node.input[:2]
        wi = node.input[2] if len(node.input) > 2 else ""
        ps, us = self._shape_of(past, node), self._shape_of(upd, node)
        r = len(ps)
        axis = int(a.get("axis", -2)) % r
        mode = a.get("mode", b"linear")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if mode not in ("linear", "circular"):
            raise _err(f"mode '{mode}'")
        if axis == 0 or len(us) != r or any(us[i] != ps[i] for i in range(r) if i != axis) or us[axis] > ps[axis]:
            raise _err(f"cache of shape {ps}, update of shape {us}, axis {axis}")
        n = ps[axis]
        bshape = [ps[0]] + [1] * (r - 1)
        if wi:
            w = self._sub(node, "Reshape", [self._sub(node, "Cast", [wi], to=7), np.array(bshape, np.int64)])
        else:
            w = np.zeros(bshape, np.int64)
        ishape = [1] * r
        ishape[axis] = n
        iota = np.arange(n, dtype=np.int64).reshape(ishape)
        out = past
        for t in range(us[axis]):
            pos = self._sub(node, "Add", [w, np.array(t, np.int64)])
            if mode == "circular":
                pos = self._sub(node, "Mod", [pos, np.array(n, np.int64)])
            mask = self._sub(node, "Equal", [iota, pos])
            u = self._sub(node, "Slice", [upd, np.array([t], np.int64), np.array([t + 1], np.int64), np.array([axis], np.int64)])
            out = self._sub(node, "Where", [mask, u, out])
        return self._finish(node, [out])
