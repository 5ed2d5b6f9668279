"""Op implementations over a numpy-compatible array module (numpy or cupy).

``IMPLS[name](xp, inputs, outputs, attrs)`` computes op ``name`` from the
input arrays into the preallocated output arrays (so the device's caching
allocator, not numpy's, owns every result).  ``attrs`` are already normalised
by ``tfrt.devices.ops``; shapes and dtypes were checked there, so these
functions only compute.  ``VIEWS[name](xp, x, attrs)`` returns a view for ops
that need no copy.

16-bit floats (f16, bf16) are widened to f32 for matmul, convolution,
reductions and the transcendental functions, as accelerators accumulate, and
rounded back into the output.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tfrt.devices.ops import reduction_axes, resolve_slice

Impl = Callable[[Any, list, list, dict], None]
IMPLS: dict[str, Impl] = {}
VIEWS: dict[str, Callable[[Any, Any, dict], Any]] = {}

_F32 = np.dtype(np.float32)


def _impl(name: str):
    def register(fn: Impl) -> Impl:
        IMPLS[name] = fn
        return fn

    return register


def is_half(dtype) -> bool:
    return dtype.itemsize == 2 and dtype.kind in "fV"


def _wide(x):
    return x.astype(_F32) if is_half(x.dtype) else x


def _store(xp, out, value) -> None:
    """Write ``value`` into ``out`` (rounding to out's dtype)."""
    xp.copyto(out, value, casting="unsafe")


def _ufunc_into(xp, fn, out, *args) -> None:
    """fn(*args, out=out), computed in f32 for 16-bit floats."""
    if is_half(out.dtype):
        _store(xp, out, fn(*[_wide(a) for a in args]))
    else:
        fn(*args, out=out)


# --------------------------------------------------------------------------
# elementwise


# Ops that are exactly one numpy ufunc for every dtype they accept: the
# kernel is ``ufunc(*inputs, out=out)``, and eager code may call the ufunc
# without ``out=`` (numpy's result has the op's dtype and shape).  numpy (and
# ml_dtypes for bf16) implement these natively; bool add/mul are or/and, as
# numpy's.
UFUNCS: dict[str, str] = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "maximum": "maximum",
    "minimum": "minimum",
    "less": "less",
    "less_equal": "less_equal",
    "greater": "greater",
    "greater_equal": "greater_equal",
    "equal": "equal",
    "not_equal": "not_equal",
    "neg": "negative",
    "abs": "absolute",
}
# Ops that are one ufunc for f32 and f64 inputs only (16-bit floats widen,
# integer division truncates).
FLOAT_UFUNCS: dict[str, str] = {
    "div": "divide",
    "tanh": "tanh",
    "exp": "exp",
    "log": "log",
    "sqrt": "sqrt",
    "pow": "power",
}


def _ufunc_impl(ufunc_name: str) -> Impl:
    def run(xp, ins, outs, attrs):
        getattr(xp, ufunc_name)(*ins, out=outs[0])

    return run


for _op_name, _uf in UFUNCS.items():
    IMPLS[_op_name] = _ufunc_impl(_uf)


@_impl("div")
def _div(xp, ins, outs, attrs):
    a, b = ins
    out = outs[0]
    if out.dtype.kind in "fcV":
        xp.divide(a, b, out=out)
        return
    # Integers: C's truncation toward zero (TFRT's div kernels); x / 0 gives 0.
    with np.errstate(divide="ignore", invalid="ignore"):
        q = xp.floor_divide(a, b)
        r = xp.remainder(a, b)
    if out.dtype.kind == "i":
        q = q + ((r != 0) & ((a < 0) != (b < 0)))
    _store(xp, out, q)


@_impl("relu")
def _relu(xp, ins, outs, attrs):
    (x,) = ins
    if x.dtype == np.bool_:
        xp.copyto(outs[0], x)
        return
    xp.maximum(x, xp.zeros((), dtype=x.dtype), out=outs[0])


@_impl("sigmoid")
def _sigmoid(xp, ins, outs, attrs):
    (x,) = ins
    out = outs[0]
    # 1 / (1 + exp(-x)) written to avoid overflow warnings for large |x|.
    with np.errstate(over="ignore"):
        if is_half(out.dtype):
            w = _wide(x)
            _store(xp, out, 1.0 / (1.0 + xp.exp(-w)))
            return
        xp.negative(x, out=out)
        xp.exp(out, out=out)
        out += 1
        xp.reciprocal(out, out=out)


