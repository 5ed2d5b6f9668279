"""BEF bytes -> a verified ``tfrt.bef.program.BefFile``.

``read_bef(data_or_path)`` maps a file (or takes bytes), checks every
section, offset, count, index and alignment, decodes every function body
into ``program`` dataclasses and returns only when the whole file is
consistent, so that the executor never meets a malformed kernel record.
Anything wrong raises :class:`BEFFormatError`, naming the section, the
absolute file offset and what is wrong.  The reader never allocates much
more than the file: every count is checked against the bytes left before
anything is built from it.

Beyond TFRT's loader (which trusts the encoder), the reader checks that the
kernel tables and used-by lists agree: every register is defined once, every
operand use appears in its producer's used-by list, use counts match, so the
dataflow executor cannot wait forever on a kernel nobody will trigger.

Attributes are decoded lazily by ``BefFile.attribute(offset, type_code)``
(eagerly, to verify them, when the AttributeTypes section lists their
types).  Dense tensors decode to read-only numpy arrays over the mapped
bytes, without a copy.

Standard library and numpy only: no xdsl, no lark (the executor imports
this module, and a test enforces it).
"""

from __future__ import annotations

import gc
import mmap
import os
import struct
import sys
from array import array
from typing import Any

import numpy as np

from tfrt.bef import encoding as enc
from tfrt.bef import program
from tfrt.bef.encoding import AttrType, DType, LocationKind, SectionId

_LITTLE_ENDIAN = sys.byteorder == "little"
_U32 = struct.Struct("<I")
_HEADER6 = struct.Struct("<6I")
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


