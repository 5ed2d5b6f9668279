"""arith and math against references written from MLIR's documents.

The reference (``arith_oracle``) computes every op from its definition in
MLIR's ``arith``/``math`` documents with Python integers and exact fractions,
sharing no code with the lowering, the folder or the kernels.  Each op is
compiled and run on every path a value can take through the compiler:

* ``s``: scalars, arguments at run time (``tfrt_scalar.eval``);
* ``t``: tensors at run time (``tfrt_array.elementwise``);
* ``f``: tensor constants, folded at compile time (``fold-constants``);
* ``z``: scalar constants, folded (``canonicalize``'s folders, then ``fold-constants``);
* ``m``: the first operand a constant, the rest arguments: the constant
  becomes a literal of the fused expression (scalars and splat tensors);
* ``u``: operands computed by another op first (``arith.select``), so
  ``fuse-elementwise`` merges them into one expression;
* ``e``/``d``: an empty and a 0-d tensor.

Every path must give the reference's value (bit for bit for the ops IEEE
754 and MLIR define exactly; within a stated number of ulps for the
transcendental functions); a result MLIR leaves undefined (poison) is not
compared.  Types: i1, i8..i64 and index (read signed and unsigned as each
op says), f16, bf16, f32, f64, with their edge values (+-0, NaN, +-inf,
subnormals, the extremes, INT_MIN/INT_MAX, shift amounts at and past the
width).

``test_every_op_on_edge_values`` runs every op on all pairs of edge values
(one module per type); ``test_random_programs`` draws ops, types and values
with hypothesis (bounded here; ``pytest -m slow`` runs many more, see
docs/compiler.md); the ``test_audit_*`` cases are the wrong answers found
before (../shared/notes/arith-math-audit.md), each against its value from
the documents.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import arith_oracle as ref
import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tfrt.api

INTS = ["i1", "i8", "i16", "i32", "i64", "index"]
FLOATS = ["f16", "bf16", "f32", "f64"]
NP = {
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64,
    "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
}  # fmt: skip
HEX_DIGITS = {"f16": 4, "bf16": 4, "f32": 8, "f64": 16}


# ---------------------------------------------------------------------------
# Ops: how each is written and what the reference says


@dataclass(frozen=True)
class Op:
    name: str
    operands: tuple[str, ...]  # element types
    result: str
    text: str  # the op, with {0} {1} {2} for the operands and {T} ... for types
    reference: Callable[..., Any]
    check: str = "exact"  # "exact", "num" (either zero on +-0), or "ulps:<n>"

    def line(self, args: list[str], types: list[str]) -> str:
        text = self.text
        if self.name == "arith.select" and types[0] != "i1":  # a condition of i1 elements
            text = text.replace("{I}", "{T}, {I}")
        return text.format(
            *args, T=types[0], R=types[-1], I=types[1] if len(types) > 2 else types[0]
        )

    @property
    def key(self) -> str:
        return f"{self.name}:{','.join(self.operands)}->{self.result}"


INT_BINARY = [
    "arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
    "arith.ceildivsi", "arith.ceildivui", "arith.floordivsi", "arith.maxsi", "arith.minsi", "arith.maxui",
    "arith.minui", "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrsi", "arith.shrui",
    "math.ipowi",
]  # fmt: skip
CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une",
        "uno", "true"]  # fmt: skip
INT_UNARY = ["math.absi", "math.ctpop", "math.ctlz", "math.cttz"]
FLOAT_BINARY = {
    "arith.addf": ref.fadd, "arith.subf": ref.fsub, "arith.mulf": ref.fmul, "arith.divf": ref.fdiv,
    "arith.remf": ref.frem, "arith.maximumf": ref.fmaximum, "arith.minimumf": ref.fminimum,
    "arith.maxnumf": ref.fmaxnum, "arith.minnumf": ref.fminnum, "math.copysign": ref.fcopysign,
}  # fmt: skip
FLOAT_UNARY = {
    "arith.negf": ref.fneg, "math.absf": ref.fabs, "math.ceil": ref.fceil, "math.floor": ref.ffloor,
    "math.round": ref.fround, "math.roundeven": ref.froundeven, "math.trunc": ref.ftrunc,
}  # fmt: skip
# Ulps allowed beyond the correctly rounded value, per type (MLIR does not
# ask these to be correctly rounded; numpy's f32 functions are within a few).
TRANSCENDENTAL_ULPS = {"f16": 1, "bf16": 1, "f32": 4, "f64": 2}
MATH_IS_EXACT = {"math.sqrt"}


def _int_binary(name: str, t: str) -> Op:
    return Op(name, (t, t), t, name + " {0}, {1} : {T}", lambda a, b: ref.int_binary(name, t, a, b))


def _math_int_ok(t: str) -> bool:
    return t != "index"  # math's integer ops take signless integers, not index


def ops_for(t: str) -> list[Op]:
    """Every op whose first operand has element type ``t``."""
    out: list[Op] = []
    if t in INTS:
        for name in INT_BINARY:
            if name.startswith("math.") and not _math_int_ok(t):
                continue
            out.append(_int_binary(name, t))
        for p in CMPI:
            out.append(Op(f"arith.cmpi {p}", (t, t), "i1", f"arith.cmpi {p}, {{0}}, {{1}} : {{T}}",
                          lambda a, b, p=p: int(ref.cmpi(p, t, a, b))))  # fmt: skip
        if _math_int_ok(t):
            for name in INT_UNARY:
                out.append(
                    Op(
                        name,
                        (t,),
                        t,
                        name + " {0} : {T}",
                        lambda a, name=name: ref.int_unary(name, t, a),
                    )
                )
        for dst in INTS:
            out.extend(_int_casts(t, dst))
        for dst in FLOATS:
            if t != "index":
                for name in ("arith.sitofp", "arith.uitofp"):
                    out.append(Op(name, (t,), dst, name + " {0} : {T} to {R}",
                                  lambda a, name=name, dst=dst: ref.cast(name, t, dst, a)))  # fmt: skip
        bits = (
            {16: ["f16", "bf16"], 32: ["f32"], 64: ["f64"]}.get(ref.WIDTHS[t], [])
            if t != "index"
            else []
        )
        for dst in bits:
            out.append(Op("arith.bitcast", (t,), dst, "arith.bitcast {0} : {T} to {R}",
                          lambda a, dst=dst: ref.bits_float(dst, a)))  # fmt: skip
    else:
        for name, fn in FLOAT_BINARY.items():
            check = "num" if name in ("arith.maxnumf", "arith.minnumf") else "exact"
            out.append(
                Op(
                    name,
                    (t, t),
                    t,
                    name + " {0}, {1} : {T}",
                    lambda a, b, fn=fn: fn(t, a, b),
                    check,
                )
            )
        for p in CMPF:
            out.append(Op(f"arith.cmpf {p}", (t, t), "i1", f"arith.cmpf {p}, {{0}}, {{1}} : {{T}}",
                          lambda a, b, p=p: int(ref.fcmp(p, a, b))))  # fmt: skip
        for name, fn in FLOAT_UNARY.items():
            out.append(Op(name, (t,), t, name + " {0} : {T}", lambda a, fn=fn: fn(t, a)))
        for name, fn in ref.TRANSCENDENTAL.items():
            if (
                name in MATH_IS_EXACT
            ):  # correctly rounded in f64, then to t: rounded once (p64 >= 2p + 2)
                out.append(
                    Op(
                        name,
                        (t,),
                        t,
                        name + " {0} : {T}",
                        lambda a, fn=fn: ref.rounded(t, fn(t, a)),
                    )
                )
                continue
            check = f"ulps:{TRANSCENDENTAL_ULPS[t]}"
            out.append(Op(name, (t,), t, name + " {0} : {T}", lambda a, fn=fn: fn(t, a), check))
        out.append(Op("math.atan2", (t, t), t, "math.atan2 {0}, {1} : {T}", lambda a, b: ref.fatan2(t, a, b),
                      f"ulps:{TRANSCENDENTAL_ULPS[t]}"))  # fmt: skip
        out.append(Op("math.powf", (t, t), t, "math.powf {0}, {1} : {T}", lambda a, b: ref.fpowf(t, a, b),
                      f"ulps:{TRANSCENDENTAL_ULPS[t]}"))  # fmt: skip
        out.append(Op("math.fma", (t, t, t), t, "math.fma {0}, {1}, {2} : {T}",
                      lambda a, b, c: ref.ffma(t, a, b, c)))  # fmt: skip
        for dst in FLOATS:
            p_src, p_dst = ref.FLOATS[t][0], ref.FLOATS[dst][0]
            wider = _float_width(dst) > _float_width(t)
            narrower = _float_width(dst) < _float_width(t)
            if wider and p_dst >= p_src:
                out.append(Op("arith.extf", (t,), dst, "arith.extf {0} : {T} to {R}",
                              lambda a, dst=dst: ref.cast("arith.extf", t, dst, a)))  # fmt: skip
            if narrower:
                out.append(Op("arith.truncf", (t,), dst, "arith.truncf {0} : {T} to {R}",
                              lambda a, dst=dst: ref.cast("arith.truncf", t, dst, a)))  # fmt: skip
        for dst in INTS:
            if dst != "index":
                for name in ("arith.fptosi", "arith.fptoui"):
                    out.append(Op(name, (t,), dst, name + " {0} : {T} to {R}",
                                  lambda a, name=name, dst=dst: ref.cast(name, t, dst, a)))  # fmt: skip
        ibits = {16: "i16", 32: "i32", 64: "i64"}[_float_width(t)]
        out.append(
            Op(
                "arith.bitcast",
                (t,),
                ibits,
                "arith.bitcast {0} : {T} to {R}",
                lambda a: ref.float_bits(t, a) if not math.isnan(a) else ref.POISON,
            )
        )  # NaN payloads aside
        out.append(
            Op(
                "math.fpowi",
                (t, "i32"),
                t,
                "math.fpowi {0}, {1} : {T}, {I}",
                lambda a, b: ref.fpowf(t, a, float(ref.signed("i32", b))),
                f"ulps:{TRANSCENDENTAL_ULPS[t]}",
            )
        )
    out.append(Op("arith.select", ("i1", t, t), t, "arith.select {0}, {1}, {2} : {I}",
                  lambda c, a, b: a if c else b))  # fmt: skip
    return out


def _float_width(t: str) -> int:
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[t]


def _int_casts(src: str, dst: str) -> list[Op]:
    ws, wd = ref.WIDTHS[src], ref.WIDTHS[dst]
    out = []
    if "index" in (src, dst):
        if src != dst:
            for name in ("arith.index_cast", "arith.index_castui"):
                out.append(Op(name, (src,), dst, name + " {0} : {T} to {R}",
                              lambda a, name=name: ref.cast(name, src, dst, a)))  # fmt: skip
        return out
    if wd > ws:
        for name in ("arith.extsi", "arith.extui"):
            out.append(Op(name, (src,), dst, name + " {0} : {T} to {R}",
                          lambda a, name=name: ref.cast(name, src, dst, a)))  # fmt: skip
    if wd < ws:
        out.append(Op("arith.trunci", (src,), dst, "arith.trunci {0} : {T} to {R}",
                      lambda a: ref.cast("arith.trunci", src, dst, a)))  # fmt: skip
    return out


# ---------------------------------------------------------------------------
# Values


def edge_values(t: str) -> list:
    """The edge values of ``t``: bit patterns for integers, floats for floats."""
    if t in INTS:
        w = ref.WIDTHS[t]
        if w == 1:
            return [0, 1]
        m = ref.mask(t)
        vals = {0, 1, 2, 3, m, m - 1, 1 << (w - 1), (1 << (w - 1)) - 1, (1 << (w - 1)) + 1, w - 1, w, w + 1,
                0x55555555_55555555 & m, 7}  # fmt: skip
        return sorted(v & m for v in vals)
    p, emin, _ = ref.FLOATS[t]
    tiny = 2.0 ** (emin - p + 1)  # the smallest subnormal
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 3.0, math.nan, math.inf, -math.inf, tiny, -tiny,
            2.0**emin - tiny, 2.0**emin, float(ref.max_finite(t)), -float(ref.max_finite(t)),
            0.5 - 2.0 ** -(p + 1), 2.0 ** (p - 1) + 1, -(2.0 ** (p - 1) + 1) if p < 53 else -(2.0**52 + 1),
            1 + 2.0 ** (1 - p), 0.1, -7.75, 1e-3, 100.0]  # fmt: skip
    return [
        ref.round_to(t, Fraction(v)) if not math.isnan(v) and not math.isinf(v) else v for v in vals
    ]


def random_value(rng: random.Random, t: str):
    if t in INTS:
        w = ref.WIDTHS[t]
        choice = rng.random()
        if choice < 0.3:
            return rng.choice(edge_values(t))
        if choice < 0.6:
            return rng.getrandbits(w) & ref.mask(t) if w > 1 else rng.getrandbits(1)
        return rng.randint(-8, 8) & ref.mask(t)
    choice = rng.random()
    if choice < 0.35:
        return rng.choice(edge_values(t))
    if choice < 0.6:
        bits = rng.getrandbits(_float_width(t))
        x = ref.bits_float(t, bits)
        return math.nan if math.isnan(x) else x
    return ref.round_to(t, Fraction(rng.uniform(-10, 10)))


def literal(t: str, v) -> str:
    if t == "i1":
        return "true" if v else "false"
    if t in INTS:
        return str(ref.signed(t, v))
    return f"0x{ref.float_bits(t, v):0{HEX_DIGITS[t]}X}"


def py_value(t: str, v):
    """A value of type ``t`` as the API takes it."""
    if t == "i1":
        return bool(v)
    if t in INTS:
        return ref.signed(t, v)
    return NP[t](v)


def array(t: str, vals: list) -> np.ndarray:
    if t == "i1":
        return np.array([bool(v) for v in vals], np.bool_)
    if t in INTS:
        return np.array([ref.signed(t, v) for v in vals], NP[t])
    return np.array(vals, dtype=np.float64).astype(NP[t])


def from_result(t: str, v):
    """A result element as the reference writes it (a bit pattern or a float)."""
    if t in INTS:
        return int(v) & ref.mask(t)
    return float(v)


# ---------------------------------------------------------------------------
# Programs: one function per path


def ttype(t: str, shape: str) -> str:
    return f"tensor<{shape}{t}>"


def dense(t: str, vals: list) -> str:
    return "dense<[" + ", ".join(literal(t, v) for v in vals) + "]>"


def functions(
    op: Op, prefix: str, samples: list[tuple], scalar_constants: list[tuple], shapes: bool = True
) -> str:
    """The functions computing ``op`` on every path; ``samples`` are operand
    tuples for the tensor paths, ``scalar_constants`` for the folded scalar
    ones; ``shapes``: the empty, 0-d and splat-constant paths too."""
    ts = list(op.operands)
    n = len(samples)
    lines: list[str] = []
    args = [f"%a{i}" for i in range(len(ts))]

    def fn(name: str, params: list[tuple[str, str]], body: list[str], shape: str | None) -> None:
        shaped = [t if shape is None else ttype(t, shape) for t in [*ts, op.result]]
        sig = ", ".join(f"{p}: {ty}" for p, ty in params)
        lines.append(f"func.func @{prefix}_{name}({sig}) -> {shaped[-1]} {{")
        lines.extend("  " + b for b in body)
        lines.append("  %r = " + op.line(args, shaped))
        lines.append(f"  return %r : {shaped[-1]}")
        lines.append("}")

    full = f"{n}x"
    fn("s", list(zip(args, ts)), [], None)
    for shape, name in ((full, "t"), ("0x", "e"), ("", "d")) if shapes else ((full, "t"),):
        fn(name, [(a, ttype(t, shape)) for a, t in zip(args, ts)], [], shape)
    # Folded tensors.
    consts = [f"%a{i} = arith.constant {dense(t, [s[i] for s in samples])} : {ttype(t, full)}"
              for i, t in enumerate(ts)]  # fmt: skip
    fn("f", [], consts, full)
    # Fused: each operand is selected first (%c is true).
    params = (
        [("%c", "i1")]
        + [(f"%p{i}", ttype(t, full)) for i, t in enumerate(ts)]
        + [(f"%q{i}", ttype(t, full)) for i, t in enumerate(ts)]
    )
    body = [f"%a{i} = arith.select %c, %p{i}, %q{i} : {ttype(t, full)}" for i, t in enumerate(ts)]
    fn("u", params, body, full)
    # The first operand a splat constant (a literal once fused).
    if len(ts) > 1 and shapes:
        splat = (
            f"%a0 = arith.constant dense<{literal(ts[0], samples[0][0])}> : {ttype(ts[0], full)}"
        )
        fn("w", [(a, ttype(t, full)) for a, t in list(zip(args, ts))[1:]], [splat], full)
    for k, sample in enumerate(scalar_constants):
        consts = [_scalar_constant(i, t, sample[i]) for i, t in enumerate(ts)]
        fn(f"z{k}", [], consts, None)
        if len(ts) > 1:
            fn(f"m{k}", list(zip(args, ts))[1:], consts[:1], None)
    return "\n".join(lines) + "\n"


def _scalar_constant(i: int, t: str, v) -> str:
    if t == "i1":
        return f"%a{i} = arith.constant {literal(t, v)}"
    return f"%a{i} = arith.constant {literal(t, v)} : {t}"


# ---------------------------------------------------------------------------
# Comparing


def agrees(op: Op, t: str, got, want) -> bool:
    if want is ref.POISON:
        return True
    if t in INTS:
        return got == want
    if math.isnan(want):
        return math.isnan(got)
    if math.isnan(got):
        return False
    if op.check == "num" and want == 0 and got == 0:
        return True
    if op.check.startswith("ulps:") and not math.isinf(want):
        wanted = ref.round_to(t, Fraction(want)) if want != 0 else want
        if math.isinf(wanted):  # rounds past the largest finite value
            return got == wanted or abs(got) == float(ref.max_finite(t))
        n = int(op.check[5:])
        return abs(Fraction(got) - Fraction(want)) <= (n + Fraction(1, 2)) * Fraction(
            ref.ulp(t, wanted)
        )
    return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


def expect(op: Op, sample: tuple):
    try:
        return op.reference(*sample)
    except (OverflowError, ZeroDivisionError):  # pragma: no cover - the references catch these
        return ref.POISON


def run_case(
    prog,
    op: Op,
    prefix: str,
    samples: list[tuple],
    scalar_constants: list[tuple],
    scalar_calls: int = 10**9,
    shapes: bool = True,
) -> list[str]:
    """Run every path (the scalar function on the first ``scalar_calls``
    samples); the disagreements, described."""
    ts, r = list(op.operands), op.result
    bad: list[str] = []
    wanted: dict[tuple, Any] = {}

    def compare(path: str, sample: tuple, got) -> None:
        key = tuple(ref.float_bits(t, v) if t in ref.FLOATS else v for t, v in zip(ts, sample))
        if key not in wanted:
            wanted[key] = expect(op, sample)
        want = wanted[key]
        value = from_result(r, got)
        if not agrees(op, r, value, want):
            shown = [literal(t, v) for t, v in zip(ts, sample)]
            bad.append(f"{op.key} [{path}] ({', '.join(shown)}): got {value!r}, want {want!r}")

    for sample in samples[:scalar_calls]:
        compare(
            "s", sample, prog.call(f"{prefix}_s", *[py_value(t, v) for t, v in zip(ts, sample)])
        )
    arrays = [array(t, [s[i] for s in samples]) for i, t in enumerate(ts)]
    for path, result in (
        ("t", prog.call(f"{prefix}_t", *arrays)),
        ("f", prog.call(f"{prefix}_f")),
        ("u", prog.call(f"{prefix}_u", True, *arrays, *[np.zeros_like(a) for a in arrays])),
    ):
        assert result.shape == (len(samples),), (op.key, path, result.shape)
        for sample, got in zip(
            samples, result.tolist() if r in INTS else result.astype(np.float64)
        ):
            compare(path, sample, got)
    if len(ts) > 1 and shapes:
        result = prog.call(f"{prefix}_w", *arrays[1:])
        for sample, got in zip(
            samples, result.tolist() if r in INTS else result.astype(np.float64)
        ):
            compare("w", (samples[0][0],) + sample[1:], got)
    if shapes:
        empty = prog.call(f"{prefix}_e", *[a[:0] for a in arrays])
        assert empty.shape == (0,) and empty.dtype == NP[r], (op.key, empty)
        zero_d = prog.call(f"{prefix}_d", *[np.array(a[0]) for a in arrays])
        assert zero_d.shape == (), (op.key, zero_d)
        compare("d", samples[0], zero_d[()])
    for k, sample in enumerate(scalar_constants):
        compare("z", sample, prog.call(f"{prefix}_z{k}"))
        if len(ts) > 1:
            compare(
                "m",
                sample,
                prog.call(f"{prefix}_m{k}", *[py_value(t, v) for t, v in zip(ts[1:], sample[1:])]),
            )
    return bad


def operand_samples(op: Op, rng: random.Random, limit: int) -> list[tuple]:
    """All combinations of edge values (up to ``limit``, the rest drawn)."""
    pools = [edge_values(t) for t in op.operands]
    if op.name == "arith.select":
        pools = [[0, 1], pools[1][:8], pools[2][-8:]]
    total = math.prod(len(p) for p in pools)
    if total <= limit:
        combos: list[tuple] = [()]
        for p in pools:
            combos = [c + (v,) for c in combos for v in p]
        return combos
    return [tuple(rng.choice(p) for p in pools) for _ in range(limit)]


# ---------------------------------------------------------------------------
# Every op on edge values, one module per type


# Operand tuples per op: all pairs of edge values where there are no more,
# else a draw of them.
EDGE_SAMPLES = 96


@pytest.mark.parametrize("t", INTS + FLOATS)
def test_every_op_on_edge_values(t):
    rng = random.Random(f"edges-{t}")
    ops = ops_for(t)
    cases = []
    text = []
    for i, op in enumerate(ops):
        samples = operand_samples(op, rng, EDGE_SAMPLES)
        scalar_constants = rng.sample(samples, 1)
        cases.append((op, f"o{i}", samples, scalar_constants))
        text.append(functions(op, f"o{i}", samples, scalar_constants, shapes=False))
    prog = tfrt.api.load("".join(text))
    try:
        bad = [b for op, prefix, samples, consts in cases
               for b in run_case(prog, op, prefix, samples, consts, 16, shapes=False)]  # fmt: skip
    finally:
        prog.close()
    assert not bad, f"{len(bad)} wrong answers, e.g.:\n" + "\n".join(bad[:25])


# ---------------------------------------------------------------------------
# Random programs (hypothesis)


def _all_ops() -> list[Op]:
    return [op for t in INTS + FLOATS for op in ops_for(t)]


_OPS = _all_ops()


@st.composite
def random_cases(draw):
    op = draw(st.sampled_from(_OPS))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    n = draw(st.integers(1, 6))
    samples = [tuple(random_value(rng, t) for t in op.operands) for _ in range(n)]
    return op, samples


def _check_random(case) -> None:
    op, samples = case
    prog = tfrt.api.load(functions(op, "r", samples, samples[:2]))
    try:
        bad = run_case(prog, op, "r", samples, samples[:2])
    finally:
        prog.close()
    assert not bad, "\n".join(bad[:10])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_cases())
def test_random_programs(case):
    _check_random(case)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_cases())
def test_random_programs_many(case):
    _check_random(case)


# ---------------------------------------------------------------------------
# The wrong answers of the audit (../shared/notes/arith-math-audit.md), each
# with its value from MLIR's documents, on every path.


def _path_functions(k: int, op_text: str, types: list[str], result: str, values: list) -> str:
    """``%r = op_text`` (operands %a0...) with ``values`` as arguments (rt),
    as constants (fold), the first as a constant (mixed), and each operand
    selected at run time first (fused)."""

    def const(i: int, t: str, v) -> str:
        lit = (
            ("true" if v else "false") if t == "i1" else (literal(t, v) if t in FLOATS else str(v))
        )
        return f"  %a{i} = arith.constant {lit}" + ("" if t == "i1" else f" : {t}")

    def func(name: str, params: list[str], body: str) -> str:
        return (f"func.func @{name}{k}({', '.join(params)}) -> {result} {{\n{body}"
                f"  %r = {op_text}\n  return %r : {result}\n}}\n")  # fmt: skip

    typed = [f"%a{i}: {t}" for i, t in enumerate(types)]
    text = func("rt", typed, "")
    text += func(
        "fold", [], "".join(const(i, t, v) + "\n" for i, (t, v) in enumerate(zip(types, values)))
    )
    if len(types) > 1:
        text += func("mixed", typed[1:], const(0, types[0], values[0]) + "\n")
    sel = "".join(f"  %a{i} = arith.select %c, %p{i}, %q{i} : {t}\n" for i, t in enumerate(types))
    text += func(
        "fused", ["%c: i1"] + [f"%p{i}: {t}, %q{i}: {t}" for i, t in enumerate(types)], sel
    )
    return text


def _run_paths(prog, k: int, types: list[str], values: list) -> dict[str, Any]:
    args = [NP[t](v) if t in FLOATS else v for t, v in zip(types, values)]
    out = {"rt": prog.call(f"rt{k}", *args), "fold": prog.call(f"fold{k}")}
    if len(types) > 1:
        out["mixed"] = prog.call(f"mixed{k}", *args[1:])
    out["fused"] = prog.call(f"fused{k}", True, *[x for a in args for x in (a, a)])
    return out


def _same(got, want) -> bool:
    got = float(got) if not isinstance(want, (bool, int)) else got
    if isinstance(want, float):
        return (math.isnan(got) and math.isnan(want)) or (
            got == want and math.copysign(1, got) == math.copysign(1, want)
        )
    return got == want and type(want)(got) == want


AUDIT = [
    # 1. maximumf/minimumf: -0.0 < +0.0.
    ("arith.maximumf %a0, %a1 : f32", ["f32", "f32"], "f32", [0.0, -0.0], 0.0),
    ("arith.maximumf %a0, %a1 : f32", ["f32", "f32"], "f32", [-0.0, 0.0], 0.0),
    ("arith.minimumf %a0, %a1 : f32", ["f32", "f32"], "f32", [0.0, -0.0], -0.0),
    ("arith.minimumf %a0, %a1 : f64", ["f64", "f64"], "f64", [-0.0, 0.0], -0.0),
    ("arith.maximumf %a0, %a1 : f16", ["f16", "f16"], "f16", [0.0, -0.0], 0.0),
    # 2. math.round rounds once.
    ("math.round %a0 : f32", ["f32"], "f32", [float(np.float32(0.49999997))], 0.0),
    ("math.round %a0 : f32", ["f32"], "f32", [8388609.0], 8388609.0),
    ("math.round %a0 : f16", ["f16"], "f16", [1025.0], 1025.0),
    ("math.round %a0 : f64", ["f64"], "f64", [2.0**52 + 1], 2.0**52 + 1),
    ("math.round %a0 : f32", ["f32"], "f32", [-2.5], -3.0),
    # 3. erf near zero (2x/sqrt(pi), rounded).
    ("math.erf %a0 : f32", ["f32"], "f32", [0.0], 0.0),
    ("math.erf %a0 : f32", ["f32"], "f32", [float(np.float32(1e-6))], float(np.float32(2 / math.sqrt(math.pi) * float(np.float32(1e-6))))),
    # 4. fma rounds once: a*b - fl(a*b) is the rounding error, 2^-24.
    ("math.fma %a0, %a1, %a2 : f32", ["f32"] * 3, "f32",
     [1 + 2.0**-12, 1 + 2.0**-12, -float(np.float32((1 + 2.0**-12) ** 2))], 2.0**-24),
    # 5. fptoui is unsigned.
    ("arith.fptoui %a0 : f32 to i32", ["f32"], "i32", [3e9], 3000000000 - 2**32),
    ("arith.fptoui %a0 : f64 to i64", ["f64"], "i64", [1e19], 10**19 - 2**64),
    # 6. fptosi/fptoui to i1 truncate first.
    ("arith.fptosi %a0 : f32 to i1", ["f32"], "i1", [0.5], False),
    ("arith.fptoui %a0 : f32 to i1", ["f32"], "i1", [0.5], False),
    ("arith.fptosi %a0 : f32 to i1", ["f32"], "i1", [-1.0], True),
    # 7. trunci and index_cast to i1 keep the low bit.
    ("arith.trunci %a0 : i32 to i1", ["i32"], "i1", [2], False),
    ("arith.trunci %a0 : i32 to i1", ["i32"], "i1", [3], True),
    ("arith.index_cast %a0 : index to i1", ["index"], "i1", [2], False),
    # 8, 9. A signed i1 true is -1.
    ("arith.sitofp %a0 : i1 to f32", ["i1"], "f32", [True], -1.0),
    ("arith.index_cast %a0 : i1 to index", ["i1"], "index", [True], -1),
    ("arith.uitofp %a0 : i1 to f32", ["i1"], "f32", [True], 1.0),
    # 10. Signed i1 compares and extremes: true (-1) < false (0).
    ("arith.cmpi slt, %a0, %a1 : i1", ["i1", "i1"], "i1", [True, False], True),
    ("arith.cmpi sgt, %a0, %a1 : i1", ["i1", "i1"], "i1", [True, False], False),
    ("arith.cmpi ult, %a0, %a1 : i1", ["i1", "i1"], "i1", [True, False], False),
    ("arith.maxsi %a0, %a1 : i1", ["i1", "i1"], "i1", [True, False], False),
    ("arith.minsi %a0, %a1 : i1", ["i1", "i1"], "i1", [True, False], True),
    ("arith.maxui %a0, %a1 : i1", ["i1", "i1"], "i1", [True, False], True),
    # 11 and the disagreeing paths: i1 adds and subtracts modulo 2.
    ("arith.addi %a0, %a1 : i1", ["i1", "i1"], "i1", [True, True], False),
    ("arith.subi %a0, %a1 : i1", ["i1", "i1"], "i1", [False, True], True),
    ("arith.cmpf false, %a0, %a1 : f32", ["f32", "f32"], "i1", [1.0, 2.0], False),
    ("arith.cmpf true, %a0, %a1 : f32", ["f32", "f32"], "i1", [1.0, 2.0], True),
    ("arith.addf %a0, %a1 : f32", ["f32", "f32"], "f32", [math.nan, 2.0], math.nan),
    ("arith.mulf %a0, %a1 : f64", ["f64", "f64"], "f64", [-math.inf, 2.0], -math.inf),
    ("arith.cmpf olt, %a0, %a1 : f32", ["f32", "f32"], "i1", [-math.inf, 2.0], True),
    # Refused before: ipowi with a negative exponent, ctlz/cttz.
    ("math.ipowi %a0, %a1 : i32", ["i32", "i32"], "i32", [2, -1], 0),
    ("math.ipowi %a0, %a1 : i32", ["i32", "i32"], "i32", [-1, -3], -1),
    ("math.ipowi %a0, %a1 : i32", ["i32", "i32"], "i32", [1, -5], 1),
    ("math.ctlz %a0 : i32", ["i32"], "i32", [2], 30),
    ("math.cttz %a0 : i32", ["i32"], "i32", [0], 32),
    ("math.cttz %a0 : i64", ["i64"], "i64", [-(2**63)], 63),
    # Found by the differential tests below: fpowi's exponent is an integer.
    ("math.fpowi %a0, %a1 : f32, i32", ["f32", "i32"], "f32", [-1.0, 2**31 - 1], -1.0),
    ("math.fpowi %a0, %a1 : f16, i32", ["f16", "i32"], "f16", [-2.0, 65537], -math.inf),
    ("math.powf %a0, %a1 : f32", ["f32", "f32"], "f32", [-math.inf, 0.5], math.inf),
    ("math.powf %a0, %a1 : f64", ["f64", "f64"], "f64", [-0.0, 0.5], 0.0),
    ("arith.ceildivui %a0, %a1 : i1", ["i1", "i1"], "i1", [True, True], True),
]  # fmt: skip


@pytest.fixture(scope="module")
def audit_program():
    prog = tfrt.api.load("".join(_path_functions(k, *case[:4]) for k, case in enumerate(AUDIT)))
    yield prog
    prog.close()


@pytest.mark.parametrize(
    "k", range(len(AUDIT)), ids=[f"{a[0].split()[0]}-{i}" for i, a in enumerate(AUDIT)]
)
def test_audit_cases_on_every_path(audit_program, k):
    op_text, types, _, values, want = AUDIT[k]
    got = _run_paths(audit_program, k, types, values)
    wrong = {path: v for path, v in got.items() if not _same(v, want)}
    assert not wrong, f"{op_text} on {values}: want {want!r}, got {wrong}"


def test_audit_hex_float_elements_are_bit_patterns():
    """A hexadecimal element of a float dense literal is its bit pattern (12)."""
    text = """
