"""Kernels of the `tfrt_array` dialect (``dialects/tfrt_array.py``): numpy, or cupy on a GPU.

Values are arrays (``numpy.ndarray``; ``cupy.ndarray`` when the operands live
on a GPU: each kernel works on the module its first array operand comes
from).  Attributes arrive first, in name order, as BEF decodes them (integer
lists as read-only int64 arrays).  Results are fresh arrays or read-only
views (``transpose``, ``reshape``, ``broadcast``, ``extract_slice``,
``constant``); nothing writes into an operand unless the op's ``inplace``
attribute names it, which only ``reuse-buffers`` sets, for an operand whose
last use the op is and whose buffer the program owns.  CuPy arrays are never
read-only: on a GPU a kernel writes only into an array that owns its memory
and is not the device copy of a constant (:func:`_owned`).

The CuPy names used here are listed, with their signatures, in
``tfrt.kernels.cupy_names``.
"""

from __future__ import annotations

import math
import threading
import weakref
from typing import Any

import numpy as np

from tfrt.kernels.array_pool import host_pool
from tfrt.kernels.expr import DTYPES, compile_array
from tfrt.kernels.registry import KernelError, kernel

_I64S = "i64[]"


def _xp(x: Any) -> Any:
    """The array module of ``x`` (numpy unless it is a cupy array).

    The device paths run without a GPU on the CuPy stand-in of
    tests/compiler/cupy_standin.py."""
    if type(x) is np.ndarray or not hasattr(x, "__cuda_array_interface__"):
        return np
    import cupy

    return cupy


def _tensor(x: Any, xp: Any = np) -> Any:
    # Rank-0 results of numpy reductions and indexing are scalars.
    return x if isinstance(x, xp.ndarray) else xp.asarray(x)


_COMPILED: dict[tuple, Any] = {}


def _compiled(expr: str, types: str, xp: Any, inplace: int) -> Any:
    key = (expr, types, xp, inplace)
    fn = _COMPILED.get(key)
    if fn is None:
        from tfrt.kernels.expr import _typed_tree

        operand_types = tuple(t for t in types.split(",") if t)
        if xp is np:
            fn = compile_array(expr, operand_types, xp, inplace)
        else:
            # One generated cupy.ElementwiseKernel for the whole expression.
            from tfrt.kernels.expr_cuda import compile_cupy

            fn = compile_cupy(expr, operand_types, xp)
        fn.out_dtype = _typed_tree(expr, operand_types).dtype
        _COMPILED[key] = fn
    return fn


# Device arrays kernels must not write into: copies of read-only host arrays
# (BEF constants), by id, each with a weak reference that removes it.
_READ_ONLY: dict[int, Any] = {}


def _mark_read_only(x: Any) -> None:
    key = id(x)
    _READ_ONLY[key] = weakref.ref(x, lambda _, key=key: _READ_ONLY.pop(key, None))


def _owned(x: Any) -> bool:
    """Whether a kernel may write into ``x``.

    A numpy array: when it is writeable (not a BEF constant, a broadcast or a
    window view).  CuPy has no read-only arrays (its ``flags`` are
    ``c_contiguous``, ``f_contiguous``, ``owndata``): a device array when it
    owns its memory (a view's memory is another value's) and is not the
    device copy of a read-only host array."""
    if type(x) is np.ndarray:
        return x.flags.writeable
    if not hasattr(x, "__cuda_array_interface__"):
        return False
    if not x.flags.owndata:
        return False
    ref = _READ_ONLY.get(id(x))
    return ref is None or ref() is not x


def _writable(x: Any, shape: Any, dtype: Any) -> bool:
    return (
        getattr(x, "flags", None) is not None
        and _owned(x)
        and x.flags.c_contiguous
        and x.dtype == dtype
        and x.shape == tuple(shape)
    )


def _on_gpu(values: tuple) -> bool:
    for x in values:
        if type(x) is not np.ndarray and hasattr(x, "__cuda_array_interface__"):
            return True
    return False


