"""MLIR (xDSL IR) -> BEF bytes.

``write_bef(module)`` turns a module of ``func.func`` ops whose bodies hold
kernel ops into a BEF file, with the layout of TFRT's ``ConvertMLIRToBEF``
(``lib/bef_converter/mlir_to_bef``): the same sections in the same order, the
same attribute encodings and alignment, the same function, kernel and
location numbering.  ``docs/bef_format.md`` is the specification.

Ops are generic here: a kernel's name is the op name, its attributes are the
op's properties and attributes merged and sorted by name (as MLIR's
attribute dictionary is), and unregistered ops work like registered ones.
``tfrt.return`` ends every function and region.

Conversion happens in three steps, as in TFRT:

1. *collect*: walk the module in post-order (a region's anonymous function
   comes before the op and function that hold it) and gather strings,
   attributes, kernel names, types and functions, checking what BEF cannot
   express;
2. emit the string table (sorted), the attributes, kernel names and types;
3. emit the function bodies, their locations and the optional sections;
   each kernel's stream id comes from ``tfrt.passes.stream_analysis``.

Bad input raises ``tfrt.diagnostics.DiagnosticError`` at the op's location,
with TFRT's messages.
"""

from __future__ import annotations

import gc
import io
import re
import struct
import sys
from array import array
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FloatAttr,
    FusedLoc,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    StringAttr,
    SymbolRefAttr,
    UnknownLoc,
    UnregisteredOp,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue, TypeAttribute
from xdsl.printer import Printer

from tfrt.bef import encoding as enc
from tfrt.bef import program
from tfrt.bef.encoding import AttrType, DType, LocationKind, SectionId
from tfrt.diagnostics import Diagnostic, DiagnosticError, SourceLoc
from tfrt.dialects.base import dialect_attr_name, type_dtype
from tfrt.passes.stream_analysis import StreamAnalysis

RETURN_OP = "tfrt.return"
COST_ATTR = "_tfrt_cost"  # scheduling hint for the compiler; never emitted
# Where place-devices put a kernel: read in the IR, not by the kernel (which
# runs where its operands live); never emitted.
PLACEMENT_ATTR = "tfrt.device"
# xDSL keeps operand/result segment sizes as properties; they describe the
# op's structure, not a kernel input, so BEF leaves them out.
STRUCTURAL_ATTRS = frozenset({"operandSegmentSizes", "resultSegmentSizes"})

# Ops whose verifier, in TFRT's dialects, checks their function references.
# When the op's dialect did not run that check (unregistered, or a dialect
# without it), the writer reports a missing callee with that verifier's
# words, as TFRT's tfrt_translate would.
_CALLEE_VERIFIED_OPS: dict[str, tuple[str, ...]] = {
    "tfrt.call": ("callee",),
    "tfrt.cond": ("a_true_fn", "b_false_fn"),
    "tfrt.parallel_call.i32": ("callee",),
    "corert.cond": ("a_true_fn", "b_false_fn"),
    "corert.while": ("a_cond_fn", "b_body_fn"),
    "tfrt_test.sync_benchmark": ("target_fn",),
}

# Dialect types that type attributes may name, by their dialect name.
_SHAPE_TEXT = re.compile(r"#corert\.shape<(.*)>\Z", re.S)
_LITTLE_ENDIAN = sys.byteorder == "little"


def write_bef(module: ModuleOp, *, optional_sections: bool = True) -> bytes:
    """Encode ``module`` as a BEF file.

    With ``optional_sections`` (the default) the file also carries the
    AttributeTypes, AttributeNames and RegisterTypes sections (and our
    FunctionRefNames section) that ``bef_to_module`` needs to rebuild the
    MLIR; the executor ignores them.

    Example::

        func.func @add() -> i32 {
          %x = tfrt.constant.i32 1
          %y = tfrt.add.i32 %x, %x
          tfrt.return %y : i32
        }

    becomes one async function with 3 registers and 3 kernel-table entries
    (the pseudo kernel, ``tfrt.constant.i32``, ``tfrt.add.i32``).
    """
    gc_was_enabled = gc.isenabled()
    gc.disable()  # many small objects, no cycles: spare the cyclic GC
    try:
        return _ModuleWriter(module, optional_sections).write()
    finally:
        if gc_was_enabled:
            gc.enable()


# ---------------------------------------------------------------------------
# Small helpers over xDSL IR


def op_name(op: Operation) -> str:
    """The name BEF stores for an op: the real name of unregistered ops too."""
    if isinstance(op, UnregisteredOp):
        return op.op_name.data
    return op.name


def op_attributes(op: Operation) -> list[tuple[str, Attribute]]:
    """Properties and attributes of ``op``, sorted by name as MLIR does."""
    merged: dict[str, Attribute] = dict(op.properties)
    for name, value in op.attributes.items():
        if name == "op_name__" and isinstance(op, UnregisteredOp):
            continue
        merged[name] = value
    return sorted(merged.items())


def source_loc(loc: Attribute | None) -> SourceLoc | None:
    """The first file:line:col inside an xDSL location, for diagnostics."""
    stack = [loc]
    while stack:
        cur = stack.pop()
        if isinstance(cur, FileLineColLoc):
            return SourceLoc(cur.filename.data, cur.line.data, cur.column.data)
        if isinstance(cur, NameLoc):
            stack.append(cur.location)
        elif isinstance(cur, CallSiteLoc):
            stack.extend((cur.caller, cur.callee))
        elif isinstance(cur, FusedLoc):
            stack.extend(reversed(cur.locations.data))
    return None


