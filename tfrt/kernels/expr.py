"""The elementwise expression language of ``tfrt_array.elementwise`` and ``tfrt_scalar.eval``.

An expression is a Python-syntax formula over the operands ``a0, a1, ...``::

    maximum(a0 + a1, 0.0)            where(lt(a0, 0), -a0, a0)          cast_f32(a1) * a0

Operators ``+ - * /`` and unary ``-``; ``/`` on integers truncates toward zero
(``arith.divsi``).  Literals take the type of what they meet (``a0 + 1.0`` on
f32 is f32).  Functions (``FUNCTIONS``): math on floats (``exp log tanh erf
...``), ``maximum minimum`` (NaN-propagating, ``arith.maximumf``), ``fmax
fmin`` (NaN-ignoring), integer ``floordiv ceildiv rem`` and unsigned ``udiv
urem``, bitwise ``bitand bitor bitxor bitnot shl shrs shru``, comparisons
``lt le gt ge eq ne`` (and unsigned ``ult ule ugt uge``; floats ``ord uno``)
giving i1, ``where(c, x, y)``, casts ``cast_<t>`` (numpy's astype: floats to
integers truncate, integers wrap) and ``ucast_<t>`` (reads the operand as
unsigned), and ``bitcast_<t>``.

:func:`compile_array` turns an expression into a function ``f(out, *args)``
that evaluates it with numpy (or cupy: ``xp``) ufuncs writing through
``out=``: the longest chain of same-typed steps writes into ``out`` itself, and
every other subexpression is computed before the first write, so ``out`` may
be one of the operands (an in-place update).  :func:`compile_scalar` gives
``f(*args)`` on scalars.  Both are cached per expression and operand types.
An expression outside the language raises :class:`ExprError`; the dialect's
verifier calls :func:`check` so that such errors are reported at compile
time, at the op.
"""

from __future__ import annotations

import ast
import functools
import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from tfrt.tensor import small_types as st

__all__ = ["ExprError", "FUNCTIONS", "check", "compile_array", "compile_scalar", "dtype_of"]

_GEN_MODULE = "tfrt.kernels.expr_generated"
# Division by zero, log(0), overflow to inf: the IEEE (or wrapped) result is
# the answer, as in compiled code; numpy's warnings would only be noise.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=_GEN_MODULE.replace(".", r"\."))


class ExprError(ValueError):
    """An expression outside the language, or applied to the wrong types."""


# MLIR element type names -> numpy dtypes.  The small floats (bf16, f8*,
# f6*, f4E2M1FN) and i2/i4 are ml_dtypes' types; arithmetic on them is
# computed in f32 (i8) and rounded (wrapped) once per operation
# (``tfrt.tensor.small_types``).  Signed and unsigned spellings (``si8``,
# ``ui8``) are element types too; ``si8`` shares ``i8``'s storage.
DTYPES: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    **st.FLOAT_TYPES,
    "i2": st.INT_TYPES["i2"],
    "i4": st.INT_TYPES["i4"],
    **{f"ui{w}": np.dtype(f"uint{w}") for w in (8, 16, 32, 64)},
    "ui2": st.INT_TYPES["ui2"],
    "ui4": st.INT_TYPES["ui4"],
    **{f"si{w}": np.dtype(f"int{w}") for w in (8, 16, 32, 64)},
    "si2": st.INT_TYPES["i2"],
    "si4": st.INT_TYPES["i4"],
}
# dtype -> name: the signless spelling wins.
_NAMES: dict[np.dtype, str] = {}
for _name, _dt in DTYPES.items():
    _NAMES.setdefault(_dt, _name)
_UNSIGNED = {np.dtype(np.bool_): np.dtype(np.bool_)}
for _dt in DTYPES.values():
    if st.is_integer(_dt) and _dt != np.bool_:
        _UNSIGNED[_dt] = st.unsigned_of(_dt)


def dtype_of(name: str) -> np.dtype:
    try:
        return DTYPES[name]
    except KeyError:
        raise ExprError(f"unknown element type '{name}' (expected one of: {', '.join(DTYPES)})") from None