for _op_name, _uf in (("tanh", "tanh"), ("exp", "exp"), ("log", "log"), ("sqrt", "sqrt")):

    def _make(ufn):
        def run(xp, ins, outs, attrs):
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                _ufunc_into(xp, getattr(xp, ufn), outs[0], ins[0])

        return run

    IMPLS[_op_name] = _make(_uf)


@_impl("pow")
def _pow(xp, ins, outs, attrs):
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        _ufunc_into(xp, xp.power, outs[0], ins[0], ins[1])


@_impl("where")
def _where(xp, ins, outs, attrs):
    c, x, y = ins
    _store(xp, outs[0], xp.where(c, x, y))


@_impl("check_numerics")
def _check_numerics(xp, ins, outs, attrs):
    (x,) = ins
    if not bool(xp.isfinite(_wide(x)).all()):
        from tfrt.devices.ops import OpError

        what = "NaN" if bool(xp.isnan(_wide(x)).any()) else "Inf"
        prefix = f"{attrs['message']}: " if attrs["message"] else ""
        raise OpError(f"check_numerics: {prefix}tensor had {what} values")
    xp.copyto(outs[0], x)


@_impl("rsqrt")
def _rsqrt(xp, ins, outs, attrs):
    out = outs[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        if is_half(out.dtype):
            _store(xp, out, 1.0 / xp.sqrt(_wide(ins[0])))
            return
        xp.sqrt(ins[0], out=out)
        xp.reciprocal(out, out=out)


@_impl("bias_add")
def _bias_add(xp, ins, outs, attrs):
    xp.add(ins[0], ins[1], out=outs[0])


# --------------------------------------------------------------------------
# matmul, convolution, pooling


def xp_swap(x):
    return x.swapaxes(-1, -2)


@_impl("matmul")
def _matmul(xp, ins, outs, attrs):
    a, b = ins
    if attrs["transpose_a"]:
        a = xp_swap(a)
    if attrs["transpose_b"]:
        b = xp_swap(b)
    out = outs[0]
    if is_half(out.dtype):
        _store(xp, out, xp.matmul(_wide(a), _wide(b)))
    elif out.dtype == np.bool_:
        _store(xp, out, xp.matmul(a.astype(np.int64), b.astype(np.int64)) != 0)
    else:
        xp.matmul(a, b, out=out)


def _windows(xp, x, kh, kw, sh, sw, dh, dw, pads, pad_value):
    """[N, OH, OW, KH, KW, C] strided windows over an NHWC input padded by ``pads``."""
    (pt, pb), (pl, pr) = pads
    if pt or pb or pl or pr:
        x = xp.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=pad_value)
    x = xp.ascontiguousarray(x)
    n, h, w, c = x.shape
    oh = (h - ((kh - 1) * dh + 1)) // sh + 1
    ow = (w - ((kw - 1) * dw + 1)) // sw + 1
    s0, s1, s2, s3 = x.strides
    return xp.lib.stride_tricks.as_strided(
        x, (n, oh, ow, kh, kw, c), (s0, s1 * sh, s2 * sw, s1 * dh, s2 * dw, s3)
    )


def _pads(h, w, kh, kw, sh, sw, dh, dw, padding, oh, ow):
    def one(size, k, s, d, o):
        if padding == "VALID":
            return 0, 0
        eff = (k - 1) * d + 1
        total = max((o - 1) * s + eff - size, 0)
        return total // 2, total - total // 2

    return one(h, kh, sh, dh, oh), one(w, kw, sw, dw, ow)


