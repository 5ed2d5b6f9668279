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
    "complex<f32>": np.dtype(np.complex64),
    "complex<f64>": np.dtype(np.complex128),
    # (the spellings casts use: cast_complex<f32>(x) reads as cast_complex64(x))
    "complex64": np.dtype(np.complex64),
    "complex128": np.dtype(np.complex128),
}
# Complex types compute natively in numpy; their parts are f32 / f64.
_COMPLEX_PART = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}
_COMPLEX_OF = {v: k for k, v in _COMPLEX_PART.items()}
# Functions of kind "float" that also take complex operands.
_COMPLEX_OK = frozenset({"exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "tanh", "sin", "cos", "tan"})
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
        "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh", "cbrt",
    )},
    **{f: (1, "same") for f in ("abs", "neg", "sign")},
    **{f: (2, "same") for f in ("maximum", "minimum", "pow")},
    **{f: (2, "float") for f in ("fmax", "fmin", "atan2", "copysign")},
    "fma": (3, "float"),
    "powi": (2, "powi"),
    "rem": (2, "same"),
    **{f: (2, "int") for f in (
        "floordiv", "ceildiv", "udiv", "urem", "umax", "umin",
        "bitand", "bitor", "bitxor", "shl", "shrs", "shru",
    )},
    "bitnot": (1, "int"),
    "ctpop": (1, "int"),
    "ctlz": (1, "int"),
    "cttz": (1, "int"),
    **{f: (2, "bool") for f in (
        "lt", "le", "gt", "ge", "eq", "ne", "ult", "ule", "ugt", "uge", "ord", "uno",
    )},
    "isnan": (1, "bool"),
    "where": (3, "where"),
    **{f"cast_{t}": (1, "cast") for t in DTYPES if t.isidentifier()},
    **{f"ucast_{t}": (1, "cast") for t in DTYPES if t.isidentifier() and not t.startswith("complex")},
    **{f"bitcast_{t}": (1, "cast") for t in DTYPES if t not in ("i1", "complex64", "complex128")},
    # complex: the parts of a complex operand, |z| and the conjugate; complex(re, im).
    **{f: (1, "part") for f in ("real", "imag", "cabs")},
    "conj": (1, "complex"),
    "complex": (2, "complex"),
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
    text = expr.replace("complex<f32>", "complex64").replace("complex<f64>", "complex128")
    try:
        tree = ast.parse(text, mode="eval").body
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
    if kind == "powi":  # a float to an integer power: two types
        base, exponent = node.args
        if base.dtype is None:
            _type_literal(base, np.dtype(np.float64), expr)
        if exponent.dtype is None:
            _type_literal(exponent, np.dtype(np.int64), expr)
        if not st.is_float(base.dtype) or not st.is_integer(exponent.dtype):
            raise ExprError(f"'powi' in '{expr}' needs a float and an integer, not "
                            f"{type_name(base.dtype)} and {type_name(exponent.dtype)}")
        node.dtype = base.dtype
        return
    if kind == "complex" and node.fn == "complex":  # two floats of one type -> complex
        for a in node.args:
            if a.dtype is None:
                _type_literal(a, next((b.dtype for b in node.args if b.dtype is not None),
                                      np.dtype(np.float64)), expr)
        re, im = (a.dtype for a in node.args)
        if re != im or re not in _COMPLEX_OF:
            raise ExprError(f"'complex' in '{expr}' needs two f32 or two f64 parts, not "
                            f"{type_name(re)} and {type_name(im)}")
        node.dtype = _COMPLEX_OF[re]
        return
    if kind in ("part", "complex"):  # real(z), imag(z), cabs(z), conj(z)
        (a,) = node.args
        if a.dtype not in _COMPLEX_PART:
            raise ExprError(f"'{node.fn}' in '{expr}' needs a complex operand")
        node.dtype = _COMPLEX_PART[a.dtype] if kind == "part" else a.dtype
        return
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
        if common in _COMPLEX_PART and node.fn not in ("eq", "ne"):
            raise ExprError(f"'{node.fn}' in '{expr}' does not order complex operands")
        if node.fn in ("ord", "uno", "isnan") and not st.is_float(common):
            raise ExprError(f"'{node.fn}' in '{expr}' needs floats, not {type_name(common)}")
        node.dtype = np.dtype(np.bool_)
    elif kind == "cast":
        src = node.args[0]
        if src.dtype is None:
            _type_literal(src, _python_type(src.value), expr)
        target = DTYPES[node.fn.split("_", 1)[1]]
        if src.dtype in _COMPLEX_PART and target not in _COMPLEX_PART:
            raise ExprError(f"'{node.fn}' in '{expr}' would drop the imaginary part; use real()")
        if node.fn.startswith("bitcast_") and st.bit_width(src.dtype) != st.bit_width(target):
            raise ExprError(f"'{node.fn}' in '{expr}' needs a {st.bit_width(target)}-bit operand")
        node.dtype = target
    else:
        if common in _COMPLEX_PART and (kind in ("float", "int") or node.fn in (
                "maximum", "minimum", "rem", "abs")) and node.fn not in _COMPLEX_OK:
            raise ExprError(f"'{node.fn}' in '{expr}' does not take complex operands")
        if kind == "float" and not st.is_float(common) and common not in _COMPLEX_PART:
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
    if dtype == np.bool_ and not isinstance(v, (bool, np.bool_)):
        v = bool(int(v) & 1)  # i1 wraps too: 2 is false, -1 true
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
        _type_literal(root, _python_type(root.value), expr)
    return root


