"""A CuPy stand-in for the compiled GPU path (``tfrt_compile --device=gpu``), as strict as CuPy.

Installed as ``cupy`` (``sys.modules``), it lets the ``tfrt_array`` kernels'
device code run on machines without CUDA, and refuses what CuPy refuses:

* It has the CuPy names the kernels use (``tfrt.kernels.cupy_names``) and
  no others, and binds every call to the signature recorded there: a
  keyword or attribute CuPy lacks (``as_strided(..., writeable=False)``,
  ``flags.writeable``) fails here as on a GPU, and so does a name the list
  lacks.  tests/compiler/test_cupy_fidelity.py checks the list against CuPy.
* ``ndarray`` is *not* a numpy array (as cupy's is not): it holds host memory,
  exposes ``__cuda_array_interface__`` (which is how the kernels tell device
  arrays apart) and refuses implicit conversion to numpy (``__array__``
  raises TypeError, as cupy does); a numpy array among a function's device
  operands is a TypeError, and a numpy array assigned into a slice a
  ValueError, as in CuPy.  Its ``flags`` are CuPy's: ``c_contiguous``,
  ``f_contiguous``, ``owndata``.
* CuPy's semantics where they differ from numpy's: ``take`` wraps
  out-of-range indices, ``ufunc.reduce``/``accumulate`` exist for ``add``
  and ``multiply`` only, ``einsum`` takes ``dtype`` and ``optimize`` only.
* ``ElementwiseKernel`` and ``ReductionKernel`` run the CUDA C they are
  given, laid out as CuPy lays it out (operands as references named by the
  parameters, ``i`` the element index, ``REDUCE(a, b)``/``POST_MAP(a)``
  macros), compiled as host C++ by the system's compiler with no system
  headers: only what NVRTC gives a CuPy kernel is there (the CUDA math
  functions for float and double, the ``__int_as_float``-style intrinsics,
  ``memcpy``), CuPy's prepended ``cupy/carray.cuh`` (``M_PI``) and
  ``cupy/math_constants.h`` (``CUDART_INF_F``, ``CUDART_NAN_F``,
  ``CUDART_INF``, ``CUDART_NAN``), and ``cupy/float16.cuh`` for float16
  parameters.  ``NAN``, ``INFINITY`` or ``#include <cmath>`` do not compile,
  as on NVRTC (an H200 with CuPy 14.2 gave: ``identifier "INFINITY" is
  undefined``, ``cannot open source file "cmath"``; ``M_PI`` and the
  ``CUDART_*`` names compiled).  An input that overlaps the output through
  another view (not the output itself) is refused: CuPy does not copy it,
  and the result would depend on thread order.

Every device operation (module functions, ufuncs, ndarray methods and
operators, ``__getitem__``/``__setitem__``, transfers, kernel launches)
passes through :func:`_device_call`, the one place to observe them.

``launches`` counts kernel launches by kernel name, and ``transfers`` the
host-to-device and device-to-host copies.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import types
from collections import Counter

import numpy as np

from tfrt.kernels.cupy_names import NAMES, OPERATORS, UFUNCS, bind, signature

launches: Counter = Counter()
transfers: Counter = Counter()
graphs: Counter = Counter()  # "captured", "launched"

HAVE_CXX = shutil.which("g++") is not None


# ---------------------------------------------------------------------------
# Device arrays, and the one place device operations pass.


def _unwrap(x, host_ok=False):
    if type(x) is ndarray:
        return x._a
    if type(x) in (list, tuple):
        return type(x)(_unwrap(v, host_ok) for v in x)
    if type(x) is np.ndarray and not host_ok:
        raise TypeError(f"Unsupported type {type(x)} (a numpy array among cupy arrays)")
    return x


def _wrap(x):
    if type(x) is np.ndarray:
        return ndarray._of(x)
    if isinstance(x, np.generic):
        return ndarray._of(np.asarray(x))  # cupy's reductions give 0-d arrays
    if type(x) in (list, tuple):
        return type(x)(_wrap(v) for v in x)
    return x


def _device_call(name, fn, args, kwargs, host_ok=False):
    """Run device operation ``name``: ``fn`` over the operands' host memory.

    Every operation on device arrays comes here: module functions, ufuncs,
    ndarray methods and operators, indexing, transfers and kernel launches
    (``fn`` then writes into its output's memory).  A result that is an
    operand's own array comes back as that operand, as CuPy returns the
    array itself (``ascontiguousarray`` of a contiguous array, ...)."""
    mine = {id(x._a): x for x in (*args, *kwargs.values()) if type(x) is ndarray}
    result = fn(*_unwrap(args, host_ok), **{k: _unwrap(v, host_ok) for k, v in kwargs.items()})
    wrapped = mine[id(result)] if type(result) is np.ndarray and id(result) in mine else _wrap(result)
    capture = _capturing()
    if capture is not None:
        capture.steps.append((fn, args, kwargs, host_ok, wrapped))
    return wrapped


# ---------------------------------------------------------------------------
# Stream capture: while a stream of this thread captures, each device
# operation is recorded (it also runs, on whatever the buffers hold, so that
# its result exists); a graph launch runs the recorded operations again over
# the same arrays, writing each result into the array the capture returned,
# as a CUDA graph replays its kernels over the same addresses.  What a
# capturing stream refuses (waiting on the device: a device-to-host copy, a
# device value read on the host; a host-to-device copy, whose pageable
# source CuPy stages in a pinned buffer the graph would read stale) raises,
# and invalidates the capture, as CUDA does.

_thread = threading.local()


class _Capture:
    __slots__ = ("stream", "steps", "invalid")

    def __init__(self, stream):
        self.stream = stream
        self.steps: list = []
        self.invalid: str | None = None


def _capturing():
    capture = getattr(_thread, "capture", None)
    if capture is None or _current_stream() is not capture.stream:
        return None
    return capture


def _refuse_in_capture(what: str) -> None:
    capture = _capturing()
    if capture is not None:
        capture.invalid = capture.invalid or what
        raise RuntimeError(f"cudaErrorStreamCaptureUnsupported: operation not permitted when stream is capturing "
                           f"({what})")  # fmt: skip


def _current_stream():
    stack = getattr(_thread, "streams", None)
    return stack[-1] if stack else None


def _replay(step) -> None:
    fn, args, kwargs, host_ok, result = step
    again = fn(*_unwrap(args, host_ok), **{k: _unwrap(v, host_ok) for k, v in kwargs.items()})
    if type(result) is not ndarray or again is None or type(again) is _Host:
        return  # the operation wrote where it writes (an out= array, a kernel's output)
    again = np.asarray(again)
    if result._a.size == 0 or again is result._a or np.may_share_memory(again, result._a):
        return  # a view: the same memory, already holding the new values
    result._a[...] = again


class Stream:
    """cupy.cuda.Stream: a context making it this thread's current stream, and capture."""

    def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
        self.null = null
        self.non_blocking = non_blocking

    ptr = property(lambda self: 0 if self.null else id(self))

    def synchronize(self):
        _refuse_in_capture("a stream synchronization")

    def __enter__(self):
        _thread.__dict__.setdefault("streams", []).append(self)
        return self

    def __exit__(self, *args):
        _thread.streams.pop()
        return False

    def begin_capture(self, mode=None):
        if self.null:
            raise RuntimeError("cannot capture on the default (legacy) stream")
        if getattr(_thread, "capture", None) is not None:
            raise RuntimeError("cudaErrorIllegalState: this thread's stream is capturing already")
        if _current_stream() is not self:
            raise RuntimeError("the stand-in captures the current stream only (use `with stream:`)")
        _thread.capture = _Capture(self)

    def end_capture(self):
        capture = getattr(_thread, "capture", None)
        if capture is None or capture.stream is not self:
            raise RuntimeError("cudaErrorIllegalState: the stream is not capturing")
        _thread.capture = None
        if capture.invalid is not None:
            raise RuntimeError(f"cudaErrorStreamCaptureInvalidated: {capture.invalid}")
        graphs["captured"] += 1
        return Graph(capture.steps)


_NULL_STREAM = None  # made below, once Stream exists


def get_current_stream(device_id=-1):
    return _current_stream() or _NULL_STREAM


class Cublas:
    """cuBLAS's C API as tfrt.kernels.cublas calls it, over the stand-in's
    host memory: the products read and write the operands' addresses (and a
    capturing stream records them, to replay over the same addresses)."""

    _DTYPES = {2: np.float16, 0: np.float32, 1: np.float64}

    def __init__(self):
        self.calls = Counter()

    def create(self, handle_ref):
        handle_ref._obj.value = 1
        return 0

    def set_stream(self, handle, stream):
        return 0

    def set_workspace(self, handle, ptr, size):
        self.calls["set_workspace"] += 1
        return 0

    @staticmethod
    def _view(ptr, dtype, count):
        dtype = np.dtype(dtype)
        return np.frombuffer((ctypes.c_char * (count * dtype.itemsize)).from_address(ptr), dtype)

    def _product(self, n, m, k, b_ptr, a_ptr, c_ptr, dtype, batch=1):
        def run():
            a = self._view(a_ptr, dtype, batch * m * k).reshape(batch, m, k)
            b = self._view(b_ptr, dtype, batch * k * n).reshape(batch, k, n)
            c = self._view(c_ptr, dtype, batch * m * n).reshape(batch, m, n)
            acc = np.float64 if dtype == np.float64 else np.float32
            c[...] = np.matmul(a.astype(acc), b.astype(acc)).astype(dtype)

        _device_call("cublasGemmEx", run, (), {})
        return 0

    def gemm(self, handle, ta, tb, n, m, k, alpha, b, btype, ldb, a, atype, lda, beta, c, ctype, ldc, compute, algo):
        assert ta == tb == 0 and ldb == n and lda == k and ldc == n and btype == atype == ctype
        self.calls["gemm"] += 1
        return self._product(n, m, k, b, a, c, self._DTYPES[ctype])

    def gemm_batched(self, handle, ta, tb, n, m, k, alpha, b, btype, ldb, sb, a, atype, lda, sa, beta, c, ctype, ldc,
                     sc, batch, compute, algo):  # fmt: skip
        assert ta == tb == 0 and (sb, sa, sc) == (k * n, m * k, m * n) and btype == atype == ctype
        self.calls["gemm_batched"] += 1
        return self._product(n, m, k, b, a, c, self._DTYPES[ctype], batch)


class Graph:
    """cupy.cuda.Graph: ``launch`` runs the captured operations again."""

    def __init__(self, steps):
        self._steps = steps

    def launch(self, stream=None):
        _refuse_in_capture("a graph launch")
        for step in self._steps:
            _replay(step)
        graphs["launched"] += 1


_NULL_STREAM = Stream(null=True)


class MemoryPool:
    """cupy.cuda.MemoryPool: the stand-in's arrays are numpy's; ``malloc`` hands out a pointer."""

    def malloc(self, size):
        return _MemoryPointer(0)

    def free_all_blocks(self, stream=None):
        pass


_POOL = MemoryPool()


def get_default_memory_pool():
    return _POOL


class _Allocating:
    def __init__(self, allocator):
        self.allocator = allocator

    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


def using_allocator(allocator=None):
    return _Allocating(allocator)


class Flags:
    """cupy.ndarray.flags: ``c_contiguous``, ``f_contiguous``, ``owndata`` and nothing else."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, c_contiguous, f_contiguous, owndata):
        self.c_contiguous = c_contiguous
        self.f_contiguous = f_contiguous
        self.owndata = owndata

    def __getitem__(self, name):
        keys = {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous", "OWNDATA": "owndata"}
        if name not in keys:
            raise KeyError(f"{name} is not defined for cupy.ndarray.flags")
        return getattr(self, keys[name])


class _MemoryPointer:
    __slots__ = ("ptr",)

    def __init__(self, ptr):
        self.ptr = ptr


class ndarray:  # noqa: N801 - cupy's name
    """A device array: host memory behind cupy's interface."""

    __slots__ = ("_a", "__weakref__")

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        if memptr is not None or strides is not None:
            raise NotImplementedError("the stand-in makes arrays over memory of its own only")
        self._a = np.empty(shape, dtype, order=order)

    @classmethod
    def _of(cls, a):
        arr = object.__new__(cls)
        arr._a = a
        return arr

    # -- what tells a device array apart, and conversions -----------------
    @property
    def __cuda_array_interface__(self):
        a = self._a
        return {
            "shape": a.shape,
            "typestr": a.dtype.str,
            "data": (a.__array_interface__["data"][0], False),
            "strides": None if a.flags.c_contiguous else a.strides,
            "version": 3,
        }

    def __array__(self, *args, **kwargs):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. "
            "Please use `.get()` to construct a NumPy array explicitly."
        )

    def get(self, stream=None, order="C", out=None, blocking=True):
        _refuse_in_capture("a device-to-host copy")
        transfers["to_host"] += 1
        host = _device_call("ndarray.get", lambda a: _Host(np.array(a, order=order, copy=True)), (self,), {}).a
        if out is None:
            return host
        out[...] = host
        return out

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        cu = _UFUNC_OBJECTS.get(ufunc.__name__)
        if cu is None:
            return NotImplemented
        if "out" in kwargs:
            (kwargs["out"],) = kwargs["out"]
        if method == "__call__":
            return cu(*inputs, **kwargs)
        fn = getattr(cu, method, None)
        if fn is None:
            return NotImplemented
        return fn(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        # As CuPy: numpy.X dispatches to cupy.X where the module has it.
        target = _module
        try:
            for part in func.__module__.split(".")[1:] + [func.__name__]:
                target = getattr(target, part)
        except AttributeError:
            return NotImplemented
        return target(*args, **kwargs)

    # -- attributes -------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    T = property(lambda self: ndarray._of(self._a.T))
    real = property(lambda self: ndarray._of(self._a.real))
    base = property(lambda self: _root(self._a))
    data = property(lambda self: _MemoryPointer(self._a.__array_interface__["data"][0]))
    device = property(lambda self: _Device(0))

    @property
    def flags(self):
        f = self._a.flags
        return Flags(f.c_contiguous, f.f_contiguous, f.owndata)

    def __len__(self):
        return len(self._a)

    def __repr__(self):
        return f"standin.ndarray({self._a!r})"

    def __getitem__(self, slices):
        return _device_call("ndarray.__getitem__", lambda a, k: a[k], (self, slices), {}, host_ok=True)

    def __setitem__(self, slices, value):
        if type(value) is np.ndarray and value.ndim:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")

        def store(a, k, v):
            a[k] = v

        _device_call("ndarray.__setitem__", store, (self, slices, value), {}, host_ok=True)

    def __bool__(self):
        _refuse_in_capture("a device value read on the host")
        return bool(self._a)

    def __int__(self):
        _refuse_in_capture("a device value read on the host")
        return int(self._a)

    def __float__(self):
        _refuse_in_capture("a device value read on the host")
        return float(self._a)

    __hash__ = None


def _root(a):
    """CuPy's ``base``: the array a view's memory belongs to (None for an owner)."""
    b = a.base
    while b is not None and not isinstance(b, np.ndarray):
        b = getattr(b, "base", None)  # the holder as_strided puts between
    if b is None:
        return None
    while b.base is not None:
        nxt = b.base
        while nxt is not None and not isinstance(nxt, np.ndarray):
            nxt = getattr(nxt, "base", None)
        if nxt is None:
            break
        b = nxt
    return ndarray._of(b)


class _Host:
    """A host result passed back through _device_call unwrapped."""

    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a


def _method(name):
    """ndarray.``name`` bound to CuPy's signature, run as numpy's method."""
    key = f"ndarray.{name}"

    def method(self, *args, **kwargs):
        bind(key, (self, *args), kwargs)  # TypeError where CuPy would raise one
        return _device_call(key, lambda a, *r, **k: getattr(a, name)(*r, **k), (self, *args), kwargs)

    method.__name__ = name
    method.__signature__ = signature(NAMES[key][0])
    return method


for _name in ("reshape", "astype", "copy", "fill", "swapaxes", "transpose", "sum", "mean", "max", "min", "all",
              "any"):
    setattr(ndarray, _name, _method(_name))

# Operators: each is the numpy operator over the unwrapped operands.


def _operator(dunder):
    def op(self, *others):
        return _device_call(f"ndarray.{dunder}", lambda a, *o: getattr(a, dunder)(*o), (self, *others), {})

    op.__name__ = dunder
    return op


def _inplace(dunder):
    def op(self, other):
        _device_call(f"ndarray.{dunder}", lambda a, o: getattr(a, dunder)(o), (self, other), {})
        return self

    op.__name__ = dunder
    return op


for _name in OPERATORS:
    setattr(ndarray, f"__{_name}__", _operator(f"__{_name}__"))
    setattr(ndarray, f"__r{_name}__", _operator(f"__r{_name}__"))
    if _name != "matmul":  # CuPy has no @=
        setattr(ndarray, f"__i{_name}__", _inplace(f"__i{_name}__"))
for _name in ("lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "invert"):
    setattr(ndarray, f"__{_name}__", _operator(f"__{_name}__"))


# ---------------------------------------------------------------------------
# ufuncs


class ufunc:  # noqa: N801 - cupy's name
    """cupy.ufunc over numpy's: ``out``, ``dtype`` and ``casting`` only;
    ``reduce``/``accumulate`` for add and multiply, ``reduceat`` for add."""

    def __init__(self, name, np_ufunc):
        self.name = f"cupy_{name}"
        self.__name__ = name
        self.nin = np_ufunc.nin
        self.nout = np_ufunc.nout
        self.nargs = self.nin + self.nout
        self._np = np_ufunc

    def __repr__(self):
        return f"<ufunc '{self.name}'>"

    def __call__(self, *args, **kwargs):
        unknown = set(kwargs) - {"out", "dtype", "casting"}
        if unknown:
            raise TypeError(f"Wrong arguments {({k: kwargs[k] for k in unknown})}")
        if not self.nin <= len(args) <= self.nargs:
            raise TypeError(f"Wrong number of arguments for {self.name!r}. It must be either {self.nin} or "
                            f"{self.nargs} (with outputs), but given {len(args)}.")  # fmt: skip
        kwargs.setdefault("casting", "same_kind")
        return _device_call(self.__name__, self._np, args, kwargs)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False):
        if self.name == "cupy_add":
            return array.sum(axis, dtype, out, keepdims)
        if self.name == "cupy_multiply":
            return _device_call("prod", np.prod, (array, axis, dtype, out, keepdims), {})
        raise NotImplementedError(f"`{self.name}.reduce` is not supported yet")

    def accumulate(self, array, axis=0, dtype=None, out=None):
        if self.name == "cupy_add":
            return _device_call("cumsum", np.cumsum, (array, axis, dtype, out), {})
        if self.name == "cupy_multiply":
            return _device_call("cumprod", np.cumprod, (array, axis, dtype, out), {})
        raise NotImplementedError(f"`{self.name}.accumulate` is not supported yet")

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        if self.name == "cupy_add":
            return _device_call("add.reduceat", np.add.reduceat, (array, indices, axis, dtype, out), {})
        raise NotImplementedError(f"`{self.name}.reduceat` is not supported yet")


_UFUNC_OBJECTS = {name: ufunc(name, getattr(np, name)) for name in sorted(UFUNCS)}
# numpy's names for the same ufuncs (``np.true_divide`` is ``np.divide``).
_UFUNC_OBJECTS.update({getattr(np, name).__name__: _UFUNC_OBJECTS[name] for name in sorted(UFUNCS)})


# ---------------------------------------------------------------------------
# Compiling CUDA C as host C++: what NVRTC and CuPy's headers give a kernel.

# NVRTC's built-ins: the CUDA math API for float and double (and the
# f-suffixed float names), the intrinsics, memcpy; no C or C++ library.
_NVRTC_BUILTINS = r"""
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
typedef decltype(sizeof(0)) size_t;
typedef decltype((char*)0 - (char*)0) ptrdiff_t;
#define _SI_F1(N) inline float N(float x) { return __builtin_##N##f(x); } \
  inline float N##f(float x) { return __builtin_##N##f(x); } \
  inline double N(double x) { return __builtin_##N(x); }
#define _SI_F2(N) inline float N(float x, float y) { return __builtin_##N##f(x, y); } \
  inline float N##f(float x, float y) { return __builtin_##N##f(x, y); } \
  inline double N(double x, double y) { return __builtin_##N(x, y); }
_SI_F1(exp) _SI_F1(exp2) _SI_F1(expm1) _SI_F1(log) _SI_F1(log1p) _SI_F1(log2) _SI_F1(log10)
_SI_F1(sqrt) _SI_F1(cbrt) _SI_F1(sin) _SI_F1(cos) _SI_F1(tan) _SI_F1(asin) _SI_F1(acos) _SI_F1(atan)
_SI_F1(sinh) _SI_F1(cosh) _SI_F1(tanh) _SI_F1(asinh) _SI_F1(acosh) _SI_F1(atanh) _SI_F1(erf) _SI_F1(erfc)
_SI_F1(lgamma) _SI_F1(tgamma) _SI_F1(floor) _SI_F1(ceil) _SI_F1(round) _SI_F1(trunc) _SI_F1(rint)
_SI_F1(nearbyint) _SI_F1(fabs)
_SI_F2(pow) _SI_F2(fmax) _SI_F2(fmin) _SI_F2(atan2) _SI_F2(copysign) _SI_F2(fmod) _SI_F2(hypot)
_SI_F2(remainder) _SI_F2(fdim) _SI_F2(nextafter)
#undef _SI_F1
#undef _SI_F2
inline float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
inline float rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }
inline bool isnan(float x) { return __builtin_isnan(x); }
inline bool isnan(double x) { return __builtin_isnan(x); }
inline bool isinf(float x) { return __builtin_isinf(x); }
inline bool isinf(double x) { return __builtin_isinf(x); }
inline bool isfinite(float x) { return __builtin_isfinite(x); }
inline bool isfinite(double x) { return __builtin_isfinite(x); }
inline bool signbit(float x) { return __builtin_signbit(x); }
inline bool signbit(double x) { return __builtin_signbit(x); }
#define _SI_MINMAX(T) inline T min(T a, T b) { return a < b ? a : b; } inline T max(T a, T b) { return a > b ? a : b; }
_SI_MINMAX(int) _SI_MINMAX(unsigned int) _SI_MINMAX(long long) _SI_MINMAX(unsigned long long)
_SI_MINMAX(float) _SI_MINMAX(double)
#undef _SI_MINMAX
inline float __int_as_float(int x) { float f; __builtin_memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float x) { int i; __builtin_memcpy(&i, &x, 4); return i; }
inline double __longlong_as_double(long long x) { double d; __builtin_memcpy(&d, &x, 8); return d; }
inline long long __double_as_longlong(double x) { long long i; __builtin_memcpy(&i, &x, 8); return i; }
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline float fma(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
inline float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
inline double fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
inline void* memcpy(void* dst, const void* src, size_t n) { return __builtin_memcpy(dst, src, n); }
"""

# The stand-in's versions of the CuPy headers a kernel sees (CuPy 14.2's
# cupy/_core/include/cupy): what the generated code may rely on.
_CUPY_HEADERS = {
    # Prepended to every kernel by CuPy (with complex.cuh and atomics.cuh,
    # which the stand-in does not have).
    "cupy/carray.cuh": r"""#pragma once
#ifndef M_PI
#define M_PI 3.1415926535897932384626433832795
#endif
class bfloat16;
class float16;
""",
    "cupy/math_constants.h": r"""#ifndef CUPY_MATH_CONSTANTS_H
#define CUPY_MATH_CONSTANTS_H
/* single precision constants */
#define CUDART_INF_F            __int_as_float(0x7f800000)
#define CUDART_NAN_F            __int_as_float(0x7fffffff)
/* double precision constants */
#define CUDART_INF              __longlong_as_double(0x7ff0000000000000ULL)
#define CUDART_NAN              __longlong_as_double(0xfff8000000000000ULL)
#endif  // CUPY_MATH_CONSTANTS_H
""",
    # Included (by CuPy) into kernels with float16 parameters: a class that
    # converts to and from float, as CuPy's does.
    "cupy/float16.cuh": r"""#pragma once
class float16 {
 private:
  _Float16 data_;
 public:
  float16() {}
  float16(float v) : data_((_Float16)v) {}
  explicit float16(bool v) : data_((_Float16)(float)v) {}
  explicit float16(double v) : data_((_Float16)v) {}
  explicit float16(int v) : data_((_Float16)(float)v) {}
  explicit float16(unsigned int v) : data_((_Float16)(float)v) {}
  explicit float16(long long v) : data_((_Float16)(float)v) {}
  explicit float16(unsigned long long v) : data_((_Float16)(float)v) {}
  operator float() const { return (float)data_; }
  float16& operator=(const float16&) = default;
  template <typename T> float16& operator=(const T& rhs) { *this = static_cast<float16>(rhs); return *this; }
  int isnan() const { return data_ != data_; }
  int isinf() const { return __builtin_isinf((float)data_); }
  int isfinite() const { return __builtin_isfinite((float)data_); }
};
inline float16 min(float16 x, float16 y) { return float16(min(float(x), float(y))); }
inline float16 max(float16 x, float16 y) { return float16(max(float(x), float(y))); }
inline float16 fmin(float16 x, float16 y) { return float16(fmin(float(x), float(y))); }
inline float16 fmax(float16 x, float16 y) { return float16(fmax(float(x), float(y))); }
inline int isnan(float16 x) { return x.isnan(); }
inline int isinf(float16 x) { return x.isinf(); }
inline int isfinite(float16 x) { return x.isfinite(); }
""",
}

# CuPy's compile_with_cache prepends these includes to every kernel.
_PREPENDED = "#include <cupy/carray.cuh>\n#include <cupy/math_constants.h>\n"

_C_TYPES = {"bool": "bool", "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
            "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
            "uint64": "unsigned long long", "float16": "float16", "float32": "float", "float64": "double"}  # fmt: skip

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")


def _folder() -> str:
    folder = os.path.join(tempfile.gettempdir(), "tfrt_cupy_standin")
    include = os.path.join(folder, "include")
    for rel, text in _CUPY_HEADERS.items():
        path = os.path.join(include, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.exists(path) or open(path).read() != text:
            tmp = f"{path}.{os.getpid()}"
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, path)
    builtins = os.path.join(folder, "nvrtc_builtins.h")
    if not os.path.exists(builtins) or open(builtins).read() != _NVRTC_BUILTINS:
        tmp = f"{builtins}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(_NVRTC_BUILTINS)
        os.replace(tmp, builtins)
    return folder


@functools.lru_cache(maxsize=None)
def _library(source: str):
    """``source`` compiled as a shared library: NVRTC's built-ins force-included,
    the CuPy header folder the only include path (no system headers)."""
    folder = _folder()
    key = source + _NVRTC_BUILTINS + "".join(_CUPY_HEADERS.values())
    digest = hashlib.sha1(key.encode()).hexdigest()[:16]
    lib = os.path.join(folder, f"k{digest}.so")
    if not os.path.exists(lib):
        src = os.path.join(folder, f"k{digest}.cc")
        with open(src, "w") as f:
            f.write(source)
        tmp = f"{lib}.{os.getpid()}"
        proc = subprocess.run(["g++", "-std=c++17", "-O1", "-fno-fast-math", "-ffp-contract=off", "-nostdinc",
                               "-nostdinc++", "-include", os.path.join(folder, "nvrtc_builtins.h"),
                               "-I", os.path.join(folder, "include"), "-shared", "-fPIC", "-o", tmp, src],
                              capture_output=True, text=True)  # fmt: skip
        if proc.returncode != 0:
            raise RuntimeError(f"the kernel's CUDA C does not compile:\n{proc.stderr[-3000:]}")
        os.replace(tmp, lib)
    return ctypes.CDLL(lib)


def _params(spec: str, name: str) -> list[tuple[np.dtype, str]]:
    out = []
    for part in spec.split(","):
        words = part.split()
        if len(words) != 2 or words[0] not in _C_TYPES:
            raise NotImplementedError(f"{name}: the stand-in takes parameters of a concrete type ('float32 x'), "
                                      f"not {part.strip()!r}")  # fmt: skip
        out.append((np.dtype(words[0]), words[1]))
    if any(p == "i" for _, p in out):
        raise ValueError("Can not use 'i' as a parameter name")
    return out


def _type_decls(params) -> str:
    return '#include "cupy/float16.cuh"\n' if any(dt == np.float16 for dt, _ in params) else ""


def _operand(kernel, dt, pname, x):
    """An input's host array (a scalar takes the parameter's type)."""
    if type(x) is np.ndarray:
        raise TypeError(f"{kernel}: argument '{pname}' is a numpy array (Unsupported type {type(x)})")
    if type(x) is ndarray:
        if x.dtype != dt:
            raise TypeError(f"Type is mismatched. {pname} {x.dtype} {dt}")
        return x._a
    return np.asarray(x, dt)


class _Kernel:
    """What both kernel kinds take: a valid name, concrete parameters, one output."""

    def _setup(self, name, in_params, out_params):
        """Set the name and parameters; the C parameter list of the kernel function."""
        if not _VALID_NAME.match(name):
            raise ValueError(f'Invalid kernel name: "{name}"')
        self.name = name
        self.ins = _params(in_params, name)
        self.outs = _params(out_params, name)
        if len(self.outs) != 1:
            # The compiler's kernels write one output.
            raise TypeError(f"{name}: the stand-in takes one output parameter, got {out_params!r}")
        self.nin, self.nout = len(self.ins), len(self.outs)
        out_dt, out_name = self.outs[0]
        params = [f"const {_C_TYPES[dt.name]}* _raw_{p}" for dt, p in self.ins]
        params.append(f"{_C_TYPES[out_dt.name]}* _raw_{out_name}")
        return params


class ElementwiseKernel(_Kernel):
    """cupy.ElementwiseKernel: ``kernel(*inputs[, out])`` with typed parameters."""

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True, preamble="",
                 no_return=False, return_tuple=False, **kwargs):  # fmt: skip
        params = self._setup(name, in_params, out_params)
        unknown = set(kwargs) - {"loop_prep", "after_loop", "options"}
        if unknown:
            raise TypeError(f"_get_elementwise_kernel() got an unexpected keyword argument {sorted(unknown)[0]!r}")
        self.no_return = no_return
        self.return_tuple = return_tuple
        out_dt, out_name = self.outs[0]
        body = [f"    const {_C_TYPES[dt.name]} &{p} = _raw_{p}[i];" for dt, p in self.ins]
        body.append(f"    {_C_TYPES[out_dt.name]} &{out_name} = _raw_{out_name}[i];")
        self.source = "".join([
            _PREPENDED, _type_decls(self.ins + self.outs), preamble, "\n",
            f'extern "C" void {name}(long long _n, {", ".join(params)}) {{\n',
            f"  {kwargs.get('loop_prep', '')};\n",
            "  for (ptrdiff_t i = 0; i < _n; ++i) {\n", "\n".join(body), "\n",
            f"    {operation};\n", "  }\n",
            f"  {kwargs.get('after_loop', '')};\n", "}\n",
        ])  # fmt: skip

    def __call__(self, *args, size=-1, stream=None, block_size=128):
        if len(args) not in (self.nin, self.nin + self.nout):
            raise TypeError(f"Wrong number of arguments for {self.name!r}. It must be either {self.nin} or "
                            f"{self.nin + self.nout} (with outputs), but given {len(args)}.")  # fmt: skip
        inputs, outs = args[: self.nin], args[self.nin:]
        hosts = [_operand(self.name, dt, p, x) for (dt, p), x in zip(self.ins, inputs)]
        out_dt, out_name = self.outs[0]
        shape = np.broadcast_shapes(*(np.shape(h) for h in hosts))
        if outs:
            (out,) = outs
            if type(out) is not ndarray:
                raise TypeError("Output arguments must be cupy.ndarray")
            if out.dtype != out_dt:
                raise TypeError(f"Type is mismatched. {out_name} {out.dtype} {out_dt}")
            if np.broadcast_shapes(shape, out.shape) != out.shape:
                raise ValueError("Out shape is mismatched")
            for (_, p), x in zip(self.ins, inputs):
                _check_overlap(self.name, p, x, out)
        else:
            out = ndarray._of(np.empty(shape, out_dt))
        _device_call(self.name, self._launch, (*inputs, out), {})
        if self.no_return:
            return None
        return (out,) if self.return_tuple else out

    def _launch(self, *arrays):
        *inputs, out = arrays
        operands = [np.ascontiguousarray(np.broadcast_to(np.asarray(x, dt), out.shape), dt)
                    for (dt, _), x in zip(self.ins, inputs)]  # fmt: skip
        result = np.empty(out.shape, out.dtype)
        if result.size:
            fn = getattr(_library(self.source), self.name)
            ptrs = [ctypes.c_void_p(a.ctypes.data) for a in operands]
            fn(ctypes.c_longlong(result.size), *ptrs, ctypes.c_void_p(result.ctypes.data))
        out[...] = result
        launches[self.name] += 1


