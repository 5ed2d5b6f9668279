"""MLIR's small element types end to end: bf16, the 8/6/4-bit floats, i2/i4.

Parse and print, dense literals in every form MLIR writes, arith on each
type against ml_dtypes' own arithmetic and against an exact model of
APFloat (apfloat_reference.py), truncf's rounding and overflow, integer
wrap-around at 2 and 4 bits, and compile-time folding agreeing with run
time.  The rule each test checks is MLIR's: arith ops give the correctly
rounded result of the type (ArithOps.td), conversions round to nearest,
ties to even, with the type's overflow behaviour (APFloat::convert).
"""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from string import Template

import apfloat_reference as ref
import ml_dtypes
import numpy as np
import pytest

import tfrt.api
from tfrt.diagnostics import DiagnosticError
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import parse_module
from tfrt.passes.compiler import compile_module, compile_text_to_bef

BIN = Path(sys.executable).parent

FLOATS = {
    "f8E4M3FN": ml_dtypes.float8_e4m3fn,
    "f8E5M2": ml_dtypes.float8_e5m2,
    "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
    "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
    "f8E4M3B11FNUZ": ml_dtypes.float8_e4m3b11fnuz,
    "f8E4M3": ml_dtypes.float8_e4m3,
    "f8E3M4": ml_dtypes.float8_e3m4,
    "f8E8M0FNU": ml_dtypes.float8_e8m0fnu,
    "f6E2M3FN": ml_dtypes.float6_e2m3fn,
    "f6E3M2FN": ml_dtypes.float6_e3m2fn,
    "f4E2M1FN": ml_dtypes.float4_e2m1fn,
    "bf16": ml_dtypes.bfloat16,
}
# Every type with a sign (f8E8M0FNU is a power of two: no sign, no zero).
SIGNED_FLOATS = sorted(set(FLOATS) - {"f8E8M0FNU"})


def bits_dtype(name: str):
    return np.uint16 if name == "bf16" else np.uint8


def patterns(name: str) -> np.ndarray:
    """Every encoding of the type (bf16: every 97th, and the specials)."""
    if name == "bf16":
        raw = np.unique(np.concatenate([np.arange(0, 1 << 16, 97), [0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F7F]]))
        return raw.astype(np.uint16)
    return np.arange(1 << ref.SEMANTICS[name].bits, dtype=np.uint8)


def values(name: str) -> np.ndarray:
    return patterns(name).view(FLOATS[name])