def _python_type(value: Any) -> np.dtype:
    """The type of a literal that meets no operand (``True`` is i1)."""
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    return np.dtype(np.float64) if isinstance(value, float) else np.dtype(np.int64)


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
    "asin": "arcsin", "acos": "arccos", "sinh": "sinh", "cosh": "cosh", "asinh": "arcsinh",
    "acosh": "arccosh", "atanh": "arctanh", "cbrt": "cbrt",
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
            return self.const(_cast(np.asarray(node.args[0].value), node.dtype)[()])
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
        if dt == np.bool_ and fn in _BOOL_FUNCS:
            # i1 arithmetic wraps modulo 2 (arith.addi: true + true is false);
            # |x| and -x of i1 are x; its maximum/minimum are the unsigned ones.
            fn = _BOOL_FUNCS[fn]
            if fn == "same":
                return self.finish(a[0], target)
        if fn in ("maximum", "minimum") and st.is_float(dt):
            return self.float_extremum(node, a, target)
        if dt == np.bool_ and fn in _I1_AS_I8:
            # Computed on the signed values (true is -1) in i8; the low bit back.
            i8 = np.dtype(np.int8)
            fake = _Node(fn, [_Node("arg", [], dtype=i8) for _ in node.args], dtype=i8)
            inner = self.op(fake, [f"_sx({x})" for x in a], None)
            return self.finish(f"_cast({inner}, {self.const(node.dtype)})", target)
        if dt in _COMPLEX_PART or fn in ("real", "imag", "cabs", "conj", "complex"):
            code = self.complex_op(node, fn, a)
            if code is not None:
                return self.finish(code, target)
        if fn == "pow" and st.is_integer(dt):
            return self.finish(f"_ipow(xp, {a[0]}, {a[1]})", target)
        if fn == "pow":
            return self.finish(f"_fpow(xp, {a[0]}, {a[1]})", target)
        if fn == "powi":
            return self.finish(f"_powi(xp, {a[0]}, {a[1]})", target)
        if fn in _UFUNCS:
            return f"xp.{_UFUNCS[fn]}({', '.join(a)}{out})"
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
            if fn not in ("ult", "ule", "ugt", "uge"):  # back to the type (numpy divides i1 in i8)
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
            return self.finish(f"_round(xp, {a[0]})", target)
        if fn == "fma":  # one rounding (math.fma)
            return self.finish(f"_fma(xp, {a[0]}, {a[1]}, {a[2]}, {self.const(node.dtype)})", target)
        if fn in ("ctlz", "cttz"):
            return self.finish(f"_{fn}(xp, {a[0]})", target)
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
        if fn.startswith("ucast_") and st.is_float(dt):  # arith.fptoui
            return self.finish(f"_fptoui({a[0]}, {self.const(node.dtype)})", target)
        if fn.startswith("ucast_"):
            return self.finish(
                f"_cast(_u({a[0]}, {self.const(_UNSIGNED[dt])}), {self.const(node.dtype)})", target
            )
        if fn.startswith("bitcast_"):
            return self.finish(f"_bitcast(xp, {a[0]}, {self.const(node.dtype)})", target)
        raise ExprError(f"no code for '{fn}'")  # pragma: no cover - FUNCTIONS and this table agree

    def complex_op(self, node: _Node, fn: str, a: list[str]) -> str | None:
        """numpy computes complex numbers natively; the forms that differ."""
        if fn in ("real", "imag", "conj"):
            return f"xp.{fn}({a[0]})"
        if fn == "cabs":
            return f"xp.absolute({a[0]})"
        if fn == "complex":
            return f"_complex(xp, {a[0]}, {a[1]}, {self.const(node.dtype)})"
        if fn == "div":
            return f"xp.divide({a[0]}, {a[1]})"
        if fn == "pow":
            return f"xp.power({a[0]}, {a[1]})"
        return None

    def float_extremum(self, node: _Node, a: list[str], target: str | None) -> str:
        """arith.maximumf/minimumf: NaN propagates and -0.0 < +0.0.  Which
        operand numpy's maximum returns on a tie depends on the loop that
        runs; a tie matters only between zeros, so with a constant that is
        no zero numpy's result is exact."""
        fn = node.fn
        out = f", out={target}" if target else ""
        for i in (1, 0):
            value = _literal_value(node.args[i])
            if value is not None and value != 0:
                return f"xp.{fn}({a[1 - i]}, {a[i]}{out})"
            if fn == "maximum" and value == 0 and not np.signbit(value):
                # maximum(x, +0.0) (ReLU): a zero result is +0, and adding +0.0
                # makes any zero +0 and leaves every other value as it is.
                return f"_relu(xp, {a[1 - i]}, {a[i]}{out})"
        return self.finish(f"_f{fn}(xp, {a[0]}, {a[1]})", target)

    def finish(self, code: str, target: str | None) -> str:
        if target is None:
            return code
        return f"xp.copyto({target}, {code}, casting='unsafe')"