def _check_overlap(kernel, pname, x, out):
    """CuPy's ElementwiseKernel reads ``x`` while writing ``out`` and copies
    nothing: an ``x`` sharing memory with ``out`` but laid out differently
    gives a result that depends on thread order."""
    if type(x) is not ndarray or x is out or not np.may_share_memory(x._a, out._a):
        return
    a, o = x._a, out._a
    same = (a.shape == o.shape and a.strides == o.strides
            and a.__array_interface__["data"][0] == o.__array_interface__["data"][0])  # fmt: skip
    if not same:
        raise RuntimeError(f"{kernel}: argument '{pname}' overlaps the output through another view; "
                           "CuPy's ElementwiseKernel does not copy it (a race on a GPU)")  # fmt: skip


class ReductionKernel(_Kernel):
    """cupy.ReductionKernel: ``kernel(*inputs, axis=None, keepdims=False, out=None)``."""

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, reduce_dims=True, preamble="", options=()):  # fmt: skip
        params = self._setup(name, in_params, out_params)
        self.identity = "" if identity is None else str(identity)
        out_dt, out_name = self.outs[0]
        rtype = reduce_type if reduce_type is not None else _C_TYPES[out_dt.name]
        reads = "\n".join(f"      const {_C_TYPES[dt.name]} &{p} = _raw_{p}[_o * _inner + _j];" for dt, p in self.ins)
        self.source = "".join([
            _PREPENDED, _type_decls(self.ins + self.outs), preamble, "\n",
            f"#define REDUCE(a, b) ({reduce_expr})\n", f"#define POST_MAP(a) ({post_map_expr})\n",
            f"typedef {rtype} _type_reduce;\n",
            f'extern "C" void {name}(long long _outer, long long _inner, {", ".join(params)}) {{\n',
            "  for (long long _o = 0; _o < _outer; ++_o) {\n",
            f"    _type_reduce _s = _type_reduce({self.identity});\n",
            "    for (long long _j = 0; _j < _inner; ++_j) {\n", reads, "\n",
            f"      _type_reduce _a = static_cast<_type_reduce>({map_expr});\n",
            "      _s = REDUCE(_s, _a);\n", "    }\n",
            f"    {_C_TYPES[out_dt.name]} &{out_name} = _raw_{out_name}[_o];\n",
            "    POST_MAP(_s);\n", "  }\n", "}\n",
        ])  # fmt: skip

    def __call__(self, *args, out=None, axis=None, keepdims=False, stream=None):
        if len(args) not in (self.nin, self.nin + self.nout):
            raise TypeError(f"Wrong number of arguments for {self.name}")
        hosts = [_operand(self.name, dt, p, x) for (dt, p), x in zip(self.ins, args[: self.nin])]
        shape = np.broadcast_shapes(*(np.shape(h) for h in hosts))
        ndim = len(shape)
        axes = tuple(range(ndim)) if axis is None else (axis,) if np.isscalar(axis) else tuple(axis)
        axes = tuple(sorted(a % ndim if ndim else a for a in axes))
        keep = [d for d in range(ndim) if d not in axes]
        out_shape = tuple(1 if d in axes else shape[d] for d in range(ndim)) if keepdims else \
            tuple(shape[d] for d in keep)  # fmt: skip
        inner = int(np.prod([shape[d] for d in axes], dtype=np.int64))
        if inner == 0 and not self.identity and int(np.prod(out_shape, dtype=np.int64)):
            raise ValueError(f"zero-size array to reduction operation {self.name} which has no identity")
        out_dt = self.outs[0][0]
        result = ndarray._of(np.empty(out_shape, out_dt)) if out is None else out
        _device_call(self.name, self._launch, (*args[: self.nin], result), {"axes": axes, "keep": keep, "shape": shape})
        return result

    def _launch(self, *arrays, axes, keep, shape):
        *inputs, out = arrays
        outer = int(np.prod([shape[d] for d in keep], dtype=np.int64))
        inner = int(np.prod([shape[d] for d in axes], dtype=np.int64))
        operands = []
        for (dt, _), x in zip(self.ins, inputs):
            a = np.broadcast_to(np.asarray(x, dt), shape).transpose(keep + list(axes))
            operands.append(np.ascontiguousarray(a.reshape(outer, inner), dt))
        result = np.empty(outer, out.dtype)
        if outer:
            fn = getattr(_library(self.source), self.name)
            ptrs = [ctypes.c_void_p(a.ctypes.data) for a in operands]
            fn(ctypes.c_longlong(outer), ctypes.c_longlong(inner), *ptrs, ctypes.c_void_p(result.ctypes.data))
        out[...] = result.reshape(out.shape)
        launches[self.name] += 1


