"""Tensor element types: TFRT's ``DType`` enum, numpy storage and printing.

The enum values are TFRT's (``include/tfrt/dtype/dtype.def``) because BEF
stores them in dense and type attributes.  Every dtype has one numpy storage
type; ``bf16`` uses ``ml_dtypes.bfloat16`` and the quantized types store their
raw integers.  ``format_value`` prints one element exactly as TFRT's
``FormatDType`` does through an ``llvm::raw_ostream``::

    >>> format_value(DType.F32, 1.0)
    '1.000000e+00'
    >>> format_value(DType.BF16, ml_dtypes.bfloat16(2.5))
    'bf16(16416)'
"""

from __future__ import annotations

import enum
import math

import ml_dtypes
import numpy as np


class DType(enum.IntEnum):
    """TFRT's DType enum (values as BEF stores them)."""

    UI8 = 1
    UI16 = 2
    UI32 = 3
    UI64 = 4
    I1 = 5
    I8 = 6
    I16 = 7
    I32 = 8
    I64 = 9
    F32 = 10
    F64 = 11
    COMPLEX64 = 12
    COMPLEX128 = 13
    F16 = 14
    BF16 = 15
    STRING = 16
    RESOURCE = 17
    VARIANT = 18
    QUI8 = 19
    QUI16 = 20
    QI8 = 21
    QI16 = 22
    QI32 = 23
    # Past TFRT's enum (which ends at 23; 25-30 are BEF attribute codes):
    # MLIR's small floats and sub-byte integers, stored one element per byte
    # as ml_dtypes stores them (docs/bef_format.md, "Small element types").
    F8E4M3FN = 32
    F8E5M2 = 33
    F8E4M3FNUZ = 34
    F8E5M2FNUZ = 35
    F8E4M3B11FNUZ = 36
    F8E4M3 = 37
    F8E3M4 = 38
    F8E8M0FNU = 39
    F4E2M1FN = 40
    F6E2M3FN = 41
    F6E3M2FN = 42
    I2 = 43
    I4 = 44
    UI2 = 45
    UI4 = 46

    @property
    def short_name(self) -> str:
        """The name TFRT prints (``i32``, ``u64``, ``bf16``, ``str`` ...)."""
        return _NAMES[self]

    @property
    def np_dtype(self) -> np.dtype:
        """The numpy dtype that stores elements of this type."""
        try:
            return _NUMPY[self]
        except KeyError:
            raise TypeError(f"dtype {self.short_name} has no numpy storage") from None

    @property
    def itemsize(self) -> int:
        return self.np_dtype.itemsize

    @property
    def is_float(self) -> bool:
        return self in (DType.F16, DType.BF16, DType.F32, DType.F64) or self in SMALL_FLOATS

    @property
    def is_complex(self) -> bool:
        return self in (DType.COMPLEX64, DType.COMPLEX128)

    @property
    def is_integer(self) -> bool:
        return self in _INTEGERS

    def __str__(self) -> str:
        return _NAMES[self]


_NAMES = {
    DType.UI8: "u8",
    DType.UI16: "u16",
    DType.UI32: "u32",
    DType.UI64: "u64",
    DType.I1: "i1",
    DType.I8: "i8",
    DType.I16: "i16",
    DType.I32: "i32",
    DType.I64: "i64",
    DType.F32: "f32",
    DType.F64: "f64",
    DType.COMPLEX64: "complex64",
    DType.COMPLEX128: "complex128",
    DType.F16: "f16",
    DType.BF16: "bf16",
    DType.STRING: "str",
    DType.RESOURCE: "resource",
    DType.VARIANT: "variant",
    DType.QUI8: "qu8",
    DType.QUI16: "qu16",
    DType.QI8: "qi8",
    DType.QI16: "qi16",
    DType.QI32: "qi32",
    DType.F8E4M3FN: "f8E4M3FN",
    DType.F8E5M2: "f8E5M2",
    DType.F8E4M3FNUZ: "f8E4M3FNUZ",
    DType.F8E5M2FNUZ: "f8E5M2FNUZ",
    DType.F8E4M3B11FNUZ: "f8E4M3B11FNUZ",
    DType.F8E4M3: "f8E4M3",
    DType.F8E3M4: "f8E3M4",
    DType.F8E8M0FNU: "f8E8M0FNU",
    DType.F4E2M1FN: "f4E2M1FN",
    DType.F6E2M3FN: "f6E2M3FN",
    DType.F6E3M2FN: "f6E3M2FN",
    DType.I2: "i2",
    DType.I4: "i4",
    DType.UI2: "u2",
    DType.UI4: "u4",
}