def type_name(dtype: np.dtype) -> str:
    return _NAMES[np.dtype(dtype)]


# name -> (arity, result kind).  Result kinds: "same" (the operands' type),
# "float" (same; operands must be floats), "int" (same; integers), "bool" (i1),
# "where" (the type of the 2nd operand), "cast" (named by the function).
FUNCTIONS: dict[str, tuple[int, str]] = {
    **{f: (1, "float") for f in (
        "exp", "log", "log1p", "expm1", "log2", "log10", "sqrt", "rsqrt", "tanh", "sin",
        "cos", "tan", "atan", "sigmoid", "erf", "floor", "ceil", "round", "roundeven", "trunc",
    )},
    **{f: (1, "same") for f in ("abs", "neg", "sign")},
    **{f: (2, "same") for f in ("maximum", "minimum", "pow")},
    **{f: (2, "float") for f in ("fmax", "fmin", "atan2", "copysign")},
    "rem": (2, "same"),
    **{f: (2, "int") for f in (
        "floordiv", "ceildiv", "udiv", "urem", "umax", "umin",
        "bitand", "bitor", "bitxor", "shl", "shrs", "shru",
    )},
    "bitnot": (1, "int"),
    "ctpop": (1, "int"),
    **{f: (2, "bool") for f in (
        "lt", "le", "gt", "ge", "eq", "ne", "ult", "ule", "ugt", "uge", "ord", "uno",
    )},
    "isnan": (1, "bool"),
    "where": (3, "where"),
    **{f"cast_{t}": (1, "cast") for t in DTYPES},
    **{f"ucast_{t}": (1, "cast") for t in DTYPES},
    **{f"bitcast_{t}": (1, "cast") for t in DTYPES if t != "i1"},
}

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}


# ---------------------------------------------------------------------------
# Parsing and typing


@dataclass
class _Node:
    fn: str  # "arg", "lit", or an operation name
    args: list["_Node"]
    dtype: np.dtype | None = None  # None: a literal not yet typed
    index: int = -1  # operand number ("arg")
    value: Any = None  # literal value ("lit")
    size: int = 1


def _parse(expr: str, n_operands: int) -> _Node:
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError as exc:
        raise ExprError(f"cannot parse expression '{expr}': {exc.msg}") from None
    return _convert(tree, expr, n_operands)


def _convert(t: ast.AST, expr: str, n: int) -> _Node:
    if isinstance(t, ast.Name) and t.id in ("inf", "nan"):
        return _Node("lit", [], value=float(t.id))
    if isinstance(t, ast.Name):
        name = t.id
        if name[:1] == "a" and name[1:].isdigit():
            i = int(name[1:])
            if i >= n:
                raise ExprError(f"'{name}' in '{expr}': the op has {n} operand(s)")
            return _Node("arg", [], index=i)
        if name in ("True", "False"):
            return _Node("lit", [], value=name == "True")
        raise ExprError(f"unknown name '{name}' in '{expr}' (operands are a0, a1, ...)")
    if isinstance(t, ast.Constant) and type(t.value) in (int, float, bool):
        return _Node("lit", [], value=t.value)
    if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "inf" and not t.args:
        return _Node("lit", [], value=math.inf)
    if isinstance(t, ast.UnaryOp) and isinstance(t.op, (ast.USub, ast.UAdd)):
        inner = _convert(t.operand, expr, n)
        if isinstance(t.op, ast.UAdd):
            return inner
        if inner.fn == "lit":
            return _Node("lit", [], value=-inner.value)
        return _Node("neg", [inner])
    if isinstance(t, ast.BinOp) and type(t.op) in _BINOPS:
        return _Node(_BINOPS[type(t.op)], [_convert(t.left, expr, n), _convert(t.right, expr, n)])
    if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and not t.keywords:
        name = t.func.id
        if name not in FUNCTIONS:
            raise ExprError(f"unknown function '{name}' in '{expr}'")
        arity = FUNCTIONS[name][0]
        if len(t.args) != arity:
            raise ExprError(f"'{name}' takes {arity} argument(s), got {len(t.args)} in '{expr}'")
        return _Node(name, [_convert(a, expr, n) for a in t.args])
    raise ExprError(f"unsupported syntax '{ast.unparse(t)}' in '{expr}'")


