"""Builtin attributes and types: our parser builds what xDSL's parser builds,
and what xDSL's printer writes reads back the same."""

from __future__ import annotations

import io

import pytest
from syntax_helpers import xdsl_parse
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.printer import Printer

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects import make_context
from tfrt.dialects.syntax import parse_module

ATTRIBUTES = [
    "1",
    "-2 : i8",
    "0x10 : i32",
    "0xFFFFFFFF : i32",
    "7 : index",
    "3 : ui8",
    "-3 : si16",
    "1.5",
    "-0.25 : f32",
    "1.0e-3 : f16",
    "2.5E+2 : f64",
    "1.5 : bf16",
    "0x7FC00000 : f32",
    "0x3C00 : f16",
    "3 : f32",
    '"plain"',
    '"esc\\n\\t\\"q\\"\\\\"',
    '"hex\\0A\\41"',
    '""',
    "true",
    "false",
    "unit",
    "[]",
    '[1, 2 : i8, "x"]',
    "[[1], [true, unit]]",
    "{}",
    "{a = 1, b}",
    '{"quoted key" = 2 : i16, nested = {x = [1.0]}}',
    "@sym",
    "@a::@b::@c",
    '@"quoted sym"',
    "@sym.with.dots",
    "i32",
    "f64",
    "index",
    "none",
    "tensor<2x?x3xf32>",
    "(i32, f32) -> (i32)",
    "() -> ()",
    "(i1) -> i64",
    "array<i32: 1, -2, 3>",
    "array<i64>",
    "array<f32: 1.5, 2.0>",
    "array<i1: true, false>",
    "dense<[1, 2, 3]> : tensor<3xi32>",
    "dense<5> : tensor<2x2xi64>",
    "dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>",
    "dense<[true, false]> : tensor<2xi1>",
    "dense<(1.0, -2.0)> : tensor<2xcomplex<f32>>",
    "dense<[(1, 2), (3, 4)]> : tensor<2xcomplex<i32>>",
    'dense<"0x0000803F00000040"> : tensor<2xf32>',
    'dense<"0x01000000"> : tensor<3xi32>',
    "dense<[255, 128]> : tensor<2xui8>",
    "dense<[-1, 200]> : tensor<2xi8>",
    "dense<[1.5, 2.5]> : tensor<2xbf16>",
    "dense<[1.5, 2.5]> : tensor<2xf16>",
    "dense<> : tensor<0xi32>",
    "dense<1> : vector<4xi32>",
    "dense<[[1, 2]]> : memref<1x2xi16>",
    "dense<[0x10, -0x2]> : tensor<2xi32>",
    "affine_map<(d0, d1) -> (d1, d0)>",
    "affine_set<(d0, d1)[s0] : (d0 - s0 >= 0, d1 == 0)>",
    "affine_set<(d0) : (d0 - 2 <= 0, -d0 >= -5)>",
    "#corert.shape<2x?x3>",
    "#corert.shape<*>",
    "#corert.shape<>",
]

TYPES = [
    "i1",
    "i7",
    "i64",
    "si32",
    "ui8",
    "index",
    "f16",
    "bf16",
    "f32",
    "f64",
    "f80",
    "f128",
    "none",
    "complex<f32>",
    "complex<i16>",
    "tensor<f32>",
    "tensor<2x3xf32>",
    "tensor<?x3xi8>",
    "tensor<*xf32>",
    "tensor<0xf32>",
    "tensor<2xf32, #corert.shape<2>>",
    "!tfrt.device",
    "memref<2x3xf32>",
    "memref<?xf32, 1>",
    "memref<*xf32>",
    "memref<4xf32, strided<[1], offset: 2>>",
    "memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>",
    "vector<4xf32>",
    "vector<2x2xi8>",
    "tuple<>",
    "tuple<i32, tuple<f32>>",
    "!tfrt.chain",
    "!tfrt.string",
    "!corert.tensorhandle",
    "!test.atomic.i32",
    "tensor<2x!tfrt.string>",
]


def same(a, b) -> bool:
    """Equal; unregistered attributes (a class per context) compare by text."""
    if a == b:
        return True
    return (
        type(a).__name__ == type(b).__name__
        and "Unregistered" in type(a).__name__
        and str(a) == str(b)
    )