def same_bits_or_both_nan(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    g = np.asarray(got).astype(np.float64)
    w = np.asarray(want).astype(np.float64)
    same = np.asarray(got).view(bits_dtype_of(got)) == np.asarray(want).view(bits_dtype_of(want))
    return same | (np.isnan(g) & np.isnan(w))


def bits_dtype_of(a: np.ndarray):
    return np.uint16 if np.asarray(a).dtype.itemsize == 2 else np.uint8


def fill(template: str, **values) -> str:
    """A program template with ``${N}`` (element count), ``${T}`` (a type) ... filled in."""
    return Template(template).substitute({k: str(v) for k, v in values.items()})


def load(text: str, **kwargs):
    return tfrt.api.load(compile_text_to_bef(text, "t.mlir", **kwargs))


# ---------------------------------------------------------------------------
# Parse and print


@pytest.mark.parametrize("name", [*FLOATS, "i2", "i4", "si4", "ui4", "ui2", "si2"])
def test_every_type_parses_and_prints_back(name):
    text = (
        f"func.func @f(%arg0: {name}, %arg1: tensor<2x3x{name}>) -> tensor<2x3x{name}> {{\n"
        f"  return %arg1 : tensor<2x3x{name}>\n}}\n"
    )
    printed = print_module(parse_module(text))
    assert f"func.func @f(%arg0: {name}, %arg1: tensor<2x3x{name}>) -> tensor<2x3x{name}>" in printed
    assert print_module(parse_module(printed)) == printed


# ---------------------------------------------------------------------------
# Dense literals


def dense_bits(text: str) -> np.ndarray:
    """The bits of the dense constant of ``func.func @f`` (MLIR's layout)."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    from tfrt.dialects.fastir import walk
    from tfrt.dialects.syntax.attributes import to_mlir_layout

    module = parse_module(text)
    for op in walk(module):
        value = op.properties.get("value")
        if isinstance(value, DenseIntOrFPElementsAttr):
            raw = to_mlir_layout(value.data.data, value.get_element_type())
            itemsize = 2 if "bf16" in str(value.get_element_type()) else 1
            out = np.frombuffer(raw, np.uint16 if itemsize == 2 else np.uint8)
            n = math.prod(value.get_shape())
            return np.broadcast_to(out, (n,)) if out.size == 1 else out
    raise AssertionError("no dense constant")


def constant(literal: str, type_text: str) -> str:
    return f"func.func @f() -> {type_text} {{\n  %c = arith.constant {literal} : {type_text}\n  return %c : {type_text}\n}}\n"


DECIMALS = ["0.0", "1.", "1.5", "2.25", "3.25", "1e1", "0.1", "3.0e-1", "7.5e-3", "448.0", "465.0", "1e5"]


@pytest.mark.parametrize("name", sorted(FLOATS))
def test_decimal_literals_round_to_nearest_even(name):
    texts = DECIMALS + ([] if name == "f8E8M0FNU" else ["-0.0", "-2.0", "-1e5"])
    got = dense_bits(constant(f"dense<[{', '.join(texts)}]>", f"tensor<{len(texts)}x{name}>"))
    want = [ref.round_to(name, Fraction(t)) if t != "-0.0" else ref.round_to(name, -0.0) for t in texts]
    assert got.tolist() == want, list(zip(texts, got.tolist(), want))


@pytest.mark.parametrize("name", sorted(FLOATS))
def test_hex_elements_are_bit_patterns_and_a_splat_fills(name):
    width = ref.SEMANTICS[name].bits
    pats = [0, 1, (1 << width) - 1, 1 << (width - 1)]
    literal = "dense<[" + ", ".join(f"0x{p:X}" for p in pats) + ", 1.0]>"
    got = dense_bits(constant(literal, f"tensor<5x{name}>"))
    assert got.tolist() == pats + [ref.round_to(name, 1)]
    blob = b"".join(p.to_bytes(2 if name == "bf16" else 1, "little") for p in pats)
    got = dense_bits(constant(f'dense<"0x{blob.hex().upper()}">', f"tensor<4x{name}>"))
    assert got.tolist() == pats
    assert dense_bits(constant("dense<1.5>", f"tensor<3x{name}>")).tolist() == [ref.round_to(name, 1.5)] * 3


@pytest.mark.parametrize(
    "type_text, values, bits",
    [
        ("tensor<4xi4>", "[-8, -1, 7, 15]", [8, 15, 7, 15]),  # signless: -8..15, 15 is -1's bits
        ("tensor<2xsi4>", "[-8, 7]", [8, 7]),
        ("tensor<2xui4>", "[0, 15]", [0, 15]),
        ("tensor<4xi2>", "[-2, -1, 1, 3]", [2, 3, 1, 3]),
        ("tensor<2xui2>", "[0, 3]", [0, 3]),
        ("tensor<3xi4>", "[0x0, 0xF, 0x8]", [0, 15, 8]),
    ],
)
def test_sub_byte_integer_literals(type_text, values, bits):
    assert dense_bits(constant(f"dense<{values}>", type_text)).tolist() == bits


@pytest.mark.parametrize(
    "literal, type_text, message",
    [
        ("dense<[1, 16]>", "tensor<2xi4>", "integer constant out of range for type 'i4': 16"),
        ("dense<[-9, 1]>", "tensor<2xi4>", "integer constant out of range for type 'i4': -9"),
        ("dense<[8]>", "tensor<1xsi4>", "integer constant out of range for type 'si4': 8"),
        ("dense<[-1]>", "tensor<1xui4>", "integer constant out of range for type 'ui4': -1"),
        ("dense<[4]>", "tensor<1xi2>", "integer constant out of range for type 'i2': 4"),
        ("dense<[-3]>", "tensor<1xi2>", "integer constant out of range for type 'i2': -3"),
        ("dense<[0x10]>", "tensor<1xf4E2M1FN>", "hexadecimal float constant out of range for type 'f4E2M1FN'"),
        ("dense<[0x40]>", "tensor<1xf6E2M3FN>", "hexadecimal float constant out of range for type 'f6E2M3FN'"),
        ("dense<[1.0, -0x1]>", "tensor<2xf8E4M3FN>", "hexadecimal float literal should not have a leading minus"),
        ("dense<[-2.0]>", "tensor<1xf8E8M0FNU>", "'f8E8M0FNU', which has no sign"),
        ("dense<[1.5, true]>", "tensor<2xf8E5M2>", "dense literal elements must be numbers"),
        ("16", "i4", "16"),
        ("0x1F", "f4E2M1FN", "hexadecimal float constant out of range for type 'f4E2M1FN'"),
    ],
)
def test_literals_that_do_not_fit_are_located_errors(literal, type_text, message):
    with pytest.raises(DiagnosticError) as info:
        parse_module(constant(literal, type_text), "lit.mlir")
    text = info.value.render()
    assert "lit.mlir:2:" in text and message in text, text


# ---------------------------------------------------------------------------
# Arithmetic


BINARY = """
func.func @f(%a: tensor<${N}x${T}>, %b: tensor<${N}x${T}>) -> (tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>,
                                                   tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}xi1>, tensor<${N}xi1>) {
  %add = arith.addf %a, %b : tensor<${N}x${T}>
  %sub = arith.subf %a, %b : tensor<${N}x${T}>
  %mul = arith.mulf %a, %b : tensor<${N}x${T}>
  %div = arith.divf %a, %b : tensor<${N}x${T}>
  %max = arith.maximumf %a, %b : tensor<${N}x${T}>
  %min = arith.minimumf %a, %b : tensor<${N}x${T}>
  %neg = arith.negf %a : tensor<${N}x${T}>
  %lt = arith.cmpf olt, %a, %b : tensor<${N}x${T}>
  %une = arith.cmpf une, %a, %b : tensor<${N}x${T}>
  return %add, %sub, %mul, %div, %max, %min, %neg, %lt, %une
      : tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}xi1>, tensor<${N}xi1>
}
"""


def all_pairs(name: str, limit: int = 70000) -> tuple[np.ndarray, np.ndarray]:
    v = values(name)
    a, b = np.repeat(v, v.size), np.tile(v, v.size)
    if a.size > limit:
        pick = np.random.default_rng(7).choice(a.size, limit, replace=False)
        a, b = a[pick], b[pick]
    return a, b


@pytest.mark.parametrize("name", SIGNED_FLOATS)
def test_arith_on_every_pair_matches_ml_dtypes(name):
    """The op computed in f32 and rounded once is ml_dtypes' own arithmetic."""
    a, b = all_pairs(name)
    prog = load(fill(BINARY, N=str(a.size), T=name))
    add, sub, mul, div, mx, mn, neg, lt, une = prog.call("f", a, b)
    with np.errstate(all="ignore"):
        for got, want in ((add, np.add(a, b)), (sub, np.subtract(a, b)), (mul, np.multiply(a, b)),
                          (div, np.divide(a, b)), (neg, np.negative(a))):  # fmt: skip
            assert got.dtype == a.dtype
            bad = ~same_bits_or_both_nan(got, want)
            assert not bad.any(), (a[bad][:5], b[bad][:5], got[bad][:5], want[bad][:5])
        # maximumf/minimumf: NaN-propagating; +0 and -0 compare equal here.
        x, y = a.astype(np.float64), b.astype(np.float64)
        for got, want in ((mx, np.maximum(x, y)), (mn, np.minimum(x, y))):
            g = got.astype(np.float64)
            assert ((g == want) | (np.isnan(g) & np.isnan(want))).all()
        np.testing.assert_array_equal(lt, x < y)
        np.testing.assert_array_equal(une, x != y)