# How i1 computes: addition and subtraction are xor (modulo 2), negation and
# |x| are x, the (signed) maximum and minimum of i1, whose true is -1, are the
# numeric minimum and maximum of numpy's False < True.
_BOOL_FUNCS = {"add": "bitxor", "sub": "bitxor", "neg": "same", "abs": "same", "maximum": "bitand",
               "minimum": "bitor", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}  # fmt: skip


# i1 operations computed in i8 on the signed values: division, remainders,
# shifts and powers.
_I1_AS_I8 = frozenset({"div", "rem", "floordiv", "ceildiv", "shl", "shrs", "pow"})


def _complex(xp, re, im, dtype):
    """re + i im in ``dtype`` (the parts kept exactly, infinities and NaNs included)."""
    re, im = xp.asarray(re), xp.asarray(im)
    out = xp.empty(xp.broadcast_shapes(re.shape, im.shape), dtype)
    out.real = re
    out.imag = im
    return out if out.ndim else out[()]


def _sx(x):
    """An i1 as its signed value in i8: true is -1."""
    return np.negative(np.asarray(x).astype(np.int8)) if getattr(x, "ndim", 0) else np.int8(-int(bool(x)))


def _literal_value(node: _Node) -> float | None:
    """The value of a literal operand (``0.0``, ``cast_f32(0.0)``), else None."""
    if node.fn.startswith("cast_") and node.args and node.args[0].fn == "lit":
        node = node.args[0]
    if node.fn != "lit":
        return None
    try:
        return float(node.value)
    except (TypeError, ValueError):
        return None


# Helpers the generated code calls.