@_impl("conv2d")
def _conv2d(xp, ins, outs, attrs):
    x, f = ins
    out = outs[0]
    n, h, w, c = x.shape
    kh, kw, _, co = f.shape
    (sh, sw), (dh, dw) = attrs["strides"], attrs["dilations"]
    _, oh, ow, _ = out.shape
    if out.size == 0:
        return
    pads = _pads(h, w, kh, kw, sh, sw, dh, dw, attrs["padding"], oh, ow)
    xw = _wide(x) if is_half(out.dtype) else x
    fw = _wide(f) if is_half(out.dtype) else f
    if kh == 1 and kw == 1 and sh == 1 and sw == 1 and pads == ((0, 0), (0, 0)):
        patches = xw.reshape(n * h * w, c)
    else:
        win = _windows(xp, xw, kh, kw, sh, sw, dh, dw, pads, 0)
        patches = win.reshape(n * oh * ow, kh * kw * c)
    flat_f = fw.reshape(kh * kw * c, co)
    target = out.reshape(n * oh * ow, co)
    if is_half(out.dtype) or out.dtype == np.bool_:
        _store(xp, target, xp.matmul(patches, flat_f))
    else:
        xp.matmul(patches, flat_f, out=target)


def _lowest(dtype):
    if dtype.kind == "f" or is_half(dtype):
        return -np.inf
    if dtype == np.bool_:
        return False
    return np.iinfo(dtype).min


@_impl("max_pool")
def _max_pool(xp, ins, outs, attrs):
    (x,) = ins
    out = outs[0]
    if out.size == 0:
        return
    n, h, w, c = x.shape
    (kh, kw), (sh, sw) = attrs["ksize"], attrs["strides"]
    _, oh, ow, _ = out.shape
    pads = _pads(h, w, kh, kw, sh, sw, 1, 1, attrs["padding"], oh, ow)
    win = _windows(xp, x, kh, kw, sh, sw, 1, 1, pads, _lowest(x.dtype))
    xp.max(win, axis=(3, 4), out=out)


@_impl("avg_pool")
def _avg_pool(xp, ins, outs, attrs):
    (x,) = ins
    out = outs[0]
    if out.size == 0:
        return
    n, h, w, c = x.shape
    (kh, kw), (sh, sw) = attrs["ksize"], attrs["strides"]
    _, oh, ow, _ = out.shape
    pads = _pads(h, w, kh, kw, sh, sw, 1, 1, attrs["padding"], oh, ow)
    win = _windows(xp, _wide(x), kh, kw, sh, sw, 1, 1, pads, 0)
    total = win.sum(axis=(3, 4), dtype=_F32 if is_half(x.dtype) else x.dtype)
    ones = xp.ones((1, h, w, 1), dtype=_F32)
    counts = _windows(xp, ones, kh, kw, sh, sw, 1, 1, pads, 0).sum(axis=(3, 4))
    _store(xp, out, total / counts)


@_impl("batch_norm")
def _batch_norm(xp, ins, outs, attrs):
    x, scale, offset, mean, var = ins
    out = outs[0]
    eps = attrs["epsilon"]
    inv = _wide(scale) / xp.sqrt(_wide(var) + eps)
    if is_half(out.dtype):
        _store(xp, out, (_wide(x) - _wide(mean)) * inv + _wide(offset))
        return
    xp.subtract(x, mean, out=out)
    out *= inv.astype(out.dtype, copy=False)
    out += offset


@_impl("softmax")
def _softmax(xp, ins, outs, attrs):
    (x,) = ins
    out = outs[0]
    axis = attrs["axis"]
    if out.size == 0:
        return
    if is_half(out.dtype):
        w = _wide(x)
        e = xp.exp(w - w.max(axis=axis, keepdims=True))
        _store(xp, out, e / e.sum(axis=axis, keepdims=True))
        return
    xp.subtract(x, x.max(axis=axis, keepdims=True), out=out)
    xp.exp(out, out=out)
    out /= out.sum(axis=axis, keepdims=True)


# --------------------------------------------------------------------------
# reductions