@pytest.mark.parametrize("name", sorted(FLOATS))
def test_arith_matches_an_exact_model_of_apfloat(name):
    """A sample of pairs against exact rationals rounded as APFloat rounds
    (independent of ml_dtypes and of the runtime)."""
    v = values(name)
    rng = np.random.default_rng(11)
    a = rng.choice(v, 600)
    b = rng.choice(v, 600)
    prog = load(fill(BINARY, N="600", T=name))
    add, sub, mul, div, *_ = prog.call("f", a, b)
    bits = {"add": add, "sub": sub, "mul": mul, "div": div}
    pa = a.view(bits_dtype(name)).tolist()
    pb = b.view(bits_dtype(name)).tolist()
    checked = 0
    for i, (p, q) in enumerate(zip(pa, pb)):
        x, y = ref.decode(name, p), ref.decode(name, q)
        if not isinstance(x, Fraction) or not isinstance(y, Fraction):
            continue  # NaN, infinities, -0: covered against ml_dtypes above
        exact = {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y if y else None}
        for op, r in exact.items():
            if r is None or (name == "f8E8M0FNU" and op in ("add", "sub")):
                continue  # E8M0 sums leave the type's powers of two (APFloat asserts on a negative one)
            if r == 0:  # IEEE's signed zeros: x - x is +0, a product or quotient takes the signs' xor
                negative = op in ("mul", "div") and (x < 0) != (y < 0)
                r = -0.0 if negative else Fraction(0)
            got = int(bits[op].view(bits_dtype(name))[i])
            assert got == ref.round_to(name, r), (op, float(x), float(y), hex(got))
            checked += 1
    assert checked > 500


# ---------------------------------------------------------------------------
# Conversions


TRUNCF = """
func.func @f(%x: tensor<${N}x${S}>) -> tensor<${N}x${T}> {
  %r = arith.truncf %x : tensor<${N}x${S}> to tensor<${N}x${T}>
  return %r : tensor<${N}x${T}>
}
"""