def _cast(x, dtype):
    if dtype == np.bool_:
        return _to_i1(x)
    if st.is_narrow(dtype) or st.is_narrow(getattr(x, "dtype", dtype)):
        return st.convert(x, dtype)  # rounded once, with the type's overflow rules
    if hasattr(x, "astype"):
        return x.astype(dtype)
    return dtype.type(x)


def _to_i1(x):
    """A cast to i1 as to any integer: an integer keeps its low bit
    (``arith.trunci``), a float is truncated toward zero first
    (``arith.fptosi``/``fptoui``: 0.5 is false; -1.0 is true, i1's -1)."""
    src = np.dtype(getattr(x, "dtype", None) or np.asarray(x).dtype)
    if src == np.bool_:
        return x
    if st.is_float(src):
        if st.is_narrow(src):
            x = st.convert(x, np.float32)
        return np.not_equal(np.trunc(x), 0)
    if st.is_narrow(src):
        x = np.asarray(x).astype(np.int8)
    return np.not_equal(np.bitwise_and(x, 1), 0)


def _fptoui(x, dtype):
    """arith.fptoui: truncated toward zero and read as an unsigned integer of
    the result's width (f32 3e9 -> i32 is the bits of 3000000000)."""
    if dtype == np.bool_:
        return _to_i1(x)
    if st.is_narrow(getattr(x, "dtype", np.float64)):
        x = st.convert(x, np.float64)
    utype = st.unsigned_of(dtype)
    with np.errstate(invalid="ignore"):
        if st.is_narrow(dtype):  # ui2/ui4 hold their bits as i2/i4 do
            u = np.asarray(np.trunc(x)).astype(np.uint8)
            return np.asarray(st.convert(u, utype)).view(dtype)[()] if not getattr(x, "ndim", 0) else \
                np.asarray(st.convert(u, utype)).view(dtype)
        u = np.asarray(x).astype(utype)
    u = u.view(dtype)
    return u if getattr(x, "ndim", 0) else u[()]


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


def _relu(xp, x, zero, out=None):
    """maximum(x, +0.0) as arith.maximumf computes it: numpy may return
    either zero of a tie, and adding +0.0 makes every zero +0 and leaves
    every other value (NaN included) as it is.  The addition writes the
    maximum's own array: no second temporary (a fresh array per call of a
    large activation costs its page faults again)."""
    r = xp.maximum(x, zero) if out is None else xp.maximum(x, zero, out=out)
    if getattr(r, "ndim", 0):
        return xp.add(r, zero, out=r)
    return xp.add(r, zero)


def _fmaximum(xp, a, b):
    r = xp.maximum(a, b)
    # A zero maximum is +0 unless both operands are negative (numpy may
    # return either zero of a tie).
    z = xp.logical_and(xp.signbit(a), xp.signbit(b))
    return _signed_zero(xp, r, z)


def _fminimum(xp, a, b):
    r = xp.minimum(a, b)
    # A zero minimum is -0 if either operand is negative.
    z = xp.logical_or(xp.signbit(a), xp.signbit(b))
    return _signed_zero(xp, r, z)


def _signed_zero(xp, r, negative):
    """``r``, with its zeros -0 where ``negative`` and +0 elsewhere."""
    zero = r.dtype.type(0)
    return xp.where(xp.equal(r, 0), xp.where(negative, -zero, zero), r)


def _round(xp, x):
    """math.round: half away from zero, without rounding in between
    (floor(|x| + 0.5) rounds 0.49999997 up in the addition): the fraction
    |x| - trunc(|x|) is exact."""
    ax = xp.absolute(x)
    t = xp.trunc(ax)
    one = ax.dtype.type(1) if hasattr(ax, "dtype") else type(ax)(1)
    r = xp.where(xp.greater_equal(ax - t, one / 2), t + one, t)
    return xp.copysign(r, x)


