"""tfrt.bef.writer: the bytes it produces, checked against the layout by hand,
and the diagnostics TFRT's converter gives."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from bef_testing import parse, ret, section, split_sections

from tfrt.bef import encoding as enc
from tfrt.bef.encoding import SectionId
from tfrt.bef.reader import read_bef
from tfrt.bef.writer import write_bef
from tfrt.diagnostics import DiagnosticError, SourceLoc


def bef(text: str, **kwargs) -> bytes:
    return write_bef(parse(text), **kwargs)


def attributes_of(attrs: str) -> bytes:
    """The Attributes section of a module with one op carrying ``attrs``."""
    data = bef(f'func.func @f() {{\n  "k"() {{{attrs}}} : () -> ()\n  {ret()}\n}}')
    return section(data, SectionId.ATTRIBUTES)


def test_whole_file_of_a_trivial_function():
    data = bef(f'func.func @f() {{\n  "k"() : () -> ()\n  {ret()}\n}}', optional_sections=False)
    expected = bytes.fromhex(
        "0bef01"  # magic, version 1
        "00 08 66006b00"  # Strings: "f\0k\0", sorted
        "01 00"  # Attributes: empty
        "02 04 0102"  # Kernels: 1 name, at string offset 2
        "03 02 00"  # Types: none
        "04 0c 01 000000 00 00".replace(" ", "")  # FunctionIndex: async @f at 0, () -> ()
        + "05 30"  # Functions: length 24, already 4-aligned in the file
        # body: location 0, 1 kernel, column widths 0x1004 (LOCATION and
        # STREAM are u8 columns, every other column is all zeros: kernel
        # code 0, execution order [0]; or empty), root stream 0.
        "00000000 01000000 04100000 00000000"
        # LOCATION [1] (the function's location is 0) and STREAM [1] ("k"
        # feeds nothing, so stream analysis gives it its own stream), each
        # padded to 4 bytes.
        "01 cccccc 01 cccccc"
        "06 00"  # LocationStrings: empty
        "07 04 0000"  # Locations: two unknown locations (function, kernel)
        .replace(" ", "")
    )
    assert data == expected


def test_vbr_is_most_significant_group_first():
    ops = "\n".join(f'  "k{i}"() : () -> ()' for i in range(300))
    data = bef(f"func.func @f() {{\n{ops}\n  {ret()}\n}}", optional_sections=False)
    kernels = section(data, SectionId.KERNELS)
    assert kernels.startswith(b"\x82\x2c")  # 300 kernel names


def test_scalar_string_and_array_attributes():
    payload = attributes_of('a = 1 : i8, b = 7 : i32, c = "hi", d = [1, 2]')
    assert payload == bytes.fromhex(
        "01 cccccc 07000000"  # i8 (1 byte), i32 at natural alignment
        "02000000 6869"  # string: u32 length then the bytes, no NUL
        "cccccccccccc 02000000"  # i64 array: padding *before* the count...
        "0100000000000000 0200000000000000".replace(" ", "")  # ...so elements are 8-aligned
    )


def test_float_and_type_attributes():
    payload = attributes_of("a = 1.5 : f16, b = 2.5 : bf16, c = true, d = f64, e = -2.0 : f64")
    assert payload[:4] == b"\x00\x3e\x20\x40"  # f16 and bf16 raw bits
    assert payload[4:6] == b"\x01\x0b"  # i1 true, type f64 (DType 11)
    assert payload[8:16] == struct.pack("<d", -2.0)  # f64 8-aligned


def test_dense_attribute_layout():
    payload = attributes_of("x = dense<[1, 2]> : tensor<2xi32>")
    # Header placed so that the dims (offset + 20) and the data are 8-aligned.
    assert payload == bytes.fromhex(
        "cccccccc"
        "08 08 1c00 24000000"  # alignment 8, dtype i32, prefix 28, byte size 36
        "1c000000 02000000 01000000"  # element offset, count, rank
        "0200000000000000"  # dims
        "01000000 02000000".replace(" ", "")
    )


def test_dense_splat_and_i1_are_expanded():
    payload = attributes_of("x = dense<true> : tensor<3xi1>")
    assert payload[-3:] == b"\x01\x01\x01"  # one byte per i1 element, 0 or 1
    payload = attributes_of("x = dense<7> : tensor<2xi64>")
    assert payload[-16:] == struct.pack("<2q", 7, 7)


def test_shape_attributes():
    payload = attributes_of("x = #corert.shape<2x?x3>, y = #corert.shape<*>")
    assert payload == bytes.fromhex(
        "cccccccc 08 00 0c00 24000000 03000000".replace(" ", "")
    ) + struct.pack("<3q", 2, -1, 3) + b"\x00\x00\x00\x00"  # unranked: a bare u32 0


def test_aggregate_layout():
    payload = attributes_of('x = [1 : i32, "s"]')
    assert payload == bytes.fromhex(
        "04 00 1400 25000000"  # alignment 4, prefix 20, byte size 37
        "02000000 18000000 20000000"  # count, element offsets (from the start)
        "cccccc 08 01000000"  # the type code sits just before each element
        "cccccc 10 01000000 73".replace(" ", "")
    )


def test_empty_array_and_string():
    payload = attributes_of('x = [], y = ""')
    assert payload == b"\x00" * 8  # both are a bare u32 0
    data = bef(f'func.func @f() {{\n  "k"() {{x = []}} : () -> ()\n  {ret()}\n}}')
    assert read_bef(data).attribute_types == {0: enc.AttrType.EMPTY_ARRAY}


def test_attributes_are_unique_and_cost_is_dropped():
    data = bef(
        f"""func.func @f() {{
  "a"() {{x = 5 : i32, y = 5 : i32, _tfrt_cost = 3 : i64}} : () -> ()
  "b"() {{z = 5 : i32, w = 5 : i64}} : () -> ()
  {ret()}
}}"""
    )
    f = read_bef(data).functions[0]
    assert f.kernels[0].attrs == (0, 0)  # one 5 : i32, no _tfrt_cost
    assert f.kernels[1].attrs == (8, 0)  # attributes sorted by name: w, z
    assert f.attribute_names == [("x", "y"), ("w", "z")]


def test_strings_are_sorted_and_unique():
    data = bef(f'func.func @zeta() {{\n  "b.op"() : () -> ()\n  "a.op"() : () -> ()\n  "b.op"() : () -> ()\n  {ret()}\n}}')
    strings = section(data, SectionId.STRINGS)
    assert strings == b"a.op\0b.op\0zeta\0"
    assert read_bef(data).kernel_names == ["b.op", "a.op"]  # kernels in first-seen order


def test_functions_are_numbered_in_post_order():
    data = bef(
        f"""
