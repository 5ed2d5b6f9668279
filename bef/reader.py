"""BEF bytes -> a ``tfrt.bef.program.BefFile``, checked before use.

``read_bef(data_or_path)`` maps a file (or takes bytes) and checks the
header, the section table, the string, kernel and type tables and the
function index.  Function bodies (fixed-width columns, see
docs/bef_format.md) are decoded and checked when first used, with numpy over
the mapped bytes: every index in range, the execution order a permutation
in which each operand is defined before its user runs.  ``lazy=False`` (the
default) checks everything before returning; the executor's loaders pass
``lazy=True`` so that a file costs what its called functions cost.
Anything wrong raises :class:`BEFFormatError`, naming the section, the
absolute file offset and what is wrong.  The reader never allocates much
more than the file: every count is checked against the bytes left before
anything is built from it.

Registers are numbered by the format (the arguments, then each kernel's
results in order), so each is defined exactly once, and use counts and
used-by lists are derived, not stored: the dataflow executor cannot wait
for ever on a kernel nobody will trigger.

Attributes are decoded lazily by ``BefFile.attribute(offset, type_code)``
(all of them, to verify them, when the AttributeTypes section is first
consulted).  Locations are decoded when a diagnostic needs them.  Dense
tensors decode to read-only numpy arrays over the mapped bytes, without a
copy.

Standard library and numpy only: no xdsl, no lark (the executor imports
this module, and a test enforces it).
"""

from __future__ import annotations

import bisect
import gc
import mmap
import os
import struct
from collections.abc import Mapping
from typing import Any

import numpy as np

from tfrt.bef import encoding as enc
from tfrt.bef import program
from tfrt.bef.encoding import SMALL_FLOATS, AttrType, DType, LocationKind, SectionId

_U32 = struct.Struct("<I")
_ATTR_BASE = struct.Struct("<BBHI")


class BEFFormatError(Exception):
    """A malformed BEF file: which section, where (absolute file offset) and
    what is wrong."""

    def __init__(self, section: str | None, offset: int, message: str):
        self.section = section
        self.offset = offset
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"BEF {self.section} section" if self.section else "BEF file"
        return f"{where} at offset {self.offset}: {self.message}"


