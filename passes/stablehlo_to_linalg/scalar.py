"""StableHLO's element-wise operations on one element: ``arith``, ``math`` and ``complex`` ops.

:func:`scalar_op` is the one table: an element-wise op on tensors becomes a
``linalg.generic`` whose body is what it builds, and the bodies of
``reduce``, ``reduce_window``, ``scatter`` and ``sort`` (ops on 0-d tensors)
become the same scalar ops (:func:`scalarize_region`).

Semantics follow the StableHLO specification where MLIR's ops differ:

* ``maximum``/``minimum`` of floats propagate NaN (``arith.maximumf``), and of
  booleans are ``or``/``and``; ``add``/``multiply`` of booleans are ``or``/``and``;
* shifts by the bit width or more give 0 (``shift_right_arithmetic``: the sign);
* ``convert`` to a boolean is ``x != 0``; from a boolean is 0 or 1; float to
  integer rounds toward zero;
* ``compare`` with ``TOTALORDER`` orders floats by their bits (-NaN < -inf <
  ... < -0 < +0 < ... < inf < NaN);
* ``sign`` of a float keeps NaN and signed zeros; ``round_nearest_afz``
  rounds halves away from zero, ``round_nearest_even`` to even.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith as xarith
from xdsl.dialects import complex as xcomplex
from xdsl.dialects import math
from xdsl.dialects.builtin import ComplexType, Float16Type, IntegerType
from xdsl.ir import Attribute, Operation, Region, SSAValue

from tfrt.dialects import arith

from .common import (
    Emitter,
    cmp_f,
    cmp_i,
    element,
    is_complex,
    is_float,
    is_unsigned,
    select,
    signless,
    width,
)

_FLOAT_BINARY = {
    "stablehlo.add": xarith.AddfOp,
    "stablehlo.subtract": xarith.SubfOp,
    "stablehlo.multiply": xarith.MulfOp,
    "stablehlo.divide": xarith.DivfOp,
    "stablehlo.remainder": arith.RemFOp,
    "stablehlo.maximum": xarith.MaximumfOp,
    "stablehlo.minimum": xarith.MinimumfOp,
    "stablehlo.power": math.PowFOp,
    "stablehlo.atan2": math.Atan2Op,
}

_FLOAT_UNARY = {
    "stablehlo.exponential": math.ExpOp,
    "stablehlo.exponential_minus_one": math.ExpM1Op,
    "stablehlo.log": math.LogOp,
    "stablehlo.log_plus_one": math.Log1pOp,
    "stablehlo.sqrt": math.SqrtOp,
    "stablehlo.rsqrt": math.RsqrtOp,
    "stablehlo.cbrt": math.CbrtOp,
    "stablehlo.sine": math.SinOp,
    "stablehlo.cosine": math.CosOp,
    "stablehlo.tan": math.TanOp,
    "stablehlo.tanh": math.TanhOp,
    "stablehlo.floor": math.FloorOp,
    "stablehlo.ceil": math.CeilOp,
    "stablehlo.round_nearest_afz": math.RoundOp,
    "stablehlo.round_nearest_even": math.RoundEvenOp,
    "stablehlo.abs": math.AbsFOp,
    "stablehlo.negate": xarith.NegfOp,
    # CHLO's, on one element (chlo-legalize-to-stablehlo leaves these to us)
    "chlo.erf": math.ErfOp,
    "chlo.tan": math.TanOp,
    "chlo.sinh": math.SinhOp,
    "chlo.cosh": math.CoshOp,
    "chlo.asin": math.AsinOp,
    "chlo.acos": math.AcosOp,
    "chlo.atan": math.AtanOp,
    "chlo.asinh": math.AsinhOp,
    "chlo.acosh": math.AcoshOp,
    "chlo.atanh": math.AtanhOp,
}

_COMPLEX_BINARY = {
    "stablehlo.add": xcomplex.AddOp,
    "stablehlo.subtract": xcomplex.SubOp,
    "stablehlo.multiply": xcomplex.MulOp,
    "stablehlo.divide": xcomplex.DivOp,
    "stablehlo.power": xcomplex.PowOp,
}

_COMPLEX_UNARY = {
    "stablehlo.exponential": xcomplex.ExpOp,
    "stablehlo.exponential_minus_one": xcomplex.Expm1Op,
    "stablehlo.log": xcomplex.LogOp,
    "stablehlo.log_plus_one": xcomplex.Log1pOp,
    "stablehlo.sqrt": xcomplex.SqrtOp,
    "stablehlo.rsqrt": xcomplex.RsqrtOp,
    "stablehlo.sine": xcomplex.SinOp,
    "stablehlo.cosine": xcomplex.CosOp,
    "stablehlo.tan": xcomplex.TanOp,
    "stablehlo.tanh": xcomplex.TanhOp,
    "stablehlo.negate": xcomplex.NegOp,
    "stablehlo.sign": xcomplex.SignOp,
}

# Every element-wise op scalar_op knows (the tensor conversion's table).
ELEMENTWISE = frozenset(
    {
        *_FLOAT_BINARY,
        *_FLOAT_UNARY,
        "stablehlo.and",
        "stablehlo.or",
        "stablehlo.xor",
        "stablehlo.not",
        "stablehlo.shift_left",
        "stablehlo.shift_right_arithmetic",
        "stablehlo.shift_right_logical",
        "stablehlo.sign",
        "stablehlo.logistic",
        "stablehlo.is_finite",
        "stablehlo.popcnt",
        "stablehlo.count_leading_zeros",
        "stablehlo.convert",
        "stablehlo.compare",
        "stablehlo.select",
        "stablehlo.clamp",
        "stablehlo.real",
        "stablehlo.imag",
        "stablehlo.complex",
        "chlo.erf",
        "chlo.erfc",
        "chlo.erf_inv",
        "chlo.lgamma",
        "chlo.digamma",
        "chlo.is_inf",
        "chlo.is_pos_inf",
        "chlo.is_neg_inf",
        "chlo.square",
        "chlo.next_after",
    }
)

_FLOAT_PRED = {"EQ": "oeq", "NE": "une", "LT": "olt", "LE": "ole", "GT": "ogt", "GE": "oge"}
_SIGNED_PRED = {"EQ": "eq", "NE": "ne", "LT": "slt", "LE": "sle", "GT": "sgt", "GE": "sge"}
_UNSIGNED_PRED = {"EQ": "eq", "NE": "ne", "LT": "ult", "LE": "ule", "GT": "ugt", "GE": "uge"}


def _elem(t: Attribute) -> Attribute:
    return signless(element(t))


def _int_binary(e: Emitter, name: str, a: SSAValue, b: SSAValue, t: Attribute) -> SSAValue | None:
    unsigned = is_unsigned(t)
    w = width(t)
    if w == 1:
        table = {
            "stablehlo.add": xarith.OrIOp,
            "stablehlo.multiply": xarith.AndIOp,
            "stablehlo.maximum": xarith.OrIOp,
            "stablehlo.minimum": xarith.AndIOp,
            "stablehlo.subtract": xarith.XOrIOp,
        }
        if name in table:
            return e.add(table[name](a, b))
    if name in ("stablehlo.divide", "stablehlo.remainder"):
        # Division by zero is left to the implementation by the specification;
        # XLA (jax.jit) gives all ones (-1) for the quotient and the dividend
        # for the remainder.  INT_MIN / -1 is INT_MIN, remainder 0.
        elem = _elem(t)
        zero = cmp_i(e, "eq", b, e.scalar(0, elem))
        if name == "stablehlo.divide":
            q = e.add((xarith.DivUIOp if unsigned else xarith.DivSIOp)(a, b))
            return select(e, zero, e.scalar(-1, elem), q)
        r = e.add((xarith.RemUIOp if unsigned else xarith.RemSIOp)(a, b))
        return select(e, zero, a, r)
    simple = {
        "stablehlo.add": xarith.AddiOp,
        "stablehlo.subtract": xarith.SubiOp,
        "stablehlo.multiply": xarith.MuliOp,
        "stablehlo.and": xarith.AndIOp,
        "stablehlo.or": xarith.OrIOp,
        "stablehlo.xor": xarith.XOrIOp,
        "stablehlo.maximum": xarith.MaxUIOp if unsigned else xarith.MaxSIOp,
        "stablehlo.minimum": xarith.MinUIOp if unsigned else xarith.MinSIOp,
    }
    if name in simple:
        return e.add(simple[name](a, b))
    if name in ("stablehlo.shift_left", "stablehlo.shift_right_logical", "stablehlo.shift_right_arithmetic"):
        elem = _elem(t)
        limit = e.scalar(w, elem)
        in_range = cmp_i(e, "ult", b, limit)
        if name == "stablehlo.shift_left":
            shifted = e.add(xarith.ShLIOp(a, b))
            return select(e, in_range, shifted, e.scalar(0, elem))
        if name == "stablehlo.shift_right_logical":
            shifted = e.add(xarith.ShRUIOp(a, b))
            return select(e, in_range, shifted, e.scalar(0, elem))
        clamped = select(e, in_range, b, e.scalar(w - 1, elem))
        return e.add(xarith.ShRSIOp(a, clamped))
    if name == "stablehlo.power":
        return _int_power(e, a, b, t)
    return None


def _int_power(e: Emitter, a: SSAValue, b: SSAValue, t: Attribute) -> SSAValue:
    # StableHLO: a negative exponent gives 0 (1 and -1 keep their powers);
    # math.ipowi computes the same (MLIR's expansion divides 1 by a^-b).
    return e.add(math.IPowIOp(a, b))


def convert(e: Emitter, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    """StableHLO's ``convert`` of one element from type ``src`` to ``dst`` (original types)."""
    s, t = _elem(src), _elem(dst)
    if s == t:
        return x
    s_int, t_int = isinstance(s, IntegerType), isinstance(t, IntegerType)
    if isinstance(s, ComplexType) or isinstance(t, ComplexType):
        return _convert_complex(e, x, src, dst)
    if t_int and t.width.data == 1:
        if s_int:
            return cmp_i(e, "ne", x, e.scalar(0, s))
        return cmp_f(e, "une", x, e.scalar(0.0, s))
    if s_int:
        ws, wt = s.width.data, (t.width.data if t_int else None)
        from_unsigned = is_unsigned(src)
        if t_int:
            if wt > ws:
                return e.add((arith.ExtUIOp if from_unsigned else arith.ExtSIOp)(x, t))
            if wt < ws:
                return e.add(arith.TruncIOp(x, t))
            return x
        return e.add((arith.UIToFPOp if from_unsigned else arith.SIToFPOp)(x, t))
    if t_int:
        return _float_to_int(e, x, s, t, is_unsigned(dst))
    if s.bitwidth < t.bitwidth:
        return e.add(xarith.ExtFOp(x, t))
    if s.bitwidth > t.bitwidth:
        return e.add(xarith.TruncFOp(x, t))
    # two floats of one width (f16 <-> bf16): through f32
    from xdsl.dialects.builtin import f32

    wide = e.add(xarith.ExtFOp(x, f32))
    return e.add(xarith.TruncFOp(wide, t))


