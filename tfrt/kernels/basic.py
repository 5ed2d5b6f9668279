"""TFRT's basic scalar kernels (``lib/basic_kernels``): constants, arithmetic, prints, casts.

Semantics follow the C++ kernels: 32- and 64-bit integers wrap, integer
division truncates toward zero (``tfrt.div.i32`` returns quotient and
remainder), dividing by zero is the error ``Divide by zero``, f32 arithmetic
rounds to single precision (values are ``numpy.float32``), casts to integers
truncate toward zero.

    %x = tfrt.constant.i32 42
    %q, %r = tfrt.div.i32 %x, %y
    %ch1 = tfrt.print.i32 %q, %ch0          // int32 = ...
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from tfrt.kernels.registry import CHAIN, KernelError, kernel, print_line

# f32 overflow to inf is the IEEE result the C++ kernels produce too; numpy's
# RuntimeWarning about it would only add noise to the program's output.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=__name__)

_F32 = np.float32
_I32_MIN = -(1 << 31)
_I64_MIN = -(1 << 63)


def wrap_i32(v: int) -> int:
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def wrap_i64(v: int) -> int:
    return ((v + 0x8000000000000000) & 0xFFFFFFFFFFFFFFFF) - 0x8000000000000000


def _c_divmod(a: int, b: int) -> tuple[int, int]:
    """C's truncating division: the quotient rounds toward zero, the remainder takes a's sign."""
    if b == 0:
        raise KernelError("Divide by zero")
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q, a - q * b


# -- constants ---------------------------------------------------------------


@kernel("tfrt.constant.i1", attrs=("i1",), pure=True)
def constant_i1(value):
    return bool(value)


@kernel("tfrt.constant.i32", attrs=("i32",), pure=True)
def constant_i32(value):
    return value


@kernel("tfrt.constant.i64", attrs=("i64",), pure=True)
def constant_i64(value):
    return value


@kernel("tfrt.constant.ui32", attrs=("ui32",), pure=True)
def constant_ui32(value):
    return value


@kernel("tfrt.constant.ui64", attrs=("ui64",), pure=True)
def constant_ui64(value):
    return value


@kernel("tfrt.constant.f16", attrs=("f16",), pure=True)
def constant_f16(value):
    return np.float16(value)


@kernel("tfrt.constant.bf16", attrs=("bf16",), pure=True)
def constant_bf16(value):
    return value


@kernel("tfrt.constant.f32", attrs=("f32",), pure=True)
def constant_f32(value):
    return _F32(value)


@kernel("tfrt.constant.f64", attrs=("f64",), pure=True)
def constant_f64(value):
    return float(value)


# `im` sorts before `re`, so the imaginary part is the first attribute.
@kernel("tfrt.constant.complex64", attrs=("f32", "f32"), pure=True)
def constant_complex64(im, re):
    return np.complex64(complex(float(_F32(re)), float(_F32(im))))


@kernel("tfrt.constant.complex128", attrs=("f64", "f64"), pure=True)
def constant_complex128(im, re):
    return complex(float(re), float(im))


# TFRT's `constant_s` ops are the constants of sync functions (`tfrt.sync`).
# Every kernel here can run in one, so they are the same kernels.
kernel("tfrt.constant_s.i64", attrs=("i64",), pure=True)(constant_i64)
kernel("tfrt.constant_s.f16", attrs=("f16",), pure=True)(constant_f16)
kernel("tfrt.constant_s.f32", attrs=("f32",), pure=True)(constant_f32)
kernel("tfrt.constant_s.f64", attrs=("f64",), pure=True)(constant_f64)


# -- integers ----------------------------------------------------------------


@kernel("tfrt.add.i32", pure=True)
def add_i32(a, b):
    return ((a + b + 0x80000000) & 0xFFFFFFFF) - 0x80000000


@kernel("tfrt.add.i64", pure=True)
def add_i64(a, b):
    return ((a + b + 0x8000000000000000) & 0xFFFFFFFFFFFFFFFF) - 0x8000000000000000


@kernel("tfrt.minus.i32", pure=True)
def minus_i32(a, b):
    return ((a - b + 0x80000000) & 0xFFFFFFFF) - 0x80000000


@kernel("tfrt.minus.i64", pure=True)
def minus_i64(a, b):
    return wrap_i64(a - b)


@kernel("tfrt.mul.i32", pure=True)
def mul_i32(a, b):
    return wrap_i32(a * b)


@kernel("tfrt.mul.i64", pure=True)
def mul_i64(a, b):
    return wrap_i64(a * b)


# The `mul_s` ops are the sync-function forms of `mul` (see `constant_s`).
kernel("tfrt.mul_s.i32")(mul_i32)
kernel("tfrt.mul_s.i64")(mul_i64)


@kernel("tfrt.div.i32", pure=True)
def div_i32(a, b):
    q, r = _c_divmod(a, b)
    return wrap_i32(q), wrap_i32(r)


@kernel("tfrt.div.i64", pure=True)
def div_i64(a, b):
    q, r = _c_divmod(a, b)
    return wrap_i64(q), wrap_i64(r)


@kernel("tfrt.equal.i32", pure=True)
def equal_i32(a, b):
    return a == b


@kernel("tfrt.equal.i64", pure=True)
def equal_i64(a, b):
    return a == b


@kernel("tfrt.lessequal.i32", pure=True)
def lessequal_i32(a, b, *_chain):
    return a <= b


@kernel("tfrt.lessequal.i64", pure=True)
def lessequal_i64(a, b, *_chain):
    return a <= b


@kernel("tfrt.and.i1", pure=True)
def and_i1(a, b):
    return bool(a) and bool(b)


# -- floats ------------------------------------------------------------------


@kernel("tfrt.add.f32", pure=True)
def add_f32(a, b):
    return _F32(a) + _F32(b)


@kernel("tfrt.add.f64", pure=True)
def add_f64(a, b):
    return a + b


def _c_min(a, b):
    # std::min(a, b) returns a unless b < a (so NaN in a wins).
    return b if b < a else a


@kernel("tfrt.minimum.f32", pure=True)
def minimum_f32(a, b):
    return _F32(_c_min(a, b))


@kernel("tfrt.minimum.f64", pure=True)
def minimum_f64(a, b):
    return _c_min(a, b)


@kernel("tfrt.div.f32", pure=True)
def div_f32(a, b):
    if b == 0:
        raise KernelError("Divide by zero")
    return _F32(a) / _F32(b)


@kernel("tfrt.div.f64", pure=True)
def div_f64(a, b):
    if b == 0:
        raise KernelError("Divide by zero")
    return a / b


@kernel("tfrt.multiply.f32", pure=True)
def multiply_f32(a, b):
    return _F32(a) * _F32(b)


@kernel("tfrt.multiply.f64", pure=True)
def multiply_f64(a, b):
    return a * b


# -- casts -------------------------------------------------------------------


def _to_int64(x: float) -> int:
    # static_cast<int64_t> truncates; out-of-range values and NaN give x86's
    # "integer indefinite" value, INT64_MIN.
    if math.isnan(x) or math.isinf(x) or not (-(2.0**63) <= x < 2.0**63):
        return _I64_MIN
    return int(x)


@kernel("tfrt.cast.i64_to_f32", pure=True)
def cast_i64_to_f32(a):
    return _F32(a)


@kernel("tfrt.cast.f32_to_i64", pure=True)
def cast_f32_to_i64(a):
    return _to_int64(float(a))


@kernel("tfrt.cast.i64_to_f64", pure=True)
def cast_i64_to_f64(a):
    return float(a)


@kernel("tfrt.cast.f64_to_i64", pure=True)
def cast_f64_to_i64(a):
    return _to_int64(float(a))


# -- printing ----------------------------------------------------------------
# Each print kernel takes (value, chain) and returns a fresh chain; extra
# operands are accepted and ignored, as TFRT's typed kernels ignore them.


@kernel("tfrt.print.i1")
def print_i1(v, *_):
    print_line(f"int1 = {1 if v else 0}")
    return CHAIN


@kernel("tfrt.print.i32")
def print_i32(v, *_):
    print_line(f"int32 = {v}")
    return CHAIN


@kernel("tfrt.print.i64")
def print_i64(v, *_):
    print_line(f"int64 = {v}")
    return CHAIN


@kernel("tfrt.print.f16")
def print_f16(v, *_):
    print_line(f"f16 = {int(np.asarray(v, dtype=np.float16).view(np.uint16))}")
    return CHAIN


@kernel("tfrt.print.f32")
def print_f32(v, *_):
    print_line("f32 = %f" % float(v))
    return CHAIN


@kernel("tfrt.print.f64")
def print_f64(v, *_):
    print_line("f64 = %f" % float(v))
    return CHAIN


@kernel("tfrt.print.complex64")
def print_complex64(v, *_):
    v = complex(v)
    print_line("complex64 = %f+%fi" % (float(_F32(v.real)), float(_F32(v.imag))))
    return CHAIN


@kernel("tfrt.print.complex128")
def print_complex128(v, *_):
    v = complex(v)
    print_line("complex128 = %f+%fi" % (v.real, v.imag))
    return CHAIN


# -- devices -----------------------------------------------------------------


@kernel("tfrt.get_device", attrs=("str",), context=True)
def get_device(ctx, device_name, *_chain):
    """The device the host lists under ``device_name``, else the ``tfrt.devices``
    device of that name (TFRT's ``CPU:0`` is ``cpu:0`` there)."""
    device = ctx.host.devices.get(device_name)
    if device is None:
        from tfrt.devices.base import DeviceError
        from tfrt.devices.registry import default_registry

        try:
            device = default_registry().get(device_name.lower())
        except DeviceError:
            device = None
    if device is None:
        raise KernelError(f"cannot find device {device_name}")
    return device
