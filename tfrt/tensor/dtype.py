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
        return self in (DType.F16, DType.BF16, DType.F32, DType.F64)

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
}

_INTEGERS = frozenset(
    {
        DType.UI8, DType.UI16, DType.UI32, DType.UI64, DType.I8, DType.I16,
        DType.I32, DType.I64, DType.QUI8, DType.QUI16, DType.QI8, DType.QI16,
        DType.QI32,
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
    if dtype in _INTEGERS:
        return [str(v) for v in items.tolist()]
    return [format_value(dtype, v) for v in items]
