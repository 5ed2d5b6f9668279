"""The ONNX operators of ``tfrt_import_onnx`` (a mixin of its ``Importer``).

Each ``op_<Name>(node, attrs)`` returns the node's outputs: a ``Value`` (or a
list of them, ``None`` for an output it cannot produce), or a numpy array for
an output known at import.  Whatever an operator cannot do exactly for the
node at hand is an ``ImportError_`` naming the reason (the importer adds the
node and operator); a value that fixes a shape and comes from the graph's
inputs is a ``StaticInputNeeded``, which ``tfrt.onnx.backend`` answers by
compiling the model for the value it is given.

Semantics follow the operator definitions of ONNX (``onnx.defs``, opsets
1-23) and, where they are silent, onnxruntime.
"""

from __future__ import annotations

import math
import re
import string

import numpy as np

from tfrt.tools import import_onnx as core


def _err(msg: str):
    return core.ImportError_(msg)


def lit(v, dtype) -> str:
    """A scalar of ``dtype`` as an ``arith.constant`` literal (unsigned
    values as the signless bits ``arith`` takes)."""
    k = core.kind(dtype)
    if k == "f":
        return core._float_literal(float(v), dtype)
    if k == "b":
        return "true" if v else "false"
    n = core.bits(dtype)
    v = int(v) & ((1 << n) - 1)
    return str(v - (1 << n) if v >= 1 << (n - 1) else v)


def el_of(dtype) -> str:
    """The element type a generic's body computes ``dtype`` in (signless)."""
    return core._elem(core.signless_dtype(dtype))


