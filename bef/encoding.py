"""Constants and primitive encodings of the Binary Executable Format (BEF).

This is the single place that knows the numbers of the format: the magic
bytes, the version, the section ids, the attribute type codes, the location
record kinds, alignments and the VBR integer encoding.  The writer
(``tfrt.bef.writer``), the reader (``tfrt.bef.reader``) and the disassembler
all import their constants from here.  ``docs/bef_format.md`` describes how
they fit together.

Standard library only: the executor imports this module.

The values follow TFRT (``include/tfrt/bef/bef_encoding.h`` and
``include/tfrt/dtype/dtype.def``) so that a BEF file written here has the
layout TFRT's reader expects.
"""

from __future__ import annotations

from enum import IntEnum

# ---------------------------------------------------------------------------
# File header

MAGIC = b"\x0b\xef"
# Version 0 was TFRT's function-body layout (kernel records with used-by
# lists and a pseudo kernel); version 1 stores each function body as
# fixed-width columns (see docs/bef_format.md).
VERSION = 1
HEADER = MAGIC + bytes([VERSION])


class SectionId(IntEnum):
    """Section ids, in the order the writer emits them."""

    STRINGS = 0
    ATTRIBUTES = 1
    KERNELS = 2
    TYPES = 3
    FUNCTION_INDEX = 4
    FUNCTIONS = 5
    LOCATION_STRINGS = 6
    LOCATIONS = 7
    ATTRIBUTE_TYPES = 8
    ATTRIBUTE_NAMES = 9
    REGISTER_TYPES = 10
    # Our extension (TFRT's reader skips unknown sections): the names of the
    # attributes that hold function references, so that bef -> mlir can give
    # `tfrt.cond`'s `a_true_fn`/`b_false_fn` back instead of TFRT's `callee`.
    FUNCTION_REF_NAMES = 11


SECTION_NAMES: dict[int, str] = {
    SectionId.STRINGS: "Strings",
    SectionId.ATTRIBUTES: "Attributes",
    SectionId.KERNELS: "Kernels",
    SectionId.TYPES: "Types",
    SectionId.FUNCTION_INDEX: "FunctionIndex",
    SectionId.FUNCTIONS: "Functions",
    SectionId.LOCATION_STRINGS: "LocationStrings",
    SectionId.LOCATIONS: "Locations",
    SectionId.ATTRIBUTE_TYPES: "AttributeTypes",
    SectionId.ATTRIBUTE_NAMES: "AttributeNames",
    SectionId.REGISTER_TYPES: "RegisterTypes",
    SectionId.FUNCTION_REF_NAMES: "FunctionRefNames",
}

# Sections every BEF file carries (TFRT's emitter always writes them).
REQUIRED_SECTIONS = (
    SectionId.STRINGS,
    SectionId.ATTRIBUTES,
    SectionId.KERNELS,
    SectionId.TYPES,
    SectionId.FUNCTION_INDEX,
    SectionId.FUNCTIONS,
)

# Only used by bef -> mlir; the executor ignores them.
OPTIONAL_SECTIONS = (
    SectionId.ATTRIBUTE_TYPES,
    SectionId.ATTRIBUTE_NAMES,
    SectionId.REGISTER_TYPES,
)


class FunctionKind(IntEnum):
    """FunctionIndex entry kinds (same values as ``tfrt.bef.program``)."""

    ASYNC = 0  # a BEF function run by the dataflow executor
    NATIVE = 1  # no body: a Python callable registered under the name
    SYNC = 2  # a BEF function run kernel after kernel (`tfrt.sync`)


# ---------------------------------------------------------------------------
# Alignment and padding

PADDING_BYTE = 0xCC  # the value of every alignment gap the writer emits
TENSOR_ALIGNMENT = 8  # dense tensor payloads
MAX_ATTRIBUTE_ALIGNMENT = 8  # a buffer holding a BEF file must be this aligned

# Location offsets the writer hands out for locations BEF cannot encode count
# down from here; every offset at or past the Locations section's end means
# "unknown".
VIRTUAL_LOCATION_BASE = 0xFFFFFFFF

