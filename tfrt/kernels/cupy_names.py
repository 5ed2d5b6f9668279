"""Every CuPy name the project uses, with the signature CuPy gives it: the one list.

The GPU code calls CuPy through these names only: the ``tfrt_array``
kernels and the CUDA C of ``expr_cuda`` (``K``), the graph kernels of
``tfrt_array_gpu`` (``G``), and the ``gpu`` device with ``array_ops`` and
``array_device`` (``D``).  The stand-ins that run that code without a GPU
take their names and signatures from here: ``tests/compiler/cupy_standin.py``
(for ``K``) and ``tests/devices/fake_cupy.py`` (for ``D``) provide nothing
else, and bind each call to the signature below, so a keyword CuPy does not
take fails there as it would on a GPU.  ``tests/compiler/test_cupy_fidelity.py``
checks this list against CuPy itself where CuPy is installed (it imports
without a GPU), and the stand-ins against this list everywhere.

Signatures are CuPy 14.2's, as ``inspect.signature`` or, for Cython
functions, the signature line CuPy embeds in their docstrings gives them
(C types dropped).  Adding a name: check it in CuPy's sources, record it
here, and give the stand-in an implementation that refuses what CuPy refuses.
"""

from __future__ import annotations

import inspect
from functools import lru_cache

# Markers in place of a signature.
ATTRIBUTE = "attribute"  # a property, constant, class or operator: checked for presence

_UNARY = "(x, /, out=None, *, casting='same_kind', dtype=None)"
_BINARY = "(x1, x2, /, out=None, *, casting='same_kind', dtype=None)"
_REDUCTION = "(a, axis=None, out=None, keepdims=False)"
_TYPED_REDUCTION = "(a, axis=None, dtype=None, out=None, keepdims=False)"
_METHOD_REDUCTION = "(self, axis=None, out=None, keepdims=False)"
_METHOD_TYPED_REDUCTION = "(self, axis=None, dtype=None, out=None, keepdims=False)"

K, G, D = "K", "G", "D"

# ndarray's binary operators: ``__op__``, ``__rop__`` and ``__iop__`` each.
OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift",
             "rshift")  # fmt: skip

