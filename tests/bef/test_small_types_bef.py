"""BEF stores MLIR's small floats and i2/i4 one element per byte, low bits
used (docs/bef_format.md, "Small element types"): constants load as
ml_dtypes arrays over the file, and bef -> mlir prints them so that they
parse back to the same bits."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tfrt.api
from tfrt.bef.disassembler import bef_to_module
from tfrt.bef.reader import BEFFormatError, read_bef
from tfrt.bef.writer import write_bef
from tfrt.dialects import make_context
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import parse_module
from tfrt.passes.compiler import compile_text_to_bef
from tfrt.tensor.dtype import DType

# MLIR type -> (ml_dtypes dtype, bits per element, DType code).
TYPES = {
    "f8E4M3FN": (ml_dtypes.float8_e4m3fn, 8, 32),
    "f8E5M2": (ml_dtypes.float8_e5m2, 8, 33),
    "f8E4M3FNUZ": (ml_dtypes.float8_e4m3fnuz, 8, 34),
    "f8E5M2FNUZ": (ml_dtypes.float8_e5m2fnuz, 8, 35),
    "f8E4M3B11FNUZ": (ml_dtypes.float8_e4m3b11fnuz, 8, 36),
    "f8E4M3": (ml_dtypes.float8_e4m3, 8, 37),
    "f8E3M4": (ml_dtypes.float8_e3m4, 8, 38),
    "f8E8M0FNU": (ml_dtypes.float8_e8m0fnu, 8, 39),
    "f4E2M1FN": (ml_dtypes.float4_e2m1fn, 4, 40),
    "f6E2M3FN": (ml_dtypes.float6_e2m3fn, 6, 41),
    "f6E3M2FN": (ml_dtypes.float6_e3m2fn, 6, 42),
    "i2": (ml_dtypes.int2, 2, 43),
    "i4": (ml_dtypes.int4, 4, 44),
    "ui2": (ml_dtypes.uint2, 2, 45),
    "ui4": (ml_dtypes.uint4, 4, 46),
}


def every_pattern(name: str) -> np.ndarray:
    """Every bit pattern of the type, in MLIR's (and ml_dtypes') byte layout."""
    bits = TYPES[name][1]
    return np.arange(1 << bits, dtype=np.uint8)


def constant_module(name: str, raw: bytes, count: int) -> str:
    return (
        f"func.func @f() -> tensor<{count}x{name}> {{\n"
        f'  %c = arith.constant dense<"0x{raw.hex().upper()}"> : tensor<{count}x{name}>\n'
        f"  return %c : tensor<{count}x{name}>\n}}\n"
    )


def dense_bits(module) -> bytes:
    """The raw data of the one dense attribute of a module, in MLIR's layout
    (the frontend keeps xDSL's: sub-byte integers sign-extended)."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    from tfrt.dialects.fastir import walk
    from tfrt.dialects.syntax.attributes import to_mlir_layout

    found = []
    for op in walk(module):
        for attr in op.properties.values():
            if isinstance(attr, DenseIntOrFPElementsAttr):
                found.append(to_mlir_layout(attr.data.data, attr.get_element_type()))
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("name", sorted(TYPES))
def test_the_dtype_codes_are_the_documented_ones(name):
    dtype, _, code = TYPES[name]
    assert DType(code).np_dtype == np.dtype(dtype)


@pytest.mark.parametrize("name", sorted(TYPES))
def test_every_bit_pattern_loads_zero_copy_and_runs(name):
    raw = every_pattern(name).tobytes()
    data = compile_text_to_bef(constant_module(name, raw, len(raw)))
    result = tfrt.api.load(data).call("f")
    assert result.dtype == np.dtype(TYPES[name][0])
    # The loaded constant is the file's bytes: read-only, a view, same bits.
    assert not result.flags.writeable and result.base is not None
    assert result.view(np.uint8).tobytes() == raw


@pytest.mark.parametrize("name", sorted(TYPES))
def test_bef_to_mlir_prints_what_parses_back_to_the_same_bits(name):
    raw = every_pattern(name).tobytes()
    for data in (raw, raw[-5:]):  # a hex blob (over 100 elements for f8), and element by element
        bef = compile_text_to_bef(constant_module(name, data, len(data)))
        text = print_module(bef_to_module(read_bef(bef), ctx=make_context()))
        assert dense_bits(parse_module(text)) == data, text


def test_small_nan_encodings_survive_the_round_trip_element_by_element():
    text = constant_module("f8E4M3FN", bytes([0x7F, 0xFF, 0x3C, 0x80]), 4)
    bef = compile_text_to_bef(text)
    back = print_module(bef_to_module(read_bef(bef), ctx=make_context()))
    assert "dense<[0x7F, 0xFF, 1.500000e+00, -0.000000e+00]> : tensor<4xf8E4M3FN>" in back


def test_scalar_attributes_of_small_types_round_trip():
    text = """
func.func @f() -> (f8E4M3FN, f8E5M2FNUZ, f4E2M1FN, i4, bf16) {
  %a = arith.constant 0xFF : f8E4M3FN
  %b = arith.constant -3.0 : f8E5M2FNUZ
  %c = arith.constant -6.0 : f4E2M1FN
  %d = arith.constant -8 : i4
  %e = arith.constant 0.1 : bf16
  return %a, %b, %c, %d, %e : f8E4M3FN, f8E5M2FNUZ, f4E2M1FN, i4, bf16
}
"""
    bef = compile_text_to_bef(text)
    back = print_module(bef_to_module(read_bef(bef), ctx=make_context()))
    for line in ("tfrt_scalar.constant.f8E4M3FN 0xFF", "tfrt_scalar.constant.f8E5M2FNUZ -3.000000e+00",
                 "tfrt_scalar.constant.f4E2M1FN -6.000000e+00", "tfrt_scalar.constant.i4 -8",
                 "tfrt_scalar.constant.bf16 1.000980e-01"):  # fmt: skip
        assert line in back, back
    # The text compiles to the same program, and the values are the types'.
    again = tfrt.api.load(back)
    a, b, c, d, e = again.call("f")
    assert np.asarray(a).view(np.uint8) == 0xFF
    assert float(b) == -3.0 and float(c) == -6.0 and int(d) == -8
    assert np.asarray(e).view(np.uint16) == np.asarray(ml_dtypes.bfloat16(0.1)).view(np.uint16)
    # The scalar attribute itself: one byte, decoded exactly.
    bef_file = read_bef(bef)
    codes = dict(bef_file.attribute_types)
    assert sorted(c for c in codes.values() if c in (32, 35, 40, 44)) == [32, 35, 40, 44]


def _i4_file() -> tuple[bytes, int]:
    text = constant_module("i4", bytes([0x07, 0x08, 0x05, 0x06]), 4)
    data = compile_text_to_bef(text)
    at = data.find(bytes([0x07, 0x08, 0x05, 0x06]))
    assert at > 0 and data.find(bytes([0x07, 0x08, 0x05, 0x06]), at + 1) < 0
    return data, at


def test_the_writer_stores_i4_in_the_low_bits():
    # -8 : i4 is 0x08 in the file (xDSL holds it as 0xF8 in memory).
    data, _ = _i4_file()
    assert tfrt.api.load(data).call("f").tolist() == [7, -8, 5, 6]


def test_an_i4_byte_with_high_bits_is_malformed():
    data, at = _i4_file()
    bad = bytearray(data)
    bad[at] = 0x17
    with pytest.raises(BEFFormatError, match="i4 elements must leave their byte's high bits 0"):
        read_bef(bytes(bad)).verify()


def test_write_bef_of_a_parsed_module_keeps_the_dense_bytes():
    # Straight through the writer (no compiler passes): the dense payload is
    # the MLIR layout of the literal.
    module = parse_module(
        'func.func @f() -> tensor<3xf6E3M2FN> {\n'
        '  %c = "tfrt_array.constant"() {value = dense<[28.0, -0.125, 0x20]> : tensor<3xf6E3M2FN>}'
        " : () -> tensor<3xf6E3M2FN>\n"
        "  tfrt.return %c : tensor<3xf6E3M2FN>\n}\n"
    )
    data = write_bef(module)
    want = np.array([28.0, -0.125, -0.0], ml_dtypes.float6_e3m2fn).view(np.uint8).tobytes()
    assert want == bytes([0x1F, 0x22, 0x20])
    assert data.find(want) > 0


def test_signed_integer_constants_keep_their_type_through_bef():
    """BEF's dtypes have no si8/si4 (they are stored as i8/i4); the kernel's
    result type gives the constant its type back, so the text reparses."""
    text = """
func.func @f() -> (tensor<2xsi8>, tensor<2xsi4>, tensor<2xui4>) {
  %a = arith.constant dense<[-1, 5]> : tensor<2xsi8>
  %b = arith.constant dense<[-8, 7]> : tensor<2xsi4>
  %c = arith.constant dense<[15, 0]> : tensor<2xui4>
  return %a, %b, %c : tensor<2xsi8>, tensor<2xsi4>, tensor<2xui4>
}
"""
    bef = compile_text_to_bef(text)
    back = print_module(bef_to_module(read_bef(bef), ctx=make_context()))
    for line in ("dense<[-1, 5]> : tensor<2xsi8>", "dense<[-8, 7]> : tensor<2xsi4>", "dense<[15, 0]> : tensor<2xui4>"):
        assert line in back, back
    a, b, c = tfrt.api.load(compile_text_to_bef(back)).call("f")
    assert (a.tolist(), b.tolist(), c.tolist()) == ([-1, 5], [-8, 7], [15, 0])