def _float_to_int(e: Emitter, x: SSAValue, s: Attribute, t: IntegerType, unsigned: bool) -> SSAValue:
    """Float to integer: truncated toward zero; out of range saturates to the
    type's bounds and NaN gives 0, as XLA does (the specification leaves it open)."""
    w = t.width.data
    lo, hi = (0, (1 << w) - 1) if unsigned else (-(1 << (w - 1)), (1 << (w - 1)) - 1)
    # hi + 1 and lo (or -1) are powers of two, exact in every float type, or
    # past f16's largest value (65504): then infinity.
    def bound(v: int) -> SSAValue:
        f = float(v)
        if isinstance(s, Float16Type) and abs(f) > 65504.0:
            f = float("inf") if f > 0 else float("-inf")
        return e.scalar(f, s)

    top, bottom = bound(hi + 1), bound(lo - 1 if unsigned else lo)
    too_big = cmp_f(e, "oge", x, top)
    too_small = cmp_f(e, "ole", x, bottom)
    fits = e.add(xarith.AndIOp(cmp_f(e, "olt", x, top), cmp_f(e, "ogt", x, bottom)))
    safe = select(e, fits, x, e.scalar(0.0, s))  # NaN and out-of-range lanes convert 0
    r = e.add((arith.FPToUIOp if unsigned else arith.FPToSIOp)(safe, t))
    r = select(e, too_big, e.scalar(hi, t), r)
    return select(e, too_small, e.scalar(lo, t), r)