def read_bef(data_or_path: Any, *, lazy: bool = False) -> program.BefFile:
    """Load a BEF file.

    ``data_or_path`` is a path (``str`` or ``os.PathLike``; the file is mapped
    with mmap, read-only) or a bytes-like object.  Raises
    :class:`BEFFormatError` for malformed contents (and ``OSError`` when a
    path cannot be opened).

    The header, section table, strings, kernel and type tables and the
    function index are always checked here.  With ``lazy=False`` everything
    else is too (``BefFile.verify()``); with ``lazy=True`` each function body
    is checked when first used (``Function.columns``), each location when
    decoded, and the AttributeTypes table when first consulted: loading
    costs time in proportion to the header, not to the kernels.
    """
    if isinstance(data_or_path, (str, os.PathLike)):
        with open(data_or_path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            source: Any = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    else:
        source = data_or_path
    try:
        view = memoryview(source)
    except TypeError:
        raise BEFFormatError(None, 0, f"cannot read a BEF file from {type(source).__name__}")
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")
    # Decoding builds many small objects and no cycles: keep the cyclic GC
    # from scanning them over and over.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        bef = _Reader(source, view).read()
        if not lazy:
            bef.verify()
        return bef
    finally:
        if gc_was_enabled:
            gc.enable()


def _name(section_id: int) -> str:
    return enc.SECTION_NAMES.get(section_id, f"#{section_id}")



_TWO_U32 = struct.Struct("<2I").unpack_from
_WIDTH_BYTES = tuple(enc.WIDTH_BYTES)

class _Reader:
    def __init__(self, source: Any, view: memoryview):
        self.source = source
        self.buf = view
        # Slices of a bytes or mmap source are bytes at once (body keys).
        self._bytes = source if type(source) is bytes or type(source) is mmap.mmap else None
        self.size = len(view)
        self.sections: dict[int, tuple[int, int]] = {}
        self._string_cache: dict[tuple[int, int], str] = {}
        self._attr_cache: dict[tuple[int, int], Any] = {}
        self._loc_cache: dict[int, program.Location] = {}

    # -- primitives ----------------------------------------------------------

    def _fail(self, section: int | None, offset: int, message: str):
        raise BEFFormatError(_name(section) if section is not None else None, offset, message)

    def _vbr(self, pos: int, end: int, section: int) -> tuple[int, int]:
        buf = self.buf
        if pos < end:
            byte = buf[pos]
            if byte < 0x80:  # the common one-byte case
                return byte, pos + 1
        try:
            return enc.decode_vbr(buf, pos, end)
        except enc.VbrError as e:
            self._fail(section, e.offset, e.message)

    def _count(self, pos: int, end: int, section: int, what: str, min_bytes: int = 1):
        """A VBR count that must fit in what is left (each entry >= min_bytes)."""
        n, p = self._vbr(pos, end, section)
        if n * min_bytes > end - p:
            self._fail(section, pos, f"{what} count {n} exceeds the {end - p} bytes left")
        return n, p

    def _range(self, section: int) -> tuple[int, int]:
        return self.sections.get(section, (0, 0))

    # -- file structure ------------------------------------------------------

    def read(self) -> program.BefFile:
        buf = self.buf
        if self.size == 0:
            self._fail(None, 0, "the file is empty (no BEF bytes)")
        if self.size < 3 or buf[0] != enc.MAGIC[0] or buf[1] != enc.MAGIC[1]:
            self._fail(None, 0, "invalid BEF file header (expected magic bytes 0B EF)")
        if buf[2] != enc.VERSION:
            self._fail(
                None,
                2,
                f"unsupported BEF format version {buf[2]} (this reader supports version "
                f"{enc.VERSION})",
            )
        self._read_sections()
        self._read_strings()
        self.kernel_names = self._read_string_list(SectionId.KERNELS, "kernel")
        self.types = self._read_string_list(SectionId.TYPES, "type")
        self._read_locations_header()
        self._read_attribute_types()
        self._read_function_index()
        self.functions = program.FunctionList(self)
        self._optional_read = False
        loc_start, loc_end = self._range(SectionId.LOCATIONS)
        return program.BefFile(
            version=enc.VERSION,
            kernel_names=self.kernel_names,
            types=self.types,
            functions=self.functions,
            attribute_types=self._attribute_types,
            _attribute_decoder=self.attribute,
            _location_decoder=self.location,
            source=self.source,
            _aggregate_decoder=self.aggregate_elements,
            locations_size=loc_end - loc_start,
            _verifier=self.verify_all,
        )

    def _read_sections(self) -> None:
        pos, size = 3, self.size
        seen: set[int] = set()
        while pos < size:
            header = pos
            section_id = self.buf[pos]
            pos += 1
            length, pos = self._vbr(pos, size, section_id)
            has_alignment = length & 1
            length >>= 1
            if has_alignment:
                if pos >= size:
                    self._fail(section_id, pos, "section header truncated before its alignment")
                alignment = self.buf[pos]
                if not enc.is_power_of_two(alignment):
                    self._fail(section_id, pos, f"section alignment {alignment} is not a power of 2")
                pos += 1 + enc.padding_for(pos + 1, alignment)
            if pos + length > size:
                self._fail(
                    section_id,
                    header,
                    f"section length {length} runs past the end of the file ({size} bytes)",
                )
            if section_id in seen:
                self._fail(section_id, header, "section appears more than once")
            seen.add(section_id)
            if section_id in enc.SECTION_NAMES:  # unknown sections are skipped
                self.sections[section_id] = (pos, pos + length)
            pos += length
        for required in enc.REQUIRED_SECTIONS:
            if required not in self.sections:
                self._fail(required, self.size, "required section is missing")

    def _read_strings(self) -> None:
        start, end = self._range(SectionId.STRINGS)
        self.strings_start = start
        self.strings = bytes(self.buf[start:end])
        if self.strings and self.strings[-1] != 0:
            self._fail(SectionId.STRINGS, end - 1, "the last string is not NUL-terminated")

    def _string(self, offset: int, section: int, at: int) -> str:
        """The NUL-terminated string at ``offset`` in the Strings section."""
        text = self._string_cache.get((SectionId.STRINGS, offset))
        if text is not None:
            return text
        if offset >= len(self.strings):
            self._fail(
                section,
                at,
                f"string offset {offset} out of range (Strings section has "
                f"{len(self.strings)} bytes)",
            )
        end = self.strings.index(0, offset)
        text = self.strings[offset:end].decode("utf-8", "surrogateescape")
        self._string_cache[(SectionId.STRINGS, offset)] = text
        return text

    def _read_string_list(self, section: int, what: str) -> list[str]:
        start, end = self._range(section)
        n, pos = self._count(start, end, section, what)
        out = []
        for _ in range(n):
            at = pos
            offset, pos = self._vbr(pos, end, section)
            out.append(self._string(offset, section, at))
        if pos != end:
            self._fail(section, pos, f"{end - pos} unexpected bytes after the {what} table")
        return out

    # -- locations -----------------------------------------------------------

    def _read_locations_header(self) -> None:
        self.loc_start, self.loc_end = self._range(SectionId.LOCATIONS)
        s0, s1 = self._range(SectionId.LOCATION_STRINGS)
        self.loc_strings = bytes(self.buf[s0:s1])
        self.loc_strings_start = s0
        if self.loc_strings and self.loc_strings[-1] != 0:
            self._fail(SectionId.LOCATION_STRINGS, s1 - 1, "the last string is not NUL-terminated")

    def location(self, offset: int) -> program.Location:
        """The location at ``offset`` in the Locations section (unknown when
        the offset is past the section: the writer's "virtual" offsets)."""
        if offset < 0:
            self._fail(SectionId.LOCATIONS, self.loc_start, f"negative location offset {offset}")
        loc = self._loc_cache.get(offset)
        if loc is None:
            if offset >= self.loc_end - self.loc_start:
                return program.UnknownLocation()
            loc, _ = self._decode_location(self.loc_start + offset, 0)
            self._loc_cache[offset] = loc
        return loc

    def _loc_string(self, pos: int) -> tuple[str, int]:
        at = pos
        offset, pos = self._vbr(pos, self.loc_end, SectionId.LOCATIONS)
        key = (SectionId.LOCATION_STRINGS, offset)
        text = self._string_cache.get(key)
        if text is None:
            if offset >= len(self.loc_strings):
                self._fail(
                    SectionId.LOCATIONS,
                    at,
                    f"location string offset {offset} out of range (LocationStrings section "
                    f"has {len(self.loc_strings)} bytes)",
                )
            end = self.loc_strings.index(0, offset)
            text = self.loc_strings[offset:end].decode("utf-8", "surrogateescape")
            self._string_cache[key] = text
        return text, pos

    def _decode_location(self, pos: int, depth: int) -> tuple[program.Location, int]:
        sid = SectionId.LOCATIONS
        end = self.loc_end
        if depth >= enc.MAX_NESTING:
            self._fail(sid, pos, f"locations nested deeper than {enc.MAX_NESTING}")
        if pos >= end:
            self._fail(sid, pos, "location record runs past the end of the section")
        kind = self.buf[pos]
        pos += 1
        if kind == LocationKind.UNKNOWN:
            return program.UnknownLocation(), pos
        if kind == LocationKind.FILE_LINE_COL:
            file, pos = self._loc_string(pos)
            line, pos = self._vbr(pos, end, sid)
            col, pos = self._vbr(pos, end, sid)
            return program.FileLineColLocation(file, line, col), pos
        if kind == LocationKind.NAME:
            name, pos = self._loc_string(pos)
            child, pos = self._decode_location(pos, depth + 1)
            return program.NameLocation(name, child), pos
        if kind == LocationKind.CALL_SITE:
            callee, pos = self._decode_location(pos, depth + 1)
            caller, pos = self._decode_location(pos, depth + 1)
            return program.CallSiteLocation(callee, caller), pos
        if kind == LocationKind.FUSED:
            n, pos = self._count(pos, end, sid, "fused location")
            children = []
            for _ in range(n):
                child, pos = self._decode_location(pos, depth + 1)
                children.append(child)
            return program.FusedLocation(tuple(children)), pos
        self._fail(sid, pos - 1, f"unknown location kind {kind}")

    # -- attributes ----------------------------------------------------------

    def _read_attribute_types(self) -> None:
        self.attr_start, self.attr_end = self._range(SectionId.ATTRIBUTES)
        self._attribute_types: _AttributeTypes | None = None
        if SectionId.ATTRIBUTE_TYPES in self.sections:
            self._attribute_types = _AttributeTypes(self)

    def _parse_attribute_types(self) -> dict[int, int]:
        """The AttributeTypes table, with every attribute it lists verified."""
        sid = SectionId.ATTRIBUTE_TYPES
        start, end = self.sections[sid]
        n, pos = self._count(start, end, sid, "attribute", 2)
        types: dict[int, int] = {}
        attr_size = self.attr_end - self.attr_start
        for _ in range(n):
            at = pos
            offset, pos = self._vbr(pos, end, sid)
            code, pos = self._vbr(pos, end, sid)
            if offset >= attr_size:
                self._fail(
                    sid, at, f"attribute offset {offset} out of range (Attributes section has "
                    f"{attr_size} bytes)",
                )  # fmt: skip
            if not enc.is_valid_attr_code(code):
                self._fail(sid, at, f"unknown attribute type {code}")
            if types.get(offset, code) != code:
                self._fail(sid, at, f"attribute at offset {offset} listed with two types")
            types[offset] = code
        if pos != end:
            self._fail(sid, pos, f"{end - pos} unexpected bytes after the attribute types")
        for offset, code in types.items():  # verify every listed attribute
            self.attribute(offset, code)
        return types

    def attribute(self, offset: int, type_code: int) -> Any:
        """Decode the attribute at ``offset`` of the Attributes section."""
        key = (offset, type_code)
        value = self._attr_cache.get(key)
        if value is None:
            if not isinstance(offset, int) or not 0 <= offset < self.attr_end - self.attr_start:
                self._fail(SectionId.ATTRIBUTES, self.attr_start, f"attribute offset {offset} out of range")
            if not enc.is_valid_attr_code(type_code):
                self._fail(SectionId.ATTRIBUTES, self.attr_start + offset, f"unknown attribute type {type_code}")
            value, _ = self._decode_attr(self.attr_start + offset, type_code, 0)
            self._attr_cache[key] = value
        return value

    def aggregate_elements(self, offset: int) -> list[tuple[int, int]]:
        """(type code, section offset) of each element of an aggregate."""
        pos = self.attr_start + offset
        if not 0 <= offset < self.attr_end - self.attr_start:
            self._fail(SectionId.ATTRIBUTES, self.attr_start, f"attribute offset {offset} out of range")
        elements, _ = self._aggregate_layout(pos)
        return [(code, p - self.attr_start) for code, p in elements]

    def _need(self, pos: int, size: int, what: str) -> None:
        if pos + size > self.attr_end:
            self._fail(SectionId.ATTRIBUTES, pos, f"{what} runs past the end of the section")

    def _aligned(self, pos: int, alignment: int, what: str) -> None:
        if pos % alignment:
            self._fail(SectionId.ATTRIBUTES, pos, f"{what} is not {alignment}-byte aligned")

    def _decode_attr(self, pos: int, code: int, depth: int) -> tuple[Any, int]:
        """Decode the attribute of type ``code`` at absolute ``pos``; returns
        (value, end position)."""
        sid = SectionId.ATTRIBUTES
        if enc.is_array_code(code):
            return self._decode_array(pos, enc.element_code(code))
        if code == AttrType.DENSE:
            return self._decode_dense(pos)
        if code == AttrType.AGGREGATE:
            if depth >= enc.MAX_NESTING:
                self._fail(sid, pos, f"aggregates nested deeper than {enc.MAX_NESTING}")
            elements, end = self._aggregate_layout(pos)
            values = []
            for i, (elem_code, elem_pos) in enumerate(elements):
                value, elem_end = self._decode_attr(elem_pos, elem_code, depth + 1)
                # Elements may not overlap: the next one's type byte follows.
                limit = elements[i + 1][1] - 1 if i + 1 < len(elements) else end
                if elem_end > limit:
                    self._fail(sid, elem_pos, "aggregate element overlaps what follows it")
                values.append(value)
            return tuple(values), end
        if code == AttrType.SHAPE:
            return self._decode_shape(pos)
        if code == AttrType.SYMBOL_REF:
            return self._decode_symbol_ref(pos)
        if code == AttrType.TYPE:
            self._need(pos, 1, "type attribute")
            return self._dtype(self.buf[pos], pos), pos + 1
        if code in (DType.STRING, AttrType.FUNC):
            self._need(pos, 4, "string length")
            self._aligned(pos, 4, "string attribute")
            (n,) = _U32.unpack_from(self.buf, pos)
            self._need(pos + 4, n, f"string of {n} bytes")
            data = bytes(self.buf[pos + 4 : pos + 4 + n])
            return data.decode("utf-8", "surrogateescape"), pos + 4 + n
        size = enc.DTYPE_INFO[code][0]
        self._aligned(pos, size, f"{enc.attr_type_name(code)} attribute")
        self._need(pos, size, f"{enc.attr_type_name(code)} attribute")
        raw = self.buf[pos : pos + size]
        if code == DType.I1:
            if raw[0] > 1:
                self._fail(sid, pos, f"i1 attribute holds {raw[0]}")
            return bool(raw[0]), pos + 1
        if code == DType.F32:
            return struct.unpack("<f", raw)[0], pos + 4
        if code == DType.F64:
            return struct.unpack("<d", raw)[0], pos + 8
        if code == DType.F16:
            return struct.unpack("<e", raw)[0], pos + 2
        if code == DType.BF16:
            bits = int.from_bytes(raw, "little")
            return struct.unpack("<f", (bits << 16).to_bytes(4, "little"))[0], pos + 2
        if code in enc.SMALL_DTYPES:
            value = self._numpy(pos, code, 1)[0]
            return (float(value) if code in SMALL_FLOATS else int(value)), pos + 1
        signed = code in (DType.I8, DType.I16, DType.I32, DType.I64)
        return int.from_bytes(raw, "little", signed=signed), pos + size

    def _dtype(self, value: int, pos: int) -> DType:
        if not enc.is_dtype_code(value):
            self._fail(SectionId.ATTRIBUTES, pos, f"unknown type code {value}")
        return DType(value)

    def _numpy(self, pos: int, dtype_code: int, count: int) -> np.ndarray:
        """A read-only numpy view of ``count`` elements at ``pos`` (no copy)."""
        np_dtype = _numpy_dtype(dtype_code)
        arr = np.frombuffer(self.buf, dtype=np_dtype, count=count, offset=pos)
        if dtype_code == DType.I1 and count:
            raw = np.frombuffer(self.buf, dtype=np.uint8, count=count, offset=pos)
            if raw.max() > 1:
                self._fail(SectionId.ATTRIBUTES, pos, "i1 elements must be 0 or 1")
        unused = _UNUSED_BITS.get(dtype_code)
        if unused and count:
            # A sub-byte element keeps its bits in the low bits of its byte.
            raw = np.frombuffer(self.buf, dtype=np.uint8, count=count, offset=pos)
            if (raw & unused).any():
                name = enc.DTYPE_INFO[dtype_code][3]
                self._fail(SectionId.ATTRIBUTES, pos, f"{name} elements must leave their byte's high bits 0")
        if arr.flags.writeable:
            arr.flags.writeable = False
        return arr

    def _decode_array(self, pos: int, elem: int) -> tuple[Any, int]:
        self._need(pos, 4, "array length")
        self._aligned(pos, 4, "array attribute")
        (n,) = _U32.unpack_from(self.buf, pos)
        size = enc.fixed_element_size(elem)
        data = pos + 4
        self._need(data, n * size, f"array of {n} elements")
        if n:
            self._aligned(data, enc.fixed_element_alignment(elem), "array elements")
        if elem == AttrType.TYPE:
            return tuple(self._dtype(self.buf[data + i], data + i) for i in range(n)), data + n
        return self._numpy(data, elem, n), data + n * size

    def _base(self, pos: int, what: str) -> tuple[int, int, int, int]:
        self._need(pos, enc.ATTR_BASE_SIZE, f"{what} header")
        self._aligned(pos, 4, what)
        alignment, dtype, prefix, byte_size = _ATTR_BASE.unpack_from(self.buf, pos)
        if not enc.is_power_of_two(alignment) or alignment > enc.MAX_ATTRIBUTE_ALIGNMENT:
            self._fail(SectionId.ATTRIBUTES, pos, f"{what} has invalid alignment {alignment}")
        return alignment, dtype, prefix, byte_size

    def _decode_shape(self, pos: int) -> tuple[program.ShapeValue, int]:
        sid = SectionId.ATTRIBUTES
        self._need(pos, 4, "shape attribute")
        if self.buf[pos] == 0:  # an unranked shape is a bare u32 0
            self._aligned(pos, 4, "shape attribute")
            if _U32.unpack_from(self.buf, pos)[0] != 0:
                self._fail(sid, pos, "malformed unranked shape")
            return program.ShapeValue(None), pos + 4
        alignment, dtype, prefix, byte_size = self._base(pos, "shape attribute")
        self._need(pos, enc.SHAPE_PREFIX_SIZE, "shape header")
        (rank,) = _U32.unpack_from(self.buf, pos + enc.ATTR_BASE_SIZE)
        if prefix != enc.SHAPE_PREFIX_SIZE or dtype != 0:
            self._fail(sid, pos, "malformed shape header")
        if byte_size != prefix + 8 * rank:
            self._fail(sid, pos, f"shape byte size {byte_size} does not match rank {rank}")
        dims_pos = pos + prefix
        self._need(dims_pos, 8 * rank, f"shape of rank {rank}")
        self._aligned(dims_pos, 8, "shape dimensions")
        dims = struct.unpack_from(f"<{rank}q", self.buf, dims_pos)
        if any(d < -1 for d in dims):
            self._fail(sid, dims_pos, "shape dimensions must be >= -1")
        return program.ShapeValue(tuple(dims)), dims_pos + 8 * rank

    def _decode_dense(self, pos: int) -> tuple[np.ndarray, int]:
        sid = SectionId.ATTRIBUTES
        alignment, dtype, prefix, byte_size = self._base(pos, "dense attribute")
        self._need(pos, enc.DENSE_DIMS_OFFSET, "dense header")
        element_offset, count, rank = struct.unpack_from("<III", self.buf, pos + enc.ATTR_BASE_SIZE)
        if dtype not in enc.DENSE_DTYPES:
            self._fail(sid, pos, f"dense attribute has unsupported element type {dtype}")
        if prefix != enc.DENSE_DIMS_OFFSET + 8 * rank or element_offset != prefix:
            self._fail(sid, pos, f"dense header sizes do not match rank {rank}")
        dims_pos = pos + enc.DENSE_DIMS_OFFSET
        self._need(dims_pos, 8 * rank, f"dense shape of rank {rank}")
        self._aligned(dims_pos, 8, "dense dimensions")
        dims = struct.unpack_from(f"<{rank}q", self.buf, dims_pos)
        total = 1
        for d in dims:
            if d < 0:
                self._fail(sid, dims_pos, f"dense dimension {d} is negative")
            total *= d
        if total != count:
            self._fail(sid, pos, f"dense element count {count} does not match its shape {list(dims)}")
        elem_size = enc.DTYPE_INFO[dtype][0]
        if byte_size != prefix + count * elem_size:
            self._fail(sid, pos, f"dense byte size {byte_size} does not match {count} elements")
        data = pos + prefix
        self._need(data, count * elem_size, f"dense data of {count * elem_size} bytes")
        self._aligned(data, max(alignment, enc.DTYPE_INFO[dtype][1]), "dense data")
        try:
            arr = self._numpy(data, dtype, count).reshape(dims)
        except ValueError as e:  # more than 64 dims, or dims past numpy's limits
            self._fail(sid, dims_pos, f"dense shape {list(dims)} is not representable: {e}")
        return arr, data + count * elem_size

    def _aggregate_layout(self, pos: int) -> tuple[list[tuple[int, int]], int]:
        """(type code, absolute position) of each element, and the end."""
        sid = SectionId.ATTRIBUTES
        self._need(pos, 4, "aggregate attribute")
        if self.buf[pos] == 0:  # an empty aggregate is a bare u32 0
            self._aligned(pos, 4, "aggregate attribute")
            if _U32.unpack_from(self.buf, pos)[0] != 0:
                self._fail(sid, pos, "malformed empty aggregate")
            return [], pos + 4
        alignment, dtype, prefix, byte_size = self._base(pos, "aggregate attribute")
        self._need(pos, enc.AGGREGATE_OFFSETS_OFFSET, "aggregate header")
        (n,) = _U32.unpack_from(self.buf, pos + enc.ATTR_BASE_SIZE)
        if dtype != 0 or prefix != enc.AGGREGATE_OFFSETS_OFFSET + 4 * n:
            self._fail(sid, pos, f"aggregate header sizes do not match {n} elements")
        if byte_size < prefix:
            self._fail(sid, pos, f"aggregate byte size {byte_size} is smaller than its header")
        self._need(pos, byte_size, f"aggregate of {byte_size} bytes")
        self._aligned(pos + prefix, alignment, "aggregate elements")
        offsets = struct.unpack_from(f"<{n}I", self.buf, pos + enc.AGGREGATE_OFFSETS_OFFSET)
        elements = []
        previous = prefix
        for rel in offsets:
            # Elements follow the header in order (so nesting always moves
            # forward and cannot loop), each after the byte holding its type.
            if not previous < rel < byte_size:
                self._fail(sid, pos, f"aggregate element offset {rel} out of order or outside the aggregate ({byte_size} bytes)")
            previous = rel
            code = self.buf[pos + rel - 1]
            if not enc.is_valid_attr_code(code) or code == AttrType.SYMBOL_REF:
                self._fail(sid, pos + rel - 1, f"aggregate element has unknown attribute type {code}")
            elements.append((code, pos + rel))
        return elements, pos + byte_size

    def _decode_symbol_ref(self, pos: int) -> tuple[program.SymbolRefValue, int]:
        sid = SectionId.ATTRIBUTES
        end = self.attr_end
        unit_id, p = self._vbr(pos, end, sid)
        root_len, p = self._vbr(p, end, sid)
        n, p = self._count(p, end, sid, "nested symbol")
        lengths = []
        for _ in range(n):
            length, p = self._vbr(p, end, sid)
            lengths.append(length)
        module_len, p = self._vbr(p, end, sid)
        total = root_len + sum(lengths) + module_len
        self._need(p, total + 1, "compilation unit")
        if self.buf[p + total] != 0:
            self._fail(sid, p + total, "compilation unit is not NUL-terminated")

        def text(start: int, length: int) -> str:
            return bytes(self.buf[start : start + length]).decode("utf-8", "surrogateescape")

        root = text(p, root_len)
        p += root_len
        nested = []
        for length in lengths:
            nested.append(text(p, length))
            p += length
        module = text(p, module_len)
        return program.SymbolRefValue(unit_id, root, tuple(nested), module), p + module_len + 1

    # -- functions -----------------------------------------------------------

    def _read_function_index(self) -> None:
        sid = SectionId.FUNCTION_INDEX
        start, end = self.sections[sid]
        f_start, f_end = self.sections[SectionId.FUNCTIONS]
        n, pos = self._count(start, end, sid, "function", 5)
        limit = f_end - f_start
        self._functions_at = f_start
        if n <= 64 or not self._function_index_vectorized(n, pos, end, limit):
            entries = self._function_entries(n, pos, end, limit)
            self._fkind = [e[0] for e in entries]
            self._foffset = [e[1] for e in entries]
            self._fname = [e[2] for e in entries]
            self._fsig = [(e[3], e[4]) for e in entries]
            native = program.NATIVE_FUNCTION
            # A body runs at most up to the next body (function sizes are implicit).
            starts = sorted({e[1] for e in entries if e[0] != native})
            bound = {s: f_start + (starts[i + 1] if i + 1 < len(starts) else limit) for i, s in enumerate(starts)}
            self._fend = [None if e[0] == native else bound[e[1]] for e in entries]
            self._named = [(i, e[2]) for i, e in enumerate(entries) if e[2]]
            self._natives = [i for i, e in enumerate(entries) if e[0] == native]
        self.num_functions = n

    def _function_index_vectorized(self, n: int, pos: int, end: int, limit: int) -> bool:
        """Read a large index with every VBR decoded at once by numpy, then
        one short pass that finds where each entry starts; each entry's
        signature is looked up when its function is made.  False when
        anything is out of place (the checked reader then says what and
        where)."""
        seg = np.frombuffer(self.buf, np.uint8, end - pos, pos)
        if not len(seg) or seg[-1] & 0x80:
            return False  # a truncated VBR: the checked reader names it
        ends = np.flatnonzero(seg < 0x80)
        begins = np.empty_like(ends)
        begins[0] = 0
        begins[1:] = ends[:-1] + 1
        lengths = ends - begins + 1
        longest = int(lengths.max())
        if longest > 9:
            return False
        values = (seg[begins] & 0x7F).astype(np.int64)
        for i in range(1, longest):
            more = np.flatnonzero(lengths > i)
            values[more] = (values[more] << 7) | (seg[begins[more] + i] & 0x7F)
        tok = values.tolist()
        ntok = len(tok)
        # An entry: kind, offset, name, #args, args..., #results, results...
        at: list[int] = []
        append = at.append
        i = 0
        try:
            for _ in range(n):
                append(i)
                r = i + 4 + tok[i + 3]
                i = r + 1 + tok[r]
        except IndexError:
            return False
        if i != ntok:
            return False  # bytes after the last entry, or an entry cut short
        s = np.array(at, np.int64)
        kinds, offsets, name_offsets = values[s], values[s + 1], values[s + 2]
        res = s + 4 + values[s + 3]
        native = program.NATIVE_FUNCTION
        is_native = kinds == native
        known = is_native | (kinds == program.ASYNC_FUNCTION) | (kinds == program.SYNC_FUNCTION)
        if not known.all() or (lengths[s] != 1).any():
            return False  # an unknown kind, or a kind that is not one byte
        if (offsets > limit).any() or ((offsets == limit) & ~is_native).any():
            return False
        not_type = np.zeros(ntok, bool)
        for k in range(4):
            not_type[s + k] = True
        not_type[res] = True
        if (values[~not_type] >= len(self.types)).any():
            return False
        sid = SectionId.FUNCTION_INDEX
        distinct = np.sort(name_offsets)
        distinct = distinct[np.concatenate(([True], distinct[1:] != distinct[:-1]))]
        names: dict[int, str] = {}
        try:
            for o in distinct.tolist():
                names[o] = self._string(o, sid, pos)
        except BEFFormatError:
            return False
        has_name = np.ones(n, bool)
        for o, name in names.items():
            if not name:
                has_name &= name_offsets != o
        fname = [names[o] for o in name_offsets.tolist()]
        self._tok_array = values
        self._entry_starts = s
        self._fkind = kinds.tolist()
        self._foffset = offsets.tolist()
        self._fname = fname
        self._fsig = None
        self._tok = tok
        self._sig_at = (s + 3).tolist()
        self._signatures: dict[tuple[int, ...], tuple] = {}
        # A body runs at most up to the next body (function sizes are implicit).
        bodies = np.sort(offsets[~is_native])
        if len(bodies):
            bodies = bodies[np.concatenate(([True], bodies[1:] != bodies[:-1]))]
            nxt = np.append(bodies[1:], limit) + self._functions_at
            ends = nxt[np.minimum(np.searchsorted(bodies, offsets), len(bodies) - 1)]
        else:
            ends = np.zeros(n, np.int64)
        ends[is_native] = -1
        fend = ends.tolist()
        self._natives = np.flatnonzero(is_native).tolist()
        for i in self._natives:
            fend[i] = None
        self._fend = fend
        self._index_arrays = (offsets, ends, kinds, np.frombuffer(self.buf, "<u4", self.size // 4))
        self._named = [(i, fname[i]) for i in np.flatnonzero(has_name).tolist()]
        return True

    def signature(self, index: int) -> tuple:
        """Function ``index``'s (argument types, result types)."""
        sigs = self._fsig
        if sigs is not None:
            return sigs[index]
        tok = self._tok
        s = self._sig_at[index]
        r = s + 1 + tok[s]
        key = tuple(tok[s : r + 1 + tok[r]])
        sig = self._signatures.get(key)
        if sig is None:
            types = self.types
            sig = self._signatures[key] = (tuple([types[t] for t in tok[s + 1 : r]]),
                                           tuple([types[t] for t in key[r - s + 1 :]]))  # fmt: skip
        return sig

    def body_classes(self, indices: Any) -> list[int]:
        """For each function of ``indices``, one of them with the same
        ``body_class`` (the first such, as a rule), or -1 where it has none.
        Functions given the same one have the same class: each is compared
        with it, word for word.  A large index compares all at once
        (numpy): bodies of one shape (header, signature) are compared with
        a few of the shape's first bodies, and one that matches none of
        those keeps itself (one class may then be split in several; a
        branch whose class is split is only planned when it runs)."""
        indices = list(indices)
        if len(indices) < 64 or self._fsig is not None:
            first: dict[tuple, int] = {}
            out = []
            for i in indices:
                key = self.body_class(i)
                out.append(-1 if key is None else first.setdefault(key, i))
            return out
        return self._body_classes_vectorized(np.asarray(indices, np.int64)).tolist()

    # Bodies of one shape are compared with up to this many of its first.
    _CLASS_ROUNDS = 8

    def _body_classes_vectorized(self, idx: np.ndarray) -> np.ndarray:
        offsets, ends, kinds, words = self._index_arrays  # (set by the vectorized index reader)
        m = len(idx)
        pos = self._functions_at + offsets[idx]
        end = ends[idx]
        # Bodies whose key is whole words (aligned, in range); the rest: -1.
        ok = (end >= 0) & (pos + 16 <= end) & (pos % 4 == 0) & (end % 4 == 0)
        p4 = np.where(ok, pos // 4, 0)
        n = words[p4 + 1].astype(np.int64)
        widths = words[p4 + 2].astype(np.int64)
        width = np.asarray(_WIDTH_BYTES, np.int64)
        loc = (pos + 16 + n * width[widths & 3] + 3) & ~3
        rest = (loc + n * width[(widths >> 2) & 3] + 3) & ~3
        ok &= rest <= end
        out = np.full(m, -1, np.int64)
        sel = np.flatnonzero(ok)
        if not len(sel):
            return out
        # The key: the header but the location, every column from the one
        # after LOCATION, the kind, and the signature's tokens.
        f = idx[sel]
        a_start, a_len = pos[sel] // 4 + 1, (loc[sel] - pos[sel] - 4) // 4
        b_start, b_len = rest[sel] // 4, (end[sel] - rest[sel]) // 4
        tok, starts = self._tok_array, self._entry_starts
        s_start = starts[f] + 3
        s_len = np.append(starts[1:], len(tok))[f] - s_start
        kind = kinds[f]
        rep = np.arange(len(sel))  # (positions in sel)
        # Groups of one shape: the same kind and segment lengths.
        order = np.lexsort((kind, s_len, b_len, a_len))
        shape = np.stack([a_len[order], b_len[order], s_len[order], kind[order]])
        new = np.ones(len(order), bool)
        new[1:] = (shape[:, 1:] != shape[:, :-1]).any(axis=0)
        bounds = np.append(np.flatnonzero(new), len(order)).tolist()
        for g0, g1 in zip(bounds, bounds[1:]):
            if g1 - g0 < 2:
                continue
            members = np.sort(order[g0:g1])
            k = members[0]
            parts = [(words, a_start[members], int(a_len[k])), (words, b_start[members], int(b_len[k])),
                     (tok, s_start[members], int(s_len[k]))]  # fmt: skip
            rows = [data[start[:, None] + np.arange(length)] for data, start, length in parts]
            left = np.arange(len(members))
            for _ in range(self._CLASS_ROUNDS):
                if len(left) < 2:
                    break
                same = np.ones(len(left), bool)
                for r in rows:
                    same &= (r[left] == r[left[0]]).all(axis=1)
                rep[members[left[same]]] = members[left[0]]
                left = left[~same]
        out[sel] = f[rep]
        return out

    def entry(self, index: int) -> tuple:
        """Function ``index``'s index entry: (kind, offset, name, argument
        types, result types)."""
        return (self._fkind[index], self._foffset[index], self._fname[index], *self.signature(index))

    # -- what program.FunctionList asks --------------------------------------

    def make_function(self, index: int) -> program.Function:
        """Function ``index`` (its body read when first needed)."""
        arg_types, result_types = self.signature(index)
        return program.Function.lazy(index, self._fname[index], self._fkind[index], arg_types, result_types, self)

    def named_functions(self) -> list[tuple[int, str]]:
        return self._named

    def native_functions(self) -> list[int]:
        return self._natives

    def function_heads(self) -> list[tuple[int, str, int]]:
        if self._fsig is not None:
            nargs = [len(sig[0]) for sig in self._fsig]
        else:
            nargs = self._tok_array[self._entry_starts + 3].tolist()
        return list(zip(range(self.num_functions), self._fname, nargs))

    def body_class(self, index: int) -> tuple | None:
        """(kind, argument types, result types, ``body_key``) of function
        ``index``, without making it: functions with the same class do the
        same (None: no key)."""
        body = self._body_key(index)
        if body is None:
            return None
        arg_types, result_types = self.signature(index)
        return (self._fkind[index], arg_types, result_types, body)

    def _function_entries(self, n: int, pos: int, end: int, limit: int) -> list:
        """The index entries, read one VBR at a time with every check."""
        sid = SectionId.FUNCTION_INDEX
        entries = []
        append = entries.append
        types = self.types
        ntypes = len(types)
        buf = self.buf
        vbr = self._vbr
        kinds = (program.ASYNC_FUNCTION, program.NATIVE_FUNCTION, program.SYNC_FUNCTION)
        names: dict[int, str] = {}
        signatures: dict[tuple[int, ...], tuple] = {}
        for i in range(n):
            at = pos
            if pos >= end:
                self._fail(sid, pos, "function entry runs past the end of the section")
            kind = buf[pos]
            pos += 1
            if kind not in kinds:
                self._fail(sid, at, f"function {i} has unknown kind {kind}")
            # One-byte VBRs inline (the common case); the checked reader otherwise.
            if pos < end and buf[pos] < 0x80:
                offset = buf[pos]
                pos += 1
            else:
                offset, pos = vbr(pos, end, sid)
            name_at = pos
            if pos < end and buf[pos] < 0x80:
                name_offset = buf[pos]
                pos += 1
            else:
                name_offset, pos = vbr(pos, end, sid)
            name = names.get(name_offset)
            if name is None:
                name = names[name_offset] = self._string(name_offset, sid, name_at)
            signature = []
            for what in ("argument", "result"):
                count, pos = self._count(pos, end, sid, what)
                indices = []
                for _ in range(count):
                    type_at = pos
                    if pos < end and buf[pos] < 0x80:
                        t = buf[pos]
                        pos += 1
                    else:
                        t, pos = vbr(pos, end, sid)
                    if t >= ntypes:
                        self._fail(sid, type_at, f"type index {t} out of range ({ntypes} types)")
                    indices.append(t)
                key = tuple(indices)
                sig = signatures.get(key)
                if sig is None:
                    sig = signatures[key] = tuple([types[t] for t in indices])
                signature.append(sig)
            if offset > limit or (kind != program.NATIVE_FUNCTION and offset == limit):
                self._fail(sid, at, f"function {i} offset {offset} out of range (Functions section has {limit} bytes)")
            append((kind, offset, name, signature[0], signature[1]))
            if pos > end:
                self._fail(sid, at, "function entry runs past the end of the section")
        if pos != end:
            self._fail(sid, pos, f"{end - pos} unexpected bytes after the function index")
        return entries

    def body_key(self, fn: program.Function) -> bytes | None:
        """The bytes that decide what function ``fn``'s body does: its header
        but the location, and every column but LOCATION (None when the body
        is not where its entry says).  Two functions with the same key and
        the same signature and kind have the same kernels, operands,
        attributes and streams (the bodies of an unrolled loop's branches,
        say): an executor may plan them once.  Nothing is checked here;
        the first body decoded with a key is checked as always."""
        return self._body_key(fn.index)

    def _body_key(self, index: int) -> bytes | None:
        end = self._fend[index]
        if end is None:
            return None
        pos = self._functions_at + self._foffset[index]
        if pos + 16 > end:
            return None
        buf = self._bytes
        if buf is None:
            buf = self.buf
        n, widths = _TWO_U32(buf, pos + 4)
        code = pos + 16
        loc = (code + n * _WIDTH_BYTES[widths & 3] + 3) & ~3
        rest = (loc + n * _WIDTH_BYTES[(widths >> 2) & 3] + 3) & ~3
        if rest > end:
            return None
        if buf is self._bytes:
            return buf[pos + 4 : loc] + buf[rest:end]
        return bytes(buf[pos + 4 : loc]) + bytes(buf[rest:end])

    # Called by program.Function when its body is first needed.
    def columns(self, fn: program.Function) -> program.FunctionColumns:
        """Decode and verify function ``fn``'s body (vectorized over its kernels)."""
        index = fn.index
        name, arg_types, result_types = fn.name, fn.arg_types, fn.result_types
        sid = SectionId.FUNCTIONS
        buf = self.buf
        pos = self._functions_at + self._foffset[index]
        end = self._fend[index]
        where = f"function {fn.index} ('{name}')"
        if pos % enc.BODY_ALIGNMENT:
            self._fail(sid, pos, f"{where}: body is not {enc.BODY_ALIGNMENT}-byte aligned")
        if pos + 4 * enc.BODY_HEADER_WORDS > end:
            self._fail(sid, pos, f"{where}: body header runs past the end of the function")
        start = pos
        location, n, widths, root_stream = struct.unpack_from("<4I", buf, pos)
        pos += 4 * enc.BODY_HEADER_WORDS
        if widths >> (2 * enc.NUM_COLUMNS):
            self._fail(sid, start + 8, f"{where}: unknown bits set in the column widths {widths:#x}")
        # Every kernel has an ORDER entry, and more than one kernel needs
        # non-zero ORDER entries: n is bounded by the bytes left.
        if n > max(1, end - pos):
            self._fail(sid, start + 4, f"{where}: kernel count {n} exceeds the {end - pos} bytes left")

        # A small body comes out as Python lists (see _small_body).
        small = n <= program.SMALL_BODY

        def column(c: int, count: int) -> Any:
            nonlocal pos
            width = enc.WIDTH_BYTES[(widths >> (2 * c)) & 3]
            if width == 0:
                if count and c >= enc.Column.ARGS:
                    self._fail(sid, start + 8, f"{where}: the non-empty {_COLUMN_NAMES[c]} column has width 0")
                return [0] * count if small else np.zeros(count, np.uint8)
            if c <= enc.Column.NUM_RESULTS and c >= enc.Column.NUM_ARGS and width > 2:
                self._fail(sid, start + 8, f"{where}: the {_COLUMN_NAMES[c]} column is wider than 2 bytes")
            if count > (end - pos) // width:
                self._fail(sid, pos, f"{where}: the {_COLUMN_NAMES[c]} column runs past the end of the function ({count} entries of {width} bytes)")
            if small:
                arr: Any = list(struct.unpack_from(f"<{count}{_STRUCT_CODES[width]}", buf, pos))
            else:
                arr = np.frombuffer(buf, dtype=_COLUMN_DTYPES[width], count=count, offset=pos)
            pos = enc.align_up(pos + count * width, enc.BODY_ALIGNMENT)
            return arr

        C = enc.Column
        cols = program.FunctionColumns()
        cols.location = location
        cols.root_stream = root_stream
        cols.num_args_fn = nfargs = len(arg_types)
        if small:
            return self._small_body(fn, cols, column, n, start, where, end, lambda: pos)
        cols.code = column(C.CODE, n)
        cols.locations = column(C.LOCATION, n)
        counts = []
        for c in (C.NUM_ARGS, C.NUM_ATTRS, C.NUM_FUNCS, C.NUM_RESULTS):
            counts.append(column(c, n))
        cols.num_args, cols.num_attrs, cols.num_funcs, cols.num_results = counts
        cols.stream = column(C.STREAM, n)
        cols.order = order = column(C.ORDER, n)
        starts = []
        for arr in counts:
            s = np.zeros(n + 1, np.int64)
            np.cumsum(arr, out=s[1:])
            starts.append(s)
        cols.args = args = column(C.ARGS, int(starts[0][-1]))
        cols.attrs = attrs = column(C.ATTRS, int(starts[1][-1]))
        cols.funcs = funcs = column(C.FUNCS, int(starts[2][-1]))
        cols.returns = returns = column(C.RETURNS, len(result_types))
        if pos > end:
            self._fail(sid, end, f"{where}: body runs past the end of the function")
        cols._starts = (*(s[:-1] for s in starts[:3]), starts[3][:-1] + nfargs)
        nregs = nfargs + int(starts[3][-1])
        cols.num_registers = nregs

        # Indices in range.
        if n and int(cols.code.max()) >= len(self.kernel_names):
            k = int(np.argmax(cols.code >= len(self.kernel_names)))
            self._fail(sid, start, f"{where}: kernel {k} code {int(cols.code[k])} out of range ({len(self.kernel_names)} kernels)")
        if len(args) and int(args.max()) >= nregs:
            self._fail(sid, start, f"{where}: register index {int(args.max())} out of range ({nregs} registers)")
        if len(returns) and int(returns.max()) >= nregs:
            self._fail(sid, start, f"{where}: result register {int(returns.max())} out of range ({nregs} registers)")
        self._check_attribute_offsets(attrs, int(attrs.max()) if len(attrs) else -1, start, where)
        if len(funcs) and int(funcs.max()) >= self.num_functions:
            self._fail(sid, start, f"{where}: function index {int(funcs.max())} out of range ({self.num_functions} functions)")

        # ORDER is a permutation of the kernels in which every operand is
        # defined before its user runs (what the executors rely on); a sync
        # function runs in program order, which must be one too.
        if n:
            # Each kernel's place in ORDER: a slot no entry writes (with n
            # entries below n) makes ORDER no permutation.
            rank = np.full(n, -1, np.int64)
            if int(order.max()) < n:
                rank[order] = np.arange(n, dtype=np.int64)
            if rank.min() < 0:
                self._fail(sid, start, f"{where}: the execution order is not a permutation of its {n} kernels")
            cols._rank = rank
        if len(args):
            # Registers are the arguments, then each kernel's results in
            # turn (nregs is their count, every operand is below it): the
            # place in ORDER of the kernel that defines each register (-1:
            # an argument) against the place of each operand's user.
            defined_at = np.empty(nregs, np.int64)
            defined_at[:nfargs] = -1
            defined_at[nfargs:] = np.repeat(rank, cols.num_results)
            early = defined_at[args] >= np.repeat(rank, cols.num_args)
            if fn.kind == program.SYNC_FUNCTION:
                producer = np.empty(nregs, np.int64)
                producer[:nfargs] = -1
                producer[nfargs:] = np.repeat(np.arange(n, dtype=np.int64), cols.num_results)
                early |= producer[args] >= np.repeat(np.arange(n, dtype=np.int64), cols.num_args)
            if early.any():
                i = int(np.argmax(early))
                a = int(args[i])
                u = int(np.searchsorted(starts[0], i, side="right")) - 1
                p = int(np.searchsorted(starts[3], a - nfargs, side="right")) - 1
                self._fail(sid, start, f"{where}: kernel {u} uses register {a} before kernel {p} defines it")
        return cols

    def _check_attribute_offsets(self, attrs: Any, largest: int, start: int, where: str) -> None:
        attr_size = self.attr_end - self.attr_start
        if largest >= 0:
            if largest >= attr_size:
                self._fail(SectionId.FUNCTIONS, start, f"{where}: attribute offset {largest} out of range (Attributes section has {attr_size} bytes)")
            if self._attribute_types is not None and self._attribute_types.loaded:
                self._check_attributes_listed(np.asarray(attrs), start, where)

    def _small_body(self, fn: program.Function, cols: program.FunctionColumns, column: Any, n: int,
                    start: int, where: str, end: int, pos: Any) -> program.FunctionColumns:  # fmt: skip
        """The rest of ``columns`` for a body of at most SMALL_BODY kernels:
        the same checks and messages, on Python lists (numpy's per-call cost
        would be most of the time for a branch or a loop body of a few
        kernels).  The numpy columns are made only if something asks."""
        sid = SectionId.FUNCTIONS
        C = enc.Column
        nfargs = cols.num_args_fn
        code = column(C.CODE, n)
        locations = column(C.LOCATION, n)
        na, nt, nf, nr = (column(c, n) for c in (C.NUM_ARGS, C.NUM_ATTRS, C.NUM_FUNCS, C.NUM_RESULTS))
        stream = column(C.STREAM, n)
        order = column(C.ORDER, n)
        a0, t0, f0, rb = [], [], [], []
        sa = st = sf = 0
        sr = nfargs
        for k in range(n):
            a0.append(sa)
            t0.append(st)
            f0.append(sf)
            rb.append(sr)
            sa += na[k]
            st += nt[k]
            sf += nf[k]
            sr += nr[k]
        args = column(C.ARGS, sa)
        attrs = column(C.ATTRS, st)
        funcs = column(C.FUNCS, sf)
        returns = column(C.RETURNS, len(fn.result_types))
        if pos() > end:
            self._fail(sid, end, f"{where}: body runs past the end of the function")
        nregs = cols.num_registers = sr
        nkernels = len(self.kernel_names)
        for k, c in enumerate(code):
            if c >= nkernels:
                self._fail(sid, start, f"{where}: kernel {k} code {c} out of range ({nkernels} kernels)")
        if args and max(args) >= nregs:
            self._fail(sid, start, f"{where}: register index {max(args)} out of range ({nregs} registers)")
        if returns and max(returns) >= nregs:
            self._fail(sid, start, f"{where}: result register {max(returns)} out of range ({nregs} registers)")
        self._check_attribute_offsets(attrs, max(attrs) if attrs else -1, start, where)
        if funcs and max(funcs) >= self.num_functions:
            self._fail(sid, start, f"{where}: function index {max(funcs)} out of range ({self.num_functions} functions)")
        if n and sorted(order) != list(range(n)):
            self._fail(sid, start, f"{where}: the execution order is not a permutation of its {n} kernels")
        rank = [0] * n
        for i, k in enumerate(order):
            rank[k] = i
        sync = fn.kind == program.SYNC_FUNCTION
        for u in range(n):
            for a in args[a0[u] : a0[u] + na[u]]:
                if a < nfargs:
                    continue
                producer = bisect.bisect_right(rb, a) - 1
                if rank[producer] >= rank[u] or (sync and producer >= u):
                    self._fail(sid, start, f"{where}: kernel {u} uses register {a} before kernel {producer} defines it")
        cols.lists = program.ColumnLists(
            code, locations, na, nt, nf, nr, stream, order, args, attrs, funcs, returns, a0, t0, f0, rb
        )
        return cols

    def _check_attributes_listed(self, attrs: np.ndarray, at: int, where: str) -> None:
        """Every attribute a body refers to has an AttributeTypes entry."""
        missing = attrs[~np.isin(attrs, self._attribute_types.offsets())]
        if len(missing):
            self._fail(SectionId.FUNCTIONS, at, f"{where}: attribute offset {int(missing[0])} has no entry in the AttributeTypes section")

    def verify_all(self) -> None:
        """Check everything that is otherwise checked when first used: every
        function body, every location a kernel or function refers to, the
        attribute types (and every attribute they list) and the optional
        sections."""
        types = self._attribute_types
        if types is not None:
            types.load()
        offsets: set[int] = set()
        f_start = self.sections[SectionId.FUNCTIONS][0]
        for fn in self.functions:
            cols = fn.columns
            if cols is None:
                continue
            if types is not None and len(cols.attrs):  # the body may have been read before the types
                self._check_attributes_listed(
                    cols.attrs, f_start + self._foffset[fn.index], f"function {fn.index} ('{fn.name}')"
                )
            offsets.add(cols.location)
            offsets.update(np.unique(cols.locations).tolist())
        for off in sorted(offsets):
            self._check_location(off)
        for fn in self.functions:
            fn.register_types  # noqa: B018 - reads (and checks) the optional sections

    def _check_location(self, offset: int) -> None:
        if offset < self.loc_end - self.loc_start and offset not in self._loc_cache:
            self.location(offset)

    # -- optional sections ---------------------------------------------------

    def optional_fields(self, fn: program.Function) -> None:
        """Fill the optional sections' fields of every function (read once)."""
        if self._optional_read:
            return
        self._optional_read = True
        self._read_attribute_names()
        self._read_register_types()
        self._read_function_ref_names()

    def _per_function_tables(self, sid: int):
        """Iterate (function, pos) over the non-native functions of an
        optional per-function section, after its function count."""
        start, end = self.sections[sid]
        n, pos = self._vbr(start, end, sid)
        if n != len(self.functions):
            self._fail(sid, start, f"section describes {n} functions, the file has {len(self.functions)}")
        return start, end, pos

    def _read_attribute_names(self) -> None:
        sid = SectionId.ATTRIBUTE_NAMES
        if sid not in self.sections:
            return
        _, end, pos = self._per_function_tables(sid)
        for fn in self.functions:
            if fn.kind == program.NATIVE_FUNCTION:
                continue
            at = pos
            nk, pos = self._vbr(pos, end, sid)
            if nk != len(fn.kernels):
                self._fail(sid, at, f"function {fn.index} has {len(fn.kernels)} kernels, the section says {nk}")
            names = []
            for kernel in fn.kernels:
                kernel_names = []
                for _ in kernel.attrs:
                    at = pos
                    offset, pos = self._vbr(pos, end, sid)
                    kernel_names.append(self._string(offset, sid, at))
                names.append(tuple(kernel_names))
            fn._attribute_names = names
        if pos != end:
            self._fail(sid, pos, f"{end - pos} unexpected bytes at the end of the section")

    def _read_register_types(self) -> None:
        sid = SectionId.REGISTER_TYPES
        if sid not in self.sections:
            return
        _, end, pos = self._per_function_tables(sid)
        for fn in self.functions:
            if fn.kind == program.NATIVE_FUNCTION:
                continue
            at = pos
            n, pos = self._vbr(pos, end, sid)
            if n != fn.num_registers:
                self._fail(sid, at, f"function {fn.index} has {fn.num_registers} registers, the section says {n}")
            types = []
            for _ in range(n):
                at = pos
                t, pos = self._vbr(pos, end, sid)
                if t >= len(self.types):
                    self._fail(sid, at, f"type index {t} out of range ({len(self.types)} types)")
                types.append(self.types[t])
            fn._register_types = tuple(types)
        if pos != end:
            self._fail(sid, pos, f"{end - pos} unexpected bytes at the end of the section")

    def _read_function_ref_names(self) -> None:
        sid = SectionId.FUNCTION_REF_NAMES
        if sid not in self.sections:
            return
        _, end, pos = self._per_function_tables(sid)
        for fn in self.functions:
            if fn.kind == program.NATIVE_FUNCTION:
                continue
            at = pos
            nk, pos = self._vbr(pos, end, sid)
            if nk != len(fn.kernels):
                self._fail(sid, at, f"function {fn.index} has {len(fn.kernels)} kernels, the section says {nk}")
            per_kernel = []
            for kernel in fn.kernels:
                at = pos
                ngroups, pos = self._count(pos, end, sid, "function reference", 2)
                groups = []
                covered = 0
                for _ in range(ngroups):
                    packed, pos = self._vbr(pos, end, sid)
                    length, pos = self._count(pos, end, sid, "name byte")
                    name = bytes(self.buf[pos : pos + length]).decode("utf-8", "surrogateescape")
                    pos += length
                    count, is_array = packed >> 1, bool(packed & 1)
                    if count == 0 and not is_array:
                        self._fail(sid, at, "a single function reference must count 1")
                    covered += count
                    groups.append((name, count, is_array))
                if covered > len(kernel.funcs):
                    self._fail(sid, at, f"names {covered} function references, the kernel has {len(kernel.funcs)}")
                per_kernel.append(tuple(groups))
            fn._function_ref_names = per_kernel
        if pos != end:
            self._fail(sid, pos, f"{end - pos} unexpected bytes at the end of the section")


class _AttributeTypes(Mapping):
    """The AttributeTypes section as a mapping offset -> type code, read
    (and its attributes verified) when first consulted."""

    def __init__(self, reader: _Reader) -> None:
        self._reader = reader
        self._types: dict[int, int] | None = None
        self._offsets: np.ndarray | None = None

    @property
    def loaded(self) -> bool:
        return self._types is not None

    def load(self) -> dict[int, int]:
        if self._types is None:
            self._types = self._reader._parse_attribute_types()
        return self._types

    def offsets(self) -> np.ndarray:
        if self._offsets is None:
            self._offsets = np.fromiter(self.load(), np.int64)
        return self._offsets

    def __getitem__(self, offset: int) -> int:
        return self.load()[offset]

    def __contains__(self, offset: object) -> bool:
        return offset in self.load()

    def get(self, offset: int, default: Any = None) -> Any:
        return self.load().get(offset, default)

    def __iter__(self):
        return iter(self.load())

    def __len__(self) -> int:
        return len(self.load())


_COLUMN_NAMES = {c: c.name for c in enc.Column}
_COLUMN_DTYPES = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4")}
_STRUCT_CODES = {1: "B", 2: "H", 4: "I"}


_BF16 = None

# The high bits a sub-byte element's byte must leave 0.
_UNUSED_BITS = {
    DType.F4E2M1FN: 0xF0, DType.I4: 0xF0, DType.UI4: 0xF0,
    DType.F6E2M3FN: 0xC0, DType.F6E3M2FN: 0xC0,
    DType.I2: 0xFC, DType.UI2: 0xFC,
}  # fmt: skip


def _numpy_dtype(code: int) -> Any:
    info = enc.DTYPE_INFO[code]
    if info[2] is not None:
        return np.dtype(info[2])
    if code in enc.SMALL_DTYPES:
        return DType(code).np_dtype  # ml_dtypes, which the runtime needs
    global _BF16
    if _BF16 is None:  # bfloat16 comes from ml_dtypes when installed
        try:
            import ml_dtypes

            _BF16 = np.dtype(ml_dtypes.bfloat16)
        except ImportError:
            _BF16 = np.dtype("<u2")
    return _BF16