def _attr(text: str, parse):
    module = parse(f'"t.op"() {{a = {text}}} : () -> ()')
    return module.body.block.first_op.attributes["a"]


def ours(src: str):
    return parse_module(
        src, "t.mlir", ctx=make_context(True), allow_unregistered=True, verify=False
    )


@pytest.mark.parametrize("text", ATTRIBUTES)
def test_attribute_matches_xdsl(text):
    mine = _attr(text, ours)
    theirs = _attr(text, xdsl_parse)
    assert same(mine, theirs)


@pytest.mark.parametrize("text", ATTRIBUTES)
def test_attribute_round_trips_through_xdsl_printer(text):
    mine = _attr(text, ours)
    buf = io.StringIO()
    Printer(stream=buf).print_attribute(mine)
    assert same(_attr(buf.getvalue(), ours), mine)


@pytest.mark.parametrize("text", TYPES)
def test_type_matches_xdsl(text):
    src = f'%0 = "t.op"() : () -> {text}'
    mine = ours(src).body.block.first_op.results[0].type
    theirs = xdsl_parse(src).body.block.first_op.results[0].type
    assert same(mine, theirs)
    buf = io.StringIO()
    Printer(stream=buf).print_attribute(mine)
    again = ours(f'%0 = "t.op"() : () -> {buf.getvalue()}').body.block.first_op.results[0].type
    assert same(again, mine)


def test_typed_literal_kinds():
    attrs = ours('"t.op"() {i = 5 : i32, s = "x", f = 0x7F800000 : f32} : () -> ()')
    a = attrs.body.block.first_op.attributes
    assert a["i"] == IntegerAttr(5, i32)
    assert a["s"] == StringAttr("x")
    assert a["f"].value.data == float("inf")


def test_dense_is_bytes_of_the_right_layout():
    a = _attr("dense<[[1, 2], [3, 4]]> : tensor<2x2xi16>", ours)
    assert isinstance(a, DenseIntOrFPElementsAttr)
    assert a.type == TensorType(IntegerType(16), [2, 2])
    assert a.data.data == bytes([1, 0, 2, 0, 3, 0, 4, 0])


def test_type_and_attribute_aliases_may_be_used_before_definition():
    src = """
"t.op"() {a = #map, t = !tt} : () -> !tt
#map = affine_map<(d0) -> (d0)>
!tt = tensor<4x!tfrt.chain>
"""
    op = ours(src).body.block.first_op
    assert str(op.attributes["t"]) == "tensor<4x!tfrt.chain>"
    assert op.results[0].type == op.attributes["t"]
    assert "affine_map" in str(op.attributes["a"])


def test_aliases_defined_in_terms_of_aliases():
    src = '!a = !b\n!b = i32\n%0 = "t.op"() : () -> !a\n'
    assert str(ours(src).body.block.first_op.results[0].type) == "i32"


@pytest.mark.parametrize(
    "text, message",
    [
        ("300 : i8", "out of range"),
        ("1.5 : i32", "floating point value not valid"),
        ("dense<[1, 2]> : tensor<3xi32>", "does not match the type shape"),
        ("dense<[[1], [2, 3]]> : tensor<2x2xi32>", "ragged"),
        ("dense<[1.5]> : tensor<1xi32>", "floating point value in a dense literal"),
        ("dense<[300]> : tensor<1xi8>", "out of range"),
        ('dense<"0x0102"> : tensor<3xi32>', "needs 3"),
        ("dense<1> : tensor<?xi32>", "static shape"),
        ("#nope", "undefined symbol alias id 'nope'"),
        ("!undefined", "undefined symbol alias id 'undefined'"),
        ('"bad \\q escape"', "invalid escape sequence"),
        ("array<i8: 1000>", "out of range"),
        ("0x77FC00000 : f32", "hexadecimal float constant out of range"),
        ("affine_map<(d0)[s0] -> (d0 * s0)>", "unsupported attribute 'affine_map<"),
    ],
)
def test_bad_attributes_are_diagnostics(text, message):
    with pytest.raises(DiagnosticError) as info:
        _attr(text, ours)
    assert message in str(info.value)
    assert info.value.diagnostics[0].loc is not None