def _infer(node: _Node, operand_dtypes: tuple[np.dtype, ...], expr: str) -> None:
    """Give every node a dtype (literals: the dtype of what they meet)."""
    if node.fn == "arg":
        node.dtype = operand_dtypes[node.index]
        return
    if node.fn == "lit":
        return
    for a in node.args:
        _infer(a, operand_dtypes, expr)
    node.size = 1 + sum(a.size for a in node.args)
    kind = "same" if node.fn in ("add", "sub", "mul", "div") else FUNCTIONS[node.fn][1]
    operands = node.args[1:] if kind == "where" else node.args
    typed = [a.dtype for a in operands if a.dtype is not None]
    common = typed[0] if typed else None
    for d in typed[1:]:
        if d != common:
            raise ExprError(
                f"'{node.fn}' in '{expr}' mixes {type_name(common)} and {type_name(d)}; "
                "cast one operand first"
            )
    if common is None and kind not in ("cast",):
        # Only literals: Python's rules pick the type (int -> i64, float -> f64).
        vals = [a.value for a in operands]
        common = np.dtype(np.float64) if any(isinstance(v, float) for v in vals) else (
            np.dtype(np.bool_) if all(isinstance(v, bool) for v in vals) else np.dtype(np.int64)
        )
    if kind != "cast":
        for a in operands:
            if a.dtype is None:
                _type_literal(a, common, expr)
    if kind == "where":
        cond = node.args[0]
        if cond.dtype is None:
            _type_literal(cond, np.dtype(np.bool_), expr)
        if cond.dtype != np.bool_:
            raise ExprError(f"the condition of 'where' in '{expr}' must be i1, not {type_name(cond.dtype)}")
        node.dtype = common
    elif kind == "bool":
        if node.fn in ("ult", "ule", "ugt", "uge") and not st.is_integer(common):
            raise ExprError(f"'{node.fn}' in '{expr}' needs integers, not {type_name(common)}")
        if node.fn in ("ord", "uno", "isnan") and not st.is_float(common):
            raise ExprError(f"'{node.fn}' in '{expr}' needs floats, not {type_name(common)}")
        node.dtype = np.dtype(np.bool_)
    elif kind == "cast":
        src = node.args[0]
        if src.dtype is None:
            _type_literal(src, np.dtype(np.float64) if isinstance(src.value, float) else np.dtype(np.int64), expr)
        target = DTYPES[node.fn.split("_", 1)[1]]
        if node.fn.startswith("bitcast_") and st.bit_width(src.dtype) != st.bit_width(target):
            raise ExprError(f"'{node.fn}' in '{expr}' needs a {st.bit_width(target)}-bit operand")
        node.dtype = target
    else:
        if kind == "float" and not st.is_float(common):
            raise ExprError(f"'{node.fn}' in '{expr}' needs floats, not {type_name(common)}")
        if kind == "int" and not st.is_integer(common):
            raise ExprError(f"'{node.fn}' in '{expr}' needs integers, not {type_name(common)}")
        node.dtype = common


def _type_literal(node: _Node, dtype: np.dtype, expr: str) -> None:
    v = node.value
    integer = st.is_integer(dtype)
    if integer and isinstance(v, float):
        if not v.is_integer():
            raise ExprError(f"literal {v} in '{expr}' meets an integer ({type_name(dtype)}) operand")
        v = int(v)
    if integer and dtype != np.bool_:
        # Wraps, as arith.constant does.
        width = st.int_width(dtype)
        low = 0 if st.is_unsigned(dtype) else -(1 << (width - 1))
        v = (int(v) - low) % (1 << width) + low
    if st.is_small_float(dtype):
        node.value = st.convert(np.float64(v), dtype)  # rounded once (ml_dtypes rounds f64 twice)
    else:
        node.value = dtype.type(v)
    node.dtype = dtype


