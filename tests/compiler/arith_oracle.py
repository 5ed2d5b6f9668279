"""Reference semantics of MLIR's ``arith`` and ``math`` ops, written from their documents.

Nothing here uses the compiler, the kernels or numpy's arithmetic on the
types under test: integers are Python ints (a value of ``iN`` is its bit
pattern, read signed or unsigned as an op says), floats are Python floats
holding a value of the type (f16, bf16 and f32 values are f64 values), and
every correctly rounded result is computed exactly with ``Fraction`` and
rounded by :func:`round_to` (IEEE 754 round to nearest, ties to even, with
overflow to infinity).  The functions MLIR does not require to be correctly
rounded (``exp``, ``tanh``, ``erf``...) are given by Python's ``math`` module
in f64, and the tests compare within a stated number of ulps.

Each reference returns the result, or :data:`POISON` where the document
says the result is undefined (division by zero, ``INT_MIN / -1``, a shift by
the width or more, ``fptosi`` out of range, ``0 ** -n`` for ``ipowi``).
"""

from __future__ import annotations

import math
from fractions import Fraction

POISON = object()

# Significand bits (the implicit bit included), minimum and maximum exponent.
FLOATS = {
    "f16": (11, -14, 15),
    "bf16": (8, -126, 127),
    "f32": (24, -126, 127),
    "f64": (53, -1022, 1023),
}
WIDTHS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}
NAN = float("nan")
INF = float("inf")


def is_float(t: str) -> bool:
    return t in FLOATS


# ---------------------------------------------------------------------------
# Integers: bit patterns


def mask(t: str) -> int:
    return (1 << WIDTHS[t]) - 1


def signed(t: str, bits: int) -> int:
    w = WIDTHS[t]
    return bits - (1 << w) if bits >> (w - 1) & 1 else bits


def wrap(t: str, value: int) -> int:
    """``value`` modulo 2^width: the bit pattern."""
    return value & mask(t)


# ---------------------------------------------------------------------------
# Floats: exact rounding


def max_finite(t: str) -> Fraction:
    p, _, emax = FLOATS[t]
    return (2 - Fraction(1, 2 ** (p - 1))) * Fraction(2) ** emax


def _floor_log2(q: Fraction) -> int:
    e = q.numerator.bit_length() - q.denominator.bit_length()
    while Fraction(2) ** e > q:
        e -= 1
    while Fraction(2) ** (e + 1) <= q:
        e += 1
    return e


def round_to(t: str, q: Fraction, negative_zero: bool = False) -> float:
    """The value of type ``t`` nearest to the exact ``q`` (ties to even);
    beyond the largest finite value, after rounding, an infinity.  A zero
    result takes the sign ``negative_zero`` says (the caller knows it)."""
    p, emin, _ = FLOATS[t]
    if q == 0:
        return -0.0 if negative_zero else 0.0
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = max(_floor_log2(a), emin)
    quantum = Fraction(2) ** (e - p + 1)
    scaled = a / quantum
    n = math.floor(scaled)
    rest = scaled - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    value = n * quantum
    if value > max_finite(t):
        return sign * INF
    if value == 0:  # underflow to zero keeps the sign
        return -0.0 if sign < 0 else 0.0
    return sign * float(value)  # exact: every value of these types is an f64


def rounded(t: str, x: float) -> float:
    """An f64 value rounded to ``t`` (NaN, infinities and zeros as they are)."""
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    return round_to(t, Fraction(x))


def representable(t: str, x: float) -> bool:
    return math.isnan(x) or math.isinf(x) or round_to(t, Fraction(x)) == x


def neg_zero(x: float) -> bool:
    return x == 0 and math.copysign(1.0, x) < 0


def ulp(t: str, x: float) -> float:
    """The gap between the two values of type ``t`` around finite ``x``."""
    p, emin, _ = FLOATS[t]
    a = abs(Fraction(x))
    e = emin if a == 0 else max(_floor_log2(a), emin)
    return float(Fraction(2) ** (e - p + 1))


# ---------------------------------------------------------------------------
# IEEE arithmetic, special cases first


def fadd(t: str, x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y):
        return NAN
    if math.isinf(x) or math.isinf(y):
        if math.isinf(x) and math.isinf(y) and (x > 0) != (y > 0):
            return NAN
        return x if math.isinf(x) else y
    exact = Fraction(x) + Fraction(y)
    # An exact zero sum is +0 under round-to-nearest, unless both are -0.
    return round_to(t, exact, negative_zero=neg_zero(x) and neg_zero(y))


