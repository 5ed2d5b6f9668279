"""tfrt.bef.encoding: VBR integers, alignment helpers, type codes."""

from __future__ import annotations

import pytest

from tfrt.bef import encoding as enc


@pytest.mark.parametrize(
    "value, encoded",
    [
        (0, b"\x00"),
        (5, b"\x05"),
        (127, b"\x7f"),
        (128, b"\x81\x00"),
        (300, b"\x82\x2c"),  # most significant group first (not LEB128)
        (16383, b"\xff\x7f"),
        (16384, b"\x81\x80\x00"),
        (2**64 - 1, b"\x81" + b"\xff" * 8 + b"\x7f"),
    ],
)
def test_vbr_encoding(value, encoded):
    assert enc.encode_vbr(value) == encoded
    assert enc.vbr_size(value) == len(encoded)
    out = bytearray(b"x")
    enc.append_vbr(out, value)
    assert bytes(out) == b"x" + encoded
    assert enc.decode_vbr(b"\xaa" + encoded + b"\xbb", 1, len(encoded) + 2) == (value, len(encoded) + 1)


def test_vbr_round_trip_many():
    for value in [*range(0, 70000, 7), 2**32 - 1, 2**32, 2**63]:
        data = enc.encode_vbr(value)
        assert enc.decode_vbr(data, 0, len(data)) == (value, len(data))


def test_vbr_rejects_negative():
    with pytest.raises(ValueError):
        enc.encode_vbr(-1)


def test_vbr_truncated():
    with pytest.raises(enc.VbrError, match="truncated") as info:
        enc.decode_vbr(b"\x00\x81\x82", 1, 3)
    assert info.value.offset == 1


def test_vbr_end_bounds_the_read():
    # The byte past `end` would complete the integer, but is not ours.
    with pytest.raises(enc.VbrError, match="truncated"):
        enc.decode_vbr(b"\x81\x00", 0, 1)


def test_vbr_too_long():
    with pytest.raises(enc.VbrError, match="longer than 10 bytes"):
        enc.decode_vbr(b"\x80" * 11 + b"\x00", 0, 12)


def test_alignment_helpers():
    assert [enc.align_up(x, 4) for x in range(6)] == [0, 4, 4, 4, 4, 8]
    assert [enc.padding_for(x, 8) for x in (0, 1, 7, 8, 9)] == [0, 7, 1, 0, 7]
    assert enc.is_power_of_two(1) and enc.is_power_of_two(64)
    assert not enc.is_power_of_two(0) and not enc.is_power_of_two(12)


def test_type_codes_follow_tfrt():
    assert enc.MAGIC == b"\x0b\xef" and enc.VERSION == 1
    assert [int(enc.DType.UI8), int(enc.DType.I1), int(enc.DType.I32), int(enc.DType.BF16)] == [1, 5, 8, 15]
    assert [int(enc.AttrType.TYPE), int(enc.AttrType.DENSE), int(enc.AttrType.AGGREGATE)] == [25, 28, 30]
    assert enc.array_of(enc.DType.I32) == enc.AttrType.EMPTY_ARRAY == 0x88
    assert enc.array_of(enc.AttrType.TYPE) == 0x99
    assert enc.element_code(0x89) == enc.DType.I64 and enc.is_array_code(0x89)
    with pytest.raises(ValueError):
        enc.array_of(enc.DType.STRING)  # strings have no fixed width


def test_valid_attribute_codes():
    assert enc.is_valid_attr_code(enc.DType.F16)
    assert enc.is_valid_attr_code(enc.AttrType.SYMBOL_REF)
    assert enc.is_valid_attr_code(enc.array_of(enc.DType.BF16))
    assert not enc.is_valid_attr_code(0)
    assert not enc.is_valid_attr_code(24)  # one past the last dtype
    assert not enc.is_valid_attr_code(0x80 | enc.DType.STRING)
    assert not enc.is_valid_attr_code(0x80 | enc.AttrType.DENSE)
    assert enc.attr_type_name(0x88) == "array<i32>"


def test_section_names_cover_every_id():
    assert set(enc.SECTION_NAMES) == set(enc.SectionId)
    assert enc.SECTION_NAMES[enc.SectionId.FUNCTION_INDEX] == "FunctionIndex"
