"""A CuPy stand-in for the compiled GPU path (``tfrt_compile --device=gpu``).

Installed as ``cupy`` (``sys.modules``), it lets the ``tfrt_array`` kernels'
device code run on machines without CUDA:

* ``ndarray`` is *not* a numpy array (as cupy's is not): it holds host memory,
  exposes ``__cuda_array_interface__`` (which is how the kernels tell device
  arrays apart) and refuses implicit conversion to numpy (``__array__``
  raises TypeError, as cupy does), so a kernel that hands a device array to
  host code fails here as it would on a GPU.  Ufuncs and numpy functions
  applied to it dispatch through ``__array_ufunc__``/``__array_function__``
  and return device arrays, as cupy's do; mixing in a numpy array raises.
* Module functions (``cupy.matmul``, ``cupy.empty``, ...) are numpy's on the
  unwrapped arrays, their array results wrapped again.
* ``ElementwiseKernel`` runs the CUDA C it is given: the operation and
  preamble are compiled as host C++ (``__device__`` dropped, ``float16`` as
  ``_Float16``) by the system's C++ compiler, one loop iteration per element
  in place of one thread, and called with ctypes over the broadcast
  operands.  So the fused kernels the compiler generates for a GPU are
  executed, not just compiled.

``launches`` counts element-wise kernel launches by kernel name, and
``transfers`` the host-to-device and device-to-host copies.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import types
from collections import Counter

import numpy as np

launches: Counter = Counter()
transfers: Counter = Counter()

HAVE_CXX = shutil.which("g++") is not None


def _unwrap(x):
    if type(x) is ndarray:
        return x._a
    if type(x) in (list, tuple):
        return type(x)(_unwrap(v) for v in x)
    if type(x) is np.ndarray:
        raise TypeError(f"Unsupported type {type(x)} (a numpy array mixed with cupy arrays)")
    return x


def _wrap(x):
    if type(x) is np.ndarray:
        return ndarray(x)
    if isinstance(x, np.generic):
        return ndarray(np.asarray(x))  # cupy's reductions give 0-d arrays
    if type(x) in (list, tuple):
        return type(x)(_wrap(v) for v in x)
    return x


class ndarray:  # noqa: N801 - cupy's name
    """A device array: host memory behind cupy's interface."""

    __slots__ = ("_a",)

    def __init__(self, a):
        self._a = a

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

    def get(self, stream=None, out=None):
        transfers["to_host"] += 1
        return self._a.copy()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            kwargs["out"] = tuple(_unwrap(o) for o in kwargs["out"])
        return _wrap(getattr(ufunc, method)(*_unwrap(inputs), **kwargs))

    def __array_function__(self, func, types_, args, kwargs):
        return _wrap(func(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))

    # -- attributes -------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: ndarray(self._a.T))

    def __len__(self):
        return len(self._a)

    def __repr__(self):
        return f"standin.ndarray({self._a!r})"

    def __getitem__(self, key):
        return _wrap(self._a[_unwrap(key)])

    def __setitem__(self, key, value):
        value = value._a if type(value) is ndarray else value
        self._a[_unwrap(key)] = value

    def item(self):
        return self._a.item()

    def __bool__(self):
        return bool(self._a)

    def __int__(self):
        return int(self._a)

    def __float__(self):
        return float(self._a)

    def __index__(self):
        return self._a.__index__()

    def __getattr__(self, name):
        # Methods (reshape, astype, sum, swapaxes, ...) act on the array and
        # give device arrays.
        attr = getattr(self._a, name)
        if not callable(attr):
            return attr

        def method(*args, **kwargs):
            return _wrap(attr(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))

        return method


def _binary(ufunc, reflected=False):
    def op(self, other):
        if reflected:
            return _wrap(ufunc(_unwrap(other), self._a))
        return _wrap(ufunc(self._a, _unwrap(other)))

    return op


for _name, _uf in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("truediv", np.true_divide),
                   ("floordiv", np.floor_divide), ("mod", np.remainder), ("pow", np.power),
                   ("matmul", np.matmul), ("and", np.bitwise_and), ("or", np.bitwise_or),
                   ("xor", np.bitwise_xor), ("lshift", np.left_shift), ("rshift", np.right_shift)]:  # fmt: skip
    setattr(ndarray, f"__{_name}__", _binary(_uf))
    setattr(ndarray, f"__r{_name}__", _binary(_uf, reflected=True))