@functools.lru_cache(maxsize=4096)
def _typed_tree(expr: str, operand_types: tuple[str, ...]) -> _Node:
    root = _parse(expr, len(operand_types))
    dts = tuple(dtype_of(t) for t in operand_types)
    _infer(root, dts, expr)
    if root.dtype is None:
        _type_literal(root, np.dtype(np.float64) if isinstance(root.value, float) else np.dtype(np.int64), expr)
    return root


def check(expr: str, operand_types: tuple[str, ...]) -> str:
    """Check ``expr`` over operands of these element types; its result type
    (spelled as the operand of that type is, so ``si8`` stays ``si8``)."""
    dtype = _typed_tree(expr, tuple(operand_types)).dtype
    for name in operand_types:
        if DTYPES[name] == dtype:
            return name
    return type_name(dtype)


# ---------------------------------------------------------------------------
# Code generation

# Ufuncs that map one to one: name -> numpy attribute.
_UFUNCS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "neg": "negative", "abs": "absolute",
    "sign": "sign", "exp": "exp", "log": "log", "log1p": "log1p", "expm1": "expm1",
    "log2": "log2", "log10": "log10", "sqrt": "sqrt", "tanh": "tanh", "sin": "sin",
    "cos": "cos", "tan": "tan", "atan": "arctan", "floor": "floor", "ceil": "ceil",
    "roundeven": "rint", "trunc": "trunc", "maximum": "maximum", "minimum": "minimum",
    "fmax": "fmax", "fmin": "fmin", "atan2": "arctan2", "copysign": "copysign",
    "pow": "power", "floordiv": "floor_divide", "bitand": "bitwise_and", "bitor": "bitwise_or",
    "bitxor": "bitwise_xor", "bitnot": "invert", "lt": "less", "le": "less_equal",
    "gt": "greater", "ge": "greater_equal", "eq": "equal", "ne": "not_equal", "isnan": "isnan",
    "shl": "left_shift", "shrs": "right_shift",
}


