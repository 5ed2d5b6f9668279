"""dense_resource<key> and the {-# dialect_resources #-} section: blobs become
dense attributes; bad sections and blobs are diagnostics at their position."""

from __future__ import annotations

import numpy as np
import pytest
from syntax_helpers import fmt_context, render
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, DenseResourceAttr

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects import make_context
from tfrt.dialects.syntax import parse_module


def blob(a: np.ndarray, align: int = 4) -> str:
    return "0x" + align.to_bytes(4, "little").hex() + np.ascontiguousarray(a).tobytes().hex()


def section(**blobs: str) -> str:
    entries = ",\n".join(f'      {k}: "{v}"' for k, v in blobs.items())
    return "{-#\n  dialect_resources: {\n    builtin: {\n" + entries + "\n    }\n  }\n#-}\n"


def consts(src: str) -> list:
    m = parse_module(src, "t.mlir", ctx=make_context(False))
    return [op.properties["value"] for op in m.walk() if op.name == "arith.constant"]


def diag(src: str) -> str:
    with pytest.raises(DiagnosticError) as info:
        parse_module(src, "t.mlir", ctx=make_context(False))
    return render(info.value, src)


def const_fn(*types_and_keys: tuple[str, str]) -> str:
    lines = [f"  %c{i} = arith.constant dense_resource<{k}> : {t}" for i, (t, k) in enumerate(types_and_keys)]
    return "func.func @f() {\n" + "\n".join(lines) + "\n  return\n}\n"


def test_blobs_become_dense_attributes():
    w = np.arange(6, dtype=np.float32).reshape(2, 3) / 3
    ids = np.array([-1, 7, 2**40], np.int64)
    flags = np.array([1, 0, 1], np.uint8)
    src = const_fn(("tensor<2x3xf32>", "w.0"), ("tensor<3xi64>", '"ids key"'), ("tensor<3xi1>", "flags"))
    src += "\n" + section(**{"w.0": blob(w), '"ids key"': blob(ids, 8), "flags": blob(flags, 1)})
    a, b, c = consts(src)
    assert all(isinstance(x, DenseIntOrFPElementsAttr) for x in (a, b, c))
    np.testing.assert_array_equal(np.frombuffer(a.data.data, "<f4").reshape(2, 3), w)
    np.testing.assert_array_equal(np.frombuffer(b.data.data, "<i8"), ids)
    # i1 as xDSL stores it (true is all ones), like dense<[true, false, true]>
    assert np.frombuffer(c.data.data, "<i1").tolist() == [-1, 0, -1]


def test_same_key_twice_and_comments_around_the_section():
    w = np.array([1.5, -2.0], np.float32)
    src = const_fn(("tensor<2xf32>", "w"), ("tensor<2xf32>", "w"))
    src += "// {-# in a comment is not the section\n" + section(w=blob(w)) + "// trailing comment\n\n"
    a, b = consts(src)
    assert a is b


def test_key_without_a_blob_stays_a_resource_attribute():
    (a,) = consts(const_fn(("tensor<2xf32>", "__elided__")))
    assert isinstance(a, DenseResourceAttr) and a.resource_handle.data == "__elided__"


def test_other_metadata_is_ignored():
    w = np.array([3], np.int32)
    src = const_fn(("tensor<1xi32>", "w")) + (
        "{-#\n  external_resources: { mlir_reproducer: { pipeline: \"builtin.module(cse)\", verify_each: true } },\n"
        f'  dialect_resources: {{ builtin: {{ w: "{blob(w)}" }}, other: {{ k: "0x01000000" }} }},\n#-}}\n'
    )
    (a,) = consts(src)
    assert np.frombuffer(a.data.data, "<i4").tolist() == [3]


def test_blob_of_the_wrong_size():
    src = const_fn(("tensor<3xf32>", "w")) + section(w=blob(np.zeros(2, np.float32)))
    assert diag(src) == (
        "t.mlir:2:24: error: resource 'w': the resource blob holds 8 bytes but the type "
        "'tensor<3xf32>' needs 12\n"
        "  %c0 = arith.constant dense_resource<w> : tensor<3xf32>\n"
        "                       ^\n"
    )


@pytest.mark.parametrize(
    "value, message",
    [
        ("0x0400", "no alignment"),
        ("0x04000000zz", "not valid hex"),
        ("04000000", "must be a hex string"),
    ],
)
def test_malformed_blobs(value, message):
    src = const_fn(("tensor<0xf32>", "w")) + section(w=value)
    assert message in diag(src)


def test_sections_between_ops_and_several_sections():
    """MLIR reads a section anywhere at the top level: two imported files
    concatenated (one section each, the same weight in both) parse as one."""
    w, v = np.array([1, 2], np.int32), np.array([7], np.int32)
    a = const_fn(("tensor<2xi32>", "w")).replace("@f", "@a") + section(w=blob(w))
    b = const_fn(("tensor<2xi32>", "w"), ("tensor<1xi32>", "v")).replace("@f", "@b")
    b += section(w=blob(w)) + "\n" + section(v=blob(v))
    got = consts(a + "\n" + b)
    assert [np.frombuffer(c.data.data, "<i4").tolist() for c in got] == [[1, 2], [1, 2], [7]]
    # after an op whose custom form may end in an attribute dictionary
    src = section(w=blob(w)) + "%0 = fmt.const 42\n" + section(v=blob(v)) + "%1 = fmt.const 43\n"
    src += const_fn(("tensor<1xi32>", "v"))
    m = parse_module(src, "t.mlir", ctx=fmt_context(False))
    assert [op.name for op in m.body.block.ops] == ["fmt.const", "fmt.const", "func.func"]


def test_a_key_defined_twice_with_different_data():
    src = const_fn(("tensor<1xi32>", "w")) + section(w=blob(np.array([1], np.int32)))
    src += section(w=blob(np.array([2], np.int32)))
    assert "error: resource 'w' of dialect 'builtin' is defined twice, with different data" in diag(src)


@pytest.mark.parametrize(
    "tail, message",
    [
        ('{-#\n  dialect_resources: { builtin: { w: "0x04000000" }\n', "t.mlir:5:1: error: unterminated file metadata"),
        ("{-#\n  dialect_resources: { builtin: { w: 3 } }\n#-}\n", "the resources of dialect 'builtin' must be strings"),
        ("{-#\n  dialect_resources: { builtin: { w \"0x\" } }\n#-}\n", "t.mlir:6:37: error: expected ':' in file metadata"),
        ("{-#\n  dialect_resources: { builtin: { w: \"0x04000000\" } } ? \n#-}\n", "unexpected '?' in file metadata"),
    ],
)
def test_malformed_sections(tail, message):
    src = "func.func @f() {\n  return\n}\n\n" + tail
    assert message in diag(src)