_PRINT_CACHE: dict[Attribute, str] = {}


def print_attr(attr: Attribute) -> str:
    """MLIR text of a type or attribute (what the Types section stores)."""
    text = _PRINT_CACHE.get(attr)
    if text is None:
        buf = io.StringIO()
        Printer(stream=buf).print_attribute(attr)
        text = buf.getvalue()
        if len(_PRINT_CACHE) < 4096:
            _PRINT_CACHE[attr] = text
    return text


def shape_dims(attr: Attribute) -> tuple[int, ...] | None | bool:
    """Dims of a ``#corert.shape`` (None: unranked); False when not a shape."""
    if dialect_attr_name(attr) != "corert.shape":
        return False
    m = _SHAPE_TEXT.match(print_attr(attr))
    if m is None:
        return False
    body = m.group(1).strip()
    if body == "*":
        return None
    if not body:
        return ()
    dims = []
    for part in body.split("x"):
        part = part.strip()
        if part == "?":
            dims.append(-1)
        elif re.fullmatch(r"\d+", part):
            dims.append(int(part))
        else:
            return False
    return tuple(dims)


def is_flat_symbol(attr: Attribute) -> bool:
    return isinstance(attr, SymbolRefAttr) and not attr.nested_references.data


def symbol_text(ref: SymbolRefAttr) -> str:
    """``@root::@nested`` as MLIR prints a symbol reference."""
    return "@" + ref.root_reference.data + "".join("::@" + r.data for r in ref.nested_references.data)


