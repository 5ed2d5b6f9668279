"""Build tests/bef/invalid/*.bef: one malformed BEF file per reader error.

Each fixture starts from the valid BEF file of ``BASE`` and breaks one
thing.  ``FIXTURES`` maps a file name to (how to break it, the section the
error must name, a piece of the message); ``test_bef_invalid.py`` checks
that the committed files equal what this script builds and that
``read_bef`` rejects each one as expected.

Run ``python tests/bef/make_invalid_fixtures.py`` after a change to the
writer's layout, and commit the regenerated files.
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).parent))

from bef_testing import build_file, parse, replace_section, section, split_sections  # noqa: E402

from tfrt.bef import encoding as enc  # noqa: E402
from tfrt.bef.encoding import SectionId  # noqa: E402

HERE = Path(__file__).parent / "invalid"

BASE = """
module @cu attributes {tfrt.compiled} {
  func.func @main() {
    func.return
  }
}
func.func private @native(i32) -> i32 attributes {tfrt.native}
func.func @main(%a: i32, %b: i32) -> i32 {
  %0 = "k.const"() {flag = true, ty = f32, str = "hi", shape = #corert.shape<2x3>,
                    dense = dense<[1, 2]> : tensor<2xi32>, agg = [1 : i32, "s"],
                    arr = [1 : i32, 2 : i32], unit = @cu::@main} : () -> i32 loc("f.mlir":2:3)
  %1 = "k.add"(%0, %a) {v = 5 : i32} : (i32, i32) -> i32 loc("n"("f.mlir":3:3))
  %2 = "k.call"(%1) {callee = @native} : (i32) -> i32 loc("f.mlir":4:3)
  %3 = "k.if"(%2, %b) ({
  ^bb0(%x: i32):
    "tfrt.return"(%x) : (i32) -> ()
  }) : (i32, i32) -> i32 loc("f.mlir":5:3)
  "tfrt.return"(%3) : (i32) -> ()
} loc("f.mlir":1:1)
"""

# Kernels of @main, by kernel-table index.
CONST, ADD, CALL, IF = 0, 1, 2, 3


def base() -> bytes:
    from tfrt.bef.writer import write_bef

    return write_bef(parse(BASE))


# ---------------------------------------------------------------------------
# Editing helpers


def vbrs(values) -> bytes:
    return b"".join(enc.encode_vbr(v) for v in values)


def read_vbrs(payload: bytes, pos: int, count: int) -> tuple[list[int], int]:
    out = []
    for _ in range(count):
        v, pos = enc.decode_vbr(payload, pos, len(payload))
        out.append(v)
    return out, pos


def function_index(data: bytes) -> list[dict]:
    payload = section(data, SectionId.FUNCTION_INDEX)
    (n,), pos = read_vbrs(payload, 0, 1)
    entries = []
    for _ in range(n):
        kind = payload[pos]
        (offset, name), pos = read_vbrs(payload, pos + 1, 2)
        (nargs,), pos = read_vbrs(payload, pos, 1)
        args, pos = read_vbrs(payload, pos, nargs)
        (nres,), pos = read_vbrs(payload, pos, 1)
        res, pos = read_vbrs(payload, pos, nres)
        entries.append(dict(kind=kind, offset=offset, name=name, args=args, results=res))
    return entries


def encode_function_index(entries: list[dict]) -> bytes:
    out = bytearray(vbrs([len(entries)]))
    for e in entries:
        out.append(e["kind"])
        out += vbrs([e["offset"], e["name"], len(e["args"]), *e["args"], len(e["results"]), *e["results"]])
    return bytes(out)


C = enc.Column
PER_KERNEL = (C.CODE, C.LOCATION, C.NUM_ARGS, C.NUM_ATTRS, C.NUM_FUNCS, C.NUM_RESULTS, C.STREAM, C.ORDER)
FLAT = {C.ARGS: C.NUM_ARGS, C.ATTRS: C.NUM_ATTRS, C.FUNCS: C.NUM_FUNCS}
_DTYPES = {1: "B", 2: "H", 4: "I"}


@dataclass
class Body:
    location: int
    n: int
    cols: dict[int, list[int]]
    root_stream: int = 0
    widths: int | None = None  # None: the narrowest, as the writer chooses

    def index(self, kernel: int, column: int, index: int = 0) -> int:
        """Where kernel ``kernel``'s entry ``index`` sits in ``column``."""
        if column in FLAT:
            return sum(self.cols[FLAT[column]][:kernel]) + index
        return kernel

    def encode(self) -> bytes:
        widths = self.widths
        if widths is None:
            widths = 0
            for c in C:
                code = enc.width_code(max(self.cols[c], default=0))
                if c >= C.ARGS and self.cols[c] and code == 0:
                    code = 1
                widths |= code << (2 * c)
        out = bytearray(struct.pack("<4I", self.location, self.n, widths, self.root_stream))
        for c in C:
            width = enc.WIDTH_BYTES[(widths >> (2 * c)) & 3]
            if width:
                out += struct.pack(f"<{len(self.cols[c])}{_DTYPES[width]}", *self.cols[c])
                out += b"\xcc" * enc.padding_for(len(out), 4)
        return bytes(out)