def _poolable(shape: tuple[int, ...], itemsize: int) -> bool:
    """Whether arrays of ``shape`` are large enough for the array pool."""
    count = 1
    for d in shape:
        count *= d
    return count * itemsize >= host_pool.min_bytes


def _allocator(shape: tuple[int, ...], dtype: Any) -> Any:
    """``numpy.empty``, or the array pool's when ``shape`` is large enough to pool."""
    return host_pool.empty if _poolable(shape, np.dtype(dtype).itemsize) else np.empty


@kernel("tfrt_array.elementwise", attrs=("str", "i64", _I64S, "str"), bind=True)
def elementwise(expr, inplace, shape, types):
    """Evaluates ``expr`` over the operands (broadcast to ``shape``).

    Bound once per kernel: the expression is compiled and the output buffer
    chosen when the program is planned."""
    shape = tuple(int(d) for d in shape)
    inplace = int(inplace)
    fn = _compiled(expr, types, np, inplace)
    out_dtype = fn.out_dtype
    reuse = inplace if inplace >= 0 and fn.inplace_safe else -1
    empty = _allocator(shape, out_dtype)

    def run(*inputs):
        if _on_gpu(inputs):
            return _elementwise_device(expr, inplace, shape, types, inputs)
        if reuse >= 0 and _writable(inputs[reuse], shape, out_dtype):
            return fn(inputs[reuse], *inputs)
        return fn(empty(shape, out_dtype), *inputs)

    return run


def _elementwise_device(expr, inplace, shape, types, inputs):
    xp = next(_xp(x) for x in inputs if _on_gpu((x,)))
    fn = _compiled(expr, types, xp, inplace)
    if inplace >= 0 and fn.inplace_safe and _writable(inputs[inplace], shape, fn.out_dtype):
        return fn(inputs[inplace], *inputs)
    return fn(xp.empty(shape, fn.out_dtype), *inputs)


def _epilogue(product, epilogue, types, extras, xp):
    if not epilogue:
        return product
    fn = _compiled(epilogue, types, xp, 0)
    if fn.inplace_safe and product.dtype == fn.out_dtype and _owned(product):
        return fn(product, product, *extras)
    return fn(xp.empty(product.shape, fn.out_dtype), product, *extras)


def _bind_epilogue(epilogue: str, types: str) -> tuple[Any, Any]:
    """``(fn, dtype)``: the compiled host epilogue, which may run in place,
    ``fn(product, product, *extras)``, on a fresh product of dtype ``dtype``.
    ``fn`` is None without an epilogue or when it cannot run in place; any
    such product goes through ``_epilogue``."""
    if not epilogue:
        return None, None
    fn = _compiled(epilogue, types, np, 0)
    return (fn if fn.inplace_safe else None), fn.out_dtype


def _apply_epilogue(product, ep, ep_dtype, epilogue, types, extras):
    """The bound epilogue ``(ep, ep_dtype)`` of ``_bind_epilogue`` over a fresh product."""
    if ep is not None and product.dtype == ep_dtype:
        return ep(product, product, *extras)
    return _epilogue(product, epilogue, types, extras, np)


@kernel("tfrt_array.matmul", attrs=("str", _I64S, "i1", "i1", "str"), bind=True)
def matmul(epilogue, shape, transpose_a, transpose_b, types):
    """``a @ b`` (batched; ``b`` may be a vector), then the epilogue."""
    shape = tuple(int(d) for d in shape)
    pooled = _poolable(shape, 4)  # the result's dtype is known per call; most are 4 bytes
    ep, ep_dtype = _bind_epilogue(epilogue, types)

    def run(a, b, *extras):
        if type(a) is not np.ndarray or type(b) is not np.ndarray:
            return _matmul_any(epilogue, shape, transpose_a, transpose_b, types, a, b, extras)
        if transpose_a:
            a = a.swapaxes(-1, -2)
        if transpose_b:
            b = b.swapaxes(-1, -2)
        # For matrices numpy.dot is numpy.matmul with less dispatch overhead.
        mul = np.dot if a.ndim == 2 and b.ndim == 2 else np.matmul
        if pooled:
            product = mul(a, b, out=host_pool.empty(shape, np.result_type(a, b)))
        else:
            product = mul(a, b)
        # _apply_epilogue, inlined: one Python call less per matmul.
        if ep is not None and product.dtype == ep_dtype:
            return ep(product, product, *extras)
        return _epilogue(product, epilogue, types, extras, np)

    return run