def fsub(t: str, x: float, y: float) -> float:
    return fadd(t, x, -y)


def fmul(t: str, x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y):
        return NAN
    sign_neg = (math.copysign(1.0, x) < 0) != (math.copysign(1.0, y) < 0)
    if math.isinf(x) or math.isinf(y):
        if x == 0 or y == 0:
            return NAN
        return -INF if sign_neg else INF
    return round_to(t, Fraction(x) * Fraction(y), negative_zero=sign_neg)


def fdiv(t: str, x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y):
        return NAN
    sign_neg = (math.copysign(1.0, x) < 0) != (math.copysign(1.0, y) < 0)
    if math.isinf(x):
        return NAN if math.isinf(y) else (-INF if sign_neg else INF)
    if math.isinf(y):
        return -0.0 if sign_neg else 0.0
    if y == 0:
        return NAN if x == 0 else (-INF if sign_neg else INF)
    return round_to(t, Fraction(x) / Fraction(y), negative_zero=sign_neg)


def frem(t: str, x: float, y: float) -> float:
    """arith.remf: C's fmod: x - trunc(x / y) * y, exact, with x's sign."""
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
        return NAN
    if math.isinf(y):
        return x
    q = Fraction(x) / Fraction(y)
    n = math.trunc(q)
    r = Fraction(x) - n * Fraction(y)
    return round_to(t, r, negative_zero=math.copysign(1.0, x) < 0)


def ffma(t: str, x: float, y: float, z: float) -> float:
    """math.fma: x * y + z rounded once."""
    if math.isnan(x) or math.isnan(y) or math.isnan(z):
        return NAN
    if math.isinf(x) or math.isinf(y):
        if x == 0 or y == 0:
            return NAN
        prod_neg = (math.copysign(1.0, x) < 0) != (math.copysign(1.0, y) < 0)
        p = -INF if prod_neg else INF
        return NAN if math.isinf(z) and (z > 0) != (p > 0) else p
    if math.isinf(z):
        return z
    prod = Fraction(x) * Fraction(y)
    exact = prod + Fraction(z)
    prod_neg = (math.copysign(1.0, x) < 0) != (math.copysign(1.0, y) < 0)
    return round_to(t, exact, negative_zero=prod == 0 and prod_neg and neg_zero(z))


def fneg(t: str, x: float) -> float:
    return -x


def fabs(t: str, x: float) -> float:
    return abs(x) if not math.isnan(x) else NAN


def fcopysign(t: str, x: float, y: float) -> float:
    if math.isnan(x):
        return NAN
    return math.copysign(x, y)  # y's sign bit, a NaN's too


def fmaximum(t: str, x: float, y: float) -> float:
    """arith.maximumf: NaN if either is; -0.0 is less than +0.0."""
    if math.isnan(x) or math.isnan(y):
        return NAN
    if x == y == 0:
        return x if not neg_zero(x) else y
    return max(x, y)


def fminimum(t: str, x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y):
        return NAN
    if x == y == 0:
        return x if neg_zero(x) else y
    return min(x, y)


def fmaxnum(t: str, x: float, y: float) -> float:
    """arith.maxnumf: the other operand when one is NaN; on +-0 either zero."""
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    return max(x, y)


def fminnum(t: str, x: float, y: float) -> float:
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    return min(x, y)


def _integral(fn, x: float) -> float:
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    r = fn(Fraction(x))
    return math.copysign(float(r), x) if r == 0 else float(r)


def ffloor(t: str, x: float) -> float:
    return _integral(math.floor, x)


def fceil(t: str, x: float) -> float:
    return _integral(math.ceil, x)


def ftrunc(t: str, x: float) -> float:
    return _integral(math.trunc, x)


def fround(t: str, x: float) -> float:
    """math.round: to the nearest integer, halves away from zero."""

    def away(q):
        n = math.floor(abs(q) + Fraction(1, 2))
        return n if q >= 0 else -n

    return _integral(away, x)


def froundeven(t: str, x: float) -> float:
    return _integral(round, x)  # Python rounds a Fraction half to even


def fcmp(pred: str, x: float, y: float) -> bool:
    """arith.cmpf: o* are false on NaN, u* true on NaN."""
    unordered = math.isnan(x) or math.isnan(y)
    if pred == "false":
        return False
    if pred == "true":
        return True
    if pred == "ord":
        return not unordered
    if pred == "uno":
        return unordered
    rel = pred[1:]
    if unordered:
        return pred[0] == "u"
    return {"eq": x == y, "gt": x > y, "ge": x >= y, "lt": x < y, "le": x <= y, "ne": x != y}[rel]