# ---------------------------------------------------------------------------
# The module: the names of cupy_names used by the kernels, each bound to
# CuPy's signature.


def _numpy_function(name, fn=None, host_ok=False):
    """cupy.``name``: ``fn`` (numpy's by default) over the unwrapped operands,
    called with the arguments bound to CuPy's signature."""
    fn = fn or getattr(np, name.rsplit(".", 1)[-1])

    def call(*args, **kwargs):
        bind(name, args, kwargs)  # TypeError where CuPy would raise one
        return _device_call(name, fn, args, kwargs, host_ok=host_ok)

    call.__name__ = name.rsplit(".", 1)[-1]
    call.__qualname__ = call.__name__
    call.__signature__ = signature(NAMES[name][0])
    return call


def _to_device(a, dtype=None):
    _refuse_in_capture("a host-to-device copy from pageable memory")
    transfers["to_device"] += 1
    return np.array(a, dtype=dtype, copy=True)


def asarray(a, dtype=None, order=None, *, copy=None, blocking=False):
    if type(a) is ndarray:  # already on the device: itself, or a copy where asked
        if copy is not True and (dtype is None or np.dtype(dtype) == a.dtype):
            return a
        return _device_call("asarray", lambda x: np.array(x, dtype=dtype, copy=True), (a,), {})
    return _device_call("asarray", _to_device, (a,), {"dtype": dtype}, host_ok=True)


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    if type(obj) is ndarray:
        return _device_call("array", lambda a: np.array(a, dtype=dtype, copy=copy, ndmin=ndmin), (obj,), {})
    return _device_call("array", _to_device, (obj,), {"dtype": dtype}, host_ok=True)


def asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
    if type(a) is ndarray:
        return a.get(order=order, out=out)
    return np.asarray(a, order=order)


def _take(a, indices, axis=None, out=None):
    # CuPy's take has no mode: an index wraps around (cupy/_core/_routines_indexing.pyx).
    return np.take(a, indices, axis=axis, out=out, mode="wrap")


def _as_strided(x, shape=None, strides=None):
    return np.lib.stride_tricks.as_strided(x, shape, strides)


def _refuse_cublas(*operands) -> None:
    """CuPy's floating-point products call cuBLAS, whose stream CuPy will not
    set while a stream captures (cupy_backends/cuda/libs/cublas.pyx)."""
    if _capturing() is not None and any(getattr(x, "dtype", np.dtype(int)).kind in "fc" for x in operands):
        raise NotImplementedError("calling cuBLAS API during stream capture is currently unsupported")


def _matmul(*args, **kwargs):
    _refuse_cublas(*args)
    return np.matmul(*args, **kwargs)


def _einsum(*operands, **kwargs):
    _refuse_cublas(*operands)
    unknown = set(kwargs) - {"dtype", "optimize"}
    if unknown:
        raise TypeError(f"Did not understand the following kwargs: {sorted(unknown)}")
    return np.einsum(*operands, **kwargs)