# Location and attribute offsets are u32.
U32_MAX = 0xFFFFFFFF

# ---------------------------------------------------------------------------
# Function bodies (version 1): a header of four u32 words, then columns.

BODY_HEADER_WORDS = 4  # location, kernel count, column widths, root stream
BODY_ALIGNMENT = 4


class Column(IntEnum):
    """The columns of a function body, in file order.  The first eight have
    one entry per kernel (kernel-table order); the next three hold the
    concatenated operand registers, attribute offsets and function indices of
    every kernel; the last the function's returned registers."""

    CODE = 0
    LOCATION = 1
    NUM_ARGS = 2
    NUM_ATTRS = 3
    NUM_FUNCS = 4
    NUM_RESULTS = 5
    STREAM = 6
    ORDER = 7
    ARGS = 8
    ATTRS = 9
    FUNCS = 10
    RETURNS = 11


NUM_COLUMNS = len(Column)
# Each column's entry width is a 2-bit code in the header's widths word:
# 0 -> every entry is 0 and the column takes no bytes, 1/2/3 -> u8/u16/u32.
WIDTH_BYTES = (0, 1, 2, 4)


def width_code(max_value: int) -> int:
    """The narrowest width code holding every value up to ``max_value``."""
    if max_value <= 0:
        return 0
    if max_value <= 0xFF:
        return 1
    if max_value <= 0xFFFF:
        return 2
    return 3

# Aggregate attributes and locations nest; readers and writers refuse deeper
# nesting so that decoding stays bounded (and recursion stays shallow).
MAX_NESTING = 128


def align_up(offset: int, alignment: int) -> int:
    """The smallest multiple of ``alignment`` (a power of two) >= ``offset``."""
    return (offset + alignment - 1) & ~(alignment - 1)


def padding_for(offset: int, alignment: int) -> int:
    """How many bytes take ``offset`` up to a multiple of ``alignment``."""
    return (-offset) & (alignment - 1)


def is_power_of_two(value: int) -> bool:
    return value > 0 and (value & (value - 1)) == 0


# ---------------------------------------------------------------------------
# VBR integers
#
# An unsigned integer split into 7-bit groups, most significant group first;
# every byte but the last has bit 7 set (300 -> 0x82 0x2C).  This is the
# opposite group order of LEB128.

MAX_VBR_BYTES = 10  # enough for 64-bit values; longer encodings are corrupt