def _convert_complex(e: Emitter, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    s, t = _elem(src), _elem(dst)
    if isinstance(s, ComplexType) and isinstance(t, ComplexType):
        re = e.add(xcomplex.ReOp(x))
        im = e.add(xcomplex.ImOp(x))
        re = convert(e, re, s.element_type, t.element_type)
        im = convert(e, im, s.element_type, t.element_type)
        return e.add(xcomplex.CreateOp(re, im, t))
    if isinstance(t, ComplexType):
        re = convert(e, x, src, t.element_type)
        zero = e.scalar(0.0, t.element_type)
        return e.add(xcomplex.CreateOp(re, zero, t))
    re = e.add(xcomplex.ReOp(x))
    return convert(e, re, s.element_type, dst)


def compare(e: Emitter, a: SSAValue, b: SSAValue, t: Attribute, direction: str, kind: str | None) -> SSAValue:
    """``compare`` of two elements of original type ``t``."""
    elem = _elem(t)
    if isinstance(elem, ComplexType):
        if direction not in ("EQ", "NE"):
            raise e.error(f"complex numbers compare only for EQ and NE, not {direction}")
        op = xcomplex.EqualOp if direction == "EQ" else xcomplex.NotEqualOp
        return e.add(op(a, b))
    if is_float(t):
        if kind == "TOTALORDER":
            return _total_order(e, a, b, elem, direction)
        return cmp_f(e, _FLOAT_PRED[direction], a, b)
    unsigned = kind == "UNSIGNED" or (kind is None and is_unsigned(t)) or width(t) == 1
    return cmp_i(e, (_UNSIGNED_PRED if unsigned else _SIGNED_PRED)[direction], a, b)


def _total_order(e: Emitter, a: SSAValue, b: SSAValue, elem: Attribute, direction: str) -> SSAValue:
    # Map each float to an integer that orders as the total order does:
    # negative values (sign bit set) flip every bit but the sign.
    w = int(elem.bitwidth)
    it = IntegerType(w)
    keys = []
    for v in (a, b):
        bits = e.add(xarith.BitcastOp(v, it))
        neg = cmp_i(e, "slt", bits, e.scalar(0, it))
        flipped = e.add(xarith.XOrIOp(bits, e.scalar((1 << (w - 1)) - 1, it)))
        keys.append(select(e, neg, flipped, bits))
    return cmp_i(e, _SIGNED_PRED[direction], keys[0], keys[1])


def scalar_op(e: Emitter, op: Operation, args: Sequence[SSAValue], name: str | None = None) -> SSAValue:
    """The element-wise ``op`` on one element of each operand (``args``, scalars);
    ``name`` overrides the op's name (``chlo.broadcast_add`` computes ``stablehlo.add``)."""
    name = name or op.name
    in_t = op.operands[0].type if op.operands else op.results[0].type
    out_t = op.results[0].type
    if name == "stablehlo.convert":
        return convert(e, args[0], in_t, out_t)
    if name == "stablehlo.compare":
        from .common import enum_attr

        direction = enum_attr(op, "comparison_direction")
        kind = enum_attr(op, "compare_type")
        return compare(e, args[0], args[1], in_t, direction, kind)
    if name == "stablehlo.select":
        return select(e, args[0], args[1], args[2])
    if name == "stablehlo.clamp":
        lo, x, hi = args
        t = op.operands[1].type
        mx = _binary(e, "stablehlo.maximum", x, lo, t)
        return _binary(e, "stablehlo.minimum", mx, hi, t)
    if name == "stablehlo.real":
        return e.add(xcomplex.ReOp(args[0])) if is_complex(in_t) else args[0]
    if name == "stablehlo.imag":
        if is_complex(in_t):
            return e.add(xcomplex.ImOp(args[0]))
        return e.scalar(0.0, _elem(out_t))
    if name == "stablehlo.complex":
        return e.add(xcomplex.CreateOp(args[0], args[1], _elem(out_t)))
    if len(args) == 2:
        return _binary(e, name, args[0], args[1], in_t)
    if len(args) == 1:
        return _unary(e, name, args[0], in_t, out_t)
    raise e.error(f"'{name}' is not an element-wise operation")


def _binary(e: Emitter, name: str, a: SSAValue, b: SSAValue, t: Attribute) -> SSAValue:
    if is_complex(t):
        cls = _COMPLEX_BINARY.get(name)
        if cls is None:
            raise e.error(f"'{name}' of complex numbers is not supported")
        return e.add(cls(a, b))
    if is_float(t):
        cls = _FLOAT_BINARY.get(name)
        if cls is not None:
            return e.add(cls(a, b))
        if name == "chlo.next_after":
            raise e.error("chlo.next_after is not supported")
        raise e.error(f"'{name}' of floating-point numbers is not supported")
    result = _int_binary(e, name, a, b, t)
    if result is None:
        raise e.error(f"'{name}' of integers is not supported")
    return result


def _unary(e: Emitter, name: str, x: SSAValue, t: Attribute, out_t: Attribute) -> SSAValue:
    elem = _elem(t)
    if is_complex(t):
        if name == "stablehlo.abs":
            return e.add(xcomplex.AbsOp(x, elem.element_type))
        cls = _COMPLEX_UNARY.get(name)
        if cls is None:
            raise e.error(f"'{name}' of complex numbers is not supported")
        return e.add(cls(x))
    if is_float(t):
        cls = _FLOAT_UNARY.get(name)
        if cls is not None:
            return e.add(cls(x))
        if name == "stablehlo.logistic":
            one = e.scalar(1.0, elem)
            neg = e.add(xarith.NegfOp(x))
            ex = e.add(math.ExpOp(neg))
            return e.add(xarith.DivfOp(one, e.add(xarith.AddfOp(one, ex))))
        if name == "stablehlo.is_finite":
            inf = e.scalar(float("inf"), elem)
            return cmp_f(e, "one", e.add(math.AbsFOp(x)), inf)
        if name == "stablehlo.sign":
            zero = e.scalar(0.0, elem)
            one = e.add(math.CopySignOp(e.scalar(1.0, elem), x))
            keep = cmp_f(e, "ueq", x, zero)  # NaN or a zero of either sign
            return select(e, keep, x, one)
        if name == "chlo.erfc":
            return _erfc(e, x, elem)
        if name in _SPECIAL:
            return _in_f32_or_f64(e, x, elem, name, _SPECIAL[name])
        if name == "chlo.square":
            return e.add(xarith.MulfOp(x, x))
        if name in ("chlo.is_inf", "chlo.is_pos_inf", "chlo.is_neg_inf"):
            inf = e.scalar(float("inf"), elem)
            if name == "chlo.is_inf":
                return cmp_f(e, "oeq", e.add(math.AbsFOp(x)), inf)
            if name == "chlo.is_pos_inf":
                return cmp_f(e, "oeq", x, inf)
            return cmp_f(e, "oeq", x, e.scalar(float("-inf"), elem))
        raise e.error(f"'{name}' of floating-point numbers is not supported")
    w = width(t)
    if name == "stablehlo.not":
        return e.add(xarith.XOrIOp(x, e.scalar(-1, elem)))
    if name == "stablehlo.negate":
        return e.add(xarith.SubiOp(e.scalar(0, elem), x))
    if name == "stablehlo.abs":
        if is_unsigned(t):
            return x
        return e.add(math.AbsIOp(x))
    if name == "stablehlo.sign":
        if w == 1 or is_unsigned(t):
            return e.add(arith.ExtUIOp(cmp_i(e, "ne", x, e.scalar(0, elem)), elem)) if w > 1 else x
        zero = e.scalar(0, elem)
        pos = e.add(arith.ExtUIOp(cmp_i(e, "sgt", x, zero), elem))
        neg = e.add(arith.ExtUIOp(cmp_i(e, "slt", x, zero), elem))
        return e.add(xarith.SubiOp(pos, neg))
    if name == "stablehlo.popcnt":
        return e.add(math.CtPopOp(x))
    if name == "stablehlo.count_leading_zeros":
        return e.add(math.CountLeadingZerosOp(x))
    if name == "chlo.square":
        return e.add(xarith.MuliOp(x, x))
    raise e.error(f"'{name}' of integers is not supported")


# Chebyshev fit of erfc(z) * exp(z^2) in t = 1 / (1 + z/2) for z >= 0,
# relative error below 1.2e-7 (Numerical Recipes, "erfcc", section 6.2).
_ERFC_COEFFS = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
                0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277)  # fmt: skip