def _matmul_any(epilogue, shape, transpose_a, transpose_b, types, a, b, extras):
    """matmul on scalars, array-likes and device arrays."""
    xp = _xp(a)
    if transpose_a:
        a = xp.swapaxes(a, -1, -2)
    if transpose_b:
        b = xp.swapaxes(b, -1, -2)
    return _epilogue(_tensor(_matmul_on(xp, a, b), xp), epilogue, types, extras, xp)


def _matmul_on(xp, a, b, out=None):
    """``xp.matmul(a, b, out=out)``; on a GPU through cuBLAS's own API where it
    can (tfrt.kernels.cublas: CuPy's matmul cannot be captured in a CUDA graph)."""
    if xp is not np and hasattr(a, "__cuda_array_interface__") and hasattr(b, "__cuda_array_interface__"):
        from tfrt.kernels import cublas

        product = cublas.matmul(xp, a, b, out)
        if product is not None:
            return product
    return xp.matmul(a, b) if out is None else xp.matmul(a, b, out=out)


def _windows(x, xp, kh, kw, strides, dilations, oh, ow):
    """(N, OH, OW, KH, KW, C) strided view of NHWC ``x`` (already padded).

    Read-only on the host; CuPy's ``as_strided`` takes no ``writeable`` (its
    views are all writable): the device window is only read."""
    n, _, _, c = x.shape
    sn, sh, sw, sc = x.strides
    shape = (n, oh, ow, kh, kw, c)
    strides = (sn, sh * strides[0], sw * strides[1], sh * dilations[0], sw * dilations[1], sc)
    if xp is np:
        return np.lib.stride_tricks.as_strided(x, shape=shape, strides=strides, writeable=False)
    return xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def _pad_nhwc(x, padding, xp, value=0):
    top, bottom, left, right = (int(p) for p in padding)
    if not (top or bottom or left or right):
        return x
    n, h, w, c = x.shape
    shape = (n, h + top + bottom, w + left + right, c)
    if xp is not np:
        out = xp.full(shape, value, x.dtype)
    else:
        # A reused buffer: only the border is filled, the interior is copied.
        out = host_pool.empty(shape, x.dtype)
        out[:, :top] = value
        out[:, top + h :] = value
        out[:, top : top + h, :left] = value
        out[:, top : top + h, left + w :] = value
    out[:, top : top + h, left : left + w, :] = x
    return out