class VbrError(Exception):
    """A VBR integer that runs past its buffer or is longer than 64 bits."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


def encode_vbr(value: int) -> bytes:
    """The VBR bytes of a non-negative integer."""
    if value < 0:
        raise ValueError(f"VBR integers are unsigned, got {value}")
    if value < 0x80:
        return bytes((value,))
    groups = []
    while True:
        groups.append(value & 0x7F)
        value >>= 7
        if not value:
            break
    groups.reverse()
    return bytes([g | 0x80 for g in groups[:-1]] + [groups[-1]])


def append_vbr(out: bytearray, value: int) -> None:
    """Append the VBR bytes of ``value`` to ``out``."""
    if 0 <= value < 0x80:
        out.append(value)
    else:
        out += encode_vbr(value)


def vbr_size(value: int) -> int:
    """How many bytes ``encode_vbr(value)`` takes."""
    size = 1
    while value >= 0x80:
        value >>= 7
        size += 1
    return size


def decode_vbr(buf, pos: int, end: int) -> tuple[int, int]:
    """Decode the VBR integer at ``buf[pos:end]``; returns (value, next pos).

    Raises :class:`VbrError` when the integer is truncated by ``end`` or
    longer than :data:`MAX_VBR_BYTES`.
    """
    start = pos
    value = 0
    while True:
        if pos >= end:
            raise VbrError("truncated VBR integer", start)
        byte = buf[pos]
        pos += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, pos
        if pos - start >= MAX_VBR_BYTES:
            raise VbrError(f"VBR integer longer than {MAX_VBR_BYTES} bytes", start)


# ---------------------------------------------------------------------------
# Element types (TFRT's DType) and attribute type codes (BEFAttributeType)


# Element types, numbered as TFRT's ``dtype.def``: one enum for the whole
# runtime, defined with the host tensors (value 0 means "no dtype").
from tfrt.tensor.dtype import SMALL_FLOATS, SUB_BYTE_INTS, DType  # noqa: E402


FIRST_DTYPE = 1
LAST_DTYPE = 24  # one past QI32, as TFRT's DType::LastDType


# (byte size, alignment, numpy dtype string, printed name) of each dtype the
# format stores by value.  The numpy string of bf16 is None: numpy has no
# bfloat16 (``ml_dtypes`` provides one when it is installed).
DTYPE_INFO: dict[int, tuple[int, int, str | None, str]] = {
    DType.UI8: (1, 1, "<u1", "ui8"),
    DType.UI16: (2, 2, "<u2", "ui16"),
    DType.UI32: (4, 4, "<u4", "ui32"),
    DType.UI64: (8, 8, "<u8", "ui64"),
    DType.I1: (1, 1, "?", "i1"),
    DType.I8: (1, 1, "<i1", "i8"),
    DType.I16: (2, 2, "<i2", "i16"),
    DType.I32: (4, 4, "<i4", "i32"),
    DType.I64: (8, 8, "<i8", "i64"),
    DType.F32: (4, 4, "<f4", "f32"),
    DType.F64: (8, 8, "<f8", "f64"),
    DType.COMPLEX64: (8, 4, "<c8", "complex64"),
    DType.COMPLEX128: (16, 8, "<c16", "complex128"),
    DType.F16: (2, 2, "<f2", "f16"),
    DType.BF16: (2, 2, None, "bf16"),
    DType.QUI8: (1, 1, "<u1", "qui8"),
    DType.QUI16: (2, 2, "<u2", "qui16"),
    DType.QI8: (1, 1, "<i1", "qi8"),
    DType.QI16: (2, 2, "<i2", "qi16"),
    DType.QI32: (4, 4, "<i4", "qi32"),
    # MLIR's small floats and sub-byte integers (ours): one element per byte,
    # the bits in the low bits, as ml_dtypes stores them (numpy string None:
    # the dtype comes from ml_dtypes through DType.np_dtype).
    **{dt: (1, 1, None, dt.short_name) for dt in (*SMALL_FLOATS, DType.I2, DType.I4)},
    DType.UI2: (1, 1, None, "ui2"),
    DType.UI4: (1, 1, None, "ui4"),
}

# The dtype codes past TFRT's enum (see tfrt.tensor.dtype).
SMALL_DTYPES = frozenset({*SMALL_FLOATS, *SUB_BYTE_INTS})

# Element types a dense attribute may hold (TFRT refuses strings, resources,
# variants and the quantized types there).
DENSE_DTYPES = frozenset(
    {
        DType.UI8, DType.UI16, DType.UI32, DType.UI64,
        DType.I1, DType.I8, DType.I16, DType.I32, DType.I64,
        DType.BF16, DType.F16, DType.F32, DType.F64,
        DType.COMPLEX64, DType.COMPLEX128,
        *SMALL_FLOATS, *SUB_BYTE_INTS,
    }
)  # fmt: skip


class AttrType(IntEnum):
    """BEF attribute type codes (TFRT's ``BEFAttributeType``).

    Codes 1..23 are the scalar dtypes (``DType``): an integer, float or
    string attribute is tagged with its dtype.  A fixed-width array is
    ``ARRAY_FLAG | element code`` (see :func:`array_of`).
    """

    UNSUPPORTED = 0
    TYPE = 25  # a type attribute: one byte holding a DType
    FUNC = 26  # a function name (corert op attributes); stored like a string
    SHAPE = 27  # #corert.shape<...>
    DENSE = 28  # dense elements (a tensor constant)
    SYMBOL_REF = 29  # a reference into a `tfrt.compiled` module
    AGGREGATE = 30  # a heterogeneous (or nested) array
    ARRAY_FLAG = 0x80
    EMPTY_ARRAY = 0x80 | 8  # an empty array is encoded as an empty i32 array


SCALAR_MASK = 0x7F


def is_array_code(code: int) -> bool:
    return bool(code & AttrType.ARRAY_FLAG)


def element_code(code: int) -> int:
    """The element type code of an array type code."""
    return code & SCALAR_MASK


def is_fixed_code(code: int) -> bool:
    """Whether attributes of this code may be packed into a fixed-width array."""
    if code == AttrType.TYPE:
        return True
    return is_dtype_code(code) and code != DType.STRING


def is_dtype_code(code: int) -> bool:
    """Whether ``code`` is a DType value (TFRT's 1..23, or one of ours)."""
    return FIRST_DTYPE <= code < LAST_DTYPE or code in SMALL_DTYPES


def array_of(code: int) -> int:
    """The array type code whose elements have type ``code``."""
    if not is_fixed_code(code):
        raise ValueError(f"attribute type {code} cannot be an array element")
    return AttrType.ARRAY_FLAG | code


def fixed_element_size(code: int) -> int:
    """(byte size) of one element of a fixed-width array element code."""
    if code == AttrType.TYPE:
        return 1
    return DTYPE_INFO[code][0]


def fixed_element_alignment(code: int) -> int:
    if code == AttrType.TYPE:
        return 1
    return DTYPE_INFO[code][1]


def is_valid_attr_code(code: int) -> bool:
    """Whether ``code`` names an attribute type the format can hold."""
    if is_array_code(code):
        return is_fixed_code(element_code(code)) and element_code(code) in _ARRAY_ELEMENT_CODES
    return code in _SCALAR_CODES or code in (
        AttrType.TYPE, AttrType.FUNC, AttrType.SHAPE, AttrType.DENSE,
        AttrType.SYMBOL_REF, AttrType.AGGREGATE,
    )  # fmt: skip


# Scalar attribute codes the writer produces (integers, floats, strings) and
# the element codes of fixed-width arrays.
_SCALAR_CODES = frozenset(
    {
        DType.UI8, DType.UI16, DType.UI32, DType.UI64,
        DType.I1, DType.I8, DType.I16, DType.I32, DType.I64,
        DType.F32, DType.F64, DType.F16, DType.BF16, DType.STRING,
        *SMALL_FLOATS, *SUB_BYTE_INTS,
    }
)  # fmt: skip
_ARRAY_ELEMENT_CODES = (_SCALAR_CODES - {DType.STRING}) | {AttrType.TYPE}


def attr_type_name(code: int) -> str:
    """A readable name for an attribute type code (for messages)."""
    if is_array_code(code):
        return f"array<{attr_type_name(element_code(code))}>"
    if code in DTYPE_INFO:
        return DTYPE_INFO[code][3]
    if code == DType.STRING:
        return "string"
    try:
        return AttrType(code).name.lower()
    except ValueError:
        return f"unknown({code})"


# Layout of the `BefAttrBase` header of shape, dense and aggregate
# attributes: u8 alignment, u8 dtype, u16 prefix_size, u32 byte_size.
ATTR_BASE_SIZE = 8
SHAPE_PREFIX_SIZE = ATTR_BASE_SIZE + 4  # + u32 rank; i64 dims follow
DENSE_DIMS_OFFSET = ATTR_BASE_SIZE + 12  # + element_offset, count, rank
AGGREGATE_OFFSETS_OFFSET = ATTR_BASE_SIZE + 4  # + u32 count; u32 offsets follow


# ---------------------------------------------------------------------------
# Location records


class LocationKind(IntEnum):
    UNKNOWN = 0  # 0x00
    FILE_LINE_COL = 1  # 0x01 VBR file VBR line VBR col
    NAME = 2  # 0x02 VBR name LOCATION child
    CALL_SITE = 3  # 0x03 LOCATION callee LOCATION caller
    FUSED = 4  # 0x04 VBR n LOCATION*n