# The small float types, each as MLIR spells it -> its ml_dtypes type.
SMALL_FLOATS: dict[DType, np.dtype] = {
    DType.F8E4M3FN: np.dtype(ml_dtypes.float8_e4m3fn),
    DType.F8E5M2: np.dtype(ml_dtypes.float8_e5m2),
    DType.F8E4M3FNUZ: np.dtype(ml_dtypes.float8_e4m3fnuz),
    DType.F8E5M2FNUZ: np.dtype(ml_dtypes.float8_e5m2fnuz),
    DType.F8E4M3B11FNUZ: np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    DType.F8E4M3: np.dtype(ml_dtypes.float8_e4m3),
    DType.F8E3M4: np.dtype(ml_dtypes.float8_e3m4),
    DType.F8E8M0FNU: np.dtype(ml_dtypes.float8_e8m0fnu),
    DType.F4E2M1FN: np.dtype(ml_dtypes.float4_e2m1fn),
    DType.F6E2M3FN: np.dtype(ml_dtypes.float6_e2m3fn),
    DType.F6E3M2FN: np.dtype(ml_dtypes.float6_e3m2fn),
}
SUB_BYTE_INTS: dict[DType, np.dtype] = {
    DType.I2: np.dtype(ml_dtypes.int2),
    DType.I4: np.dtype(ml_dtypes.int4),
    DType.UI2: np.dtype(ml_dtypes.uint2),
    DType.UI4: np.dtype(ml_dtypes.uint4),
}

_NUMPY: dict[DType, np.dtype] = {
    DType.UI8: np.dtype(np.uint8),
    DType.UI16: np.dtype(np.uint16),
    DType.UI32: np.dtype(np.uint32),
    DType.UI64: np.dtype(np.uint64),
    DType.I1: np.dtype(np.bool_),
    DType.I8: np.dtype(np.int8),
    DType.I16: np.dtype(np.int16),
    DType.I32: np.dtype(np.int32),
    DType.I64: np.dtype(np.int64),
    DType.F32: np.dtype(np.float32),
    DType.F64: np.dtype(np.float64),
    DType.COMPLEX64: np.dtype(np.complex64),
    DType.COMPLEX128: np.dtype(np.complex128),
    DType.F16: np.dtype(np.float16),
    DType.BF16: np.dtype(ml_dtypes.bfloat16),
    DType.STRING: np.dtype(object),
    # Quantized types carry their raw integers; TFRT cannot interpret them either.
    DType.QUI8: np.dtype(np.uint8),
    DType.QUI16: np.dtype(np.uint16),
    DType.QI8: np.dtype(np.int8),
    DType.QI16: np.dtype(np.int16),
    DType.QI32: np.dtype(np.int32),
    **SMALL_FLOATS,
    **SUB_BYTE_INTS,
}

_INTEGERS = frozenset(
    {
        DType.UI8, DType.UI16, DType.UI32, DType.UI64, DType.I8, DType.I16,
        DType.I32, DType.I64, DType.QUI8, DType.QUI16, DType.QI8, DType.QI16,
        DType.QI32, DType.I2, DType.I4, DType.UI2, DType.UI4,
    }
)

# Every spelling a kernel suffix, an MLIR type or a user may use for a dtype.
_ALIASES: dict[str, DType] = {}
for _dt, _name in _NAMES.items():
    _ALIASES[_name] = _dt
