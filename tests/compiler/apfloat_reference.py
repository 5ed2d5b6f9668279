"""An exact model of LLVM's APFloat for MLIR's small float types, for tests.

Each type is described by APFloat's ``fltSemantics`` numbers (max and min
exponent, precision, size, non-finite behaviour, NaN encoding, whether it
has a zero and a sign).  ``decode(name, bits)`` gives an encoding's value as
a ``Fraction`` (or ``"nan"``, ``"inf"``, ``"-inf"``); ``round_to(name, x)``
gives the encoding APFloat's ``convert``/``normalize`` produce for an exact
real ``x`` with round-to-nearest-even.  Nothing here uses ml_dtypes or the
runtime: the tests compare those against this.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache


@dataclass(frozen=True)
class Semantics:
    max_exp: int
    min_exp: int
    precision: int  # significand bits, the integer bit included
    bits: int
    nonfinite: str = "ieee"  # "ieee", "nan_only", "finite_only"
    nan: str = "ieee"  # "ieee", "all_ones", "negative_zero"
    has_zero: bool = True
    signed: bool = True


# APFloat.cpp's table.
SEMANTICS = {
    "bf16": Semantics(127, -126, 8, 16),
    "f8E5M2": Semantics(15, -14, 3, 8),
    "f8E5M2FNUZ": Semantics(15, -15, 3, 8, "nan_only", "negative_zero"),
    "f8E4M3": Semantics(7, -6, 4, 8),
    "f8E4M3FN": Semantics(8, -6, 4, 8, "nan_only", "all_ones"),
    "f8E4M3FNUZ": Semantics(7, -7, 4, 8, "nan_only", "negative_zero"),
    "f8E4M3B11FNUZ": Semantics(4, -10, 4, 8, "nan_only", "negative_zero"),
    "f8E3M4": Semantics(3, -2, 5, 8),
    "f8E8M0FNU": Semantics(127, -127, 1, 8, "nan_only", "all_ones", False, False),
    "f6E3M2FN": Semantics(4, -2, 3, 6, "finite_only"),
    "f6E2M3FN": Semantics(2, 0, 4, 6, "finite_only"),
    "f4E2M1FN": Semantics(2, 0, 2, 4, "finite_only"),
}


def decode(name: str, bits: int):
    """The value of encoding ``bits``: a Fraction (``-0`` is ``("-0")``), or a special string."""
    s = SEMANTICS[name]
    if name == "f8E8M0FNU":
        return "nan" if bits == 0xFF else Fraction(2) ** (bits - 127)
    man_bits = s.precision - 1
    exp_bits = s.bits - 1 - man_bits
    sign = bits >> (s.bits - 1) & 1
    exp = bits >> man_bits & ((1 << exp_bits) - 1)
    man = bits & ((1 << man_bits) - 1)
    exp_all_ones = exp == (1 << exp_bits) - 1
    if s.nonfinite == "ieee" and exp_all_ones:
        if man == 0:
            return "-inf" if sign else "inf"
        return "nan"
    if s.nan == "all_ones" and exp_all_ones and man == (1 << man_bits) - 1:
        return "nan"
    if s.nan == "negative_zero" and sign and exp == 0 and man == 0:
        return "nan"
    bias = 1 - s.min_exp
    if exp == 0:
        value = Fraction(man, 1 << man_bits) * Fraction(2) ** s.min_exp
    else:
        value = (1 + Fraction(man, 1 << man_bits)) * Fraction(2) ** (exp - bias)
    if sign:
        return "-0" if value == 0 else -value
    return value


@cache
def _finite_table(name: str) -> tuple[dict, Fraction]:
    s = SEMANTICS[name]
    table = {}
    for bits in range(1 << s.bits):
        v = decode(name, bits)
        if isinstance(v, Fraction):
            table.setdefault(v, bits)
    return table, max(table)


@cache
def nan_bits(name: str, negative: bool = False) -> int:
    s = SEMANTICS[name]
    if s.nan == "negative_zero":
        return 1 << (s.bits - 1)
    if name == "f8E8M0FNU":
        return 0xFF
    if s.nan == "all_ones":
        return (1 << s.bits) - 1 if negative else (1 << (s.bits - 1)) - 1
    # IEEE: the quiet NaN with the top significand bit.
    man_bits = s.precision - 1
    pos = ((1 << (s.bits - 1)) - 1) ^ ((1 << (man_bits - 1)) - 1)
    return pos | (1 << (s.bits - 1)) if negative else pos


def _largest(name: str, negative: bool) -> int:
    table, top = _finite_table(name)
    return table[-top] if negative else table[top]


def round_to(name: str, x) -> int | None:
    """APFloat's encoding of ``x`` (a Fraction, float, or ``math.inf``/``nan``),
    rounded to nearest, ties to even."""
    s = SEMANTICS[name]
    table, top = _finite_table(name)
    if isinstance(x, float) and math.isnan(x):
        if s.nonfinite == "finite_only":
            return None  # no encoding: APFloat leaves it unspecified
        return nan_bits(name, math.copysign(1.0, x) < 0 and s.signed)
    if isinstance(x, float) and math.isinf(x):
        return _overflow(name, x < 0)
    negative = math.copysign(1.0, x) < 0 if isinstance(x, float) else x < 0
    x = Fraction(x)
    mag = abs(x)
    if not s.signed:
        negative = False
    if mag == 0:
        return _zero(name, negative)
    # Exponent of the leading bit, at least the minimum (subnormals).
    e = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** e > mag:
        e -= 1
    e = max(e, s.min_exp)
    quantum = Fraction(2) ** (e - (s.precision - 1))
    q = mag / quantum
    n = math.floor(q)
    rest = q - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    r = n * quantum
    if r == 0:
        return _zero(name, negative)
    if r > top or (s.nan == "all_ones" and r not in table):
        return _overflow(name, negative)
    return table[-r] if negative else table[r]


def _zero(name: str, negative: bool) -> int:
    s = SEMANTICS[name]
    if not s.has_zero:
        return 0x00  # the smallest normal, 2^-127
    if negative and s.nan != "negative_zero":
        return 1 << (s.bits - 1)
    return 0


def _overflow(name: str, negative: bool) -> int:
    s = SEMANTICS[name]
    if s.nonfinite == "ieee":
        man_bits = s.precision - 1
        inf = ((1 << (s.bits - 1)) - 1) ^ ((1 << man_bits) - 1)
        return inf | (1 << (s.bits - 1)) if negative else inf
    if s.nonfinite == "nan_only":
        return nan_bits(name, negative and s.signed)
    return _largest(name, negative)


def float_of(name: str, bits: int) -> float:
    """``decode`` as a Python float."""
    v = decode(name, bits)
    if v == "nan":
        return math.nan
    if v == "inf":
        return math.inf
    if v == "-inf":
        return -math.inf
    if v == "-0":
        return -0.0
    return float(v)
