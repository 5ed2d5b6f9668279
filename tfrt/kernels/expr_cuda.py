"""The expression language (``tfrt.kernels.expr``) as CUDA C, for ``cupy.ElementwiseKernel``.

On a GPU a fused ``tfrt_array.elementwise`` (or a matmul/conv epilogue) is
one generated kernel: each thread reads its elements of the operands,
evaluates the whole expression in registers and writes one element of
``out``, so a chain of N ops is one pass over memory instead of N.

:func:`cuda_source` gives the pieces (``in_params``, ``out_params``, the
``operation`` body and the helper ``preamble``) and needs only numpy, so the
generator is tested without a GPU; :func:`compile_cupy` builds the kernel.

Semantics follow the numpy path: literals take their operands' type; integer
``/`` truncates and ``rem`` takes the dividend's sign (0 for a zero divisor,
as numpy gives); shifts by the bit width or more give 0 (``shrs``: the sign);
``maximum``/``minimum`` propagate NaN and order -0.0 below +0.0; ``i1``
adds and subtracts modulo 2 and orders true (-1) below false; casts are C
casts, but for a cast to ``i1`` (the low bit; a float truncated first) and
``fptoui`` (through the unsigned type).  ``f16`` values are computed in
``float`` registers and rounded when stored.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from tfrt.kernels.expr import _Node, _typed_tree

__all__ = ["cuda_source", "compile_cupy", "PREAMBLE"]

# Element type -> (cupy parameter type, C type of a stored value, C type computed in).
_TYPES: dict[str, tuple[str, str, str]] = {
    "b": ("bool", "bool", "bool"),
    "i1": ("int8", "signed char", "signed char"),
    "i2": ("int16", "short", "short"),
    "i4": ("int32", "int", "int"),
    "i8": ("int64", "long long", "long long"),
    "f2": ("float16", "float16", "float"),
    "f4": ("float32", "float", "float"),
    "f8": ("float64", "double", "double"),
}
_UNSIGNED = {"b": "unsigned char", "i1": "unsigned char", "i2": "unsigned short",
             "i4": "unsigned int", "i8": "unsigned long long"}  # fmt: skip


def _key(dtype: np.dtype) -> str:
    dtype = np.dtype(dtype)
    return "b" if dtype.kind == "b" else f"{dtype.kind}{dtype.itemsize}"


def _param(dtype: np.dtype) -> str:
    return _TYPES[_key(dtype)][0]


def _ctype(dtype: np.dtype) -> str:
    """The C type a value of ``dtype`` is computed in."""
    return _TYPES[_key(dtype)][2]


def _stored(dtype: np.dtype) -> str:
    return _TYPES[_key(dtype)][1]


PREAMBLE = r"""
template <typename T> __device__ T _tfrt_fmax_nan(T a, T b) {
  return (a != a || b != b) ? a + b : (a > b ? a : (b > a ? b : (signbit(a) ? b : a)));
}
template <typename T> __device__ T _tfrt_fmin_nan(T a, T b) {
  return (a != a || b != b) ? a + b : (a < b ? a : (b < a ? b : (signbit(a) ? a : b)));
}
template <typename T> __device__ T _tfrt_idiv(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); }
template <typename T> __device__ T _tfrt_irem(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }
template <typename T> __device__ T _tfrt_floordiv(T a, T b) {
  if (b == 0) return (T)0;
  T q = (T)(a / b);
  return ((a % b) != 0 && ((a < 0) != (b < 0))) ? (T)(q - 1) : q;
}
template <typename T> __device__ T _tfrt_ceildiv(T a, T b) {
  if (b == 0) return (T)0;
  T q = (T)(a / b);
  return ((a % b) != 0 && ((a < 0) == (b < 0))) ? (T)(q + 1) : q;
}
template <typename T> __device__ T _tfrt_ipow(T base, T e) {
  if (e < 0) return base == 1 ? (T)1 : (base == -1 ? ((e & 1) ? (T)-1 : (T)1) : (T)0);
  T r = 1;
  while (e) { if (e & 1) r = (T)(r * base); base = (T)(base * base); e >>= 1; }
  return r;
}
template <typename T> __device__ T _tfrt_powi(T x, long long n) {
  double r = pow(fabs((double)x), (double)n);
  return (T)(((n & 1) && signbit((double)x)) ? -r : r);
}
template <typename T> __device__ T _tfrt_sign(T x) { return x != x ? x : (T)((x > 0) - (x < 0)); }
template <typename T> __device__ T _tfrt_abs(T x) { return x < 0 ? (T)(-x) : x; }
template <typename T, typename U> __device__ T _tfrt_shl(T a, T b) {
  return (b < 0 || b >= (T)(8 * sizeof(T))) ? (T)0 : (T)((U)a << (U)b);
}
template <typename T> __device__ T _tfrt_shrs(T a, T b) {
  return (b < 0 || b >= (T)(8 * sizeof(T))) ? (T)(a < 0 ? -1 : 0) : (T)(a >> b);
}
template <typename T, typename U> __device__ T _tfrt_shru(T a, T b) {
  return (b < 0 || b >= (T)(8 * sizeof(T))) ? (T)0 : (T)((U)a >> (U)b);
}
template <typename T, typename S> __device__ T _tfrt_bitcast(S s) {
  T t;
  memcpy(&t, &s, sizeof(T));
  return t;
}
__device__ int _tfrt_popcount(unsigned long long x) { return __popcll(x); }
__device__ int _tfrt_ctlz(unsigned long long x, int width) { return __clzll((long long)x) - (64 - width); }
__device__ int _tfrt_cttz(unsigned long long x, int width) {
  return x == 0 ? width : __ffsll((long long)x) - 1;
}
"""


class _Gen:
    def __init__(self) -> None:
        self.n_args = 0

    def lit(self, node: _Node) -> str:
        v, dt = node.value, np.dtype(node.dtype)
        c = _ctype(dt)
        if dt.kind == "b":
            return "true" if v else "false"
        if dt.kind == "f":
            f = float(v)
            # NVRTC has no <math.h>: no NAN or INFINITY.  CuPy prepends
            # cupy/math_constants.h to every kernel, whose names CuPy's own
            # generated code uses for these (cupy/_core/_scalar.pyx).
            double = c == "double"
            if f != f:
                return f"(({c}){'CUDART_NAN' if double else 'CUDART_NAN_F'})"
            if f in (float("inf"), float("-inf")):
                return f"(({c}){'-' if f < 0 else ''}{'CUDART_INF' if double else 'CUDART_INF_F'})"
            return f"(({c}){f!r})"
        i = int(v)
        if dt.itemsize == 8 and i == -(1 << 63):
            return "((long long)(-9223372036854775807LL - 1))"
        return f"(({c}){i}LL)"

    def emit(self, node: _Node) -> str:
        fn = node.fn
        if fn == "arg":
            return f"(({_ctype(node.dtype)})a{node.index})"
        if fn == "lit":
            return self.lit(node)
        a = [self.emit(x) for x in node.args]
        dt = np.dtype(node.dtype)
        c = _ctype(dt)
        arg_dt = np.dtype(node.args[-1].dtype) if node.args else dt
        is_float = arg_dt.kind == "f"
        is_int = arg_dt.kind in "iu"
        wrap = (lambda s: f"(({c})({s}))")  # noqa: E731 - integer ops wrap to the type

        if fn in ("add", "sub", "mul"):
            op = {"add": "+", "sub": "-", "mul": "*"}[fn]
            if dt.kind == "b":  # modulo 2
                op = "&" if fn == "mul" else "^"
            return wrap(f"{a[0]} {op} {a[1]}")
        if fn == "div":
            return f"({a[0]} / {a[1]})" if is_float else f"_tfrt_idiv<{c}>({a[0]}, {a[1]})"
        if fn == "neg":
            return wrap(f"-{a[0]}") if dt.kind != "b" else a[0]
        if fn == "abs":
            return f"fabs({a[0]})" if is_float else f"_tfrt_abs<{c}>({a[0]})"
        if fn == "sign":
            return f"_tfrt_sign<{c}>({a[0]})"
        if fn in ("maximum", "minimum"):
            if is_float:
                return f"_tfrt_f{'max' if fn == 'maximum' else 'min'}_nan<{c}>({a[0]}, {a[1]})"
            op = ">" if fn == "maximum" else "<"
            if dt.kind == "b":  # signed: true is -1
                op = "<" if fn == "maximum" else ">"
            return f"(({a[0]}) {op} ({a[1]}) ? ({a[0]}) : ({a[1]}))"
        if fn == "pow":
            return f"pow({a[0]}, {a[1]})" if is_float else f"_tfrt_ipow<{c}>({a[0]}, {a[1]})"
        if fn == "powi":  # the sign from the integer's parity
            return f"_tfrt_powi<{c}>({a[0]}, (long long)({a[1]}))"
        if fn in ("fmax", "fmin", "atan2", "copysign"):
            return f"{fn}({a[0]}, {a[1]})"
        if fn == "rem":
            return f"fmod({a[0]}, {a[1]})" if is_float else f"_tfrt_irem<{c}>({a[0]}, {a[1]})"
        if fn == "floordiv":
            return f"_tfrt_floordiv<{c}>({a[0]}, {a[1]})"
        if fn == "ceildiv":
            return f"_tfrt_ceildiv<{c}>({a[0]}, {a[1]})"
        if fn in ("udiv", "urem", "umax", "umin", "ult", "ule", "ugt", "uge"):
            u = _UNSIGNED[_key(arg_dt)]
            x, y = f"(({u}){a[0]})", f"(({u}){a[1]})"
            if fn == "udiv":
                return wrap(f"{y} == 0 ? 0 : {x} / {y}")
            if fn == "urem":
                return wrap(f"{y} == 0 ? 0 : {x} % {y}")
            if fn in ("umax", "umin"):
                return wrap(f"{x} {'>' if fn == 'umax' else '<'} {y} ? {x} : {y}")
            op = {"ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}[fn]
            return f"({x} {op} {y})"
        if fn in ("bitand", "bitor", "bitxor"):
            op = {"bitand": "&", "bitor": "|", "bitxor": "^"}[fn]
            return wrap(f"{a[0]} {op} {a[1]}")
        if fn == "bitnot":
            return f"(!{a[0]})" if dt.kind == "b" else wrap(f"~{a[0]}")
        if fn in ("shl", "shru"):
            return f"_tfrt_{fn}<{c}, {_UNSIGNED[_key(dt)]}>({a[0]}, {a[1]})"
        if fn == "shrs":
            return f"_tfrt_shrs<{c}>({a[0]}, {a[1]})"
        if fn == "ctpop":
            return wrap(f"_tfrt_popcount(({_UNSIGNED[_key(dt)]}){a[0]})")
        if fn in ("ctlz", "cttz"):
            width = 1 if dt.kind == "b" else 8 * dt.itemsize
            return wrap(f"_tfrt_{fn}((unsigned long long)({_UNSIGNED[_key(dt)]}){a[0]}, {width})")
        if fn == "fma":
            return f"fma({a[0]}, {a[1]}, {a[2]})"
        if fn in ("lt", "le", "gt", "ge", "eq", "ne"):
            op = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}[fn]
            if arg_dt.kind == "b":  # signed: true (-1) < false
                op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
            return f"({a[0]} {op} {a[1]})"
        if fn == "ord":
            return f"(!isnan({a[0]}) && !isnan({a[1]}))"
        if fn == "uno":
            return f"(isnan({a[0]}) || isnan({a[1]}))"
        if fn == "isnan":
            return f"isnan({a[0]})"
        if fn == "where":
            return f"({a[0]} ? {a[1]} : {a[2]})"
        if fn == "rsqrt":
            return f"(({c})1 / sqrt({a[0]}))"
        if fn == "sigmoid":
            return f"(({c})1 / (({c})1 + exp(-{a[0]})))"
        if fn == "roundeven":
            return f"rint({a[0]})"
        if fn in ("exp", "log", "log1p", "expm1", "log2", "log10", "sqrt", "tanh", "sin", "cos", "tan",
                  "atan", "erf", "floor", "ceil", "round", "trunc", "asin", "acos", "sinh", "cosh",
                  "asinh", "acosh", "atanh", "cbrt"):  # fmt: skip
            return f"{fn}({a[0]})"
        if fn.startswith(("cast_", "ucast_")) and dt.kind == "b":
            src = np.dtype(node.args[0].dtype)
            if src.kind == "f":  # truncated toward zero: 0.5 is false
                return f"(trunc({a[0]}) != 0)"
            return a[0] if src.kind == "b" else f"((({a[0]}) & 1) != 0)"  # the low bit
        if fn.startswith("cast_"):
            return f"(({c}){a[0]})"
        if fn.startswith("ucast_"):
            src = np.dtype(node.args[0].dtype)
            if src.kind == "f":  # arith.fptoui: through the unsigned type
                return f"(({c})(({_UNSIGNED[_key(dt)]}){a[0]}))"
            inner = a[0] if src.kind == "b" else f"(({_UNSIGNED[_key(src)]}){a[0]})"
            return f"(({c}){inner})"
        if fn.startswith("bitcast_"):
            src = np.dtype(node.args[0].dtype)
            value = f"(({_stored(src)}){a[0]})"
            return f"(({c})_tfrt_bitcast<{_stored(dt)}, {_stored(src)}>({value}))"
        raise ValueError(f"no CUDA form for '{fn}'")  # every FUNCTIONS entry is handled above


def cuda_source(expr: str, operand_types: tuple[str, ...]) -> tuple[str, str, str, str]:
    """``(in_params, out_params, operation, preamble)`` of the kernel computing ``expr``."""
    from tfrt.kernels.expr import dtype_of

    root = _typed_tree(expr, tuple(operand_types))
    in_params = ", ".join(f"{_param(dtype_of(t))} a{i}" for i, t in enumerate(operand_types))
    out_dt = np.dtype(root.dtype)
    out_params = f"{_param(out_dt)} out"
    body = _Gen().emit(root)
    operation = f"out = ({_stored(out_dt)})({body});"
    return in_params, out_params, operation, PREAMBLE


_KERNELS: dict[tuple[str, tuple[str, ...]], Any] = {}


def compile_cupy(expr: str, operand_types: tuple[str, ...], cupy: Any) -> Any:
    """A function ``f(out, *args)`` running ``expr`` as one ``cupy.ElementwiseKernel``."""
    key = (expr, tuple(operand_types))
    kernel = _KERNELS.get(key)
    if kernel is None:
        in_params, out_params, operation, preamble = cuda_source(expr, operand_types)
        digest = hashlib.sha1(repr(key).encode()).hexdigest()[:12]
        kernel = cupy.ElementwiseKernel(in_params, out_params, operation, f"tfrt_fused_{digest}",
                                        preamble=preamble)  # fmt: skip
        _KERNELS[key] = kernel

    ndarray = cupy.ndarray
    may_share_memory = cupy.may_share_memory

    def run(out: Any, *args: Any) -> Any:
        # An ElementwiseKernel copies nothing (CuPy's ufuncs copy an input
        # that overlaps the output; ElementwiseKernel.__call__ does not): an
        # operand that shares out's memory through another view would be
        # read after other threads wrote it.  Such an operand is copied.
        for k, a in enumerate(args):
            if a is not out and isinstance(a, ndarray) and may_share_memory(a, out):
                args = args[:k] + (a.copy(),) + args[k + 1 :]
        kernel(*args, out)
        return out

    # Each thread reads its operands' elements before writing its own element
    # of out, and an operand overlapping out otherwise is copied first: out
    # may be an operand.
    run.inplace_safe = True  # type: ignore[attr-defined]
    return run