class _Gen:
    """Emits straight-line Python for one expression."""

    def __init__(self, array: bool) -> None:
        self.array = array
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        self.n_tmp = 0
        # In-place safety: operand ``inplace`` may be ``out`` only if no one
        # reads it after the first write into ``out``.
        self.inplace = -1
        self.written = False
        self.inplace_safe = True

    def const(self, value: Any) -> str:
        name = f"_k{len(self.consts)}"
        self.consts[name] = value
        return name

    def tmp(self) -> str:
        self.n_tmp += 1
        return f"t{self.n_tmp}"

    def emit(self, node: _Node, into_out: bool) -> str:
        """Code computing ``node``; with ``into_out`` the result is written to ``out``
        when its type allows (the returned name says where it went)."""
        if node.fn == "arg":
            return f"a{node.index}"
        if node.fn == "lit":
            return self.const(node.value)
        if node.fn.startswith("cast_") and node.args[0].fn == "lit":
            # A cast literal (cast_f32(0.0)) is a constant of the target type.
            return self.const(st.convert(np.asarray(node.args[0].value), node.dtype)[()])
        args = node.args
        # Operands other than the spine are computed first, into temporaries.
        spine = -1
        if into_out and self.array and node.dtype == self.out_dtype:
            cands = [i for i, a in enumerate(args) if a.fn not in ("arg", "lit") and a.dtype == node.dtype]
            if cands:
                spine = max(cands, key=lambda i: args[i].size)
        names = [""] * len(args)
        for i, a in enumerate(args):
            if i != spine:
                names[i] = self.emit(a, False)
        if spine >= 0:
            names[spine] = self.emit(args[spine], True)
        target = "out" if into_out and self.array and node.dtype == self.out_dtype else None
        if self.written and f"a{self.inplace}" in names:
            self.inplace_safe = False
        code = self.op(node, names, target)
        if target:
            self.lines.append(code)
            self.written = True
            return "out"
        t = self.tmp()
        self.lines.append(f"{t} = {code}")
        return t

    def op(self, node: _Node, a: list[str], target: str | None) -> str:
        fn = node.fn
        out = f", out={target}" if target else ""
        dt = node.args[0].dtype if node.args else node.dtype
        if fn in _UFUNCS and not (fn == "abs" and dt == np.bool_):
            if fn in ("maximum", "minimum") and dt == np.bool_:
                fn = "bitor" if fn == "maximum" else "bitand"
            return f"xp.{_UFUNCS[fn]}({', '.join(a)}{out})"
        if fn == "abs":  # |i1| is itself
            return self.finish(a[0], target)
        if fn == "div":
            if st.is_float(dt):
                return f"xp.divide({a[0]}, {a[1]}{out})"
            return self.finish(f"_idiv(xp, {a[0]}, {a[1]})", target)
        if fn == "rem":
            if st.is_float(dt):
                return f"xp.fmod({a[0]}, {a[1]}{out})"
            return self.finish(f"_irem(xp, {a[0]}, {a[1]})", target)
        if fn == "ceildiv":
            return self.finish(f"_ceildiv(xp, {a[0]}, {a[1]})", target)
        if fn in ("udiv", "urem", "umax", "umin", "ult", "ule", "ugt", "uge", "shru"):
            u = self.const(_UNSIGNED[dt])
            ufn = {"udiv": "floor_divide", "urem": "remainder", "umax": "maximum", "umin": "minimum",
                   "ult": "less", "ule": "less_equal", "ugt": "greater", "uge": "greater_equal",
                   "shru": "right_shift"}[fn]
            code = f"xp.{ufn}(_u({a[0]}, {u}), _u({a[1]}, {u}))"
            if node.dtype != np.bool_:
                code = f"_cast({code}, {self.const(node.dtype)})"
            return self.finish(code, target)
        if fn == "rsqrt":
            return self.finish(f"xp.reciprocal(xp.sqrt({a[0]}))", target)
        if fn == "sigmoid":
            one = self.const(node.dtype.type(1))
            return self.finish(f"xp.reciprocal(xp.add(xp.exp(xp.negative({a[0]})), {one}))", target)
        if fn == "erf":
            return self.finish(f"_erf(xp, {a[0]}, {self.const(node.dtype.type)})", target)
        if fn == "round":  # half away from zero (math.round)
            half = self.const(node.dtype.type(0.5))
            return self.finish(f"xp.copysign(xp.floor(xp.add(xp.absolute({a[0]}), {half})), {a[0]})", target)
        if fn == "ord":
            return self.finish(f"xp.logical_not(xp.logical_or(xp.isnan({a[0]}), xp.isnan({a[1]})))", target)
        if fn == "uno":
            return self.finish(f"xp.logical_or(xp.isnan({a[0]}), xp.isnan({a[1]}))", target)
        if fn == "ctpop":
            return self.finish(f"_ctpop(xp, {a[0]})", target)
        if fn == "where":
            return self.finish(f"xp.where({a[0]}, {a[1]}, {a[2]})", target)
        if fn.startswith("cast_"):
            return self.finish(f"_cast({a[0]}, {self.const(node.dtype)})", target)
        if fn.startswith("ucast_"):
            return self.finish(
                f"_cast(_u({a[0]}, {self.const(_UNSIGNED[dt])}), {self.const(node.dtype)})", target
            )
        if fn.startswith("bitcast_"):
            return self.finish(f"_bitcast(xp, {a[0]}, {self.const(node.dtype)})", target)
        raise ExprError(f"no code for '{fn}'")  # pragma: no cover - FUNCTIONS and this table agree

    def finish(self, code: str, target: str | None) -> str:
        if target is None:
            return code
        return f"xp.copyto({target}, {code}, casting='unsafe')"


# Helpers the generated code calls.


def _cast(x, dtype):
    if st.is_narrow(dtype) or st.is_narrow(getattr(x, "dtype", dtype)):
        return st.convert(x, dtype)  # rounded once, with the type's overflow rules
    if hasattr(x, "astype"):
        return x.astype(dtype)
    return dtype.type(x)