def main_body(data: bytes) -> tuple[Body, int]:
    """@main's body (the last in the Functions section) and its offset."""
    entries = function_index(data)
    main = entries[-1]
    payload = section(data, SectionId.FUNCTIONS)
    pos = main["offset"]
    location, n, widths, root_stream = struct.unpack_from("<4I", payload, pos)
    pos += 16
    cols: dict[int, list[int]] = {}
    for c in C:
        count = n if c in PER_KERNEL else (sum(cols[FLAT[c]]) if c in FLAT else len(main["results"]))
        width = enc.WIDTH_BYTES[(widths >> (2 * c)) & 3]
        if not width:
            cols[c] = [0] * count
            continue
        cols[c] = list(struct.unpack_from(f"<{count}{_DTYPES[width]}", payload, pos))
        pos = enc.align_up(pos + count * width, 4)
    return Body(location, n, cols, root_stream), main["offset"]


def with_main_body(data: bytes, body: Body, raw: bytes | None = None) -> bytes:
    payload = section(data, SectionId.FUNCTIONS)
    _, offset = main_body(data)
    out = bytearray(payload[:offset]) + (body.encode() if raw is None else raw)
    return replace_section(data, SectionId.FUNCTIONS, bytes(out))


def edit_main(edit: Callable[[Body], None]) -> Callable[[bytes], bytes]:
    def apply(data: bytes) -> bytes:
        body, _ = main_body(data)
        edit(body)
        return with_main_body(data, body)

    return apply


def set_entry(kernel: int, column: int, value: int, index: int = 0) -> Callable[[bytes], bytes]:
    def edit(body: Body) -> None:
        body.cols[column][body.index(kernel, column, index)] = value

    return edit_main(edit)


def set_width(column: int, code: int) -> Callable[[bytes], bytes]:
    def edit(body: Body) -> None:
        body.widths = (_writer_widths(body) & ~(3 << (2 * column))) | (code << (2 * column))

    return edit_main(edit)


def _writer_widths(body: Body) -> int:
    return struct.unpack_from("<I", body.encode(), 8)[0]


def _truncated_body(data: bytes) -> bytes:
    body, _ = main_body(data)
    return with_main_body(data, body, raw=body.encode()[:-4])


def _body_near_the_end(data: bytes) -> bytes:
    """@main's entry points 8 bytes before the end of the Functions section."""
    size = len(section(data, SectionId.FUNCTIONS))
    return edit_index(lambda e: e[-1].__setitem__("offset", size - 8))(data)


def _order_swapped(body: Body) -> None:
    order = body.cols[C.ORDER]
    i, j = order.index(CONST), order.index(ADD)
    order[i], order[j] = order[j], order[i]


def edit_section(section_id: int, edit: Callable[[bytearray], bytes | bytearray | None]):
    def apply(data: bytes) -> bytes:
        payload = bytearray(section(data, section_id))
        result = edit(payload)
        return replace_section(data, section_id, bytes(payload if result is None else result))

    return apply


def attribute_offset(data: bytes, code: int) -> int:
    """The Attributes-section offset of the first attribute of type ``code``."""
    payload = section(data, SectionId.ATTRIBUTE_TYPES)
    (n,), pos = read_vbrs(payload, 0, 1)
    pairs, _ = read_vbrs(payload, pos, 2 * n)
    for offset, c in zip(pairs[::2], pairs[1::2]):
        if c == code:
            return offset
    raise KeyError(code)