# Math functions MLIR does not require to be correctly rounded: f64 values of
# Python's math module, compared within a tolerance.
def _guard(fn):
    def g(t: str, x: float) -> float:
        try:
            return fn(x)
        except ValueError:
            return NAN
        except OverflowError:
            return INF

    return g


def _log_family(fn):
    def g(x: float) -> float:
        if math.isnan(x):
            return NAN
        if x == 0:
            return -INF
        if x < 0:
            return NAN
        if math.isinf(x):
            return INF
        return fn(x)

    return g


def _exp(x: float) -> float:
    if math.isnan(x):
        return NAN
    if x == -INF:
        return 0.0
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def _exp2(x: float) -> float:
    if math.isnan(x):
        return NAN
    if x == -INF:
        return 0.0
    try:
        return 2.0**x
    except OverflowError:
        return INF


def _expm1(x: float) -> float:
    if math.isnan(x):
        return NAN
    if x == -INF:
        return -1.0
    try:
        return math.expm1(x)
    except OverflowError:
        return INF


def _log1p(x: float) -> float:
    if math.isnan(x) or x > 1e308 and math.isinf(x):
        return x
    if x == -1:
        return -INF
    if x < -1:
        return NAN
    return math.log1p(x)


def _sqrt(x: float) -> float:
    if math.isnan(x) or x < 0:
        return NAN
    return math.sqrt(x)  # correctly rounded; sqrt(-0) is -0


def _rsqrt(x: float) -> float:
    if math.isnan(x) or x < 0:
        return NAN
    if x == 0:
        return math.copysign(INF, x)
    if math.isinf(x):
        return 0.0
    return 1 / math.sqrt(x)


def _periodic(fn):
    def g(x: float) -> float:
        if math.isnan(x) or math.isinf(x):
            return NAN
        return fn(x)

    return g


TRANSCENDENTAL = {
    "math.exp": _guard(_exp),
    "math.exp2": _guard(_exp2),
    "math.expm1": _guard(_expm1),
    "math.log": _guard(_log_family(math.log)),
    "math.log2": _guard(_log_family(math.log2)),
    "math.log10": _guard(_log_family(math.log10)),
    "math.log1p": _guard(_log1p),
    "math.sqrt": _guard(_sqrt),
    "math.rsqrt": _guard(_rsqrt),
    "math.sin": _guard(_periodic(math.sin)),
    "math.cos": _guard(_periodic(math.cos)),
    "math.tan": _guard(_periodic(math.tan)),
    "math.tanh": _guard(math.tanh),
    "math.atan": _guard(math.atan),
    "math.erf": _guard(math.erf),
}


def fatan2(t: str, y: float, x: float) -> float:
    return math.atan2(y, x) if not math.isnan(y) and not math.isnan(x) else NAN


def fpowf(t: str, x: float, y: float) -> float:
    """math.powf, C's pow: the special cases of C99 F.9.4.4."""
    try:
        return math.pow(x, y)  # Python's pow follows C99's special cases...
    except ValueError:
        if x == 0 and y < 0:  # ...but for a zero to a negative power
            odd = y == math.floor(y) and not math.isinf(y) and int(y) % 2 == 1
            return math.copysign(INF, x) if odd else INF
        return NAN
    except OverflowError:
        odd = not math.isnan(y) and not math.isinf(y) and y == math.floor(y) and int(y) % 2 == 1
        return -INF if x < 0 and odd else INF
    except ZeroDivisionError:
        odd = y == math.floor(y) and int(y) % 2 == 1
        return math.copysign(INF, x) if odd else INF


# ---------------------------------------------------------------------------
# Integer ops (operands and results are bit patterns)


