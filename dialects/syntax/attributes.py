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
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E3M4Type,
    Float8E4M3B11FNUZType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E4M3Type,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    Float80Type,
    Float128Type,
    FloatAttr,
    FloatData,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ReducedPrecisionFloatType,
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
    "f8E4M3FN": Float8E4M3FNType(),
    "f8E5M2": Float8E5M2Type(),
    "f8E4M3FNUZ": Float8E4M3FNUZType(),
    "f8E5M2FNUZ": Float8E5M2FNUZType(),
    "f8E4M3B11FNUZ": Float8E4M3B11FNUZType(),
    "f8E4M3": Float8E4M3Type(),
    "f8E3M4": Float8E3M4Type(),
    "f8E8M0FNU": Float8E8M0FNUType(),
    "f6E2M3FN": Float6E2M3FNType(),
    "f6E3M2FN": Float6E3M2FNType(),
    "f4E2M1FN": Float4E2M1FNType(),
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
        value = parse_int(text)
        # i64 as MLIR's parser: a signed value, or its unsigned bit pattern.
        if not -(1 << 63) <= value < (1 << 64):
            raise AttrError("integer constant out of range for attribute")
        return IntegerAttr(value, i64)
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
            if bits.bit_length() > float_bit_width(typ):
                raise AttrError(f"hexadecimal float constant out of range for type '{typ}'")
            raw = bits.to_bytes(typ.compile_time_size, "little")
            dtype = small_float_dtype(typ)
            if dtype is not None:
                import numpy as np

                # ml_dtypes keeps a NaN's sign (0xFF : f8E4M3FN), which
                # FloatAttr's constructor would drop; the value is exact.
                value = float(np.frombuffer(raw, dtype).astype(np.float64)[0])
                return FloatAttr.new((FloatData(value), typ))
            return FloatAttr(next(typ.iter_unpack(raw)), typ)
        return _float_value_attr(float(parse_int(text)), typ)
    raise AttrError(
        f"invalid type '{typ}' for an integer literal; expected an integer, index or float type"
    )


def float_attr(text: str, typ: Attribute | None) -> Attribute:
    if typ is None:
        return FloatAttr(float(text), f64)
    if not isinstance(typ, AnyFloat):
        raise AttrError("floating point value not valid for specified type")
    return _float_value_attr(float(text), typ)


def float_bit_width(typ: Attribute) -> int:
    """Bits of a float type as MLIR counts them (f4E2M1FN: 4, f6E2M3FN: 6)."""
    return int(getattr(typ, "bitwidth", 8 * typ.compile_time_size))


def _float_value_attr(value: float, typ: Attribute) -> FloatAttr:
    """A float literal of type ``typ``, rounded to it as MLIR's parser does
    (to nearest, ties to even, with the type's overflow rules)."""
    dtype = small_float_dtype(typ)
    if dtype is None:
        return FloatAttr(value, typ)
    import numpy as np

    from tfrt.tensor.small_types import convert

    if value < 0 and str(typ) == "f8E8M0FNU":
        raise AttrError(f"negative value {value} for '{typ}', which has no sign")
    return FloatAttr(float(convert(np.float64(value), dtype)), typ)


def small_float_dtype(typ: Attribute):
    """The ml_dtypes dtype of bf16 and the 8/6/4-bit float types, else None."""
    if not isinstance(typ, ReducedPrecisionFloatType | BFloat16Type):
        return None
    from tfrt.tensor.small_types import FLOAT_TYPES as small

    return small.get(str(typ))


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
    """The numpy dtype of one element of a dense attribute's raw data.

    That data is xDSL's: i2/i4 (and ui2/ui4) take a byte each, sign-extended
    for signless and signed types (what ``DenseIntOrFPElementsAttr`` reads
    back and prints); the small floats take a byte each, their bits in the
    low bits (MLIR's and ml_dtypes' layout)."""
    import numpy as np

    if isinstance(elt, IntegerType):
        width = elt.width.data
        unsigned = elt.signedness.data == Signedness.UNSIGNED
        if width == 1:
            return np.dtype("<i1")
        if width in (2, 4):
            return np.dtype("<u1" if unsigned else "<i1")
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
    return small_float_dtype(elt)