def _erfc(e: Emitter, x: SSAValue, elem: Attribute) -> SSAValue:
    """``erfc``: ``1 - erf(x)`` loses every digit where erf(x) is near 1 (x
    beyond about 4 in f32, 2.5 in f16).  For |x| < 0.5 that difference is
    used; elsewhere the fit above, computed in f32.  f64 is refused."""
    from xdsl.dialects.builtin import f32

    if elem.bitwidth > 32:
        # 1 - erf(x) is 0 beyond x of about 6 where erfc is not (1e-17 at 6):
        # refused rather than wrong in its tail.
        raise e.error("chlo.erfc is computed for f32 and narrower floats, not f64")
    one_minus_erf = e.add(xarith.SubfOp(e.scalar(1.0, elem), e.add(math.ErfOp(x))))
    xf = e.add(xarith.ExtFOp(x, f32)) if elem.bitwidth < 32 else x
    z = e.add(math.AbsFOp(xf))
    one = e.scalar(1.0, f32)
    t = e.add(xarith.DivfOp(one, e.add(xarith.AddfOp(one, e.add(xarith.MulfOp(z, e.scalar(0.5, f32)))))))
    poly = e.scalar(_ERFC_COEFFS[-1], f32)
    for c in reversed(_ERFC_COEFFS[:-1]):
        poly = e.add(xarith.AddfOp(e.scalar(c, f32), e.add(xarith.MulfOp(t, poly))))
    zz = e.add(xarith.MulfOp(z, z))
    tail = e.add(xarith.MulfOp(t, e.add(math.ExpOp(e.add(xarith.SubfOp(poly, zz))))))
    neg = cmp_f(e, "olt", xf, e.scalar(0.0, f32))
    tail = select(e, neg, e.add(xarith.SubfOp(e.scalar(2.0, f32), tail)), tail)
    if elem.bitwidth < 32:
        tail = e.add(xarith.TruncFOp(tail, elem))
    small = cmp_f(e, "olt", z, e.scalar(0.5, f32))  # NaN takes 1 - erf(NaN) = NaN
    nan = cmp_f(e, "uno", xf, xf)
    return select(e, e.add(xarith.OrIOp(small, nan)), one_minus_erf, tail)