func.func @first() {{ {ret()} }}
func.func @outer(%c: i1) {{
  "tfrt.if"(%c) ({{
    "inner"() ({{ {ret()} }}) : () -> ()
    {ret()}
  }}, {{ {ret()} }}) : (i1) -> ()
  {ret()}
}}
func.func private @native(i32) attributes {{tfrt.native}}
"""
    )
    f = read_bef(data)
    assert [(fn.name, fn.kind) for fn in f.functions] == [
        ("first", 0),
        ("", 0),  # the region of "inner"
        ("", 0),  # tfrt.if's then region
        ("", 0),  # tfrt.if's else region
        ("outer", 0),
        ("native", 1),
    ]
    assert f.functions[4].kernels[0].funcs == (2, 3)
    assert f.functions[2].kernels[0].funcs == (1,)


def test_registers_use_counts_and_used_by_lists():
    data = bef(
        f"""func.func @f(%a: i32) -> (i32, i32) {{
  %x = "k.one"() : () -> i32
  "k.use"(%a, %x) : (i32, i32) -> ()
  "k.use2"(%x, %x) : (i32, i32) -> ()
  {ret("%x: i32", "%a: i32")}
}}"""
    )
    f = read_bef(data).functions[0]
    assert f.num_registers == 2
    assert f.register_uses == (2, 4)  # return uses count; a double use counts twice
    assert f.result_registers == (1, 0)
    one, use, use2 = f.kernels
    # Pseudo users: kernels without operands (in order), then argument users.
    assert f.pseudo_used_by == ((1,), (2,))
    # Users in reverse textual order (MLIR's use lists); return is left out.
    assert one.used_by == ((3, 3, 2),)
    assert (use.num_operands, use2.num_operands) == (2, 2)


def test_every_op_gets_its_own_location_record():
    data = bef(
        f"""func.func @f() {{
  "a"() : () -> () loc(unknown)
  "b"() : () -> () loc(unknown)
  "c"() : () -> () loc("x.mlir":3:4)
  "d"() : () -> () loc("x.mlir":5:6)
  {ret()}
}} loc("x.mlir":1:1)"""
    )
    f = read_bef(data)
    fn = f.functions[0]
    locations = [k.location for k in fn.kernels]
    assert len(set(locations)) == 4  # unknown locations are not shared
    assert section(data, SectionId.LOCATION_STRINGS) == b"x.mlir\0"
    assert f.location(fn.location) == enc_loc("x.mlir", 1, 1)
    assert f.location(locations[3]) == enc_loc("x.mlir", 5, 6)


def enc_loc(file, line, col):
    from tfrt.bef.program import FileLineColLocation

    return FileLineColLocation(file, line, col)


def test_optional_sections():
    text = f'func.func @f() -> i32 {{\n  %x = "k"() {{v = 1 : i32}} : () -> i32\n  {ret("%x: i32")}\n}}'
    with_ids = [s[0] for s in split_sections(bef(text))]
    without_ids = [s[0] for s in split_sections(bef(text, optional_sections=False))]
    assert with_ids == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert without_ids == [0, 1, 2, 3, 4, 5, 6, 7]
    # Attribute names are in the string table only with the optional sections.
    assert b"v\0" in section(bef(text), SectionId.STRINGS)
    assert b"v\0" not in section(bef(text, optional_sections=False), SectionId.STRINGS)


def test_tensor_data_is_aligned_in_the_file():
    data = bef('func.func @f() {\n  "k"() {s = "abc", x = dense<1> : tensor<2xi64>} : () -> ()\n  ' + ret() + "\n}")
    b = read_bef(data)
    arr = b.attribute(b.functions[0].kernels[0].attrs[1])
    assert arr.tolist() == [1, 1]
    base = np.frombuffer(data, np.uint8).__array_interface__["data"][0]
    assert (arr.__array_interface__["data"][0] - base) % 8 == 0


def test_writing_is_deterministic():
    from bef_testing import KITCHEN_SINK

    assert bef(KITCHEN_SINK) == bef(KITCHEN_SINK)


# ---------------------------------------------------------------------------
# Diagnostics: TFRT's messages, at the op's location.


def diag(text: str) -> tuple[str, SourceLoc | None]:
    with pytest.raises(DiagnosticError) as info:
        bef(text)
    d = info.value.diagnostics[0]
    return d.message, d.loc


def test_missing_return():
    message, loc = diag('func.func @f() -> i32 {\n  %x = "someop"() : () -> i32 loc("e.mlir":2:3)\n}')
    assert (message, loc) == ("all functions need to have a tfrt.return", SourceLoc("e.mlir", 2, 3))


def test_external_function():
    message, loc = diag('func.func private @ext() -> i32 loc("e.mlir":4:1)')
    assert (message, loc) == ("external functions are not allowed", SourceLoc("e.mlir", 4, 1))


def test_undefined_function_reference():
    text = f'func.func @f() {{\n  "unregistered.call"() {{name = @missing_callee}} : () -> () loc("e.mlir":2:3)\n  {ret()}\n}}'
    assert diag(text) == ("function @missing_callee not defined", SourceLoc("e.mlir", 2, 3))
    text = f'func.func @f() {{\n  "x"() {{name = [@missing_callee]}} : () -> ()\n  {ret()}\n}}'
    assert diag(text)[0] == "function @missing_callee not defined"


def test_undefined_callee_of_a_call_op():
    text = f'func.func @f() {{\n  "tfrt.call"() {{callee = @missing_callee}} : () -> () loc("e.mlir":2:3)\n  {ret()}\n}}'
    message, loc = diag(text)
    assert message == "'tfrt.call' op 'missing_callee' does not reference a valid function"
    assert loc == SourceLoc("e.mlir", 2, 3)


def test_unsupported_attributes():
    for value in ("tensor<1xf32>", "unit", "{a = 1}", "[1, unit]", "5 : index", "!tfrt.chain"):
        text = f'func.func @f() {{\n  "someop"() {{type = {value}}} : () -> () loc("e.mlir":2:3)\n  {ret()}\n}}'
        assert diag(text) == ("BEF files cannot encode the 'type' attribute", SourceLoc("e.mlir", 2, 3))


def test_sync_function_returns():
    text = '''func.func @s(%a: i32) -> i32 attributes {tfrt.sync} {
  "tfrt.return"(%a) : (i32) -> () loc("e.mlir":2:3)
}'''
    assert diag(text) == ("return value 0 is an argument in a sync function", SourceLoc("e.mlir", 2, 3))
    text = '''func.func @s() -> (i32, i32) attributes {tfrt.sync} {
  %c = "k"() : () -> i32
  "tfrt.return"(%c, %c) : (i32, i32) -> () loc("e.mlir":3:3)
}'''
    assert diag(text) == ("return value 1 is duplicated in a sync function", SourceLoc("e.mlir", 3, 3))


def test_return_must_end_its_block():
    text = '''func.func @f() {
  "tfrt.return"() : () -> () loc("e.mlir":2:3)
  "tfrt.return"() : () -> ()
}'''
    assert diag(text) == ("return op must be at the end of its block", SourceLoc("e.mlir", 2, 3))


def test_regions_must_have_one_block_and_be_isolated():
    text = f'''func.func @f(%c: i1) {{
  "tfrt.if"(%c) ({{
    "tfrt.return"() : () -> ()
  ^bb1:
    "tfrt.return"() : () -> ()
  }}) : (i1) -> () loc("e.mlir":2:3)
  {ret()}
}}'''
    assert diag(text) == ("multi-block regions cannot be emitted to BEF files", SourceLoc("e.mlir", 2, 3))
    text = f'''func.func @f(%c: i1) {{
  "tfrt.if"() ({{
    "use"(%c) : (i1) -> () loc("e.mlir":3:5)
    {ret()}
  }}) : () -> ()
  {ret()}
}}'''
    assert diag(text) == (
        "BEF executor only supports references to kernels within the current region",
        SourceLoc("e.mlir", 3, 5),
    )