def sub_byte_width(elt: Attribute) -> int:
    """2 or 4 for i2/i4 (any signedness), else 0."""
    if isinstance(elt, IntegerType) and elt.width.data in (2, 4):
        return elt.width.data
    return 0


def from_mlir_layout(raw: bytes, elt: Attribute) -> bytes:
    """Raw element data as MLIR lays it out (a hex dense literal, a resource
    blob) -> xDSL's: a sub-byte integer's byte holds its bits in the low bits
    (the high bits are ignored, as MLIR's reader ignores them); signless and
    signed ones are sign-extended.  Sub-byte floats keep MLIR's layout with
    the unused high bits cleared."""
    import numpy as np

    width = sub_byte_width(elt)
    if width:
        low = np.frombuffer(raw, np.uint8) & np.uint8((1 << width) - 1)
        if elt.signedness.data != Signedness.UNSIGNED:
            low = ((low.astype(np.int16) ^ (1 << (width - 1))) - (1 << (width - 1))).astype(np.int8)
        return low.tobytes()
    bits = float_bit_width(elt) if isinstance(elt, AnyFloat) else 0
    if bits and bits < 8:
        return (np.frombuffer(raw, np.uint8) & np.uint8((1 << bits) - 1)).tobytes()
    return raw


def to_mlir_layout(raw: bytes, elt: Attribute) -> bytes:
    """xDSL's raw element data -> MLIR's (and ml_dtypes'): sub-byte integers
    keep only their low bits."""
    width = sub_byte_width(elt)
    if not width:
        return raw
    import numpy as np

    return (np.frombuffer(raw, np.uint8) & np.uint8((1 << width) - 1)).tobytes()


# A hexadecimal integer that is a whole element (not part of a float literal).
_HEX_INT = re.compile(r"(?<![\w.])(-?)0[xX]([0-9a-fA-F]+)")
_BOOLEAN = re.compile(r"\b(?:true|false)\b")
# `1.` and `1.e3`: MLIR float literals that JSON does not read.
_BARE_DOT = re.compile(r"(?<=[0-9])\.(?![0-9])")
# Decimal numbers with leading zeros (`09.0`, `007`), which MLIR reads and JSON does not.
_LEADING_ZEROS = re.compile(r"(?<![0-9A-Za-z_.])0+(?=[0-9])")


def _json_body(body: str, hex_as_bits: bool = False):
    """The nested lists of a dense literal's body.  ``hex_as_bits``: hex
    elements become strings (``"0x7F"``), bit patterns of a float type;
    otherwise integers."""
    text = body.replace("(", "[").replace(")", "]")
    try:
        return json.loads(text)
    except ValueError:
        pass
    # Forms JSON lacks (rare, so the slow path is fine): hexadecimal
    # integers, and floats written `1.` or `1.e3`.
    fixed = _LEADING_ZEROS.sub("", _BARE_DOT.sub(".0", text))
    if hex_as_bits:
        fixed = _HEX_INT.sub(lambda m: f'"{m.group(1)}0x{m.group(2)}"', fixed)
    else:
        fixed = _HEX_INT.sub(lambda m: m.group(1) + str(int(m.group(2), 16)), fixed)
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


