"""More ONNX operators: casts to and from the microscaling floats (FLOAT8E8M0,
FLOAT4E2M1, FLOAT6E2M3, FLOAT6E3M2), Det, ConvInteger, QLinearConv, STFT,
MelWeightMatrix, and Einsum with ellipses and repeated indices.

Most are built from other ONNX operators (``_sub``: imported node by node,
each folding, specializing and refusing as it does on its own); the casts are
elementwise bodies.  Mixed into ``tools.import_onnx.Importer``.
"""

from __future__ import annotations

import string

import numpy as np
from tfrt.tools import import_onnx as core
from tfrt.tools.onnx_ops import convert

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
# TensorProto element types used when building nodes.
_FLOAT, _INT32, _INT64, _DOUBLE = 1, 6, 7, 11


def _err(msg: str):
    return core.ImportError_(msg)


def _i64(*v):
    return np.array(v, np.int64)


def _text(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


class OnnxOpsMore:
    """Operator handlers (mixed into ``Importer``)."""

    # -- casts to and from the microscaling floats ------------------------------
    def _cast_small_float(self, node, x, to, a):
        """``x`` cast to ``to`` where one side is FLOAT8E8M0 or the target is a
        4- or 6-bit float (called by ``_cast_to``).

        * From FLOAT8E8M0: every value (2^-127 .. 2^127, NaN) is exact in f32;
          from there one rounding to the target, as ``numpy.astype`` does in
          ONNX's reference.
        * To FLOAT8E8M0: the input as f32 first (as onnxruntime does), then
          the power of two ``round_mode`` picks (``up``: the next one unless
          exact; ``nearest``: ties, 1.5 * 2^e, up; ``down``: the one below);
          as ONNX's table and onnxruntime have it, 0 and values below 2^-127
          give 2^-127 with ``saturate`` and NaN without, +inf and values above
          2^127 give 2^127 with ``saturate`` and NaN without, negative values
          (undefined) as 0, NaN stays NaN.  (ONNX's reference rounds the f32
          bits: it gives NaN for +inf, 2^-127 for 0 without ``saturate``, and
          rounds 2^-127 itself up to 2^-126.)
        * To FLOAT4E2M1, FLOAT6E2M3, FLOAT6E3M2: round to nearest even,
          values beyond the largest saturate to it (these types have no
          infinity), whatever ``saturate`` says, as the reference's
          ``astype`` (ml_dtypes) does.
        """
        src, dst = core._elem(x.dtype), core._elem(to)
        sat = bool(a.get("saturate", 1))
        if src == "f8E8M0FNU":
            if dst == "f32":
                return self.ew([x], x.shape, to, lambda b, a_, el: convert(b, a_[0], x.dtype, _F32))
            return self.ew([x], x.shape, to, lambda b, a_, el: convert(b, convert(b, a_[0], x.dtype, _F32), _F32, to, sat))
        if dst != "f8E8M0FNU":
            if core.kind(x.dtype) != "f" or core.bits(x.dtype) > 32:
                # Integers and f64 are rounded to f32 first, as numpy's astype
                # into these types does (f64 -> f32 -> f4 can round twice).
                return self.ew([x], x.shape, to, lambda b, a_, el: convert(b, convert(b, a_[0], x.dtype, _F32), _F32, to))
            return self.ew([x], x.shape, to, lambda b, a_, el: convert(b, a_[0], x.dtype, to))
        mode = _text(a.get("round_mode", b"up"))
        if mode not in ("up", "down", "nearest"):
            raise _err(f"round_mode '{mode}' is not one of 'up', 'down', 'nearest'")
        if node.op_type == "CastLike":
            # CastLike's function body (a Cast given ``saturate`` only) and
            # ONNX's reference both round up, whatever its round_mode says.
            mode = "up"

        def fn(b, a_, el):
            f = convert(b, a_[0], x.dtype, _F32) if src != "f32" else a_[0]
            i32 = np.dtype(np.int32)
            bits = b.line(f"arith.bitcast {f} : f32 to i32")

            def c(v):
                return b.const(v, i32)

            def cmp(pred, u, v):
                return b.cmp("arith.cmpi", pred, u, v, "i32")

            mag = b.op("arith.andi", bits, c(0x7FFFFFFF), t="i32")
            e = b.op("arith.andi", b.op("arith.shrui", bits, c(23), t="i32"), c(0xFF), t="i32")
            # [2^-127, 2^-126) is an f32 subnormal: its leading bit is bit 22,
            # the fraction the bits below it.
            sub = cmp("eq", e, c(0))
            frac = b.select(sub, b.op("arith.andi", b.op("arith.shli", bits, c(1), t="i32"), c(0x7FFFFF), t="i32"),
                            b.op("arith.andi", bits, c(0x7FFFFF), t="i32"), "i32")  # fmt: skip
            if mode == "up":
                inc = cmp("ne", frac, c(0))
            elif mode == "nearest":
                inc = cmp("ne", b.op("arith.andi", frac, c(0x400000), t="i32"), c(0))
            else:
                inc = None
            code = e if inc is None else b.op("arith.addi", e, b.line(f"arith.extui {inc} : i1 to i32"), t="i32")
            # Outside [2^-127, 2^127] (0, -0 and tiny values below, +inf and
            # huge values above) and negative values: the nearest end with
            # saturate, NaN without; NaN stays NaN.
            code = b.select(cmp("ugt", mag, c(0x7F000000)), c(0xFE if sat else 0xFF), code, "i32")
            code = b.select(cmp("ult", mag, c(0x00400000)), c(0 if sat else 0xFF), code, "i32")
            code = b.select(cmp("slt", bits, c(0)), c(0 if sat else 0xFF), code, "i32")
            code = b.select(cmp("ugt", mag, c(0x7F800000)), c(0xFF), code, "i32")
            # The code as the f32 power of two it stands for (0: 2^-127, an
            # f32 subnormal; 255: NaN), which truncf carries over exactly.
            val = b.op("arith.shli", code, c(23), t="i32")
            val = b.select(cmp("eq", code, c(0)), c(0x00400000), val, "i32")
            val = b.select(cmp("eq", code, c(0xFF)), c(0x7FC00000), val, "i32")
            fv = b.line(f"arith.bitcast {val} : i32 to f32")
            return b.line(f"arith.truncf {fv} : f32 to {el}")

        return self.ew([x], x.shape, to, fn)

    # -- building from other operators --------------------------------------------
    def _more_sub(self, node, op: str, inputs, **attrs):
        """One ``op`` node on ``inputs`` (``_sub``), at opset 21 whatever the
        model's: the nodes built here are read as this file writes them
        (``Pad`` with its pads as an input, ``Squeeze`` with axes as one)."""
        saved = self.opset
        self.opset = 21
        try:
            return self._sub(node, op, inputs, **attrs)
        finally:
            self.opset = saved

    def _cast_name(self, node, name, to: int):
        return self._more_sub(node, "Cast", [name], to=to)

    # -- ConvInteger, QLinearConv -------------------------------------------------
    def _integer_conv(self, node, a, x, xz, w, wz):
        """``conv(x - xz, w - wz)`` in int32, as ONNX defines ConvInteger and the
        accumulation of QLinearConv: the input is padded with its zero point
        (zeros once it is subtracted); ``wz`` is one zero point or one per
        output channel."""
        xs, ws = self._shape_of(x, node), self._shape_of(w, node)
        r = len(xs) - 2
        if r < 1 or len(ws) != len(xs):
            raise _err(f"input of rank {len(xs)} and weight of rank {len(ws)}")
        for what, z in (("x", x), ("w", w)):
            if self._dtype_of(z, node) not in (np.dtype(np.uint8), np.dtype(np.int8)):
                raise _err(f"{what} of element type {self._dtype_of(z, node)} (int8 and uint8 only)")
        m = ws[0]
        xi = self._cast_name(node, x, _INT32)
        if xz:
            if int(np.prod(self._shape_of(xz, node))) != 1:
                raise _err(f"x_zero_point of shape {self._shape_of(xz, node)}: one zero point per tensor only")
            xi = self._more_sub(node, "Sub", [xi, self._more_sub(node, "Reshape", [self._cast_name(node, xz, _INT32), _i64()])])
        wi = self._cast_name(node, w, _INT32)
        if wz:
            n = int(np.prod(self._shape_of(wz, node)))
            if n not in (1, m):
                raise _err(f"w_zero_point of shape {self._shape_of(wz, node)} for {m} output channels")
            shape = _i64() if n == 1 else _i64(m, *([1] * (r + 1)))
            wi = self._more_sub(node, "Sub", [wi, self._more_sub(node, "Reshape", [self._cast_name(node, wz, _INT32), shape])])
        k = list(a.get("kernel_shape", ws[2:]))
        if k != list(ws[2:]):
            raise _err(f"kernel_shape {k} and a weight of shape {ws}")
        s = list(a.get("strides", [1] * r))
        d = list(a.get("dilations", [1] * r))
        auto = _text(a.get("auto_pad", b"NOTSET"))
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            lo, hi = [], []
            for i in range(r):
                out = -(-xs[2 + i] // s[i])
                total = max(0, (out - 1) * s[i] + (k[i] - 1) * d[i] + 1 - xs[2 + i])
                small, big = total // 2, total - total // 2
                lo.append(small if auto == "SAME_UPPER" else big)
                hi.append(big if auto == "SAME_UPPER" else small)
        elif auto == "VALID":
            lo, hi = [0] * r, [0] * r
        elif auto == "NOTSET":
            pads = list(a.get("pads", [0] * (2 * r)))
            lo, hi = pads[:r], pads[r:]
        else:
            raise _err(f"auto_pad '{auto}' is not supported")
        if any(p < 0 for p in lo + hi):
            raise _err(f"negative pads {lo + hi}")
        if any(lo + hi):
            xi = self._more_sub(node, "Pad", [xi, _i64(0, 0, *lo, 0, 0, *hi)])
        return self._more_sub(node, "Conv", [xi, wi], group=int(a.get("group", 1)), dilations=d, strides=s,
                              pads=[0] * (2 * r), kernel_shape=k)  # fmt: skip

    def op_ConvInteger(self, node, a):
        i = list(node.input) + [""] * 4
        return self._finish(node, [self._integer_conv(node, a, i[0], i[2], i[1], i[3])])

    def op_QLinearConv(self, node, a):
        """As ONNX's reference computes it: the int32 accumulation (plus B),
        times ``x_scale * w_scale / y_scale`` (in the scales' type; per output
        channel where ``w_scale`` has one per channel) in f64, plus
        ``y_zero_point``, rounded half to even and saturated."""
        i = list(node.input) + [""] * 9
        x, xsc, xz, w, wsc, wz, ysc, yz, bias = i[:9]
        if not (xsc and wsc and ysc):
            raise _err("x_scale, w_scale and y_scale are required")
        acc = self._integer_conv(node, a, x, xz, w, wz)
        r = len(self._shape_of(x, node)) - 2
        m = self._shape_of(w, node)[0]
        per_channel = _i64(1, m, *([1] * r))
        if bias:
            if self._dtype_of(bias, node) != np.dtype(np.int32) or int(np.prod(self._shape_of(bias, node))) != m:
                raise _err(f"B of type {self._dtype_of(bias, node)} and shape {self._shape_of(bias, node)}: int32 with one value per output channel")
            acc = self._more_sub(node, "Add", [acc, self._more_sub(node, "Reshape", [bias, per_channel])])
        for what, v in (("x_scale", xsc), ("y_scale", ysc)):
            if int(np.prod(self._shape_of(v, node))) != 1:
                raise _err(f"{what} of shape {self._shape_of(v, node)}: one scale per tensor only")
        nw = int(np.prod(self._shape_of(wsc, node)))
        if nw not in (1, m):
            raise _err(f"w_scale of shape {self._shape_of(wsc, node)} for {m} output channels")
        sdt = {self._dtype_of(v, node) for v in (xsc, wsc, ysc)}
        if len(sdt) != 1 or core.kind(next(iter(sdt))) != "f":
            raise _err(f"scales of types {sorted(map(str, sdt))}")
        one = lambda v: self._more_sub(node, "Reshape", [v, _i64()])
        ws_ = one(wsc) if nw == 1 else self._more_sub(node, "Reshape", [wsc, per_channel])
        scale = self._more_sub(node, "Div", [self._more_sub(node, "Mul", [one(xsc), ws_]), one(ysc)])
        y = self._more_sub(node, "Mul", [self._cast_name(node, acc, _DOUBLE), self._cast_name(node, scale, _DOUBLE)])
        out_dt = self._dtype_of(yz, node) if yz else self._dtype_of(x, node)
        if yz:
            if int(np.prod(self._shape_of(yz, node))) != 1:
                raise _err(f"y_zero_point of shape {self._shape_of(yz, node)}: one zero point per tensor only")
            y = self._more_sub(node, "Add", [y, one(self._cast_name(node, yz, _DOUBLE))])
        info = np.iinfo(out_dt)
        y = self._more_sub(node, "Clip", [self._more_sub(node, "Round", [y]), np.array(info.min, _F64), np.array(info.max, _F64)])
        from onnx import helper

        return self._finish(node, [self._cast_name(node, y, helper.np_dtype_to_tensor_dtype(out_dt))])

    # -- MelWeightMatrix ----------------------------------------------------------
    def op_MelWeightMatrix(self, node, a):
        """Its inputs fix the result's shape: the node is computed at import
        (ONNX's reference) once they are known (here it is reached only when
        one is not)."""
        names = ("num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz")
        for k, what in enumerate(names):
            self.static(node, k, what)
        raise _err("its inputs must be known when the program is compiled")

    # -- STFT ---------------------------------------------------------------------
    def op_STFT(self, node, a):
        """Frames of the signal (a gather), times the window, times cosine and
        sine matrices computed in f64 at import (the products in f64, rounded
        once to the signal's type), as ONNX's reference: frame ``f`` starts at
        ``f * frame_step``; ``1 + (length - frame_length) // frame_step``
        frames; ``onesided`` keeps ``frame_length // 2 + 1`` frequencies."""
        from onnx import helper

        i = list(node.input) + [""] * 4
        sig, win = i[0], i[2]
        ss = self._shape_of(sig, node)
        dt = self._dtype_of(sig, node)
        if len(ss) != 3 or ss[2] not in (1, 2):
            raise _err(f"signal of shape {ss}: [batch, length, 1 (real) or 2 (complex)]")
        if core.kind(dt) != "f":
            raise _err(f"signal of element type {dt}")
        step = int(np.asarray(self.static(node, 1, "frame_step")).reshape(()))
        fl = self.static(node, 3, "frame_length")
        ws = self._shape_of(win, node) if win else None
        if ws is not None and len(ws) != 1:
            raise _err(f"window of shape {ws}")
        n = int(np.asarray(fl).reshape(())) if fl is not None else (ws[0] if ws is not None else ss[1])
        if ws is not None and ws[0] != n:
            raise _err(f"a window of {ws[0]} values for frames of {n}")
        if step <= 0 or n <= 0 or n > ss[1]:
            raise _err(f"frame_step {step} and frame_length {n} for a signal of length {ss[1]}")
        frames = 1 + (ss[1] - n) // step
        onesided = int(a.get("onesided", 1))
        kk = n // 2 + 1 if onesided else n
        idx = (np.arange(frames, dtype=np.int64)[:, None] * step + np.arange(n, dtype=np.int64)[None, :])
        fr = self._cast_name(node, self._more_sub(node, "Gather", [sig, idx], axis=1), _DOUBLE)  # [B, F, n, c]
        if win:
            wv = self._more_sub(node, "Reshape", [self._cast_name(node, win, _DOUBLE), _i64(1, 1, n, 1)])
            fr = self._more_sub(node, "Mul", [fr, wv])
        part = lambda k: self._more_sub(node, "Squeeze", [self._more_sub(node, "Slice", [fr, _i64(k), _i64(k + 1), _i64(3)]), _i64(3)])
        j = np.arange(n, dtype=np.int64)[:, None]
        k = np.arange(kk, dtype=np.int64)[None, :]
        ang = 2 * np.pi * ((j * k) % n) / n
        cos, sin = np.cos(ang), np.sin(ang)
        xr = part(0)
        re = self._more_sub(node, "MatMul", [xr, cos])
        im = self._more_sub(node, "Neg", [self._more_sub(node, "MatMul", [xr, sin])])
        if ss[2] == 2:
            xi = part(1)
            re = self._more_sub(node, "Add", [re, self._more_sub(node, "MatMul", [xi, sin])])
            im = self._more_sub(node, "Add", [im, self._more_sub(node, "MatMul", [xi, cos])])
        to = helper.np_dtype_to_tensor_dtype(dt)
        outs = [self._more_sub(node, "Unsqueeze", [self._cast_name(node, v, to), _i64(3)]) for v in (re, im)]
        return self._finish(node, [self._more_sub(node, "Concat", outs, axis=3)])

    # -- Det ----------------------------------------------------------------------
    _DET_MAX = 64

    def op_Det(self, node, a):
        """LU factorization with partial pivoting, unrolled (the matrix size is
        static), in f64 and rounded once to the input's type: at each step the
        row with the largest magnitude in the pivot column is swapped up (the
        sign flips), the pivot multiplies the determinant and the rows below
        are eliminated.  A zero pivot column gives 0."""
        from onnx import helper

        x = node.input[0]
        xs = self._shape_of(x, node)
        dt = self._dtype_of(x, node)
        if len(xs) < 2 or xs[-1] != xs[-2]:
            raise _err(f"input of shape {xs}: [..., M, M]")
        if core.kind(dt) != "f":
            raise _err(f"input of element type {dt} (floating point only)")
        n, batch = xs[-1], tuple(xs[:-2])
        if n > self._DET_MAX:
            raise _err(f"matrices of size {n}: at most {self._DET_MAX} (the factorization is unrolled)")
        to = helper.np_dtype_to_tensor_dtype(dt)
        if n == 0 or int(np.prod(batch)) == 0:
            return np.ones(batch, dt)
        bsz = int(np.prod(batch))
        s = self._more_sub(node, "Reshape", [self._cast_name(node, x, _DOUBLE), _i64(bsz, n, n)])
        det = None
        sign = None
        for m in range(n, 0, -1):
            # s: [B, m, m], the part still to factor.
            if m > 1:
                col = self._more_sub(node, "Squeeze", [self._more_sub(node, "Slice", [s, _i64(0), _i64(1), _i64(2)]), _i64(2)])
                p = self._more_sub(node, "ArgMax", [self._more_sub(node, "Abs", [col])], axis=1, keepdims=1)  # [B, 1]
                ar = np.arange(m, dtype=np.int64)[None, :]
                eq0 = self._more_sub(node, "Equal", [ar, np.zeros((1, 1), np.int64)])
                eqp = self._more_sub(node, "Equal", [ar, p])
                perm = self._more_sub(node, "Where", [eq0, p, self._more_sub(node, "Where", [eqp, np.zeros((1, 1), np.int64), ar])])
                perm = self._more_sub(node, "Expand", [self._more_sub(node, "Unsqueeze", [perm, _i64(2)]), _i64(bsz, m, m)])
                s = self._more_sub(node, "GatherElements", [s, perm], axis=1)
                flip = self._more_sub(node, "Where", [self._more_sub(node, "Equal", [p, np.zeros((1, 1), np.int64)]),
                                                      np.ones((1, 1), _F64), -np.ones((1, 1), _F64)])  # fmt: skip
                sign = flip if sign is None else self._more_sub(node, "Mul", [sign, flip])
            piv = self._more_sub(node, "Reshape", [self._more_sub(node, "Slice", [s, _i64(0, 0), _i64(1, 1), _i64(1, 2)]), _i64(bsz, 1)])
            det = piv if det is None else self._more_sub(node, "Mul", [det, piv])
            if m == 1:
                break
            # Rows below the pivot, less their multiple of the pivot row (a
            # zero pivot divides by one: its column is all zeros).
            zero = self._more_sub(node, "Equal", [piv, np.zeros((1, 1), _F64)])
            safe = self._more_sub(node, "Where", [zero, np.ones((1, 1), _F64), piv])
            below = self._more_sub(node, "Slice", [s, _i64(1, 0), _i64(m, 1), _i64(1, 2)])  # [B, m-1, 1]
            f = self._more_sub(node, "Div", [below, self._more_sub(node, "Unsqueeze", [safe, _i64(2)])])
            top = self._more_sub(node, "Slice", [s, _i64(0, 1), _i64(1, m), _i64(1, 2)])  # [B, 1, m-1]
            rest = self._more_sub(node, "Slice", [s, _i64(1, 1), _i64(m, m), _i64(1, 2)])  # [B, m-1, m-1]
            s = self._more_sub(node, "Sub", [rest, self._more_sub(node, "Mul", [f, top])])
        if sign is not None:
            det = self._more_sub(node, "Mul", [det, sign])
        det = self._more_sub(node, "Reshape", [det, np.array(batch, np.int64)])
        return self._finish(node, [self._cast_name(node, det, to)])

    # -- Einsum with ellipses and repeated indices ----------------------------------
    def _einsum_general(self, node, eq: str):
        """``eq`` rewritten without ellipses and repeated indices (called by
        ``op_Einsum``), as ONNX's definition and its reference (numpy's
        einsum) read them: every ``...`` stands for the same number of
        dimensions, broadcast between the operands (a dimension of size 1
        against a larger one); the implicit output is ``...`` then the
        indices used once, in ASCII order; an index repeated in one operand
        takes its diagonal first."""
        names = [n for n in node.input if n]
        shapes = [self._shape_of(n, node) for n in names]
        lhs, arrow, rhs = eq.partition("->")
        terms = lhs.split(",")
        if len(terms) != len(names):
            raise _err(f"equation '{eq}' has {len(terms)} operands for {len(names)} inputs")
        letters = set(string.ascii_letters)
        for t in terms + ([rhs] if arrow else []):
            body = t.replace("...", "")
            if "." in body or set(body) - letters or t.count("...") > 1:
                raise _err(f"equation '{eq}': '{t}' is not a term of letters with at most one '...'")
        # numpy's own reading of the equation fixes the output shape (and
        # rejects what it rejects).
        try:
            want = np.einsum(eq, *[np.zeros(s, np.float32) for s in shapes]).shape
        except ValueError as exc:
            raise _err(f"equation '{eq}' for operands of shapes {shapes}: {exc}") from None
        used = set(eq)
        spare = [c for c in string.ascii_letters if c not in used]
        ell = [len(s) - len(t.replace("...", "")) if "..." in t else 0 for t, s in zip(terms, shapes)]
        counts = sorted({e for t, e in zip(terms, ell) if "..." in t})
        if len(counts) > 1:
            # numpy broadcasts these too; ONNX's definition does not.
            raise _err(f"equation '{eq}' for operands of shapes {shapes}: its ellipses stand for {counts} dimensions "
                       f"(ONNX: every ellipsis represents the same number of dimensions)")  # fmt: skip
        ne = max(ell, default=0)
        if ne > len(spare):
            raise _err(f"equation '{eq}': too many dimensions under '...'")
        ell_letters = spare[:ne]
        bsizes = list(np.broadcast_shapes(*[tuple(s[t.index("..."):t.index("...") + e]) if "..." in t else () for t, s, e in zip(terms, shapes, ell)]))
        new_terms, new_names = [], []
        for t, nm, s, e in zip(terms, names, shapes, ell):
            if "..." in t:
                at = t.index("...")
                mine = ell_letters[ne - e:]
                full = list(t[:at]) + mine + list(t[at + 3:])
                # A broadcast dimension of size 1 does not take part: dropped.
                drop = [at + q for q in range(e) if s[at + q] == 1 and bsizes[ne - e + q] != 1]
                if drop:
                    nm = self._more_sub(node, "Squeeze", [nm, _i64(*drop)])
                    full = [c for q, c in enumerate(full) if q not in drop]
                    s = tuple(d for q, d in enumerate(s) if q not in drop)
            else:
                full = list(t)
            if len(set(full)) != len(full):
                nm, full = self._diagonal(node, nm, s, full)
            new_terms.append("".join(full))
            new_names.append(nm)
        if arrow:
            out = rhs.replace("...", "".join(ell_letters))
        else:
            once = sorted(c for c in set(lhs) & letters if lhs.count(c) == 1)
            out = "".join(ell_letters) + "".join(once)
        new_eq = ",".join(new_terms) + "->" + out
        r = self._more_sub(node, "Einsum", new_names, equation=new_eq)
        got = self._shape_of(r, node)
        if tuple(got) != tuple(want):
            raise _err(f"equation '{eq}' rewritten as '{new_eq}' gives shape {got}, numpy's einsum {want}")
        return self._finish(node, [r])

    def _diagonal(self, node, name, shape, term):
        """The operand's diagonal over each repeated index of ``term``: one
        dimension per distinct index, in the order they first appear."""
        uniq = list(dict.fromkeys(term))
        size = {}
        for c, d in zip(term, shape):
            if size.setdefault(c, d) != d:
                raise _err(f"index '{c}' has sizes {size[c]} and {d} in one operand")
        x = self.value(name, node)
        out_shape = tuple(size[c] for c in uniq)
        pos = {c: f"d{i}" for i, c in enumerate(uniq)}
        r = len(uniq)
        v = self.em.generic([(x, [pos[c] for c in term])], [(out_shape, x.dtype, None, [f"d{i}" for i in range(r)])], "p" * r,
                            lambda ai, o: ([], [ai[0]]))[0]  # fmt: skip
        self._subs = getattr(self, "_subs", 0) + 1
        key = f"__{node.op_type}{self._subs}__diag"
        self.values[key] = v
        return key, uniq