class Body:
    """Builds a generic's body: ``b.op("arith.addf", x, y)`` -> ``%tN``."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n = 0

    def fresh(self) -> str:
        self.n += 1
        return f"%t{self.n}"

    def line(self, text: str) -> str:
        r = self.fresh()
        self.lines.append(f"{r} = {text}")
        return r

    def const(self, v, dtype) -> str:
        if core.kind(dtype) == "b":
            return self.line(f"arith.constant {lit(v, dtype)}")
        return self.line(f"arith.constant {lit(v, dtype)} : {el_of(dtype)}")

    def op(self, name: str, *args: str, t: str) -> str:
        return self.line(f"{name} {', '.join(args)} : {t}")

    def cmp(self, name: str, pred: str, x: str, y: str, t: str) -> str:
        return self.line(f"{name} {pred}, {x}, {y} : {t}")

    def select(self, c: str, x: str, y: str, t: str) -> str:
        return self.line(f"arith.select {c}, {x}, {y} : {t}")

    def conv(self, x: str, src, dst) -> str:
        """``x`` converted from element type ``src`` to ``dst`` (ONNX's Cast)."""
        return convert(self, x, np.dtype(src), np.dtype(dst))


def convert(b: Body, x: str, src: np.dtype, dst: np.dtype, saturate: bool = False) -> str:
    if src == dst:
        return x
    ks, kd = core.kind(src), core.kind(dst)
    es, ed = el_of(src), el_of(dst)
    ns, nd = core.bits(src), core.bits(dst)
    if ks == "f" and kd == "f":
        if saturate and nd <= 8:
            x = _saturate(b, x, src, dst)
        if ns == nd or (es in ("f16", "bf16") and ed in ("f16", "bf16")):
            x = b.line(f"arith.extf {x} : {es} to f32")
            es, ns = "f32", 32
        if ns < nd:
            return b.line(f"arith.extf {x} : {es} to {ed}")
        return b.line(f"arith.truncf {x} : {es} to {ed}")
    if ks in "iub" and kd == "f":
        op = "arith.sitofp" if ks == "i" else "arith.uitofp"
        return b.line(f"{op} {x} : {es} to {ed}")
    if ks == "f" and kd == "b":
        z = b.const(0.0, src)
        return b.cmp("arith.cmpf", "une", x, z, es)
    if ks == "f" and kd in "iu":
        op = "arith.fptosi" if kd == "i" else "arith.fptoui"
        return b.line(f"{op} {x} : {es} to {ed}")
    if ks in "iu" and kd == "b":
        z = b.const(0, src)
        return b.cmp("arith.cmpi", "ne", x, z, es)
    if ks in "iub" and kd in "iu":
        if ns == nd:
            return x
        if ns < nd:
            op = "arith.extsi" if ks == "i" else "arith.extui"
            return b.line(f"{op} {x} : {es} to {ed}")
        return b.line(f"arith.trunci {x} : {es} to {ed}")
    raise _err(f"cast from {src} to {dst} is not supported")


_F8_MAX = {"f8E4M3FN": 448.0, "f8E4M3FNUZ": 240.0, "f8E5M2": 57344.0, "f8E5M2FNUZ": 57344.0}


def _saturate(b: Body, x: str, src, dst) -> str:
    """ONNX's saturating conversion to an 8-bit float: finite values beyond
    the type's largest clamp to it; infinities too (NaN stays NaN)."""
    m = _F8_MAX.get(core._elem(dst))
    if m is None:
        return x
    es = el_of(src)
    hi, lo = b.const(m, src), b.const(-m, src)
    big = b.cmp("arith.cmpf", "ogt", x, hi, es)
    x = b.select(big, hi, x, es)
    small = b.cmp("arith.cmpf", "olt", x, lo, es)
    return b.select(small, lo, x, es)


def _norm_axes(axes, rank: int, what: str = "axis") -> list[int]:
    out = []
    for a in axes:
        a = int(a)
        if not -rank <= a < max(rank, 1):
            raise _err(f"{what} {a} is out of range for rank {rank}")
        out.append(a % rank if rank else 0)
    if len(set(out)) != len(out):
        raise _err(f"repeated {what} in {list(map(int, axes))}")
    return out


def _dims(n: int) -> list[str]:
    return [f"d{i}" for i in range(n)]


class OnnxOps:
    """Operator handlers (mixed into ``Importer``)."""

    # -- helpers ----------------------------------------------------------------
    def inp(self, node, i: int):
        """Input ``i`` in ONNX's layout, or None where it is absent."""
        if len(node.input) <= i or not node.input[i]:
            return None
        return self.value(node.input[i], node)

    def ew(self, ins, shape, dtype, fn):
        """An elementwise generic; ``fn(body, args, el)`` returns the result's name."""

        def body(args, el):
            b = Body()
            r = fn(b, args, el)
            if r.startswith("%t"):
                pat = re.compile(re.escape(r) + r"\b")
                return [pat.sub("%r", line) for line in b.lines]
            # The result is an operand itself: a copy that keeps every bit.
            return b.lines + ["%ctrue = arith.constant true", f"%r = arith.select %ctrue, {r}, {r} : {el}"]

        return self.em.elementwise(list(ins), tuple(shape), np.dtype(dtype), body)

    def copy_generic(self, x, out_shape, in_exprs):
        """out[d...] = x[in_exprs] (a broadcast or a permutation)."""
        r = len(out_shape)
        return self.em.generic([(x, in_exprs)], [(out_shape, x.dtype, None, _dims(r))], "p" * r,
                               lambda a, o: ([], [a[0]]))[0]  # fmt: skip

    def broadcast_to(self, x, shape):
        shape = tuple(int(d) for d in shape)
        if x.shape == shape:
            return x
        off = len(shape) - len(x.shape)
        keep = [i for i, d in enumerate(x.shape) if d == shape[off + i]]
        xc = self.em.collapse(x, keep)
        return self.copy_generic(xc, shape, [f"d{off + i}" for i in keep])

    def slice_(self, x, offs, sizes, strides=None):
        strides = strides or [1] * len(offs)
        if any(int(n) == 0 for n in sizes):
            # An empty slice reads nothing: an empty tensor (the verifier wants
            # offset < size, which no offset is on an axis of size 0).
            name = self.em.empty(tuple(int(s) for s in sizes), x.dtype)
            return core.Value(name, tuple(int(s) for s in sizes), x.dtype)
        if list(sizes) == list(x.shape) and not any(offs) and all(s == 1 for s in strides):
            return x
        name = self.em.fresh()
        out = core.Value(name, tuple(int(s) for s in sizes), x.dtype)
        self.em.emit(f"{name} = tensor.extract_slice {x.name}[{', '.join(map(str, offs))}] "
                     f"[{', '.join(map(str, out.shape))}] [{', '.join(map(str, strides))}] : {x.type} to {out.type}")  # fmt: skip
        return out

    def concat(self, vals, axis):
        vals = [v for v in vals if v.shape[axis] > 0] or vals[:1]
        if len(vals) == 1:
            return vals[0]
        shape = list(vals[0].shape)
        shape[axis] = sum(v.shape[axis] for v in vals)
        name = self.em.fresh()
        out = core.Value(name, tuple(shape), vals[0].dtype)
        self.em.emit(f"{name} = tensor.concat dim({axis}) {', '.join(v.name for v in vals)} : "
                     f"({', '.join(v.type for v in vals)}) -> {out.type}")  # fmt: skip
        return out

    def take(self, x, idx, axis):
        """``x`` indexed along ``axis`` by the constant 1-D ``idx`` (in range)."""
        idx = np.asarray(idx, np.int64)
        n = x.shape[axis]
        if idx.size == n and np.array_equal(idx, np.arange(n)):
            return x
        # Runs of consecutive indices are slices.
        parts, i = [], 0
        while i < idx.size:
            j = i
            while j + 1 < idx.size and idx[j + 1] == idx[j] + 1:
                j += 1
            offs = [0] * len(x.shape)
            sizes = list(x.shape)
            offs[axis], sizes[axis] = int(idx[i]), j - i + 1
            parts.append(self.slice_(x, offs, sizes))
            i = j + 1
        if len(parts) <= 8:
            return self.concat(parts, axis) if parts else self.slice_(x, [0] * len(x.shape), [*x.shape[:axis], 0, *x.shape[axis + 1:]])
        iv = self.em.constant(idx)
        return self.gather_axis(x, iv, axis)

    def gather_axis(self, x, iv, axis, check=True):
        """np.take(x, iv, axis) for a run-time index tensor ``iv`` (negative
        indices count from the end)."""
        r, k = len(x.shape), len(iv.shape)
        out_shape = x.shape[:axis] + iv.shape + x.shape[axis + 1:]
        ro = len(out_shape)
        dims = _dims(ro)
        iel = el_of(iv.dtype)
        n = x.shape[axis]

        def body(a, o):
            b = Body()
            i = a[0]
            if iel != "i64":
                i = b.line(f"arith.extsi {i} : {iel} to i64")
            zero, nn = b.const(0, np.int64), b.const(n, np.int64)
            neg = b.cmp("arith.cmpi", "slt", i, zero, "i64")
            ip = b.op("arith.addi", i, nn, t="i64")
            i = b.select(neg, ip, i, "i64")
            ix = b.line(f"arith.index_cast {i} : i64 to index")
            coords = []
            for d in range(r):
                if d < axis:
                    coords.append(b.line(f"linalg.index {d} : index"))
                elif d == axis:
                    coords.append(ix)
                else:
                    coords.append(b.line(f"linalg.index {d - 1 + k} : index"))
            v = b.line(f"tensor.extract {xs.name}[{', '.join(coords)}] : {xs.type}")
            return b.lines, [v]

        xs = self.em.signless(x)
        res = self.em.generic([(iv, dims[axis:axis + k])], [(out_shape, xs.dtype, None, dims)], "p" * ro, body)[0]
        return self.em.bitcast(res, x.dtype)

    def reduce_(self, x, axes, op_f, op_i, init, keep=False):
        """A reduction over ``axes`` with a binary combiner."""
        axes = sorted(axes)
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        k = core.kind(x.dtype)
        op = op_f if k == "f" else op_i
        if op is None:
            raise _err(f"element type {x.dtype} is not supported")
        if isinstance(op, tuple):
            op = op[0] if k in "ib" else op[1]
        xs = self.em.signless(x)
        el = el_of(x.dtype)
        acc = self.em.filled(shape, xs.dtype, init) if k != "b" else None
        if k == "b":
            e = self.em.empty(shape, xs.dtype)
            c = self.em.fresh()
            self.em.emit(f"{c} = arith.constant {'true' if init else 'false'}")
            acc = self.em.fresh()
            self.em.emit(f"{acc} = linalg.fill ins({c} : i1) outs({e} : {core._ttype(shape, xs.dtype)}) -> {core._ttype(shape, xs.dtype)}")
        name = self.em.fresh()
        out = core.Value(name, shape, xs.dtype)
        self.em.emit(f"{name} = linalg.reduce ins({xs.name} : {xs.type}) outs({acc} : {out.type}) "
                     f"dimensions = [{', '.join(map(str, axes))}]")  # fmt: skip
        self.em.emit(f"  (%in: {el}, %init: {el}) {{")
        self.em.emit(f"    %s = {op} %in, %init : {el}")
        self.em.emit(f"    linalg.yield %s : {el}")
        self.em.emit("  }")
        out = self.em.bitcast(out, x.dtype)
        if keep:
            out = self.em.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
        return out

    def float_only(self, x, what="input"):
        if core.kind(x.dtype) != "f":
            raise _err(f"{what} of element type {x.dtype} is not supported (floating point only)")

    # -- elementwise: unary -------------------------------------------------------
    def _unary_op(self, node, fn, kinds="f", out_dtype=None):
        x = self.value_any(node.input[0], node)
        k = core.kind(x.dtype)
        if k not in kinds:
            raise _err(f"input of element type {x.dtype} is not supported")
        out = self.ew([x], x.shape, out_dtype or x.dtype, lambda b, a, el: fn(b, a[0], el_of(x.dtype), x.dtype))
        out.layout = x.layout
        return out

    def _f_unary(name):  # noqa: N805 - a decorator factory
        def handler(self, node, a):
            return self._unary_op(node, lambda b, x, el, dt: b.op(name, x, t=el))

        return handler

    op_Exp = _f_unary("math.exp")
    op_Log = _f_unary("math.log")
    op_Sqrt = _f_unary("math.sqrt")
    op_Tanh = _f_unary("math.tanh")
    op_Sin = _f_unary("math.sin")
    op_Cos = _f_unary("math.cos")
    op_Tan = _f_unary("math.tan")
    op_Atan = _f_unary("math.atan")
    op_Erf = _f_unary("math.erf")
    op_Ceil = _f_unary("math.ceil")
    op_Floor = _f_unary("math.floor")
    op_Round = _f_unary("math.roundeven")

    def op_Abs(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            k = core.kind(dt)
            if k == "f":
                return b.op("math.absf", x, t=el)
            if k == "u":
                return x
            z = b.const(0, dt)
            neg = b.cmp("arith.cmpi", "slt", x, z, el)
            return b.select(neg, b.op("arith.subi", z, x, t=el), x, el)

        return self._unary_op(node, f, "fiu")

    def op_Neg(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            if core.kind(dt) == "f":
                return b.op("arith.negf", x, t=el)
            return b.op("arith.subi", b.const(0, dt), x, t=el)

        return self._unary_op(node, f, "fi")

    def op_Sign(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            k = core.kind(dt)
            z, one = b.const(0, dt), b.const(1, dt)
            if k == "f":
                gt, lt = b.cmp("arith.cmpf", "ogt", x, z, el), b.cmp("arith.cmpf", "olt", x, z, el)
                return b.select(gt, one, b.select(lt, b.const(-1.0, dt), x, el), el)
            gt = b.cmp("arith.cmpi", "sgt" if k == "i" else "ugt", x, z, el)
            if k == "u":
                return b.select(gt, one, z, el)
            lt = b.cmp("arith.cmpi", "slt", x, z, el)
            return b.select(gt, one, b.select(lt, b.const(-1, dt), z, el), el)

        return self._unary_op(node, f, "fiu")

    def op_Reciprocal(self, node, a):  # noqa: N802
        return self._unary_op(node, lambda b, x, el, dt: b.op("arith.divf", b.const(1.0, dt), x, t=el))

    def op_Relu(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            z = b.const(0, dt)
            if core.kind(dt) == "f":
                return b.op("arith.maximumf", x, z, t=el)
            return b.op("arith.maxsi", x, z, t=el)

        return self._unary_op(node, f, "fi")

    def op_Sigmoid(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            one = b.const(1.0, dt)
            e = b.op("math.exp", b.op("arith.negf", x, t=el), t=el)
            return b.op("arith.divf", one, b.op("arith.addf", one, e, t=el), t=el)

        return self._unary_op(node, f)

    @staticmethod
    def _sinh_cosh(b, x, el, dt, sign):
        h = b.const(0.5, dt)
        e1 = b.op("math.exp", x, t=el)
        e2 = b.op("math.exp", b.op("arith.negf", x, t=el), t=el)
        return b.op("arith.mulf", b.op(sign, e1, e2, t=el), h, t=el)

    def op_Sinh(self, node, a):  # noqa: N802
        return self._unary_op(node, lambda b, x, el, dt: self._sinh_cosh(b, x, el, dt, "arith.subf"))

    def op_Cosh(self, node, a):  # noqa: N802
        return self._unary_op(node, lambda b, x, el, dt: self._sinh_cosh(b, x, el, dt, "arith.addf"))

    def op_Asin(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            c = b.op("math.sqrt", b.op("arith.subf", b.const(1.0, dt), b.op("arith.mulf", x, x, t=el), t=el), t=el)
            return b.op("math.atan2", x, c, t=el)

        return self._unary_op(node, f)

    def op_Acos(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            s = b.op("math.sqrt", b.op("arith.subf", b.const(1.0, dt), b.op("arith.mulf", x, x, t=el), t=el), t=el)
            return b.op("math.atan2", s, x, t=el)

        return self._unary_op(node, f)

    def op_Asinh(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            ax = b.op("math.absf", x, t=el)
            s = b.op("math.sqrt", b.op("arith.addf", b.op("arith.mulf", x, x, t=el), b.const(1.0, dt), t=el), t=el)
            r = b.op("math.log", b.op("arith.addf", ax, s, t=el), t=el)
            return b.op("math.copysign", r, x, t=el)

        return self._unary_op(node, f)

    def op_Acosh(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            s = b.op("math.sqrt", b.op("arith.subf", b.op("arith.mulf", x, x, t=el), b.const(1.0, dt), t=el), t=el)
            return b.op("math.log", b.op("arith.addf", x, s, t=el), t=el)

        return self._unary_op(node, f)

    def op_Atanh(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            one = b.const(1.0, dt)
            q = b.op("arith.divf", b.op("arith.addf", one, x, t=el), b.op("arith.subf", one, x, t=el), t=el)
            return b.op("arith.mulf", b.op("math.log", q, t=el), b.const(0.5, dt), t=el)

        return self._unary_op(node, f)

    def op_HardSigmoid(self, node, a):  # noqa: N802
        alpha, beta = float(a.get("alpha", 0.2)), float(a.get("beta", 0.5))

        def f(b, x, el, dt):
            y = b.op("arith.addf", b.op("arith.mulf", x, b.const(alpha, dt), t=el), b.const(beta, dt), t=el)
            y = b.op("arith.minimumf", y, b.const(1.0, dt), t=el)
            return b.op("arith.maximumf", y, b.const(0.0, dt), t=el)

        return self._unary_op(node, f)

    def op_HardSwish(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            y = b.op("arith.addf", b.op("arith.mulf", x, b.const(1 / 6, dt), t=el), b.const(0.5, dt), t=el)
            y = b.op("arith.maximumf", b.op("arith.minimumf", y, b.const(1.0, dt), t=el), b.const(0.0, dt), t=el)
            return b.op("arith.mulf", x, y, t=el)

        return self._unary_op(node, f)

    def op_LeakyRelu(self, node, a):  # noqa: N802
        alpha = float(a.get("alpha", 0.01))

        def f(b, x, el, dt):
            neg = b.cmp("arith.cmpf", "olt", x, b.const(0.0, dt), el)
            return b.select(neg, b.op("arith.mulf", x, b.const(alpha, dt), t=el), x, el)

        return self._unary_op(node, f)

    def op_Elu(self, node, a):  # noqa: N802
        alpha = float(a.get("alpha", 1.0))

        def f(b, x, el, dt):
            neg = b.cmp("arith.cmpf", "olt", x, b.const(0.0, dt), el)
            e = b.op("arith.mulf", b.op("math.expm1", x, t=el), b.const(alpha, dt), t=el)
            return b.select(neg, e, x, el)

        return self._unary_op(node, f)

    def op_Selu(self, node, a):  # noqa: N802
        alpha = float(a.get("alpha", 1.67326319217681884765625))
        gamma = float(a.get("gamma", 1.05070102214813232421875))

        def f(b, x, el, dt):
            le = b.cmp("arith.cmpf", "ole", x, b.const(0.0, dt), el)
            e = b.op("arith.subf", b.op("arith.mulf", b.op("math.exp", x, t=el), b.const(alpha, dt), t=el), b.const(alpha, dt), t=el)
            return b.op("arith.mulf", b.select(le, e, x, el), b.const(gamma, dt), t=el)

        return self._unary_op(node, f)

    def op_Celu(self, node, a):  # noqa: N802
        alpha = float(a.get("alpha", 1.0))

        def f(b, x, el, dt):
            z = b.const(0.0, dt)
            e = b.op("arith.mulf", b.op("math.expm1", b.op("arith.divf", x, b.const(alpha, dt), t=el), t=el), b.const(alpha, dt), t=el)
            return b.op("arith.addf", b.op("arith.maximumf", x, z, t=el), b.op("arith.minimumf", e, z, t=el), t=el)

        return self._unary_op(node, f)

    def op_ThresholdedRelu(self, node, a):  # noqa: N802
        alpha = float(a.get("alpha", 1.0))

        def f(b, x, el, dt):
            gt = b.cmp("arith.cmpf", "ogt", x, b.const(alpha, dt), el)
            return b.select(gt, x, b.const(0.0, dt), el)

        return self._unary_op(node, f)

    @staticmethod
    def _softplus(b, x, el, dt):
        return b.op("math.log1p", b.op("math.exp", x, t=el), t=el)

    def op_Softplus(self, node, a):  # noqa: N802
        return self._unary_op(node, self._softplus)

    def op_Softsign(self, node, a):  # noqa: N802
        def f(b, x, el, dt):
            d = b.op("arith.addf", b.const(1.0, dt), b.op("math.absf", x, t=el), t=el)
            return b.op("arith.divf", x, d, t=el)

        return self._unary_op(node, f)

    def op_Mish(self, node, a):  # noqa: N802
        return self._unary_op(node, lambda b, x, el, dt: b.op("arith.mulf", x, b.op("math.tanh", self._softplus(b, x, el, dt), t=el), t=el))

    def op_Swish(self, node, a):  # noqa: N802
        alpha = float(a.get("alpha", 1.0))

        def f(b, x, el, dt):
            one = b.const(1.0, dt)
            e = b.op("math.exp", b.op("arith.negf", b.op("arith.mulf", x, b.const(alpha, dt), t=el), t=el), t=el)
            return b.op("arith.divf", x, b.op("arith.addf", one, e, t=el), t=el)

        return self._unary_op(node, f)

    def op_Gelu(self, node, a):  # noqa: N802
        approx = a.get("approximate", b"none")
        approx = approx.decode() if isinstance(approx, bytes) else approx

        def f(b, x, el, dt):
            h, one = b.const(0.5, dt), b.const(1.0, dt)
            if approx == "tanh":
                x3 = b.op("arith.mulf", b.op("arith.mulf", x, x, t=el), x, t=el)
                u = b.op("arith.addf", x, b.op("arith.mulf", x3, b.const(0.044715, dt), t=el), t=el)
                th = b.op("math.tanh", b.op("arith.mulf", u, b.const(0.7978845608028654, dt), t=el), t=el)
            else:
                th = b.op("math.erf", b.op("arith.mulf", x, b.const(0.7071067811865476, dt), t=el), t=el)
            return b.op("arith.mulf", b.op("arith.mulf", x, b.op("arith.addf", one, th, t=el), t=el), h, t=el)

        if approx not in ("none", "tanh"):
            raise _err(f"approximate='{approx}' is not supported")
        return self._unary_op(node, f)

    def op_Shrink(self, node, a):  # noqa: N802
        lambd, bias = float(a.get("lambd", 0.5)), float(a.get("bias", 0.0))

        def f(b, x, el, dt):
            lo = b.cmp("arith.cmpf", "olt", x, b.const(-lambd, dt), el)
            hi = b.cmp("arith.cmpf", "ogt", x, b.const(lambd, dt), el)
            r = b.select(hi, b.op("arith.subf", x, b.const(bias, dt), t=el), b.const(0.0, dt), el)
            return b.select(lo, b.op("arith.addf", x, b.const(bias, dt), t=el), r, el)

        x = self.value(node.input[0], node)
        if core.kind(x.dtype) != "f":
            xf = self.ew([x], x.shape, np.float32, lambda b, a_, el: b.conv(a_[0], x.dtype, np.float32))
            y = self.ew([xf], x.shape, np.float32, lambda b, a_, el: f(b, a_[0], el, np.float32))
            return self.ew([y], x.shape, x.dtype, lambda b, a_, el: b.conv(a_[0], np.float32, x.dtype))
        return self._unary_op(node, f)

    def op_Not(self, node, a):  # noqa: N802
        return self._unary_op(node, lambda b, x, el, dt: b.op("arith.xori", x, b.const(True, dt), t=el), "b")

    def op_BitwiseNot(self, node, a):  # noqa: N802
        return self._unary_op(node, lambda b, x, el, dt: b.op("arith.xori", x, b.const(-1, dt), t=el), "iu")

    def op_IsNaN(self, node, a):  # noqa: N802
        return self._unary_op(node, lambda b, x, el, dt: b.cmp("arith.cmpf", "uno", x, x, el), out_dtype=np.bool_)

    def op_IsInf(self, node, a):  # noqa: N802
        pos, neg = a.get("detect_positive", 1), a.get("detect_negative", 1)

        def f(b, x, el, dt):
            p = b.cmp("arith.cmpf", "oeq", x, b.const(math.inf, dt), el)
            n = b.cmp("arith.cmpf", "oeq", x, b.const(-math.inf, dt), el)
            if pos and neg:
                return b.op("arith.ori", p, n, t="i1")
            if pos:
                return p
            if neg:
                return n
            return b.const(False, np.bool_)

        return self._unary_op(node, f, out_dtype=np.bool_)

    def op_Identity(self, node, a):  # noqa: N802
        return self.value_any(node.input[0], node)

    # -- elementwise: binary and variadic -------------------------------------------
    _ARITH = {
        "Add": ("arith.addf", "arith.addi", "arith.addi"), "Sub": ("arith.subf", "arith.subi", "arith.subi"),
        "Mul": ("arith.mulf", "arith.muli", "arith.muli"), "Div": ("arith.divf", "arith.divsi", "arith.divui"),
        "Max": ("arith.maximumf", "arith.maxsi", "arith.maxui"), "Min": ("arith.minimumf", "arith.minsi", "arith.minui"),
        "BitwiseAnd": (None, "arith.andi", "arith.andi"), "BitwiseOr": (None, "arith.ori", "arith.ori"),
        "BitwiseXor": (None, "arith.xori", "arith.xori"),
    }  # fmt: skip
    _CMP = {"Equal": ("oeq", "eq", "eq"), "Greater": ("ogt", "sgt", "ugt"), "Less": ("olt", "slt", "ult"),
            "GreaterOrEqual": ("oge", "sge", "uge"), "LessOrEqual": ("ole", "sle", "ule")}  # fmt: skip

    @staticmethod
    def _arith(b, op, x, y, el, dt):
        k = core.kind(dt)
        if op in OnnxOps._ARITH:
            f, i, u = OnnxOps._ARITH[op]
            name = f if k == "f" else (u if k == "u" else i)
            if k == "b" and op in ("Max", "Min"):
                name = "arith.ori" if op == "Max" else "arith.andi"
            if name is None or (k == "b" and op not in ("Max", "Min")):
                raise _err(f"element type {dt} is not supported")
            return b.op(name, x, y, t=el)
        raise _err(f"internal: {op}")

    def _binary_values(self, node):
        """The two operands of a broadcasting op, NHWC together where cheap."""
        if len(node.input) < 2:
            raise _err("expects two inputs")
        return self._operands_in_one_layout(node)

    def _arith_binary(self, node, op):
        x, y, layout = self._binary_values(node)
        if x.dtype != y.dtype:
            raise _err(f"operand types {x.dtype} and {y.dtype} differ")
        shape = core._bcast(x.shape, y.shape)
        out = self.ew([x, y], shape, x.dtype, lambda b, a, el: self._arith(b, op, a[0], a[1], el, x.dtype))
        out.layout = layout
        return out

    def op_Add(self, node, a):  # noqa: N802
        return self._arith_binary(node, "Add")

    def op_Sub(self, node, a):  # noqa: N802
        return self._arith_binary(node, "Sub")

    def op_Mul(self, node, a):  # noqa: N802
        return self._arith_binary(node, "Mul")

    def op_Div(self, node, a):  # noqa: N802
        return self._arith_binary(node, "Div")

    def op_BitwiseAnd(self, node, a):  # noqa: N802
        return self._arith_binary(node, "BitwiseAnd")

    def op_BitwiseOr(self, node, a):  # noqa: N802
        return self._arith_binary(node, "BitwiseOr")

    def op_BitwiseXor(self, node, a):  # noqa: N802
        return self._arith_binary(node, "BitwiseXor")

    def _logic(self, node, op):
        x, y = self.value(node.input[0], node), self.value(node.input[1], node)
        if core.kind(x.dtype) != "b" or core.kind(y.dtype) != "b":
            raise _err("operands must be bool")
        return self.ew([x, y], core._bcast(x.shape, y.shape), np.bool_, lambda b, a, el: b.op(op, a[0], a[1], t="i1"))

    def op_And(self, node, a):  # noqa: N802
        return self._logic(node, "arith.andi")

    def op_Or(self, node, a):  # noqa: N802
        return self._logic(node, "arith.ori")

    def op_Xor(self, node, a):  # noqa: N802
        return self._logic(node, "arith.xori")

    def _compare(self, node, op):
        x, y = self.value(node.input[0], node), self.value(node.input[1], node)
        if x.dtype != y.dtype:
            raise _err(f"operand types {x.dtype} and {y.dtype} differ")
        f, i, u = self._CMP[op]
        k = core.kind(x.dtype)
        el = el_of(x.dtype)

        def fn(b, a, _):
            if k == "f":
                return b.cmp("arith.cmpf", f, a[0], a[1], el)
            return b.cmp("arith.cmpi", i if k == "i" else u, a[0], a[1], el)

        if k == "b" and op != "Equal":
            i = u  # bool orders false < true
        return self.ew([x, y], core._bcast(x.shape, y.shape), np.bool_, fn)

    def op_Equal(self, node, a):  # noqa: N802
        return self._compare(node, "Equal")

    def op_Greater(self, node, a):  # noqa: N802
        return self._compare(node, "Greater")

    def op_Less(self, node, a):  # noqa: N802
        return self._compare(node, "Less")

    def op_GreaterOrEqual(self, node, a):  # noqa: N802
        return self._compare(node, "GreaterOrEqual")

    def op_LessOrEqual(self, node, a):  # noqa: N802
        return self._compare(node, "LessOrEqual")

    def _variadic(self, node, op, mean=False):
        vals = [self.value(n, node) for n in node.input if n]
        if not vals:
            raise _err("no inputs")
        dt = vals[0].dtype
        if any(v.dtype != dt for v in vals):
            raise _err("operand types differ")
        shape = core._bcast(*[v.shape for v in vals])

        def fn(b, a, el):
            r = a[0]
            for y in a[1:]:
                r = self._arith(b, op, r, y, el, dt)
            if mean:
                r = b.op("arith.divf", r, b.const(float(len(vals)), dt), t=el)
            return r

        if mean:
            self.float_only(vals[0])
        if len(vals) == 1 and shape == vals[0].shape:
            return vals[0]
        return self.ew(vals, shape, dt, fn)

    def op_Max(self, node, a):  # noqa: N802
        return self._variadic(node, "Max")

    def op_Min(self, node, a):  # noqa: N802
        return self._variadic(node, "Min")

    def op_Sum(self, node, a):  # noqa: N802
        return self._variadic(node, "Add")

    def op_Mean(self, node, a):  # noqa: N802
        return self._variadic(node, "Add", mean=True)

    def op_Pow(self, node, a):  # noqa: N802
        x, y = self.value(node.input[0], node), self.value(node.input[1], node)
        kx, ky = core.kind(x.dtype), core.kind(y.dtype)
        shape = core._bcast(x.shape, y.shape)
        yc = self.const(node.input[1])
        if kx == "f" and yc is not None and yc.size == 1 and float(yc.ravel()[0]) == 2.0:
            return self.ew([x, y], shape, x.dtype, lambda b, a_, el: b.op("arith.mulf", a_[0], a_[0], t=el))

        def fn(b, a_, el):
            xv, yv = a_
            if kx == "f":
                if ky != "f":
                    yv = convert(b, yv, y.dtype, x.dtype)
                elif y.dtype != x.dtype:
                    yv = convert(b, yv, y.dtype, x.dtype)
                return b.op("math.powf", xv, yv, t=el)
            if kx in "iu" and ky in "iu":
                if y.dtype != x.dtype:
                    yv = convert(b, yv, y.dtype, x.dtype)
                return b.op("math.ipowi", xv, yv, t=el)
            if kx in "iu" and ky == "f":
                xf = convert(b, xv, x.dtype, np.dtype(np.float64))
                yf = convert(b, yv, y.dtype, np.dtype(np.float64))
                return convert(b, b.op("math.powf", xf, yf, t="f64"), np.dtype(np.float64), x.dtype)
            raise _err(f"Pow of {x.dtype} by {y.dtype} is not supported")

        return self.ew([x, y], shape, x.dtype, fn)

    def op_Mod(self, node, a):  # noqa: N802
        x, y = self.value(node.input[0], node), self.value(node.input[1], node)
        if x.dtype != y.dtype:
            raise _err(f"operand types {x.dtype} and {y.dtype} differ")
        k = core.kind(x.dtype)
        fmod = a.get("fmod", 0)

        def fn(b, a_, el):
            xv, yv = a_
            if k == "f":
                r = b.op("arith.remf", xv, yv, t=el)
                if fmod:
                    return r
                # numpy.mod (ONNX's reference): the remainder takes the
                # divisor's sign, a zero remainder too.
                z = b.const(0, x.dtype)
                nz = b.cmp("arith.cmpf", "une", r, z, el)
                rn = b.cmp("arith.cmpf", "olt", r, z, el)
                yn = b.cmp("arith.cmpf", "olt", yv, z, el)
                diff = b.op("arith.xori", rn, yn, t="i1")
                fix = b.op("arith.andi", nz, diff, t="i1")
                signed0 = b.select(yn, b.const(-0.0, x.dtype), z, el)
                r = b.select(fix, b.op("arith.addf", r, yv, t=el), r, el)
                iszero = b.cmp("arith.cmpf", "oeq", r, z, el)
                return b.select(iszero, signed0, r, el)
            if k == "u":
                return b.op("arith.remui", xv, yv, t=el)
            r = b.op("arith.remsi", xv, yv, t=el)
            if fmod:
                return r
            # Python's %: the remainder takes the divisor's sign.
            z = b.const(0, x.dtype)
            nz = b.cmp("arith.cmpi", "ne", r, z, el)
            rn = b.cmp("arith.cmpi", "slt", r, z, el)
            yn = b.cmp("arith.cmpi", "slt", yv, z, el)
            diff = b.op("arith.xori", rn, yn, t="i1")
            fix = b.op("arith.andi", nz, diff, t="i1")
            return b.select(fix, b.op("arith.addi", r, yv, t=el), r, el)

        return self.ew([x, y], core._bcast(x.shape, y.shape), x.dtype, fn)

    def op_BitShift(self, node, a):  # noqa: N802
        x, y = self.value(node.input[0], node), self.value(node.input[1], node)
        d = a.get("direction", b"")
        d = d.decode() if isinstance(d, bytes) else d
        signed = core.kind(x.dtype) == "i"
        op = {"LEFT": "arith.shli", "RIGHT": "arith.shrsi" if signed else "arith.shrui"}.get(d)
        if op is None:
            raise _err(f"direction '{d}'")
        if core.kind(x.dtype) not in "iu" or x.dtype != y.dtype:
            raise _err(f"expects integers of one type, got {x.dtype} and {y.dtype}")
        n = core.bits(x.dtype)

        def fn(b, a_, el):
            # A shift by the width or more (or, signed, by a negative amount:
            # unsigned it is past the width too) leaves only the sign fill:
            # -1 for a right shift of a negative signed value, else 0 (ONNX).
            r = b.op(op, a_[0], a_[1], t=el)
            big = b.cmp("arith.cmpi", "uge", a_[1], b.const(n, x.dtype), el)
            fill = b.const(0, x.dtype)
            if signed and d == "RIGHT":
                fill = b.op("arith.shrsi", a_[0], b.const(n - 1, x.dtype), t=el)
            return b.select(big, fill, r, el)

        return self.ew([x, y], core._bcast(x.shape, y.shape), x.dtype, fn)

    def op_PRelu(self, node, a):  # noqa: N802
        x, s = self.value(node.input[0], node), self.value(node.input[1], node)
        shape = core._bcast(x.shape, s.shape)
        if shape != x.shape:
            raise _err(f"slope of shape {s.shape} does not broadcast to {x.shape}")
        k = core.kind(x.dtype)

        def fn(b, a_, el):
            z = b.const(0, x.dtype)
            if k == "f":
                neg = b.cmp("arith.cmpf", "olt", a_[0], z, el)
                return b.select(neg, b.op("arith.mulf", a_[0], a_[1], t=el), a_[0], el)
            neg = b.cmp("arith.cmpi", "slt", a_[0], z, el)
            return b.select(neg, b.op("arith.muli", a_[0], a_[1], t=el), a_[0], el)

        return self.ew([x, s], shape, x.dtype, fn)

    def op_Where(self, node, a):  # noqa: N802
        c, x, y = (self.value(n, node) for n in node.input[:3])
        if x.dtype != y.dtype:
            raise _err(f"operand types {x.dtype} and {y.dtype} differ")
        shape = core._bcast(c.shape, x.shape, y.shape)
        return self.ew([c, x, y], shape, x.dtype, lambda b, a_, el: b.select(a_[0], a_[1], a_[2], el))

    def op_Clip(self, node, a):  # noqa: N802
        x = self.value_any(node.input[0], node)
        k = core.kind(x.dtype)
        if self.opset < 11 or (len(node.input) == 1 and ("min" in a or "max" in a)):
            lo, hi = a.get("min"), a.get("max")
            extra = []
        else:
            lo = hi = None
            extra = [self.inp(node, 1), self.inp(node, 2)]
        if extra and any(v is not None and v.shape != () and v.shape != (1,) for v in extra):
            raise _err("min and max must be scalars")
        ins = [x] + [v for v in extra if v is not None]
        if any(v.dtype != x.dtype for v in ins):
            raise _err("min and max must be of the input's type")
        if x.layout == "nhwc" and len(ins) > 1:
            x = self.value(node.input[0], node)
            ins[0] = x

        def fn(b, a_, el):
            r = a_[0]
            mx, mn = ("arith.maximumf", "arith.minimumf") if k == "f" else (("arith.maxsi", "arith.minsi") if k == "i" else ("arith.maxui", "arith.minui"))
            j = 1
            if extra:
                if extra[0] is not None:
                    r = b.op(mx, r, a_[j], t=el)
                    j += 1
                if extra[1] is not None:
                    r = b.op(mn, r, a_[j], t=el)
            else:
                if lo is not None:
                    r = b.op(mx, r, b.const(lo, x.dtype), t=el)
                if hi is not None:
                    r = b.op(mn, r, b.const(hi, x.dtype), t=el)
            return r

        if len(ins) == 1 and lo is None and hi is None:
            return x
        out = self.ew([v if len(v.shape) == 0 or v is x else self.em.reshape(v, ()) for v in ins], x.shape, x.dtype, fn)
        out.layout = x.layout
        return out

    # -- casts ----------------------------------------------------------------------
    def _cast_to(self, node, x, to, a):
        to = self.dtype(to)
        if to == x.dtype:
            return x
        sat = bool(a.get("saturate", 1))
        if "f8E8M0FNU" in (core._elem(to), core._elem(x.dtype)) or (core.kind(to) == "f" and core.bits(to) < 8):
            return self._cast_small_float(node, x, to, a)  # tools/onnx_ops_more.py
        return self.ew([x], x.shape, to, lambda b, a_, el: convert(b, a_[0], x.dtype, to, sat))

    def op_Cast(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        to = self.np_type(a["to"], "the target type")
        return self._cast_to(node, x, to, a)

    def op_CastLike(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        like = self.value_any(node.input[1], node) if node.input[1] not in self.consts else None
        to = self.consts[node.input[1]].dtype if like is None else like.dtype
        return self._cast_to(node, x, to, a)

    # -- dropout, constants ---------------------------------------------------------
    def op_Dropout(self, node, a):  # noqa: N802
        x = self.value_any(node.input[0], node)
        ratio = self.static(node, 1, "ratio")
        training = self.static(node, 2, "training_mode")
        train = bool(training) if training is not None else False
        if self.opset < 7 and not a.get("is_test", 0):
            train = True
        r = float(ratio) if ratio is not None else float(a.get("ratio", 0.5))
        if train and r != 0.0:
            raise _err("training mode with a nonzero ratio drops random elements: not supported")
        outs = [x]
        if len(node.output) > 1 and node.output[1]:
            outs.append(self.em.constant(np.ones(self._logical(node.input[0], node).shape, np.bool_)))
        return outs

    def op_ConstantOfShape(self, node, a):  # noqa: N802
        shape = self.static(node, 0, "the shape")
        value = a.get("value")
        from onnx import numpy_helper

        v = numpy_helper.to_array(value).ravel()[0] if value is not None else np.float32(0)
        return self.cast(np.full([int(d) for d in shape], v, np.asarray(v).dtype))

    def op_Range(self, node, a):  # noqa: N802
        vals = [self.static(node, i, w) for i, w in enumerate(("start", "limit", "delta"))]
        return self._fold_values(node, vals)

    def _fold_values(self, node, vals):
        saved = {n: self.consts.get(n) for n in node.input}
        try:
            for n, v in zip(node.input, vals):
                self.consts[n] = v
            return [np.asarray(o) for o in self._fold(node)]
        finally:
            for n, v in saved.items():
                if v is None:
                    self.consts.pop(n, None)

    def op_EyeLike(self, node, a):  # noqa: N802
        x = self._logical(node.input[0], node)
        if len(x.shape) != 2:
            raise _err("expects a 2-D input")
        dt = self.np_type(a["dtype"], "dtype") if "dtype" in a else x.dtype
        return self.cast(np.eye(x.shape[0], x.shape[1], int(a.get("k", 0)), dtype=dt))

    # -- shapes -----------------------------------------------------------------------
    def op_Reshape(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        shape = self.static(node, 1, "the shape")
        if shape is None:
            shape = a.get("shape")
        if shape is None:
            raise _err("no shape")
        shape = [int(s) for s in shape]
        for i, s in enumerate(shape):
            if s == 0 and not a.get("allowzero", 0):
                if i >= len(x.shape):
                    raise _err(f"shape {shape}: a 0 at {i} copies no dimension of a rank-{len(x.shape)} input")
                shape[i] = x.shape[i]
        if shape.count(-1) > 1:
            raise _err(f"shape {shape} has more than one -1")
        total = int(np.prod(x.shape, dtype=np.int64))
        if -1 in shape:
            known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
            if known == 0 or total % known:
                raise _err(f"cannot reshape {x.shape} to {shape}")
            shape[shape.index(-1)] = total // known
        if int(np.prod(shape, dtype=np.int64)) != total or any(s < 0 for s in shape):
            raise _err(f"cannot reshape {x.shape} to {shape}")
        return self.em.reshape(x, tuple(shape))

    def op_Flatten(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        r = len(x.shape)
        axis = int(a.get("axis", 1))
        if not -r <= axis <= r:
            raise _err(f"axis {axis} is out of range for rank {r}")
        axis = axis + r if axis < 0 else axis
        return self.em.reshape(x, (int(np.prod(x.shape[:axis], dtype=np.int64)), int(np.prod(x.shape[axis:], dtype=np.int64))))

    def _axes_input(self, node, a, i=1):
        """The axes of Squeeze/Unsqueeze/Reduce*: input ``i`` (opset 13/18) or the attribute."""
        if len(node.input) > i and node.input[i]:
            return [int(v) for v in np.asarray(self.static(node, i, "axes")).ravel()]
        ax = a.get("axes")
        return None if ax is None else [int(v) for v in ax]

    def op_Squeeze(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        axes = self._axes_input(node, a)
        if not axes:
            axes = [i for i, d in enumerate(x.shape) if d == 1]
        axes = _norm_axes(axes, len(x.shape))
        for i in axes:
            if x.shape[i] != 1:
                raise _err(f"cannot squeeze axis {i} of size {x.shape[i]}")
        return self.em.reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))

    def op_Unsqueeze(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        axes = self._axes_input(node, a)
        if axes is None:
            raise _err("no axes")
        r = len(x.shape) + len(axes)
        axes = _norm_axes(axes, r)
        shape, it = [], iter(x.shape)
        for i in range(r):
            shape.append(1 if i in axes else next(it))
        return self.em.reshape(x, tuple(shape))

    def op_Expand(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        shape = [int(d) for d in self.static(node, 1, "the shape")]
        out = core._bcast(x.shape, tuple(shape))
        return self.broadcast_to(x, out)

    def op_Tile(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        reps = [int(r) for r in self.static(node, 1, "repeats")]
        if len(reps) != len(x.shape) or any(r < 0 for r in reps):
            raise _err(f"repeats {reps} for rank {len(x.shape)}")
        for ax, r in enumerate(reps):
            if r != 1:
                x = self.concat([x] * r, ax) if r else self.slice_(x, [0] * len(x.shape), [*x.shape[:ax], 0, *x.shape[ax + 1:]])
        return x

    def op_Split(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        axis = _norm_axes([a.get("axis", 0)], len(x.shape))[0]
        split = self.static(node, 1, "split") if len(node.input) > 1 else None
        if split is None and "split" in a:
            split = a["split"]
        n = len(node.output)
        size = x.shape[axis]
        if split is None:
            if "num_outputs" in a:
                n = int(a["num_outputs"])
            chunk = -(-size // n)
            split = [min(chunk, size - i * chunk) for i in range(n)]
            if any(s < 0 for s in split):
                raise _err(f"cannot split {size} into {n}")
        split = [int(s) for s in split]
        if sum(split) != size or len(split) != len(node.output):
            raise _err(f"split {split} does not match dimension {size} and {len(node.output)} outputs")
        outs, off = [], 0
        for s in split:
            offs = [0] * len(x.shape)
            sizes = list(x.shape)
            offs[axis], sizes[axis] = off, s
            outs.append(self.slice_(x, offs, sizes))
            off += s
        return outs

    def op_Slice(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        if self.opset < 10:
            starts, ends, axes, steps = a["starts"], a["ends"], a.get("axes"), None
        else:
            starts, ends = self.static(node, 1, "starts"), self.static(node, 2, "ends")
            axes, steps = self.static(node, 3, "axes"), self.static(node, 4, "steps")
        r = len(x.shape)
        axes = list(range(len(starts))) if axes is None else _norm_axes(list(axes), r)
        steps = [1] * len(starts) if steps is None else [int(s) for s in steps]
        for ax, s, e, st in zip(axes, starts, ends, steps):
            if st == 0:
                raise _err("a step of 0")
            n = x.shape[ax]
            if st < 0 and s < -n:
                s = -n  # ONNX clamps the start to the first element (numpy would start before it)
            idx = np.arange(n)[slice(int(max(min(s, 2**62), -2**62)), int(max(min(e, 2**62), -2**62)), st)]
            if st > 0:
                offs, sizes, strides = [0] * r, list(x.shape), [1] * r
                offs[ax], sizes[ax], strides[ax] = (int(idx[0]) if idx.size else 0), idx.size, st
                x = self.slice_(x, offs, sizes, strides)
            else:
                x = self.take(x, idx, ax)
        return x

    def op_Transpose(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        perm = a.get("perm", list(reversed(range(len(x.shape)))))
        _norm_axes(perm, len(x.shape), "perm entry")
        return self.em.transpose(x, perm)

    def op_Concat(self, node, a):  # noqa: N802
        vals = [self.value(n, node) for n in node.input if n]
        axis = _norm_axes([a["axis"]], len(vals[0].shape))[0]
        return self.concat(vals, axis)

    def op_Pad(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        r = len(x.shape)
        mode = a.get("mode", b"constant")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if self.opset < 11:
            pads, value, axes = a.get("pads", a.get("paddings")), a.get("value", 0.0), None
        else:
            pads = self.static(node, 1, "pads")
            cv = self.static(node, 2, "constant_value")
            value = cv.ravel()[0] if cv is not None and cv.size else 0
            axes = self.static(node, 3, "axes")
        pads = [int(p) for p in pads]
        axes = list(range(r)) if axes is None else _norm_axes(list(axes), r)
        if len(pads) != 2 * len(axes):
            raise _err(f"{len(pads)} pads for {len(axes)} axes")
        lo, hi = [0] * r, [0] * r
        for i, ax in enumerate(axes):
            lo[ax], hi[ax] = pads[i], pads[i + len(axes)]
        # Negative pads crop.
        if any(p < 0 for p in lo + hi):
            offs = [max(-p, 0) for p in lo]
            sizes = [d - max(-l, 0) - max(-h, 0) for d, l, h in zip(x.shape, lo, hi)]
            x = self.slice_(x, offs, sizes)
            lo, hi = [max(p, 0) for p in lo], [max(p, 0) for p in hi]
        if not any(lo + hi):
            return x
        if mode == "constant":
            shape = tuple(d + l + h for d, l, h in zip(x.shape, lo, hi))
            xs = self.em.signless(x)
            name = self.em.fresh()
            out = core.Value(name, shape, xs.dtype)
            el = core._elem(xs.dtype)
            self.em.emit(f"{name} = tensor.pad {xs.name} low[{', '.join(map(str, lo))}] high[{', '.join(map(str, hi))}] {{")
            self.em.emit("^bb0(" + ", ".join(f"%p{i}: index" for i in range(r)) + "):")
            self.em.emit(f"  %pv = arith.constant {lit(value, x.dtype)} : {el}")
            self.em.emit(f"  tensor.yield %pv : {el}")
            self.em.emit(f"}} : {xs.type} to {out.type}")
            return self.em.bitcast(out, x.dtype)
        if mode not in ("reflect", "edge", "wrap"):
            raise _err(f"mode '{mode}' is not supported")
        for ax in range(r):
            if lo[ax] or hi[ax]:
                n = x.shape[ax]
                if n == 0 or (mode == "reflect" and n == 1):
                    raise _err(f"{mode} padding of an axis of size {n}")
                idx = np.pad(np.arange(n), (lo[ax], hi[ax]), mode={"reflect": "reflect", "edge": "edge", "wrap": "wrap"}[mode])
                x = self.take(x, idx, ax)
        return x

    def op_DepthToSpace(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        bs = int(a["blocksize"])
        n, c, h, w = x.shape
        mode = a.get("mode", b"DCR")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if mode == "DCR":
            t = self.em.reshape(x, (n, bs, bs, c // (bs * bs), h, w))
            t = self.em.transpose(t, [0, 3, 4, 1, 5, 2])
        else:
            t = self.em.reshape(x, (n, c // (bs * bs), bs, bs, h, w))
            t = self.em.transpose(t, [0, 1, 4, 2, 5, 3])
        return self.em.reshape(t, (n, c // (bs * bs), h * bs, w * bs))

    def op_SpaceToDepth(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        bs = int(a["blocksize"])
        n, c, h, w = x.shape
        mode = a.get("mode", b"DCR")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if mode not in ("DCR", "CRD"):
            raise _err(f"mode '{mode}'")
        t = self.em.reshape(x, (n, c, h // bs, bs, w // bs, bs))
        t = self.em.transpose(t, [0, 3, 5, 1, 2, 4] if mode == "DCR" else [0, 1, 3, 5, 2, 4])
        return self.em.reshape(t, (n, c * bs * bs, h // bs, w // bs))

    def op_Trilu(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        kk = self.static(node, 1, "k")
        k = int(kk) if kk is not None else 0
        upper = a.get("upper", 1)
        r = len(x.shape)
        xs = self.em.signless(x)

        def body(ai, o):
            b = Body()
            i = b.line(f"linalg.index {r - 2} : index")
            j = b.line(f"linalg.index {r - 1} : index")
            i = b.line(f"arith.index_cast {i} : index to i64")
            j = b.line(f"arith.index_cast {j} : index to i64")
            d = b.op("arith.subi", j, i, t="i64")
            keep = b.cmp("arith.cmpi", "sge" if upper else "sle", d, b.const(k, np.int64), "i64")
            z = b.const(0, x.dtype)
            return b.lines, [b.select(keep, ai[0], z, el_of(x.dtype))]

        res = self.em.generic([(xs, _dims(r))], [(x.shape, xs.dtype, None, _dims(r))], "p" * r, body)[0]
        return self.em.bitcast(res, x.dtype)

    # -- indexing -----------------------------------------------------------------------
    def op_Gather(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        axis = _norm_axes([a.get("axis", 0)], len(x.shape))[0]
        idx = self.const(node.input[1])
        n = x.shape[axis]
        if idx is not None:
            if np.any(idx >= n) or np.any(idx < -n):
                raise _err(f"an index is out of range for a dimension of size {n}")
            idx = np.where(idx < 0, idx + n, idx).astype(np.int64)
            if idx.ndim == 1:
                return self.take(x, idx, axis)
            if idx.ndim == 0:
                t = self.take(x, idx.reshape(1), axis)
                return self.em.reshape(t, x.shape[:axis] + x.shape[axis + 1:])
            return self.gather_axis(x, self.em.constant(idx), axis)
        return self.gather_axis(x, self.value(node.input[1], node), axis)

    def _index_body(self, b, i, n, iel):
        """An index value ``i`` (of element type ``iel``) as ``index``, negative
        ones counted from the end of a dimension of size ``n``."""
        if iel != "i64":
            i = b.line(f"arith.extsi {i} : {iel} to i64")
        neg = b.cmp("arith.cmpi", "slt", i, b.const(0, np.int64), "i64")
        i = b.select(neg, b.op("arith.addi", i, b.const(n, np.int64), t="i64"), i, "i64")
        return b.line(f"arith.index_cast {i} : i64 to index")

    def op_GatherElements(self, node, a):  # noqa: N802
        x, iv = self.value(node.input[0], node), self.value(node.input[1], node)
        r = len(x.shape)
        axis = _norm_axes([a.get("axis", 0)], r)[0]
        xs = self.em.signless(x)

        def body(ai, o):
            b = Body()
            coords = [b.line(f"linalg.index {d} : index") if d != axis else None for d in range(r)]
            coords[axis] = self._index_body(b, ai[0], x.shape[axis], el_of(iv.dtype))
            return b.lines, [b.line(f"tensor.extract {xs.name}[{', '.join(coords)}] : {xs.type}")]

        res = self.em.generic([(iv, _dims(r))], [(iv.shape, xs.dtype, None, _dims(r))], "p" * r, body)[0]
        return self.em.bitcast(res, x.dtype)

    def op_GatherND(self, node, a):  # noqa: N802
        x, iv = self.value(node.input[0], node), self.value(node.input[1], node)
        bd = int(a.get("batch_dims", 0))
        k = iv.shape[-1]
        q = len(iv.shape)
        out_shape = iv.shape[:-1] + x.shape[bd + k:]
        ro = len(out_shape)
        xs = self.em.signless(x)
        iel = el_of(iv.dtype)

        def body(ai, o):
            b = Body()
            outer = [b.line(f"linalg.index {d} : index") for d in range(ro)]
            coords = outer[:bd]
            for j in range(k):
                cj = b.const(j, np.int64)
                cj = b.line(f"arith.index_cast {cj} : i64 to index")
                ij = b.line(f"tensor.extract {iv.name}[{', '.join(outer[:q - 1] + [cj])}] : {iv.type}")
                coords.append(self._index_body(b, ij, x.shape[bd + j], iel))
            coords += outer[q - 1:]
            return b.lines, [b.line(f"tensor.extract {xs.name}[{', '.join(coords)}] : {xs.type}")]

        res = self.em.generic([], [(out_shape, xs.dtype, None, _dims(ro))], "p" * ro, body)[0]
        return self.em.bitcast(res, x.dtype)

    def op_OneHot(self, node, a):  # noqa: N802
        iv = self.value(node.input[0], node)
        depth = int(np.asarray(self.static(node, 1, "depth")).ravel()[0])
        vals = self.value(node.input[2], node)
        r = len(iv.shape) + 1
        axis = _norm_axes([a.get("axis", -1)], r)[0]
        out_shape = iv.shape[:axis] + (depth,) + iv.shape[axis:]
        vs = self.em.signless(vals)
        ik = core.kind(iv.dtype)

        def body(ai, o):
            b = Body()
            i = ai[0]
            if ik == "f":
                i = b.line(f"arith.fptosi {i} : {el_of(iv.dtype)} to i64")
            elif el_of(iv.dtype) != "i64":
                i = b.line(f"arith.{'extsi' if ik == 'i' else 'extui'} {i} : {el_of(iv.dtype)} to i64")
            neg = b.cmp("arith.cmpi", "slt", i, b.const(0, np.int64), "i64")
            i = b.select(neg, b.op("arith.addi", i, b.const(depth, np.int64), t="i64"), i, "i64")
            j = b.line(f"arith.index_cast {b.line(f'linalg.index {axis} : index')} : index to i64")
            hit = b.cmp("arith.cmpi", "eq", i, j, "i64")
            c0 = b.line("arith.constant 0 : index")
            c1 = b.line("arith.constant 1 : index")
            on = b.line(f"tensor.extract {vs.name}[{c1}] : {vs.type}")
            off = b.line(f"tensor.extract {vs.name}[{c0}] : {vs.type}")
            return b.lines, [b.select(hit, on, off, el_of(vals.dtype))]

        dims = _dims(r)
        res = self.em.generic([(iv, dims[:axis] + dims[axis + 1:])], [(out_shape, vs.dtype, None, dims)], "p" * r, body)[0]
        return self.em.bitcast(res, vals.dtype)

    # -- reductions ---------------------------------------------------------------------
    def _reduce_axes(self, node, a, x):
        """The axes to reduce (sorted), or None for none at all (noop)."""
        from_input = self.opset >= 18 or (node.op_type == "ReduceSum" and self.opset >= 13)
        axes = self._axes_input(node, a) if from_input else (list(a["axes"]) if a.get("axes") is not None else None)
        if not axes:
            if a.get("noop_with_empty_axes", 0):
                return None
            return list(range(len(x.shape)))
        return sorted(_norm_axes(axes, len(x.shape)))

    def _reduce(self, node, a, pre=None, kind_="sum", post=None):
        x = self.value(node.input[0], node)
        axes = self._reduce_axes(node, a, x)
        keep = bool(a.get("keepdims", 1))
        k = core.kind(x.dtype)
        if axes is None:
            axes = []
        empty = any(x.shape[i] == 0 for i in axes)
        if pre is not None and not empty:
            x = self.ew([x], x.shape, x.dtype, lambda b, a_, el: pre(b, a_[0], el, x.dtype))
        if not axes:
            y = x
        else:
            big = {"f": math.inf, "i": (1 << (core.bits(x.dtype) - 1)) - 1, "u": -1, "b": True}[k]
            small = {"f": -math.inf, "i": -(1 << (core.bits(x.dtype) - 1)), "u": 0, "b": False}[k]
            if k == "u":
                big = (1 << core.bits(x.dtype)) - 1
            ops = {
                "sum": ("arith.addf", "arith.addi", 0), "prod": ("arith.mulf", "arith.muli", 1),
                "max": ("arith.maximumf", ("arith.ori", "arith.maxui") if k in "bu" else "arith.maxsi", small),
                "min": ("arith.minimumf", ("arith.andi", "arith.minui") if k in "bu" else "arith.minsi", big),
            }[kind_]  # fmt: skip
            opi = ops[1]
            if isinstance(opi, tuple):
                opi = opi[0] if k == "b" else opi[1]
            if empty:
                # Nothing to reduce: every result is the reduction's identity.
                shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keep else \
                    tuple(d for i, d in enumerate(x.shape) if i not in axes)
                y = self.em.constant(np.full(shape, ops[2], dtype=x.dtype))
            else:
                y = self.reduce_(x, axes, ops[0], opi, ops[2], keep)
        if post is not None:
            count = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
            y = self.ew([y], y.shape, y.dtype, lambda b, a_, el: post(b, a_[0], el, y.dtype, count))
        if not keep and not axes:
            return y
        return y

    def op_ReduceSum(self, node, a):  # noqa: N802
        return self._reduce(node, a)

    def op_ReduceMean(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        self.float_only(x)
        axes = self._reduce_axes(node, a, x)
        if axes is None:
            return x
        if any(x.shape[i] == 0 for i in axes):
            raise _err("reducing an empty axis is not supported")
        m = self._mean(x, axes)
        return self.em.expand(m, axes, len(x.shape)) if a.get("keepdims", 1) else m

    def op_ReduceProd(self, node, a):  # noqa: N802
        return self._reduce(node, a, kind_="prod")

    def op_ReduceMax(self, node, a):  # noqa: N802
        return self._reduce(node, a, kind_="max")

    def op_ReduceMin(self, node, a):  # noqa: N802
        return self._reduce(node, a, kind_="min")

    def op_ReduceSumSquare(self, node, a):  # noqa: N802
        return self._reduce(node, a, pre=lambda b, x, el, dt: b.op("arith.mulf" if core.kind(dt) == "f" else "arith.muli", x, x, t=el))

    def op_ReduceL1(self, node, a):  # noqa: N802
        def pre(b, x, el, dt):
            if core.kind(dt) == "f":
                return b.op("math.absf", x, t=el)
            if core.kind(dt) == "u":
                return x
            neg = b.cmp("arith.cmpi", "slt", x, b.const(0, dt), el)
            return b.select(neg, b.op("arith.subi", b.const(0, dt), x, t=el), x, el)

        return self._reduce(node, a, pre=pre)

    def op_ReduceL2(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        self.float_only(x)
        return self._reduce(node, a, pre=lambda b, x, el, dt: b.op("arith.mulf", x, x, t=el),
                            post=lambda b, y, el, dt, n: b.op("math.sqrt", y, t=el))  # fmt: skip

    def op_ReduceLogSum(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        self.float_only(x)
        return self._reduce(node, a, post=lambda b, y, el, dt, n: b.op("math.log", y, t=el))

    def op_ReduceLogSumExp(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        self.float_only(x)
        return self._reduce(node, a, pre=lambda b, x, el, dt: b.op("math.exp", x, t=el),
                            post=lambda b, y, el, dt, n: b.op("math.log", y, t=el))  # fmt: skip

    def _arg(self, node, a, best):
        x = self.value(node.input[0], node)
        r = len(x.shape)
        axis = _norm_axes([a.get("axis", 0)], r)[0]
        keep = a.get("keepdims", 1)
        last = a.get("select_last_index", 0)
        k = core.kind(x.dtype)
        if k == "b":
            raise _err("bool input is not supported")
        out_shape = tuple(d for i, d in enumerate(x.shape) if i != axis)
        xs = self.em.signless(x)
        el = el_of(x.dtype)
        if k == "f":
            init = -math.inf if best == "max" else math.inf
        elif k == "i":
            init = -(1 << (core.bits(x.dtype) - 1)) if best == "max" else (1 << (core.bits(x.dtype) - 1)) - 1
        else:
            init = 0 if best == "max" else (1 << core.bits(x.dtype)) - 1
        mv = self.em.filled(out_shape, xs.dtype, init) if k == "f" else None
        if mv is None:
            e = self.em.empty(out_shape, xs.dtype)
            c = self.em.fresh()
            self.em.emit(f"{c} = arith.constant {lit(init, x.dtype)} : {el}")
            mv = self.em.fresh()
            t = core._ttype(out_shape, xs.dtype)
            self.em.emit(f"{mv} = linalg.fill ins({c} : {el}) outs({e} : {t}) -> {t}")
        iv = self.em.filled(out_shape, np.int64, 0)
        dims = _dims(r)
        red = dims[:axis] + dims[axis + 1:]
        if k == "f":
            pred = {("max", 0): "ogt", ("max", 1): "oge", ("min", 0): "olt", ("min", 1): "ole"}[(best, last)]
        else:
            s = "s" if k == "i" else "u"
            pred = {("max", 0): f"{s}gt", ("max", 1): f"{s}ge", ("min", 0): f"{s}lt", ("min", 1): f"{s}le"}[(best, last)]

        def body(ai, o):
            b = Body()
            j = b.line(f"arith.index_cast {b.line(f'linalg.index {axis} : index')} : index to i64")
            better = b.cmp("arith.cmpf" if k == "f" else "arith.cmpi", pred, ai[0], o[0], el)
            if not last:
                # The first element always wins its slot (an all -inf or NaN row gives 0).
                first = b.cmp("arith.cmpi", "eq", j, b.const(0, np.int64), "i64")
                better = b.op("arith.ori", better, first, t="i1")
            return b.lines, [b.select(better, ai[0], o[0], el), b.select(better, j, o[1], "i64")]

        iters = "".join("r" if i == axis else "p" for i in range(r))
        res = self.em.generic([(xs, dims)], [(out_shape, xs.dtype, mv, red), (out_shape, np.int64, iv, red)], iters, body)
        out = res[1]
        if keep:
            out = self.em.reshape(out, tuple(1 if i == axis else d for i, d in enumerate(x.shape)))
        return out

    def op_ArgMax(self, node, a):  # noqa: N802
        return self._arg(node, a, "max")

    def op_ArgMin(self, node, a):  # noqa: N802
        return self._arg(node, a, "min")

    def op_CumSum(self, node, a):  # noqa: N802
        return self._cumulative(node, a, prod=False)

    def op_CumProd(self, node, a):  # noqa: N802
        return self._cumulative(node, a, prod=True)

    def _cumulative(self, node, a, prod):
        x = self.value(node.input[0], node)
        r = len(x.shape)
        axis = _norm_axes([int(np.asarray(self.static(node, 1, "axis")).ravel()[0])], r)[0]
        excl, rev = a.get("exclusive", 0), a.get("reverse", 0)
        k = core.kind(x.dtype)
        xs = self.em.signless(x)
        el = el_of(x.dtype)
        dims = _dims(r + 1)
        in_e = dims[:r]
        in_e[axis] = f"d{r}"
        unit = 1 if prod else 0
        if k == "b":
            raise _err("element type bool is not supported")
        acc = self.em.filled(x.shape, xs.dtype, unit) if k == "f" else None
        if acc is None:
            e = self.em.empty(x.shape, xs.dtype)
            c = self.em.fresh()
            self.em.emit(f"{c} = arith.constant {unit} : {el}")
            acc = self.em.fresh()
            t = core._ttype(x.shape, xs.dtype)
            self.em.emit(f"{acc} = linalg.fill ins({c} : {el}) outs({e} : {t}) -> {t}")

        def body(ai, o):
            b = Body()
            i = b.line(f"linalg.index {axis} : index")
            j = b.line(f"linalg.index {r} : index")
            pred = {(0, 0): "ule", (1, 0): "ult", (0, 1): "uge", (1, 1): "ugt"}[(excl, rev)]
            take = b.line(f"arith.cmpi {pred}, {j}, {i} : index")
            z = b.const(unit, x.dtype)
            v = b.select(take, ai[0], z, el)
            op = ("arith.mulf" if k == "f" else "arith.muli") if prod else ("arith.addf" if k == "f" else "arith.addi")
            return b.lines, [b.op(op, o[0], v, t=el)]

        res = self.em.generic([(xs, in_e)], [(x.shape, xs.dtype, acc, dims[:r])], "p" * r + "r", body)[0]
        return self.em.bitcast(res, x.dtype)

    # -- softmax family -------------------------------------------------------------------
    def _softmax_like(self, node, a, kind_):
        x = self.value(node.input[0], node)
        self.float_only(x)
        r = len(x.shape)
        if self.opset < 13:
            axis = _norm_axes([a.get("axis", 1)], r)[0] if r else 0
            shape2 = (int(np.prod(x.shape[:axis], dtype=np.int64)), int(np.prod(x.shape[axis:], dtype=np.int64)))
            y = self._softmax_last(self.em.reshape(x, shape2), 1, kind_)
            return self.em.reshape(y, x.shape)
        axis = _norm_axes([a.get("axis", -1)], r)[0]
        return self._softmax_last(x, axis, kind_)

    def _softmax_last(self, x, axis, kind_):
        r = len(x.shape)
        mx = self.em.expand(self.em.reduce(x, [axis], "max"), [axis], r)
        if kind_ == "hard":
            def hard(ai, o):
                b = Body()
                return b.lines, [b.cmp("arith.cmpf", "oeq", ai[0], ai[1], el_of(x.dtype))]
            # The first maximum along the axis is 1: an index reduction.
            eq = self.ew([x, mx], x.shape, np.bool_, lambda b, a_, el: b.cmp("arith.cmpf", "oeq", a_[0], a_[1], el_of(x.dtype)))
            del hard
            dims = _dims(r + 1)
            in_e = dims[:r]
            in_e[axis] = f"d{r}"

            def body(ai, o):
                b = Body()
                i = b.line(f"linalg.index {axis} : index")
                j = b.line(f"linalg.index {r} : index")
                before = b.line(f"arith.cmpi ult, {j}, {i} : index")
                hit = b.op("arith.andi", ai[0], before, t="i1")
                return b.lines, [b.op("arith.ori", o[0], hit, t="i1")]

            e = self.em.empty(x.shape, np.bool_)
            c = self.em.fresh()
            self.em.emit(f"{c} = arith.constant false")
            f = self.em.fresh()
            t = core._ttype(x.shape, np.bool_)
            self.em.emit(f"{f} = linalg.fill ins({c} : i1) outs({e} : {t}) -> {t}")
            seen = self.em.generic([(eq, in_e)], [(x.shape, np.bool_, f, dims[:r])], "p" * r + "r", body)[0]
            return self.ew([eq, seen], x.shape, x.dtype, lambda b, a_, el: b.select(
                b.op("arith.andi", a_[0], b.op("arith.xori", a_[1], b.const(True, np.bool_), t="i1"), t="i1"),
                b.const(1.0, x.dtype), b.const(0.0, x.dtype), el))  # fmt: skip
        ex = self.ew([x, mx], x.shape, x.dtype, lambda b, a_, el: b.op("math.exp", b.op("arith.subf", a_[0], a_[1], t=el), t=el))
        sm = self.em.expand(self.em.reduce(ex, [axis], "sum"), [axis], r)
        if kind_ == "log":
            return self.ew([x, mx, sm], x.shape, x.dtype, lambda b, a_, el: b.op(
                "arith.subf", b.op("arith.subf", a_[0], a_[1], t=el), b.op("math.log", a_[2], t=el), t=el))  # fmt: skip
        return self.ew([ex, sm], x.shape, x.dtype, lambda b, a_, el: b.op("arith.divf", a_[0], a_[1], t=el))

    def op_Softmax(self, node, a):  # noqa: N802
        return self._softmax_like(node, a, "soft")

    def op_LogSoftmax(self, node, a):  # noqa: N802
        return self._softmax_like(node, a, "log")

    def op_Hardmax(self, node, a):  # noqa: N802
        return self._softmax_like(node, a, "hard")

    # -- linear algebra -------------------------------------------------------------------
    def op_MatMul(self, node, a):  # noqa: N802
        x, w = self.value(node.input[0], node), self.value(node.input[1], node)
        return self._matmul_nd(x, w)

    def _matmul_nd(self, x, w):
        if x.dtype != w.dtype:
            raise _err(f"operand types {x.dtype} and {w.dtype} differ")
        if not x.shape or not w.shape:
            raise _err("scalar operands")
        if core.kind(x.dtype) == "f" and core._elem(x.dtype) not in ("f16", "f32", "f64"):
            # bf16 and the small floats multiply in f32 and round once (the
            # kernels' batched matmul and einsum return f32 for them).
            f32 = np.dtype(np.float32)
            xw = self.ew([x], x.shape, f32, lambda b, a_, el: convert(b, a_[0], x.dtype, f32))
            ww = self.ew([w], w.shape, f32, lambda b, a_, el: convert(b, a_[0], w.dtype, f32))
            y = self._matmul_nd(xw, ww)
            return self.ew([y], y.shape, x.dtype, lambda b, a_, el: convert(b, a_[0], f32, x.dtype))
        squeeze_l = len(x.shape) == 1
        squeeze_r = len(w.shape) == 1
        if squeeze_l:
            x = self.em.reshape(x, (1, x.shape[0]))
        if squeeze_r:
            w = self.em.reshape(w, (w.shape[0], 1))
        if x.shape[-1] != w.shape[-2]:
            raise _err(f"shapes {x.shape} and {w.shape} do not multiply")
        batch = core._bcast(x.shape[:-2], w.shape[:-2])
        m, kk, n = x.shape[-2], x.shape[-1], w.shape[-1]
        if len(w.shape) == 2 and core.kind(x.dtype) == "f":
            lead = x.shape[:-1]
            x2 = self.em.reshape(x, (int(np.prod(lead, dtype=np.int64)), kk))
            y = self.em.reshape(self._matmul2d(x2, w), (*lead, n))
        elif core.kind(x.dtype) == "f" and x.shape[:-2] == batch and w.shape[:-2] == batch:
            b = int(np.prod(batch, dtype=np.int64))
            x3 = self.em.reshape(x, (b, m, kk))
            w3 = self.em.reshape(w, (b, kk, n))
            acc = self.em.filled((b, m, n), x.dtype, 0.0)
            name = self.em.fresh()
            out = core.Value(name, (b, m, n), x.dtype)
            self.em.emit(f"{name} = linalg.batch_matmul ins({x3.name}, {w3.name} : {x3.type}, {w3.type}) "
                         f"outs({acc} : {out.type}) -> {out.type}")  # fmt: skip
            y = self.em.reshape(out, (*batch, m, n))
        else:
            y = self._contract(x, w, batch, x.dtype)
        shape = list(y.shape)
        if squeeze_r:
            shape.pop(-1)
        if squeeze_l:
            shape.pop(-2 if not squeeze_r else -1)
        return self.em.reshape(y, tuple(shape))

    def _contract(self, x, w, batch, out_dtype, zx=None, zw=None):
        """A broadcasting batched matmul as a generic (any element type; the
        products of integers summed in ``out_dtype``)."""
        nb = len(batch)
        r = nb + 3
        dims = _dims(r)
        bx = [dims[nb - len(x.shape[:-2]) + i] if x.shape[i] == batch[nb - len(x.shape[:-2]) + i] else "0" for i in range(len(x.shape) - 2)]
        bw = [dims[nb - len(w.shape[:-2]) + i] if w.shape[i] == batch[nb - len(w.shape[:-2]) + i] else "0" for i in range(len(w.shape) - 2)]
        m, n = x.shape[-2], w.shape[-1]
        out_shape = (*batch, m, n)
        k = core.kind(out_dtype)
        acc = self.em.filled(out_shape, core.signless_dtype(out_dtype), 0) if k == "f" else None
        if acc is None:
            e = self.em.empty(out_shape, out_dtype)
            c = self.em.fresh()
            self.em.emit(f"{c} = arith.constant 0 : {el_of(out_dtype)}")
            acc = self.em.fresh()
            t = core._ttype(out_shape, core.signless_dtype(out_dtype))
            self.em.emit(f"{acc} = linalg.fill ins({c} : {el_of(out_dtype)}) outs({e} : {t}) -> {t}")
        el = el_of(out_dtype)
        ins = [(x, bx + [dims[nb], dims[nb + 2]]), (w, bw + [dims[nb + 2], dims[nb + 1]])]
        if zx is not None:
            ins.append((zx, []))
        if zw is not None:
            ins.append((zw, []))

        def body(ai, o):
            b = Body()
            xv = convert(b, ai[0], x.dtype, out_dtype)
            wv = convert(b, ai[1], w.dtype, out_dtype)
            j = 2
            if zx is not None:
                xv = b.op("arith.subi", xv, convert(b, ai[j], zx.dtype, out_dtype), t=el)
                j += 1
            if zw is not None:
                wv = b.op("arith.subi", wv, convert(b, ai[j], zw.dtype, out_dtype), t=el)
            if k == "f":
                return b.lines, [b.op("arith.addf", o[0], b.op("arith.mulf", xv, wv, t=el), t=el)]
            return b.lines, [b.op("arith.addi", o[0], b.op("arith.muli", xv, wv, t=el), t=el)]

        return self.em.generic(ins, [(out_shape, out_dtype, acc, dims[:nb + 2])], "p" * (nb + 2) + "r", body)[0]

    def op_MatMulInteger(self, node, a):  # noqa: N802
        x, w = self.value(node.input[0], node), self.value(node.input[1], node)
        zx, zw = self.inp(node, 2), self.inp(node, 3)
        for z in (zx, zw):
            if z is not None and z.shape not in ((), (1,)):
                raise _err("per-row or per-column zero points are not supported")
        zx = self.em.reshape(zx, ()) if zx is not None else None
        zw = self.em.reshape(zw, ()) if zw is not None else None
        squeeze_l, squeeze_r = len(x.shape) == 1, len(w.shape) == 1
        if squeeze_l:
            x = self.em.reshape(x, (1, x.shape[0]))
        if squeeze_r:
            w = self.em.reshape(w, (w.shape[0], 1))
        batch = core._bcast(x.shape[:-2], w.shape[:-2])
        y = self._contract(x, w, batch, np.dtype(np.int32), zx, zw)
        shape = list(y.shape)
        if squeeze_r:
            shape.pop(-1)
        if squeeze_l:
            shape.pop(-2 if not squeeze_r else -1)
        return self.em.reshape(y, tuple(shape))

    def op_Gemm(self, node, a):  # noqa: N802
        alpha, beta = float(a.get("alpha", 1.0)), float(a.get("beta", 1.0))
        ta, tb = a.get("transA", 0), a.get("transB", 0)
        wa, wb = self.const(node.input[0]), self.const(node.input[1])
        x = self.value(node.input[0], node)
        if ta:
            x = self.em.constant(np.ascontiguousarray(wa.T), node.input[0]) if wa is not None else self.em.transpose(x, [1, 0])
        if core.kind(x.dtype) != "f":
            raise _err(f"element type {x.dtype} is not supported")
        if wb is not None:
            bw = wb.T if tb else wb
            if alpha != 1.0:
                bw, alpha = (bw * np.asarray(alpha, bw.dtype)).astype(bw.dtype), 1.0
            w = self.em.constant(np.ascontiguousarray(bw), node.input[1])
        else:
            w = self.value(node.input[1], node)
            if tb:
                w = self.em.transpose(w, [1, 0])
        y = self._matmul2d(x, w)
        if alpha != 1.0:
            y = self.ew([y], y.shape, y.dtype, lambda b, a_, el: b.op("arith.mulf", a_[0], b.const(alpha, y.dtype), t=el))
        if len(node.input) > 2 and node.input[2] and beta != 0.0:
            c = self.const(node.input[2])
            if c is not None:
                cv = self.em.constant((c * np.asarray(beta, c.dtype)).astype(c.dtype), node.input[2]) if beta != 1.0 else self.em.constant(c, node.input[2])
            else:
                cv = self.value(node.input[2], node)
                if beta != 1.0:
                    cv = self.ew([cv], cv.shape, cv.dtype, lambda b, a_, el: b.op("arith.mulf", a_[0], b.const(beta, cv.dtype), t=el))
            y = self.ew([y, cv], core._bcast(y.shape, cv.shape), y.dtype, lambda b, a_, el: b.op("arith.addf", a_[0], a_[1], t=el))
        return y

    def op_Einsum(self, node, a):  # noqa: N802
        eq = a["equation"]
        eq = (eq.decode() if isinstance(eq, bytes) else eq).replace(" ", "")
        vals = [self.value(n, node) for n in node.input if n]
        if vals and core._elem(vals[0].dtype) == "bf16" and all(v.dtype == vals[0].dtype for v in vals):
            # As ONNX's reference: in f32, rounded to bf16 once.
            f32 = [self._sub(node, "Cast", [n], to=1) for n in node.input if n]
            r = self._sub(node, "Einsum", f32, equation=eq)
            return self._finish(node, [self._sub(node, "Cast", [r], to=16)])
        lhs, _, rhs = eq.partition("->")
        terms = lhs.split(",")
        if "." in eq or len(terms) != len(vals) or any(len(set(t)) != len(t) for t in terms):
            return self._einsum_general(node, eq)  # tools/onnx_ops_more.py: ellipses, diagonals
        if not _:
            letters = sorted({c for t in terms for c in t if sum(t2.count(c) for t2 in terms) == 1})
            rhs = "".join(letters)
        used = set("".join(terms))
        if not (used | set(rhs)) <= set(string.ascii_letters) or len(set(rhs)) != len(rhs) or not set(rhs) <= used:
            raise _err(f"equation '{eq}': its terms must be letters, and the output's each once and in some operand")
        sizes = {}
        for t, v in zip(terms, vals):
            if len(t) != len(v.shape):
                raise _err(f"term '{t}' for an operand of rank {len(v.shape)}")
            for c, d in zip(t, v.shape):
                if sizes.setdefault(c, d) != d:
                    raise _err(f"index '{c}' has sizes {sizes[c]} and {d}")
            if len(set(t)) != len(t):
                raise _err(f"repeated index in '{t}' (diagonals) is not supported")
        dt = vals[0].dtype
        loops = list(rhs) + sorted(c for c in sizes if c not in rhs)
        pos = {c: f"d{i}" for i, c in enumerate(loops)}
        out_shape = tuple(sizes[c] for c in rhs)
        k = core.kind(dt)
        if k != "f" or core._elem(dt) not in ("f16", "f32", "f64"):
            raise _err(f"Einsum on {dt} is not supported")
        acc = self.em.filled(out_shape, dt, 0)
        el = el_of(dt)

        def body(ai, o):
            b = Body()
            p = ai[0]
            for q in ai[1:]:
                p = b.op("arith.mulf", p, q, t=el)
            return b.lines, [b.op("arith.addf", o[0], p, t=el)]

        ins = [(v, [pos[c] for c in t]) for t, v in zip(terms, vals)]
        return self.em.generic(ins, [(out_shape, dt, acc, [pos[c] for c in rhs])],
                               "p" * len(rhs) + "r" * (len(loops) - len(rhs)), body)[0]  # fmt: skip

    # -- normalization --------------------------------------------------------------------
    def op_LayerNormalization(self, node, a):  # noqa: N802
        """f16 normalizes in f32 and rounds once, before scale and bias, as
        onnxruntime does: in f16 a square (x - mean)^2 past 65,504 makes the
        variance infinite, and a small epsilon (BERT's 1e-12) rounds to 0."""
        x = self.value(node.input[0], node)
        self.float_only(x)
        r = len(x.shape)
        axis = _norm_axes([a.get("axis", -1)], r)[0]
        eps = float(a.get("epsilon", 1e-5))
        axes = list(range(axis, r))
        stash = a.get("stash_type", 1)
        xw = self._widened(x) if stash == 1 else x
        wide = xw.dtype
        mean = self.em.expand(self._mean(xw, axes), axes, r)
        cen = self.ew([xw, mean], x.shape, wide, lambda b, a_, el: b.op("arith.subf", a_[0], a_[1], t=el))
        sq = self.ew([cen], x.shape, wide, lambda b, a_, el: b.op("arith.mulf", a_[0], a_[0], t=el))
        var = self.em.expand(self._mean(sq, axes), axes, r)
        inv = self.ew([var], var.shape, wide, lambda b, a_, el: b.op(
            "math.rsqrt", b.op("arith.addf", a_[0], b.const(eps, wide), t=el), t=el))  # fmt: skip
        scale, bias = self.inp(node, 1), self.inp(node, 2)
        ins = [cen, inv] + [v for v in (scale, bias) if v is not None]

        def fn(b, a_, el):
            n = b.op("arith.mulf", a_[0], a_[1], t=el_of(wide))
            n = convert(b, n, wide, x.dtype)
            j = 2
            if scale is not None:
                n = b.op("arith.mulf", n, a_[j], t=el)
                j += 1
            if bias is not None:
                n = b.op("arith.addf", n, a_[j], t=el)
            return n

        y = self.ew(ins, core._bcast(x.shape, *[v.shape for v in ins[2:]]), x.dtype, fn)
        outs = [y]
        if len(node.output) > 1:
            outs.append(mean if wide == np.float32 or x.dtype != np.float16 else mean)
        if len(node.output) > 2:
            outs.append(inv)
        return outs

    def op_InstanceNormalization(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        self.float_only(x)
        s, bv = self.value(node.input[1], node), self.value(node.input[2], node)
        eps = float(a.get("epsilon", 1e-5))
        r = len(x.shape)
        axes = list(range(2, r))
        mean = self.em.expand(self._mean(x, axes), axes, r)
        cen = self.ew([x, mean], x.shape, x.dtype, lambda b, a_, el: b.op("arith.subf", a_[0], a_[1], t=el))
        sq = self.ew([cen], x.shape, x.dtype, lambda b, a_, el: b.op("arith.mulf", a_[0], a_[0], t=el))
        var = self.em.expand(self._mean(sq, axes), axes, r)
        cshape = (x.shape[1],) + (1,) * (r - 2)
        s2, b2 = self.em.reshape(s, cshape), self.em.reshape(bv, cshape)
        return self.ew([cen, var, s2, b2], x.shape, x.dtype, lambda b, a_, el: b.op("arith.addf", b.op(
            "arith.mulf", b.op("arith.mulf", a_[0], b.op("math.rsqrt", b.op("arith.addf", a_[1], b.const(eps, x.dtype), t=el), t=el), t=el),
            a_[2], t=el), a_[3], t=el))  # fmt: skip

    def op_GroupNormalization(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        self.float_only(x)
        g = int(a["num_groups"])
        eps = float(a.get("epsilon", 1e-5))
        s, bv = self.value(node.input[1], node), self.value(node.input[2], node)
        n, c = x.shape[:2]
        if s.shape != (c,):
            raise _err(f"scale of shape {s.shape} (opset 21 takes one per channel)")
        rest = x.shape[2:]
        xg = self.em.reshape(x, (n, g, c // g * int(np.prod(rest, dtype=np.int64))))
        mean = self.em.expand(self._mean(xg, [2]), [2], 3)
        cen = self.ew([xg, mean], xg.shape, x.dtype, lambda b, a_, el: b.op("arith.subf", a_[0], a_[1], t=el))
        sq = self.ew([cen], xg.shape, x.dtype, lambda b, a_, el: b.op("arith.mulf", a_[0], a_[0], t=el))
        var = self.em.expand(self._mean(sq, [2]), [2], 3)
        nrm = self.ew([cen, var], xg.shape, x.dtype, lambda b, a_, el: b.op("arith.mulf", a_[0], b.op(
            "math.rsqrt", b.op("arith.addf", a_[1], b.const(eps, x.dtype), t=el), t=el), t=el))  # fmt: skip
        nrm = self.em.reshape(nrm, x.shape)
        cshape = (c,) + (1,) * len(rest)
        s2, b2 = self.em.reshape(s, cshape), self.em.reshape(bv, cshape)
        return self.ew([nrm, s2, b2], x.shape, x.dtype, lambda b, a_, el: b.op("arith.addf", b.op("arith.mulf", a_[0], a_[1], t=el), a_[2], t=el))

    def op_LpNormalization(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        self.float_only(x)
        axis = _norm_axes([a.get("axis", -1)], len(x.shape))[0]
        p = int(a.get("p", 2))
        if p not in (1, 2):
            raise _err(f"p={p}")
        pre = (lambda b, v, el: b.op("math.absf", v, t=el)) if p == 1 else (lambda b, v, el: b.op("arith.mulf", v, v, t=el))
        t = self.ew([x], x.shape, x.dtype, lambda b, a_, el: pre(b, a_[0], el))
        s = self.em.expand(self.em.reduce(t, [axis], "sum"), [axis], len(x.shape))
        if p == 2:
            s = self.ew([s], s.shape, x.dtype, lambda b, a_, el: b.op("math.sqrt", a_[0], t=el))
        # A zero norm gives 0 (ONNX's reference), not NaN.
        return self.ew([x, s], x.shape, x.dtype, lambda b, a_, el: b.select(
            b.cmp("arith.cmpf", "oeq", a_[1], b.const(0.0, x.dtype), el), b.const(0.0, x.dtype),
            b.op("arith.divf", a_[0], a_[1], t=el), el))  # fmt: skip

    def op_MeanVarianceNormalization(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        self.float_only(x)
        axes = sorted(_norm_axes(a.get("axes", [0, 2, 3]), len(x.shape)))
        r = len(x.shape)
        mean = self.em.expand(self._mean(x, axes), axes, r)
        cen = self.ew([x, mean], x.shape, x.dtype, lambda b, a_, el: b.op("arith.subf", a_[0], a_[1], t=el))
        sq = self.ew([cen], x.shape, x.dtype, lambda b, a_, el: b.op("arith.mulf", a_[0], a_[0], t=el))
        var = self.em.expand(self._mean(sq, axes), axes, r)
        return self.ew([cen, var], x.shape, x.dtype, lambda b, a_, el: b.op("arith.divf", a_[0], b.op(
            "arith.addf", b.op("math.sqrt", a_[1], t=el), b.const(1e-9, x.dtype), t=el), t=el))  # fmt: skip

    def op_LRN(self, node, a):  # noqa: N802
        """x / (bias + alpha / size * (sum of x^2 over the channel window))^beta,
        the window from c - floor((size - 1) / 2) to c + ceil((size - 1) / 2)."""
        x = self.value(node.input[0], node)
        self.float_only(x)
        size = int(a["size"])
        alpha, beta, bias = float(a.get("alpha", 1e-4)), float(a.get("beta", 0.75)), float(a.get("bias", 1.0))
        r = len(x.shape)
        sq = self.ew([x], x.shape, x.dtype, lambda b, a_, el: b.op("arith.mulf", a_[0], a_[0], t=el))
        lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
        name = self.em.fresh()
        shape = list(x.shape)
        shape[1] += lo + hi
        padded = core.Value(name, tuple(shape), x.dtype)
        low = ["0"] * r
        high = ["0"] * r
        low[1], high[1] = str(lo), str(hi)
        el = core._elem(x.dtype)
        self.em.emit(f"{name} = tensor.pad {sq.name} low[{', '.join(low)}] high[{', '.join(high)}] {{")
        self.em.emit("^bb0(" + ", ".join(f"%p{i}: index" for i in range(r)) + "):")
        self.em.emit(f"  %pv = arith.constant 0.0 : {el}")
        self.em.emit(f"  tensor.yield %pv : {el}")
        self.em.emit(f"}} : {sq.type} to {padded.type}")
        parts = [self.slice_(padded, [0, k] + [0] * (r - 2), list(x.shape)) for k in range(size)]

        def fn(b, a_, el):
            s = a_[1]
            for p in a_[2:]:
                s = b.op("arith.addf", s, p, t=el)
            d = b.op("arith.addf", b.const(bias, x.dtype), b.op("arith.mulf", s, b.const(alpha / size, x.dtype), t=el), t=el)
            return b.op("arith.divf", a_[0], b.op("math.powf", d, b.const(beta, x.dtype), t=el), t=el)

        return self.ew([x] + parts, x.shape, x.dtype, fn)

    def op_GlobalMaxPool(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        self.float_only(x)
        axes = list(range(2, len(x.shape)))
        return self.reduce_(x, axes, "arith.maximumf", None, -math.inf, keep=True)