def rounding_cases(name: str) -> list[float]:
    """Every representable value, every midpoint between neighbours, each
    nudged by an f32 ulp, overflow, infinities, NaN, zeros, tiny values."""
    finite = sorted({ref.decode(name, p) for p in range(1 << ref.SEMANTICS[name].bits)} - {"nan", "inf", "-inf", "-0"})
    cases = []
    for lo, hi in zip(finite, finite[1:]):
        for v in (lo, (lo + hi) / 2):
            f = np.float32(float(v))
            cases += [f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))]
    top = float(finite[-1])
    cases += [np.float32(top * k) for k in (1.01, 1.0625, 1.1, 1.5, 2, 1e3)]
    cases += [np.float32(c) for c in (0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e-45, 3.4e38, -3.4e38)]
    return cases


@pytest.mark.parametrize("name", [n for n in sorted(FLOATS) if n != "bf16"])
def test_truncf_f32_rounds_to_nearest_even_with_the_types_overflow(name):
    xs = np.array(rounding_cases(name), np.float32)
    prog = load(fill(TRUNCF, N=str(xs.size), S="f32", T=name))
    got = prog.call("f", xs).view(np.uint8).tolist()
    for x, g in zip(xs.tolist(), got):
        want = ref.round_to(name, float(x))
        if want is None:  # NaN into a type without NaN: unspecified
            continue
        assert g == want, (name, x, hex(g), hex(want))


@pytest.mark.parametrize("name", ["bf16", "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN"])
def test_truncf_f64_rounds_once(name):
    """Just above or below a tie, by less than an f32 ulp: going through f32
    with round to nearest would make it a tie and round it to even."""
    sem = ref.SEMANTICS[name]
    if name == "bf16":
        finite = [Fraction(1), Fraction(129, 128), Fraction(3, 2), Fraction(385, 256)]
    else:
        finite = sorted({ref.decode(name, p) for p in range(1 << sem.bits)} - {"nan", "inf", "-inf", "-0"})
    xs = []
    for lo, hi in zip(finite, finite[1:]):
        mid = float((lo + hi) / 2)
        if mid != 0:
            xs += [mid * (1 + 2**-40), mid * (1 - 2**-40), mid]
    xs = np.array(xs, np.float64)
    prog = load(fill(TRUNCF, N=str(xs.size), S="f64", T=name))
    got = prog.call("f", xs).view(bits_dtype(name)).tolist()
    want = [ref.round_to(name, float(x)) for x in xs.tolist()]
    assert got == want


def test_truncf_edge_cases_named():
    """The rules, one example each (APFloat's normalize/handleOverflow)."""
    cases = [
        ("f8E5M2FNUZ", [2.25, 3.25], [0x44, 0x46]),  # ties to even
        ("f8E4M3FN", [464.0, 464.01, 448.0, -1e9, np.inf], [0x7E, 0x7F, 0x7E, 0xFF, 0x7F]),  # no inf: NaN
        ("f8E5M2", [61440.0, 61439.0, -1e9], [0x7C, 0x7B, 0xFC]),  # IEEE: overflow is inf
        ("f8E4M3FNUZ", [-0.0, 256.0, np.nan], [0x00, 0x80, 0x80]),  # one NaN, no -0
        ("f4E2M1FN", [7.0, 1e9, -np.inf, 0.25, 0.75, 5.0], [0x7, 0x7, 0xF, 0x0, 0x2, 0x6]),  # saturates
        ("f8E8M0FNU", [3.0, 2.9, 0.0, -2.0, 1e-40, np.inf, 2.0**127 * 1.5], [0x81, 0x80, 0x00, 0x80, 0x00, 0xFF, 0xFF]),
    ]
    for name, xs, want in cases:
        x = np.array(xs, np.float32)
        prog = load(fill(TRUNCF, N=str(x.size), S="f32", T=name))
        assert prog.call("f", x).view(np.uint8).tolist() == want, name


EXTF = """
func.func @f(%x: tensor<${N}x${S}>) -> (tensor<${N}xf32>, tensor<${N}xf64>) {
  %a = arith.extf %x : tensor<${N}x${S}> to tensor<${N}xf32>
  %b = arith.extf %x : tensor<${N}x${S}> to tensor<${N}xf64>
  return %a, %b : tensor<${N}xf32>, tensor<${N}xf64>
}
"""


@pytest.mark.parametrize("name", sorted(FLOATS))
def test_extf_is_exact_for_every_encoding(name):
    v = values(name)
    prog = load(fill(EXTF, N=str(v.size), S=name))
    f32, f64 = prog.call("f", v)
    want = np.array([ref.float_of(name, int(p)) for p in patterns(name)])
    for got in (f32.astype(np.float64), f64):
        same = (got == want) & (np.signbit(got) == np.signbit(want))
        assert (same | (np.isnan(got) & np.isnan(want))).all()