def scalarize_region(e: Emitter, region: Region, args: Sequence[SSAValue], owner: Operation) -> list[SSAValue]:
    """Build the ops of a StableHLO body (ops on 0-d tensors) on scalars ``args``.

    The body may hold element-wise ops, ``constant``, ``convert``, ``compare``,
    ``select``, ``broadcast_in_dim``/``reshape`` of scalars and ``return``; it
    returns the scalars ``return`` yields."""
    block = region.blocks.first
    if block is None or region.blocks.last is not block:
        raise e.error(f"the body of '{owner.name}' must be one block")
    values: dict[SSAValue, SSAValue] = dict(zip(block.args, args))
    for inner in block.ops:
        name = inner.name
        if name in ("stablehlo.return", "func.return"):
            return [values[v] for v in inner.operands]
        if name == "stablehlo.constant" or name == "arith.constant":
            from .common import attr, dense_values

            value = attr(inner, "value")
            arr = dense_values(value)
            t = inner.results[0].type
            if arr is None or arr.size != 1:
                raise e.error(f"a constant in the body of '{owner.name}' must hold one element")
            v = arr.reshape(-1)[0]
            if is_complex(t):
                raise e.error(f"a complex constant in the body of '{owner.name}' is not supported")
            values[inner.results[0]] = e.scalar(v.item() if hasattr(v, "item") else v, t)
            continue
        if name in ("stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.broadcast") and all(
            _numel(o.type) == 1 for o in (*inner.operands, *inner.results)
        ):
            values[inner.results[0]] = values[inner.operands[0]]
            continue
        if name in ELEMENTWISE or name in ("stablehlo.and", "stablehlo.or"):
            operands = [values[o] for o in inner.operands]
            values[inner.results[0]] = scalar_op(e, inner, operands)
            continue
        raise cannot_lower_inner(inner, owner)
    raise e.error(f"the body of '{owner.name}' has no stablehlo.return")