def _may_share_memory(a, b, max_work=None):
    if max_work is not None:
        raise NotImplementedError("Only supported for `max_work` is `None`")
    return np.may_share_memory(a, b)


class _Device:
    """cupy.cuda.Device: the stand-in has one device, 0."""

    def __init__(self, device=None):
        index = 0 if device is None else int(device)
        if index != 0:
            raise RuntimeError(f"CUDA error: invalid device ordinal {index} (the stand-in has one device)")
        self._id = index

    id = property(lambda self: self._id)

    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


class _Namespace(types.SimpleNamespace):
    pass


class _Module(types.ModuleType):
    def __getattr__(self, name):
        raise AttributeError(f"module 'cupy' has no attribute '{name}' (not in tfrt.kernels.cupy_names)")


# Module functions the kernels use (K), with special semantics where CuPy's differ.
_SPECIAL = {"take": _take, "lib.stride_tricks.as_strided": _as_strided, "einsum": _einsum,
            "may_share_memory": _may_share_memory, "matmul": _matmul}  # fmt: skip
_PLAIN = ("empty", "empty_like", "full", "zeros", "ones", "swapaxes", "ascontiguousarray", "max", "min",
          "any", "sum", "prod", "argmax", "transpose", "reshape", "broadcast_to", "concatenate", "copyto", "where")  # fmt: skip

