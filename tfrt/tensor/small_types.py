"""MLIR's small element types on numpy: the 8-, 6- and 4-bit floats, bf16, i2/i4.

Storage is ml_dtypes' (one element per byte, the value in the low bits and
the unused high bits zero), which is also MLIR's layout of a dense
attribute's raw data, so a BEF constant is an ml_dtypes array over the file.

Arithmetic on these types follows MLIR's ``arith`` (APFloat) semantics: an
operation computes in a wider type and rounds once to the narrow one.  For
the floats that is f32, which is exact for ``+ - * /`` and ``sqrt`` (f32 has
at least 2p+2 significand bits for every type here, so rounding the f32
result again gives the correctly rounded result); for i2/i4 it is i8 (or u8),
wrapped back to the width.

:func:`convert` is the one conversion to a small float (``arith.truncf``,
``sitofp``, ``uitofp``, literals): round to nearest, ties to even, with each
type's overflow behaviour, as ``APFloat::convert`` does:

* IEEE-like types (f8E5M2, f8E4M3, f8E3M4, bf16): overflow gives ±inf;
* the FN/FNUZ f8 types have no infinity: overflow and ±inf give NaN
  (f8E4M3FN keeps the sign of a NaN; the FNUZ types have one NaN, 0x80, and
  no -0: -0 becomes +0);
* the 6- and 4-bit types have neither: overflow and ±inf saturate to ±max
  (NaN has no encoding; ml_dtypes gives -0);
* f8E8M0FNU (a power of two, 2^-127 .. 2^127, and NaN = 0xFF) has no sign
  and no zero: a value rounds to the nearest power of two by its significand
  (``m * 2^e`` with ``1.5 <= m`` rounds up, a tie going to the even
  significand as APFloat's precision-1 rounding does), zero and everything
  below 2^-127 give 2^-127 (0x00, APFloat's ``makeSmallestNormalized``),
  the sign is dropped (APFloat and MLIR's arith expansion both read the
  exponent bits only), and NaN, ±inf and overflow give NaN.

Going through f32 for a source wider than f32 (f64, i32, i64) would round
twice; those sources are first rounded to f32 *to odd* (truncate, then set
the last bit when anything was lost), which keeps the final rounding exact.
ml_dtypes' own f64 -> f8/bf16 casts go through f32 and round twice, so they
are not used.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

__all__ = [
    "FLOAT_TYPES",
    "INT_TYPES",
    "bit_width",
    "compute_dtype",
    "convert",
    "int_width",
    "is_float",
    "is_integer",
    "is_narrow",
    "is_small_float",
    "is_unsigned",
    "unsigned_of",
]

# MLIR spelling -> numpy dtype (ml_dtypes).
FLOAT_TYPES: dict[str, np.dtype] = {
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8E4M3B11FNUZ": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "f8E4M3": np.dtype(ml_dtypes.float8_e4m3),
    "f8E3M4": np.dtype(ml_dtypes.float8_e3m4),
    "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu),
    "f6E2M3FN": np.dtype(ml_dtypes.float6_e2m3fn),
    "f6E3M2FN": np.dtype(ml_dtypes.float6_e3m2fn),
    "f4E2M1FN": np.dtype(ml_dtypes.float4_e2m1fn),
}
INT_TYPES: dict[str, np.dtype] = {
    "i2": np.dtype(ml_dtypes.int2),
    "i4": np.dtype(ml_dtypes.int4),
    "ui2": np.dtype(ml_dtypes.uint2),
    "ui4": np.dtype(ml_dtypes.uint4),
}

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_E8M0 = FLOAT_TYPES["f8E8M0FNU"]
_SMALL_FLOATS = frozenset(FLOAT_TYPES.values())
_SUB_BYTE = {
    INT_TYPES["i2"]: (2, False), INT_TYPES["i4"]: (4, False),
    INT_TYPES["ui2"]: (2, True), INT_TYPES["ui4"]: (4, True),
}  # fmt: skip
_UNSIGNED_OF = {
    np.dtype(np.int8): np.dtype(np.uint8),
    np.dtype(np.int16): np.dtype(np.uint16),
    np.dtype(np.int32): np.dtype(np.uint32),
    np.dtype(np.int64): np.dtype(np.uint64),
    INT_TYPES["i2"]: INT_TYPES["ui2"],
    INT_TYPES["i4"]: INT_TYPES["ui4"],
}


def is_small_float(dt: Any) -> bool:
    """bf16 and the 8/6/4-bit floats (computed in f32)."""
    return np.dtype(dt) in _SMALL_FLOATS


def is_float(dt: Any) -> bool:
    dt = np.dtype(dt)
    return dt.kind == "f" or dt in _SMALL_FLOATS


def is_integer(dt: Any) -> bool:
    """Integers, i1 included (numpy kinds b, i, u, and the sub-byte types)."""
    dt = np.dtype(dt)
    return dt.kind in "biu" or dt in _SUB_BYTE


def is_unsigned(dt: Any) -> bool:
    dt = np.dtype(dt)
    return dt.kind == "u" or _SUB_BYTE.get(dt, (0, False))[1]


def is_narrow(dt: Any) -> bool:
    """Whether arithmetic on ``dt`` runs in :func:`compute_dtype` and rounds back."""
    dt = np.dtype(dt)
    return dt in _SMALL_FLOATS or dt in _SUB_BYTE


def int_width(dt: Any) -> int:
    """Bits of an integer type (i1 is 1, i4 is 4)."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return 1
    if dt in _SUB_BYTE:
        return _SUB_BYTE[dt][0]
    return 8 * dt.itemsize