INT_CASTS = """
func.func @f(%x: tensor<${N}x${T}>, %i: tensor<${N}xi32>) -> (tensor<${N}xi32>, tensor<${N}xi32>, tensor<${N}x${T}>, tensor<${N}x${T}>) {
  %s = arith.fptosi %x : tensor<${N}x${T}> to tensor<${N}xi32>
  %u = arith.fptoui %x : tensor<${N}x${T}> to tensor<${N}xi32>
  %f = arith.sitofp %i : tensor<${N}xi32> to tensor<${N}x${T}>
  %g = arith.uitofp %i : tensor<${N}xi32> to tensor<${N}x${T}>
  return %s, %u, %f, %g : tensor<${N}xi32>, tensor<${N}xi32>, tensor<${N}x${T}>, tensor<${N}x${T}>
}
"""


@pytest.mark.parametrize("name", ["f8E4M3FN", "f8E5M2FNUZ", "f8E3M4", "f4E2M1FN", "bf16"])
def test_float_integer_conversions(name):
    v = values(name)
    finite = v[np.isfinite(v.astype(np.float64))]
    ints = np.arange(-300, -300 + finite.size, dtype=np.int32)
    prog = load(fill(INT_CASTS, N=str(finite.size), T=name))
    s, u, f, g = prog.call("f", finite, ints)
    x = np.trunc(finite.astype(np.float64))  # toward zero
    # Out of the result's range the conversions are poison: only the rest is defined.
    signed = (x >= -(2.0**31)) & (x < 2.0**31)
    np.testing.assert_array_equal(s[signed], x[signed].astype(np.int32))
    unsigned = (x >= 0) & (x < 2.0**32)  # fptoui: the unsigned value's bits
    np.testing.assert_array_equal(u.view(np.uint32)[unsigned], x[unsigned].astype(np.uint32))
    assert signed.sum() > 10 and unsigned.sum() > 5
    want = [ref.round_to(name, int(i)) for i in ints.tolist()]
    assert f.view(bits_dtype(name)).tolist() == want
    unsigned = [ref.round_to(name, int(i) % 2**32) for i in ints.tolist()]
    assert g.view(bits_dtype(name)).tolist() == unsigned


def test_sitofp_from_i64_rounds_once():
    """2^40 + 2^32 + 1 is just above a bf16 tie: f32 would make it the tie."""
    text = """
func.func @f(%x: tensor<3xi64>) -> tensor<3xbf16> {
  %r = arith.sitofp %x : tensor<3xi64> to tensor<3xbf16>
  return %r : tensor<3xbf16>
}"""
    x = np.array([2**40 + 2**32 + 1, 2**62 + 2**54 + 1, -(2**40 + 2**32 + 1)], np.int64)
    got = load(text).call("f", x).astype(np.float64).tolist()
    assert got == [2**40 + 2**33, 2**62 + 2**55, -(2**40 + 2**33)]


BITCASTS = """
func.func @f(%a: tensor<256xi8>, %b: tensor<16xi4>) -> (tensor<256xf8E4M3FN>, tensor<256xi8>, tensor<16xf4E2M1FN>, tensor<16xi4>) {
  %f = arith.bitcast %a : tensor<256xi8> to tensor<256xf8E4M3FN>
  %i = arith.bitcast %f : tensor<256xf8E4M3FN> to tensor<256xi8>
  %g = arith.bitcast %b : tensor<16xi4> to tensor<16xf4E2M1FN>
  %j = arith.bitcast %g : tensor<16xf4E2M1FN> to tensor<16xi4>
  return %f, %i, %g, %j : tensor<256xf8E4M3FN>, tensor<256xi8>, tensor<16xf4E2M1FN>, tensor<16xi4>
}
"""


def test_bitcast_keeps_every_bit_pattern():
    a = np.arange(-128, 128, dtype=np.int8)
    b = np.arange(-8, 8, dtype=np.int8).astype(ml_dtypes.int4)
    f, i, g, j = load(BITCASTS).call("f", a, b)
    assert f.view(np.int8).tolist() == a.tolist() and i.tolist() == a.tolist()
    assert g.view(np.uint8).tolist() == [p & 15 for p in range(-8, 8)]
    assert j.tolist() == b.tolist()


# ---------------------------------------------------------------------------
# i2 and i4


INT_OPS = """
func.func @f(%a: tensor<${N}x${T}>, %b: tensor<${N}x${T}>) -> (tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>,
                                                   tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}xi1>, tensor<${N}xi1>) {
  %add = arith.addi %a, %b : tensor<${N}x${T}>
  %sub = arith.subi %a, %b : tensor<${N}x${T}>
  %mul = arith.muli %a, %b : tensor<${N}x${T}>
  %xor = arith.xori %a, %b : tensor<${N}x${T}>
  %maxu = arith.maxui %a, %b : tensor<${N}x${T}>
  %mins = arith.minsi %a, %b : tensor<${N}x${T}>
  %shr = arith.shrui %a, %b : tensor<${N}x${T}>
  %ult = arith.cmpi ult, %a, %b : tensor<${N}x${T}>
  %slt = arith.cmpi slt, %a, %b : tensor<${N}x${T}>
  return %add, %sub, %mul, %xor, %maxu, %mins, %shr, %ult, %slt
      : tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}xi1>, tensor<${N}xi1>
}
"""