def read_bef(data_or_path: Any) -> program.BefFile:
    """Load and verify a BEF file.

    ``data_or_path`` is a path (``str`` or ``os.PathLike``; the file is mapped
    with mmap, read-only) or a bytes-like object.  Raises
    :class:`BEFFormatError` for malformed contents (and ``OSError`` when a
    path cannot be opened).
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
        return _Reader(source, view).read()
    finally:
        if gc_was_enabled:
            gc.enable()


def _name(section_id: int) -> str:
    return enc.SECTION_NAMES.get(section_id, f"#{section_id}")


class _Reader:
    def __init__(self, source: Any, view: memoryview):
        self.source = source
        self.buf = view
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
        self.functions = [self._read_function(i) for i in range(len(self.entries))]
        self._read_attribute_names()
        self._read_register_types()
        self._read_function_ref_names()
        loc_start, loc_end = self._range(SectionId.LOCATIONS)
        return program.BefFile(
            version=enc.VERSION,
            kernel_names=self.kernel_names,
            types=self.types,
            functions=self.functions,
            attribute_types=self.attribute_types,
            _attribute_decoder=self.attribute,
            _location_decoder=self.location,
            source=self.source,
            _aggregate_decoder=self.aggregate_elements,
            locations_size=loc_end - loc_start,
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
        self.attribute_types: dict[int, int] | None = None
        if SectionId.ATTRIBUTE_TYPES not in self.sections:
            return
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
        self.attribute_types = types
        for offset, code in types.items():  # verify every listed attribute
            self.attribute(offset, code)

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
        signed = code in (DType.I8, DType.I16, DType.I32, DType.I64)
        return int.from_bytes(raw, "little", signed=signed), pos + size

    def _dtype(self, value: int, pos: int) -> DType:
        if not enc.FIRST_DTYPE <= value < enc.LAST_DTYPE:
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
        entries = []
        ntypes = len(self.types)
        for i in range(n):
            at = pos
            if pos >= end:
                self._fail(sid, pos, "function entry runs past the end of the section")
            kind = self.buf[pos]
            pos += 1
            if kind not in (program.ASYNC_FUNCTION, program.NATIVE_FUNCTION, program.SYNC_FUNCTION):
                self._fail(sid, at, f"function {i} has unknown kind {kind}")
            offset, pos = self._vbr(pos, end, sid)
            name_at = pos
            name_offset, pos = self._vbr(pos, end, sid)
            name = self._string(name_offset, sid, name_at)
            signature = []
            for what in ("argument", "result"):
                count, pos = self._count(pos, end, sid, what)
                indices = []
                for _ in range(count):
                    type_at = pos
                    t, pos = self._vbr(pos, end, sid)
                    if t >= ntypes:
                        self._fail(sid, type_at, f"type index {t} out of range ({ntypes} types)")
                    indices.append(self.types[t])
                signature.append(tuple(indices))
            limit = f_end - f_start
            if offset > limit or (kind != program.NATIVE_FUNCTION and offset == limit):
                self._fail(sid, at, f"function {i} offset {offset} out of range (Functions section has {limit} bytes)")
            entries.append((kind, offset, name, signature[0], signature[1]))
            if pos > end:
                self._fail(sid, at, "function entry runs past the end of the section")
        if pos != end:
            self._fail(sid, pos, f"{end - pos} unexpected bytes after the function index")
        self.entries = entries
        # A body runs at most up to the next body (function sizes are implicit).
        starts = sorted({e[1] for e in entries if e[0] != program.NATIVE_FUNCTION})
        self._body_bounds = {
            s: f_start + (starts[i + 1] if i + 1 < len(starts) else f_end - f_start)
            for i, s in enumerate(starts)
        }

    def _read_function(self, index: int) -> program.Function:
        kind, offset, name, arg_types, result_types = self.entries[index]
        fn = program.Function(index, name, kind, arg_types, result_types)
        if kind == program.NATIVE_FUNCTION:
            return fn
        sid = SectionId.FUNCTIONS
        f_start = self.sections[sid][0]
        pos = f_start + offset
        end = self._body_bounds[offset]
        where = f"function {index} ('{name}')"

        fn.location, pos = self._vbr(pos, end, sid)
        self._check_location(fn.location, pos)
        num_regs, pos = self._count(pos, end, sid, f"{where} register")
        uses = []
        for _ in range(num_regs):
            u, pos = self._vbr(pos, end, sid)
            uses.append(u)
        num_kernels, pos = self._count(pos, end, sid, f"{where} kernel", 3)
        if num_kernels < 1:
            self._fail(sid, pos, f"{where} has no pseudo kernel")
        table = []
        for _ in range(num_kernels):
            at = pos
            k_offset, pos = self._vbr(pos, end, sid)
            num_operands, pos = self._vbr(pos, end, sid)
            stream, pos = self._vbr(pos, end, sid)
            table.append((k_offset, num_operands, stream, at))
        result_regs = []
        for _ in result_types:
            at = pos
            r, pos = self._vbr(pos, end, sid)
            if r >= num_regs:
                self._fail(sid, at, f"result register {r} out of range ({num_regs} registers)")
            result_regs.append(r)
        kernels_start = enc.align_up(pos, enc.KERNEL_ALIGNMENT)
        if kernels_start > end:
            self._fail(sid, pos, f"{where} ends before its kernel list")
        words = array("I")
        words.frombytes(self.buf[kernels_start : kernels_start + (end - kernels_start) // 4 * 4])
        if not _LITTLE_ENDIAN:
            words.byteswap()

        records = []
        next_word = 0  # records follow each other in table order, never overlapping
        for k, entry in enumerate(table):
            record, next_word = self._read_kernel(
                words, kernels_start, k, entry, num_regs, next_word, where
            )
            records.append(record)
            if k == 0:
                self._check_pseudo(record, kernels_start + entry[0], num_regs, len(arg_types), where)
        self._check_dataflow(records, table, uses, result_regs, num_regs, kernels_start, where)
        pseudo = records[0]

        fn.num_registers = num_regs
        fn.register_uses = tuple(uses)
        fn.result_registers = tuple(result_regs)
        fn.pseudo_used_by = pseudo[6]
        fn.root_stream = table[0][2]
        names = self.kernel_names
        fn.kernels = [
            program.Kernel(
                name=names[code],
                location=location,
                args=args,
                attrs=attrs,
                funcs=funcs,
                results=results,
                used_by=used_by,
                num_operands=table[k + 1][1],
                stream_id=table[k + 1][2],
            )
            for k, (code, location, args, attrs, funcs, results, used_by) in enumerate(records[1:])
        ]
        return fn

    def _check_pseudo(self, record, pos, num_regs, num_args, where) -> None:
        sid = SectionId.FUNCTIONS
        _, _, args, attrs, funcs, results, _ = record
        if args or attrs or funcs or len(results) != num_args + 1:
            self._fail(
                sid,
                pos,
                f"{where}: the pseudo kernel must have no operands, attributes or functions "
                f"and {num_args + 1} results",
            )
        if results[0] != num_regs:
            self._fail(sid, pos, f"{where}: the pseudo kernel's first result must be register {num_regs}")
        for i, r in enumerate(results[1:]):
            if r != i:  # arguments are registers 0..n-1, as the writer numbers them
                self._fail(sid, pos, f"{where}: argument {i} must be register {i}, not {r}")

    def _read_kernel(self, words, kernels_start, k, entry, num_regs, first_word, where):
        sid = SectionId.FUNCTIONS
        k_offset, num_operands, _stream, at = entry
        if k_offset % 4:
            self._fail(sid, at, f"{where}: kernel {k} offset {k_offset} is not 4-byte aligned")
        w = k_offset // 4
        if w < first_word:
            self._fail(sid, at, f"{where}: kernel {k} overlaps the kernel before it")
        nwords = len(words)
        pos = kernels_start + k_offset
        if w + 6 > nwords:
            self._fail(sid, at, f"{where}: kernel {k} offset {k_offset} out of range")
        code, location, nargs, nattrs, nfuncs, nres = words[w : w + 6]
        body = w + 6 + nres
        total = nargs + nattrs + nfuncs + nres
        if body > nwords or body + total > nwords:
            self._fail(sid, pos, f"{where}: kernel {k} runs past the end of the function")
        counts = words[w + 6 : body]
        used_total = sum(counts)
        if body + total + used_total > nwords:
            self._fail(sid, pos, f"{where}: kernel {k} used-by lists run past the end of the function")
        p = body
        args = tuple(words[p : p + nargs])
        p += nargs
        attrs = tuple(words[p : p + nattrs])
        p += nattrs
        funcs = tuple(words[p : p + nfuncs])
        p += nfuncs
        results = tuple(words[p : p + nres])
        p += nres
        used_by = []
        for c in counts:
            used_by.append(tuple(words[p : p + c]))
            p += c
        record = (code, location, args, attrs, funcs, results, tuple(used_by))
        if k == 0:
            return record, p
        if code >= len(self.kernel_names):
            self._fail(sid, pos, f"{where}: kernel {k} code {code} out of range ({len(self.kernel_names)} kernels)")
        if num_operands != nargs:
            self._fail(sid, at, f"{where}: kernel {k} has {nargs} operands but its kernel table entry says {num_operands}")
        self._check_location(location, pos + 4)
        for r in args:
            if r >= num_regs:
                self._fail(sid, pos, f"register index {r} out of range ({num_regs} registers)")
        for r in results:
            if r >= num_regs:
                self._fail(sid, pos, f"register index {r} out of range ({num_regs} registers)")
        attr_size = self.attr_end - self.attr_start
        for a in attrs:
            if a >= attr_size:
                self._fail(sid, pos, f"attribute offset {a} out of range (Attributes section has {attr_size} bytes)")
            if self.attribute_types is not None and a not in self.attribute_types:
                self._fail(sid, pos, f"attribute offset {a} has no entry in the AttributeTypes section")
        for f in funcs:
            if f >= len(self.entries):
                self._fail(sid, pos, f"function index {f} out of range ({len(self.entries)} functions)")
        return record, p

    def _check_location(self, offset: int, at: int) -> None:
        if offset < self.loc_end - self.loc_start and offset not in self._loc_cache:
            self.location(offset)

    def _check_dataflow(self, records, table, uses, result_regs, num_regs, kernels_start, where):
        """Registers are defined once, operand uses and used-by lists agree,
        and use counts are right: what the dataflow executor relies on.

        Memory stays proportional to the kernel records (flat integer arrays,
        no per-register Python objects), whatever the register count claims.
        """
        sid = SectionId.FUNCTIONS
        num_kernels = len(records)
        defined = len(records[0][5]) - 1 + sum(len(rec[5]) for rec in records[1:])
        if num_regs > defined:
            self._fail(sid, kernels_start, f"{where}: {num_regs} registers, but its kernels define only {defined}")
        defined_by = array("q", [-1]) * (num_regs + 1)
        produced_reg, produced_user = array("q"), array("q")  # from used-by lists
        for k, rec in enumerate(records):
            results, used_by = rec[5], rec[6]
            pos = kernels_start + table[k][0]
            for r, users in zip(results, used_by):
                if defined_by[r] != -1:
                    self._fail(sid, pos, f"{where}: register {r} is defined twice")
                defined_by[r] = k
                for u in users:
                    if not 0 < u < num_kernels:
                        self._fail(sid, pos, f"{where}: used-by index {u} out of range ({num_kernels} kernels)")
                    produced_reg.append(r)
                    produced_user.append(u)
        # No register is defined twice and there are no more registers than
        # definitions: every register is defined exactly once.
        consumed_reg, consumed_user = array("q"), array("q")  # from operand lists
        for k in range(1, num_kernels):
            args = records[k][2]
            if not args:  # started by the pseudo kernel's first result
                consumed_reg.append(num_regs)
                consumed_user.append(k)
            for r in args:
                consumed_reg.append(r)
                consumed_user.append(k)
        mismatch = _first_difference(produced_reg, produced_user, consumed_reg, consumed_user)
        if mismatch is not None:
            what = "kernels without operands" if mismatch == num_regs else f"register {mismatch}"
            self._fail(
                sid,
                kernels_start + table[defined_by[mismatch]][0],
                f"{where}: the used-by list of {what} does not match the kernels that use it",
            )
        counts = np.bincount(np.frombuffer(consumed_reg, np.int64), minlength=num_regs + 1)[:num_regs]
        if result_regs:
            counts = counts + np.bincount(np.array(result_regs, np.int64), minlength=num_regs)
        wrong = np.nonzero(counts != np.array(uses, np.int64))[0] if num_regs else ()
        if len(wrong):
            r = int(wrong[0])
            self._fail(sid, kernels_start, f"{where}: register {r} has use count {uses[r]} but {int(counts[r])} uses")

    # -- optional sections ---------------------------------------------------

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
            if nk != len(fn.kernels) + 1:
                self._fail(sid, at, f"function {fn.index} has {len(fn.kernels) + 1} kernels, the section says {nk}")
            names = []
            for kernel in fn.kernels:
                kernel_names = []
                for _ in kernel.attrs:
                    at = pos
                    offset, pos = self._vbr(pos, end, sid)
                    kernel_names.append(self._string(offset, sid, at))
                names.append(tuple(kernel_names))
            fn.attribute_names = names
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
            fn.register_types = tuple(types)
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
            if nk != len(fn.kernels) + 1:
                self._fail(sid, at, f"function {fn.index} has {len(fn.kernels) + 1} kernels, the section says {nk}")
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
            fn.function_ref_names = per_kernel
        if pos != end:
            self._fail(sid, pos, f"{end - pos} unexpected bytes at the end of the section")


def _first_difference(a_reg: array, a_user: array, b_reg: array, b_user: array) -> int | None:
    """The smallest register whose (register, user) multiset differs between
    the two lists, or None when they are equal."""
    a = _sorted_pairs(a_reg, a_user)
    b = _sorted_pairs(b_reg, b_user)
    n = min(len(a[0]), len(b[0]))
    differ = np.nonzero((a[0][:n] != b[0][:n]) | (a[1][:n] != b[1][:n]))[0]
    if differ.size:
        i = int(differ[0])
        return int(min(a[0][i], b[0][i]))
    if len(a[0]) != len(b[0]):
        longer = a if len(a[0]) > n else b
        return int(longer[0][n])
    return None


def _sorted_pairs(regs: array, users: array) -> tuple[np.ndarray, np.ndarray]:
    r = np.frombuffer(regs, np.int64) if len(regs) else np.zeros(0, np.int64)
    u = np.frombuffer(users, np.int64) if len(users) else np.zeros(0, np.int64)
    order = np.lexsort((u, r))
    return r[order], u[order]


_BF16 = None


def _numpy_dtype(code: int) -> Any:
    info = enc.DTYPE_INFO[code]
    if info[2] is not None:
        return np.dtype(info[2])
    global _BF16
    if _BF16 is None:  # bfloat16 comes from ml_dtypes when installed
        try:
            import ml_dtypes

            _BF16 = np.dtype(ml_dtypes.bfloat16)
        except ImportError:
            _BF16 = np.dtype("<u2")
    return _BF16