def _fpow(xp, x, y):
    """math.powf, C's pow: numpy's gives pow(-0, 0.5) = -0 and pow(-inf, 0.5)
    = NaN where C gives +0 and +inf (a negative zero or infinity to a power
    that is not an odd integer is the positive one's)."""
    r = xp.power(x, y)
    negative_edge = xp.logical_and(xp.signbit(x), xp.logical_or(xp.equal(x, 0), xp.isinf(x)))
    if not xp.any(negative_edge):
        return r
    odd = xp.equal(xp.absolute(xp.fmod(y, 2)), 1)
    return xp.where(xp.logical_and(negative_edge, xp.logical_not(odd)), xp.power(xp.negative(x), y), r)


def _powi(xp, x, n):
    """math.fpowi: the magnitude from pow(|x|, n) in f64 (exact for every
    i32 exponent; past 2^53 only |x| = 1 is not 0 or inf), the sign from the
    integer's parity, which a float exponent would lose (2147483647 is 2^31
    in f32)."""
    dtype = _dtype(x)
    x64 = np.asarray(x, dtype=np.float64)
    n = np.asarray(n)
    with np.errstate(all="ignore"):
        r = np.power(np.abs(x64), n.astype(np.float64))
    odd = np.bitwise_and(n, 1).astype(bool) if n.dtype != np.bool_ else n
    r = np.where(np.logical_and(odd, np.signbit(x64)), -r, r)
    r = _cast(r, dtype)
    return r if getattr(r, "ndim", 0) else np.asarray(r)[()]


def _ipow(xp, a, b):
    """math.ipowi: repeated multiplication, wrapping; a negative exponent
    gives 1/a^|b| truncated: 1 for a = 1, +-1 for a = -1, else 0 (0 for a
    zero base too, as integer division by zero gives here)."""
    a = xp.asarray(a)
    b = xp.asarray(b)
    dt = np.result_type(a, b)
    one = dt.type(1)
    e = xp.maximum(b, 0).astype(dt)
    base = a.astype(dt)
    r = xp.ones(np.broadcast_shapes(a.shape, b.shape), dt)
    with np.errstate(over="ignore"):
        while bool(xp.any(e)):
            r = xp.where(xp.bitwise_and(e, 1) != 0, r * base, r)
            base = base * base
            e = xp.right_shift(e, 1)
    odd_sign = xp.where(xp.bitwise_and(b, 1) != 0, -one, one)
    neg = xp.where(a == 1, one, xp.where(a == -one, odd_sign, dt.type(0)))
    out = xp.where(b < 0, neg, r).astype(dt)
    return out if out.ndim else out[()]