def _u(x, utype):
    # The same bits read as unsigned: astype wraps negative values.  i2/i4
    # keep their bits in the low bits of a byte, as ui2/ui4 do (ml_dtypes
    # has no cast between them).
    if st.is_narrow(utype):
        return x.view(utype) if getattr(x, "ndim", 0) else np.asarray(x).view(utype)[()]
    return x.astype(utype) if hasattr(x, "astype") else np.array(x).astype(utype)[()]


def _idiv(xp, a, b):
    # Truncating division (C, arith.divsi); x / 0 gives 0 rather than trapping.
    q = xp.floor_divide(a, b)
    fix = xp.logical_and(xp.not_equal(xp.remainder(a, b), 0), xp.not_equal(xp.less(a, 0), xp.less(b, 0)))
    return q + fix.astype(q.dtype) if hasattr(q, "dtype") and getattr(q, "ndim", 0) else type(q)(q + bool(fix))


def _ceildiv(xp, a, b):
    """arith.ceildivsi: the floor quotient, plus one when inexact (no negation
    that could overflow at the type's minimum); 0 for a zero divisor."""
    q = xp.floor_divide(a, b)
    return xp.add(q, xp.not_equal(xp.remainder(a, b), 0), dtype=q.dtype, casting="unsafe")


def _irem(xp, a, b):
    # Remainder with the dividend's sign (arith.remsi).
    return xp.fmod(a, b)


def _bitcast(xp, x, dtype):
    if getattr(x, "ndim", 0):
        return x.view(dtype)
    return np.asarray(x).view(dtype)[()]


def _ctpop(xp, x):
    ux = x.astype(_UNSIGNED[np.dtype(x.dtype)]) if hasattr(x, "astype") else x
    count = xp.zeros_like(ux)
    for _ in range(st.int_width(x.dtype)):
        count = count + (ux & 1)
        ux = ux >> 1
    return count.astype(x.dtype)


# Abramowitz & Stegun 7.1.26 for half and single precision (|error| < 1.5e-7,
# below f32's half-ulp near erf's saturation); exact math.erf for f64.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_ERF_F64 = np.frompyfunc(math.erf, 1, 1)


def _erf(xp, x, scalar_type):
    if np.dtype(scalar_type) == np.float64:
        if xp is np:
            r = _ERF_F64(x)
            return np.asarray(r, dtype=np.float64) if getattr(x, "ndim", 0) else np.float64(r)
        import cupyx.scipy.special as sp  # pragma: no cover - needs a GPU

        return sp.erf(x)
    ax = xp.absolute(x).astype(np.float64)
    t = 1.0 / (1.0 + _ERF_P * ax)
    a1, a2, a3, a4, a5 = _ERF_A
    y = 1.0 - ((((a5 * t + a4) * t + a3) * t + a2) * t + a1) * t * xp.exp(-ax * ax)
    return _cast(xp.copysign(y, x.astype(np.float64) if hasattr(x, "astype") else float(x)), scalar_type)


_HELPERS = {"_cast": _cast, "_u": _u, "_idiv": _idiv, "_irem": _irem, "_ceildiv": _ceildiv, "_bitcast": _bitcast,
            "_ctpop": _ctpop, "_erf": _erf}


# Integer operations that read their operands as unsigned.
_UNSIGNED_OPS = frozenset({"udiv", "urem", "umax", "umin", "ult", "ule", "ugt", "uge", "shru", "ctpop"})


def _widen(node: _Node, unsigned: bool) -> _Node:
    """``node`` as its compute type (narrow types only; an unsigned read of
    i4 widens 0b1111 to 15, a signed one to -1)."""
    dt = node.dtype
    if dt is None or not st.is_narrow(dt):
        return node
    if unsigned and st.is_integer(dt):
        wide = st.compute_dtype(st.unsigned_of(dt))
        return _Node("ucast_", [node], dtype=wide, size=node.size + 1)
    return _Node("cast_", [node], dtype=st.compute_dtype(dt), size=node.size + 1)