def patch_attribute(code: int, at: int, new: bytes) -> Callable[[bytes], bytes]:
    """Overwrite bytes ``at`` past the start of the first attribute of ``code``."""

    def apply(data: bytes) -> bytes:
        offset = attribute_offset(data, code)
        payload = bytearray(section(data, SectionId.ATTRIBUTES))
        payload[offset + at : offset + at + len(new)] = new
        return replace_section(data, SectionId.ATTRIBUTES, bytes(payload))

    return apply


def edit_attribute_types(edit: Callable[[list[int]], None]) -> Callable[[bytes], bytes]:
    def apply(data: bytes) -> bytes:
        payload = section(data, SectionId.ATTRIBUTE_TYPES)
        (n,), pos = read_vbrs(payload, 0, 1)
        pairs, _ = read_vbrs(payload, pos, 2 * n)
        edit(pairs)
        return replace_section(data, SectionId.ATTRIBUTE_TYPES, vbrs([len(pairs) // 2, *pairs]))

    return apply


def edit_index(edit: Callable[[list[dict]], None]) -> Callable[[bytes], bytes]:
    def apply(data: bytes) -> bytes:
        entries = function_index(data)
        edit(entries)
        return replace_section(data, SectionId.FUNCTION_INDEX, encode_function_index(entries))

    return apply


def per_function_section(section_id: int, edit: Callable[[list[int]], None]):
    """Edit an optional per-function section given as a flat VBR list."""

    def apply(data: bytes) -> bytes:
        payload = section(data, section_id)
        values = []
        pos = 0
        while pos < len(payload):
            v, pos = enc.decode_vbr(payload, pos, len(payload))
            values.append(v)
        edit(values)
        return replace_section(data, section_id, vbrs(values))

    return apply


def drop_section(section_id: int) -> Callable[[bytes], bytes]:
    return lambda data: build_file([s for s in split_sections(data) if s[0] != section_id])


def nested_aggregates(depth: int) -> bytes:
    """``depth`` aggregates, each holding the next, around one i32."""
    inner = struct.pack("<i", 7)
    code = enc.DType.I32
    for _ in range(depth):
        # header (8) + count (4) + one offset (4) + 3 pad + type byte = 20
        size = 20 + len(inner)
        inner = (
            struct.pack("<BBHI", 4, 0, 16, size) + struct.pack("<II", 1, 20)
            + b"\xcc\xcc\xcc" + bytes([code]) + inner
        )  # fmt: skip
        code = enc.AttrType.AGGREGATE
    return inner


def deep_aggregate(data: bytes) -> bytes:
    data = replace_section(data, SectionId.ATTRIBUTES, nested_aggregates(enc.MAX_NESTING + 2))
    return replace_section(data, SectionId.ATTRIBUTE_TYPES, vbrs([1, 0, enc.AttrType.AGGREGATE]))


def deep_locations(data: bytes) -> bytes:
    chain = b"\x02\x00" * (enc.MAX_NESTING + 2) + b"\x00"  # NameLoc("f.mlir", NameLoc(...))
    return replace_section(data, SectionId.LOCATIONS, chain)


def bad_alignment_byte(data: bytes) -> bytes:
    out = bytearray(data[:3])
    out += b"\x00" + enc.encode_vbr((2 << 1) | 1) + b"\x03" + b"a\0"
    return bytes(out)


def _swap_aggregate_offsets(data: bytes) -> bytes:
    offset = attribute_offset(data, enc.AttrType.AGGREGATE)
    payload = bytearray(section(data, SectionId.ATTRIBUTES))
    first, second = struct.unpack_from("<II", payload, offset + 12)
    struct.pack_into("<II", payload, offset + 12, second, first)
    return replace_section(data, SectionId.ATTRIBUTES, bytes(payload))


def _misaligned_i32(data: bytes) -> bytes:
    offset = attribute_offset(data, enc.DType.I32)

    def edit(pairs: list[int]) -> None:
        pairs[pairs.index(offset)] = offset + 1

    return edit_attribute_types(edit)(data)


def _unlisted_attribute(data: bytes) -> bytes:
    # Inside the i32 attribute `v`: in range, but no attribute starts there.
    offset = attribute_offset(data, enc.DType.I32)
    return set_entry(ADD, C.ATTRS, offset + 1)(data)


def _symbol_ref_nul(data: bytes) -> bytes:
    offset = attribute_offset(data, enc.AttrType.SYMBOL_REF)
    payload = bytearray(section(data, SectionId.ATTRIBUTES))
    end = payload.index(b"\0", offset + 8)
    payload[end] = ord("x")
    return replace_section(data, SectionId.ATTRIBUTES, bytes(payload))


def _duplicate_entry(pairs: list[int]) -> None:
    pairs += [pairs[0], enc.DType.F64 if pairs[1] != enc.DType.F64 else enc.DType.I64]


def _attribute_names_kernels(values: list[int]) -> None:
    values[1] += 1  # kernels of the first non-native function


def _function_ref_names_too_many(data: bytes) -> bytes:
    payload = section(data, SectionId.FUNCTION_REF_NAMES)
    # The `callee` group of k.call says it covers two references.
    i = payload.index(b"callee")
    patched = payload[: i - 2] + bytes([2 << 1]) + payload[i - 1 :]
    return replace_section(data, SectionId.FUNCTION_REF_NAMES, patched)


F = SectionId

# name -> (edit, section named by the error, a piece of the message)
FIXTURES: dict[str, tuple[Callable[[bytes], bytes], str | None, str]] = {
    "bad_magic": (lambda d: b"\x0c" + d[1:], None, "invalid BEF file header"),
    "empty": (lambda d: b"", None, "the file is empty"),
    "bad_version": (lambda d: d[:2] + b"\x00" + d[3:], None, "unsupported BEF format version 0 (this reader supports version 1)"),
    "section_alignment": (bad_alignment_byte, "Strings", "section alignment 3 is not a power of 2"),
    "section_past_end": (lambda d: d[:-1], "FunctionRefNames", "runs past the end of the file"),
    "duplicate_section": (lambda d: build_file([*split_sections(d), (0, b"x\0", 1)]), "Strings", "section appears more than once"),
    "missing_section": (drop_section(F.KERNELS), "Kernels", "required section is missing"),
    "strings_unterminated": (edit_section(F.STRINGS, lambda p: p[:-1]), "Strings", "the last string is not NUL-terminated"),
    "string_offset": (edit_section(F.KERNELS, lambda p: vbrs([1, 5000])), "Kernels", "string offset 5000 out of range"),
    "trailing_bytes": (edit_section(F.KERNELS, lambda p: p + b"\x00"), "Kernels", "unexpected bytes after the kernel table"),
    "count_too_large": (edit_section(F.TYPES, lambda p: vbrs([1000]) + p[1:]), "Types", "type count 1000 exceeds"),
    "vbr_too_long": (edit_section(F.TYPES, lambda p: b"\x80" * 11 + b"\x00"), "Types", "VBR integer longer than 10 bytes"),
    "vbr_truncated": (edit_section(F.TYPES, lambda p: b"\x81"), "Types", "truncated VBR integer"),
    "location_kind": (edit_section(F.LOCATIONS, lambda p: b"\x09" + p[1:]), "Locations", "unknown location kind 9"),
    "location_string": (edit_section(F.LOCATIONS, lambda p: p[:1] + b"\x7f" + p[2:]), "Locations", "location string offset 127 out of range"),
    "location_nesting": (deep_locations, "Locations", "locations nested deeper than 128"),
    "attribute_type_offset": (edit_attribute_types(lambda p: p.__setitem__(0, 100000)), "AttributeTypes", "attribute offset 100000 out of range"),
    "attribute_type_code": (edit_attribute_types(lambda p: p.__setitem__(1, 24)), "AttributeTypes", "unknown attribute type 24"),
    "attribute_two_types": (edit_attribute_types(_duplicate_entry), "AttributeTypes", "listed with two types"),
    "attribute_misaligned": (_misaligned_i32, "Attributes", "i32 attribute is not 4-byte aligned"),
    "i1_value": (patch_attribute(enc.DType.I1, 0, b"\x02"), "Attributes", "i1 attribute holds 2"),
    "type_code": (patch_attribute(enc.AttrType.TYPE, 0, b"\x63"), "Attributes", "unknown type code 99"),
    "string_length": (patch_attribute(enc.DType.STRING, 0, struct.pack("<I", 10**6)), "Attributes", "string of 1000000 bytes runs past the end"),
    "array_length": (patch_attribute(0x88, 0, struct.pack("<I", 10**6)), "Attributes", "array of 1000000 elements runs past the end"),
    "dense_count": (patch_attribute(enc.AttrType.DENSE, 12, struct.pack("<I", 3)), "Attributes", "dense element count 3 does not match its shape [2]"),
    "dense_dtype": (patch_attribute(enc.AttrType.DENSE, 1, b"\x10"), "Attributes", "dense attribute has unsupported element type 16"),
    "shape_size": (patch_attribute(enc.AttrType.SHAPE, 4, struct.pack("<I", 99)), "Attributes", "shape byte size 99 does not match rank 2"),
    "aggregate_order": (_swap_aggregate_offsets, "Attributes", "out of order or outside the aggregate"),
    "aggregate_nesting": (deep_aggregate, "Attributes", "aggregates nested deeper than 128"),
    "symbol_ref_unterminated": (_symbol_ref_nul, "Attributes", "compilation unit is not NUL-terminated"),
    "function_kind": (edit_index(lambda e: e[0].__setitem__("kind", 7)), "FunctionIndex", "function 0 has unknown kind 7"),
    "function_type_index": (edit_index(lambda e: e[0]["args"].__setitem__(0, 99)), "FunctionIndex", "type index 99 out of range"),
    "function_offset": (edit_index(lambda e: e[-1].__setitem__("offset", 100000)), "FunctionIndex", "offset 100000 out of range"),
    "register_index": (set_entry(ADD, C.ARGS, 9), "Functions", "register index 9 out of range (6 registers)"),
    "result_register": (edit_main(lambda b: b.cols[C.RETURNS].__setitem__(0, 100)), "Functions", "result register 100 out of range (6 registers)"),
    "kernel_code": (set_entry(ADD, C.CODE, 99), "Functions", "kernel 1 code 99 out of range"),
    "body_misaligned": (edit_index(lambda e: e[-1].__setitem__("offset", e[-1]["offset"] + 1)), "Functions", "body is not 4-byte aligned"),
    "body_header": (_body_near_the_end, "Functions", "body header runs past the end of the function"),
    "column_widths": (edit_main(lambda b: setattr(b, "widths", _writer_widths(b) | 1 << 30)), "Functions", "unknown bits set in the column widths"),
    "kernel_count": (edit_main(lambda b: setattr(b, "n", 10**6)), "Functions", "kernel count 1000000 exceeds"),
    "column_past_end": (_truncated_body, "Functions", "the RETURNS column runs past the end of the function"),
    "flat_column_width": (set_width(C.ARGS, 0), "Functions", "the non-empty ARGS column has width 0"),
    "count_column_width": (set_width(C.NUM_ARGS, 3), "Functions", "the NUM_ARGS column is wider than 2 bytes"),
    "order_permutation": (set_entry(CONST, C.ORDER, 1), "Functions", "the execution order is not a permutation of its 4 kernels"),
    "use_before_definition": (edit_main(_order_swapped), "Functions", "kernel 1 uses register 2 before kernel 0 defines it"),
    "function_reference": (set_entry(CALL, C.FUNCS, 99), "Functions", "function index 99 out of range (3 functions)"),
    "attribute_offset": (set_entry(ADD, C.ATTRS, 10**6), "Functions", "attribute offset 1000000 out of range"),
    "attribute_not_listed": (_unlisted_attribute, "Functions", "has no entry in the AttributeTypes section"),
    "attribute_names_functions": (per_function_section(F.ATTRIBUTE_NAMES, lambda v: v.__setitem__(0, 7)), "AttributeNames", "section describes 7 functions, the file has 3"),
    "attribute_names_kernels": (per_function_section(F.ATTRIBUTE_NAMES, _attribute_names_kernels), "AttributeNames", "kernels, the section says"),
    "register_types_count": (per_function_section(F.REGISTER_TYPES, lambda v: v.__setitem__(1, v[1] + 1)), "RegisterTypes", "registers, the section says"),
    "register_types_index": (per_function_section(F.REGISTER_TYPES, lambda v: v.__setitem__(2, 99)), "RegisterTypes", "type index 99 out of range"),
    "function_ref_names": (_function_ref_names_too_many, "FunctionRefNames", "names 2 function references, the kernel has 1"),
}  # fmt: skip


def build_all() -> dict[str, bytes]:
    data = base()
    return {name: edit(data) for name, (edit, _, _) in FIXTURES.items()}


def main() -> None:
    HERE.mkdir(exist_ok=True)
    for old in HERE.glob("*.bef"):
        old.unlink()
    for name, data in build_all().items():
        (HERE / f"{name}.bef").write_bytes(data)
    print(f"wrote {len(FIXTURES)} fixtures to {HERE}")


if __name__ == "__main__":
    main()