def _fma(xp, a, b, c, dtype):
    """math.fma: a * b + c rounded once to ``dtype``.

    Operands narrower than f64 multiply exactly in f64 (at most 2 x 24
    significand bits); the sum is rounded to odd in f64 and then to ``dtype``,
    which rounds once because f64 keeps more than two extra bits.  f64 itself:
    the product split exactly (Dekker), the sum rounded to odd in between and
    to nearest at the end (Boldo and Melquiond's emulation of an FMA); where
    that can underflow or overflow, exact rational arithmetic."""
    dtype = np.dtype(dtype)  # (numpy only: on a GPU the expression is CUDA C, whose fma rounds once)
    scalar = not any(getattr(v, "ndim", 0) for v in (a, b, c))
    a64, b64, c64 = (np.asarray(st.convert(v, np.float64) if st.is_narrow(getattr(v, "dtype", dtype)) else v,
                                dtype=np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        if dtype == np.float64:
            r = _fma_f64(a64, b64, c64)
        else:
            p = a64 * b64  # exact
            r = _add_odd(p, c64)
            r = st.convert(r, dtype) if st.is_narrow(dtype) else r.astype(dtype)
    r = np.asarray(r)
    return r[()] if scalar else r


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _add_odd(a, b):
    """a + b rounded to odd (f64): the nearest sum, moved one unit toward the
    exact sum when it is inexact and its last bit even."""
    s, e = _two_sum(a, b)
    bits = np.asarray(s).view(np.int64)
    fix = np.isfinite(e) & (e != 0) & ((bits & 1) == 0)
    if np.any(fix):
        toward = np.where(e > 0, np.inf, -np.inf)
        s = np.where(fix, np.nextafter(s, toward), s)
    return s


def _split(a):
    t = a * 134217729.0  # 2^27 + 1
    hi = t - (t - a)
    return hi, a - hi


def _fma_f64(a, b, c):
    a, b, c = np.broadcast_arrays(a, b, c)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # p + e = a * b exactly
    th, tl = _two_sum(c, p)
    v = _add_odd(tl, e)
    r = th + v
    # Where the steps above are exact: finite operands, a product and a sum
    # far from overflow and from the subnormals.  Zero and non-finite
    # operands: a * b + c rounds once there too.
    finite_ab = np.isfinite(a) & np.isfinite(b)
    # (A finite product meeting an infinite or NaN c is c, even where a * b
    # alone would overflow.)
    naive = np.where(finite_ab & ~np.isfinite(c), c, a * b + c)
    special = (a == 0) | (b == 0) | ~finite_ab | ~np.isfinite(c)
    big = 2.0**995
    small = 2.0**-960
    safe = (np.abs(a) < big) & (np.abs(b) < big) & (np.abs(p) < big) & (np.abs(c) < big) & \
        (np.abs(p) > small) & ((np.abs(r) > small) | (r == 0) & (th == 0) & (v == 0) & (e == 0))
    out = np.where(special, naive, r)
    slow = ~special & ~safe
    if np.any(slow):
        out = np.array(out, dtype=np.float64)
        for i in zip(*np.nonzero(slow)) if out.ndim else [()]:
            out[i] = _fma_exact(float(a[i]), float(b[i]), float(c[i]))
    return out


def _fma_exact(a: float, b: float, c: float) -> float:
    from fractions import Fraction

    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        # An exact zero sum of non-zero terms is +0 (round to nearest).
        return 0.0
    try:
        return float(exact)  # correctly rounded, subnormals included
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def _ctlz(xp, x):
    """math.ctlz: leading zero bits in the type's width (the width for 0)."""
    width = st.int_width(_dtype(x))
    return _from_count(_clz_count(_bits_u64(x, width), width), x)


def _cttz(xp, x):
    """math.cttz: trailing zero bits (the width for 0)."""
    width = st.int_width(_dtype(x))
    u = _bits_u64(x, width)
    low = u & (~u + np.uint64(1))  # the lowest set bit alone
    n = np.where(u == 0, width, width - 1 - _clz_count(low, width))
    return _from_count(n, x)


def _dtype(x) -> np.dtype:
    return np.dtype(x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype)


def _mask(width: int) -> np.uint64:
    return np.uint64((1 << width) - 1)


def _bits_u64(x, width):
    """The low ``width`` bits of each element, as uint64."""
    a = np.asarray(x)
    if a.dtype == np.bool_:
        return a.astype(np.uint64)
    if st.is_narrow(a.dtype):
        a = a.astype(np.int8)
    return a.astype(np.int64).view(np.uint64) & _mask(width)


def _clz_count(u, width):
    """Leading zeros of the low ``width`` bits of u (uint64), by halving:
    where the top ``shift`` bits are clear, count them and shift them out."""
    n = np.zeros(u.shape, np.int64)
    v = u.copy()
    for shift in (32, 16, 8, 4, 2, 1):
        if shift >= width:
            continue
        empty = (v >> np.uint64(width - shift)) == 0
        n = np.where(empty, n + shift, n)
        v = np.where(empty, (v << np.uint64(shift)) & _mask(width), v)
    return np.where(u == 0, width, n)


def _from_count(n, x):
    r = _cast(np.asarray(n, np.int64), _dtype(x))
    return r if getattr(x, "ndim", 0) else np.asarray(r)[()]


def _ctpop(xp, x):
    ux = x.astype(_UNSIGNED[np.dtype(x.dtype)]) if hasattr(x, "astype") else x
    count = xp.zeros_like(ux)
    for _ in range(st.int_width(x.dtype)):
        count = count + (ux & 1)
        ux = ux >> 1
    return count.astype(x.dtype)


# erf: math.erf (the C library's, within an ulp) for f64.  For f16, f32 and
# the types computed in f32, a table of degree-9 polynomials over sixteen
# intervals of width 1/4 on [0, 4), fitted at first use to math.erf at
# Chebyshev nodes and evaluated in f64 (relative error below 1e-11: the f32
# result is the nearest one but for values within 1e-11 of a rounding
# boundary); the first interval fits erf(x)/x, so erf(x) ~ 2x/sqrt(pi) keeps
# its relative accuracy down to the smallest subnormal.  Past 4, erf rounds to
# +-1 in f32.
_ERF_F64 = np.frompyfunc(math.erf, 1, 1)
_ERF_PIECES = 16
_ERF_WIDTH = 0.25
_ERF_DEGREE = 9


@functools.lru_cache(maxsize=1)
def _erf_table() -> np.ndarray:
    from numpy.polynomial import chebyshev

    nodes = np.cos(np.pi * (np.arange(40) + 0.5) / 40)  # on [-1, 1]
    table = np.zeros((_ERF_DEGREE + 1, _ERF_PIECES))
    for k in range(_ERF_PIECES):
        xs = (k + 0.5 + nodes / 2) * _ERF_WIDTH
        if k == 0:
            ys = [math.erf(x) / x for x in xs]
        else:
            ys = [math.erf(x) for x in xs]
        cheb = chebyshev.chebfit(nodes, ys, _ERF_DEGREE)
        table[:, k] = chebyshev.cheb2poly(cheb)  # in s = (x - centre) / (width / 2)
    return table


def _erf(xp, x, scalar_type):
    if np.dtype(scalar_type) == np.float64:
        if xp is np:
            r = _ERF_F64(x)
            return np.asarray(r, dtype=np.float64) if getattr(x, "ndim", 0) else np.float64(r)
        import cupyx.scipy.special as sp  # pragma: no cover - needs a GPU

        return sp.erf(x)
    table = _erf_table()
    xd = np.asarray(x, dtype=np.float64)
    ax = np.abs(xd)
    k = np.minimum(ax * (1 / _ERF_WIDTH), _ERF_PIECES - 1).astype(np.intp)
    k = np.where(np.isnan(ax), 0, k)
    s = (ax - (k + 0.5) * _ERF_WIDTH) * (2 / _ERF_WIDTH)
    r = np.take(table[_ERF_DEGREE], k)
    for row in table[_ERF_DEGREE - 1 :: -1]:
        r = r * s + np.take(row, k)
    r = np.where(k == 0, r * ax, r)
    r = np.where(ax >= _ERF_PIECES * _ERF_WIDTH, 1.0, r)
    r = np.copysign(r, xd)  # NaN stays NaN; -0 gives -0
    return _cast(r, np.dtype(scalar_type)) if getattr(x, "ndim", 0) else _cast(r[()], np.dtype(scalar_type))


_HELPERS = {"_cast": _cast, "_u": _u, "_idiv": _idiv, "_irem": _irem, "_ceildiv": _ceildiv, "_bitcast": _bitcast,
            "_ctpop": _ctpop, "_erf": _erf, "_round": _round, "_fma": _fma, "_ipow": _ipow, "_ctlz": _ctlz,
            "_cttz": _cttz, "_fptoui": _fptoui, "_fmaximum": _fmaximum, "_fminimum": _fminimum, "_relu": _relu,
            "_fpow": _fpow, "_powi": _powi, "_sx": _sx, "_complex": _complex}  # fmt: skip


# Integer operations that read their operands as unsigned.
_UNSIGNED_OPS = frozenset({"udiv", "urem", "umax", "umin", "ult", "ule", "ugt", "uge", "shru", "ctpop"})
# Operations whose helper takes a narrow type as it is: fma rounds once from
# f64 (computing in f32 would round twice); the bit counts need the width.
_NARROW_AS_IS = frozenset({"fma", "ctlz", "cttz"})


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
    if fn in _NARROW_AS_IS or not any(a.dtype is not None and st.is_narrow(a.dtype) for a in args):
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