def _small_float_elements(data, dtype, elt: Attribute):
    """A nested list of numbers and hex bit patterns (``"0x7F"``) -> an array
    of the small float ``dtype``: numbers rounded to nearest even, bit
    patterns taken as they are."""
    import numpy as np

    from tfrt.tensor.small_types import convert

    try:
        arr = np.array(data)
    except ValueError:
        raise AttrError("dense literal is not a well-formed nested list (ragged dimensions)") from None
    if arr.dtype.kind == "b":
        raise AttrError(f"boolean value in a dense literal of type '{elt}'")
    if arr.dtype.kind in "iuf":
        values = arr.astype(np.float64)
        if str(elt) == "f8E8M0FNU" and (np.signbit(values) & (values != 0)).any():
            raise AttrError(f"negative value in a dense literal of type '{elt}', which has no sign")
        return convert(values, dtype)
    if arr.dtype.kind not in "OU":
        raise AttrError("dense literal elements must be numbers or booleans")
    # Mixed numbers and bit patterns (or bit patterns only): element by element.
    try:
        arr = np.array(data, dtype=object)
    except ValueError:
        raise AttrError("dense literal is not a well-formed nested list (ragged dimensions)") from None
    if any(isinstance(v, list) for v in arr.reshape(-1).tolist()):
        raise AttrError("dense literal is not a well-formed nested list (ragged dimensions)")
    width = float_bit_width(elt)
    flat = arr.reshape(-1)
    bits = np.zeros(flat.size, np.dtype(f"u{dtype.itemsize}"))
    for i, v in enumerate(flat.tolist()):
        if isinstance(v, str):
            if v.startswith("-"):
                raise AttrError("hexadecimal float literal should not have a leading minus")
            try:
                b = int(v, 16)
            except ValueError:
                raise AttrError("dense literal elements must be numbers or booleans") from None
            if b.bit_length() > width:
                raise AttrError(f"hexadecimal float constant out of range for type '{elt}': {v}")
        elif isinstance(v, bool) or not isinstance(v, (int, float)):
            raise AttrError(f"dense literal elements must be numbers, not {v!r}")
        else:
            if v < 0 and str(elt) == "f8E8M0FNU":
                raise AttrError(f"negative value in a dense literal of type '{elt}', which has no sign")
            b = int(np.asarray(convert(np.float64(v), dtype)).view(bits.dtype))
        bits[i] = b
    return bits.view(dtype).reshape(arr.shape)


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
        return DenseIntOrFPElementsAttr(typ, BytesAttr(from_mlir_layout(raw, base)))

    if body == "":
        if n != 0:
            raise AttrError(f"empty dense literal, but the type '{typ}' has {n} elements")
        return DenseIntOrFPElementsAttr(typ, BytesAttr(b""))

    small = small_float_dtype(base) is not None and not complex_elt
    # A hexadecimal element of a float type is its bit pattern (MLIR's
    # `dense<0x7F800000> : tensor<2xf32>` is +inf), as for the small floats.
    small = small or (isinstance(base, AnyFloat) and not complex_elt and _HEX_INT.search(body) is not None)
    data = _json_body(body, hex_as_bits=small)
    if small:
        if _BOOLEAN.search(body):
            raise AttrError(f"boolean value in a dense literal of type '{elt}': dense literal elements must be numbers")
        arr = _small_float_elements(data, dtype, base)
    else:
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

    if small:
        pass
    elif isinstance(base, IntegerType | IndexType):
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
            width = sub_byte_width(base)
            if width and base.signedness.data != Signedness.UNSIGNED:
                # Signless i4 takes -8..15: 15 is the bit pattern of -1.
                half = 1 << (width - 1)
                arr = ((arr.astype(np.int64) + half) & ((1 << width) - 1)) - half
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
    elif not complex_elt:
        raw = from_mlir_layout(raw, elt)
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
    """``2x?x3x`` -> [2, DYNAMIC_INDEX, 3]; ``*x`` -> None (unranked); no token -> [].

    MLIR lets blanks stand around each ``x`` (``vector<4 x i32>``).  A scalable
    dimension ``[8]`` is an error here: only vectors have them
    (:func:`parse_vector_dims`)."""
    if text is None:
        return []
    if " " in text or "\t" in text:
        text = text.replace(" ", "").replace("\t", "")
    if text == "*x":
        return None
    if "[" in text:
        raise AttrError("scalable dimensions are only allowed in vector types")
    return [DYNAMIC_INDEX if d == "?" else int(d) for d in text[:-1].split("x")]


def parse_vector_dims(text: str | None) -> tuple[list[int], list[bool]]:
    """A vector shape: ``4x[8]x`` -> ([4, 8], [False, True]) (``[n]`` is a
    scalable dimension, as in MLIR's ``vector<[8]xi64>``)."""
    if text is None:
        return [], []
    text = text.replace(" ", "").replace("\t", "")
    if text == "*x":
        raise AttrError("vector types must have a static shape")
    shape: list[int] = []
    scalable: list[bool] = []
    for d in text[:-1].split("x"):
        if d == "?":
            raise AttrError("vector types must have a static shape")
        if d.startswith("["):
            shape.append(int(d[1:-1]))
            scalable.append(True)
        else:
            shape.append(int(d))
            scalable.append(False)
    return shape, scalable