def _numel(t: Attribute) -> int:
    from .common import shape

    n = 1
    for s in shape(t):
        n *= s
    return n


def cannot_lower_inner(inner: Operation, owner: Operation):
    from .common import cannot_lower

    return cannot_lower(inner, f"'{inner.name}' in the body of '{owner.name}' is not supported there "
                               "(bodies may hold element-wise ops on scalars)")


# --------------------------------------------------------------------------
# Special functions CHLO names (as XLA's decompositions compute them)


def _poly(e: Emitter, w: SSAValue, coeffs, t) -> SSAValue:
    """Horner: coeffs[0] * w^(n-1) + ... + coeffs[-1]."""
    p = e.scalar(coeffs[0], t)
    for c in coeffs[1:]:
        p = e.add(xarith.AddfOp(e.scalar(c, t), e.add(xarith.MulfOp(p, w))))
    return p


# Giles, "Approximating the erfinv function" (GPU Computing Gems, 2010),
# single precision: the central and the tail polynomials.
_ERFINV_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                   -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)  # fmt: skip
_ERFINV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)  # fmt: skip


def _erf_inv(e: Emitter, x: SSAValue, t) -> SSAValue:
    if int(t.bitwidth) != 32:
        raise e.error("chlo.erf_inv is computed for f32, f16 and bf16 (Giles' single-precision "
                      "approximation), not f64")
    one = e.scalar(1.0, t)
    w = e.add(xarith.NegfOp(e.add(math.LogOp(e.add(xarith.MulfOp(
        e.add(xarith.SubfOp(one, x)), e.add(xarith.AddfOp(one, x))))))))
    central = cmp_f(e, "olt", w, e.scalar(5.0, t))
    wc = e.add(xarith.SubfOp(w, e.scalar(2.5, t)))
    wt = e.add(xarith.SubfOp(e.add(math.SqrtOp(w)), e.scalar(3.0, t)))
    p = select(e, central, _poly(e, wc, _ERFINV_CENTRAL, t), _poly(e, wt, _ERFINV_TAIL, t))
    r = e.add(xarith.MulfOp(p, x))
    # erf_inv(+-1) = +-inf
    edge = cmp_f(e, "oeq", e.add(math.AbsFOp(x)), one)
    return select(e, edge, e.add(xarith.MulfOp(x, e.scalar(float("inf"), t))), r)