@pytest.mark.parametrize("width", [2, 4])
def test_integer_ops_wrap_at_the_width(width):
    """Every pair, against arithmetic modulo 2^width (the MLIR semantics of
    signless integers: signed ops read two's complement, unsigned ops the bits)."""
    dtype = ml_dtypes.int2 if width == 2 else ml_dtypes.int4
    lo, n = -(1 << (width - 1)), 1 << width
    a = np.repeat(np.arange(lo, lo + n), n)
    b = np.tile(np.arange(lo, lo + n), n)
    prog = load(fill(INT_OPS, N=str(a.size), T=f"i{width}"))
    add, sub, mul, xor, maxu, mins, shr, ult, slt = prog.call("f", a.astype(dtype), b.astype(dtype))

    def wrap(v):
        return (v - lo) % n + lo

    ua, ub = a % n, b % n
    assert add.tolist() == wrap(a + b).tolist()
    assert sub.tolist() == wrap(a - b).tolist()
    assert mul.tolist() == wrap(a * b).tolist()
    assert xor.tolist() == wrap(ua ^ ub).tolist()
    assert maxu.tolist() == wrap(np.maximum(ua, ub)).tolist()
    assert mins.tolist() == np.minimum(a, b).tolist()
    small = ub < width  # a shift by the width or more is poison
    assert shr[small].tolist() == wrap(ua >> np.where(small, ub, 0))[small].tolist()
    assert ult.tolist() == (ua < ub).tolist()
    assert slt.tolist() == (a < b).tolist()


EXT_TRUNC = """
func.func @f(%a: tensor<${N}xi${W}>, %w: tensor<${N}xi32>) -> (tensor<${N}xi32>, tensor<${N}xi32>, tensor<${N}xi${W}>, tensor<${N}xi8>) {
  %s = arith.extsi %a : tensor<${N}xi${W}> to tensor<${N}xi32>
  %u = arith.extui %a : tensor<${N}xi${W}> to tensor<${N}xi32>
  %t = arith.trunci %w : tensor<${N}xi32> to tensor<${N}xi${W}>
  %e = arith.extui %t : tensor<${N}xi${W}> to tensor<${N}xi8>
  return %s, %u, %t, %e : tensor<${N}xi32>, tensor<${N}xi32>, tensor<${N}xi${W}>, tensor<${N}xi8>
}
"""


