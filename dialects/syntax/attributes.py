"""Builtin attribute and type construction for the frontend.

Pure helpers with no parser state: they turn token text into xDSL
attributes and raise :class:`AttrError` (a message, no position) when the
text is not valid; the IR builder adds the position.

Dense literals are decoded with ``json``/``numpy`` and stored as raw bytes
(``DenseIntOrFPElementsAttr`` over a ``BytesAttr``), never element by
element: a decimal ``dense<[...]>`` with a million elements takes well under
a second this way, against tens of seconds through xDSL's element-wise path.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    BFloat16Type,
    BytesAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    Float80Type,
    Float128Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    Signedness,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException


class AttrError(Exception):
    """Invalid attribute or type text; the caller attaches the location."""


FLOAT_TYPES: dict[str, Attribute] = {
    "f16": Float16Type(),
    "bf16": BFloat16Type(),
    "f32": Float32Type(),
    "f64": Float64Type(),
    "f80": Float80Type(),
    "f128": Float128Type(),
}

i1 = IntegerType(1)
i64 = IntegerType(64)
f64 = FLOAT_TYPES["f64"]
INDEX = IndexType()


@cache
def int_type(text: str) -> IntegerType:
    """``i32`` / ``si8`` / ``ui64`` -> IntegerType (cached: types repeat a lot)."""
    if text[0] == "s":
        return IntegerType(int(text[2:]), Signedness.SIGNED)
    if text[0] == "u":
        return IntegerType(int(text[2:]), Signedness.UNSIGNED)
    return IntegerType(int(text[1:]))


def float_type(text: str) -> Attribute:
    t = FLOAT_TYPES.get(text)
    if t is None:
        # tf32 has no xDSL class; say so instead of guessing a layout.
        raise AttrError(f"unsupported floating point type '{text}'")
    return t


# ----------------------------------------------------------------- strings

_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = {"n": b"\n", "t": b"\t", "\\": b"\\", '"': b'"'}


def decode_string(tok: str) -> str:
    """Body of an MLIR string literal (quotes included in ``tok``).

    MLIR escapes: ``\\n \\t \\\\ \\"`` and two hex digits (``\\0A``).
    """
    body = tok[1:-1]
    if "\\" not in body:
        return body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        j = body.find("\\", i)
        if j < 0:
            out += body[i:].encode()
            break
        out += body[i:j].encode()
        c = body[j + 1 : j + 2]
        if c in _ESCAPES:
            out += _ESCAPES[c]
            i = j + 2
        elif j + 2 < n + 1 and len(body[j + 1 : j + 3]) == 2 and set(body[j + 1 : j + 3]) <= _HEX:
            out.append(int(body[j + 1 : j + 3], 16))
            i = j + 3
        else:
            raise AttrError(f"invalid escape sequence '\\{c}' in string literal")
    try:
        return out.decode()
    except UnicodeDecodeError as e:
        raise AttrError(f"string literal is not valid UTF-8: {e}") from None


# ----------------------------------------------------------------- numbers


def parse_int(text: str) -> int:
    neg = text[0] == "-"
    body = text[1:] if text[0] in "+-" else text
    v = int(body, 16) if body[:2] in ("0x", "0X") else int(body)
    return -v if neg else v


def int_attr(text: str, typ: Attribute | None) -> Attribute:
    """An integer literal with an optional type (``42``, ``-1 : i8``, ``0x7FC00000 : f32``)."""
    if typ is None:
        return IntegerAttr(parse_int(text), i64)
    if isinstance(typ, IntegerType | IndexType):
        value = parse_int(text)
        try:
            return IntegerAttr(value, typ)
        except VerifyException as e:
            raise AttrError(str(e)) from None
    if isinstance(typ, AnyFloat):
        body = text.lstrip("+-")
        if body[:2] in ("0x", "0X"):
            # MLIR's hexadecimal float literal: the bit pattern of the value.
            if text[0] == "-":
                raise AttrError("hexadecimal float literal should not have a leading minus")
            bits = int(body, 16)
            if bits.bit_length() > 8 * typ.compile_time_size:
                raise AttrError(f"hexadecimal float constant out of range for type '{typ}'")
            raw = bits.to_bytes(typ.compile_time_size, "little")
            return FloatAttr(next(typ.iter_unpack(raw)), typ)
        return FloatAttr(float(parse_int(text)), typ)
    raise AttrError(
        f"invalid type '{typ}' for an integer literal; expected an integer, index or float type"
    )


def float_attr(text: str, typ: Attribute | None) -> Attribute:
    if typ is None:
        return FloatAttr(float(text), f64)
    if not isinstance(typ, AnyFloat):
        raise AttrError("floating point value not valid for specified type")
    return FloatAttr(float(text), typ)


def literal_with_type(text: str, kind: str, typ: Attribute) -> Attribute:
    """A literal whose type the op definition fixes (`42`, `true`, `0.5`)."""
    if kind == "TRUE_KW" or kind == "FALSE_KW":
        if isinstance(typ, IntegerType) and typ.width.data == 1:
            return IntegerAttr(1 if kind == "TRUE_KW" else 0, typ)
        raise AttrError(f"boolean literal is not valid for type '{typ}'")
    if kind == "FLOAT":
        return float_attr(text, typ)
    return int_attr(text, typ)


# ----------------------------------------------------------------- dense


def _np_dtype(elt: Attribute):
    import numpy as np

    if isinstance(elt, IntegerType):
        width = elt.width.data
        unsigned = elt.signedness.data == Signedness.UNSIGNED
        if width == 1:
            return np.dtype("<i1")
        if width in (8, 16, 32, 64):
            return np.dtype(("<u" if unsigned else "<i") + str(width // 8))
        return None
    if isinstance(elt, IndexType):
        return np.dtype("<i8")
    if isinstance(elt, Float16Type):
        return np.dtype("<f2")
    if isinstance(elt, Float32Type):
        return np.dtype("<f4")
    if isinstance(elt, Float64Type):
        return np.dtype("<f8")
    if isinstance(elt, BFloat16Type):
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return None


_HEX_INT = re.compile(r"(?<![\w.])(-?)0[xX]([0-9a-fA-F]+)")


def _json_body(body: str):
    text = body.replace("(", "[").replace(")", "]")
    try:
        return json.loads(text)
    except ValueError:
        pass
    # Hexadecimal integers are not JSON; rewrite them (rare, so the slow path is fine).
    fixed = _HEX_INT.sub(lambda m: m.group(1) + str(int(m.group(2), 16)), text)
    try:
        return json.loads(fixed)
    except ValueError:
        raise AttrError(
            "expected a dense literal: a number, true/false, or a nested list"
        ) from None


def _check_int_range(arr, elt: IntegerType | IndexType) -> None:
    if arr.size == 0:
        return
    if isinstance(elt, IndexType):
        lo, hi = -(2**63), 2**64
    else:
        lo, hi = elt.value_range()
    mn, mx = int(arr.min()), int(arr.max())
    if mn < lo or mx >= hi:
        bad = mn if mn < lo else mx
        raise AttrError(f"integer constant out of range for type '{elt}': {bad}")


def _static_shaped(typ: Attribute, what: str) -> tuple[tuple[int, ...], Attribute]:
    """(shape, element type) of the static tensor/vector/memref type a
    ``what`` (``dense literal``, ``dense_resource``) is given."""
    if not isinstance(typ, TensorType | VectorType | MemRefType):
        raise AttrError(f"{what} needs a tensor, vector or memref type, got '{typ}'")
    shape = tuple(typ.get_shape())
    if any(d < 0 for d in shape):
        raise AttrError(f"{what} attribute should have a static shape")
    return shape, typ.get_element_type()


def dense_from_text(token: str, typ: Attribute) -> DenseIntOrFPElementsAttr:
    """``dense<...>`` (the whole token) with its shaped type -> attribute."""
    import numpy as np  # lazily: most inputs have no dense literal

    shape, elt = _static_shaped(typ, "dense literal")
    n = math.prod(shape)
    body = token[6:-1].strip()
    complex_elt = isinstance(elt, ComplexType)
    base = elt.element_type if complex_elt else elt
    dtype = _np_dtype(base)
    if dtype is None:
        raise AttrError(f"dense elements of type '{elt}' are not supported")
    itemsize = dtype.itemsize * (2 if complex_elt else 1)

    if body.startswith('"'):
        # MLIR's raw little-endian blob; a single element means a splat.
        hexstr = body[1:-1]
        if not hexstr.startswith(("0x", "0X")):
            raise AttrError("expected a hex string ('0x...') in the dense literal")
        try:
            raw = bytes.fromhex(hexstr[2:])
        except ValueError:
            raise AttrError("hex string in dense literal is invalid") from None
        if len(raw) == itemsize and n != 1:
            raw = raw * n
        if len(raw) != n * itemsize:
            raise AttrError(
                f"dense literal has {len(raw) // itemsize} elements but the type '{typ}' needs {n}"
            )
        return DenseIntOrFPElementsAttr(typ, BytesAttr(raw))

    if body == "":
        if n != 0:
            raise AttrError(f"empty dense literal, but the type '{typ}' has {n} elements")
        return DenseIntOrFPElementsAttr(typ, BytesAttr(b""))

    data = _json_body(body)
    try:
        arr = np.array(data)
    except ValueError:
        raise AttrError(
            "dense literal is not a well-formed nested list (ragged dimensions)"
        ) from None
    if arr.dtype == object or arr.dtype.kind in "US":
        raise AttrError("dense literal elements must be numbers or booleans")
    arr_shape = arr.shape[:-1] if complex_elt else arr.shape
    if complex_elt and (arr.ndim == 0 or arr.shape[-1] != 2):
        raise AttrError("complex dense elements must be written as (real, imag) pairs")
    if arr_shape == ():
        # Splat: one value for every element.
        arr = np.broadcast_to(arr, shape + ((2,) if complex_elt else ()))
    elif tuple(arr_shape) != shape:
        raise AttrError(
            f"dense literal shape {list(arr_shape)} does not match the type shape {list(shape)}"
        )

    if isinstance(base, IntegerType | IndexType):
        if arr.dtype.kind == "f":
            raise AttrError(f"floating point value in a dense literal of integer type '{elt}'")
        if isinstance(base, IntegerType) and base.width.data == 1:
            # xDSL stores i1 `true` as all ones (the signed 1-bit value -1).
            arr = np.where(arr.astype(bool), -1, 0)
        else:
            _check_int_range(arr, base)
            if arr.dtype.kind not in "bi":
                # Beyond int64 (uint64 or Python ints): wrap to the bit pattern by hand.
                flat = [int(x) % 2**64 for x in arr.reshape(-1)]
                arr = np.array(flat, dtype=np.uint64).reshape(arr.shape).view(np.int64)
            # The C cast keeps the low bits: signless values above the signed
            # range become negative, as xDSL normalizes them.
            arr = arr.astype(dtype)
    elif arr.dtype.kind == "b":
        raise AttrError(f"boolean value in a dense literal of type '{elt}'")
    raw = np.ascontiguousarray(arr, dtype=dtype).tobytes()
    return DenseIntOrFPElementsAttr(typ, BytesAttr(raw))


def dense_from_blob(raw: bytes, typ: Attribute) -> DenseIntOrFPElementsAttr:
    """A resource blob's data (raw little-endian elements) with its shaped type."""
    import numpy as np

    shape, elt = _static_shaped(typ, "dense_resource")
    complex_elt = isinstance(elt, ComplexType)
    dtype = _np_dtype(elt.element_type if complex_elt else elt)
    if dtype is None:
        raise AttrError(f"dense elements of type '{elt}' are not supported")
    itemsize = dtype.itemsize * (2 if complex_elt else 1)
    n = math.prod(shape)
    if len(raw) != n * itemsize:
        raise AttrError(
            f"the resource blob holds {len(raw)} bytes but the type '{typ}' needs {n * itemsize}"
        )
    if isinstance(elt, IntegerType) and elt.width.data == 1:
        # One byte per i1 in a blob; xDSL stores `true` as all ones.
        raw = np.where(np.frombuffer(raw, np.uint8) != 0, 0xFF, 0).astype(np.uint8).tobytes()
    return DenseIntOrFPElementsAttr(typ, BytesAttr(raw))