# Lanczos' approximation with g = 7 and nine terms (as XLA's lgamma/digamma).
_LANCZOS_G = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS = (676.520368121885098567009190444019, -1259.13921672240287047156078755283,
            771.3234287776530788486528258894, -176.61502916214059906584551354,
            12.507343278686904814458936853, -0.13857109526572011689554707,
            9.984369578019570859563e-6, 1.50563273514931155834e-7)  # fmt: skip


def _lanczos_parts(e: Emitter, z: SSAValue, t):
    """(a, a', t) for z = x - 1: a = base + sum c_i / (z + i + 1), a' its derivative
    over a's terms, t = z + g + 0.5."""
    a = e.scalar(_LANCZOS_BASE, t)
    da = e.scalar(0.0, t)
    for i, c in enumerate(_LANCZOS):
        denom = e.add(xarith.AddfOp(z, e.scalar(i + 1.0, t)))
        term = e.add(xarith.DivfOp(e.scalar(c, t), denom))
        a = e.add(xarith.AddfOp(a, term))
        da = e.add(xarith.SubfOp(da, e.add(xarith.DivfOp(term, denom))))
    tt = e.add(xarith.AddfOp(z, e.scalar(_LANCZOS_G + 0.5, t)))
    return a, da, tt


def _lgamma(e: Emitter, x: SSAValue, t) -> SSAValue:
    import math as _m

    half = e.scalar(0.5, t)
    one = e.scalar(1.0, t)
    reflect = cmp_f(e, "olt", x, half)
    # For x < 0.5: lgamma(x) = log(pi) - log|sin(pi x)| - lgamma(1 - x).
    y = select(e, reflect, e.add(xarith.SubfOp(one, x)), x)
    z = e.add(xarith.SubfOp(y, one))
    a, _, tt = _lanczos_parts(e, z, t)
    # log(t) as log(g + 0.5) + log1p(z / (g + 0.5)): exact near z = -g - 0.5
    log_t = e.add(xarith.AddfOp(e.scalar(_m.log(_LANCZOS_G + 0.5), t),
                                e.add(math.Log1pOp(e.add(xarith.DivfOp(z, e.scalar(_LANCZOS_G + 0.5, t)))))))
    core = e.add(xarith.AddfOp(
        e.add(xarith.AddfOp(e.scalar(0.5 * _m.log(2 * _m.pi), t),
                            e.add(xarith.MulfOp(e.add(xarith.AddfOp(z, half)), log_t)))),
        e.add(xarith.SubfOp(e.add(math.LogOp(a)), tt))))
    # reflection: |sin(pi x)| from the fraction of x (exact at integers: +inf)
    frac = e.add(xarith.SubfOp(x, e.add(math.FloorOp(x))))
    sin_pi = e.add(math.AbsFOp(e.add(math.SinOp(e.add(xarith.MulfOp(e.scalar(_m.pi, t), frac))))))
    reflected = e.add(xarith.SubfOp(
        e.add(xarith.SubfOp(e.scalar(_m.log(_m.pi), t), e.add(math.LogOp(sin_pi)))), core))
    r = select(e, reflect, reflected, core)
    # lgamma(+-inf) = +inf; non-positive integers: +inf (log|sin| is -inf there)
    inf = e.scalar(float("inf"), t)
    is_inf = cmp_f(e, "oeq", e.add(math.AbsFOp(x)), inf)
    pole = e.add(xarith.AndIOp(reflect, cmp_f(e, "oeq", frac, e.scalar(0.0, t))))
    r = select(e, pole, inf, r)
    return select(e, is_inf, inf, r)