def _post_order(op: Operation) -> Iterator[Operation]:
    """Ops under ``op`` (excluded) in MLIR's post-order walk, skipping the
    contents of ``tfrt.compiled`` modules."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                if _is_compiled_module(child):
                    continue
                yield from _post_order(child)
                yield child


def _is_compiled_module(op: Operation) -> bool:
    return isinstance(op, ModuleOp) and "tfrt.compiled" in op.attributes


def _sym_name(op: Operation) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return name.data if isinstance(name, StringAttr) else None


# ---------------------------------------------------------------------------
# Attribute classification and encoding


def _int_mask(width: int) -> int:
    return (1 << width) - 1


def attr_key(attr: Attribute) -> Any:
    """Identity of an attribute for uniquing, as MLIR's uniquer sees it:
    floats by their bits (so 0.0 and -0.0 differ), integers modulo their
    width (so `true` is one attribute however it was built)."""
    if isinstance(attr, FloatAttr):
        return ("f", attr.type, struct.pack("<d", attr.value.data))
    if isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType):
        return ("i", attr.type, attr.value.data & _int_mask(attr.type.width.data))
    if isinstance(attr, ArrayAttr):
        return ("a", tuple(attr_key(a) for a in attr.data))
    return attr


def attr_type_code(attr: Attribute, depth: int = 0) -> int:
    """The BEF attribute type code of ``attr``; ``AttrType.UNSUPPORTED`` when
    BEF cannot encode it (symbol refs are handled by the caller)."""
    if isinstance(attr, IntegerAttr):
        t = attr.type
        if not isinstance(t, IntegerType):
            return AttrType.UNSUPPORTED
        return int(type_dtype(t) or AttrType.UNSUPPORTED)
    if isinstance(attr, FloatAttr):
        code = type_dtype(attr.type)
        floats = (DType.BF16, DType.F16, DType.F32, DType.F64, *enc.SMALL_FLOATS)
        return int(code) if code in floats else 0
    if isinstance(attr, StringAttr):
        return DType.STRING
    if isinstance(attr, DenseIntOrFPElementsAttr):
        code = type_dtype(attr.get_element_type())
        if code not in enc.DENSE_DTYPES:
            return AttrType.UNSUPPORTED
        if any(d < 0 for d in attr.get_shape()):
            return AttrType.UNSUPPORTED
        if enc.DENSE_DIMS_OFFSET + 8 * len(attr.get_shape()) > 0xFFFF:
            return AttrType.UNSUPPORTED  # the prefix size is a u16
        return AttrType.DENSE
    if isinstance(attr, ArrayAttr):
        if depth >= enc.MAX_NESTING:
            return AttrType.UNSUPPORTED
        elements = attr.data
        if not elements:
            return AttrType.EMPTY_ARRAY
        codes = [attr_type_code(e, depth + 1) for e in elements]
        if AttrType.UNSUPPORTED in codes or AttrType.SYMBOL_REF in codes:
            return AttrType.UNSUPPORTED
        first = codes[0]
        if enc.is_fixed_code(first) and all(c == first for c in codes):
            return enc.array_of(first)
        if enc.AGGREGATE_OFFSETS_OFFSET + 4 * len(elements) > 0xFFFF:
            return AttrType.UNSUPPORTED  # the prefix size is a u16
        return AttrType.AGGREGATE
    if isinstance(attr, SymbolRefAttr):
        return AttrType.SYMBOL_REF
    dims = shape_dims(attr)
    if dims is not False:
        return AttrType.SHAPE
    if isinstance(attr, TypeAttribute):
        dtype = type_dtype(attr)
        return AttrType.TYPE if dtype is not None else AttrType.UNSUPPORTED
    return AttrType.UNSUPPORTED


def _attr_alignment(attr: Attribute) -> int:
    """The alignment an aggregate reserves for an element (TFRT's
    ``BefAttrEmitter::GetAlignment``)."""
    if isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType):
        return max(1, attr.type.width.data // 8)
    if isinstance(attr, FloatAttr):
        return enc.DTYPE_INFO[type_dtype(attr.type)][0]
    if isinstance(attr, StringAttr):
        return 4
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return enc.TENSOR_ALIGNMENT
    if isinstance(attr, ArrayAttr):
        return max(8, _max_alignment(attr))
    dims = shape_dims(attr)
    if dims is not False:
        return 8 if dims is not None else 1
    return 1  # types, symbol refs


def _max_alignment(attr: ArrayAttr) -> int:
    return max([1, *(_attr_alignment(e) for e in attr.data)])


_SUB_BYTE_WIDTHS = {DType.I2: 2, DType.I4: 4, DType.UI2: 2, DType.UI4: 4}


def _float_bits(value: float, dtype: DType) -> bytes:
    if dtype == DType.F64:
        return struct.pack("<d", value)
    if dtype == DType.F32:
        return np.array(value, dtype="<f4").tobytes()
    if dtype == DType.F16:
        return np.array(value, dtype="<f2").tobytes()
    if dtype in enc.SMALL_FLOATS:
        from tfrt.tensor.small_types import convert

        return np.asarray(convert(np.float64(value), dtype.np_dtype)).tobytes()
    return struct.pack("<H", _bf16_bits(value))


def _bf16_bits(value: float) -> int:
    try:
        import ml_dtypes

        return int(np.array(value, dtype=ml_dtypes.bfloat16).view(np.uint16))
    except ImportError:  # round to nearest even from the f32 bits
        bits = int(np.array(value, dtype="<f4").view("<u4"))
        if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
            return (bits >> 16) | 0x40
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


class _Emitter:
    """A growing byte buffer that tracks the alignment its contents need
    (TFRT's ``BefEmitter``): a nested emitter is appended at that alignment."""

    __slots__ = ("buf", "alignment")

    def __init__(self) -> None:
        self.buf = bytearray()
        self.alignment = 1

    def size(self) -> int:
        return len(self.buf)

    def align(self, alignment: int) -> None:
        if alignment < 2:
            return
        pad = enc.padding_for(len(self.buf), alignment)
        if pad:
            self.buf += bytes([enc.PADDING_BYTE]) * pad
        self.alignment = max(self.alignment, alignment)

    def pad(self, alignment: int, count: int) -> None:
        """Emit ``count`` padding bytes, recording ``alignment``."""
        self.buf += bytes([enc.PADDING_BYTE]) * count
        self.alignment = max(self.alignment, alignment)

    def vbr(self, value: int) -> None:
        enc.append_vbr(self.buf, value)

    def u32(self, value: int) -> None:
        self.align(4)
        self.buf += struct.pack("<I", value)

    def emit(self, other: "_Emitter") -> None:
        self.align(other.alignment)
        self.buf += other.buf


class _AttributeEmitter(_Emitter):
    """Emits attribute payloads; every ``emit_*`` returns the offset at which
    the attribute starts (what kernels store)."""

    def emit_attribute(self, attr: Attribute, code: int, depth: int = 0) -> int:
        if enc.is_array_code(code):
            return self._emit_array(attr, code)
        if code == AttrType.DENSE:
            return self._emit_dense(attr)
        if code == AttrType.AGGREGATE:
            return self._emit_aggregate(attr, depth)
        if code == AttrType.SHAPE:
            dims = shape_dims(attr)
            return self._emit_shape(dims)
        if code == AttrType.TYPE:
            self.buf.append(type_dtype(attr))
            return len(self.buf) - 1
        if code == DType.STRING:
            return self._emit_string(attr.data.encode("utf-8", "surrogateescape"))
        if code in (DType.F32, DType.F64, DType.F16, DType.BF16) or code in enc.SMALL_FLOATS:
            size = enc.DTYPE_INFO[code][0]
            self.align(size)
            offset = len(self.buf)
            self.buf += _float_bits(attr.value.data, DType(code))
            return offset
        # Integers: little-endian at their natural alignment, i1 as one byte.
        size = enc.DTYPE_INFO[code][0]
        width = _SUB_BYTE_WIDTHS.get(code, 1 if code == DType.I1 else size * 8)
        value = attr.value.data & _int_mask(width)
        if size == 1:
            self.buf.append(value)
            return len(self.buf) - 1
        self.align(size)
        offset = len(self.buf)
        self.buf += value.to_bytes(size, "little")
        return offset

    def _emit_empty(self) -> int:
        self.u32(0)
        return len(self.buf) - 4

    def _emit_array_header(self, count: int, payload_alignment: int) -> int:
        if payload_alignment <= 4:
            self.align(4)
        else:  # pad before the count so that the elements are aligned
            self.pad(payload_alignment, enc.padding_for(len(self.buf) + 4, payload_alignment))
        offset = len(self.buf)
        self.buf += struct.pack("<I", count)
        return offset

    def _emit_string(self, data: bytes) -> int:
        if not data:
            return self._emit_empty()
        offset = self._emit_array_header(len(data), 1)
        self.buf += data
        return offset

    def _emit_array(self, attr: ArrayAttr, code: int) -> int:
        elements = attr.data
        if not elements:
            return self._emit_empty()
        elem = enc.element_code(code)
        offset = self._emit_array_header(len(elements), enc.fixed_element_alignment(elem))
        for element in elements:
            self.emit_attribute(element, elem)
        return offset

    def _emit_header(self, alignment: int, dtype: int, prefix: int, byte_size: int) -> int:
        """A ``BefAttrBase`` placed so that ``offset + prefix`` is aligned."""
        self.pad(alignment, enc.padding_for(len(self.buf) + prefix, alignment))
        offset = len(self.buf)
        self.buf += struct.pack("<BBHI", alignment, dtype, prefix, byte_size & enc.U32_MAX)
        return offset

    def _emit_shape(self, dims: tuple[int, ...] | None) -> int:
        if dims is None:
            return self._emit_empty()
        prefix = enc.SHAPE_PREFIX_SIZE
        offset = self._emit_header(8, 0, prefix, prefix + 8 * len(dims))
        self.buf += struct.pack("<I", len(dims))
        self.buf += struct.pack(f"<{len(dims)}q", *dims)
        return offset

    def _emit_dense(self, attr: DenseIntOrFPElementsAttr) -> int:
        dims = tuple(attr.get_shape())
        dtype = type_dtype(attr.get_element_type())
        elem_size = enc.DTYPE_INFO[dtype][0]
        count = 1
        for d in dims:
            count *= d
        data = attr.data.data
        if len(data) == elem_size and count != 1:  # a splat held once
            data = data * count
        if dtype == DType.I1:  # one byte per element, 0 or 1
            data = (np.frombuffer(data, np.uint8) != 0).astype(np.uint8).tobytes()
        elif dtype in _SUB_BYTE_WIDTHS:  # the low bits of a byte each (xDSL sign-extends)
            data = (np.frombuffer(data, np.uint8) & ((1 << _SUB_BYTE_WIDTHS[dtype]) - 1)).astype(np.uint8).tobytes()
        prefix = enc.DENSE_DIMS_OFFSET + 8 * len(dims)
        offset = self._emit_header(enc.TENSOR_ALIGNMENT, dtype, prefix, prefix + len(data))
        self.buf += struct.pack("<III", prefix, count & enc.U32_MAX, len(dims))
        self.buf += struct.pack(f"<{len(dims)}q", *dims)
        self.buf += data
        return offset

    def _emit_aggregate(self, attr: ArrayAttr, depth: int) -> int:
        elements = attr.data
        if not elements:
            return self._emit_empty()
        n = len(elements)
        alignment = max(_max_alignment(attr), 4)
        offset = self._emit_header(alignment, 0, enc.AGGREGATE_OFFSETS_OFFSET + 4 * n, 0)
        self.buf += struct.pack("<I", n)
        table = len(self.buf)
        self.buf += bytes(4 * n)
        for i, element in enumerate(elements):
            # One byte ahead of each element holds its type code; when the
            # element needs alignment the code lands in the last pad byte.
            self.buf.append(enc.PADDING_BYTE)
            code = attr_type_code(element, depth + 1)
            element_offset = self.emit_attribute(element, code, depth + 1)
            self.buf[element_offset - 1] = code
            struct.pack_into("<I", self.buf, table + 4 * i, element_offset - offset)
        struct.pack_into("<I", self.buf, offset + 4, len(self.buf) - offset)
        return offset

    def emit_symbol_ref(self, unit_id: int, ref: SymbolRefAttr, module_text: bytes) -> int:
        """A reference into a ``tfrt.compiled`` module: sizes as VBRs, then the
        symbol names (concatenated), the module's text and a NUL."""
        offset = len(self.buf)
        root = ref.root_reference.data.encode()
        nested = [r.data.encode() for r in ref.nested_references.data]
        self.vbr(unit_id)
        self.vbr(len(root))
        self.vbr(len(nested))
        for n in nested:
            self.vbr(len(n))
        self.vbr(len(module_text))
        self.buf += root + b"".join(nested) + module_text + b"\0"
        return offset


# ---------------------------------------------------------------------------
# Locations


def _location_supported(loc: Attribute) -> bool:
    if isinstance(loc, (UnknownLoc, NameLoc, FileLineColLoc)):
        return True
    if isinstance(loc, CallSiteLoc):
        return _location_supported(loc.callee) and _location_supported(loc.caller)
    if isinstance(loc, FusedLoc):
        return any(_location_supported(c) for c in loc.locations.data)
    return False


class _LocationEmitter(_Emitter):
    """The Locations section and its strings: one record per request (never
    deduplicated, so every op has its own offset)."""

    def __init__(self) -> None:
        super().__init__()
        self.strings = _Emitter()
        self._string_offsets: dict[str, int] = {}
        self._virtual = enc.VIRTUAL_LOCATION_BASE
        self.concrete = 0

    def _string(self, text: str) -> None:
        offset = self._string_offsets.get(text)
        if offset is None:
            offset = len(self.strings.buf)
            self.strings.buf += text.encode("utf-8", "surrogateescape") + b"\0"
            self._string_offsets[text] = offset
        self.vbr(offset)

    def op_location(self, loc: Attribute) -> int:
        if not _location_supported(loc):
            # TFRT hands out offsets past any real one for what it cannot encode.
            self._virtual -= 1
            return self._virtual
        self.concrete += 1
        offset = len(self.buf)
        self._emit(loc, 0)
        return offset

    def _emit(self, loc: Attribute, depth: int) -> None:
        if depth >= enc.MAX_NESTING or not _location_supported(loc):
            self.buf.append(LocationKind.UNKNOWN)
        elif isinstance(loc, UnknownLoc):
            self.buf.append(LocationKind.UNKNOWN)
        elif isinstance(loc, FileLineColLoc):
            self.buf.append(LocationKind.FILE_LINE_COL)
            self._string(loc.filename.data)
            self.vbr(max(loc.line.data, 0))
            self.vbr(max(loc.column.data, 0))
        elif isinstance(loc, NameLoc):
            self.buf.append(LocationKind.NAME)
            self._string(loc.desc.data)
            self._emit(loc.location, depth + 1)
        elif isinstance(loc, CallSiteLoc):
            self.buf.append(LocationKind.CALL_SITE)
            self._emit(loc.callee, depth + 1)
            self._emit(loc.caller, depth + 1)
        else:  # FusedLoc with at least one encodable child
            children = [c for c in loc.locations.data if _location_supported(c)]
            self.buf.append(LocationKind.FUSED)
            self.vbr(len(children))
            for child in children:
                self._emit(child, depth + 1)


# ---------------------------------------------------------------------------
# Collection (TFRT's EntityTable)


@dataclass
class _Function:
    name: str
    kind: int
    region: Region | None  # None: native
    owner: Operation  # the func.func or the op holding the region
    arg_types: list[Attribute]
    result_types: list[Attribute]


@dataclass
class _Entities:
    strings: set[str] = field(default_factory=set)
    attributes: dict[Any, Attribute] = field(default_factory=dict)  # key -> attr
    attribute_codes: dict[Any, int] = field(default_factory=dict)
    kernels: dict[str, int] = field(default_factory=dict)
    types: dict[str, int] = field(default_factory=dict)
    type_texts: dict[Attribute, str] = field(default_factory=dict)
    functions: list[_Function] = field(default_factory=list)
    region_ids: dict[int, int] = field(default_factory=dict)  # id(region) -> index
    named: dict[str, int] = field(default_factory=dict)


class _ModuleWriter:
    def __init__(self, module: ModuleOp, optional_sections: bool):
        self.module = module
        self.optional = optional_sections
        self.e = _Entities()
        self.diags: list[Diagnostic] = []
        self._symbol_tables: dict[int, dict[str, Operation]] = {}
        self._units: dict[SymbolRefAttr, tuple[int, bytes]] = {}

    # -- diagnostics -------------------------------------------------------

    def _error(self, message: str, op: Operation | None) -> None:
        loc = source_loc(op.location) if op is not None else None
        self.diags.append(Diagnostic("error", message, loc))

    # -- entity table ------------------------------------------------------

    def _add_type(self, t: Attribute) -> None:
        text = self.e.type_texts.get(t)
        if text is None:
            text = print_attr(t)
            self.e.type_texts[t] = text
        if text not in self.e.types:
            self.e.types[text] = len(self.e.types)
            self.e.strings.add(text)

    def _type_index(self, t: Attribute) -> int:
        return self.e.types[self.e.type_texts[t]]

    def _add_attribute_types(self, attr: Attribute) -> None:
        """TFRT records the types of integer and float attributes (also inside
        arrays) in the Types section when it writes the optional sections."""
        if isinstance(attr, (IntegerAttr, FloatAttr)):
            self._add_type(attr.type)
        elif isinstance(attr, ArrayAttr):
            for element in attr.data:
                self._add_attribute_types(element)

    def _add_function(self, region: Region, name: str, kind: int, owner: Operation) -> bool:
        if len(region.blocks) != 1:
            self._error("multi-block regions cannot be emitted to BEF files", owner)
            return False
        block = region.blocks.first
        last = block.last_op
        if last is None or op_name(last) != RETURN_OP:
            self._error("all functions need to have a tfrt.return", last or owner)
            return False
        for arg in block.args:
            self._add_type(arg.type)
        self.e.strings.add(name)
        index = len(self.e.functions)
        self.e.region_ids[id(region)] = index
        if name:
            self.e.named[name] = index
        self.e.functions.append(
            _Function(
                name,
                kind,
                region,
                owner,
                [a.type for a in block.args],
                [v.type for v in last.operands],
            )
        )
        return True

    def _lookup_symbol(self, ref: SymbolRefAttr) -> Operation | None:
        table_op: Operation | None = self.module
        found: Operation | None = None
        for name in (ref.root_reference.data, *(r.data for r in ref.nested_references.data)):
            if table_op is None:
                return None
            table = self._symbol_tables.get(id(table_op))
            if table is None:
                table = {}
                if table_op.regions and table_op.regions[0].blocks:
                    for child in table_op.regions[0].blocks.first.ops:
                        sym = _sym_name(child)
                        if sym is not None:
                            table.setdefault(sym, child)
                self._symbol_tables[id(table_op)] = table
            found = table.get(name)
            table_op = found
        return found

    @staticmethod
    def _in_compiled_module(op: Operation) -> bool:
        cur: Operation | None = op
        while cur is not None:
            if _is_compiled_module(cur):
                return True
            cur = cur.parent_op()
        return False

    def _collect(self) -> None:
        fn_refs: list[tuple[SymbolRefAttr, Operation, str]] = []
        for op in _post_order(self.module):
            name = op_name(op)
            if name == RETURN_OP:
                block = op.parent_block()
                if block is not None and block.last_op is not op:
                    self._error("return op must be at the end of its block", op)
                if not self._operands_local(op):
                    self._error(
                        "BEF executor only supports references to kernels within"
                        " the current region",
                        op,
                    )
                continue
            for result in op.results:
                self._add_type(result.type)
            if not self._operands_local(op):
                self._error(
                    "BEF executor only supports references to kernels within the current region",
                    op,
                )
                continue
            if isinstance(op, FuncOp):
                self._collect_function(op)
                continue
            if name not in self.e.kernels:
                self.e.kernels[name] = len(self.e.kernels)
                self.e.strings.add(name)
            if not self._collect_attributes(op, name, fn_refs):
                continue
            for region in op.regions:
                if not self._add_function(region, "", enc.FunctionKind.ASYNC, op):
                    break

        if self.diags:
            return
        # Every function reference must name a BEF (or native) function.
        for ref, op, attr_name in fn_refs:
            defined = ref.root_reference.data in self.e.named
            if defined and is_flat_symbol(ref):
                continue
            if defined:  # a nested reference that is not into a compiled module
                self._unsupported(op, attr_name)
                return
            kernel = op_name(op)
            if attr_name in _CALLEE_VERIFIED_OPS.get(kernel, ()):
                self._error(
                    f"'{kernel}' op '{ref.root_reference.data}' does not reference a valid"
                    " function",
                    op,
                )
            else:
                self._error(f"function {symbol_text(ref)} not defined", op)
            return

    def _operands_local(self, op: Operation) -> bool:
        region = op.parent_region()
        for operand in op.operands:
            owner = operand.owner
            block = owner if isinstance(owner, Block) else owner.parent_block()
            if block is None or block.parent is not region:
                return False
        return True

    def _collect_function(self, op: FuncOp) -> None:
        name = op.sym_name.data
        if "tfrt.native" in op.attributes:
            ftype = op.function_type
            for t in (*ftype.inputs.data, *ftype.outputs.data):
                self._add_type(t)
            self.e.strings.add(name)
            self.e.named[name] = len(self.e.functions)
            self.e.functions.append(
                _Function(
                    name,
                    enc.FunctionKind.NATIVE,
                    None,
                    op,
                    list(ftype.inputs.data),
                    list(ftype.outputs.data),
                )
            )
            return
        if not op.body.blocks:
            self._error("external functions are not allowed", op)
            return
        last = op.body.blocks.first.last_op
        if last is None or op_name(last) != RETURN_OP:
            self._error("all functions need to have a tfrt.return", last or op)
            return
        sync = "tfrt.sync" in op.attributes
        if sync:
            seen: set[SSAValue] = set()
            for index, operand in enumerate(last.operands):
                if isinstance(operand, BlockArgument):
                    self._error(f"return value {index} is an argument in a sync function", last)
                    return
                if operand in seen:
                    self._error(f"return value {index} is duplicated in a sync function", last)
                    return
                seen.add(operand)
        kind = enc.FunctionKind.SYNC if sync else enc.FunctionKind.ASYNC
        self._add_function(op.body, name, kind, op)

    def _collect_attributes(self, op: Operation, name: str, fn_refs: list) -> bool:
        for attr_name, value in op_attributes(op):
            if attr_name in (COST_ATTR, PLACEMENT_ATTR) or attr_name in STRUCTURAL_ATTRS:
                continue
            if is_flat_symbol(value):
                fn_refs.append((value, op, attr_name))
                continue
            if isinstance(value, ArrayAttr) and value.data and isinstance(
                value.data[0], SymbolRefAttr
            ):
                if not all(is_flat_symbol(v) for v in value.data):
                    return self._unsupported(op, attr_name)
                fn_refs.extend((v, op, attr_name) for v in value.data)
                if self.optional:
                    self.e.strings.add(attr_name)
                continue
            if isinstance(value, SymbolRefAttr):
                target = self._lookup_symbol(value)
                if target is None or not self._in_compiled_module(target):
                    fn_refs.append((value, op, attr_name))
                    continue
                code = AttrType.SYMBOL_REF
            else:
                code = attr_type_code(value)
                if code == AttrType.UNSUPPORTED:
                    return self._unsupported(op, attr_name)
            if self.optional:
                self.e.strings.add(attr_name)
                self._add_attribute_types(value)
            key = attr_key(value)
            if key not in self.e.attributes:
                self.e.attributes[key] = value
                self.e.attribute_codes[key] = code
        return True

    def _unsupported(self, op: Operation, attr_name: str) -> bool:
        # TFRT reports only the first unsupported attribute, and only when
        # nothing else failed before it.
        if not self.diags:
            self._error(f"BEF files cannot encode the '{attr_name}' attribute", op)
        return False

    # -- compilation units --------------------------------------------------

    def _compilation_unit(self, ref: SymbolRefAttr) -> tuple[int, bytes]:
        unit = self._units.get(ref)
        if unit is None:
            target = self._lookup_symbol(ref)
            parent = target.parent_op() if target is not None else None
            while parent is not None and not isinstance(parent, ModuleOp):
                parent = parent.parent_op()
            # Generic form, as TFRT prints compilation units: the most stable
            # syntax, which xDSL's own parser reads back.
            buf = io.StringIO()
            Printer(stream=buf, print_generic_format=True).print_op(parent)
            text = buf.getvalue()
            unit = (len(self._units), text.encode("utf-8", "surrogateescape"))
            self._units[ref] = unit
        return unit

    # -- emission ----------------------------------------------------------

    def write(self) -> bytes:
        self._collect()
        if self.diags:
            raise DiagnosticError(self.diags)
        e = self.e
        out = _Emitter()
        out.buf += enc.HEADER

        # Strings, sorted by their bytes.
        strings = _Emitter()
        string_offsets: dict[str, int] = {}
        for s in sorted(e.strings, key=lambda s: s.encode("utf-8", "surrogateescape")):
            string_offsets[s] = len(strings.buf)
            strings.buf += s.encode("utf-8", "surrogateescape") + b"\0"
        _section(out, SectionId.STRINGS, strings)

        # Attributes, in first-seen order.
        attrs = _AttributeEmitter()
        attr_types = _Emitter()
        attr_offsets: dict[Any, int] = {}
        attr_types.vbr(len(e.attributes))
        for key, value in e.attributes.items():
            code = e.attribute_codes[key]
            if code == AttrType.SYMBOL_REF:
                unit_id, text = self._compilation_unit(value)
                offset = attrs.emit_symbol_ref(unit_id, value, text)
            else:
                offset = attrs.emit_attribute(value, code)
            attr_offsets[key] = offset
            attr_types.vbr(offset)
            attr_types.vbr(code)
        _section(out, SectionId.ATTRIBUTES, attrs)

        kernels = _Emitter()
        kernels.vbr(len(e.kernels))
        for name in e.kernels:
            kernels.vbr(string_offsets[name])
        _section(out, SectionId.KERNELS, kernels)

        types = _Emitter()
        types.vbr(len(e.types))
        for text in e.types:
            types.vbr(string_offsets[text])
        _section(out, SectionId.TYPES, types)

        locations = _LocationEmitter()
        attr_names = _Emitter() if self.optional else None
        reg_types = _Emitter() if self.optional else None
        ref_names = _Emitter() if self.optional else None
        for em in (attr_names, reg_types, ref_names):
            if em is not None:
                em.vbr(len(e.functions))
        functions = _FunctionsEmitter(self, attr_offsets, string_offsets, locations)
        offsets = []
        for fn in e.functions:
            if fn.region is not None:
                functions.align(enc.BODY_ALIGNMENT)
            offsets.append(functions.size())
            if fn.region is not None:
                functions.emit_function(fn, attr_names, reg_types, ref_names)

        index = _Emitter()
        index.vbr(len(e.functions))
        for fn, offset in zip(e.functions, offsets):
            index.buf.append(fn.kind)
            index.vbr(offset)
            index.vbr(string_offsets[fn.name])
            index.vbr(len(fn.arg_types))
            for t in fn.arg_types:
                index.vbr(self._type_index(t))
            index.vbr(len(fn.result_types))
            for t in fn.result_types:
                index.vbr(self._type_index(t))
        _section(out, SectionId.FUNCTION_INDEX, index)
        _section(out, SectionId.FUNCTIONS, functions)

        if locations.concrete:
            _section(out, SectionId.LOCATION_STRINGS, locations.strings)
            _section(out, SectionId.LOCATIONS, locations)
        if self.optional:
            _section(out, SectionId.ATTRIBUTE_TYPES, attr_types)
            _section(out, SectionId.ATTRIBUTE_NAMES, attr_names)
            _section(out, SectionId.REGISTER_TYPES, reg_types)
            _section(out, SectionId.FUNCTION_REF_NAMES, ref_names)
        return bytes(out.buf)


def _section(out: _Emitter, section_id: int, payload: _Emitter) -> None:
    """``id VBR(len << 1 | has_align) [align 0xCC*] payload``: the alignment
    byte is written only when the payload would otherwise start misaligned."""
    out.buf.append(section_id)
    length = len(payload.buf) << 1
    alignment = payload.alignment
    if alignment > 1 and (len(out.buf) + enc.vbr_size(length)) % alignment:
        out.vbr(length | 1)
        out.buf.append(alignment)
        out.align(alignment)
    else:
        out.vbr(length)
    out.buf += payload.buf


class _FunctionsEmitter(_Emitter):
    """The Functions section: one body per non-native function."""

    def __init__(
        self,
        writer: _ModuleWriter,
        attr_offsets: dict[Any, int],
        string_offsets: dict[str, int],
        locations: _LocationEmitter,
    ):
        super().__init__()
        self.w = writer
        self.attr_offsets = attr_offsets
        self.strings = string_offsets
        self.locations = locations

    def emit_function(
        self,
        fn: _Function,
        attr_names: _Emitter | None,
        reg_types: _Emitter | None,
        ref_names: _Emitter | None,
    ) -> None:
        w = self.w
        e = w.e
        block = fn.region.blocks.first
        self.align(enc.BODY_ALIGNMENT)
        location = self.locations.op_location(fn.owner.location)

        # Registers: block arguments, then every result in op order (the
        # format numbers them so; the file does not store result registers).
        regs: dict[SSAValue, int] = {}
        values: list[SSAValue] = []
        for arg in block.args:
            regs[arg] = len(values)
            values.append(arg)
        kernel_ops = []
        return_op = None
        for op in block.ops:
            if op_name(op) == RETURN_OP:
                return_op = op
                continue
            kernel_ops.append(op)
            for result in op.results:
                regs[result] = len(values)
                values.append(result)
        if reg_types is not None:
            reg_types.vbr(len(values))
            for v in values:
                reg_types.vbr(w._type_index(v.type))
        n = len(kernel_ops)
        if attr_names is not None:
            attr_names.vbr(n)
        if ref_names is not None:
            ref_names.vbr(n)

        # Stream ids tell the executor which kernels to run inline and which
        # to enqueue; TFRT's mlir_to_bef computes them per block this way.
        streams = StreamAnalysis(block)

        cols: list[list[int]] = [[] for _ in range(enc.NUM_COLUMNS)]
        C = enc.Column
        users: list[list[int]] = [[] for _ in values]  # earliest use first
        for k, op in enumerate(kernel_ops):
            attrs, funcs = self._kernel_attributes(op, attr_names, ref_names)
            operands = [regs[v] for v in op.operands]
            for r in operands:
                users[r].append(k)
            cols[C.CODE].append(e.kernels[op_name(op)])
            cols[C.LOCATION].append(self.locations.op_location(op.location))
            cols[C.NUM_ARGS].append(len(operands))
            cols[C.NUM_ATTRS].append(len(attrs))
            cols[C.NUM_FUNCS].append(len(funcs))
            cols[C.NUM_RESULTS].append(len(op.results))
            cols[C.STREAM].append(streams.stream_of(op).id)
            cols[C.ARGS].extend(operands)
            cols[C.ATTRS].extend(attrs)
            cols[C.FUNCS].extend(funcs)
        if return_op is not None:
            cols[C.RETURNS].extend(regs[v] for v in return_op.operands)

        # The order the executor runs the kernels in when every value is
        # available: computed once here, checked by the reader.
        latest_first = [u[::-1] for u in users]
        result_users = [
            [latest_first[regs[r]] for r in op.results] for op in kernel_ops
        ]
        cols[C.ORDER] = program.dataflow_order(
            n,
            [k for k, op in enumerate(kernel_ops) if not op.operands],
            latest_first[: len(block.args)],
            result_users,
            cols[C.NUM_ARGS],
        )
        if len(cols[C.ORDER]) != n:  # a kernel that can never run (a use before its definition)
            w._error("an operand is used before its definition", fn.owner)
            cols[C.ORDER] = list(range(n))

        widths = 0
        data = bytearray()
        for c in C:
            values_c = cols[c]
            code = enc.width_code(max(values_c, default=0))
            if c >= C.ARGS and values_c and code == 0:
                code = 1  # a non-empty flat column always takes bytes
            widths |= code << (2 * c)
            width = enc.WIDTH_BYTES[code]
            if width:
                arr = array(_ARRAY_CODES[width], values_c)
                if not _LITTLE_ENDIAN:
                    arr.byteswap()
                data += arr.tobytes()
                data += bytes([enc.PADDING_BYTE]) * enc.padding_for(len(data), enc.BODY_ALIGNMENT)
        self.buf += struct.pack("<4I", location, n, widths, streams.root_stream.id)
        self.buf += data

    def _kernel_attributes(
        self,
        op: Operation,
        attr_names: _Emitter | None,
        ref_names: _Emitter | None,
    ) -> tuple[list[int], list[int]]:
        """The kernel's attribute offsets and function indices (references in
        attribute-name order, then one per region); writes the optional
        sections' entries for it."""
        e = self.w.e
        attr_words: list[int] = []
        func_words: list[int] = []
        groups: list[tuple[str, int, bool]] = []
        for name, value in op_attributes(op):
            if name in (COST_ATTR, PLACEMENT_ATTR) or name in STRUCTURAL_ATTRS:
                continue
            if isinstance(value, ArrayAttr) and value.data and is_flat_symbol(value.data[0]):
                func_words.extend(e.named[v.root_reference.data] for v in value.data)
                groups.append((name, len(value.data), True))
                continue
            if is_flat_symbol(value):
                func_words.append(e.named[value.root_reference.data])
                groups.append((name, 1, False))
                continue
            if attr_names is not None:
                attr_names.vbr(self.strings[name])
            attr_words.append(self.attr_offsets[attr_key(value)])
        for region in op.regions:
            func_words.append(e.region_ids[id(region)])
        if ref_names is not None:
            ref_names.vbr(len(groups))
            for name, count, is_array in groups:
                ref_names.vbr(count << 1 | is_array)
                data = name.encode("utf-8", "surrogateescape")
                ref_names.vbr(len(data))
                ref_names.buf += data
        return attr_words, func_words


_ARRAY_CODES = {1: "B", 2: "H", 4: "I"}