@pytest.mark.parametrize("width", [2, 4])
def test_extsi_extui_trunci(width):
    dtype = ml_dtypes.int2 if width == 2 else ml_dtypes.int4
    n = 1 << width
    a = np.arange(-(n // 2), n // 2).astype(dtype)
    w = np.array([37, -37, 1 << 20, 123456789][: a.size] + list(range(a.size - 4)), np.int32)[: a.size]
    prog = load(fill(EXT_TRUNC, N=str(a.size), W=str(width)))
    s, u, t, e = prog.call("f", a, w)
    assert s.tolist() == a.astype(np.int32).tolist()
    assert u.tolist() == [int(v) % n for v in a.tolist()]
    assert [int(v) % n for v in t.tolist()] == [int(v) % n for v in w.tolist()]
    assert e.tolist() == [int(v) % n for v in w.tolist()]


def test_scalar_i4_arithmetic_in_a_linalg_body():
    """As IREE's subbyte tests write it: i4 elements widened in a generic body."""
    text = """
#id = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<8xi4>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xi4>) {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xi4>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: i4, %out: f32):
    %w = arith.extui %in : i4 to i32
    %f = arith.uitofp %w : i32 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32>
  %e4 = tensor.empty() : tensor<8xi4>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%y : tensor<8xf32>) outs(%e4 : tensor<8xi4>) {
  ^bb0(%in: f32, %out: i4):
    %i = arith.fptoui %in : f32 to i32
    %t = arith.trunci %i : i32 to i4
    %c = arith.constant 3 : i4
    %s = arith.addi %t, %c : i4
    linalg.yield %s : i4
  } -> tensor<8xi4>
  return %r, %q : tensor<8xf32>, tensor<8xi4>
}"""
    x = np.array([0, 1, 7, -8, -1, 3, -4, 2], ml_dtypes.int4)
    y = np.arange(8, dtype=np.float32) + 0.5
    r, q = load(text).call("f", x, y)
    assert r.tolist() == [float(v % 16) for v in x.astype(int).tolist()]
    assert q.tolist() == [((int(v) + 3 + 8) % 16) - 8 for v in y.astype(int).tolist()]


# ---------------------------------------------------------------------------
# linalg and the scaling casts


NAMED = """
func.func @f(%a: tensor<${N}x${T}>, %b: tensor<${N}x${T}>) -> (tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>) {
  %e = tensor.empty() : tensor<${N}x${T}>
  %add = linalg.add ins(%a, %b : tensor<${N}x${T}>, tensor<${N}x${T}>) outs(%e : tensor<${N}x${T}>) -> tensor<${N}x${T}>
  %sub = linalg.sub ins(%a, %b : tensor<${N}x${T}>, tensor<${N}x${T}>) outs(%e : tensor<${N}x${T}>) -> tensor<${N}x${T}>
  %mul = linalg.mul ins(%a, %b : tensor<${N}x${T}>, tensor<${N}x${T}>) outs(%e : tensor<${N}x${T}>) -> tensor<${N}x${T}>
  %div = linalg.div ins(%a, %b : tensor<${N}x${T}>, tensor<${N}x${T}>) outs(%e : tensor<${N}x${T}>) -> tensor<${N}x${T}>
  %neg = linalg.negf ins(%a : tensor<${N}x${T}>) outs(%e : tensor<${N}x${T}>) -> tensor<${N}x${T}>
  return %add, %sub, %mul, %div, %neg : tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>
}
"""


@pytest.mark.parametrize("name", ["f8E4M3FN", "f8E5M2FNUZ", "f4E2M1FN", "bf16"])
def test_linalg_named_elementwise_ops(name):
    a, b = all_pairs(name, limit=4096)
    out = load(fill(NAMED, N=str(a.size), T=name)).call("f", a, b)
    with np.errstate(all="ignore"):
        wants = (np.add(a, b), np.subtract(a, b), np.multiply(a, b), np.divide(a, b), np.negative(a))
    for got, want in zip(out, wants):
        assert same_bits_or_both_nan(got, want).all()


SCALING = """
func.func @f(%x: tensor<6xf4E2M1FN>, %s: tensor<6xf8E8M0FNU>, %t: tensor<6xf32>, %y: tensor<6xf32>)
    -> (tensor<6xf32>, tensor<6xbf16>, tensor<6xf4E2M1FN>, tensor<6xf4E2M1FN>) {
  %a = arith.scaling_extf %x, %s : tensor<6xf4E2M1FN>, tensor<6xf8E8M0FNU> to tensor<6xf32>
  %b = arith.scaling_extf %x, %t : tensor<6xf4E2M1FN>, tensor<6xf32> to tensor<6xbf16>
  %c = arith.scaling_truncf %y, %s : tensor<6xf32>, tensor<6xf8E8M0FNU> to tensor<6xf4E2M1FN>
  %d = arith.scaling_truncf %y, %t : tensor<6xf32>, tensor<6xf32> to tensor<6xf4E2M1FN>
  return %a, %b, %c, %d : tensor<6xf32>, tensor<6xbf16>, tensor<6xf4E2M1FN>, tensor<6xf4E2M1FN>
}
"""


def test_scaling_casts_use_the_scale_as_a_power_of_two():
    """ArithOps.td: truncf(scale) to f8E8M0FNU (3.0 rounds to 4.0, 0.7 to
    0.5), then x * scale (extf) or truncf(x / scale)."""
    x = np.array([0.5, 1.0, -1.5, 6.0, -6.0, 3.0], ml_dtypes.float4_e2m1fn)
    s = np.array([2.0, 0.5, 4.0, 1.0, 2.0**-127, 8.0], ml_dtypes.float8_e8m0fnu)
    t = np.array([3.0, 0.7, 1.0, 1.2, 2.9, 1e-45], np.float32)
    y = np.array([1.0, 3.0, -5.0, 100.0, 0.3, 4.0], np.float32)
    a, b, c, d = load(SCALING).call("f", x, s, t, y)
    pow2 = lambda v: 2.0 ** math.floor(math.log2(v) + (1 if (v / 2.0 ** math.floor(math.log2(v))) >= 1.5 else 0))  # noqa: E731
    assert a.tolist() == [0.5 * 2, 1.0 * 0.5, -1.5 * 4, 6.0, -6.0 * 2.0**-127, 3.0 * 8]
    assert b.astype(np.float64).tolist() == [0.5 * 4, 1.0 * 0.5, -1.5, 6.0 * 1, -6.0 * 2, 3.0 * 2.0**-127]
    assert [pow2(v) for v in (3.0, 0.7, 1.2, 2.9)] == [4.0, 0.5, 1.0, 2.0]
    f4 = lambda v: ref.float_of("f4E2M1FN", ref.round_to("f4E2M1FN", v))  # noqa: E731
    assert c.astype(np.float64).tolist() == [f4(1.0 / 2), f4(3.0 / 0.5), f4(-5.0 / 4), f4(100.0), f4(0.3 * 2.0**127), f4(4.0 / 8)]
    assert d.astype(np.float64).tolist() == [f4(1.0 / 4), f4(3.0 / 0.5), f4(-5.0), f4(100.0), f4(0.3 / 2), f4(4.0 * 2.0**127)]


# ---------------------------------------------------------------------------
# Folding and printing


FOLDED = """
func.func @folded() -> (tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}xf32>) {
  %a = arith.constant dense<${A}> : tensor<${N}x${T}>
  %b = arith.constant dense<${B}> : tensor<${N}x${T}>
  %add = arith.addf %a, %b : tensor<${N}x${T}>
  %mul = arith.mulf %a, %b : tensor<${N}x${T}>
  %neg = arith.negf %a : tensor<${N}x${T}>
  %ext = arith.extf %add : tensor<${N}x${T}> to tensor<${N}xf32>
  return %add, %mul, %neg, %ext : tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}xf32>
}
func.func @run(%a: tensor<${N}x${T}>, %b: tensor<${N}x${T}>) -> (tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}xf32>) {
  %add = arith.addf %a, %b : tensor<${N}x${T}>
  %mul = arith.mulf %a, %b : tensor<${N}x${T}>
  %neg = arith.negf %a : tensor<${N}x${T}>
  %ext = arith.extf %add : tensor<${N}x${T}> to tensor<${N}xf32>
  return %add, %mul, %neg, %ext : tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}x${T}>, tensor<${N}xf32>
}
"""


@pytest.mark.parametrize("name", ["f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f6E3M2FN", "f4E2M1FN", "bf16"])
def test_folded_and_run_time_results_agree(name):
    a, b = all_pairs(name, limit=2000)
    hexa = "0x" + a.tobytes().hex().upper()
    hexb = "0x" + b.tobytes().hex().upper()
    text = fill(FOLDED, N=str(a.size), T=name, A=f'"{hexa}"', B=f'"{hexb}"')
    module = parse_module(text)
    compile_module(module)
    folded_body = print_module(module).split("func.func @run")[0]
    assert "tfrt_array.elementwise" not in folded_body  # everything was folded
    prog = load(text)
    for got, want in zip(prog.call("folded"), prog.call("run", a, b)):
        assert got.dtype == want.dtype
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


def test_results_print_readably(tmp_path):
    text = """
func.func @f() -> (tensor<4xf8E4M3FN>, tensor<3xi4>, f8E5M2, tensor<2xbf16>) {
  %a = arith.constant dense<[1.5, -2.0, 0x7F, 448.0]> : tensor<4xf8E4M3FN>
  %b = arith.constant dense<[-8, 7, 15]> : tensor<3xi4>
  %c = arith.constant 0x7C : f8E5M2
  %d = arith.constant dense<[0.1, -3.0]> : tensor<2xbf16>
  return %a, %b, %c, %d : tensor<4xf8E4M3FN>, tensor<3xi4>, f8E5M2, tensor<2xbf16>
}"""
    src = tmp_path / "p.mlir"
    src.write_text(text)
    out = subprocess.run([str(BIN / "bef_executor"), str(src), "--function=f"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for line in ("4xf8E4M3FN=1.5 -2 NAN 448", "3xi4=-8 7 -1", "result[2]: f8E5M2=INF", "2xbf16=0.100098 -3"):
        assert line in out.stdout, out.stdout


def test_the_gpu_refuses_small_types_at_the_op():
    """CuPy has no bf16, f8/f6/f4 or i2/i4 arrays: compiling for the GPU is an error there."""
    text = (
        "func.func @f(%a: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {\n"
        "  %r = arith.negf %a : tensor<4xf8E4M3FN>\n"
        "  return %r : tensor<4xf8E4M3FN>\n}\n"
    )
    with pytest.raises(DiagnosticError) as info:
        compile_text_to_bef(text, "g.mlir", device="gpu")
    assert "g.mlir:2:3: error: 'tfrt_array.elementwise' op cannot run on the GPU: CuPy has no f8E4M3FN" in (
        info.value.render()
    )


def test_inputs_and_arguments_of_small_types():
    """``--input`` values and Python arguments round once to the declared type
    (1.0625000001 is just above a tie of f8E4M3FN) and i4 is range-checked."""
    from tfrt.values import ValueRangeError, converter, parse_input

    assert parse_input("2xf8E4M3FN=1.0625000001,2", None).view(np.uint8).tolist() == [0x39, 0x40]
    assert parse_input("3xi4=-8,7,0", "tensor<3xi4>").tolist() == [-8, 7, 0]
    with pytest.raises(ValueRangeError, match="9 does not fit in i4"):
        parse_input("i4=9", "i4")
    to_tensor = converter("tensor<2xbf16>")
    assert to_tensor([1 + 2**-8 + 2**-40, 3.0]).view(np.uint16).tolist() == [0x3F81, 0x4040]
    assert converter("i2")(-2) == -2
    with pytest.raises(ValueRangeError):
        converter("i2")(2)