_ALIASES.update(
    {
        "bool": DType.I1,
        "ui8": DType.UI8,
        "ui16": DType.UI16,
        "ui32": DType.UI32,
        "ui64": DType.UI64,
        "string": DType.STRING,
        "!corert.string": DType.STRING,
        "!tfrt.string": DType.STRING,
        "complex<f32>": DType.COMPLEX64,
        "complex<f64>": DType.COMPLEX128,
        "!corert.quint8": DType.QUI8,
        "!corert.quint16": DType.QUI16,
        "!corert.qint8": DType.QI8,
        "!corert.qint16": DType.QI16,
        "!corert.qint32": DType.QI32,
        "!corert.resource": DType.RESOURCE,
        "!corert.variant": DType.VARIANT,
        "float16": DType.F16,
        "float32": DType.F32,
        "float64": DType.F64,
        "bfloat16": DType.BF16,
        "int8": DType.I8,
        "int16": DType.I16,
        "int32": DType.I32,
        "int64": DType.I64,
        "uint8": DType.UI8,
        "uint16": DType.UI16,
        "uint32": DType.UI32,
        "uint64": DType.UI64,
        "ui2": DType.UI2,
        "ui4": DType.UI4,
        **{dt.short_name.lower(): dt for dt in SMALL_FLOATS},
        **{np.dtype(npdt).name: dt for dt, npdt in {**SMALL_FLOATS, **SUB_BYTE_INTS}.items()},
    }
)

_FROM_NUMPY: dict[np.dtype, DType] = {}
for _dt, _npdt in _NUMPY.items():
    # The quantized types share storage with plain integers; plain wins.
    _FROM_NUMPY.setdefault(_npdt, _dt)
for _dt in (DType.UI8, DType.UI16, DType.I8, DType.I16, DType.I32):
    _FROM_NUMPY[_NUMPY[_dt]] = _dt


def dtype_from_name(name: str) -> DType:
    """The DType spelled ``name`` (``i32``, ``ui64``, ``bool``, ``complex<f32>`` ...)."""
    try:
        return _ALIASES[name]
    except KeyError:
        raise ValueError(f"unknown dtype '{name}'") from None


def dtype_from_numpy(npdtype) -> DType:
    """The DType whose storage is numpy dtype ``npdtype``."""
    npdtype = np.dtype(npdtype)
    if npdtype.kind in ("U", "S", "O"):
        return DType.STRING
    try:
        return _FROM_NUMPY[npdtype]
    except KeyError:
        raise TypeError(f"numpy dtype {npdtype} has no TFRT dtype") from None


def as_dtype(value) -> DType:
    """Coerce a DType, its value, a name, or a numpy dtype to a DType."""
    if isinstance(value, DType):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return DType(value)
    if isinstance(value, str):
        return dtype_from_name(value)
    return dtype_from_numpy(value)


# --------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------


def format_double(x: float) -> str:
    """An f32/f64 as ``llvm::raw_ostream << double`` prints it (``%e``).

    LLVM's ``write_double`` spells NaN ``nan`` and infinities ``INF``/``-INF``.
    """
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "-INF" if x < 0 else "INF"
    return "%e" % x


def _format_raw16(prefix: str, value) -> str:
    return f"{prefix}({int(np.asarray(value).view(np.uint16))})"


def format_value(dtype: DType, value) -> str:
    """One element as TFRT's ``FormatDType(dtype, ptr)`` writes it."""
    if dtype in (DType.F32, DType.F64):
        return format_double(value)
    if dtype == DType.I1:
        return "1" if value else "0"
    if dtype in _INTEGERS:
        return str(int(value))
    if dtype == DType.F16:
        return _format_raw16("fp16", np.float16(value))
    if dtype == DType.BF16:
        return _format_raw16("bf16", ml_dtypes.bfloat16(value))
    if dtype in SMALL_FLOATS:
        # No TFRT form exists: the value, as f32 and f64 print.
        return format_double(float(np.asarray(value, SMALL_FLOATS[dtype])))
    if dtype.is_complex:
        c = complex(value)
        return f"({format_double(c.real)},{format_double(c.imag)})"
    if dtype == DType.STRING:
        return str(value)
    return f"UnsupportedDataType<{dtype.short_name}>"


def format_values(dtype: DType, flat: np.ndarray, limit: int | None = None) -> list[str]:
    """The first ``limit`` elements of a flat array, each formatted."""
    items = flat if limit is None else flat[:limit]
    if dtype in (DType.F32, DType.F64):
        return [format_double(v) for v in items.tolist()]
    if dtype in SUB_BYTE_INTS:
        return [str(v) for v in items.astype(np.int64).tolist()]
    if dtype in SMALL_FLOATS:
        return [format_double(v) for v in items.astype(np.float64).tolist()]
    if dtype in _INTEGERS:
        return [str(v) for v in items.tolist()]
    return [format_value(dtype, v) for v in items]