func.func @f() -> tensor<2xf32> {
  %c = arith.constant dense<0x7F800000> : tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @g() -> tensor<3xf32> {
  %c = arith.constant dense<[0x7FC00000, 0xFF800000, 1.5]> : tensor<3xf32>
  return %c : tensor<3xf32>
}
func.func @h() -> tensor<2xf64> {
  %c = arith.constant dense<[0x7FF0000000000000, 0x8000000000000000]> : tensor<2xf64>
  return %c : tensor<2xf64>
}
func.func @k(%x: tensor<2xf16>) -> tensor<2xf16> {
  %c = arith.constant dense<[0x7C00, 0x8001]> : tensor<2xf16>
  %r = arith.addf %x, %c : tensor<2xf16>
  return %r : tensor<2xf16>
}
"""
    prog = tfrt.api.load(text)
    try:
        assert prog.call("f").view(np.uint32).tolist() == [0x7F800000] * 2
        g = prog.call("g")
        assert g.view(np.uint32)[:2].tolist() == [0x7FC00000, 0xFF800000] and g[2] == 1.5
        assert prog.call("h").view(np.uint64).tolist() == [0x7FF0000000000000, 0x8000000000000000]
        k = prog.call("k", np.zeros(2, np.float16))
        assert k.view(np.uint16).tolist() == [0x7C00, 0x8001]
    finally:
        prog.close()


@pytest.mark.parametrize(
    "form", ["cmpi", "cmpf", "extsi", "trunci", "sitofp", "uitofp", "fptosi", "fptoui", "select"]
)
def test_audit_tensor_forms(form):
    """The tensor forms the verifier refused (or the parser, for a select of i1 elements)."""
    x = np.array([1.5, -2.5, 3e9, 0.5], np.float32)
    i = np.array([3, -4, 300, 0], np.int32)
    T4 = "tensor<4x{}>".format
    body, args, want = {
        "cmpi": (f"arith.cmpi slt, %x, %y : {T4('i32')}", [i, i[::-1].copy()], [False, True, False, True]),
        "cmpf": (f"arith.cmpf olt, %x, %y : {T4('f32')}", [x, x[::-1].copy()], [False, True, False, True]),
        "extsi": (f"arith.extsi %x : {T4('i32')} to {T4('i64')}", [i], [3, -4, 300, 0]),
        "trunci": (f"arith.trunci %x : {T4('i32')} to {T4('i8')}", [i], [3, -4, 44, 0]),
        "sitofp": (f"arith.sitofp %x : {T4('i32')} to {T4('f32')}", [i], [3.0, -4.0, 300.0, 0.0]),
        "uitofp": (f"arith.uitofp %x : {T4('i32')} to {T4('f64')}", [i], [3.0, 2.0**32 - 4, 300.0, 0.0]),
        "fptosi": (f"arith.fptosi %x : {T4('f32')} to {T4('i64')}", [x], [1, -2, 3000000000, 0]),
        "fptoui": (f"arith.fptoui %x : {T4('f32')} to {T4('i32')}", [np.abs(x)], [1, 2, 3000000000 - 2**32, 0]),
        "select": (f"arith.select %m, %x, %y : {T4('i1')}, {T4('f32')}",
                   [np.array([True, False, True, False]), x, -x], [1.5, 2.5, 3e9, -0.5]),
    }[form]  # fmt: skip
    names = ["%m", "%x", "%y"] if form == "select" else ["%x", "%y"]
    types = [f"tensor<4x{a.dtype.name.replace('float', 'f').replace('int', 'i').replace('bool', 'i1')}>"
             for a in args]  # fmt: skip
    result = (
        body.rsplit(" ", 1)[1]
        if " to " in body
        else (T4("i1") if form.startswith("cmp") else T4("f32"))
    )
    params = ", ".join(f"{n}: {t}" for n, t in zip(names, types))
    text = f"func.func @f({params}) -> {result} {{\n  %r = {body}\n  return %r : {result}\n}}\n"
    prog = tfrt.api.load(text)
    try:
        got = prog.call("f", *args)
    finally:
        prog.close()
    np.testing.assert_array_equal(got, np.array(want, dtype=got.dtype))


def test_truncf_with_another_rounding_mode_is_refused_at_the_op():
    """The kernels round to nearest even; truncf 0.1 downward must not give
    the nearest f32 (which is above 0.1): a located error instead."""
    from tfrt.diagnostics import DiagnosticError

    text = "func.func @f(%x: f64) -> f32 {\n  %r = arith.truncf %x downward : f64 to f32\n  return %r : f32\n}\n"
    with pytest.raises(DiagnosticError) as err:
        tfrt.api.load(text)
    assert err.value.render().startswith(
        "-:2:3: error: 'arith.truncf' op cannot be lowered: only the rounding mode tonearesteven is supported"
    )