_FLOAT_WIDTHS = {FLOAT_TYPES["bf16"]: 16, FLOAT_TYPES["f6E2M3FN"]: 6, FLOAT_TYPES["f6E3M2FN"]: 6,
                 FLOAT_TYPES["f4E2M1FN"]: 4}  # fmt: skip


def bit_width(dt: Any) -> int:
    """Bits of one element as MLIR counts them (i1: 1, f4E2M1FN: 4, bf16: 16)."""
    dt = np.dtype(dt)
    if is_integer(dt):
        return int_width(dt)
    return _FLOAT_WIDTHS.get(dt, 8 * dt.itemsize)


def unsigned_of(dt: Any) -> np.dtype:
    """The unsigned type of the same width (an unsigned type is its own)."""
    dt = np.dtype(dt)
    return _UNSIGNED_OF.get(dt, dt)


def compute_dtype(dt: Any) -> np.dtype:
    """The type arithmetic on ``dt`` is computed in (``dt`` itself unless narrow)."""
    dt = np.dtype(dt)
    if dt in _SMALL_FLOATS:
        return _F32
    if dt in _SUB_BYTE:
        return np.dtype(np.uint8) if _SUB_BYTE[dt][1] else np.dtype(np.int8)
    return dt


# ---------------------------------------------------------------------------
# Conversions


def convert(x: Any, dt: Any) -> Any:
    """``x`` (array or scalar) as ``dt``, correctly rounded (see the module docs).

    Conversions to other types are numpy's ``astype`` (integers wrap, floats
    to integers truncate toward zero; ml_dtypes' sub-byte integers wrap)."""
    dt = np.dtype(dt)
    scalar = not isinstance(x, np.ndarray)
    a = np.asarray(x)
    if a.dtype == dt:
        out = a
    elif dt in _SMALL_FLOATS:
        out = _to_small_float(a, dt)
    elif a.dtype in _SMALL_FLOATS and dt.kind in "iub":
        # Floats to integers truncate toward zero; f32 holds every value exactly.
        out = a.astype(_F32).astype(dt)
    elif a.dtype in _SUB_BYTE and dt.kind == "f" and dt.itemsize >= 2:
        out = a.astype(np.int8 if not _SUB_BYTE[a.dtype][1] else np.uint8).astype(dt)
    else:
        out = a.astype(dt)
    return out[()] if scalar and out.ndim == 0 else out


def _to_small_float(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    f32 = _to_f32_odd(a)
    if dt == _E8M0:
        return _f32_to_e8m0(f32)
    with np.errstate(all="ignore"):
        return f32.astype(dt)


def _to_f32_odd(a: np.ndarray) -> np.ndarray:
    """``a`` as f32: exactly when f32 holds it, otherwise rounded *to odd*
    (toward zero, with the last significand bit set), so that rounding the
    result again to a type of at most 22 significand bits is exact."""
    src = a.dtype
    if src == _F32:
        return a
    if src in _SMALL_FLOATS or src.kind == "b" or (src.kind == "f" and src.itemsize < 4):
        return a.astype(_F32)
    if src in _SUB_BYTE or (src.kind in "iu" and src.itemsize <= 2):
        return a.astype(_F32)
    if src.kind in "iu":
        a = _int_to_f64_odd(a)
    elif src.kind != "f":
        raise TypeError(f"cannot convert {src} to a small float")
    wide = a.astype(_F64)
    with np.errstate(all="ignore"):
        f = wide.astype(_F32)
        back = f.astype(_F64)
        lost = np.isfinite(wide) & (back != wide)
        if not lost.any():
            return f
        # Toward zero: step back where round-to-nearest went away from zero.
        away = lost & (np.abs(back) > np.abs(wide))
        f = np.where(away, np.nextafter(f, np.float32(0)), f)
        bits = f.view(np.uint32) | lost.astype(np.uint32)
    return bits.view(_F32)


def _int_to_f64_odd(a: np.ndarray) -> np.ndarray:
    """Integers as f64, rounded to odd where they need more than 53 bits."""
    if a.dtype.itemsize < 8:
        return a.astype(_F64)
    neg = a < 0 if a.dtype.kind == "i" else np.zeros(a.shape, bool)
    mag = np.where(neg, (~a.astype(np.uint64)) + np.uint64(1), a.astype(np.uint64))
    # Keep at most 52 significant bits (frexp may count one bit too many
    # after rounding up; one bit fewer still leaves 30 guard bits).
    exp = np.frexp(mag.astype(_F64))[1]
    shift = np.clip(exp - 52, 0, 63).astype(np.uint64)
    kept = (mag >> shift) << shift
    sticky = (kept != mag).astype(np.uint64) << shift
    f = (kept | sticky).astype(_F64)
    return np.where(neg, -f, f)


def _f32_to_e8m0(f: np.ndarray) -> np.ndarray:
    shape = np.shape(f)
    bits = np.ascontiguousarray(f, _F32).view(np.uint32)
    exp = (bits >> 23) & 0xFF
    mant = bits & 0x7FFFFF
    # Normal f32: the exponent, one more when the significand is >= 1.5
    # (253 + 1 = 254 is 2^127; 254 + 1 = 255 is NaN: overflow).  Subnormal
    # f32 (below 2^-126): 2^-126 from 1.5 * 2^-127 up, else 2^-127.
    code = np.where(exp == 0, (mant >= 0x600000).astype(np.uint32), exp + (mant >= 0x400000))
    code = np.where(exp == 0xFF, 0xFF, np.minimum(code, 0xFF))
    return code.astype(np.uint8).view(_E8M0).reshape(shape)