def _reduce(method: str) -> Impl:
    def run(xp, ins, outs, attrs):
        (x,) = ins
        out = outs[0]
        keep = attrs["keepdims"]
        if x.dtype.kind in "fc" and not is_half(x.dtype) and (x.size or method in ("sum", "mean")):
            # The metadata function has checked the axes (None: every axis).
            ax = attrs["axes"]
            axis = None if not ax else ax[0] if len(ax) == 1 else tuple(ax)
            getattr(x, method)(axis=axis, keepdims=keep, out=out)
            return
        axes = reduction_axes(method, attrs["axes"], x.ndim)
        src = _wide(x) if is_half(x.dtype) else x
        if method in ("max", "min"):
            if not x.size:
                res = src.sum(axis=axes, keepdims=keep)
            else:
                res = getattr(src, method)(axis=axes, keepdims=keep)
        elif method == "sum":
            res = src.sum(axis=axes, keepdims=keep, dtype=src.dtype if x.dtype != np.bool_ else np.int64)
        elif x.dtype == np.bool_:
            res = src.mean(axis=axes, keepdims=keep, dtype=np.float64)  # a fraction, as numpy's
        else:
            if x.dtype.kind in "iu":
                # Integer mean truncates toward zero, like TF's integer Mean.
                count = 1
                for a in axes:
                    count *= x.shape[a]
                s = src.sum(axis=axes, keepdims=keep, dtype=np.int64)
                res = xp.trunc(s / max(count, 1))
            else:
                with np.errstate(invalid="ignore", divide="ignore"):
                    res = src.mean(axis=axes, keepdims=keep)
        _store(xp, out, res)

    return run


IMPLS["reduce_sum"] = _reduce("sum")
IMPLS["reduce_mean"] = _reduce("mean")
IMPLS["reduce_max"] = _reduce("max")
IMPLS["reduce_min"] = _reduce("min")


@_impl("argmax")
def _argmax(xp, ins, outs, attrs):
    (x,) = ins
    src = _wide(x) if is_half(x.dtype) else x
    _store(xp, outs[0], xp.argmax(src, axis=attrs["axis"]))


# --------------------------------------------------------------------------
# shape ops


def _reshape_view(xp, x, attrs):
    from tfrt.devices.ops import resolve_reshape
    from tfrt.tensor.shape import TensorShape

    return x.reshape(resolve_reshape("reshape", TensorShape(x.shape), attrs["shape"]))


VIEWS["reshape"] = _reshape_view


@_impl("reshape")
def _reshape(xp, ins, outs, attrs):
    xp.copyto(outs[0], ins[0].reshape(outs[0].shape))


@_impl("transpose")
def _transpose(xp, ins, outs, attrs):
    xp.copyto(outs[0], ins[0].transpose(attrs["perm"]))


@_impl("broadcast_to")
def _broadcast_to(xp, ins, outs, attrs):
    xp.copyto(outs[0], xp.broadcast_to(ins[0], outs[0].shape))


@_impl("concat")
def _concat(xp, ins, outs, attrs):
    xp.concatenate(ins, axis=attrs["axis"], out=outs[0])


@_impl("slice")
def _slice(xp, ins, outs, attrs):
    from tfrt.tensor.shape import TensorShape

    (x,) = ins
    bounds = resolve_slice("slice", TensorShape(x.shape), attrs["begin"], attrs["size"])
    xp.copyto(outs[0], x[tuple(slice(b, e) for b, e in bounds)])


@_impl("strided_slice")
def _strided_slice(xp, ins, outs, attrs):
    index = tuple(slice(b, e, s) for b, e, s in zip(attrs["begin"], attrs["end"], attrs["strides"]))
    xp.copyto(outs[0], ins[0][index])


@_impl("pad")
def _pad(xp, ins, outs, attrs):
    (x,) = ins
    out = outs[0]
    pads = attrs["paddings"]
    out[...] = 0
    inner = tuple(slice(pads[2 * i], pads[2 * i] + d) for i, d in enumerate(x.shape))
    out[inner] = x


@_impl("cast")
def _cast(xp, ins, outs, attrs):
    (x,) = ins
    out = outs[0]
    if x.dtype.kind in "fcV" and out.dtype.kind in "iu":
        # C-style truncation; NaN/inf have no integer value (0, as on most hardware paths).
        with np.errstate(invalid="ignore"):
            src = xp.trunc(_wide(x).real if x.dtype.kind == "c" else _wide(x))
            src = xp.where(xp.isfinite(src), src, 0)
        _store(xp, out, src)
        return
    if x.dtype.kind == "c" and out.dtype.kind != "c":
        _store(xp, out, x.real)
        return
    _store(xp, out, x)


@_impl("copy")
def _copy(xp, ins, outs, attrs):
    xp.copyto(outs[0], ins[0])