def _digamma(e: Emitter, x: SSAValue, t) -> SSAValue:
    import math as _m

    half = e.scalar(0.5, t)
    one = e.scalar(1.0, t)
    reflect = cmp_f(e, "olt", x, half)
    y = select(e, reflect, e.add(xarith.SubfOp(one, x)), x)
    z = e.add(xarith.SubfOp(y, one))
    a, da, tt = _lanczos_parts(e, z, t)
    log_t = e.add(xarith.AddfOp(e.scalar(_m.log(_LANCZOS_G + 0.5), t),
                                e.add(math.Log1pOp(e.add(xarith.DivfOp(z, e.scalar(_LANCZOS_G + 0.5, t)))))))
    core = e.add(xarith.SubfOp(
        e.add(xarith.AddfOp(log_t, e.add(xarith.DivfOp(da, a)))),
        e.add(xarith.DivfOp(e.scalar(_LANCZOS_G, t), tt))))
    # reflection: digamma(x) = digamma(1 - x) - pi / tan(pi x)
    frac = e.add(xarith.SubfOp(x, e.add(math.FloorOp(x))))
    tan_pi = e.add(math.TanOp(e.add(xarith.MulfOp(e.scalar(_m.pi, t), frac))))
    reflected = e.add(xarith.SubfOp(core, e.add(xarith.DivfOp(e.scalar(_m.pi, t), tan_pi))))
    r = select(e, reflect, reflected, core)
    # poles at non-positive integers: NaN (as XLA); +inf at +inf
    pole = e.add(xarith.AndIOp(cmp_f(e, "ole", x, e.scalar(0.0, t)), cmp_f(e, "oeq", frac, e.scalar(0.0, t))))
    r = select(e, pole, e.scalar(float("nan"), t), r)
    return select(e, cmp_f(e, "oeq", x, e.scalar(float("inf"), t)), x, r)


_SPECIAL = {"chlo.erf_inv": _erf_inv, "chlo.lgamma": _lgamma, "chlo.digamma": _digamma}


def _in_f32_or_f64(e: Emitter, x: SSAValue, elem, name: str, fn) -> SSAValue:
    """``fn`` computed in f32 for 16-bit and smaller floats (rounded once back)."""
    from xdsl.dialects.builtin import f32

    w = int(elem.bitwidth)
    if w in (32, 64):
        return fn(e, x, elem)
    if w > 64:
        raise e.error(f"'{name}' of {elem} is not supported")
    wide = fn(e, e.add(xarith.ExtFOp(x, f32)), f32)
    return e.add(xarith.TruncFOp(wide, elem))