for _name, _uf in [("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal),
                   ("eq", np.equal), ("ne", np.not_equal)]:  # fmt: skip
    setattr(ndarray, f"__{_name}__", _binary(_uf))
ndarray.__neg__ = lambda self: ndarray(-self._a)
ndarray.__abs__ = lambda self: ndarray(np.abs(self._a))
ndarray.__invert__ = lambda self: ndarray(~self._a)
ndarray.__hash__ = None


# ---------------------------------------------------------------------------
# ElementwiseKernel: the CUDA C, compiled as host C++ and run.

_C_TYPES = {"bool": "bool", "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
            "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
            "uint64": "unsigned long long", "float16": "float16", "float32": "float", "float64": "double"}  # fmt: skip

_HEADER = """#include <cmath>
#include <cstring>
using namespace std;
#define __device__
#define __popcll __builtin_popcountll
typedef _Float16 float16;
"""


def _params(spec: str) -> list[tuple[np.dtype, str]]:
    out = []
    for part in spec.split(","):
        type_name, name = part.split()
        out.append((np.dtype(type_name), name))
    return out


@functools.lru_cache(maxsize=None)
def _library(source: str):
    folder = os.path.join(tempfile.gettempdir(), "tfrt_cupy_standin")
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha1(source.encode()).hexdigest()[:16]
    lib = os.path.join(folder, f"k{digest}.so")
    if not os.path.exists(lib):
        src = os.path.join(folder, f"k{digest}.cc")
        with open(src, "w") as f:
            f.write(source)
        tmp = f"{lib}.{os.getpid()}"
        proc = subprocess.run(["g++", "-O1", "-fno-fast-math", "-ffp-contract=off", "-shared", "-fPIC",
                               "-o", tmp, src], capture_output=True, text=True)  # fmt: skip
        if proc.returncode != 0:
            raise RuntimeError(f"the kernel's CUDA C does not compile:\n{proc.stderr[-3000:]}")
        os.replace(tmp, lib)
    return ctypes.CDLL(lib)


class ElementwiseKernel:
    """cupy.ElementwiseKernel: ``kernel(*inputs, out)`` with typed parameters."""

    def __init__(self, in_params, out_params, operation, name="kernel", preamble="", **kwargs):
        self.name = name
        self.ins = _params(in_params)
        self.outs = _params(out_params)
        if len(self.outs) != 1:
            # The compiler's fused kernels write one output.
            raise TypeError(f"{name}: one output parameter expected, got {out_params!r}")
        lines = [_HEADER, preamble]
        args = ", ".join(f"const {_C_TYPES[dt.name]}* p{i}" for i, (dt, _) in enumerate(self.ins))
        out_dt, out_name = self.outs[0]
        out_t = _C_TYPES[out_dt.name]
        lines.append(f'extern "C" void run(long long n, {args}, {out_t}* po) {{')
        lines.append("  for (long long i = 0; i < n; ++i) {")
        for i, (dt, name_) in enumerate(self.ins):
            lines.append(f"    const {_C_TYPES[dt.name]} {name_} = p{i}[i];")
        lines.append(f"    {out_t}& {out_name} = po[i];")
        lines.append(f"    {operation}")
        lines.append("  }")
        lines.append("}")
        self.source = "\n".join(lines) + "\n"

    def __call__(self, *args):
        if len(args) != len(self.ins) + 1:
            raise TypeError(f"{self.name}: takes {len(self.ins)} inputs and an output, {len(args)} given")
        *inputs, out = args
        if type(out) is not ndarray:
            raise TypeError(f"{self.name}: the output must be a cupy array, not {type(out).__name__}")
        out_dt = self.outs[0][0]
        if out.dtype != out_dt:
            raise TypeError(f"{self.name}: output dtype {out.dtype} is not the declared {out_dt}")
        operands = []
        for (dt, pname), x in zip(self.ins, inputs):
            if type(x) is np.ndarray:
                raise TypeError(f"{self.name}: argument '{pname}' is a numpy array (cupy arrays only)")
            if type(x) is ndarray:
                if x.dtype != dt:
                    raise TypeError(f"{self.name}: argument '{pname}' is {x.dtype}, declared {dt}")
                a = x._a
            else:
                a = np.asarray(x, dt)  # a scalar takes the parameter's type
            operands.append(np.ascontiguousarray(np.broadcast_to(a, out.shape), dt))
        result = np.empty(out.shape, out_dt)
        fn = _library(self.source).run
        ptrs = [ctypes.c_void_p(a.ctypes.data) for a in operands]
        fn(ctypes.c_longlong(result.size), *ptrs, ctypes.c_void_p(result.ctypes.data))
        out._a[...] = result
        launches[self.name] += 1
        return out


# ---------------------------------------------------------------------------
# The module.


def asarray(x, dtype=None):
    if type(x) is ndarray:
        return x if dtype is None or x.dtype == dtype else ndarray(x._a.astype(dtype))
    transfers["to_device"] += 1
    return ndarray(np.array(x, dtype=dtype, copy=True))


def array(x, dtype=None, copy=True):
    if type(x) is ndarray:
        return ndarray(np.array(x._a, dtype=dtype, copy=copy))
    return asarray(x, dtype)


def asnumpy(x, stream=None):
    return x.get() if type(x) is ndarray else np.asarray(x)


class _Device:
    def __init__(self, index=0):
        if int(index) != 0:
            raise RuntimeError(f"CUDA error: invalid device ordinal {index} (the stand-in has one device)")
        self.id = int(index)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def use(self):
        return self


def _numpy_function(name):
    fn = getattr(np, name)
    if not callable(fn) or isinstance(fn, type):
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        return _wrap(fn(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))

    return call


class _Namespace(types.SimpleNamespace):
    pass


def _as_strided(x, shape=None, strides=None, writeable=True, **kwargs):
    return ndarray(np.lib.stride_tricks.as_strided(x._a, shape, strides, writeable=writeable))


class _Module(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = _numpy_function(name)
        setattr(self, name, value)
        return value


def make_module() -> types.ModuleType:
    """A fresh ``cupy`` stand-in module (counters reset)."""
    launches.clear()
    transfers.clear()
    _library.cache_clear()
    mod = _Module("cupy")
    mod.ndarray = ndarray
    mod.ElementwiseKernel = ElementwiseKernel
    mod.asarray = asarray
    mod.array = array
    mod.asnumpy = asnumpy
    mod.get_array_module = lambda *args: mod
    mod.cuda = _Namespace(Device=_Device, runtime=_Namespace(getDeviceCount=lambda: 1))
    mod.lib = _Namespace(stride_tricks=_Namespace(as_strided=_as_strided))
    mod.launches = launches
    mod.transfers = transfers
    return mod
