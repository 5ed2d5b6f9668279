"""Kernels of the `tfrt_array` dialect (``dialects/tfrt_array.py``): numpy, or cupy on a GPU.

Values are arrays (``numpy.ndarray``; ``cupy.ndarray`` when the operands live
on a GPU: each kernel works on the module its first array operand comes
from).  Attributes arrive first, in name order, as BEF decodes them (integer
lists as read-only int64 arrays).  Results are fresh arrays or read-only
views (``transpose``, ``reshape``, ``broadcast``, ``extract_slice``,
``constant``); nothing writes into an operand unless the op's ``inplace``
attribute names it, which only ``reuse-buffers`` sets, for an operand whose
last use the op is and whose buffer the program owns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfrt.kernels.expr import DTYPES, compile_array
from tfrt.kernels.registry import KernelError, kernel

_I64S = "i64[]"


def _xp(x: Any) -> Any:
    """The array module of ``x`` (numpy unless it is a cupy array)."""
    if type(x) is np.ndarray or not hasattr(x, "__cuda_array_interface__"):
        return np
    import cupy  # pragma: no cover - needs a GPU

    return cupy  # pragma: no cover


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
        else:  # pragma: no cover - needs a GPU
            # One generated cupy.ElementwiseKernel for the whole expression.
            from tfrt.kernels.expr_cuda import compile_cupy

            fn = compile_cupy(expr, operand_types, xp)
        fn.out_dtype = _typed_tree(expr, operand_types).dtype
        _COMPILED[key] = fn
    return fn


def _writable(x: Any, shape: Any, dtype: Any) -> bool:
    return (
        getattr(x, "flags", None) is not None
        and x.flags.writeable
        and x.flags.c_contiguous
        and x.dtype == dtype
        and x.shape == tuple(shape)
    )


@kernel("tfrt_array.elementwise", attrs=("str", "i64", _I64S, "str"))
def elementwise(expr, inplace, shape, types, *inputs):
    """Evaluates ``expr`` over the operands (broadcast to ``shape``)."""
    xp = np
    for x in inputs:
        if type(x) is not np.ndarray and hasattr(x, "__cuda_array_interface__"):
            xp = _xp(x)  # pragma: no cover - needs a GPU
            break
    fn = _compiled(expr, types, xp, inplace)
    if inplace >= 0 and fn.inplace_safe and _writable(inputs[inplace], shape, fn.out_dtype):
        out = inputs[inplace]
    else:
        out = xp.empty(shape, fn.out_dtype)
    return fn(out, *inputs)


def _epilogue(product, epilogue, types, extras, xp):
    if not epilogue:
        return product
    fn = _compiled(epilogue, types, xp, 0)
    if fn.inplace_safe and product.dtype == fn.out_dtype and product.flags.writeable:
        return fn(product, product, *extras)
    return fn(xp.empty(product.shape, fn.out_dtype), product, *extras)


@kernel("tfrt_array.matmul", attrs=("str", _I64S, "i1", "i1", "str"))
def matmul(epilogue, shape, transpose_a, transpose_b, types, a, b, *extras):
    """``a @ b`` (batched; ``b`` may be a vector), then the epilogue."""
    xp = np if type(a) is np.ndarray else _xp(a)
    if transpose_a:
        a = xp.swapaxes(a, -1, -2)
    if transpose_b:
        b = xp.swapaxes(b, -1, -2)
    product = xp.matmul(a, b)
    if type(product) is not np.ndarray:
        product = _tensor(product, xp)
    return _epilogue(product, epilogue, types, extras, xp)


def _windows(x, xp, kh, kw, strides, dilations, oh, ow):
    """(N, OH, OW, KH, KW, C) strided view of NHWC ``x`` (already padded)."""
    n, _, _, c = x.shape
    sn, sh, sw, sc = x.strides
    return xp.lib.stride_tricks.as_strided(
        x,
        shape=(n, oh, ow, kh, kw, c),
        strides=(sn, sh * strides[0], sw * strides[1], sh * dilations[0], sw * dilations[1], sc),
        writeable=False,
    )


def _pad_nhwc(x, padding, xp, value=0):
    top, bottom, left, right = (int(p) for p in padding)
    if not (top or bottom or left or right):
        return x
    out = xp.full((x.shape[0], x.shape[1] + top + bottom, x.shape[2] + left + right, x.shape[3]), value, x.dtype)
    out[:, top : top + x.shape[1], left : left + x.shape[2], :] = x
    return out


@kernel("tfrt_array.conv2d", attrs=(_I64S, "str", "i64", _I64S, _I64S, _I64S, "str"))
def conv2d(dilations, epilogue, groups, padding, shape, strides, types, x, w, *extras):
    """NHWC x HWCF convolution (grouped when ``groups`` > 1), then the epilogue."""
    xp = _xp(x)
    x = _pad_nhwc(x, padding, xp)
    kh, kw, cg, f = w.shape
    n, oh, ow, _ = (int(d) for d in shape)
    if kh == kw == 1 and tuple(strides) == (1, 1):
        cols = x[:, :oh, :ow, :]
    else:
        cols = _windows(x, xp, kh, kw, strides, dilations, oh, ow)
    if groups == 1:
        if cols.ndim == 4:
            prod = xp.matmul(cols.reshape(n * oh * ow, cg), w.reshape(cg, f))
        else:
            prod = xp.matmul(cols.reshape(n * oh * ow, kh * kw * cg), w.reshape(kh * kw * cg, f))
        prod = prod.reshape(n, oh, ow, f)
    else:
        if cols.ndim == 4:
            cols = cols.reshape(n, oh, ow, 1, 1, cols.shape[-1])
        fg = f // groups
        cols = cols.reshape(n, oh, ow, kh, kw, groups, cg)
        wg = w.reshape(kh, kw, cg, groups, fg)
        prod = xp.einsum("nhwijgc,ijcgf->nhwgf", cols, wg, optimize=True).reshape(n, oh, ow, f)
    return _epilogue(xp.ascontiguousarray(prod), epilogue, types, extras, xp)


@kernel("tfrt_array.pool2d", attrs=(_I64S, "str", _I64S, _I64S, _I64S, _I64S))
def pool2d(dilations, kind, padding, shape, strides, window, x):
    """Max, min, sum or average pooling of NHWC ``x``."""
    xp = _xp(x)
    if kind == "max":
        low = -np.inf if x.dtype.kind == "f" else (False if x.dtype == np.bool_ else np.iinfo(x.dtype).min)
        x = _pad_nhwc(x, padding, xp, low)
    elif kind == "min":
        high = np.inf if x.dtype.kind == "f" else (True if x.dtype == np.bool_ else np.iinfo(x.dtype).max)
        x = _pad_nhwc(x, padding, xp, high)
    else:
        x = _pad_nhwc(x, padding, xp, 0)
    _, oh, ow, _ = (int(d) for d in shape)
    cols = _windows(x, xp, int(window[0]), int(window[1]), strides, dilations, oh, ow)
    if kind == "max":
        return xp.max(cols, axis=(3, 4))
    if kind == "min":
        return xp.min(cols, axis=(3, 4))
    total = xp.sum(cols, axis=(3, 4), dtype=x.dtype)
    if kind == "sum":
        return total
    if kind == "avg":
        return (total / (int(window[0]) * int(window[1]))).astype(x.dtype)
    raise KernelError(f"tfrt_array.pool2d: unknown kind '{kind}' (max, min, sum, avg)")


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


@kernel("tfrt_array.reduce", attrs=(_I64S, "i1", "str"))
def reduce(axes, keepdims, kind, x):
    """Reduces ``x`` over ``axes`` with ``kind``."""
    fn = _REDUCERS.get(kind)
    if fn is None:
        raise KernelError(f"tfrt_array.reduce: unknown kind '{kind}' (expected one of: {', '.join(_REDUCERS)})")
    xp = _xp(x)
    ax = tuple(int(a) for a in axes)
    if x.size == 0 and kind in ("max", "min"):
        raise KernelError(f"tfrt_array.reduce: '{kind}' of an empty tensor")
    return _tensor(fn(xp, x, ax, bool(keepdims)), xp)


@kernel("tfrt_array.einsum", attrs=(_I64S, "str"))
def einsum(shape, spec, *inputs):
    xp = _xp(inputs[0])
    return _tensor(xp.einsum(spec, *inputs, optimize=len(inputs) > 2), xp)


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


@kernel("tfrt_array.extract")
def extract(x, *indices):
    try:
        return x[tuple(int(i) for i in indices)]
    except IndexError as exc:
        raise KernelError(f"tfrt_array.extract: {exc}") from None


@kernel("tfrt_array.insert")
def insert(value, dest, *indices):
    out = _xp(dest).array(dest, copy=True)
    try:
        out[tuple(int(i) for i in indices)] = value
    except IndexError as exc:
        raise KernelError(f"tfrt_array.insert: {exc}") from None
    return out


@kernel("tfrt_array.from_elements", attrs=("str", _I64S))
def from_elements(dtype, shape, *elements):
    return np.array(elements, dtype=DTYPES[dtype]).reshape(tuple(int(d) for d in shape))


@kernel("tfrt_array.gather", attrs=("i64",))
def gather(axis, x, indices):
    try:
        return _xp(x).take(x, indices, axis=axis)
    except IndexError as exc:
        raise KernelError(f"tfrt_array.gather: {exc}") from None


@kernel("tfrt_array.constant", attrs=("dense",))
def constant(value):
    """The dense attribute as a read-only array over the BEF bytes."""
    return value


@kernel("tfrt_array.to_device", attrs=("str",))
def to_device(device, x):
    """``x`` on ``device``: ``cpu`` (numpy) or ``gpu[:N]`` (cupy)."""
    kind, _, index = device.partition(":")
    if kind == "cpu":
        return to_host(x)
    try:
        import cupy
    except ImportError:
        raise KernelError(f"tfrt_array.to_device: device '{device}' needs cupy (pip install 'tfrt[gpu]')") from None
    with cupy.cuda.Device(int(index or 0)):  # pragma: no cover - needs a GPU
        return cupy.asarray(x)


@kernel("tfrt_array.to_host")
def to_host(x):
    """``x`` as a numpy array (a copy from the GPU for cupy arrays)."""
    if type(x) is np.ndarray or not hasattr(x, "__cuda_array_interface__"):
        return x
    import cupy  # pragma: no cover - needs a GPU

    return cupy.asnumpy(x)  # pragma: no cover