# name (dotted, from the ``cupy`` module) -> (signature or ATTRIBUTE, users)
NAMES: dict[str, tuple[str, str]] = {
    # -- module functions -------------------------------------------------
    "asarray": ("(a, dtype=None, order=None, *, copy=None, blocking=False)", K),
    "array": ("(obj, dtype=None, copy=True, order='K', subok=False, ndmin=0, *, blocking=False)", K),
    "asnumpy": ("(a, stream=None, order='C', out=None, *, blocking=True)", K),
    "empty": ("(shape, dtype=float, order='C')", K),
    "empty_like": ("(prototype, dtype=None, order='K', subok=None, shape=None)", G),
    "full": ("(shape, fill_value, dtype=None, order='C')", K),
    "zeros": ("(shape, dtype=float, order='C')", D),
    "ones": ("(shape, dtype=float, order='C')", D),
    "matmul": ("(*args, axes=None, axis=None, keepdims=False, casting='same_kind', dtype=None, "
               "signature=None, order='K', out=None)", K + D),  # fmt: skip
    "swapaxes": ("(a, axis1, axis2)", K),
    "einsum": ("(*operands, **kwargs)", K),  # kwargs: dtype, optimize (others: TypeError)
    "ascontiguousarray": ("(a, dtype=None)", K + D),
    "max": (_REDUCTION, K + D),
    "min": (_REDUCTION, K),
    "any": (_REDUCTION, K),
    "sum": (_TYPED_REDUCTION, K),
    "prod": (_TYPED_REDUCTION, K),
    "argmax": ("(a, axis=None, dtype=None, out=None, keepdims=False)", D),
    "transpose": ("(a, axes=None)", K),
    "reshape": ("(a, newshape, order='C', *, copy=None)", K),
    "broadcast_to": ("(array, shape)", K + D),
    "concatenate": ("(tup, axis=0, out=None, *, dtype=None, casting='same_kind')", K + D),
    "take": ("(a, indices, axis=None, out=None)", K),  # wraps out-of-range indices
    "copyto": ("(dst, src, casting='same_kind', where=None)", D + G),
    "where": ("(condition, x=None, y=None)", D),
    "pad": ("(array, pad_width, mode='constant', **kwargs)", D),
    "may_share_memory": ("(a, b, max_work=None)", K),
    "get_default_memory_pool": ("()", D + G),
    "lib.stride_tricks.as_strided": ("(x, shape=None, strides=None)", K + D),  # no writeable=
    # -- classes ----------------------------------------------------------
    "ndarray": ("(shape, dtype=float, memptr=None, strides=None, order='C')", K + D),
    "ufunc": (ATTRIBUTE, K + D),
    "ElementwiseKernel": ("(in_params, out_params, operation, name='kernel', reduce_dims=True, preamble='', "
                          "no_return=False, return_tuple=False, **kwargs)", K),  # fmt: skip
    "ReductionKernel": ("(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, "
                        "name='reduce_kernel', reduce_type=None, reduce_dims=True, preamble='', options=())", K),  # fmt: skip
    # -- ufuncs (cupy.ufunc objects) ----------------------------------------
    **{name: (_BINARY, D) for name in (
        "add", "subtract", "multiply", "divide", "maximum", "minimum", "less", "less_equal", "greater",
        "greater_equal", "equal", "not_equal", "floor_divide", "remainder", "power")},  # fmt: skip
    **{name: (_UNARY, D) for name in (
        "negative", "absolute", "tanh", "exp", "log", "sqrt", "reciprocal", "isfinite", "isnan", "trunc")},  # fmt: skip
    # Only add and multiply reduce (others raise NotImplementedError); not called.
    "ufunc.reduce": ("(self, array, axis=0, dtype=None, out=None, keepdims=False)", ""),
    "ufunc.accumulate": ("(self, array, axis=0, dtype=None, out=None)", ""),
    "ufunc.reduceat": ("(self, array, indices, axis=0, dtype=None, out=None)", ""),
    # -- ndarray ------------------------------------------------------------
    "ndarray.get": ("(self, stream=None, order='C', out=None, blocking=True)", K),
    "ndarray.reshape": ("(self, *shape, order='C', copy=None)", K + D),
    "ndarray.astype": ("(self, dtype, order='K', casting=None, subok=None, copy=True)", K + D),
    "ndarray.copy": ("(self, order='C')", K + G),
    "ndarray.fill": ("(self, value)", G),
    "ndarray.swapaxes": ("(self, axis1, axis2)", D),
    "ndarray.transpose": ("(self, *axes)", D),
    "ndarray.sum": (_METHOD_TYPED_REDUCTION, D),
    "ndarray.mean": (_METHOD_TYPED_REDUCTION, D),
    "ndarray.max": (_METHOD_REDUCTION, D),
    "ndarray.min": (_METHOD_REDUCTION, D),
    "ndarray.all": (_METHOD_REDUCTION, D),
    "ndarray.any": (_METHOD_REDUCTION, D),
    "ndarray.__getitem__": ("(self, slices)", K + D),
    "ndarray.__setitem__": ("(self, slices, value)", K + D),
    **{f"ndarray.{name}": (ATTRIBUTE, K + D) for name in (
        "shape", "dtype", "ndim", "size", "strides", "nbytes", "itemsize", "flags", "base", "data", "device",
        "real", "T", "__cuda_array_interface__", "__bool__", "__int__", "__float__", "__len__")},  # fmt: skip
    # Operators (CuPy has each of numpy's but ``@=``).
    **{f"ndarray.__{prefix}{op}__": (ATTRIBUTE, K + D) for op in OPERATORS for prefix in ("", "r", "i")
       if (prefix, op) != ("i", "matmul")},  # fmt: skip
    **{f"ndarray.__{op}__": (ATTRIBUTE, K + D) for op in (
        "lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "invert")},  # fmt: skip
    # -- cupy.cuda ------------------------------------------------------------
    "cuda.Device": ("(device=None)", K + D),
    "cuda.Device.id": (ATTRIBUTE, K + D),
    "cuda.Device.__enter__": ("(self)", K + D),
    "cuda.Device.__exit__": ("(self, *args)", K + D),
    "cuda.runtime.getDeviceCount": ("()", K + D),
    "cuda.runtime.CUDARuntimeError": ("(status)", D),
    "cuda.Stream": ("(null=False, non_blocking=False, ptds=False, priority=None)", D + G),
    "cuda.Stream.__enter__": ("(self)", D + G),
    "cuda.Stream.__exit__": ("(self, *args)", D + G),
    "cuda.Stream.wait_event": ("(self, event)", D),
    "cuda.Stream.begin_capture": ("(self, mode=None)", G),
    "cuda.Stream.end_capture": ("(self)", G),
    "cuda.Event": ("(block=False, disable_timing=False, interprocess=False)", D),
    "cuda.Event.record": ("(self, stream=None)", D),
    "cuda.Event.synchronize": ("(self)", D),
    "cuda.Graph": (ATTRIBUTE, G),
    "cuda.Graph.launch": ("(self, stream=None)", G),
    "cuda.using_allocator": ("(allocator=None)", G),
    "cuda.get_current_stream": ("(device_id=-1)", G),
    "cuda.Stream.ptr": (ATTRIBUTE, G),
    "cuda.Stream.synchronize": ("(self)", G),
    "cuda.Memory": ("(size)", D),
    "cuda.UnownedMemory": ("(ptr, size, owner, device_id=-1)", D),
    "cuda.MemoryPointer": ("(mem, offset)", D),
    "cuda.MemoryPointer.ptr": (ATTRIBUTE, D),
    "cuda.MemoryPointer.copy_from_host_async": ("(self, mem, size, stream=None)", D),
    "cuda.MemoryPointer.copy_to_host_async": ("(self, mem, size, stream=None)", D),
    "cuda.MemoryPool": (ATTRIBUTE, D + G),
    "cuda.MemoryPool.free_all_blocks": ("(self, stream=None)", D),
    "cuda.MemoryPool.malloc": ("(self, size)", G),
    "cuda.alloc_pinned_memory": ("(size)", D),
    "cuda.memory.OutOfMemoryError": ("(size, total, limit=0)", D),
}

# The attributes of ``ndarray.flags`` (CuPy's Flags: no ``writeable``, CuPy
# arrays being always writable, views included).
FLAGS = ("c_contiguous", "f_contiguous", "owndata")

# Outside ``cupy``: the f64 ``erf`` of tfrt.kernels.expr's array path with cupy
# as its module (which the kernels do not use: a GPU runs expr_cuda's CUDA C).
CUPYX_NAMES: dict[str, tuple[str, str]] = {
    "scipy.special.erf": (ATTRIBUTE, ""),
}

UFUNCS = frozenset(name for name, (sig, _) in NAMES.items() if sig in (_UNARY, _BINARY))


def used_by(users: str) -> list[str]:
    """The names whose users include any of ``users`` (``K``, ``G``, ``D``)."""
    return [name for name, (_, who) in NAMES.items() if set(who) & set(users)]


@lru_cache(maxsize=None)
def signature(text: str) -> inspect.Signature:
    """``text`` (``"(a, axis=None)"``) as an ``inspect.Signature``."""
    namespace: dict = {}
    exec(f"def _f{text}: pass", {}, namespace)  # noqa: S102 - the texts above
    return inspect.signature(namespace["_f"])


def bind(name: str, args: tuple, kwargs: dict) -> inspect.BoundArguments:
    """Bind a call of CuPy's ``name`` as CuPy would: TypeError for a keyword
    it does not take or a missing argument."""
    text, _ = NAMES[name]
    try:
        return signature(text).bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"cupy.{name}{text}: {exc}") from None