def _lower_narrow(node: _Node) -> _Node:
    """The tree with every operation on a narrow type (bf16, f8, f6, f4, i2,
    i4) computed in its compute type and rounded (or wrapped) back once:
    ``a0 + a1`` on f8E4M3FN becomes ``cast_f8E4M3FN(cast_f32(a0) + cast_f32(a1))``.
    Casts, bitcasts and ``where`` need no arithmetic and keep their types."""
    if node.fn in ("arg", "lit"):
        return node
    args = [_lower_narrow(a) for a in node.args]
    fn = node.fn
    if fn.startswith(("cast_", "ucast_", "bitcast_")) or fn == "where":
        return _Node(fn, args, dtype=node.dtype, size=node.size)
    if not any(a.dtype is not None and st.is_narrow(a.dtype) for a in args):
        return _Node(fn, args, dtype=node.dtype, size=node.size)
    unsigned = fn in _UNSIGNED_OPS
    wide_args = [_widen(a, unsigned) for a in args]
    if node.dtype == np.bool_:
        return _Node(fn, wide_args, dtype=node.dtype, size=node.size)
    computed = _Node(fn, wide_args, dtype=wide_args[0].dtype, size=node.size)
    return _Node("cast_", [computed], dtype=node.dtype, size=node.size + 1)


def _coerce(dtype: np.dtype) -> Callable[[Any], Any]:
    """Reads a Python number or numpy scalar as a scalar of ``dtype``."""
    if not st.is_small_float(dtype):
        return dtype.type
    return lambda v: v if getattr(v, "dtype", None) == dtype else st.convert(np.float64(v), dtype)


def _build(
    expr: str, operand_types: tuple[str, ...], array: bool, xp: Any, inplace: int = -1
) -> Callable[..., Any]:
    root = _lower_narrow(_typed_tree(expr, operand_types))
    gen = _Gen(array)
    gen.inplace = inplace
    gen.out_dtype = root.dtype  # type: ignore[attr-defined]
    params = ", ".join(f"a{i}" for i in range(len(operand_types)))
    if array:
        res = gen.emit(root, True)
        if res != "out":
            gen.lines.append(f"xp.copyto(out, {res}, casting='unsafe')")
        header = f"def _f(out{', ' if params else ''}{params}):"
        gen.lines.append("return out")
    else:
        # Scalars: coerce each operand to its declared type first (Python ints
        # from the API become numpy scalars that wrap at their width).
        coerce = [f"a{i} = _t{i}(a{i})" for i in range(len(operand_types))]
        res = gen.emit(root, False)
        gen.lines = coerce + gen.lines + [f"return {gen.const(root.dtype.type)}({res})"]
        header = f"def _f({params}):"
        for i, t in enumerate(operand_types):
            gen.consts[f"_t{i}"] = _coerce(DTYPES[t])
    source = header + "\n" + "\n".join("    " + line for line in gen.lines) + "\n"
    namespace: dict[str, Any] = {"__name__": _GEN_MODULE, "xp": xp, **_HELPERS, **gen.consts}
    exec(compile(source, f"<tfrt expr: {expr}>", "exec"), namespace)
    fn = namespace["_f"]
    fn.source = source  # type: ignore[attr-defined]
    fn.inplace_safe = gen.inplace_safe  # type: ignore[attr-defined]
    return fn


@functools.lru_cache(maxsize=4096)
def compile_array(
    expr: str, operand_types: tuple[str, ...], xp: Any = np, inplace: int = -1
) -> Callable[..., Any]:
    """``f(out, *operands)``: evaluates ``expr`` elementwise into ``out`` (returns it).

    With ``inplace = k`` the function's ``inplace_safe`` says whether ``out``
    may be operand ``k``'s own buffer (it is read before the first write)."""
    return _build(expr, operand_types, True, xp, inplace)


def inplace_safe(expr: str, operand_types: tuple[str, ...], k: int) -> bool:
    """Whether ``expr`` may write its result into operand ``k``'s buffer."""
    return compile_array(expr, tuple(operand_types), np, k).inplace_safe


@functools.lru_cache(maxsize=4096)
def compile_scalar(expr: str, operand_types: tuple[str, ...]) -> Callable[..., Any]:
    """``f(*operands)``: evaluates ``expr`` on scalars (returns a numpy scalar)."""
    return _build(expr, operand_types, False, np)