def idiv_trunc(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def int_binary(name: str, t: str, a: int, b: int):
    w = WIDTHS[t]
    sa, sb = signed(t, a), signed(t, b)
    smin = -(1 << (w - 1))
    if name == "arith.addi":
        return wrap(t, a + b)
    if name == "arith.subi":
        return wrap(t, a - b)
    if name == "arith.muli":
        return wrap(t, a * b)
    if name in ("arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi"):
        if sb == 0 or (sa == smin and sb == -1):
            return POISON
        if name == "arith.divsi":
            return wrap(t, idiv_trunc(sa, sb))
        if name == "arith.remsi":
            return wrap(t, sa - idiv_trunc(sa, sb) * sb)
        if name == "arith.floordivsi":
            return wrap(t, sa // sb)
        return wrap(t, -((-sa) // sb))
    if name in ("arith.divui", "arith.remui", "arith.ceildivui"):
        if b == 0:
            return POISON
        if name == "arith.divui":
            return a // b
        if name == "arith.remui":
            return a % b
        return -((-a) // b)
    if name == "arith.maxsi":
        return a if sa >= sb else b
    if name == "arith.minsi":
        return a if sa <= sb else b
    if name == "arith.maxui":
        return max(a, b)
    if name == "arith.minui":
        return min(a, b)
    if name == "arith.andi":
        return a & b
    if name == "arith.ori":
        return a | b
    if name == "arith.xori":
        return a ^ b
    if name in ("arith.shli", "arith.shrsi", "arith.shrui"):
        if b >= w:  # the amount is read unsigned
            return POISON
        if name == "arith.shli":
            return wrap(t, a << b)
        if name == "arith.shrui":
            return a >> b
        return wrap(t, sa >> b)
    if name == "math.ipowi":
        if sb < 0:
            if sa == 0:
                return POISON  # 1 / 0
            if sa == 1:
                return 1
            if sa == -1:
                return wrap(t, -1 if sb % 2 else 1)
            return 0
        return wrap(t, pow(a, sb, 1 << w))
    raise KeyError(name)


def int_unary(name: str, t: str, a: int):
    w = WIDTHS[t]
    if name == "math.absi":
        return wrap(t, abs(signed(t, a)))
    if name == "math.ctpop":
        return bin(a).count("1")  # noqa: FURB161 - Python 3.10's int.bit_count is fine too
    if name == "math.ctlz":
        return w - a.bit_length()
    if name == "math.cttz":
        return w if a == 0 else (a & -a).bit_length() - 1
    raise KeyError(name)


def cmpi(pred: str, t: str, a: int, b: int) -> bool:
    if pred in ("eq", "ne"):
        return (a == b) == (pred == "eq")
    if pred[0] == "u":
        x, y = a, b
    else:
        x, y = signed(t, a), signed(t, b)
    return {"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[pred[1:]]


# ---------------------------------------------------------------------------
# Casts


def cast(name: str, src: str, dst: str, v):
    """Every arith cast; ``v`` a bit pattern or a float of type ``src``."""
    if name in ("arith.extsi", "arith.index_cast"):
        if WIDTHS[dst] >= WIDTHS[src]:
            return wrap(dst, signed(src, v))
        return wrap(dst, v)  # index_cast to a narrower type truncates
    if name in ("arith.extui", "arith.index_castui"):
        return wrap(dst, v)  # zero extension (or truncation)
    if name == "arith.trunci":
        return wrap(dst, v)
    if name == "arith.sitofp":
        return round_to(dst, Fraction(signed(src, v)))
    if name == "arith.uitofp":
        return round_to(dst, Fraction(v))
    if name in ("arith.fptosi", "arith.fptoui"):
        if math.isnan(v) or math.isinf(v):
            return POISON
        n = math.trunc(Fraction(v))
        w = WIDTHS[dst]
        lo, hi = (
            (-(1 << (w - 1)), (1 << (w - 1)) - 1) if name == "arith.fptosi" else (0, (1 << w) - 1)
        )
        if not lo <= n <= hi:
            return POISON
        return wrap(dst, n)
    if name in ("arith.extf", "arith.truncf"):
        if math.isnan(v):
            return NAN
        if math.isinf(v):
            return v
        return round_to(dst, Fraction(v), negative_zero=neg_zero(v))
    raise KeyError(name)


# ---------------------------------------------------------------------------
# Bits of a float of each type (for arith.bitcast and for hex literals)

_STRUCT = {"f16": "e", "f32": "f", "f64": "d"}


def float_bits(t: str, x: float) -> int:
    import struct

    if t == "bf16":
        return float_bits("f32", x) >> 16  # a bf16 value is an f32 whose low half is zero
    code = _STRUCT[t]
    size = {"e": "H", "f": "I", "d": "Q"}[code]
    if math.isnan(x):  # the quiet NaN of each type
        return {"f16": 0x7E00, "f32": 0x7FC00000, "f64": 0x7FF8000000000000}[t]
    return struct.unpack("<" + size, struct.pack("<" + code, x))[0]


def bits_float(t: str, bits: int) -> float:
    import struct

    if t == "bf16":
        return bits_float("f32", bits << 16)
    code = _STRUCT[t]
    size = {"e": "H", "f": "I", "d": "Q"}[code]
    return struct.unpack("<" + code, struct.pack("<" + size, bits))[0]