_module: types.ModuleType | None = None  # the last make_module()


def make_module() -> types.ModuleType:
    """A fresh ``cupy`` stand-in module (counters reset)."""
    launches.clear()
    transfers.clear()
    graphs.clear()
    _library.cache_clear()
    mod = _Module("cupy")
    mod.ndarray = ndarray
    mod.ufunc = ufunc
    mod.ElementwiseKernel = ElementwiseKernel
    mod.ReductionKernel = ReductionKernel
    mod.asarray = asarray
    mod.array = array
    mod.asnumpy = asnumpy
    for name in _PLAIN:
        setattr(mod, name, _numpy_function(name))
    for name, fn in _SPECIAL.items():
        if "." not in name:
            setattr(mod, name, _numpy_function(name, fn))
    for name, uf in _UFUNC_OBJECTS.items():
        if name in UFUNCS:
            setattr(mod, name, uf)
    mod.lib = _Namespace(stride_tricks=_Namespace(
        as_strided=_numpy_function("lib.stride_tricks.as_strided", _as_strided)))  # fmt: skip
    mod.get_default_memory_pool = get_default_memory_pool
    mod.cuda = _Namespace(Device=_Device, runtime=_Namespace(getDeviceCount=lambda: 1), Stream=Stream, Graph=Graph,
                          MemoryPool=MemoryPool, using_allocator=using_allocator,
                          get_current_stream=get_current_stream)  # fmt: skip
    mod._tfrt_cublas = Cublas()  # tfrt.kernels.cublas multiplies through it
    mod.launches = launches
    mod.transfers = transfers
    mod.graphs = graphs
    mod.IS_STANDIN = True
    global _module
    _module = mod
    return mod