def dense_array(elt: Attribute, values: list[tuple[str, str]]) -> DenseArrayBase:
    """``array<i32: 1, 2>`` -> DenseArrayBase (``values`` are (kind, text) pairs)."""
    if isinstance(elt, IntegerType):
        ints = []
        for kind, text in values:
            if kind == "FLOAT":
                raise AttrError("floating point value in an integer dense array")
            v = 1 if kind == "TRUE_KW" else 0 if kind == "FALSE_KW" else parse_int(text)
            try:
                elt.verify_value(v)
            except VerifyException as e:
                raise AttrError(str(e)) from None
            ints.append(v)
        return DenseArrayBase.from_list(elt, ints)
    if isinstance(elt, AnyFloat):
        floats = []
        for kind, text in values:
            if kind in ("TRUE_KW", "FALSE_KW"):
                raise AttrError("boolean value in a floating point dense array")
            floats.append(float(text) if kind == "FLOAT" else float(parse_int(text)))
        return DenseArrayBase.from_list(elt, floats)
    raise AttrError("dense array element type must be an integer or floating point type")


def parse_dims(text: str | None) -> list[int] | None:
    """``2x?x3x`` -> [2, DYNAMIC_INDEX, 3]; ``*x`` -> None (unranked); no token -> []."""
    if text is None:
        return []
    if text == "*x":
        return None
    return [DYNAMIC_INDEX if d == "?" else int(d) for d in text[:-1].split("x")]