def _tap_ranges(size, out_size, k, stride, dilation, before):
    """Per filter tap along one axis: (first output, end output, first input).

    Output ``o`` reads input ``o * stride + tap * dilation - before``; the
    range is where that falls inside ``[0, size)`` (possibly empty)."""
    ranges = []
    for t in range(k):
        shift = t * dilation - before
        lo = max(0, -(shift // stride)) if shift < 0 else 0
        hi = min(out_size, (size - 1 - shift) // stride + 1) if size - 1 - shift >= 0 else 0
        ranges.append((lo, max(lo, hi), lo * stride + shift))
    return ranges


def _tap_views(x, out_shape, window, strides, dilations, padding):
    """For each (i, j) filter tap: the output window it covers and the input it reads.

    Yields ``(i, j, (oy0, oy1, ox0, ox1), view)`` where ``view`` is the part
    of unpadded NHWC ``x`` that lands on outputs ``[oy0, oy1) x [ox0, ox1)``;
    outputs outside that range read padding (``view`` is None when all do)."""
    _, h, w, _ = x.shape
    _, oh, ow, _ = out_shape
    sh, sw = int(strides[0]), int(strides[1])
    rows = _tap_ranges(h, oh, int(window[0]), sh, int(dilations[0]), int(padding[0]))
    cols = _tap_ranges(w, ow, int(window[1]), sw, int(dilations[1]), int(padding[2]))
    for i, (oy0, oy1, iy) in enumerate(rows):
        for j, (ox0, ox1, ix) in enumerate(cols):
            if oy1 > oy0 and ox1 > ox0:
                view = x[:, iy : iy + (oy1 - oy0 - 1) * sh + 1 : sh, ix : ix + (ox1 - ox0 - 1) * sw + 1 : sw, :]
            else:
                view = None  # every output this tap reaches reads padding
            yield i, j, (oy0, oy1, ox0, ox1), view


def _im2col(x, w_shape, out_shape, strides, dilations, padding):
    """The (N*OH*OW, KH*KW*C) im2col matrix of NHWC ``x``, in a pooled buffer.

    The padded input's windows are copied as one strided array: each source
    run is a whole filter row (KW*C contiguous elements), and the destination
    is written in order.  (Copying tap by tap straight from the unpadded input
    skips the padding copy but writes C-element runs, and is slower.)"""
    kh, kw, c, _ = w_shape
    n, oh, ow, _ = out_shape
    cols = host_pool.empty((n, oh, ow, kh, kw, c), x.dtype)
    np.copyto(cols, _windows(_pad_nhwc(x, padding, np), np, kh, kw, strides, dilations, oh, ow))
    return cols.reshape(n * oh * ow, kh * kw * c)


@kernel("tfrt_array.conv2d", attrs=(_I64S, "str", "i64", _I64S, _I64S, _I64S, "str"), bind=True)
def conv2d(dilations, epilogue, groups, padding, shape, strides, types):
    """NHWC x HWCF convolution (grouped when ``groups`` > 1), then the epilogue.

    Ungrouped convolutions are one GEMM: a 1x1 convolution multiplies the
    (strided) input itself, any other gathers its windows into an im2col
    matrix first.  On the host the im2col matrix and the result come from
    the array pool."""
    dilations = tuple(int(d) for d in dilations)
    padding = tuple(int(p) for p in padding)
    strides = tuple(int(s) for s in strides)
    groups = int(groups)
    n, oh, ow, f = (int(d) for d in shape)
    ep, ep_dtype = _bind_epilogue(epilogue, types)

    def run(x, w, *extras):
        if type(x) is not np.ndarray or groups != 1:
            return _conv2d_any(dilations, epilogue, groups, padding, (n, oh, ow, f), strides, types, x, w, extras)
        kh, kw, cg, _ = w.shape
        if kh == kw == 1 and not any(padding):
            (_, _, _, tap), = _tap_views(x, (n, oh, ow, f), (1, 1), strides, dilations, padding)
            if not tap.flags.c_contiguous:
                dense = host_pool.empty(tap.shape, x.dtype)
                np.copyto(dense, tap)
                tap = dense
            cols = tap.reshape(n * oh * ow, cg)
        else:
            cols = _im2col(x, w.shape, (n, oh, ow, f), strides, dilations, padding)
        out = host_pool.empty((n * oh * ow, f), np.result_type(x.dtype, w.dtype))
        prod = np.matmul(cols, w.reshape(kh * kw * cg, f), out=out).reshape(n, oh, ow, f)
        return _apply_epilogue(prod, ep, ep_dtype, epilogue, types, extras)

    return run


def _conv2d_any(dilations, epilogue, groups, padding, shape, strides, types, x, w, extras):
    """conv2d for grouped convolutions and device arrays."""
    xp = _xp(x)
    kh, kw, cg, f = w.shape
    n, oh, ow, _ = shape
    x = _pad_nhwc(x, padding, xp)
    cols = _windows(x, xp, kh, kw, strides, dilations, oh, ow)
    if groups == 1:
        # Into an array of the result's shape: on a GPU the result then owns
        # its memory, and the epilogue (and later kernels) may write into it.
        prod = xp.empty((n, oh, ow, f), np.result_type(x.dtype, w.dtype))
        _matmul_on(xp, cols.reshape(n * oh * ow, kh * kw * cg), w.reshape(kh * kw * cg, f),
                   out=prod.reshape(n * oh * ow, f))  # fmt: skip
    else:
        fg = f // groups
        cols = cols.reshape(n, oh, ow, kh, kw, groups, cg)
        wg = w.reshape(kh, kw, cg, groups, fg)
        prod = xp.einsum("nhwijgc,ijcgf->nhwgf", cols, wg, optimize=True).reshape(n, oh, ow, f)
    return _epilogue(xp.ascontiguousarray(prod), epilogue, types, extras, xp)


_POOL_TAPS = 16  # pooling windows up to this many taps combine shifted views


def _pool_fill(kind, dtype):
    """The value padding contributes to a ``kind`` pooling window."""
    if kind == "max":
        return -np.inf if dtype.kind == "f" else (False if dtype == np.bool_ else np.iinfo(dtype).min)
    if kind == "min":
        return np.inf if dtype.kind == "f" else (True if dtype == np.bool_ else np.iinfo(dtype).max)
    return 0


@kernel("tfrt_array.pool2d", attrs=(_I64S, "str", _I64S, _I64S, _I64S, _I64S), bind=True)
def pool2d(dilations, kind, padding, shape, strides, window):
    """Max, min, sum or average pooling of NHWC ``x``."""
    if kind not in ("max", "min", "sum", "avg"):
        raise KernelError(f"tfrt_array.pool2d: unknown kind '{kind}' (max, min, sum, avg)")
    dilations = tuple(int(d) for d in dilations)
    padding = tuple(int(p) for p in padding)
    shape = tuple(int(d) for d in shape)
    strides = tuple(int(s) for s in strides)
    window = tuple(int(k) for k in window)
    combine = {"max": np.maximum, "min": np.minimum}.get(kind, np.add)
    taps = window[0] * window[1]

    def run(x):
        xp = _xp(x)
        fill = _pool_fill(kind, x.dtype)
        if xp is not np or taps > _POOL_TAPS:
            return _pool2d_any(dilations, kind, padding, shape, strides, window, x, fill, xp)
        # One binary ufunc per tap over its valid window of the unpadded input:
        # a reduction over strided window axes is several times slower.
        total = host_pool.empty(shape, x.dtype)
        total.fill(fill)
        for _, _, (oy0, oy1, ox0, ox1), view in _tap_views(x, shape, window, strides, dilations, padding):
            if view is not None:
                part = total[:, oy0:oy1, ox0:ox1]
                combine(part, view, out=part)
        if kind != "avg":
            return total
        if x.dtype.kind in "fc":
            return np.true_divide(total, taps, out=total)
        return (total / taps).astype(x.dtype)

    return run


def _pool2d_any(dilations, kind, padding, shape, strides, window, x, fill, xp):
    """pool2d over large windows and on device arrays: a reduction of the windows."""
    _, oh, ow, _ = shape
    kh, kw = window
    cols = _windows(_pad_nhwc(x, padding, xp, fill), xp, kh, kw, strides, dilations, oh, ow)
    if kind == "max":
        return xp.max(cols, axis=(3, 4))
    if kind == "min":
        return xp.min(cols, axis=(3, 4))
    total = xp.sum(cols, axis=(3, 4), dtype=x.dtype)
    if kind == "sum":
        return total
    return (total / (kh * kw)).astype(x.dtype)


_REDUCERS = {
    "sum": lambda xp, x, ax, kd: xp.sum(x, axis=ax, keepdims=kd, dtype=x.dtype),
    "prod": lambda xp, x, ax, kd: xp.prod(x, axis=ax, keepdims=kd, dtype=x.dtype),
    "max": lambda xp, x, ax, kd: xp.max(x, axis=ax, keepdims=kd),
    "min": lambda xp, x, ax, kd: xp.min(x, axis=ax, keepdims=kd),
    "maxnum": lambda xp, x, ax, kd: xp.fmax.reduce(x, axis=ax, keepdims=kd),
    "minnum": lambda xp, x, ax, kd: xp.fmin.reduce(x, axis=ax, keepdims=kd),
    "and": lambda xp, x, ax, kd: xp.bitwise_and.reduce(x, axis=ax, keepdims=kd),
    "or": lambda xp, x, ax, kd: xp.bitwise_or.reduce(x, axis=ax, keepdims=kd),
    "xor": lambda xp, x, ax, kd: xp.bitwise_xor.reduce(x, axis=ax, keepdims=kd),
}

# CuPy's ufunc.reduce exists for add and multiply only: on a GPU these kinds
# are a cupy.ReductionKernel each.  kind -> (REDUCE(a, b), identity).
_DEVICE_REDUCTIONS = {
    # CUDA's fmax/fmin return the operand that is not NaN; NaN is their identity.
    "maxnum": ("fmax(a, b)", None),
    "minnum": ("fmin(a, b)", None),
    "and": ("a & b", "~0"),
    "or": ("a | b", "0"),
    "xor": ("a ^ b", "0"),
}


def _device_reduce(kind, xp, x, ax, kd):
    dt = np.dtype(x.dtype)
    if kind in ("maxnum", "minnum") and dt.kind != "f":
        return (xp.max if kind == "maxnum" else xp.min)(x, axis=ax, keepdims=kd)  # no NaN to skip
    if kind in ("and", "or", "xor") and dt.kind not in "biu":
        raise KernelError(f"tfrt_array.reduce: '{kind}' of a {dt} tensor (integers and i1 only)")
    key = ("reduce", kind, dt.str, xp)
    fn = _COMPILED.get(key)
    if fn is None:
        expr, identity = _DEVICE_REDUCTIONS[kind]
        param = "float16" if dt == np.float16 else dt.name
        post = "y = (float16)(a)" if dt == np.float16 else "y = a"
        reduce_type = None
        if dt.kind == "f":
            reduce_type = "double" if dt == np.float64 else "float"
            identity = "CUDART_NAN" if dt == np.float64 else "CUDART_NAN_F"
        fn = xp.ReductionKernel(f"{param} x", f"{param} y", "x", expr, post, identity,
                                f"tfrt_reduce_{kind}_{dt.name}", reduce_type=reduce_type)  # fmt: skip
        _COMPILED[key] = fn
    return fn(x, axis=ax, keepdims=kd)


@kernel("tfrt_array.reduce", attrs=(_I64S, "i1", "str"))
def reduce(axes, keepdims, kind, x):
    """Reduces ``x`` over ``axes`` with ``kind``.

    An i1 sum wraps as ``arith.addi`` on i1 does: it is the exclusive or
    (numpy's sum of booleans is their or)."""
    if kind == "sum" and x.dtype == np.bool_:
        kind = "xor"
    fn = _REDUCERS.get(kind)
    if fn is None:
        raise KernelError(f"tfrt_array.reduce: unknown kind '{kind}' (expected one of: {', '.join(_REDUCERS)})")
    xp = _xp(x)
    ax = tuple(int(a) for a in axes)
    if x.size == 0 and kind in ("max", "min", "maxnum", "minnum"):
        raise KernelError(f"tfrt_array.reduce: '{kind}' of an empty tensor")
    if xp is not np and kind in _DEVICE_REDUCTIONS:
        return _tensor(_device_reduce(kind, xp, x, ax, bool(keepdims)), xp)
    r = fn(xp, x, ax, bool(keepdims))
    if kind in ("max", "min"):
        r = signed_zero_extremum(kind, xp, x, r, ax, bool(keepdims))
    return _tensor(r, xp)


def _is_float(dtype) -> bool:
    return np.dtype(dtype).kind == "f" or "float" in np.dtype(dtype).name


def signed_zero_extremum(kind, xp, x, r, axes, keepdims):
    """``r``, numpy's max/min of ``x`` over ``axes``, with the sign of a zero
    result as ``arith.maximumf``/``minimumf`` define it (-0.0 < +0.0; numpy
    returns whichever zero it met first)."""
    if not _is_float(x.dtype):
        return r
    zero = xp.asarray(r) == 0
    if not bool(xp.any(zero)):
        return r
    z = x == 0
    neg = xp.signbit(x.astype(np.float32) if x.dtype.kind != "f" else x)
    if kind == "min":
        flag = xp.any(z & neg, axis=axes, keepdims=keepdims)
        fix = xp.asarray(-0.0).astype(x.dtype)
    else:
        flag = xp.any(z & ~neg, axis=axes, keepdims=keepdims)
        fix = xp.asarray(0.0).astype(x.dtype)
    return xp.where(zero & flag, fix, r).astype(x.dtype)


@kernel("tfrt_array.einsum", attrs=(_I64S, "str"))
def einsum(shape, spec, *inputs):
    xp = _xp(inputs[0])
    # numpy's einsum without a path runs its own loops; with one (a few tens
    # of microseconds to plan) it contracts through BLAS, which pays off on
    # large operands.
    optimize = len(inputs) > 2 or sum(getattr(x, "size", 1) for x in inputs) > 65536
    return _tensor(xp.einsum(spec, *inputs, optimize=optimize), xp)


@kernel("tfrt_array.transpose", attrs=(_I64S,))
def transpose(perm, x):
    return _xp(x).transpose(x, tuple(int(p) for p in perm))


@kernel("tfrt_array.reshape", attrs=(_I64S,))
def reshape(shape, x):
    return _xp(x).reshape(x, tuple(int(d) for d in shape))


@kernel("tfrt_array.broadcast", attrs=(_I64S, _I64S))
def broadcast(shape, source_shape, x):
    xp = _xp(x)
    x = _tensor(x, xp)
    return xp.broadcast_to(x.reshape(tuple(int(d) for d in source_shape)), tuple(int(d) for d in shape))


@kernel("tfrt_array.iota", attrs=("i64", _I64S))
def iota(dim, shape):
    shape = tuple(int(d) for d in shape)
    view = [1] * len(shape)
    view[dim] = shape[dim]
    return np.broadcast_to(np.arange(shape[dim], dtype=np.int64).reshape(view), shape)


def _slices(offsets, sizes, strides):
    return tuple(
        slice(int(o), int(o) + (int(n) - 1) * int(s) + 1, int(s)) if int(n) > 0 else slice(0, 0)
        for o, n, s in zip(offsets, sizes, strides)
    )


@kernel("tfrt_array.extract_slice", attrs=(_I64S, _I64S, _I64S, _I64S))
def extract_slice(offsets, shape, sizes, strides, x):
    return x[_slices(offsets, sizes, strides)].reshape(tuple(int(d) for d in shape))


@kernel("tfrt_array.insert_slice", attrs=("i64", _I64S, _I64S, _I64S))
def insert_slice(inplace, offsets, sizes, strides, source, dest):
    xp = _xp(dest)
    out = dest if inplace == 1 and _writable(dest, dest.shape, dest.dtype) else xp.array(dest, copy=True)
    out[_slices(offsets, sizes, strides)] = xp.reshape(source, tuple(int(n) for n in sizes))
    return out


@kernel("tfrt_array.pad", attrs=(_I64S, _I64S))
def pad(high, low, x, value):
    xp = _xp(x)
    shape = tuple(int(d) + int(lo) + int(hi) for d, lo, hi in zip(x.shape, low, high))
    out = xp.full(shape, value, dtype=x.dtype)
    out[tuple(slice(int(lo), int(lo) + d) for lo, d in zip(low, x.shape))] = x
    return out


@kernel("tfrt_array.concat", attrs=("i64",))
def concat(axis, *inputs):
    return _xp(inputs[0]).concatenate(inputs, axis=axis)


def _element_index(name: str, x, indices) -> tuple[int, ...]:
    """The indices as ints, each within its dimension: numpy would count a
    negative one from the end (MLIR leaves it undefined; it is an error here)."""
    index = tuple(int(i) for i in indices)
    if len(index) != x.ndim:
        raise KernelError(f"{name}: {len(index)} indices for a rank-{x.ndim} tensor")
    for axis, (i, size) in enumerate(zip(index, x.shape)):
        if not 0 <= i < size:
            raise KernelError(f"{name}: index {i} is out of bounds for axis {axis} with size {size}")
    return index


@kernel("tfrt_array.extract")
def extract(x, *indices):
    v = x[_element_index("tfrt_array.extract", x, indices)]
    if _on_gpu((v,)):
        return v.get()[()]  # scalars live on the host: a 0-d device array, copied back
    return v


@kernel("tfrt_array.insert")
def insert(value, dest, *indices):
    index = _element_index("tfrt_array.insert", dest, indices)
    out = _xp(dest).array(dest, copy=True)
    out[index] = value
    return out


@kernel("tfrt_array.from_elements", attrs=("str", _I64S))
def from_elements(dtype, shape, *elements):
    return np.array(elements, dtype=DTYPES[dtype]).reshape(tuple(int(d) for d in shape))


@kernel("tfrt_array.gather", attrs=("i64",))
def gather(axis, x, indices):
    xp = _xp(x)
    if xp is not np:
        # CuPy's take wraps an index that is out of range (it has no mode):
        # the indices are checked first, which waits for the device.
        ax = int(axis) % x.ndim if x.ndim else 0
        size = x.shape[ax] if x.ndim else 1
        bad = (indices < -size) | (indices >= size)
        # An empty result reads nothing, and numpy checks nothing then either.
        rest = math.prod(d for i, d in enumerate(x.shape) if i != ax)
        if rest * indices.size and bool(_xp(indices).any(bad)):
            first = int(indices[bad].reshape(-1)[0])
            raise KernelError(f"tfrt_array.gather: index {first} is out of bounds for axis {axis} with size {size}")
    try:
        return xp.take(x, indices, axis=axis)
    except IndexError as exc:
        raise KernelError(f"tfrt_array.gather: {exc}") from None


@kernel("tfrt_array.constant", attrs=("dense",))
def constant(value):
    """The dense attribute as a read-only array over the BEF bytes."""
    return value


# ``CAPTURING.on`` is true in a thread while it captures a CUDA graph
# (tfrt.kernels.tfrt_array_gpu): kernels refuse what a graph cannot replay.
CAPTURING = threading.local()


@kernel("tfrt_array.to_device", attrs=("str",))
def to_device(device, x):
    """``x`` on ``device``: ``cpu`` (numpy) or ``gpu[:N]`` (cupy)."""
    kind, _, index = device.partition(":")
    if kind == "cpu":
        return to_host(x)
    try:
        import cupy
    except ImportError:
        raise KernelError(f"tfrt_array.to_device: device '{device}' needs cupy (pip install 'tfrt-py[gpu]')") from None
    ordinal = int(index or 0)
    if getattr(CAPTURING, "on", False) and not isinstance(x, cupy.ndarray):
        # CuPy stages the bytes in a pinned buffer that goes back to its pool:
        # a graph replaying the copy would read whatever is there by then.
        raise KernelError("tfrt_array.to_device: a host-to-device copy cannot be captured in a CUDA graph")
    with cupy.cuda.Device(ordinal):
        if isinstance(x, cupy.ndarray):
            # cupy.asarray returns an array of another GPU as it is; copy() copies it here.
            return x if x.device.id == ordinal else x.copy()
        out = cupy.asarray(x)
    if isinstance(x, np.ndarray) and not x.flags.writeable:
        _mark_read_only(out)  # a constant stays one on the device
    return out


@kernel("tfrt_array.to_host")
def to_host(x):
    """``x`` as a numpy array (a copy from the GPU for cupy arrays)."""
    if type(x) is np.ndarray or not hasattr(x, "__cuda_array_interface__"):
        return x
    import cupy

    return cupy.asnumpy(x)
